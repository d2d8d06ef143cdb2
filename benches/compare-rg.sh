#!/usr/bin/env bash
# The history rows of issue 30, side by side with their floor in one run: `history_list`
# with a literal query on one generated ~100 MB Claude transcript against `rg -F -c` on the
# same file, on both generators (dense: many small rows; sparse: whole-file tool results):
#   1. cold: `notesoup-helper history_list`, a fresh notes home per run (no index);
#   2. warm: the same with the index present and the file unchanged;
#   3. mcp: the same question to one `notesoup mcp` that stays up (the session named by
#      selector), its second and later calls, each for another literal as rare (a search of
#      the history it kept, against rg for that literal); its first call, which reads the
#      file, is shown beside;
#   4. peak memory of each over the file's size (the helper's from /usr/bin/time, the
#      server's VmHWM after all its calls);
#   and, where the time goes, warm after a small append (12 rows the index does not cover),
#   and the floors under the project's rules (`safe-floor`, benches/src/bin/safe-floor/main.rs):
#   the file read without mapping it (no `unsafe`), and every committed line also through
#   serde_json's validating pass (the spec refuses a malformed line, so a call with no index
#   cannot skip it), each against rg, then the cold call against the second, the warm one
#   against the first;
#   5. whole history: `notesoup history search TEXT --no-pager` over every session on the
#      machine (benches/gen-sessions.py --mixed: 3,000 Claude, Pi and Codex sessions in
#      their real formats, about [corpus-bytes] in all, six large ones; TEXT in four) against
#      `rg -F -l TEXT` over the same three folders: warm (the transcript indexes built by a
#      warm-up run) and cold (a fresh NOTESOUP_HOME per run: no index at all), page cache
#      warm; each run's output must name exactly the sessions rg finds; and the peak memory
#      of one warm and one cold run over the largest session file. The corpus is generated
#      once per generator version and size under ~/.cache/notesoup-bench (NOTESOUP_BENCH_CACHE).
# Each timed row runs A and B in turn (A B A B ...) after one warm-up pair; its ratio is the
# median of the pair-by-pair ratios, so a drift of the machine's speed moves both alike.
# CPU of an mcp call: the server's utime+stime over all its timed calls (clock ticks, so
# summed, then divided), over rg's median CPU.
#   benches/compare-rg.sh [pairs] [bytes] [corpus-bytes]   (defaults: 7 100000000 1000000000)
#   (COMPARE_RG_ROWS="whole" runs only the whole-history rows; "dense sparse" only the others.)
# Needs ripgrep (apt-get install -y ripgrep), /usr/bin/time and python3. Run it under the
# shared lock on a shared machine: flock /work/e2e.lock benches/compare-rg.sh
set -euo pipefail
cd "$(dirname "$0")/.."
pairs="${1:-7}"
bytes="${2:-100000000}"
corpus="${3:-1000000000}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
cargo build --release --locked -q -p notesoup-helper-bin -p notesoup-cli -p notesoup-benches --bins
bin="$CARGO_TARGET_DIR/release"
exec python3 - "$bin" "$pairs" "$bytes" "$corpus" "$PWD/benches/gen-sessions.py" <<'PY'
import hashlib, json, os, re, shutil, statistics, subprocess, sys, tempfile, time
from pathlib import Path

bin_dir, pairs, nbytes = Path(sys.argv[1]).resolve(), int(sys.argv[2]), int(sys.argv[3])
corpus_bytes, gen_sessions = int(sys.argv[4]), Path(sys.argv[5])
helper, cli, gen = bin_dir / "notesoup-helper", bin_dir / "notesoup", bin_dir / "gen-transcript"
floor = bin_dir / "safe-floor"
tmp = Path(tempfile.mkdtemp(prefix="nscmp-"))
SESSION = "6e9d0000-0000-4000-8000-00000000b3c4"  # the generators' session id
QUERY = "zebra-needle"
# A word of the generators' vocabulary: every generated session holds it.
COMMON = "lexer"
# The later MCP questions: literals as rare as QUERY, each another search.
OTHERS = ["ebra-needle", "zebra-needl", "bra-needle", "zebra-need", "ra-needle", "zebra-nee", "a-needle"]
TICK = os.sysconf("SC_CLK_TCK")
rows = []


def timed(cmd, stdin=None, env=None):
    """Wall seconds, CPU seconds (wait4) and stdout of one run."""
    with open(stdin or os.devnull, "rb") as inp:
        start = time.perf_counter()
        p = subprocess.Popen(cmd, stdin=inp, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        out = p.stdout.read()
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - start
    if status != 0:
        sys.exit(f"compare-rg: {cmd[0]} exited with status {status}")
    return wall, usage.ru_utime + usage.ru_stime, out


def pairwise(run_a, run_b, n):
    """n alternating pairs after one warm-up pair: medians of A, B and of A/B per pair."""
    run_a(), run_b()
    a, b = [], []
    for _ in range(n):
        a.append(run_a())
        b.append(run_b())
    med = statistics.median
    return {
        "a_wall": med([x[0] for x in a]), "b_wall": med([x[0] for x in b]),
        "b_cpu": med([y[1] for y in b]),
        "wall": med([x[0] / y[0] for x, y in zip(a, b)]),
        "cpu": med([x[1] / max(y[1], 1e-6) for x, y in zip(a, b)]),
        "a": a,
    }


def peak_of(cmd, env):
    """Peak RSS in bytes of one run of `cmd`, as /usr/bin/time (a small parent) saw it."""
    r = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, env=env)
    if r.returncode not in (0, 1):
        sys.exit(f"compare-rg: {cmd[0]} under /usr/bin/time failed: {r.stderr[-300:]!r}")
    return int(r.stderr.split()[-1]) * 1024


def peak(env, req):
    """Peak RSS in bytes of one `history_list` run, as /usr/bin/time (a small parent) saw it."""
    with open(req, "rb") as inp:
        r = subprocess.run(["/usr/bin/time", "-f", "%M", str(helper), "history_list"], stdin=inp,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    if r.returncode != 0:
        sys.exit(f"compare-rg: history_list under /usr/bin/time failed: {r.stderr[-300:]!r}")
    return int(r.stderr.split()[-1]) * 1024


class Mcp:
    """One `notesoup mcp`, initialized, answering `history_list` calls one at a time."""

    def __init__(self, env):
        self.p = subprocess.Popen([str(cli), "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, env=env)
        self.n = 0
        self.ask("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "compare-rg", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg):
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()

    def ask(self, method, params):
        self.n += 1
        self.send({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params})
        while True:
            line = self.p.stdout.readline()
            if not line:
                sys.exit("compare-rg: notesoup mcp closed its stdout")
            msg = json.loads(line)
            if msg.get("id") == self.n:
                return msg

    def call(self, query=QUERY):
        """Wall seconds of one `history_list` call (its CPU is read for many at once)."""
        start = time.perf_counter()
        answer = self.ask("tools/call", {"name": "history_list",
                                         "arguments": {"session": f"claude:{SESSION}", "query": query}})
        wall = time.perf_counter() - start
        result = answer.get("result", {})
        if result.get("isError") or "error" in answer:
            sys.exit(f"compare-rg: the mcp history_list failed: {str(answer)[:300]}")
        return wall, 0.0, result["content"][0]["text"]

    def cpu(self):
        fields = open(f"/proc/{self.p.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK

    def peak(self):
        with open(f"/proc/{self.p.pid}/status") as status:
            return next(int(l.split()[1]) for l in status if l.startswith("VmHWM")) * 1024

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def history(kind):
    d = tmp / kind
    project = d / "claude" / "projects" / "-tmp-bench"
    project.mkdir(parents=True)
    f = project / f"{SESSION}.jsonl"
    with open(f, "wb") as out:
        subprocess.run([str(gen)] + (["--sparse"] if kind == "sparse" else []) + [str(nbytes)], stdout=out, check=True)
    size = f.stat().st_size
    head = None
    with open(f, "rb") as inp:
        for line in inp:
            if b'"uuid"' in line:
                head = json.loads(line)["uuid"]
    req = d / "search.json"
    req.write_text(json.dumps({"transcript_path": str(f), "head": head, "query": QUERY}))
    rg = ["rg", "-F", "-c", QUERY, str(f)]
    lines = sum(1 for _ in open(f, "rb"))
    label = f"{kind}: {size / 1e6:.0f} MB, {lines} lines"
    cold_n = [0]

    def cold():
        cold_n[0] += 1
        home = d / f"cold{cold_n[0]}"
        row = timed([str(helper), "history_list"], stdin=req, env=dict(os.environ, NOTESOUP_HOME=str(home)))
        shutil.rmtree(home, ignore_errors=True)
        if not json.loads(row[2]).get("ok"):
            sys.exit(f"compare-rg: history_list failed: {row[2][:300]!r}")
        return row

    warm_env = dict(os.environ, NOTESOUP_HOME=str(d / "warm"))

    def warm():
        row = timed([str(helper), "history_list"], stdin=req, env=warm_env)
        if not json.loads(row[2]).get("ok"):
            sys.exit(f"compare-rg: warm history_list failed: {row[2][:300]!r}")
        return row

    # The floors under the project's rules (benches/src/bin/safe-floor/main.rs): the file read
    # with read(2), never mapped (count), and each committed line also through serde_json's
    # validating pass, which a call with no index cannot skip (validate). Each must count
    # the lines rg counts.
    rg_count = timed(rg)[2].strip()
    floor_runs = {}
    for mode in ("count", "validate"):
        cmd = [str(floor), mode, QUERY, str(f)]
        if timed(cmd)[2].strip() != rg_count:
            sys.exit(f"compare-rg: safe-floor {mode} does not count what rg counts ({rg_count!r})")
        floor_runs[mode] = lambda cmd=cmd: timed(cmd)
    fc = pairwise(floor_runs["count"], lambda: timed(rg), pairs)
    fv = pairwise(floor_runs["validate"], lambda: timed(rg), pairs)
    c = pairwise(cold, lambda: timed(rg), pairs)
    cv = pairwise(cold, floor_runs["validate"], pairs)
    warm()  # writes the index
    w = pairwise(warm, lambda: timed(rg), pairs)
    wc = pairwise(warm, floor_runs["count"], pairs)
    cold_home = d / "cold-peak"
    cold_peak = peak(dict(os.environ, NOTESOUP_HOME=str(cold_home)), req)
    shutil.rmtree(cold_home, ignore_errors=True)
    warm_peak = peak(warm_env, req)

    # The MCP server: its own home (its first call reads the file cold), the session by selector.
    mcp = Mcp(dict(os.environ, NOTESOUP_HOME=str(d / "mcp-home"), CLAUDE_CONFIG_DIR=str(d / "claude")))
    first = mcp.call()
    cpu0 = mcp.cpu()
    # Each later pair asks another literal (a search of the kept history, never the one its
    # first call read the file for, whose matches that read noted), rg the same one.
    asked = [0]

    def query():
        return OTHERS[asked[0] % len(OTHERS)]

    def mcp_call():
        return mcp.call(query())

    def rg_call():
        asked[0] += 1
        return timed(["rg", "-F", "-c", OTHERS[(asked[0] - 1) % len(OTHERS)], str(f)])

    m = pairwise(mcp_call, rg_call, pairs)
    m_cpu = (mcp.cpu() - cpu0) / (pairs + 1)  # the warm-up call included
    mcp_peak = mcp.peak()
    mcp.close()
    # The helper's and the server's answers agree (the same page of the same search).
    helper_text = json.loads(warm()[2])["text"]
    if helper_text != first[2]:
        sys.exit("compare-rg: the mcp answer differs from the helper's")

    def paired(what, r, goal, digits=1):
        """A row of one pairwise comparison: both medians, the ratio (cpu beside), the goal."""
        rows.append((what, f"{r['a_wall']:.3f} s vs {r['b_wall']:.3f} s",
                     f"{r['wall']:.{digits}f} (cpu {r['cpu']:.{digits}f})", goal))

    paired(f"`history_list` + query, cold, vs `rg -F -c` ({label})", c, "≤ 5")
    paired(f"the same, index warm ({kind})", w, "≤ 2")
    paired(f"floor: the file read without mapping it (`safe-floor count`) vs `rg -F -c` ({kind})",
           fc, "(the rules' floor)", digits=2)
    paired(f"floor: every committed line through serde_json's validating pass (`safe-floor validate`) vs `rg -F -c` ({kind})",
           fv, "(the spec's floor, cold)")
    paired(f"cold `history_list` vs `safe-floor validate` ({kind})", cv, "(over the floor)")
    paired(f"warm `history_list` vs `safe-floor count` ({kind})", wc, "(over the floor)")
    rows.append((f"the same through `notesoup mcp`, second and later calls ({kind})",
                 f"{m['a_wall']:.3f} s vs {m['b_wall']:.3f} s (its first call {first[0]:.3f} s)",
                 f"{m['wall']:.1f} (cpu {m_cpu / max(m['b_cpu'], 1e-6):.1f})", "≤ 1.5"))
    rows.append((f"peak memory / file size ({kind})",
                 f"cold {cold_peak / 2**20:.0f} MiB, warm {warm_peak / 2**20:.0f} MiB, mcp {mcp_peak / 2**20:.0f} MiB",
                 f"cold {cold_peak / size:.2f}, warm {warm_peak / size:.2f}, mcp {mcp_peak / size:.2f}", "< 2"))

    # Where the time goes: warm after an append the index does not cover.
    tail = open(f, "rb").read()[-400_000:].split(b"\n")[1:-1]
    tail = [json.loads(r) for r in tail if b'"uuid"' in r][-12:]
    parent, added = head, b""
    for i, r in enumerate(tail):
        r["uuid"], r["parentUuid"] = f"{r['uuid'][:-12]}{i:012x}", parent
        parent = r["uuid"]
        added += json.dumps(r, separators=(",", ":")).encode() + b"\n"
    with open(f, "ab") as out:
        out.write(added)
    req.write_text(json.dumps({"transcript_path": str(f), "head": parent, "query": QUERY}))
    a = pairwise(warm, lambda: timed(rg), pairs)
    paired(f"the same, warm, after a {len(added) // 1000} kB append the index does not cover ({kind})",
           a, "(where the time goes)")
    shutil.rmtree(d, ignore_errors=True)


SESSIONS = 3000
SESSION_NAME = re.compile(rb"\b(claude|pi|codex):([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b")


def mixed_corpus():
    """The generated corpus, made once per generator version and size (it takes a while)."""
    key = hashlib.sha256(gen_sessions.read_bytes()).hexdigest()[:12]
    cache = Path(os.environ.get("NOTESOUP_BENCH_CACHE") or Path.home() / ".cache/notesoup-bench")
    d = cache / f"sessions-{key}-{SESSIONS}-{corpus_bytes}"
    if not (d / "holders").is_file():
        shutil.rmtree(d, ignore_errors=True)
        part = cache / f"{d.name}.part"
        shutil.rmtree(part, ignore_errors=True)
        part.mkdir(parents=True)
        held = subprocess.run(["python3", str(gen_sessions), "--mixed", str(corpus_bytes), str(part), str(SESSIONS)],
                              check=True, stdout=subprocess.PIPE).stdout
        (part / "holders").write_bytes(held)
        part.rename(d)
    return d


def session_of(path):
    """`<harness>:<id>` of a session file, from its name as each harness writes it."""
    p = Path(path.decode())
    if "/claude/" in str(p):
        return f"claude:{p.stem}"
    if "/pi/" in str(p):
        return f"pi:{p.stem.split('_', 1)[1]}"
    return f"codex:{p.stem[-36:]}"


def whole():
    d = mixed_corpus()
    holders = set(d.joinpath("holders").read_text().split())
    folders = [str(d / "claude/projects"), str(d / "pi/sessions"), str(d / "codex/sessions")]
    files = [p for f in folders for p in Path(f).rglob("*.jsonl")]
    size = sum(p.stat().st_size for p in files)
    largest = max(p.stat().st_size for p in files)
    home = tmp / "whole-home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PI_CODING_AGENT_SESSION_DIR",)}
    env.update(HOME=str(home), CLAUDE_CONFIG_DIR=str(d / "claude"), PI_CODING_AGENT_DIR=str(d / "pi"),
               CODEX_HOME=str(d / "codex"), NOTESOUP_HOME=str(tmp / "whole-warm"))
    search = [str(cli), "history", "search", QUERY, "--no-pager"]
    rg = ["rg", "-F", "-l", QUERY] + folders
    found = {session_of(l) for l in subprocess.run(rg, check=True, stdout=subprocess.PIPE).stdout.split()}
    if found != holders:
        sys.exit(f"compare-rg: rg finds {sorted(found)}, the generator wrote {sorted(holders)}")

    def named(out):
        shown = {f"{h.decode()}:{i.decode()}" for h, i in SESSION_NAME.findall(out)}
        if shown != found or b"could not be read" in out:
            sys.exit(f"compare-rg: notesoup named {sorted(shown)}, rg found {sorted(found)}: {out[-400:]!r}")

    def notesoup(e, cmd=search):
        with open(os.devnull, "rb") as inp:
            start = time.perf_counter()
            p = subprocess.Popen(cmd, stdin=inp, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=e)
            out = p.stdout.read()
            _, status, usage = os.wait4(p.pid, 0)
            wall = time.perf_counter() - start
        if status != 0:  # exit 0: something matched
            sys.exit(f"compare-rg: history search exited with status {status}")
        named(out)
        return wall, usage.ru_utime + usage.ru_stime, out

    cold_n = [0]

    def cold():
        cold_n[0] += 1
        h = tmp / f"whole-cold{cold_n[0]}"
        row = notesoup(dict(env, NOTESOUP_HOME=str(h)))
        shutil.rmtree(h, ignore_errors=True)
        return row

    for f in files:  # the page cache warm: every byte read once
        f.read_bytes()
    notesoup(env)  # builds the transcript indexes
    w = pairwise(lambda: notesoup(env), lambda: timed(rg), pairs)
    c = pairwise(cold, lambda: timed(rg), pairs)
    warm_peak = peak_of(search, env)
    cold_home = tmp / "whole-cold-peak"
    cold_peak = peak_of(search, dict(env, NOTESOUP_HOME=str(cold_home)))
    shutil.rmtree(cold_home, ignore_errors=True)
    # Case ignored: the same text in another case, against `rg -i`; the same sessions found.
    folded = QUERY.upper()
    search_i = [str(cli), "history", "search", "-i", folded, "--no-pager"]
    rg_i = ["rg", "-F", "-l", "-i", folded] + folders
    if {session_of(l) for l in subprocess.run(rg_i, check=True, stdout=subprocess.PIPE).stdout.split()} != found:
        sys.exit("compare-rg: rg -i finds other sessions than rg")
    i = pairwise(lambda: notesoup(env, search_i), lambda: timed(rg_i), pairs)
    # A text every session holds: every session decoded, the six large ones included. Its
    # peak moves from run to run (the allocator gives memory back a second after it is
    # freed), so it is run as many times as a row has pairs: the median, and the range.
    common_peaks = sorted(peak_of([str(cli), "history", "search", COMMON, "--no-pager"], env)
                          for _ in range(pairs))
    common_peak = statistics.median(common_peaks)
    label = (f"{len(files)} session files, {size / 1e6:.0f} MB, largest {largest / 1e6:.0f} MB; "
             f"`{QUERY}` in {len(found)}")
    rows.append((f"`notesoup history search {QUERY}`, indexes warm, vs `rg -F -l` over the same folders ({label})",
                 f"{w['a_wall']:.3f} s vs {w['b_wall']:.3f} s", f"{w['wall']:.2f} (cpu {w['cpu']:.2f})", "≤ 2"))
    rows.append(("the same, no index at all (a fresh NOTESOUP_HOME each run)",
                 f"{c['a_wall']:.3f} s vs {c['b_wall']:.3f} s", f"{c['wall']:.2f} (cpu {c['cpu']:.2f})", "(say what it costs)"))
    rows.append(("peak memory / largest session file (whole-history search)",
                 f"warm {warm_peak / 2**20:.0f} MiB, cold {cold_peak / 2**20:.0f} MiB",
                 f"warm {warm_peak / largest:.2f}, cold {cold_peak / largest:.2f}", "< 2"))
    rows.append((f"`notesoup history search -i {folded}`, indexes warm, vs `rg -F -l -i`",
                 f"{i['a_wall']:.3f} s vs {i['b_wall']:.3f} s", f"{i['wall']:.2f} (cpu {i['cpu']:.2f})", "(say it)"))
    rows.append((f"peak memory / largest session file, `search {COMMON}` (in every session: all decoded; median of {pairs} runs, and their range)",
                 f"{common_peak / 2**20:.0f} MiB ({common_peaks[0] / 2**20:.0f}–{common_peaks[-1] / 2**20:.0f})",
                 f"{common_peak / largest:.2f} ({common_peaks[0] / largest:.2f}–{common_peaks[-1] / largest:.2f})", "< 2"))


try:
    # COMPARE_RG_ROWS picks rows (default: all three groups).
    for group in os.environ.get("COMPARE_RG_ROWS", "dense sparse whole").split():
        whole() if group == "whole" else history(group)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
print(f"{pairs} alternating pairs per row (medians; ratios pair by pair); load {os.getloadavg()[0]:.1f}")
print("| what | measured | ratio | goal |")
print("|---|---|---|---|")
for r in rows:
    print("| " + " | ".join(r) + " |")
PY
