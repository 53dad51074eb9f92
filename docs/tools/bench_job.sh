#!/usr/bin/env bash
# `steadyscope-cli job RANK…` against `split RANK… -o DIR -j N` on the same ranks (docs/BENCHMARKS.md,
# the bench_job.sh row): ROUNDS rounds, the two alternating (which goes first alternates too), so
# that a busy phase of the host hits both. Prints wall time and peak RSS (/usr/bin/time) of each,
# then the medians and the ratio job ÷ split. WHAT=window times the window instead:
# `steadyscope RANK… --screenshot` (offscreen), its "open:" line being the time from the open to
# the Job view shown with every rank's row (the "ready" figure), against `split RANK… -o DIR`.
# Usage: docs/tools/bench_job.sh BUILD_APP_DIR WORK_DIR [ROUNDS] [JOBS] [RANKS] [BYTES] [WHAT]
set -euo pipefail
app=$(cd "$1" && pwd) work=$2 rounds=${3:-5} jobs=${4:-2} ranks=${5:-8} bytes=${6:-100M} what=${7:-cli}
cli=$app/cli/steadyscope-cli gen=$app/gen/steadyscope-gen gui=$app/gui/steadyscope
jflag=()
((jobs)) && jflag=(-j "$jobs")  # JOBS 0: no -j, what fits (the window's own choice)
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
rm -f job.txt split.txt ready.txt
window_job() {  # the window's Job view: whole process, and the ready time it prints
  measure job env QT_QPA_PLATFORM=offscreen "$gui" "${files[@]}" --screenshot job.png --size 1920x1080
  QT_QPA_PLATFORM=offscreen "$gui" "${files[@]}" --screenshot job.png --size 1920x1080 2>/dev/null |
    sed -n 's/^open: \([0-9]*\) ms.*/\1/p' | awk '{printf "ready  %6.2f s\n", $1 / 1000; print $1 / 1000 >>"ready.txt"}'
}
for ((k = 1; k <= rounds; k++)); do
  echo "round $k (load average $(cut -d" " -f1-3 /proc/loadavg))"
  if [[ $what == window ]]; then
    run_job() { window_job; }
  else
    run_job() { measure job "$cli" job "${files[@]}" "${jflag[@]}"; }
  fi
  run_split() { rm -rf out && measure split "$cli" split "${files[@]}" -o out "${jflag[@]}" --find-steady-state; }
  if ((k % 2)); then run_job; run_split; else run_split; run_job; fi
done
median() { sort -n "$1" | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
j=$(median job.txt) s=$(median split.txt)
printf 'median: job %.2f s, split %.2f s, job / split = %.2f\n' "$j" "$s" "$(echo "$j / $s" | bc -l)"
if [[ -s ready.txt ]]; then
  r=$(median ready.txt)
  printf 'median: window ready %.2f s, ready / split = %.2f\n' "$r" "$(echo "$r / $s" | bc -l)"
fi
