#include "writer.hpp"

#include <utility>

namespace steadyscope::gen {

namespace {

constexpr std::size_t kFlushBytes = 8u << 20;

constexpr std::array<std::string_view, kCatCount> kCatNames = {
    "kernel",          "gpu_memcpy",          "gpu_memset", "cuda_runtime", "cpu_op",
    "user_annotation", "gpu_user_annotation", "ac2g",       "Trace",        "python_function"};
// Category names of 2021-era PyTorch profiler traces.
constexpr std::array<std::string_view, kCatCount> kOldCatNames = {
    "Kernel", "Memcpy", "Memset",         "Runtime", "Operator", "user_annotation", "gpu_user_annotation",
    "ac2g",   "Trace",  "python_function"};

}  // namespace

Track makeTrack(std::string pid, std::string tid) {
  Track t{std::move(pid), std::move(tid), {}};
  t.ids = "\"pid\": " + t.pid + ", \"tid\": " + t.tid;
  return t;
}

Out& Out::us(Ns ns) {
  if (ns < 0) {
    c('-');
    ns = -ns;
  }
  i(ns / 1000);
  const auto r = static_cast<int>(ns % 1000);
  const char frac[4] = {'.', static_cast<char>('0' + r / 100), static_cast<char>('0' + r / 10 % 10),
                        static_cast<char>('0' + r % 10)};
  b_.append(frac, frac + 4);
  return *this;
}

Out& Out::dims(std::initializer_list<std::initializer_list<std::int64_t>> d) {
  c('[');
  bool firstOuter = true;
  for (const auto& inner : d) {
    if (!firstOuter) s(", ");
    firstOuter = false;
    c('[');
    bool first = true;
    for (auto v : inner) {
      if (!first) s(", ");
      first = false;
      i(v);
    }
    c(']');
  }
  return c(']');
}

std::uint64_t EventCounts::gpu() const {
  return byCat[static_cast<std::size_t>(Cat::Kernel)] + byCat[static_cast<std::size_t>(Cat::Memcpy)] +
         byCat[static_cast<std::size_t>(Cat::Memset)];
}

EventWriter::EventWriter(ByteSink& sink, const Options& opt)
    : sink_(sink), opt_(opt), anomalyRng_(opt.seed, 3), shuffleRng_(opt.seed, 4) {
  stage_.reserve(1u << 20);
  out_.reserve(kFlushBytes + (1u << 20));
}

std::string_view EventWriter::catName(Cat c) const {
  const auto i = static_cast<std::size_t>(c);
  return opt_.oldCategories ? kOldCatNames[i] : kCatNames[i];
}

EventWriter::DurMode EventWriter::pickCpuOpMode() {
  if (opt_.badDur > 0.0 && anomalyRng_.chance(opt_.badDur))
    return (anomalyRng_.next() & 1) ? DurMode::Missing : DurMode::Negative;
  return opt_.bePairs ? DurMode::BePair : DurMode::Normal;
}

void EventWriter::beginEvent() {
  starts_.push_back(stage_.size());
  o_.s(",\n  {\n");
}

void EventWriter::endEvent(char ph, Cat cat) {
  ++counts_.total;
  ++counts_.byPh[static_cast<unsigned char>(ph) & 127];
  if (cat != Cat::Count) ++counts_.byCat[static_cast<std::size_t>(cat)];
}

void EventWriter::endPairEvent(const Track& t, Ns ts) {
  beginEvent();
  o_.s("    \"ph\": \"E\", ").s(t.ids).s(", \"ts\": ").us(ts).s("\n  }");
  endEvent('E', Cat::Count);
  ++counts_.bePairs;
}

void EventWriter::head(char ph, Cat cat, std::string_view name, const Track& t) {
  o_.s("    \"ph\": \"").c(ph).s("\", \"cat\": \"").s(catName(cat)).s("\", \"name\": ").q(name);
  o_.s(", ").s(t.ids).s(",\n");
}

void EventWriter::timing(Ns ts, Ns dur, DurMode mode) {
  o_.s("    \"ts\": ").us(ts);
  switch (mode) {
    case DurMode::Missing: ++counts_.missingDur; break;
    case DurMode::Negative:
      ++counts_.negativeDur;
      o_.s(", \"dur\": ").us(dur > 0 ? -dur : dur - 1000);
      break;
    default: o_.s(", \"dur\": ").us(dur); break;
  }
  o_.s(",\n    \"args\": {\n      ");
}

void EventWriter::flow(bool start, std::int64_t id, const Track& t, Ns ts) {
  beginEvent();
  o_.s(start ? "    \"ph\": \"s\", \"id\": " : "    \"ph\": \"f\", \"id\": ").i(id);
  o_.s(", ").s(t.ids).s(", \"ts\": ").us(ts).s(",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"");
  o_.s(start ? "\n  }" : ", \"bp\": \"e\"\n  }");
  endEvent(start ? 's' : 'f', Cat::Flow);
}

void EventWriter::metadata(std::string_view name, const std::string& pid, const std::string& tid, const Ns* ts,
                           std::string_view argsBody) {
  beginEvent();
  o_.s("    \"name\": ").q(name).s(", \"ph\": \"M\", ");
  if (ts)
    o_.s("\"ts\": ").us(*ts).s(", ");
  else
    ++counts_.metadataWithoutTs;
  o_.s("\"pid\": ").s(pid).s(", \"tid\": ").s(tid).s(",\n    \"args\": {\n      ");
  o_.s(argsBody).s("\n    }\n  }");
  endEvent('M', Cat::Count);
}

void EventWriter::instant(std::string_view name, const Track& t, Ns ts) {
  beginEvent();
  o_.s("    \"name\": ").q(name).s(", \"ph\": \"i\", \"s\": \"g\",\n    ");
  o_.s(t.ids).s(", \"ts\": ").us(ts).s("\n  }");
  endEvent('i', Cat::Count);
}

void EventWriter::appendRange(std::size_t index) {
  std::size_t from = starts_[index];
  const std::size_t to = index + 1 < starts_.size() ? starts_[index + 1] : stage_.size();
  if (firstEvent_) {
    from += 2;  // the very first event of the array has no ",\n" before it
    firstEvent_ = false;
  }
  out_.append(stage_.data() + from, stage_.data() + to);
}

void EventWriter::commit(std::size_t headFrom) {
  const std::size_t n = starts_.size();
  if (n == 0) return;
  order_.clear();
  for (std::size_t i = headFrom; i < n; ++i) order_.push_back(i);
  for (std::size_t i = 0; i < headFrom && i < n; ++i) order_.push_back(i);
  if (opt_.unsorted) {
    const auto w = static_cast<std::size_t>(opt_.unsortedWindow);
    for (std::size_t lo = 0; lo + 1 < n; lo += w) {
      const std::size_t len = std::min(w, n - lo);
      for (std::size_t k = len - 1; k > 0; --k)
        std::swap(order_[lo + k],
                  order_[lo + static_cast<std::size_t>(shuffleRng_.range(0, static_cast<std::int64_t>(k)))]);
      ++shuffledWindows_;
    }
  }
  for (auto idx : order_) appendRange(idx);
  stage_.clear();
  starts_.clear();
  flushIfLarge(false);
}

void EventWriter::writeHeader(std::string_view headerText) {
  out_.append(headerText.data(), headerText.data() + headerText.size());
}

void EventWriter::writeFooter(std::string_view footerText) {
  commit(starts_.size());
  out_.append(footerText.data(), footerText.data() + footerText.size());
}

void EventWriter::flushIfLarge(bool force) {
  if (out_.size() == 0 || (!force && out_.size() < kFlushBytes)) return;
  sink_.write(out_.data(), out_.size());
  jsonBytes_ += out_.size();
  out_.clear();
}

void EventWriter::finish() {
  commit(starts_.size());
  flushIfLarge(true);
}

}  // namespace steadyscope::gen
