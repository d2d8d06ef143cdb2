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
const int = (description: string) => ({ type: 'integer', minimum: 0, description });
const version = str('The version a read or list reported; refused with version_conflict when the note changed since.');

export const NOTES_TOOLS: readonly ToolDef[] = [
  {
    name: 'notes_list',
    description: 'List the notes in your brain: names, sizes, updated times, versions and first lines, optionally under one folder.',
    inputSchema: { type: 'object', properties: { folder: str('Only notes under this folder, e.g. "project".') }, additionalProperties: false },
  },
  {
    name: 'notes_read',
    description: 'Read one note and its version. Use offset and limit to page through a long note.',
    inputSchema: {
      type: 'object',
      properties: { name: str('The note name, e.g. "plan" or "project/decisions".'), offset: int('Start at this character offset.'), limit: int('Read at most this many characters.') },
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

export const HISTORY_TOOLS: readonly ToolDef[] = [
  {
    name: 'history_list',
    description:
      'Page and search your own persisted history (this and earlier windows and sessions), one folded line per event with its seq address. `query` is a literal search. The answer fits 32 KiB; follow its cursor for more.',
    inputSchema: {
      type: 'object',
      properties: {
        query: str('Literal text to search for (case-insensitive).'),
        role: { type: 'string', enum: ['user', 'assistant', 'tool', 'system'], description: 'Only events of this role.' },
        cursor: str('The continuation cursor a previous answer gave.'),
        session: str('Another session, e.g. "claude:<sessionId>"; the current one when absent.'),
      },
      additionalProperties: false,
    },
  },
  {
    name: 'history_read',
    description: 'Read one history event, or a range of events, by seq address, in full. Use offset to continue a long text. The answer fits 32 KiB.',
    inputSchema: {
      type: 'object',
      properties: {
        seq: int('The seq address of the event (or the first of a range).'),
        end: int('The last seq of a range (inclusive).'),
        offset: int('Continue a long text from this byte offset.'),
        session: str('Another session, e.g. "claude:<sessionId>"; the current one when absent.'),
      },
      required: ['seq'],
      additionalProperties: false,
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
