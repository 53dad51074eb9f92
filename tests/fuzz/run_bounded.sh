#!/usr/bin/env bash
# Runs every fuzz target for a bounded time from fresh seed corpora:
#   tests/fuzz/run_bounded.sh FUZZ_BUILD_DIR SECONDS GEN SHARED_DIR
# A crash, leak, timeout or sanitizer report stops with a non-zero status and
# leaves the input in FUZZ_BUILD_DIR/artifacts/ (copy it to
# tests/fuzz/regressions/<target>/ once fixed). Prints executions per target.
set -euo pipefail
build=$1 seconds=$2 gen=$3 shared=$4
here=$(cd "$(dirname "$0")" && pwd)
seeds=$build/seeds corpus=$build/corpus artifacts=$build/artifacts
rm -rf "$seeds" "$corpus"
mkdir -p "$corpus" "$artifacts"
python3 "$here/make_seeds.py" "$seeds" "$gen" "$shared"
status=0
for target in fuzz_trace_text fuzz_trace_file fuzz_split_gate fuzz_names fuzz_details_csv fuzz_split_dir fuzz_export; do
  mkdir -p "$corpus/$target"
  log=$build/$target.log
  if ASAN_OPTIONS=detect_leaks=1 "$build/tests/fuzz/$target" "$corpus/$target" "$seeds/$target" "$here/regressions/$target" \
       -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -max_len=262144 \
       -artifact_prefix="$artifacts/$target-" -print_final_stats=1 >"$log" 2>&1; then
    echo "$target: $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$') executions, ok"
  else
    echo "$target: FAILED (log: $log)"; tail -40 "$log"; status=1
  fi
done
exit $status
