#!/usr/bin/env bash
# Many traces in one command against one command per trace (docs/BENCHMARKS.md, the bench_ranks.sh
# row): RANKS generated ranks split sequentially (one process each), then in one command with -j 2,
# then in one command with the default jobs; ROUNDS rounds, interleaved so that a busy phase of the
# host hits all three. Prints wall time and peak RSS (/usr/bin/time) of each.
# Usage: docs/tools/bench_ranks.sh BUILD_APP_DIR WORK_DIR [ROUNDS] [RANKS] [BYTES]
set -euo pipefail
app=$1 work=$2 rounds=${3:-3} ranks=${4:-8} bytes=${5:-100M}
cli=$app/cli/steadyscope-cli gen=$app/gen/steadyscope-gen
mkdir -p "$work" && cd "$work"
files=()
for ((r = 0; r < ranks; r++)); do
  [[ -f rank$r.json ]] || "$gen" -o rank$r.json --target-bytes "$bytes" --rank $r --world-size "$ranks" --quiet
  files+=(../rank$r.json)
done
measure() {  # label command...: prints "label  wall s  peak MiB"
  local label=$1
  shift
  /usr/bin/time -f "%e %M" -o ../time.txt "$@" >/dev/null 2>&1 || true
  read -r wall kib <../time.txt
  printf '%-12s %6.2f s  %7.1f MiB\n' "$label" "$wall" "$(echo "$kib / 1024" | bc -l)"
}
for ((k = 1; k <= rounds; k++)); do
  echo "round $k (load average $(cut -d" " -f1-3 /proc/loadavg))"
  rm -rf seq par def && mkdir seq par def
  start=$(date +%s.%N) peak=0
  cd seq
  for f in "${files[@]}"; do
    b=${f##*/}
    /usr/bin/time -f "%M" -o ../time.txt "$cli" split "$f" -o "out/${b%.json}" --find-steady-state >/dev/null
    kib=$(cat ../time.txt)
    ((kib > peak)) && peak=$kib
  done
  cd ..
  printf '%-12s %6.2f s  %7.1f MiB (largest single run)\n' sequential "$(echo "$(date +%s.%N) - $start" | bc -l)" \
    "$(echo "$peak / 1024" | bc -l)"
  (cd par && measure "-j 2" "$cli" split "${files[@]}" -o out -j 2 --find-steady-state)
  (cd def && measure "default -j" "$cli" split "${files[@]}" -o out --find-steady-state)
done
for d in par def; do diff -r -x summary.tsv seq/out $d/out >/dev/null && echo "$d: same files as the sequential runs"; done
