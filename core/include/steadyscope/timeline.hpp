#pragma once
// What the timeline and the panes compute, free of Qt: the index over a trace
// (rows per lane and depth, GPU coverage, correlations), the vertical layout
// of lanes, the view's time window and its pixels, level-of-detail draw lists,
// find by name, flows of a slice, statistics of a range, per-step series for
// the charts, the chunk table's figures, A/B of two chunks or traces, the
// overlays the splitter contributes, and number/time formatting.
//
//   timeline::TimelineIndexPtr index = timeline::buildTimelineIndex(*trace);
//   timeline::TrackLayout layout = timeline::layoutTracks(*index, groups, ...);
//   timeline::appendRowDrawList(*trace, *index, rowId, mapper, ...);   // what one row draws
#include <steadyscope/common.hpp>
#include <steadyscope/model.hpp>
#include <steadyscope/core/timeline/ab_compare.hpp>
#include <steadyscope/core/timeline/chunk_figures.hpp>
#include <steadyscope/core/timeline/draw_list.hpp>
#include <steadyscope/core/timeline/find.hpp>
#include <steadyscope/core/timeline/flows.hpp>
#include <steadyscope/core/timeline/format.hpp>
#include <steadyscope/core/timeline/overlays.hpp>
#include <steadyscope/core/timeline/range_stats.hpp>
#include <steadyscope/core/timeline/step_series.hpp>
#include <steadyscope/core/timeline/timeline_index.hpp>
#include <steadyscope/core/timeline/track_layout.hpp>
#include <steadyscope/core/timeline/view_math.hpp>
