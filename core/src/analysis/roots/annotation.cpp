// Root-name patterns and parsers (spec §2.3, §2.4). Each matcher reproduces a
// Python `re.match` (prefix) of the documented pattern; the parsers reproduce
// the documented field rules. No std::regex: names are matched once per
// annotation and this stays a linear scan.
#include "analysis/roots/annotation.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace steadyscope::analysis {

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }
// Python's \w on str patterns: ASCII letters, digits, '_' and (approximately)
// every non-ASCII code point's UTF-8 bytes.
bool isWord(char c) {
  auto u = static_cast<unsigned char>(c);
  return std::isalnum(u) || c == '_' || u >= 0x80;
}
// Python's \s (ASCII whitespace; \x1c-\x1f too).
bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || (c >= '\x1c' && c <= '\x1f');
}
char up(char c) { return static_cast<char>(std::toupper(static_cast<unsigned char>(c))); }

// Counts read from a step's name stop at 2^40 in magnitude (no real batch or
// request count comes near), so the sums and differences the steps' figures
// go through cannot overflow; the reference's Python ints have no bound.
constexpr int64_t kAnnotationIntLimit = int64_t(1) << 40;

// Saturating decimal parse of an all-digit run.
int64_t digitsValue(std::string_view s) {
  int64_t v = 0;
  for (char c : s) {
    if (v >= kAnnotationIntLimit) return kAnnotationIntLimit;
    v = v * 10 + (c - '0');
  }
  return std::min(v, kAnnotationIntLimit);
}

/// Sequential prefix matcher: literals and \d+ runs.
struct Cursor {
  std::string_view s;
  size_t p = 0;
  bool lit(std::string_view t) {
    if (s.substr(p, t.size()) != t) return false;
    p += t.size();
    return true;
  }
  bool litCi(std::string_view t) {
    if (s.size() - p < t.size()) return false;
    for (size_t i = 0; i < t.size(); ++i)
      if (up(s[p + i]) != up(t[i])) return false;
    p += t.size();
    return true;
  }
  std::optional<int64_t> num() {
    size_t b = p;
    while (p < s.size() && isDigit(s[p])) ++p;
    if (p == b) return std::nullopt;
    return digitsValue(s.substr(b, p - b));
  }
};

// ---------------------------------------------------------------- vLLM

struct VllmDetailedFields {
  int64_t cr, a, b, c, d, gr, e, f, g, h;
};

std::optional<VllmDetailedFields> matchVllmDetailed(std::string_view name) {
  Cursor k{name};
  VllmDetailedFields x{};
  std::optional<int64_t> v;
  if (!k.lit("execute_") || !k.num() || !k.lit("_context_")) return std::nullopt;
  if (!(v = k.num())) return std::nullopt;
  x.cr = *v;
  if (!k.lit("(sq") || !(v = k.num())) return std::nullopt;
  x.a = *v;
  if (!k.lit("sk") || !(v = k.num())) return std::nullopt;
  x.b = *v;
  if (!k.lit("sqsq") || !(v = k.num())) return std::nullopt;
  x.c = *v;
  if (!k.lit("sqsk") || !(v = k.num())) return std::nullopt;
  x.d = *v;
  if (!k.lit(")_generation_") || !(v = k.num())) return std::nullopt;
  x.gr = *v;
  if (!k.lit("(sq") || !(v = k.num())) return std::nullopt;
  x.e = *v;
  if (!k.lit("sk") || !(v = k.num())) return std::nullopt;
  x.f = *v;
  if (!k.lit("sqsq") || !(v = k.num())) return std::nullopt;
  x.g = *v;
  if (!k.lit("sqsk") || !(v = k.num())) return std::nullopt;
  x.h = *v;
  if (!k.lit(")")) return std::nullopt;
  return x;
}

struct VllmNativeFields {
  int64_t cr, cs, gr, gs;
};

std::optional<VllmNativeFields> matchVllmNative(std::string_view name) {
  Cursor k{name};
  VllmNativeFields x{};
  std::optional<int64_t> v;
  if (!k.lit("execute_context_") || !(v = k.num())) return std::nullopt;
  x.cr = *v;
  if (!k.lit("(") || !(v = k.num())) return std::nullopt;
  x.cs = *v;
  if (!k.lit(")_generation_") || !(v = k.num())) return std::nullopt;
  x.gr = *v;
  if (!k.lit("(") || !(v = k.num())) return std::nullopt;
  x.gs = *v;
  if (!k.lit(")")) return std::nullopt;
  return x;
}

bool matchDiffusion(std::string_view name, int64_t* bs) {
  Cursor k{name};
  std::optional<int64_t> v;
  if (!k.lit("execute_diffusion_") || !(v = k.num())) return false;
  if (!k.lit("_") || !k.num() || !k.lit("x") || !k.num()) return false;
  if (bs) *bs = *v;
  return true;
}

// ---------------------------------------------------------------- SGLang

constexpr std::array<std::string_view, 6> kSglModes = {"EXTEND", "DECODE", "MIXED", "DRAFT", "VERIFY", "TARGET_VERIFY"};

// `step\[(?:MODES)\b` case-insensitive; returns the position after the mode.
std::optional<size_t> matchSglHead(std::string_view name) {
  Cursor k{name};
  if (!k.litCi("step[")) return std::nullopt;
  for (auto m : kSglModes) {
    Cursor c = k;
    if (!c.litCi(m)) continue;
    if (c.p < name.size() && isWord(name[c.p])) continue;  // \b
    return c.p;
  }
  return std::nullopt;
}

bool ciFind(std::string_view hay, std::string_view needle, size_t from, size_t to, size_t* at) {
  for (size_t i = from; i + needle.size() <= to; ++i) {
    bool ok = true;
    for (size_t j = 0; j < needle.size() && ok; ++j) ok = up(hay[i + j]) == up(needle[j]);
    if (ok) {
      *at = i;
      return true;
    }
  }
  return false;
}

// `[^\]]*sqsq=\d+[^\]]*\]` after the mode (case-insensitive).
bool matchSglDetailed(std::string_view name) {
  auto head = matchSglHead(name);
  if (!head) return false;
  size_t close = name.find(']', *head);
  if (close == std::string_view::npos) return false;
  size_t at = *head;
  while (ciFind(name, "sqsq=", at, close, &at)) {
    if (at + 5 < close && isDigit(name[at + 5])) return true;
    ++at;
  }
  return false;
}

// `step\[(?:MODES)\b.*\]`: a ']' after the mode before the first newline.
bool matchSglNative(std::string_view name) {
  auto head = matchSglHead(name);
  if (!head) return false;
  size_t nl = name.find('\n', *head);
  size_t close = name.find(']', *head);
  return close != std::string_view::npos && (nl == std::string_view::npos || close < nl);
}

// `(\w+)=(\d+)` findall over `body`; later duplicates win.
std::unordered_map<std::string, int64_t> kvDigits(std::string_view body) {
  std::unordered_map<std::string, int64_t> kv;
  size_t i = 0;
  while (i < body.size()) {
    if (!isWord(body[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < body.size() && isWord(body[j])) ++j;
    if (j + 1 < body.size() && body[j] == '=' && isDigit(body[j + 1])) {
      size_t e = j + 1;
      while (e < body.size() && isDigit(body[e])) ++e;
      kv[std::string(body.substr(i, j - i))] = digitsValue(body.substr(j + 1, e - j - 1));
      i = e;
    } else {
      i = j;
    }
  }
  return kv;
}

std::string_view bracketBody(std::string_view name) {
  size_t a = name.find('[');
  size_t b = name.rfind(']');
  if (a == std::string_view::npos || b == std::string_view::npos || b <= a) return {};
  return name.substr(a + 1, b - a - 1);
}

std::string firstTokenUpper(std::string_view body) {
  size_t i = 0;
  while (i < body.size() && isSpace(body[i])) ++i;
  size_t j = i;
  while (j < body.size() && !isSpace(body[j])) ++j;
  std::string t(body.substr(i, j - i));
  for (char& c : t) c = up(c);
  return t;
}

StepDetails parseSglDetailed(std::string_view name) {
  std::string_view body = bracketBody(name);
  std::string mode = firstTokenUpper(body);
  auto kv = kvDigits(body);
  auto get = [&](const char* k) -> int64_t {
    auto it = kv.find(k);
    return it == kv.end() ? 0 : it->second;
  };
  int64_t bs = get("bs"), toks = get("toks"), cSq = get("c_sq"), gSq = get("g_sq");
  StepDetails s;
  s.kind = AnnotationKind::SglangDetailed;
  s.hasSqsk = true;
  s.contextRequests = s.contextSum = s.generationRequests = s.generationSum = 0;
  if (mode == "DECODE") {
    s.generationRequests = bs;
    s.generationSum = gSq;
  } else if (mode == "EXTEND" || mode == "DRAFT" || mode == "VERIFY" || mode == "TARGET_VERIFY") {
    s.contextRequests = bs;
    s.contextSum = cSq;
  } else if (mode == "MIXED") {
    s.contextRequests = get("c");
    s.generationRequests = get("g");
    s.contextSum = cSq;
    s.generationSum = gSq;
  }
  if (mode == "DRAFT" || mode == "VERIFY" || mode == "TARGET_VERIFY") {
    s.batchSize = bs;
  } else {
    s.batchSize = cSq + gSq;
    if (s.batchSize == 0) s.batchSize = toks;
    if (s.batchSize == 0) s.batchSize = bs;
  }
  s.numRequests = s.contextRequests + s.generationRequests;
  return s;
}

// `step\[(\w+)\s+bs=(\d+)(?:\s+toks=(\d+))?\]` at the start (case-insensitive).
std::optional<StepDetails> parseSglNative(std::string_view name) {
  Cursor k{name};
  if (!k.litCi("step[")) return std::nullopt;
  size_t w0 = k.p;
  while (k.p < name.size() && isWord(name[k.p])) ++k.p;
  if (k.p == w0) return std::nullopt;
  std::string word(name.substr(w0, k.p - w0));
  for (char& c : word) c = up(c);
  // \w+ is greedy and followed by \s: no backtracking can help.
  size_t s0 = k.p;
  while (k.p < name.size() && isSpace(name[k.p])) ++k.p;
  if (k.p == s0) return std::nullopt;
  if (!k.litCi("bs=")) return std::nullopt;
  auto bs = k.num();
  if (!bs) return std::nullopt;
  int64_t toks = 0;
  if (k.p < name.size() && name[k.p] == ']') {
    // no toks group
  } else {
    Cursor t = k;
    size_t t0 = t.p;
    while (t.p < name.size() && isSpace(name[t.p])) ++t.p;
    if (t.p == t0 || !t.litCi("toks=")) return std::nullopt;
    auto tv = t.num();
    if (!tv) return std::nullopt;
    toks = *tv;
    k = t;
    if (k.p >= name.size() || name[k.p] != ']') return std::nullopt;
  }
  StepDetails s;
  s.kind = AnnotationKind::SglangNative;
  s.contextRequests = s.contextSum = s.generationRequests = s.generationSum = 0;
  int64_t cSq = 0, gSq = 0;
  if (word == "DECODE") {
    s.generationRequests = s.generationSum = gSq = *bs;
  } else {
    s.contextRequests = *bs;
    s.contextSum = cSq = toks > 0 ? toks : *bs;
  }
  s.batchSize = cSq + gSq;
  if (s.batchSize == 0) s.batchSize = *bs;
  s.numRequests = s.contextRequests + s.generationRequests;
  return s;
}

// ---------------------------------------------------------------- ATOM

// `^(prefill|decode)\[`; returns the phase (0 prefill, 1 decode) and position after '['.
std::optional<std::pair<int, size_t>> matchAtomHead(std::string_view name) {
  if (name.substr(0, 8) == "prefill[") return std::make_pair(0, size_t{8});
  if (name.substr(0, 7) == "decode[") return std::make_pair(1, size_t{7});
  return std::nullopt;
}

// `^(prefill|decode)\[.*sqsq=\d+.*\]` (`.` excludes newline).
bool matchAtomDetailed(std::string_view name) {
  auto h = matchAtomHead(name);
  if (!h) return false;
  size_t nl = name.find('\n', h->second);
  size_t lineEnd = nl == std::string_view::npos ? name.size() : nl;
  size_t lastClose = std::string_view::npos;
  for (size_t i = lineEnd; i > h->second; --i)
    if (name[i - 1] == ']') {
      lastClose = i - 1;
      break;
    }
  if (lastClose == std::string_view::npos) return false;
  for (size_t at = h->second; at + 5 < lastClose; ++at) {
    if (name.compare(at, 5, "sqsq=") == 0 && isDigit(name[at + 5])) return true;
  }
  return false;
}

// `^(prefill|decode)\[(.*)\]`.
bool matchAtomNative(std::string_view name) {
  auto h = matchAtomHead(name);
  if (!h) return false;
  size_t nl = name.find('\n', h->second);
  size_t close = name.find(']', h->second);
  return close != std::string_view::npos && (nl == std::string_view::npos || close < nl);
}

// Python int() of a \S+ token: optional sign, digits with single '_' separators.
int64_t pyIntOrZero(std::string_view t) {
  size_t i = 0;
  bool neg = false;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) neg = t[i++] == '-';
  if (i >= t.size() || !isDigit(t[i])) return 0;
  int64_t v = 0;
  bool lastUnderscore = false;
  for (; i < t.size(); ++i) {
    if (isDigit(t[i])) {
      if (v < kAnnotationIntLimit) v = v * 10 + (t[i] - '0');
      lastUnderscore = false;
    } else if (t[i] == '_' && !lastUnderscore) {
      lastUnderscore = true;
    } else {
      return 0;
    }
  }
  if (lastUnderscore) return 0;
  v = std::min(v, kAnnotationIntLimit);
  return neg ? -v : v;
}

// `(\w+)=(\[[^\]]*\](?:\.\.\.\+\d+)?|\S+)` findall; later duplicates win.
std::unordered_map<std::string, std::string> kvAtom(std::string_view body) {
  std::unordered_map<std::string, std::string> kv;
  size_t i = 0;
  while (i < body.size()) {
    if (!isWord(body[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < body.size() && isWord(body[j])) ++j;
    if (j + 1 < body.size() && body[j] == '=' && !isSpace(body[j + 1])) {
      size_t v0 = j + 1, e = std::string_view::npos;
      if (body[v0] == '[') {
        size_t c = body.find(']', v0 + 1);
        if (c != std::string_view::npos) {
          e = c + 1;
          if (body.compare(e, 4, "...+") == 0 && e + 4 < body.size() && isDigit(body[e + 4])) {
            e += 4;
            while (e < body.size() && isDigit(body[e])) ++e;
          }
        }
      }
      if (e == std::string_view::npos) {
        e = v0;
        while (e < body.size() && !isSpace(body[e])) ++e;
      }
      kv[std::string(body.substr(i, j - i))] = std::string(body.substr(v0, e - v0));
      i = e;
    } else {
      i = j;
    }
  }
  return kv;
}

StepDetails parseAtom(std::string_view name, AnnotationKind kind) {
  int phase = name.substr(0, 7) == "prefill" ? 0 : 1;
  auto kv = kvAtom(bracketBody(name));
  auto num = [&](const char* k) -> int64_t {
    auto it = kv.find(k);
    return it == kv.end() ? 0 : pyIntOrZero(it->second);
  };
  int64_t bs = 0;
  if (auto it = kv.find("bs"); it != kv.end()) {
    const std::string& v = it->second;
    size_t a = 0;
    while (a < v.size() && !isDigit(v[a])) ++a;
    size_t b = a;
    while (b < v.size() && isDigit(v[b])) ++b;
    if (b > a) bs = digitsValue(std::string_view(v).substr(a, b - a));
  }
  int64_t tok = num("tok");
  StepDetails s;
  s.kind = kind;
  s.hasSqsk = kv.count("sqsq") && kv.count("sqsk");
  s.contextRequests = s.contextSum = s.generationRequests = s.generationSum = 0;
  if (phase == 0) {
    s.contextRequests = bs;
    s.contextSum = tok;
  } else {
    s.generationRequests = bs;
    s.generationSum = tok;
  }
  s.batchSize = tok;
  s.numRequests = s.contextRequests + s.generationRequests;
  return s;
}

}  // namespace

const char* annotationKindName(AnnotationKind k) {
  switch (k) {
    case AnnotationKind::VllmDetailed: return "vllm_detailed";
    case AnnotationKind::VllmNative: return "vllm_native";
    case AnnotationKind::SglangDetailed: return "sglang_detailed";
    case AnnotationKind::SglangNative: return "sglang_native";
    case AnnotationKind::AtomDetailed: return "atom_detailed";
    case AnnotationKind::AtomNative: return "atom_native";
    case AnnotationKind::DiffusionNative: return "diffusion_native";
    case AnnotationKind::None: break;
  }
  return "none";
}

bool isServingKind(AnnotationKind k) { return k != AnnotationKind::None && k != AnnotationKind::DiffusionNative; }

bool matchesDetailedPattern(std::string_view name) {
  return matchVllmDetailed(name).has_value() || matchAtomDetailed(name) || matchSglDetailed(name);
}

bool matchesNativePattern(std::string_view name) {
  return matchVllmNative(name).has_value() || matchSglNative(name) || matchAtomNative(name) ||
         matchDiffusion(name, nullptr);
}

StepDetails parseAnnotation(std::string_view name) {
  if (auto v = matchVllmDetailed(name)) {
    StepDetails s;
    s.kind = AnnotationKind::VllmDetailed;
    s.hasSqsk = true;
    s.contextRequests = v->cr;
    s.contextSum = v->a;
    s.generationRequests = v->gr;
    s.generationSum = v->e;
    s.batchSize = v->a + v->e;
    s.numRequests = s.contextRequests + s.generationRequests;
    return s;
  }
  if (auto v = matchVllmNative(name)) {
    StepDetails s;
    s.kind = AnnotationKind::VllmNative;
    s.contextRequests = v->cr;
    s.contextSum = v->cs;
    s.generationRequests = v->gr;
    s.generationSum = v->gs;
    s.batchSize = v->cs + v->gs;
    s.numRequests = s.contextRequests + s.generationRequests;
    return s;
  }
  if (matchSglDetailed(name)) return parseSglDetailed(name);
  if (matchSglNative(name)) {
    if (auto s = parseSglNative(name)) return *s;
  }
  if (matchAtomDetailed(name)) return parseAtom(name, AnnotationKind::AtomDetailed);
  if (matchAtomNative(name)) return parseAtom(name, AnnotationKind::AtomNative);
  int64_t bs = 0;
  if (matchDiffusion(name, &bs)) {
    StepDetails s;
    s.kind = AnnotationKind::DiffusionNative;
    s.batchSize = bs;
    s.numRequests = s.contextRequests = s.contextSum = s.generationRequests = s.generationSum = 0;
    return s;
  }
  return StepDetails{};
}

std::string nameSkeleton(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (size_t i = 0; i < name.size();) {
    if (isDigit(name[i])) {
      out += '#';
      while (i < name.size() && isDigit(name[i])) ++i;
    } else {
      out += name[i++];
    }
  }
  return out;
}

std::string sanitizeRootName(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (char c : name) {
    if (c == '/' || c == '(' || c == ' ')
      out += '_';
    else if (c == ')' || c == ':')
      continue;
    else
      out += c;
  }
  return out;
}

}  // namespace steadyscope::analysis
