#include "generator.hpp"

#include "builder.hpp"
#include "names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iterator>

namespace steadyscope::gen {

namespace {

constexpr Ns kSmallT0 = 2'718'281'828;              // 2718281.828 us
constexpr Ns kEpochT0 = 1'767'189'312'123'456'000;  // ~1.767e15 us
constexpr std::int64_t kBaseTimeNs = 1'767'189'312'000'000'000;

std::string headerText(const Options& opt) {
  const int worldSize = opt.style == Style::Training ? 8 : 1;
  std::string ranks;
  for (int r = 0; r < worldSize; ++r) ranks += (r ? ", " : "") + std::to_string(r);
  return fmt::format(
      "{{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n    {{\n"
      "      \"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\", \"totalGlobalMem\": 85029158912,\n"
      "      \"computeMajor\": 9, \"computeMinor\": 0,\n"
      "      \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,\n"
      "      \"regsPerBlock\": 65536, \"warpSize\": 32,\n"
      "      \"sharedMemPerBlock\": 49152, \"numSms\": 132,\n"
      "      \"regsPerMultiprocessor\": 65536, \"sharedMemPerBlockOptin\": 232448, "
      "\"sharedMemPerMultiprocessor\": 233472\n    }}\n  ],\n"
      "  \"distributedInfo\": {{\"backend\": \"nccl\", \"rank\": 0, \"world_size\": {0}, \"pg_count\": 1, "
      "\"pg_config\": [{{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", \"backend_config\": \"cuda:nccl\", "
      "\"pg_size\": {0}, \"ranks\": [{1}]}}], \"nccl_version\": \"2.21.5\"}},\n"
      "  \"record_shapes\": 1,\n  \"with_stack\": 0,\n  \"profile_memory\": 0,\n"
      "  \"traceEvents\": [\n",
      worldSize, ranks);
}

std::string footerText(const Options& opt) {
  return fmt::format(
      "\n  ],\n  \"traceName\": \"steadyscope_gen_{}_seed{}.pt.trace.json\",\n"
      "  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": {}\n}}\n",
      styleName(opt.style), opt.seed, opt.epoch ? 0 : kBaseTimeNs);
}

const char* processName(Style s) {
  switch (s) {
    case Style::Vllm: return "VLLM::EngineCore";
    case Style::Sglang: return "sglang::scheduler";
    case Style::Atom: return "ATOM::ModelRunner";
    case Style::Diffusion: return "xDiT::worker";
    case Style::Training: return "python3";
  }
  return "python3";
}

class TraceRun {
 public:
  TraceRun(const Options& opt, ByteSink& sink)
      : m_opt(opt),
        m_w(sink, opt),
        m_t0(opt.epoch ? kEpochT0 : kSmallT0),
        m_b(m_w, opt, m_t0),
        m_planRng(opt.seed, 2),
        m_graphRng(opt.seed, 6) {}

  Truth run(int steps) {
    m_truth.stepsRequested = steps;
    m_truth.annotationFormat = annotationFormat(m_opt);
    const bool serving = m_opt.style == Style::Vllm || m_opt.style == Style::Sglang || m_opt.style == Style::Atom;
    m_truth.plan = serving ? planServing(m_opt, steps, m_planRng) : planLoop(m_opt, steps, m_planRng);
    m_w.writeHeader(headerText(m_opt));
    metadata();
    Ns t = m_t0 + us(1000);
    for (std::size_t i = 0; i < m_truth.plan.steps.size(); ++i) t = step(static_cast<int>(i), m_truth.plan.steps[i], t);
    footer(t);
    return finish();
  }

 private:
  void meta(std::string_view name, const Track& t, bool process, std::string_view args) {
    const std::string& tid = process ? m_zeroTid : t.tid;
    m_w.metadata(name, t.pid, tid, &m_t0, args);
  }

  void metadata() {
    m_zeroTid = m_opt.stringIds ? "\"0\"" : "0";
    const Track& cpu = m_b.cpuTrack();
    meta("process_name", cpu, true, fmt::format("\"name\": \"{}\"", processName(m_opt.style)));
    meta("process_labels", cpu, true, "\"labels\": \"CPU\"");
    meta("process_sort_index", cpu, true, fmt::format("\"sort_index\": {}", kCpuPid));
    const Track& gpu = m_b.streamTrack(kCompute);
    meta("process_name", gpu, true, "\"name\": \"python3\"");
    meta("process_labels", gpu, true, "\"labels\": \"GPU 0\"");
    meta("process_sort_index", gpu, true, "\"sort_index\": 16777216");
    meta("thread_name", cpu, false, fmt::format("\"name\": \"thread {} (python3)\"", kCpuPid));
    meta("thread_sort_index", cpu, false, fmt::format("\"sort_index\": {}", kCpuPid));
    const int streams = m_opt.style == Style::Training ? kStreamCount : 1;
    for (int s = 0; s < streams; ++s) {
      const Track& st = m_b.streamTrack(s);
      meta("thread_name", st, false, fmt::format("\"name\": \"stream {}\"", m_b.streamId(s)));
      meta("thread_sort_index", st, false, fmt::format("\"sort_index\": {}", m_b.streamId(s)));
    }
    // Kineto also writes metadata without a timestamp.
    m_w.metadata("process_name", "\"Spans\"", "0", nullptr, "\"name\": \"Spans\"");
    m_w.commit(m_w.mark());
  }

  void footer(Ns end) {
    const Track spans = makeTrack("\"Spans\"", "\"PyTorch Profiler\"");
    m_w.complete(Cat::Trace, "PyTorch Profiler (0)", spans, m_t0, end - m_t0, [](Out& o) { o.s("\"Op count\": 0"); });
    m_w.instant("Record Window End", makeTrack("\"\"", "\"\""), end + us(10));
    m_w.writeFooter(footerText(m_opt));
  }

  Truth finish() {
    m_w.finish();
    m_truth.counts = m_w.counts();
    m_truth.jsonBytes = m_w.jsonBytes();
    m_truth.overlappingGpuEvents = m_b.overlappingKernels();
    m_truth.shuffledWindows = m_w.shuffledWindows();
    if (m_collectives > 1) m_truth.meanCollectiveUs = m_collectiveSumUs / static_cast<double>(m_collectives - 1);
    return m_truth;
  }

  bool graphEligible(const StepPlan& s) const {
    if (m_opt.style == Style::Training || m_opt.style == Style::Diffusion) return true;
    return s.cr == 0 && s.gr > 0;
  }

  ParsedCounts stepName(int i, const StepPlan& s) {
    switch (m_opt.style) {
      case Style::Diffusion: return diffusionStepName(1, 1024, 1024, m_name);
      case Style::Training: return trainingStepName(i, m_name);
      default: return servingStepName(m_opt, s, m_name);
    }
  }

  Ns step(int i, const StepPlan& s, Ns t) {
    t = betweenSteps(s, t);
    const ParsedCounts parsed = stepName(i, s);
    const bool graph = m_opt.graphSteps > 0.0 && graphEligible(s) && m_graphRng.chance(m_opt.graphSteps);
    const Ns rootTs = t;
    const auto ext = m_b.newExt();
    m_b.beginStep();
    t = rootTs + m_b.between(10, 30);
    t = graph ? m_b.graphWithoutKernels(t) : body(i, s, t);
    t += m_b.between(5, 20);
    const std::size_t head = m_w.mark();
    m_b.root(m_name, rootTs, t - rootTs, ext, !graph);
    m_w.commit(head);
    tally(parsed, s, graph, !graph && m_b.stepHasGpu());
    return t;
  }

  void tally(ParsedCounts parsed, const StepPlan& s, bool graph, bool mirrored) {
    auto& st = m_truth.steps;
    ++st.total;
    switch (classify(parsed)) {
      case StepKind::PrefillOnly: ++st.prefillOnly; break;
      case StepKind::PrefillDecode: ++st.prefillDecode; break;
      case StepKind::DecodeOnly: ++st.decodeOnly; break;
      case StepKind::Idle: ++st.idle; break;
    }
    st.graph += graph ? 1 : 0;
    st.idleGaps += s.idleGap ? 1 : 0;
    st.contextRequests += static_cast<std::uint64_t>(s.cr);
    st.generationRequests += static_cast<std::uint64_t>(s.gr);
    ++m_truth.roots;
    m_truth.mirrors += mirrored ? 1 : 0;
  }

  Ns betweenSteps(const StepPlan& s, Ns t) {
    static constexpr std::array<std::string_view, 4> kSchedOps = {"aten::empty", "aten::to", "aten::_to_copy",
                                                                  "aten::item"};
    t += s.idleGap ? m_b.between(2000, 20000) : 0;
    t += m_b.between(40, 150);
    for (int j = 0; j < 2; ++j) {
      const Ns d = m_b.between(3, 12);
      m_b.frame(kSchedOps[static_cast<std::size_t>(m_b.rng().range(0, 3))], t, d);
      t += d + m_b.between(2, 10);
    }
    m_w.commit(m_w.mark());
    return t + m_b.between(10, 40);
  }

  Ns body(int i, const StepPlan& s, Ns t) {
    switch (m_opt.style) {
      case Style::Diffusion: return diffusionBody(i, t);
      case Style::Training: return trainingBody(i, t);
      default: return servingBody(s, t);
    }
  }

  Ns servingLayer(const StepPlan& s, Ns t, bool eager) {
    const std::int64_t tok = std::max(1, s.ct + s.gt);
    auto j = [&](Ns base) { return m_b.jitter(base, 880, 1120); };
    if (eager) {
      t = m_b.launch(t, "aten::mm", {{tok, 4096}, {4096, 6144}}, {kn::kGemmLarge, j(us(20) + tok * 20)});
      t = m_b.launch(t, "vllm::rotary_embedding", {{tok}, {tok, 4096}}, {kn::kRotary, j(us(2) + tok * 2)});
      t = m_b.launch(t, "aten::mm", {{tok, 4096}, {4096, 4096}}, {kn::kGemmLarge, j(us(15) + tok * 15)});
      t = m_b.launch(t, "vllm::silu_and_mul", {{tok, 28672}}, {kn::kSiluMul, j(us(4) + tok * 5)});
    } else {
      t = m_b.graphReplay(t, {{kn::kRmsNorm, j(us(2) + tok * 2)},
                              {kn::kGemmSmall, j(us(6) + tok * 12 + s.gr * 20)},
                              {kn::kRotary, j(us(2) + tok * 2)},
                              {kn::kCacheWrite, j(us(2) + tok * 3)},
                              {kn::kSiluMul, j(us(3) + tok * 4)}});
    }
    const Kern attn{s.cr ? kn::kFlashPrefill : kn::kFlashDecode, j(us(8) + s.ct * 40LL + s.gr * 300LL)};
    return m_b.launch(t, "vllm::unified_attention_with_output",
                      {{tok, 32, 128}, {tok, 8, 128}, {tok, 8, 128}, {tok, 32, 128}}, attn);
  }

  Ns servingBody(const StepPlan& s, Ns t) {
    const std::int64_t tok = std::max(1, s.ct + s.gt);
    const std::int64_t reqs = std::max(1, s.cr + s.gr);
    t = m_b.copy(t, true, 8 * tok);
    t = m_b.copy(t, true, 16 * reqs);
    t = m_b.memset(t, 64 * reqs);
    t = m_b.launch(t, "aten::index_select", {{tok, 4096}, {tok}},
                   {kn::kIndexSelect, m_b.jitter(us(2) + tok * 2, 900, 1100)});
    const bool eager = s.ct > 512;
    for (int layer = 0; layer < m_opt.layers; ++layer) t = servingLayer(s, t, eager);
    t = m_b.launch(t, "aten::softmax", {{reqs, 151936}}, {kn::kSoftmax, m_b.jitter(us(4), 900, 1100)});
    t = m_b.launch(t, "aten::argmax", {{reqs, 151936}}, {kn::kArgmax, m_b.jitter(us(3), 900, 1100)});
    t = m_b.copy(t, false, 8 * reqs);
    return m_b.syncStream(t);
  }

  Ns diffusionBody(int i, Ns t) {
    const std::int64_t tokens = (1024 / 16) * (1024 / 16);
    const int warm = i < m_opt.warmupSteps ? 1600 : 1000;
    auto j = [&](Ns base) { return m_b.jitter(base, warm - 30, warm + 30); };
    t = m_b.copy(t, true, 4 * tokens * 16);
    for (int blk = 0; blk < m_opt.layers * 3; ++blk) {
      const Dims dims = {{2, tokens, 3072}, {3072, 3072}};
      t = m_b.launch(t, "aten::_scaled_dot_product_flash_attention", dims, {kn::kSdpa, j(us(60))});
      t = m_b.launch(t, "aten::addmm", dims, {kn::kGemmLarge, j(us(40))});
      t = m_b.launch(t, "aten::native_layer_norm", dims, {kn::kLayerNorm, j(us(8))});
      t = m_b.launch(t, "aten::gelu", dims, {kn::kGelu, j(us(10))});
    }
    t = m_b.copy(t, false, 1024 * 1024 * 3);
    return m_b.syncStream(t);
  }

  Ns trainingPass(Ns t, bool backward, int warm) {
    const Ns start = t;
    t += m_b.between(2, 5);
    auto j = [&](Ns base) { return m_b.jitter(base, warm - 20, warm + 20); };
    const Dims dims = {{8192, 4096}, {4096, 4096}};
    for (int layer = 0; layer < m_opt.layers; ++layer) {
      if (backward) {
        t = m_b.launch(t, "aten::mm", dims, {kn::kGemmBackward, j(us(90))});
        t = m_b.launch(t, "aten::mm", dims, {kn::kGemmBackward, j(us(90))});
        t = m_b.launch(t, "aten::silu_backward", dims, {kn::kSiluBackward, j(us(25))});
      } else {
        t = m_b.launch(t, "aten::mm", dims, {kn::kGemmLarge, j(us(80))});
        t = m_b.launch(t, "aten::add", dims, {kn::kRmsNorm, j(us(15))});
        t = m_b.launch(t, "aten::silu", dims, {kn::kSiluMul, j(us(20))});
      }
    }
    t += m_b.between(2, 5);
    m_b.frame(backward ? "autograd::engine::evaluate_function: MmBackward0" : "nn.Module: Transformer", start,
              t - start);
    return t + m_b.between(3, 8);
  }

  Ns trainingCollective(int i, Ns t) {
    const Ns start = t;
    Ns dur = m_b.jitter(static_cast<Ns>(m_opt.collectiveUs * 1000.0), 980, 1020);
    if (i == 0) dur = static_cast<Ns>(static_cast<double>(dur) * m_opt.firstCollectiveFactor);
    const double durUs = static_cast<double>(dur) / 1000.0;
    if (m_collectives++ == 0)
      m_truth.firstCollectiveUs = durUs;
    else
      m_collectiveSumUs += durUs;
    t = m_b.launch(t + m_b.between(2, 5), "nccl:all_reduce", {{std::int64_t(m_opt.layers) * 4096 * 4096}},
                   {kn::kAllReduce, dur}, kComm);
    t += m_b.between(1, 3);
    m_b.frame("DistributedDataParallel.reducer", start, t - start);
    m_b.waitForStream(kCompute, kComm);  // the optimizer waits for the gradients
    return t + m_b.between(3, 8);
  }

  Ns trainingBody(int i, Ns t) {
    const int warm = i < m_opt.warmupSteps ? 1300 : 1000;
    t = m_b.copy(t, true, 8 * 8192);
    t = trainingPass(t, false, warm);
    t = m_b.launch(t, "aten::cross_entropy_loss", {{8192, 32000}, {8192}}, {kn::kCrossEntropy, us(30)});
    t = trainingPass(t, true, warm);
    t = trainingCollective(i, t);
    const Ns optStart = t;
    t = m_b.launch(t + m_b.between(2, 5), "aten::_fused_adamw_", {{std::int64_t(m_opt.layers) * 4096 * 4096}},
                   {kn::kAdam, m_b.jitter(us(40), 980, 1020)});
    t = m_b.launch(t, "aten::zero_", {{std::int64_t(m_opt.layers) * 4096 * 4096}}, {kn::kFill, us(6)});
    t += m_b.between(1, 3);
    m_b.frame("Optimizer.step#AdamW.step", optStart, t - optStart);
    t = m_b.copy(t + m_b.between(2, 5), false, 4);
    return m_b.syncStream(t);
  }

  const Options& m_opt;
  EventWriter m_w;
  Ns m_t0;
  Builder m_b;
  Rng m_planRng;
  Rng m_graphRng;
  Truth m_truth;
  std::string m_name;
  std::string m_zeroTid;
  int m_collectives = 0;
  double m_collectiveSumUs = 0;
};

}  // namespace

Truth generateTrace(const Options& opt, int steps, ByteSink& sink) {
  TraceRun run(opt, sink);
  return run.run(steps);
}

}  // namespace steadyscope::gen
