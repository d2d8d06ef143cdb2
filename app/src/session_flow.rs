//! A session's reset flow (`notesoup-reset-flow`), kept on disk between the processes that
//! run it: one record per session under `<notes home>/windows/<harness>/<session>.json`
//! (`notesoup-window-store`), read and written under the record's lock, so it outlives the
//! process and a `claude -p --resume` finds the window, its warning and a pending request
//! as they were. The `hook` and `tool` ops step it.
//!
//! A session with no usable record (first start, a fork, a deleted or refused record) is
//! rebuilt from its transcript before the event, when `session` names it
//! (`transcript_path`): the window the newest retained boot and the compact boundaries
//! after it say the session is in (`history-claude::window_facts`, `reset-flow::
//! rebuilt_saved`). A fork's transcript names the fork's session, so the fork starts its
//! own record, never the parent's.

use std::path::Path;

use notesoup_history_claude::{Head, Options, window_facts};
use notesoup_history_store::read_transcript;
use notesoup_reset_flow::{Event, Reply, Saved, rebuilt_saved};
use notesoup_window::Host;
use notesoup_window_store::{SessionKey, WindowStore};
use serde::Deserialize;

use crate::{AppError, Context};

/// The session whose reset flow a hook call steps, and the process calling.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionRef {
    /// `claude` (the harness whose session this is).
    pub harness: Host,
    /// The session id (`$.session.id()`).
    pub id: String,
    /// A token unique to the calling process (a new process finds the flow `loaded`).
    pub process: String,
    /// The session's transcript (`classic.SessionStart`'s `transcript_path`): what a
    /// session with no usable record is rebuilt from.
    #[serde(default)]
    pub transcript_path: Option<String>,
    /// Whether the calling process is interactive (Claude: `session.start`'s
    /// `isInteractive`, which the shell keeps and sends with every call). The flow hears it
    /// with each call, because a new session's record (after `/clear`) gets no session
    /// start; `None` when the shell has not heard it yet (the flow keeps what it holds).
    #[serde(default)]
    pub interactive: Option<bool>,
}

impl SessionRef {
    /// The token the flow is stepped under: this process's binding of this session. The
    /// flow takes its generation from it (`reset-flow::binding_generation`), so work the
    /// shell issued for another session, or before a session change, is ignored here even
    /// when its outcome is sent under this session's id.
    pub fn binding(&self) -> String {
        format!("{}\n{}", self.id, self.process)
    }
}

/// Events of one call on the session's flow as kept on disk, in order, under the record's
/// lock.
pub(crate) fn kept(
    ctx: &Context,
    session: &SessionRef,
    events: impl IntoIterator<Item = Event>,
) -> Result<Reply, AppError> {
    with_saved(ctx, session, |saved| {
        notesoup_reset_flow::with_saved(saved, &session.binding(), |flow| {
            if let Some(interactive) = session.interactive {
                flow.set_interactive(interactive);
            }
            events.into_iter().flat_map(|e| flow.handle(e)).collect()
        })
    })
}

/// Runs `step` on what the session's record holds under the record's lock, and saves what
/// it returns when that changed. With nothing usable (no record, or a stale one, refused
/// rather than misread) `step` gets the flow rebuilt from the session's transcript
/// ([`rebuilt`]), else `None` (a fresh flow), and that is written over it.
pub(crate) fn with_saved<R>(
    ctx: &Context,
    session: &SessionRef,
    step: impl FnOnce(Option<&Saved>) -> (Saved, R),
) -> Result<R, AppError> {
    let home = ctx.notes_home()?;
    let store = WindowStore::new(home);
    let key = SessionKey::new(session.harness, &session.id)?;
    store.with_session(&key, |record| {
        // A stale record (another version, another session's) is refused, never misread:
        // the flow is rebuilt from the transcript (else starts fresh) and written over it.
        let saved = match record.read() {
            // The record's JSON is read into the flow's typed state here, once: a state that
            // is not even an object is no saved flow (rebuilt or fresh, as with none).
            Ok(saved) => saved.and_then(|r| serde_json::from_value::<Saved>(r.state).ok()),
            Err(err) if err.is_stale_record() => None,
            Err(err) => return Err(err.into()),
        };
        let saved = saved.or_else(|| rebuilt(ctx, session));
        let (save, reply) = step(saved.as_ref());
        if saved.as_ref() != Some(&save) {
            let state = serde_json::to_value(&save).map_err(|err| {
                AppError::Internal(format!("the session's flow did not serialize: {err}"))
            })?;
            record.write(state)?;
        }
        Ok(reply)
    })
}

/// The flow the session's transcript says it is in, as `step_saved` takes it. `None`
/// (a fresh flow, as before) when no transcript is named, when it is not written yet (a
/// session's first record is written with its first prompt) or cannot be read, or when it
/// is not this session's.
fn rebuilt(ctx: &Context, session: &SessionRef) -> Option<Saved> {
    let path = session.transcript_path.as_deref()?;
    if session.harness != Host::Claude {
        return None;
    }
    let options = Options {
        session: Some(session.id.clone()),
        sidechain: false,
    };
    let cache = ctx.history_cache();
    let transcript =
        read_transcript(Path::new(path), &options, &Head::Leaf, cache.as_ref()).ok()?;
    let facts = window_facts(&transcript, &session.id).ok()?;
    Some(rebuilt_saved(&facts))
}

#[cfg(test)]
mod tests;
