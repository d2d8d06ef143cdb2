// notesoup's hooks module for Claude Code: a pipe.
//
// Each hook forwards its raw facts to `notesoup-helper hook` (one JSON request on stdin, one
// JSON reply on stdout, through `$.process.run`) and carries out the effects that come back,
// every text filled: at most one helper per hook call, and none for a call the last reply
// said can change nothing (`watch`). It decides nothing; the state is the helper's, on disk
// per session. Map: ../README.md; protocol: helper-bin/PROTOCOL.md `## hook`.
//
// The validator wants `$` used only as `$.noun.method(...)` and passed only to functions
// declared at the top level of this file. tests/gate.py: no `$.session.compact`, no `{skip}`
// after `next()` in the compaction hook, `$.command.run` only from `turn.complete` or a
// timer, at most four module-level `let`s (caches of what the helper or the engine said).

import type { EngineInterface, Hook, MatchedHook, Register } from 'claude-code';
import { COMMANDS, HELPER_TIMEOUT_MS, TAIL_MESSAGES, TOOLS, TOOL_NAMES, VERSION } from './spec.ts';

type Fields = { [key: string]: unknown };
/** A refusal; `off`: notesoup cannot work in this session at all (PROTOCOL.md, "Refusal"). */
type Failure = { ok: false; error: { code: string; message: string; off?: boolean } };
type Reply = ({ ok: true } & Fields) | Failure;

const HOST = 'claude';
/** Why the reset's own compaction was vetoed when the helper gave it no answer. */
const UNANSWERED = 'the fresh window could not be prepared (the helper failed; see the debug log), so nothing was cleared';
/** Keys of the lines already logged once. */
const loggedOnce = new Set<string>();
/** This process; a new token per session binding (session end lets the flow go). */
const PROCESS = crypto.randomUUID();

// ---- module state: caches only (lost on reload; the state is the helper's, on disk) ----

/**
 * Read once per load: the helper and `NOTESOUP_DISABLED` as set; `on` once a reply said;
 * `registered` settles when session.start's tools and commands are registered (to why not);
 * `interactive` is session.start's `isInteractive`, sent with every call (the session `/clear` starts hears no session.start).
 */
let switches: { helper: string; disabled?: string; named?: boolean; platforms?: string[]; on?: boolean; registered?: Promise<string | undefined>; interactive?: boolean } | undefined;
/** What the engine bound: the session identity, the transcript, the newest kept main row and the one before. */
let bound: { identity?: string; transcriptPath?: string; head?: string; prior?: string; epoch: number } = { epoch: 0 };
/** The engine's usage breakdown last read, with the inputs it depends on. */
let usageCache: { key: string; usage: unknown } | undefined;
/**
 * The last reply's `watch`, the budget inputs of the call it answered, the running
 * continuation, an idle close-out held for its command's first row (`closeout`), the
 * reset compaction's outcome being carried out (`settling`), the person's input taken
 * into the running main turn that no step has carried to the model yet (`absorbed`: the
 * engine keeps it beside `e.messages`, so a compaction is told of it), the marker of the
 * reset's own compaction command last run (`marker`) and, when the helper could not answer
 * that compaction, its marker (`unanswered`).
 */
let pending: {
  watch: Fields;
  key?: string;
  continuation?: number;
  closeout?: { generation: number; text: string };
  settling?: Promise<void>;
  absorbed?: string[];
  marker?: string;
  unanswered?: string;
} = {
  watch: {},
};

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

function refusal(code: string, message: string, off = false): Failure {
  return { ok: false, error: off ? { code, message, off } : { code, message } };
}

function agentOf(e: { agentId?: string }): 'main' | 'subagent' {
  return e.agentId === undefined ? 'main' : 'subagent';
}

/** The text blocks of an API content list, joined. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b: unknown) => (isObject(b) && b.type === 'text' && typeof b.text === 'string' ? b.text : '')).join('');
}

// ---- the helper ----------------------------------------------------------------------

async function readSwitches($: EngineInterface) {
  if (switches === undefined) {
    const [override, disabled] = await Promise.all([$.env.get('NOTESOUP_HELPER'), $.env.get('NOTESOUP_DISABLED')]);
    const named = override !== undefined && override !== '';
    const found = named ? { helper: override } : await findHelper($);
    switches = { ...found, disabled, named };
  }
  return switches;
}

/**
 * Where the plugin's helper is: `bin/` in a checkout (`scripts/install` stages it there),
 * else the platform package npm installed beside an npm-installed plugin
 * (`node_modules/@notesoup/cli-<os>-<cpu>/bin/`: only the one matching this machine is
 * installed). When neither is there the `bin/` path is used and its refusal says so.
 * `notesoup doctor` looks in the same order (cli/src/doctor.rs `plugin_helper`): the module
 * cannot ask Rust where its own helper is.
 */
async function findHelper($: EngineInterface): Promise<{ helper: string; platforms?: string[] }> {
  const root = $.plugin.root;
  const staged = `${root}/bin/notesoup-helper`;
  if (await $.fs.exists(staged).catch(() => false)) return { helper: staged };
  const scope = `${root}/node_modules/@notesoup`;
  const entries = await $.fs.list(scope).catch(() => []);
  for (const entry of entries) {
    const bin = `${scope}/${entry.name}/bin/notesoup-helper`;
    if (entry.name.startsWith('cli-') && (await $.fs.exists(bin).catch(() => false))) return { helper: bin };
  }
  return { helper: staged, platforms: await releasePlatforms($, root) };
}

/**
 * The platforms an npm-installed plugin's release has a helper for (the `@notesoup/cli-*`
 * optional dependencies of its package.json), so a machine none fits is told that instead
 * of "reinstall"; `undefined` for a checkout's plugin (no package.json).
 */
async function releasePlatforms($: EngineInterface, root: string): Promise<string[] | undefined> {
  try {
    const manifest: unknown = JSON.parse(String(await $.fs.read(`${root}/package.json`)));
    const deps = isObject(manifest) && isObject(manifest.optionalDependencies) ? manifest.optionalDependencies : {};
    return Object.keys(deps).filter((n) => n.startsWith('@notesoup/cli-')).map((n) => n.slice('@notesoup/cli-'.length));
  } catch {
    return undefined;
  }
}

/** Whether notesoup stays out of this event: a reply said it is off. */
function off(): boolean {
  return switches?.on === false;
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
    out = await $.process.run([bin, op], { stdin: JSON.stringify(request), timeoutMs: HELPER_TIMEOUT_MS });
  } catch (err) {
    return refusal('helper_unavailable', `${bin} could not run (${String(err)})`);
  }
  try {
    const reply: unknown = JSON.parse(out.stdout.trim());
    if (isObject(reply) && reply.ok === true) return { ...reply, ok: true };
    if (isObject(reply) && reply.ok === false && isObject(reply.error)) {
      return refusal(str(reply.error.code) ?? 'helper_failed', str(reply.error.message) ?? 'no message', reply.error.off === true);
    }
  } catch {
    // reported below
  }
  const why = out.stderr.trim().split('\n')[0] ?? '';
  return refusal('helper_failed', `${op}: exit ${out.exitCode}, no JSON reply${why ? `: ${why}` : ''}`);
}

/** The session the helper keeps the flow of, as this process (and binding) names it. */
async function sessionRef($: EngineInterface): Promise<Fields> {
  // The id goes as the engine gave it: the helper's one rule refuses one it cannot key.
  const session: Fields = { harness: HOST, id: await $.session.id(), process: `${PROCESS}:${bound.epoch}` };
  if (bound.transcriptPath !== undefined) session.transcript_path = bound.transcriptPath;
  // The engine says it once per load, not for the session `/clear` starts: every call carries it.
  if (switches?.interactive !== undefined) session.interactive = switches.interactive;
  return session;
}

/**
 * One engine hook call, whole, to the helper's `hook` op; returns the effects. Until a reply
 * said whether notesoup is on (a hook may come before session.start's), the switch goes
 * along as set and the reply's `disabled` is obeyed.
 */
async function hookEvent($: EngineInterface, event: string, facts: Fields): Promise<Fields[]> {
  const sw = await readSwitches($);
  const asked = sw.on === undefined;
  const sent = asked ? { ...facts, env: { ...(isObject(facts.env) ? facts.env : {}), NOTESOUP_DISABLED: sw.disabled } } : facts;
  const reply = await helper($, 'hook', { event, session: await sessionRef($), facts: sent, version: VERSION });
  if (asked && reply.ok) sw.on = reply.disabled !== true;
  // `version_mismatch` by its code too: a helper of another version may predate `off`.
  const off = reply.ok ? false : ['helper_unavailable', 'version_mismatch'].includes(reply.error.code) || reply.error.off === true;
  if (asked && off && !reply.ok) {
    // Fail open: without a helper of its own version, or a notes home to keep the session
    // in, notesoup can do nothing, so it registers nothing and stays out of every hook, as
    // if absent; the person reads why once, with the fix.
    sw.on = false;
    $.ui.log(`notesoup is off for this session: ${reply.error.message}${helperFix(sw, reply.error.code)}`, { to: 'transcript' });
  }
  return obey($, `hook ${event}`, facts, reply);
}

/**
 * What to do about a helper that could not run or is another version: the variable that
 * named it, when one did (reinstalling changes nothing then), else the reinstall.
 */
function helperFix(sw: { helper: string; named?: boolean; platforms?: string[] }, code: string): string {
  if (code !== 'helper_unavailable' && code !== 'version_mismatch') return '';
  if (sw.named === true) return `; NOTESOUP_HELPER is set to ${sw.helper}: point it at a notesoup-helper of this version, or unset it`;
  if (code !== 'helper_unavailable') return '';
  // Installed from npm with no platform package: on a machine the release has no helper for,
  // reinstalling cannot help (the npm launcher says the same).
  if (sw.platforms !== undefined && sw.platforms.length > 0) {
    return `; no notesoup-helper for this machine came with the plugin: this release has one for ${sw.platforms.join(', ')} only (on another machine, build it from a checkout: scripts/install; on ${sw.platforms.join(' or ')}, reinstall the plugin, as npm skipped its optional package)`;
  }
  return '; reinstall the plugin, or in a checkout run scripts/install (notesoup doctor names how)';
}

/** A reply's effects, its `watch` kept (with the budget inputs `facts` held) and its lines logged. */
function obey($: EngineInterface, what: string, facts: Fields, reply: Reply): Fields[] {
  if (!reply.ok) {
    logOnce($, `${what}:${reply.error.code}`, `${what} refused: ${reply.error.message}`);
    return [];
  }
  // `quiet` holds until the next reply only.
  const watch = isObject(reply.watch) ? reply.watch : { ...pending.watch, quiet: undefined };
  pending = { ...pending, watch, key: isObject(facts.budget) ? budgetKey(facts.budget) : undefined };
  for (const line of Array.isArray(reply.log) ? reply.log : []) logOnce($, `log:${String(line)}`, String(line));
  if (off()) return [];
  const effects = Array.isArray(reply.effects) ? reply.effects.filter(isObject) : [];
  $.ui.log(`notesoup: ${what} -> ${effects.map((fx) => str(fx.type)).join(', ') || 'nothing'}`, { to: 'debug' });
  return effects;
}

/** One hook call whose effects are carried out here, its report lines shown. */
async function carry($: EngineInterface, event: string, facts: Fields): Promise<Carried> {
  const out = await runEffects($, await hookEvent($, event, facts));
  show($, out.reports);
  return out;
}

/** The budget facts: the fill now, settings, model, the threshold variables, the breakdown. */
async function budgetFacts($: EngineInterface): Promise<Fields> {
  // The threshold variables (`notesoup_thresholds::Env::NAMES`), each named (the validator
  // refuses a computed name); helper-bin tools tests hold this list to the Rust one.
  const [model, settings, now, pct, window, noAuto, noCompact, maxOut] = await Promise.all([
    $.session.model(),
    $.settings.read(),
    $.session.usage(),
    $.env.get('CLAUDE_AUTOCOMPACT_PCT_OVERRIDE'),
    $.env.get('CLAUDE_CODE_AUTO_COMPACT_WINDOW'),
    $.env.get('DISABLE_AUTO_COMPACT'),
    $.env.get('DISABLE_COMPACT'),
    $.env.get('CLAUDE_CODE_MAX_OUTPUT_TOKENS'),
  ]);
  const env: Fields = {
    CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: pct,
    CLAUDE_CODE_AUTO_COMPACT_WINDOW: window,
    DISABLE_AUTO_COMPACT: noAuto,
    DISABLE_COMPACT: noCompact,
    CLAUDE_CODE_MAX_OUTPUT_TOKENS: maxOut,
  };
  const facts: Fields = { context: now.context, settings, env, model };
  const key = budgetKey(facts);
  // One column: the breakdown's display grid (`gridRows`, which the helper never reads) is
  // ~6 kB instead of ~24 kB in every request that carries it; the rest is the same.
  if (usageCache?.key !== key) usageCache = { key, usage: await $.session.usage({ breakdown: 'summary', columns: 1 }) };
  return { usage: usageCache.usage, ...facts };
}

/** What the points depend on besides the cap and the breakdown (read again when this changes). */
function budgetKey(b: Fields): string {
  return JSON.stringify([b.model, b.settings, b.env, isObject(b.context) ? b.context.window : undefined]);
}

/**
 * Whether the last reply said this main tool result (or this later step of turn `turn`)
 * changes nothing (`watch.quiet`): the budget inputs of the call it answered, the fill below
 * the point it named. A cache of Rust's answer: anything else calls.
 */
function quiet(budget: Fields, turn?: string): boolean {
  const q = pending.watch.quiet;
  if (!isObject(q) || pending.key !== budgetKey(budget) || (turn !== undefined && q.turn !== turn)) return false;
  const fill = isObject(budget.context) ? num(budget.context[str(q.field) ?? '']) : undefined;
  const below = num(q.below);
  return fill !== undefined && below !== undefined && fill < below;
}

/**
 * Whether the last reply said this attachment's boot copy changes nothing (`watch.copy_kept`):
 * its one boot opener starts the line named. A cache of Rust's answer
 * (`Watch::skips_attachment` says the same, word for word): anything else calls.
 */
function copyKept(text: string): boolean {
  const marker = str(pending.watch.boot_marker);
  const line = str(pending.watch.copy_kept);
  if (marker === undefined || line === undefined) return false;
  const at = text.indexOf(marker);
  return at >= 0 && at === text.lastIndexOf(marker) && text.startsWith(line, at);
}

/**
 * The text blocks of user messages holding the boot marker the helper named, oldest first,
 * from the API form (it keeps a prompt.context attachment; each merged block looked at alone).
 */
async function keptBoots($: EngineInterface): Promise<string[]> {
  const marker = str(pending.watch.boot_marker);
  const texts: string[] = [];
  for (const m of await $.session.messages({ as: 'api' })) {
    if (m.role !== 'user') continue;
    const blocks: unknown[] = Array.isArray(m.content) ? m.content : [{ type: 'text', text: m.content }];
    for (const block of blocks) {
      const text = contentText([block]);
      if (text !== '' && (marker === undefined || text.includes(marker))) texts.push(text);
    }
  }
  return texts;
}

/** `kept` for a main step, completion or compaction result, when the helper asked for it. */
async function keptFacts($: EngineInterface, facts: Fields): Promise<Fields> {
  return pending.watch.kept === true ? { ...facts, kept: await keptBoots($) } : facts;
}

/** Where the session lives: what the helper builds a boot from, and a tool's binding. */
async function placeFacts($: EngineInterface): Promise<Fields> {
  const facts: Fields = { cwd: await $.session.cwd() };
  if (bound.transcriptPath !== undefined) facts.transcript_path = bound.transcriptPath;
  if (bound.head !== undefined) facts.head = bound.head;
  return facts;
}

// ---- effects ---------------------------------------------------------------------------

/** Effects that answer the hook that sent the event; the rest are carried out in place. */
const ANSWERS = new Set(['tool_result', 'end_turn', 'answer_compaction', 'veto_compaction', 'native_compaction']);

type Carried = { answers: Fields[]; reports: string[]; context: string[]; boot?: string; warned?: number };

/**
 * Carries out every effect that is not the hook's own answer, in order, and returns the
 * answers, report lines and context texts for the hook. A `compact` met here (outside
 * turn.complete) goes to the non-held waiter: a timer, so no hook holds the command.
 */
async function runEffects($: EngineInterface, effects: Fields[]): Promise<Carried> {
  const out: Carried = { answers: [], reports: [], context: [] };
  for (const fx of effects) {
    const type = str(fx.type);
    const text = str(fx.text);
    if (type !== undefined && ANSWERS.has(type)) out.answers.push(fx);
    else if (type === 'report') out.reports.push(text ?? '');
    else if (type === 'log') $.ui.log(`notesoup: ${text ?? ''}`, { to: 'debug' });
    else if ((type === 'warn' || type === 'attach_own_boot') && text !== undefined) {
      // The budget warning, or a fork's own boot: it rides on the prompt or result at hand.
      out.context.push(text);
      out.warned = num(fx.generation);
    } else if (type === 'attach_boot' && text !== undefined) out.boot = text;
    else if (type === 'continue') submitPrompt($, 'continuation', num(fx.generation) ?? 0, str(fx.text) ?? '');
    else if (type === 'compact') $.clock.after(0, () => void compactNow($, fx));
    else if (type === 'closeout' && text !== undefined) {
      // Busy: the warning joins the running turn as a hidden row, which its next request
      // carries (a mid-turn command's context is dropped). Idle: one hidden close-out turn,
      // held for the command's first row (onAppend submits it there; the host refuses a
      // submit from command.run, and a timer can fire after a -p run ended). Both measured:
      // claude-hooks/EVENTS.md.
      if (fx.mode === 'current_turn') await appendCloseout($, num(fx.generation) ?? 0, text);
      else pending = { ...pending, closeout: { generation: num(fx.generation) ?? 0, text } };
    } else if (type !== 'cancel') logOnce($, `effect:${type}`, `unknown effect ${JSON.stringify(fx)}`);
  }
  return out;
}

/**
 * The continuation or a close-out: a prompt submitted without waiting (the run must stay
 * alive); dropped or rejected is told at once, a continuation's start rides on its turn's
 * completion.
 */
function submitPrompt($: EngineInterface, event: 'continuation' | 'closeout', generation: number, text: string) {
  const missed = (status: string, reason: string) => carry($, event, { generation, status, reason });
  $.prompt
    .submit({ text })
    .then((r) => {
      if (r.drop !== undefined) return missed('dropped', r.drop);
      if (event === 'continuation') pending = { ...pending, continuation: generation };
      return undefined;
    })
    .catch((err: unknown) => missed('failed', String(err)));
}

/** A busy close-out's warning as a hidden user row of the running turn; refused is told at once. */
async function appendCloseout($: EngineInterface, generation: number, text: string) {
  const missed = (reason: string) => carry($, 'closeout', { generation, status: 'failed', reason });
  try {
    const r = await $.session.append({ message: { type: 'user', content: [{ type: 'text', text }] } });
    if (r.deny !== undefined) await missed(`the row was refused: ${r.deny}`);
  } catch (err) {
    await missed(String(err));
  }
}

/** `compact`: the reset's own compaction through the command path, marked so it is admitted. */
async function compactNow($: EngineInterface, fx: Fields) {
  const facts: Fields = { generation: num(fx.generation) ?? 0, status: 'ok' };
  const marker = str(fx.marker) ?? '';
  pending = { ...pending, marker };
  try {
    // The answer's text goes along: 2.1.319 resolves a failed compaction with its error.
    const { text } = await $.command.run({ command: 'compact', args: marker });
    if (text !== undefined) facts.text = text;
  } catch (err) {
    facts.status = 'failed';
    facts.reason = String(err);
  }
  if (pending.unanswered === marker) {
    // onCompact vetoed it: the helper could not answer it. A failure, so the flow keeps the
    // request and tries again as it does after the engine's own error.
    pending = { ...pending, unanswered: undefined };
    Object.assign(facts, { status: 'failed', reason: UNANSWERED, text: undefined });
  }
  // A resolved command the helper said can change nothing (its compaction was answered).
  if (facts.status === 'ok' && facts.text === undefined && pending.watch.compact_done === false) return;
  // The command's rows (door `command`) wait for this, so a -p run is still alive for a retry.
  const settled = compactDone($, facts);
  pending = { ...pending, settling: settled };
  await settled;
}

/**
 * `compact.done`, carried out; a `compact` in the reply (the first attempt failed between
 * turns) is started from a timer while the command's rows hold the run (claude-hooks/EVENTS.md).
 */
async function compactDone($: EngineInterface, facts: Fields) {
  const effects = await hookEvent($, 'compact.done', await keptFacts($, facts));
  show($, (await runEffects($, effects.filter((fx) => fx.type !== 'compact'))).reports);
  const again = effects.find((fx) => fx.type === 'compact');
  if (again === undefined) return;
  await new Promise<void>((queued) =>
    $.clock.after(0, () => {
      void compactNow($, again);
      queued();
    }),
  );
}

function show($: EngineInterface, reports: string[]) {
  // The engine leads a plugin's transcript line with the plugin's name already.
  for (const r of reports) if (r !== '') $.ui.log(r.replace(/^notesoup: /, ''), { to: 'transcript' });
}

// ---- session.start, binding, session.end -------------------------------------------------

/** Every tool and command at once: the engine rebuilds its tool server on each (BENCHMARKS.md). */
async function registerAll($: EngineInterface) {
  await Promise.all([
    ...TOOLS.map((t) => $.tool.register({ name: t.name, description: t.description, inputSchema: t.inputSchema, isDeferred: false })),
    ...COMMANDS.map((c) => $.command.register(c)),
  ]);
}

/**
 * Off (the helper read the switch, or could not be run at all): nothing registered; a helper
 * that runs but refuses leaves it on. The registrations run on while the first prompt's hooks do: a prompt (and a turn's
 * step) waits for them before it goes on, so the tools are in the first request without
 * session.start, which the engine awaits, paying its tool-server rebuilds (BENCHMARKS.md).
 */
const onSessionStart: Hook<'session.start'> = async ($, e, next) => {
  if (off()) return next(e);
  (await readSwitches($)).interactive = e.isInteractive;
  const effects = await hookEvent($, 'session.start', { env: { DISABLE_COMPACT: await $.env.get('DISABLE_COMPACT') }, interactive: e.isInteractive });
  if (off() || switches === undefined) return next(e);
  switches.registered = registerAll($).then(
    () => undefined,
    (err: unknown) => String(err),
  );
  show($, (await runEffects($, effects)).reports);
  return next(e);
};

/**
 * Binds the current transcript: the only way history learns the path (even before
 * session.start's reply). When the last reply said the boot prompt.context attached lacks
 * it (`rebind_context`: the terminal runs prompt.context at start-up, before this), the
 * engine is told to ask prompt.context again, so the window's boot is built with history.
 */
const onClassicStart: Hook<'classic.SessionStart'> = async ($, e, next) => {
  const kept = e.source === 'compact';
  bound = { ...bound, transcriptPath: e.transcript_path, head: kept ? bound.head : undefined, prior: kept ? bound.prior : undefined };
  if (pending.watch.rebind_context === true && e.transcript_path !== undefined) {
    pending = { ...pending, watch: { ...pending.watch, rebind_context: undefined } };
    $.ui.invalidate('prompt.context');
  }
  return next(e);
};

/** Session end, identity change: a new process token, so the next call finds the flow `loaded`. */
function letGo($: EngineInterface, why: string, identity?: string) {
  bound = { identity, epoch: bound.epoch + 1 };
  usageCache = undefined;
  pending = { watch: pending.watch };
  $.ui.log(`notesoup: ${why}: the session's flow let go`, { to: 'debug' });
}

/** Re-reads the session's identity; a change lets the flow go. */
async function refreshIdentity($: EngineInterface) {
  const [id, cwd] = await Promise.all([$.session.id(), $.session.cwd()]);
  const now = `${id}\n${cwd}`;
  if (bound.identity !== undefined && bound.identity !== now) letGo($, 'identity changed', now);
  else bound = { ...bound, identity: now };
}

const onSessionEnd: Hook<'session.end'> = async ($, e, next) => {
  if (off()) return next(e);
  const closeout = pending.closeout;
  if (closeout !== undefined) {
    // Never silently lost: a close-out whose command row never came is told failed.
    pending = { ...pending, closeout: undefined };
    const reason = `the session ended (${e.reason}) before the command's row, so it was never submitted`;
    await carry($, 'closeout', { generation: closeout.generation, status: 'failed', reason });
  }
  letGo($, `session end (${e.reason})`);
  return next(e);
};

// ---- prompts -----------------------------------------------------------------------

/**
 * The boot Claude kept names the window; else the helper builds the window's boot to attach.
 * When classic.SessionStart named the transcript while a boot built without it was on its
 * way (it came before the reply that asks for the rebind, so it could not ask), the boot is
 * built again here, with history, before the engine keeps it.
 */
const onPromptContext: Hook<'prompt.context'> = async ($, e, next) => {
  if (off()) return next(e);
  await refreshIdentity($);
  const place = await placeFacts($);
  let { boot } = await carry($, 'prompt.context', { ...place, kept: await keptBoots($) });
  if (pending.watch.rebind_context === true && place.transcript_path === undefined && bound.transcriptPath !== undefined) {
    pending = { ...pending, watch: { ...pending.watch, rebind_context: undefined } };
    ({ boot } = await carry($, 'prompt.context', { ...(await placeFacts($)), kept: await keptBoots($) }));
  }
  return boot === undefined ? next(e) : next({ ...e, blocks: [...e.blocks, { name: 'notesoup', text: boot }] });
};

/**
 * A boot the engine sends again (resume, fork, prompt-too-long retry): kept, left out or
 * rebuilt. Matched on `context_sections` only: the engine's other attachments (several per
 * request) then never hop to this module's worker (BENCHMARKS.md "Start-up against the floor").
 * Unsent when the last reply said so (`watch.copy_kept`: the text's one boot opener starts
 * the line it names, this session's own boot of its window, which the flow keeps as it is).
 */
const onAttachment: MatchedHook<'prompt.attachment', { type: 'context_sections' }> = async ($, e, next) => {
  const marker = str(pending.watch.boot_marker);
  if ((marker !== undefined && !e.text.includes(marker)) || off()) return next(e);
  if (copyKept(e.text)) return next(e);
  const effects = await hookEvent($, 'prompt.attachment', { ...(await placeFacts($)), attachment: e.text });
  await runEffects($, effects.filter((fx) => fx.type !== 'boot_copy'));
  const copy = effects.find((fx) => fx.type === 'boot_copy');
  if (copy === undefined || copy.verdict === 'keep') return next(e);
  const text = str(copy.text);
  return text === undefined ? { text: null } : next({ ...e, text });
};

const onPromptSubmit: Hook<'prompt.submit'> = async ($, e, next) => {
  if (off()) return next(e);
  await refreshIdentity($);
  const facts: Fields = { origin: e.origin.kind, command: e.command !== undefined };
  // Set when a main turn was running: the engine is taking the input into that turn, and
  // may raise the step that carries it before the queue row's append (claude-hooks/EVENTS.md).
  if (e.turnId !== undefined) facts.turn_id = e.turnId;
  // Not a command: the budget, and the place a fork's own boot is built from; the kept boots
  // when the last reply asked (the flow knows no window: a first prompt may come before
  // prompt.context). Only then: that reply named the marker, so only boot blocks go.
  if (e.command === undefined) Object.assign(facts, await placeFacts($), { budget: await budgetFacts($) });
  if (e.command === undefined && pending.watch.prompt_kept === true) facts.kept = await keptBoots($);
  const { context, warned } = await carry($, 'prompt.submit', facts);
  // The turn this prompt starts lists the tools (the engine takes them before its first step).
  const failed = await switches?.registered;
  if (failed !== undefined) logOnce($, 'register', `registering the tools failed: ${failed}`);
  const r = await next(context.length === 0 ? e : { ...e, context: [...(e.context ?? []), ...context] });
  // A dropped prompt did not carry the warning or own boot: it stays due.
  if (r.drop !== undefined && warned !== undefined) await hookEvent($, 'prompt.dropped', { generation: warned });
  if (r.drop === undefined && e.turnId !== undefined && e.command === undefined) {
    pending = { ...pending, absorbed: [...(pending.absorbed ?? []), e.text] };
  }
  return r;
};

// ---- turns ----------------------------------------------------------------------------

/**
 * A step's stream as the engine gives it; once a main step's request was answered, the input
 * it carried is no longer `absorbed`. A request that got no response (`stopReason` null:
 * "prompt is too long", an API error) answered nothing: the input stays absorbed, so the
 * reactive compaction that follows is told of it and a boot answering it keeps it.
 */
async function* carried<T, R extends { stopReason: unknown }>(stream: AsyncGenerator<T, R>, agent: string): AsyncGenerator<T, R> {
  const r = yield* stream;
  if (agent === 'main' && r.stopReason !== null) pending = { ...pending, absorbed: undefined };
  return r;
}

const onTurnStep: Hook<'turn.step'> = async function* ($, e, next) {
  if (off()) return yield* next(e);
  await switches?.registered;
  const agent = agentOf(e);
  let facts: Fields = { agent, turn_id: e.turnId, index: e.index };
  if (agent === 'main' && e.index > 0) {
    const budget = await budgetFacts($);
    if (quiet(budget, e.turnId)) return yield* carried(next(e), agent);
    facts = { ...facts, budget };
  }
  if (agent === 'main') facts = await keptFacts($, facts);
  const end = (await carry($, 'turn.step', facts)).answers.find((a) => a.type === 'end_turn');
  if (end === undefined) return yield* carried(next(e), agent);
  const text = str(end.text) ?? '';
  yield { kind: 'text', index: 0, text };
  yield { kind: 'stop', stopReason: 'end_turn', usage: null };
  return { turnId: e.turnId, index: e.index, answer: text, toolUses: [], stopReason: 'end_turn', usage: null };
};

const onTurnComplete: Hook<'turn.complete'> = async ($, e, next) => {
  const r = await next(e);
  if (off()) return r;
  let facts: Fields = { agent: agentOf(e), turn_id: e.turnId, reason: e.reason };
  if (e.agentId === undefined) {
    facts = await keptFacts($, { ...facts, budget: await budgetFacts($) });
    if (pending.continuation !== undefined) facts.continuation = pending.continuation;
    pending = { ...pending, continuation: undefined, absorbed: undefined };
  }
  const effects = await hookEvent($, 'turn.complete', facts);
  // The reset's compaction starts here, not awaited: this hook is the one the command may
  // run from. So is a close-out turn (a busy close-out no request carried): submitted now,
  // not awaited, as the continuation is.
  const here = (fx: Fields) => fx.type === 'compact' || (fx.type === 'closeout' && typeof fx.text === 'string');
  for (const fx of effects) {
    if (fx.type === 'compact') void compactNow($, fx);
    else if (here(fx)) submitPrompt($, 'closeout', num(fx.generation) ?? 0, str(fx.text) ?? '');
  }
  show($, (await runEffects($, effects.filter((fx) => !here(fx)))).reports);
  return r;
};

// ---- compaction and appends ----------------------------------------------------------

/** The flow's answer: a veto (first, never after `next`), the boot it built, or Claude's own. */
const onCompact: Hook<'session.compact'> = async ($, e, next) => {
  if (off()) return next(e);
  const facts: Fields = { ...(await placeFacts($)), agent: agentOf(e), trigger: e.trigger };
  if (e.instructions !== undefined) facts.instructions = e.instructions;
  // The last messages, and the input taken into the turn that no request carried yet: the
  // helper says which of them a boot answering this compaction keeps after itself.
  const absorbed = (pending.absorbed ?? []).map((text) => ({ role: 'user' as const, text, toolUses: [] }));
  const tail = [...e.messages, ...absorbed].slice(-TAIL_MESSAGES);
  facts.tail = tail.map((m) => ({ role: m.role, results: ('toolResults' in m && (m.toolResults?.length ?? 0) > 0), text: m.text }));
  const { answers } = await carry($, 'session.compact', facts);
  const veto = answers.find((a) => a.type === 'veto_compaction');
  if (veto !== undefined) {
    const notice = str(veto.notice) ?? 'notesoup: compaction vetoed';
    // A quiet veto is one nobody asked for (the reset worker's own, no longer needed).
    if (veto.quiet === true) $.ui.log(notice, { to: 'debug' });
    else $.ui.log(notice.replace(/^notesoup: /, ''), { to: 'transcript' });
    return { skip: notice };
  }
  const boot = answers.find((a) => a.type === 'answer_compaction' && typeof a.text === 'string');
  if (boot !== undefined && !answers.some((a) => a.type === 'native_compaction')) {
    const kept = (Array.isArray(boot.keep) ? boot.keep.filter(isObject) : []).flatMap((k) => {
      const m = typeof k.at === 'number' ? tail[k.at] : undefined;
      if (m === undefined) return [];
      return [k.text_only === true ? { role: 'user' as const, text: m.text, toolUses: [] } : m];
    });
    return { messages: [{ role: 'user', text: str(boot.text) ?? '', toolUses: [] }, ...kept] };
  }
  if (e.agentId === undefined && e.instructions !== undefined && e.instructions === pending.marker && !answers.some((a) => a.type === 'native_compaction')) {
    // The reset's own compaction with no answer: the helper failed (or timed out) on it.
    // Handed on, Claude's own summary would replace the window (spec: no summary for a
    // reset; a boot that cannot be had vetoes it), so it is vetoed and told failed.
    pending = { ...pending, unanswered: e.instructions };
    $.ui.log(UNANSWERED, { to: 'transcript' });
    return { skip: `notesoup: ${UNANSWERED}` };
  }
  const r = await next(e);
  // Claude's own compaction of the main conversation replaced it: the window advances.
  if (e.agentId === undefined && r.messages !== undefined) await hookEvent($, 'session.compacted', { agent: 'main' });
  return r;
};

/** Moves the history head; only the doors the last reply named go on (`*`: with the row's text). */
const onAppend: Hook<'session.append'> = async ($, e, next) => {
  const r = await next(e);
  if (e.agentId !== undefined || off()) return r;
  bound = { ...bound, head: r.uuid, prior: bound.head };
  // The reset's own compaction command: its outcome (and a retry it asks for) first.
  if (e.door === 'command') await pending.settling;
  const closeout = e.door === 'command' ? pending.closeout : undefined;
  if (closeout !== undefined) {
    // The command's first row: the engine awaits this hook before the run can end, so the
    // close-out is queued while the run is alive (not awaited: it starts after the command).
    pending = { ...pending, closeout: undefined };
    submitPrompt($, 'closeout', closeout.generation, closeout.text);
  }
  const doors = Array.isArray(pending.watch.append_doors) ? pending.watch.append_doors : [];
  if (!doors.includes(e.door) && !doors.includes('*')) return r;
  const message = r.message ?? e.message;
  const facts: Fields = { agent: 'main', door: e.door, kind: message.type, role: message.role };
  if (doors.includes('*')) facts.text = contentText(message.content);
  await carry($, 'session.append', facts);
  return r;
};

// ---- tools and commands --------------------------------------------------------------

/**
 * One of notesoup's own tools: the model's input raw (less the engine's keys) with what the
 * session binds, to the helper's `tool` op, which checks it against the schema, answers it
 * and (a main result) hears it as a main tool result. One helper per call.
 */
const onOwnTool: MatchedHook<'tool.call', { tool: typeof TOOL_NAMES }> = async ($, e, next) => {
  if (off()) return next(e);
  const { tool, tool_use_id: use, consent: _consent, agentId, requestMeta: _meta, ...args } = e as unknown as Fields;
  const binding = await placeFacts($);
  if (bound.prior !== undefined) binding.prior_head = bound.prior;
  if (agentId !== undefined) binding.agent_id = agentId;
  if (typeof use === 'string') binding.call_id = use;
  const request: Fields = { name: tool, args, bound: binding, session: await sessionRef($), version: VERSION };
  if (agentId === undefined) request.budget = await budgetFacts($);
  const reply = await helper($, 'tool', request);
  if (!reply.ok) return { deny: `notesoup ${reply.error.code}: ${reply.error.message}` };
  const { answers, reports, context } = await runEffects($, obey($, 'tool', request, reply));
  show($, reports);
  const answer = answers.find((a) => a.type === 'tool_result');
  if (answer === undefined) return { deny: 'notesoup: the helper did not answer this tool (see the debug log)' };
  const text = str(answer.text) ?? '';
  if (answer.is_error === true) return { deny: text };
  return context.length === 0 ? { result: text } : { result: text, context };
};

/** Every tool's main result, after the chain: the warning rides on it when due; quiet ones go unsent. */
const onAnyTool: Hook<'tool.call'> = async ($, e, next) => {
  const r = await next(e);
  if (e.agentId !== undefined || r.deny !== undefined || off()) return r;
  const budget = await budgetFacts($);
  if (quiet(budget)) return r;
  const { context } = await carry($, 'tool.call', { agent: 'main', budget });
  return context.length === 0 ? r : { ...r, context: [...(r.context ?? []), ...context] };
};

/** `/notesoup`, `/empty`, `/fresh-window`: the report lines are the answer. */
const onCommand: MatchedHook<'command.run', { command: string[] }> = async ($, e, next) => {
  if (off()) return next(e);
  await refreshIdentity($);
  const command = e.command === 'notesoup' ? 'notesoup' : e.command === 'empty' ? 'empty' : 'fresh_window';
  const facts: Fields = { command, budget: await budgetFacts($) };
  // `/notesoup`'s status counts the notes of the session folder's brain.
  if (command === 'notesoup') Object.assign(facts, { args: e.args, cwd: await $.session.cwd() });
  const { reports, context } = await runEffects($, await hookEvent($, 'command.run', facts));
  const text = reports.filter((r) => r !== '').join('\n') || `/${e.command}: requested`;
  return context.length > 0 ? { text, context } : { text };
};

// ---- registration ----------------------------------------------------------------------

export const register: Register = (on) => {
  on('session.start', onSessionStart);
  on('classic.SessionStart', onClassicStart);
  on('session.end', onSessionEnd);
  on('prompt.context', onPromptContext);
  on('prompt.attachment', { type: 'context_sections' }, onAttachment);
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
