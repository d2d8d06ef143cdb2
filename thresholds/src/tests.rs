#![allow(
    clippy::unreadable_literal,
    reason = "JSON literals are written as the engine writes them (200000, not 200_000)"
)]

use rstest::rstest;
use serde_json::{Value, json};

use super::*;
use crate::model::canonical_model;
use notesoup_window::thousands;

/// The typed input the engine's JSON deserializes to, `None` when it is not one (as the
/// helper's ops treat a usage or settings that is not an object).
fn typed<T: serde::de::DeserializeOwned>(value: Option<&Value>) -> Option<T> {
    value.and_then(|v| serde_json::from_value(v.clone()).ok())
}

fn env(pairs: &[(&str, &str)]) -> Env {
    Env::from_lookup(|name| {
        pairs
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| (*v).to_owned())
    })
}

/// What `$.session.usage({breakdown:"summary"})` gives with the threshold (or without).
fn usage(window: u64, threshold: Option<u64>) -> Value {
    let mut breakdown =
        json!({"rawMaxTokens": window, "isAutoCompactEnabled": threshold.is_some()});
    if let Some(t) = threshold {
        breakdown["autoCompactThreshold"] = json!(t);
    }
    json!({"context": {"window": window, "tokens": 1234, "breakdown": breakdown}})
}

fn run(
    usage: Option<&Value>,
    settings: Option<&Value>,
    env: &Env,
    model: Option<&str>,
    cap: Option<&str>,
) -> Result<Policy, ThresholdError> {
    let (usage, settings) = (typed::<Usage>(usage), typed::<Settings>(settings));
    resolve(&Inputs {
        usage: usage.as_ref(),
        settings: settings.as_ref(),
        env,
        model,
        cap,
    })
}

// ---- JavaScript parsing --------------------------------------------------------------

#[rstest]
#[case("50", 50.0)]
#[case(" 50", 50.0)]
#[case("50%", 50.0)]
#[case("50abc", 50.0)]
#[case("0.5", 0.5)]
#[case(".5", 0.5)]
#[case("5.", 5.0)]
#[case("1e2", 100.0)]
#[case("1e", 1.0)]
#[case("+7", 7.0)]
#[case("-3", -3.0)]
#[case("\u{A0}\t12", 12.0)]
#[case("Infinity", f64::INFINITY)]
fn parse_float_reads_a_prefix(#[case] raw: &str, #[case] want: f64) {
    assert_eq!(js::parse_float(raw).to_bits(), want.to_bits(), "{raw:?}");
}

#[rstest]
#[case("abc")]
#[case("")]
#[case(".")]
#[case("-")]
#[case("e5")]
fn parse_float_nan(#[case] raw: &str) {
    assert!(js::parse_float(raw).is_nan(), "{raw:?}");
}

#[rstest]
#[case("200000", Some(200_000))]
#[case("  200000 ", Some(200_000))]
#[case("2e5", Some(200_000))]
#[case("2.5e5", Some(250_000))]
#[case("200_000", Some(200_000))]
#[case("200,000", Some(200_000))]
#[case("200 000", Some(200_000))]
#[case("1\u{A0}000\u{A0}000", Some(1_000_000))]
#[case("200\u{202F}000", Some(200_000))]
#[case("150000abc", Some(150_000))]
#[case("200k", Some(200_000))]
#[case("250K", Some(250_000))]
#[case("1.5m", Some(1_000_000))] // above the maximum: treated as 1M
#[case("0.15m", Some(150_000))]
#[case("2m", Some(1_000_000))]
#[case("50k", Some(100_000))] // below the minimum: treated as 100k
#[case("200", Some(100_000))] // the env var has no bare-thousands shorthand
#[case("150000.5", Some(150_000))] // parseInt
#[case("150.5k", Some(150_500))]
#[case("100.0004k", Some(100_000))] // rounded
#[case("abc", None)]
#[case("", None)]
#[case("0", None)]
#[case("-5", None)]
#[case("k", None)]
#[case("2.5e-1", None)] // exponent form that is not integral: NaN
#[case("200_000,000", Some(100_000))] // mixed separators: parseInt reads 200
fn env_window_reads_like_claude(#[case] raw: &str, #[case] want: Option<u64>) {
    assert_eq!(js::env_window(raw), want, "{raw:?}");
}

#[rstest]
#[case(Some("1"), true)]
#[case(Some("true"), true)]
#[case(Some(" YES "), true)]
#[case(Some("On"), true)]
#[case(Some("0"), false)]
#[case(Some("false"), false)]
#[case(Some("2"), false)]
#[case(Some(""), false)]
#[case(None, false)]
fn env_truthiness(#[case] raw: Option<&str>, #[case] want: bool) {
    assert_eq!(js::truthy(raw), want);
}

// ---- the three sources -----------------------------------------------------------------

#[rstest]
// A.9 rows: reported threshold, percent override → native.
#[case::sonnet(167_000, None, 167_000)]
#[case::opus_1m(967_000, None, 967_000)]
#[case::pct_50(167_000, Some("50"), 90_000)]
#[case::pct_50_percent_sign(167_000, Some("50%"), 90_000)]
#[case::pct_99_never_raises(167_000, Some("99"), 167_000)]
#[case::pct_0_ignored(167_000, Some("0"), 167_000)]
#[case::pct_150_ignored(167_000, Some("150"), 167_000)]
#[case::pct_abc_ignored(167_000, Some("abc"), 167_000)]
#[case::pct_empty_ignored(167_000, Some(""), 167_000)]
#[case::pct_100(167_000, Some("100"), 167_000)]
#[case::pct_80_settings_400k(367_000, Some("80"), 304_000)]
#[case::pct_fraction_in_f64_like_js(167_000, Some("33.3"), 59_939)]
fn breakdown_source(#[case] reported: u64, #[case] pct: Option<&str>, #[case] native: u64) {
    let env = pct.map_or_else(Env::default, |p| {
        env(&[("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", p)])
    });
    let u = usage(200_000, Some(reported));
    let p = run(Some(&u), None, &env, None, None).unwrap();
    assert_eq!((p.source, p.unit), (NativeSource::Breakdown, Unit::Tokens));
    assert_eq!(p.native, native);
    assert_eq!(p.hard, native - DEFAULT_RESET_MARGIN);
    assert_eq!(
        p.warning,
        native - DEFAULT_RESET_MARGIN - DEFAULT_WARNING_RUNWAY
    );
    assert!(p.auto_clear && p.warnings_enabled && p.explicit_reset);
    assert_eq!(p.cap, None);
}

#[rstest]
#[case::pct_half_a_percent_leaves_no_room(Some("0.5"))]
fn tiny_pct_is_no_room(#[case] pct: Option<&str>) {
    let env = env(&[("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", pct.unwrap())]);
    let u = usage(200_000, Some(167_000));
    let err = run(Some(&u), None, &env, None, None).unwrap_err();
    assert_eq!(
        err,
        ThresholdError::NoRoom {
            native: 900,
            source_name: "breakdown",
            reset_margin: DEFAULT_RESET_MARGIN,
            warning_runway: DEFAULT_WARNING_RUNWAY
        }
    );
}

#[rstest]
#[case::breakdown_not_a_number(json!({"context": {"window": 200000, "breakdown": {"autoCompactThreshold": "167000"}}}), NativeSource::Window, 167_000)]
#[case::breakdown_zero(json!({"context": {"window": 200000, "breakdown": {"autoCompactThreshold": 0}}}), NativeSource::Window, 167_000)]
#[case::breakdown_negative(json!({"context": {"window": 200000, "breakdown": {"autoCompactThreshold": -5}}}), NativeSource::Window, 167_000)]
#[case::breakdown_beyond_2_53(json!({"context": {"window": 200000, "breakdown": {"autoCompactThreshold": 1.5e300}}}), NativeSource::Window, 167_000)]
#[case::window_beyond_2_53(json!({"context": {"window": 1e300}}), NativeSource::Percent, 83)]
#[case::breakdown_not_an_object(json!({"context": {"window": 200000, "breakdown": []}}), NativeSource::Window, 167_000)]
#[case::no_breakdown(json!({"context": {"window": 1000000, "tokens": 5}}), NativeSource::Window, 967_000)]
#[case::window_a_string(json!({"context": {"window": "200000"}}), NativeSource::Percent, 83)]
#[case::window_zero(json!({"context": {"window": 0}}), NativeSource::Percent, 83)]
#[case::context_missing(json!({"startedAt": 1}), NativeSource::Percent, 83)]
#[case::context_a_number(json!({"context": 7}), NativeSource::Percent, 83)]
#[case::usage_an_array(json!([1, 2]), NativeSource::Percent, 83)]
#[case::usage_null(Value::Null, NativeSource::Percent, 83)]
fn undocumented_fields_degrade(
    #[case] usage: Value,
    #[case] source: NativeSource,
    #[case] native: u64,
) {
    let p = run(Some(&usage), None, &Env::default(), None, None).unwrap();
    assert_eq!((p.source, p.native), (source, native));
    let unit = if source == NativeSource::Percent {
        Unit::Percent
    } else {
        Unit::Tokens
    };
    assert_eq!(p.unit, unit);
}

#[test]
fn percent_fallback_expresses_200k_points_as_whole_percent_rounded_down() {
    let p = run(None, None, &Env::default(), None, None).unwrap();
    // 167000 / 200000 = 83.5 %, hard 158808 → 79.4 %, warning 142424 → 71.2 %.
    assert_eq!(
        (p.unit, p.source, p.native, p.hard, p.warning),
        (Unit::Percent, NativeSource::Percent, 83, 79, 71)
    );
    // The configured windows cap it the same way: env 150k → 117000 → 58 %.
    let e = env(&[("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "150k")]);
    let p = run(None, None, &e, None, None).unwrap();
    assert_eq!((p.native, p.hard, p.warning), (58, 54, 46));
}

#[rstest]
// model window, settings, env window → native (smallest configured wins, capped at M)
#[case::nothing(1_000_000, json!({}), None, 967_000)]
#[case::settings_400k(1_000_000, json!({"autoCompactWindow": 400000}), None, 367_000)]
#[case::settings_capped_at_model(200_000, json!({"autoCompactWindow": 300000}), None, 167_000)]
#[case::env_beats_larger_settings(1_000_000, json!({"autoCompactWindow": 300000}), Some("150000"), 117_000)]
#[case::smaller_settings_beats_env(1_000_000, json!({"autoCompactWindow": 300000}), Some("500k"), 267_000)]
#[case::env_below_minimum(1_000_000, json!({}), Some("50k"), 67_000)]
#[case::env_above_maximum(1_000_000, json!({}), Some("2m"), 967_000)]
#[case::env_unusable_falls_to_settings(1_000_000, json!({"autoCompactWindow": 300000}), Some("abc"), 267_000)]
#[case::settings_below_minimum_dropped(1_000_000, json!({"autoCompactWindow": 50000}), None, 967_000)]
#[case::settings_above_maximum_dropped(1_000_000, json!({"autoCompactWindow": 2000000}), None, 967_000)]
#[case::settings_string_dropped(1_000_000, json!({"autoCompactWindow": "300k"}), None, 967_000)]
#[case::settings_fraction_dropped(1_000_000, json!({"autoCompactWindow": 300000.5}), None, 967_000)]
#[case::settings_whole_float(1_000_000, json!({"autoCompactWindow": 300000.0}), None, 267_000)]
#[case::per_model(1_000_000, json!({"modelSettings": {"claude-opus-4-7": {"autoCompactWindow": 250000}}}), None, 217_000)]
#[case::per_model_alias_spelling(1_000_000, json!({"modelSettings": {"claude-opus-4-7[1m]": {"autoCompactWindow": 250000}}}), None, 217_000)]
#[case::per_model_other_model(1_000_000, json!({"modelSettings": {"claude-sonnet-4-6": {"autoCompactWindow": 250000}}}), None, 967_000)]
#[case::per_model_auto_configures_nothing(1_000_000, json!({"autoCompactWindow": 400000, "modelSettings": {"claude-opus-4-7": {"autoCompactWindow": "auto"}}}), None, 367_000)]
#[case::per_model_smaller_than_default(1_000_000, json!({"autoCompactWindow": 400000, "modelSettings": {"claude-opus-4-7": {"autoCompactWindow": 300000}}}), None, 267_000)]
#[case::model_settings_wrong_type(1_000_000, json!({"modelSettings": ["x"]}), None, 967_000)]
#[case::settings_not_an_object(1_000_000, json!("oops"), None, 967_000)]
fn window_source(
    #[case] window: u64,
    #[case] settings: Value,
    #[case] env_window: Option<&str>,
    #[case] native: u64,
) {
    let e = env_window.map_or_else(Env::default, |w| {
        env(&[("CLAUDE_CODE_AUTO_COMPACT_WINDOW", w)])
    });
    let u = json!({"context": {"window": window}});
    let p = run(Some(&u), Some(&settings), &e, Some("claude-opus-4-7"), None).unwrap();
    assert_eq!(
        (p.source, p.unit, p.native),
        (NativeSource::Window, Unit::Tokens, native)
    );
}

#[rstest]
#[case("claude-sonnet-4-6", "claude-sonnet-4-6")]
#[case("claude-sonnet-4-6[1m]", "claude-sonnet-4-6")]
#[case("claude-sonnet-4-6-20260101", "claude-sonnet-4-6")]
#[case("us.anthropic.claude-sonnet-4-6-v1:0", "claude-sonnet-4-6")]
#[case("anthropic.claude-sonnet-4-6-20260101-v1", "claude-sonnet-4-6")]
#[case("claude-sonnet-4-6@20260101", "claude-sonnet-4-6")]
#[case("Claude-Sonnet-4-6", "claude-sonnet-4-6")]
#[case("my-custom-model", "my-custom-model")]
// Multi-byte ids: the date-suffix check must not cut inside a character (it panicked).
#[case("日本語x", "日本語x")]
#[case("x日本語", "x日本語")]
#[case("日本語-20260101", "日本語")]
#[case("é-2026010", "é-2026010")]
fn model_spellings(#[case] id: &str, #[case] canonical: &str) {
    assert_eq!(canonical_model(id), canonical);
}

#[rstest]
#[case::pct_on_window(&[("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "50")], 90_000)]
#[case::max_output_8000(&[("CLAUDE_CODE_MAX_OUTPUT_TOKENS", "8000")], 179_000)]
#[case::max_output_above_reserve(&[("CLAUDE_CODE_MAX_OUTPUT_TOKENS", "64000")], 167_000)]
#[case::max_output_invalid(&[("CLAUDE_CODE_MAX_OUTPUT_TOKENS", "lots")], 167_000)]
#[case::max_output_zero(&[("CLAUDE_CODE_MAX_OUTPUT_TOKENS", "0")], 167_000)]
#[case::max_output_digit_groups(&[("CLAUDE_CODE_MAX_OUTPUT_TOKENS", "8,000")], 179_000)]
fn window_source_env(#[case] pairs: &[(&str, &str)], #[case] native: u64) {
    let u = json!({"context": {"window": 200000}});
    let p = run(Some(&u), None, &env(pairs), None, None).unwrap();
    assert_eq!(p.native, native);
}

// ---- auto-compaction off, DISABLE_COMPACT ------------------------------------------

#[rstest]
#[case::setting_false(json!({"autoCompactEnabled": false}), &[], 180_000)]
#[case::disable_auto_compact(json!({}), &[("DISABLE_AUTO_COMPACT", "1")], 180_000)]
#[case::disable_auto_compact_yes(json!({}), &[("DISABLE_AUTO_COMPACT", "yes")], 180_000)]
#[case::pct_ignored_when_off(json!({}), &[("DISABLE_AUTO_COMPACT", "on"), ("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "50")], 180_000)]
#[case::settings_window_ignored_when_off(json!({"autoCompactEnabled": false, "autoCompactWindow": 150000}), &[], 180_000)]
#[case::env_window_applies_when_off(json!({"autoCompactEnabled": false}), &[("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "150000")], 130_000)]
#[case::max_output_when_off(json!({"autoCompactEnabled": false}), &[("CLAUDE_CODE_MAX_OUTPUT_TOKENS", "8000")], 192_000)]
fn auto_compaction_off(
    #[case] settings: Value,
    #[case] pairs: &[(&str, &str)],
    #[case] native: u64,
) {
    let u = usage(200_000, None);
    let p = run(Some(&u), Some(&settings), &env(pairs), None, None).unwrap();
    assert_eq!((p.source, p.native), (NativeSource::Window, native));
    assert_eq!(p.hard, native - DEFAULT_RESET_MARGIN);
    assert!(!p.auto_clear, "auto clears are off with auto-compaction");
    assert!(p.warnings_enabled && p.explicit_reset);
}

#[rstest]
#[case::not_truthy_means_on(&[("DISABLE_AUTO_COMPACT", "0")], true)]
#[case::setting_true(&[], true)]
fn auto_compaction_on(#[case] pairs: &[(&str, &str)], #[case] on: bool) {
    let u = usage(200_000, Some(167_000));
    let p = run(
        Some(&u),
        Some(&json!({"autoCompactEnabled": true})),
        &env(pairs),
        None,
        None,
    )
    .unwrap();
    assert_eq!(p.auto_clear, on);
    assert_eq!(p.source, NativeSource::Breakdown);
}

#[test]
fn breakdown_saying_off_is_believed_even_with_a_threshold() {
    let u = json!({"context": {"window": 200000, "breakdown":
        {"autoCompactThreshold": 167000, "isAutoCompactEnabled": false}}});
    let p = run(Some(&u), None, &Env::default(), None, None).unwrap();
    assert_eq!(
        (p.source, p.native, p.auto_clear),
        (NativeSource::Window, 180_000, false)
    );
}

#[rstest]
#[case("1")]
#[case("TRUE")]
fn disable_compact_turns_off_warnings_and_explicit_resets(#[case] value: &str) {
    let u = usage(200_000, None);
    let p = run(
        Some(&u),
        None,
        &env(&[("DISABLE_COMPACT", value)]),
        None,
        None,
    )
    .unwrap();
    assert_eq!(p.native, 180_000);
    assert!(!p.auto_clear && !p.warnings_enabled && !p.explicit_reset);
}

// ---- margins -------------------------------------------------------------------------

#[rstest]
#[case::defaults(json!({}), 8192, 16_384)]
#[case::both(json!({"notesoup": {"resetMarginTokens": 4096, "warningRunwayTokens": 10000}}), 4096, 10_000)]
#[case::zero_is_allowed(json!({"notesoup": {"resetMarginTokens": 0, "warningRunwayTokens": 0}}), 0, 0)]
#[case::whole_float(json!({"notesoup": {"resetMarginTokens": 4096.0}}), 4096, 16_384)]
#[case::negative_ignored(json!({"notesoup": {"resetMarginTokens": -1, "warningRunwayTokens": -5}}), 8192, 16_384)]
#[case::fraction_ignored(json!({"notesoup": {"resetMarginTokens": 1.5}}), 8192, 16_384)]
#[case::string_ignored(json!({"notesoup": {"resetMarginTokens": "4096"}}), 8192, 16_384)]
#[case::null_ignored(json!({"notesoup": {"warningRunwayTokens": null}}), 8192, 16_384)]
#[case::notesoup_not_object(json!({"notesoup": 3}), 8192, 16_384)]
#[case::top_level_ignored(json!({"resetMarginTokens": 1}), 8192, 16_384)]
fn margins(#[case] settings: Value, #[case] reset: u64, #[case] runway: u64) {
    let u = usage(200_000, Some(167_000));
    let p = run(Some(&u), Some(&settings), &Env::default(), None, None).unwrap();
    assert_eq!(p.hard, 167_000 - reset);
    assert_eq!(p.warning, 167_000 - reset - runway);
}

#[test]
fn margins_too_large_are_no_room() {
    let u = usage(200_000, Some(167_000));
    let s = json!({"notesoup": {"resetMarginTokens": 100_000, "warningRunwayTokens": 67_000}});
    let err = run(Some(&u), Some(&s), &Env::default(), None, None).unwrap_err();
    assert!(
        matches!(
            err,
            ThresholdError::NoRoom {
                native: 167_000,
                ..
            }
        ),
        "{err}"
    );
    let s = json!({"notesoup": {"resetMarginTokens": 100_000, "warningRunwayTokens": 66_999}});
    let p = run(Some(&u), Some(&s), &Env::default(), None, None).unwrap();
    assert_eq!((p.hard, p.warning), (67_000, 1));
}

// ---- the cap -------------------------------------------------------------------------

#[rstest]
#[case("100k", 100_000)]
#[case("100K", 100_000)]
#[case("1.5m", 1_500_000)]
#[case("1.5M", 1_500_000)]
#[case("250000", 250_000)]
#[case(" 250000 ", 250_000)]
#[case("0.25m", 250_000)]
#[case("150.5k", 150_500)]
#[case("0k", 0)]
#[case("1,000,000", 1_000_000)]
#[case("200_000", 200_000)]
#[case("1,500k", 1_500_000)]
#[case("1,000.5k", 1_000_500)]
#[case("1.0000000m", 1_000_000)]
#[case("1.50m", 1_500_000)]
fn cap_parses(#[case] raw: &str, #[case] tokens: u64) {
    assert_eq!(parse_cap(raw), Ok(tokens));
}

#[rstest]
#[case("")]
#[case("k")]
#[case("abc")]
#[case("100 k")]
#[case("100kb")]
#[case("-100k")]
#[case("+100k")]
#[case("1.5")]
#[case("250000.0")]
#[case("1.2345k")]
#[case("1.5e5")]
#[case("200,00")]
#[case("2000,000")]
#[case(",200")]
#[case("200,")]
#[case("1,5m")]
#[case("1,000_000")]
#[case("1.000.000")]
#[case("1,,000")]
#[case(".5m")]
#[case("5.k")]
#[case("100g")]
#[case("99999999999999999999")]
fn cap_refused(#[case] raw: &str) {
    assert_eq!(
        parse_cap(raw),
        Err(ThresholdError::BadCap {
            input: raw.to_owned()
        })
    );
}

#[rstest]
// window 1M, reported 967000; cap → native
#[case::lowers("300k", Some(300_000), 267_000)]
#[case::clamped_to_model_window("5m", Some(1_000_000), 967_000)]
#[case::never_raises_above_configured("900k", Some(400_000), 367_000)]
fn cap_lowers(#[case] cap: &str, #[case] clamped: Option<u64>, #[case] native: u64) {
    let settings = if cap == "900k" {
        json!({"autoCompactWindow": 400000})
    } else {
        json!({})
    };
    let reported = if cap == "900k" { 367_000 } else { 967_000 };
    let u = usage(1_000_000, Some(reported));
    let p = run(Some(&u), Some(&settings), &Env::default(), None, Some(cap)).unwrap();
    assert_eq!((p.cap, p.native), (clamped, native));
    assert_eq!(p.hard, native - DEFAULT_RESET_MARGIN);
}

#[test]
fn cap_never_raises_a_reported_point() {
    // The engine reports a point lower than the cap's own derivation would give.
    let u = usage(1_000_000, Some(500_000));
    let p = run(Some(&u), None, &Env::default(), None, Some("900k")).unwrap();
    assert_eq!((p.native, p.cap), (500_000, Some(900_000)));
}

#[rstest]
// The smallest cap: R + 13000 + margins + 1 = 20000 + 13000 + 8192 + 16384 + 1.
#[case::defaults(&[], json!({}), 57_577)]
#[case::smaller_margins(&[], json!({"notesoup": {"resetMarginTokens": 0, "warningRunwayTokens": 0}}), 33_001)]
#[case::smaller_reserve(&[("CLAUDE_CODE_MAX_OUTPUT_TOKENS", "8000")], json!({}), 45_577)]
// Under PCT=50: floor((c − 20000)/2) − 24576 ≥ 1 → c ≥ 69154.
#[case::pct(&[("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "50")], json!({}), 69_154)]
// Auto-compaction off: c − 20000 − 24576 ≥ 1.
#[case::off(&[("DISABLE_AUTO_COMPACT", "1")], json!({}), 44_577)]
fn cap_too_small_names_the_smallest(
    #[case] pairs: &[(&str, &str)],
    #[case] settings: Value,
    #[case] smallest: u64,
) {
    let e = env(pairs);
    let u = json!({"context": {"window": 200000}});
    let below = (smallest - 1).to_string();
    let err = run(Some(&u), Some(&settings), &e, None, Some(&below)).unwrap_err();
    assert_eq!(
        err,
        ThresholdError::CapTooSmall {
            reserves: "Claude's reserves",
            input: below.clone(),
            tokens: smallest - 1,
            smallest
        }
    );
    assert!(err.to_string().contains(&format!(
        "smallest cap accepted is {} tokens",
        thousands(smallest)
    )));
    let p = run(
        Some(&u),
        Some(&settings),
        &e,
        None,
        Some(&smallest.to_string()),
    )
    .unwrap();
    assert_eq!(p.warning, 1);
}

/// A cap above the window is kept as asked (the spec: it survives model changes) and
/// clamped where the points are placed: a model with a larger window gets it.
#[test]
fn a_cap_above_the_window_is_kept_as_asked_and_clamped_where_placed() {
    let env = Env::default();
    let small = typed::<Usage>(Some(&usage(200_000, Some(167_000))));
    let inputs = Inputs::new(small.as_ref(), None, &env);
    assert_eq!(
        cap_command("cap 500k", &inputs),
        Ok(CapCommand::Set(Some(500_000)))
    );
    let p = run(
        Some(&usage(200_000, Some(167_000))),
        None,
        &env,
        None,
        Some("500000"),
    )
    .unwrap();
    assert_eq!((p.cap, p.native), (Some(200_000), 167_000));
    let p = run(
        Some(&usage(1_000_000, Some(967_000))),
        None,
        &env,
        None,
        Some("500000"),
    )
    .unwrap();
    assert_eq!((p.cap, p.native), (Some(500_000), 467_000));
}

#[test]
fn cap_with_no_window_known_is_the_window_or_clamps_to_the_classic_capacity() {
    // A cap within the 200K assumed is the window: the points in tokens, the same in any
    // window at least as large (in percent of 200K they were 33 %, 29 %, 21 %: wrong in
    // any other window, where a cap is still 100,000 tokens).
    let p = run(None, None, &Env::default(), None, Some("100k")).unwrap();
    assert_eq!(
        (p.source, p.unit, p.native, p.hard, p.warning, p.cap),
        (
            NativeSource::Cap,
            Unit::Tokens,
            67_000,
            58_808,
            42_424,
            Some(100_000)
        )
    );
    // A larger one is clamped to the window assumed, in percent.
    let p = run(None, None, &Env::default(), None, Some("1m")).unwrap();
    assert_eq!(
        (p.source, p.unit, p.native, p.cap),
        (NativeSource::Percent, Unit::Percent, 83, Some(200_000))
    );
}

// ---- the key -------------------------------------------------------------------------

#[test]
fn key_follows_exactly_the_inputs_read() {
    let e = Env::default();
    let base_usage = usage(200_000, Some(167_000));
    let base = run(Some(&base_usage), None, &e, Some("m"), None)
        .unwrap()
        .key;
    assert!(base.starts_with("t1-") && base.len() == 19, "{base}");

    // Context fill and unread fields do not change it.
    let mut filled = base_usage.clone();
    filled["context"]["tokens"] = json!(150_000);
    filled["context"]["percent"] = json!(75);
    filled["context"]["breakdown"]["totalTokens"] = json!(99);
    filled["rateLimits"] = json!([1]);
    assert_eq!(
        run(Some(&filled), None, &e, Some("m"), None).unwrap().key,
        base
    );
    let unrelated =
        json!({"theme": "dark", "modelSettings": {"other": {"autoCompactWindow": 300000}}});
    assert_eq!(
        run(Some(&base_usage), Some(&unrelated), &e, Some("m"), None)
            .unwrap()
            .key,
        base
    );
    let unread_env = env(&[("HOME", "/x")]);
    assert_eq!(
        run(Some(&base_usage), None, &unread_env, Some("m"), None)
            .unwrap()
            .key,
        base
    );

    // Each input read changes it.
    let changed = [
        run(
            Some(&usage(300_000, Some(167_000))),
            None,
            &e,
            Some("m"),
            None,
        ),
        run(
            Some(&usage(200_000, Some(166_000))),
            None,
            &e,
            Some("m"),
            None,
        ),
        run(Some(&base_usage), None, &e, Some("n"), None),
        run(Some(&base_usage), None, &e, Some("m"), Some("150k")),
        run(
            Some(&base_usage),
            None,
            &env(&[("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "90")]),
            Some("m"),
            None,
        ),
        run(
            Some(&base_usage),
            None,
            &env(&[("DISABLE_COMPACT", "0")]),
            Some("m"),
            None,
        ),
        run(
            Some(&base_usage),
            Some(&json!({"notesoup": {"resetMarginTokens": 1}})),
            &e,
            Some("m"),
            None,
        ),
        run(
            Some(&base_usage),
            Some(&json!({"autoCompactWindow": 150000})),
            &e,
            Some("m"),
            None,
        ),
        run(
            Some(&base_usage),
            Some(&json!({"modelSettings": {"m": {"autoCompactWindow": 150000}}})),
            &e,
            Some("m"),
            None,
        ),
        run(
            Some(&base_usage),
            Some(&json!({"autoCompactEnabled": true})),
            &e,
            Some("m"),
            None,
        ),
    ];
    let mut keys: Vec<String> = changed.into_iter().map(|p| p.unwrap().key).collect();
    keys.push(base);
    let n = keys.len();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), n, "every input read must change the key");
}

#[test]
fn env_from_lookup_reads_every_name() {
    let e = Env::from_lookup(|name| Some(format!("v-{name}")));
    assert_eq!(
        e.pct_override.as_deref(),
        Some("v-CLAUDE_AUTOCOMPACT_PCT_OVERRIDE")
    );
    assert_eq!(
        e.auto_compact_window.as_deref(),
        Some("v-CLAUDE_CODE_AUTO_COMPACT_WINDOW")
    );
    assert_eq!(
        e.disable_auto_compact.as_deref(),
        Some("v-DISABLE_AUTO_COMPACT")
    );
    assert_eq!(e.disable_compact.as_deref(), Some("v-DISABLE_COMPACT"));
    assert_eq!(
        e.max_output_tokens.as_deref(),
        Some("v-CLAUDE_CODE_MAX_OUTPUT_TOKENS")
    );
}

/// The key is stable across releases for the same inputs (a window record keeps it):
/// these values were produced before the inputs became typed.
#[test]
fn key_values_are_stable() {
    let u = json!({"context": {"window": 200000, "tokens": 5,
        "breakdown": {"autoCompactThreshold": 167000, "rawMaxTokens": 200000.0, "isAutoCompactEnabled": true}}});
    let s = json!({"autoCompactWindow": "300k", "autoCompactEnabled": null,
        "modelSettings": {"M@1": {"autoCompactWindow": 400000}, "m": 7, "x": {}},
        "notesoup": {"resetMarginTokens": "8k", "warningRunwayTokens": 1.5}});
    let e = env(&[
        ("DISABLE_COMPACT", "0"),
        ("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "日本"),
    ]);
    let keys = [
        run(Some(&u), Some(&s), &e, Some("m"), Some("150k"))
            .unwrap()
            .key,
        run(Some(&u), None, &Env::default(), None, None)
            .unwrap()
            .key,
        run(None, None, &Env::default(), None, None).unwrap().key,
    ];
    assert_eq!(
        keys,
        [
            "t1-03965dc1b7cda2b3",
            "t1-f67d6fb4687ce2c1",
            "t1-d92014026bc76da1"
        ]
    );
}
