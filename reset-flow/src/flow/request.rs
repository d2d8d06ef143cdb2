//! The request lifetime: `empty_brain`, the budget, `/empty` and `/fresh-window`, close-outs
//! and cancellation.

use serde_json::Value;

use super::{Answering, Args, Commit, Cutoff, Flow, Origin, Request, Stage, one_line};
use crate::effect::{CloseoutMode, Effect};
use crate::event::{Agent, Command, Measure, Miss};

/// What a later `empty_brain` of the same request is told first.
const ALREADY: &str =
    "A reset is already requested; the first call's last_word and terminate stand.";

impl Flow {
    pub(super) fn empty_brain(&mut self, agent: Agent, args: &Value, fx: &mut Vec<Effect>) {
        let refuse = |fx: &mut Vec<Effect>, text: String| {
            fx.push(Effect::ToolResult {
                text,
                is_error: true,
            });
        };
        if agent == Agent::Subagent {
            return refuse(
                fx,
                "empty_brain clears only the main conversation's window, and this is a subagent's (or a run that keeps no session file), which notesoup does not clear. Nothing was recorded; keep working here.".into(),
            );
        }
        let args = match parse_args(args) {
            Ok(args) => args,
            Err(why) => {
                return refuse(
                    fx,
                    format!(
                        "{why}; nothing was recorded. Call empty_brain again with valid arguments."
                    ),
                );
            }
        };
        if self.disable_compact {
            return refuse(
                fx,
                "DISABLE_COMPACT is set, so the window cannot be cleared; keep working in this window.".into(),
            );
        }
        // `already`: a request took its arguments before this call.
        let (already, text) = if let Some(request) = &mut self.request {
            // Arguments are only taken while no compaction has been answered for the request.
            let open = !request.consumed
                && matches!(
                    self.commit,
                    None | Some(Commit {
                        stage: Stage::Requested,
                        ..
                    })
                );
            if request.args.is_none() && open {
                let stopped = request.stop;
                request.args = Some(args);
                let text = if stopped {
                    "Reset requested: the window will be cleared after this batch of tools, as the person asked; the fresh window will wait for them."
                } else {
                    "Reset requested: the window will be cleared after this batch of tools."
                };
                (false, text.to_owned())
            } else {
                (
                    true,
                    format!("{ALREADY} The window will be cleared after this batch of tools."),
                )
            }
        } else {
            let terminate = args.terminate;
            let id = self.new_request(Origin::Tool, Some(args));
            if let Some(request) = &mut self.request {
                request.natural = self.natural_in_turn || self.undelivered;
            }
            debug_assert_eq!(self.request_id(), Some(id));
            let text = if terminate {
                "Reset requested: the window will be cleared after this batch of tools, and the fresh window will wait for the person (terminate)."
            } else {
                "Reset requested: the window will be cleared after this batch of tools, and the fresh window continues from your notes and last_word."
            };
            (false, text.to_owned())
        };
        self.arm_cutoff();
        // The person wrote in this turn: the cutoff is released and their input continues
        // the work, so no text may promise a clear after this batch or a continuation.
        let text = if self.natural_in_turn {
            let first = if already { ALREADY } else { "Reset requested." };
            format!(
                "{first} The person wrote to you in this turn, so it goes on: answer them. The window will be cleared when this turn ends, and the fresh window will wait for them."
            )
        } else {
            text
        };
        fx.push(Effect::ToolResult {
            text,
            is_error: false,
        });
    }

    pub(super) fn new_request(&mut self, origin: Origin, args: Option<Args>) -> u32 {
        let id = self.next_request;
        self.next_request = self.next_request.saturating_add(1);
        self.request = Some(Request {
            id,
            origin,
            args,
            stop: false,
            natural: false,
            consumed: false,
            attempts: 0,
            closeout: false,
            closeout_turn: None,
            closeout_queued: false,
        });
        id
    }

    /// Arm the cutoff for the running main turn (kept when already there); natural input in
    /// this turn leaves it released.
    pub(super) fn arm_cutoff(&mut self) {
        if self.cutoff.is_none() {
            self.cutoff = Some(Cutoff {
                turn: self.main_turn.clone(),
                released: self.natural_in_turn,
            });
        }
    }

    /// Whether the hard point, crossed now, acts: it opens a request when none is pending,
    /// and it arms the cutoff of a request the person asked for (`/empty`, `/fresh-window`:
    /// STOP) that has none in the running main turn, as a busy close-out has not (the model
    /// may ignore the warning it carries). A request natural input took over, one a native
    /// compaction consumed, one being committed, and one kept after a failed compaction in
    /// a later turn are left as they are.
    pub(crate) fn hard_point_acts(&self) -> bool {
        match &self.request {
            None => true,
            Some(r) => {
                r.stop
                    && !r.natural
                    && !r.consumed
                    && self.commit.is_none()
                    && self.main_turn.is_some()
                    && self.cutoff.is_none()
            }
        }
    }

    pub(super) fn measure(&mut self, measure: Measure, fx: &mut Vec<Effect>) {
        if !measure.over() || self.disable_compact || !self.hard_point_acts() {
            return;
        }
        if self.request.is_none() {
            self.new_request(Origin::Budget, None);
            if let Some(request) = &mut self.request {
                request.natural = self.natural_in_turn || self.undelivered;
            }
        }
        if self.main_turn.is_some() {
            self.arm_cutoff();
        }
        fx.push(Effect::Report {
            text: format!(
                "notesoup: context at {} of {} tokens; clearing the window at the end of this step.",
                notesoup_window::thousands(measure.tokens),
                notesoup_window::thousands(measure.hard)
            ),
        });
    }

    pub(super) fn command(
        &mut self,
        command: Command,
        busy: bool,
        measured: bool,
        fx: &mut Vec<Effect>,
    ) {
        let slash = command.slash();
        if self.disable_compact {
            fx.push(Effect::Report {
                text: format!(
                    "{slash} cannot run: DISABLE_COMPACT is set, so the window cannot be cleared."
                ),
            });
            return;
        }
        if !measured && self.request.is_none() {
            // Nothing to clear: nothing is promised, then cancelled. A pending reset is
            // still stopped.
            fx.push(Effect::Report {
                text: command.unmeasured(),
            });
            return;
        }
        // A main turn the flow knows to be running makes the command busy whatever the
        // shell saw: a hidden turn is never submitted over a running one.
        let busy = busy || self.main_turn.is_some();
        let generation = self.generation;
        let idle_and_open = !busy
            && !self.undelivered
            && self.commit.is_none()
            && self.request.as_ref().is_none_or(|r| !r.consumed);
        if self.request.is_none() {
            self.new_request(Origin::Command, None);
        }
        let Some(request) = &mut self.request else {
            return;
        };
        request.stop = true;
        // The report first: a close-out that fails at once reports its cancel after it, so
        // the person reads what was attempted, then why it stopped.
        fx.push(Effect::Report {
            text: format!(
                "{slash}: saving notes, then clearing the window; it will wait for you afterwards."
            ),
        });
        if busy && request.origin == Origin::Command && !request.closeout {
            request.closeout = true;
            request.closeout_turn.clone_from(&self.main_turn);
            fx.push(Effect::Closeout {
                mode: CloseoutMode::CurrentTurn,
                generation,
            });
        } else if idle_and_open && !request.closeout {
            request.closeout = true;
            request.closeout_queued = true;
            fx.push(Effect::Closeout {
                mode: CloseoutMode::Submit,
                generation,
            });
        }
    }

    pub(super) fn closeout_missed(
        &mut self,
        status: Miss,
        reason: Option<String>,
        fx: &mut Vec<Effect>,
    ) {
        let Some(request) = &self.request else {
            return;
        };
        if !request.closeout || request.consumed || self.commit.is_some() {
            return;
        }
        let how = match status {
            Miss::Failed => "failed",
            Miss::Dropped => "was dropped",
        };
        let why = reason.map_or_else(String::new, |r| format!(" ({})", one_line(&r)));
        self.cancel(
            &format!("the close-out turn {how}{why}; nothing was cleared, run the command again"),
            fx,
        );
    }

    /// End the request without a reset (its commit attempt, if any, goes with it).
    pub(super) fn cancel(&mut self, why: &str, fx: &mut Vec<Effect>) {
        if self.request.take().is_some() {
            self.commit = None;
            if self.answering == Some(Answering::Commit) {
                self.answering = None;
                self.opening = None;
            }
            fx.push(Effect::Cancel {
                reason: why.to_owned(),
            });
            fx.push(Effect::Report {
                text: format!("notesoup: reset cancelled: {why}."),
            });
        }
    }

    /// Cancel a request whose reset has not been confirmed; a confirmed one just ends.
    pub(super) fn cancel_unless_committed(&mut self, why: &str, fx: &mut Vec<Effect>) {
        if matches!(
            self.commit,
            Some(Commit {
                stage: Stage::Confirmed,
                ..
            })
        ) {
            self.request = None;
            self.commit = None;
            fx.push(Effect::Report {
                text: format!("notesoup: the window was cleared; not continuing: {why}."),
            });
        } else {
            self.cancel(why, fx);
        }
    }
}

/// Validate `empty_brain`'s raw input: `terminate` absent or boolean (default false),
/// `last_word` absent or a string. Other keys are ignored.
fn parse_args(args: &Value) -> Result<Args, String> {
    let map = match args {
        Value::Null => {
            return Ok(Args {
                sticky: None,
                terminate: false,
            });
        }
        Value::Object(map) => map,
        other => {
            return Err(format!(
                "empty_brain's input must be an object, got {}",
                kind(other)
            ));
        }
    };
    let terminate = match map.get("terminate") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(format!(
                "`terminate` must be true or false, got {}",
                kind(other)
            ));
        }
    };
    let sticky = match map.get("last_word") {
        None => None,
        Some(Value::String(s)) if s.trim().is_empty() => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            return Err(format!("`last_word` must be a string, got {}", kind(other)));
        }
    };
    Ok(Args { sticky, terminate })
}

fn kind(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string {:?}", truncate(s)),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

fn truncate(s: &str) -> String {
    s.chars().take(40).collect()
}
