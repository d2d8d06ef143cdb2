use super::*;

/// Lines of a real 2.1.319 debug log (`claude -p` with three Bash calls), paths shortened,
/// plus one spawn at 07:51:27.500 while no hook ran.
const LOG: &str = "\
2026-12-03T07:51:25.484Z [DEBUG] hooks module notesoup@inline classic.SessionStart settled in 15.4ms (worker hop, next() included)
2026-12-03T07:51:25.852Z [DEBUG] hooks module notesoup@inline session.start settled in 350.2ms (worker hop, next() included)
2026-12-03T07:51:25.872Z [DEBUG] $.process.run (notesoup): /bin/notesoup-helper with 1 args in /w (pid 31858)
2026-12-03T07:51:25.890Z [DEBUG] $.process.run (notesoup): /bin/notesoup-helper exited 0 in 22ms, 2491 + 0 chars
2026-12-03T07:51:25.906Z [DEBUG] hooks module cc-plugin-agents-md@builtin prompt.context settled in 13.8ms (native link, next() included)
2026-12-03T07:51:25.907Z [DEBUG] hooks module notesoup@inline prompt.context settled in 45.9ms (worker hop, next() included)
2026-12-03T07:51:25.936Z [DEBUG] $.process.run (notesoup): /bin/notesoup-helper with 1 args in /w (pid 31859)
2026-12-03T07:51:25.938Z [DEBUG] $.process.run (notesoup): /bin/notesoup-helper exited 0 in 4ms, 379 + 0 chars
2026-12-03T07:51:25.984Z [DEBUG] $.process.run (notesoup): /bin/notesoup-helper with 1 args in /w (pid 31860)
2026-12-03T07:51:25.985Z [DEBUG] $.process.run (notesoup): /bin/notesoup-helper exited 0 in 4ms, 199 + 0 chars
2026-12-03T07:51:25.991Z [DEBUG] hooks module notesoup@inline session.append settled in 2.3ms (worker hop, next() included)
2026-12-03T07:51:26.064Z [DEBUG] hooks module notesoup@inline prompt.submit settled in 135.2ms (worker hop, next() included)
2026-12-03T07:51:26.076Z [DEBUG] hooks module notesoup@inline turn.start settled in 52.1ms (worker hop, next() included)
2026-12-03T07:51:26.177Z [DEBUG] $.process.run (notesoup): /bin/notesoup-helper with 1 args in /w (pid 31874)
2026-12-03T07:51:26.178Z [DEBUG] $.process.run (notesoup): /bin/notesoup-helper exited 0 in 10ms, 413 + 0 chars
2026-12-03T07:51:26.181Z [DEBUG] $.process.run (notesoup): /bin/notesoup-helper with 1 args in /w (pid 31875)
2026-12-03T07:51:26.183Z [DEBUG] $.process.run (notesoup): /bin/notesoup-helper exited 0 in 4ms, 414 + 0 chars
2026-12-03T07:51:26.356Z [DEBUG] hooks module notesoup@inline session.append settled in 9.4ms (worker hop, next() included)
2026-12-03T07:51:26.660Z [DEBUG] hooks module notesoup@inline turn.step stream settled in 528.1ms (worker hop, next() included)
2026-12-03T07:51:26.694Z [DEBUG] $.process.run (notesoup): /bin/notesoup-helper with 1 args in /w (pid 31955)
2026-12-03T07:51:26.695Z [DEBUG] $.process.run (notesoup): /bin/notesoup-helper exited 0 in 3ms, 414 + 0 chars
2026-12-03T07:51:26.697Z [DEBUG] hooks module notesoup@inline tool.call settled in 298.6ms (worker hop, next() included)
2026-12-03T07:51:27.500Z [DEBUG] $.process.run (notesoup): /bin/notesoup-helper with 1 args in /w (pid 31999)
";

#[test]
fn each_spawn_goes_to_the_shortest_notesoup_hook_call_running_then() {
    let s = Spawns::of_log(LOG);
    let get = |e: &str| s.by_event.get(e).copied().unwrap_or_default();
    // The boot build runs inside prompt.context (not the session.start that settled before).
    assert_eq!(
        get("prompt.context"),
        EventSpawns {
            calls: 1,
            spawns: 1,
            max: 1
        }
    );
    assert_eq!(
        get("prompt.submit"),
        EventSpawns {
            calls: 1,
            spawns: 2,
            max: 2
        }
    );
    // Inside the 528 ms step, not the session.append calls around it.
    assert_eq!(
        get("turn.step stream"),
        EventSpawns {
            calls: 1,
            spawns: 2,
            max: 2
        }
    );
    assert_eq!(
        get("tool.call"),
        EventSpawns {
            calls: 1,
            spawns: 1,
            max: 1
        }
    );
    assert_eq!(
        get("session.append"),
        EventSpawns {
            calls: 2,
            spawns: 0,
            max: 0
        }
    );
    assert_eq!(get("session.start").spawns, 0);
    // Another plugin's hook is not ours.
    assert_eq!(s.calls(), 9);
    assert_eq!(s.outside, 1);
    assert_eq!(s.total(), 7);
    assert_eq!(s.max(), 2);
    let table = s.table();
    assert!(
        table.contains("| turn.step stream | 1 | 2 | 2.00 | 2 |"),
        "{table}"
    );
    assert!(table.contains("| (no hook running) | | 1 | | |"), "{table}");
    assert!(table.contains("| **all** | 9 | 7 | 0.78 | 2 |"), "{table}");
}

#[test]
fn a_log_without_notesoup_counts_nothing() {
    let s = Spawns::of_log("2026-12-03T07:51:25.484Z [DEBUG] something else\nnot a log line\n");
    assert_eq!(s, Spawns::default());
    assert_eq!(s.max(), 0);
}
