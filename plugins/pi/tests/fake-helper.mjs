#!/usr/bin/env node
// The helper, played by the extension's tests: logs each request (one JSON line per process
// to $FAKE_HELPER_LOG) and answers from $FAKE_HELPER_REPLIES, keyed by the pi_hook event or
// `tool:<name>` (default: no effects).
import { appendFileSync, readFileSync } from "node:fs";

const op = process.argv[2];
const request = JSON.parse(readFileSync(0, "utf8"));
appendFileSync(process.env.FAKE_HELPER_LOG, JSON.stringify({ op, request }) + "\n");
const replies = JSON.parse(readFileSync(process.env.FAKE_HELPER_REPLIES, "utf8"));
const key = op === "tool" ? `tool:${request.name}` : request.event;
process.stdout.write(JSON.stringify(replies[key] ?? { ok: true, effects: [] }));
