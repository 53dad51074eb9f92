// The comparison as JSON (`compare --json`) and its op rows as TSV cells: one
// column list for both, so the two spell every field the same.
#include <steadyscope/compare.hpp>

#include <fmt/format.h>

#include <functional>

namespace steadyscope::compare {

namespace {

struct Field {
  const char* name;
  std::function<JsonValue(const OpRow&)> json;
  std::function<std::string(const OpRow&)> cell;
};

Field count(const char* name, uint64_t OpRow::*f) {
  return {name, [f](const OpRow& r) { return JsonValue::integer(static_cast<int64_t>(r.*f)); },
          [f](const OpRow& r) { return std::to_string(r.*f); }};
}
Field micros(const char* name, double OpRow::*f) {
  return {name, [f](const OpRow& r) { return JsonValue::real(r.*f); },
          [f](const OpRow& r) { return fmt::format("{:.3f}", r.*f); }};
}

const std::vector<Field>& columns() {
  static const std::vector<Field> kColumns = {
      {"op", [](const OpRow& r) { return JsonValue::string(r.op); }, [](const OpRow& r) { return r.op; }},
      count("a_count", &OpRow::aCount),
      count("b_count", &OpRow::bCount),
      micros("a_gpu_us", &OpRow::aGpuUs),
      micros("b_gpu_us", &OpRow::bGpuUs),
      micros("a_us_per_step", &OpRow::aUsPerStep),
      micros("b_us_per_step", &OpRow::bUsPerStep),
      micros("delta_us_per_step", &OpRow::deltaUsPerStep),
  };
  return kColumns;
}

JsonValue reals(const std::vector<double>& v) {
  JsonValue out = JsonValue::array();
  for (double x : v) out.push(JsonValue::real(x));
  return out;
}

JsonValue integer(uint64_t v) { return JsonValue::integer(static_cast<int64_t>(v)); }

JsonValue sideJson(const SideFigures& f) {
  return JsonValue::object({
      {"file", f.file},
      {"step_source", f.stepSource},
      {"total_steps", integer(f.totalSteps)},
      {"available_steps", integer(f.availableSteps)},
      {"first_step", integer(f.firstStep)},
      {"steps", integer(f.steps)},
      {"step_median_us", f.stepMedianUs ? JsonValue::real(*f.stepMedianUs) : JsonValue()},
      {"gpu_events", integer(f.gpuEvents)},
      {"gpu_us", JsonValue::real(f.gpuUs)},
      {"gpu_busy_us", JsonValue::real(f.gpuBusyUs)},
      {"gpu_busy_per_step_us", JsonValue::real(f.gpuBusyPerStepUs)},
      {"attributed_share", JsonValue::real(f.attributedShare)},
      {"without_launch", integer(f.withoutLaunch)},
      {"launch_outside_op", integer(f.launchOutsideOp)},
      {"step_us", reals(f.stepUs)},
      {"step_gpu_us", reals(f.stepGpuUs)},
  });
}

JsonValue kernelJson(const OpRow& op, const KernelRow& k) {
  return JsonValue::object({{"op", op.op},
                            {"kernel", k.name},
                            {"a_count", integer(k.aCount)},
                            {"b_count", integer(k.bCount)},
                            {"a_gpu_us", JsonValue::real(k.aGpuUs)},
                            {"b_gpu_us", JsonValue::real(k.bGpuUs)}});
}

}  // namespace

JsonValue comparisonJson(const Comparison& c) {
  JsonValue ops = JsonValue::array(), kernels = JsonValue::array();
  for (const OpRow& r : c.ops) {
    JsonValue o = JsonValue::object();
    for (const auto& f : columns()) o.set(f.name, f.json(r));
    ops.push(std::move(o));
    for (const KernelRow& k : r.kernels) kernels.push(kernelJson(r, k));
  }
  return JsonValue::object({{"a", sideJson(c.a)},
                            {"b", sideJson(c.b)},
                            {"whole_trace", c.wholeTrace},
                            {"ops", std::move(ops)},
                            {"kernels", std::move(kernels)}});
}

std::vector<std::string> opColumns() {
  std::vector<std::string> names;
  for (const auto& f : columns()) names.emplace_back(f.name);
  return names;
}

std::vector<std::string> opCells(const OpRow& row) {
  std::vector<std::string> cells;
  for (const auto& f : columns()) cells.push_back(f.cell(row));
  return cells;
}

}  // namespace steadyscope::compare
