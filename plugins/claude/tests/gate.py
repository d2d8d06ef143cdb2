#!/usr/bin/env python3
"""The scanner gate over the hooks module: three call shapes Claude Code 2.1.319 punishes.

1. `$.session.compact(...)`: it always rejects headless (-p / SDK) and rejects under a
   running turn; the mod compacts through the command path (`$.command.run`) instead.
2. A `session.compact` hook that returns `{skip}` after it called `next()`: the core
   compaction has already run by then, so the veto would throw away a finished summary.
   Vetoes must come first. The hook may not hand `next` to another function either,
   since the gate could not follow it there.
3. `$.command.run(...)` reachable from a hook the turn or the session start waits on: it
   rejects there. The only hook it may be reached from is `turn.complete`; anything else
   reaches it through a timer (`$.clock.after` / `$.clock.every`), the non-held waiter.
4. More than four module-level `let`/`var` declarations in a file (a line starting with
   `let ` or `var `): the window state is the helper's, on disk; the module keeps caches
   only, so a second state machine cannot grow back beside the reset flow.

The scan is lexical on purpose (the module is small and written to be scanned): comments
are dropped, string contents are neutralised, top-level declarations are the units of a
call graph (the validator already requires `$` to be passed only to top-level functions),
and a hook is the function given to `on(<event>, ...)`. The arguments of `$.clock.after`
and `$.clock.every` are cut out of the calling body: what a timer runs is not held.

    gate.py HOOKS_DIR_OR_FILE...      exit 0 when clean, 1 with one line per finding
"""

import re
import sys
from pathlib import Path

SUFFIXES = (".ts", ".tsx", ".js", ".mjs", ".cjs", ".jsx", ".mts", ".cts")
FREE_EVENTS = {"turn.complete"}  # hooks the turn and the session start do not wait on
CLOCK = re.compile(r"\$\s*\.\s*clock\s*\.\s*(?:after|every)\s*\(")
COMPACT = re.compile(r"\$\s*\.\s*session\s*\.\s*compact\s*\(")
COMMAND_RUN = re.compile(r"\$\s*\.\s*command\s*\.\s*run\s*\(")
SKIP = re.compile(r"\bskip\s*[:,}]")
NEXT_CALL = re.compile(r"\bnext\s*(?:\.\s*to\s*)?\(")
RETURNED = re.compile(r"\breturn\s+(?:await\s+)?(?:yield\s*\*\s*)?$")
NEXT_PASSED = re.compile(r"[(,]\s*next\s*[,)]")
CALL = re.compile(r"\b([A-Za-z_$][\w$]*)\s*\(")
ON = re.compile(r"\bon\s*\(\s*(['\"`])([^'\"`]*)\1")
DECL = re.compile(r"^(?:export\s+)?(?:default\s+)?(?:async\s+)?"
                  r"(?:function\s*\*?\s*([A-Za-z_$][\w$]*)|(?:const|let|var)\s+([A-Za-z_$][\w$]*))")


def neutralise(src: str, keep_strings: bool = False) -> str:
    """Blanks comments and the text of string literals, keeping every offset.

    With keep_strings the words of a string stay (its brackets, quotes and `;` do not), so
    `on('event'` can be read. A template literal's `${...}` stays code.
    """
    blank = blank_words if keep_strings else blank_all
    out, i, n = [], 0, len(src)
    stack = []  # open template literals: brace depth at which each `${` began
    depth = 0
    while i < n:
        c = src[i]
        nxt = src[i + 1] if i + 1 < n else ""
        if stack and c == "}" and depth == stack[-1]:
            stack.pop()
            out.append(" ")
            i = scan_template(src, i + 1, out, stack, depth, blank)
            continue
        if c == "/" and nxt == "/":
            while i < n and src[i] != "\n":
                out.append(" ")
                i += 1
            continue
        if c == "/" and nxt == "*":
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join("\n" if ch == "\n" else " " for ch in src[i:j]))
            i = j
            continue
        if c in "'\"":
            j = i + 1
            while j < n and src[j] != c and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            out.append(c + blank(src[i + 1:j]) + src[j:j + 1])
            i = j + 1
            continue
        if c == "`":
            out.append("`")
            i = scan_template(src, i + 1, out, stack, depth, blank)
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        out.append(c)
        i += 1
    return "".join(out)


def scan_template(src, i, out, stack, depth, blank):
    """Copies a template literal's text (blanked) up to its end or to a `${`, from i."""
    n = len(src)
    j = i
    while j < n:
        if src[j] == "\\":
            j += 2
            continue
        if src[j] == "`":
            out.append(blank(src[i:j]) + "`")
            return j + 1
        if src[j] == "$" and j + 1 < n and src[j + 1] == "{":
            out.append(blank(src[i:j]) + "  ")
            stack.append(depth)
            return j + 2
        j += 1
    out.append(blank(src[i:]))
    return n


def blank_words(text: str) -> str:
    return re.sub(r"[(){}\[\];'\"`\\$]", " ", text)


def blank_all(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


def closing(code: str, open_at: int) -> int:
    """The index of the bracket closing the one at open_at (or len(code))."""
    pairs = {"(": ")", "{": "}", "[": "]"}
    stack = [pairs[code[open_at]]]
    for k in range(open_at + 1, len(code)):
        ch = code[k]
        if ch in pairs:
            stack.append(pairs[ch])
        elif ch in ")}]":
            if not stack or ch != stack[-1]:
                return len(code)
            stack.pop()
            if not stack:
                return k
    return len(code)


def split_args(text: str) -> list[str]:
    args, depth, start = [], 0, 0
    for k, ch in enumerate(text):
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        elif ch == "," and depth == 0:
            args.append(text[start:k])
            start = k + 1
    args.append(text[start:])
    return [a.strip() for a in args if a.strip()]


def cut_clock_callbacks(body: str) -> tuple[str, list[str]]:
    """Removes the arguments of `$.clock.after/every(...)` from body; returns them apart."""
    cut, kept, pos = [], [], 0
    for m in CLOCK.finditer(body):
        if m.start() < pos:
            continue
        end = closing(body, m.end() - 1)
        kept.append(body[pos:m.end()])
        cut.append(body[m.end():end])
        pos = end
    kept.append(body[pos:])
    return "".join(kept), cut


class Module:
    def __init__(self, files: list[Path]):
        self.units: dict[str, tuple[str, str]] = {}  # name -> (file, code)
        self.hooks: list[tuple[str, str, str]] = []  # (event, where, code of the hook)
        self.timers: list[str] = []  # code a timer runs
        self.codes: list[tuple[Path, str]] = []
        words: list[str] = []
        for f in files:
            src = f.read_text(encoding="utf-8")
            code = neutralise(src)
            self.codes.append((f, code))
            words.append(neutralise(src, keep_strings=True))
            for name, unit in top_level_units(code):
                self.units[name] = (f.name, unit)
        for (f, code), text in zip(self.codes, words):
            for m in ON.finditer(text):
                paren = code.index("(", m.start())
                args = split_args(code[paren + 1:closing(code, paren)])
                hook = args[-1] if args else ""
                self.hooks.append((m.group(2), f"{f.name}: on('{m.group(2)}')", hook))
            self.timers += cut_clock_callbacks(code)[1]

    def body(self, code: str) -> str:
        """A hook given by name is that unit's code; an inline hook is its own text."""
        name = code.strip()
        if re.fullmatch(r"[A-Za-z_$][\w$]*", name) and name in self.units:
            return self.units[name][1]
        return code

    def reach(self, code: str) -> dict[str, str]:
        """Every top-level unit called from code, transitively: name -> how it was reached."""
        seen: dict[str, str] = {}
        todo = [(code, "")]
        while todo:
            text, via = todo.pop()
            held, _ = cut_clock_callbacks(text)
            for m in CALL.finditer(held):
                name = m.group(1)
                if name in self.units and name not in seen:
                    seen[name] = f"{via} -> {name}" if via else name
                    todo.append((self.units[name][1], seen[name]))
        return seen


def top_level_units(code: str):
    """(name, code) for each top-level declaration: a line at column 0 at brace depth 0."""
    starts, depth = [], 0
    line_start = True
    for k, ch in enumerate(code):
        if line_start and depth == 0 and ch not in " \t\n})]":
            starts.append(k)
        line_start = ch == "\n"
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
    starts.append(len(code))
    for a, b in zip(starts, starts[1:]):
        m = DECL.match(code[a:b])
        if m:
            yield m.group(1) or m.group(2), code[a:b]


def body_start(fn: str) -> int:
    """Where a function's body begins: past its parameter list (so `next` there is no call)."""
    arrow = fn.find("=>")
    keyword = re.search(r"\bfunction\b", fn)
    if keyword and (arrow < 0 or keyword.start() < arrow):
        paren = fn.find("(", keyword.end())
        return closing(fn, paren) + 1 if paren >= 0 else 0
    return arrow + 2 if arrow >= 0 else 0


def after_next(body: str) -> list[str]:
    """The code that can run after a next() call returned, one piece per call site.

    `return next(e)` (also with `await` or `yield*`) ends its path: only the rest of that
    return statement runs after it. Any other call lets the rest of the body run.
    """
    pieces = []
    for m in NEXT_CALL.finditer(body):
        end = closing(body, m.end() - 1) + 1
        before = body[:m.start()]
        if RETURNED.search(before):
            stop = re.search(r"[;\n]", body[end:])
            pieces.append(body[end:end + stop.start()] if stop else body[end:])
        else:
            pieces.append(body[end:])
            break
    return pieces


def event_matches(pattern: str, event: str) -> bool:
    if pattern.startswith("!"):
        return not event_matches(pattern[1:], event)
    if pattern == "*":
        return True
    if pattern.endswith(".*"):
        return event.startswith(pattern[:-1])
    return pattern == event


MAX_LETS = 4
LET = re.compile(r"^(let|var) ", re.MULTILINE)


def scan(files: list[Path]) -> list[str]:
    mod = Module(files)
    findings = []
    for f, code in mod.codes:
        lets = LET.findall(code)
        if len(lets) > MAX_LETS:
            findings.append(f"{f.name}: {len(lets)} module-level `let`/`var` declarations, at most "
                            f"{MAX_LETS} (caches only: the window state is the helper's)")
    for f, code in mod.codes:
        for m in COMPACT.finditer(code):
            line = code.count("\n", 0, m.start()) + 1
            findings.append(f"{f.name}:{line}: $.session.compact(...) is forbidden "
                            "(it rejects headless and under a turn); use the command path")
    for event, where, hook in mod.hooks:
        body = mod.body(hook)
        if event_matches(event, "session.compact"):
            if NEXT_PASSED.search(body[body_start(body):]):
                findings.append(f"{where}: the session.compact hook hands `next` to another "
                                "function; call next() in the hook itself")
            for after in after_next(body):
                spots = [("the hook", after)] + [
                    (how, mod.units[name][1]) for name, how in mod.reach(after).items()]
                for how, text in spots:
                    if SKIP.search(text):
                        findings.append(f"{where}: returns {{skip}} after next() was called "
                                        f"(in {how}); veto before calling next()")
                        break
        if event in FREE_EVENTS:
            continue
        held, _ = cut_clock_callbacks(body)
        if COMMAND_RUN.search(held):
            findings.append(f"{where}: calls $.command.run(...) in a hook the turn or the "
                            "session start waits on; run it from a timer or turn.complete")
        for name, how in mod.reach(held).items():
            if COMMAND_RUN.search(cut_clock_callbacks(mod.units[name][1])[0]):
                findings.append(f"{where}: reaches $.command.run(...) through {how}, in a hook "
                                "the turn or the session start waits on")
    return findings


def collect(paths: list[str]) -> list[Path]:
    files = []
    for p in map(Path, paths):
        if p.is_dir():
            files += sorted(f for f in p.rglob("*") if f.suffix in SUFFIXES
                            and not f.name.endswith(".d.ts") and ".test." not in f.name)
        else:
            files.append(p)
    return files


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    files = collect(argv)
    if not files:
        print(f"gate: no hooks module files under {argv}", file=sys.stderr)
        return 2
    findings = scan(files)
    for f in findings:
        print(f"gate: {f}", file=sys.stderr)
    if not findings:
        print(f"gate: {len(files)} file(s) clean: no $.session.compact, no skip after next() "
              "in session.compact, no $.command.run under a held hook, at most 4 module-level lets")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
