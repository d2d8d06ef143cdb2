#![allow(
    clippy::unreadable_literal,
    reason = "JSON literals are written as Pi's settings files write them (200000, not 200_000)"
)]

use rstest::rstest;
use serde_json::{Value, json};

use crate::{
    DEFAULT_RESET_MARGIN, DEFAULT_WARNING_RUNWAY, NativeSource, PiInputs, PiSettings,
    ThresholdError, resolve_pi,
};

const MODEL: &str = "anthropic/claude-sonnet-4-5";

fn settings(value: &Value) -> PiSettings {
    serde_json::from_value(value.clone()).expect("any JSON object is a settings layer")
}

/// `(native, hard, warning, auto_clear)` for a 200000-token window and these merged layers.
fn points(global: &Value, project: &Value) -> Result<(u64, u64, u64, bool), ThresholdError> {
    let merged = PiSettings::merged(&settings(global), Some(&settings(project)));
    let p = resolve_pi(&PiInputs {
        model: Some(MODEL),
        ..PiInputs::new(200000, Some(&merged))
    })?;
    assert_eq!(p.source, NativeSource::PiSettings);
    Ok((p.native, p.hard, p.warning, p.auto_clear))
}

const M: u64 = DEFAULT_RESET_MARGIN;
const R: u64 = DEFAULT_WARNING_RUNWAY;

#[rstest]
#[case::defaults(json!({}), json!({}), 183616, true)]
#[case::global_reserve(json!({"compaction": {"reserveTokens": 30000}}), json!({}), 170000, true)]
#[case::project_wins(json!({"compaction": {"reserveTokens": 30000}}), json!({"compaction": {"reserveTokens": 10000}}), 190000, true)]
#[case::project_keeps_global_keys(json!({"compaction": {"reserveTokens": 30000, "enabled": false}}), json!({"compaction": {"keepRecentTokens": 5}}), 170000, false)]
#[case::project_enables(json!({"compaction": {"enabled": false}}), json!({"compaction": {"enabled": true}}), 183616, true)]
#[case::enabled_zero(json!({"compaction": {"enabled": 0}}), json!({}), 183616, false)]
#[case::enabled_empty_string(json!({"compaction": {"enabled": ""}}), json!({}), 183616, false)]
#[case::enabled_string_false_is_truthy(json!({"compaction": {"enabled": "false"}}), json!({}), 183616, true)]
#[case::enabled_null_is_default(json!({"compaction": {"enabled": null}}), json!({}), 183616, true)]
#[case::model_override(json!({"compaction": {"reserveTokens": 30000, "modelOverrides": {MODEL: {"reserveTokens": 50000}}}}), json!({}), 150000, true)]
#[case::other_model_override(json!({"compaction": {"modelOverrides": {"anthropic/other": {"reserveTokens": 50000}}}}), json!({}), 183616, true)]
#[case::overrides_merge(json!({"compaction": {"modelOverrides": {MODEL: {"keepRecentTokens": 100}}}}), json!({"compaction": {"modelOverrides": {MODEL: {"reserveTokens": 40000}}}}), 160000, true)]
#[case::overrides_array(json!({"compaction": {"modelOverrides": []}}), json!({}), 183616, true)]
#[case::project_null_replaces(json!({"compaction": {"reserveTokens": 30000, "enabled": false}}), json!({"compaction": null}), 183616, true)]
#[case::project_number_replaces(json!({"compaction": {"reserveTokens": 30000}}), json!({"compaction": 5}), 183616, true)]
#[case::whole_float(json!({"compaction": {"reserveTokens": 20000.0}}), json!({}), 180000, true)]
fn pi_point_from_settings(
    #[case] global: Value,
    #[case] project: Value,
    #[case] native: u64,
    #[case] auto_clear: bool,
) {
    assert_eq!(
        points(&global, &project),
        Ok((native, native - M, native - M - R, auto_clear))
    );
}

#[rstest]
#[case::negative(json!({"compaction": {"reserveTokens": -1}}), "compaction.reserveTokens", "-1")]
#[case::string(json!({"compaction": {"reserveTokens": "16k"}}), "compaction.reserveTokens", "\"16k\"")]
#[case::fraction(json!({"compaction": {"reserveTokens": 1.5}}), "compaction.reserveTokens", "1.5")]
#[case::null(json!({"compaction": {"reserveTokens": null}}), "compaction.reserveTokens", "null")]
#[case::unsafe_integer(json!({"compaction": {"reserveTokens": 9007199254740992_u64}}), "compaction.reserveTokens", "9007199254740992")]
#[case::keep_recent_even_when_off(json!({"compaction": {"enabled": false, "keepRecentTokens": -5}}), "compaction.keepRecentTokens", "-5")]
#[case::entry_not_object(json!({"compaction": {"modelOverrides": {MODEL: 5}}}), "compaction.modelOverrides[\"anthropic/claude-sonnet-4-5\"]", "5")]
#[case::entry_value(json!({"compaction": {"modelOverrides": {MODEL: {"reserveTokens": -2}}}}), "compaction.modelOverrides[\"anthropic/claude-sonnet-4-5\"].reserveTokens", "-2")]
#[case::ordinary_before_entry(json!({"compaction": {"reserveTokens": "x", "modelOverrides": {MODEL: 5}}}), "compaction.reserveTokens", "\"x\"")]
fn pi_refuses_what_pi_refuses(#[case] global: Value, #[case] setting: &str, #[case] value: &str) {
    let err = points(&global, &json!({})).unwrap_err();
    assert_eq!(err.code(), "unresolvable");
    assert!(
        matches!(&err, ThresholdError::PiSetting { setting: s, value: v, .. } if s == setting && v == value),
        "{err:?}"
    );
    assert!(err.to_string().contains(".pi/settings.json"), "{err}");
}

#[test]
fn pi_margins_come_from_the_merged_notesoup_object() {
    let global = json!({"notesoup": {"resetMarginTokens": 4096}});
    let project = json!({"notesoup": {"warningRunwayTokens": 8192}});
    let (native, hard, warning, _) = points(&global, &project).unwrap();
    assert_eq!(
        (native, hard, warning),
        (183616, 183616 - 4096, 183616 - 4096 - 8192)
    );
}

#[test]
fn pi_untrusted_project_reads_the_global_file_only() {
    let global = settings(&json!({"compaction": {"reserveTokens": 30000}}));
    let merged = PiSettings::merged(&global, None);
    let p = resolve_pi(&PiInputs::new(200000, Some(&merged))).unwrap();
    assert_eq!(p.native, 170000);
    let none = resolve_pi(&PiInputs::new(200000, None)).unwrap();
    assert_eq!(none.native, 183616);
}

#[test]
fn pi_no_room_for_the_margins_is_an_error() {
    let err = resolve_pi(&PiInputs::new(16384 + M + R, None)).unwrap_err();
    assert!(
        matches!(
            err,
            ThresholdError::NoRoom {
                source_name: "pi-settings",
                ..
            }
        ),
        "{err:?}"
    );
}

/// A reserve not below the window is named as what to change (the margins cannot help).
#[rstest]
#[case::window_smaller_than_reserve(10000, "16,384, not below the model's 10,000-token window")]
#[case::zero_window(0, "16,384, not below the model's 0-token window")]
#[case::equal(16384, "16,384, not below the model's 16,384-token window")]
fn pi_a_reserve_not_below_the_window_names_the_reserve(#[case] window: u64, #[case] said: &str) {
    let err = resolve_pi(&PiInputs::new(window, None)).unwrap_err();
    assert!(
        matches!(
            err,
            ThresholdError::PiReserveTooLarge { reserve: 16384, .. }
        ),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(
        text.starts_with("Pi's compaction.reserveTokens is "),
        "{text}"
    );
    assert!(text.contains(said), "{text}");
    assert_eq!(err.code(), "unresolvable");
}

#[test]
fn pi_smallest_window_with_room() {
    let p = resolve_pi(&PiInputs::new(16384 + M + R + 1, None)).unwrap();
    assert_eq!((p.hard, p.warning), (R + 1, 1));
}

#[rstest]
#[case::cap_below_window("100k", 100000 - 16384, Some(100000))]
#[case::cap_above_window_clamped("1m", 183616, Some(200000))]
fn pi_cap_lowers_the_point(#[case] cap: &str, #[case] native: u64, #[case] kept: Option<u64>) {
    let p = resolve_pi(&PiInputs {
        cap: Some(cap),
        ..PiInputs::new(200000, None)
    })
    .unwrap();
    assert_eq!((p.native, p.cap), (native, kept));
}

#[test]
fn pi_cap_too_small_names_pi_reserve() {
    let smallest = 16384 + M + R + 1;
    let below = (smallest - 1).to_string();
    let err = resolve_pi(&PiInputs {
        cap: Some(&below),
        ..PiInputs::new(200000, None)
    })
    .unwrap_err();
    assert_eq!(
        err,
        ThresholdError::CapTooSmall {
            reserves: "Pi's reserveTokens",
            input: below.clone(),
            tokens: smallest - 1,
            smallest
        }
    );
    assert!(err.to_string().contains("Pi's reserveTokens"));
    let ok = resolve_pi(&PiInputs {
        cap: Some(&smallest.to_string()),
        ..PiInputs::new(200000, None)
    });
    assert_eq!(ok.map(|p| p.warning), Ok(1));
    assert_eq!(
        resolve_pi(&PiInputs {
            cap: Some("lots"),
            ..PiInputs::new(200000, None)
        })
        .unwrap_err()
        .code(),
        "bad_cap"
    );
}

#[test]
fn pi_key_changes_with_what_is_read_only() {
    let a = settings(&json!({"compaction": {"reserveTokens": 30000}, "theme": "dark"}));
    let b = settings(&json!({"compaction": {"reserveTokens": 30000}, "theme": "light"}));
    let c = settings(&json!({"compaction": {"reserveTokens": 30001}}));
    let key = |s: &PiSettings| resolve_pi(&PiInputs::new(200000, Some(s))).unwrap().key;
    assert_eq!(key(&a), key(&b));
    assert_ne!(key(&a), key(&c));
    assert!(key(&a).starts_with("pi1-"));
}
