//! The stdio framing: one JSON-RPC message per line, read with a bound, written whole.
//!
//! rmcp's own stdio transport drops a line that is not JSON without a word (to avoid error
//! storms between two peers echoing garbage). JSON-RPC 2.0 asks for a `-32700` Parse error
//! with `"id": null`, and a client that sent a broken frame is better told than left
//! waiting, so this transport answers every line it cannot take, and keeps serving:
//!
//! - not JSON (or not UTF-8): `-32700` Parse error, `"id": null`;
//! - JSON that is not a message this server reads (a batch, a request with a wrong shape):
//!   `-32600` Invalid Request, with the request's `id` when one can be read;
//! - a `tools/call` without a tool `name`, or with `arguments` that are not an object:
//!   `-32602` Invalid params, saying which;
//! - another method this server serves (`initialize`, `resources/read`, `prompts/get`, the
//!   lists) with params that are not that method's: `-32602`, saying which field
//!   ([`params`]; rmcp answered `-32601` Method not found for a method it serves);
//! - longer than [`MAX_LINE`] bytes: `-32600`, `"id": null`, and the line is skipped without
//!   ever being held whole (bounded memory);
//! - a notification or a response it cannot read: nothing (JSON-RPC never answers those);
//! - a method the server does not serve: `-32601` with JSON-RPC's words, `Method not
//!   found: <method>`.
//!
//! An answer never answers an answer: the replies are well-formed JSON-RPC responses, which
//! this transport itself never replies to, so two peers cannot feed each other errors.
//! End of input (stdin closed, even in the middle of a line) ends the session.
//!
//! Bounded whatever the peer does:
//! - before the session begins (`initialize`, or a request whose `_meta` describes it, as
//!   MCP 2026-07-28 allows), a notification or a response is dropped (rmcp's handshake
//!   would end the session on one), and any other request but a ping is answered `-32602`
//!   saying to send `initialize` first ([`early`]);
//! - nothing is kept per frame once it is answered (an error answer's task is reaped);
//! - at most [`MAX_PENDING`] answers wait to be written; while that many do (a peer that
//!   stopped reading), no further line is read (back-pressure): memory stays bounded.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use rmcp::RoleServer;
use rmcp::model::{
    ClientRequest, ErrorCode, GetMeta as _, JsonRpcMessage, ProtocolVersion, RequestId,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{Mutex, Notify};
use tokio::task::JoinSet;

/// The longest message line read, in bytes. The largest legitimate message is a
/// `notes_write` of a whole note of [`notesoup_notes::MAX_NOTE_BYTES`], whose text JSON
/// escapes to at most six bytes a byte; a line past this bound is refused unread.
pub const MAX_LINE: usize = 1024 * 1024;
const _: () = assert!(6 * notesoup_notes::MAX_NOTE_BYTES + 64 * 1024 <= MAX_LINE as u64);

/// The most answers waiting to be written before the transport stops reading: a peer that
/// sends and never reads holds at most this many answers in the server's memory.
pub const MAX_PENDING: usize = 64;

/// JSON-RPC 2.0's code for a line that is not JSON.
pub(crate) const PARSE_ERROR: i64 = -32700;
/// JSON-RPC 2.0's code for JSON that is not a request this server reads.
pub(crate) const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC 2.0's code for a request whose params do not fit its method.
pub(crate) const INVALID_PARAMS: i64 = -32602;

/// What to do with a message read before the session has begun (no `initialize` yet, nor
/// a request that describes itself as MCP 2026-07-28 asks).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Early {
    /// Hand it to rmcp; `begins` when it starts the session (an `initialize`, or a request
    /// whose `_meta` carries the protocol version and the client's capabilities).
    Pass {
        /// It starts the session.
        begins: bool,
    },
    /// A notification or a response: nothing to act on yet (rmcp's handshake would end the
    /// session on one).
    Drop,
    /// A request no session can answer yet: this error answer instead (rmcp's own names
    /// only the `_meta` keys, which says nothing to a client that skipped `initialize`).
    Refuse(Value),
}

/// [`Early`] for `message`, read before the session began. The MCP lifecycle: the first
/// request is `initialize` (revisions up to 2025-11-25; a ping may come before it), or,
/// from 2026-07-28 (`ProtocolVersion::NO_INITIALIZE`), any request whose `_meta` names its
/// protocol version and the client's capabilities; one with neither is malformed params
/// (-32602), as rmcp and the 2026-07-28 schema answer it.
pub(crate) fn early(message: &RxJsonRpcMessage<RoleServer>) -> Early {
    let JsonRpcMessage::Request(request) = message else {
        return Early::Drop;
    };
    match &request.request {
        ClientRequest::InitializeRequest(_) => return Early::Pass { begins: true },
        ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_) => {
            return Early::Pass { begins: false };
        }
        _ => {}
    }
    let missing = request
        .request
        .get_meta()
        .missing_required_keys(&ProtocolVersion::NO_INITIALIZE);
    if missing.is_empty() {
        return Early::Pass { begins: true };
    }
    let id = serde_json::to_value(&request.id).unwrap_or(Value::Null);
    Early::Refuse(error(
        &id,
        INVALID_PARAMS,
        &format!(
            "Invalid params: `{}` came before `initialize`: send `initialize` first (or, as MCP {} and later allow, give this request's _meta {})",
            request.request.method(),
            ProtocolVersion::NO_INITIALIZE,
            missing.join(" and ")
        ),
    ))
}

/// `message` in JSON-RPC's words: a `-32601` (rmcp's message is the bare method name) says
/// `Method not found: <method>`.
fn worded(mut message: TxJsonRpcMessage<RoleServer>) -> TxJsonRpcMessage<RoleServer> {
    const NOT_FOUND: &str = "Method not found";
    if let JsonRpcMessage::Error(reply) = &mut message
        && reply.error.code == ErrorCode::METHOD_NOT_FOUND
        && !reply.error.message.starts_with(NOT_FOUND)
    {
        reply.error.message = format!("{NOT_FOUND}: {}", reply.error.message).into();
    }
    message
}

/// What one whole line turned out to be.
#[derive(Debug)]
pub(crate) enum Frame {
    /// A message for rmcp.
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Nothing to do (a blank line, an unreadable notification or response).
    Skip,
    /// An error answer to write back, as one JSON line.
    Reply(Value),
}

/// Reads one line's bytes (without its `\n`) as a frame.
pub(crate) fn frame(line: &[u8]) -> Frame {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Frame::Skip;
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(err) => {
            return Frame::Reply(error(
                &Value::Null,
                PARSE_ERROR,
                &format!("Parse error: not JSON ({err})"),
            ));
        }
    };
    let is_request = value.get("method").is_some() && value.get("id").is_some();
    let id = value
        .get("id")
        .filter(|id| serde_json::from_value::<RequestId>((*id).clone()).is_ok())
        .cloned()
        .unwrap_or(Value::Null);
    if let Some(why) = bad_tool_call(&value).filter(|_| is_request) {
        return Frame::Reply(error(&id, INVALID_PARAMS, why));
    }
    match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value.clone()) {
        Ok(JsonRpcMessage::Request(request))
            if matches!(request.request, ClientRequest::CustomRequest(_)) =>
        {
            let method = request.request.method();
            match params::misfit(method, value.get("params")) {
                Some(why) => Frame::Reply(error(&id, INVALID_PARAMS, &why)),
                None => Frame::Message(Box::new(JsonRpcMessage::Request(request))),
            }
        }
        Ok(message) => Frame::Message(Box::new(message)),
        // A notification or a response: JSON-RPC answers neither.
        Err(_) if value.is_object() && !is_request => {
            if value.get("method").is_some()
                || value.get("result").is_some()
                || value.get("error").is_some()
            {
                Frame::Skip
            } else {
                Frame::Reply(error(
                    &id,
                    INVALID_REQUEST,
                    "Invalid Request: not a JSON-RPC 2.0 message",
                ))
            }
        }
        Err(err) => Frame::Reply(error(
            &id,
            INVALID_REQUEST,
            &format!("Invalid Request: {}", one_line(&err.to_string())),
        )),
    }
}

/// Why a `tools/call` request's params are not a call (rmcp reads such a request as an
/// unknown method and answers `-32601` naming the method, which says nothing of the fault).
fn bad_tool_call(value: &Value) -> Option<&'static str> {
    if value.get("method").and_then(Value::as_str) != Some("tools/call") {
        return None;
    }
    let params = value.get("params");
    if !params
        .and_then(|p| p.get("name"))
        .is_some_and(Value::is_string)
    {
        return Some("Invalid params: tools/call needs `name`, the tool's name (a string)");
    }
    match params.and_then(|p| p.get("arguments")) {
        None | Some(Value::Null | Value::Object(_)) => None,
        Some(_) => Some("Invalid params: tools/call `arguments` must be an object"),
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The outcome of one bounded line read.
enum LineRead {
    Line,
    Oversized,
    End,
}

/// rmcp's transport over a reader and a writer (stdin and stdout in the server).
pub(crate) struct LineTransport<R, W> {
    read: BufReader<R>,
    /// The line read so far: kept here, so a `receive` cancelled mid-line resumes it.
    line: Vec<u8>,
    /// Skipping the rest of an oversized line.
    discarding: bool,
    max: usize,
    write: Arc<Mutex<W>>,
    /// Error answers being written (spawned, so a cancelled `receive` cannot cut one);
    /// finished ones are reaped at each `receive`.
    replies: JoinSet<()>,
    /// Answers not yet written (rmcp's and the error answers), and a wake-up when one is.
    pending: Arc<Pending>,
    /// The session has begun ([`Early::Pass`]): every message goes to rmcp.
    started: bool,
    /// A write failed (the client closed its end of stdout): no answer can reach it, so
    /// the next `receive` ends the session rather than work on requests for no one.
    gone: Arc<AtomicBool>,
}

/// How many answers wait to be written.
#[derive(Default)]
struct Pending {
    count: AtomicUsize,
    written: Notify,
}

/// One answer counted as pending until dropped (written, failed or cancelled).
struct PendingAnswer(Arc<Pending>);

impl PendingAnswer {
    fn new(pending: &Arc<Pending>) -> Self {
        pending.count.fetch_add(1, Ordering::SeqCst);
        Self(Arc::clone(pending))
    }
}

impl Drop for PendingAnswer {
    fn drop(&mut self) {
        self.0.count.fetch_sub(1, Ordering::SeqCst);
        self.0.written.notify_waiters();
    }
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    pub(crate) fn new(read: R, write: W) -> Self {
        Self::with_max(read, write, MAX_LINE)
    }

    pub(crate) fn with_max(read: R, write: W, max: usize) -> Self {
        Self {
            read: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
            max,
            write: Arc::new(Mutex::new(write)),
            replies: JoinSet::new(),
            pending: Arc::default(),
            started: false,
            gone: Arc::default(),
        }
    }

    /// Waits while [`MAX_PENDING`] answers wait to be written; reaps finished error answers.
    /// Cancel-safe: it consumes nothing.
    async fn room(&mut self) {
        while self.replies.try_join_next().is_some() {}
        loop {
            let written = self.pending.written.notified();
            if self.pending.count.load(Ordering::SeqCst) < MAX_PENDING {
                return;
            }
            written.await;
            while self.replies.try_join_next().is_some() {}
        }
    }

    /// One `\n`-terminated line into `self.line`, never holding more than `max` bytes of it.
    /// Cancel-safe: nothing is consumed from the reader that is not already in `self.line`.
    async fn read_line(&mut self) -> LineRead {
        loop {
            let (used, done) = {
                let Ok(available) = self.read.fill_buf().await else {
                    return LineRead::End;
                };
                if available.is_empty() {
                    return LineRead::End;
                }
                let newline = available.iter().position(|b| *b == b'\n');
                let take = newline.map_or(available.len(), |i| i + 1);
                if self.discarding {
                    (take, newline.map(|_| LineRead::Oversized))
                } else if self.line.len() + take > self.max + 1 {
                    self.line.clear();
                    self.discarding = true;
                    (take, newline.map(|_| LineRead::Oversized))
                } else {
                    self.line.extend_from_slice(&available[..take]);
                    (take, newline.map(|_| LineRead::Line))
                }
            };
            self.read.consume(used);
            if let Some(done) = done {
                self.discarding = false;
                return done;
            }
        }
    }

    fn reply(&mut self, value: &Value) {
        let mut bytes = value.to_string().into_bytes();
        bytes.push(b'\n');
        let write = Arc::clone(&self.write);
        let pending = PendingAnswer::new(&self.pending);
        let gone = Arc::clone(&self.gone);
        self.replies.spawn(async move {
            let _pending = pending;
            let mut w = write.lock().await;
            // A peer that stopped reading gets its answer when it reads again, or never;
            // one whose end is closed gets none, and the session ends.
            if w.write_all(&bytes).await.is_err() || w.flush().await.is_err() {
                gone.store(true, Ordering::SeqCst);
            }
        });
    }
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = Arc::clone(&self.write);
        let pending = PendingAnswer::new(&self.pending);
        let gone = Arc::clone(&self.gone);
        async move {
            let _pending = pending;
            let mut bytes = serde_json::to_vec(&worded(item))?;
            bytes.push(b'\n');
            let mut w = write.lock().await;
            let written = match w.write_all(&bytes).await {
                Ok(()) => w.flush().await,
                Err(err) => Err(err),
            };
            if written.is_err() {
                gone.store(true, Ordering::SeqCst);
            }
            written
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            self.room().await;
            if self.gone.load(Ordering::SeqCst) {
                return None;
            }
            match self.read_line().await {
                LineRead::End => return None,
                LineRead::Oversized => {
                    let max = self.max;
                    self.reply(&error(
                        &Value::Null,
                        INVALID_REQUEST,
                        &format!("Invalid Request: the message is longer than {max} bytes"),
                    ));
                }
                LineRead::Line => {
                    let line = std::mem::take(&mut self.line);
                    let body = line.strip_suffix(b"\n").unwrap_or(&line);
                    match frame(body) {
                        Frame::Message(message) if !self.started => match early(&message) {
                            Early::Pass { begins } => {
                                self.started = begins;
                                return Some(*message);
                            }
                            Early::Drop => {}
                            Early::Refuse(value) => self.reply(&value),
                        },
                        Frame::Message(message) => return Some(*message),
                        Frame::Skip => {}
                        Frame::Reply(value) => self.reply(&value),
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // Every error answer already due is written before the session ends.
        while self.replies.join_next().await.is_some() {}
        let mut w = self.write.lock().await;
        w.flush().await
    }
}

mod params;

#[cfg(test)]
mod tests;
