"""scripts/install's Pi step, run for real on a copy of the scripts in a scratch checkout:
`cargo`, the built binaries and `pi` are stand-ins (shell scripts), so nothing is built or
fetched, and HOME, Pi's agent folder and the install folders are scratch folders.

    python3 -m unittest discover -s scripts/tests -p 'test_*.py'
"""

import os
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def script(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)


class PiStepTest(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="nsinstall-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.checkout = self.tmp / "checkout"
        for name in ("install", "install-extras"):
            dest = self.checkout / "scripts" / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / "scripts" / name, dest)
        (self.checkout / "plugins/pi").mkdir(parents=True)
        target = self.tmp / "target"
        bins = self.tmp / "bin"
        script(bins / "cargo", f'[ "$1" = metadata ] && echo \'{{"target_directory": "{target}"}}\'\nexit 0\n')
        script(bins / "pi", "echo 1.6.0\n")
        script(target / "release/notesoup-helper", "cat >/dev/null; echo '{\"ok\":true}'\n")
        script(target / "release/notesoup", '[ "$1" = completions ] && echo "# completions"\nexit 0\n')
        self.agent = self.tmp / "home/.pi/agent"
        self.agent.mkdir(parents=True)
        self.env = {
            "PATH": f"{bins}:/usr/bin:/bin", "HOME": str(self.tmp / "home"), "LANG": "C.UTF-8",
            "NOTESOUP_SKIP_DEMO": "1", "PI": str(bins / "pi"), "CLAUDE": "", "CODEX": "",
        }

    def install(self) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.checkout / "scripts/install")], env=self.env,
                              capture_output=True, text=True, timeout=120)

    def test_links_the_extension_where_pi_finds_it(self):
        out = self.install()
        self.assertEqual(out.returncode, 0, out.stderr)
        link = self.agent / "extensions/notesoup"
        self.assertTrue(link.is_symlink(), out.stdout)
        self.assertEqual(os.readlink(link), str(self.checkout / "plugins/pi"))

    def npm_copy(self, settings: str | None) -> None:
        """The folder `pi install npm:@notesoup/pi` makes, and Pi's settings.json (`None`:
        none written)."""
        npm = self.agent / "npm/node_modules/@notesoup/pi"
        npm.mkdir(parents=True)
        (npm / "index.ts").write_text("// notesoup-helper\n")
        if settings is not None:
            (self.agent / "settings.json").write_text(settings)

    def test_no_second_copy_beside_the_npm_package(self):
        """Pi 1.6.0 does not start with two copies of the extension (their tools conflict):
        with `pi install npm:@notesoup/pi` done, the checkout's is not linked beside it, and
        the output says how to use the checkout's instead (walk7 finding 20). `pi install`
        names the package in the `packages` of Pi's settings, as a string or an object."""
        for packages in ('["npm:@notesoup/pi"]', '["npm:@notesoup/pi@0.1.0"]',
                         '[{"source": "npm:@notesoup/pi", "extensions": []}]'):
            with self.subTest(packages=packages):
                shutil.rmtree(self.agent)
                self.agent.mkdir(parents=True)
                self.npm_copy(f'{{"packages": {packages}}}')
                out = self.install()
                self.assertEqual(out.returncode, 0, out.stderr)
                self.assertFalse((self.agent / "extensions/notesoup").exists(), out.stdout)
                self.assertIn("pi remove npm:@notesoup/pi", out.stdout)

    def test_links_after_pi_remove_left_the_npm_folder(self):
        """`pi remove npm:@notesoup/pi` takes the entry out of `packages` and may leave the
        folder: Pi no longer loads it (notesoup doctor's rule), so install links, rather than
        repeat the `pi remove` advice already followed (review46 finding 3). Likewise with no
        settings file, or one that is not JSON, or names another package."""
        for settings in ('{"packages": []}', None, "{not json", '{"packages": ["npm:@notesoup/pi-other"]}'):
            with self.subTest(settings=settings):
                shutil.rmtree(self.agent)
                self.agent.mkdir(parents=True)
                self.npm_copy(settings)
                out = self.install()
                self.assertEqual(out.returncode, 0, out.stderr)
                link = self.agent / "extensions/notesoup"
                self.assertTrue(link.is_symlink(), out.stdout)
                self.assertEqual(os.readlink(link), str(self.checkout / "plugins/pi"))
                self.assertNotIn("pi remove", out.stdout)


if __name__ == "__main__":
    unittest.main()
