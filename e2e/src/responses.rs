//! A scripted `OpenAI` **Responses** API on 127.0.0.1, for driving the real Codex CLI offline:
//! `POST /v1/responses` streams the SSE events Codex 0.171.0 parses (`response.created`,
//! `response.output_item.added` / `.done`, `response.output_text.delta` / `.done`,
//! `response.function_call_arguments.delta` / `.done`, `response.completed` with `usage`);
//! every other path gets a 404 JSON error. Every request is logged with its body. What each
//! `/v1/responses` request gets is decided by a [`Responder`] looking at the request body.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::E2eError;
use crate::service::local_listener;

/// Longest request body read (Codex sends the whole conversation each turn).
const MAX_BODY: usize = 64 * 1024 * 1024;

/// One model turn.
#[derive(Clone, Debug, PartialEq)]
pub enum Turn {
    /// An assistant message with this text (the turn ends).
    Text(String),
    /// A `tool_search` call (Codex offers MCP tools only through its tool search): the
    /// client answers with the matching tools in the next request's `tool_search_output`.
    ToolSearch(String),
    /// A function call: the tool's name as the request listed it, and its arguments.
    Call {
        /// The namespace Codex put the tool in (`mcp__<server>` for an MCP server's tools,
        /// as its `tool_search_output` names it), if any.
        namespace: Option<String>,
        /// The tool's name.
        name: String,
        /// The arguments object.
        arguments: Value,
    },
}

/// Decides the turn for one request body.
pub type Responder = Box<dyn FnMut(&Value) -> Turn + Send>;

struct Shared {
    responder: Mutex<Responder>,
    log: Mutex<Vec<Value>>,
    counter: AtomicU64,
    stop: AtomicBool,
}

/// A running Responses service; stops on drop or after its timeout.
pub struct ResponsesService {
    addr: SocketAddr,
    shared: Arc<Shared>,
    acceptor: Option<JoinHandle<()>>,
}

impl ResponsesService {
    /// Binds an ephemeral port on 127.0.0.1 and answers with `responder` until `timeout`.
    pub fn start(responder: Responder, timeout: Duration) -> Result<Self, E2eError> {
        let (listener, addr) = local_listener()?;
        let shared = Arc::new(Shared {
            responder: Mutex::new(responder),
            log: Mutex::new(Vec::new()),
            counter: AtomicU64::new(0),
            stop: AtomicBool::new(false),
        });
        let acceptor = {
            let shared = Arc::clone(&shared);
            thread::spawn(move || {
                let deadline = Instant::now() + timeout;
                while !shared.stop.load(Ordering::SeqCst) && Instant::now() < deadline {
                    match listener.accept() {
                        Ok((stream, _)) => {
                            let shared = Arc::clone(&shared);
                            thread::spawn(move || {
                                // A connection the client dropped is not the service's failure.
                                let _ = serve(stream, &shared);
                            });
                        }
                        Err(_) => thread::sleep(Duration::from_millis(5)),
                    }
                }
            })
        };
        Ok(Self {
            addr,
            shared,
            acceptor: Some(acceptor),
        })
    }

    /// Where it listens (127.0.0.1 and its port).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The base URL of the API (`http://127.0.0.1:<port>/v1`), for a provider's `base_url`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Every request so far: `{"path", "body", "turn"}`.
    pub fn requests(&self) -> Vec<Value> {
        self.shared
            .log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl Drop for ResponsesService {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        if let Some(handle) = self.acceptor.take() {
            let _ = handle.join();
        }
    }
}

fn serve(stream: TcpStream, shared: &Shared) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut out = stream;
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(());
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_owned();
    let path = parts.next().unwrap_or("/").to_owned();
    let mut length = 0usize;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':')
            && k.trim().eq_ignore_ascii_case("content-length")
        {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length.min(MAX_BODY)];
    reader.read_exact(&mut body)?;
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let n = shared.counter.fetch_add(1, Ordering::SeqCst) + 1;
    let route = path.split('?').next().unwrap_or("");
    if method != "POST" || !route.ends_with("/responses") {
        log(shared, json!({"path": path, "body": body, "status": 404}));
        let text =
            json!({"error": {"message": format!("e2e: no route for {path}"), "type": "not_found"}})
                .to_string();
        let head = format!(
            "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            text.len()
        );
        out.write_all(head.as_bytes())?;
        return out.write_all(text.as_bytes());
    }
    let turn = (shared
        .responder
        .lock()
        .unwrap_or_else(PoisonError::into_inner))(&body);
    log(
        shared,
        json!({"path": path, "body": body, "turn": format!("{turn:?}")}),
    );
    out.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n",
    )?;
    for event in events(&turn, n) {
        let kind = event["type"].as_str().unwrap_or("").to_owned();
        out.write_all(format!("event: {kind}\ndata: {event}\n\n").as_bytes())?;
    }
    out.flush()
}

fn log(shared: &Shared, entry: Value) {
    shared
        .log
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(entry);
}

/// The SSE events (the `data` objects, each with its `type`) for one turn of response `n`.
pub(crate) fn events(turn: &Turn, n: u64) -> Vec<Value> {
    let id = format!("resp_e2e_{n:04}");
    let item_id = format!("item_e2e_{n:04}");
    let response = |status: &str| json!({"id": id, "object": "response", "status": status, "model": "gpt-5.5", "output": []});
    let mut out = vec![
        json!({"type": "response.created", "sequence_number": 0, "response": response("in_progress")}),
        json!({"type": "response.in_progress", "sequence_number": 1, "response": response("in_progress")}),
    ];
    let done_item = match turn {
        Turn::Text(text) => {
            out.push(json!({"type": "response.output_item.added", "output_index": 0,
                "item": {"type": "message", "id": item_id, "role": "assistant", "status": "in_progress", "content": []}}));
            out.push(json!({"type": "response.content_part.added", "item_id": item_id, "output_index": 0, "content_index": 0,
                "part": {"type": "output_text", "text": "", "annotations": []}}));
            out.push(json!({"type": "response.output_text.delta", "item_id": item_id, "output_index": 0, "content_index": 0, "delta": text}));
            out.push(json!({"type": "response.output_text.done", "item_id": item_id, "output_index": 0, "content_index": 0, "text": text}));
            out.push(json!({"type": "response.content_part.done", "item_id": item_id, "output_index": 0, "content_index": 0,
                "part": {"type": "output_text", "text": text, "annotations": []}}));
            json!({"type": "message", "id": item_id, "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}]})
        }
        Turn::ToolSearch(query) => {
            let call_id = format!("search_e2e_{n:04}");
            let item = json!({"type": "tool_search_call", "id": item_id, "call_id": call_id, "execution": "client",
                "status": "completed", "arguments": {"query": query, "limit": 20}});
            out.push(
                json!({"type": "response.output_item.added", "output_index": 0, "item": item}),
            );
            item
        }
        Turn::Call {
            namespace,
            name,
            arguments,
        } => {
            let call_id = format!("call_e2e_{n:04}");
            let args = arguments.to_string();
            let mut item = json!({"type": "function_call", "id": item_id, "call_id": call_id, "name": name, "arguments": "", "status": "in_progress"});
            if let Some(namespace) = namespace {
                item["namespace"] = json!(namespace);
            }
            out.push(json!({"type": "response.output_item.added", "output_index": 0, "item": item.clone()}));
            out.push(json!({"type": "response.function_call_arguments.delta", "item_id": item_id, "output_index": 0, "delta": args}));
            out.push(json!({"type": "response.function_call_arguments.done", "item_id": item_id, "output_index": 0, "arguments": args}));
            item["arguments"] = json!(args);
            item["status"] = json!("completed");
            item
        }
    };
    out.push(json!({"type": "response.output_item.done", "output_index": 0, "item": done_item}));
    let mut completed = response("completed");
    completed["output"] = json!([done_item]);
    completed["usage"] = json!({"input_tokens": 1000, "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 1020});
    out.push(json!({"type": "response.completed", "response": completed}));
    for (i, event) in out.iter_mut().enumerate() {
        event["sequence_number"] = json!(i);
    }
    out
}

/// The names of the tools a Responses request offers (`tools[].name`).
pub fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// The tools a request's `tool_search_output` items made available, as
/// `(namespace, name)` (namespace `None` for a top-level tool).
pub fn searched_tools(body: &Value) -> Vec<(Option<String>, String)> {
    let mut found = Vec::new();
    let outputs = body["input"].as_array().into_iter().flatten();
    for output in outputs.filter(|i| i["type"] == "tool_search_output") {
        for tool in output["tools"].as_array().into_iter().flatten() {
            let name = tool["name"].as_str().unwrap_or_default().to_owned();
            match tool["tools"].as_array() {
                Some(inner) => found.extend(
                    inner
                        .iter()
                        .filter_map(|t| Some((Some(name.clone()), t["name"].as_str()?.to_owned()))),
                ),
                None => found.push((None, name)),
            }
        }
    }
    found
}

/// The outputs of the function calls a request carries back (`function_call_output`).
pub fn call_outputs(body: &Value) -> Vec<String> {
    body["input"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter(|i| i["type"] == "function_call_output")
                .map(|i| match &i["output"] {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests;
