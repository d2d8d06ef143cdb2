#!/usr/bin/env python3
"""Writes N small generated Claude Code sessions (6-60 rows each, 40 project folders) under
DIR/projects, with fixed modification times, for whole-history search figures; session 1234
(0-based) holds the needle `zebra-needle` once.
    benches/gen-sessions.py DIR [N]      (default N: 3000)
Then: CLAUDE_CONFIG_DIR=DIR notesoup history search zebra-needle"""
import json
import os
import random
import sys

root = os.path.join(sys.argv[1], "projects")
count = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
random.seed(7)
words = "alpha beta gamma delta parser lexer cargo test build error fix refactor module crate trait".split()
for i in range(count):
    proj = f"{root}/-work-p{i % 40}"
    os.makedirs(proj, exist_ok=True)
    sid = f"{i:08x}-0000-4000-8000-{random.getrandbits(48):012x}"
    lines, parent = [], None
    for j in range(random.randint(6, 60)):
        uuid = f"{sid[:8]}-{j:04x}-4000-8000-000000000000"
        kind = "user" if j % 2 == 0 else "assistant"
        text = " ".join(random.choice(words) for _ in range(random.randint(5, 80)))
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
