//! The world one hook call sees in these tests: its budget and the switches the call
//! forwarded, one session (`s1`) whose boots carry their window's marker, and no
//! `/notesoup` command.

use notesoup_reset_flow::{Budget, Pool};

use crate::{CapAsk, Resolve};

/// A call's world; `World::default()` has no fill measured and forwarded no switch.
#[derive(Default)]
pub(super) struct World {
    pub(super) budget: Option<Budget>,
    pub(super) compaction_disabled: Option<bool>,
    pub(super) interactive: Option<bool>,
    /// Why no points were placed (settings with no room), when that is why `budget` is none.
    pub(super) unplaced: Option<String>,
}

impl World {
    /// `tokens` measured against a hard point of `hard` (no warning point, auto-clear on).
    pub(super) fn fill(tokens: u64, hard: u64) -> Self {
        Self {
            budget: Some(Budget {
                tokens,
                hard,
                warning: None,
                auto_clear: true,
            }),
            ..Self::default()
        }
    }
}

impl Resolve for World {
    fn budget(&mut self, _cap: Option<u64>) -> Option<Budget> {
        self.budget
    }
    fn unplaced(&self) -> Option<String> {
        self.unplaced.clone()
    }
    fn compaction_disabled(&self) -> Option<bool> {
        self.compaction_disabled
    }
    fn interactive(&self) -> Option<bool> {
        self.interactive
    }
    fn boot(
        &mut self,
        ordinal: u32,
        _reset: Option<(Pool, Option<&str>)>,
    ) -> Result<(String, String), String> {
        let window = format!("claude:s1:{ordinal}");
        let text = format!("<notesoup-boot window=\"{window}\">\nnotes\n</notesoup-boot>\n");
        Ok((window, text))
    }
    fn session(&self) -> &'static str {
        "s1"
    }
    fn transcript_window(&mut self) -> Option<u32> {
        None
    }
    fn cap_command(&mut self, args: &str) -> Result<CapAsk, String> {
        Err(format!("no `/notesoup {args}` in these tests"))
    }
    fn cap_status(&mut self, _cap: Option<u64>, _ordinal: Option<u32>, _removed: bool) -> String {
        String::new()
    }
}
