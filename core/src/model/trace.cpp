#include <steadyscope/core/model/trace.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>

namespace steadyscope {

const char* phName(Ph ph) {
  switch (ph) {
    case Ph::Complete: return "X";
    case Ph::Begin: return "B";
    case Ph::End: return "E";
    case Ph::Instant: return "i";
    case Ph::Metadata: return "M";
    case Ph::FlowStart: return "s";
    case Ph::FlowStep: return "t";
    case Ph::FlowEnd: return "f";
    case Ph::Counter: return "C";
    case Ph::Other: return "?";
    case Ph::Missing: return "";
  }
  return "?";
}

CatClass classifyCategory(std::string_view c) {
  if (c == "kernel" || c == "Kernel") return CatClass::Kernel;
  if (c == "gpu_memcpy" || c == "Memcpy") return CatClass::Memcpy;
  if (c == "gpu_memset" || c == "Memset") return CatClass::Memset;
  if (c == "gpu_user_annotation") return CatClass::GpuUserAnnotation;
  if (c == "user_annotation") return CatClass::UserAnnotation;
  if (c == "cpu_op" || c == "Operator") return CatClass::CpuOp;
  if (c == "cuda_runtime" || c == "Runtime") return CatClass::Runtime;
  if (c == "cuda_driver") return CatClass::Driver;
  if (c == "python_function") return CatClass::PythonFunction;
  if (c == "ac2g" || c == "async_cpu_to_gpu") return CatClass::FlowAc2g;
  return CatClass::Other;
}

StringPool::StringPool() { strings_.emplace_back(); }

StrId StringPool::intern(std::string_view s) {
  if (s.empty()) return kNoStr;
  if (auto it = index_.find(s); it != index_.end()) return it->second;
  strings_.emplace_back(s);
  StrId id = static_cast<StrId>(strings_.size() - 1);
  index_.emplace(std::string_view(strings_.back()), id);
  return id;
}

StrId StringPool::find(std::string_view s) const {
  if (s.empty()) return kNoStr;
  auto it = index_.find(s);
  return it == index_.end() ? kNoStr : it->second;
}

namespace {

/// Views of a text that lies contiguously in memory.
class ContiguousReader final : public TextReader {
 public:
  explicit ContiguousReader(std::string_view t) : t_(t) {}
  bool read(uint64_t off, size_t len, std::string_view& out) override {
    if (off > t_.size() || len > t_.size() - off) {
      error_ = "range outside the source text";
      return false;
    }
    out = t_.substr(static_cast<size_t>(off), len);
    return true;
  }
  const std::string& error() const override { return error_; }

 private:
  std::string_view t_;
  std::string error_;
};

}  // namespace

std::unique_ptr<TextReader> SourceText::reader() const { return std::make_unique<ContiguousReader>(text()); }

EventText::EventText(const Trace& trace) : trace_(trace) {
  if (trace.source) reader_ = trace.source->reader();
}

EventText::~EventText() = default;

bool EventText::read(EventIdx i, std::string_view& out) {
  out = {};
  if (!reader_) {
    error_ = "the trace has no source text";
    return false;
  }
  if (!reader_->read(trace_.offset[i], trace_.length[i], out)) {
    error_ = reader_->error();
    return false;
  }
  return true;
}

std::string_view EventText::operator()(EventIdx i) {
  std::string_view v;
  return read(i, v) ? v : std::string_view{};
}

namespace {

__extension__ typedef __int128 Int128;  // GCC/Clang: exact products of 64-bit values

// sign(ns / 1000 - a * 2^k), exactly (ns >= 0, |a| < 2^55, -64 < k < 64 in use).
int compareToScaled(uint64_t ns, Int128 a, int k) {
  Int128 lhs = static_cast<Int128>(ns), rhs = a * 1000;
  if (k >= 0)
    rhs <<= k;
  else
    lhs <<= -k;
  return lhs < rhs ? -1 : lhs > rhs ? 1 : 0;
}

// The double nearest to ns / 1000 (ties to even), for ns >= 2^53: the long
// double quotient is within an ulp (with x86's 64-bit mantissa it is already
// right); the midpoints to its neighbours, compared exactly in 128-bit
// integers, settle it wherever long double is narrower.
double nearestMicros(uint64_t ns) {
  double d = static_cast<double>(static_cast<long double>(ns) / 1000.0L);
  for (int step = 0; step < 4; ++step) {
    int e = 0;
    const double fr = std::frexp(d, &e);
    const auto m = static_cast<int64_t>(std::ldexp(fr, 53));  // d = m * 2^(e - 53)
    const int k = e - 53;
    const int up = compareToScaled(ns, 2 * Int128(m) + 1, k - 1);  // against the midpoint above
    // Below a power of two the neighbour is half an ulp away.
    const bool pow2 = m == (int64_t(1) << 52);
    const int down =
        pow2 ? compareToScaled(ns, 4 * Int128(m) - 1, k - 2) : compareToScaled(ns, 2 * Int128(m) - 1, k - 1);
    if (up > 0 || (up == 0 && (m & 1))) {
      d = std::nextafter(d, INFINITY);
    } else if (down < 0 || (down == 0 && (m & 1))) {
      d = std::nextafter(d, 0.0);
    } else {
      return d;
    }
  }
  return d;
}

}  // namespace

double nsToUsExact(int64_t ns) {
  constexpr int64_t kExact = int64_t(1) << 53;
  if (ns > -kExact && ns < kExact)
    return static_cast<double>(ns) / 1000.0;  // both exact: one correctly rounded division
  // Beyond 2^53 the int->double step would round first (the decimal text's
  // float() is the reference): round the exact quotient instead.
  const bool neg = ns < 0;
  const uint64_t u = neg ? uint64_t(0) - uint64_t(ns) : uint64_t(ns);
  const uint64_t q = u / 1000, r = u % 1000;
  // Epoch timestamps land here. With q exact (< 2^53, so q >= 2^43 and the
  // result's midpoints are multiples of 2^-10), r/1000 is either such a
  // multiple and exact, or at least 1/128000 from every midpoint: far beyond
  // the division's 2^-53 error, so the one rounded sum is the nearest double.
  const double d = q < uint64_t(kExact) ? static_cast<double>(q) + static_cast<double>(r) / 1000.0 : nearestMicros(u);
  return neg ? -d : d;
}

double Trace::tsUsSlow(EventIdx i) const {
  if (flags[i] & ev::TsInexact) {
    if (auto it = exactTsUs.find(i); it != exactTsUs.end()) return it->second;
  }
  return nsToUsExact(tsNs[i]);
}

double Trace::durUsSlow(EventIdx i) const {
  if (flags[i] & ev::DurInexact) {
    if (auto it = exactDurUs.find(i); it != exactDurUs.end()) return it->second;
  }
  return nsToUsExact(durNs[i]);
}

std::string Trace::keyText(const JsonKey& k) const {
  switch (k.type) {
    case JsonKey::Type::None: return "";
    case JsonKey::Type::Int: return std::to_string(k.i);
    case JsonKey::Type::Str: return std::string(strings.view(static_cast<StrId>(k.i)));
    case JsonKey::Type::Real: return pyReprDouble(k.d);
  }
  return "";
}

uint64_t Trace::anomalyCount() const {
  uint64_t n = 0;
  for (const auto& a : anomalies) n += a.count;
  return n;
}

size_t Trace::columnBytes() const {
  auto b = [](const auto& c) { return c.size() * sizeof(c[0]); };
  return b(tsNs) + durNs.bytes() + offset.bytes() + length.bytes() + name.bytes() + b(cat) + b(ph) + b(flags) +
         lane.bytes() + b(depth) + corr.bytes() + extId.bytes();
}

// ---- OffsetColumn ----

uint32_t OffsetColumn::epochOf(size_t i) const {
  auto it = std::upper_bound(epochs_.begin(), epochs_.end(), static_cast<uint32_t>(i),
                             [](uint32_t k, const auto& e) { return k < e.first; });
  return it == epochs_.begin() ? 0 : std::prev(it)->second;
}

void OffsetColumn::push_back(uint64_t off) {
  const auto epoch = static_cast<uint32_t>(off >> 32);
  const uint32_t last = epochs_.empty() ? 0 : epochs_.back().second;
  if (epoch != last) epochs_.emplace_back(static_cast<uint32_t>(low_.size()), epoch);
  low_.push_back(static_cast<uint32_t>(off));
}

void OffsetColumn::splitInto(const uint64_t* src, size_t n, uint32_t base, uint32_t* low,
                             std::vector<std::pair<uint32_t, uint32_t>>& changes) {
  uint32_t prev = 0;
  for (size_t k = 0; k < n; ++k) {
    const auto epoch = static_cast<uint32_t>(src[k] >> 32);
    if (k == 0 || epoch != prev) {
      changes.emplace_back(base + static_cast<uint32_t>(k), epoch);  // one per piece in practice
      prev = epoch;
    }
    low[k] = static_cast<uint32_t>(src[k]);
  }
}

void OffsetColumn::adoptChanges(std::vector<std::pair<uint32_t, uint32_t>> changes) {
  std::sort(changes.begin(), changes.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  epochs_.clear();
  uint32_t cur = 0;
  for (const auto& c : changes) {
    if (c.second == cur) continue;
    epochs_.push_back(c);
    cur = c.second;
  }
}

std::string referenceBaseName(std::string_view path) {
  auto slash = path.find_last_of('/');
  std::string name(slash == std::string_view::npos ? path : path.substr(slash + 1));
  // Python str.replace semantics: one left-to-right pass per pattern.
  for (std::string_view pat :
       {std::string_view(".pt.trace"), std::string_view(".json.gz"), std::string_view(".json")}) {
    std::string out;
    size_t pos = 0;
    for (size_t hit; (hit = name.find(pat, pos)) != std::string::npos; pos = hit + pat.size())
      out.append(name, pos, hit - pos);
    out.append(name, pos, std::string::npos);
    name = std::move(out);
  }
  return name;
}

}  // namespace steadyscope
