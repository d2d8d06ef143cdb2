//! The MCP handler: `tools/list` and `tools/call` from the one tool definition, the
//! `notesoup://boot` resource and the same text as the `boot` prompt, and the brain's folder
//! (the server's, or the client's first declared root).
//!
//! Why a prompt too: clients differ in what they put before the model. Some list a server's
//! resources for the person to attach, others offer its prompts as commands (Claude Desktop
//! and Cursor show them in their prompt menus). Serving the one boot text both ways costs a
//! few lines and no second text.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use notesoup_app::Context;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, Implementation, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    Prompt, PromptMessage, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    Resource, ResourceContents, Role, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;
use tokio::sync::{Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};

use notesoup_app::history::Kept;
use notesoup_app::tools::{self, Binding, ToolSpec};

/// The boot resource's URI.
pub const BOOT_URI: &str = "notesoup://boot";
/// The boot prompt's name (the same text as the resource).
pub const BOOT_PROMPT: &str = "boot";

/// How long the client gets to answer `roots/list`.
const ROOTS_TIMEOUT: Duration = Duration::from_secs(5);

/// What the server knows of the client's roots.
#[derive(Debug, Clone)]
enum Root {
    /// Not asked yet (or changed since).
    Unknown,
    /// Asked: its first local folder, `None` when it declared none.
    Known(Option<PathBuf>),
}

pub(crate) struct Server {
    ctx: Arc<Context>,
    /// The folder the server was started for (`--project`, else its working folder).
    cwd: PathBuf,
    /// Whether the client's roots may pick the folder instead (not after `--project`).
    follow_roots: bool,
    /// The client's first declared `file://` root, once asked. Cleared when the client says
    /// its roots changed.
    root: Mutex<Root>,
    /// Told when a client's root picks a folder other than `cwd`.
    on_root: Option<crate::RootPicked>,
    /// Calls take effect in the order they arrive: a tool that changes the brain holds it
    /// alone, the ones that only read share it. Taken before a call's first await; the lock
    /// is fair (first come, first served) and the runtime starts the calls' tasks in the
    /// order their lines were read, so a write pipelined before a read is seen by it.
    order: RwLock<()>,
}

impl Server {
    pub(crate) fn new(
        ctx: Context,
        cwd: PathBuf,
        follow_roots: bool,
        on_root: Option<crate::RootPicked>,
    ) -> Self {
        Self {
            // The server lives for the client's session: it keeps what it decoded (within
            // the index cache's budget), so a second question on a session is a search of
            // it, not a decode.
            ctx: Arc::new(ctx.keeping_histories(Kept::default())),
            cwd,
            follow_roots,
            root: Mutex::new(Root::Unknown),
            on_root,
            order: RwLock::new(()),
        }
    }

    /// The boot text of the brain the client's folder picks (the resource's and the
    /// prompt's one text).
    async fn boot(&self, context: &RequestContext<RoleServer>) -> Result<String, ErrorData> {
        let cwd = self.folder(context).await;
        let ctx = Arc::clone(&self.ctx);
        tokio::task::spawn_blocking(move || crate::boot::boot(&cwd, &ctx))
            .await
            .map_err(|_| ErrorData::internal_error("notesoup hit a bug building the boot", None))?
            .map_err(|message| ErrorData::internal_error(message, None))
    }

    /// The folder that picks the brain: the server's own when the person named it
    /// (`--project`); else the client's first local root that is a folder, when it declares
    /// roots; else the server's own.
    #[expect(
        deprecated,
        reason = "roots are deprecated by SEP-2577 but are what clients of the 2025 protocol revisions declare"
    )]
    async fn folder(&self, context: &RequestContext<RoleServer>) -> PathBuf {
        let declares_roots = context
            .peer
            .peer_info()
            .is_some_and(|info| info.capabilities.roots.is_some());
        if !self.follow_roots || !declares_roots {
            return self.cwd.clone();
        }
        let mut root = self.root.lock().await;
        if matches!(*root, Root::Unknown) {
            let asked = tokio::time::timeout(ROOTS_TIMEOUT, context.peer.list_roots()).await;
            *root = Root::Known(match asked {
                Ok(Ok(list)) => list
                    .roots
                    .iter()
                    .filter_map(|r| crate::uri::file_uri_path(&r.uri))
                    // A root that is gone, or a file, picks no brain: the next one does.
                    .find(|folder| folder.is_dir()),
                _ => None,
            });
            if let (Root::Known(Some(folder)), Some(tell)) = (&*root, &self.on_root)
                && *folder != self.cwd
            {
                (tell.0)(folder);
            }
        }
        match &*root {
            Root::Known(Some(folder)) => folder.clone(),
            _ => self.cwd.clone(),
        }
    }
}

/// The tools this server offers: every tool but the ones that need a host's reset flow
/// (`empty_brain`).
fn offered() -> Vec<ToolSpec> {
    tools::specs()
        .into_iter()
        .filter(|spec| !spec.reset_flow())
        .collect()
}

/// The tools as MCP lists them: name, title, description, input schema and annotations of
/// the one definition.
pub(crate) fn listed_tools() -> Vec<Tool> {
    offered()
        .into_iter()
        .map(|spec| {
            let schema = match spec.input_schema {
                Value::Object(map) => map,
                _ => serde_json::Map::new(),
            };
            let hints = spec.hints;
            let annotations = ToolAnnotations::with_title(spec.title)
                .read_only(hints.read_only)
                .destructive(hints.destructive)
                .idempotent(hints.idempotent)
                // Every tool stays within this machine's notes and transcripts.
                .open_world(false);
            Tool::new(spec.name, spec.description, Arc::new(schema))
                .with_title(spec.title)
                .with_annotations(annotations)
        })
        .collect()
}

/// The JSON-RPC error answering a call of a tool this server does not serve (`empty_brain`
/// included): it names the ones it serves.
fn unknown_tool(name: &str) -> ErrorData {
    let served: Vec<&str> = offered().iter().map(|spec| spec.name).collect();
    ErrorData::invalid_params(
        format!(
            "notesoup serves no tool `{name}`; its tools are {}",
            served.join(", ")
        ),
        Some(serde_json::json!({"tool": name, "tools": served})),
    )
}

/// A call's turn: shared by the calls that only read, alone for one that changes the brain.
enum Turn<'a> {
    Shared(#[expect(dead_code, reason = "held, not read")] RwLockReadGuard<'a, ()>),
    Alone(#[expect(dead_code, reason = "held, not read")] RwLockWriteGuard<'a, ()>),
}

/// The error a cancelled call ends with (rmcp does not send it: the client asked for none).
fn cancelled() -> ErrorData {
    ErrorData::internal_error("the client cancelled this request", None)
}

/// Every list this server answers is one page and gives out no `nextCursor`, so any cursor
/// is one it never gave: invalid params, as MCP's pagination asks, rather than the first
/// page again (which a client paging on would take for the next).
fn one_page(method: &str, request: Option<&PaginatedRequestParams>) -> Result<(), ErrorData> {
    match request.and_then(|r| r.cursor.as_deref()) {
        None => Ok(()),
        Some(_) => Err(ErrorData::invalid_params(
            format!("`{method}` has one page and gave out no cursor; ask again without `cursor`"),
            None,
        )),
    }
}

fn text_result(text: String, is_error: bool) -> CallToolResult {
    let content = vec![ContentBlock::text(text)];
    if is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_prompts()
                .build(),
        )
        .with_server_info(
            Implementation::new("notesoup", env!("CARGO_PKG_VERSION"))
                .with_title("notesoup: working memory for coding agents"),
        )
        .with_instructions(
            "notesoup is this project's brain: small named notes that outlive the conversation and are shared with every other agent on this project (Claude Code, Codex, ...). Read the notesoup://boot resource (or the `boot` prompt, or call notes_list) at the start of a session; save what a fresh you would need with notes_write / notes_edit as you go. history_sessions lists earlier sessions of any agent on this machine; read one with history_list / history_read and its `session`.",
        )
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        one_page("tools/list", request.as_ref())?;
        Ok(ListToolsResult::with_all_items(listed_tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        let Some(spec) = offered().into_iter().find(|spec| spec.name == name) else {
            return Err(unknown_tool(&name));
        };
        // The call's turn (see `order`) and its folder, unless the client cancels it first
        // (`notifications/cancelled`): a call cancelled while it waits never runs, so a
        // cancelled write changes nothing. rmcp sends no answer to a cancelled request.
        let turn = async {
            let turn = if spec.hints.read_only {
                Turn::Shared(self.order.read().await)
            } else {
                Turn::Alone(self.order.write().await)
            };
            (turn, self.folder(&context).await)
        };
        let Some((_turn, folder)) = context.ct.run_until_cancelled(turn).await else {
            return Err(cancelled());
        };
        if context.ct.is_cancelled() {
            return Err(cancelled());
        }
        // An MCP host binds a folder only: no transcript, head or agent of its own.
        let binding = Binding::new(folder.to_string_lossy());
        let args = Value::Object(request.arguments.unwrap_or_default());
        let ctx = Arc::clone(&self.ctx);
        // The tools do blocking file IO; a panic in one is a bug answered as a refusal.
        let answer =
            tokio::task::spawn_blocking(move || tools::call(&name, &args, &binding, &ctx)).await;
        Ok(match answer {
            Ok(answer) => text_result(answer.text, answer.is_error),
            Err(_) => text_result(
                "notesoup hit a bug while answering this tool; nothing was changed half-way (writes are atomic)".into(),
                true,
            ),
        }
        .into())
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        one_page("resources/list", request.as_ref())?;
        let _shared = self.order.read().await;
        let cwd = self.folder(&context).await;
        let ctx = Arc::clone(&self.ctx);
        let notes = tokio::task::spawn_blocking(move || crate::notes::list(&ctx, &cwd))
            .await
            .map_err(|_| {
                ErrorData::internal_error("notesoup hit a bug listing the notes", None)
            })??;
        let mut resources = vec![
            Resource::new(BOOT_URI, "boot")
                .with_title("notesoup boot: this project's notes")
                .with_description(
                    "Read at the start of a session: how to keep notes, and this project's notes as they stand now.",
                )
                .with_mime_type("text/markdown"),
        ];
        resources.extend(notes);
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        one_page("resources/templates/list", request.as_ref())?;
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            crate::notes::template(),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let _shared = self.order.read().await;
        if request.uri.starts_with(crate::notes::NOTE_PREFIX) {
            let cwd = self.folder(&context).await;
            let ctx = Arc::clone(&self.ctx);
            let uri = request.uri;
            return tokio::task::spawn_blocking(move || crate::notes::read(&ctx, &cwd, &uri))
                .await
                .map_err(|_| {
                    ErrorData::internal_error("notesoup hit a bug reading the note", None)
                })?
                .map(Into::into);
        }
        if request.uri != BOOT_URI {
            return Err(ErrorData::resource_not_found(
                format!(
                    "no resource {}; the resources are {BOOT_URI} and each note, {}",
                    request.uri,
                    crate::notes::NOTE_TEMPLATE
                ),
                None,
            ));
        }
        let boot = self.boot(&context).await?;
        Ok(ReadResourceResult::new(vec![
            ResourceContents::text(boot, BOOT_URI).with_mime_type("text/markdown"),
        ])
        .into())
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        one_page("prompts/list", request.as_ref())?;
        Ok(ListPromptsResult::with_all_items(vec![
            Prompt::new(
                BOOT_PROMPT,
                Some("Start a session with this project's notes: how to keep them, and the notes as they stand now (the notesoup://boot resource's text)."),
                None,
            )
            .with_title("notesoup boot: this project's notes"),
        ]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name != BOOT_PROMPT {
            return Err(ErrorData::invalid_params(
                format!(
                    "no prompt {}; the one prompt is {BOOT_PROMPT}",
                    request.name
                ),
                None,
            ));
        }
        let _shared = self.order.read().await;
        let boot = self.boot(&context).await?;
        Ok(
            GetPromptResult::new(vec![PromptMessage::new_text(Role::User, boot)])
                .with_description("notesoup boot: this project's notes")
                .into(),
        )
    }

    async fn on_roots_list_changed(&self, _context: NotificationContext<RoleServer>) {
        *self.root.lock().await = Root::Unknown;
    }
}

#[cfg(test)]
mod tests;
