#!/usr/bin/env bash
# Runs every fuzz target for a bounded time from fresh seed corpora:
#   tests/fuzz/run_bounded.sh FUZZ_BUILD_DIR SECONDS GEN SHARED_DIR [RUNS]
# As many targets at once as the machine has cores. RUNS (optional): stop each
# target after that many executions instead (SECONDS then only caps it): the
# long runs of docs/ROBUSTNESS.md use RUNS=1000000.
# A crash, leak, timeout or sanitizer report stops with a non-zero status and
# leaves the input in FUZZ_BUILD_DIR/artifacts/ (copy it to
# tests/fuzz/regressions/<target>/ once fixed). Prints, per target, executions,
# seconds, coverage (edges) and the corpus size.
set -euo pipefail
build=$1 seconds=$2 gen=$3 shared=$4 runs=${5:--1}
here=$(cd "$(dirname "$0")" && pwd)
seeds=$build/seeds corpus=$build/corpus artifacts=$build/artifacts
rm -rf "$seeds" "$corpus"
mkdir -p "$corpus" "$artifacts"
python3 "$here/make_seeds.py" "$seeds" "$gen" "$shared"
targets=(fuzz_split_gate fuzz_export fuzz_trace_file fuzz_trace_text fuzz_split_dir fuzz_names fuzz_details_csv)

run_one() {  # target: 0 when clean; its summary line in $build/$target.result
  local target=$1 log=$build/$1.log start=$SECONDS
  mkdir -p "$corpus/$target"
  # -max_len: make_seeds.py's seeds fit (its LIMIT); longer inputs only slow every execution.
  local committed=()  # the minimised corpora of the long runs, where small enough to commit
  [[ -d $here/corpus/$target ]] && committed=("$here/corpus/$target")
  if ASAN_OPTIONS=detect_leaks=1 "$build/tests/fuzz/$target" "$corpus/$target" "$seeds/$target" \
       "$here/regressions/$target" "${committed[@]}" -max_total_time="$seconds" -runs="$runs" -timeout=20 -rss_limit_mb=4096 \
       -max_len=32768 -artifact_prefix="$artifacts/$target-" -print_final_stats=1 >"$log" 2>&1; then
    local n cov
    n=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
    cov=$(grep -o 'DONE *cov: [0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    echo "$target: $n executions in $((SECONDS - start)) s, coverage $cov edges, corpus $(ls "$corpus/$target" | wc -l) inputs, ok" \
      >"$build/$target.result"
  else
    { echo "$target: FAILED (log: $log)"; tail -40 "$log"; } >"$build/$target.result"
    return 1
  fi
}

status=0
parallel=$(nproc 2>/dev/null || echo 1)
pids=() names=()
for target in "${targets[@]}"; do
  run_one "$target" &
  pids+=($!) names+=("$target")
  if ((${#pids[@]} >= parallel)); then
    wait "${pids[0]}" || status=1
    cat "$build/${names[0]}.result"
    pids=("${pids[@]:1}") names=("${names[@]:1}")
  fi
done
for k in "${!pids[@]}"; do
  wait "${pids[$k]}" || status=1
  cat "$build/${names[$k]}.result"
done
exit $status
