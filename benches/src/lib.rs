//! Generated Claude Code 2.1.319 transcripts with the shapes of real ones, for benchmarks.
//!
//! A turn is what the real samples hold: a prompt row (with `promptId`, `permissionMode`,
//! …), a rendered `date` attachment, an assistant text row with the API message's `usage`,
//! an assistant `tool_use` row, its `tool_result` row (with `toolUseResult` and
//! `sourceToolAssistantUUID`), a closing assistant text, plus `last-prompt` and
//! `api-request` metadata records; every 2000 events a compact boundary and its summary.
//! Texts are drawn from a word list by a deterministic PRNG; the rare word `zebra-needle`
//! appears in about one event in 500, for searches.
//!
//! ```
//! let jsonl = notesoup_benches::generate(100, 1);
//! let t = notesoup_history_claude::decode(
//!     jsonl.as_bytes(),
//!     &notesoup_history_claude::Options::default(),
//!     &notesoup_history_claude::Head::Leaf,
//! )?;
//! assert!(t.events.len() >= 100);
//! # Ok::<(), notesoup_history_claude::DecodeError>(())
//! ```

#![forbid(unsafe_code)]

use std::fmt::Write as _;

use notesoup_testkit::Rng;
use serde_json::json;

/// The rare word searches look for.
pub const NEEDLE: &str = "zebra-needle";

const WORDS: &[&str] = &[
    "the",
    "build",
    "fails",
    "because",
    "config",
    "is",
    "missing",
    "a",
    "field",
    "in",
    "tests",
    "we",
    "should",
    "read",
    "transcript",
    "window",
    "seq",
    "cargo",
    "clippy",
    "error",
    "value",
    "function",
    "returns",
    "parser",
    "line",
    "file",
    "path",
    "notes",
    "history",
    "query",
    "budget",
    "page",
    "cursor",
    "result",
    "call",
    "tool",
    "fixed",
    "then",
    "run",
    "again",
];

/// Words from [`WORDS`] (with the rare [`NEEDLE`]), `min..=max` bytes or just over.
fn words(rng: &mut Rng, min: usize, max: usize) -> String {
    let len = min + rng.below(max - min + 1);
    let mut out = String::with_capacity(len + 16);
    while out.len() < len {
        if !out.is_empty() {
            out.push(if rng.below(12) == 0 { '\n' } else { ' ' });
        }
        if rng.below(2000) == 0 {
            out.push_str(NEEDLE);
        } else {
            out.push_str(WORDS[rng.below(WORDS.len())]);
        }
    }
    out
}

struct Writer {
    out: String,
    rng: Rng,
    session: String,
    n: u64,
    parent: Option<String>,
    events: usize,
    /// Bytes of a tool result's output: least and most.
    output: (usize, usize),
}

impl Writer {
    fn uuid(&mut self) -> String {
        self.n += 1;
        let r = self.rng.next_u64();
        format!(
            "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
            r >> 32,
            (r >> 16) & 0xffff,
            self.n & 0xfff,
            (self.n >> 12) & 0xfff,
            self.n
        )
    }

    fn row(&mut self, mut value: serde_json::Value, events: usize) -> String {
        let uuid = self.uuid();
        value["parentUuid"] = json!(self.parent);
        value["isSidechain"] = json!(false);
        value["uuid"] = json!(uuid);
        value["timestamp"] = json!(format!(
            "2026-12-02T10:{:02}:{:02}.000Z",
            (self.n / 60) % 60,
            self.n % 60
        ));
        value["userType"] = json!("external");
        value["entrypoint"] = json!("cli");
        value["cwd"] = json!("/home/dev/project");
        value["sessionId"] = json!(self.session);
        value["version"] = json!("2.1.319");
        value["gitBranch"] = json!("main");
        let _ = writeln!(self.out, "{value}");
        self.parent = Some(uuid.clone());
        self.events += events;
        uuid
    }

    fn meta(&mut self, value: &serde_json::Value) {
        let _ = writeln!(self.out, "{value}");
    }

    fn assistant(&mut self, content: &serde_json::Value) -> String {
        let id = format!("msg_{:016x}", self.rng.next_u64());
        let request = format!("req_{:016x}", self.rng.next_u64());
        let events = 1 + content
            .as_array()
            .map_or(0, |c| c.iter().filter(|b| b["type"] == "tool_use").count());
        self.row(
            json!({"type": "assistant", "message": {"id": id, "type": "message",
                "role": "assistant", "model": "claude-opus-5-5", "content": content,
                "stop_reason": "end_turn", "stop_sequence": null,
                "usage": {"input_tokens": 1200, "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": 48000, "output_tokens": 300,
                    "service_tier": "standard"}},
                "requestId": request,
                "requestedModel": "claude-opus-5-5", "effort": "medium"}),
            events,
        )
    }

    fn turn(&mut self) {
        let prompt = words(&mut self.rng, 40, 400);
        self.row(
            json!({"type": "user", "promptId": format!("p{}", self.n),
                "message": {"role": "user", "content": prompt},
                "permissionMode": "default", "promptSource": "composer"}),
            1,
        );
        let date = format!(
            "<system-reminder>\nToday's date is 2026-12-02 ({}).\n</system-reminder>",
            self.n
        );
        self.row(
            json!({"type": "attachment", "attachment": {"type": "date", "date": "2026-12-02"},
                "rendered": [{"content": date}], "renderedRole": "user"}),
            1,
        );
        let thinking = words(&mut self.rng, 50, 300);
        let text = words(&mut self.rng, 100, 1500);
        self.assistant(
            &json!([{"type": "thinking", "thinking": thinking, "signature": "sig"},
                               {"type": "text", "text": text}]),
        );
        let tool_id = format!("toolu_{:020x}", self.rng.next_u64());
        let command = words(&mut self.rng, 10, 120);
        let call = self.assistant(&json!([{"type": "tool_use", "id": tool_id, "name": "Bash",
            "input": {"command": command, "description": "run it"}}]));
        let output = words(&mut self.rng, self.output.0, self.output.1);
        self.row(
            json!({"type": "user", "message": {"role": "user", "content": [
                {"tool_use_id": tool_id, "type": "tool_result", "content": output, "is_error": false}]},
                "toolUseResult": {"stdout": "(see content)", "stderr": "", "interrupted": false},
                "sourceToolAssistantUUID": call}),
            2,
        );
        let close = words(&mut self.rng, 50, 800);
        self.assistant(&json!([{"type": "text", "text": close}]));
        let last = self.parent.clone();
        self.meta(&json!({"type": "last-prompt", "lastPrompt": "…", "leafUuid": last, "sessionId": self.session}));
        let shape = format!("{:016x}", self.rng.next_u64());
        self.meta(&json!({"type": "api-request", "sessionId": self.session,
            "shape": shape, "params": {"max_tokens": 32000}}));
    }

    fn compact(&mut self) {
        let logical = self.parent.take();
        let boundary = self.row(
            json!({"type": "system", "subtype": "compact_boundary",
                "content": "Conversation compacted", "isMeta": false, "level": "info",
                "logicalParentUuid": logical,
                "compactMetadata": {"trigger": "auto", "preTokens": 190_000, "postTokens": 9000}}),
            1,
        );
        let summary = format!(
            "This session is being continued from a previous conversation. Summary:\n{}",
            words(&mut self.rng, 1000, 4000)
        );
        self.parent = Some(boundary);
        self.row(
            json!({"type": "user", "message": {"role": "user", "content": summary},
                "isVisibleInTranscriptOnly": true, "isCompactSummary": true}),
            1,
        );
    }
}

/// A transcript of at least `events` events (seqs), deterministic for a `seed`.
pub fn generate(events: usize, seed: u64) -> String {
    generate_until(seed, (50, 4000), |w| w.events >= events)
}

/// A transcript of at least `bytes` bytes.
pub fn generate_bytes(bytes: usize, seed: u64) -> String {
    generate_until(seed, (50, 4000), |w| w.out.len() >= bytes)
}

/// A transcript of at least `bytes` bytes whose tool results are whole files (16–64 KB
/// each): the same turns, about ten times fewer events per megabyte than
/// [`generate_bytes`].
pub fn generate_bytes_sparse(bytes: usize, seed: u64) -> String {
    generate_until(seed, (16_000, 64_000), |w| w.out.len() >= bytes)
}

fn generate_until(seed: u64, output: (usize, usize), done: impl Fn(&Writer) -> bool) -> String {
    let mut w = Writer {
        output,
        out: String::new(),
        rng: Rng::new(seed),
        session: "6e9d0000-0000-4000-8000-00000000b3c4".into(),
        n: 0,
        parent: None,
        events: 0,
    };
    let mut next_compact = 2000;
    while !done(&w) {
        w.turn();
        if w.events >= next_compact {
            w.compact();
            next_compact += 2000;
        }
    }
    w.out
}

/// The session id of generated transcripts.
pub const SESSION: &str = "6e9d0000-0000-4000-8000-00000000b3c4";
