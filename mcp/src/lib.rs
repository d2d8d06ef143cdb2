//! notesoup's brain and history tools as a stdio MCP server: `notesoup mcp`.
//!
//! Any agent that takes tools from the Model Context Protocol (Codex CLI, Claude Desktop,
//! Cursor, Gemini CLI, ...) can start `notesoup mcp` and use the same brain the Claude Code
//! plugin uses: the notes of the project (its git root, else its folder) under the same
//! notesoup home. One brain, every agent.
//!
//! - **Tools:** `notes_list`, `notes_read`, `notes_write`, `notes_edit`, `notes_delete`,
//!   `history_sessions`, `history_list`, `history_read`, with the plugin's own schemas,
//!   texts, limits and errors: the server lists the one tool definition
//!   (`notesoup_app::tools::specs`, less `empty_brain`, which needs a host's reset
//!   flow), with its title and annotations (`readOnlyHint` on the five read tools, so a
//!   client may run them unasked; `destructiveHint` on the three that replace or remove
//!   text), and answers every call through `tools::call`, the function that answers the
//!   plugin's calls, so no rule has a second implementation here. A refusal is a tool
//!   result with `isError: true` and the text the plugin's model would read; a tool the
//!   server does not serve is a JSON-RPC error (`-32602`) naming the ones it does.
//! - **No current session:** an MCP host gives the server no transcript of its own, so
//!   `history_list` / `history_read` need an explicit `session` (`<harness>:<id>`, a unique
//!   prefix is enough); without one they refuse and say how to name one (`history_sessions`
//!   lists them). There is no reset flow either (that needs a host's hooks).
//! - **Brain:** chosen by the notes crate's domain rule from the folder [`Options::cwd`]:
//!   `notesoup mcp --project DIR`, which nothing overrides; else, when the client declares
//!   `roots`, its first `file://` root that is a folder (asked on the first call, asked
//!   again after `notifications/roots/list_changed`); else the folder the client started
//!   the server in.
//! - **Boot:** the resource `notesoup://boot` is the boot text of the brain (how to keep
//!   notes, then the notes within the boot budget), for a client to load at the start of a
//!   session: the boot crate's MCP host text (the server's tool names, no budget warning
//!   or reset tool, which an MCP host does not have). The same text is the prompt `boot`,
//!   for clients that offer a server's prompts rather than its resources.
//! - **Notes:** each note is the resource `notesoup://note/{+name}` (its whole text,
//!   `text/markdown`), listed after the boot and named by that resource template; a
//!   missing note is a JSON-RPC error (`-32002`) saying so.
//! - **Order:** calls take effect in the order they arrive, even pipelined (sent without
//!   waiting for the answers): a tool that changes the brain runs alone, the read tools
//!   side by side. A call the client cancels (`notifications/cancelled`) while it waits
//!   its turn never runs, and gets no answer; one already running finishes (its answer
//!   is dropped).
//! - **Transport:** one JSON-RPC message per line; a line that is not JSON gets a `-32700`
//!   Parse error, JSON that is not a request this server reads gets `-32600`, a method it
//!   does not serve `-32601` (`Method not found: <method>`), a method it serves with
//!   params that are not that method's `-32602` naming the field (a list's `cursor` too:
//!   every list is one page), and a request before
//!   `initialize` (without the `_meta` MCP 2026-07-28 puts in its place) `-32602` saying to
//!   send `initialize` first. It ends
//!   cleanly (exit 0) when stdin closes, even mid-message, after answering the calls
//!   already running; and at the next request once an answer could not be written (the
//!   client closed its end of stdout). Notes writes are atomic under the brain's lock, so no exit leaves a
//!   half-written note.
//!
//! # Invariants
//!
//! - No tool rule lives here: every call goes through `notesoup_app::tools::call`, so
//!   schemas, texts, limits and refusals are the plugin's.
//! - A bad frame never stops the server: it is answered or dropped, and the server keeps
//!   serving.
//! - Stdout carries nothing but JSON-RPC lines.
//! - Memory stays bounded under any peer: a line over [`MAX_LINE`] bytes is refused without
//!   being held, nothing is kept per frame once it is answered, and no line is read while
//!   [`MAX_PENDING`] answers wait to be written. The one thing kept between calls is the
//!   sessions' decoded histories, so a second question on a session is a search, not a
//!   decode: within the index cache's budget (`notesoup_history_store::Kept`), each dropped
//!   when its file changes, and freed with the server.
//!
//! # Why `notesoup mcp` and not `notesoup-helper mcp`
//!
//! `notesoup` is the command people put on their PATH and name in an MCP client's config;
//! a server lives as long as the client session, so a runtime's start-up cost is paid once.
//! `notesoup-helper` is the Claude plugin's private protocol, one JSON request in and one
//! reply out per hook event, started many times a turn: it must stay small and fast to start,
//! so it carries no async runtime. rmcp needs tokio; this crate keeps it here, out of the
//! helper, and the `cli` crate's `notesoup mcp` calls [`serve`].
//!
//! # Example
//!
//! [`serve_bytes`] runs a whole recorded session (here: the handshake and `tools/list`) and
//! returns what the server wrote, one message a line; [`serve`] does the same on stdio.
//!
//! ```
//! use notesoup_app::Context;
//! use notesoup_mcp::{Options, serve_bytes};
//!
//! let home = std::env::temp_dir().join(format!("notesoup-mcp-doc-{}", std::process::id()));
//! let options = Options {
//!     ctx: Context::from_vars([("NOTESOUP_HOME", home.to_str().unwrap())]),
//!     cwd: home.clone(),
//!     follow_roots: true,
//!     on_root: None,
//! };
//! let input = concat!(
//!     r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"doc","version":"1"}}}"#, "\n",
//!     r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, "\n",
//!     "this line is not JSON\n",
//!     r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#, "\n",
//! );
//! let out = String::from_utf8(serve_bytes(options, input.as_bytes()).unwrap()).unwrap();
//! let replies: Vec<serde_json::Value> =
//!     out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
//! assert!(replies.iter().any(|r| r["error"]["code"] == -32700 && r["id"].is_null()));
//! let tools = replies.iter().find(|r| r["id"] == 2).unwrap();
//! assert_eq!(tools["result"]["tools"][0]["name"], "notes_list");
//! # let _ = std::fs::remove_dir_all(&home);
//! ```

use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::Poll;

use notesoup_app::Context;
use rmcp::ServiceExt as _;
use rmcp::service::ServerInitializeError;

mod boot;
mod notes;
mod server;
mod transport;
mod uri;

pub use server::{BOOT_PROMPT, BOOT_URI};
pub use transport::{MAX_LINE, MAX_PENDING};

/// What the server is started with.
#[derive(Debug, Clone)]
pub struct Options {
    /// The environment the tools read (`NOTESOUP_HOME`, `XDG_DATA_HOME`, `HOME`, the
    /// harnesses' session folders).
    pub ctx: Context,
    /// The folder whose brain the tools use, unless the client declares roots and
    /// `follow_roots` lets them pick it.
    pub cwd: PathBuf,
    /// Whether a client's first local root picks the brain's folder instead of `cwd`:
    /// false when the person named the folder (`notesoup mcp --project DIR`), which no
    /// client's roots override.
    pub follow_roots: bool,
    /// Told each time a client's root picks a folder other than `cwd` (asked when a call
    /// first needs the brain, and again after the client says its roots changed): the
    /// start line named `cwd`'s brain, so the server's log says which one it serves now.
    pub on_root: Option<RootPicked>,
}

/// What [`Options::on_root`] calls with the folder a client's root picked.
#[derive(Clone)]
pub struct RootPicked(pub std::sync::Arc<dyn Fn(&std::path::Path) + Send + Sync>);

impl std::fmt::Debug for RootPicked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RootPicked(..)")
    }
}

/// Why the server stopped with an error. A client closing stdin is not one.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// The async runtime could not be built.
    #[error("notesoup mcp: cannot start the runtime: {0}")]
    Runtime(std::io::Error),
    /// The MCP handshake failed (the client's first messages were not a session).
    #[error("notesoup mcp: the MCP handshake failed: {0}")]
    Handshake(String),
    /// The session ended abnormally.
    #[error("notesoup mcp: the session failed: {0}")]
    Session(String),
}

/// Serves MCP on this process's stdin and stdout until stdin closes. Blocking: it builds its
/// own single-threaded runtime, so the caller needs none.
pub fn serve(options: Options) -> Result<(), McpError> {
    run(options, tokio::io::stdin(), tokio::io::stdout())
}

/// Serves one whole input (a recorded session, one message a line) and returns every line
/// the server wrote, as [`serve`] would have on stdout.
pub fn serve_bytes(options: Options, input: &[u8]) -> Result<Vec<u8>, McpError> {
    let out = Collected::default();
    run(options, std::io::Cursor::new(input.to_vec()), out.clone())?;
    Ok(std::mem::take(
        &mut *out.0.lock().unwrap_or_else(PoisonError::into_inner),
    ))
}

fn run<R, W>(options: Options, input: R, output: W) -> Result<(), McpError>
where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
    W: tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .map_err(McpError::Runtime)?;
    let result = runtime.block_on(async move {
        let server = server::Server::new(
            options.ctx,
            options.cwd,
            options.follow_roots,
            options.on_root,
        );
        let transport = transport::LineTransport::new(input, output);
        let running = match server.serve(transport).await {
            Ok(running) => running,
            // Closed before (or during) the handshake: nothing to serve, not a failure.
            Err(ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
            Err(err) => return Err(McpError::Handshake(err.to_string())),
        };
        running
            .waiting()
            .await
            .map(drop)
            .map_err(|err| McpError::Session(err.to_string()))
    });
    // A blocking read of stdin cannot be cancelled; do not wait for it.
    runtime.shutdown_background();
    result
}

/// A writer collecting what the server writes.
#[derive(Clone, Default)]
struct Collected(Arc<Mutex<Vec<u8>>>);

impl tokio::io::AsyncWrite for Collected {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend_from_slice(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(
        self: Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(
        self: Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}
