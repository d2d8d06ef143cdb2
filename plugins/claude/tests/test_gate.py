#!/usr/bin/env python3
"""Regression tests for gate.py: each forbidden shape, put back into a copy of the real
hooks module, must make the gate fail; the real module and the allowed shapes must pass.

    python3 -m unittest discover -s plugins/claude/tests -p 'test_*.py'
"""

import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
HOOKS = HERE.parent / "hooks"
MAIN = "notesoup.ts"
REGISTER = "export const register: Register = (on) => {"

# name -> (top-level code appended to the module, lines added to register(), must fail?)
CASES = {
    # 1. $.session.compact(...)
    "compact in a hook": (
        "const late: Hook<'turn.complete'> = async ($, e, next) => {\n"
        "  const r = await next(e);\n  await $.session.compact({ instructions: 'x' });\n  return r;\n};\n",
        "on('turn.complete', late);", True),
    "compact in a helper": (
        "async function squeeze($: EngineInterface) {\n  return $.session.compact();\n}\n",
        "", True),
    "compact spaced out": (
        "async function squeeze($: EngineInterface) {\n  return $ . session\n    .compact ( );\n}\n",
        "", True),
    # 2. {skip} after next() in session.compact
    "skip after next": (
        "const onCompact2: Hook<'session.compact'> = async ($, e, next) => {\n"
        "  const r = await next(e);\n  if (!r) return { skip: 'too late' };\n  return r;\n};\n",
        "on('session.compact', onCompact2);", True),
    "skip after next, inline hook": (
        "", "on('session.compact', async ($, e, next) => { const r = await next(e); "
        "return r.messages ? r : { skip: 'late' } });", True),
    "skip after next, in a helper": (
        "function settle(r: unknown) {\n  return { skip: `late ${String(r)}` };\n}\n"
        "const onCompact2: Hook<'session.compact'> = async ($, e, next) => {\n"
        "  const r = await next(e);\n  return settle(r);\n};\n",
        "on('session.compact', onCompact2);", True),
    "skip after next.to": (
        "const onCompact2: Hook<'session.compact'> = async ($, e, next) => {\n"
        "  await next.to(e, 'core');\n  const skip = 'x';\n  return { skip };\n};\n",
        "on('session.compact', onCompact2);", True),
    "next handed to a helper": (
        "async function decide($: EngineInterface, e: unknown, next: unknown) {\n  return { skip: 'x' };\n}\n"
        "const onCompact2: Hook<'session.compact'> = async ($, e, next) => decide($, e, next);\n",
        "on('session.compact', onCompact2);", True),
    "skip after next under a wildcard": (
        "const all: AnyEventHook = async ($, e, next) => {\n  await next(e);\n  return { skip: 'x' };\n};\n",
        "on('session.*', all);", True),
    "skip chained on a returned next": (
        "const onCompact2: Hook<'session.compact'> = async ($, e, next) => {\n"
        "  return next(e).then(() => ({ skip: 'late' }));\n};\n",
        "on('session.compact', onCompact2);", True),
    "skip after a returned next, then a called one": (
        "const onCompact2: Hook<'session.compact'> = async ($, e, next) => {\n"
        "  if (e.agentId) return next(e);\n  const r = await next(e);\n  return r.messages ? r : { skip: 'x' };\n};\n",
        "on('session.compact', onCompact2);", True),
    "veto after a returned pass-through (allowed)": (
        "const onCompact2: Hook<'session.compact'> = async ($, e, next) => {\n"
        "  if (e.agentId !== undefined) return next(e);\n  if (e.trigger === 'manual') return { skip: 'vetoed' };\n"
        "  return await next(e);\n};\n",
        "on('session.compact', onCompact2);", False),
    "veto before next (allowed)": (
        "const onCompact2: Hook<'session.compact'> = async ($, e, next) => {\n"
        "  if (e.trigger === 'manual') return { skip: 'notesoup: vetoed' };\n  return next(e);\n};\n",
        "on('session.compact', onCompact2);", False),
    # 3. $.command.run reachable from a held hook
    "command.run in session.start": (
        "", "on('session.start', async ($, e, next) => { await $.command.run({ command: 'compact' }); "
        "return next(e) });", True),
    "command.run two calls below prompt.submit": (
        "async function worker($: EngineInterface) {\n  await $.command.run({ command: 'compact', args: 'm' });\n}\n"
        "async function middle($: EngineInterface) {\n  await worker($);\n}\n"
        "const onSubmit: Hook<'prompt.submit'> = async ($, e, next) => {\n  await middle($);\n  return next(e);\n};\n",
        "on('prompt.submit', onSubmit);", True),
    "command.run from tool.call": (
        "async function compactNow($: EngineInterface) {\n  return $.command.run({ command: 'compact' });\n}\n"
        "const onAnyTool: Hook<'tool.call'> = async ($, e, next) => {\n  void compactNow($);\n  return next(e);\n};\n",
        "on('tool.call', onAnyTool);", True),
    "command.run under a wildcard": (
        "async function compactNow($: EngineInterface) {\n  return $.command.run({ command: 'compact' });\n}\n"
        "const all: AnyEventHook = async ($, e, next) => {\n  await compactNow($);\n  return next(e);\n};\n",
        "on('*', all);", True),
    "command.run in a timer armed at session.start (allowed)": (
        "async function waiter($: EngineInterface) {\n  await $.command.run({ command: 'compact' });\n}\n"
        "const onStart2: Hook<'session.start'> = async ($, e, next) => {\n"
        "  $.clock.after(0, () => { void waiter($); });\n  return next(e);\n};\n",
        "on('session.start', onStart2);", False),
    "command.run from turn.complete (allowed)": (
        "async function compactNow($: EngineInterface) {\n  return $.command.run({ command: 'compact' });\n}\n"
        "const done: Hook<'turn.complete'> = async ($, e, next) => {\n  const r = await next(e);\n"
        "  void compactNow($);\n  return r;\n};\n",
        "on('turn.complete', done);", False),
    # 4. a fifth module-level let (a second state machine growing back)
    "a fifth module-level let": ("let mainTurn: string | undefined;\n", "", True),
    "a module-level var": ("var stepped = false;\n", "", True),
    "a let inside a function (allowed)": (
        "function count(xs: number[]) {\n  let n = 0;\n  for (const x of xs) n += x;\n  return n;\n}\n", "", False),
    "forbidden words in strings and comments (allowed)": (
        "// $.session.compact() and $.command.run() are mentioned here only\n"
        "const WORDS = '$.session.compact( $.command.run( { skip: 1 }';\n"
        "const onCompact2: Hook<'session.compact'> = async ($, e, next) => {\n"
        "  const r = await next(e);\n  $.ui.log(`after next: ${WORDS} { skip: 'x' }`);\n  return r;\n};\n",
        "on('session.compact', onCompact2);", False),
}


def gate(hooks: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(HERE / "gate.py"), str(hooks)],
                          capture_output=True, text=True)


class GateTest(unittest.TestCase):
    def test_the_real_module_passes(self):
        r = gate(HOOKS)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_each_shape(self):
        for name, (code, registration, must_fail) in CASES.items():
            with self.subTest(name), tempfile.TemporaryDirectory() as tmp:
                hooks = Path(tmp) / "hooks"
                shutil.copytree(HOOKS, hooks)
                main = hooks / MAIN
                src = main.read_text()
                self.assertIn(REGISTER, src, "the module's register line moved; update REGISTER")
                src = src.replace(REGISTER, f"{REGISTER}\n  {registration}") + "\n" + code
                main.write_text(src)
                r = gate(hooks)
                if must_fail:
                    self.assertEqual(r.returncode, 1, f"the gate let this through:\n{code}{registration}")
                    self.assertIn("gate: ", r.stderr)
                else:
                    self.assertEqual(r.returncode, 0, f"the gate refused an allowed shape: {r.stderr}")


class LetsTest(unittest.TestCase):
    def test_the_module_before_the_hook_op_fails(self):
        # The module as it was before issue 11's pipe (19 module-level lets) is refused.
        old = subprocess.run(["git", "show", "2a76c09:plugins/claude/hooks/notesoup.ts"], cwd=HERE,
                             capture_output=True, text=True)
        if old.returncode != 0:
            self.skipTest("no git history here")
        with tempfile.TemporaryDirectory() as tmp:
            hooks = Path(tmp) / "hooks"
            shutil.copytree(HOOKS, hooks)
            (hooks / MAIN).write_text(old.stdout)
            r = gate(hooks)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("19 module-level `let`/`var` declarations, at most 4", r.stderr)


if __name__ == "__main__":
    unittest.main()
