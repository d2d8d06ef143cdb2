//! What the scripted model answers: replies, the rules that pick them, and the
//! request views the rules (and the scenario assertions) read.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

/// The text that marks Claude Code's own compaction (summary) request.
pub const COMPACTION_MARKER: &str = "Your task is to create a detailed summary";

/// A read-only view of one `POST /v1/messages` body.
#[derive(Clone, Copy, Debug)]
pub struct Request<'a> {
    body: &'a Value,
}

impl<'a> Request<'a> {
    /// Wraps a parsed request body.
    pub fn new(body: &'a Value) -> Self {
        Self { body }
    }

    /// The raw body.
    pub fn body(&self) -> &'a Value {
        self.body
    }

    /// The tool names the request offers the model, in order.
    pub fn tool_names(&self) -> Vec<&'a str> {
        self.body
            .get("tools")
            .and_then(Value::as_array)
            .map(|tools| {
                tools
                    .iter()
                    .filter_map(|t| t.get("name").and_then(Value::as_str))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The conversation's messages.
    pub fn messages(&self) -> &'a [Value] {
        self.body
            .get("messages")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }

    /// The user messages, in order.
    pub fn user_messages(&self) -> Vec<&'a Value> {
        self.messages()
            .iter()
            .filter(|m| m.get("role").and_then(Value::as_str) == Some("user"))
            .collect()
    }

    /// The text of the first user message (text blocks and tool results joined).
    pub fn first_user_text(&self) -> String {
        self.user_messages()
            .first()
            .map(|m| content_text(m.get("content")))
            .unwrap_or_default()
    }

    /// The text of the last user message (text blocks and tool results joined).
    pub fn last_user_text(&self) -> String {
        self.user_messages()
            .last()
            .map(|m| content_text(m.get("content")))
            .unwrap_or_default()
    }

    /// Every user message's text, joined.
    pub fn all_user_text(&self) -> String {
        self.user_messages()
            .iter()
            .map(|m| content_text(m.get("content")))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The text of every non-assistant message before the first assistant message: the
    /// conversation's opening, where Claude places attachments such as a boot (as user
    /// or `system`-role messages).
    pub fn head_text(&self) -> String {
        self.messages()
            .iter()
            .take_while(|m| role(m) != "assistant")
            .map(|m| content_text(m.get("content")))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The text of every message after the last assistant message (user and `system`
    /// roles): what this request adds, e.g. tool results, a warning, input delivered
    /// mid-turn.
    pub fn tail_text(&self) -> String {
        let msgs = self.messages();
        let start = msgs
            .iter()
            .rposition(|m| role(m) == "assistant")
            .map_or(0, |i| i + 1);
        msgs[start..]
            .iter()
            .map(|m| content_text(m.get("content")))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The text of every non-assistant message.
    pub fn all_text(&self) -> String {
        self.messages()
            .iter()
            .filter(|m| role(m) != "assistant")
            .map(|m| content_text(m.get("content")))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The system prompt's text.
    pub fn system_text(&self) -> String {
        match self.body.get("system") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(blocks)) => blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        }
    }

    /// Whether the last user message carries a `tool_result` block.
    pub fn has_tool_result(&self) -> bool {
        self.user_messages().last().is_some_and(|m| {
            m.get("content")
                .and_then(Value::as_array)
                .is_some_and(|blocks| blocks.iter().any(|b| block_type(b) == "tool_result"))
        })
    }

    /// The `tool_result` blocks of the last user message, as (`tool_use_id`, text).
    pub fn tool_results(&self) -> Vec<(String, String)> {
        let Some(last) = self.user_messages().last().copied() else {
            return Vec::new();
        };
        last.get("content")
            .and_then(Value::as_array)
            .map(|blocks| {
                blocks
                    .iter()
                    .filter(|b| block_type(b) == "tool_result")
                    .map(|b| {
                        let id = b.get("tool_use_id").and_then(Value::as_str).unwrap_or("");
                        (id.to_owned(), content_text(b.get("content")))
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Whether this is Claude Code's compaction (summary) request.
    pub fn is_compaction(&self) -> bool {
        self.last_user_text().contains(COMPACTION_MARKER)
    }
}

fn role(message: &Value) -> &str {
    message.get("role").and_then(Value::as_str).unwrap_or("")
}

fn block_type(block: &Value) -> &str {
    block.get("type").and_then(Value::as_str).unwrap_or("")
}

/// The text of a message `content`: a string, or text blocks and tool results joined.
pub fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| match block_type(b) {
                "text" => b.get("text").and_then(Value::as_str).map(str::to_owned),
                "tool_result" => Some(content_text(b.get("content"))),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Conditions on a request; every condition set must hold.
#[derive(Clone, Debug, Default)]
pub struct Match {
    system_contains: Option<String>,
    user_contains: Option<String>,
    tail_contains: Option<String>,
    any_contains: Option<String>,
    tool_result: Option<bool>,
    has_tools: Option<bool>,
    compaction: Option<bool>,
}

impl Match {
    /// Matches every request.
    pub fn any() -> Self {
        Self::default()
    }

    /// The last user message's text contains `needle`.
    pub fn user_contains(needle: &str) -> Self {
        Self::any().and_user_contains(needle)
    }

    /// The messages after the last assistant message (any role) contain `needle`.
    pub fn tail_contains(needle: &str) -> Self {
        Self::any().and_tail_contains(needle)
    }

    /// The system prompt contains `needle`.
    pub fn system_contains(needle: &str) -> Self {
        Self::any().and_system_contains(needle)
    }

    /// The raw request body contains `needle`.
    pub fn any_contains(needle: &str) -> Self {
        Self::any().and_any_contains(needle)
    }

    /// Claude Code's compaction (summary) request.
    pub fn compaction() -> Self {
        Self {
            compaction: Some(true),
            ..Self::default()
        }
    }

    /// The last user message carries (or does not carry) a `tool_result`.
    pub fn tool_result(present: bool) -> Self {
        Self::any().and_tool_result(present)
    }

    /// Adds: the last user message's text contains `needle`.
    #[must_use]
    pub fn and_user_contains(mut self, needle: &str) -> Self {
        self.user_contains = Some(needle.to_owned());
        self
    }

    /// Adds: the messages after the last assistant message contain `needle`.
    #[must_use]
    pub fn and_tail_contains(mut self, needle: &str) -> Self {
        self.tail_contains = Some(needle.to_owned());
        self
    }

    /// Adds: the system prompt contains `needle`.
    #[must_use]
    pub fn and_system_contains(mut self, needle: &str) -> Self {
        self.system_contains = Some(needle.to_owned());
        self
    }

    /// Adds: the raw body contains `needle`.
    #[must_use]
    pub fn and_any_contains(mut self, needle: &str) -> Self {
        self.any_contains = Some(needle.to_owned());
        self
    }

    /// Adds: the last user message carries (or not) a `tool_result`.
    #[must_use]
    pub fn and_tool_result(mut self, present: bool) -> Self {
        self.tool_result = Some(present);
        self
    }

    /// Adds: the request lists (or does not list) tools.
    #[must_use]
    pub fn and_has_tools(mut self, present: bool) -> Self {
        self.has_tools = Some(present);
        self
    }

    /// Adds: the request is (or is not) a compaction request.
    #[must_use]
    pub fn and_compaction(mut self, is: bool) -> Self {
        self.compaction = Some(is);
        self
    }

    /// Whether `request` (with its raw text `raw`) fits.
    pub fn fits(&self, request: &Request<'_>, raw: &str) -> bool {
        let contains = |want: &Option<String>, hay: &dyn Fn() -> String| {
            want.as_ref()
                .is_none_or(|needle| hay().contains(needle.as_str()))
        };
        contains(&self.system_contains, &|| request.system_text())
            && contains(&self.user_contains, &|| request.last_user_text())
            && contains(&self.tail_contains, &|| request.tail_text())
            && self
                .any_contains
                .as_ref()
                .is_none_or(|n| raw.contains(n.as_str()))
            && self
                .tool_result
                .is_none_or(|want| request.has_tool_result() == want)
            && self
                .has_tools
                .is_none_or(|want| request.tool_names().is_empty() != want)
            && self
                .compaction
                .is_none_or(|want| request.is_compaction() == want)
    }
}

/// One content block of a scripted reply.
#[derive(Clone, Debug)]
pub enum Block {
    /// A text block.
    Text(String),
    /// A thinking block (streamed with a signature).
    Thinking(String),
    /// A tool call; `id` defaults to one derived from the request number.
    ToolUse {
        /// The tool-use id, or `None` for a generated one.
        id: Option<String>,
        /// The tool name, e.g. `mcp__notesoup__notes_write`.
        name: String,
        /// The tool input.
        input: Value,
    },
}

/// The usage numbers a reply reports.
#[derive(Clone, Copy, Debug)]
pub struct Usage {
    /// `input_tokens`.
    pub input_tokens: u64,
    /// `output_tokens`.
    pub output_tokens: u64,
    /// `cache_creation_input_tokens`.
    pub cache_creation_input_tokens: u64,
    /// `cache_read_input_tokens`.
    pub cache_read_input_tokens: u64,
}

impl Default for Usage {
    fn default() -> Self {
        Self {
            input_tokens: 100,
            output_tokens: 20,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
        }
    }
}

/// One scripted model reply (or an API error).
#[derive(Clone, Debug, Default)]
pub struct Reply {
    /// The content blocks, in order.
    pub blocks: Vec<Block>,
    /// The stop reason; `None` picks `tool_use` when a tool is called, else `end_turn`.
    pub stop_reason: Option<String>,
    /// The usage reported.
    pub usage: Usage,
    /// How long to wait before answering.
    pub delay: Duration,
    /// An HTTP error (status, error type) instead of a message.
    pub error: Option<(u16, String)>,
    /// The error's `message`, when it matters to the client (see [`Reply::prompt_too_long`]);
    /// `None` sends a generic one.
    pub error_message: Option<String>,
}

impl Reply {
    /// A plain text reply.
    pub fn text(text: &str) -> Self {
        Self::default().and_text(text)
    }

    /// A reply that calls one tool.
    pub fn tool(name: &str, input: Value) -> Self {
        Self::default().and_tool(name, input)
    }

    /// An API error reply (e.g. 529 `overloaded_error`).
    pub fn error(status: u16, kind: &str) -> Self {
        Self {
            error: Some((status, kind.to_owned())),
            ..Self::default()
        }
    }

    /// The API's answer to a request over the model's limit: HTTP 400
    /// `invalid_request_error` with the message `prompt is too long: <tokens> tokens >
    /// <limit> maximum`, the exact shape Claude Code matches to start a reactive compaction.
    pub fn prompt_too_long(tokens: u64, limit: u64) -> Self {
        Self {
            error: Some((400, "invalid_request_error".to_owned())),
            error_message: Some(format!(
                "prompt is too long: {tokens} tokens > {limit} maximum"
            )),
            ..Self::default()
        }
    }

    /// The error body the service sends for this reply to request number `n` (when it is
    /// an error): `{"type":"error","error":{"type","message"},"request_id"}` as the API does.
    pub fn error_body(&self, n: u64) -> Option<Value> {
        let (_, kind) = self.error.as_ref()?;
        let message = self
            .error_message
            .clone()
            .unwrap_or_else(|| "e2e service: scripted error".to_owned());
        Some(json!({
            "type": "error",
            "error": {"type": kind, "message": message},
            "request_id": format!("req_e2e_{n:04}"),
        }))
    }

    /// Appends a text block.
    #[must_use]
    pub fn and_text(mut self, text: &str) -> Self {
        self.blocks.push(Block::Text(text.to_owned()));
        self
    }

    /// Appends a thinking block.
    #[must_use]
    pub fn and_thinking(mut self, thinking: &str) -> Self {
        self.blocks.push(Block::Thinking(thinking.to_owned()));
        self
    }

    /// Appends a tool call (several make a parallel batch).
    #[must_use]
    pub fn and_tool(mut self, name: &str, input: Value) -> Self {
        self.blocks.push(Block::ToolUse {
            id: None,
            name: name.to_owned(),
            input,
        });
        self
    }

    /// Appends a tool call with a fixed id.
    #[must_use]
    pub fn and_tool_with_id(mut self, id: &str, name: &str, input: Value) -> Self {
        self.blocks.push(Block::ToolUse {
            id: Some(id.to_owned()),
            name: name.to_owned(),
            input,
        });
        self
    }

    /// Reports `input_tokens` (to push the context past a warning or hard point).
    #[must_use]
    pub fn with_input_tokens(mut self, tokens: u64) -> Self {
        self.usage.input_tokens = tokens;
        self
    }

    /// Reports these usage numbers.
    #[must_use]
    pub fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = usage;
        self
    }

    /// Waits this long before answering.
    #[must_use]
    pub fn with_delay_ms(mut self, ms: u64) -> Self {
        self.delay = Duration::from_millis(ms);
        self
    }

    /// Sets the stop reason.
    #[must_use]
    pub fn with_stop_reason(mut self, reason: &str) -> Self {
        self.stop_reason = Some(reason.to_owned());
        self
    }

    /// The full Messages API message for request number `n` of a request for `model`.
    pub fn message(&self, n: u64, model: &str) -> Value {
        let content: Vec<Value> = self
            .blocks
            .iter()
            .enumerate()
            .map(|(i, block)| match block {
                Block::Text(text) => json!({"type": "text", "text": text}),
                Block::Thinking(thinking) => {
                    json!({"type": "thinking", "thinking": thinking, "signature": "e2e-signature"})
                }
                Block::ToolUse { id, name, input } => json!({
                    "type": "tool_use",
                    "id": id.clone().unwrap_or_else(|| format!("toolu_e2e_{n:04}_{i}")),
                    "name": name,
                    "input": input,
                }),
            })
            .collect();
        let calls_tool = self
            .blocks
            .iter()
            .any(|b| matches!(b, Block::ToolUse { .. }));
        let stop = self
            .stop_reason
            .clone()
            .unwrap_or_else(|| if calls_tool { "tool_use" } else { "end_turn" }.to_owned());
        json!({
            "id": format!("msg_e2e_{n:04}"),
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": stop,
            "stop_sequence": null,
            "usage": {
                "input_tokens": self.usage.input_tokens,
                "output_tokens": self.usage.output_tokens,
                "cache_creation_input_tokens": self.usage.cache_creation_input_tokens,
                "cache_read_input_tokens": self.usage.cache_read_input_tokens,
            },
        })
    }
}

/// A reply computed from the request it answers (e.g. a tool call that quotes a seq
/// read from the previous tool result).
type ReplyFn = Arc<dyn Fn(&Request<'_>) -> Reply + Send + Sync>;

/// A fixed reply or one computed from the request.
#[derive(Clone)]
enum Answer {
    Fixed(Reply),
    Computed(ReplyFn),
}

impl Answer {
    fn reply(&self, request: Request<'_>) -> Reply {
        match self {
            Self::Fixed(reply) => reply.clone(),
            Self::Computed(f) => f(&request),
        }
    }
}

impl fmt::Debug for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Fixed(reply) => reply.fmt(f),
            Self::Computed(_) => f.write_str("Computed(..)"),
        }
    }
}

#[derive(Clone, Debug)]
struct Rule {
    when: Match,
    answer: Answer,
    times: Option<u32>,
}

/// The scripted model: rules (checked first), an ordered queue of replies, a fallback.
#[derive(Clone, Debug)]
pub struct Script {
    rules: Vec<Rule>,
    queue: Vec<(Match, Answer)>,
    next: usize,
    fallback: Reply,
}

impl Default for Script {
    fn default() -> Self {
        Self {
            rules: Vec::new(),
            queue: Vec::new(),
            next: 0,
            fallback: Reply::text("(e2e service: script exhausted)"),
        }
    }
}

impl Script {
    /// An empty script: every request gets the fallback.
    pub fn new() -> Self {
        Self::default()
    }

    /// Queues a reply for the next request (in order).
    #[must_use]
    pub fn then(mut self, reply: Reply) -> Self {
        self.queue.push((Match::any(), Answer::Fixed(reply)));
        self
    }

    /// Queues a reply consumed only by a request that fits `when`.
    #[must_use]
    pub fn then_when(mut self, when: Match, reply: Reply) -> Self {
        self.queue.push((when, Answer::Fixed(reply)));
        self
    }

    /// Queues a reply computed from the request, consumed only by a request that fits `when`.
    #[must_use]
    pub fn then_with(
        mut self,
        when: Match,
        reply: impl Fn(&Request<'_>) -> Reply + Send + Sync + 'static,
    ) -> Self {
        self.queue.push((when, Answer::Computed(Arc::new(reply))));
        self
    }

    /// A rule answering every request that fits `when`.
    #[must_use]
    pub fn rule(mut self, when: Match, reply: Reply) -> Self {
        self.rules.push(Rule {
            when,
            answer: Answer::Fixed(reply),
            times: None,
        });
        self
    }

    /// A rule answering at most `times` requests that fit `when`.
    #[must_use]
    pub fn rule_times(mut self, when: Match, reply: Reply, times: u32) -> Self {
        self.rules.push(Rule {
            when,
            answer: Answer::Fixed(reply),
            times: Some(times),
        });
        self
    }

    /// The reply when no rule fits and the queue's head does not.
    #[must_use]
    pub fn fallback(mut self, reply: Reply) -> Self {
        self.fallback = reply;
        self
    }

    /// Picks the reply for one request, consuming queue entries and rule uses;
    /// returns a label of what answered (`rule2`, `q0`, `fallback`).
    pub fn pick(&mut self, request: &Request<'_>, raw: &str) -> (String, Reply) {
        for (i, rule) in self.rules.iter_mut().enumerate() {
            if rule.times == Some(0) || !rule.when.fits(request, raw) {
                continue;
            }
            if let Some(left) = rule.times.as_mut() {
                *left -= 1;
            }
            return (format!("rule{i}"), rule.answer.reply(*request));
        }
        if let Some((when, answer)) = self.queue.get(self.next)
            && when.fits(request, raw)
        {
            let reply = answer.reply(*request);
            self.next += 1;
            return (format!("q{}", self.next - 1), reply);
        }
        ("fallback".to_owned(), self.fallback.clone())
    }

    /// How many queued replies are still unconsumed.
    pub fn queued_left(&self) -> usize {
        self.queue.len() - self.next
    }
}
