// Building blocks of a step: operators, runtime launches, kernels, copies,
// flows and the step root, with a CPU clock passed in and out and one GPU
// clock per stream.
#pragma once

#include "options.hpp"
#include "rng.hpp"
#include "writer.hpp"

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace steadyscope::gen {

using Dims = std::initializer_list<std::initializer_list<std::int64_t>>;

constexpr Ns us(std::int64_t micros) { return micros * 1000; }

struct Kern {
  std::string_view name;
  Ns dur;
};

enum Stream : int { kCompute = 0, kComm = 1, kStreamCount = 2 };

class Builder {
 public:
  Builder(EventWriter& w, const Options& opt, Ns t0);

  Rng& rng() { return rng_; }
  EventWriter& writer() { return w_; }
  const Track& cpuTrack() const { return cpu_; }
  const Track& streamTrack(int stream) const { return streams_[static_cast<std::size_t>(stream)]; }
  int streamId(int stream) const { return stream == kComm ? 13 : 7; }

  Ns between(std::int64_t loUs, std::int64_t hiUs) { return rng_.range(us(loUs), us(hiUs)); }
  Ns jitter(Ns base, int loPermille, int hiPermille);

  // Events of a step: GPU extent of the step (for the gpu_user_annotation).
  void beginStep();
  bool stepHasGpu() const { return stepGpuFirst_ >= 0; }

  // Primitives.
  std::int64_t newExt() { return ++ext_; }
  void cpuOp(std::string_view name, Ns ts, Ns dur, std::int64_t ext, Dims dims);
  void frame(std::string_view name, Ns ts, Ns dur);
  std::int64_t runtime(std::string_view name, Ns ts, Ns dur, std::int64_t ext);
  // python_function frames: an id is taken when the frame opens (ids follow
  // call order, as Kineto's do) and the frame is written once its end is
  // known. `parent` 0 writes a null parent (the outermost frame).
  std::int64_t openPy() { return ++pyId_; }
  void pyFrame(std::string_view name, Ns ts, Ns dur, std::int64_t id, std::int64_t parent);

  // Composites; each takes the CPU time and returns the CPU time after it.
  Ns launch(Ns t, std::string_view op, Dims dims, Kern k, int stream = kCompute);
  Ns copy(Ns t, bool toDevice, std::int64_t bytes);
  Ns memset(Ns t, std::int64_t bytes);
  Ns graphReplay(Ns t, std::initializer_list<Kern> kernels);
  Ns graphWithoutKernels(Ns t);
  Ns syncStream(Ns t);
  void waitForStream(int waiter, int producer);
  void root(std::string_view name, Ns ts, Ns dur, std::int64_t ext, bool mirror);

  std::uint64_t overlappingKernels() const { return overlaps_; }

 private:
  Ns placeOnStream(int stream, Ns launchTs, Ns dur);
  void gpuEvent(Cat cat, std::string_view name, int stream, Ns ts, Ns dur, std::int64_t corr, std::int64_t ext,
                std::int64_t bytes);

  EventWriter& w_;
  const Options& opt_;
  Rng rng_;
  Rng overlapRng_;
  Track cpu_;
  std::array<Track, kStreamCount> streams_;
  std::array<Ns, kStreamCount> streamEnd_{};
  std::int64_t ext_ = 0;
  std::int64_t corr_ = 1000;
  std::int64_t evIdx_ = 0;
  std::int64_t pyId_ = 0;
  Ns stepGpuFirst_ = -1;
  Ns stepGpuEnd_ = 0;
  std::uint64_t overlaps_ = 0;
  std::array<Ns, kStreamCount> lastDur_{};
};

// pid/tid values used in the trace.
constexpr int kCpuPid = 1234;
constexpr int kGpuPid = 0;

}  // namespace steadyscope::gen
