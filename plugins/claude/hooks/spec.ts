// The names and schemas notesoup registers with Claude Code: data only, no `$`.
//
// Every tool is answered by the helper op of the same name (empty_brain by the
// `reset` op), so the texts here describe the tool to the model and nothing more;
// what a tool does and how its answer reads live in Rust.

/** One tool as `$.tool.register` takes it; the model sees `mcp__notesoup__<name>`. */
export type ToolDef = {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
};

const str = (description: string) => ({ type: 'string', description });
const version = str('The version a read or list reported; refused with version_conflict when the note changed since.');

export const NOTES_TOOLS: readonly ToolDef[] = [
  {
    name: 'notes_list',
    description: 'List the notes in your brain: names, sizes, updated times, versions and first lines, optionally under one folder.',
    inputSchema: { type: 'object', properties: { folder: str('Only notes under this folder, e.g. "project".') }, additionalProperties: false },
  },
  {
    name: 'notes_read',
    description: 'Read one note and its version. Use offset and limit (in lines) to page through a long note.',
    inputSchema: {
      type: 'object',
      properties: {
        name: str('The note name, e.g. "plan" or "project/decisions".'),
        offset: { type: 'integer', minimum: 1, description: 'The first line to read (1-based).' },
        limit: { type: 'integer', minimum: 1, description: 'Read at most this many lines.' },
      },
      required: ['name'],
      additionalProperties: false,
    },
  },
  {
    name: 'notes_write',
    description: 'Create a note or replace a whole note. Pass the version you last read to avoid overwriting a change made since.',
    inputSchema: {
      type: 'object',
      properties: { name: str('The note name (lowercase letters, digits, -, _ and / for folders).'), text: str('The whole new text of the note.'), version },
      required: ['name', 'text'],
      additionalProperties: false,
    },
  },
  {
    name: 'notes_edit',
    description: 'Edit a note in place: replace one exact, unique occurrence of `old` with `new`, or add text at the end with `append`.',
    inputSchema: {
      type: 'object',
      properties: {
        name: str('The note name.'),
        old: str('The exact text to replace; it must occur exactly once.'),
        new: str('The replacement text.'),
        append: str('Text to add at the end of the note (instead of old/new).'),
        version,
      },
      required: ['name'],
      additionalProperties: false,
    },
  },
  {
    name: 'notes_delete',
    description: 'Delete a note. Deleted notes are kept in a trash folder for a while, so a mistake can be undone.',
    inputSchema: { type: 'object', properties: { name: str('The note name.'), version }, required: ['name'], additionalProperties: false },
  },
];

// The schemas are history-core's (the same for every harness; see its crate docs and its
// docs/history-sessions.md), plus `session` to read another persisted session;
// `history_sessions` lists the sessions `session` can name.
const session = str('Another session to read: <harness>:<sessionId> (claude, pi or codex; a unique id prefix is enough; history_sessions lists them); default: this session.');

export const HISTORY_TOOLS: readonly ToolDef[] = [
  {
    name: 'history_list',
    description:
      'Page and search your own persisted history across windows and sessions: one folded line per event with its seq address, newest first, grouped by window. The answer fits 32 KiB; pass its cursor for the next page.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      properties: {
        query: str('Literal, case-sensitive text to find.'),
        roles: {
          type: 'array',
          items: { enum: ['user', 'assistant', 'tool', 'attachment', 'notice', 'summary'] },
          description: 'Only these roles; default: every role but attachment.',
        },
        window: str('A window id, or its ordinal / unknown:<id> part.'),
        cursor: str('The cursor the previous page named.'),
        limit: { type: 'integer', minimum: 1, maximum: 500, default: 40 },
        order: { enum: ['newest', 'oldest'], default: 'newest' },
        session,
      },
    },
  },
  {
    name: 'history_read',
    description:
      'Read whole history events by seq (one, or a range), with their window and time; a tool call shows its result. The answer fits 32 KiB; a cut event ends with the exact arguments that continue it.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      properties: {
        seq: { type: 'integer', minimum: 1, description: 'One event.' },
        from: { type: 'integer', minimum: 1, description: 'First seq of a range.' },
        to: { type: 'integer', minimum: 1, description: 'Last seq of a range (inclusive).' },
        offset: { type: 'integer', minimum: 0, description: "Bytes of the first event's text already read." },
        session,
      },
    },
  },
  {
    name: 'history_sessions',
    description:
      'List recent sessions of every coding agent on this machine (Claude Code, Pi, Codex), newest first: harness:id, start time, cwd and first prompt. Pass one as `session` to history_list or history_read to read it.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      properties: {
        harness: { enum: ['claude', 'pi', 'codex'], description: 'Only this harness.' },
        limit: { type: 'integer', minimum: 1, maximum: 200, default: 20 },
      },
    },
  },
];

export const EMPTY_BRAIN: ToolDef = {
  name: 'empty_brain',
  description:
    'Clear this context window once your notes hold everything the next window needs. The conversation is replaced by a fresh window that boots from your notes. Every tool call in this response still finishes first.',
  inputSchema: {
    type: 'object',
    properties: {
      last_word: str('An optional sticky note shown once at the top of the next window.'),
      terminate: { type: 'boolean', description: 'true: stop after the clear instead of continuing the work in the fresh window. Default false.' },
    },
    additionalProperties: false,
  },
};

export const TOOLS: readonly ToolDef[] = [...NOTES_TOOLS, ...HISTORY_TOOLS, EMPTY_BRAIN];

/** The full names the model sees, the matcher of the tool.call hook. */
export const TOOL_NAMES: readonly `mcp__notesoup__${string}`[] = TOOLS.map((t) => `mcp__notesoup__${t.name}` as const);

export const COMMANDS = [
  { name: 'notesoup', description: 'notesoup status; `/notesoup cap 100k` sets a runtime context cap, `cap off` removes it', argumentHint: '[cap [<tokens>|off]]' },
  { name: 'empty', description: 'Let the agent save its notes, then clear this window and boot a fresh one from the notes' },
  { name: 'fresh-window', description: 'Save notes and start a fresh window (the same reset as /empty)' },
] as const;
