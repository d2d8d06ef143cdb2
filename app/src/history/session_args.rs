//! [`SessionArgs`]: a [`SessionSource`] as the fields of a flat request, the shape the
//! helper's history ops and the hooks module send.

use serde::Deserialize;

use super::{LiveSession, Roots, SessionSource};

/// The session part of every history request: which session, and how to find it. The
/// helper's history ops take these fields beside their own arguments in one flat object;
/// `history_state` takes them alone.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionArgs {
    /// The live session's transcript, exactly as Claude gave it (`transcript_path`).
    #[serde(default)]
    pub transcript_path: Option<String>,
    /// The uuid of the latest successful main `session.append` result.
    #[serde(default)]
    pub head: Option<String>,
    /// An explicit session, `<harness>:<sessionId>` (a unique id prefix is enough).
    #[serde(default)]
    pub session: Option<String>,
    /// Set when a subagent calls: history is the main agent's alone.
    #[serde(default)]
    pub agent_id: Option<String>,
    /// The notesoup setting naming each harness's session folder.
    #[serde(default)]
    pub roots: Roots,
}

impl SessionArgs {
    /// The names of the fields above, in order (a test holds it to the struct).
    pub const FIELDS: [&str; 5] = ["transcript_path", "head", "session", "agent_id", "roots"];
}

impl From<SessionArgs> for SessionSource {
    fn from(args: SessionArgs) -> Self {
        Self {
            live: args.transcript_path.map(|transcript_path| LiveSession {
                transcript_path,
                head: args.head,
            }),
            selector: args.session,
            agent_id: args.agent_id,
            asking: None,
            roots: args.roots,
        }
    }
}
