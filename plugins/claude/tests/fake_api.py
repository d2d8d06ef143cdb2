#!/usr/bin/env python3
"""A minimal scripted Anthropic Messages API on 127.0.0.1, for the mod's load check.

Every `POST /v1/messages` is answered with one assistant text (streamed as SSE when the
request asks for a stream) and its JSON body is appended as one line to the request log.
Any other path gets `{}`. It binds loopback only and writes its port to --port-file.

    fake_api.py --log requests.jsonl --port-file port [--text "ok"]
"""

import argparse
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def message(text: str, model: str) -> dict:
    return {
        "id": "msg_notesoup_load_check",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 100, "output_tokens": 5},
    }


def sse(msg: dict):
    start = dict(msg, content=[], stop_reason=None)
    yield "message_start", {"type": "message_start", "message": start}
    for i, block in enumerate(msg["content"]):
        yield "content_block_start", {"type": "content_block_start", "index": i,
                                      "content_block": {"type": "text", "text": ""}}
        yield "content_block_delta", {"type": "content_block_delta", "index": i,
                                      "delta": {"type": "text_delta", "text": block["text"]}}
        yield "content_block_stop", {"type": "content_block_stop", "index": i}
    yield "message_delta", {"type": "message_delta",
                            "delta": {"stop_reason": msg["stop_reason"], "stop_sequence": None},
                            "usage": {"output_tokens": msg["usage"]["output_tokens"]}}
    yield "message_stop", {"type": "message_stop"}


def handler(log_path: str, text: str):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_args):
            pass

        def _body(self) -> bytes:
            n = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(n) if n else b""

        def _json(self, status: int, obj) -> None:
            data = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            self._json(200, {})

        def do_POST(self):
            raw = self._body()
            if not self.path.startswith("/v1/messages") or "count_tokens" in self.path:
                self._json(200, {"input_tokens": 100} if "count_tokens" in self.path else {})
                return
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                self._json(400, {"type": "error", "error": {"type": "invalid_request_error",
                                                            "message": "body is not JSON"}})
                return
            with open(log_path, "a", encoding="utf-8") as log:
                log.write(json.dumps({"path": self.path, "body": body}) + "\n")
            msg = message(text, body.get("model", "claude-fake"))
            if not body.get("stream"):
                self._json(200, msg)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream; charset=utf-8")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            for event, data in sse(msg):
                self.wfile.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()
            self.close_connection = True

    return Handler


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--log", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--text", default="ok")
    args = ap.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler(args.log, args.text))
    with open(args.port_file + ".tmp", "w", encoding="utf-8") as f:
        f.write(str(server.server_address[1]))
    os.replace(args.port_file + ".tmp", args.port_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
