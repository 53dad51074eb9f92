#include "gate/manifest.hpp"
#include <steadyscope/core/util/split_names.hpp>

#include <fmt/format.h>
#include <simdjson.h>

#include <cmath>
#include <fstream>
#include <iterator>

namespace steadyscope::gate {

namespace {

// A manifest holds a few dozen fields; anything far larger is not one.
constexpr std::streamoff kMaxManifestBytes = std::streamoff(64) << 20;

// Python's json writes NaN, Infinity and -Infinity, which JSON does not have.
// Each becomes a string of the same length, so byte offsets stay the file's
// and a number field holding one reads as absent.
void quoteNonFiniteNumbers(std::string& text) {
  static constexpr std::pair<std::string_view, std::string_view> kTokens[] = {
      {"-Infinity", "\"-Infnty\""}, {"Infinity", "\"Infnty\""}, {"NaN", "\"N\""}};
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      if (c == '\\') ++i;
      else if (c == '"') inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
      continue;
    }
    for (const auto& [token, quoted] : kTokens)
      if (text.compare(i, token.size(), token) == 0) {
        text.replace(i, token.size(), quoted);
        i += token.size() - 1;
        break;
      }
  }
}

std::optional<double> finiteNumber(simdjson::ondemand::value v) {
  double d = 0;
  if (v.get_double().get(d) || !std::isfinite(d)) return std::nullopt;
  return d;
}

// A whole number that fits an int64_t; a hostile manifest's 1e300 or 2.5
// reads as absent rather than as an undefined conversion.
std::optional<int64_t> wholeNumber(simdjson::ondemand::value v) {
  const auto d = finiteNumber(v);
  if (!d || *d != std::trunc(*d) || std::fabs(*d) >= 9.2e18) return std::nullopt;
  return static_cast<int64_t>(*d);
}

// Reads the one field `key` into m when it is one of the few a refusal is explained by.
simdjson::error_code readField(std::string_view key, simdjson::ondemand::value v, ManifestFacts& m) {
  using simdjson::ondemand::json_type;
  json_type type{};
  if (auto e = v.type().get(type)) return e;
  if (key == "aborted" && type == json_type::boolean) return v.get_bool().get(m.aborted);
  if (key == "method" && type == json_type::string) {
    std::string_view s;
    if (auto e = v.get_string().get(s)) return e;
    m.method = std::string(s);
  }
  if (type != json_type::number) return simdjson::SUCCESS;
  if (key == "status") m.status = wholeNumber(v);
  if (key == "n_roots") m.nRoots = wholeNumber(v);
  if (key == "coverage_selected_roots") m.coverage = finiteNumber(v);
  if (key == "branch_coverage") m.branchCoverage = finiteNumber(v);
  return simdjson::SUCCESS;
}

Error formatError(const std::string& path, std::string message, std::optional<uint64_t> at) {
  Error e = makeError(Error::Kind::Format, path, std::move(message), at);
  e.code = "manifest_unreadable";
  return e;
}

// The fields are read on demand, which knows where it stopped; the whole text
// is then checked (text after the object, broken values in fields not read).
Expected<ManifestFacts> parseManifest(const std::string& path, std::string text) {
  const size_t length = text.size();
  quoteNonFiniteNumbers(text);
  text.append(simdjson::SIMDJSON_PADDING, ' ');
  auto invalid = [&](simdjson::error_code e, std::optional<uint64_t> at) {
    return formatError(path, fmt::format("not valid JSON ({})", simdjson::error_message(e)), at);
  };
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc;
  if (auto e = parser.iterate(text.data(), length, text.size()).get(doc)) return invalid(e, std::nullopt);
  // Only after an error inside the document: at its end simdjson 3.0 has no position to give.
  auto here = [&]() -> std::optional<uint64_t> {
    const char* at = nullptr;
    if (doc.current_location().get(at) || at < text.data()) return std::nullopt;
    return std::min<uint64_t>(static_cast<uint64_t>(at - text.data()), length);
  };
  simdjson::ondemand::object top;
  if (doc.get_object().get(top)) return formatError(path, "not a JSON object", uint64_t(0));
  ManifestFacts m;
  for (auto field : top) {
    std::string_view key;
    simdjson::ondemand::value v;
    if (auto e = field.unescaped_key().get(key)) return invalid(e, here());
    if (auto e = field.value().get(v)) return invalid(e, here());
    if (auto e = readField(key, v, m)) return invalid(e, here());
  }
  simdjson::dom::parser whole;
  simdjson::dom::element root;
  if (auto e = whole.parse(text.data(), length, false).get(root)) return invalid(e, std::nullopt);
  return m;
}

}  // namespace

Expected<ManifestFacts> readManifestFacts(const std::string& path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) return makeError(Error::Kind::Io, path, "cannot be read");
  if (f.tellg() > kMaxManifestBytes)
    return formatError(path, "larger than any manifest a splitter writes (64 MiB)", std::nullopt);
  f.seekg(0);
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (f.bad()) return makeError(Error::Kind::Io, path, "cannot be read");
  return parseManifest(path, std::move(text));
}

std::string refusalSentence(const ManifestFacts& m) {
  if (!m.aborted) return {};
  const std::optional<double> cov = m.method.rfind("generic:", 0) == 0 ? m.branchCoverage : m.coverage;
  if (m.method == "none" || !m.nRoots || *m.nRoots == 0 || !cov)
    return "The splitter refused the trace: no annotation family and no repeating pattern in the call tree "
           "explains its GPU work.";
  const char* kind = m.method == "annotation:tier"         ? "serving-step annotations"
                     : m.method == "family:unknown_only"   ? "step annotations"
                     : m.method == "generic:sibling_roots" ? "repeating top-level calls"
                                                           : "repeating calls in the call tree";
  const bool degraded = m.status && *m.status == 1;
  return fmt::format("The splitter refused the trace: {} {} cover {} of the GPU time; {}.", *m.nRoots, kind,
                     names::percentText(*cov),
                     degraded ? "that is enough only for a degraded split" : names::kSplitNeedsText);
}

}  // namespace steadyscope::gate
