// §6.7: the orchestrator's retry, read from a failed run's result.
#include <steadyscope/core/gate/gate.hpp>

namespace steadyscope::gate {

bool isAutoRetryCode(std::string_view code) {
  return code == "steady_state_chunk_empty" || code == "steady_state_chunk_missing" ||
         code == "steady_state_chunk_low_quality";
}

// ---- retry (§6.7) ----------------------------------------------------------------

namespace {
std::string_view pyStrip(std::string_view s) {
  auto sp = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == '\x1c' || c == '\x1d' ||
           c == '\x1e' || c == '\x1f';
  };
  while (!s.empty() && sp(s.front())) s.remove_prefix(1);
  while (!s.empty() && sp(s.back())) s.remove_suffix(1);
  return s;
}
}  // namespace

std::optional<RetryPlan> extractRetryMode(const JsonValue& result) {
  if (!result.isObject()) return std::nullopt;
  const JsonValue* warnings = result.find("trace_health_warnings");
  if (!warnings || !warnings->isArray()) return std::nullopt;
  for (const JsonValue& w : warnings->items()) {
    if (!w.isObject()) continue;
    const JsonValue* code = w.find("code");
    if (!code || !code->isString() || !isAutoRetryCode(code->asString())) continue;
    const JsonValue* nonEmpty = w.find("non_empty_modes");
    const JsonValue* available = w.find("available_modes");
    const JsonValue* modes = nullptr;
    if (nonEmpty && nonEmpty->truthy())
      modes = nonEmpty;
    else if (available && available->truthy())
      modes = available;
    if (!modes) continue;  // [] — nothing to return from this warning
    if (!modes->isArray()) continue;
    for (const JsonValue& m : modes->items()) {
      if (!m.isString()) continue;
      std::string_view s = pyStrip(m.asString());
      if (s.empty()) continue;
      RetryPlan p;
      p.toMode = std::string(s);
      const JsonValue* from = w.find("requested_mode");
      p.fromMode =
          (from && from->isString()) ? from->asString() : std::string(names::modeName(names::ChunkMode::Mixed));
      p.sourceWarningCode = code->asString();
      return p;
    }
  }
  return std::nullopt;
}

std::optional<RetryPlan> planRetry(const JsonValue& result) {
  if (result.isObject()) {
    const JsonValue* st = result.find("status");
    if (st && st->isString() && st->asString() == "ok") return std::nullopt;
  }
  return extractRetryMode(result);
}

}  // namespace steadyscope::gate
