//! The real engine's answers: every fixture in `tests/data/engine/` was recorded from Claude
//! Code 2.1.319 itself (see `tests/data/engine/recorder/record.sh` and each fixture's
//! `produced_by`). A fixture holds what the `limits` op receives (usage, settings, env,
//! model) and what the engine did: the threshold it reported and, for two first-reply sizes,
//! whether it auto-compacted on the next turn. The native point must sit where the engine
//! compacts: above the largest size that did not compact, at or below the smallest that did.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test code: a failed unwrap is a failed test"
)]

use std::path::Path;

use notesoup_thresholds::{
    DEFAULT_RESET_MARGIN, DEFAULT_WARNING_RUNWAY, Env, Inputs, NativeSource, OUTPUT_RESERVE_MAX,
    Policy, Settings, ThresholdError, Unit, Usage, resolve,
};
use serde_json::Value;

struct Fixture {
    case: String,
    request: Value,
    engine: Value,
}

fn fixtures() -> Vec<Fixture> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/engine");
    let mut out: Vec<Fixture> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            let fx: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            assert_eq!(fx["claude_code"], "2.1.319", "{}", p.display());
            assert!(fx["produced_by"].as_str().is_some(), "{}", p.display());
            Fixture {
                case: fx["case"].as_str().unwrap().to_owned(),
                request: fx["limits_request"].clone(),
                engine: fx["engine"].clone(),
            }
        })
        .collect();
    out.sort_by(|a, b| a.case.cmp(&b.case));
    out
}

fn resolve_request(request: &Value, usage: Option<&Value>) -> Result<Policy, ThresholdError> {
    let env = Env::from_lookup(|name| request["env"][name].as_str().map(str::to_owned));
    let usage: Option<Usage> = usage.map(|u| serde_json::from_value(u.clone()).unwrap());
    let settings: Settings = serde_json::from_value(request["settings"].clone()).unwrap();
    resolve(&Inputs {
        usage: usage.as_ref(),
        settings: Some(&settings),
        env: &env,
        model: request["model"].as_str(),
        cap: None,
    })
}

/// `(largest input that did not compact, smallest that did)`.
fn bracket(engine: &Value) -> (Option<u64>, Option<u64>) {
    let trials = engine["trials"].as_array().unwrap();
    let input = |t: &Value| t["first_reply_input_tokens"].as_u64().unwrap();
    let compacted = |t: &Value| t["auto_compacted_next_turn"].as_bool().unwrap();
    (
        trials.iter().filter(|t| !compacted(t)).map(input).max(),
        trials.iter().filter(|t| compacted(t)).map(input).min(),
    )
}

#[derive(Debug, Default)]
struct Seen {
    enforced: usize,
    with_pct: usize,
    not_enforced: usize,
    off: usize,
    no_room: usize,
}

/// Checks one fixture against the crate; misses go to `failures`.
fn check_fixture(fx: &Fixture, seen: &mut Seen, failures: &mut Vec<String>) {
    let engine = &fx.engine;
    let enabled = engine["auto_compact_enabled"].as_bool().unwrap();
    let enforced = enabled && engine["autocompact_source"] != "auto";
    let has_pct = fx.request["env"]
        .get("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE")
        .is_some();
    let (lo, hi) = bracket(engine);
    let result = resolve_request(&fx.request, Some(&fx.request["usage"]));
    let case = &fx.case;
    let mut check = |ok: bool, what: String| {
        if !ok {
            failures.push(format!(
                "{case}: {what}; policy {result:?}; engine {engine}"
            ));
        }
    };
    match (&result, enforced, enabled) {
        (Ok(p), true, _) => {
            seen.enforced += 1;
            let native = p.native;
            check(
                p.source == NativeSource::Breakdown,
                "source is not the breakdown".into(),
            );
            check(p.unit == Unit::Tokens, "unit is not tokens".into());
            check(p.auto_clear, "auto clear off".into());
            check(
                lo.is_none_or(|lo| native > lo) && hi.is_some_and(|hi| native <= hi),
                format!("native {native} outside the engine's bracket ({lo:?}, {hi:?}]"),
            );
            if has_pct {
                seen.with_pct += 1;
            } else {
                check(
                    Some(native) == engine["reported_threshold"].as_u64(),
                    format!("native {native} != the engine's reported threshold"),
                );
            }
            check(
                p.hard == native - reset_margin(&fx.request)
                    && p.warning == p.hard - warning_runway(&fx.request),
                "margins not applied".into(),
            );
        }
        (Err(ThresholdError::NoRoom { .. }), true, _) => {
            // Only when the engine itself compacts below notesoup's margins.
            seen.no_room += 1;
            check(
                hi.is_some_and(|hi| hi <= DEFAULT_RESET_MARGIN + DEFAULT_WARNING_RUNWAY),
                "no room although the engine's point leaves room".into(),
            );
        }
        (Ok(p), false, true) => {
            // Source "auto": Claude reports the threshold but does not act on it;
            // notesoup still takes it (never later than Claude).
            seen.not_enforced += 1;
            check(
                hi.is_none(),
                "the engine compacted although not enforced".into(),
            );
            check(
                Some(p.native) == engine["reported_threshold"].as_u64(),
                "native != reported threshold".into(),
            );
        }
        (Ok(p), _, false) => {
            // Auto-compaction off: native = W − R, W as the engine reports it.
            seen.off += 1;
            check(hi.is_none(), "the engine compacted although off".into());
            check(
                !p.auto_clear,
                "auto clear on although auto-compaction is off".into(),
            );
            let w = engine["raw_max_tokens"].as_u64().unwrap();
            check(
                p.native == w - OUTPUT_RESERVE_MAX,
                format!("native {} != W − R = {}", p.native, w - OUTPUT_RESERVE_MAX),
            );
            let disable_compact = fx.request["env"].get("DISABLE_COMPACT").is_some();
            check(
                p.warnings_enabled != disable_compact && p.explicit_reset != disable_compact,
                "DISABLE_COMPACT not honoured".into(),
            );
        }
        (Err(_), _, _) => check(false, "unexpected error".into()),
    }

    check_window_source(fx, &result, failures);
}

/// The window source (the same request without the breakdown) reaches the same point.
fn check_window_source(
    fx: &Fixture,
    result: &Result<Policy, ThresholdError>,
    failures: &mut Vec<String>,
) {
    // The window source, without the breakdown, reaches the same point.
    let mut usage = fx.request["usage"].clone();
    usage["context"]
        .as_object_mut()
        .unwrap()
        .remove("breakdown");
    let from_window = resolve_request(&fx.request, Some(&usage));
    let same = match (result, &from_window) {
        (Ok(a), Ok(b)) => {
            b.source == NativeSource::Window
                && (a.native, a.hard, a.warning) == (b.native, b.hard, b.warning)
        }
        (Err(a), Err(b)) => std::mem::discriminant(a) == std::mem::discriminant(b),
        _ => false,
    };
    if !same {
        failures.push(format!(
            "{}: window source disagrees: {from_window:?} vs {result:?}",
            fx.case
        ));
    }
}

#[test]
fn native_point_is_where_the_real_engine_compacts() {
    let all = fixtures();
    let mut seen = Seen::default();
    let mut failures = Vec::new();
    for fx in &all {
        check_fixture(fx, &mut seen, &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The table must really cover each kind of case (an empty folder must not pass).
    assert!(all.len() >= 25, "only {} engine fixtures", all.len());
    assert!(
        seen.enforced >= 15
            && seen.with_pct >= 3
            && seen.not_enforced >= 1
            && seen.off >= 5
            && seen.no_room >= 1,
        "{seen:?}"
    );
}

fn reset_margin(request: &Value) -> u64 {
    request["settings"]["notesoup"]["resetMarginTokens"]
        .as_u64()
        .unwrap_or(DEFAULT_RESET_MARGIN)
}

fn warning_runway(request: &Value) -> u64 {
    request["settings"]["notesoup"]["warningRunwayTokens"]
        .as_u64()
        .unwrap_or(DEFAULT_WARNING_RUNWAY)
}
