#include "builder.hpp"

#include <algorithm>
#include <string>

namespace steadyscope::gen {

namespace {

std::string idText(bool asString, const std::string& value) { return asString ? "\"" + value + "\"" : value; }

}  // namespace

Builder::Builder(EventWriter& w, const Options& opt, Ns t0)
    : w_(w), opt_(opt), rng_(opt.jitterSeed(), 1), overlapRng_(opt.seed, 5) {
  const bool s = opt.stringIds;
  const std::string cpuPid = std::to_string(kCpuPid);
  const std::string gpuPid = std::to_string(kGpuPid);
  cpu_ = makeTrack(idText(s, cpuPid), idText(s, cpuPid));
  streams_[kCompute] = makeTrack(idText(s, gpuPid), s ? "\"stream 7\"" : "7");
  streams_[kComm] = makeTrack(idText(s, gpuPid), s ? "\"stream 13\"" : "13");
  streamEnd_.fill(t0);
}

Ns Builder::jitter(Ns base, int loPermille, int hiPermille) { return base * rng_.range(loPermille, hiPermille) / 1000; }

void Builder::beginStep() {
  stepGpuFirst_ = -1;
  stepGpuEnd_ = 0;
}

void Builder::cpuOp(std::string_view name, Ns ts, Ns dur, std::int64_t ext, Dims dims) {
  w_.complete(Cat::CpuOp, name, cpu_, ts, dur, [&](Out& o) {
    o.s("\"External id\": ").i(ext).s(", \"Record function id\": 0, \"Ev Idx\": ").i(++evIdx_);
    o.s(",\n      \"Input Dims\": ").dims(dims).s(", \"Input type\": [");
    for (std::size_t i = 0; i < dims.size(); ++i) o.s(i ? ", \"c10::BFloat16\"" : "\"c10::BFloat16\"");
    o.c(']');
  });
}

void Builder::frame(std::string_view name, Ns ts, Ns dur) {
  const auto ext = newExt();
  w_.complete(Cat::CpuOp, name, cpu_, ts, dur, [&](Out& o) {
    o.s("\"External id\": ").i(ext).s(", \"Record function id\": 0, \"Ev Idx\": ").i(++evIdx_);
  });
}

std::int64_t Builder::runtime(std::string_view name, Ns ts, Ns dur, std::int64_t ext) {
  const auto corr = ++corr_;
  w_.complete(Cat::Runtime, name, cpu_, ts, dur,
              [&](Out& o) { o.s("\"External id\": ").i(ext).s(", \"cbid\": 211, \"correlation\": ").i(corr); });
  return corr;
}

void Builder::pyFrame(std::string_view name, Ns ts, Ns dur, std::int64_t id, std::int64_t parent) {
  w_.complete(Cat::PythonFunction, name, cpu_, ts, dur, [&](Out& o) {
    o.s("\"Python parent id\": ");
    if (parent > 0)
      o.i(parent);
    else
      o.s("null");
    o.s(", \"Python id\": ").i(id).s(", \"Ev Idx\": ").i(++evIdx_);
  });
}

Ns Builder::placeOnStream(int stream, Ns launchTs, Ns dur) {
  auto& end = streamEnd_[static_cast<std::size_t>(stream)];
  auto& lastDur = lastDur_[static_cast<std::size_t>(stream)];
  const Ns latency = between(3, 9);
  const Ns gap = rng_.range(500, 2000);
  Ns start = std::max(end + gap, launchTs + latency);
  // Overlap: start a little before the predecessor ends, never before the
  // predecessor starts (starts stay monotonic per stream).
  if (opt_.overlapKernels && end > launchTs + 2000 && lastDur > 2000 && overlapRng_.chance(0.2)) {
    const Ns back = std::min(overlapRng_.range(us(1), us(4)), lastDur / 2);
    start = std::max(launchTs + 1000, end - back);
  }
  if (start < end) ++overlaps_;
  end = std::max(end, start + dur);
  if (stepGpuFirst_ < 0) stepGpuFirst_ = start;
  stepGpuEnd_ = std::max(stepGpuEnd_, start + dur);
  lastDur = dur;
  return start;
}

void Builder::gpuEvent(Cat cat, std::string_view name, int stream, Ns ts, Ns dur, std::int64_t corr, std::int64_t ext,
                       std::int64_t bytes) {
  const int sid = streamId(stream);
  w_.complete(cat, name, streamTrack(stream), ts, dur, [&](Out& o) {
    o.s("\"External id\": ").i(ext).s(", \"device\": 0, \"context\": 1, \"stream\": ").i(sid);
    o.s(", \"correlation\": ").i(corr);
    if (cat == Cat::Kernel) {
      o.s(",\n      \"registers per thread\": 72, \"shared memory\": 0, \"grid\": [132, 1, 1], ");
      o.s("\"block\": [256, 1, 1], \"warps per SM\": 8, \"blocks per SM\": 1");
    } else {
      o.s(", \"bytes\": ").i(bytes).s(", \"memory bandwidth (GB/s)\": ").us(bytes * 1000 / std::max<Ns>(dur, 1));
    }
  });
}

Ns Builder::launch(Ns t, std::string_view op, Dims dims, Kern k, int stream) {
  const auto ext = newExt();
  const Ns lead = between(1, 3);
  const Ns rtDur = between(3, 7);
  const Ns opDur = lead + rtDur + between(1, 4);
  cpuOp(op, t, opDur, ext, dims);
  const Ns lts = t + lead;
  const auto corr = runtime("cudaLaunchKernel", lts, rtDur, ext);
  w_.flow(true, corr, cpu_, lts);
  const Ns ks = placeOnStream(stream, lts, k.dur);
  gpuEvent(Cat::Kernel, k.name, stream, ks, k.dur, corr, ext, 0);
  w_.flow(false, corr, streamTrack(stream), ks);
  return t + opDur + between(1, 4);
}

Ns Builder::copy(Ns t, bool toDevice, std::int64_t bytes) {
  const auto ext = newExt();
  const Ns lead = between(2, 5);
  const Ns rtDur = between(4, 9);
  const Ns opDur = lead + rtDur + between(2, 6);
  cpuOp("aten::copy_", t, opDur, ext, {{bytes / 2}, {bytes / 2}});
  const Ns lts = t + lead;
  const auto corr = runtime("cudaMemcpyAsync", lts, rtDur, ext);
  w_.flow(true, corr, cpu_, lts);
  const Ns dur = us(1) + 500 + bytes / 25;  // ~25 GB/s
  const Ns ks = placeOnStream(kCompute, lts, dur);
  gpuEvent(Cat::Memcpy, toDevice ? "Memcpy HtoD (Pinned -> Device)" : "Memcpy DtoH (Device -> Pinned)", kCompute, ks,
           dur, corr, ext, bytes);
  w_.flow(false, corr, streamTrack(kCompute), ks);
  return t + opDur + between(1, 4);
}

Ns Builder::memset(Ns t, std::int64_t bytes) {
  const auto ext = newExt();
  const Ns lead = between(1, 3);
  const Ns rtDur = between(3, 6);
  const Ns opDur = lead + rtDur + between(1, 3);
  cpuOp("aten::zero_", t, opDur, ext, {{bytes / 4}});
  const Ns lts = t + lead;
  const auto corr = runtime("cudaMemsetAsync", lts, rtDur, ext);
  w_.flow(true, corr, cpu_, lts);
  const Ns dur = us(1) + bytes / 500;
  const Ns ks = placeOnStream(kCompute, lts, dur);
  gpuEvent(Cat::Memset, "Memset (Device)", kCompute, ks, dur, corr, ext, bytes);
  w_.flow(false, corr, streamTrack(kCompute), ks);
  return t + opDur + between(1, 4);
}

Ns Builder::graphReplay(Ns t, std::initializer_list<Kern> kernels) {
  const auto ext = newExt();
  const Ns lts = t + between(2, 5);
  const Ns rtDur = between(10, 25);
  const auto corr = runtime("cudaGraphLaunch", lts, rtDur, ext);
  w_.flow(true, corr, cpu_, lts);
  bool first = true;
  for (const auto& k : kernels) {
    const Ns ks = placeOnStream(kCompute, lts, k.dur);
    gpuEvent(Cat::Kernel, k.name, kCompute, ks, k.dur, corr, ext, 0);
    if (first) w_.flow(false, corr, streamTrack(kCompute), ks);
    first = false;
  }
  return lts + rtDur + between(2, 6);
}

Ns Builder::graphWithoutKernels(Ns t) {
  const auto ext = newExt();
  const Ns opDur = between(4, 10);
  cpuOp("aten::copy_", t, opDur, ext, {{64}, {64}});
  t += opDur + between(1, 3);
  const Ns rtDur = between(15, 35);
  runtime("cudaGraphLaunch", t, rtDur, newExt());
  t += rtDur + between(2, 6);
  const Ns wait = between(50, 400);  // the replay itself is invisible
  runtime("cudaStreamSynchronize", t, wait, newExt());
  return t + wait + between(2, 6);
}

Ns Builder::syncStream(Ns t) {
  const Ns ts = t + between(1, 3);
  const Ns gpuEnd = *std::max_element(streamEnd_.begin(), streamEnd_.end());
  const Ns dur = std::max<Ns>(us(1), gpuEnd - ts + between(1, 4));
  runtime("cudaStreamSynchronize", ts, dur, newExt());
  return ts + dur + between(2, 6);
}

void Builder::waitForStream(int waiter, int producer) {
  auto& w = streamEnd_[static_cast<std::size_t>(waiter)];
  w = std::max(w, streamEnd_[static_cast<std::size_t>(producer)]);
}

void Builder::root(std::string_view name, Ns ts, Ns dur, std::int64_t ext, bool mirror) {
  w_.complete(Cat::UserAnnotation, name, cpu_, ts, dur, [&](Out& o) {
    o.s("\"External id\": ").i(ext).s(", \"Record function id\": 0, \"Ev Idx\": ").i(++evIdx_);
  });
  if (!mirror || stepGpuFirst_ < 0) return;
  w_.complete(Cat::GpuUserAnnotation, name, streamTrack(kCompute), stepGpuFirst_,
              std::max<Ns>(us(1), stepGpuEnd_ - stepGpuFirst_), [&](Out& o) { o.s("\"External id\": ").i(ext); });
}

}  // namespace steadyscope::gen
