#!/bin/bash
# usage: cold_dist.sh N BIN... -- fresh-process distributions of a real command (default: `split` of
# vllm_20k.json with --find-steady-state; override with CMD, where {BIN} and {OUT} are substituted).
# Every run is a new process, SLEEP (default 5) s apart, binaries alternating with the order reversed
# every other round. Prints each binary's wall and user-CPU times sorted: fresh processes on this VM are
# bimodal (docs/BENCHMARKS.md, "Fresh memory"; D-016), so compare distributions of >= 10 runs, never single runs.
N=$1; shift
FILE=${FILE:-/work/bench/vllm_20k.json}
CMD=${CMD:-'{BIN} split '"$FILE"' -o {OUT} --find-steady-state'}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for r in $(seq "$N"); do
  if (( r % 2 )); then order=("$@"); else order=(); for ((i=$#; i>0; i--)); do order+=("${!i}"); done; fi
  for b in "${order[@]}"; do
    sleep "${SLEEP:-5}"
    rm -rf "$out/o"
    c=${CMD//\{BIN\}/$b}; c=${c//\{OUT\}/$out/o}
    /usr/bin/time -o "$out/t" -f '%e %U %S' bash -c "$c" >/dev/null 2>&1
    echo "$b $(cat "$out/t")"
  done
done | awk '{w[$1]=w[$1]" "$2; u[$1]=u[$1]" "$3} END {for (k in w) print k "\n  wall" w[k] "\n  user" u[k]}' |
  while read -r a rest; do
    if [[ $a == wall || $a == user ]]; then echo "  $a $(echo $rest | tr ' ' '\n' | sort -n | tr '\n' ' ')"; else echo "$a"; fi
  done
