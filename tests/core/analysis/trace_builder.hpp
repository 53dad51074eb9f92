#pragma once
// Builds small synthetic traces straight from the spec's worked examples (§7).
#include <QString>

#include <functional>
#include <string>
#include <vector>

namespace sstest {

struct StepSpec {
  std::string name;
  int64_t st = 0;                                      // root ts (int µs)
  std::string dur = "8000.0";                          // root dur as JSON text
  std::vector<int> kernelDurs = {40, 40, 40, 40, 40};  // per launch j
  bool launches = true;
};

inline std::string vllmDetailedName(int C, int cs, int G, int gs) {
  return "execute_" + std::to_string(cs + gs) + "_context_" + std::to_string(C) + "(sq" + std::to_string(cs) + "sk" +
         std::to_string(cs) + "sqsq" + std::to_string(static_cast<long long>(cs) * cs) + "sqsk" +
         std::to_string(static_cast<long long>(cs) * cs) + ")_generation_" + std::to_string(G) + "(sq" +
         std::to_string(gs) + "sk" + std::to_string(100 * gs) + "sqsq" + std::to_string(gs) + "sqsk" +
         std::to_string(100 * gs) + ")";
}

/// E6-style trace: roots on pid 1 / tid 1, five launches per step (cpu_op +
/// hipLaunchKernel + kernel + ac2g s/f), kernel j=0 an NCCL all-reduce.
/// `extraEvents` are appended verbatim (JSON objects).
inline std::string e6Trace(const std::vector<StepSpec>& steps, const std::vector<std::string>& extraEvents = {},
                           bool withMetadata = true) {
  std::string ev;
  auto add = [&](const std::string& s) {
    if (!ev.empty()) ev += ",\n";
    ev += s;
  };
  if (withMetadata) add(R"({"ph":"M","name":"process_name","pid":1,"args":{"name":"python"}})");
  int c = 1;
  for (const StepSpec& s : steps) {
    add(R"({"ph":"X","cat":"user_annotation","name":")" + s.name + R"(","pid":1,"tid":1,"ts":)" + std::to_string(s.st) +
        R"(,"dur":)" + s.dur + R"(,"args":{}})");
    if (!s.launches) continue;
    for (size_t j = 0; j < s.kernelDurs.size(); ++j, ++c) {
      const int64_t b = s.st + 100 * static_cast<int64_t>(j);
      const std::string cs = std::to_string(c);
      add(R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":)" + std::to_string(b) +
          R"(,"dur":50,"args":{"correlation":)" + cs + R"(,"Input Dims":[[16,4096],[4096,4096]]}})");
      add(R"({"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":1,"tid":1,"ts":)" + std::to_string(b + 10) +
          R"(,"dur":5,"args":{"correlation":)" + cs + "}}");
      add(R"({"ph":"X","cat":"kernel","name":")" + std::string(j == 0 ? "ncclDevKernel_AllReduce" : "gemm_kernel") +
          R"(","pid":0,"tid":7,"ts":)" + std::to_string(b + 20) + R"(,"dur":)" + std::to_string(s.kernelDurs[j]) +
          R"(,"args":{"correlation":)" + cs + R"(,"stream":7,"device":0}})");
      add(R"({"ph":"s","id":)" + cs + R"(,"pid":1,"tid":1,"ts":)" + std::to_string(b + 10) +
          R"(,"cat":"ac2g","name":"ac2g"})");
      add(R"({"ph":"f","id":)" + cs + R"(,"pid":0,"tid":7,"ts":)" + std::to_string(b + 20) +
          R"(,"cat":"ac2g","name":"ac2g","bp":"e"})");
    }
  }
  for (const auto& x : extraEvents) add(x);
  return "{\"traceEvents\": [\n" + ev +
         "\n], \"schemaVersion\": 1, \"deviceProperties\": [{\"id\":0,\"name\":\"X\"}], \"distributedInfo\": "
         "{\"rank\":0}}";
}

/// The 48 steps of spec E6.
inline std::vector<StepSpec> e6Steps() {
  std::vector<StepSpec> out;
  for (int i = 0; i < 48; ++i) {
    StepSpec s;
    s.st = 1000000 + 10000LL * i;
    if (i < 4)
      s.name = vllmDetailedName(0, 0, 2 + i, 2 + i);
    else if (i < 44)
      s.name = ((i - 4) % 4 == 0) ? vllmDetailedName(1, 512, 15, 15) : vllmDetailedName(0, 0, 16, 16);
    else
      s.name = vllmDetailedName(0, 0, 48 - i, 48 - i);
    out.push_back(s);
  }
  return out;
}

/// Root durations of spec E8 / E14 (the duration finder's worked example).
inline std::vector<int64_t> e8Durations() { return {3100, 3050, 5200, 3080, 3070, 3090, 3060, 3075, 3085, 4900}; }

/// The `xdit_trace.json.gz` trace of spec E8: top-level key `traceEvents`
/// only; `ProfilerStep#i` user_annotation roots on pid 1 / tid 1, back to
/// back from ts 1000000 with e8Durations(); per step 8 cpu_op "aten::mm" at
/// ts + 10 + 300j (dur 200, correlation, Input Dims [[256,1024],[1024,1024]]),
/// each with one kernel "gemm" 10 µs later (dur 180) on pid 1 / tid 2. No
/// launches, flows or metadata.
inline std::string e8Trace() {
  std::string ev;
  auto add = [&](const std::string& s) {
    if (!ev.empty()) ev += ",\n";
    ev += s;
  };
  int64_t ts = 1000000;
  int c = 1;
  const std::vector<int64_t> durs = e8Durations();
  for (size_t i = 0; i < durs.size(); ++i) {
    add(R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#)" + std::to_string(i) +
        R"(","pid":1,"tid":1,"ts":)" + std::to_string(ts) + R"(,"dur":)" + std::to_string(durs[i]) + "}");
    for (int j = 0; j < 8; ++j, ++c) {
      const int64_t b = ts + 10 + 300LL * j;
      const std::string cs = std::to_string(c);
      add(R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":)" + std::to_string(b) +
          R"(,"dur":200,"args":{"correlation":)" + cs + R"(,"Input Dims":[[256,1024],[1024,1024]]}})");
      add(R"({"ph":"X","cat":"kernel","name":"gemm","pid":1,"tid":2,"ts":)" + std::to_string(b + 10) +
          R"(,"dur":180,"args":{"correlation":)" + cs + "}}");
    }
    ts += durs[i];
  }
  return "{\"traceEvents\": [\n" + ev + "\n]}";
}

/// The `custom.json` trace of spec E14: ten user_annotation roots
/// `my_custom_step_i` with the E8 durations, back to back from ts 1000000 on
/// pid 1 / tid 1; per step 8 cuda_runtime "hipLaunchKernel" at ts + 10 + 300j
/// (dur 20, correlation, no Input Dims), each with one kernel "gemm" 10 µs
/// later (dur 180) on pid 1 / tid 2.
inline std::string e14Trace() {
  std::string ev;
  auto add = [&](const std::string& s) {
    if (!ev.empty()) ev += ",\n";
    ev += s;
  };
  int64_t ts = 1000000;
  int c = 1;
  const std::vector<int64_t> durs = e8Durations();
  for (size_t i = 0; i < durs.size(); ++i) {
    add(R"({"ph":"X","cat":"user_annotation","name":"my_custom_step_)" + std::to_string(i) +
        R"(","pid":1,"tid":1,"ts":)" + std::to_string(ts) + R"(,"dur":)" + std::to_string(durs[i]) + "}");
    for (int j = 0; j < 8; ++j, ++c) {
      const int64_t b = ts + 10 + 300LL * j;
      const std::string cs = std::to_string(c);
      add(R"({"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":1,"tid":1,"ts":)" + std::to_string(b) +
          R"(,"dur":20,"args":{"correlation":)" + cs + "}}");
      add(R"({"ph":"X","cat":"kernel","name":"gemm","pid":1,"tid":2,"ts":)" + std::to_string(b + 10) +
          R"(,"dur":180,"args":{"correlation":)" + cs + "}}");
    }
    ts += durs[i];
  }
  return "{\"traceEvents\": [\n" + ev + "\n]}";
}

}  // namespace sstest
