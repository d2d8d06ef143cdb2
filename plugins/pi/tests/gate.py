#!/usr/bin/env python3
"""The scanner gate over the Pi extension: it stays a pipe that keeps caches only.

1. At most one module-level `let`/`var` (a line starting with `let ` or `var `): the window
   state is the helper's, on disk per session; the extension caches what this process did,
   so a second state machine cannot grow beside the reset flow.
2. No file writes (`writeFile`, `appendFile`, `mkdir`, `rm`, `unlink`, `rename`, `copyFile`,
   `createWriteStream`, with or without `Sync`) and no session entries of its own
   (`appendEntry`, `setLabel`): what the extension knows lives in the helper's records.
3. The helper is asked only through `pi_hook` and `tool` (`helper("<op>", ...)`): one request
   per Pi event or tool call, the texts filled by the helper, never a second call to fill one.

Comments and string contents are blanked first (the Claude gate's `neutralise`), except the
op names of rule 3, which are read from the code as written.

    gate.py EXTENSION_DIR_OR_FILE...      exit 0 when clean, 1 with one line per finding
"""

import importlib.util
import re
import sys
from pathlib import Path

# The one lexer of both gates: the Claude gate's, loaded by its path (both files are gate.py).
_spec = importlib.util.spec_from_file_location(
    "claude_gate", Path(__file__).resolve().parents[2] / "claude" / "tests" / "gate.py"
)
_claude_gate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_claude_gate)
neutralise = _claude_gate.neutralise

SUFFIXES = (".ts", ".mts", ".js", ".mjs")
MAX_LETS = 1
WRITES = re.compile(
    r"\b(?:writeFile|appendFile|mkdir|rm|rmdir|unlink|rename|copyFile|createWriteStream|truncate)(?:Sync)?\s*\("
)
ENTRIES = re.compile(r"\.\s*(?:appendEntry|setLabel)\s*\(")
HELPER_OP = re.compile(r"\bhelper\s*\(\s*(['\"`])([^'\"`]*)\1")
HELPER_ANY = re.compile(r"\bhelper\s*\(")
OPS = {"pi_hook", "tool"}


def findings(path: Path) -> list[str]:
    src = path.read_text()
    code = neutralise(src)
    out = []
    lets = [n for n, line in enumerate(code.splitlines(), 1) if re.match(r"(?:let|var)\s", line)]
    if len(lets) > MAX_LETS:
        out.append(f"{path}:{lets[MAX_LETS]}: more than {MAX_LETS} module-level let/var: keep caches in the one `shell` object")
    for pattern, why in ((WRITES, "writes a file"), (ENTRIES, "writes its own session entries")):
        for m in pattern.finditer(code):
            line = code.count("\n", 0, m.start()) + 1
            out.append(f"{path}:{line}: {why} ({m.group(0).strip()}): the state is the helper's")
    for m in HELPER_ANY.finditer(code):
        if code[:m.start()].rstrip().endswith("function"):
            continue  # the definition
        line = code.count("\n", 0, m.start()) + 1
        op = HELPER_OP.match(src, m.start())
        if op is None:
            out.append(f"{path}:{line}: helper called with an op that is not written out")
        elif op.group(2) not in OPS:
            out.append(f"{path}:{line}: helper op {op.group(2)!r}: only pi_hook and tool are asked")
    return out


def main(argv: list[str]) -> int:
    files = []
    for arg in argv:
        p = Path(arg)
        files += sorted(f for f in p.rglob("*") if f.suffix in SUFFIXES and "tests" not in f.parts) if p.is_dir() else [p]
    found = [f for path in files for f in findings(path)]
    for f in found:
        print(f)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
