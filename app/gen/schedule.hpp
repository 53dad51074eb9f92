// The serving schedule: a small request-level simulation of a closed-loop
// benchmark client against a chunked-prefill engine. Concurrency ramps up,
// holds a plateau, dips, holds again and ramps down, so the planted regions
// are known by step index.
#pragma once

#include "options.hpp"
#include "rng.hpp"

#include <string>
#include <vector>

namespace steadyscope::gen {

struct StepPlan {
  int cr = 0;            // context (prefill) requests in the step
  int ct = 0;            // context tokens
  int gr = 0;            // generation (decode) requests
  int gt = 0;            // generation tokens
  bool idleGap = false;  // a long idle gap precedes the step
};

struct Region {
  std::string kind;  // ramp_up, plateau, dip, ramp_down, warmup, transient, steady
  int first = 0;     // step indices, inclusive
  int last = 0;
};

struct Plan {
  std::vector<StepPlan> steps;
  std::vector<Region> regions;
  Region steady;  // the planted steady region
  int peakRequests = 0;
  int requestsIssued = 0;
};

Plan planServing(const Options& opt, int steps, Rng& rng);
// Training / diffusion: warm-up steps then a steady loop.
Plan planLoop(const Options& opt, int steps, Rng& rng);

}  // namespace steadyscope::gen
