#pragma once
// What every area of the core shares: errors that name the file and the place
// (Expected<T>), progress and Cancel for long jobs (JobControl), how many
// threads a job uses and how many jobs fit the machine, files written whole or
// not at all, path helpers, giving freed memory back (releaseFreedMemory), the
// ordered JSON value the splitter and the gate
// write, the split output's vocabulary (modes, chunk labels, file names), and
// the build's version.
//
//   Expected<TracePtr> r = loadTrace(path, {});   // io.hpp
//   if (!r) puts(r.error().describe().c_str());   // "FILE: at byte N: ..."
#include <steadyscope/core/util/atomic_file.hpp>
#include <steadyscope/core/util/error.hpp>
#include <steadyscope/core/util/job_budget.hpp>
#include <steadyscope/core/util/json_value.hpp>
#include <steadyscope/core/util/memory.hpp>
#include <steadyscope/core/util/paths.hpp>
#include <steadyscope/core/util/progress.hpp>
#include <steadyscope/core/util/split_names.hpp>
#include <steadyscope/core/util/threads.hpp>
#include <steadyscope/core/version.hpp>
