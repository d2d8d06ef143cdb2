#!/usr/bin/env python3
"""A/B of two `notesoup mcp` binaries on one generated Claude transcript: each server answers
its first `history_list` (the cold read it keeps), then each of 14 literals as rare as
`zebra-needle`, ROUNDS times in turn, asked of A, then B, then `rg -F -c`; prints the median
call of each, B/A pair by pair, each against rg, the servers' CPU a call, and how many of B's
answers differ from A's (they must not).
  benches/ab-mcp.py OLD/notesoup NEW/notesoup target/release/gen-transcript dense|sparse BYTES ROUNDS
Run it under the shared lock on a shared machine (flock /work/e2e.lock ...)."""
import json, os, statistics, subprocess, sys, tempfile, time, shutil
from pathlib import Path
old, new, gen, kind, nbytes, rounds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
SESSION = "6e9d0000-0000-4000-8000-00000000b3c4"
tmp = Path(tempfile.mkdtemp(prefix="abmcp-"))
project = tmp / "claude" / "projects" / "-tmp-bench"; project.mkdir(parents=True)
f = project / f"{SESSION}.jsonl"
with open(f, "wb") as out:
    subprocess.run([gen] + (["--sparse"] if kind == "sparse" else []) + [str(nbytes)], stdout=out, check=True)
LITS = ["ebra-needle", "zebra-needl", "bra-needle", "zebra-need", "ra-needle", "zebra-nee", "a-needle",
        "ebra-needl", "bra-needl", "ebra-need", "zebra-ne", "bra-nee", "ebra-ne", "ra-needl"]
class Mcp:
    def __init__(self, binary, home):
        env = dict(os.environ, NOTESOUP_HOME=str(home), CLAUDE_CONFIG_DIR=str(tmp / "claude"))
        self.p = subprocess.Popen([binary, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        self.n = 0
        self.ask("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "ab", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    def send(self, m):
        self.p.stdin.write((json.dumps(m) + "\n").encode()); self.p.stdin.flush()
    def ask(self, method, params):
        self.n += 1
        self.send({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params})
        while True:
            m = json.loads(self.p.stdout.readline())
            if m.get("id") == self.n: return m
    def call(self, q):
        t = time.perf_counter()
        a = self.ask("tools/call", {"name": "history_list", "arguments": {"session": f"claude:{SESSION}", "query": q}})
        w = time.perf_counter() - t
        return w, a["result"]["content"][0]["text"]
    def cpu(self):
        x = open(f"/proc/{self.p.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(x[11]) + int(x[12])) / os.sysconf("SC_CLK_TCK")
a, b = Mcp(old, tmp / "ha"), Mcp(new, tmp / "hb")
fa, fb = a.call("zebra-needle"), b.call("zebra-needle")
assert fa[1] == fb[1], "first answers differ"
ca, cb = a.cpu(), b.cpu()
wa, wb, wr, diff = [], [], [], 0
for r in range(rounds):
    for q in LITS:
        x, y = a.call(q), b.call(q)
        t = time.perf_counter(); subprocess.run(["rg", "-F", "-c", q, str(f)], stdout=subprocess.DEVNULL); wr.append(time.perf_counter() - t)
        if x[1] != y[1]: diff += 1
        wa.append(x[0]); wb.append(y[0])
ca, cb = a.cpu() - ca, b.cpu() - cb
med = statistics.median
n = len(wa)
print(f"{kind} {nbytes} bytes: {n} calls each; first call A {fa[0]:.3f} s, B {fb[0]:.3f} s; answers differing: {diff}")
print(f"A (old) median {med(wa)*1e3:.1f} ms, B (new) median {med(wb)*1e3:.1f} ms, rg median {med(wr)*1e3:.1f} ms")
print(f"B/A pairwise median {med([y/x for x, y in zip(wa, wb)]):.2f}; A/rg {med([x/z for x, z in zip(wa, wr)]):.2f}, B/rg {med([y/z for y, z in zip(wb, wr)]):.2f}")
print(f"CPU per call: A {ca/n*1e3:.1f} ms, B {cb/n*1e3:.1f} ms; load {os.getloadavg()[0]:.1f}")
shutil.rmtree(tmp, ignore_errors=True)
