//! Pi's own answers: `tests/data/pi/cases.json` was recorded by `tests/data/pi/record.mjs`,
//! which runs Pi 1.6.0's own `SettingsManager` (global and project layers, project trust,
//! `getCompactionSettings(model)`) and `shouldCompact` from its npm package. For every case
//! the Pi policy must refuse exactly where Pi throws, and otherwise put its native point one
//! token below the smallest context Pi compacts at, from the two files merged by
//! `PiSettings::merged` and from Pi's own merge (`pi.getSettings()`) alike.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test code: a failed unwrap is a failed test"
)]

use std::path::Path;

use notesoup_thresholds::{PiInputs, PiSettings, ThresholdError, resolve_pi};
use serde_json::Value;

fn cases() -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/pi/cases.json");
    let recorded: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(recorded["pi"], "1.6.0");
    assert!(recorded["produced_by"].as_str().is_some());
    recorded["cases"].as_array().unwrap().clone()
}

fn layer(value: &Value) -> PiSettings {
    serde_json::from_value(value.clone()).unwrap()
}

#[test]
fn the_pi_point_is_where_pi_compacts() {
    let cases = cases();
    assert!(cases.len() >= 30, "{} cases", cases.len());
    for case in &cases {
        let name = case["case"].as_str().unwrap();
        let pi = &case["pi"];
        let window = case["window"].as_u64().unwrap();
        let model = case["model"].as_str();
        let trusted = case["projectTrusted"].as_bool().unwrap();
        let project = layer(&case["project"]);
        let from_files = PiSettings::merged(&layer(&case["global"]), trusted.then_some(&project));
        let from_pi = layer(&pi["merged"]);
        for (how, settings) in [("files", &from_files), ("getSettings", &from_pi)] {
            let got = resolve_pi(&PiInputs {
                model,
                ..PiInputs::new(window, Some(settings))
            });
            let read = settings.compaction_settings(model);
            if let Some(message) = pi["error"].as_str() {
                let Err(ThresholdError::PiSetting { setting, .. }) = &got else {
                    panic!("{name} ({how}): Pi refuses ({message}), we gave {got:?}");
                };
                assert!(
                    message.starts_with(&format!("Invalid {setting} setting:")),
                    "{name} ({how}): Pi: {message}; we: {setting}"
                );
                continue;
            }
            let read = read.unwrap();
            assert_eq!(
                read.enabled,
                pi["enabled"].as_bool().unwrap(),
                "{name} ({how})"
            );
            assert_eq!(
                Some(read.reserve_tokens),
                pi["reserveTokens"].as_u64(),
                "{name} ({how})"
            );
            assert_eq!(
                Some(read.keep_recent_tokens),
                pi["keepRecentTokens"].as_u64(),
                "{name} ({how})"
            );
            // Pi compacts at `native + 1` (at once when the reserve is above the window);
            // with compaction off it never does, and we never clear by ourselves.
            let native =
                i64::try_from(window).unwrap() - i64::try_from(read.reserve_tokens).unwrap();
            match pi["compactsAt"].as_i64() {
                Some(at) => assert_eq!(native.max(-1) + 1, at, "{name} ({how})"),
                None => assert!(!read.enabled, "{name} ({how})"),
            }
            match got {
                Ok(policy) => {
                    assert_eq!(
                        i64::try_from(policy.native).unwrap(),
                        native,
                        "{name} ({how})"
                    );
                    if let Some(at) = pi["compactsAt"].as_u64() {
                        assert_eq!(policy.native + 1, at, "{name} ({how})");
                    }
                    assert_eq!(policy.auto_clear, read.enabled, "{name} ({how})");
                    assert!(policy.warning <= policy.hard && policy.hard <= policy.native);
                }
                Err(ThresholdError::NoRoom { .. }) => {
                    assert!(
                        native < 24_577,
                        "{name} ({how}): no room at native {native}"
                    );
                }
                Err(ThresholdError::PiReserveTooLarge { .. }) => {
                    assert!(
                        native <= 0,
                        "{name} ({how}): reserve refused at native {native}"
                    );
                }
                Err(err) => panic!("{name} ({how}): {err}"),
            }
        }
    }
}

#[test]
fn pis_merge_of_the_notesoup_margins_is_ours() {
    let case = cases()
        .into_iter()
        .find(|c| c["case"] == "notesoup-margins-merged")
        .unwrap();
    let ours = PiSettings::merged(&layer(&case["global"]), Some(&layer(&case["project"])));
    let pi = layer(&case["pi"]["merged"]);
    let policy = |s: &PiSettings| resolve_pi(&PiInputs::new(200_000, Some(s))).unwrap();
    assert_eq!(policy(&ours), policy(&pi));
    assert_eq!(policy(&ours).hard, 183_616 - 4096);
    assert_eq!(policy(&ours).warning, 183_616 - 4096 - 8192);
}
