#include "schedule.hpp"

#include <algorithm>
#include <deque>

namespace steadyscope::gen {

namespace {

struct Request {
  int prefillLeft = 0;
  int decodeLeft = 0;
  int scheduled = 0;  // prefill tokens scheduled in the current step
};

// Step-index boundaries of the serving phases.
struct Phases {
  int rampEnd, dipBegin, dipEnd, drainBegin;
  explicit Phases(int n) {
    rampEnd = std::max(2, n * 5 / 100);
    dipBegin = std::max(rampEnd, n * 55 / 100);
    dipEnd = std::max(dipBegin, dipBegin + std::max(2, n * 8 / 100));
    drainBegin = std::max(dipEnd, n - std::max(2, n * 10 / 100));
  }
  int target(int step, int peak) const {
    if (step < rampEnd) return 1 + (peak - 1) * step / rampEnd;
    if (step >= dipBegin && step < dipEnd) return std::max(1, peak / 4);
    return step < drainBegin ? peak : 0;
  }
};

class Engine {
 public:
  Engine(const Options& opt, int n, Rng& rng)
      : opt_(opt), rng_(rng), osl_(opt.osl > 0 ? opt.osl : std::clamp(n / 6, 16, 1024)) {}

  void arrive(int target) {
    while (inFlight_ < target) {
      Request r;
      r.prefillLeft = static_cast<int>(rng_.range(std::max(1, opt_.isl / 4), opt_.isl));
      r.decodeLeft = static_cast<int>(rng_.range(std::max(1, osl_ / 2), osl_));
      waiting_.push_back(r);
      ++inFlight_;
      ++issued_;
    }
  }

  bool empty() const { return waiting_.empty() && running_.empty(); }
  int issued() const { return issued_; }

  StepPlan step() {
    StepPlan s;
    for (const auto& r : running_) s.gr += r.prefillLeft == 0 ? 1 : 0;
    s.gt = s.gr;
    int tokens = s.gr;
    for (auto& r : running_)
      if (r.prefillLeft > 0 && tokens < opt_.tokenBudget) schedulePrefill(r, tokens, s);
    const auto maxSeqs = static_cast<std::size_t>(std::max(256, opt_.conc * 2));
    while (!waiting_.empty() && tokens < opt_.tokenBudget && running_.size() < maxSeqs) {
      running_.push_back(waiting_.front());
      waiting_.pop_front();
      schedulePrefill(running_.back(), tokens, s);
    }
    advance();
    return s;
  }

 private:
  void schedulePrefill(Request& r, int& tokens, StepPlan& s) const {
    r.scheduled = std::min(r.prefillLeft, opt_.tokenBudget - tokens);
    tokens += r.scheduled;
    ++s.cr;
    s.ct += r.scheduled;
  }

  void advance() {
    for (auto& r : running_) {
      if (r.scheduled > 0) {
        r.prefillLeft -= r.scheduled;
        r.scheduled = 0;
        if (r.prefillLeft == 0) --r.decodeLeft;  // prefill yields the first token
      } else if (r.prefillLeft == 0) {
        --r.decodeLeft;
      }
    }
    const auto done = std::remove_if(running_.begin(), running_.end(),
                                     [](const Request& r) { return r.prefillLeft == 0 && r.decodeLeft <= 0; });
    inFlight_ -= static_cast<int>(running_.end() - done);
    running_.erase(done, running_.end());
  }

  const Options& opt_;
  Rng& rng_;
  int osl_;
  std::deque<Request> waiting_;
  std::vector<Request> running_;
  int inFlight_ = 0;
  int issued_ = 0;
};

void addRegion(Plan& p, const char* kind, int first, int lastExclusive) {
  const int n = static_cast<int>(p.steps.size());
  lastExclusive = std::min(lastExclusive, n);
  if (first < lastExclusive) p.regions.push_back({kind, first, lastExclusive - 1});
}

void pickSteady(Plan& p, const char* kind) {
  for (const auto& r : p.regions)
    if (r.kind == kind && (p.steady.kind.empty() || r.last - r.first > p.steady.last - p.steady.first)) p.steady = r;
}

}  // namespace

Plan planServing(const Options& opt, int n, Rng& rng) {
  Plan p;
  const Phases ph(n);
  Engine engine(opt, n, rng);
  while (static_cast<int>(p.steps.size()) < n) {
    const int index = static_cast<int>(p.steps.size());
    const int target = ph.target(index, opt.conc);
    engine.arrive(target);
    if (engine.empty()) break;  // drained during ramp-down
    StepPlan s;
    if (!rng.chance(opt.idleStepFrac)) s = engine.step();  // else: an empty (dummy) engine step
    s.idleGap = rng.chance(opt.idleGapFrac);
    p.peakRequests = std::max(p.peakRequests, s.cr + s.gr);
    p.steps.push_back(s);
  }
  p.requestsIssued = engine.issued();
  addRegion(p, "ramp_up", 0, ph.rampEnd);
  addRegion(p, "plateau", ph.rampEnd, ph.dipBegin);
  addRegion(p, "dip", ph.dipBegin, ph.dipEnd);
  addRegion(p, "plateau", ph.dipEnd, ph.drainBegin);
  addRegion(p, "ramp_down", ph.drainBegin, n);
  pickSteady(p, "plateau");
  return p;
}

Plan planLoop(const Options& opt, int n, Rng& rng) {
  Plan p;
  p.steps.resize(static_cast<std::size_t>(n));
  for (auto& s : p.steps) s.idleGap = rng.chance(opt.idleGapFrac);
  int first = 0;
  if (opt.style == Style::Training && opt.firstCollectiveFactor != 1.0) {
    addRegion(p, "transient", 0, 1);
    first = 1;
  }
  const int warm = std::max(first, std::min(n, opt.warmupSteps));
  addRegion(p, "warmup", first, warm);
  addRegion(p, "steady", warm, n);
  pickSteady(p, "steady");
  return p;
}

}  // namespace steadyscope::gen
