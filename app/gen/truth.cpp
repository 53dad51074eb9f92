// Ground-truth JSON of a generation run.
#include "generator.hpp"

#include <fmt/format.h>

#include <iterator>
#include <string_view>

namespace steadyscope::gen {

namespace {

constexpr std::string_view kPhOrder = "XBEsfiM";

constexpr std::array<std::string_view, kCatCount> catNames(bool old) {
  if (old)
    return {"Kernel", "Memcpy", "Memset",         "Runtime", "Operator", "user_annotation", "gpu_user_annotation",
            "ac2g",   "Trace",  "python_function"};
  return {"kernel",          "gpu_memcpy",          "gpu_memset", "cuda_runtime", "cpu_op",
          "user_annotation", "gpu_user_annotation", "ac2g",       "Trace",        "python_function"};
}

void appendEvents(std::string& s, const Options& opt, const EventCounts& c) {
  auto it = std::back_inserter(s);
  fmt::format_to(it, "  \"events\": {{\n    \"total\": {},\n    \"by_ph\": {{", c.total);
  bool first = true;
  for (char ph : kPhOrder) {
    if (c.byPh[static_cast<std::size_t>(ph)] == 0) continue;
    fmt::format_to(it, "{}\"{}\": {}", first ? "" : ", ", ph, c.byPh[static_cast<std::size_t>(ph)]);
    first = false;
  }
  s += "},\n    \"by_cat\": {";
  first = true;
  const auto names = catNames(opt.oldCategories);
  for (std::size_t i = 0; i < kCatCount; ++i) {
    if (c.byCat[i] == 0) continue;
    fmt::format_to(it, "{}\"{}\": {}", first ? "" : ", ", names[i], c.byCat[i]);
    first = false;
  }
  fmt::format_to(it, "}},\n    \"gpu\": {},\n    \"metadata_without_ts\": {}\n  }},\n", c.gpu(), c.metadataWithoutTs);
}

void appendSteps(std::string& s, const Truth& t) {
  const auto& st = t.steps;
  fmt::format_to(std::back_inserter(s),
                 "  \"steps\": {{\n    \"requested\": {}, \"total\": {},\n"
                 "    \"prefill_only\": {}, \"prefill_decode\": {}, \"decode_only\": {}, \"idle\": {},\n"
                 "    \"graph\": {}, \"idle_gaps\": {}\n  }},\n"
                 "  \"requests\": {{\"issued\": {}, \"peak_concurrency\": {}, \"context_requests\": {}, "
                 "\"generation_requests\": {}}},\n",
                 t.stepsRequested, st.total, st.prefillOnly, st.prefillDecode, st.decodeOnly, st.idle, st.graph,
                 st.idleGaps, t.plan.requestsIssued, t.plan.peakRequests, st.contextRequests, st.generationRequests);
}

void appendAnomalies(std::string& s, const Options& opt, const Truth& t) {
  fmt::format_to(std::back_inserter(s),
                 "  \"anomalies\": {{\n    \"missing_dur\": {}, \"negative_dur\": {}, \"be_pairs\": {},\n"
                 "    \"string_ids\": {}, \"old_categories\": {}, \"unsorted\": {}, \"shuffled_windows\": {},\n"
                 "    \"overlapping_gpu_events\": {}, \"epoch_timestamps\": {}\n  }},\n",
                 t.counts.missingDur, t.counts.negativeDur, t.counts.bePairs, opt.stringIds, opt.oldCategories,
                 opt.unsorted, t.shuffledWindows, t.overlappingGpuEvents, opt.epoch);
}

void appendRegions(std::string& s, const Truth& t) {
  auto it = std::back_inserter(s);
  s += "  \"regions\": [";
  bool first = true;
  for (const auto& r : t.plan.regions) {
    fmt::format_to(it, "{}\n    {{\"kind\": \"{}\", \"first_step\": {}, \"last_step\": {}}}", first ? "" : ",", r.kind,
                   r.first, r.last);
    first = false;
  }
  s += first ? "],\n" : "\n  ],\n";
  const auto& st = t.plan.steady;
  if (st.kind.empty())
    s += "  \"steady_region\": null";
  else
    fmt::format_to(it, "  \"steady_region\": {{\"kind\": \"{}\", \"first_step\": {}, \"last_step\": {}}}", st.kind,
                   st.first, st.last);
}

}  // namespace

std::string truthJson(const Options& opt, const Truth& t) {
  std::string s;
  auto it = std::back_inserter(s);
  fmt::format_to(it,
                 "{{\n  \"generator\": \"steadyscope-gen\",\n  \"style\": \"{}\", \"annotation\": \"{}\", "
                 "\"annotation_format\": \"{}\", \"seed\": {},\n"
                 "  \"bytes\": {{\"json\": {}, \"stored\": {}, \"gzip\": {}}},\n",
                 styleName(opt.style), annotationName(opt.annotation), t.annotationFormat, opt.seed, t.jsonBytes,
                 t.storedBytes, opt.gzip());
  appendEvents(s, opt, t.counts);
  appendSteps(s, t);
  fmt::format_to(it, "  \"annotations\": {{\"user_annotation\": {}, \"gpu_user_annotation\": {}}},\n", t.roots,
                 t.mirrors);
  appendAnomalies(s, opt, t);
  appendRegions(s, t);
  if (opt.style == Style::Training)
    fmt::format_to(it, ",\n  \"collective\": {{\"first_us\": {:.3f}, \"mean_other_us\": {:.3f}}}", t.firstCollectiveUs,
                   t.meanCollectiveUs);
  if (opt.distributed()) fmt::format_to(it, ",\n  \"rank\": {}, \"world_size\": {}", opt.rank, opt.worldSize);
  s += "\n}\n";
  return s;
}

}  // namespace steadyscope::gen
