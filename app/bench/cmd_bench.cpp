// steadyscope-cli bench load FILE | bench split TRACE: measurements, not tests.
#include "cmd_bench.hpp"
#include "baselines.hpp"
#include "bench_split.hpp"
#include "io/load_tuning.hpp"  // the loader's piece size, which the bare pass uses too

#include <steadyscope/common.hpp>
#include <steadyscope/io.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <optional>
#include <thread>
#include <vector>

#include <unistd.h>

#include <fmt/format.h>

namespace steadyscope::cli {

namespace {

using Clock = std::chrono::steady_clock;

/// Samples RssAnon every millisecond to find the peak anonymous memory of a phase.
class AnonSampler {
 public:
  AnonSampler()
      : th_([this] {
          while (!stop_.load()) {
            uint64_t a = readMemoryFigures().rssAnon;
            uint64_t cur = peak_.load();
            while (a > cur && !peak_.compare_exchange_weak(cur, a)) {
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
          }
        }) {}
  uint64_t stop() {
    stop_ = true;
    th_.join();
    return std::max(peak_.load(), readMemoryFigures().rssAnon);
  }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> peak_{0};
  std::thread th_;
};

double mib(uint64_t b) { return static_cast<double>(b) / (1024.0 * 1024.0); }

/// The raw baselines on the same text in the same process, each run as often
/// as the load and reported by its best run: the limit.
void printBaselines(const Trace& t, const std::string& path, unsigned threads, int runs, double best) {
  const double gb = static_cast<double>(t.stats.jsonBytes) / 1e9;
  double bs = 0;
  for (int r = 0; r < runs; ++r) {
    auto bare = baselineBareParse(*t.source, threads, io::LoadTuning{}.pieceBytes);
    if (!bare) break;
    if (bs == 0 || bare->seconds < bs) bs = bare->seconds;
  }
  if (t.source && t.source->text().empty() && t.source->size() > 0)
    std::printf(
        "baseline bare On-Demand pass: not run (the gzip text is not kept; it is re-inflated from checkpoints on "
        "demand)\n");
  if (bs > 0)
    std::printf(
        "baseline bare On-Demand pass (%u threads, same pieces, pread into a reused buffer; best of %d): "
        "%.3f s, %.2f GB/s -> load/bare = %.2fx\n",
        threads, runs, bs, gb / bs, best / bs);
  if (t.stats.compression != "none") {
    auto dec = baselineDecompress(path);
    if (dec && dec->seconds > 0)
      std::printf(
          "baseline decompression alone (ISA-L, reused 1 MiB buffer): %.3f s, %.2f GB/s out -> load/decompress = "
          "%.2fx\n",
          dec->seconds, static_cast<double>(dec->bytes) / 1e9 / dec->seconds, best / dec->seconds);
  }
}

const char* kBenchHelp =
    "Usage: steadyscope-cli bench load FILE [--runs N] [--threads T]\n"
    "       steadyscope-cli bench split TRACE [--runs N] [split options]\n"
    "\n"
    "Measures this machine: figures, never a pass/fail limit.\n"
    "  load   load FILE N times: load time, GB/s of JSON, events/s, peak anonymous memory,\n"
    "         and the raw baselines (decompression alone, a plain JSON parse) to compare with;\n"
    "         then the same file reopened from the trace cache (in a folder of its own, removed after)\n"
    "  split  load, split (and again), write the chunks; the time of each stage and the peak\n"
    "         anonymous memory (`steadyscope-cli bench split --help` lists its options)\n"
    "\n"
    "Options of bench load:\n"
    "  --runs N     number of loads (default 3; the first one is on fresh memory)\n"
    "  --threads T  loader threads (default: as for info --threads)\n"
    "\n"
    "Examples:\n"
    "  steadyscope-cli bench load run.pt.trace.json.gz --runs 5\n"
    "  steadyscope-cli bench split run.pt.trace.json.gz --runs 3 --llm-inference\n";

/// FILE [--runs N] [--threads T]; nullopt to go on, else the exit status (help, usage error).
std::optional<int> parseLoadArgs(const Args& args, std::string& path, int& runs, unsigned& threads) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-h" || args[i] == "--help") {
      std::fputs(kBenchHelp, stdout);
      return 0;
    }
    if (args[i] == "--runs" && i + 1 < args.size())
      runs = std::max(1, std::atoi(args[++i].c_str()));
    else if (args[i] == "--threads" && i + 1 < args.size())
      threads = static_cast<unsigned>(std::max(1, std::atoi(args[++i].c_str())));
    else if (path.empty())
      path = args[i];
  }
  if (!path.empty()) return std::nullopt;
  std::fputs("Usage: steadyscope-cli bench load FILE [--runs N] [--threads T]\n", stderr);
  return 2;
}

/// The model stored once in a fresh trace cache, then `runs` loads read back
/// from it, against the first (cold) load's `coldSeconds`.
int benchReopen(const std::string& path, unsigned threads, int runs, double coldSeconds) {
  TraceCacheOptions o;
  o.dir = fmt::format("{}/bench-{}", TraceCache().dir(), ::getpid());
  TraceCache cache(o);
  LoadOptions load{.threads = threads};
  load.cache = &cache;
  auto t0 = Clock::now();
  if (!loadTrace(path, load)) return 1;  // parsed and stored; the model goes here
  cache.flush();
  const double storeSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
  std::vector<double> times;
  for (int r = 0; r < runs; ++r) {
    t0 = Clock::now();
    auto res = loadTrace(path, load);
    times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    if (!res || !res.value()->fromCache) {
      std::fprintf(stderr, "steadyscope-cli bench: the reopen did not come from the cache: %s\n",
                   cache.lastProblem().c_str());
      cache.clear();
      return 1;
    }
  }
  const uint64_t entryBytes = cache.usedBytes();
  cache.clear();
  ::rmdir(o.dir.c_str());
  std::sort(times.begin(), times.end());
  std::printf("reopen from the trace cache: best %.3f s, median %.3f s = %.1f %% of the first load (%.3f s); "
              "entry %.1f MB, parse + store %.3f s\n",
              times.front(), times[times.size() / 2], 100.0 * times[times.size() / 2] / coldSeconds, coldSeconds,
              static_cast<double>(entryBytes) / 1e6, storeSeconds);
  return 0;
}

int benchLoad(const Args& args) {
  std::string path;
  int runs = 3;
  unsigned threads = 0;  // 0: jobThreads(), as a load without --threads
  if (auto rc = parseLoadArgs(args, path, runs, threads)) return *rc;
  threads = jobThreads(threads);
  std::printf("bench load %s  (threads %u, runs %d)\n", path.c_str(), threads, runs);
  MemoryFigures before = readMemoryFigures();
  std::vector<double> times;
  TracePtr keep;
  uint64_t peakAnon = 0;
  for (int r = 0; r < runs; ++r) {
    AnonSampler sampler;
    auto t0 = Clock::now();
    auto res = loadTrace(path, LoadOptions{.threads = threads});
    double s = std::chrono::duration<double>(Clock::now() - t0).count();
    uint64_t peak = sampler.stop();
    if (!res) {
      std::fprintf(stderr, "steadyscope-cli bench: %s\n", res.error().describe().c_str());
      return 1;
    }
    if (r == 0) peakAnon = peak;
    times.push_back(s);
    keep = res.value();  // the previous model is released here
    std::printf("  run %d: load %.3f s\n", r + 1, s);
  }
  MemoryFigures after = readMemoryFigures();
  const Trace& t = *keep;
  const double first = times.front();
  std::vector<double> later(times.begin() + 1, times.end());
  std::sort(later.begin(), later.end());
  std::sort(times.begin(), times.end());
  double best = times.front(), median = times[times.size() / 2];
  double gb = static_cast<double>(t.stats.jsonBytes) / 1e9;
  std::printf("load: best %.3f s, median %.3f s; %.2f GB/s of JSON; %.2f M events/s (%zu events, %.3f GB JSON, %s)\n",
              best, median, gb / best, static_cast<double>(t.size()) / best / 1e6, t.size(), gb,
              t.stats.compression.c_str());
  // Run 1 is this process's first load: every page of its model and
  // temporaries is fresh; run 2 loads while run 1's model is still held; from
  // run 3 on, a load reuses the pages of the model two runs back (docs/BENCHMARKS.md).
  if (runs >= 3)
    std::printf("first load (fresh memory) %.3f s; later loads best %.3f s, median %.3f s\n", first, later.front(),
                later[later.size() / 2]);
  std::printf(
      "memory: peak anonymous during first load %.1f MiB (RssAnon sampled every 1 ms; %.1f MiB before); "
      "VmHWM %.1f MiB (includes file-backed text pages); now RssAnon %.1f MiB, RssFile %.1f MiB\n",
      mib(peakAnon), mib(before.rssAnon), mib(after.vmHwm), mib(after.rssAnon), mib(after.rssFile));
  std::printf("model: %.1f bytes/event of columns\n",
              static_cast<double>(t.columnBytes()) / static_cast<double>(std::max<size_t>(1, t.size())));
  printBaselines(t, path, threads, runs, best);
  return benchReopen(path, threads, runs, first);
}

}  // namespace

int cmdBench(const Args& args) {
  if (args.empty() || args[0] == "-h" || args[0] == "--help") {
    std::fputs(kBenchHelp, args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  Args rest(args.begin() + 1, args.end());
  if (args[0] == "load") return benchLoad(rest);
  if (args[0] == "split") return benchSplit(rest);
  std::fprintf(stderr, "steadyscope-cli bench: unknown benchmark '%s'\n", args[0].c_str());
  return 2;
}

}  // namespace steadyscope::cli
