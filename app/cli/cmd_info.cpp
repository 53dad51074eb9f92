// steadyscope-cli info TRACE [--json]: what the loader saw.
#include "commands.hpp"

#include <steadyscope/core/io/loader.hpp>
#include <steadyscope/core/model/trace.hpp>
#include <steadyscope/core/util/json_value.hpp>

#include <cstdio>
#include <map>
#include <string>

#include <fmt/format.h>

namespace steadyscope::cli {

namespace {

/// JSON string body (without the quotes), as Python's json.dumps writes it.
std::string jsonEscape(std::string_view s) {
  std::string q = jsonQuote(s, /*ensureAscii=*/true);
  return q.substr(1, q.size() - 2);
}

struct Summary {
  std::map<std::string, uint64_t> stepAnnotations;  // family -> count (CPU side)
  uint64_t profilerSteps = 0;
};

Summary summarise(const Trace& t) {
  Summary s;
  for (EventIdx i = 0; i < t.size(); ++i) {
    CatClass c = t.classOf(i);
    if (c != CatClass::UserAnnotation || t.ph[i] == Ph::Metadata) continue;
    std::string_view n = t.nameOf(i);
    if (n.rfind("ProfilerStep#", 0) == 0) {
      ++s.profilerSteps;
      continue;
    }
    if (n.rfind("execute_context_", 0) == 0)
      ++s.stepAnnotations["vllm_native"];
    else if (n.rfind("execute_diffusion", 0) == 0)
      ++s.stepAnnotations["diffusion"];
    else if (n.rfind("execute_", 0) == 0 && n.find("_context_") != std::string_view::npos)
      ++s.stepAnnotations["vllm_detailed"];
    else if (n.rfind("step[", 0) == 0)
      ++s.stepAnnotations["sglang"];
    else if (n.rfind("prefill[", 0) == 0 || n.rfind("decode[", 0) == 0)
      ++s.stepAnnotations["atom"];
  }
  return s;
}

std::string usKey(int64_t ns) { return fmt::format("{:.3f}", ns / 1000.0); }

}  // namespace

int cmdInfo(const Args& args) {
  std::string path;
  bool json = false;
  for (const auto& a : args) {
    if (a == "--json")
      json = true;
    else if (a == "-h" || a == "--help") {
      std::puts(
          "Usage: steadyscope-cli info TRACE [--json]\n"
          "Prints event counts per ph and cat, GPU events, lanes, devices, time span,\n"
          "step-annotation counts and the loader's anomaly counters.");
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "steadyscope-cli info: unknown option %s\n", a.c_str());
      return 2;
    } else if (path.empty())
      path = a;
    else {
      std::fprintf(stderr, "steadyscope-cli info: only one TRACE expected\n");
      return 2;
    }
  }
  if (path.empty()) {
    std::fprintf(stderr, "Usage: steadyscope-cli info TRACE [--json]\n");
    return 2;
  }
  auto r = loadTrace(path);
  if (!r) {
    std::fprintf(stderr, "steadyscope-cli info: %s\n", r.error().describe().c_str());
    return 1;
  }
  const Trace& t = *r.value();
  Summary s = summarise(t);
  size_t gpuLanes = 0;
  for (const auto& l : t.lanes) gpuLanes += l.gpu;
  if (json) {
    std::string o = "{\n";
    o += fmt::format("  \"file\": \"{}\",\n  \"compression\": \"{}\",\n  \"file_bytes\": {},\n  \"json_bytes\": {},\n",
                     jsonEscape(t.path), t.stats.compression, t.stats.fileBytes, t.stats.jsonBytes);
    o += fmt::format("  \"events\": {},\n  \"gpu_events\": {},\n", t.size(), t.stats.gpuEvents);
    o += "  \"ph\": {";
    bool first = true;
    for (auto& [k, v] : t.stats.perPh) {
      o += fmt::format("{}\"{}\": {}", first ? "" : ", ", jsonEscape(k), v);
      first = false;
    }
    o += "},\n  \"cat\": {";
    first = true;
    for (auto& [k, v] : t.stats.perCat) {
      o += fmt::format("{}\"{}\": {}", first ? "" : ", ", jsonEscape(k), v);
      first = false;
    }
    o += "},\n";
    o += fmt::format("  \"lanes\": {},\n  \"gpu_lanes\": {},\n  \"devices\": [", t.lanes.size(), gpuLanes);
    first = true;
    for (const auto& d : t.gpuBusy) {
      o += fmt::format("{}{{\"pid\": \"{}\", \"busy_us\": {}, \"first_us\": {}, \"last_us\": {}}}", first ? "" : ", ",
                       jsonEscape(t.keyText(d.pid)), usKey(d.busyNs), usKey(d.firstNs), usKey(d.lastNs));
      first = false;
    }
    o += fmt::format("],\n  \"span_us\": [{}, {}],\n", usKey(t.stats.firstTsNs), usKey(t.stats.lastEndNs));
    o += fmt::format("  \"profiler_steps\": {},\n  \"step_annotations\": {{", s.profilerSteps);
    first = true;
    for (auto& [k, v] : s.stepAnnotations) {
      o += fmt::format("{}\"{}\": {}", first ? "" : ", ", k, v);
      first = false;
    }
    o += "},\n  \"anomalies\": [";
    first = true;
    for (const auto& a : t.anomalies) {
      o += fmt::format("{}\n    {{\"code\": \"{}\", \"count\": {}, \"first_event\": {}, \"explanation\": \"{}\"}}",
                       first ? "" : ",", a.code, a.count, a.firstEvent, jsonEscape(a.explanation));
      first = false;
    }
    o += first ? "]\n}\n" : "\n  ]\n}\n";
    std::fputs(o.c_str(), stdout);
    return 0;
  }
  std::string o;
  o += fmt::format("{}\n  {} bytes on disk ({}), {} bytes of JSON\n", t.path, t.stats.fileBytes, t.stats.compression,
                   t.stats.jsonBytes);
  o += fmt::format("  {} events, {} GPU events (kernel/memcpy/memset)\n", t.size(), t.stats.gpuEvents);
  o += "  per ph: ";
  for (auto& [k, v] : t.stats.perPh) o += fmt::format("{}={} ", k, v);
  o += "\n  per cat: ";
  for (auto& [k, v] : t.stats.perCat) o += fmt::format("{}={} ", k, v);
  o += fmt::format("\n  {} lanes ({} with GPU work), {} GPU devices\n", t.lanes.size(), gpuLanes, t.gpuBusy.size());
  for (const auto& d : t.gpuBusy) {
    double span = static_cast<double>(d.lastNs - d.firstNs);
    o += fmt::format("    GPU pid {}: busy {:.3f} ms of {:.3f} ms ({:.1f}%)\n", t.keyText(d.pid), d.busyNs / 1e6,
                     span / 1e6, span > 0 ? 100.0 * static_cast<double>(d.busyNs) / span : 0.0);
  }
  o += fmt::format("  time span {:.3f} ms\n", (t.stats.lastEndNs - t.stats.firstTsNs) / 1e6);
  o += fmt::format("  ProfilerStep annotations: {}\n", s.profilerSteps);
  for (auto& [k, v] : s.stepAnnotations) o += fmt::format("  {} step annotations: {}\n", k, v);
  if (t.anomalies.empty())
    o += "  anomalies: none\n";
  else {
    o += fmt::format("  anomalies ({}):\n", t.anomalyCount());
    for (const auto& a : t.anomalies) o += fmt::format("    {:<24} {:>9}  {}\n", a.code, a.count, a.explanation);
  }
  std::fputs(o.c_str(), stdout);
  return 0;
}

}  // namespace steadyscope::cli
