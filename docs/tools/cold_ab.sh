#!/bin/bash
# usage: ab.sh N file bin1 bin2 ...  -- cold-process A/B: every run in a new process, SLEEP (default 5) s
# apart so memory freed by the previous run has been handed back to the host (page reporting waits ~2 s);
# the order of the binaries alternates between rounds. Prints wall, parse and finalize per binary.
N=$1; F=$2; shift 2
for r in $(seq $N); do
  if (( r % 2 )); then order=("$@"); else order=(); for ((i=$#; i>0; i--)); do order+=("${!i}"); done; fi
  for b in "${order[@]}"; do sleep ${SLEEP:-5}
  out=$( { /usr/bin/time -f "WALL %e %U %S" env STEADYSCOPE_LOAD_TIMING=1 $b info $F >/dev/null; } 2>&1 )
  w=$(echo "$out" | awk '/WALL/{print $2 "(" $3 "+" $4 ")"}'); p=$(echo "$out" | awk '/\] (parse|inflate\+parse) /{print $3}'); f=$(echo "$out" | awk '/\] finalize /{print $3}')
  echo "$b $w $p $f"; done; done | awk '{w[$1]=w[$1]" "$2; p[$1]=p[$1]" "$3; f[$1]=f[$1]" "$4} END {for (k in w) print k "\n  wall(user+sys)" w[k] "\n  parse" p[k] "\n  final" f[k]}'
