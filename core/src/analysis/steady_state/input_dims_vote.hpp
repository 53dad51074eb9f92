#pragma once
// --llm-inference without serving annotations (spec §3.7.1): each working
// root's batch size is voted from the Input Dims of the CPU ops in its
// window. The reference's helper is not stored, so the rules here are the
// spec's suggested choice (decision D3, docs/splitter-decisions.md).
#include <steadyscope/core/analysis/splitter.hpp>

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace steadyscope::analysis {

/// The memory and view operators whose Input Dims say nothing about the batch:
/// the 19 names of spec §8 D3 ("exclude aten::view, aten::reshape, ...").
inline constexpr std::array<std::string_view, 19> kInputDimsVoteExcluded = {
    "aten::view",       "aten::reshape", "aten::_unsafe_view", "aten::empty",   "aten::empty_strided",
    "aten::copy_",      "aten::to",      "aten::_to_copy",     "aten::slice",   "aten::select",
    "aten::as_strided", "aten::t",       "aten::transpose",    "aten::permute", "aten::expand",
    "aten::contiguous", "aten::detach",  "aten::zeros",        "aten::fill_"};
bool excludedFromInputDimsVote(std::string_view opName);

/// The most common Input Dims[0][0] among the cpu_op events (with Input
/// Dims, not excluded) that start in [window.a, window.b) and last no longer
/// than the window, taken in (ts, index) order; the first value seen wins a
/// tie; nullopt when no event votes. Read errors stay in `text`.
std::optional<int64_t> voteInputDims(const EventIndex& index, const Tile& window, EventText& text);

/// One vote per working root, its window being its tile, else its own span.
/// Input Dims read errors go to r.warnings; when no root has a vote, the log
/// says so and the list is empty (the duration finder is used).
std::vector<std::optional<int64_t>> voteShapeBatchSizes(const EventIndex& index, SplitResult& r);

}  // namespace steadyscope::analysis
