#!/usr/bin/env bash
# Every row of the performance table (BENCHMARKS.md "one run"), side by side in one run:
#   1. `claude -p ok` with notesoup vs the floor mod: a module generated here from the
#      plugin's own hooks/spec.ts that registers exactly notesoup's nine tools and three
#      commands at once in `session.start` (so the tools are in the first request) and does
#      nothing else; and, for the record, the floor mod vs an empty mod (a module that
#      registers nothing) and bare Claude Code (no mod); with notesoup's helper spawns per run
#      and, from the engine's debug-log stamps, the median of each start-up piece (module
#      loaded, first registration, the tools' connections, the first request, exit) for
#      notesoup and the floor mod;
#   2. a scripted turn with 20 tool calls (Bash `true`), notesoup vs the floor mod and the
#      floor mod vs the empty mod, with helper spawns per notesoup hook event (from the
#      engine's debug log);
#   and for both, the floor mod plus every event notesoup hooks, each hook only `next(e)`,
#   vs the floor mod: what the engine charges for the hooks notesoup must have;
#   3. the history rows of issue 30: benches/compare-rg.sh, run after these in the same
#      command (its header says what it times: `history_list` on one ~100 MB transcript
#      cold, warm and through `notesoup mcp`, against `rg -F -c`; `notesoup history search`
#      over 3,000 generated Claude, Pi and Codex sessions (~1 GB), warm and with no index,
#      against `rg -F -l`; and peak memory);
#   and where the engine is the cost, minimal mods that do one thing each, vs the empty mod:
#   9 `$.tool.register` awaited one after another (what notesoup did), the same 9 issued at
#   once, ONE `$.tool.register` (the least any mod with a tool pays), the notesoup module
#   loaded (transpiled) with its `register` emptied, and the empty mod with notesoup's tools
#   from an `--mcp-config` stdio server (`notesoup mcp`) instead, with how many of them the
#   first model request lists (the engine connects those servers without waiting for them).
# Every row also checks what it times: a notesoup run's first model request must list its
# nine tools.
# A and B run in turn (A B A B ...) and each ratio is the median of the pair-by-pair
# ratios, so a drift of the machine's speed moves both sides of a pair alike.
#   benches/table.sh [pairs] [bytes]     (defaults: 7 100000000)
# NOTESOUP_TABLE_ROWS=claude: the start-up and turn rows only (no minimal mods, no history).
# [bytes] is the history rows' transcript size, handed to benches/compare-rg.sh.
# NOTESOUP_TABLE_ROWS=history: the history rows only (benches/compare-rg.sh; no Claude Code).
# NOTESOUP_TABLE_BASE=<plugins/claude of another checkout>: also that plugin side by side
#   with this one (start-up and the 20-call turn, A = this, B = base, and base vs the floor mod),
#   so a change to the hooks module is measured against its base in the same run.
# Needs: the real Claude Code (scripts/get-claude fetches it with npm), ripgrep
# (apt-get install -y ripgrep), python3. Runs offline: the model is notesoup-fake-api.
set -euo pipefail
cd "$(dirname "$0")/.."
pairs="${1:-7}"
bytes="${2:-100000000}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
rows="${NOTESOUP_TABLE_ROWS:-all}"
if [ "$rows" = history ]; then
  exec benches/compare-rg.sh "$pairs" "$bytes"
fi
cargo build --release --locked -q -p notesoup-helper-bin
if [ "$rows" = all ]; then
  cargo build --release --locked -q -p notesoup-cli   # `notesoup mcp`, for the --mcp-config row
fi
cargo build --release --locked -q -p notesoup-e2e --bin notesoup-fake-api
claude="$(scripts/get-claude)"
bin="$CARGO_TARGET_DIR/release"
python3 - "$claude" "$bin" "$PWD/plugins/claude" "$pairs" "$bytes" "${NOTESOUP_TABLE_ROWS:-all}" "${NOTESOUP_TABLE_BASE:-}" <<'PY'
import json, os, re, shutil, statistics, subprocess, sys, tempfile, time
from datetime import datetime
from pathlib import Path

claude, bin_dir, plugin_src, pairs = sys.argv[1], Path(sys.argv[2]).resolve(), Path(sys.argv[3]), int(sys.argv[4])
only_claude, base_src = sys.argv[6] == "claude", (Path(sys.argv[7]) if sys.argv[7] else None)
helper, fake = bin_dir / "notesoup-helper", bin_dir / "notesoup-fake-api"
cli = bin_dir / "notesoup"
tmp = Path(tempfile.mkdtemp(prefix="nstable-"))


def timed(cmd, stdin=None, env=None, cwd=None, stdout=subprocess.DEVNULL):
    """Wall seconds (this process's clock), CPU seconds and peak RSS in bytes (wait4)."""
    with open(stdin or os.devnull, "rb") as inp:
        start = time.perf_counter()
        p = subprocess.Popen(cmd, stdin=inp, stdout=stdout, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
        out = p.stdout.read() if stdout == subprocess.PIPE else b""
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - start
    if status != 0:
        sys.exit(f"table: {cmd[0]} exited with status {status}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, out


def pairwise(run_a, run_b, n):
    """n alternating pairs after one warm-up pair: medians of A, B and of A/B per pair."""
    run_a(), run_b()
    a, b = [], []
    for _ in range(n):
        a.append(run_a())
        b.append(run_b())
    med = lambda xs: statistics.median(xs)
    return {
        "a_wall": med([x[0] for x in a]), "b_wall": med([x[0] for x in b]),
        "wall": med([x[0] / y[0] for x, y in zip(a, b)]),
        "cpu": med([x[1] / max(y[1], 1e-6) for x, y in zip(a, b)]),
        "a_peak": max(x[2] for x in a), "a_runs": a,
    }


# ---- the real Claude Code against the scripted service ------------------------------
def copy_plugin(dest, src=plugin_src):
    def ignore(folder, names):
        skip = {"bin", "types"} if Path(folder).name in ("claude", ".claude-plugin") else set()
        return [n for n in names if n in skip or n in ("__pycache__", "tests")]
    shutil.copytree(src, dest, ignore=ignore)


notesoup_mod = tmp / "mods" / "notesoup"
copy_plugin(notesoup_mod)
base_mod = None
if base_src is not None:
    base_mod = tmp / "mods" / "base" / "notesoup"
    copy_plugin(base_mod, base_src)
empty_mod = tmp / "mods" / "empty"
(empty_mod / ".claude-plugin").mkdir(parents=True)
(empty_mod / "hooks").mkdir()
(empty_mod / ".claude-plugin" / "plugin.json").write_text('{"name":"empty","version":"0.1.0","description":"registers nothing"}')
(empty_mod / "hooks" / "hooks.json").write_text('{ "modules": ["./empty.ts"] }')
(empty_mod / "hooks" / "empty.ts").write_text("export function register(on: unknown) {}\n")


def minimal_mod(name, ts):
    """A mod of one module `m.ts` holding `ts`."""
    mod = tmp / "mods" / name
    (mod / ".claude-plugin").mkdir(parents=True)
    (mod / "hooks").mkdir()
    (mod / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": name, "version": "0.1.0", "description": "bench"}))
    (mod / "hooks" / "hooks.json").write_text('{ "modules": ["./m.ts"] }')
    (mod / "hooks" / "m.ts").write_text(ts)
    return mod


# Nine tools with small schemas (the engine's cost is per registration, not per schema byte).
NINE = "const TOOLS = [" + ",".join(
    f"{{ name: 't{i}', description: 'bench tool {i}', inputSchema: {{ type: 'object', properties: {{ q: {{ type: 'string', description: 'a query' }} }}, required: [] }} }}"
    for i in range(1, 10)) + "];\n"
REG = "$.tool.register({ name: t.name, description: t.description, inputSchema: t.inputSchema, isDeferred: false })"
tools_in_turn = minimal_mod("toolsinturn", NINE + "export const register = (on: any) => {\n"
    "  on('session.start', async ($: any, e: any, next: any) => {\n"
    f"    for (const t of TOOLS) await {REG};\n    return next(e);\n  }});\n}};\n")
tools_at_once = minimal_mod("toolsatonce", NINE + "export const register = (on: any) => {\n"
    "  on('session.start', async ($: any, e: any, next: any) => {\n"
    f"    await Promise.all(TOOLS.map((t) => {REG}));\n    return next(e);\n  }});\n}};\n")
one_tool = minimal_mod("onetool", NINE + "export const register = (on: any) => {\n"
    "  on('session.start', async ($: any, e: any, next: any) => {\n"
    f"    const t = TOOLS[0];\n    await {REG};\n    return next(e);\n  }});\n}};\n")
# The floor: notesoup's nine tools and three commands, registered the way notesoup must (all
# at once, in the tools of the first request), from the plugin's own spec.ts (generated from
# the Rust definitions), and nothing else: no helper, no other hook.
floor_mod = minimal_mod("floor", "import { COMMANDS, TOOLS } from './spec.ts';\n"
    "export const register = (on: any) => {\n"
    "  on('session.start', async ($: any, e: any, next: any) => {\n"
    "    await Promise.all([\n"
    "      ...TOOLS.map((t) => $.tool.register({ name: t.name, description: t.description, inputSchema: t.inputSchema, isDeferred: false })),\n"
    "      ...COMMANDS.map((c) => $.command.register(c)),\n"
    "    ]);\n    return next(e);\n  });\n};\n")
shutil.copy(plugin_src / "hooks" / "spec.ts", floor_mod / "hooks" / "spec.ts")
# The floor plus every event notesoup's module hooks (read from its `register`), each hook only
# `next(e)`: what the engine charges for hooking those events at all (worker hops; a turn.step
# hook relays every streamed chunk through the module's worker). A matcher written as a
# literal (`{ type: 'context_sections' }`) is kept; one naming the module's constants is not.
FLOOR_TS = (floor_mod / "hooks" / "m.ts").read_text()
hooked = re.findall(r"^  on\('([\w.]+)'(, \{[^}]*'[^}]*\})?", (plugin_src / "hooks" / "notesoup.ts").read_text(), re.M)
passes = []
for event, matcher in dict(hooked).items():
    if event == "session.start":
        continue
    body = "async function* ($: any, e: any, next: any) { return yield* next(e); }" if event == "turn.step" \
        else "async ($: any, e: any, next: any) => next(e)"
    passes.append(f"  on('{event}'{matcher}, {body});\n")
if len(passes) < 8:
    sys.exit(f"table: read only {len(passes)} hooked events from notesoup.ts's register")
hooks_mod = minimal_mod("hooksonly", FLOOR_TS.replace("    return next(e);\n  });\n", "    return next(e);\n  });\n" + "".join(passes), 1))
shutil.copy(plugin_src / "hooks" / "spec.ts", hooks_mod / "hooks" / "spec.ts")
# The notesoup module as it is, its `register` emptied: loading and transpiling alone.
loaded_only = tmp / "mods" / "loadedonly"
copy_plugin(loaded_only)
module = loaded_only / "hooks" / "notesoup.ts"
source = module.read_text()
cut = source.find("export const register")
loaded_only = None if cut < 0 else loaded_only
if loaded_only is not None:
    module.write_text(source[:cut] + "export const register = (on: unknown) => { void on; };\n")
runs = 0


first_tools = {}  # mod -> how many MCP tools each run's first model request listed


def claude_run(mod, tool_calls=0, debug=None, mcp_config=False):
    """One `claude -p` in a fresh home against its own scripted service; only claude is timed.
    `mcp_config`: notesoup's tools from `notesoup mcp` through `--mcp-config` as well."""
    global runs
    runs += 1
    d = tmp / f"run{runs}"
    (d / "home" / ".claude").mkdir(parents=True)
    (d / "work").mkdir()
    log, port_file = d / "requests.jsonl", d / "port"
    svc = [str(fake), "--log", str(log), "--port-file", str(port_file), "--text", "ok", "--timeout-secs", "300"]
    if tool_calls:
        svc += ["--tool-calls", str(tool_calls)]
    server = subprocess.Popen(svc)
    try:
        for _ in range(200):
            if port_file.exists():
                break
            time.sleep(0.02)
        else:
            sys.exit("table: notesoup-fake-api did not start")
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(d / "home"),
            "CLAUDE_CONFIG_DIR": str(d / "home" / ".claude"), "LANG": "C.UTF-8", "TERM": "dumb",
            "TMPDIR": os.environ.get("TMPDIR", "/tmp"),
            "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port_file.read_text().strip()}",
            "ANTHROPIC_API_KEY": "sk-ant-fake-notesoup-bench-table-0000000",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL": "1",
            "NOTESOUP_HOME": str(d / "notesoup"), "NOTESOUP_HELPER": str(helper),
            "HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9",
            "NO_PROXY": "127.0.0.1,localhost",
        }
        cmd = [claude, "-p", "run the commands" if tool_calls else "ok"]
        if mod is not None:
            cmd += ["--plugin-dir", str(mod)]
        if tool_calls:
            cmd += ["--allowedTools", "Bash"]
        if debug:
            cmd += ["--debug-file", str(debug)]
        if mcp_config:
            config = d / "mcp.json"
            config.write_text(json.dumps({"mcpServers": {"notesoup": {
                "command": str(cli), "args": ["mcp"], "env": {"NOTESOUP_HOME": str(d / "notesoup")}}}}))
            cmd += ["--mcp-config", str(config)]
        row = timed(cmd, env=env, cwd=d / "work")
        requests = [json.loads(line) for line in log.read_text().splitlines()]
        requests = [r for r in requests if "/v1/messages" in r.get("path", "") and "count_tokens" not in r.get("path", "")]
        if len(requests) < tool_calls + 1:
            sys.exit(f"table: {len(requests)} model requests, expected {tool_calls + 1}")
        body = requests[0].get("body")
        body = json.loads(body) if isinstance(body, str) else (body or {})
        listed = sum(1 for t in body.get("tools", []) if str(t.get("name", "")).startswith("mcp__"))
        first_tools.setdefault((mod, mcp_config), []).append(listed)
        if mod is not None and mod in (notesoup_mod, base_mod, floor_mod, hooks_mod) and listed != 9:
            names = [t.get("name") for t in body.get("tools", [])]
            sys.exit(f"table: {mod.name}'s first model request listed {listed} MCP tools, expected its 9 (its tools: {names})")
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(d, ignore_errors=True)
    return row


def spawns_per_event(tool_calls, mod=notesoup_mod):
    dbg = tmp / f"debug-{runs}.log"  # the engine appends to a debug file: a new one per run
    claude_run(mod, tool_calls, debug=dbg)
    text = dbg.read_text(errors="replace")
    events = re.findall(r"hooks module notesoup@inline (\S+)(?: stream)? settled", text)
    spawns = len(re.findall(r"\$\.process\.run \(notesoup\): \S+ with", text))
    ran = len(re.findall(r"\$\.process\.run \(notesoup\): \S+ exited 0 in", text))
    if spawns == 0 or ran != spawns:
        # A helper that cannot run leaves notesoup doing nothing: its rows would time a mod
        # that only logs refusals.
        sys.exit(f"table: {spawns - ran} of {spawns} helper spawns did not exit 0 ({helper}); see {dbg}")
    by_event = {}
    for e in events:
        by_event[e] = by_event.get(e, 0) + 1
    return spawns, len(events), by_event


def stamps(mod):
    """One `claude -p ok` with a debug log: ms from the log's first line to each start-up
    piece, read from the engine's own stamps (module loaded, first registration served,
    first and last tool visible, first model request, last line)."""
    dbg = tmp / f"debug-{runs}.log"
    claude_run(mod, debug=dbg)
    lines = [l for l in dbg.read_text(errors="replace").splitlines() if re.match(r"\d{4}-\d\d-\d\dT", l)]
    t = lambda l: datetime.strptime(l[:23], "%Y-%m-%dT%H:%M:%S.%f").timestamp()
    first = lambda rx: next((t(l) for l in lines if re.search(rx, l)), None)
    points = [first(r"hooks module \S+@inline loaded"), first(r"\$\.tool\.register \(\S+\): 1 tool\(s\) served"),
              first(r"visible after"), first(r"empty_brain visible after"), first(r"\[API REQUEST\] /v1/messages"), t(lines[-1])]
    if None in points:
        sys.exit(f"table: a start-up stamp is missing from {dbg}")
    return [t(lines[0])] + points


PIECES = ("start to module loaded", "loaded to the first registration", "the first tool's connection",
          "the other eight tools", "last tool to the first model request", "the answer to exit")


def pieces(n):
    """Median ms of each start-up piece, notesoup and the floor mod in turn, n runs each."""
    ns, fl = [], []
    for _ in range(n):
        ns.append(stamps(notesoup_mod))
        fl.append(stamps(floor_mod))
    med = lambda runs, i: 1000 * statistics.median(r[i + 1] - r[i] for r in runs)
    return [(name, med(ns, i), med(fl, i)) for i, name in enumerate(PIECES)]


rows = []


def row(label, r, goal, more=""):
    """A row of the table from a pairwise result: A's and B's medians (then `more`), the ratio."""
    rows.append((label, f"{r['a_wall']:.2f} s vs {r['b_wall']:.2f} s{more}",
                 f"{r['wall']:.2f} (cpu {r['cpu']:.2f})", goal))


start_spawns, start_events, start_by_event = spawns_per_event(0)
start_pieces = pieces(pairs)
start_up = pairwise(lambda: claude_run(notesoup_mod), lambda: claude_run(floor_mod), pairs)
row("`claude -p ok`: notesoup vs the floor mod (wall)", start_up, "≤ 1.05",
    f"; {start_spawns} helper spawns / {start_events} hook events")
floor = pairwise(lambda: claude_run(floor_mod), lambda: claude_run(empty_mod), pairs)
bare = pairwise(lambda: claude_run(empty_mod), lambda: claude_run(None), pairs)
hooks_only = pairwise(lambda: claude_run(hooks_mod), lambda: claude_run(floor_mod), pairs)
row("`claude -p ok`: the floor mod vs empty mod (wall)", floor, "(the engine's)",
    f" (bare Claude Code {bare['b_wall']:.2f} s)")
row("`claude -p ok`: the floor mod plus notesoup's hooks, each only `next(e)`, vs the floor mod (wall)",
    hooks_only, "(the engine's)")
if base_mod is not None:
    row("`claude -p ok`: notesoup vs notesoup at the base (wall)",
        pairwise(lambda: claude_run(notesoup_mod), lambda: claude_run(base_mod), pairs), "(the change)")
    row("`claude -p ok`: notesoup at the base vs the floor mod (wall)",
        pairwise(lambda: claude_run(base_mod), lambda: claude_run(floor_mod), pairs), "(the base)")
for label, mod in (("engine: 9 `$.tool.register` awaited in turn, nothing else, vs empty mod", tools_in_turn),
                   ("engine: the same 9 issued at once (`Promise.all`), vs empty mod", tools_at_once),
                   ("engine: ONE `$.tool.register`, nothing else, vs empty mod", one_tool),
                   ("the notesoup module loaded, `register` emptied, vs empty mod", loaded_only)):
    if mod is None or only_claude:
        continue
    row(label, pairwise(lambda: claude_run(mod), lambda: claude_run(empty_mod), pairs), "(where the time goes)")
if not only_claude:
    r = pairwise(lambda: claude_run(empty_mod, mcp_config=True), lambda: claude_run(empty_mod), pairs)
    listed = first_tools[(empty_mod, True)]
    row("engine: notesoup's tools from an `--mcp-config` stdio server (`notesoup mcp`) instead, vs empty mod",
        r, "(where the time goes)", f"; MCP tools in the first request: {min(listed)}–{max(listed)} of 9")
turn = pairwise(lambda: claude_run(notesoup_mod, 20), lambda: claude_run(floor_mod, 20), pairs)
spawns, hook_events, by_event = spawns_per_event(20)
row("a turn with 20 tool calls: notesoup vs the floor mod (wall)", turn, "≤ 1.05",
    f"; {spawns} helper spawns / {hook_events} hook events")
row("a turn with 20 tool calls: the floor mod vs empty mod (wall)",
    pairwise(lambda: claude_run(floor_mod, 20), lambda: claude_run(empty_mod, 20), pairs), "(the engine's)")
row("a turn with 20 tool calls: the floor mod plus notesoup's hooks, each only `next(e)`, vs the floor mod (wall)",
    pairwise(lambda: claude_run(hooks_mod, 20), lambda: claude_run(floor_mod, 20), pairs), "(the engine's)")
if base_mod is not None:
    b = pairwise(lambda: claude_run(notesoup_mod, 20), lambda: claude_run(base_mod, 20), pairs)
    bs, be, _ = spawns_per_event(20, base_mod)
    row("a turn with 20 tool calls: notesoup vs notesoup at the base (wall)", b, "(the change)",
        f"; base {bs} helper spawns / {be} hook events")
    row("a turn with 20 tool calls: notesoup at the base vs the floor mod (wall)",
        pairwise(lambda: claude_run(base_mod, 20), lambda: claude_run(floor_mod, 20), pairs), "(the base)")

shutil.rmtree(tmp, ignore_errors=True)
print(f"{pairs} alternating pairs per row (medians; ratios pair by pair)")
print(f"helper spawns in `claude -p ok`: {start_spawns} for {start_events} hook events "
      f"({', '.join(f'{k} {v}' for k, v in sorted(start_by_event.items()))})")
print("`claude -p ok`, where notesoup's time over the floor goes (median ms per piece, from the engine's debug-log stamps):")
print("| piece | notesoup | floor mod | difference |")
print("|---|---|---|---|")
for name, a, b in start_pieces:
    print(f"| {name} | {a:.0f} | {b:.0f} | {a - b:+.0f} |")
print(f"spawns per hook event in the 20-call turn: {spawns / max(hook_events, 1):.2f} "
      f"({', '.join(f'{k} {v}' for k, v in sorted(by_event.items()))})")
print("| what | measured | ratio | goal |")
print("|---|---|---|---|")
for r in rows:
    print("| " + " | ".join(r) + " |")
PY
if [ "$rows" = all ]; then
  echo
  benches/compare-rg.sh "$pairs" "$bytes"
fi
