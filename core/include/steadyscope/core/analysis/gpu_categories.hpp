#pragma once
// The 2021 Kineto category names (Kernel, Memcpy, Memset, Runtime, Operator):
// the reference does not count GPU events under them as GPU work, so a split
// of such a trace finds none unless the legacy-categories fix is on. These
// say so, for the log, the window and the gate's findings.
#include <cstdint>
#include <string>
#include <string_view>

namespace steadyscope::analysis {

/// The 2021 Kineto names of the GPU categories ("Kernel", "Memcpy", "Memset"),
/// which the reference does not count as GPU work.
bool isLegacyGpuCategory(std::string_view cat);
/// The newer name of a 2021 Kineto category ("Kernel" -> "kernel", "Memcpy" ->
/// "gpu_memcpy", "Memset" -> "gpu_memset", "Runtime" -> "cuda_runtime",
/// "Operator" -> "cpu_op"); any other category unchanged.
std::string_view modernCategoryName(std::string_view cat);
/// When a split found no GPU work: how many events the 2021 names hide and the
/// command that counts them (the command between backticks). "" when there are none.
std::string legacyCategoryHint(uint64_t nLegacyGpuEvents);
/// The hint's first part, without the command (the window offers the fix as a link instead).
std::string legacyCategoryCount(uint64_t nLegacyGpuEvents);

}  // namespace steadyscope::analysis
