#!/usr/bin/env bash
# Whole-process comparison on one generated ~100 MB Claude transcript:
# `notesoup-helper history_list` with a literal query against `rg -F -c` on the same file,
# in the same run; best of N wall times, with that run's CPU time and peak RSS (wait4).
# Three helper paths: cold (no transcript index: a fresh NOTESOUP_HOME per run), warm
# (the index is present and the file unchanged) and warm+append (a few new rows appended
# after the index was written, decoded on top of it on every run).
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
import json, os, shutil, subprocess, sys, time
helper_bin, file, d, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
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
def helper(name, home):
    env = dict(os.environ, NOTESOUP_HOME=home)
    best = None
    for i in range(runs):
        if name.startswith("cold"):
            env["NOTESOUP_HOME"] = f"{home}-cold{i}"
        with open(f"{d}/{name.split('-')[-1]}.json", "rb") as inp:
            start = time.perf_counter()
            p = subprocess.Popen([helper_bin, "history_list"], stdin=inp, stdout=subprocess.PIPE, env=env)
            out = p.stdout.read()
            _, _, usage = os.wait4(p.pid, 0)
            wall = time.perf_counter() - start
        if name.startswith("cold"):
            shutil.rmtree(env["NOTESOUP_HOME"], ignore_errors=True)
        row = (wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, out)
        best = row if best is None or row[0] < best[0] else best
    return best
def report(label, h):
    reply = json.loads(h[3])
    assert reply["ok"], reply
    print(f"helper {label:20}: wall {h[0]:.3f} s  cpu {h[1]:.3f} s  peak RSS {h[2]/1024:.0f} MiB "
          f"({h[2]*1024/size:.2f}x file)  matched {reply['matched']}  wall/rg {h[0]/rg[0]:.1f}x  cpu/rg {h[1]/max(rg[1], 1e-6):.1f}x")
    return reply
home = f"{d}/home"
report("cold search", helper("cold-search", home))
report("cold page", helper("cold-page", home))
helper("search", home)  # writes the index
warm = report("warm search", helper("search", home))
report("warm page", helper("page", home))
# A small append: the last 12 rows again under new uuids, chained to the head.
rows = open(file, "rb").read()[-400_000:].split(b"\n")[1:-1]
rows = [json.loads(r) for r in rows if b'"uuid"' in r][-12:]
ids = {r["uuid"]: f"{r['uuid'][:-12]}{i:012x}" for i, r in enumerate(rows)}
parent = json.load(open(f"{d}/search.json"))["head"]
tail = b""
for r in rows:
    r["uuid"], r["parentUuid"] = ids[r["uuid"]], parent
    parent = r["uuid"]
    tail += json.dumps(r, separators=(",", ":")).encode() + b"\n"
with open(file, "ab") as f:
    f.write(tail)
for name in ["search", "page"]:
    req = json.load(open(f"{d}/{name}.json"))
    req["head"] = parent
    json.dump(req, open(f"{d}/{name}.json", "w"))
print(f"appended {len(rows)} rows, {len(tail)} bytes")
appended = report("warm+append search", helper("search", home))
report("warm+append page", helper("page", home))
rg2 = measure(["rg", "-F", "-c", "zebra-needle", file])
print(f"rg -F -c zebra-needle (after append): wall {rg2[0]:.4f} s  cpu {rg2[1]:.4f} s")
PY
