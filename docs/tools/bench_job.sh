#!/usr/bin/env bash
# `steadyscope-cli job RANK…` against `split RANK… -o DIR -j N` on the same ranks (docs/BENCHMARKS.md,
# the bench_job.sh row): ROUNDS rounds, the two alternating (which goes first alternates too), so
# that a busy phase of the host hits both. Prints wall time and peak RSS (/usr/bin/time) of each,
# then the medians and the ratio job ÷ split.
# Usage: docs/tools/bench_job.sh BUILD_APP_DIR WORK_DIR [ROUNDS] [JOBS] [RANKS] [BYTES]
set -euo pipefail
app=$(cd "$1" && pwd) work=$2 rounds=${3:-5} jobs=${4:-2} ranks=${5:-8} bytes=${6:-100M}
cli=$app/cli/steadyscope-cli gen=$app/gen/steadyscope-gen
mkdir -p "$work" && cd "$work"
files=()
for ((r = 0; r < ranks; r++)); do
  [[ -f rank$r.json ]] || "$gen" -o rank$r.json --style training --target-bytes "$bytes" --rank $r \
    --world-size "$ranks" --quiet
  files+=("$PWD/rank$r.json")
done
measure() {  # label command...: prints "label wall_s peak_MiB", and appends wall to label.txt
  local label=$1
  shift
  /usr/bin/time -f "%e %M" -o time.txt "$@" >/dev/null 2>&1 || true
  read -r wall kib < <(tail -n 1 time.txt)  # after "Command exited with non-zero status", if any
  printf '%-6s %6.2f s  %7.1f MiB\n' "$label" "$wall" "$(echo "$kib / 1024" | bc -l)"
  echo "$wall" >>"$label.txt"
}
rm -f job.txt split.txt
for ((k = 1; k <= rounds; k++)); do
  echo "round $k (load average $(cut -d" " -f1-3 /proc/loadavg))"
  run_job() { measure job "$cli" job "${files[@]}" -j "$jobs"; }
  run_split() { rm -rf out && measure split "$cli" split "${files[@]}" -o out -j "$jobs" --find-steady-state; }
  if ((k % 2)); then run_job; run_split; else run_split; run_job; fi
done
median() { sort -n "$1" | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
j=$(median job.txt) s=$(median split.txt)
printf 'median: job %.2f s, split %.2f s, job / split = %.2f\n' "$j" "$s" "$(echo "$j / $s" | bc -l)"
