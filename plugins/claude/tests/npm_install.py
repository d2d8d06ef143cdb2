#!/usr/bin/env python3
"""Installing notesoup as a user without Rust does: from an npm registry, through the marketplace.

A real local registry (verdaccio 5 from npm, on 127.0.0.1, no uplinks) receives the packages
`scripts/dist` makes; it is the user's npm default registry (Claude Code refuses an http
registry that is not). Then, with a fresh HOME and a PATH that holds no `cargo`:
  - the real Claude Code 2.1.319 adds this repository's marketplace
    (`.claude-plugin/marketplace.json`, as committed) and installs `notesoup@notesoup`;
    the platform package's `notesoup-helper` must land under the plugin's root;
  - `claude -p ok` against the scripted service (no --plugin-dir: the installed plugin)
    answers, its first model request lists the nine `mcp__notesoup__*` tools and carries
    the boot of window `:0`;
  - with the platform package removed, `claude -p ok` still answers, lists no notesoup
    tool and its transcript says once why (fail open);
  - `npx -y notesoup mcp` from the registry answers `initialize` and `tools/list`;
  - with `--pi-node` and `--pi-cli`, the real Pi 1.6.0 installs `npm:@notesoup/pi` (Pi's own
    `pi install`, which runs npm into its package folder) and `pi -p` against the scripted
    service lists the ten `notesoup_*` tools and carries the boot of window `pi:…:0`: the
    extension found the helper of the platform package npm installed beside it (no
    `NOTESOUP_HELPER`, none on PATH); with that package removed, `pi -p` answers, offers no
    notesoup tool and says why once on stderr (fail open).

    npm_install.py --claude PATH --service PATH [--target-dir DIR] [--keep DIR]
                   [--pi-node NODE --pi-cli CLI_JS]

`--target-dir` names cargo's target folder holding the release `notesoup-helper` and
`notesoup` (`scripts/dist --no-build` packs them). Prints one line per check; exit 1 with
the problems otherwise.
"""

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent.parent
VERDACCIO = "5.33.0"  # 6.x needs Node 22
# The opening marker line of the boot of a session's first window (notesoup-window's format).
BOOT_ZERO = re.compile(r'<notesoup-boot window="claude:[^"]+:0">')
PI_BOOT_ZERO = re.compile(r'<notesoup-boot window="pi:[^"]+:0">')
TOOLS = [f"mcp__notesoup__{n}" for n in (
    "notes_list", "notes_read", "notes_write", "notes_edit", "notes_delete",
    "history_list", "history_read", "history_sessions", "empty_brain")]
PI_TOOLS = [f"notesoup_{n}" for n in (
    "notes_list", "notes_read", "notes_write", "notes_edit", "notes_delete",
    "history_list", "history_read", "history_sessions", "empty_brain", "get_context_remaining")]


def cache_dir() -> Path:
    base = os.environ.get("NOTESOUP_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "notesoup")
    return Path(base)


def get_verdaccio() -> Path:
    """verdaccio from the npm registry, installed once into the cache (whole or not at all)."""
    dest = cache_dir() / f"verdaccio-{VERDACCIO}"
    bin_ = dest / "node_modules" / ".bin" / "verdaccio"
    if not bin_.exists():
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=dest.name + ".tmp.", dir=dest.parent))
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--silent", "--prefix", str(tmp),
                        f"verdaccio@{VERDACCIO}"], check=True)
        shutil.rmtree(dest, ignore_errors=True)
        tmp.rename(dest)
    return bin_


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url: str, seconds: float) -> bool:
    end = time.time() + seconds
    while time.time() < end:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return True
        except OSError:
            time.sleep(0.2)
    return False


def start_registry(tmp: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    storage = tmp / "registry"
    storage.mkdir()
    config = storage / "config.yaml"
    config.write_text(
        f"storage: {storage / 'storage'}\n"
        f"auth:\n  htpasswd:\n    file: {storage / 'htpasswd'}\n"
        "uplinks: {}\n"
        "packages:\n  '**':\n    access: $all\n    publish: $authenticated\n"
        "log: { type: stdout, format: pretty, level: warn }\n")
    proc = subprocess.Popen([str(get_verdaccio()), "--config", str(config), "--listen", f"127.0.0.1:{port}"],
                            stdout=open(storage / "log", "w"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    if not wait_http(url + "-/ping", 60):
        proc.kill()
        sys.exit("npm install check: the local registry did not start")
    return proc, url


def add_user(url: str) -> str:
    body = json.dumps({"name": "ci", "password": "notesoup-ci-password", "type": "user"}).encode()
    req = urllib.request.Request(url + "-/user/org.couchdb.user:ci", data=body, method="PUT",
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.load(resp)["token"]


def user_env(home: Path, registry: str, path: str) -> dict:
    return {
        "PATH": path, "HOME": str(home), "LANG": "C.UTF-8", "TERM": "dumb",
        "TMPDIR": os.environ.get("TMPDIR", "/tmp"),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "npm_config_registry": registry, "npm_config_cache": str(home / ".npm"),
        "npm_config_update_notifier": "false",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL": "1",
        "HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9",
        "NO_PROXY": "127.0.0.1,localhost",
    }


def no_cargo_path() -> str:
    """node and npm's folder plus the system folders: no cargo, no rustc."""
    folders = [str(Path(shutil.which("node")).parent), "/usr/local/bin", "/usr/bin", "/bin"]
    path = os.pathsep.join(dict.fromkeys(folders))
    if shutil.which("cargo", path=path):
        sys.exit(f"npm install check: cargo is on the user's PATH {path}: the check would prove nothing")
    return path


def run(cmd, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL, **kw)


def mcp_session(cmd: list, env: dict, cwd: Path) -> tuple[dict, dict]:
    """`initialize` then `tools/list` over stdio: the two replies."""
    frames = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "npm-install-check", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    # A server that never answers must fail the check, not hang it: killed after 120 s
    # (npx fetches the package first), its stdout then ends.
    watchdog = threading.Timer(120, proc.kill)
    watchdog.start()
    replies = {}
    try:
        for frame in frames:
            proc.stdin.write(json.dumps(frame) + "\n")
            proc.stdin.flush()
            if "id" in frame:
                line = proc.stdout.readline()
                if not line:
                    break
                reply = json.loads(line)
                replies[reply.get("id")] = reply
    finally:
        watchdog.cancel()
        try:
            proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    return replies.get(1, {}), replies.get(2, {})


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fetch", action="store_true",
                    help="only fetch the registry (verdaccio) into the cache, the one step that needs the "
                    "network, then exit (scripts/test runs the check itself offline)")
    ap.add_argument("--claude")
    ap.add_argument("--service", help="notesoup-fake-api, the scripted model service")
    ap.add_argument("--target-dir", help="cargo's target folder with the release binaries")
    ap.add_argument("--keep", help="copy the logs here")
    ap.add_argument("--pi-node", help="Node 22 for the real Pi (scripts/get-pi's first line)")
    ap.add_argument("--pi-cli", help="the real Pi's cli.js (scripts/get-pi's second line)")
    ap.add_argument("--npm-prefix", help="also `npm install notesoup` from the registry into this folder "
                    "(its node_modules/.bin/notesoup is what a user's MCP client runs; scripts/test hands "
                    "it to the real Codex CLI)")
    args = ap.parse_args()
    if args.fetch:
        print(f"npm install check: verdaccio at {get_verdaccio()}")
        return 0
    if not (args.claude and args.service):
        ap.error("--claude and --service are required (unless --fetch)")
    problems = []
    with tempfile.TemporaryDirectory(prefix="nsnpm-") as tmp:
        tmp = Path(tmp)
        registry_proc, registry = start_registry(tmp)
        service = None
        try:
            dist = tmp / "dist"
            cmd = [str(ROOT / "scripts/dist"), "--no-build", "--registry", registry, "--out", str(dist)]
            if args.target_dir:
                cmd += ["--target-dir", args.target_dir]
            subprocess.run(cmd, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)

            problems += check_contents(dist)
            publisher = tmp / "publisher"
            publisher.mkdir()
            host = registry.split("//", 1)[1]
            (publisher / ".npmrc").write_text(f"registry={registry}\n//{host}:_authToken={add_user(registry)}\n")
            penv = dict(os.environ, HOME=str(publisher), npm_config_userconfig=str(publisher / ".npmrc"))
            for tgz in sorted(dist.glob("*.tgz"), key=lambda p: "cli-" not in p.name):
                out = run(["npm", "publish", str(tgz), "--registry", registry], env=penv)
                if out.returncode != 0:
                    sys.exit(f"npm install check: npm publish {tgz.name} failed: {out.stderr[-800:]}")
            print(f"npm install check: {len(list(dist.glob('*.tgz')))} packages published to {registry}")

            home = tmp / "home"
            (home / ".claude").mkdir(parents=True)
            (home / ".npmrc").write_text(f"registry={registry}\n")
            env = user_env(home, registry, no_cargo_path())
            market = tmp / "market"
            (market / ".claude-plugin").mkdir(parents=True)
            shutil.copyfile(ROOT / ".claude-plugin/marketplace.json", market / ".claude-plugin/marketplace.json")
            for step in (["plugin", "marketplace", "add", str(market)],
                         ["plugin", "install", "notesoup@notesoup"]):
                out = run([args.claude, *step], env=env, cwd=tmp, timeout=180)
                if out.returncode != 0:
                    problems.append(f"claude {' '.join(step)} exited {out.returncode}: {(out.stdout + out.stderr)[-800:]}")
                    return report(problems)
            helpers = list((home / ".claude" / "plugins" / "cache").glob(
                "notesoup/notesoup/*/node_modules/@notesoup/cli-*/bin/notesoup-helper"))
            if not helpers:
                problems.append("after `claude plugin install` no node_modules/@notesoup/cli-*/bin/notesoup-helper "
                                "under the plugin's root (the npm-shrinkwrap.json dependency step did not run)")
                return report(problems)
            print(f"npm install check: installed; the helper is {helpers[0].relative_to(home)}")

            work = tmp / "work"
            work.mkdir()
            log, port_file = tmp / "requests.jsonl", tmp / "port"
            service = subprocess.Popen([args.service, "--log", str(log), "--port-file", str(port_file),
                                        "--text", "ok", "--timeout-secs", "300"])
            for _ in range(200):
                if port_file.exists() and port_file.read_text().strip():
                    break
                time.sleep(0.05)
            cenv = dict(env, ANTHROPIC_BASE_URL=f"http://127.0.0.1:{port_file.read_text().strip()}",
                        ANTHROPIC_API_KEY="sk-ant-fake-notesoup-npm-check-000000",
                        NOTESOUP_HOME=str(tmp / "notesoup"))
            debug = tmp / "debug.log"
            out = run([args.claude, "-p", "ok", "--debug-file", str(debug)], env=cenv, cwd=work, timeout=180)
            if out.returncode != 0 or out.stdout.strip() != "ok":
                problems.append(f"claude -p ok exited {out.returncode} with {out.stdout.strip()[:200]!r}: {out.stderr[-500:]}")
            requests = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
            requests = [r for r in requests if r.get("method") == "POST"
                        and str(r.get("path", "")).split("?")[0].endswith("/v1/messages")]
            if not requests:
                problems.append("no model request reached the scripted service")
            else:
                body = requests[0]["body"]
                names = [t.get("name") for t in body.get("tools", [])]
                missing = [t for t in TOOLS if t not in names]
                if missing:
                    problems.append(f"the first model request lacks {missing}")
                booted = BOOT_ZERO.search(json.dumps(body).replace('\\"', '"'))
                if not booted:
                    problems.append("the first model request carries no boot of window :0 (the helper did not run)")
                if not missing and booted:
                    print("npm install check: claude -p with the installed plugin lists the nine tools and boots :0")

            if args.pi_node and args.pi_cli:
                problems += pi_install(Path(args.pi_node), Path(args.pi_cli), env,
                                       f"http://127.0.0.1:{port_file.read_text().strip()}", log, tmp)

            problems += fail_open(args.claude, cenv, helpers[0], log, tmp)

            if args.npm_prefix:
                prefix = Path(args.npm_prefix).resolve()
                shutil.rmtree(prefix, ignore_errors=True)
                prefix.mkdir(parents=True)
                out = run(["npm", "install", "--no-audit", "--no-fund", "--prefix", str(prefix), "notesoup"],
                          env=env, cwd=prefix, timeout=180)
                launcher = prefix / "node_modules" / ".bin" / "notesoup"
                version = run([str(launcher), "--version"], env=env, timeout=60) if launcher.exists() else None
                if out.returncode != 0 or version is None or version.returncode != 0:
                    problems.append(f"npm install notesoup into {prefix}: {out.stderr[-400:]}"
                                    f"{'' if version is None else version.stderr[-200:]}")
                else:
                    print(f"npm install check: npm install notesoup gives {launcher} ({version.stdout.strip()})")

            npx_dir = tmp / "npx-project"
            npx_dir.mkdir()
            nenv = dict(env, NOTESOUP_HOME=str(tmp / "notesoup"))
            init, listed = mcp_session(["npx", "-y", "notesoup", "mcp"], nenv, npx_dir)
            server = init.get("result", {}).get("serverInfo", {}).get("name")
            tools = [t.get("name") for t in listed.get("result", {}).get("tools", [])]
            if not server or "notes_write" not in tools or "history_list" not in tools:
                problems.append(f"npx -y notesoup mcp: initialize gave {init!r:.300}, tools/list gave {tools}")
            else:
                print(f"npm install check: npx -y notesoup mcp answers initialize ({server}) and lists {len(tools)} tools")
        finally:
            if service:
                service.terminate()
                service.wait()
            registry_proc.terminate()
            registry_proc.wait()
            if args.keep:
                keep = Path(args.keep)
                keep.mkdir(parents=True, exist_ok=True)
                for f in (tmp / "debug.log", tmp / "requests.jsonl", tmp / "registry" / "log"):
                    if f.exists():
                        shutil.copy(f, keep / f.name)
    return report(problems)


def pi_install(node: Path, cli: Path, env: dict, service: str, log: Path, tmp: Path) -> list:
    """`pi install npm:@notesoup/pi` from the registry, then `pi -p` with what it installed."""
    home = tmp / "pi-home"
    agent = home / ".pi" / "agent"
    agent.mkdir(parents=True)
    (agent / "models.json").write_text(json.dumps({"providers": {"anthropic": {"baseUrl": service}}}))
    (agent / "settings.json").write_text(json.dumps({
        "defaultProvider": "anthropic", "defaultModel": "claude-sonnet-4-5", "defaultThinkingLevel": "off",
        "quietStartup": True, "enableInstallTelemetry": False, "collapseChangelog": True}))
    (home / ".npmrc").write_text((Path(env["HOME"]) / ".npmrc").read_text())
    penv = dict(env, HOME=str(home), PATH=os.pathsep.join([str(node.parent), env["PATH"]]),
                npm_config_cache=str(home / ".npm"), PI_SKIP_VERSION_CHECK="1", PI_TELEMETRY="0",
                ANTHROPIC_API_KEY="sk-ant-fake-notesoup-npm-check-000000",
                NOTESOUP_HOME=str(tmp / "notesoup-pi"))
    penv.pop("NOTESOUP_HELPER", None)
    if shutil.which("notesoup-helper", path=penv["PATH"]):
        return [f"notesoup-helper is on the Pi user's PATH {penv['PATH']}: the check would prove nothing"]
    out = run([str(node), str(cli), "install", "npm:@notesoup/pi"], env=penv, cwd=tmp, timeout=300)
    if out.returncode != 0:
        return [f"pi install npm:@notesoup/pi exited {out.returncode}: {(out.stdout + out.stderr)[-800:]}"]
    helpers = list(agent.glob("**/node_modules/@notesoup/cli-*/bin/notesoup-helper"))
    if not helpers:
        return ["after `pi install npm:@notesoup/pi` no node_modules/@notesoup/cli-*/bin/notesoup-helper "
                f"under {agent} (npm skipped the platform package)"]
    print(f"npm install check: pi install npm:@notesoup/pi; the helper is {helpers[0].relative_to(home)}")
    work = tmp / "pi-work"
    work.mkdir()
    before = len(log.read_text().splitlines()) if log.exists() else 0
    out = run([str(node), str(cli), "-p", "hello"], env=dict(penv, PI_OFFLINE="1"), cwd=work, timeout=180)
    requests = [json.loads(line) for line in log.read_text().splitlines()[before:]] if log.exists() else []
    requests = [r for r in requests if r.get("method") == "POST"
                and str(r.get("path", "")).split("?")[0].endswith("/v1/messages")]
    if out.returncode != 0 or not requests:
        return [f"pi -p hello with the installed package exited {out.returncode} after {len(requests)} model "
                f"requests: {(out.stdout + out.stderr)[-800:]}"]
    body = requests[0]["body"]
    names = [t.get("name") for t in body.get("tools", [])]
    missing = [t for t in PI_TOOLS if t not in names]
    problems = [f"pi's first model request lacks {missing}"] if missing else []
    if not PI_BOOT_ZERO.search(json.dumps(body).replace('\\"', '"')):
        problems.append(f"pi's first model request carries no boot of window pi:…:0 (stderr: {out.stderr[-400:]!r})")
    if not problems:
        print("npm install check: pi -p with the installed package lists the ten tools and boots pi:…:0")
    # `notesoup doctor` (the binary the same install brought) finds the extension in Pi's npm
    # folder and runs the helper it runs.
    wrapper = tmp / "pi-bin" / "pi"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\nexec "{node}" "{cli}" "$@"\n')
    wrapper.chmod(0o755)
    doctor = run([str(helpers[0].parent / "notesoup"), "doctor", "--json"], env=dict(penv, PI=str(wrapper)),
                 cwd=work, timeout=120)
    try:
        rows = {c["check"]: c for c in json.loads(doctor.stdout)["checks"] if c["check"] in ("pi", "pi-helper")}
    except (ValueError, KeyError, TypeError):
        rows = {}
    if [rows.get(k, {}).get("status") for k in ("pi", "pi-helper")] != ["ok", "ok"]:
        problems.append(f"notesoup doctor after pi install: {rows or doctor.stdout[-400:]} {doctor.stderr[-300:]}")
    else:
        print(f"npm install check: notesoup doctor finds the Pi extension and its helper ({rows['pi-helper']['message']})")
    # Fail open, as in Claude Code: with the platform package gone, Pi runs as if notesoup
    # were absent (no notesoup tool offered) and says why once.
    shutil.rmtree(helpers[0].parent.parent)
    before = len(log.read_text().splitlines())
    out = run([str(node), str(cli), "-p", "hello"], env=dict(penv, PI_OFFLINE="1"), cwd=work, timeout=180)
    requests = [json.loads(line) for line in log.read_text().splitlines()[before:]]
    requests = [r for r in requests if r.get("method") == "POST"
                and str(r.get("path", "")).split("?")[0].endswith("/v1/messages")]
    ours = [t.get("name") for r in requests[:1] for t in r["body"].get("tools", [])
            if str(t.get("name", "")).startswith("notesoup_")]
    said = out.stderr.count("notesoup is off for this session")
    if out.returncode != 0 or not requests or ours or said != 1:
        problems.append(f"pi without its helper: exit {out.returncode}, {len(requests)} requests, notesoup tools "
                        f"offered {ours}, the line saying why {said} times (expected once): {out.stderr[-400:]!r}")
    else:
        print("npm install check: without its helper Pi runs as if notesoup were absent, and says why once")
    return problems


def fail_open(claude: str, env: dict, helper: Path, log: Path, tmp: Path) -> list:
    """The install with its platform package gone (npm skipped it, or a foreign machine's):
    Claude Code runs as if notesoup were absent, and the transcript says once why, with the fix."""
    shutil.rmtree(helper.parent.parent)
    work = tmp / "work-no-helper"
    work.mkdir()
    before = len(log.read_text().splitlines()) if log.exists() else 0
    debug = tmp / "debug-no-helper.log"
    out = run([claude, "-p", "ok", "--debug-file", str(debug)], env=env, cwd=work, timeout=180)
    problems = []
    if out.returncode != 0 or out.stdout.strip() != "ok":
        problems.append(f"without its helper, claude -p exited {out.returncode} with {out.stdout.strip()[:200]!r}")
    requests = [json.loads(line) for line in log.read_text().splitlines()[before:]]
    requests = [r for r in requests if r.get("method") == "POST"
                and str(r.get("path", "")).split("?")[0].endswith("/v1/messages")]
    ours = [t.get("name") for r in requests[:1] for t in r["body"].get("tools", [])
            if str(t.get("name", "")).startswith("mcp__notesoup__")]
    if ours:
        problems.append(f"without its helper, the first request still lists {ours}")
    # A `$.ui.log` line to the transcript sink: the debug log writes it as `$.ui.log: <text>`
    # (a line to the debug sink alone is `$.ui.log (to debug): ...`).
    text = debug.read_text(errors="replace") if debug.exists() else ""
    said = text.count("$.ui.log: notesoup is off for this session")
    if said != 1:
        problems.append(f"without its helper, the transcript line saying why came {said} times, expected once "
                        f"(stderr: {out.stderr[-300:]!r}; the debug log's lines: {notesoup_lines(debug)})")
    if not problems:
        print("npm install check: without its helper Claude Code runs as if notesoup were absent, "
              "and the transcript says why once")
    return problems


def notesoup_lines(debug: Path) -> list:
    text = debug.read_text(errors="replace") if debug.exists() else ""
    return [line[:400] for line in text.splitlines() if "is off" in line or "ui.log" in line][:10]


def expected_plugin_files() -> set:
    """What the plugin package must hold: the manifest, the hooks module, every skill and the
    playbook as they are in plugins/claude, its README, package.json and the shrinkwrap."""
    src = ROOT / "plugins/claude"
    files = {".claude-plugin/plugin.json", "README.md", "package.json", "npm-shrinkwrap.json",
             "LICENSE-MIT", "LICENSE-APACHE"}
    for folder in ("hooks", "skills", "playbook"):
        files |= {str(f.relative_to(src)) for f in (src / folder).rglob("*")
                  if f.is_file() and "__pycache__" not in f.parts}
    return files


def check_contents(dist: Path) -> list:
    """The packed tarballs against the lists above: nothing missing, nothing extra."""
    import tarfile
    problems = []
    want = {
        "claude-plugin": expected_plugin_files(),
        "notesoup-pi-": {"package.json", "index.ts", "spec.ts", "README.md", "LICENSE-MIT", "LICENSE-APACHE"},
        "cli-": {"package.json", "README.md", "bin/notesoup-helper", "bin/notesoup", "LICENSE-MIT", "LICENSE-APACHE"},
    }
    for tgz in dist.glob("*.tgz"):
        for key, expected in want.items():
            if key in tgz.name:
                with tarfile.open(tgz) as tar:
                    got = {m.name.removeprefix("package/") for m in tar.getmembers() if m.isfile()}
                if got != expected:
                    problems.append(f"{tgz.name}: missing {sorted(expected - got)}, extra {sorted(got - expected)}")
                else:
                    print(f"npm install check: {tgz.name} holds exactly its {len(got)} files")
        if re.fullmatch(r"notesoup-\d.*\.tgz", tgz.name):
            with tarfile.open(tgz) as tar:
                readme = tar.extractfile("package/README.md").read().decode()
            # What `npm view notesoup readme` shows: the user's install, not the checkout's.
            if "## Install (no Rust needed)" not in readme or "scripts/test" in readme:
                problems.append(f"{tgz.name}: its README is not the user's (install section kept, developers' set-up left out)")
    return problems


def report(problems: list) -> int:
    for p in problems:
        print(f"npm install check: FAIL {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
