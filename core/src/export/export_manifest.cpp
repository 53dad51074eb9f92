// The provenance manifest steadyscope-export.json and the metadata the
// export adds for viewers.
#include "internal.hpp"

#include <steadyscope/core/util/paths.hpp>

#include <fmt/format.h>

#include <ctime>
#include <filesystem>
#include <system_error>

namespace steadyscope::exporting {

namespace {

std::string utcNow() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

JsonValue optionalNumber(const std::optional<double>& v) { return v ? JsonValue::real(*v) : JsonValue::null(); }

JsonValue sourceJson(const Trace& trace, const FileDigest& d) {
  std::error_code ec;
  const auto abs = std::filesystem::absolute(trace.path, ec);
  return JsonValue::object({{"path", ec ? trace.path : abs.lexically_normal().string()},
                            {"size_bytes", static_cast<int64_t>(d.file.size)},
                            {"sha256", d.sha256},
                            {"base_name", trace.baseName.empty() ? referenceBaseName(trace.path) : trace.baseName},
                            {"events", static_cast<int64_t>(trace.size())}});
}

// The steps the chunk holds: indices into the split's roots, and their time span.
JsonValue stepRangeJson(const analysis::SplitResult& plan, const analysis::ChunkPlan& c) {
  if (c.roots.empty()) return JsonValue::null();
  const analysis::RootInfo& first = plan.roots[c.roots.front()];
  const analysis::RootInfo& last = plan.roots[c.roots.back()];
  return JsonValue::object(
      {{"first_step", static_cast<int64_t>(c.roots.front())},
       {"last_step", static_cast<int64_t>(c.roots.back())},
       {"steps", static_cast<int64_t>(c.roots.size())},
       {"first_step_name", std::string(first.name)},
       {"start_us", first.tile ? JsonValue::number(first.tile->a) : JsonValue::real(first.tsUs)},
       {"end_us", last.tile ? JsonValue::number(last.tile->b) : JsonValue::real(last.tsUs + last.durUs)}});
}

JsonValue chunkJson(const ManifestInput& in) {
  const analysis::ChunkPlan& c = in.chunk;
  return JsonValue::object({{"file", paths::fileName(in.files.chunk)},
                            {"split_file_name", c.fileName},
                            {"label", std::string(names::chunkLabel(in.request.mode))},
                            {"step_range", stepRangeJson(in.plan, c)},
                            {"event_count", c.stats.eventCount},
                            {"num_gpu_events", c.stats.numGpuEvents},
                            {"gpu_duration", JsonValue::number(c.stats.gpuDuration)},
                            {"gpu_busy_duration", JsonValue::number(c.stats.gpuBusyDuration)}});
}

// Verdicts on the split folder and on the export folder differ only where the
// split's gate refused a low-quality chunk for a better alternate: the export
// holds no alternates.
std::string exportFolderNote(const gate::GateResult& g) {
  if (g.accepted || g.nonEmptyModes.empty() || !g.lowQuality) return "";
  return "the split's gate refused this chunk for a better chunk of another mode; this folder holds only the "
         "chosen chunk, so the gate on it has no alternate to offer";
}

JsonValue figuresJson(const ManifestInput& in) {
  const gate::GateResult& g = in.gate;
  JsonValue o = JsonValue::object();
  o.set("union_busy_ratio", optionalNumber(in.unionBusyRatio));
  o.set("busy_ratio", JsonValue::real(in.chunk.busyRatio));
  o.set("verdict", JsonValue::string(g.finalAccepted() ? "accepted" : "refused"));
  o.set("pipeline_accepts", JsonValue::boolean(g.accepted));
  o.set("summary", JsonValue::string(g.summary));
  if (auto note = exportFolderNote(g); !note.empty()) o.set("export_folder_note", JsonValue::string(note));
  o.set("findings", g.findingsJson());
  o.set("decision_record", g.recordJson());
  return o;
}

}  // namespace

EventList missingMetadata(const Trace& trace, const EventList& events) {
  std::vector<bool> present(trace.size(), false);
  for (EventIdx e : events) present[e] = true;
  EventList out;
  for (size_t i = 0; i < trace.size(); ++i)
    if (trace.ph[i] == Ph::Metadata && !present[i]) out.push_back(static_cast<EventIdx>(i));
  return out;
}

JsonValue splitParametersJson(const analysis::SplitOptions& o) {
  auto optInt = [](const std::optional<int64_t>& v) { return v ? JsonValue::integer(*v) : JsonValue::null(); };
  return JsonValue::object({{"iterations", o.iterations},
                            {"store_single_iteration", o.storeSingleIteration},
                            {"find_steady_state", o.findSteadyState},
                            {"num_steps", o.numSteps},
                            {"CONC", optInt(o.conc.conc)},
                            {"OSL", optionalNumber(o.conc.osl)},
                            {"R", optionalNumber(o.conc.r)},
                            {"divide_phases", o.dividePhases},
                            {"no_gap_fill", o.noGapFill},
                            {"allow_degraded", o.allowDegraded},
                            {"llm_inference", o.llmInference},
                            {"max_num_seq", optInt(o.maxNumSeq)},
                            {"busy_ratio_column", o.busyRatioColumn},
                            {"fixes", JsonValue::stringList(analysis::enabledFixNames(o.fixes))}});
}

JsonValue gateParametersJson(const gate::GateOptions& o) {
  return JsonValue::object({{"mode", std::string(names::modeName(o.mode))},
                            {"threshold", o.threshold},
                            {"margin", o.margin},
                            {"refuse_without_alternate", o.refuseWithoutAlternate},
                            {"strict", o.strict},
                            {"dominant_event_share", o.dominantEventShare}});
}

JsonValue exportManifest(const ManifestInput& in) {
  JsonValue m = JsonValue::object();
  m.set("format", JsonValue::string("steadyscope-export"));
  m.set("format_version", JsonValue::integer(1));
  m.set("tool", JsonValue::object({{"name", "steadyscope"}, {"version", in.request.toolVersion}}));
  m.set("exported_at", JsonValue::string(utcNow()));
  m.set("source", sourceJson(in.trace, in.digest));
  m.set("mode", JsonValue::string(std::string(names::modeName(in.request.mode))));
  m.set("chunk", chunkJson(in));
  m.set("added_metadata_events",
        JsonValue::object({{"count", in.addedMetadata},
                           {"why",
                            "process and thread names and sort order (ph \"M\" events with a ts) that the "
                            "reference leaves out of chunks; they follow the chunk's own events"}}));
  m.set("output_path", JsonValue::string("absolute: the gate finds the row from any working directory"));
  m.set("split_parameters", splitParametersJson(in.options));
  m.set("gate_parameters", gateParametersJson(in.gate.options));
  m.set("figures", figuresJson(in));
  m.set("files", JsonValue::stringList({paths::fileName(in.files.chunk), paths::fileName(in.files.detailsCsv),
                                        paths::fileName(in.files.detailsJson), paths::fileName(in.files.manifest)}));
  return m;
}

}  // namespace steadyscope::exporting
