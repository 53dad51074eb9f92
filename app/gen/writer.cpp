#include "writer.hpp"

#include <utility>

namespace steadyscope::gen {

namespace {

constexpr std::size_t kFlushBytes = 8u << 20;

constexpr std::array<std::string_view, kCatCount> kCatNames = {
    "kernel",          "gpu_memcpy",          "gpu_memset", "cuda_runtime", "cpu_op",
    "user_annotation", "gpu_user_annotation", "ac2g",       "Trace"};
// Category names of 2021-era PyTorch profiler traces.
constexpr std::array<std::string_view, kCatCount> kOldCatNames = {
    "Kernel", "Memcpy", "Memset", "Runtime", "Operator", "user_annotation", "gpu_user_annotation", "ac2g", "Trace"};

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
  m_b.append(frac, frac + 4);
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
    : m_sink(sink), m_opt(opt), m_anomalyRng(opt.seed, 3), m_shuffleRng(opt.seed, 4) {
  m_stage.reserve(1u << 20);
  m_out.reserve(kFlushBytes + (1u << 20));
}

std::string_view EventWriter::catName(Cat c) const {
  const auto i = static_cast<std::size_t>(c);
  return m_opt.oldCategories ? kOldCatNames[i] : kCatNames[i];
}

EventWriter::DurMode EventWriter::pickCpuOpMode() {
  if (m_opt.badDur > 0.0 && m_anomalyRng.chance(m_opt.badDur))
    return (m_anomalyRng.next() & 1) ? DurMode::Missing : DurMode::Negative;
  return m_opt.bePairs ? DurMode::BePair : DurMode::Normal;
}

void EventWriter::beginEvent() {
  m_starts.push_back(m_stage.size());
  m_o.s(",\n  {\n");
}

void EventWriter::endEvent(char ph, Cat cat) {
  ++m_counts.total;
  ++m_counts.byPh[static_cast<unsigned char>(ph) & 127];
  if (cat != Cat::Count) ++m_counts.byCat[static_cast<std::size_t>(cat)];
}

void EventWriter::endPairEvent(const Track& t, Ns ts) {
  beginEvent();
  m_o.s("    \"ph\": \"E\", ").s(t.ids).s(", \"ts\": ").us(ts).s("\n  }");
  endEvent('E', Cat::Count);
  ++m_counts.bePairs;
}

void EventWriter::head(char ph, Cat cat, std::string_view name, const Track& t) {
  m_o.s("    \"ph\": \"").c(ph).s("\", \"cat\": \"").s(catName(cat)).s("\", \"name\": ").q(name);
  m_o.s(", ").s(t.ids).s(",\n");
}

void EventWriter::timing(Ns ts, Ns dur, DurMode mode) {
  m_o.s("    \"ts\": ").us(ts);
  switch (mode) {
    case DurMode::Missing: ++m_counts.missingDur; break;
    case DurMode::Negative:
      ++m_counts.negativeDur;
      m_o.s(", \"dur\": ").us(dur > 0 ? -dur : dur - 1000);
      break;
    default: m_o.s(", \"dur\": ").us(dur); break;
  }
  m_o.s(",\n    \"args\": {\n      ");
}

void EventWriter::flow(bool start, std::int64_t id, const Track& t, Ns ts) {
  beginEvent();
  m_o.s(start ? "    \"ph\": \"s\", \"id\": " : "    \"ph\": \"f\", \"id\": ").i(id);
  m_o.s(", ").s(t.ids).s(", \"ts\": ").us(ts).s(",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"");
  m_o.s(start ? "\n  }" : ", \"bp\": \"e\"\n  }");
  endEvent(start ? 's' : 'f', Cat::Flow);
}

void EventWriter::metadata(std::string_view name, const std::string& pid, const std::string& tid, const Ns* ts,
                           std::string_view argsBody) {
  beginEvent();
  m_o.s("    \"name\": ").q(name).s(", \"ph\": \"M\", ");
  if (ts)
    m_o.s("\"ts\": ").us(*ts).s(", ");
  else
    ++m_counts.metadataWithoutTs;
  m_o.s("\"pid\": ").s(pid).s(", \"tid\": ").s(tid).s(",\n    \"args\": {\n      ");
  m_o.s(argsBody).s("\n    }\n  }");
  endEvent('M', Cat::Count);
}

void EventWriter::instant(std::string_view name, const Track& t, Ns ts) {
  beginEvent();
  m_o.s("    \"name\": ").q(name).s(", \"ph\": \"i\", \"s\": \"g\",\n    ");
  m_o.s(t.ids).s(", \"ts\": ").us(ts).s("\n  }");
  endEvent('i', Cat::Count);
}

void EventWriter::appendRange(std::size_t index) {
  std::size_t from = m_starts[index];
  const std::size_t to = index + 1 < m_starts.size() ? m_starts[index + 1] : m_stage.size();
  if (m_firstEvent) {
    from += 2;  // the very first event of the array has no ",\n" before it
    m_firstEvent = false;
  }
  m_out.append(m_stage.data() + from, m_stage.data() + to);
}

void EventWriter::commit(std::size_t headFrom) {
  const std::size_t n = m_starts.size();
  if (n == 0) return;
  m_order.clear();
  for (std::size_t i = headFrom; i < n; ++i) m_order.push_back(i);
  for (std::size_t i = 0; i < headFrom && i < n; ++i) m_order.push_back(i);
  if (m_opt.unsorted) {
    const auto w = static_cast<std::size_t>(m_opt.unsortedWindow);
    for (std::size_t lo = 0; lo + 1 < n; lo += w) {
      const std::size_t len = std::min(w, n - lo);
      for (std::size_t k = len - 1; k > 0; --k)
        std::swap(m_order[lo + k],
                  m_order[lo + static_cast<std::size_t>(m_shuffleRng.range(0, static_cast<std::int64_t>(k)))]);
      ++m_shuffledWindows;
    }
  }
  for (auto idx : m_order) appendRange(idx);
  m_stage.clear();
  m_starts.clear();
  flushIfLarge(false);
}

void EventWriter::writeHeader(std::string_view headerText) {
  m_out.append(headerText.data(), headerText.data() + headerText.size());
}

void EventWriter::writeFooter(std::string_view footerText) {
  commit(m_starts.size());
  m_out.append(footerText.data(), footerText.data() + footerText.size());
}

void EventWriter::flushIfLarge(bool force) {
  if (m_out.size() == 0 || (!force && m_out.size() < kFlushBytes)) return;
  m_sink.write(m_out.data(), m_out.size());
  m_jsonBytes += m_out.size();
  m_out.clear();
}

void EventWriter::finish() {
  commit(m_starts.size());
  flushIfLarge(true);
}

}  // namespace steadyscope::gen
