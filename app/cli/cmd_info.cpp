// steadyscope-cli info TRACE [--json]: what the loader saw.
#include "cli_cache.hpp"
#include "commands.hpp"
#include "thread_count.hpp"

#include <steadyscope/common.hpp>
#include <steadyscope/io.hpp>
#include <steadyscope/model.hpp>
#include <steadyscope/split.hpp>
#include <steadyscope/timeline.hpp>

#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
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
  std::map<std::string, uint64_t> stepAnnotations;     // family -> count (CPU side)
  uint64_t profilerSteps = 0;                          // as the splitter sees them (isSplitterAnnotation)
  std::map<std::string, uint64_t> otherProfilerSteps;  // category -> count: ProfilerStep#N it does not see
  uint64_t legacyGpuEvents = 0;                        // GPU events under the 2021 names (Kernel, ...)
  std::string legacyGpuNames;                          // "Kernel, Memcpy, Memset" (those present)
};

// "ProfilerStep#" + decimal digits, the name profiler.step() writes.
bool isProfilerStepName(std::string_view n) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  if (n.size() <= kPrefix.size() || n.substr(0, kPrefix.size()) != kPrefix) return false;
  for (char c : n.substr(kPrefix.size()))
    if (c < '0' || c > '9') return false;
  return true;
}

// What the splitter's event index takes as an annotation (a candidate step):
// a user_annotation with ts and dur and without Input Dims, not a flow event.
bool isSplitterAnnotation(const Trace& t, EventIdx i) {
  const uint16_t f = t.flags[i];
  if (t.catOf(i) != "user_annotation" || !(f & ev::HasTs) || (f & ev::TsPresentNull) || !(f & ev::HasDur)) return false;
  return !(f & ev::HasInputDims) && t.ph[i] != Ph::FlowStart && t.ph[i] != Ph::FlowEnd;
}

// The 2021 GPU category names, counted from the loader's per-category counts.
void countLegacyGpuEvents(const Trace& t, Summary& s) {
  for (const auto& [cat, n] : t.stats.perCat) {
    if (!analysis::isLegacyGpuCategory(cat) || n == 0) continue;
    s.legacyGpuEvents += n;
    s.legacyGpuNames += (s.legacyGpuNames.empty() ? "" : ", ") + cat;
  }
}

Summary summarise(const Trace& t) {
  Summary s;
  countLegacyGpuEvents(t, s);
  for (EventIdx i = 0; i < t.size(); ++i) {
    std::string_view n = t.nameOf(i);
    if (isProfilerStepName(n) && t.ph[i] != Ph::Metadata) {
      if (isSplitterAnnotation(t, i))
        ++s.profilerSteps;
      else
        ++s.otherProfilerSteps[std::string(t.catOf(i))];
      continue;
    }
    if (t.classOf(i) != CatClass::UserAnnotation || t.ph[i] == Ph::Metadata) continue;
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

// Why the splitter's counts differ from info's (empty when they do not).
std::string legacyGpuText(const Summary& s) {
  if (s.legacyGpuEvents == 0) return {};
  return fmt::format(
      "    {} of them use legacy category names ({}): the splitter does not count them as GPU work without --fix "
      "legacy-categories\n",
      timeline::formatCount(s.legacyGpuEvents), s.legacyGpuNames);
}

std::string otherStepsText(const Summary& s) {
  std::string o;
  for (const auto& [cat, n] : s.otherProfilerSteps) {
    const std::string why =
        cat == "user_annotation" ? "user_annotation without a duration or with Input Dims" : "category " + cat;
    o += fmt::format(
        "    {} ProfilerStep#N event{} ({}) not a step to the splitter: it takes them from user_annotation "
        "events with a duration only, with or without --fix legacy-categories\n",
        timeline::formatCount(n), n == 1 ? "" : "s", why);
  }
  return o;
}

std::string usKey(int64_t ns) { return fmt::format("{:.3f}", ns / 1000.0); }

// `{"k": v, ...}` of a map, keys escaped.
template <class Map>
std::string jsonCounts(const Map& m) {
  std::string o = "{";
  bool first = true;
  for (auto& [k, v] : m) {
    o += fmt::format("{}\"{}\": {}", first ? "" : ", ", jsonEscape(k), v);
    first = false;
  }
  return o + "}";
}

std::string infoJson(const Trace& t, const Summary& s, size_t gpuLanes) {
  std::string o = "{\n";
  o += fmt::format("  \"file\": \"{}\",\n  \"compression\": \"{}\",\n  \"file_bytes\": {},\n  \"json_bytes\": {},\n",
                   jsonEscape(t.path), t.stats.compression, t.stats.fileBytes, t.stats.jsonBytes);
  o += fmt::format("  \"events\": {},\n  \"gpu_events\": {},\n", t.size(), t.stats.gpuEvents);
  if (t.partial)
    o += fmt::format("  \"partial\": {{\"kept_json_bytes\": {}, \"reason\": \"{}\"}},\n", t.partial->keptTextBytes,
                     jsonEscape(t.partial->reason));
  o += "  \"ph\": " + jsonCounts(t.stats.perPh) + ",\n  \"cat\": " + jsonCounts(t.stats.perCat) + ",\n";
  o += fmt::format("  \"lanes\": {},\n  \"gpu_lanes\": {},\n  \"devices\": [", t.lanes.size(), gpuLanes);
  bool first = true;
  for (const auto& d : t.gpuBusy) {
    o += fmt::format("{}{{\"pid\": \"{}\", \"busy_us\": {}, \"first_us\": {}, \"last_us\": {}}}", first ? "" : ", ",
                     jsonEscape(t.keyText(d.pid)), usKey(d.busyNs), usKey(d.firstNs), usKey(d.lastNs));
    first = false;
  }
  o += fmt::format("],\n  \"span_us\": [{}, {}],\n", usKey(t.stats.firstTsNs), usKey(t.stats.lastEndNs));
  o += fmt::format("  \"legacy_gpu_events\": {},\n", s.legacyGpuEvents);
  o += fmt::format("  \"profiler_steps\": {},\n", s.profilerSteps);
  o += "  \"profiler_steps_not_annotations\": " + jsonCounts(s.otherProfilerSteps) + ",\n";
  o += "  \"step_annotations\": " + jsonCounts(s.stepAnnotations) + ",\n  \"anomalies\": [";
  first = true;
  for (const auto& a : t.anomalies) {
    o += fmt::format("{}\n    {{\"code\": \"{}\", \"count\": {}, \"first_event\": {}, \"explanation\": \"{}\"}}",
                     first ? "" : ",", a.code, a.count, a.firstEvent, jsonEscape(a.explanation));
    first = false;
  }
  o += first ? "]\n}\n" : "\n  ]\n}\n";
  return o;
}

std::string infoText(const Trace& t, const Summary& s, size_t gpuLanes) {
  std::string o;
  o += fmt::format("{}\n  {} bytes on disk ({}), {} bytes of JSON\n", t.path, t.stats.fileBytes, t.stats.compression,
                   t.stats.jsonBytes);
  o += fmt::format("  {} events, {} GPU events (kernel/memcpy/memset)\n", t.size(), t.stats.gpuEvents);
  if (t.partial)
    o += fmt::format(
        "  partial: the file ends early ({}); these are the complete events in its first {} bytes of JSON\n",
        t.partial->reason, t.partial->keptTextBytes);
  o += legacyGpuText(s);
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
  o += otherStepsText(s);
  for (auto& [k, v] : s.stepAnnotations) o += fmt::format("  {} step annotations: {}\n", k, v);
  if (t.anomalies.empty())
    o += "  anomalies: none\n";
  else {
    o += fmt::format("  anomalies ({}):\n", t.anomalyCount());
    for (const auto& a : t.anomalies) o += fmt::format("    {:<24} {:>9}  {}\n", a.code, a.count, a.explanation);
  }
  return o;
}

struct InfoArgs {
  std::string path;
  bool json = false;
  bool partial = false;
  unsigned threads = 0;
};

// Returns an exit status when the command ends here (--help, a usage error), nullopt to go on.
std::optional<int> parseInfoArgs(const Args& args, InfoArgs& out) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--json") {
      out.json = true;
    } else if (a == "--partial") {
      out.partial = true;
    } else if (a == "-h" || a == "--help") {
      std::printf(
          "Usage: steadyscope-cli info TRACE [--json] [--partial] [--threads N] [--no-cache]\n"
          "\n"
          "Prints event counts per ph and cat, GPU events, lanes, devices, time span,\n"
          "step-annotation counts and the loader's anomaly counters. TRACE is a .json,\n"
          ".json.gz, .zip (the first .json member) or .json.zst file.\n"
          "\n"
          "Options:\n"
          "  --json       print the same summary as one JSON object\n"
          "  --partial    a truncated trace: describe the complete events before the cut\n"
          "               (split, gate and export always need the whole trace)\n"
          "  --threads N  %s\n"
          "%s"
          "  -h, --help   show this help\n"
          "\n"
          "Examples:\n"
          "  steadyscope-cli info run.pt.trace.json.gz\n"
          "  steadyscope-cli info run.json --json > summary.json\n"
          "  steadyscope-cli info --partial killed-run.pt.trace.json.gz\n"
          "\n"
          "Exit status: 0 success, 1 TRACE cannot be read, 2 usage error.\n",
          threadsHelp().c_str(), kNoCacheHelp);
      return 0;
    } else if (a == "--threads" || a.rfind("--threads=", 0) == 0) {
      if (a == "--threads" && i + 1 >= args.size()) {
        std::fprintf(stderr, "steadyscope-cli info: --threads needs a value\n");
        return 2;
      }
      const std::string v = a == "--threads" ? args[++i] : a.substr(std::strlen("--threads="));
      auto n = parseThreadCount(v);
      if (!n) {
        std::fprintf(stderr, "steadyscope-cli info: --threads: %s\n", threadCountError(v).c_str());
        return 2;
      }
      out.threads = *n;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "steadyscope-cli info: unknown option %s\n", a.c_str());
      return 2;
    } else if (out.path.empty()) {
      out.path = a;
    } else {
      std::fprintf(stderr, "steadyscope-cli info: only one TRACE expected\n");
      return 2;
    }
  }
  if (out.path.empty()) {
    std::fprintf(stderr, "Usage: steadyscope-cli info TRACE [--json] [--partial] [--threads N]\n");
    return 2;
  }
  return std::nullopt;
}

}  // namespace

int cmdInfo(const Args& args) {
  InfoArgs ia;
  if (auto rc = parseInfoArgs(args, ia)) return *rc;
  LoadOptions load;
  load.threads = jobThreads(ia.threads);
  load.allowPartial = ia.partial;
  load.cache = traceCache();
  auto r = loadTrace(ia.path, load);
  if (!r) {
    std::fprintf(stderr, "steadyscope-cli info: %s\n", r.error().describe().c_str());
    return 1;
  }
  const Trace& t = *r.value();
  // On stderr: the summary reads the same whichever way the model came.
  if (t.fromCache) std::fprintf(stderr, "steadyscope-cli info: read from the trace cache (the file is unchanged)\n");
  size_t gpuLanes = 0;
  for (const auto& l : t.lanes) gpuLanes += l.gpu;
  const Summary s = summarise(t);
  std::fputs((ia.json ? infoJson(t, s, gpuLanes) : infoText(t, s, gpuLanes)).c_str(), stdout);
  return 0;
}

}  // namespace steadyscope::cli
