#!/usr/bin/env bash
# Interleaved A/B of `notesoup-helper history_list` binaries on one request, each run under
# `/usr/bin/time -v`; prints each binary's mean wall time, CPU time (user + sys) and peak RSS.
#   benches/ab-helper.sh REQUEST.json RUNS warm|cold HELPER...
# warm: each binary keeps its own NOTESOUP_HOME (its transcript index) across runs (run once
# first to write it); cold: a fresh NOTESOUP_HOME per run. A request is
# {"transcript_path": ..., "head": ..., "query": ...} (benches/compare-rg.sh writes one).
set -euo pipefail
req=$1 runs=$2 mode=$3
shift 3
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for _ in $(seq 1 "$runs"); do
  for b in "$@"; do
    home="$tmp/home-$(basename "$b")"
    [ "$mode" = cold ] && rm -rf "$home"
    NOTESOUP_HOME=$home /usr/bin/time -v "$b" history_list < "$req" 2> "$tmp/time" > /dev/null
    awk -v b="$(basename "$b")" '/Elapsed \(wall/ {n=split($NF,t,":"); w=t[n-1]*60+t[n]} /User time/ {u=$NF} /System time/ {s=$NF} /Maximum resident/ {r=$NF} END {print b, w, u+s, r}' "$tmp/time"
  done
done | awk '{n[$1]++; w[$1]+=$2; c[$1]+=$3; r[$1]+=$4} END {for (k in n) printf "%-14s wall %.4f s  cpu %.4f s  peak RSS %.0f MiB  (n=%d)\n", k, w[k]/n[k], c[k]/n[k], r[k]/n[k]/1024, n[k]}' | sort
