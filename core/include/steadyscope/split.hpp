#pragma once
// The splitter: TraceLens's split_trace re-implemented. Plan a split of a
// loaded trace in memory (roots, steady-state windows per mode, chunks with
// their statistics), then write it (chunks, execution_details, manifest),
// whole or not at all. Also: the workload kind a trace is split for, and the
// chunk evidence (GPU union, empty steps, start-up transient) the gate reads.
//
//   analysis::Splitter splitter(trace);
//   analysis::SplitOptions o; o.outputDir = "out"; o.findSteadyState = true;
//   analysis::SplitResult r = splitter.plan(o);   // no I/O
//   if (r.outcome == analysis::SplitOutcome::Split) splitter.write(r);
#include <steadyscope/common.hpp>
#include <steadyscope/model.hpp>
#include <steadyscope/core/analysis/chunk_evidence.hpp>
#include <steadyscope/core/analysis/gpu_categories.hpp>
#include <steadyscope/core/analysis/split_remedy.hpp>
#include <steadyscope/core/analysis/splitter.hpp>
#include <steadyscope/core/analysis/workload_kind.hpp>
