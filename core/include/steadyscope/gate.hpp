#pragma once
// The consumer's chunk-quality gate, reproduced exactly: its input is plain
// data (chunk rows, the manifest's facts), its output a verdict per chunk with
// a decision record explaining every rule, findings it does not check, and
// the better alternates for a retry. reviewSplitDirectory feeds it from a
// split directory on disk, reading the CSV as Python's csv module does.
//
//   Expected<gate::GateResult> r = gate::reviewSplitDirectory(dir, gate::ReviewOptions{});
//   if (r) puts(r->summary.c_str());   // the verdict in one sentence; r->record explains each rule
#include <steadyscope/common.hpp>
#include <steadyscope/core/gate/csv.hpp>
#include <steadyscope/core/gate/gate.hpp>
#include <steadyscope/core/gate/review.hpp>
