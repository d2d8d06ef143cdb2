#!/usr/bin/env python3
"""Generated sessions for whole-history search figures, with fixed modification times.

    benches/gen-sessions.py DIR [N]
        N small Claude Code sessions (6-60 rows each, 40 project folders) under
        DIR/projects; session 1234 (0-based) holds the needle `zebra-needle` once.
        (default N: 3000) Then: CLAUDE_CONFIG_DIR=DIR notesoup history search zebra-needle

    benches/gen-sessions.py --mixed BYTES DIR [N]
        N sessions, about BYTES in all, split over the three harnesses in their real formats
        (the lines of the real fixtures in history-pi/tests/data and history-codex/tests/data,
        their ids, times and texts replaced): half Claude Code under DIR/claude/projects, a
        quarter Pi under DIR/pi/sessions, a quarter Codex under DIR/codex/sessions/YYYY/MM/DD.
        Six of them are large (two per harness, together half of BYTES); the rest share the
        other half. `zebra-needle` is in four sessions: one small one of each harness and
        one large Claude transcript. Prints the sessions that hold it, one path a line.
        Then: CLAUDE_CONFIG_DIR=DIR/claude PI_CODING_AGENT_DIR=DIR/pi CODEX_HOME=DIR/codex
              notesoup history search zebra-needle
"""
import json
import os
import random
import sys
from pathlib import Path

NEEDLE = "zebra-needle"
WORDS = "alpha beta gamma delta parser lexer cargo test build error fix refactor module crate trait".split()


def small_claude(root):
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    random.seed(7)
    for i in range(count):
        proj = f"{root}/-work-p{i % 40}"
        os.makedirs(proj, exist_ok=True)
        sid = f"{i:08x}-0000-4000-8000-{random.getrandbits(48):012x}"
        lines, parent = [], None
        for j in range(random.randint(6, 60)):
            uuid = f"{sid[:8]}-{j:04x}-4000-8000-000000000000"
            kind = "user" if j % 2 == 0 else "assistant"
            text = " ".join(random.choice(WORDS) for _ in range(random.randint(5, 80)))
            if i == 1234 and j == 3:
                text += " zebra-needle"
            content = text if kind == "user" else [{"type": "text", "text": text}]
            lines.append(json.dumps({
                "parentUuid": parent, "isSidechain": False, "type": kind,
                "message": {"role": kind, "content": content}, "uuid": uuid,
                "timestamp": f"2026-11-{1 + i % 28:02d}T10:{j % 60:02d}:00Z",
                "cwd": f"/work/p{i % 40}", "sessionId": sid, "version": "2.1.319",
            }))
            parent = uuid
        path = f"{proj}/{sid}.jsonl"
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        os.utime(path, (1796000000 + i * 60,) * 2)


REPO = Path(__file__).resolve().parent.parent
PI_FIXTURE = REPO / "history-pi/tests/data/agent/sessions/--tmp-xh-pirun-r3-work--" \
    / "2026-12-02T15-16-58-039Z_01a23754-8e37-7027-8822-e05ee3580bae.jsonl"
CODEX_FIXTURE = REPO / "history-codex/tests/data/codex-home/sessions/2026/12/02" \
    / "rollout-2026-12-02T15-17-58-01a23755-7b6b-79d2-9438-c01132a25971.jsonl"


def dumps(obj):
    # As the harnesses write: compact, UTF-8 as it is (no `\u` escapes).
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


class Text:
    """Slices of one pool of random words: texts of any length, quickly."""

    def __init__(self):
        self.pool = " ".join(random.choices(WORDS, k=2_000_000))

    def __call__(self, n):
        at = random.randrange(0, len(self.pool) - n - 1)
        return self.pool[at:at + n]


class Templates:
    """The fixtures' lines, by what they are."""

    def __init__(self):
        pi = [json.loads(l) for l in open(PI_FIXTURE)]
        self.pi_head = pi[0]
        self.pi_setup = pi[1:3]  # model_change, thinking_level_change
        msgs = [e for e in pi if e["type"] == "message"]
        self.pi_user = next(e for e in msgs if e["message"]["role"] == "user")
        self.pi_call = next(e for e in msgs if e["message"]["role"] == "assistant"
                            and any(c["type"] == "toolCall" for c in e["message"]["content"]))
        self.pi_result = next(e for e in msgs if e["message"]["role"] == "toolResult")
        self.pi_reply = next(e for e in msgs if e["message"]["role"] == "assistant"
                             and all(c["type"] == "text" for c in e["message"]["content"]))
        cx = [json.loads(l) for l in open(CODEX_FIXTURE)]
        self.cx_meta = cx[0]
        items = [e for e in cx if e["type"] == "response_item"]
        self.cx_user = next(e for e in items if e["payload"].get("role") == "user"
                            and not e["payload"]["content"][0]["text"].startswith("<"))
        self.cx_reply = next(e for e in items if e["payload"].get("role") == "assistant")
        self.cx_call = next(e for e in items if e["payload"]["type"] == "function_call")
        self.cx_output = next(e for e in items if e["payload"]["type"] == "function_call_output")


def clone(template):
    return json.loads(json.dumps(template))


def claude_session(path, sid, i, target, text, needle):
    """Rows of user prompts, assistant text with a Bash tool use, and its tool result."""
    with open(path, "w") as out:
        size, parent, j = 0, None, 0
        while size < target:
            uuid = f"{sid[:8]}-{j & 0xffff:04x}-4000-8000-{j:012x}"
            step = j % 4
            if step == 0:
                message = {"role": "user", "content": text(random.randint(40, 400))}
            elif step == 1:
                message = {"role": "assistant", "content": [
                    {"type": "text", "text": text(random.randint(40, 400))},
                    {"type": "tool_use", "id": f"toolu_{j:020x}", "name": "Bash",
                     "input": {"command": "cargo test " + text(30)}}]}
            elif step == 2:
                body = text(min(target // 40, 200_000) if target > 10_000_000 else random.randint(200, 8000))
                message = {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": f"toolu_{j - 1:020x}", "content": body}]}
            else:
                message = {"role": "assistant", "content": [{"type": "text", "text": text(random.randint(40, 400))}]}
            if needle and j == 5:
                message = {"role": "assistant", "content": [{"type": "text", "text": f"{text(80)} {NEEDLE} {text(40)}"}]}
            kind = message["role"]
            row = {"parentUuid": parent, "isSidechain": False, "type": kind, "message": message, "uuid": uuid,
                   "timestamp": f"2026-11-{1 + i % 28:02d}T10:{j % 60:02d}:00.000Z", "cwd": f"/work/p{i % 40}",
                   "sessionId": sid, "version": "2.1.319"}
            line = dumps(row) + "\n"
            out.write(line)
            size += len(line)
            parent = uuid
            j += 1


def pi_session(path, sid, i, target, text, needle, t):
    head = clone(t.pi_head)
    head.update(id=sid, timestamp=f"2026-11-{1 + i % 28:02d}T09:00:00.000Z", cwd=f"/work/p{i % 40}")
    with open(path, "w") as out:
        out.write(dumps(head) + "\n")
        parent = None
        for e in t.pi_setup:
            e = clone(e)
            e["parentId"] = parent
            parent = e["id"]
            out.write(dumps(e) + "\n")
        size, j = 0, 0
        while size < target:
            step = j % 4
            e = clone([t.pi_user, t.pi_call, t.pi_result, t.pi_reply][step])
            m = e["message"]
            call = f"toolu_gen_{i:08x}{j // 4:012x}"
            if step == 0:
                m["content"] = [{"type": "text", "text": text(random.randint(40, 400))}]
            elif step == 1:
                m["content"][0]["text"] = text(random.randint(40, 400))
                m["content"][1].update(id=call, arguments={"command": "cargo test " + text(30)})
            elif step == 2:
                m["toolCallId"] = call
                body = text(min(target // 40, 200_000) if target > 10_000_000 else random.randint(200, 8000))
                m["content"] = [{"type": "text", "text": body}]
            else:
                m["content"] = [{"type": "text", "text": text(random.randint(40, 400))}]
            if needle and j == 7:
                m["content"] = [{"type": "text", "text": f"{text(80)} {NEEDLE} {text(40)}"}]
            e.update(id=f"{(i * 1_000_003 + j) & 0xffffffff:08x}", parentId=parent,
                     timestamp=f"2026-11-{1 + i % 28:02d}T10:{j % 60:02d}:00.000Z")
            parent = e["id"]
            line = dumps(e) + "\n"
            out.write(line)
            size += len(line)
            j += 1


def codex_session(path, sid, i, target, text, needle, t):
    meta = clone(t.cx_meta)
    meta["payload"].update(session_id=sid, id=sid, cwd=f"/work/p{i % 40}",
                           timestamp=f"2026-11-{1 + i % 28:02d}T09:00:00.000Z")
    meta["payload"]["runtime_workspace_roots"] = [f"/work/p{i % 40}"]
    with open(path, "w") as out:
        out.write(dumps(meta) + "\n")
        size, j = 0, 0
        while size < target:
            step = j % 4
            e = clone([t.cx_user, t.cx_call, t.cx_output, t.cx_reply][step])
            p = e["payload"]
            call = f"call_gen_{j // 4}"
            if step == 0:
                p["content"][0]["text"] = text(random.randint(40, 400))
            elif step == 1:
                p["call_id"] = call
                p["arguments"] = dumps({"cmd": "cargo test " + text(30)})
            elif step == 2:
                p["call_id"] = call
                body = text(min(target // 40, 200_000) if target > 10_000_000 else random.randint(200, 8000))
                p["output"] = f"Process exited with code 0\nOutput:\n{body}\n"
            else:
                p["content"][0]["text"] = text(random.randint(40, 400))
            if needle and j == 7:
                p["content"][0]["text"] = f"{text(80)} {NEEDLE} {text(40)}"
            # Every item its own id (the decoder refuses an id used by another item).
            if "id" in p:
                p["id"] = f"{p['type'][:3]}_gen_{i:x}_{j:x}"
            e["ordinal"] = j + 1
            e["timestamp"] = f"2026-11-{1 + i % 28:02d}T10:{j % 60:02d}:00.000Z"
            line = dumps(e) + "\n"
            out.write(line)
            size += len(line)
            j += 1


def mixed(total, root, count):
    random.seed(11)
    text, t = Text(), Templates()
    root = Path(root)
    large = {3: "claude", 17: "pi", 29: "codex", 1001: "claude", 1503: "pi", 2011: "codex"}
    large = {i: h for i, h in large.items() if i < count}
    large_size = total // 2 // max(len(large), 1)
    small_size = (total - large_size * len(large)) // max(count - len(large), 1)
    # One small session of each harness and one large Claude transcript hold the needle.
    needles = {1234, 1235, 1237, 1001}
    held = []
    for i in range(count):
        harness = large.get(i) or ["claude", "pi", "claude", "codex"][i % 4]
        target = large_size if i in large else random.randint(small_size // 3, small_size * 5 // 3)
        sid = f"{i:08x}-{random.getrandbits(16):04x}-7{random.getrandbits(12):03x}-8000-{random.getrandbits(48):012x}"
        day = 1 + i % 28
        if harness == "claude":
            folder = root / "claude/projects" / f"-work-p{i % 40}"
            path = folder / f"{sid}.jsonl"
        elif harness == "pi":
            folder = root / "pi/sessions" / f"--work-p{i % 40}--"
            path = folder / f"2026-11-{day:02d}T09-00-00-000Z_{sid}.jsonl"
        else:
            folder = root / "codex/sessions/2026/11" / f"{day:02d}"
            path = folder / f"rollout-2026-11-{day:02d}T09-00-00-{sid}.jsonl"
        folder.mkdir(parents=True, exist_ok=True)
        needle = i in needles
        if harness == "claude":
            claude_session(path, sid, i, target, text, needle)
        elif harness == "pi":
            pi_session(path, sid, i, target, text, needle, t)
        else:
            codex_session(path, sid, i, target, text, needle, t)
        os.utime(path, (1796000000 + i * 60,) * 2)
        if needle:
            held.append(f"{harness}:{sid}")
    print("\n".join(held))


if __name__ == "__main__":
    if sys.argv[1] == "--mixed":
        mixed(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 3000)
    else:
        small_claude(os.path.join(sys.argv[1], "projects"))
