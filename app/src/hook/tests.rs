//! A hook call's typed parts: the switches, the kept boots, and the effects as the shell
//! reads them (the whole calls are the `hook` op's tests, in `notesoup-helper-bin`).

use std::collections::BTreeMap;

use notesoup_reset_flow::Effect;
use serde_json::json;

use super::{Host, ShellEffect, Switches, kept_boots, off, switches};

fn vars(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|&(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

#[test]
fn the_switches_read_each_variable_by_its_rule() {
    assert_eq!(
        switches(&vars(&[("NOTESOUP_DISABLED", "1")])),
        Switches::Off
    );
    assert_eq!(
        switches(&vars(&[("DISABLE_COMPACT", "1")])),
        Switches::On {
            disable_compact: true
        }
    );
    assert_eq!(
        switches(&vars(&[])),
        Switches::On {
            disable_compact: false
        }
    );
    let off = serde_json::to_value(off()).expect("serializes");
    assert_eq!(off["disabled"], true, "{off}");
    assert_eq!(off["effects"], json!([]), "{off}");
    assert!(off.get("watch").is_none(), "{off}");
}

#[test]
fn only_the_hosts_own_boots_are_kept() {
    let texts = [
        "<notesoup-boot window=\"claude:s1:3\">\nnotes\n</notesoup-boot>".to_owned(),
        "<notesoup-boot window=\"pi:s1:4\">\nnotes\n</notesoup-boot>".to_owned(),
        "hello".to_owned(),
    ];
    let kept = kept_boots(&texts, Host::Claude);
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].ordinal, 3);
}

#[test]
fn an_effect_is_the_flows_json_with_the_text_it_carries() {
    let warn = ShellEffect {
        effect: Effect::Warn { generation: 2 },
        text: Some("left".into()),
    };
    assert_eq!(
        serde_json::to_value(&warn).expect("serializes"),
        json!({"type": "warn", "generation": 2, "text": "left"})
    );
    let plain = ShellEffect::from(Effect::ToolResult {
        text: "ok".into(),
        is_error: false,
    });
    assert_eq!(
        serde_json::to_value(&plain).expect("serializes"),
        json!({"type": "tool_result", "text": "ok", "is_error": false})
    );
}

/// Only a `prompt.context` that attached a boot with no transcript bound asks the shell to
/// have the engine ask again once the transcript is named.
#[test]
fn a_boot_attached_before_the_transcript_is_named_is_asked_for_again() {
    use super::{Hook, Place, rebind_context};
    let context: Hook =
        serde_json::from_value(json!({"event": "prompt.context", "facts": {"kept": []}})).unwrap();
    let attached = [ShellEffect::from(Effect::AttachBoot {
        ordinal: 0,
        text: "boot".into(),
    })];
    let unbound = Place::default();
    let bound = Place {
        transcript_path: Some("/t.jsonl".into()),
        ..Place::default()
    };
    assert!(rebind_context(&context, &unbound, &attached));
    assert!(!rebind_context(&context, &bound, &attached));
    assert!(!rebind_context(&context, &unbound, &[]));
    let submit: Hook = serde_json::from_value(
        json!({"event": "prompt.submit", "facts": {"origin": "user", "command": false}}),
    )
    .unwrap();
    assert!(!rebind_context(&submit, &unbound, &attached));
}
