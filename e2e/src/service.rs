//! The scripted Anthropic Messages service: a small threaded HTTP/1.1 server on
//! 127.0.0.1 that streams SSE like the real API and logs every request.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::E2eError;
use crate::script::{Request, Script};

/// Longest request body accepted (the real CLI sends a few hundred KiB at most).
const MAX_BODY: usize = 64 * 1024 * 1024;

struct Shared {
    script: Mutex<Script>,
    log: Mutex<Vec<Value>>,
    log_file: Mutex<File>,
    counter: AtomicU64,
    started: Instant,
    stop: AtomicBool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A running service. It stops on [`Service::stop`], on drop, or by itself after its timeout.
pub struct Service {
    addr: SocketAddr,
    shared: Arc<Shared>,
    log_path: PathBuf,
    acceptor: Option<JoinHandle<()>>,
}

/// A non-blocking listener on an ephemeral port of 127.0.0.1, and its address: where both
/// scripted services (this one and [`crate::ResponsesService`]) listen.
pub(crate) fn local_listener() -> Result<(TcpListener, SocketAddr), E2eError> {
    let listener =
        TcpListener::bind("127.0.0.1:0").map_err(|e| E2eError::io("bind 127.0.0.1:0", e))?;
    let addr = listener
        .local_addr()
        .map_err(|e| E2eError::io("local_addr", e))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| E2eError::io("set_nonblocking", e))?;
    Ok((listener, addr))
}

impl Service {
    /// Binds an ephemeral port on 127.0.0.1 and serves `script`, appending every request
    /// to `log_path` (JSONL); stops by itself after `timeout`.
    pub fn start(script: Script, log_path: &Path, timeout: Duration) -> Result<Self, E2eError> {
        let (listener, addr) = local_listener()?;
        let log_file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(log_path)
            .map_err(|e| E2eError::io(&log_path.display().to_string(), e))?;
        let shared = Arc::new(Shared {
            script: Mutex::new(script),
            log: Mutex::new(Vec::new()),
            log_file: Mutex::new(log_file),
            counter: AtomicU64::new(0),
            started: Instant::now(),
            stop: AtomicBool::new(false),
        });
        let acceptor = {
            let shared = Arc::clone(&shared);
            thread::spawn(move || accept_loop(&listener, &shared, timeout))
        };
        Ok(Self {
            addr,
            shared,
            log_path: log_path.to_owned(),
            acceptor: Some(acceptor),
        })
    }

    /// Where it listens (127.0.0.1 and its port).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The base URL for `ANTHROPIC_BASE_URL`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Where the request log is written.
    pub fn log_path(&self) -> &Path {
        &self.log_path
    }

    /// Every request logged so far (one JSON object each, as in the log file).
    pub fn requests(&self) -> Vec<Value> {
        lock(&self.shared.log).clone()
    }

    /// How many requests arrived so far.
    pub fn request_count(&self) -> usize {
        lock(&self.shared.log).len()
    }

    /// Stops accepting connections and waits for the acceptor thread.
    pub fn stop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        if let Some(handle) = self.acceptor.take() {
            // A panicked acceptor has nothing left to clean up.
            let _ = handle.join();
        }
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        self.stop();
    }
}

fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>, timeout: Duration) {
    let deadline = Instant::now() + timeout;
    while !shared.stop.load(Ordering::SeqCst) && Instant::now() < deadline {
        match listener.accept() {
            Ok((stream, _)) => {
                let shared = Arc::clone(shared);
                thread::spawn(move || {
                    // A connection the client dropped mid-way is not the service's failure.
                    let _ = serve(stream, &shared);
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                thread::sleep(Duration::from_millis(5));
            }
            Err(_) => thread::sleep(Duration::from_millis(20)),
        }
    }
}

struct HttpRequest {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl HttpRequest {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

fn read_request(reader: &mut BufReader<TcpStream>) -> std::io::Result<Option<HttpRequest>> {
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_owned();
    let path = parts.next().unwrap_or("/").to_owned();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 {
            break;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_owned(), v.trim().to_owned()));
        }
    }
    let mut req = HttpRequest {
        method,
        path,
        headers,
        body: Vec::new(),
    };
    if req
        .header("expect")
        .is_some_and(|v| v.eq_ignore_ascii_case("100-continue"))
    {
        reader
            .get_mut()
            .write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
    }
    if let Some(len) = req
        .header("content-length")
        .and_then(|v| v.parse::<usize>().ok())
    {
        let mut body = vec![0; len.min(MAX_BODY)];
        reader.read_exact(&mut body)?;
        req.body = body;
    } else if req
        .header("transfer-encoding")
        .is_some_and(|v| v.eq_ignore_ascii_case("chunked"))
    {
        loop {
            let mut size_line = String::new();
            reader.read_line(&mut size_line)?;
            let size = usize::from_str_radix(size_line.trim().split(';').next().unwrap_or("0"), 16)
                .unwrap_or(0);
            if size == 0 {
                let mut end = String::new();
                reader.read_line(&mut end)?;
                break;
            }
            if req.body.len() + size > MAX_BODY {
                return Err(std::io::Error::other("body too large"));
            }
            let mut chunk = vec![0; size];
            reader.read_exact(&mut chunk)?;
            req.body.extend_from_slice(&chunk);
            let mut crlf = String::new();
            reader.read_line(&mut crlf)?;
        }
    }
    Ok(Some(req))
}

fn serve(stream: TcpStream, shared: &Shared) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut out = stream;
    let Some(req) = read_request(&mut reader)? else {
        return Ok(());
    };
    let route = req.path.split('?').next().unwrap_or("").to_owned();
    let n = shared.counter.fetch_add(1, Ordering::SeqCst) + 1;
    let raw = String::from_utf8_lossy(&req.body).into_owned();
    let body: Value = if raw.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&raw)
            .unwrap_or_else(|_| json!({"_raw": raw.chars().take(20_000).collect::<String>()}))
    };
    if req.method == "POST" && route.ends_with("/v1/messages") {
        return messages(&mut out, shared, &req, n, &raw, body);
    }
    if route.ends_with("/v1/messages/count_tokens") {
        let estimate = (raw.len() / 4).max(1);
        record(shared, &req, n, body, "count_tokens", 200, None);
        return send_json(&mut out, 200, &json!({"input_tokens": estimate}));
    }
    if route.contains("/v1/models") {
        record(shared, &req, n, body, "models", 200, None);
        let model = json!({"type": "model", "id": "claude-opus-5-5", "display_name": "e2e model",
                           "created_at": "2025-01-01T00:00:00Z"});
        return send_json(
            &mut out,
            200,
            &json!({"data": [model], "has_more": false, "first_id": "claude-opus-5-5", "last_id": "claude-opus-5-5"}),
        );
    }
    record(shared, &req, n, body, "other", 404, None);
    send_json(
        &mut out,
        404,
        &json!({"type": "error", "error": {"type": "not_found_error", "message": format!("e2e service: no route for {route}")}}),
    )
}

fn messages(
    out: &mut TcpStream,
    shared: &Shared,
    req: &HttpRequest,
    n: u64,
    raw: &str,
    body: Value,
) -> std::io::Result<()> {
    let (who, reply) = {
        let request = Request::new(&body);
        lock(&shared.script).pick(&request, raw)
    };
    if !reply.delay.is_zero() {
        thread::sleep(reply.delay);
    }
    if let (Some((status, _)), Some(error)) = (&reply.error, reply.error_body(n)) {
        record(shared, req, n, body, &who, *status, Some(error.clone()));
        return send_json(out, *status, &error);
    }
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("claude-e2e")
        .to_owned();
    let message = reply.message(n, &model);
    let stream = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    record(shared, req, n, body, &who, 200, Some(message.clone()));
    if !stream {
        return send_json(out, 200, &message);
    }
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\nCache-Control: no-cache\r\nConnection: close\r\nrequest-id: req_e2e_{n:04}\r\n\r\n"
    );
    out.write_all(head.as_bytes())?;
    for (event, data) in sse_events(&message) {
        out.write_all(format!("event: {event}\ndata: {data}\n\n").as_bytes())?;
        out.flush()?;
    }
    Ok(())
}

/// The SSE events the real API streams for one finished `message`, in order.
pub fn sse_events(message: &Value) -> Vec<(&'static str, Value)> {
    let mut events = Vec::new();
    let usage = message.get("usage").cloned().unwrap_or_else(|| json!({}));
    let output_tokens = usage.get("output_tokens").cloned().unwrap_or(json!(1));
    let mut start = message.clone();
    start["content"] = json!([]);
    start["stop_reason"] = Value::Null;
    start["usage"]["output_tokens"] = json!(1);
    events.push((
        "message_start",
        json!({"type": "message_start", "message": start}),
    ));
    events.push(("ping", json!({"type": "ping"})));
    let blocks = message
        .get("content")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for (index, block) in blocks.iter().enumerate() {
        let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
        let delta = |d: Value| {
            (
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index, "delta": d}),
            )
        };
        match kind {
            "text" => {
                events.push(("content_block_start", json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}})));
                let text = block.get("text").and_then(Value::as_str).unwrap_or("");
                for piece in pieces(text, 40) {
                    events.push(delta(json!({"type": "text_delta", "text": piece})));
                }
            }
            "thinking" => {
                events.push(("content_block_start", json!({"type": "content_block_start", "index": index, "content_block": {"type": "thinking", "thinking": "", "signature": ""}})));
                let thinking = block.get("thinking").and_then(Value::as_str).unwrap_or("");
                for piece in pieces(thinking, 40) {
                    events.push(delta(json!({"type": "thinking_delta", "thinking": piece})));
                }
                let signature = block
                    .get("signature")
                    .cloned()
                    .unwrap_or(json!("e2e-signature"));
                events.push(delta(
                    json!({"type": "signature_delta", "signature": signature}),
                ));
            }
            "tool_use" => {
                let mut head = block.clone();
                head["input"] = json!({});
                events.push((
                    "content_block_start",
                    json!({"type": "content_block_start", "index": index, "content_block": head}),
                ));
                let input = block
                    .get("input")
                    .map_or_else(|| "{}".to_owned(), Value::to_string);
                for piece in pieces(&input, 30) {
                    events.push(delta(
                        json!({"type": "input_json_delta", "partial_json": piece}),
                    ));
                }
            }
            _ => {
                events.push((
                    "content_block_start",
                    json!({"type": "content_block_start", "index": index, "content_block": block}),
                ));
            }
        }
        events.push((
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
    }
    // Like the current API: the final usage, cumulative, input side included.
    let mut final_usage = usage.clone();
    final_usage["output_tokens"] = output_tokens;
    events.push((
        "message_delta",
        json!({"type": "message_delta",
               "delta": {"stop_reason": message.get("stop_reason"), "stop_sequence": null},
               "usage": final_usage}),
    ));
    events.push(("message_stop", json!({"type": "message_stop"})));
    events
}

/// Splits `text` into pieces of at most `size` characters (never inside a character).
fn pieces(text: &str, size: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

fn send_json(out: &mut TcpStream, status: u16, value: &Value) -> std::io::Result<()> {
    let data = value.to_string();
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        429 => "Too Many Requests",
        529 => "Overloaded",
        _ => "Error",
    };
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        data.len()
    );
    out.write_all(head.as_bytes())?;
    out.write_all(data.as_bytes())?;
    out.flush()
}

fn record(
    shared: &Shared,
    req: &HttpRequest,
    n: u64,
    body: Value,
    answered_by: &str,
    status: u16,
    reply: Option<Value>,
) {
    const KEPT: [&str; 7] = [
        "user-agent",
        "anthropic-version",
        "anthropic-beta",
        "x-app",
        "content-type",
        "x-claude-code-session-id",
        "x-stainless-helper-method",
    ];
    let mut headers = serde_json::Map::new();
    for (k, v) in &req.headers {
        if KEPT.iter().any(|kept| k.eq_ignore_ascii_case(kept)) {
            headers.insert(k.to_ascii_lowercase(), json!(v));
        }
    }
    headers.insert(
        "has_x_api_key".to_owned(),
        json!(req.header("x-api-key").is_some()),
    );
    let ms = u64::try_from(shared.started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let mut entry = json!({
        "n": n, "ms": ms, "method": req.method, "path": req.path, "headers": headers,
        "answered_by": answered_by, "status": status,
    });
    entry["body"] = body;
    entry["reply"] = reply.unwrap_or(Value::Null);
    let line = format!("{entry}\n");
    let mut log = lock(&shared.log);
    // The in-memory log is the source of truth for tests; the file is for people.
    let _ = lock(&shared.log_file).write_all(line.as_bytes());
    log.push(entry);
}
