//! The `notesoup://boot` resource's text: [`notesoup_app::boot::build`] for the brain of a
//! folder.

use std::path::Path;

use notesoup_app::Context;
use notesoup_app::boot::{BootRequest, build};

/// The boot text of the brain of `cwd` for an MCP host (window `mcp:client:0`: the server's
/// tool names, no reset advice), or the refusal's one line.
pub(crate) fn boot(cwd: &Path, ctx: &Context) -> Result<String, String> {
    let cwd = cwd.to_string_lossy();
    let request = BootRequest::unreset(&cwd, "mcp", "client");
    build(ctx, &request)
        .map(|boot| boot.text)
        .map_err(|err| err.to_string())
}
