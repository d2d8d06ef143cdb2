//! The `notesoup://boot` resource's text: the helper's `boot` op for the brain of a folder.

use std::path::Path;

use notesoup_app::{Context, run};
use serde_json::json;

/// The boot text of the brain of `cwd` for an MCP host (window `mcp:client:0`: the server's
/// tool names, no reset advice), or the op's one-line refusal.
pub(crate) fn boot(cwd: &Path, ctx: &Context) -> Result<String, String> {
    let request = json!({"cwd": cwd.to_string_lossy(), "host": "mcp", "session": "client", "ordinal": 0, "history": true});
    let out = run(Some("boot"), request.to_string().as_bytes(), ctx);
    match out.reply["text"].as_str() {
        Some(text) if out.reply["ok"] == true => Ok(text.to_owned()),
        _ => Err(out.reply["error"]["message"]
            .as_str()
            .unwrap_or("notesoup: no boot")
            .to_owned()),
    }
}
