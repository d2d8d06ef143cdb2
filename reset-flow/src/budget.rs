//! The budget a hook call is resolved under ([`Budget`]), the main calls it lets the
//! shell skip ([`Quiet`]), and what a `/notesoup` command asks of the cap ([`CapAsk`]):
//! shared by every host's adapter and the window, below them.

use serde::{Deserialize, Serialize};

use crate::event::Measure;

/// The budget of one hook call, as the helper resolved it (`notesoup-thresholds`' policy
/// and the engine's usage), all in the policy's unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Budget {
    /// What the window holds now.
    pub tokens: u64,
    /// Where notesoup clears it.
    pub hard: u64,
    /// Where notesoup warns; `None` when warnings are off (`DISABLE_COMPACT`).
    pub warning: Option<u64>,
    /// Whether notesoup clears by itself at `hard` (false when auto-compaction is off).
    pub auto_clear: bool,
}

impl Budget {
    /// The measurement a main step or completion under this budget carries.
    pub fn measure(self) -> Measure {
        Measure {
            tokens: self.tokens,
            hard: self.hard,
            auto_clear: self.auto_clear,
        }
    }
}

/// Main tool results and steps the shell need not send until its next reply
/// ([`Flow::quiet`](crate::Flow::quiet)): a main tool result whose fill is below `below`, and a main step
/// past the first of turn `turn` whose fill is below it, change nothing. In the unit of the
/// budget it was computed under; valid only while the points are those of that call (the
/// same usage inputs, settings, model, variables and cap).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Quiet {
    /// The running main turn (`None`: no step may be skipped).
    pub turn: Option<String>,
    /// The fill at which a call must be sent again (`u64::MAX`: no point applies).
    pub below: u64,
}

/// What `/notesoup [cap [<tokens>|off]]` asks, as a host's resolver read it (the same for
/// every host: each adapter's `Resolve::cap_command` answers with it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CapAsk {
    /// `/notesoup`, `/notesoup cap`: the cap is shown; nothing changes.
    Show,
    /// The cap becomes this (`None`: off).
    Set(Option<u64>),
}
