// Kineto-layout event writer: formats events into a reused memory buffer
// (one event per multi-line block, 3-decimal microsecond timestamps), applies
// the awkward-shape options (B/E pairs, bad durations, old category names,
// window shuffling) and counts what it wrote for the ground truth.
#pragma once

#include "options.hpp"
#include "rng.hpp"
#include "sink.hpp"

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace steadyscope::gen {

using Ns = std::int64_t;  // all times are integer nanoseconds

enum class Cat : std::uint8_t {
  Kernel,
  Memcpy,
  Memset,
  Runtime,
  CpuOp,
  UserAnnotation,
  GpuUserAnnotation,
  Flow,
  Trace,
  PythonFunction,
  Count
};
constexpr std::size_t kCatCount = static_cast<std::size_t>(Cat::Count);

// A (pid, tid) pair, pre-rendered once.
struct Track {
  std::string pid;  // JSON value text, e.g. 1234 or "1234"
  std::string tid;
  std::string ids;  // "pid": P, "tid": T
};
Track makeTrack(std::string pid, std::string tid);

// Small appender over fmt::memory_buffer; names passed to q() must not need
// JSON escaping (the generator only uses its own constant names).
class Out {
 public:
  explicit Out(fmt::memory_buffer& b) : b_(b) {}
  Out& s(std::string_view v) {
    b_.append(v.data(), v.data() + v.size());
    return *this;
  }
  Out& c(char ch) {
    b_.push_back(ch);
    return *this;
  }
  Out& i(std::int64_t v) {
    const fmt::format_int f(v);
    b_.append(f.data(), f.data() + f.size());
    return *this;
  }
  Out& q(std::string_view v) { return c('"').s(v).c('"'); }
  Out& us(Ns ns);  // microseconds with exactly three decimals
  Out& dims(std::initializer_list<std::initializer_list<std::int64_t>> d);
  fmt::memory_buffer& buf() { return b_; }

 private:
  fmt::memory_buffer& b_;
};

struct EventCounts {
  std::uint64_t total = 0;
  std::array<std::uint64_t, 128> byPh{};
  std::array<std::uint64_t, kCatCount> byCat{};
  std::uint64_t metadataWithoutTs = 0;
  std::uint64_t missingDur = 0;
  std::uint64_t negativeDur = 0;
  std::uint64_t bePairs = 0;
  std::uint64_t gpu() const;
};

class EventWriter {
 public:
  EventWriter(ByteSink& sink, const Options& opt);

  std::string_view catName(Cat c) const;

  // A complete event. `args` is called with an Out to write the body of
  // "args" (without braces). cpu_op events may be turned into B/E pairs or
  // get a missing/negative dur, as the options ask.
  template <class ArgsFn>
  void complete(Cat cat, std::string_view name, const Track& t, Ns ts, Ns dur, ArgsFn&& args) {
    DurMode mode = DurMode::Normal;
    if (cat == Cat::CpuOp) mode = pickCpuOpMode();
    if (mode == DurMode::BePair) {
      beginEvent();
      head('B', cat, name, t);
      o_.s("    \"ts\": ").us(ts).s(",\n    \"args\": {\n      ");
      args(o_);
      o_.s("\n    }\n  }");
      endEvent('B', cat);
      endPairEvent(t, ts + dur);
      return;
    }
    beginEvent();
    head('X', cat, name, t);
    timing(ts, dur, mode);
    args(o_);
    o_.s("\n    }\n  }");
    endEvent('X', cat);
  }

  void flow(bool start, std::int64_t id, const Track& t, Ns ts);
  void metadata(std::string_view name, const std::string& pid, const std::string& tid, const Ns* ts,
                std::string_view argsBody);
  void instant(std::string_view name, const Track& t, Ns ts);

  // Events written since the last commit form a group. commit() moves the
  // group to the output, putting events [headFrom, end) first (a step's root
  // is formatted last but belongs first), shuffled in windows if asked.
  std::size_t mark() const { return starts_.size(); }
  void commit(std::size_t headFrom);

  void writeHeader(std::string_view headerText);
  void writeFooter(std::string_view footerText);
  void finish();  // flushes everything to the sink (does not commit the sink)

  const EventCounts& counts() const { return counts_; }
  std::uint64_t jsonBytes() const { return jsonBytes_; }
  std::uint64_t shuffledWindows() const { return shuffledWindows_; }

 private:
  enum class DurMode { Normal, Missing, Negative, BePair };
  DurMode pickCpuOpMode();
  void beginEvent();
  void endEvent(char ph, Cat cat);
  void endPairEvent(const Track& t, Ns ts);
  void head(char ph, Cat cat, std::string_view name, const Track& t);
  void timing(Ns ts, Ns dur, DurMode mode);
  void appendRange(std::size_t index);
  void flushIfLarge(bool force);

  ByteSink& sink_;
  const Options& opt_;
  Rng anomalyRng_;
  Rng shuffleRng_;
  fmt::memory_buffer stage_;         // current group, each event prefixed by ",\n"
  std::vector<std::size_t> starts_;  // start offset of each staged event
  std::vector<std::size_t> order_;
  fmt::memory_buffer out_;  // bytes waiting for the sink
  Out o_{stage_};
  bool firstEvent_ = true;
  EventCounts counts_;
  std::uint64_t jsonBytes_ = 0;
  std::uint64_t shuffledWindows_ = 0;
};

}  // namespace steadyscope::gen
