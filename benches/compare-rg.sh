#!/usr/bin/env bash
# Whole-process comparison on one generated ~100 MB Claude transcript:
# `notesoup-helper history_list` with a literal query against `rg -F -c` on the same file,
# in the same run; best of N wall times, with that run's CPU time and peak RSS (wait4).
#   benches/compare-rg.sh [bytes] [runs]      (defaults: 100000000 5)
# Needs ripgrep (apt-get install -y ripgrep) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
bytes="${1:-100000000}"
runs="${2:-5}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
cargo build --release --locked -q -p notesoup-helper-bin -p notesoup-benches --bins
bin="$CARGO_TARGET_DIR/release"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
file="$dir/6e9d0000-0000-4000-8000-00000000b3c4.jsonl"
"$bin/gen-transcript" "$bytes" > "$file"
head="$(grep '"uuid"' "$file" | tail -n 1 | python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["uuid"])')"
printf '{"transcript_path":"%s","head":"%s","query":"zebra-needle"}' "$file" "$head" > "$dir/search.json"
printf '{"transcript_path":"%s","head":"%s"}' "$file" "$head" > "$dir/page.json"
cat "$file" > /dev/null   # warm the page cache for both
python3 - "$bin/notesoup-helper" "$file" "$dir" "$runs" <<'PY'
import json, os, subprocess, sys, time
helper, file, d, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
def measure(cmd, stdin_path=None):
    """Best wall time of `runs`, with that run's CPU time and peak RSS (os.wait4)."""
    best = None
    for _ in range(runs):
        with open(stdin_path or os.devnull, "rb") as inp:
            start = time.perf_counter()
            p = subprocess.Popen(cmd, stdin=inp, stdout=subprocess.PIPE)
            out = p.stdout.read()
            _, _, usage = os.wait4(p.pid, 0)
            wall = time.perf_counter() - start
        row = (wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, out)
        best = row if best is None or row[0] < best[0] else best
    return best
size = os.path.getsize(file)
lines = sum(1 for _ in open(file, "rb"))
print(f"file: {size/1e6:.1f} MB, {lines} lines")
rg = measure(["rg", "-F", "-c", "zebra-needle", file])
print(f"rg -F -c zebra-needle      : wall {rg[0]:.4f} s  cpu {rg[1]:.4f} s  peak RSS {rg[2]/1024:.0f} MiB  count {rg[3].decode().strip()}")
for name in ["search", "page"]:
    h = measure([helper, "history_list"], f"{d}/{name}.json")
    reply = json.loads(h[3])
    assert reply["ok"], reply
    ratio = h[0] / rg[0]
    cpu_ratio = h[1] / max(rg[1], 1e-6)
    print(f"helper history_list {name:6} : wall {h[0]:.3f} s  cpu {h[1]:.3f} s  peak RSS {h[2]/1024:.0f} MiB "
          f"({h[2]*1024/size:.2f}x file)  matched {reply['matched']}  text {len(reply['text'].encode())} B  wall/rg {ratio:.0f}x  cpu/rg {cpu_ratio:.0f}x")
PY
