#pragma once
// Sub-commands of steadyscope-cli. Each lives in its own cmd_<name>.cpp and
// receives the arguments after the sub-command name. Exit statuses: 0 success,
// 1 failure (bad input, refused chunk, ...), 2 usage error.
#include "args.hpp"

namespace steadyscope::cli {

int cmdInfo(const Args& args);    // cmd_info.cpp   — loader summary and anomalies
int cmdSplit(const Args& args);   // cmd_split.cpp  — the TraceLens-compatible splitter
int cmdGate(const Args& args);    // cmd_gate.cpp   — the chunk-quality gate / review
int cmdExport(const Args& args);  // cmd_export.cpp — one chunk with its row and a provenance manifest
int cmdJob(const Args& args);     // cmd_job.cpp    — every rank of a distributed job side by side
int cmdCompare(const Args& args);  // cmd_compare.cpp — two traces op by op, GPU time per step

}  // namespace steadyscope::cli
