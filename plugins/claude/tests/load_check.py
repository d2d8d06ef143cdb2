#!/usr/bin/env python3
"""The real load check: `claude --plugin-dir plugins/claude -p "ok"` against a local scripted API.

Runs the real Claude Code binary offline (fresh HOME, fake key, ANTHROPIC_BASE_URL on
127.0.0.1, every other host behind a dead proxy) on a copy of the plugin and requires:
  - exit 0 and the fake reply on stdout;
  - the engine's debug log says the notesoup hooks module loaded, and neither stderr nor
    the debug log carries a hooks-module refusal;
  - the first API request lists all nine `mcp__notesoup__*` tools (the five notes tools,
    the three history tools and `empty_brain`) and offers the plugin's
    skills (`notesoup:<folder>` for each `skills/<folder>/SKILL.md`);
  - and, run again with NOTESOUP_DISABLED=1, it still loads and lists none of them.

With --types-out DIR it also keeps the type contract the engine wrote beside the copy
(`.claude-plugin/types/`, written because CLAUDE_CODE_PLUGIN_DIR_WATCH=1 makes the headless
run treat the folder as a watched dev folder), for `tsc` to check the module against.

The scripted API is the e2e crate's service run as a process (`notesoup-fake-api`, built by
`cargo build -p notesoup-e2e --bin notesoup-fake-api`; --service names it).

    load_check.py --claude PATH --service PATH [--plugin plugins/claude] [--helper PATH]
                  [--types-out DIR] [--keep DIR] [--timings]
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TOOLS = [f"mcp__notesoup__{n}" for n in (
    "notes_list", "notes_read", "notes_write", "notes_edit", "notes_delete",
    "history_list", "history_read", "history_sessions", "empty_brain")]
# What the engine prints when it refuses or drops a hooks module (research §3.1, §2).
REFUSALS = ("hooks module not loaded", "installed mods are off", "hook skipped", " threw", "timed out",
            "is not an event", "failed to load", "could not load")


def copy_plugin(src: Path, dest: Path) -> None:
    def ignore(folder, names):
        skip = {"bin", "types"} if Path(folder).name in ("claude", ".claude-plugin") else set()
        return [n for n in names if n in skip or n == "__pycache__"]
    shutil.copytree(src, dest, ignore=ignore)


def run(args, disabled: bool = False) -> list[str]:
    """One real run; `disabled` sets NOTESOUP_DISABLED and then requires no notesoup tool."""
    problems = []
    with tempfile.TemporaryDirectory(prefix="nsload-") as tmp:
        tmp = Path(tmp)
        plugin = tmp / "plugin" / "claude"
        copy_plugin(Path(args.plugin).resolve(), plugin)
        home, work = tmp / "home", tmp / "work"
        (home / ".claude").mkdir(parents=True)
        work.mkdir()
        log, port_file = tmp / "requests.jsonl", tmp / "port"
        server = subprocess.Popen([str(Path(args.service).resolve()), "--log", str(log),
                                   "--port-file", str(port_file), "--text", "ok",
                                   "--timeout-secs", str(args.timeout + 30)])
        try:
            for _ in range(100):
                if port_file.exists():
                    break
                time.sleep(0.05)
            else:
                return ["the fake API did not start"]
            port = port_file.read_text().strip()
            env = {
                "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
                "CLAUDE_CONFIG_DIR": str(home / ".claude"), "LANG": "C.UTF-8", "TERM": "dumb",
                "TMPDIR": os.environ.get("TMPDIR", "/tmp"),
                "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
                "ANTHROPIC_API_KEY": "sk-ant-fake-notesoup-load-check-000000",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
                "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1",
                "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL": "1",
                "CLAUDE_CODE_PLUGIN_DIR_WATCH": "1",
                "NOTESOUP_HOME": str(tmp / "notesoup"),
                "HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9",
                "NO_PROXY": "127.0.0.1,localhost",
            }
            if disabled:
                env["NOTESOUP_DISABLED"] = "1"
            if args.helper:
                env["NOTESOUP_HELPER"] = str(Path(args.helper).resolve())
            debug = tmp / "debug.log"
            try:
                proc = subprocess.run(
                    [args.claude, "-p", "ok", "--plugin-dir", str(plugin), "--debug-file", str(debug)],
                    cwd=work, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                    timeout=args.timeout)
            except subprocess.TimeoutExpired:
                return [f"claude -p did not finish within {args.timeout} s"]
        finally:
            server.terminate()
            server.wait()
        dlog = debug.read_text(errors="replace") if debug.exists() else ""
        if proc.returncode != 0:
            problems.append(f"claude -p exited {proc.returncode}: {proc.stderr.strip()[:500]}")
        if proc.stdout.strip() != "ok":
            problems.append(f"stdout is {proc.stdout.strip()[:200]!r}, expected the fake reply 'ok'")
        if "hooks module notesoup@inline loaded" not in dlog:
            problems.append("the debug log never says `hooks module notesoup@inline loaded`")
        for line in (proc.stderr + "\n" + dlog).splitlines():
            if "notesoup" in line and any(r in line for r in REFUSALS):
                problems.append(f"refusal: {line.strip()[:300]}")
        # Model requests only: the service also logs count_tokens, models and unknown paths.
        requests = [r for r in (json.loads(line) for line in log.read_text().splitlines())
                    if r.get("method") == "POST" and str(r.get("path", "")).split("?")[0].endswith("/v1/messages")
                    ] if log.exists() else []
        if not requests:
            problems.append("no API request reached the fake service")
        else:
            names = [t.get("name") for t in requests[0]["body"].get("tools", [])]
            ours = [n for n in names if str(n).startswith("mcp__notesoup__")]
            if disabled:
                if ours:
                    problems.append(f"NOTESOUP_DISABLED is set, yet the first request lists {ours}")
                else:
                    print("load check: with NOTESOUP_DISABLED the mod loads and registers nothing")
                return problems
            body = json.dumps(requests[0]["body"])
            skills = sorted(d.name for d in (Path(args.plugin) / "skills").glob("*") if (d / "SKILL.md").exists())
            unlisted = [f"notesoup:{k}" for k in skills if f"notesoup:{k}" not in body]
            if unlisted:
                problems.append(f"the first API request does not offer the skills {unlisted}")
            elif skills:
                print(f"load check: the first request offers the skills {', '.join('notesoup:' + k for k in skills)}")
            missing = [t for t in TOOLS if t not in names]
            if missing:
                problems.append(f"the first API request lacks {missing}; it lists {names}")
            else:
                print(f"load check: notesoup loaded; the first request lists all {len(TOOLS)} "
                      f"notesoup tools among {len(names)}")
        if args.timings and not disabled:
            print_timings(dlog)
        if args.keep:
            keep = Path(args.keep)
            keep.mkdir(parents=True, exist_ok=True)
            for f in (debug, log):
                if f.exists():
                    shutil.copy(f, keep / f.name)
            (keep / "stdout").write_text(proc.stdout)
            (keep / "stderr").write_text(proc.stderr)
        if args.types_out:
            types = plugin / ".claude-plugin" / "types"
            if not (types / "claude-code" / "index.d.ts").exists():
                problems.append("the engine wrote no .claude-plugin/types/claude-code/index.d.ts")
            else:
                out = Path(args.types_out)
                shutil.rmtree(out, ignore_errors=True)
                shutil.copytree(types, out)
                print(f"load check: the engine's type contract copied to {out}")
    return problems


def print_timings(dlog: str) -> None:
    """The engine's own figures from the debug log: each notesoup hook's settle time (the
    hook's whole dispatch, helper runs and next() included) and each helper run."""
    hooks: dict[str, list[float]] = {}
    for m in re.finditer(r"hooks module notesoup@inline (\S+)(?: stream)? settled in ([0-9.]+)ms", dlog):
        hooks.setdefault(m.group(1), []).append(float(m.group(2)))
    runs = [float(m.group(1)) for m in re.finditer(
        r"\$\.process\.run \(notesoup\): \S+notesoup-helper exited \d+ in ([0-9.]+)ms", dlog)]
    for name, values in sorted(hooks.items()) + [("helper run ($.process.run)", runs)]:
        if values:
            values.sort()
            print(f"timing: {name:32} n={len(values):3} median={values[len(values) // 2]:7.1f} ms "
                  f"max={values[-1]:7.1f} ms")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--claude", required=True, help="the Claude Code 2.1.319 binary")
    ap.add_argument("--service", required=True,
                    help="the e2e crate's notesoup-fake-api binary (the scripted Anthropic service)")
    ap.add_argument("--plugin", default=str(HERE.parent))
    ap.add_argument("--helper", help="notesoup-helper to use (NOTESOUP_HELPER)")
    ap.add_argument("--types-out", help="copy the engine-written .claude-plugin/types here")
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--keep", help="copy the debug log, request log, stdout and stderr here")
    ap.add_argument("--timings", action="store_true",
                    help="print the engine's settle time per notesoup hook and per helper run")
    args = ap.parse_args()
    problems = run(args)
    if not problems:
        args.types_out = args.keep = None
        problems = run(args, disabled=True)
    for p in problems:
        print(f"load check: FAIL: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
