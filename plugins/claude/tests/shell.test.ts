// The shell's own tests, run by the engine: `claude plugin test plugins/claude`.
//
// The module is loaded as Claude Code loads it; the test's hooks sit beneath it and play
// the world: `process.run` is the helper (a scripted reply per op, every request kept),
// the session nouns answer from a small fixed session. What is checked is what the shell
// does with the helper's replies, never what the helper decides.

import { describe, expect, mock, test } from 'claude-code/testing';
import type { Engine } from 'claude-code/testing';
import type { On } from 'claude-code';

type Fields = { [key: string]: unknown };
// Present in the environment tests run in; the contract's lib (es2023, no DOM) lacks its type.
declare const setTimeout: (callback: () => void, ms: number) => unknown;
type Call = { op: string; request: Fields };
type Script = (op: string, request: Fields) => Fields;

const SESSION = '6e9d2c1a-0000-4000-8000-000000000001';

/** Plays the world beneath the plugin; returns the helper calls the shell made. */
function world(on: On, script: Script, env: Record<string, string> = {}, own: readonly string[] = []): Call[] {
  const calls: Call[] = [];
  mock.env(on, env);
  if (!own.includes('process.run')) on('process.run', async (_$, e) => {
    const op = e.argv[1] ?? '';
    const request = JSON.parse(e.init?.stdin ?? '{}') as Fields;
    calls.push({ op, request });
    const reply = script(op, request);
    const stdout = JSON.stringify(reply);
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

/** A world whose helper answers the `command.run` hook with `effects`, every other call with none. */
const commandWorld = (on: On, effects: Fields[]) =>
  world(on, (op, req) => (op === 'hook' && req.event === 'command.run' ? { ok: true, effects } : { ok: true, effects: [] }));

/** The prompts the shell submits, in order, each taken by the engine as it is. */
function submittedPrompts(on: On): string[] {
  const submitted: string[] = [];
  on('prompt.submit', async (_$, e) => {
    submitted.push(e.text);
    return { text: e.text };
  });
  return submitted;
}

/** A command as the person types it. */
const typed = (command: string, args: string) => ({
  command, args, origin: { kind: 'composer' as const }, presentation: { isFullscreen: false, columns: 80 },
});

/** The engine hooks the shell forwarded to the helper's `hook` op, with their facts. */
const hookCalls = (calls: Call[]) => calls.filter((c) => c.op === 'hook').map((c) => ({ event: c.request.event, facts: c.request.facts as Fields }));

/** One main row the engine keeps, through `door`. */
const commandRow = ($: Engine, door: 'prompt' | 'command', text: string) =>
  $.session.append({
    message: { type: 'user', role: 'user', content: [{ type: 'text', text }] },
    door, origin: { kind: 'sdk' }, uuid: '0b7c0000-0000-4000-8000-00000000000c',
  });

/** Waits (at most 250 ms, in 5 ms steps) until `done`: what the shell starts without awaiting. */
async function settled(done: () => boolean) {
  for (let i = 0; i < 50 && !done(); i += 1) await new Promise<void>((r) => setTimeout(() => r(), 5));
}

const resetOps = (calls: Call[]) => calls.filter((c) => c.op === 'reset').map((c) => (c.request.event as Fields).type);

describe('session.start', () => {
  test('registers the nine tools and three commands before the opening request', async ($, on) => {
    const registered: string[] = [];
    let atRequest: string[] = [];
    world(on, () => ({ ok: true }), {}, ['tool.register', 'command.register']);
    on('tool.register', async (_$, e) => {
      registered.push(e.name);
      return { value: { tool: `mcp__notesoup__${e.name}` } };
    });
    on('command.register', async (_$, e) => {
      registered.push(`/${e.name}`);
      return { value: { command: e.name } };
    });
    on('turn.step', async function* (_$, e) {
      // The opening request goes out only once every tool and command is registered.
      atRequest = [...registered];
      yield { kind: 'text', index: 0, text: 'ok' };
      return { turnId: e.turnId, index: e.index, answer: 'ok', toolUses: [], stopReason: 'end_turn', usage: null };
    });
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    for await (const _ of $.turn.step({ turnId: 't1', index: 0, model: 'claude-opus-5-5', messageCount: 1 })) void _;
    expect(atRequest.sort()).toEqual(registered.sort());
    expect(registered.sort()).toEqual(
      ['/empty', '/fresh-window', '/notesoup', 'empty_brain', 'history_list', 'history_read', 'history_sessions', 'notes_delete', 'notes_edit', 'notes_list', 'notes_read', 'notes_write'].sort(),
    );
  });

  test('a helper that cannot run: nothing registered, every hook passes through, one transcript line', async ($, on) => {
    let registered = 0;
    const logged: { text: string; to?: string }[] = [];
    // The real process.run, of a helper that is not there (as when npm skipped the platform
    // package, or the binary is another machine's).
    world(on, () => ({ ok: true }), { NOTESOUP_HELPER: '/nonexistent/notesoup-helper' }, ['process.run', 'tool.register', 'ui.log']);
    on('tool.register', async (_$, e) => {
      registered += 1;
      return { value: { tool: e.name } };
    });
    on('ui.log', async (_$, e) => {
      logged.push({ text: e.text, to: String(e.to) });
      return { value: undefined };
    });
    on('prompt.submit', async (_$, e) => ({ text: e.text }));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    await $.prompt.submit({ text: 'hello', wait: false, origin: { kind: 'sdk' } });
    expect(registered).toBe(0);
    const lines = logged.filter((l) => l.to === 'transcript');
    expect(lines.length).toBe(1);
    expect(lines[0]?.text).toContain('notesoup is off for this session');
    // Named by NOTESOUP_HELPER: the fix is the variable (reinstalling would change nothing).
    expect(lines[0]?.text).toContain('NOTESOUP_HELPER is set to /nonexistent/notesoup-helper: point it at a notesoup-helper of this version, or unset it');
    expect(lines[0]?.text).not.toContain('reinstall');
  });

  test('installed from npm on a machine the release has no helper for: the line names the platforms it has, not reinstall alone', async ($, on) => {
    const logged: { text: string; to?: string }[] = [];
    // The plugin as npm installs it, with no platform package for this machine: no staged
    // helper, no `node_modules/@notesoup/cli-*`, a package.json naming linux-x64's.
    world(on, () => ({ ok: true }), {}, ['process.run', 'ui.log']);
    on('fs.exists', async () => ({ value: false }));
    on('fs.list', async () => ({ value: [] }));
    on('fs.read', async (_$, e) => ({
      value: String(e.path).endsWith('/package.json')
        ? JSON.stringify({ name: '@notesoup/claude-plugin', optionalDependencies: { '@notesoup/cli-linux-x64': '0.1.0' } })
        : '',
    }));
    on('process.run', async () => {
      throw new Error('spawn notesoup-helper ENOENT');
    });
    on('ui.log', async (_$, e) => {
      logged.push({ text: e.text, to: String(e.to) });
      return { value: undefined };
    });
    on('prompt.submit', async (_$, e) => ({ text: e.text }));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    await $.prompt.submit({ text: 'hello', wait: false, origin: { kind: 'sdk' } });
    const lines = logged.filter((l) => l.to === 'transcript');
    expect(lines.length).toBe(1);
    expect(lines[0]?.text).toContain('notesoup is off for this session');
    expect(lines[0]?.text).toContain('no notesoup-helper for this machine came with the plugin: this release has one for linux-x64 only');
  });

  // Off for the session: a helper of another version (by its code: an older helper's refusal
  // has no `off`), or any refusal that says `off` (a notes home it cannot write).
  const offRefusals = [
    ['a helper of another version', { code: 'version_mismatch', message: 'the plugin is 0.1.0, the helper 0.0.9' }],
    ['a refusal that says off', { code: 'window_store', message: 'create the folder `/ro`: Read-only file system', off: true }],
  ] as const;
  for (const [what, error] of offRefusals) {
    test(`${what}: nothing registered, one transcript line; every request says the module's version`, async ($, on) => {
      let registered = 0;
      const logged: string[] = [];
      const calls = world(on, () => ({ ok: false, error }), {}, ['tool.register', 'ui.log']);
      on('tool.register', async (_$, e) => {
        registered += 1;
        return { value: { tool: e.name } };
      });
      on('ui.log', async (_$, e) => {
        if (String(e.to) === 'transcript') logged.push(e.text);
        return { value: undefined };
      });
      await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
      expect(registered).toBe(0);
      expect(logged).toEqual([`notesoup is off for this session: ${error.message}`]);
      expect(calls.map((c) => c.request.version)).toEqual(['0.1.0']);
    });
  }

  for (const [env, disabled] of [[{ NOTESOUP_DISABLED: '' }, true], [{}, true], [{ NOTESOUP_DISABLED: '1' }, false]] as const) {
    test(`NOTESOUP_DISABLED ${JSON.stringify(env)} goes raw; the helper's disabled: ${String(disabled)} is obeyed`, async ($, on) => {
      let registered = 0;
      const calls = world(on, (op) => (op === 'hook' ? { ok: true, disabled, effects: [] } : answered('listed')), env, ['tool.register']);
      on('tool.register', async (_$, e) => {
        registered += 1;
        return { value: { tool: e.name } };
      });
      on('tool.call', async () => ({ result: 'done' }));
      on('prompt.submit', async (_$, e) => ({ text: e.text }));
      await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
      // The shell judges nothing: the value as set (or nothing) goes to the one rule in Rust.
      expect(hookCalls(calls)).toEqual([{ event: 'session.start', facts: { env, interactive: false } }]);
      expect(registered).toBe(disabled ? 0 : 9);
      await $.tool.call({ tool: 'Bash', command: 'true' });
      await $.prompt.submit({ text: 'go on', wait: false, origin: { kind: 'sdk' } });
      // Off: every later event passes through with no helper; on: each is a hook call.
      expect(calls.length).toBe(disabled ? 1 : 3);
    });
  }

  test('a hook before session.start (an interactive start) carries the switch; a disabled answer passes everything through', async ($, on) => {
    let registered = 0;
    const calls = world(on, () => ({ ok: true, disabled: true, effects: [{ type: 'attach_boot', ordinal: 0, text: 'boot' }] }), { NOTESOUP_DISABLED: '1' }, ['tool.register']);
    on('tool.register', async (_$, e) => {
      registered += 1;
      return { value: { tool: e.name } };
    });
    on('prompt.context', async (_$, e) => ({ blocks: e.blocks }));
    const r = await $.prompt.context({ blocks: [] });
    expect(r.blocks).toEqual([]);
    expect(hookCalls(calls)).toEqual([{ event: 'prompt.context', facts: { cwd: '/work/project', kept: [], env: { NOTESOUP_DISABLED: '1' } } }]);
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: true });
    expect(registered).toBe(0);
    expect(calls.length).toBe(1);
  });

  test('a registration the engine refuses is logged and never fails the prompts', async ($, on) => {
    world(on, () => ({ ok: true, effects: [] }), {}, ['tool.register', 'ui.log']);
    on('tool.register', async () => {
      throw new Error('no tool server');
    });
    const lines: string[] = [];
    on('ui.log', async (_$, e) => {
      lines.push(e.text);
      return { value: undefined };
    });
    on('prompt.submit', async (_$, e) => ({ text: e.text }));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    const r = await $.prompt.submit({ text: 'go on', wait: false, origin: { kind: 'sdk' } });
    expect(r.text).toBe('go on');
    expect(lines.filter((l) => l.includes('registering the tools failed')).length).toBe(1);
  });

  test('DISABLE_COMPACT is forwarded as set, once, for the helper to read', async ($, on) => {
    const calls = world(on, () => ({ ok: true, effects: [] }), { DISABLE_COMPACT: '0' });
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    // `0` is not set for Claude: the shell does not judge it, the helper does.
    expect(hookCalls(calls)).toEqual([{ event: 'session.start', facts: { env: { DISABLE_COMPACT: '0' }, interactive: false } }]);
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
    const r = await $.tool.call({ tool: 'mcp__notesoup__notes_write', name: 'plan', text: 'ship it', tool_use_id: 'toolu_01' });
    expect(r.result).toBe('saved plan (v2)');
    expect(toolCalls(calls)).toEqual([
      {
        name: 'mcp__notesoup__notes_write',
        args: { name: 'plan', text: 'ship it' },
        // The call's own id: a history list leaves the asking call out of its answer.
        bound: { cwd: '/work/project', call_id: 'toolu_01' },
        session: { harness: 'claude', id: SESSION, process: expect.any(String), interactive: false },
        budget: expect.any(Object),
        version: '0.1.0',
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
        ? { ok: true, effects: [] }
        : (req.bound as Fields).transcript_path === undefined
          ? answered('notesoup history_unavailable: no transcript path from Claude yet', true)
          : answered('seq 1 user: hi'),
    );
    on('classic.SessionStart', async () => ({}));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    const before = await $.tool.call({ tool: 'mcp__notesoup__history_list', query: 'hi' });
    expect(String(before.deny)).toContain('history_unavailable');
    expect(toolCalls(calls)[0]?.bound).toEqual({ cwd: '/work/project', call_id: expect.any(String) });
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
      call_id: expect.any(String),
    });
  });

  test('a tool call is bound with the head and the append before it (the terminal writes the calling row late)', async ($, on) => {
    const calls = world(on, () => answered('seq 1 user: hi'));
    on('classic.SessionStart', async () => ({}));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    await $.classic.SessionStart({ source: 'startup', transcript_path: '/t/s.jsonl' });
    for (const uuid of ['0b7c0000-0000-4000-8000-000000000001', '0b7c0000-0000-4000-8000-000000000002']) {
      await $.session.append({
        message: { type: 'user', role: 'user', content: [{ type: 'text', text: 'hi' }] },
        door: 'prompt', origin: { kind: 'sdk' }, uuid,
      });
    }
    await $.tool.call({ tool: 'mcp__notesoup__history_list', query: 'hi' });
    expect(toolCalls(calls)[0]?.bound).toEqual({
      cwd: '/work/project',
      transcript_path: '/t/s.jsonl',
      head: '0b7c0000-0000-4000-8000-000000000002',
      prior_head: '0b7c0000-0000-4000-8000-000000000001',
      call_id: expect.any(String),
    });
  });

  test("a subagent's call is bound with its id", async ($, on) => {
    const calls = world(on, () => answered('ok'));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    await $.tool.call({ tool: 'mcp__notesoup__history_list', agentId: 'a3db8ddc3ca0f7195' });
    expect(toolCalls(calls)[0]?.bound).toEqual({ cwd: '/work/project', agent_id: 'a3db8ddc3ca0f7195', call_id: expect.any(String) });
    expect(toolCalls(calls)[0]?.args).toEqual({});
  });
});

describe('other sessions', () => {
  test('a model-supplied path or roots is never the binding: only the model\'s arguments carry it (the helper refuses them)', async ($, on) => {
    const calls = world(on, (op) => (op === 'tool' ? answered('notesoup bad_request: `history_list` takes no argument `roots`', true) : { ok: true, effects: [] }));
    on('classic.SessionStart', async () => ({}));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    await $.tool.call({ tool: 'mcp__notesoup__history_list', query: 'x', transcript_path: '/etc/shadow', head: 'h', roots: { claude: '/' } });
    // Nothing bound yet: the model's path and head do not become the binding.
    expect(toolCalls(calls)[0]?.bound).toEqual({ cwd: '/work/project', call_id: expect.any(String) });
    await $.classic.SessionStart({ source: 'startup', transcript_path: '/t/s.jsonl' });
    const r = await $.tool.call({ tool: 'mcp__notesoup__history_sessions', limit: 5, roots: { pi: '/' }, transcript_path: '/etc/shadow', cwd: '/elsewhere' });
    expect(String(r.deny)).toContain('takes no argument');
    // Bound now: the binding is Claude's path and the session's folder, whatever the model wrote.
    expect(toolCalls(calls)[1]?.bound).toEqual({ cwd: '/work/project', transcript_path: '/t/s.jsonl', call_id: expect.any(String) });
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
      op === 'tool' ? { ok: true, effects: [{ type: 'report', text: 'reset armed' }, { type: 'tool_result', text: 'Reset armed.', is_error: false }] } : { ok: true },
    );
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    const r = await $.tool.call({ tool: 'mcp__notesoup__empty_brain', last_word: 'finish the parser' });
    expect(r.result).toBe('Reset armed.');
    expect(r.context).toBeUndefined();
    const sent = toolCalls(calls).at(-1);
    expect(sent?.name).toBe('mcp__notesoup__empty_brain');
    expect(sent?.args).toEqual({ last_word: 'finish the parser' });
    expect(sent?.session).toEqual({ harness: 'claude', id: SESSION, process: expect.any(String), interactive: false });
    // No `reset` op of its own: the `tool` op stepped the flow.
    expect(resetOps(calls)).toEqual([]);
  });

  test('the helper keeps the flow: every call names the session, this process and whether it is interactive, never a blob', async ($, on) => {
    const calls = world(on, (op) => (op === 'tool' ? answered('ok') : { ok: true }));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: true });
    await $.tool.call({ tool: 'mcp__notesoup__empty_brain' });
    await $.tool.call({ tool: 'mcp__notesoup__empty_brain' });
    const sent = toolCalls(calls);
    expect(sent.length).toBe(2);
    for (const r of sent) {
      expect(r.state).toBeUndefined();
      expect(r.session).toEqual({ harness: 'claude', id: SESSION, process: expect.any(String), interactive: true });
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
        ? { ok: true, effects: [{ type: 'end_turn', text: 'Clearing the window now.' }] }
        : { ok: true, effects: [] },
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
    const calls = world(on, () => ({ ok: true, effects: [] }), { DISABLE_COMPACT: '0' });
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
      op === 'hook' ? { ok: true, effects: [{ type: 'veto_compaction', notice: 'notesoup: /compact is off; use /empty' }] } : { ok: true },
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
      world(on, (op) => (op === 'hook' ? { ok: true, effects: [{ type: 'veto_compaction', notice, quiet }] } : { ok: true }), {}, ['ui.log']);
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

  test('an answered compaction returns the boot the one hook call built, without running the core', async ($, on) => {
    let core = 0;
    const text = `<notesoup-boot window="claude:${SESSION}:1">\nnotes\n</notesoup-boot>\nCarry on.`;
    const calls = world(on, (op) =>
      op === 'hook' ? { ok: true, effects: [{ type: 'answer_compaction', pool: 'normal', ordinal: 1, generation: 1, text }] } : { ok: true },
    );
    on('session.compact', async () => {
      core += 1;
      return { messages: [] };
    });
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    calls.length = 0;
    const r = await $.session.compact({ trigger: 'manual', instructions: 'notesoup-reset g1 r1 a1', messages: [] });
    expect(r.messages).toEqual([{ role: 'user', text, toolUses: [] }]);
    expect(core).toBe(0);
    expect(calls.map((c) => c.op)).toEqual(['hook']);
    expect(hookCalls(calls)[0]).toEqual({
      event: 'session.compact',
      facts: { cwd: '/work/project', agent: 'main', trigger: 'manual', instructions: 'notesoup-reset g1 r1 a1', tail: [] },
    });
  });

  test('an answered automatic compaction keeps after the boot the messages the helper names, and the input taken into the turn', async ($, on) => {
    const text = `<notesoup-boot window="claude:${SESSION}:1">\nnotes\n</notesoup-boot>\nCarry on.`;
    // The helper keeps the last two of what it was shown: the message with results as its
    // text alone, the input typed into the turn (not in e.messages) as a new message.
    const calls = world(on, (op, req) =>
      op === 'hook' && req.event === 'session.compact'
        ? { ok: true, effects: [{ type: 'answer_compaction', pool: 'forced', ordinal: 1, generation: 1, text, keep: [{ at: 2, text_only: true }, { at: 3, text_only: false }] }] }
        : { ok: true, effects: [] },
    );
    on('prompt.submit', async (_$, e) => ({ text: e.text }));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    await $.prompt.submit({ text: 'NATURAL: one more thing', wait: false, origin: { kind: 'sdk' }, turnId: 't1' });
    const results = [{ tool_use_id: 'u1', text: 'slept', isError: false }];
    const messages = [
      { role: 'user' as const, text: 'Work on.', toolUses: [], handle: 'h1' },
      { role: 'assistant' as const, text: 'Working.', toolUses: [], handle: 'h2' },
      { role: 'user' as const, text: 'also this', toolUses: [], toolResults: results, handle: 'h3' },
    ];
    const r = await $.session.compact({ trigger: 'auto', messages });
    expect(r.messages).toEqual([
      { role: 'user', text, toolUses: [] },
      { role: 'user', text: 'also this', toolUses: [] },
      { role: 'user', text: 'NATURAL: one more thing', toolUses: [] },
    ]);
    const compact = hookCalls(calls).find((c) => c.event === 'session.compact');
    expect(compact?.facts.tail).toEqual([
      { role: 'user', results: false, text: 'Work on.' },
      { role: 'assistant', results: false, text: 'Working.' },
      { role: 'user', results: true, text: 'also this' },
      { role: 'user', results: false, text: 'NATURAL: one more thing' },
    ]);
  });

  for (const [stopReason, kept] of [[null, true], ['end_turn', false]] as const) {
    test(`input taken into the turn is ${kept ? 'still' : 'no longer'} told to a compaction after a step whose stopReason is ${String(stopReason)}`, async ($, on) => {
      const calls = world(on, () => ({ ok: true, effects: [] }));
      on('prompt.submit', async (_$, e) => ({ text: e.text }));
      // The step that carries the input: no response (prompt too long), or an answer.
      on('turn.step', async function* (_$, e) {
        yield* [];
        return { turnId: e.turnId, index: e.index, answer: '', toolUses: [], stopReason, usage: null };
      });
      on('session.compact', async () => ({ messages: [{ role: 'user', text: 'summary', toolUses: [] }] }));
      await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
      await $.prompt.submit({ text: 'NATURAL: one more thing', wait: false, origin: { kind: 'sdk' }, turnId: 't1' });
      for await (const _ of $.turn.step({ turnId: 't1', index: 1, model: 'claude-opus-5-5', messageCount: 3 })) void _;
      await $.session.compact({ trigger: 'auto', messages: [{ role: 'user' as const, text: 'Work on.', toolUses: [], handle: 'h1' }] });
      const compact = hookCalls(calls).find((c) => c.event === 'session.compact');
      const texts = (compact?.facts.tail as Fields[]).map((m) => m.text);
      expect(texts.includes('NATURAL: one more thing')).toBe(kept);
    });
  }

  test("the reset's own compaction the helper could not answer is vetoed, never Claude's summary, and told failed", async ($, on) => {
    const marker = 'notesoup-reset g1 r1 a1';
    let core = 0;
    const calls = world(on, (op, req) => {
      if (op === 'hook' && req.event === 'turn.complete') return { ok: true, effects: [{ type: 'compact', marker, generation: 1 }] };
      if (op === 'hook' && req.event === 'session.compact') return { ok: false, error: { code: 'helper_failed', message: 'injected' } };
      return { ok: true, effects: [] };
    });
    on('session.compact', async () => {
      core += 1;
      return { messages: [{ role: 'user', text: 'summary', toolUses: [] }] };
    });
    // The engine runs the command's compaction while `command.run` is pending: here the
    // test runs it, with the command's arguments, then lets the command resolve.
    let args: string | undefined;
    let resolve: (text: string) => void = () => undefined;
    const answered = new Promise<string>((r) => {
      resolve = r;
    });
    on('command.run', async (_$, e) => {
      args = e.args;
      return { text: await answered };
    });
    on('turn.complete', async (_$, e) => ({ text: e.answer }));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    await $.turn.complete({ answer: 'done', durationMs: 5, isAborted: false, turnId: 't1', reason: 'answer' });
    await settled(() => args !== undefined);
    expect(args).toBe(marker);
    const r = await $.session.compact({ trigger: 'manual', instructions: marker, messages: [] });
    expect(core).toBe(0);
    expect(r.skip).toContain('could not be prepared');
    resolve(`Not compacted · ${r.skip ?? ''}`);
    const done = () => hookCalls(calls).find((c) => c.event === 'compact.done');
    await settled(() => done() !== undefined);
    expect(done()?.facts.status).toBe('failed');
    expect(String(done()?.facts.reason)).toContain('could not be prepared');
    expect(done()?.facts.text).toBeUndefined();
  });

  test("a native answer runs Claude's own compaction and tells the helper it replaced the conversation", async ($, on) => {
    const calls = world(on, (op, req) =>
      op === 'hook' && req.event === 'session.compact' ? { ok: true, effects: [{ type: 'native_compaction' }] } : { ok: true, effects: [] },
    );
    on('session.compact', async () => ({ messages: [{ role: 'user', text: 'summary', toolUses: [] }] }));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    const r = await $.session.compact({ trigger: 'auto', messages: [{ role: 'user', text: 'long work', toolUses: [] }] });
    expect(r.messages?.[0]?.text).toBe('summary');
    expect(hookCalls(calls).map((c) => c.event)).toEqual(['session.start', 'session.compact', 'session.compacted']);
  });
});

describe('continuation', () => {
  test('a continue effect is submitted once; its turn completion says which continuation it was', async ($, on) => {
    const calls = world(on, (op, req) =>
      op === 'hook' && req.event === 'session.append'
        ? { ok: true, effects: [{ type: 'continue', text: 'Fresh window.', generation: 3 }], watch: {} }
        : { ok: true, effects: [], watch: { append_doors: ['*'] } },
    );
    const submitted = submittedPrompts(on);
    on('turn.complete', async () => ({ text: '' }));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    await $.session.append({
      message: { type: 'user', role: 'user', content: [{ type: 'text', text: 'boot' }] },
      door: 'prompt', origin: { kind: 'sdk' }, uuid: '0b7c0000-0000-4000-8000-000000000009',
    });
    for (let i = 0; i < 100 && submitted.length === 0; i += 1) await new Promise<void>((r) => setTimeout(() => r(), 10));
    expect(submitted).toEqual(['Fresh window.']);
    await new Promise<void>((r) => setTimeout(() => r(), 20));
    await $.turn.complete({ answer: '', durationMs: 1, isAborted: false, turnId: 't2', reason: 'error' });
    const done = hookCalls(calls).filter((c) => c.event === 'turn.complete');
    expect(done.length).toBe(1);
    expect(done[0]?.facts.continuation).toBe(3);
    expect(done[0]?.facts.reason).toBe('error');
    // Told once: the next completion is not the continuation's.
    await $.turn.complete({ answer: '', durationMs: 1, isAborted: false, turnId: 't3', reason: 'answer' });
    expect(hookCalls(calls).filter((c) => c.event === 'turn.complete')[1]?.facts.continuation).toBeUndefined();
  });
});

describe('natural input', () => {
  test('a prompt is queued at submit and delivered before its opening request goes out', async ($, on) => {
    const calls = world(on, () => ({ ok: true, effects: [] }));
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
    // The raw facts only: the flow tracks the input (queued, then carried by step 0); no
    // reply asked for the kept boots.
    expect(atRequest).toEqual([
      { event: 'prompt.submit', origin: 'sdk', command: false, cwd: '/work/project' },
      { event: 'turn.step', agent: 'main', turn_id: 't1', index: 0 },
    ]);
  });

  test('a prompt typed into the running turn names that turn', async ($, on) => {
    const calls = world(on, () => ({ ok: true, effects: [] }));
    on('prompt.submit', async (_$, e) => ({ text: e.text }));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    calls.length = 0;
    await $.prompt.submit({ text: 'one more thing', wait: false, origin: { kind: 'sdk' }, turnId: 't1' });
    // The engine takes it into turn t1 before its next step: the helper hears it with the
    // prompt, not only from the queue row, whose append can come after that step.
    expect(hookCalls(calls).map((c) => [c.event, c.facts.origin, c.facts.turn_id])).toEqual([['prompt.submit', 'sdk', 't1']]);
  });

  test("a plugin's own prompt is not natural input", async ($, on) => {
    const calls = world(on, () => ({ ok: true, effects: [] }));
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
      if (op === 'hook' && (req.event === 'prompt.submit' || req.event === 'tool.call')) {
        return { ok: true, effects: [{ type: 'warn', generation: 0, text: 'notesoup budget warning: save your notes.' }] };
      }
      return { ok: true, effects: [] };
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
      if (op !== 'tool') return { ok: true, effects: [] };
      if (req.budget === undefined) return answered('listed');
      return { ...answered('saved plan (v2)'), effects: [{ type: 'tool_result', text: 'saved plan (v2)', is_error: false }, { type: 'warn', generation: 0, text: 'notesoup budget warning: save your notes.' }], watch: {}, log: [] };
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

  test('a main result or later step the last reply called quiet starts no helper; any mismatch calls', async ($, on) => {
    let fill = 150_000;
    const calls = world(
      on,
      (op, req) =>
        op === 'hook' && (req.event === 'tool.call' || req.event === 'turn.step')
          ? { ok: true, effects: [], watch: { quiet: { turn: 't1', field: 'tokens', below: 150_000.5 } } }
          : { ok: true, effects: [] },
      {},
      ['session.usage'],
    );
    on('session.usage', async () => ({ value: { startedAt: 0, rateLimits: [], context: { tokens: fill, window: 200_000, percent: 75 } } }));
    on('tool.call', async () => ({ result: 'done' }));
    on('prompt.submit', async (_$, e) => ({ text: e.text }));
    on('turn.step', async function* (_$, e) {
      yield { kind: 'text', index: 0, text: 'ok' };
      return { turnId: e.turnId, index: e.index, answer: 'ok', toolUses: [], stopReason: 'end_turn', usage: null };
    });
    const step = async (turnId: string, index: number) => {
      for await (const _ of $.turn.step({ turnId, index, model: 'claude-opus-5-5', messageCount: 3 })) void _;
    };
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    calls.length = 0;
    await $.tool.call({ tool: 'Bash', command: 'true' });
    expect(hookCalls(calls).map((c) => c.event)).toEqual(['tool.call']);
    // Promised: below the point, the same inputs; the step of the turn it named.
    await $.tool.call({ tool: 'Bash', command: 'true' });
    await step('t1', 2);
    expect(calls.length).toBe(1);
    // Another turn's step, the fill at the point: each is sent.
    await step('t2', 1);
    fill = 150_001;
    await $.tool.call({ tool: 'Bash', command: 'true' });
    expect(hookCalls(calls).map((c) => c.event)).toEqual(['tool.call', 'turn.step', 'tool.call']);
    // A reply without the promise ends it.
    fill = 100;
    await $.prompt.submit({ text: 'go on', wait: false, origin: { kind: 'sdk' } });
    await $.tool.call({ tool: 'Bash', command: 'true' });
    expect(hookCalls(calls).map((c) => c.event)).toEqual(['tool.call', 'turn.step', 'tool.call', 'prompt.submit', 'tool.call']);
  });

  test("a fork's own boot rides on the prompt like the warning, and a dropped prompt reports it", async ($, on) => {
    const boot = '\n<notesoup-boot window="claude:fork:1">\nnotes now\n</notesoup-boot>';
    const calls = world(on, (op, req) =>
      op === 'hook' && req.event === 'prompt.submit'
        ? { ok: true, effects: [{ type: 'attach_own_boot', ordinal: 1, generation: 3, text: boot }] }
        : { ok: true, effects: [] },
    );
    let context: string[] = [];
    on('prompt.submit', async (_$, e) => {
      context = [...(e.context ?? [])];
      return { drop: 'not now' };
    });
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    calls.length = 0;
    await $.prompt.submit({ text: 'where are we?', wait: false, origin: { kind: 'sdk' } });
    expect(context).toEqual([boot]);
    // The place the boot is built from goes with the prompt's one hook call.
    expect(hookCalls(calls)[0]?.facts.cwd).toBe('/work/project');
    expect(hookCalls(calls).at(-1)).toEqual({ event: 'prompt.dropped', facts: { generation: 3 } });
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
  test("an idle close-out is submitted from its command's first row, not from a timer, carrying the filled text", async ($, on) => {
    const clock = mock.clock(on);
    const calls = commandWorld(on, [
      { type: 'report', text: 'notesoup: saving notes, then clearing' },
      { type: 'closeout', mode: 'submit', generation: 0, text: 'Save your notes now, then call mcp__notesoup__empty_brain.' },
    ]);
    const submitted = submittedPrompts(on);
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    calls.length = 0;
    const r = await $.command.run(typed('empty', ''));
    expect(String(r.text)).toContain('saving notes, then clearing');
    expect(calls.map((c) => c.op)).toEqual(['hook']);
    expect(hookCalls(calls)[0]?.facts.command).toBe('empty');
    // A timer may fire after a -p run ended: nothing is submitted from one.
    await clock.settle();
    expect(submitted).toEqual([]);
    // Rows of other doors do not carry it; the command's first row does, inside its hook.
    await commandRow($, 'prompt', 'an earlier prompt');
    expect(submitted).toEqual([]);
    await commandRow($, 'command', '<local-command-caveat>The command below was run directly');
    await settled(() => submitted.length > 0);
    expect(submitted).toEqual(['Save your notes now, then call mcp__notesoup__empty_brain.']);
    // Once only: the command's later rows submit nothing more.
    await commandRow($, 'command', '<local-command-stdout>saving notes</local-command-stdout>');
    await settled(() => submitted.length > 1);
    expect(submitted).toHaveLength(1);
  });

  test('a close-out the chain drops is told to the helper', async ($, on) => {
    const calls = commandWorld(on, [{ type: 'closeout', mode: 'submit', generation: 2, text: 'Save.' }]);
    on('prompt.submit', async () => ({ drop: 'not now' }));
    await $.session.start({ cwd: '/work/project', surface: 'terminal', isInteractive: true });
    await $.command.run(typed('fresh-window', ''));
    await commandRow($, 'command', '<command-name>/fresh-window</command-name>');
    await settled(() => hookCalls(calls).some((c) => c.event === 'closeout'));
    expect(hookCalls(calls).find((c) => c.event === 'closeout')?.facts).toEqual({ generation: 2, status: 'dropped', reason: 'not now' });
  });

  test("a close-out whose command row never came is told failed when the session ends", async ($, on) => {
    const calls = commandWorld(on, [{ type: 'closeout', mode: 'submit', generation: 1, text: 'Save.' }]);
    const submitted = submittedPrompts(on);
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    await $.command.run(typed('fresh-window', ''));
    await $.session.end({ reason: 'other', sessionId: SESSION, resume: { id: SESSION } });
    const told = hookCalls(calls).find((c) => c.event === 'closeout')?.facts;
    expect(told?.generation).toBe(1);
    expect(told?.status).toBe('failed');
    expect(String(told?.reason)).toContain("before the command's row");
    expect(submitted).toEqual([]);
  });

  test('a busy close-out joins the running turn as a hidden user row, not as the command\'s context', async ($, on) => {
    const calls = commandWorld(on, [{ type: 'closeout', mode: 'current_turn', generation: 0, text: 'Save your notes now.' }]);
    const rows: Fields[] = [];
    on('session.append', async (_$, e, next) => {
      rows.push({ type: e.message.type, door: e.door, content: e.message.content });
      return next(e);
    });
    await $.session.start({ cwd: '/work/project', surface: 'terminal', isInteractive: true });
    const r = await $.command.run(typed('fresh-window', ''));
    // 2.1.319 drops a mid-turn command's context; the row is in the turn's next request.
    expect(r.context).toBeUndefined();
    expect(rows).toEqual([{ type: 'user', door: 'note', content: [{ type: 'text', text: 'Save your notes now.' }] }]);
    expect(hookCalls(calls).some((c) => c.event === 'closeout')).toBe(false);
  });

  test('a busy close-out whose row is refused is told failed', async ($, on) => {
    const calls = commandWorld(on, [{ type: 'closeout', mode: 'current_turn', generation: 4, text: 'Save.' }]);
    on('session.append', async () => ({ deny: 'not in this session' }));
    await $.session.start({ cwd: '/work/project', surface: 'terminal', isInteractive: true });
    await $.command.run(typed('empty', ''));
    const told = hookCalls(calls).find((c) => c.event === 'closeout')?.facts;
    expect([told?.generation, told?.status]).toEqual([4, 'failed']);
    expect(String(told?.reason)).toContain('not in this session');
  });

  test('a close-out turn the flow asks for at turn.complete is submitted from that hook', async ($, on) => {
    const closeout = { type: 'closeout', mode: 'submit', generation: 1, text: 'Save your notes now.' };
    world(on, (op, req) => (op === 'hook' && req.event === 'turn.complete' ? { ok: true, effects: [closeout] } : { ok: true, effects: [] }));
    const submitted = submittedPrompts(on);
    on('turn.complete', async (_$, e) => ({ text: e.answer }));
    await $.session.start({ cwd: '/work/project', surface: 'terminal', isInteractive: true });
    await $.turn.complete({ answer: 'done', durationMs: 5, isAborted: false, turnId: 't1', reason: 'answer' });
    // Not held for a command row: the busy command's rows came during the turn.
    await settled(() => submitted.length > 0);
    expect(submitted).toEqual(['Save your notes now.']);
  });
});

describe('/notesoup cap', () => {
  test('the arguments go to the helper and its report is the answer', async ($, on) => {
    const calls = commandWorld(on, [{ type: 'report', text: 'Context: 30,000 tokens, 51% of the 58,808 usable in this window\nCap: 100,000 tokens of capacity' }]);
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    calls.length = 0;
    const r = await $.command.run(typed('notesoup', 'cap 100k'));
    expect(String(r.text)).toContain('Cap: 100,000 tokens of capacity');
    expect(calls.map((c) => c.op)).toEqual(['hook']);
    const facts = hookCalls(calls)[0]?.facts ?? {};
    // The folder too: the status counts the notes of its brain.
    expect([facts.command, facts.args, typeof facts.budget, facts.cwd]).toEqual(['notesoup', 'cap 100k', 'object', '/work/project']);
  });
});

describe('commit evidence and kept boots', () => {
  test('when the helper asks, a main step carries the boots the conversation keeps, one per block', async ($, on) => {
    const bootText = `<notesoup-boot window="claude:${SESSION}:1">\nnotes\n</notesoup-boot>`;
    const calls = world(
      on,
      () => ({ ok: true, effects: [], watch: { kept: true, boot_marker: '<notesoup-boot window="' } }),
      {},
      ['session.messages'],
    );
    // The API form merges adjacent user messages: the boot is one block among others.
    on('session.messages', async () => ({
      value: [
        { role: 'user', content: [{ type: 'text', text: 'summary of before' }, { type: 'text', text: bootText }] },
        { role: 'assistant', content: [{ type: 'text', text: bootText }] },
      ],
    }));
    on('turn.step', async function* (_$, e) {
      yield { kind: 'text', index: 0, text: 'ok' };
      return { turnId: e.turnId, index: e.index, answer: 'ok', toolUses: [], stopReason: 'end_turn', usage: null };
    });
    await $.session.start({ cwd: '/work/project', surface: 'terminal', isInteractive: true });
    for await (const _ of $.turn.step({ turnId: 't1', index: 0, model: 'claude-opus-5-5', messageCount: 1 })) void _;
    expect(hookCalls(calls).find((c) => c.event === 'turn.step')?.facts.kept).toEqual([bootText]);
  });

  test('a prompt carries the kept boots while the helper asks (prompt_kept), a command never', async ($, on) => {
    const parentBoot = '<notesoup-boot window="claude:parent:1">\nnotes\n</notesoup-boot>';
    let watch: Fields = { prompt_kept: true, boot_marker: '<notesoup-boot window="' };
    const calls = world(on, () => ({ ok: true, effects: [], watch }), {}, ['session.messages']);
    on('session.messages', async () => ({ value: [{ role: 'user', content: [{ type: 'text', text: parentBoot }] }] }));
    on('prompt.submit', async (_$, e) => ({ text: e.text }));
    await $.session.start({ cwd: '/work/project', surface: 'terminal', isInteractive: true });
    calls.length = 0;
    await $.prompt.submit({ text: 'where are we?', wait: false, origin: { kind: 'composer' } });
    // The last reply asked (prompt_kept), yet a command carries none; its reply says the
    // flow knows its window now, and the prompts after it carry none.
    watch = { prompt_kept: false, boot_marker: '<notesoup-boot window="' };
    await $.prompt.submit({ text: '/notesoup', wait: false, origin: { kind: 'composer' }, command: { name: 'notesoup', args: '' } });
    await $.prompt.submit({ text: 'and now?', wait: false, origin: { kind: 'composer' } });
    await $.prompt.submit({ text: 'still?', wait: false, origin: { kind: 'composer' } });
    expect(hookCalls(calls).filter((c) => c.event === 'prompt.submit').map((c) => c.facts.kept)).toEqual([[parentBoot], undefined, undefined, undefined]);
  });

  test('a boot copy goes to the helper unless its one boot line is the one the last reply named (copy_kept)', async ($, on) => {
    const own = `<notesoup-boot window="claude:${SESSION}:0">`;
    const boot_marker = '<notesoup-boot window="';
    let watch: Fields = { boot_marker };
    const calls = world(on, () => ({ ok: true, effects: [{ type: 'boot_copy', verdict: 'keep', ordinal: 0, before: '', after: '', alone: true }], watch }));
    on('prompt.attachment', async (_$, e) => ({ text: e.text }));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    const attach = (text: string) => $.prompt.attachment({ type: 'context_sections', text, origin: { kind: 'engine' } } as never);
    const ownCopy = `# notesoup\n${own}\nnotes\n</notesoup-boot>`;
    // The last reply (session.start's) named no line: the helper judges the copy, and its
    // reply names this session's own boot of window 0.
    watch = { boot_marker, copy_kept: own };
    await attach(ownCopy);
    // Named: that copy goes unsent, whatever sections surround it.
    await attach(ownCopy);
    await attach(`# other\nx\n${ownCopy}\n# more`);
    // Another window, a second boot beside it, or a text with no boot line at all.
    await attach(`# notesoup\n<notesoup-boot window="claude:${SESSION}:1">\nnotes\n</notesoup-boot>`);
    await attach(`${ownCopy}\n<notesoup-boot window="claude:parent:0">\nB\n</notesoup-boot>`);
    await attach('# other\nno boot here');
    const sent = hookCalls(calls).filter((c) => c.event === 'prompt.attachment').map((c) => String(c.facts.attachment));
    expect(sent.length).toBe(3);
    expect([sent[0], sent[1]?.includes(`claude:${SESSION}:1`), sent[2]?.includes('claude:parent:0')]).toEqual([ownCopy, true, true]);
  });

  test('appends go to the helper only through the doors it named; every door with the row text', async ($, on) => {
    let watch: Fields = { append_doors: ['queue'] };
    const calls = world(on, () => ({ ok: true, effects: [], watch }));
    const append = (door: 'prompt' | 'queue' | 'compaction', text: string) =>
      $.session.append({
        message: { type: 'user', role: 'user', content: [{ type: 'text', text }] },
        door, origin: { kind: 'sdk' }, uuid: '0b7c0000-0000-4000-8000-00000000000a',
      });
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    calls.length = 0;
    await append('prompt', 'a');
    expect(calls).toEqual([]);
    watch = { append_doors: ['*'] };
    await append('queue', 'b');
    expect(hookCalls(calls)).toEqual([{ event: 'session.append', facts: { agent: 'main', door: 'queue', kind: 'user', role: 'user' } }]);
    await append('compaction', 'the boot');
    expect(hookCalls(calls)[1]).toEqual({ event: 'session.append', facts: { agent: 'main', door: 'compaction', kind: 'user', role: 'user', text: 'the boot' } });
  });
});

describe('boot', () => {
  test('prompt.context forwards the kept boots and the binding; an attach_boot effect is the block', async ($, on) => {
    const text = `<notesoup-boot window="claude:${SESSION}:0">\nnotes\n</notesoup-boot>`;
    const calls = world(on, (op, req) =>
      op === 'hook' && req.event === 'prompt.context' ? { ok: true, effects: [{ type: 'attach_boot', ordinal: 0, text }] } : { ok: true, effects: [] },
    );
    on('prompt.context', async (_$, e) => ({ blocks: e.blocks }));
    on('classic.SessionStart', async () => ({}));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    await $.classic.SessionStart({ source: 'startup', transcript_path: '/t/s.jsonl' });
    const r = await $.prompt.context({ blocks: [{ name: 'currentDate', text: 'today' }] });
    expect(r.blocks).toEqual([{ name: 'currentDate', text: 'today' }, { name: 'notesoup', text }]);
    expect(hookCalls(calls).find((c) => c.event === 'prompt.context')?.facts).toEqual({ cwd: '/work/project', transcript_path: '/t/s.jsonl', kept: [] });
  });

  test('a boot attached before the transcript is named is asked for again once it is (watch.rebind_context), once', async ($, on) => {
    const text = `<notesoup-boot window="claude:${SESSION}:0">\nnotes\n</notesoup-boot>`;
    world(on, (op, req) =>
      op === 'hook' && req.event === 'prompt.context'
        ? { ok: true, effects: [{ type: 'attach_boot', ordinal: 0, text }], watch: { rebind_context: true } }
        : { ok: true, effects: [] },
    );
    const invalidated: string[] = [];
    on('ui.invalidate', async (_$, e) => {
      invalidated.push(String(e.event));
      return { value: undefined };
    });
    on('prompt.context', async (_$, e) => ({ blocks: e.blocks }));
    on('classic.SessionStart', async () => ({}));
    await $.prompt.context({ blocks: [] });
    await $.classic.SessionStart({ source: 'startup', transcript_path: '/t/s.jsonl' });
    await $.classic.SessionStart({ source: 'clear', transcript_path: '/t/s2.jsonl' });
    expect(invalidated).toEqual(['prompt.context']);
  });

  test('without attach_boot nothing is attached', async ($, on) => {
    world(on, () => ({ ok: true, effects: [] }));
    on('prompt.context', async (_$, e) => ({ blocks: e.blocks }));
    await $.session.start({ cwd: '/work/project', surface: null, isInteractive: false });
    const r = await $.prompt.context({ blocks: [] });
    expect(r.blocks).toEqual([]);
  });
});
