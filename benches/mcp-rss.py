"""`notesoup mcp`'s memory over many tool calls: starts `NOTESOUP mcp`, initializes, then
makes `history_list` calls with distinct queries on one session and prints the server's
VmRSS (and thread count) after each call count named.

    CLAUDE_CONFIG_DIR=DIR NOTESOUP_HOME=DIR python3 benches/mcp-rss.py NOTESOUP SESSION 5 40

SESSION is a selector (`claude:6e9d0000`) of a transcript under
$CLAUDE_CONFIG_DIR/projects/<folder>/ (benches' gen-transcript writes one)."""
import json, os, subprocess, sys, time

binary, session, marks = sys.argv[1], sys.argv[2], [int(a) for a in sys.argv[3:]]
p = subprocess.Popen([binary, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def send(msg):
    p.stdin.write((json.dumps(msg) + "\n").encode())
    p.stdin.flush()


def reply(want):
    while True:
        line = p.stdout.readline()
        if not line:
            raise SystemExit("the server closed its stdout")
        msg = json.loads(line)
        if msg.get("id") == want:
            return msg


def rss():
    with open(f"/proc/{p.pid}/status") as status:
        kib = next(int(l.split()[1]) for l in status if l.startswith("VmRSS"))
    return f"{kib // 1024} MiB, {len(os.listdir(f'/proc/{p.pid}/task'))} threads"


send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "mcp-rss", "version": "1"}}})
reply(0)
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
print(f"{os.path.basename(binary)}: started: {rss()}", flush=True)
start = time.time()
words = ["zebra-needle", "parser", "window", "budget", "cursor"]
for i in range(1, max(marks) + 1):
    query = f"{words[i % 5]} {i % 7}" if i % 2 else f"call {i}"
    send({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {
        "name": "history_list", "arguments": {"session": session, "query": query}}})
    answer = reply(i)
    assert not answer["result"].get("isError"), answer
    if i in marks:
        print(f"{os.path.basename(binary)}: after {i} history_list calls: {rss()} "
              f"({time.time() - start:.1f} s)", flush=True)
p.stdin.close()
p.wait()
