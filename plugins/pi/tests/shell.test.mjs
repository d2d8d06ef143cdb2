// The extension's effect runner with the helper played by the test (tests/fake-helper.mjs)
// and Pi played by plain objects: what each Pi event sends (one helper request per event)
// and what the extension answers Pi with for each effect. Run with Node >= 22.18 (type
// stripping loads index.ts): `"$PI_NODE" --test plugins/pi/tests/shell.test.mjs`.
import assert from "node:assert/strict";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { mock, test } from "node:test";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const { default: notesoup } = await import(join(HERE, "..", "index.ts"));
const dir = mkdtempSync(join(tmpdir(), "notesoup-pi-shell-"));
process.env.NOTESOUP_HELPER = join(HERE, "fake-helper.mjs");
process.env.FAKE_HELPER_LOG = join(dir, "requests.jsonl");
process.env.FAKE_HELPER_REPLIES = join(dir, "replies.json");

const BOOT = '<notesoup-boot window="pi:s1:1">\nnotes\n</notesoup-boot>\nHandoff.';

/** Pi's API as the extension uses it. */
function fakePi() {
  const pi = { handlers: {}, tools: {}, commands: {}, sent: [] };
  pi.on = (name, fn) => (pi.handlers[name] = fn);
  pi.registerTool = (tool) => (pi.tools[tool.name] = tool);
  pi.registerCommand = (name, command) => (pi.commands[name] = command);
  pi.getSettings = () => ({ compaction: { reserveTokens: 16384 } });
  pi.sendUserMessage = (text, options) => pi.sent.push({ user: text, options });
  pi.sendMessage = (message, options) => pi.sent.push({ message, options });
  pi.active = ["read", "bash"];
  pi.getActiveTools = () => [...pi.active, ...Object.keys(pi.tools).filter((n) => !pi.off?.includes(n))];
  pi.setActiveTools = (names) => {
    pi.off = Object.keys(pi.tools).filter((n) => !names.includes(n));
    pi.active = names.filter((n) => !pi.tools[n]);
  };
  return pi;
}

/** A handler's ctx: one session, its branch, idle or not. */
function fakeCtx({ branch = [], idle = true } = {}) {
  const ctx = { notices: [], compacts: [], aborts: 0, branch };
  Object.assign(ctx, {
    cwd: "/work/app",
    hasUI: true,
    model: { provider: "anthropic", id: "claude-sonnet-4-5" },
    sessionManager: {
      getSessionId: () => "s1",
      getSessionFile: () => "/home/me/.pi/agent/sessions/s1.jsonl",
      getBranch: () => ctx.branch,
      getLeafEntry: () => ctx.branch.at(-1),
    },
    getContextUsage: () => ({ tokens: 170000, contextWindow: 200000, percent: 85 }),
    isIdle: () => idle,
    ui: { notify: (text) => ctx.notices.push(text) },
    abort: () => (ctx.aborts += 1),
    compact: (options) => ctx.compacts.push(options),
  });
  return ctx;
}

/** The helper's answers for this test, and a fresh request log. */
function helperSays(replies) {
  writeFileSync(process.env.FAKE_HELPER_REPLIES, JSON.stringify(replies));
  writeFileSync(process.env.FAKE_HELPER_LOG, "");
}

function requests() {
  return readFileSync(process.env.FAKE_HELPER_LOG, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

const effects = (...effects) => ({ ok: true, effects, log: [] });

async function started() {
  const pi = fakePi();
  notesoup(pi);
  helperSays({});
  await pi.handlers.session_start({ reason: "startup" }, fakeCtx());
  return pi;
}

test("the ten tools and three commands are registered under Pi's names", async () => {
  const pi = await started();
  assert.equal(Object.keys(pi.tools).length, 10);
  assert.ok(pi.tools.notesoup_empty_brain && pi.tools.notesoup_get_context_remaining);
  assert.deepEqual(Object.keys(pi.commands).sort(), ["empty", "fresh-window", "notesoup"]);
});

test("a tool result carries the warning the helper filled, one request for the event", async () => {
  const pi = await started();
  helperSays({ tool_result: effects({ type: "warn", generation: 0, text: "WARNING-TEXT" }) });
  const answer = await pi.handlers.tool_result({ isError: false, content: [{ type: "text", text: "result" }] }, fakeCtx());
  assert.deepEqual(answer.content.map((c) => c.text), ["result", "WARNING-TEXT"]);
  const sent = requests();
  assert.equal(sent.length, 1);
  assert.equal(sent[0].request.event, "tool_result");
  assert.equal(sent[0].request.facts.budget.usage.contextWindow, 200000);
  assert.equal(sent[0].request.facts.budget.model, "anthropic/claude-sonnet-4-5");
});

test("the boot and the warning ride one hidden message, not the system prompt", async () => {
  const pi = await started();
  helperSays({
    before_agent_start: effects({ type: "attach_boot", ordinal: 0, text: BOOT }, { type: "warn", generation: 0, text: "WARNING-TEXT" }),
  });
  const answer = await pi.handlers.before_agent_start({ systemPrompt: "SYSTEM" }, fakeCtx());
  assert.equal(answer.systemPrompt, undefined);
  assert.equal(answer.message.customType, "notesoup");
  assert.equal(answer.message.display, false);
  assert.equal(answer.message.content, `${BOOT}\n\nWARNING-TEXT`);
});

test("a kept boot is read from the branch: a compaction or the hidden message", async () => {
  const pi = await started();
  const branch = [
    { type: "custom_message", customType: "notesoup", content: BOOT.replace(":1", ":0") },
    { type: "message" },
    { type: "compaction", summary: BOOT },
    { type: "message" },
  ];
  await pi.handlers.before_agent_start({ systemPrompt: "" }, fakeCtx({ branch }));
  const sent = requests().find((r) => r.request.event === "before_agent_start");
  assert.equal(sent.request.facts.kept, BOOT);
});

test("a prompt names the session's file, for the helper to check and keep", async () => {
  const pi = await started();
  await pi.handlers.before_agent_start({ systemPrompt: "" }, fakeCtx());
  const sent = requests().find((r) => r.request.event === "before_agent_start");
  assert.equal(sent.request.facts.session_file, "/home/me/.pi/agent/sessions/s1.jsonl");
});

test("the batch's end writes the answered compaction as a boundary entry keeping nothing", async () => {
  const pi = await started();
  helperSays({
    turn_end: effects({ type: "end_turn", text: "CLEARING" }, { type: "answer_compaction", ordinal: 1, pool: "normal", sticky: null, generation: 0, text: BOOT }),
    session_compact: effects({ type: "continue", generation: 0, text: "Fresh window." }),
  });
  const ctx = fakeCtx({ idle: false });
  const answer = await pi.handlers.turn_end({ turnIndex: 0, toolResults: [{}] }, ctx);
  assert.deepEqual(answer, { entries: [{ type: "compaction", summary: BOOT, firstKeptEntryId: null, details: { notesoup: 1 } }] });
  assert.deepEqual(ctx.notices, ["CLEARING"]);
  assert.equal(ctx.aborts, 0, "no abort at the batch's end");
  // Pi committed it; the next request is the continuation: nothing is sent for it.
  ctx.branch.push({ type: "compaction", summary: BOOT });
  await pi.handlers.turn_start({ turnIndex: 1 }, ctx);
  const sent = requests().map((r) => r.request.event);
  assert.deepEqual(sent, ["turn_end", "session_compact", "compact_done", "turn_start"]);
  assert.equal(requests()[1].request.facts.summary, BOOT);
  assert.deepEqual(pi.sent, []);
});

test("a reset the flow does not go on from ends the run Pi would continue, before its next request", async () => {
  const pi = await started();
  helperSays({
    turn_end: effects({ type: "end_turn", text: "CLEARING" }, { type: "answer_compaction", ordinal: 1, pool: "normal", sticky: null, generation: 0, text: BOOT }),
    session_compact: effects({ type: "report", text: "fresh window ready; not continuing" }),
  });
  const ctx = fakeCtx({ idle: false });
  await pi.handlers.turn_end({ turnIndex: 0, toolResults: [{}, {}] }, ctx);
  ctx.branch.push({ type: "compaction", summary: BOOT });
  await pi.handlers.turn_start({ turnIndex: 1 }, ctx);
  assert.equal(ctx.aborts, 1, "the run ends before the fresh window's request");
  const end = requests().length;
  await pi.handlers.agent_end({ messages: [{ role: "assistant", stopReason: "aborted" }] }, ctx);
  assert.equal(requests()[end].request.facts.cut, true, "the flow hears that notesoup ended the run");
});

test("notesoup's tools batched with the reset tool end the run with it (Pi needs every result to)", async () => {
  const pi = await started();
  helperSays({ "tool:notesoup_notes_write": effects({ type: "tool_result", is_error: false, text: "Created note `state`." }) });
  const assistant = (...names) => ({
    type: "message",
    message: { role: "assistant", content: names.map((name) => ({ type: "toolCall", id: name, name, arguments: {} })) },
  });
  const write = (ctx) => pi.tools.notesoup_notes_write.execute("id", { name: "state", text: "x\n" }, undefined, undefined, ctx);
  const batched = await write(fakeCtx({ branch: [assistant("notesoup_notes_write", "notesoup_empty_brain")] }));
  assert.equal(batched.terminate, true);
  const alone = await write(fakeCtx({ branch: [assistant("notesoup_notes_write", "bash")] }));
  assert.equal(alone.terminate, false);
});

test("Pi's own compaction is answered with the boot, cancelled on a veto, left to Pi otherwise", async () => {
  const pi = await started();
  const event = { reason: "threshold", preparation: { firstKeptEntryId: "abc", tokensBefore: 190000 } };
  helperSays({ session_before_compact: effects({ type: "answer_compaction", ordinal: 1, pool: "forced", sticky: null, generation: 0, text: BOOT }) });
  const answered = await pi.handlers.session_before_compact(event, fakeCtx());
  assert.equal(answered.compaction.summary, BOOT);
  assert.equal(answered.compaction.firstKeptEntryId, null);
  helperSays({ session_before_compact: effects({ type: "veto_compaction", notice: "NO", quiet: false }) });
  const ctx = fakeCtx();
  assert.deepEqual(await pi.handlers.session_before_compact(event, ctx), { cancel: true });
  assert.deepEqual(ctx.notices, ["NO"]);
  helperSays({ session_before_compact: effects({ type: "native_compaction" }) });
  assert.equal(await pi.handlers.session_before_compact(event, fakeCtx()), undefined);
});

test("an automatic compaction tells the helper the branch after its last answer, and keeps it from the entry the helper names", async () => {
  const pi = await started();
  const message = (id, role, content, extra = {}) => ({ type: "message", id, message: { role, content, ...extra } });
  const branch = [
    message("u0", "user", "Work on the parser."),
    message("a1", "assistant", [{ type: "toolCall", name: "read" }], { stopReason: "toolUse" }),
    message("t1", "toolResult", [{ type: "text", text: "file text" }]),
    message("s1", "user", [{ type: "text", text: "also fix the test" }]),
    message("e1", "assistant", [], { stopReason: "error" }),
  ];
  const event = { reason: "overflow", preparation: { firstKeptEntryId: "abc", tokensBefore: 190000 } };
  helperSays({
    session_before_compact: effects({ type: "answer_compaction", ordinal: 1, pool: "forced", sticky: null, generation: 0, text: BOOT, keep: [{ at: 1, text_only: false }] }),
  });
  const answered = await pi.handlers.session_before_compact(event, fakeCtx({ branch }));
  const facts = requests().find((r) => r.request.event === "session_before_compact").request.facts;
  assert.deepEqual(facts.tail, [
    { role: "toolResult", text: "file text" },
    { role: "user", text: "also fix the test" },
  ]);
  assert.equal(answered.compaction.firstKeptEntryId, "s1");
  helperSays({ session_before_compact: effects({ type: "answer_compaction", ordinal: 1, pool: "forced", sticky: null, generation: 0, text: BOOT }) });
  const none = await pi.handlers.session_before_compact(event, fakeCtx({ branch }));
  assert.equal(none.compaction.firstKeptEntryId, null);
});

test("the kept entries the helper leaves out are named by the compaction and left out of every request, with no helper call", async () => {
  const pi = await started();
  const BOOT0 = BOOT.replace(":1", ":0");
  const at = (n) => new Date(Date.UTC(2026, 11, 7, 22, 0, n)).toISOString();
  const custom = (id, customType, content, n) => ({ type: "custom_message", id, customType, content, display: false, timestamp: at(n) });
  const branch = [
    { type: "message", id: "u0", timestamp: at(1), message: { role: "user", content: "FIRST", timestamp: Date.parse(at(1)) } },
    custom("h0", "notesoup", BOOT0, 2),
    { type: "message", id: "e1", timestamp: at(3), message: { role: "assistant", content: [], stopReason: "error" } },
  ];
  const event = { reason: "overflow", preparation: { firstKeptEntryId: "abc", tokensBefore: 190000 } };
  helperSays({
    session_before_compact: effects({ type: "answer_compaction", ordinal: 1, pool: "forced", sticky: null, generation: 0, text: BOOT, keep: [{ at: 0, text_only: false }], leave_out: [1] }),
  });
  const answered = await pi.handlers.session_before_compact(event, fakeCtx({ branch }));
  const facts = requests().find((r) => r.request.event === "session_before_compact").request.facts;
  // The hidden message is told as the custom message it is; the helper decides.
  assert.deepEqual(facts.tail, [
    { role: "user", text: "FIRST" },
    { role: "custom", text: BOOT0, custom_type: "notesoup" },
  ]);
  assert.equal(answered.compaction.firstKeptEntryId, "u0");
  assert.deepEqual(answered.compaction.details, { notesoup: 1, leave_out: ["h0"] });

  // Pi wrote the compaction; a later prompt's hidden message and another extension's stay.
  const compaction = { type: "compaction", id: "c1", timestamp: at(4), summary: BOOT, firstKeptEntryId: "u0", details: answered.compaction.details };
  const later = custom("h1", "notesoup", "notesoup budget warning", 5);
  const ctx = fakeCtx({ branch: [...branch, compaction, later] });
  const projected = (e) => ({ role: "custom", customType: e.customType, content: e.content, display: false, timestamp: Date.parse(e.timestamp) });
  const messages = [
    { role: "compactionSummary", summary: BOOT, tokensBefore: 190000, timestamp: Date.parse(at(4)) },
    branch[0].message,
    projected(branch[1]),
    { role: "custom", customType: "other-extension", content: "x", display: false, timestamp: Date.parse(at(2)) },
    projected(later),
  ];
  helperSays({});
  const sent = await pi.handlers.context({ type: "context", messages }, ctx);
  assert.deepEqual(sent.messages, [messages[0], messages[1], messages[3], messages[4]]);
  assert.deepEqual(requests(), [], "a model request costs no helper process");

  // A newer compaction that leaves nothing out: the requests are Pi's as they are.
  const newer = { type: "compaction", id: "c2", timestamp: at(6), summary: BOOT.replace(":1", ":2"), firstKeptEntryId: null, details: { notesoup: 2 } };
  ctx.branch = [...ctx.branch, newer];
  assert.equal(await pi.handlers.context({ type: "context", messages: [messages[0]] }, ctx), undefined);
});

test("empty_brain's answer ends the run after its batch; a refusal is a tool error", async () => {
  const pi = await started();
  helperSays({ "tool:notesoup_empty_brain": effects({ type: "tool_result", is_error: false, text: "Reset requested." }) });
  const ctx = fakeCtx();
  const result = await pi.tools.notesoup_empty_brain.execute("id", { last_word: "w" }, undefined, undefined, ctx);
  assert.equal(result.terminate, true);
  assert.equal(result.content[0].text, "Reset requested.");
  const sent = requests()[0];
  assert.equal(sent.op, "tool");
  assert.deepEqual(sent.request.bound, { cwd: "/work/app", call_id: "id" });
  helperSays({ "tool:notesoup_notes_read": effects({ type: "tool_result", is_error: true, text: "notesoup not_found: no note" }) });
  await assert.rejects(pi.tools.notesoup_notes_read.execute("id", { name: "x" }, undefined, undefined, ctx), /not_found/);
});

test("the worker's compaction is held for the run's settling and written there", async () => {
  const pi = await started();
  helperSays({
    agent_end: effects({ type: "compact", marker: "notesoup-reset g0 r1 a1", generation: 0 }),
    session_before_compact: effects({ type: "answer_compaction", ordinal: 1, pool: "normal", sticky: null, generation: 0, text: BOOT }),
  });
  const ctx = fakeCtx();
  await pi.handlers.agent_end({ messages: [{ role: "assistant", stopReason: "toolUse" }] }, ctx);
  assert.deepEqual(ctx.compacts, [], "ctx.compact() refuses small sessions: not used");
  const settle = await pi.handlers.agent_before_settle({}, ctx);
  assert.equal(settle.entries[0].firstKeptEntryId, null);
  const facts = requests().find((r) => r.request.event === "session_before_compact").request.facts;
  assert.equal(facts.custom_instructions, "notesoup-reset g0 r1 a1");
});

test("the worker's compaction the helper could not answer is cancelled, never Pi's summary", async () => {
  const pi = await started();
  const marker = "notesoup-reset g0 r1 a1";
  helperSays({ agent_end: effects({ type: "compact", marker, generation: 0 }) });
  const ctx = fakeCtx();
  await pi.handlers.agent_end({ messages: [{ role: "assistant", stopReason: "aborted" }] }, ctx);
  // The run ended without settling its boundary: the worker compacts through Pi.
  await pi.handlers.agent_settled({}, ctx);
  assert.equal(ctx.compacts[0]?.customInstructions, marker);
  helperSays({ session_before_compact: { ok: false, error: { code: "helper_failed", message: "injected" } } });
  const event = { reason: "manual", customInstructions: marker, preparation: { firstKeptEntryId: "abc", tokensBefore: 9000 } };
  assert.deepEqual(await pi.handlers.session_before_compact(event, fakeCtx()), { cancel: true });
  // Another compaction the helper could not answer (the person's, Pi's own) stays Pi's.
  const theirs = { ...event, customInstructions: "keep the plan" };
  assert.equal(await pi.handlers.session_before_compact(theirs, fakeCtx()), undefined);
});

test("a helper that cannot run: the tools leave the model's set and the person reads why, once", async () => {
  const pi = fakePi();
  notesoup(pi);
  const ctx = fakeCtx();
  const real = process.env.NOTESOUP_HELPER;
  process.env.NOTESOUP_HELPER = join(dir, "no-such-helper");
  try {
    await pi.handlers.session_start({ reason: "startup" }, ctx);
    assert.deepEqual(pi.getActiveTools(), ["read", "bash"]);
    assert.equal(ctx.notices.length, 1);
    assert.match(ctx.notices[0], /^notesoup is off for this session: notesoup-helper could not run .*; NOTESOUP_HELPER is set to .*no-such-helper: point it at notesoup-helper, or unset it$/);
    await pi.commands.notesoup.handler("", ctx);
    assert.equal(ctx.notices.length, 2, "/notesoup says why it has nothing to show");
    // In print mode (no UI) the session's line was just printed: not again.
    ctx.hasUI = false;
    const written = [];
    const write = process.stderr.write;
    process.stderr.write = (text) => written.push(String(text)) > 0;
    try {
      await pi.commands.notesoup.handler("", ctx);
    } finally {
      process.stderr.write = write;
    }
    assert.deepEqual(written.filter((w) => w.includes("is off")), [], "said once in pi -p");
  } finally {
    process.env.NOTESOUP_HELPER = real;
  }
  // With its helper back, the next session has the tools.
  const again = fakePi();
  notesoup(again);
  helperSays({});
  await again.handlers.session_start({ reason: "startup" }, fakeCtx());
  assert.equal(again.getActiveTools().filter((n) => n.startsWith("notesoup_")).length, 10);
});

/** A helper of the test's own: a shell script with `body`, NOTESOUP_HELPER while `run` runs. */
async function withHelper(body, run) {
  const path = join(dir, `helper-${Math.random().toString(36).slice(2)}.sh`);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  const real = process.env.NOTESOUP_HELPER;
  process.env.NOTESOUP_HELPER = path;
  try {
    return await run();
  } finally {
    process.env.NOTESOUP_HELPER = real;
  }
}

test("a helper gone before it reads its request is a refusal, not an error that ends Pi", async () => {
  const pi = await started();
  // A megabyte of request to a helper that exits at once: the write fails with EPIPE.
  const params = { name: "big", text: "x".repeat(1 << 20) };
  for (let i = 0; i < 5; i++) {
    await withHelper("exit 0", () =>
      assert.rejects(pi.tools.notesoup_notes_write.execute("id", params, undefined, undefined, fakeCtx()), /helper_unavailable/),
    );
  }
});

test("a helper that answers no JSON (NOTESOUP_HELPER naming the notesoup command) is off, and the line names the variable", async () => {
  const pi = fakePi();
  notesoup(pi);
  const ctx = fakeCtx();
  await withHelper("cat >/dev/null; echo \"error: unrecognized subcommand 'pi_hook'\" >&2; exit 2", () =>
    pi.handlers.session_start({ reason: "startup" }, ctx),
  );
  assert.equal(ctx.notices.length, 1);
  assert.match(ctx.notices[0], /no JSON reply: error: unrecognized subcommand 'pi_hook'; NOTESOUP_HELPER is set to .*: point it at notesoup-helper \(not the notesoup command\), or unset it$/);
});

test("a notesoup-helper on PATH that answers no JSON (an older one left there) is named, with the fix", { skip: existsSync(join(HERE, "..", "bin", "notesoup-helper")) && "a helper is staged beside index.ts (scripts/install): PATH is not reached" }, async () => {
  const pi = fakePi();
  notesoup(pi);
  const ctx = fakeCtx();
  const bin = mkdtempSync(join(dir, "path-"));
  const old = join(bin, "notesoup-helper");
  writeFileSync(old, "#!/bin/sh\ncat >/dev/null; echo \"error: unrecognized subcommand 'pi_hook'\" >&2; exit 2\n");
  chmodSync(old, 0o755);
  const [real, path] = [process.env.NOTESOUP_HELPER, process.env.PATH];
  delete process.env.NOTESOUP_HELPER;
  process.env.PATH = `${bin}:${path}`;
  try {
    await pi.handlers.session_start({ reason: "startup" }, ctx);
  } finally {
    process.env.NOTESOUP_HELPER = real;
    process.env.PATH = path;
  }
  assert.equal(ctx.notices.length, 1);
  assert.equal(
    ctx.notices[0],
    `notesoup is off for this session: ${old} pi_hook: exit 2, no JSON reply: error: unrecognized subcommand 'pi_hook'; it is not this extension's helper: pi install npm:@notesoup/pi brings the right one (notesoup doctor shows which one Pi runs)`,
  );
});

/**
 * A copy of the extension in a folder of its own (index.ts and spec.ts), loaded as Pi loads
 * it, with `helper` (a shell script body) as its helper where `at` says: `staged` beside it
 * (scripts/install), `package` in the platform package npm installs, or nowhere (PATH).
 * The session starts with NOTESOUP_HELPER unset and PATH = `path` + ":" + PATH (`path` alone
 * with `pathOnly`): its notices. `npm`: the package.json of `@notesoup/pi` beside it (as npm
 * installs it); `under`: the folder below a fresh one the copy lies in, and `checkout`: a
 * `scripts/install` two folders up, as in a checkout.
 */
async function startCopy({ at, helper, path = [], pathOnly = false, under = "", checkout = false, npm = false }) {
  const top = mkdtempSync(join(dir, "copy-"));
  const folder = join(top, under);
  mkdirSync(folder, { recursive: true });
  if (npm) writeFileSync(join(folder, "package.json"), JSON.stringify({ name: "@notesoup/pi" }));
  if (checkout) {
    mkdirSync(join(folder, "..", "..", "scripts"), { recursive: true });
    writeFileSync(join(folder, "..", "..", "scripts", "install"), "#!/bin/sh\n");
  }
  for (const file of ["index.ts", "spec.ts"]) copyFileSync(join(HERE, "..", file), join(folder, file));
  const platform = `cli-${process.platform}-${process.arch}`;
  const bin = { staged: join(folder, "bin"), package: join(folder, "node_modules", "@notesoup", platform, "bin") }[at];
  if (bin) {
    mkdirSync(bin, { recursive: true });
    if (at === "package") writeFileSync(join(bin, "..", "package.json"), JSON.stringify({ name: `@notesoup/${platform}` }));
    writeFileSync(join(bin, "notesoup-helper"), `#!/bin/sh\n${helper}\n`);
    chmodSync(join(bin, "notesoup-helper"), 0o755);
  }
  const { default: copy } = await import(join(folder, "index.ts"));
  const pi = fakePi();
  copy(pi);
  const ctx = fakeCtx();
  const [real, original] = [process.env.NOTESOUP_HELPER, process.env.PATH];
  delete process.env.NOTESOUP_HELPER;
  process.env.PATH = (pathOnly ? path : [...path, original]).join(":");
  try {
    await pi.handlers.session_start({ reason: "startup" }, ctx);
  } finally {
    process.env.NOTESOUP_HELPER = real;
    process.env.PATH = original;
  }
  return { ctx, bin };
}

const PANIC = "cat >/dev/null; echo \"thread 'main' panicked at helper-bin/src/main.rs:1:1\" >&2; echo more >&2; exit 101";

for (const at of ["staged", "package"]) {
  test(`the extension's own helper (${at}) that fails is said to have failed, with its status and first stderr line, and no npm install advice`, async () => {
    const { ctx, bin } = await startCopy({ at, helper: PANIC });
    assert.equal(ctx.notices.length, 1);
    assert.equal(
      ctx.notices[0],
      `notesoup is off for this session: notesoup-helper failed: ${join(bin, "notesoup-helper")} pi_hook: exit 101, no JSON reply: thread 'main' panicked at helper-bin/src/main.rs:1:1; run notesoup doctor (its pi-helper line says how to mend it)`,
    );
    assert.doesNotMatch(ctx.notices[0], /pi install|not this extension's helper/);
  });
}

test("the extension's own helper killed by a signal says so", async () => {
  const { ctx, bin } = await startCopy({ at: "staged", helper: "kill -KILL $$" });
  assert.equal(
    ctx.notices[0],
    `notesoup is off for this session: notesoup-helper failed: ${join(bin, "notesoup-helper")} pi_hook: killed by SIGKILL, no JSON reply; run notesoup doctor (its pi-helper line says how to mend it)`,
  );
});

test("a helper found on PATH is named by the first executable file there, not a folder or a plain file of that name", async () => {
  const [folder, plain, old] = [0, 1, 2].map(() => mkdtempSync(join(dir, "path-")));
  mkdirSync(join(folder, "notesoup-helper"));
  writeFileSync(join(plain, "notesoup-helper"), "not a program\n");
  writeFileSync(join(old, "notesoup-helper"), "#!/bin/sh\ncat >/dev/null; echo \"error: unrecognized subcommand 'pi_hook'\" >&2; exit 2\n");
  chmodSync(join(old, "notesoup-helper"), 0o755);
  const { ctx } = await startCopy({ at: "nowhere", path: [folder, plain, old] });
  assert.equal(
    ctx.notices[0],
    `notesoup is off for this session: ${join(old, "notesoup-helper")} pi_hook: exit 2, no JSON reply: error: unrecognized subcommand 'pi_hook'; it is not this extension's helper: pi install npm:@notesoup/pi brings the right one (notesoup doctor shows which one Pi runs)`,
  );
});

// No helper anywhere: the fix is the one for how this copy was installed, and a checkout's
// copy is never told to install the npm package beside it (Pi would not start with both).
for (const [where, npm, checkout, fix] of [
  ["the npm package", true, false, /; pi install npm:@notesoup\/pi installs it again with its platform package/],
  ["a checkout", false, true, /; run \/.*\/copy-[^/]+\/scripts\/install: it builds the helper and stages it beside this extension/],
  ["a copy of its own", false, false, /; set NOTESOUP_HELPER to a notesoup-helper, or remove this copy of the extension and pi install npm:@notesoup\/pi/],
]) {
  test(`no helper to start at all, in ${where}: the fix for that install`, async () => {
    const { ctx } = await startCopy({ at: "nowhere", pathOnly: true, under: join("plugins", "pi"), checkout, npm });
    assert.equal(ctx.notices.length, 1);
    assert.match(ctx.notices[0], /^notesoup is off for this session: notesoup-helper could not run \(.*ENOENT.*\)/);
    assert.match(ctx.notices[0], fix);
    if (checkout) assert.doesNotMatch(ctx.notices[0], /pi install/);
  });
}

test("a helper that never answers is killed at HELPER_TIMEOUT_MS and notesoup is off", async () => {
  const pi = fakePi();
  notesoup(pi);
  const ctx = fakeCtx();
  mock.timers.enable({ apis: ["setTimeout"] });
  try {
    // A wrapper that does not exec: its child must be stopped too (it holds the pipes).
    await withHelper(`cat >/dev/null; sleep 600 & echo $! > ${join(dir, "grandchild")}; wait`, async () => {
      const started = pi.handlers.session_start({ reason: "startup" }, ctx);
      // Let the helper start, read its request and start its child, then pass the limit.
      const until = Date.now() + 10_000;
      const childStarted = () => existsSync(join(dir, "grandchild")) && readFileSync(join(dir, "grandchild"), "utf8").trim() !== "";
      while (!childStarted() && Date.now() < until) await new Promise((r) => setImmediate(r));
      mock.timers.tick(30_000);
      await started;
    });
  } finally {
    mock.timers.reset();
  }
  assert.match(ctx.notices[0] ?? "", /^notesoup is off for this session: notesoup-helper did not answer within 30 s/);
  const grandchild = Number(readFileSync(join(dir, "grandchild"), "utf8"));
  assert.ok(grandchild > 1, "the helper started its child");
  await new Promise((r) => setTimeout(r, 200));
  // Gone, or dead and waiting for its new parent to reap it (Z in /proc).
  let state = "gone";
  try {
    state = readFileSync(`/proc/${grandchild}/stat`, "utf8").split(") ")[1].split(" ")[0];
  } catch {
    // no such process
  }
  assert.ok(state === "gone" || state === "Z", `the helper's own child was stopped with it (state ${state})`);
});

test("a session the helper cannot keep (its notes home unwritable) is off, said once; a refusal of one event is not", async () => {
  const pi = fakePi();
  notesoup(pi);
  const ctx = fakeCtx();
  helperSays({ session_start: { ok: false, error: { code: "window_store", message: "create the folder `/ro/windows`: Read-only file system; set NOTESOUP_HOME", off: true } } });
  await pi.handlers.session_start({ reason: "startup" }, ctx);
  assert.deepEqual(pi.getActiveTools(), ["read", "bash"]);
  assert.deepEqual(ctx.notices, ["notesoup is off for this session: create the folder `/ro/windows`: Read-only file system; set NOTESOUP_HOME"]);
  // Off: no later event runs the helper (a hung one would cost every event its wait).
  helperSays({});
  await pi.handlers.before_agent_start({}, ctx);
  await pi.handlers.tool_result({ isError: false, content: [] }, ctx);
  assert.deepEqual(requests(), []);
  // A helper of another version may predate `off`: its code alone turns notesoup off.
  const older = fakePi();
  notesoup(older);
  const told = fakeCtx();
  helperSays({ session_start: { ok: false, error: { code: "version_mismatch", message: "the extension is 0.1.0, the helper 0.0.9" } } });
  await older.handlers.session_start({ reason: "startup" }, told);
  // The helper NOTESOUP_HELPER names (the tests' fake): the fix is the variable.
  assert.deepEqual(told.notices, [
    `notesoup is off for this session: the extension is 0.1.0, the helper 0.0.9; NOTESOUP_HELPER is set to ${process.env.NOTESOUP_HELPER}: point it at a notesoup-helper of this version, or unset it`,
  ]);
  const again = fakePi();
  notesoup(again);
  const quiet = fakeCtx();
  helperSays({ session_start: { ok: false, error: { code: "internal", message: "a bug" } } });
  await again.handlers.session_start({ reason: "startup" }, quiet);
  assert.equal(again.getActiveTools().filter((n) => n.startsWith("notesoup_")).length, 10);
  assert.deepEqual(quiet.notices, []);
  // An off refusal after the start is that event's alone: the next event still asks.
  helperSays({ tool_result: { ok: false, error: { code: "window_store", message: "disk full", off: true } } });
  await again.handlers.tool_result({ isError: false, content: [] }, quiet);
  await again.handlers.before_agent_start({}, quiet);
  assert.deepEqual(requests().map((r) => r.request.event), ["tool_result", "before_agent_start"]);
  assert.deepEqual(quiet.notices, []);
});

test("a tool call of a run with no session file (pi --no-session) is bound as a subagent's", async () => {
  const pi = await started();
  helperSays({});
  const ctx = fakeCtx();
  ctx.sessionManager.getSessionFile = () => undefined;
  await assert.rejects(pi.tools.notesoup_empty_brain.execute("id", { last_word: "w" }, undefined, undefined, ctx), /no answer/);
  assert.deepEqual(requests()[0].request.bound, { cwd: "/work/app", agent_id: "s1", call_id: "id" });
});

test("a prompt and the commands of a run with no session file name it a subagent's", async () => {
  const pi = await started();
  helperSays({});
  const ctx = fakeCtx();
  ctx.sessionManager.getSessionFile = () => undefined;
  await pi.handlers.before_agent_start({ systemPrompt: "" }, ctx);
  for (const name of ["notesoup", "empty", "fresh-window"]) await pi.commands[name].handler("", ctx);
  const agents = requests().map((r) => [r.request.event, r.request.facts.agent]);
  assert.deepEqual(agents, [["before_agent_start", "subagent"], ["command", "subagent"], ["command", "subagent"], ["command", "subagent"]]);
  // With a session file the same events are the main agent's.
  const main = fakeCtx();
  await pi.handlers.before_agent_start({ systemPrompt: "" }, main);
  assert.equal(requests().at(-1).request.facts.agent, "main");
});
