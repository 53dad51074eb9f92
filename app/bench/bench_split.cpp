// `steadyscope-cli bench split`: end-to-end cost of a split, stage by stage.
#include "bench_split.hpp"
#include "baselines.hpp"
#include "io/load_tuning.hpp"
#include "io/source.hpp"
#include "split_args.hpp"

#include <steadyscope/io.hpp>
#include <steadyscope/split.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <ftw.h>
#include <unistd.h>

namespace steadyscope::cli {

namespace {

// Anonymous resident memory (RssAnon, kB) of this process.
long rssAnonKb() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("RssAnon:", 0) == 0) return std::strtol(line.c_str() + 8, nullptr, 10);
  return 0;
}

class AnonSampler {
 public:
  AnonSampler()
      : thread_([this] {
          while (!stop_.load()) {
            sample();
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
          }
        }) {}
  ~AnonSampler() { stop(); }
  void sample() {
    long v = rssAnonKb();
    long cur = peak_.load();
    while (v > cur && !peak_.compare_exchange_weak(cur, v)) {
    }
  }
  void stop() {
    if (!stop_.exchange(true) && thread_.joinable()) thread_.join();
    sample();
  }
  long peakKb() const { return peak_.load(); }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<long> peak_{0};
  std::thread thread_;
};

int removeEntry(const char* path, const struct stat*, int, struct FTW*) { return ::remove(path); }

std::vector<std::string>* gListing = nullptr;  // nftw takes no context
int listEntry(const char* path, const struct stat*, int type, struct FTW*) {
  if (type == FTW_F) gListing->push_back(path);
  return 0;
}

/// The machine's floor for the same work: decompressing the input, the bare
/// simdjson pass over its text, and compressing the bytes written (ISA-L's
/// fastest level, every thread); each the best of `runs`.
struct Floor {
  double decompress = 0, parse = 0, compress = 0;
  uint64_t writtenBytes = 0;
  int compressLevel = 0;  // ISA-L's level that compressed faster
  double total() const { return decompress + parse + compress; }
};

std::optional<Floor> measureFloor(const std::string& trace, const std::string& outDir, unsigned threads, int runs) {
  auto text = io::openSource(trace, {}, nullptr, /*indexGzip=*/false);  // compressed input: a temporary file
  if (!text) return std::nullopt;
  std::vector<std::string> written;
  gListing = &written;
  ::nftw(outDir.c_str(), listEntry, 16, FTW_PHYS);
  gListing = nullptr;
  Floor f;
  auto best = [](double& slot, double s) { slot = slot == 0 ? s : std::min(slot, s); };
  for (int r = 0; r < std::max(runs, 1); ++r) {
    if (text->compression != "none")
      if (auto d = baselineDecompress(trace)) best(f.decompress, d->seconds);
    auto p = baselineBareParse(*text->text, threads, io::LoadTuning{}.pieceBytes);
    auto c = baselineCompress(written, threads);
    if (!p || !c) return std::nullopt;
    best(f.parse, p->seconds);
    if (f.compress == 0 || c->seconds < f.compress) f.compressLevel = c->level;
    best(f.compress, c->seconds);
    f.writtenBytes = c->bytes;
  }
  return f;
}

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

constexpr const char* kProg = "steadyscope-cli bench split";

/// Takes bench's own --runs N out of `args`; the rest are split options.
int takeRuns(const Args& args, int& runs, Args& splitArgs) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--runs") {
      char* end = nullptr;
      const long v = i + 1 < args.size() ? std::strtol(args[i + 1].c_str(), &end, 10) : 0;
      if (i + 1 >= args.size() || *end != '\0' || v < 1 || v > 100) {
        std::fprintf(stderr, "%s: error: --runs takes a number of runs from 1 to 100\n", kProg);
        return 2;
      }
      runs = static_cast<int>(v);
      ++i;
      continue;
    }
    splitArgs.push_back(args[i]);
  }
  return 0;
}

/// Run 1's figures.
struct FirstRun {
  double load = 0, split = 0, again = 0, anew = 0, write = 0, total = 0;
  size_t events = 0, roots = 0, chunks = 0, chunksAgain = 0;
  analysis::SplitOutcome outcome = analysis::SplitOutcome::Error;
  long peakKb = 0;
};

/// Load, plan, write; the plan again on the same model, then a new splitter
/// on it. Returns 0, or 1 with the error printed.
int firstRun(const SplitArgs& sa, TracePtr& model, FirstRun& f) {
  AnonSampler sampler;
  const auto t0 = std::chrono::steady_clock::now();
  auto loaded = loadTrace(sa.trace, LoadOptions{.threads = sa.threads});
  if (!loaded) {
    std::fprintf(stderr, "%s: error: %s\n", kProg, loaded.error().describe().c_str());
    return 1;
  }
  model = loaded.value();
  f.load = secondsSince(t0);
  const auto t1 = std::chrono::steady_clock::now();
  auto splitter = std::make_unique<analysis::Splitter>(model);
  auto r = std::make_unique<analysis::SplitResult>(splitter->plan(sa.options));
  f.split = secondsSince(t1);
  const auto t2 = std::chrono::steady_clock::now();
  auto w = splitter->write(*r, nullptr, sa.options.threads);
  f.write = secondsSince(t2);
  f.total = secondsSince(t0);
  sampler.stop();
  f.peakKb = sampler.peakKb();
  // Again on the same model, as the GUI re-runs it with other parameters: the
  // first plan above pays for its temporaries' fresh pages, this one reuses them.
  const auto t3 = std::chrono::steady_clock::now();
  auto again = std::make_unique<analysis::SplitResult>(splitter->plan(sa.options));
  f.again = secondsSince(t3);
  f.events = model->size();
  f.roots = r->roots.size();
  f.chunks = r->chunks.size();
  f.chunksAgain = again->chunks.size();
  f.outcome = r->outcome;
  again.reset();
  r.reset();
  splitter.reset();
  // A new splitter on the same model once the first is gone: the first plan's
  // whole work (index and detection too) in memory this process has touched,
  // which separates the first plan's compute from its fresh pages.
  {
    const auto t4 = std::chrono::steady_clock::now();
    analysis::Splitter anew(model);
    analysis::SplitResult rAnew = anew.plan(sa.options);
    f.anew = secondsSince(t4);
  }
  if (!w) {
    std::fprintf(stderr, "%s: error: %s\n", kProg, w.error().describe().c_str());
    return 1;
  }
  return 0;
}

struct Run {
  double load, split, write, total;
};

/// Runs 2..runs: the previous model and splitter are released first (as when
/// another trace is opened), so a run reuses pages this process touched.
std::vector<Run> laterRuns(const SplitArgs& sa, const std::string& tmpDir, int runs) {
  std::vector<Run> later;
  for (int k = 2; k <= runs; ++k) {
    analysis::SplitOptions o = sa.options;
    o.outputDir = tmpDir + "/run" + std::to_string(k);
    const auto u0 = std::chrono::steady_clock::now();
    auto reloaded = loadTrace(sa.trace, LoadOptions{.threads = sa.threads});
    if (!reloaded) {
      std::fprintf(stderr, "%s: error: %s\n", kProg, reloaded.error().describe().c_str());
      break;
    }
    Run run{};
    run.load = secondsSince(u0);
    const auto u1 = std::chrono::steady_clock::now();
    analysis::Splitter runSplitter(reloaded.value());
    analysis::SplitResult runResult = runSplitter.plan(o);
    run.split = secondsSince(u1);
    const auto u2 = std::chrono::steady_clock::now();
    auto written = runSplitter.write(runResult, nullptr, o.threads);
    run.write = secondsSince(u2);
    run.total = secondsSince(u0);
    if (!written) {
      std::fprintf(stderr, "%s: error: %s\n", kProg, written.error().describe().c_str());
      break;
    }
    later.push_back(run);
  }
  return later;
}

void printFirstRun(const std::string& trace, const FirstRun& f) {
  const double pct = f.load > 0 ? 100.0 / f.load : 0.0;
  std::printf("trace          %s (%zu events)\n", trace.c_str(), f.events);
  std::printf("outcome        %s, %zu roots, %zu chunks\n", analysis::splitOutcomeName(f.outcome), f.roots, f.chunks);
  std::printf("load           %8.3f s\n", f.load);
  std::printf("split          %8.3f s  (%.1f%% of load)\n", f.split, pct * f.split);
  std::printf("split again    %8.3f s  (%.1f%% of load; same model, %zu chunks)\n", f.again, pct * f.again,
              f.chunksAgain);
  std::printf("split anew     %8.3f s  (%.1f%% of load; a new splitter on the same model, warm memory)\n", f.anew,
              pct * f.anew);
  std::printf("write          %8.3f s  (chunks + manifest + details)\n", f.write);
  std::printf("total          %8.3f s\n", f.total);
  std::printf("peak anon mem  %8.1f MiB  (run 1)\n", static_cast<double>(f.peakKb) / 1024.0);
}

void printFloor(const Floor& f, double firstTotal, const std::vector<Run>& later) {
  std::printf(
      "floor          %8.3f s  (decompress %.3f + bare parse %.3f + compress the %.1f MB written at ISA-L "
      "level %d on every thread %.3f)\n",
      f.total(), f.decompress, f.parse, static_cast<double>(f.writtenBytes) / 1e6, f.compressLevel, f.compress);
  std::printf("total / floor  %8.2fx (run 1)", firstTotal / f.total());
  if (!later.empty()) {
    std::vector<double> tot;
    for (const Run& x : later) tot.push_back(x.total);
    std::sort(tot.begin(), tot.end());
    std::printf(", %.2fx (later runs, median)", tot[tot.size() / 2] / f.total());
  }
  std::printf("\n");
}

void printLaterRuns(const std::vector<Run>& later) {
  if (later.empty()) return;
  for (size_t k = 0; k < later.size(); ++k)
    std::printf("run %-2zu         load %.3f s, split %.3f s (%.1f%% of load), write %.3f s, total %.3f s\n", k + 2,
                later[k].load, later[k].split, 100.0 * later[k].split / later[k].load, later[k].write, later[k].total);
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::vector<double> tot, splits, share;
  for (const Run& x : later) {
    tot.push_back(x.total);
    splits.push_back(x.split);
    share.push_back(100.0 * x.split / x.load);
  }
  std::printf("later runs     total best %.3f s, median %.3f s; split median %.3f s (%.1f%% of load, median)\n",
              *std::min_element(tot.begin(), tot.end()), median(tot), median(splits), median(share));
}

}  // namespace

int benchSplit(const Args& args) {
  int runs = 1;
  Args splitArgs;
  if (int rc = takeRuns(args, runs, splitArgs)) return rc;
  SplitArgs sa;
  if (int rc = parseSplitArgs(splitArgs, kProg, false, sa)) return rc;
  if (sa.help) {
    printSplitHelp(kProg);
    std::printf(
        "\nWith no -o the chunks go to a temporary directory that is removed afterwards.\n"
        "With no mode flag, --find-steady-state is assumed.\n"
        "--runs N (bench only): N load + split + write runs in this process; run 1 is the\n"
        "first (fresh memory), later runs start after the previous model is released.\n"
        "Last, the machine's floor for the same work: decompressing the input, a bare simdjson\n"
        "pass over its text and compressing the bytes written at ISA-L's fastest level on every\n"
        "thread (each the best of N), and the total as a multiple of it.\n");
    return 0;
  }
  std::string tmpDir;
  if (sa.options.outputDir.empty() || runs > 1) {
    char tmpl[] = "/tmp/steadyscope-bench-split-XXXXXX";
    if (!::mkdtemp(tmpl)) {
      std::perror("mkdtemp");
      return 1;
    }
    tmpDir = tmpl;
  }
  if (sa.options.outputDir.empty()) sa.options.outputDir = tmpDir + "/out";
  if (sa.threads) sa.options.threads = sa.threads;  // the loader and the splitter alike
  if (!sa.options.findSteadyState && !sa.options.storeSingleIteration && !sa.options.dividePhases &&
      sa.options.iterations == "all")
    sa.options.findSteadyState = true;
  FirstRun first;
  TracePtr model;
  const int rc = firstRun(sa, model, first);
  if (rc != 0 && !model) return rc;  // the load failed: nothing was written
  if (rc != 0) {
    if (!tmpDir.empty()) ::nftw(tmpDir.c_str(), removeEntry, 16, FTW_DEPTH | FTW_PHYS);
    return rc;
  }
  model.reset();  // the model goes with its last holder
  const std::vector<Run> later = laterRuns(sa, tmpDir, runs);
  const auto floor = measureFloor(sa.trace, sa.options.outputDir, sa.threads, runs);
  if (!tmpDir.empty()) ::nftw(tmpDir.c_str(), removeEntry, 16, FTW_DEPTH | FTW_PHYS);
  printFirstRun(sa.trace, first);
  printLaterRuns(later);
  if (floor) printFloor(*floor, first.total, later);
  return first.outcome == analysis::SplitOutcome::Error ? 1 : 0;
}

}  // namespace steadyscope::cli
