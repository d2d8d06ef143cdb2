// notesoup's hooks module for Claude Code: an imperative shell.
//
// It gathers the facts of an event, asks `notesoup-helper <op>` (one JSON request on
// stdin, one JSON reply on stdout, through `$.process.run`) and carries out what the
// reply says. It decides nothing itself: threshold math, history, boot text and the
// reset decisions are the helper's. See ../README.md for the map of this file.
//
// The validator wants `$` used only as `$.noun.method(...)` and passed only to
// functions declared at the top level of this file, so every hook is one of those.

import type { EngineInterface, Hook, MatchedHook, Register } from 'claude-code';
import { COMMANDS, TOOLS, TOOL_NAMES } from './spec.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Reply = { ok: true; [field: string]: unknown } | { ok: false; error: { code: string; message: string } };

// ---- module state (lost on reload, by design: the cap is cleared by a reload) ----

/** Read once per load: the switches the environment sets. */
let switches: { disabled: boolean; disableCompact: boolean; helper: string } | undefined;
/** What has been logged once already. */
const loggedOnce = new Set<string>();

// ---- the helper ----------------------------------------------------------------

async function readSwitches($: EngineInterface) {
  if (switches === undefined) {
    const disabled = (await $.env.get('NOTESOUP_DISABLED')) !== undefined;
    const dc = await $.env.get('DISABLE_COMPACT');
    const disableCompact = dc !== undefined && dc !== '' && dc !== '0' && dc.toLowerCase() !== 'false';
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

function refusal(code: string, message: string): Reply {
  return { ok: false, error: { code, message } };
}

/** Runs one helper op; never throws: a helper that cannot run is a refusal like any other. */
async function helper($: EngineInterface, op: string, request: { [key: string]: unknown }): Promise<Reply> {
  const { helper: bin } = await readSwitches($);
  let out;
  try {
    out = await $.process.run([bin, op], { stdin: JSON.stringify(request), timeoutMs: 30_000 });
  } catch (err) {
    return refusal('helper_unavailable', `${bin} ${op} could not run (${String(err)}); run scripts/install`);
  }
  const line = out.stdout.trim();
  try {
    const reply: unknown = JSON.parse(line);
    if (typeof reply === 'object' && reply !== null && typeof (reply as { ok?: unknown }).ok === 'boolean') {
      return reply as Reply;
    }
  } catch {
    // reported below
  }
  const why = out.stderr.trim().split('\n')[0] ?? '';
  return refusal('helper_failed', `${op}: exit ${out.exitCode}, no JSON reply${why ? `: ${why}` : ''}`);
}

function textOf(reply: Reply): string {
  if (!reply.ok) return `${reply.error.code}: ${reply.error.message}`;
  return typeof reply.text === 'string' ? reply.text : JSON.stringify(reply);
}

// ---- session.start: registration ------------------------------------------------

async function registerAll($: EngineInterface) {
  for (const t of TOOLS) {
    await $.tool.register({ name: t.name, description: t.description, inputSchema: t.inputSchema, isDeferred: false });
  }
  for (const c of COMMANDS) {
    await $.command.register(c);
  }
}

const onSessionStart: Hook<'session.start'> = async ($, e, next) => {
  const sw = await readSwitches($);
  if (sw.disabled) {
    logOnce($, 'disabled', 'NOTESOUP_DISABLED is set: nothing registered, every event passes through');
    return next(e);
  }
  if (sw.disableCompact) {
    logOnce($, 'disable-compact', 'DISABLE_COMPACT is set: no budget warnings, no explicit resets');
  }
  await registerAll($);
  return next(e);
};

// ---- tool.call: the eight tools --------------------------------------------------

/** The model's arguments: the event without the engine's own fields. */
function toolArgs(e: { [key: string]: unknown }): { [key: string]: unknown } {
  const { tool: _tool, tool_use_id: _id, agentId: _agent, requestMeta: _meta, ...args } = e;
  return args;
}

const onToolCall: MatchedHook<'tool.call', { tool: typeof TOOL_NAMES }> = async ($, e, next) => {
  const sw = await readSwitches($);
  if (sw.disabled) return next(e);
  const name = String(e.tool).replace(/^mcp__notesoup__/, '');
  const args = toolArgs(e as unknown as { [key: string]: unknown });
  const reply = await helper($, name, { cwd: $.session.cwd(), args });
  if (!reply.ok) return { deny: textOf(reply) };
  return { result: textOf(reply) };
};

function toolFailed(): { deny: string } {
  return { deny: 'notesoup: the hook answering this tool failed; see the debug log' };
}

// ---- command.run: /notesoup, /empty, /fresh-window -----------------------------

const onCommand: MatchedHook<'command.run', { command: string[] }> = async ($, e, next) => {
  const sw = await readSwitches($);
  if (sw.disabled) return next(e);
  return { text: `/${e.command} ${e.args}: not wired yet` };
};

// ---- registration ----------------------------------------------------------------

export const register: Register = (on) => {
  on('session.start', onSessionStart);
  on('tool.call', { tool: TOOL_NAMES }, onToolCall).catch(($, e, next) => (next.called ? next(e) : toolFailed()));
  on('command.run', { command: COMMANDS.map((c) => c.name) }, onCommand).catch(($, e, next) =>
    next.called ? next(e) : { text: `notesoup: /${e.command} failed; see the debug log` },
  );
};
