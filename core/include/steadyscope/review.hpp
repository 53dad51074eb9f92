#pragma once
// A review is the gate run over a split — in memory, with what the source
// trace says (gateInputFromSplit, gateFacts), or on disk against its source
// trace (reviewSplitDirectoryWithTrace) — and the command line that
// reproduces it outside the window (splitCommandArgs, gateCommandArgs).
//
//   analysis::SplitResult r = splitter.plan(o);
//   analysis::EvidenceContext ev(splitter.eventIndex(o), o);
//   gate::GateResult g = gate::evaluateGate(review::gateInputFromSplit(r, o, &ev), gateOptions);
#include <steadyscope/gate.hpp>
#include <steadyscope/split.hpp>
#include <steadyscope/core/review/command_line.hpp>
#include <steadyscope/core/review/split_gate.hpp>
#include <steadyscope/core/review/trace_review.hpp>
