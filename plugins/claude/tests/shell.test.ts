// The shell's own tests, run by the engine: `claude plugin test plugins/claude`.
//
// The module is loaded as Claude Code loads it; the test's hooks sit beneath it and play
// the world: `process.run` is the helper (a scripted reply per op, every request kept),
// the session nouns answer from a small fixed session. What is checked is what the shell
// does with the helper's replies, never what the helper decides.

import { describe, expect, mock, test } from 'claude-code/testing';
import type { On } from 'claude-code';

type Fields = { [key: string]: unknown };
// Present in the environment tests run in; the contract's lib (es2023, no DOM) lacks its type.
declare const setTimeout: (callback: () => void, ms: number) => unknown;
type Call = { op: string; request: Fields };
type Script = (op: string, request: Fields) => Fields;

const SESSION = '6e9d2c1a-0000-4000-8000-000000000001';

/**
 * The window facts the helper's flow keeps (the real rules are reset-flow's, tested there):
 * enough for the shell's tests to see the ordinal and the cap come back in `hints`.
 */
function windowStub(): (request: Fields, reply: Fields) => Fields {
  let ordinal: number | undefined;
  let cap: number | null = null;
  let opening: number | undefined;
  return (request, reply) => {
    const event = (request.event ?? {}) as Fields;
    if (event.type === 'window_seen' && typeof event.ordinal === 'number') ordinal = Math.max(ordinal ?? -1, event.ordinal);
    if (event.type === 'native_compacted' && ordinal !== undefined) ordinal += 1;
    if (event.type === 'cap_changed') cap = (event.cap as number | null) ?? null;
    if (event.type === 'boot' && event.status === 'acquired' && opening !== undefined) ordinal = opening;
    if (reply.ok !== true) return reply;
    const effects = (Array.isArray(reply.effects) ? reply.effects : []).map((fx: Fields) => {
      if (fx.type !== 'answer_compaction') return fx;
      opening = (ordinal ?? 0) + 1;
      return { ordinal: opening, ...fx };
    });
    return { ...reply, effects, hints: { ordinal: ordinal ?? null, cap, ...((reply.hints ?? {}) as Fields) } };
  };
}

/** Plays the world beneath the plugin; returns the helper calls the shell made. */
function world(on: On, script: Script, env: Record<string, string> = {}, own: readonly string[] = []): Call[] {
  const calls: Call[] = [];
  const flow = windowStub();
  mock.env(on, env);
  if (!own.includes('process.run')) on('process.run', async (_$, e) => {
    const op = e.argv[1] ?? '';
    const request = JSON.parse(e.init?.stdin ?? '{}') as Fields;
    calls.push({ op, request });
    const reply = script(op, request);
    const stdout = JSON.stringify(op === 'reset' ? flow(request, reply) : reply);
    return { value: { exitCode: 0, stdout, stderr: '', isStdoutTruncated: false, isStderrTruncated: false } };
  });
  on('session.start', async (_$, e) => ({ cwd: e.cwd }));
  on('session.end', async (_$, e) => ({ sessionId: e.sessionId }));
  if (!own.includes('tool.register')) on('tool.register', async (_$, e) => ({ value: { tool: `mcp__notesoup__${e.name}` } }));
  if (!own.includes('command.register')) on('command.register', async (_$, e) => ({ value: { command: e.name } }));
  on('session.id', async () => ({ value: SESSION }));
  on('session.cwd', async () => ({ value: '/work/project' }));
  on('session.model', async () => ({ value: 'claude-opus-5-5' }));
  on('settings.read', async () => ({ value: {} }));
  if (!own.includes('session.messages')) on('session.messages', async () => ({ value: [] }));
  if (!own.includes('session.usage')) on('session.usage', async () => ({
    value: { startedAt: 0, rateLimits: [], context: { tokens: 150_000, window: 200_000, percent: 75 } },
  }));
  if (!own.includes('ui.log')) on('ui.log', async () => ({ value: undefined }));
  return calls;
}

/** A command as the person types it. */
const typed = (command: string, args: string) => ({
  command, args, origin: { kind: 'composer' as const }, presentation: { isFullscreen: false, columns: 80 },
});

/** The engine hooks the shell forwarded to the helper's `hook` op, with their facts. */
const hookCalls = (calls: Call[]) => calls.filter((c) => c.op === 'hook').map((c) => ({ event: c.request.event, facts: c.request.facts as Fields }));

const resetOps = (calls: Call[]) => calls.filter((c) => c.op === 'reset').map((c) => (c.request.event as Fields).type);

describe('session.start', () => {
  test('registers the nine tools and three commands', async ($, on) => {
    const registered: string[] = [];
    world(on, () => ({ ok: true }), {}, ['tool.register', 'command.register']);
    on('tool.register', async (_$, e) => {
      registered.push(e.name);
      return { value: { tool: `mcp__notesoup__${e.name}` } };
    });
    on('command.register', async (_$, e) => {
      registered.push(`/${e.name}`);
      return { value: { command: e.name } };
    });
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    expect(registered.sort()).toEqual(
      ['/empty', '/fresh-window', '/notesoup', 'empty_brain', 'history_list', 'history_read', 'history_sessions', 'notes_delete', 'notes_edit', 'notes_list', 'notes_read', 'notes_write'].sort(),
    );
  });

  test('NOTESOUP_DISABLED registers nothing and calls no helper', async ($, on) => {
    let registered = 0;
    const calls = world(on, () => ({ ok: true }), { NOTESOUP_DISABLED: '' }, ['tool.register']);
    on('tool.register', async (_$, e) => {
      registered += 1;
      return { value: { tool: e.name } };
    });
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    expect(registered).toBe(0);
    expect(calls).toEqual([]);
  });

  test('DISABLE_COMPACT is forwarded as set, once, for the helper to read', async ($, on) => {
    const calls = world(on, () => ({ ok: true, state: {}, effects: [], hints: {} }), { DISABLE_COMPACT: '0' });
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    // `0` is not set for Claude: the shell does not judge it, the helper does.
    expect(hookCalls(calls)).toEqual([{ event: 'session.start', facts: { env: { DISABLE_COMPACT: '0' } } }]);
    expect(calls.map((c) => c.op)).toEqual(['hook']);
  });
});

/** A `tool` reply answering the call with `text`. */
const answered = (text: string, isError = false): Fields => ({ ok: true, effects: [{ type: 'tool_result', text, is_error: isError }] });

/** The requests of op `tool`. */
const toolCalls = (calls: Call[]) => calls.filter((c) => c.op === 'tool').map((c) => c.request);

describe('the notes and history tools', () => {
  test('a tool call sends its name, the raw arguments and the binding, and answers with the text', async ($, on) => {
    const calls = world(on, () => answered('saved plan (v2)'));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    const r = await $.tool.call({ tool: 'mcp__notesoup__notes_write', name: 'plan', text: 'ship it' });
    expect(r.result).toBe('saved plan (v2)');
    expect(toolCalls(calls)).toEqual([
      {
        name: 'mcp__notesoup__notes_write',
        args: { name: 'plan', text: 'ship it' },
        bound: { cwd: '/work/project' },
        session: { harness: 'claude', id: SESSION, process: expect.any(String) },
        budget: expect.any(Object),
      },
    ]);
  });

  test('a refusal reaches the model as an error naming the code', async ($, on) => {
    world(on, () => answered('notesoup version_conflict: plan changed since v1; now v3', true));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    const r = await $.tool.call({ tool: 'mcp__notesoup__notes_edit', name: 'plan', old: 'a', new: 'b', version: 'v1' });
    expect(String(r.deny)).toBe('notesoup version_conflict: plan changed since v1; now v3');
  });

  test('a refused request is an error too', async ($, on) => {
    world(on, () => ({ ok: false, error: { code: 'bad_request', message: 'no bound' } }));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    const r = await $.tool.call({ tool: 'mcp__notesoup__notes_list' });
    expect(String(r.deny)).toBe('notesoup bad_request: no bound');
  });

  test('a helper that prints no JSON is a refusal, not a crash', async ($, on) => {
    world(on, () => ({ ok: true }), {}, ['process.run']);
    on('process.run', async () => ({ value: { exitCode: 101, stdout: '', stderr: 'thread main panicked', isStdoutTruncated: false, isStderrTruncated: false } }));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    const r = await $.tool.call({ tool: 'mcp__notesoup__notes_list' });
    expect(String(r.deny)).toContain('helper_failed');
  });

  test('history sends what is bound (nothing, then path and head)', async ($, on) => {
    const calls = world(on, (op, req) =>
      op !== 'tool'
        ? { ok: true, state: {}, effects: [], hints: {} }
        : (req.bound as Fields).transcript_path === undefined
          ? answered('notesoup history_unavailable: no transcript path from Claude yet', true)
          : answered('seq 1 user: hi'),
    );
    on('classic.SessionStart', async () => ({}));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    const before = await $.tool.call({ tool: 'mcp__notesoup__history_list', query: 'hi' });
    expect(String(before.deny)).toContain('history_unavailable');
    expect(toolCalls(calls)[0]?.bound).toEqual({ cwd: '/work/project' });
    await $.classic.SessionStart({ source: 'startup', transcript_path: '/home/u/.claude/projects/p/s.jsonl' });
    await $.session.append({
      message: { type: 'user', role: 'user', content: [{ type: 'text', text: 'hi' }] },
      door: 'prompt', origin: { kind: 'sdk' }, uuid: '0b7c0000-0000-4000-8000-000000000001',
    });
    const after = await $.tool.call({ tool: 'mcp__notesoup__history_read', seq: 1 });
    expect(after.result).toBe('seq 1 user: hi');
    const request = toolCalls(calls).at(-1) ?? {};
    expect(request.args).toEqual({ seq: 1 });
    expect(request.bound).toEqual({
      cwd: '/work/project',
      transcript_path: '/home/u/.claude/projects/p/s.jsonl',
      head: '0b7c0000-0000-4000-8000-000000000001',
    });
  });

  test("a subagent's call is bound with its id", async ($, on) => {
    const calls = world(on, () => answered('ok'));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    await $.tool.call({ tool: 'mcp__notesoup__history_list', agentId: 'a3db8ddc3ca0f7195' });
    expect(toolCalls(calls)[0]?.bound).toEqual({ cwd: '/work/project', agent_id: 'a3db8ddc3ca0f7195' });
    expect(toolCalls(calls)[0]?.args).toEqual({});
  });
});

describe('other sessions', () => {
  test('a model-supplied path or roots is never the binding: only the model\'s arguments carry it (the helper refuses them)', async ($, on) => {
    const calls = world(on, (op) => (op === 'tool' ? answered('notesoup bad_request: `history_list` takes no argument `roots`', true) : { ok: true, state: {}, effects: [], hints: {} }));
    on('classic.SessionStart', async () => ({}));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    await $.tool.call({ tool: 'mcp__notesoup__history_list', query: 'x', transcript_path: '/etc/shadow', head: 'h', roots: { claude: '/' } });
    // Nothing bound yet: the model's path and head do not become the binding.
    expect(toolCalls(calls)[0]?.bound).toEqual({ cwd: '/work/project' });
    await $.classic.SessionStart({ source: 'startup', transcript_path: '/t/s.jsonl' });
    const r = await $.tool.call({ tool: 'mcp__notesoup__history_sessions', limit: 5, roots: { pi: '/' }, transcript_path: '/etc/shadow', cwd: '/elsewhere' });
    expect(String(r.deny)).toContain('takes no argument');
    // Bound now: the binding is Claude's path and the session's folder, whatever the model wrote.
    expect(toolCalls(calls)[1]?.bound).toEqual({ cwd: '/work/project', transcript_path: '/t/s.jsonl' });
    expect(toolCalls(calls)[1]?.args).toEqual({ limit: 5, roots: { pi: '/' }, transcript_path: '/etc/shadow', cwd: '/elsewhere' });
    expect(calls.filter((c) => c.op.startsWith('history_') || c.op.startsWith('notes_'))).toEqual([]);
  });

  test('history_list and history_read pass `session` through', async ($, on) => {
    const calls = world(on, () => answered('seq 1 user: hi'));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    await $.tool.call({ tool: 'mcp__notesoup__history_list', session: 'codex:01a23755', query: 'x' });
    await $.tool.call({ tool: 'mcp__notesoup__history_read', session: 'pi:01a2', seq: 2 });
    expect(toolCalls(calls).map((r) => r.args)).toEqual([{ session: 'codex:01a23755', query: 'x' }, { session: 'pi:01a2', seq: 2 }]);
  });
});

describe('the reset flow', () => {
  test('empty_brain sends the raw arguments with the session and answers with the tool_result effect', async ($, on) => {
    const calls = world(on, (op) =>
      op === 'tool' ? { ok: true, effects: [{ type: 'report', text: 'reset armed' }, { type: 'tool_result', text: 'Reset armed.', is_error: false }], hints: { generation: 0, pending: true } } : { ok: true },
    );
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    const r = await $.tool.call({ tool: 'mcp__notesoup__empty_brain', last_word: 'finish the parser' });
    expect(r.result).toBe('Reset armed.');
    expect(r.context).toBeUndefined();
    const sent = toolCalls(calls).at(-1);
    expect(sent?.name).toBe('mcp__notesoup__empty_brain');
    expect(sent?.args).toEqual({ last_word: 'finish the parser' });
    expect(sent?.session).toEqual({ harness: 'claude', id: SESSION, process: expect.any(String) });
    // No `reset` op of its own: the `tool` op stepped the flow.
    expect(resetOps(calls)).toEqual([]);
  });

  test('the helper keeps the flow: every call names the session and this process, never a blob', async ($, on) => {
    const calls = world(on, (op) => (op === 'tool' ? answered('ok') : { ok: true }));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    await $.tool.call({ tool: 'mcp__notesoup__empty_brain' });
    await $.tool.call({ tool: 'mcp__notesoup__empty_brain' });
    const sent = toolCalls(calls);
    expect(sent.length).toBe(2);
    for (const r of sent) {
      expect(r.state).toBeUndefined();
      expect(r.session).toEqual({ harness: 'claude', id: SESSION, process: expect.any(String) });
    }
    expect((sent[0]?.session as Fields).process).toBe((sent[1]?.session as Fields).process);
  });

  test('after session end the flow is let go: the next call comes as another process', async ($, on) => {
    const calls = world(on, (op) => (op === 'tool' ? answered('ok') : { ok: true }));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    await $.tool.call({ tool: 'mcp__notesoup__empty_brain' });
    await $.session.end({ reason: 'clear', sessionId: SESSION, resume: { id: SESSION } });
    await $.tool.call({ tool: 'mcp__notesoup__empty_brain' });
    const tokens = toolCalls(calls).map((r) => (r.session as Fields).process);
    expect(tokens.length).toBe(2);
    expect(tokens[0]).not.toBe(tokens[1]);
  });

  test('an end_turn effect answers the step without a model request', async ($, on) => {
    let requests = 0;
    world(on, (op, req) =>
      op === 'hook' && req.event === 'turn.step'
        ? { ok: true, effects: [{ type: 'end_turn', text: 'Clearing the window now.' }], hints: {} }
        : { ok: true, state: {}, effects: [], hints: {} },
    );
    on('turn.step', async function* (_$, e) {
      requests += 1;
      yield { kind: 'text', index: 0, text: 'from the model' };
      return { turnId: e.turnId, index: e.index, answer: 'from the model', toolUses: [], stopReason: 'end_turn', usage: null };
    });
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    const stream = $.turn.step({ turnId: 't1', index: 1, model: 'claude-opus-5-5', messageCount: 3 });
    const chunks: string[] = [];
    for await (const chunk of stream) chunks.push(chunk.kind === 'text' ? chunk.text : chunk.kind === 'stop' ? `stop:${String(chunk.stopReason)}` : chunk.kind);
    expect(chunks).toEqual(['Clearing the window now.', 'stop:end_turn']);
    expect(requests).toBe(0);
  });

  test('a main step past index 0 is one hook call carrying the budget facts', async ($, on) => {
    const calls = world(on, () => ({ ok: true, state: {}, effects: [], hints: {} }), { DISABLE_COMPACT: '0' });
    on('turn.step', async function* (_$, e) {
      yield { kind: 'text', index: 0, text: 'ok' };
      return { turnId: e.turnId, index: e.index, answer: 'ok', toolUses: [], stopReason: 'end_turn', usage: null };
    });
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    calls.length = 0;
    const stream = $.turn.step({ turnId: 't1', index: 2, model: 'claude-opus-5-5', messageCount: 5 });
    for await (const _ of stream) void _;
    expect(calls.map((c) => c.op)).toEqual(['hook']);
    const [call] = hookCalls(calls);
    expect(call?.event).toBe('turn.step');
    const { budget, ...facts } = call?.facts ?? {};
    expect(facts).toEqual({ agent: 'main', turn_id: 't1', index: 2 });
    // The raw facts: the fill now, the breakdown, settings, model, the variables as set.
    expect((budget as Fields).context).toEqual({ tokens: 150000, window: 200000, percent: 75 });
    expect((budget as Fields).model).toBe('claude-opus-5-5');
    expect((budget as Fields).env).toEqual({ DISABLE_COMPACT: '0' });
  });

  test('a veto answers the compaction with {skip} and never runs it', async ($, on) => {
    let core = 0;
    world(on, (op) =>
      op === 'reset' ? { ok: true, state: {}, effects: [{ type: 'veto_compaction', notice: 'notesoup: /compact is off; use /empty' }], hints: {} } : { ok: true },
    );
    on('session.compact', async () => {
      core += 1;
      return { messages: [] };
    });
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    const r = await $.session.compact({ trigger: 'manual', instructions: 'keep it', messages: [] });
    expect(r.skip).toBe('notesoup: /compact is off; use /empty');
    expect(core).toBe(0);
  });

  for (const [quiet, to] of [[true, 'debug'], [false, 'transcript']] as const) {
    test(`a veto with quiet ${String(quiet)} logs its notice to ${to} only`, async ($, on) => {
      const notice = 'notesoup: the reset\'s own compaction is no longer needed';
      world(on, (op) => (op === 'reset' ? { ok: true, state: {}, effects: [{ type: 'veto_compaction', notice, quiet }], hints: {} } : { ok: true }), {}, ['ui.log']);
      const lines: { text: string; to: string }[] = [];
      on('ui.log', async (_$, e) => {
        lines.push({ text: e.text, to: String(e.to) });
        return { value: undefined };
      });
      on('session.compact', async () => ({ messages: [] }));
      await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
      const r = await $.session.compact({ trigger: 'manual', instructions: 'notesoup-reset g1 r1 a1', messages: [] });
      expect(r.skip).toBe(notice);
      const shown = lines.filter((l) => l.text.includes('no longer needed'));
      expect(shown.length).toBe(1);
      expect(shown[0]?.to).toBe(to);
    });
  }

  test('an answered compaction becomes the fresh boot and its handoff, one window on', async ($, on) => {
    const calls = world(on, (op, req) => {
      if (op === 'boot') {
        return { ok: true, text: `<notesoup-boot window="claude:${String(req.session)}:${String(req.ordinal)}">\nnotes\n</notesoup-boot>`, handoff: 'Carry on.' };
      }
      const event = req.event as Fields | undefined;
      if (op === 'reset' && event?.type === 'compaction') {
        return { ok: true, state: {}, effects: [{ type: 'answer_compaction', pool: 'normal', sticky: 'finish the parser', generation: 1 }], hints: {} };
      }
      return { ok: true, state: {}, effects: [], hints: {} };
    });
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    const r = await $.session.compact({ trigger: 'manual', instructions: 'notesoup-reset g1 r1 a1', messages: [] });
    expect(r.messages?.length).toBe(1);
    expect(r.messages?.[0]?.text).toBe(`<notesoup-boot window="claude:${SESSION}:1">\nnotes\n</notesoup-boot>\nCarry on.`);
    const boot = calls.find((c) => c.op === 'boot')?.request;
    expect(boot).toEqual({ cwd: '/work/project', host: 'claude', session: SESSION, ordinal: 1, history: false, reset: 'normal', last_word: 'finish the parser' });
    expect(resetOps(calls)).toEqual(['compaction', 'boot']);
  });

  test('a failed boot build leaves the compaction to Claude', async ($, on) => {
    let core = 0;
    const calls = world(on, (op, req) => {
      if (op === 'boot') return { ok: false, error: { code: 'no_store', message: 'notes store unreadable' } };
      const event = req.event as Fields | undefined;
      if (op === 'reset' && event?.type === 'compaction') {
        return { ok: true, state: {}, effects: [{ type: 'answer_compaction', pool: 'forced', generation: 1 }], hints: {} };
      }
      return { ok: true, state: {}, effects: [], hints: {} };
    });
    on('session.compact', async () => {
      core += 1;
      return { messages: [{ role: 'user', text: 'summary', toolUses: [] }] };
    });
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    const r = await $.session.compact({ trigger: 'auto', messages: [] });
    expect(core).toBe(1);
    expect(r.messages?.[0]?.text).toBe('summary');
    expect(calls.filter((c) => c.op === 'reset').map((c) => c.request.event)).toContainEqual({ type: 'boot', generation: 1, status: 'failed' });
  });
});

describe('continuation', () => {
  for (const [reason, status] of [['answer', 'started'], ['error', 'failed']] as const) {
    test(`the continuation's turn ending with ${reason} is reported as ${status}`, async ($, on) => {
      const bootText = `<notesoup-boot window="claude:${SESSION}:1">\nnotes\n</notesoup-boot>`;
      const calls = world(
        on,
        (op, req) => {
          const event = req.event as Fields | undefined;
          if (op === 'boot') return { ok: true, text: bootText, handoff: null };
          if (op === 'reset' && event?.type === 'compaction') {
            return { ok: true, state: {}, effects: [{ type: 'answer_compaction', pool: 'normal', generation: 0 }], hints: {} };
          }
          if (op === 'reset' && event?.type === 'turn_complete' && !compacted) {
            compacted = true;
            return { ok: true, state: {}, effects: [{ type: 'compact', marker: 'm', generation: 0 }], hints: {} };
          }
          if (op === 'reset' && event?.type === 'commit_evidence') {
            return { ok: true, state: {}, effects: [{ type: 'continue', text: 'Fresh window.', generation: 0 }], hints: {} };
          }
          return { ok: true, state: {}, effects: [], hints: {} };
        },
        {},
        ['session.messages'],
      );
      let compacted = false;
      const submitted: string[] = [];
      on('session.messages', async () => ({ value: [{ role: 'user', content: [{ type: 'text', text: bootText }] }] }));
      on('prompt.submit', async (_$, e) => {
        submitted.push(e.text);
        return { text: e.text };
      });
      on('turn.complete', async () => ({ text: '' }));
      on('command.run', async () => ({ text: 'Compacted' }));
      const continuations = () =>
        calls.filter((c) => c.op === 'reset').map((c) => c.request.event as Fields).filter((ev) => ev.type === 'continuation');
      await $.session.start({ cwd: '/work/project', surface: 'terminal', isInteractive: true });
      await $.session.compact({ trigger: 'manual', instructions: 'm', messages: [{ role: 'user', text: 'old', toolUses: [] }] });
      await $.turn.complete({ answer: '', durationMs: 1, isAborted: false, turnId: 't1', reason: 'answer' });
      for (let i = 0; i < 100 && submitted.length === 0; i += 1) await new Promise<void>((r) => setTimeout(() => r(), 10));
      expect(submitted).toEqual(['Fresh window.']);
      await new Promise<void>((r) => setTimeout(() => r(), 20));
      expect(continuations()).toEqual([]);
      await $.turn.complete({ answer: '', durationMs: 1, isAborted: reason !== 'answer', turnId: 't2', reason });
      const expected: Fields = { type: 'continuation', generation: 0, status };
      if (status === 'failed') expected.reason = 'its turn ended: error';
      expect(continuations()).toEqual([expected]);
    });
  }
});

describe('natural input', () => {
  test('a prompt is queued at submit and delivered before its opening request goes out', async ($, on) => {
    const calls = world(on, () => ({ ok: true, state: {}, effects: [], hints: {} }));
    let atRequest: unknown[] = [];
    on('prompt.submit', async (_$, e) => ({ text: e.text }));
    on('turn.start', async (_$, e) => ({ turnId: e.turnId }));
    on('turn.step', async function* (_$, e) {
      atRequest = hookCalls(calls).map(({ event, facts: { budget: _, ...facts } }) => ({ event, ...facts }));
      yield { kind: 'text', index: 0, text: 'ok' };
      return { turnId: e.turnId, index: e.index, answer: 'ok', toolUses: [], stopReason: 'end_turn', usage: null };
    });
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    calls.length = 0;
    await $.prompt.submit({ text: 'do the thing', wait: false, origin: { kind: 'sdk' } });
    await $.turn.start({ text: 'do the thing', turnId: 't1' });
    for await (const _ of $.turn.step({ turnId: 't1', index: 0, model: 'claude-opus-5-5', messageCount: 1 })) void _;
    // The raw facts only: the flow tracks the input (queued, then carried by step 0).
    expect(atRequest).toEqual([
      { event: 'prompt.submit', origin: 'sdk', command: false },
      { event: 'turn.step', agent: 'main', turn_id: 't1', index: 0 },
    ]);
  });

  test("a plugin's own prompt is not natural input", async ($, on) => {
    const calls = world(on, () => ({ ok: true, state: {}, effects: [], hints: {} }));
    on('prompt.submit', async (_$, e) => ({ text: e.text }));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    calls.length = 0;
    await $.prompt.submit({ text: 'Fresh window.', wait: false, origin: { kind: 'plugin', name: 'notesoup' } });
    // Whether it is natural input is the helper's call: the shell forwards the origin.
    expect(hookCalls(calls).map((c) => [c.event, c.facts.origin])).toEqual([['prompt.submit', 'plugin']]);
  });
});

describe('the budget warning', () => {
  const warnWorld = (on: On) =>
    world(on, (op, req) => {
      const event = req.event as Fields | undefined;
      if (op === 'warning') return { ok: true, text: 'notesoup budget warning: save your notes.' };
      if (op === 'limits') return { ok: true, unit: 'tokens', native: 167000, hard: 158808, warning: 142424, auto_clear: true, warnings_enabled: true };
      if (op === 'hook' && (req.event === 'prompt.submit' || req.event === 'tool.call')) {
        return { ok: true, effects: [{ type: 'warn', generation: 0, text: 'notesoup budget warning: save your notes.' }], hints: {} };
      }
      return { ok: true, effects: [], hints: {} };
    });

  test('a warn effect rides on the prompt, its text filled by the one hook call', async ($, on) => {
    const calls = warnWorld(on);
    let context: string[] = [];
    on('prompt.submit', async (_$, e) => {
      context = [...(e.context ?? [])];
      return { text: e.text };
    });
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    calls.length = 0;
    await $.prompt.submit({ text: 'go on', wait: false, origin: { kind: 'sdk' } });
    expect(context).toEqual(['notesoup budget warning: save your notes.']);
    // One helper for the prompt: no limits, no warning op, no report of the warning's fate.
    expect(calls.map((c) => c.op)).toEqual(['hook']);
  });

  test('an own tool call is one helper call: main sends the budget, and a filled warn rides on its result', async ($, on) => {
    const calls = world(on, (op, req) => {
      if (op !== 'tool') return { ok: true, effects: [], hints: {} };
      if (req.budget === undefined) return answered('listed');
      return { ...answered('saved plan (v2)'), effects: [{ type: 'tool_result', text: 'saved plan (v2)', is_error: false }, { type: 'warn', generation: 0, text: 'notesoup budget warning: save your notes.' }], hints: { generation: 0, warned: true }, watch: {}, log: [] };
    });
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    calls.length = 0;
    const sub = await $.tool.call({ tool: 'mcp__notesoup__notes_list', agentId: 'a1' });
    expect(sub).toEqual({ result: 'listed' });
    expect(toolCalls(calls)[0]?.budget).toBeUndefined();
    const main = await $.tool.call({ tool: 'mcp__notesoup__notes_write', name: 'plan', text: 'x' });
    expect(main).toEqual({ result: 'saved plan (v2)', context: ['notesoup budget warning: save your notes.'] });
    const budget = toolCalls(calls)[1]?.budget as Fields;
    expect(Object.keys(budget).sort()).toEqual(['context', 'env', 'model', 'settings', 'usage']);
    // One helper per call: no limits, reset, warning or hook op besides.
    expect(calls.map((c) => c.op)).toEqual(['tool', 'tool']);
  });

  test('a main tool result is one hook call and takes the warning; a subagent result starts none', async ($, on) => {
    const calls = warnWorld(on);
    on('tool.call', async () => ({ result: 'done' }));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    calls.length = 0;
    const sub = await $.tool.call({ tool: 'Bash', command: 'true', agentId: 'a1' });
    expect(sub.context).toBeUndefined();
    expect(calls.map((c) => c.op)).toEqual([]);
    calls.length = 0;
    const main = await $.tool.call({ tool: 'Bash', command: 'true' });
    expect(main.result).toBe('done');
    expect(calls.map((c) => c.op)).toEqual(['hook']);
    expect(hookCalls(calls)[0]?.event).toBe('tool.call');
  });

  test('a prompt another hook drops leaves the warning due', async ($, on) => {
    const calls = warnWorld(on);
    on('prompt.submit', async () => ({ drop: 'not now' }));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    await $.prompt.submit({ text: 'go on', wait: false, origin: { kind: 'sdk' } });
    expect(hookCalls(calls).at(-1)).toEqual({ event: 'prompt.dropped', facts: { generation: 0 } });
  });
});

describe('/empty and /fresh-window', () => {
  test('an idle close-out is submitted from a timer, carrying the budget warning', async ($, on) => {
    const clock = mock.clock(on);
    const calls = world(on, (op, req) => {
      const event = req.event as Fields | undefined;
      if (op === 'warning') return { ok: true, text: 'Save your notes now, then call mcp__notesoup__empty_brain.' };
      if (op === 'limits') return { ok: true, unit: 'tokens', native: 167000, hard: 158808, warning: 142424, auto_clear: true, warnings_enabled: true };
      if (op === 'reset' && event?.type === 'command') {
        return { ok: true, state: {}, effects: [{ type: 'closeout', mode: 'submit', generation: 0 }, { type: 'report', text: 'notesoup: saving notes, then clearing' }], hints: {} };
      }
      return { ok: true, state: {}, effects: [], hints: {} };
    });
    const submitted: string[] = [];
    on('prompt.submit', async (_$, e) => {
      submitted.push(e.text);
      return { text: e.text };
    });
    await $.session.start({ cwd: '/work/project', surface: 'terminal', isInteractive: true });
    const r = await $.command.run(typed('empty', ''));
    expect(String(r.text)).toContain('saving notes, then clearing');
    expect(calls.filter((c) => c.op === 'reset').map((c) => c.request.event)).toContainEqual({ type: 'command', command: 'empty', busy: false });
    expect(submitted).toEqual([]);
    await clock.settle();
    expect(submitted).toEqual(['Save your notes now, then call mcp__notesoup__empty_brain.']);
    expect(calls.find((c) => c.op === 'warning')?.request).toEqual({ host: 'claude', used: 150000, clear_at: 158808, unit: 'tokens' });
  });

  test('in the percent fallback the warning is asked in percent, unit included', async ($, on) => {
    const calls = world(on, (op, req) => {
      const event = req.event as Fields | undefined;
      if (op === 'warning') return { ok: true, text: 'About 23 percent left before the clear.' };
      if (op === 'limits') return { ok: true, unit: 'percent', native: 98, hard: 98, warning: 70, auto_clear: true, warnings_enabled: true };
      if (op === 'reset' && event?.type === 'command') {
        return { ok: true, state: {}, effects: [{ type: 'closeout', mode: 'current_turn', generation: 0 }], hints: {} };
      }
      return { ok: true, state: {}, effects: [], hints: {} };
    });
    on('turn.start', async (_$, e) => ({ turnId: e.turnId }));
    await $.session.start({ cwd: '/work/project', surface: 'terminal', isInteractive: true });
    await $.turn.start({ text: 'work', turnId: 't8' });
    const r = await $.command.run(typed('empty', ''));
    expect(r.context).toEqual(['About 23 percent left before the clear.']);
    expect(calls.find((c) => c.op === 'warning')?.request).toEqual({ host: 'claude', used: 75, clear_at: 98, unit: 'percent' });
  });

  test('a close-out that cannot start (no usage yet) answers the command with the cancel', async ($, on) => {
    const calls = world(on, (op, req) => {
      const event = req.event as Fields | undefined;
      if (op === 'limits') return { ok: true, unit: 'tokens', native: 167000, hard: 158808, warning: 142424, auto_clear: true, warnings_enabled: true };
      if (op === 'reset' && event?.type === 'command') {
        return { ok: true, state: {}, effects: [{ type: 'report', text: 'notesoup: /fresh-window: saving notes, then clearing' }, { type: 'closeout', mode: 'submit', generation: 0 }], hints: {} };
      }
      if (op === 'reset' && event?.type === 'closeout') {
        return { ok: true, state: {}, effects: [{ type: 'cancel', reason: 'r' }, { type: 'report', text: 'notesoup: reset cancelled: the close-out turn failed (no context usage measured yet).' }], hints: {} };
      }
      return { ok: true, state: {}, effects: [], hints: {} };
    }, {}, ['session.usage']);
    on('session.usage', async () => ({ value: { startedAt: 0, rateLimits: [], context: { window: 200_000 } } }));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    const r = await $.command.run(typed('fresh-window', ''));
    expect(String(r.text)).toBe('notesoup: /fresh-window: saving notes, then clearing\nnotesoup: reset cancelled: the close-out turn failed (no context usage measured yet).');
    expect(calls.filter((c) => c.op === 'reset').map((c) => c.request.event)).toContainEqual({ type: 'closeout', generation: 0, status: 'failed', reason: 'no context usage measured yet' });
    expect(calls.some((c) => c.op === 'warning')).toBe(false);
  });

  test('a busy close-out rides on the command as context (the flow knows the turn runs)', async ($, on) => {
    const calls = world(on, (op, req) => {
      const event = req.event as Fields | undefined;
      if (op === 'warning') return { ok: true, text: 'Save your notes now.' };
      if (op === 'limits') return { ok: true, unit: 'tokens', native: 167000, hard: 158808, warning: 142424, auto_clear: true, warnings_enabled: true };
      if (op === 'reset' && event?.type === 'command') {
        return { ok: true, state: {}, effects: [{ type: 'closeout', mode: 'current_turn', generation: 0 }], hints: {} };
      }
      return { ok: true, state: {}, effects: [], hints: {} };
    });
    await $.session.start({ cwd: '/work/project', surface: 'terminal', isInteractive: true });
    const r = await $.command.run(typed('fresh-window', ''));
    expect(r.context).toEqual(['Save your notes now.']);
    expect(calls.filter((c) => c.op === 'reset').map((c) => c.request.event)).toContainEqual({ type: 'command', command: 'fresh_window', busy: false });
  });
});

describe('interactive commit evidence', () => {
  test('the boot found among merged user blocks counts as intact', async ($, on) => {
    const bootText = `<notesoup-boot window="claude:${SESSION}:1">\nnotes\n</notesoup-boot>`;
    const calls = world(
      on,
      (op, req) => {
        const event = req.event as Fields | undefined;
        if (op === 'boot') return { ok: true, text: bootText, handoff: 'Carry on.' };
        if (op === 'reset' && event?.type === 'compaction') {
          return { ok: true, state: {}, effects: [{ type: 'answer_compaction', pool: 'normal', generation: 0 }], hints: {} };
        }
        if (op === 'reset' && event?.type === 'turn_complete') {
          return { ok: true, state: {}, effects: [{ type: 'compact', marker: 'notesoup-reset g0 r1 a1', generation: 0 }], hints: {} };
        }
        return { ok: true, state: {}, effects: [], hints: {} };
      },
      {},
      ['session.messages'],
    );
    const compacted: string[] = [];
    on('command.run', async (_$, e) => {
      compacted.push(e.args);
      return { text: 'Compacted' };
    });
    on('turn.complete', async () => ({ text: '' }));
    on('session.messages', async () => ({
      value: [
        { role: 'user', content: [{ type: 'text', text: `${bootText}\nCarry on.\n` }, { type: 'text', text: '<command-name>/compact</command-name>' }] },
      ],
    }));
    await $.session.start({ cwd: '/work/project', surface: 'terminal', isInteractive: true });
    await $.session.compact({ trigger: 'manual', instructions: 'notesoup-reset g0 r1 a1', messages: [] });
    await $.turn.complete({ answer: '', durationMs: 1, isAborted: false, turnId: 't1', reason: 'answer' });
    const evidence = () => calls.filter((c) => c.op === 'reset').map((c) => c.request.event as Fields).find((ev) => ev.type === 'commit_evidence');
    for (let i = 0; i < 100 && evidence() === undefined; i += 1) await new Promise<void>((r) => setTimeout(() => r(), 10));
    expect(compacted).toEqual(['notesoup-reset g0 r1 a1']);
    expect(evidence()).toEqual({ type: 'commit_evidence', generation: 0, source: 'messages', evidence: 'boot', uuid: expect.any(String), intact: true });
  });
});

describe('boot', () => {
  const bootWorld = (on: On, native: boolean, own: readonly string[] = []) =>
    world(on, (op, req) => {
      if (op === 'boot') return { ok: true, text: `<notesoup-boot window="claude:${String(req.session)}:${String(req.ordinal)}">\nnotes\n</notesoup-boot>` };
      const event = req.event as Fields | undefined;
      if (op === 'reset' && event?.type === 'compaction') {
        return { ok: true, state: {}, effects: native ? [{ type: 'native_compaction' }] : [{ type: 'veto_compaction', notice: 'no' }], hints: {} };
      }
      return { ok: true, state: {}, effects: [], hints: {} };
    }, {}, own);

  test('the first prompt gets window 0; after Claude compacts on its own, the next gets window 1', async ($, on) => {
    const calls = bootWorld(on, true);
    on('prompt.context', async (_$, e) => ({ blocks: e.blocks }));
    on('session.compact', async () => ({ messages: [{ role: 'user', text: 'summary', toolUses: [] }] }));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    const first = await $.prompt.context({ blocks: [{ name: 'currentDate', text: 'today' }] });
    expect(first.blocks.map((b) => b.name)).toEqual(['currentDate', 'notesoup']);
    expect(first.blocks[1]?.text).toContain(`window="claude:${SESSION}:0"`);
    await $.session.compact({ trigger: 'auto', messages: [{ role: 'user', text: 'long work', toolUses: [] }] });
    const second = await $.prompt.context({ blocks: [] });
    expect(second.blocks[0]?.text).toContain(`window="claude:${SESSION}:1"`);
    expect(calls.filter((c) => c.op === 'boot').map((c) => c.request.ordinal)).toEqual([0, 1]);
  });

  test('a vetoed compaction keeps the window', async ($, on) => {
    const calls = bootWorld(on, false);
    on('prompt.context', async (_$, e) => ({ blocks: e.blocks }));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    await $.prompt.context({ blocks: [] });
    await $.session.compact({ trigger: 'manual', messages: [] });
    await $.prompt.context({ blocks: [] });
    expect(calls.filter((c) => c.op === 'boot').map((c) => c.request.ordinal)).toEqual([0, 0]);
  });

  test('after a reload the next window follows the boot Claude kept', async ($, on) => {
    const calls = world(
      on,
      (op, req) => {
        if (op === 'boot') return { ok: true, text: `<notesoup-boot window="claude:${SESSION}:${String(req.ordinal)}">\nnotes\n</notesoup-boot>` };
        const event = req.event as Fields | undefined;
        if (op === 'reset' && event?.type === 'compaction') {
          return { ok: true, state: {}, effects: [{ type: 'answer_compaction', pool: 'forced', generation: 0 }], hints: {} };
        }
        return { ok: true, state: {}, effects: [], hints: {} };
      },
      {},
      ['session.messages'],
    );
    on('session.messages', async () => ({
      value: [{ role: 'user', content: [{ type: 'text', text: `<notesoup-boot window="claude:${SESSION}:3">\nnotes\n</notesoup-boot>` }] }],
    }));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    const r = await $.session.compact({ trigger: 'auto', messages: [{ role: 'user', text: 'long work', toolUses: [] }] });
    expect(r.messages?.[0]?.text).toContain(`window="claude:${SESSION}:4"`);
    expect(calls.filter((c) => c.op === 'boot').map((c) => c.request.ordinal)).toEqual([4]);
  });

  test('a boot Claude kept is not attached again and gives its ordinal back', async ($, on) => {
    const calls = bootWorld(on, true, ['session.messages']);
    on('prompt.context', async (_$, e) => ({ blocks: e.blocks }));
    on('session.messages', async () => ({
      value: [{ role: 'user', content: [{ type: 'text', text: `<system-reminder>\n# notesoup\n<notesoup-boot window="claude:${SESSION}:3">\nnotes\n</notesoup-boot>` }] }],
    }));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    const r = await $.prompt.context({ blocks: [] });
    expect(r.blocks).toEqual([]);
    expect(calls.filter((c) => c.op === 'boot')).toEqual([]);
    const shown = await $.command.run(typed('notesoup', ''));
    expect(String(shown.text)).toContain(`window claude:${SESSION}:3`);
  });
});

describe('/notesoup cap', () => {
  const limits = (req: Fields) =>
    req.cap === 'lots'
      ? { ok: false, error: { code: 'bad_cap', message: 'cap "lots" is not a token count' } }
      : { ok: true, unit: 'tokens', source: 'breakdown', native: 67000, hard: 58808, warning: 42424, cap: req.cap === null ? null : 100000 };

  test('a cap the helper accepts is kept and shown', async ($, on) => {
    const calls = world(on, (op, req) => (op === 'limits' ? limits(req) : { ok: true, state: {}, effects: [], hints: {} }));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    const r = await $.command.run(typed('notesoup', 'cap 100k'));
    expect(String(r.text)).toContain('cap: 100000');
    expect(calls.filter((c) => c.op === 'reset').map((c) => c.request.event)).toContainEqual({ type: 'cap_changed', cap: 100000 });
    const shown = await $.command.run(typed('notesoup', ''));
    expect(String(shown.text)).toContain('cap: 100000');
  });

  test('a refused cap changes nothing and says why', async ($, on) => {
    const calls = world(on, (op, req) => (op === 'limits' ? limits(req) : { ok: true, state: {}, effects: [], hints: {} }));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    await $.command.run(typed('notesoup', 'cap 100k'));
    const r = await $.command.run(typed('notesoup', 'cap lots'));
    expect(String(r.text)).toContain('cap refused: cap "lots" is not a token count');
    const shown = await $.command.run(typed('notesoup', 'cap'));
    expect(String(shown.text)).toContain('cap: 100000');
    expect(calls.filter((c) => c.op === 'limits').at(-1)?.request.cap).toBe('100000');
    expect(calls.filter((c) => c.op === 'reset').map((c) => c.request.event)).not.toContainEqual({ type: 'cap_changed', cap: null });
  });

  test('cap off removes it', async ($, on) => {
    world(on, (op, req) => (op === 'limits' ? limits(req) : { ok: true, state: {}, effects: [], hints: {} }));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    await $.command.run(typed('notesoup', 'cap 100k'));
    const r = await $.command.run(typed('notesoup', 'cap off'));
    expect(String(r.text)).toContain('cap: none');
  });
});
