//! The boot-copy verdict and the rebuilt flow, driven by the JSON events the shell sends.

use notesoup_window::{WindowFacts, WindowId};
use rstest::rstest;
use serde_json::{Value, json};

use crate::{CopyVerdict, Effect, Event, Flow, rebuilt_saved, step, step_saved};

/// An attachment as the engine sends the shell's block: heading, boot, ambient suffix.
fn attachment(window: &str) -> String {
    format!(
        "# notesoup\n<notesoup-boot window=\"{window}\">\n# notesoup: your memory\nnotes\n</notesoup-boot>\n\nThis is ambient context."
    )
}

fn send(flow: &Flow, event: Value) -> (Flow, Vec<Effect>) {
    let event: Event = serde_json::from_value(event).unwrap();
    let reply = step(flow.clone(), event);
    (reply.flow, reply.effects)
}

fn in_window(ordinal: u32) -> Flow {
    send(
        &Flow::default(),
        json!({"type": "window_seen", "ordinal": ordinal}),
    )
    .0
}

#[rstest]
// The retry after a prompt-too-long compaction the flow answered (window 1 open) re-sends
// window 0's boot: left out.
#[case::closed_window_dropped(Some(1), "claude:s1:0", CopyVerdict::Drop, Some(1))]
#[case::current_window_kept(Some(1), "claude:s1:1", CopyVerdict::Keep, Some(1))]
// A resumed process that knows no window yet adopts the copy's.
#[case::unknown_window_kept(None, "claude:s1:0", CopyVerdict::Keep, Some(0))]
#[case::newer_window_kept_and_adopted(Some(1), "claude:s1:3", CopyVerdict::Keep, Some(3))]
// A fork's copy of its parent's boot: rebuilt for the fork, the ordinal kept.
#[case::parent_boot_rebuilt(None, "claude:parent:2", CopyVerdict::Rebuild, Some(2))]
#[case::parent_boot_rebuilt_in_a_known_window(
    Some(2),
    "claude:parent:2",
    CopyVerdict::Rebuild,
    Some(2)
)]
fn boot_copy_verdicts(
    #[case] ordinal: Option<u32>,
    #[case] copy: &str,
    #[case] verdict: CopyVerdict,
    #[case] after: Option<u32>,
) {
    let flow = ordinal.map_or_else(Flow::default, in_window);
    let text = attachment(copy);
    let (flow, fx) = send(
        &flow,
        json!({"type": "boot_copy", "session": "s1", "text": text}),
    );
    let want_ordinal = copy.rsplit(':').next().unwrap().parse::<u32>().unwrap();
    assert_eq!(
        fx,
        [Effect::BootCopy {
            verdict,
            ordinal: want_ordinal,
            before: String::new(),
            after: "\n\nThis is ambient context.".into(),
            alone: true,
            text: None,
        }]
    );
    assert_eq!(flow.snapshot().ordinal, after);
}

#[test]
fn another_block_beside_the_boot_is_kept_around_it() {
    let text = format!("# other\nOTHER\n\n{}", attachment("claude:s1:0"));
    let (_, fx) = send(
        &in_window(1),
        json!({"type": "boot_copy", "session": "s1", "text": text}),
    );
    assert_eq!(
        serde_json::to_value(&fx).unwrap(),
        json!([{"type": "boot_copy", "verdict": "drop", "ordinal": 0, "before": "# other\nOTHER\n\n",
                "after": "\n\nThis is ambient context.", "alone": false,
                "text": "# other\nOTHER\n\n\n\nThis is ambient context."}])
    );
}

#[rstest]
#[case::no_boot("# other\nOTHER")]
#[case::unclosed_boot("# notesoup\n<notesoup-boot window=\"claude:s1:0\">\nnotes")]
fn a_text_without_a_whole_boot_gets_no_verdict(#[case] text: &str) {
    let (flow, fx) = send(
        &in_window(1),
        json!({"type": "boot_copy", "session": "s1", "text": text}),
    );
    assert!(fx.is_empty(), "{fx:?}");
    assert_eq!(flow, in_window(1));
}

fn facts(window: Option<(&str, u32)>) -> WindowFacts {
    WindowFacts {
        window: window.map(|(s, n)| WindowId::new("claude", s, n).unwrap()),
        boot: None,
        compactions_since_boot: None,
        forked_from: None,
    }
}

#[test]
fn a_rebuilt_flow_is_in_the_transcripts_window_and_the_next_reset_opens_the_one_after() {
    let saved = rebuilt_saved(&facts(Some(("s1", 2))));
    // No process saved it: the first step is not `loaded`.
    assert!(saved.process.is_none());
    let (saved, reply) = step_saved(
        Some(&saved),
        "p1",
        serde_json::from_value(json!({"type": "window_seen", "ordinal": 0})).unwrap(),
    );
    assert!(reply.effects.is_empty());
    assert_eq!(reply.flow.snapshot().ordinal, Some(2));
    // A compaction there opens window 3, never 1 or 2 again.
    let flow = saved.flow.unwrap();
    let (_, fx) = send(
        &flow,
        json!({"type": "compaction", "agent": "main", "trigger": "auto"}),
    );
    let opened: Vec<u32> = fx
        .iter()
        .filter_map(|e| match e {
            Effect::AnswerCompaction { ordinal, .. } => Some(*ordinal),
            _ => None,
        })
        .collect();
    assert_eq!(opened, [3], "{fx:?}");
}

#[test]
fn a_transcript_that_names_no_window_rebuilds_a_fresh_flow() {
    assert_eq!(Flow::rebuilt(&facts(None)), Flow::default());
}

#[test]
fn a_version_2_blob_is_migrated_owing_nothing() {
    let mut v2 = in_window(3).to_blob();
    v2["v"] = json!(2);
    v2["window"].as_object_mut().unwrap().remove("own_boot");
    let flow = Flow::from_blob(&v2).unwrap();
    assert_eq!(flow.snapshot().ordinal, Some(3));
    assert!(!flow.snapshot().boot_owed);
    assert_eq!(flow.to_blob()["v"], json!(crate::STATE_VERSION));
    assert_eq!(flow, in_window(3));
}
