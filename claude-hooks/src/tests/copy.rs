//! A fork's copied boot and the boot it owes itself, through the hook calls the shell
//! sends (the flow's own verdicts are `notesoup-reset-flow`'s tests).

use notesoup_reset_flow::{
    Budget, CopyVerdict, Effect, Pool, Reply, Saved, rebuilt_saved, step_saved,
};
use notesoup_window::{WindowFacts, WindowId};
use rstest::rstest;
use serde_json::{Value, json};

use crate::{CapAsk, Hook, Resolve, Watch, hook_saved};

/// An attachment as the engine sends the shell's block: heading, boot, ambient suffix.
fn attachment(window: &str) -> String {
    format!(
        "# notesoup\n<notesoup-boot window=\"{window}\">\n# notesoup: your memory\nnotes\n</notesoup-boot>\n\nThis is ambient context."
    )
}

/// The outside world of a hook call in `session`: boots named after their window, or none.
struct World {
    session: &'static str,
    builds: bool,
}

impl Resolve for World {
    fn budget(&mut self, _cap: Option<u64>) -> Option<Budget> {
        None
    }
    fn compaction_disabled(&self) -> Option<bool> {
        None
    }
    fn interactive(&self) -> Option<bool> {
        None
    }
    fn boot(
        &mut self,
        ordinal: u32,
        _reset: Option<(Pool, Option<&str>)>,
    ) -> Result<(String, String), String> {
        if self.builds {
            let window = format!("claude:fork:{ordinal}");
            Ok((
                window.clone(),
                format!("<notesoup-boot window=\"{window}\">\nNOTES NOW\n</notesoup-boot>\n"),
            ))
        } else {
            Err("no cwd".into())
        }
    }
    fn session(&self) -> &str {
        self.session
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

/// The effects leave a copy alone in its attachment out (`{text: null}`).
fn left_out(fx: &[Effect]) -> bool {
    matches!(
        fx,
        [Effect::BootCopy {
            verdict: CopyVerdict::Drop,
            text: None,
            alone: true,
            ..
        }]
    )
}

fn attachment_hook(window: &str) -> Hook {
    serde_json::from_value(json!({"event": "prompt.attachment",
        "facts": {"attachment": attachment(window)}}))
    .unwrap()
}

#[test]
fn the_hook_rebuilds_a_forks_copy_of_its_parents_boot_with_the_fork_boot_in_place() {
    let hook = attachment_hook("claude:parent:2");
    let mut world = World {
        session: "fork",
        builds: true,
    };
    let (_, reply) = hook_saved(None, "p1", &hook, &mut world);
    let [Effect::BootCopy { verdict, text, .. }] = &reply.effects[..] else {
        panic!("{:?}", reply.effects);
    };
    assert_eq!(*verdict, CopyVerdict::Rebuild);
    assert_eq!(
        text.as_deref(),
        Some(
            "# notesoup\n<notesoup-boot window=\"claude:fork:2\">\nNOTES NOW\n</notesoup-boot>\n\nThis is ambient context."
        )
    );
    assert_eq!(
        reply.flow.snapshot().ordinal,
        Some(2),
        "the fork keeps the parent's ordinal"
    );
}

#[test]
fn a_rebuild_that_cannot_build_keeps_the_copy_and_says_why() {
    let hook = attachment_hook("claude:parent:2");
    let mut world = World {
        session: "fork",
        builds: false,
    };
    let (_, reply) = hook_saved(None, "p1", &hook, &mut world);
    assert!(
        matches!(
            &reply.effects[..],
            [Effect::Log { text }, Effect::BootCopy { verdict: CopyVerdict::Keep, text: None, .. }]
                if text.contains("no cwd")
        ),
        "{:?}",
        reply.effects
    );
}

#[test]
fn the_hook_drops_a_closed_windows_copy_without_building_anything() {
    let (saved, _) = step_saved(
        None,
        "p1",
        serde_json::from_value(json!({"type": "window_seen", "ordinal": 1})).unwrap(),
    );
    let hook = attachment_hook("claude:s1:0");
    let mut world = World {
        session: "s1",
        builds: false,
    };
    let (_, reply) = hook_saved(Some(&saved), "p1", &hook, &mut world);
    assert!(left_out(&reply.effects), "{:?}", reply.effects);
}

// ----- a fork's own boot (after a reset the copied boot is a compaction's message) -----

/// One hook call of session `session`'s process `process` on what `saved` holds.
fn call(
    session: &'static str,
    saved: Option<&Saved>,
    process: &str,
    hook: Value,
    builds: bool,
) -> (Saved, Reply) {
    let hook: Hook = serde_json::from_value(hook).unwrap();
    hook_saved(saved, process, &hook, &mut World { session, builds })
}

fn context(kept: &[&str]) -> Value {
    let kept: Vec<Value> = kept
        .iter()
        .map(|w| {
            let ordinal: u32 = w.rsplit(':').next().unwrap().parse().unwrap();
            json!({"window": w, "ordinal": ordinal, "text": format!("<notesoup-boot window=\"{w}\">\nx\n</notesoup-boot>")})
        })
        .collect();
    json!({"event": "prompt.context", "facts": {"kept": kept}})
}

fn submit() -> Value {
    json!({"event": "prompt.submit", "facts": {"origin": "sdk", "command": false}})
}

fn opening_step() -> Value {
    json!({"event": "turn.step", "facts": {"agent": "main", "turn_id": "t1", "index": 0}})
}

/// The own boots attached by `fx`: (ordinal, text).
fn own_boots(fx: &[Effect]) -> Vec<(u32, Option<String>)> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::AttachOwnBoot { ordinal, text, .. } => Some((*ordinal, text.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn a_fork_after_a_reset_gets_its_own_boot_on_its_first_prompt_and_never_again_in_the_window() {
    // The fork's conversation holds the parent's window-1 boot (a compaction's message).
    let (saved, reply) = call("fork", None, "p1", context(&["claude:parent:1"]), true);
    assert!(reply.effects.is_empty(), "nothing attached as a block");
    assert_eq!(reply.flow.snapshot().ordinal, Some(1));
    assert!(reply.flow.snapshot().boot_owed);
    let (saved, reply) = call("fork", Some(&saved), "p1", submit(), true);
    assert_eq!(
        own_boots(&reply.effects),
        [(
            1,
            Some("\n<notesoup-boot window=\"claude:fork:1\">\nNOTES NOW\n</notesoup-boot>".into())
        )],
        "the fork's own window-1 boot, its marker on a line of its own"
    );
    let (saved, _) = call("fork", Some(&saved), "p1", opening_step(), true);
    let (saved, reply) = call("fork", Some(&saved), "p1", submit(), true);
    assert!(own_boots(&reply.effects).is_empty(), "a second own boot");
    // `-p --resume <fork>`: the record says it was delivered; the kept boots end with it.
    let (saved, reply) = call(
        "fork",
        Some(&saved),
        "p2",
        context(&["claude:parent:1", "claude:fork:1"]),
        true,
    );
    assert!(!reply.flow.snapshot().boot_owed);
    let (saved, reply) = call("fork", Some(&saved), "p2", submit(), true);
    assert!(
        own_boots(&reply.effects).is_empty(),
        "a fresh boot on resume"
    );
    // A reset in the fork opens window 2 (the fork's, as `Resolve::boot` names it).
    let compact =
        json!({"event": "session.compact", "facts": {"agent": "main", "trigger": "auto"}});
    let (_, reply) = call("fork", Some(&saved), "p2", compact, true);
    assert!(
        reply
            .effects
            .iter()
            .any(|e| matches!(e, Effect::AnswerCompaction { ordinal: 2, .. })),
        "{:?}",
        reply.effects
    );
}

/// `prompt.submit` carrying the kept boots (as `context` builds them).
fn submit_with(kept: &[&str]) -> Value {
    let mut hook = context(kept);
    hook["event"] = json!("prompt.submit");
    hook["facts"]["origin"] = json!("composer");
    hook["facts"]["command"] = json!(false);
    hook
}

#[test]
fn a_forks_first_prompt_before_its_prompt_context_carries_its_own_boot() {
    // The terminal under load (CI, w02 tmux): session.start (no transcript yet: a fresh
    // flow), then the first prompt.submit, then prompt.context. The fresh flow knows no
    // window, so its reply asks for the kept boots with the prompt.
    let start =
        json!({"event": "session.start", "facts": {"disable_compact": false, "interactive": true}});
    let (saved, reply) = call("fork", None, "p1", start, true);
    assert!(
        Watch::of(&reply.flow, "claude", "fork").prompt_kept,
        "a flow with no window must ask"
    );
    let (saved, reply) = call(
        "fork",
        Some(&saved),
        "p1",
        submit_with(&["claude:parent:1"]),
        true,
    );
    assert_eq!(
        own_boots(&reply.effects),
        [(
            1,
            Some("\n<notesoup-boot window=\"claude:fork:1\">\nNOTES NOW\n</notesoup-boot>".into())
        )],
        "the fork's first prompt carries its own window-1 boot"
    );
    let watch = Watch::of(&reply.flow, "claude", "fork");
    assert!(!watch.prompt_kept, "the window is known now");
    // The engine's copy of the parent's boot is still the helper's to rebuild; only the
    // fork's own boot of window 1 may go unsent.
    assert!(!watch.skips_attachment(
        "# notesoup\n<notesoup-boot window=\"claude:parent:1\">\nB\n</notesoup-boot>"
    ));
    assert!(watch.skips_attachment(
        "# notesoup\n<notesoup-boot window=\"claude:fork:1\">\nB\n</notesoup-boot>"
    ));
    // prompt.context comes after, with the same kept boots: nothing attached, none owed.
    let (saved, reply) = call(
        "fork",
        Some(&saved),
        "p1",
        context(&["claude:parent:1"]),
        true,
    );
    assert!(reply.effects.is_empty(), "{:?}", reply.effects);
    let (saved, _) = call("fork", Some(&saved), "p1", opening_step(), true);
    let (_, reply) = call("fork", Some(&saved), "p1", submit(), true);
    assert!(own_boots(&reply.effects).is_empty(), "a second own boot");
    // A session's own boot kept (a resumed session): a window seen, nothing attached.
    let (_, reply) = call("own", None, "p1", submit_with(&["claude:own:2"]), true);
    assert!(own_boots(&reply.effects).is_empty(), "{:?}", reply.effects);
    assert_eq!(reply.flow.snapshot().ordinal, Some(2));
}

#[rstest]
// The newest is the parent's own boot of the window (the fork's): still another session's.
#[case::fork_of_a_fork(&["claude:parent:1", "claude:fork:1"])]
// An older window's boot of this session does not settle the newer window's.
#[case::own_older_window(&["claude:fork2:0", "claude:parent:1"])]
fn a_fork_of_a_fork_owes_itself_a_boot(#[case] kept: &[&str]) {
    let (_, reply) = call("fork2", None, "p1", context(kept), true);
    assert!(reply.flow.snapshot().boot_owed);
    assert_eq!(reply.flow.snapshot().ordinal, Some(1));
}

#[test]
fn a_dropped_prompt_or_a_failed_build_leaves_the_own_boot_owed() {
    let (saved, _) = call("fork", None, "p1", context(&["claude:parent:1"]), true);
    let (saved, reply) = call("fork", Some(&saved), "p1", submit(), true);
    assert_eq!(own_boots(&reply.effects).len(), 1);
    let generation = reply.flow.generation();
    let dropped = json!({"event": "prompt.dropped", "facts": {"generation": generation}});
    let (saved, reply) = call("fork", Some(&saved), "p1", dropped, true);
    assert!(reply.flow.snapshot().boot_owed);
    // The notes cannot be read now: nothing attached, still owed, the log says why.
    let (saved, reply) = call("fork", Some(&saved), "p1", submit(), false);
    assert!(own_boots(&reply.effects).is_empty());
    assert!(
        matches!(&reply.effects[..], [Effect::Log { text }] if text.contains("no cwd")),
        "{:?}",
        reply.effects
    );
    assert!(reply.flow.snapshot().boot_owed);
    let (_, reply) = call("fork", Some(&saved), "p1", submit(), true);
    assert_eq!(own_boots(&reply.effects).len(), 1);
}

#[test]
fn a_forks_copied_block_is_left_out_once_its_own_boot_rode_the_prompt() {
    // A fork of window 0 (measured order): prompt.context sees the copied block, the prompt
    // carries the own boot, then the engine sends the block again.
    let (saved, _) = call("fork", None, "p1", context(&["claude:parent:0"]), true);
    let (saved, reply) = call("fork", Some(&saved), "p1", submit(), true);
    assert_eq!(own_boots(&reply.effects).len(), 1);
    let (saved, _) = call("fork", Some(&saved), "p1", opening_step(), true);
    let attachment = json!({"event": "prompt.attachment",
        "facts": {"attachment": attachment("claude:parent:0")}});
    let (_, reply) = call("fork", Some(&saved), "p1", attachment.clone(), true);
    assert!(left_out(&reply.effects), "{:?}", reply.effects);
    // The copy rebuilt in place first (no prompt yet) is the own boot: no second one.
    let (saved, _) = call("fork", None, "p1", attachment, true);
    let (_, reply) = call("fork", Some(&saved), "p1", submit(), true);
    assert!(own_boots(&reply.effects).is_empty(), "{:?}", reply.effects);
}

#[rstest]
// The copy is the window's boot: owed.
#[case::copy_is_the_windows_boot(Some("parent"), Some(0), true)]
// Claude's own compaction cleared the copied window since: no boot to replace.
#[case::cleared_since(Some("parent"), Some(1), false)]
#[case::own_boot(None, Some(0), false)]
fn a_rebuilt_fork_owes_itself_a_boot_while_the_copy_is_its_windows(
    #[case] forked_from: Option<&str>,
    #[case] compactions_since_boot: Option<u64>,
    #[case] owed: bool,
) {
    let facts = WindowFacts {
        window: Some(WindowId::new("claude", "fork", 1).unwrap()),
        boot: Some(WindowId::new("claude", forked_from.unwrap_or("fork"), 1).unwrap()),
        compactions_since_boot,
        forked_from: forked_from.map(str::to_owned),
    };
    let (_, reply) = call("fork", Some(&rebuilt_saved(&facts)), "p1", submit(), true);
    assert_eq!(own_boots(&reply.effects).len(), usize::from(owed));
}
