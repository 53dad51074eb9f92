// Drives one generation run: plans the steps, emits the trace through the
// Builder/EventWriter and collects the ground truth.
#pragma once

#include "options.hpp"
#include "schedule.hpp"
#include "sink.hpp"
#include "writer.hpp"

#include <cstdint>
#include <string>

namespace steadyscope::gen {

struct StepTally {
  std::uint64_t total = 0;
  std::uint64_t prefillOnly = 0;
  std::uint64_t prefillDecode = 0;
  std::uint64_t decodeOnly = 0;
  std::uint64_t idle = 0;
  std::uint64_t graph = 0;            // replayed without GPU events
  std::uint64_t idleGaps = 0;         // long idle gaps before a step
  std::uint64_t contextRequests = 0;  // engine truth, summed over steps
  std::uint64_t generationRequests = 0;
};

struct Truth {
  int stepsRequested = 0;
  Plan plan;  // regions, steady region, peak concurrency
  StepTally steps;
  std::uint64_t roots = 0;
  std::uint64_t mirrors = 0;
  std::string annotationFormat;
  EventCounts counts;
  std::uint64_t jsonBytes = 0;
  std::uint64_t storedBytes = 0;
  std::uint64_t overlappingGpuEvents = 0;
  std::uint64_t shuffledWindows = 0;
  double firstCollectiveUs = 0;
  double meanCollectiveUs = 0;  // steps after the first
};

// Writes the whole trace to `sink` (without committing it).
Truth generateTrace(const Options& opt, int steps, ByteSink& sink);

// Ground truth as a JSON document (category names as written in the trace).
std::string truthJson(const Options& opt, const Truth& t);

}  // namespace steadyscope::gen
