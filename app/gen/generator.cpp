#include "generator.hpp"

#include "builder.hpp"
#include "names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>
#include <iterator>
#include <string_view>

namespace steadyscope::gen {

namespace {

constexpr Ns kSmallT0 = 2'718'281'828;              // 2718281.828 us
constexpr Ns kEpochT0 = 1'767'189'312'123'456'000;  // ~1.767e15 us
constexpr std::int64_t kBaseTimeNs = 1'767'189'312'000'000'000;

// Python frames of the training loop (--python-functions). train_step and
// _call_impl alternate between two line numbers from step to step, standing
// in for frames whose reported line changes between calls (re-entered
// generators, decorated functions): only a sibling-name normaliser that
// strips the "(N)" line numbers sees one repeated per-step frame.
constexpr std::string_view kPyMain = "train.py(42): main";
constexpr std::string_view kPyNext = "torch/utils/data/dataloader.py(631): __next__";
constexpr std::array<std::string_view, 2> kPyTrainStep = {"train.py(57): train_step", "train.py(61): train_step"};
constexpr std::string_view kPyWrappedCall = "torch/nn/modules/module.py(1492): _wrapped_call_impl";
constexpr std::array<std::string_view, 2> kPyCallImpl = {"torch/nn/modules/module.py(1501): _call_impl",
                                                         "torch/nn/modules/module.py(1511): _call_impl"};
constexpr std::string_view kPyForward = "model.py(88): forward";
constexpr std::string_view kPyCrossEntropy = "torch/nn/functional.py(3059): cross_entropy";
constexpr std::string_view kPyTensorBackward = "torch/_tensor.py(522): backward";
constexpr std::string_view kPyAutogradBackward = "torch/autograd/__init__.py(266): backward";
constexpr std::string_view kPyOptimizerWrapper = "torch/optim/optimizer.py(487): wrapper";
constexpr std::string_view kPyAdamwStep = "torch/optim/adamw.py(209): step";

// A rank's clock starts this much later than rank 0's (hosts are never in step).
constexpr Ns kRankClockOffsetNs = 37'000;

std::string headerText(const Options& opt) {
  const int worldSize = opt.distributed() ? opt.worldSize : opt.style == Style::Training ? 8 : 1;
  const int rank = opt.distributed() ? opt.rank : 0;
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
      "  \"distributedInfo\": {{\"backend\": \"nccl\", \"rank\": {3}, \"world_size\": {0}, \"pg_count\": 1, "
      "\"pg_config\": [{{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", \"backend_config\": \"cuda:nccl\", "
      "\"pg_size\": {0}, \"ranks\": [{1}]}}], \"nccl_version\": \"2.21.5\"}},\n"
      "  \"record_shapes\": 1,\n  \"with_stack\": {2},\n  \"profile_memory\": 0,\n"
      "  \"traceEvents\": [\n",
      worldSize, ranks, opt.pythonFunctions ? 1 : 0, rank);
}

std::string footerText(const Options& opt) {
  return fmt::format(
      "\n  ],\n  \"traceName\": \"steadyscope_gen_{}_seed{}{}.pt.trace.json\",\n"
      "  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": {}\n}}\n",
      styleName(opt.style), opt.seed, opt.distributed() ? fmt::format("_rank{}", opt.rank) : "",
      opt.epoch ? 0 : kBaseTimeNs);
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
      : opt_(opt),
        w_(sink, opt),
        t0_((opt.epoch ? kEpochT0 : kSmallT0) + (opt.distributed() ? opt.rank * kRankClockOffsetNs : 0)),
        b_(w_, opt, t0_),
        planRng_(opt.seed, 2),
        graphRng_(opt.seed, 6),
        annotated_(opt.annotation != Annotation::None),
        python_(opt.pythonFunctions) {}

  Truth run(int steps) {
    truth_.stepsRequested = steps;
    truth_.annotationFormat = annotationFormat(opt_);
    const bool serving = opt_.style == Style::Vllm || opt_.style == Style::Sglang || opt_.style == Style::Atom;
    truth_.plan = serving ? planServing(opt_, steps, planRng_) : planLoop(opt_, steps, planRng_);
    w_.writeHeader(headerText(opt_));
    metadata();
    Ns t = t0_ + us(1000);
    const Ns mainStart = t;
    if (python_) {
      mainPy_ = b_.openPy();
      t += us(1);
    }
    for (std::size_t i = 0; i < truth_.plan.steps.size(); ++i) t = step(static_cast<int>(i), truth_.plan.steps[i], t);
    if (python_) t = closeMain(mainStart, t);
    footer(t);
    return finish();
  }

 private:
  void meta(std::string_view name, const Track& t, bool process, std::string_view args) {
    const std::string& tid = process ? zeroTid_ : t.tid;
    w_.metadata(name, t.pid, tid, &t0_, args);
  }

  void metadata() {
    zeroTid_ = opt_.stringIds ? "\"0\"" : "0";
    const Track& cpu = b_.cpuTrack();
    meta("process_name", cpu, true, fmt::format("\"name\": \"{}\"", processName(opt_.style)));
    meta("process_labels", cpu, true, "\"labels\": \"CPU\"");
    meta("process_sort_index", cpu, true, fmt::format("\"sort_index\": {}", kCpuPid));
    const Track& gpu = b_.streamTrack(kCompute);
    meta("process_name", gpu, true, "\"name\": \"python3\"");
    meta("process_labels", gpu, true, "\"labels\": \"GPU 0\"");
    meta("process_sort_index", gpu, true, "\"sort_index\": 16777216");
    meta("thread_name", cpu, false, fmt::format("\"name\": \"thread {} (python3)\"", kCpuPid));
    meta("thread_sort_index", cpu, false, fmt::format("\"sort_index\": {}", kCpuPid));
    const int streams = opt_.style == Style::Training ? kStreamCount : 1;
    for (int s = 0; s < streams; ++s) {
      const Track& st = b_.streamTrack(s);
      meta("thread_name", st, false, fmt::format("\"name\": \"stream {}\"", b_.streamId(s)));
      meta("thread_sort_index", st, false, fmt::format("\"sort_index\": {}", b_.streamId(s)));
    }
    // Kineto also writes metadata without a timestamp.
    w_.metadata("process_name", "\"Spans\"", "0", nullptr, "\"name\": \"Spans\"");
    w_.commit(w_.mark());
  }

  // The outermost Python frame spans every step; it is written last, once its
  // end is known (a tree builder sorts by ts, so file order does not matter).
  Ns closeMain(Ns start, Ns t) {
    t += us(2);
    b_.pyFrame(kPyMain, start, t - start, mainPy_, 0);
    w_.commit(w_.mark());
    return t + us(2);
  }

  void footer(Ns end) {
    const Track spans = makeTrack("\"Spans\"", "\"PyTorch Profiler\"");
    w_.complete(Cat::Trace, "PyTorch Profiler (0)", spans, t0_, end - t0_, [](Out& o) { o.s("\"Op count\": 0"); });
    w_.instant("Record Window End", makeTrack("\"\"", "\"\""), end + us(10));
    w_.writeFooter(footerText(opt_));
  }

  Truth finish() {
    w_.finish();
    truth_.counts = w_.counts();
    truth_.jsonBytes = w_.jsonBytes();
    truth_.overlappingGpuEvents = b_.overlappingKernels();
    truth_.shuffledWindows = w_.shuffledWindows();
    if (collectives_ > 1) truth_.meanCollectiveUs = collectiveSumUs_ / static_cast<double>(collectives_ - 1);
    return truth_;
  }

  bool graphEligible(const StepPlan& s) const {
    if (opt_.style == Style::Training || opt_.style == Style::Diffusion) return true;
    return s.cr == 0 && s.gr > 0;
  }

  ParsedCounts stepName(int i, const StepPlan& s) {
    switch (opt_.style) {
      case Style::Diffusion: return diffusionStepName(1, 1024, 1024, name_);
      case Style::Training: return trainingStepName(i, name_);
      default: return servingStepName(opt_, s, name_);
    }
  }

  Ns step(int i, const StepPlan& s, Ns t) {
    t = betweenSteps(s, t);
    const ParsedCounts parsed = stepName(i, s);
    const bool graph = opt_.graphSteps > 0.0 && graphEligible(s) && graphRng_.chance(opt_.graphSteps);
    const Ns rootTs = t;
    const auto ext = annotated_ ? b_.newExt() : 0;
    stepPy_ = python_ ? b_.openPy() : 0;
    b_.beginStep();
    t = rootTs + b_.between(10, 30);
    t = graph ? b_.graphWithoutKernels(t) : body(i, s, t);
    t += b_.between(5, 20);
    // Without annotations the step's extent shows only as its train_step
    // frame (with --python-functions), which spans what the root would.
    const std::size_t head = w_.mark();
    if (annotated_) b_.root(name_, rootTs, t - rootTs, ext, !graph);
    if (python_) b_.pyFrame(kPyTrainStep[static_cast<std::size_t>(i % 2)], rootTs, t - rootTs, stepPy_, mainPy_);
    w_.commit(head);
    tally(parsed, s, graph, annotated_ && !graph && b_.stepHasGpu());
    return t;
  }

  // The kinds count what a name parser derives (spec §2.4): without
  // annotations a splitter's tree roots carry frame names, which parse as
  // one-request decode steps just like ProfilerStep#N.
  void tally(ParsedCounts parsed, const StepPlan& s, bool graph, bool mirrored) {
    auto& st = truth_.steps;
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
    truth_.roots += annotated_ ? 1 : 0;
    truth_.mirrors += mirrored ? 1 : 0;
  }

  Ns betweenSteps(const StepPlan& s, Ns t) {
    static constexpr std::array<std::string_view, 4> kSchedOps = {"aten::empty", "aten::to", "aten::_to_copy",
                                                                  "aten::item"};
    t += s.idleGap ? b_.between(2000, 20000) : 0;
    t += b_.between(40, 150);
    // With Python frames the between-step ops are the data loader's.
    const Ns pyStart = t;
    const auto pyId = python_ ? b_.openPy() : 0;
    if (python_) t += us(1);
    for (int j = 0; j < 2; ++j) {
      const Ns d = b_.between(3, 12);
      b_.frame(kSchedOps[static_cast<std::size_t>(b_.rng().range(0, 3))], t, d);
      t += d + b_.between(2, 10);
    }
    if (python_) b_.pyFrame(kPyNext, pyStart, t - pyStart, pyId, mainPy_);
    w_.commit(w_.mark());
    return t + b_.between(10, 40);
  }

  Ns body(int i, const StepPlan& s, Ns t) {
    switch (opt_.style) {
      case Style::Diffusion: return diffusionBody(i, t);
      case Style::Training: return trainingBody(i, t);
      default: return servingBody(s, t);
    }
  }

  Ns servingLayer(const StepPlan& s, Ns t, bool eager) {
    const std::int64_t tok = std::max(1, s.ct + s.gt);
    auto j = [&](Ns base) { return b_.jitter(base, 880, 1120); };
    if (eager) {
      t = b_.launch(t, "aten::mm", {{tok, 4096}, {4096, 6144}}, {kn::kGemmLarge, j(us(20) + tok * 20)});
      t = b_.launch(t, "vllm::rotary_embedding", {{tok}, {tok, 4096}}, {kn::kRotary, j(us(2) + tok * 2)});
      t = b_.launch(t, "aten::mm", {{tok, 4096}, {4096, 4096}}, {kn::kGemmLarge, j(us(15) + tok * 15)});
      t = b_.launch(t, "vllm::silu_and_mul", {{tok, 28672}}, {kn::kSiluMul, j(us(4) + tok * 5)});
    } else {
      t = b_.graphReplay(t, {{kn::kRmsNorm, j(us(2) + tok * 2)},
                             {kn::kGemmSmall, j(us(6) + tok * 12 + s.gr * 20)},
                             {kn::kRotary, j(us(2) + tok * 2)},
                             {kn::kCacheWrite, j(us(2) + tok * 3)},
                             {kn::kSiluMul, j(us(3) + tok * 4)}});
    }
    const Kern attn{s.cr ? kn::kFlashPrefill : kn::kFlashDecode, j(us(8) + s.ct * 40LL + s.gr * 300LL)};
    return b_.launch(t, "vllm::unified_attention_with_output",
                     {{tok, 32, 128}, {tok, 8, 128}, {tok, 8, 128}, {tok, 32, 128}}, attn);
  }

  Ns servingBody(const StepPlan& s, Ns t) {
    const std::int64_t tok = std::max(1, s.ct + s.gt);
    const std::int64_t reqs = std::max(1, s.cr + s.gr);
    t = b_.copy(t, true, 8 * tok);
    t = b_.copy(t, true, 16 * reqs);
    t = b_.memset(t, 64 * reqs);
    t = b_.launch(t, "aten::index_select", {{tok, 4096}, {tok}},
                  {kn::kIndexSelect, b_.jitter(us(2) + tok * 2, 900, 1100)});
    const bool eager = s.ct > 512;
    for (int layer = 0; layer < opt_.layers; ++layer) t = servingLayer(s, t, eager);
    t = b_.launch(t, "aten::softmax", {{reqs, 151936}}, {kn::kSoftmax, b_.jitter(us(4), 900, 1100)});
    t = b_.launch(t, "aten::argmax", {{reqs, 151936}}, {kn::kArgmax, b_.jitter(us(3), 900, 1100)});
    t = b_.copy(t, false, 8 * reqs);
    return b_.syncStream(t);
  }

  Ns diffusionBody(int i, Ns t) {
    const std::int64_t tokens = (1024 / 16) * (1024 / 16);
    const int warm = i < opt_.warmupSteps ? 1600 : 1000;
    auto j = [&](Ns base) { return b_.jitter(base, warm - 30, warm + 30); };
    t = b_.copy(t, true, 4 * tokens * 16);
    for (int blk = 0; blk < opt_.layers * 3; ++blk) {
      const Dims dims = {{2, tokens, 3072}, {3072, 3072}};
      t = b_.launch(t, "aten::_scaled_dot_product_flash_attention", dims, {kn::kSdpa, j(us(60))});
      t = b_.launch(t, "aten::addmm", dims, {kn::kGemmLarge, j(us(40))});
      t = b_.launch(t, "aten::native_layer_norm", dims, {kn::kLayerNorm, j(us(8))});
      t = b_.launch(t, "aten::gelu", dims, {kn::kGelu, j(us(10))});
    }
    t = b_.copy(t, false, 1024 * 1024 * 3);
    return b_.syncStream(t);
  }

  Ns trainingPass(Ns t, bool backward, int warm) {
    const Ns start = t;
    t += b_.between(2, 5);
    auto j = [&](Ns base) { return b_.jitter(base, warm - 20, warm + 20); };
    const Dims dims = {{8192, 4096}, {4096, 4096}};
    for (int layer = 0; layer < opt_.layers; ++layer) {
      if (backward) {
        t = b_.launch(t, "aten::mm", dims, {kn::kGemmBackward, j(us(90))});
        t = b_.launch(t, "aten::mm", dims, {kn::kGemmBackward, j(us(90))});
        t = b_.launch(t, "aten::silu_backward", dims, {kn::kSiluBackward, j(us(25))});
      } else {
        t = b_.launch(t, "aten::mm", dims, {kn::kGemmLarge, j(us(80))});
        t = b_.launch(t, "aten::add", dims, {kn::kRmsNorm, j(us(15))});
        t = b_.launch(t, "aten::silu", dims, {kn::kSiluMul, j(us(20))});
      }
    }
    t += b_.between(2, 5);
    b_.frame(backward ? "autograd::engine::evaluate_function: MmBackward0" : "nn.Module: Transformer", start,
             t - start);
    return t + b_.between(3, 8);
  }

  // The first all-reduce of a distributed job ends when the last rank arrives:
  // the earlier a rank, the longer it waits.
  Ns firstCollectiveWait() const {
    const auto late = static_cast<double>(opt_.worldSize - 1 - opt_.rank);
    return static_cast<Ns>(late * 0.5 * opt_.collectiveUs * 1000.0);
  }

  Ns trainingCollective(int i, Ns t) {
    const Ns start = t;
    Ns dur = b_.jitter(static_cast<Ns>(opt_.collectiveUs * 1000.0), 980, 1020);
    if (i == 0) dur = static_cast<Ns>(static_cast<double>(dur) * opt_.firstCollectiveFactor);
    if (i == 0 && opt_.distributed()) dur += firstCollectiveWait();
    const double durUs = static_cast<double>(dur) / 1000.0;
    if (collectives_++ == 0)
      truth_.firstCollectiveUs = durUs;
    else
      collectiveSumUs_ += durUs;
    t = b_.launch(t + b_.between(2, 5), "nccl:all_reduce", {{std::int64_t(opt_.layers) * 4096 * 4096}},
                  {kn::kAllReduce, dur}, kComm);
    t += b_.between(1, 3);
    b_.frame("DistributedDataParallel.reducer", start, t - start);
    b_.waitForStream(kCompute, kComm);  // the optimizer waits for the gradients
    return t + b_.between(3, 8);
  }

  Ns trainingOptimizer(Ns t) {
    const Ns optStart = t;
    // Two draws in one call's arguments would come in an order each compiler picks: sequence them.
    const Ns adamDur = b_.jitter(us(40), 980, 1020);
    const Ns lead = b_.between(2, 5);
    t = b_.launch(t + lead, "aten::_fused_adamw_", {{std::int64_t(opt_.layers) * 4096 * 4096}}, {kn::kAdam, adamDur});
    t = b_.launch(t, "aten::zero_", {{std::int64_t(opt_.layers) * 4096 * 4096}}, {kn::kFill, us(6)});
    t += b_.between(1, 3);
    b_.frame("Optimizer.step#AdamW.step", optStart, t - optStart);
    return t;
  }

  // Runs `body` inside nested Python frames (outermost first) under the
  // step's train_step frame. Each frame starts 1 us before and ends 1 us
  // after the one it encloses, so a tree builder that sorts by ts and drops
  // children bleeding past their parent keeps every frame. Without
  // --python-functions it is just body(t): no extra random draws, so the
  // trace keeps its bytes.
  template <class Body>
  Ns inPython(Ns t, std::initializer_list<std::string_view> frames, Body&& body) {
    if (!python_) return body(t);
    std::array<std::int64_t, 4> ids{};
    const std::size_t n = std::min(frames.size(), ids.size());
    for (std::size_t k = 0; k < n; ++k) ids[k] = b_.openPy();
    const Ns end = body(t + static_cast<Ns>(n) * us(1));
    for (std::size_t k = n; k-- > 0;) {
      const Ns ts = t + static_cast<Ns>(k) * us(1);
      const Ns frameEnd = end + static_cast<Ns>(n - k) * us(1);
      b_.pyFrame(frames.begin()[k], ts, frameEnd - ts, ids[k], k ? ids[k - 1] : stepPy_);
    }
    return end + static_cast<Ns>(n + 1) * us(1);
  }

  Ns trainingBody(int i, Ns t) {
    // Compute kernels' length in permille: slower warm-up steps, and a straggler's factor.
    const int warm = static_cast<int>(std::lround((i < opt_.warmupSteps ? 1300 : 1000) * opt_.slowRankFactor));
    const auto parity = static_cast<std::size_t>(i % 2);
    t = b_.copy(t, true, 8 * 8192);
    t = inPython(t, {kPyWrappedCall, kPyCallImpl[parity], kPyForward},
                 [&](Ns at) { return trainingPass(at, false, warm); });
    t = inPython(t, {kPyCrossEntropy}, [&](Ns at) {
      return b_.launch(at, "aten::cross_entropy_loss", {{8192, 32000}, {8192}}, {kn::kCrossEntropy, us(30)});
    });
    t = inPython(t, {kPyTensorBackward, kPyAutogradBackward},
                 [&](Ns at) { return trainingCollective(i, trainingPass(at, true, warm)); });
    t = inPython(t, {kPyOptimizerWrapper, kPyAdamwStep}, [&](Ns at) { return trainingOptimizer(at); });
    t = b_.copy(t + b_.between(2, 5), false, 4);
    return b_.syncStream(t);
  }

  const Options& opt_;
  EventWriter w_;
  Ns t0_;
  Builder b_;
  Rng planRng_;
  Rng graphRng_;
  Truth truth_;
  std::string name_;
  std::string zeroTid_;
  int collectives_ = 0;
  double collectiveSumUs_ = 0;
  const bool annotated_;  // false: --annotation none
  const bool python_;     // --python-functions
  std::int64_t mainPy_ = 0;
  std::int64_t stepPy_ = 0;  // Python id of the current step's train_step
};

}  // namespace

Truth generateTrace(const Options& opt, int steps, ByteSink& sink) {
  TraceRun run(opt, sink);
  return run.run(steps);
}

}  // namespace steadyscope::gen
