// notesoup's hooks module for Claude Code: an imperative shell.
//
// It gathers the facts of an event, asks `notesoup-helper <op>` (one JSON request on
// stdin, one JSON reply on stdout, through `$.process.run`) and carries out what the
// reply says. It decides nothing itself: threshold math, history, boot text and the
// reset decisions are the helper's. See ../README.md for the map of this file.
//
// The validator wants `$` used only as `$.noun.method(...)` and passed only to
// functions declared at the top level of this file, so every hook is one of those.
// tests/gate.py scans this file: no `$.session.compact`, no `{skip}` after `next()` in
// the compaction hook, and `$.command.run` only from `turn.complete` or a timer.

import type { EngineInterface, Hook, MatchedHook, Register } from 'claude-code';
import { COMMANDS, TOOLS, TOOL_NAMES } from './spec.ts';

type Fields = { [key: string]: unknown };
type Failure = { ok: false; error: { code: string; message: string } };
type Reply = ({ ok: true } & Fields) | Failure;
type Agent = 'main' | 'subagent';

const HOST = 'claude';
const BOOT_LINE = '<notesoup-boot window="';

// ---- module state: lost on reload (by design: the cap is runtime-only) ----------

/** Read once per load: the switches the environment sets. */
let switches: { disabled: boolean; disableCompact: boolean; helper: string } | undefined;
/** Keys of the lines already logged once. */
const loggedOnce = new Set<string>();
/** Whether the session has a person at a terminal (session.start says). */
let interactive = false;

/** The session this window belongs to, refreshed lazily from `$.session`. */
let identity: string | undefined;
let sessionId = '';
/**
 * This process (and session binding): the helper keeps the flow of each session on disk,
 * and a flow last saved under another token is `loaded` (a new process, a reload, an
 * identity change or session end: in-flight work dropped, the cap cleared).
 */
const PROCESS = crypto.randomUUID();
let epoch = 0;

/** History binding: the transcript Claude named, and the newest main row that was kept. */
let transcriptPath: string | undefined;
let head: string | undefined;

/** The limits last resolved with their inputs (the cap itself is the flow's). */
let limitsCache: { inputs: string; reply: Reply } | undefined;
/** The engine's usage breakdown last read, with the inputs it depends on (the budget's `usage`). */
let usageCache: { key: string; usage: unknown } | undefined;
/** What the helper's last `hook` reply said is worth a call (`watch`: the append doors). */
let watch: { append_doors?: unknown } = {};

/** The reset flow's last hints (window ordinal, warned, cap...), and the chain of `reset` calls. */
let hints: Fields = {};
let generation = 0;
let resetChain: Promise<unknown> = Promise.resolve();
/** The boot handed to a compaction: its text, the token the flow knows it by, its generation. */
let builtBoot: { text: string; token: string; generation: number } | undefined;
let boundarySeen = false;
/** The generation whose continuation prompt started a turn that has not completed yet. */
let continuationTurn: number | undefined;
/** Interactive: the generation whose answered auto compaction still owes its evidence. */
let evidenceDue: number | undefined;

// ---- small pure helpers ------------------------------------------------------------

function isObject(v: unknown): v is Fields {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function refusal(code: string, message: string): Failure {
  return { ok: false, error: { code, message } };
}

function textOf(reply: Reply): string {
  if (!reply.ok) return `notesoup ${reply.error.code}: ${reply.error.message}`;
  return typeof reply.text === 'string' ? reply.text : JSON.stringify(reply);
}

function agentOf(e: { agentId?: string }): Agent {
  return e.agentId === undefined ? 'main' : 'subagent';
}

/** The window id of the contract: `claude:<sessionId>:<ordinal>`, once the flow knows it. */
function windowId(): string | undefined {
  const n = num(hints.ordinal);
  return n === undefined ? undefined : `${HOST}:${sessionId}:${n}`;
}

/** The runtime cap the flow holds, as the `limits` op takes it. */
function capArg(): string | null {
  const n = num(hints.cap);
  return n === undefined ? null : String(n);
}

/** The window id named by a boot's first line, when text holds one. */
function retainedWindow(text: string): string | undefined {
  const at = text.indexOf(BOOT_LINE);
  if (at < 0) return undefined;
  const end = text.indexOf('"', at + BOOT_LINE.length);
  return end < 0 ? undefined : text.slice(at + BOOT_LINE.length, end);
}

/** The text blocks of an API content list, joined. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b: unknown) => (isObject(b) && b.type === 'text' && typeof b.text === 'string' ? b.text : ''))
    .join('');
}

// ---- the helper ----------------------------------------------------------------------

async function readSwitches($: EngineInterface) {
  if (switches === undefined) {
    const disabled = (await $.env.get('NOTESOUP_DISABLED')) !== undefined;
    const disableCompact = (await $.env.get('DISABLE_COMPACT')) !== undefined;
    const override = await $.env.get('NOTESOUP_HELPER');
    const helper = override !== undefined && override !== '' ? override : `${$.plugin.root}/bin/notesoup-helper`;
    switches = { disabled, disableCompact, helper };
  }
  return switches;
}

function logOnce($: EngineInterface, key: string, text: string) {
  if (loggedOnce.has(key)) return;
  loggedOnce.add(key);
  $.ui.log(`notesoup: ${text}`, { to: 'debug' });
}

/** Runs one helper op; never throws: a helper that cannot run is a refusal like any other. */
async function helper($: EngineInterface, op: string, request: Fields): Promise<Reply> {
  const { helper: bin } = await readSwitches($);
  let out;
  try {
    out = await $.process.run([bin, op], { stdin: JSON.stringify(request), timeoutMs: 30_000 });
  } catch (err) {
    return refusal('helper_unavailable', `${bin} ${op} could not run (${String(err)}); run scripts/install`);
  }
  try {
    const reply: unknown = JSON.parse(out.stdout.trim());
    if (isObject(reply) && reply.ok === true) return { ...reply, ok: true };
    if (isObject(reply) && reply.ok === false && isObject(reply.error)) {
      return refusal(str(reply.error.code) ?? 'helper_failed', str(reply.error.message) ?? 'no message');
    }
  } catch {
    // reported below
  }
  const why = out.stderr.trim().split('\n')[0] ?? '';
  return refusal('helper_failed', `${op}: exit ${out.exitCode}, no JSON reply${why ? `: ${why}` : ''}`);
}

// ---- identity and history binding -----------------------------------------------

/** Re-reads the session's identity; a change forgets the window, the cap and the flow. */
async function refreshIdentity($: EngineInterface) {
  const [id, cwd] = await Promise.all([$.session.id(), $.session.cwd()]);
  const now = `${id}\n${cwd}`;
  if (identity !== undefined && identity !== now) await forgetSession($, 'identity changed');
  identity = now;
  sessionId = id.replace(/[^A-Za-z0-9_-]/g, '') || HOST;
}

/**
 * Session end, /clear, /resume, /branch, identity change: this process lets the session's
 * flow go (a new epoch: the next step of any session's flow finds it `loaded`); the
 * window itself is the session's and stays on disk.
 */
async function forgetSession($: EngineInterface, why: string) {
  epoch += 1;
  limitsCache = undefined;
  head = undefined;
  builtBoot = undefined;
  boundarySeen = false;
  evidenceDue = undefined;
  continuationTurn = undefined;
  hints = {};
  $.ui.log(`notesoup: ${why}: the session's flow let go (epoch ${epoch})`, { to: 'debug' });
}

/** The current-session selector history ops take, when the binding is complete. */
function currentSession(): Fields | undefined {
  return transcriptPath !== undefined && head !== undefined ? { transcript_path: transcriptPath, head } : undefined;
}

/**
 * Tells the flow which window the conversation is in: the newest boot Claude kept names
 * it; else history_state for the head. The flow adopts only a newer ordinal (a re-sent
 * older boot never takes a window back).
 */
async function knowOrdinal($: EngineInterface) {
  const kept = (await keptBoots($)).map(retainedWindow).filter((w) => w !== undefined);
  const last = kept[kept.length - 1];
  const n = last === undefined ? Number.NaN : Number(last.slice(last.lastIndexOf(':') + 1));
  if (Number.isInteger(n)) await windowSeen($, n);
  else await resolveOrdinal($);
}

/** Asks history_state for the head's window when the flow does not know it yet. */
async function resolveOrdinal($: EngineInterface) {
  const session = currentSession();
  if (num(hints.ordinal) !== undefined || session === undefined) return;
  const reply = await helper($, 'history_state', session);
  const n = reply.ok ? num(reply.ordinal) : undefined;
  if (n !== undefined) await windowSeen($, n);
}

async function windowSeen($: EngineInterface, n: number) {
  await runEffects($, await resetEvent($, { type: 'window_seen', ordinal: n }));
}

// ---- budget: limits, measurement, warning ------------------------------------------

type Measure = { value: number; limits: Fields } | undefined;

/** The points for this session: the helper's `limits`, re-asked only when an input changed. */
async function resolveLimits($: EngineInterface, window: number | undefined, capOverride?: string | null): Promise<Reply> {
  const [model, settings] = await Promise.all([$.session.model(), $.settings.read()]);
  const env: Fields = {
    CLAUDE_CODE_AUTO_COMPACT_WINDOW: await $.env.get('CLAUDE_CODE_AUTO_COMPACT_WINDOW'),
    CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: await $.env.get('CLAUDE_AUTOCOMPACT_PCT_OVERRIDE'),
    DISABLE_AUTO_COMPACT: await $.env.get('DISABLE_AUTO_COMPACT'),
    DISABLE_COMPACT: await $.env.get('DISABLE_COMPACT'),
    CLAUDE_CODE_MAX_OUTPUT_TOKENS: await $.env.get('CLAUDE_CODE_MAX_OUTPUT_TOKENS'),
  };
  const cap = capOverride !== undefined ? capOverride : capArg();
  const inputs = JSON.stringify({ model, settings, env, cap, window });
  if (limitsCache?.inputs === inputs) return limitsCache.reply;
  const usage = await $.session.usage({ breakdown: 'summary' });
  const reply = await helper($, 'limits', { usage, settings, env, model, cap });
  limitsCache = { inputs, reply };
  if (!reply.ok) logOnce($, `limits:${reply.error.code}`, `no budget points (${reply.error.message}); warnings skipped`);
  return reply;
}

/** The context fill in the points' unit, with the points; undefined when either is missing. */
async function measure($: EngineInterface): Promise<Measure> {
  const usage = await $.session.usage();
  const limits = await resolveLimits($, usage.context.window);
  if (!limits.ok) return undefined;
  const value = limits.unit === 'percent' ? usage.context.percent : usage.context.tokens;
  if (value === undefined) {
    logOnce($, 'no-usage', 'the engine reported no context usage yet; warnings skipped until it does');
    return undefined;
  }
  return { value, limits };
}

/** What the reset flow reads about the budget (`context` of turn_step/turn_complete). */
function flowContext(m: Measure): Fields | undefined {
  if (m === undefined || num(m.limits.hard) === undefined) return undefined;
  return { tokens: m.value, hard: m.limits.hard, auto_clear: m.limits.auto_clear === true };
}

async function loadWarning($: EngineInterface, m: Measure): Promise<string | undefined> {
  if (m === undefined) return undefined;
  // `used` and `clear_at` are in the points' unit: tokens, or percent in the fallback; the
  // unit goes along so the countdown is labelled by it.
  const request: Fields = { host: HOST, used: m.value, clear_at: m.limits.hard };
  if (str(m.limits.unit) !== undefined) request.unit = m.limits.unit;
  const reply = await helper($, 'warning', request);
  if (!reply.ok) {
    logOnce($, `warning:${reply.error.code}`, `budget warning not loaded: ${reply.error.message}`);
    return undefined;
  }
  return str(reply.text);
}

// ---- the reset flow: events in, effects out ------------------------------------------

/** Sends one event to the `reset` op, serialized, with the newest blob; returns its effects. */
function resetEvent($: EngineInterface, event: Fields): Promise<Fields[]> {
  const run = resetChain.then(() => sendReset($, event));
  resetChain = run.catch(() => undefined);
  return run;
}

async function sendReset($: EngineInterface, event: Fields): Promise<Fields[]> {
  // The helper keeps the session's flow on disk: it outlives this process.
  const id = (await $.session.id()).replace(/[^A-Za-z0-9_-]/g, '') || HOST;
  const session = { harness: HOST, id, process: `${PROCESS}:${epoch}` };
  const reply = await helper($, 'reset', { session, event });
  if (!reply.ok) {
    logOnce($, `reset:${str(event.type)}:${reply.error.code}`, `reset refused ${str(event.type)}: ${reply.error.message}`);
    return [];
  }
  hints = isObject(reply.hints) ? reply.hints : {};
  generation = num(hints.generation) ?? generation;
  const effects = Array.isArray(reply.effects) ? reply.effects.filter(isObject) : [];
  const detail = event.type === 'natural_input' || event.type === 'commit_evidence' ? ` ${JSON.stringify(event)}` : '';
  $.ui.log(`notesoup: reset ${str(event.type)}${detail} -> ${effects.map((fx) => str(fx.type)).join(', ') || 'nothing'}`, { to: 'debug' });
  return effects;
}

/**
 * The budget facts a `hook` call reads: the usage breakdown (read again only when an input
 * it depends on changed), the fill now, settings, model and the threshold variables.
 */
async function budgetFacts($: EngineInterface): Promise<Fields> {
  const [model, settings, now] = await Promise.all([$.session.model(), $.settings.read(), $.session.usage()]);
  // The threshold variables (`notesoup_thresholds::Env::NAMES`); the engine wants each named.
  const env: Fields = {
    CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: await $.env.get('CLAUDE_AUTOCOMPACT_PCT_OVERRIDE'),
    CLAUDE_CODE_AUTO_COMPACT_WINDOW: await $.env.get('CLAUDE_CODE_AUTO_COMPACT_WINDOW'),
    DISABLE_AUTO_COMPACT: await $.env.get('DISABLE_AUTO_COMPACT'),
    DISABLE_COMPACT: await $.env.get('DISABLE_COMPACT'),
    CLAUDE_CODE_MAX_OUTPUT_TOKENS: await $.env.get('CLAUDE_CODE_MAX_OUTPUT_TOKENS'),
  };
  const key = JSON.stringify({ model, settings, env, window: now.context.window });
  if (usageCache?.key !== key) usageCache = { key, usage: await $.session.usage({ breakdown: 'summary' }) };
  return { usage: usageCache.usage, context: now.context, settings, env, model };
}

/** One engine hook call, whole, to the helper's `hook` op (serialized with the reset events). */
function hookEvent($: EngineInterface, event: string, facts: Fields): Promise<Fields[]> {
  const run = resetChain.then(() => sendHook($, event, facts));
  resetChain = run.catch(() => undefined);
  return run;
}

async function sendHook($: EngineInterface, event: string, facts: Fields): Promise<Fields[]> {
  const id = (await $.session.id()).replace(/[^A-Za-z0-9_-]/g, '') || HOST;
  const session = { harness: HOST, id, process: `${PROCESS}:${epoch}` };
  const reply = await helper($, 'hook', { event, session, facts });
  if (!reply.ok) {
    logOnce($, `hook:${event}:${reply.error.code}`, `hook ${event} refused: ${reply.error.message}`);
    return [];
  }
  hints = isObject(reply.hints) ? reply.hints : {};
  generation = num(hints.generation) ?? generation;
  watch = isObject(reply.watch) ? reply.watch : {};
  for (const line of Array.isArray(reply.log) ? reply.log : []) logOnce($, `hook:${String(line)}`, String(line));
  const effects = Array.isArray(reply.effects) ? reply.effects.filter(isObject) : [];
  $.ui.log(`notesoup: hook ${event} -> ${effects.map((fx) => str(fx.type)).join(', ') || 'nothing'}`, { to: 'debug' });
  return effects;
}

/** Effects that answer the hook that sent the event; the rest are carried out in place. */
const ANSWERS = new Set(['tool_result', 'end_turn', 'answer_compaction', 'veto_compaction', 'native_compaction']);

/**
 * Carries out every effect that is not the hook's own answer, in order, and returns the
 * answers (and report texts) for the hook. A `compact` met here (outside turn.complete)
 * goes to the non-held waiter: a timer, so no hook holds the command.
 */
async function runEffects(
  $: EngineInterface,
  effects: Fields[],
): Promise<{ answers: Fields[]; reports: string[]; context: string[]; warned?: number }> {
  const out: { answers: Fields[]; reports: string[]; context: string[]; warned?: number } = { answers: [], reports: [], context: [] };
  for (const fx of effects) {
    const type = str(fx.type);
    if (type !== undefined && ANSWERS.has(type)) out.answers.push(fx);
    else if (type === 'warn' && str(fx.text) !== undefined) {
      // The budget warning, its text filled: it rides on the prompt or result at hand.
      out.context.push(str(fx.text) ?? '');
      out.warned = num(fx.generation);
    }
    else if (type === 'report') out.reports.push(str(fx.text) ?? '');
    else if (type === 'cancel') builtBoot = undefined;
    else if (type === 'continue') continueAfterReset($, fx);
    else if (type === 'compact') $.clock.after(0, () => void compactNow($, fx));
    else if (type === 'closeout') {
      const c = await closeout($, fx);
      out.context.push(...c.context);
      out.reports.push(...c.reports);
    }
    else logOnce($, `effect:${type}`, `unknown reset effect ${JSON.stringify(fx)}`);
  }
  return out;
}

/**
 * `continue`: queue the fresh window's first prompt (not awaited: the run must stay alive).
 * Its outcome goes to the flow once known: dropped or rejected here; otherwise when its turn
 * completes (an API error there is a failed continuation, not a started one).
 */
function continueAfterReset($: EngineInterface, fx: Fields) {
  const gen = num(fx.generation) ?? generation;
  $.prompt
    .submit({ text: str(fx.text) ?? '' })
    .then((r) => {
      if (r.drop !== undefined) return reportContinuation($, gen, 'dropped', r.drop);
      continuationTurn = gen;
      return undefined;
    })
    .catch((err: unknown) => reportContinuation($, gen, 'failed', String(err)));
}

async function reportContinuation($: EngineInterface, gen: number, status: string, reason?: string) {
  $.ui.log(`notesoup: continuation ${status} (generation ${gen})${reason ? `: ${reason}` : ''}`, { to: 'debug' });
  const event: Fields = { type: 'continuation', generation: gen, status };
  if (reason !== undefined) event.reason = reason;
  show($, (await runEffects($, await resetEvent($, event))).reports);
}

/** `compact`: the reset's own compaction through the command path, marked so it is admitted. */
async function compactNow($: EngineInterface, fx: Fields) {
  const gen = num(fx.generation) ?? generation;
  let status = 'ok';
  try {
    await $.command.run({ command: 'compact', args: str(fx.marker) ?? '' });
  } catch (err) {
    status = 'failed';
    $.ui.log(`notesoup: the reset's compaction was refused: ${String(err)}`, { to: 'debug' });
  }
  const effects = await resetEvent($, { type: 'compaction_result', generation: gen, status });
  show($, (await runEffects($, effects)).reports);
  // Interactive sessions raise no session.append for the compaction rows (harness README):
  // the evidence is what the conversation now holds. Headless evidence comes from onAppend.
  if (status === 'ok' && interactive) {
    show($, (await runEffects($, await resetEvent($, await messagesEvidence($, gen)))).reports);
  }
}

/**
 * The text blocks of user messages that hold a boot, oldest first. The API form is read:
 * a boot attached through prompt.context is kept as an attachment, which the plain form
 * of `$.session.messages()` leaves out (measured on --resume); and the API form merges
 * adjacent user messages, so each block is looked at on its own.
 */
async function keptBoots($: EngineInterface): Promise<string[]> {
  const messages = await $.session.messages({ as: 'api' });
  const texts: string[] = [];
  for (const m of messages) {
    if (m.role !== 'user') continue;
    const blocks: unknown[] = Array.isArray(m.content) ? m.content : [{ type: 'text', text: m.content }];
    for (const block of blocks) {
      const text = contentText([block]);
      if (retainedWindow(text) !== undefined) texts.push(text);
    }
  }
  return texts;
}

/** Interactive: the evidence an answered auto compaction owes, before the next main event. */
async function owedEvidence($: EngineInterface) {
  const gen = evidenceDue;
  if (gen === undefined) return;
  evidenceDue = undefined;
  show($, (await runEffects($, await resetEvent($, await messagesEvidence($, gen)))).reports);
}

/** Interactive commit evidence: is the boot we built installed, unchanged, in the conversation? */
async function messagesEvidence($: EngineInterface, gen: number): Promise<Fields> {
  const boot = builtBoot;
  const opening = boot?.text.split('\n')[0];
  const found = (await keptBoots($)).find((t) => opening !== undefined && t.startsWith(opening));
  if (boot === undefined || found === undefined) {
    return { type: 'commit_evidence', generation: gen, source: 'messages', evidence: 'missing' };
  }
  // Blocks of the API form may carry the line break that joined them: compare without it.
  const intact = found.trimEnd() === boot.text.trimEnd();
  return { type: 'commit_evidence', generation: gen, source: 'messages', evidence: 'boot', uuid: boot.token, intact };
}

/**
 * `closeout`: the budget warning as a hidden close-out turn, or as this command's context.
 * A close-out that cannot start returns the flow's reports (its cancel) to the command, so
 * the person reads them where the command answers (stdout under -p), not only in a log.
 */
async function closeout($: EngineInterface, fx: Fields): Promise<{ context: string[]; reports: string[] }> {
  const gen = num(fx.generation) ?? generation;
  const m = await measure($);
  const text = m === undefined ? undefined : await loadWarning($, m);
  if (text === undefined) {
    const reason = m === undefined ? 'no context usage measured yet' : 'warning: not loaded';
    const failed = await runEffects($, await resetEvent($, { type: 'closeout', generation: gen, status: 'failed', reason }));
    return { context: [], reports: failed.reports };
  }
  if (fx.mode === 'current_turn') return { context: [text], reports: [] };
  // Submitted from a timer: the command.run hook that got this effect holds the turn the
  // prompt would wait on, and the host refuses a submit from there (measured).
  $.clock.after(0, () => submitCloseout($, gen, text));
  return { context: [], reports: [] };
}

function submitCloseout($: EngineInterface, gen: number, text: string) {
  $.prompt
    .submit({ text })
    .then((r) => (r.drop === undefined ? undefined : closeoutFailed($, gen, 'dropped', r.drop)))
    .catch((err: unknown) => closeoutFailed($, gen, 'failed', String(err)));
}

async function closeoutFailed($: EngineInterface, gen: number, status: string, reason: string) {
  show($, (await runEffects($, await resetEvent($, { type: 'closeout', generation: gen, status, reason }))).reports);
}

function show($: EngineInterface, reports: string[]) {
  // The engine leads a plugin's transcript line with the plugin's name already.
  for (const r of reports) if (r !== '') $.ui.log(r.replace(/^notesoup: /, ''), { to: 'transcript' });
}

/**
 * Builds the boot for a window: the helper's `boot` (its text and, after a reset, the
 * handoff paragraph of the `reset` pool, `normal` or `forced`).
 */
async function buildBoot($: EngineInterface, windowOrdinal: number, pool: string | null, lastWord: string | null): Promise<Reply> {
  if (identity === undefined) await refreshIdentity($);
  const request: Fields = { cwd: await $.session.cwd(), host: HOST, session: sessionId, ordinal: windowOrdinal, history: transcriptPath !== undefined };
  if (pool !== null) request.reset = pool;
  if (lastWord !== null && lastWord !== '') request.last_word = lastWord;
  return helper($, 'boot', request);
}

// ---- session.start: registration -------------------------------------------------

/**
 * Registers every tool and command at once: the engine rebuilds the plugin's tool server on
 * each registration, so awaiting them in turn paid one rebuild after another (BENCHMARKS.md,
 * start-up rows: 9 registrations in turn 2.22x the empty mod, at once 1.29x).
 */
async function registerAll($: EngineInterface) {
  await Promise.all([
    ...TOOLS.map((t) => $.tool.register({ name: t.name, description: t.description, inputSchema: t.inputSchema, isDeferred: false })),
    ...COMMANDS.map((c) => $.command.register(c)),
  ]);
}

const onSessionStart: Hook<'session.start'> = async ($, e, next) => {
  const sw = await readSwitches($);
  if (sw.disabled) {
    logOnce($, 'disabled', 'NOTESOUP_DISABLED is set: nothing registered, every event passes through');
    return next(e);
  }
  interactive = e.isInteractive;
  // The helper reads the switch (Claude's truthiness) while the tools register.
  const env = { DISABLE_COMPACT: await $.env.get('DISABLE_COMPACT') };
  const [, effects] = await Promise.all([registerAll($), hookEvent($, 'session.start', { env })]);
  show($, (await runEffects($, effects)).reports);
  if (hints.disable_compact === true) logOnce($, 'disable-compact', 'DISABLE_COMPACT is set: no budget warnings, no explicit resets');
  return next(e);
};

/** Binds the current transcript: the only way history learns the path. */
const onClassicStart: Hook<'classic.SessionStart'> = async ($, e, next) => {
  if ((await readSwitches($)).disabled) return next(e);
  transcriptPath = e.transcript_path;
  if (e.source !== 'compact') head = undefined;
  return next(e);
};

const onSessionEnd: Hook<'session.end'> = async ($, e, next) => {
  if ((await readSwitches($)).disabled) return next(e);
  transcriptPath = undefined;
  await forgetSession($, `session end (${e.reason})`);
  identity = undefined;
  return next(e);
};

// ---- boot: prompt.context -------------------------------------------------------------

const onPromptContext: Hook<'prompt.context'> = async ($, e, next) => {
  if ((await readSwitches($)).disabled) return next(e);
  await refreshIdentity($);
  // A boot Claude kept (resume, reload) stands: the flow learns its ordinal (only a newer
  // one counts), nothing is attached twice.
  if ((await keptBoots($)).length > 0) {
    await knowOrdinal($);
    return next(e);
  }
  await resolveOrdinal($);
  const n = num(hints.ordinal) ?? 0;
  const reply = await buildBoot($, n, null, null);
  if (!reply.ok || typeof reply.text !== 'string') {
    logOnce($, 'boot', `no boot attached: ${textOf(reply)}`);
    return next(e);
  }
  await windowSeen($, n);
  return next({ ...e, blocks: [...e.blocks, { name: 'notesoup', text: reply.text }] });
};

// ---- prompt.submit: natural input, the budget warning --------------------------------

const onPromptSubmit: Hook<'prompt.submit'> = async ($, e, next) => {
  if ((await readSwitches($)).disabled) return next(e);
  await refreshIdentity($);
  const facts: Fields = { origin: e.origin.kind, command: e.command !== undefined };
  if (e.command === undefined) facts.budget = await budgetFacts($);
  const { context, reports, warned } = await runEffects($, await hookEvent($, 'prompt.submit', facts));
  show($, reports);
  if (context.length === 0) return next(e);
  const r = await next({ ...e, context: [...(e.context ?? []), ...context] });
  // A dropped prompt did not carry the warning: it stays due (the opening step of the
  // prompt's turn counts it delivered).
  if (r.drop !== undefined && warned !== undefined) await hookEvent($, 'prompt.dropped', { generation: warned });
  return r;
};

// ---- turns ----------------------------------------------------------------------------

const onTurnStep: Hook<'turn.step'> = async function* ($, e, next) {
  if ((await readSwitches($)).disabled) return yield* next(e);
  const agent = agentOf(e);
  if (agent === 'main') await owedEvidence($);
  const facts: Fields = { agent, turn_id: e.turnId, index: e.index };
  if (agent === 'main' && e.index > 0) facts.budget = await budgetFacts($);
  const { answers, reports } = await runEffects($, await hookEvent($, 'turn.step', facts));
  show($, reports);
  const end = answers.find((a) => a.type === 'end_turn');
  if (end !== undefined) {
    const text = str(end.text) ?? '';
    yield { kind: 'text', index: 0, text };
    yield { kind: 'stop', stopReason: 'end_turn', usage: null };
    return { turnId: e.turnId, index: e.index, answer: text, toolUses: [], stopReason: 'end_turn', usage: null };
  }
  return yield* next(e);
};

const onTurnComplete: Hook<'turn.complete'> = async ($, e, next) => {
  const r = await next(e);
  if ((await readSwitches($)).disabled) return r;
  const agent = agentOf(e);
  const event: Fields = { type: 'turn_complete', agent, turn_id: e.turnId, reason: e.reason };
  if (agent === 'main') {
    await owedEvidence($);
    const gen = continuationTurn;
    if (gen !== undefined) {
      continuationTurn = undefined;
      if (e.reason === 'answer') await reportContinuation($, gen, 'started');
      else await reportContinuation($, gen, 'failed', `its turn ended: ${e.reason}`);
    }
    const context = flowContext(await measure($));
    if (context !== undefined) event.context = context;
  }
  const effects = await resetEvent($, event);
  // The reset's compaction starts here, not awaited: this hook is the one the command may run from.
  for (const fx of effects) if (fx.type === 'compact') void compactNow($, fx);
  show($, (await runEffects($, effects.filter((fx) => fx.type !== 'compact'))).reports);
  return r;
};

// ---- compaction ----------------------------------------------------------------------

type CompactAnswer = { kind: 'veto'; notice: string; quiet: boolean } | { kind: 'boot'; text: string } | { kind: 'native' };

/**
 * What to answer a compaction with, as the flow says, in the order EVENTS.md gives:
 * `compaction` -> `answer_compaction` -> build the boot -> `boot` -> its veto or native, if
 * any, else the boot. Nothing here calls `next`: the hook does, once, at the end.
 */
async function compactAnswer($: EngineInterface, e: { trigger: string; agentId?: string; instructions?: string }): Promise<CompactAnswer> {
  const event: Fields = { type: 'compaction', agent: agentOf(e), trigger: e.trigger };
  if (e.instructions !== undefined) event.instructions = e.instructions;
  // The flow names the window the boot opens: it must know the current one first.
  if (event.agent === 'main') {
    if (identity === undefined) await refreshIdentity($);
    await knowOrdinal($);
  }
  const first = await runEffects($, await resetEvent($, event));
  show($, first.reports);
  const decided = settled(first.answers);
  if (decided !== undefined) return decided;
  const answer = first.answers.find((a) => a.type === 'answer_compaction');
  if (answer === undefined) return { kind: 'native' };
  const gen = num(answer.generation) ?? generation;
  const fresh = num(answer.ordinal) ?? 1;
  const reply = await buildBoot($, fresh, str(answer.pool) ?? 'forced', str(answer.sticky) ?? null);
  if (!reply.ok || typeof reply.text !== 'string') {
    const failed = await runEffects($, await resetEvent($, { type: 'boot', generation: gen, status: 'failed' }));
    show($, [`no boot for the fresh window (${textOf(reply)})`, ...failed.reports]);
    // A failed boot build falls back to Claude's own summary unless the flow vetoes.
    return settled(failed.answers) ?? { kind: 'native' };
  }
  const handoff = str(reply.handoff);
  const text = handoff === undefined || handoff === '' ? reply.text : `${reply.text}\n${handoff}`;
  const token = crypto.randomUUID();
  const acquired = await runEffects($, await resetEvent($, { type: 'boot', generation: gen, status: 'acquired', uuid: token, text }));
  show($, acquired.reports);
  const after = settled(acquired.answers);
  if (after !== undefined) return after;
  builtBoot = { text, token, generation: gen };
  boundarySeen = false;
  // Interactive sessions raise no append for the compaction rows: unless the worker's own
  // command resolves (and looks), the next main step looks at the conversation instead.
  if (interactive && e.trigger !== 'manual') evidenceDue = gen;
  return { kind: 'boot', text };
}

/** A veto or a native answer among the effects, if the flow gave one. */
function settled(answers: Fields[]): CompactAnswer | undefined {
  const veto = answers.find((a) => a.type === 'veto_compaction');
  if (veto !== undefined) return { kind: 'veto', notice: str(veto.notice) ?? 'notesoup: compaction vetoed', quiet: veto.quiet === true };
  if (answers.some((a) => a.type === 'native_compaction')) return { kind: 'native' };
  return undefined;
}

const onCompact: Hook<'session.compact'> = async ($, e, next) => {
  if ((await readSwitches($)).disabled) return next(e);
  const answer = await compactAnswer($, e);
  if (answer.kind === 'veto') {
    // A quiet veto is one nobody asked for (the reset worker's own, no longer needed).
    if (answer.quiet) $.ui.log(answer.notice, { to: 'debug' });
    else $.ui.log(answer.notice.replace(/^notesoup: /, ''), { to: 'transcript' });
    return { skip: answer.notice };
  }
  if (answer.kind === 'boot') {
    // The flow opened the boot's window when the boot was acquired.
    return { messages: [{ role: 'user', text: answer.text, toolUses: [] }] };
  }
  const r = await next(e);
  // Claude's own compaction of the main conversation replaced it (a removed boot with it):
  // the window advances, as a compact boundary does in history, and prompt.context, which
  // runs again after a compaction, attaches the next window's boot.
  if (e.agentId === undefined && r.messages !== undefined) {
    await runEffects($, await resetEvent($, { type: 'native_compacted', agent: 'main' }));
  }
  return r;
};

// ---- session.append: the history head, headless commit evidence ------------------------

const onAppend: Hook<'session.append'> = async ($, e, next) => {
  const r = await next(e);
  if (e.agentId !== undefined || (await readSwitches($)).disabled) return r;
  head = r.uuid;
  // Waiting input the engine may attach to the running turn: the helper names the doors.
  if (Array.isArray(watch.append_doors) && watch.append_doors.includes(e.door)) {
    show($, (await runEffects($, await hookEvent($, 'session.append', { agent: 'main', door: e.door }))).reports);
  }
  const boot = builtBoot;
  if (interactive || boot === undefined) return r;
  const gen = boot.generation;
  const message = e.message;
  let event: Fields | undefined;
  if (e.door === 'compaction' && message.type === 'system') {
    boundarySeen = true;
    event = { type: 'commit_evidence', generation: gen, source: 'append', evidence: 'boundary' };
  } else if (boundarySeen && message.role === 'user') {
    // The compaction's user row, the first user row after the boundary: the boot we
    // returned, exactly, or something else. Measured (2.1.319): a hook's compaction message
    // comes through door `prompt` after the worker's /compact and `note` after an auto one.
    boundarySeen = false;
    const text = contentText((r.message ?? message).content);
    builtBoot = undefined;
    $.ui.log(`notesoup: the compaction's user row came through door ${e.door}`, { to: 'debug' });
    event = { type: 'commit_evidence', generation: gen, source: 'append', evidence: 'boot', uuid: boot.token, intact: text === boot.text };
  }
  if (event !== undefined) show($, (await runEffects($, await resetEvent($, event))).reports);
  return r;
};

// ---- tool.call: the nine tools, and the warning on main tool results ------------------

/**
 * One of notesoup's own tools: the model's input goes to the helper's `tool` op raw (the
 * event less the engine's own keys) beside what the session binds, which only the shell
 * knows; the helper holds the input to the tool's schema (a field it does not declare, a
 * `transcript_path` or `roots`, is refused there), answers the call (`empty_brain`: through
 * the session's reset flow) and says what to do, as effects.
 */
const onOwnTool: MatchedHook<'tool.call', { tool: typeof TOOL_NAMES }> = async ($, e, next) => {
  if ((await readSwitches($)).disabled) return next(e);
  const { tool, tool_use_id: _use, consent: _consent, agentId, requestMeta: _meta, ...args } = e as unknown as Fields;
  const bound: Fields = { cwd: await $.session.cwd() };
  if (transcriptPath !== undefined) bound.transcript_path = transcriptPath;
  if (head !== undefined) bound.head = head;
  if (agentId !== undefined) bound.agent_id = agentId;
  const request: Fields = { name: tool, args, bound };
  // A main result is a main tool result like any other: the budget warning may ride on it.
  if (agentId === undefined) request.budget = await budgetFacts($);
  const reply = await ownTool($, request);
  if (!reply.ok) return { deny: textOf(reply) };
  const { answers, reports, context } = await runEffects($, Array.isArray(reply.effects) ? reply.effects.filter(isObject) : []);
  show($, reports);
  const answer = answers.find((a) => a.type === 'tool_result');
  if (answer === undefined) return { deny: 'notesoup: the helper did not answer this tool (see the debug log)' };
  const text = str(answer.text) ?? '';
  if (answer.is_error === true) return { deny: text };
  return context.length === 0 ? { result: text } : { result: text, context };
};

/**
 * Runs op `tool` on the reset chain (it may step the session's flow, which is serialized
 * like every `hook` call) with the session it steps; takes the flow's hints, watch and log
 * when it did.
 */
function ownTool($: EngineInterface, request: Fields): Promise<Reply> {
  const run = resetChain.then(async () => {
    const id = (await $.session.id()).replace(/[^A-Za-z0-9_-]/g, '') || HOST;
    const reply = await helper($, 'tool', { ...request, session: { harness: HOST, id, process: `${PROCESS}:${epoch}` } });
    if (!reply.ok) return reply;
    if (isObject(reply.hints)) {
      hints = reply.hints;
      generation = num(hints.generation) ?? generation;
    }
    if (isObject(reply.watch)) watch = reply.watch;
    for (const line of Array.isArray(reply.log) ? reply.log : []) logOnce($, `tool:${String(line)}`, String(line));
    return reply;
  });
  resetChain = run.catch(() => undefined);
  return run;
}

/** Every other tool: after a main tool result, the budget warning rides along once per window. */
const onAnyTool: Hook<'tool.call'> = async ($, e, next) => {
  const r = await next(e);
  if (e.agentId !== undefined || r.deny !== undefined || (await readSwitches($)).disabled) return r;
  const { context, reports } = await runEffects($, await hookEvent($, 'tool.call', { agent: 'main', budget: await budgetFacts($) }));
  show($, reports);
  // The warning, when the flow says it is due, is delivered with this result.
  return context.length === 0 ? r : { ...r, context: [...(r.context ?? []), ...context] };
};

// ---- command.run: /notesoup, /empty, /fresh-window -------------------------------------

const onCommand: MatchedHook<'command.run', { command: string[] }> = async ($, e, next) => {
  if ((await readSwitches($)).disabled) return next(e);
  await refreshIdentity($);
  if (e.command === 'notesoup') return { text: await capCommand($, e.args.trim()) };
  const command = e.command === 'empty' ? 'empty' : 'fresh_window';
  const { reports, context } = await runEffects($, await resetEvent($, { type: 'command', command, busy: false }));
  const text = reports.filter((r) => r !== '').join('\n') || `/${e.command}: requested`;
  return context.length > 0 ? { text, context } : { text };
};

/** `/notesoup [cap [<n>|off]]`: the helper parses and checks the cap; a refusal changes nothing. */
async function capCommand($: EngineInterface, args: string): Promise<string> {
  const words = args.split(/\s+/).filter((w) => w !== '');
  if (words.length > 0 && words[0] !== 'cap') return `usage: /notesoup [cap [<tokens>|off]], e.g. /notesoup cap 100k`;
  const wanted = words[1];
  if (wanted !== undefined) {
    const usage = await $.session.usage();
    limitsCache = undefined;
    const reply = await resolveLimits($, usage.context.window, wanted === 'off' ? null : wanted);
    limitsCache = undefined;
    // A refused cap is never stored.
    if (!reply.ok && reply.error.code === 'bad_cap') return `cap refused: ${reply.error.message}`;
    const value = reply.ok ? num(reply.cap) ?? null : null;
    await runEffects($, await resetEvent($, { type: 'cap_changed', cap: value }));
  }
  const usage = await $.session.usage();
  const reply = await resolveLimits($, usage.context.window);
  const points = reply.ok
    ? `warning at ${String(reply.warning)}, clear at ${String(reply.hard)} ${String(reply.unit)} (native ${String(reply.native)}, from ${String(reply.source)})`
    : `no budget points: ${reply.error.message}`;
  return `cap: ${capArg() ?? 'none'}; ${points}; window ${windowId() ?? 'not started'}`;
}

// ---- registration ----------------------------------------------------------------------

export const register: Register = (on) => {
  on('session.start', onSessionStart);
  on('classic.SessionStart', onClassicStart);
  on('session.end', onSessionEnd);
  on('prompt.context', onPromptContext);
  on('prompt.submit', onPromptSubmit);
  on('turn.step', onTurnStep);
  on('turn.complete', onTurnComplete);
  on('session.compact', onCompact);
  on('session.append', onAppend);
  on('tool.call', { tool: TOOL_NAMES }, onOwnTool).catch(($, e, next) =>
    next.called ? next(e) : { deny: 'notesoup: the hook answering this tool failed; see the debug log' },
  );
  on('tool.call', onAnyTool);
  on('command.run', { command: COMMANDS.map((c) => c.name) }, onCommand).catch(($, e, next) =>
    next.called ? next(e) : { text: `notesoup: /${e.command} failed; see the debug log` },
  );
};
