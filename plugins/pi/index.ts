// notesoup's extension for the Pi coding agent 1.6.0: a pipe.
//
// Each Pi event forwards its raw facts to `notesoup-helper pi_hook` (one JSON request on
// stdin, one JSON reply on stdout, one process per event) and carries out the effects that
// come back, every text filled. It decides nothing; the state is the helper's, on disk per
// session (`windows/pi/`). The event table and what each effect means here:
// pi-hooks/EVENTS.md; the wire: helper-bin/PROTOCOL.md `## pi_hook`. tests/gate.py holds it to
// caches only: one module-level `let`, no file writes, no session entries of its own.

import { spawn } from "node:child_process";
import { accessSync, constants, existsSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";

import { COMMANDS, HELPER_TIMEOUT_MS, MESSAGES, TOOLS, VERSION } from "./spec.ts";

type Fields = { [key: string]: unknown };
type Effect = Fields & { type: string; text?: string };
/** A refusal's `off`: notesoup cannot work in this session at all (PROTOCOL.md, "Refusal"). */
type Reply = { ok: true; effects: Effect[]; log?: string[] } | { ok: false; error: { code: string; message: string; off?: boolean } };

/** A token of this process: a flow another process saved is `loaded` first. */
const PROCESS = `pi-${process.pid}-${Date.now().toString(36)}`;
const HERE = dirname(fileURLToPath(import.meta.url));
const BOOT_MARKER = "<notesoup-boot window=";

// ---- module state: caches only (what this process did; the flow is the helper's) ----

/**
 * The runs this process numbered, the continuation whose run is next (its generation),
 * whether the extension itself ended the running run (`end_turn`), the reset worker's
 * compaction held for the run's settling (`compact`), the one it committed there, and why
 * notesoup is off for this session (`off`: its helper could not run, or refused `off`).
 */
let shell: {
  run: number;
  cut: boolean;
  off?: string;
  continuation?: number;
  nextContinuation?: number;
  compact?: { marker: string; generation: number };
  /** The marker of the worker's compaction last handed to `ctx.compact()`. */
  marker?: string;
  committed?: number;
} = { run: 0, cut: false };

// ---- the helper ----------------------------------------------------------------------

/**
 * `NOTESOUP_HELPER`, else `bin/notesoup-helper` beside this file (scripts/install), else the
 * platform package's (`pi install npm:@notesoup/pi` installs `@notesoup/cli-<os>-<cpu>` as its
 * optional dependency, found as Node finds a module), else `PATH` (`searched`: the helper is
 * then none this extension brought).
 */
function helperPath(): { path: string; searched: boolean } {
  const override = process.env.NOTESOUP_HELPER;
  if (override) return { path: override, searched: false };
  const staged = join(HERE, "bin", "notesoup-helper");
  if (existsSync(staged)) return { path: staged, searched: false };
  try {
    const platform = `@notesoup/cli-${process.platform}-${process.arch}/package.json`;
    const installed = join(dirname(createRequire(join(HERE, "index.ts")).resolve(platform)), "bin", "notesoup-helper");
    if (existsSync(installed)) return { path: installed, searched: false };
  } catch {
    // Not installed from npm (a checkout), or no package for this platform: PATH, below.
  }
  return { path: "notesoup-helper", searched: true };
}

/** An executable regular file: what a PATH search runs (a folder or a plain file is passed over). */
function runnable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Where a bare command name is found on PATH (as the spawn found it), else the name. */
function onPath(command: string): string {
  if (command.includes("/")) return command;
  const found = (process.env.PATH ?? "").split(":").map((dir) => join(dir || ".", command)).find(runnable);
  return found ?? command;
}

/** This extension is the npm package `@notesoup/pi` (its package.json beside it), not a checkout's copy. */
function npmPackage(): boolean {
  try {
    return JSON.parse(readFileSync(join(HERE, "package.json"), "utf8")).name === "@notesoup/pi";
  } catch {
    return false;
  }
}

/**
 * What to do when no helper could be started at all (none found, or not a program), by how
 * this extension was installed: the npm package brings its helper in its platform package; a
 * checkout's `scripts/install` stages one beside it (and installing the npm package too would
 * make the two copies Pi refuses to start with).
 */
function startFix(): string {
  const named = process.env.NOTESOUP_HELPER;
  if (named) return `NOTESOUP_HELPER is set to ${named}: point it at notesoup-helper, or unset it`;
  if (npmPackage()) {
    return "pi install npm:@notesoup/pi installs it again with its platform package (notesoup doctor shows which one Pi runs)";
  }
  const install = join(HERE, "..", "..", "scripts", "install");
  if (existsSync(install)) return `run ${install}: it builds the helper and stages it beside this extension (notesoup doctor shows which one Pi runs)`;
  return "set NOTESOUP_HELPER to a notesoup-helper, or remove this copy of the extension and pi install npm:@notesoup/pi (notesoup doctor shows which one Pi runs)";
}

/**
 * Runs one helper op; never throws: a helper that cannot run, that goes before reading its
 * request, or that does not answer within `HELPER_TIMEOUT_MS` (killed then) is a refusal like
 * any other.
 */
function helper(op: string, request: Fields): Promise<Reply> {
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const refuse = (message: string) => {
      clearTimeout(timer);
      resolve({ ok: false, error: { code: "helper_unavailable", message } });
    };
    const { path, searched } = helperPath();
    let child;
    try {
      // Its own process group, so a hung helper is stopped with whatever it started (a
      // wrapper script's children would hold the pipes open and keep Pi from exiting).
      child = spawn(path, [op], { stdio: ["pipe", "pipe", "pipe"], detached: true });
    } catch (err) {
      return refuse(`notesoup-helper could not run (${String(err)}); ${startFix()}`);
    }
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", (e: Error) => refuse(`notesoup-helper could not run (${e.message}); ${startFix()}`));
    // A helper gone before it read the request (a wrong binary): the write fails with EPIPE,
    // which must not become an uncaught error that ends Pi; the close below answers.
    child.stdin.on("error", () => undefined);
    timer = setTimeout(() => {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
      refuse(`notesoup-helper did not answer within ${HELPER_TIMEOUT_MS / 1000} s (it was stopped); run notesoup doctor`);
    }, HELPER_TIMEOUT_MS);
    child.on("close", (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer);
      try {
        const reply = JSON.parse(out.trim());
        if (reply && typeof reply === "object") return resolve(reply as Reply);
      } catch {
        // reported below
      }
      // Most often NOTESOUP_HELPER naming the notesoup command (the two names differ by a
      // suffix); else, found on PATH, a binary of that name this extension did not bring (an
      // older one, with the platform package gone): the line names which one ran. A helper
      // this extension brought (staged beside it, or its platform package's) that fails has
      // failed: installing the package again beside a checkout's link would make the two
      // copies Pi refuses to start with.
      const named = process.env.NOTESOUP_HELPER;
      const status = code === null ? `killed by ${signal}` : `exit ${code}`;
      const why = `${op}: ${status}, no JSON reply${err.trim() ? `: ${err.trim().split("\n")[0]}` : ""}`;
      if (named) {
        return refuse(`${why}; NOTESOUP_HELPER is set to ${named}: point it at notesoup-helper (not the notesoup command), or unset it`);
      }
      if (searched) {
        return refuse(`${onPath(path)} ${why}; it is not this extension's helper: pi install npm:@notesoup/pi brings the right one (notesoup doctor shows which one Pi runs)`);
      }
      refuse(`notesoup-helper failed: ${path} ${why}; run notesoup doctor (its pi-helper line says how to mend it)`);
    });
    child.stdin.end(JSON.stringify(request));
  });
}

/** The session a request names; `subagent` for a run with no session file (`pi --no-session`). */
function session(ctx: ExtensionContext) {
  return { harness: "pi", id: ctx.sessionManager.getSessionId(), process: PROCESS };
}

function agent(ctx: ExtensionContext): "main" | "subagent" {
  return ctx.sessionManager.getSessionFile() === undefined ? "subagent" : "main";
}

/** What the budget reads: Pi's usage, its merged settings, the model. */
function budget(pi: ExtensionAPI, ctx: ExtensionContext): Fields {
  const model = ctx.model ? `${ctx.model.provider}/${ctx.model.id}` : undefined;
  return { usage: ctx.getContextUsage() ?? null, settings: pi.getSettings(), model };
}

/** One Pi event through the helper: its effects (none when the helper refused; logged). */
async function event(ctx: ExtensionContext, name: string, facts: Fields): Promise<Effect[]> {
  log(ctx, `event ${name}${typeof facts.reason === "string" ? ` (${facts.reason})` : ""}`);
  // Off for this session: notesoup stays out of every event, as if absent (no helper is run,
  // so a hung one costs the session start's wait once, not every event's).
  if (shell.off !== undefined) return [];
  const reply = await helper("pi_hook", { event: name, session: session(ctx), facts, version: VERSION });
  if (!reply.ok) {
    log(ctx, `${name}: ${reply.error.code}: ${reply.error.message}`);
    // Decided at the session's start only, as the Claude module does at its first hook: a
    // later refusal is that event's alone.
    // `version_mismatch` by its code too: a helper of another version may predate `off`.
    const off = ["helper_unavailable", "version_mismatch"].includes(reply.error.code) || reply.error.off === true;
    if (name === "session_start" && off) {
      // Another version named by NOTESOUP_HELPER: the fix is the variable (a helper that
      // could not run says so already).
      const named = process.env.NOTESOUP_HELPER;
      const fix = reply.error.code === "version_mismatch" && named ? `; NOTESOUP_HELPER is set to ${named}: point it at a notesoup-helper of this version, or unset it` : "";
      shell.off = `${reply.error.message}${fix}`;
    }
    return [];
  }
  return reply.effects;
}

/** A debug line on stderr, with `NOTESOUP_PI_LOG` set. */
function log(_ctx: ExtensionContext, text: string) {
  if (process.env.NOTESOUP_PI_LOG) process.stderr.write(`notesoup: ${text}\n`);
}

/** A notice to the person: Pi's UI, else (`-p`, `--mode json`) one block on stderr. */
function notify(ctx: ExtensionContext, text: string) {
  if (ctx.hasUI) ctx.ui.notify(text, "info");
  else process.stderr.write(`${text}\n`);
}

/**
 * The summary of the newest compaction entry on the branch (read from the branch, not from
 * `session_compact.compactionEntry`, which Pi 1.6.0 finds by its summary text).
 */
function newestCompaction(ctx: ExtensionContext): string {
  const branch = ctx.sessionManager.getBranch();
  for (let i = branch.length - 1; i >= 0; i--) {
    const entry = branch[i] as Fields;
    if (entry.type === "compaction") return typeof entry.summary === "string" ? entry.summary : "";
  }
  return "";
}

/**
 * The newest boot the branch keeps: a compaction's summary, or the extension's own hidden
 * message (`MESSAGES.hidden`) that carried a window's boot into the conversation.
 */
function keptBoot(ctx: ExtensionContext): string | null {
  const branch = ctx.sessionManager.getBranch();
  for (let i = branch.length - 1; i >= 0; i--) {
    const entry = branch[i] as Fields;
    const text =
      entry.type === "compaction"
        ? entry.summary
        : entry.type === "custom_message" && entry.customType === MESSAGES.hidden
          ? entry.content
          : undefined;
    if (typeof text === "string" && text.includes(BOOT_MARKER)) return text;
  }
  return null;
}

/**
 * A compaction the extension wrote as a boundary entry: Pi kept it; the flow hears so.
 * `continuing`: Pi is about to make the run's next request, which opens the fresh window:
 * that request is the continuation (no prompt is added to it).
 */
async function settleCommit(pi: ExtensionAPI, ctx: ExtensionContext, continuing: boolean) {
  const committed = shell.committed;
  if (committed === undefined) return;
  shell.committed = undefined;
  const summary = newestCompaction(ctx);
  const effects = await event(ctx, "session_compact", { agent: agent(ctx), from_extension: true, summary });
  for (const fx of effects) if (continuing && fx.type === "continue") shell.continuation = fx.generation as number;
  runEffects(pi, ctx, continuing ? effects.filter((fx) => fx.type !== "continue") : effects);
  runEffects(pi, ctx, await event(ctx, "compact_done", { generation: committed, status: "ok" }));
  if (continuing && !effects.some((fx) => fx.type === "continue")) {
    // The flow does not go on in the fresh window (`terminate`, `/empty`, `/fresh-window`),
    // but Pi would: a batch ends the run only when every result in it says so, and the model
    // batched the reset with other calls. The run ends here, before its next request.
    shell.cut = true;
    ctx.abort();
  }
}

/** The text parts of a message's content, joined. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return (content as Fields[]).map((part) => (part.type === "text" && typeof part.text === "string" ? part.text : "")).join("");
}

type TailEntry = { id: string; role: string; text: string; custom_type?: string };

/**
 * The branch's message and custom message entries after its last assistant message that
 * answered (a failed response, such as the overflow's own, answered nothing), oldest first,
 * with their text parts joined: what `session_before_compact` tells the helper, which names
 * the one a boot answering the compaction keeps the branch from, and the kept ones no later
 * request carries.
 */
function branchTail(ctx: ExtensionContext): TailEntry[] {
  const branch = ctx.sessionManager.getBranch();
  const tail: TailEntry[] = [];
  for (let i = branch.length - 1; i >= 0; i--) {
    const entry = branch[i] as Fields;
    if (entry.type === "custom_message") {
      const custom_type = typeof entry.customType === "string" ? entry.customType : undefined;
      tail.unshift({ id: String(entry.id), role: "custom", text: textOf(entry.content), custom_type });
      continue;
    }
    const message = entry.message as Fields | undefined;
    if (entry.type !== "message" || message === undefined) continue;
    // A response that failed (the overflow's own "prompt is too long") answered nothing.
    if (message.role === "assistant" && message.stopReason === "error") continue;
    if (message.role === "assistant") break;
    tail.unshift({ id: String(entry.id), role: String(message.role), text: textOf(message.content) });
  }
  return tail;
}

/**
 * The messages the newest compaction on the branch keeps that the helper left out of every
 * request (`details.leave_out`: the ids of custom message entries), as a request holds them:
 * a custom message of that type and time (Pi projects an entry's timestamp onto its message).
 */
function leftOut(ctx: ExtensionContext): { customType: unknown; timestamp: number }[] {
  const branch = ctx.sessionManager.getBranch();
  for (let i = branch.length - 1; i >= 0; i--) {
    const entry = branch[i] as Fields;
    if (entry.type !== "compaction") continue;
    const ids = (entry.details as Fields | undefined)?.leave_out;
    if (!Array.isArray(ids) || ids.length === 0) return [];
    return branch
      .filter((e) => (e as Fields).type === "custom_message" && ids.includes((e as Fields).id))
      .map((e) => ({ customType: (e as Fields).customType, timestamp: Date.parse(String((e as Fields).timestamp)) }));
  }
  return [];
}

/** Whether the model's newest message (the batch being run) calls `notesoup_empty_brain`. */
function batchResets(ctx: ExtensionContext): boolean {
  const branch = ctx.sessionManager.getBranch();
  for (let i = branch.length - 1; i >= 0; i--) {
    const message = (branch[i] as Fields).message as Fields | undefined;
    if (message?.role !== "assistant") continue;
    const content = Array.isArray(message.content) ? (message.content as Fields[]) : [];
    return content.some((part) => part.type === "toolCall" && part.name === "notesoup_empty_brain");
  }
  return false;
}

/** A compaction draft that keeps nothing before it: the boot and handoff are the window. */
function bootEntry(answer: Effect) {
  return { type: "compaction", summary: String(answer.text), firstKeptEntryId: null, details: { notesoup: answer.ordinal } };
}


// ---- effects that run work (the rest are answered where they arrive) ----------------------

/** Effects that start work of their own: the worker's compaction, the continuation, a close-out. */
function runEffects(pi: ExtensionAPI, ctx: ExtensionContext, effects: Effect[]) {
  for (const fx of effects) {
    log(ctx, `effect ${fx.type}`);
    switch (fx.type) {
      case "compact":
        // Held for `agent_before_settle`, which writes it as a compaction keeping nothing
        // (`ctx.compact()` refuses a session smaller than keepRecentTokens).
        shell.compact = { marker: String(fx.marker), generation: fx.generation as number };
        break;
      case "continue": {
        // Idle: the continuation's run is the next one; busy: it rides this run.
        if (ctx.isIdle()) shell.nextContinuation = fx.generation as number;
        else shell.continuation = fx.generation as number;
        try {
          // Busy (Pi compacted inside the run and continues it): steer, so the continuing request carries it.
          pi.sendUserMessage(String(fx.text), ctx.isIdle() ? undefined : { deliverAs: "steer" });
        } catch (err) {
          shell.nextContinuation = undefined;
          void event(ctx, "continuation", { generation: fx.generation, status: "failed", reason: String(err) });
        }
        break;
      }
      case "closeout": {
        try {
          if (fx.mode === "current_turn") {
            pi.sendMessage({ customType: MESSAGES.closeout, content: String(fx.text ?? ""), display: false }, { deliverAs: "steer" });
          } else {
            pi.sendUserMessage(String(fx.text ?? ""), ctx.isIdle() ? undefined : { deliverAs: "followUp" });
          }
        } catch (err) {
          void event(ctx, "closeout", { generation: fx.generation, status: "failed", reason: String(err) });
        }
        break;
      }
      case "report":
        notify(ctx, String(fx.text));
        break;
      case "veto_compaction":
        if (!fx.quiet) notify(ctx, String(fx.notice));
        break;
      case "end_turn":
        shell.cut = true;
        notify(ctx, String(fx.text));
        ctx.abort();
        break;
      case "log":
      case "cancel":
        log(ctx, `${fx.type}: ${String(fx.text ?? fx.reason)}`);
        break;
      default:
        break;
    }
  }
}

// ---- the extension ------------------------------------------------------------------

export default function notesoup(pi: ExtensionAPI) {
  if (process.env.NOTESOUP_DISABLED !== undefined) return;

  for (const tool of TOOLS) {
    pi.registerTool({
      name: `notesoup_${tool.name}`,
      label: tool.label,
      description: tool.description,
      promptSnippet: tool.description,
      parameters: tool.parameters as never,
      async execute(id: string, params: unknown, _signal: unknown, _onUpdate: unknown, ctx: ExtensionContext) {
        const effects =
          tool.name === "get_context_remaining"
            ? await event(ctx, "get_context_remaining", { budget: budget(pi, ctx) })
            : await toolCall(ctx, tool.name, params, id);
        const answer = effects.find((e) => e.type === "tool_result");
        runEffects(pi, ctx, effects.filter((e) => e.type !== "tool_result"));
        if (!answer) throw new Error(`notesoup ${tool.name}: no answer from notesoup-helper`);
        if (answer.is_error) throw new Error(String(answer.text));
        // The reset tool ends the run after its batch, and Pi ends it only when every result of
        // the batch says so: notesoup's other tools in that batch (the notes saved before the
        // reset) say so too.
        const terminate = tool.name === "empty_brain" || batchResets(ctx);
        return { content: [{ type: "text", text: String(answer.text) }], details: {}, terminate };
      },
    } as never);
  }

  for (const command of COMMANDS) {
    pi.registerCommand(command.name, {
      description: command.description,
      async handler(args: string, ctx: ExtensionContext) {
        const facts: Fields =
          command.name === "notesoup"
            ? { command: "notesoup", args, agent: agent(ctx) }
            : { command: command.name === "empty" ? "empty" : "fresh_window", busy: !ctx.isIdle(), print: !ctx.hasUI, agent: agent(ctx) };
        const effects = await event(ctx, "command", { ...facts, cwd: ctx.cwd, budget: budget(pi, ctx) });
        // With a UI the session's line is long gone by now; in print mode it was just printed.
        if (shell.off !== undefined && ctx.hasUI) notify(ctx, `notesoup is off for this session: ${shell.off}`);
        runEffects(pi, ctx, effects);
      },
    });
  }

  pi.on("session_start", async (e, ctx) => {
    shell = { run: 0, cut: false };
    await event(ctx, "session_start", { reason: e.reason });
    if (shell.off !== undefined) {
      // Fail open: without a helper of its own version notesoup can do nothing, so its tools
      // leave the model's set and Pi compacts as its own; the person reads why once, with the fix.
      pi.setActiveTools(pi.getActiveTools().filter((name) => !name.startsWith("notesoup_")));
      notify(ctx, `notesoup is off for this session: ${shell.off}`);
    }
  });

  pi.on("input", async (e, ctx) => {
    const streaming = e.streamingBehavior === "followUp" ? "follow_up" : e.streamingBehavior;
    const sent = event(ctx, "input", { source: e.source, streaming });
    // The extension's own prompt (the continuation, a close-out) is not held for the helper:
    // Pi queues it only after this handler, and a run Pi continues after its own compaction
    // checks its queue at once (EVENTS.md). The flow takes it as input nobody typed.
    if (e.source === "extension") void sent.then((fx) => runEffects(pi, ctx, fx));
    else runEffects(pi, ctx, await sent);
    return { action: "continue" };
  });

  pi.on("before_agent_start", async (_e, ctx) => {
    const effects = await event(ctx, "before_agent_start", {
      agent: agent(ctx),
      kept: keptBoot(ctx),
      cwd: ctx.cwd,
      budget: budget(pi, ctx),
      session_file: ctx.sessionManager.getSessionFile(),
    });
    // The window's boot, a fork's own boot and the warning ride one hidden message that
    // stays in the conversation until a compaction replaces it (so the boot is kept, and a
    // later run of the window finds it on the branch).
    const hidden: string[] = [];
    for (const fx of effects) {
      if (fx.type === "attach_boot" || fx.type === "attach_own_boot" || fx.type === "warn") {
        hidden.push(String(fx.text ?? "").trim());
      }
    }
    runEffects(pi, ctx, effects);
    if (!hidden.length) return undefined;
    return { message: { customType: MESSAGES.hidden, content: hidden.join("\n\n"), display: false } };
  });

  pi.on("agent_start", async (_e, ctx) => {
    shell.run += 1;
    shell.cut = false;
    shell.continuation = shell.nextContinuation;
    shell.nextContinuation = undefined;
    runEffects(pi, ctx, await event(ctx, "agent_start", { agent: agent(ctx), run: shell.run }));
  });

  pi.on("turn_start", async (e, ctx) => {
    await settleCommit(pi, ctx, true);
    const facts = { agent: agent(ctx), run: shell.run, turn_index: e.turnIndex, budget: budget(pi, ctx) };
    runEffects(pi, ctx, await event(ctx, "turn_start", facts));
  });

  // The end of a tool batch is the flow's next step: a reset due there is written as this
  // boundary's compaction entry, so the run's next request opens the fresh window.
  pi.on("turn_end", async (e, ctx) => {
    if (!e.toolResults || e.toolResults.length === 0) return undefined;
    const facts = { agent: agent(ctx), run: shell.run, turn_index: e.turnIndex, cwd: ctx.cwd, budget: budget(pi, ctx) };
    const effects = await event(ctx, "turn_end", facts);
    const answer = effects.find((fx) => fx.type === "answer_compaction");
    for (const fx of effects) if (fx.type === "end_turn") notify(ctx, String(fx.text));
    runEffects(pi, ctx, effects.filter((fx) => fx.type !== "end_turn" && fx.type !== "answer_compaction"));
    if (!answer || effects.some((fx) => fx.type === "veto_compaction" || fx.type === "native_compaction")) {
      return undefined;
    }
    shell.committed = answer.generation as number;
    return { entries: [bootEntry(answer)] };
  });

  pi.on("tool_result", async (e, ctx) => {
    const effects = await event(ctx, "tool_result", { agent: agent(ctx), is_error: e.isError, budget: budget(pi, ctx) });
    const warn = effects.find((fx) => fx.type === "warn");
    runEffects(pi, ctx, effects);
    if (warn) return { content: [...e.content, { type: "text", text: String(warn.text) }] };
    return undefined;
  });

  pi.on("agent_end", async (e, ctx) => {
    // A compaction written at the batch's end is proven before the run's end is told.
    await settleCommit(pi, ctx, false);
    const last = [...e.messages].reverse().find((m) => (m as Fields).role === "assistant") as Fields | undefined;
    const facts = {
      agent: agent(ctx),
      run: shell.run,
      stop_reason: String(last?.stopReason ?? "stop"),
      cut: shell.cut,
      continuation: shell.continuation,
      budget: budget(pi, ctx),
    };
    shell.cut = false;
    shell.continuation = undefined;
    runEffects(pi, ctx, await event(ctx, "agent_end", facts));
  });

  // The reset worker's compaction, written at the run's settling as a compaction entry that
  // keeps nothing before it (`firstKeptEntryId: null`): the boot and handoff are the window.
  pi.on("agent_before_settle", async (_e, ctx) => {
    const held = shell.compact;
    if (!held) return undefined;
    shell.compact = undefined;
    const effects = await event(ctx, "session_before_compact", {
      agent: agent(ctx),
      reason: "manual",
      custom_instructions: held.marker,
      cwd: ctx.cwd,
    });
    runEffects(pi, ctx, effects);
    const answer = effects.find((fx) => fx.type === "answer_compaction");
    if (!answer || effects.some((fx) => fx.type === "veto_compaction" || fx.type === "native_compaction")) {
      void event(ctx, "compact_done", { generation: held.generation, status: "failed", reason: "not answered with a boot" });
      return undefined;
    }
    shell.committed = held.generation;
    return { entries: [bootEntry(answer)] };
  });

  pi.on("agent_settled", async (_e, ctx) => {
    await settleCommit(pi, ctx, false);
    const held = shell.compact;
    if (held) {
      // A run that ended without settling its boundary (aborted for `end_turn`): compact now.
      shell.compact = undefined;
      shell.marker = held.marker;
      const done = (status: string, reason?: string) => void event(ctx, "compact_done", { generation: held.generation, status, reason });
      ctx.compact({ customInstructions: held.marker, onComplete: () => done("ok"), onError: (err: Error) => done("failed", err.message) });
    }
  });

  pi.on("session_before_compact", async (e, ctx) => {
    const tail = branchTail(ctx);
    const effects = await event(ctx, "session_before_compact", {
      agent: agent(ctx),
      reason: e.reason,
      custom_instructions: e.customInstructions,
      cwd: ctx.cwd,
      tail: tail.map(({ id: _id, ...entry }) => entry),
    });
    runEffects(pi, ctx, effects);
    const answer = effects.find((fx) => fx.type === "answer_compaction");
    if (effects.some((fx) => fx.type === "veto_compaction")) return { cancel: true };
    // The worker's own compaction with no answer (the helper failed or timed out) is never
    // Pi's summary: cancelled, its `onError` tells the flow it failed, and it is tried again.
    const own = e.customInstructions !== undefined && e.customInstructions === shell.marker;
    if (!answer && own && !effects.some((fx) => fx.type === "native_compaction")) return { cancel: true };
    if (!answer) return undefined;
    // The entry the helper keeps the branch from (the person's message no response answered
    // yet), else null: the compaction keeps nothing before it (SessionManager.appendCompaction).
    const keep = Array.isArray(answer.keep) ? (answer.keep as Fields[]) : [];
    const from = typeof keep[0]?.at === "number" ? tail[keep[0].at]?.id : undefined;
    // The kept entries no later request carries (the ended window's own hidden messages): the
    // compaction entry names them, for the `context` handler of this process and any later one.
    const out = Array.isArray(answer.leave_out) ? (answer.leave_out as unknown[]) : [];
    const leave_out = out.flatMap((at) => (typeof at === "number" && tail[at] ? [tail[at].id] : []));
    return {
      compaction: {
        summary: String(answer.text),
        firstKeptEntryId: (from ?? null) as unknown as string,
        tokensBefore: e.preparation.tokensBefore,
        details: leave_out.length ? { notesoup: answer.ordinal, leave_out } : { notesoup: answer.ordinal },
      },
    };
  });

  // Before each model request: the messages the newest compaction keeps that the helper left
  // out (its `details.leave_out`) are not sent. The session file keeps them as they are.
  pi.on("context", (e, ctx) => {
    const out = leftOut(ctx);
    if (out.length === 0) return undefined;
    const gone = (m: Fields) => m.role === "custom" && out.some((o) => o.customType === m.customType && o.timestamp === m.timestamp);
    return { messages: e.messages.filter((m) => !gone(m as unknown as Fields)) };
  });

  pi.on("session_compact", async (e, ctx) => {
    // Pi 1.6.0 names the first compaction with an equal summary in `compactionEntry`: read the branch.
    const summary = newestCompaction(ctx);
    runEffects(pi, ctx, await event(ctx, "session_compact", { agent: agent(ctx), from_extension: e.fromExtension, summary }));
  });
}

/** One of notesoup's own tools through the `tool` op. */
async function toolCall(ctx: ExtensionContext, name: string, params: unknown, id: string): Promise<Effect[]> {
  const reply = await helper("tool", {
    name: `notesoup_${name}`,
    args: params ?? {},
    // A run with no session file (`pi --no-session`, Pi's subagents) is a subagent's: its
    // `empty_brain` is refused, as the reset that follows a batch never runs for it. The
    // call's id: a history list leaves this call, pending in the session file, out.
    bound:
      agent(ctx) === "subagent"
        ? { cwd: ctx.cwd, agent_id: ctx.sessionManager.getSessionId(), call_id: id }
        : { cwd: ctx.cwd, call_id: id },
    session: session(ctx),
    version: VERSION,
  });
  if (!reply.ok) return [{ type: "tool_result", is_error: true, text: `notesoup ${reply.error.code}: ${reply.error.message}` }];
  return reply.effects;
}
