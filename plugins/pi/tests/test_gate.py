"""The Pi gate's regression tests: the extension passes, and each forbidden shape put back
into a copy of it fails the gate."""

import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import gate as pi_gate  # noqa: E402

EXTENSION = HERE.parent / "index.ts"


def check(source: str) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "index.ts"
        path.write_text(source)
        return pi_gate.findings(path)


class Gate(unittest.TestCase):
    def setUp(self):
        self.source = EXTENSION.read_text()

    def test_the_extension_passes(self):
        self.assertEqual(pi_gate.findings(EXTENSION), [])

    def test_a_second_module_level_let_fails(self):
        found = check(self.source + "\nlet flow = { ordinal: 0 };\n")
        self.assertTrue(any("module-level let" in f for f in found), found)

    def test_a_file_write_fails(self):
        found = check(self.source + '\nfunction save() { writeFileSync("/tmp/flow.json", "{}"); }\n')
        self.assertTrue(any("writes a file" in f for f in found), found)

    def test_an_own_session_entry_fails(self):
        found = check(self.source + '\nfunction keep(pi) { pi.appendEntry("notesoup", { ordinal: 1 }); }\n')
        self.assertTrue(any("session entries" in f for f in found), found)

    def test_another_helper_op_fails(self):
        found = check(self.source + '\nasync function text() { return helper("boot", {}); }\n')
        self.assertTrue(any("only pi_hook and tool" in f for f in found), found)

    def test_a_computed_helper_op_fails(self):
        found = check(self.source + '\nasync function any(op) { return helper(op, {}); }\n')
        self.assertTrue(any("not written out" in f for f in found), found)

    def test_comments_and_strings_do_not_count(self):
        found = check(self.source + '\n// let x = 1; writeFileSync("a")\nconst s = "helper(\\"boot\\")";\n')
        self.assertEqual(found, [])


if __name__ == "__main__":
    unittest.main()
