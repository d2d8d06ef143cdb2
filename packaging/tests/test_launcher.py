"""The `notesoup` npm package's launcher (packaging/notesoup.js), run by the machine's Node
in the layout npm installs: the package with its `bin/notesoup.js` and `package.json`, and
the platform package under its `node_modules` holding a stand-in `bin/notesoup` (a shell
script) in place of the binary.

    python3 -m unittest discover -s packaging/tests -p 'test_*.py'
"""

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
NODE = shutil.which("node")


def node_platform() -> str:
    out = subprocess.run([NODE, "-p", "process.platform + '-' + process.arch"],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


class Layout:
    """A `notesoup` package as npm lays it out, whose release has `platforms`; the stand-in
    binary (`script`, shell) is installed for this machine's platform when given."""

    def __init__(self, tmp: Path, platforms: list, script: str | None):
        self.package = tmp / "notesoup"
        (self.package / "bin").mkdir(parents=True)
        shutil.copyfile(ROOT / "packaging/notesoup.js", self.package / "bin/notesoup.js")
        (self.package / "package.json").write_text(json.dumps({
            "name": "notesoup", "version": "0.0.0",
            "optionalDependencies": {f"@notesoup/cli-{p}": "0.0.0" for p in platforms}}))
        if script is not None:
            platform = self.package / "node_modules/@notesoup" / f"cli-{node_platform()}"
            (platform / "bin").mkdir(parents=True)
            (platform / "package.json").write_text(json.dumps({"name": f"@notesoup/cli-{node_platform()}"}))
            binary = platform / "bin/notesoup"
            binary.write_text("#!/bin/sh\n" + script)
            binary.chmod(0o755)

    def command(self, *args: str) -> list:
        return [NODE, str(self.package / "bin/notesoup.js"), *args]


def wait_for(path: Path, what: str) -> str:
    # Waits for an event, not for a time: the bound only turns a hang into a failure.
    for _ in range(600):
        if path.exists() and path.read_text().endswith("\n"):
            return path.read_text()
        time.sleep(0.05)
    raise AssertionError(f"{what} never happened")


@unittest.skipUnless(NODE, "no node on PATH")
class LauncherTest(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="nslauncher-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def test_arguments_and_exit_status_pass_through(self):
        layout = Layout(self.tmp, [node_platform()], 'echo "args: $*"; exit 3\n')
        out = subprocess.run(layout.command("notes", "show", "plan"), capture_output=True, text=True)
        self.assertEqual(out.stdout, "args: notes show plan\n")
        self.assertEqual(out.returncode, 3)

    def test_a_signal_sent_to_the_launcher_reaches_the_binary(self):
        """`timeout 5 notesoup …`, or an MCP client stopping `notesoup mcp`, signals the
        launcher: the binary must get it (walk7 finding 1: it ran on, re-parented to init,
        until its stdin closed), and the launcher ends as the binary does."""
        ready, got = self.tmp / "ready", self.tmp / "got"
        layout = Layout(self.tmp, [node_platform()], (
            f"trap 'echo TERM > {got}; exit 143' TERM\n"
            f"sleep 600 & echo $$ $! > {ready}\n"
            "wait $!\n"))
        launcher = subprocess.Popen(layout.command("mcp"), stdin=subprocess.PIPE)
        pids = wait_for(ready, "the stand-in binary starting").split()
        try:
            launcher.send_signal(signal.SIGTERM)
            status = launcher.wait(timeout=30)
            self.assertEqual(wait_for(got, "SIGTERM reaching the binary"), "TERM\n")
            self.assertEqual(status, 143)
        finally:
            for pid in pids:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except ProcessLookupError:
                    pass
            launcher.kill()
            launcher.wait()

    def test_a_binary_ended_by_a_signal_ends_the_launcher_by_it(self):
        layout = Layout(self.tmp, [node_platform()], "kill -TERM $$\n")
        out = subprocess.run(layout.command(), capture_output=True, text=True)
        self.assertEqual(out.returncode, -signal.SIGTERM)

    def test_a_binary_ended_by_a_signal_node_will_not_die_of_never_ends_the_launcher_with_0(self):
        """Node ignores SIGPIPE and SIGXFSZ and starts its debugger on SIGUSR1, so raising
        them again on the launcher does not end it (review46 finding 5: it exited 0, and
        printed "Debugger listening" for SIGUSR1): it ends with 128 + the signal's number, as
        a shell reports a death by that signal."""
        for name in ("PIPE", "XFSZ", "USR1"):
            with self.subTest(signal=name):
                layout = Layout(self.tmp / name, [node_platform()], f"kill -{name} $$\n")
                out = subprocess.run(layout.command(), capture_output=True, text=True)
                self.assertEqual(out.returncode, 128 + getattr(signal, f"SIG{name}"))
                self.assertNotIn("Debugger", out.stderr)

    def test_a_platform_the_release_lacks_is_named_with_the_ones_it_has(self):
        """On a machine the release has no binary for (darwin-arm64 while only linux-x64 is
        built), "reinstall" cannot help: the message says what the release has (walk7
        finding 2)."""
        layout = Layout(self.tmp, ["plan9-mips"], None)
        out = subprocess.run(layout.command("doctor"), capture_output=True, text=True)
        self.assertEqual(out.returncode, 1)
        self.assertIn(f"this release has no binary for {node_platform()} (it has plan9-mips)", out.stderr)
        self.assertNotIn("reinstall", out.stderr)
        self.assertIn("cargo install --path cli", out.stderr)

    def test_a_platform_package_npm_left_out_says_reinstall(self):
        layout = Layout(self.tmp, [node_platform()], None)
        out = subprocess.run(layout.command("doctor"), capture_output=True, text=True)
        self.assertEqual(out.returncode, 1)
        self.assertIn(f"the package @notesoup/cli-{node_platform()} is not installed", out.stderr)
        self.assertIn("without --no-optional / --omit=optional", out.stderr)


if __name__ == "__main__":
    unittest.main()
