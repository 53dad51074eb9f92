#include "builder.hpp"

#include <algorithm>
#include <string>

namespace steadyscope::gen {

namespace {

std::string idText(bool asString, const std::string& value) { return asString ? "\"" + value + "\"" : value; }

}  // namespace

Builder::Builder(EventWriter& w, const Options& opt, Ns t0)
    : m_w(w), m_opt(opt), m_rng(opt.seed, 1), m_overlapRng(opt.seed, 5) {
  const bool s = opt.stringIds;
  const std::string cpuPid = std::to_string(kCpuPid);
  const std::string gpuPid = std::to_string(kGpuPid);
  m_cpu = makeTrack(idText(s, cpuPid), idText(s, cpuPid));
  m_streams[kCompute] = makeTrack(idText(s, gpuPid), s ? "\"stream 7\"" : "7");
  m_streams[kComm] = makeTrack(idText(s, gpuPid), s ? "\"stream 13\"" : "13");
  m_streamEnd.fill(t0);
}

Ns Builder::jitter(Ns base, int loPermille, int hiPermille) {
  return base * m_rng.range(loPermille, hiPermille) / 1000;
}

void Builder::beginStep() {
  m_stepGpuFirst = -1;
  m_stepGpuEnd = 0;
}

void Builder::cpuOp(std::string_view name, Ns ts, Ns dur, std::int64_t ext, Dims dims) {
  m_w.complete(Cat::CpuOp, name, m_cpu, ts, dur, [&](Out& o) {
    o.s("\"External id\": ").i(ext).s(", \"Record function id\": 0, \"Ev Idx\": ").i(++m_evIdx);
    o.s(",\n      \"Input Dims\": ").dims(dims).s(", \"Input type\": [");
    for (std::size_t i = 0; i < dims.size(); ++i) o.s(i ? ", \"c10::BFloat16\"" : "\"c10::BFloat16\"");
    o.c(']');
  });
}

void Builder::frame(std::string_view name, Ns ts, Ns dur) {
  const auto ext = newExt();
  m_w.complete(Cat::CpuOp, name, m_cpu, ts, dur, [&](Out& o) {
    o.s("\"External id\": ").i(ext).s(", \"Record function id\": 0, \"Ev Idx\": ").i(++m_evIdx);
  });
}

std::int64_t Builder::runtime(std::string_view name, Ns ts, Ns dur, std::int64_t ext) {
  const auto corr = ++m_corr;
  m_w.complete(Cat::Runtime, name, m_cpu, ts, dur,
               [&](Out& o) { o.s("\"External id\": ").i(ext).s(", \"cbid\": 211, \"correlation\": ").i(corr); });
  return corr;
}

Ns Builder::placeOnStream(int stream, Ns launchTs, Ns dur) {
  auto& end = m_streamEnd[static_cast<std::size_t>(stream)];
  auto& lastDur = m_lastDur[static_cast<std::size_t>(stream)];
  const Ns latency = between(3, 9);
  const Ns gap = m_rng.range(500, 2000);
  Ns start = std::max(end + gap, launchTs + latency);
  // Overlap: start a little before the predecessor ends, never before the
  // predecessor starts (starts stay monotonic per stream).
  if (m_opt.overlapKernels && end > launchTs + 2000 && lastDur > 2000 && m_overlapRng.chance(0.2)) {
    const Ns back = std::min(m_overlapRng.range(us(1), us(4)), lastDur / 2);
    start = std::max(launchTs + 1000, end - back);
  }
  if (start < end) ++m_overlaps;
  end = std::max(end, start + dur);
  if (m_stepGpuFirst < 0) m_stepGpuFirst = start;
  m_stepGpuEnd = std::max(m_stepGpuEnd, start + dur);
  lastDur = dur;
  return start;
}

void Builder::gpuEvent(Cat cat, std::string_view name, int stream, Ns ts, Ns dur, std::int64_t corr, std::int64_t ext,
                       std::int64_t bytes) {
  const int sid = streamId(stream);
  m_w.complete(cat, name, streamTrack(stream), ts, dur, [&](Out& o) {
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
  m_w.flow(true, corr, m_cpu, lts);
  const Ns ks = placeOnStream(stream, lts, k.dur);
  gpuEvent(Cat::Kernel, k.name, stream, ks, k.dur, corr, ext, 0);
  m_w.flow(false, corr, streamTrack(stream), ks);
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
  m_w.flow(true, corr, m_cpu, lts);
  const Ns dur = us(1) + 500 + bytes / 25;  // ~25 GB/s
  const Ns ks = placeOnStream(kCompute, lts, dur);
  gpuEvent(Cat::Memcpy, toDevice ? "Memcpy HtoD (Pinned -> Device)" : "Memcpy DtoH (Device -> Pinned)", kCompute, ks,
           dur, corr, ext, bytes);
  m_w.flow(false, corr, streamTrack(kCompute), ks);
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
  m_w.flow(true, corr, m_cpu, lts);
  const Ns dur = us(1) + bytes / 500;
  const Ns ks = placeOnStream(kCompute, lts, dur);
  gpuEvent(Cat::Memset, "Memset (Device)", kCompute, ks, dur, corr, ext, bytes);
  m_w.flow(false, corr, streamTrack(kCompute), ks);
  return t + opDur + between(1, 4);
}

Ns Builder::graphReplay(Ns t, std::initializer_list<Kern> kernels) {
  const auto ext = newExt();
  const Ns lts = t + between(2, 5);
  const Ns rtDur = between(10, 25);
  const auto corr = runtime("cudaGraphLaunch", lts, rtDur, ext);
  m_w.flow(true, corr, m_cpu, lts);
  bool first = true;
  for (const auto& k : kernels) {
    const Ns ks = placeOnStream(kCompute, lts, k.dur);
    gpuEvent(Cat::Kernel, k.name, kCompute, ks, k.dur, corr, ext, 0);
    if (first) m_w.flow(false, corr, streamTrack(kCompute), ks);
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
  const Ns gpuEnd = *std::max_element(m_streamEnd.begin(), m_streamEnd.end());
  const Ns dur = std::max<Ns>(us(1), gpuEnd - ts + between(1, 4));
  runtime("cudaStreamSynchronize", ts, dur, newExt());
  return ts + dur + between(2, 6);
}

void Builder::waitForStream(int waiter, int producer) {
  auto& w = m_streamEnd[static_cast<std::size_t>(waiter)];
  w = std::max(w, m_streamEnd[static_cast<std::size_t>(producer)]);
}

void Builder::root(std::string_view name, Ns ts, Ns dur, std::int64_t ext, bool mirror) {
  m_w.complete(Cat::UserAnnotation, name, m_cpu, ts, dur, [&](Out& o) {
    o.s("\"External id\": ").i(ext).s(", \"Record function id\": 0, \"Ev Idx\": ").i(++m_evIdx);
  });
  if (!mirror || m_stepGpuFirst < 0) return;
  m_w.complete(Cat::GpuUserAnnotation, name, streamTrack(kCompute), m_stepGpuFirst,
               std::max<Ns>(us(1), m_stepGpuEnd - m_stepGpuFirst), [&](Out& o) { o.s("\"External id\": ").i(ext); });
}

}  // namespace steadyscope::gen
