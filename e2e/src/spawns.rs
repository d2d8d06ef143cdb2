//! Helper spawns per hook event, read from the engine's debug log.
//!
//! Claude Code 2.1.319's `--debug-file` log has one line per finished hook call,
//! `hooks module notesoup@inline <event>[ stream] settled in <ms>ms ...`, and one per
//! process the mod starts, `$.process.run (notesoup): <path> with <n> args ...`. A spawn
//! belongs to the shortest notesoup hook call whose interval (its settled time minus its
//! duration, to its settled time, with the log's 1 ms resolution) holds the spawn's
//! line; a spawn no call holds (work the module left running after its hook returned) is
//! counted apart.

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The log's timestamps are whole milliseconds; a spawn this close to a call's edge is
/// inside it.
const EDGE_MS: f64 = 1.0;

/// One hook event's figures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EventSpawns {
    /// How many times the hook ran.
    pub calls: usize,
    /// Helper spawns during those calls.
    pub spawns: usize,
    /// The most spawns during one call.
    pub max: usize,
}

/// Helper spawns per notesoup hook event in one debug log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Spawns {
    /// Per hook event (`turn.step stream` is its own event), by name.
    pub by_event: BTreeMap<String, EventSpawns>,
    /// Spawns while no notesoup hook call was running.
    pub outside: usize,
}

impl Spawns {
    /// Counts the spawns of `debug_log` (the engine's `--debug-file` output).
    pub fn of_log(debug_log: &str) -> Self {
        let mut calls: Vec<(String, f64, f64)> = Vec::new();
        let mut spawn_times: Vec<f64> = Vec::new();
        for line in debug_log.lines() {
            let Some(at) = line.get(..24).and_then(millis) else {
                continue;
            };
            if let Some(rest) = line.split("hooks module notesoup@inline ").nth(1) {
                let Some((event, took)) = rest.split_once(" settled in ") else {
                    continue;
                };
                let Some(ms) = took.split("ms").next().and_then(|n| n.parse::<f64>().ok()) else {
                    continue;
                };
                calls.push((event.to_owned(), at - ms, at));
            } else if line.contains("$.process.run (notesoup): ") && line.contains(" with ") {
                spawn_times.push(at);
            }
        }
        let mut per_call = vec![0usize; calls.len()];
        let mut out = Self::default();
        for t in spawn_times {
            let holder = calls
                .iter()
                .enumerate()
                .filter(|(_, (_, from, to))| *from - EDGE_MS <= t && t <= *to + EDGE_MS)
                .min_by(|a, b| (a.1.2 - a.1.1).total_cmp(&(b.1.2 - b.1.1)))
                .map(|(i, _)| i);
            match holder {
                Some(i) => per_call[i] += 1,
                None => out.outside += 1,
            }
        }
        for ((event, _, _), n) in calls.iter().zip(per_call) {
            let e = out.by_event.entry(event.clone()).or_default();
            e.calls += 1;
            e.spawns += n;
            e.max = e.max.max(n);
        }
        out
    }

    /// All spawns counted.
    pub fn total(&self) -> usize {
        self.by_event.values().map(|e| e.spawns).sum::<usize>() + self.outside
    }

    /// All hook calls counted.
    pub fn calls(&self) -> usize {
        self.by_event.values().map(|e| e.calls).sum()
    }

    /// The most spawns any one hook call made.
    pub fn max(&self) -> usize {
        self.by_event.values().map(|e| e.max).max().unwrap_or(0)
    }

    /// A Markdown table: event, calls, spawns, spawns per call, most in one call.
    pub fn table(&self) -> String {
        let mut out =
            String::from("| hook event | calls | spawns | per call | most in one call |\n");
        out.push_str("|---|---|---|---|---|\n");
        for (event, e) in &self.by_event {
            let per = ratio(e.spawns, e.calls);
            let _ = writeln!(
                out,
                "| {event} | {} | {} | {per} | {} |",
                e.calls, e.spawns, e.max
            );
        }
        if self.outside > 0 {
            let _ = writeln!(out, "| (no hook running) | | {} | | |", self.outside);
        }
        let _ = writeln!(
            out,
            "| **all** | {} | {} | {} | {} |",
            self.calls(),
            self.total(),
            ratio(self.total(), self.calls()),
            self.max()
        );
        out
    }
}

fn ratio(a: usize, b: usize) -> String {
    if b == 0 {
        return "-".into();
    }
    #[allow(clippy::cast_precision_loss, reason = "counts of a few hundred")]
    let r = a as f64 / b as f64;
    format!("{r:.2}")
}

/// Milliseconds since midnight of an ISO timestamp `2026-12-03T07:51:25.235Z`.
fn millis(stamp: &str) -> Option<f64> {
    let time = stamp.get(11..23)?;
    let mut parts = time.split([':', '.']);
    let mut next = || parts.next()?.parse::<f64>().ok();
    let (h, m, s, ms) = (next()?, next()?, next()?, next()?);
    Some(((h * 60.0 + m) * 60.0 + s) * 1000.0 + ms)
}

#[cfg(test)]
mod tests;
