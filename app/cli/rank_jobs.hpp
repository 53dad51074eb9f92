#pragma once
// Many traces at once, for `split RANK… -o DIR` and `job RANK…`: how many run
// together within the CPUs and the memory (D-031), and the workers that run them.
#include <steadyscope/common.hpp>

#include <functional>
#include <string>
#include <vector>

namespace steadyscope::cli {

/// The jobs and their threads for `traces` on this machine: `threadsPerTrace`
/// is --threads (0: not given), `requestedJobs` is -j (0: not given).
JobBudget budgetForTraces(const std::vector<std::string>& traces, unsigned threadsPerTrace, unsigned requestedJobs);

/// Calls run(i) for every i < count on budget.jobs threads (this one among them),
/// each index once, in increasing order of start.
void runEach(size_t count, const JobBudget& budget, const std::function<void(size_t)>& run);

}  // namespace steadyscope::cli
