// GENERATED from notesoup_app::tools::{specs, commands}, hook::pi::CONTEXT_REMAINING and
// notesoup_pi_hooks::{HIDDEN_MESSAGE, CLOSEOUT_MESSAGE}:
// do not edit. Regenerate with NOTESOUP_BLESS=1 cargo test -p notesoup-app --lib pi_spec_ts
// (app/src/hook/pi/tests.rs holds this file to the Rust definitions byte for byte).

/** One tool as `pi.registerTool` takes it; the model sees `notesoup_<name>`. */
export type ToolDef = {
  readonly name: string;
  readonly label: string;
  readonly description: string;
  readonly parameters: Record<string, unknown>;
};

export const TOOLS: readonly ToolDef[] = [
  {
    "description": "List the notes in your brain: names, sizes, updated times, versions and first lines, optionally under one folder.",
    "label": "List notes",
    "name": "notes_list",
    "parameters": {
      "additionalProperties": false,
      "properties": {
        "folder": {
          "description": "Only notes under this folder, e.g. \"project\".",
          "type": "string"
        }
      },
      "type": "object"
    }
  },
  {
    "description": "Read one note and its version. Use offset and limit (in lines) to page through a long note.",
    "label": "Read a note",
    "name": "notes_read",
    "parameters": {
      "additionalProperties": false,
      "properties": {
        "limit": {
          "description": "Read at most this many lines.",
          "minimum": 1,
          "type": "integer"
        },
        "name": {
          "description": "The note name, e.g. \"plan\" or \"project/decisions\".",
          "type": "string"
        },
        "offset": {
          "description": "The first line to read (1-based).",
          "minimum": 1,
          "type": "integer"
        }
      },
      "required": [
        "name"
      ],
      "type": "object"
    }
  },
  {
    "description": "Create a note or replace a whole note. Pass the version you last read to avoid overwriting a change made since.",
    "label": "Write a note",
    "name": "notes_write",
    "parameters": {
      "additionalProperties": false,
      "properties": {
        "name": {
          "description": "The note name (lowercase letters, digits, -, _ and / for folders).",
          "type": "string"
        },
        "text": {
          "description": "The whole new text of the note.",
          "type": "string"
        },
        "version": {
          "description": "The version a read or list reported; refused with version_conflict when the note changed since.",
          "type": "string"
        }
      },
      "required": [
        "name",
        "text"
      ],
      "type": "object"
    }
  },
  {
    "description": "Edit a note in place: replace one exact, unique occurrence of `old` with `new`, or add text at the end with `append`.",
    "label": "Edit a note",
    "name": "notes_edit",
    "parameters": {
      "additionalProperties": false,
      "properties": {
        "append": {
          "description": "Text to add at the end of the note (instead of old/new).",
          "type": "string"
        },
        "name": {
          "description": "The note name.",
          "type": "string"
        },
        "new": {
          "description": "The replacement text.",
          "type": "string"
        },
        "old": {
          "description": "The exact text to replace; it must occur exactly once.",
          "type": "string"
        },
        "version": {
          "description": "The version a read or list reported; refused with version_conflict when the note changed since.",
          "type": "string"
        }
      },
      "required": [
        "name"
      ],
      "type": "object"
    }
  },
  {
    "description": "Delete a note. Deleted notes are kept in a trash folder for a while, so a mistake can be undone.",
    "label": "Delete a note",
    "name": "notes_delete",
    "parameters": {
      "additionalProperties": false,
      "properties": {
        "name": {
          "description": "The note name.",
          "type": "string"
        },
        "version": {
          "description": "The version a read or list reported; refused with version_conflict when the note changed since.",
          "type": "string"
        }
      },
      "required": [
        "name"
      ],
      "type": "object"
    }
  },
  {
    "description": "Page and search your own persisted history across windows and sessions: one folded line per event with its seq address, newest first, grouped by window. The answer fits 32 KiB; pass its cursor for the next page.",
    "label": "List and search history",
    "name": "history_list",
    "parameters": {
      "additionalProperties": false,
      "properties": {
        "cursor": {
          "description": "The cursor the previous page named.",
          "type": "string"
        },
        "limit": {
          "default": 40,
          "maximum": 500,
          "minimum": 1,
          "type": "integer"
        },
        "order": {
          "default": "newest",
          "enum": [
            "newest",
            "oldest"
          ]
        },
        "query": {
          "description": "Literal, case-sensitive text to find.",
          "type": "string"
        },
        "roles": {
          "description": "Only these roles; default: every role but attachment.",
          "items": {
            "enum": [
              "user",
              "assistant",
              "tool",
              "attachment",
              "notice",
              "summary"
            ]
          },
          "type": "array"
        },
        "session": {
          "description": "Another session to read: <harness>:<sessionId> (claude, pi or codex; a unique id prefix is enough; history_sessions lists them); default: this session.",
          "type": "string"
        },
        "window": {
          "description": "A window id, or its ordinal / unknown:<id> part.",
          "type": "string"
        }
      },
      "type": "object"
    }
  },
  {
    "description": "Read whole history events by seq (one, or a range), with their window and time; a tool call shows its result. The answer fits 32 KiB; a cut event ends with the exact arguments that continue it.",
    "label": "Read history events",
    "name": "history_read",
    "parameters": {
      "additionalProperties": false,
      "properties": {
        "from": {
          "description": "First seq of a range; without `to`, read on from it as far as the answer holds.",
          "minimum": 1,
          "type": "integer"
        },
        "offset": {
          "description": "Bytes of the first event's text already read.",
          "minimum": 0,
          "type": "integer"
        },
        "seq": {
          "description": "One event.",
          "minimum": 1,
          "type": "integer"
        },
        "session": {
          "description": "Another session to read: <harness>:<sessionId> (claude, pi or codex; a unique id prefix is enough; history_sessions lists them); default: this session.",
          "type": "string"
        },
        "to": {
          "description": "Last seq of a range (inclusive).",
          "minimum": 1,
          "type": "integer"
        }
      },
      "type": "object"
    }
  },
  {
    "description": "List recent sessions of every coding agent on this machine (Claude Code, Pi, Codex), newest first: harness:id, start time, cwd and first prompt. Pass one as `session` to history_list or history_read to read it.",
    "label": "List sessions",
    "name": "history_sessions",
    "parameters": {
      "additionalProperties": false,
      "properties": {
        "harness": {
          "description": "Only this harness.",
          "enum": [
            "claude",
            "pi",
            "codex"
          ]
        },
        "limit": {
          "default": 20,
          "maximum": 200,
          "minimum": 1,
          "type": "integer"
        }
      },
      "type": "object"
    }
  },
  {
    "description": "Clear this context window once your notes hold everything the next window needs. The conversation is replaced by a fresh window that boots from your notes. Every tool call in this response still finishes first.",
    "label": "Clear the context window",
    "name": "empty_brain",
    "parameters": {
      "additionalProperties": false,
      "properties": {
        "last_word": {
          "description": "An optional sticky note shown once at the top of the next window.",
          "type": "string"
        },
        "terminate": {
          "description": "true: stop after the clear instead of continuing the work in the fresh window. Default false.",
          "type": "boolean"
        }
      },
      "type": "object"
    }
  },
  {
    "description": "How full this context window is: the tokens used, and the tokens left to the budget warning and to notesoup's clear of the window.",
    "label": "Context remaining",
    "name": "get_context_remaining",
    "parameters": {
      "additionalProperties": false,
      "properties": {},
      "type": "object"
    }
  }
];

export const COMMANDS = [
  {
    "description": "notesoup status; `/notesoup cap 100k` sets a runtime context cap, `cap off` removes it",
    "name": "notesoup"
  },
  {
    "description": "Let the agent save its notes, then clear this window and boot a fresh one from the notes",
    "name": "empty"
  },
  {
    "description": "Save notes and start a fresh window (the same reset as /empty)",
    "name": "fresh-window"
  }
] as const;

/** notesoup's one version (Cargo.toml's); the helper refuses an extension of another. */
export const VERSION = "0.1.0";

/** How long one helper reply may take before the helper counts as unavailable. */
export const HELPER_TIMEOUT_MS = 30000;

/**
 * The `customType`s of the extension's own hidden messages: the one `before_agent_start`
 * attaches (a boot, the warning), and the close-out's warning steered into a running run.
 */
export const MESSAGES = {
  "closeout": "notesoup-warning",
  "hidden": "notesoup"
} as const;
