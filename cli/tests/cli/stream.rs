//! `history show` writes a session as it reads it: a reader that goes away (`| head`)
//! stops it quietly before it has made the rest, and what it writes into a pipe is, byte for
//! byte, the whole output it would have written at once.

use std::fs;
use std::io::{BufRead as _, BufReader, Read as _};
use std::path::PathBuf;
use std::process::Stdio;

use super::World;

/// A Claude session of about `bytes`: prompts, answers, and `Bash` calls whose results
/// are 64 KiB each, its texts varied (a seeded walk over a few words).
fn large_claude_session(world: &World, id: &str, bytes: usize) -> PathBuf {
    const WORDS: [&str; 8] = [
        "alpha", "parser", "lexer", "cargo", "trait", "module", "error", "fix",
    ];
    let mut seed = 7_u64;
    let mut text = |len: usize| {
        let mut t = String::with_capacity(len + 8);
        while t.len() < len {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            t.push_str(WORDS[usize::try_from(seed >> 61).unwrap()]);
            t.push(' ');
        }
        t
    };
    let mut lines = String::new();
    let mut parent: Option<String> = None;
    let mut n = 0;
    while lines.len() < bytes {
        let message = match n % 4 {
            0 => serde_json::json!({"role": "user", "content": text(300)}),
            1 => serde_json::json!({"role": "assistant", "content": [
                {"type": "text", "text": text(200)},
                {"type": "tool_use", "id": format!("toolu_{n}"), "name": "Bash",
                 "input": {"command": format!("cargo test {}", text(20))}}]}),
            2 => serde_json::json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": format!("toolu_{}", n - 1),
                 "content": text(64 << 10)}]}),
            _ => serde_json::json!({"role": "assistant", "content": [
                {"type": "text", "text": text(300)}]}),
        };
        let uuid = format!("{id}-{n}");
        let kind = message["role"].clone();
        lines.push_str(
            &serde_json::json!({
                "parentUuid": parent, "isSidechain": false, "type": kind, "message": message,
                "uuid": uuid, "timestamp": format!("2026-11-03T10:{:02}:00Z", n % 60),
                "cwd": "/work/app", "sessionId": id, "version": "2.1.319"
            })
            .to_string(),
        );
        lines.push('\n');
        parent = Some(uuid);
        n += 1;
    }
    let dir = world.path("claude/projects/-large");
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{id}.jsonl"));
    fs::write(&path, lines).unwrap();
    path
}

/// The peak resident memory of a running process, in bytes (`VmHWM`).
fn peak_memory(pid: u32) -> u64 {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().strip_suffix("kB"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap();
    kib * 1024
}

/// `history show --all | head -1` on a session of 24 MB: the first line comes while
/// the rest is still to be made (the process, blocked on the full pipe, has held no more
/// than the session's decoded history: under twice its file, the performance issue's bound
/// on peak memory), and when the reader goes away the process ends quietly, exit 0, as `rg`
/// does. Before, it made the whole text (and under `--json` the whole document twice)
/// before it wrote a line.
#[test]
fn show_all_stops_quietly_when_its_reader_goes_away() {
    let world = World::new("stream-closed");
    let id = "eeee5555-0000-4000-8000-000000000001";
    let file = large_claude_session(&world, id, 24 << 20);
    let size = fs::metadata(&file).unwrap().len();
    for json in [false, true] {
        let mut args = vec!["history", "show", "claude:eeee5555", "--all"];
        if json {
            args.push("--json");
        }
        let mut child = world
            .command(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        stdout.read_line(&mut first).unwrap();
        let want = if json {
            "{\n".to_owned()
        } else {
            format!("claude:{id}: ")
        };
        assert!(first.starts_with(&want), "json {json}: {first}");
        // The output is hundreds of times the pipe's room: the process waits on it.
        assert!(child.try_wait().unwrap().is_none(), "json {json}");
        let peak = peak_memory(child.id());
        assert!(
            peak < 2 * size,
            "json {json}: {peak} bytes at the first line, for a file of {size}"
        );
        drop(stdout);
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        let status = child.wait().unwrap();
        assert_eq!(
            (status.code(), stderr.as_str()),
            (Some(0), ""),
            "json {json}"
        );
    }
}

/// `history show --all` of a 24 MB session on a terminal, through a pager: the pager gets
/// its first screen while the rest is still to be made (the process then holds no more than
/// the session's decoded history: under twice its file), and a pager the person quits
/// early ends the command quietly, exit 0 and nothing on the terminal but the pager's.
/// Before, the whole text was made before the pager started.
#[test]
fn show_all_streams_into_a_pager_that_may_quit_early() {
    let mut world = World::new("stream-pager");
    let id = "eeee5555-0000-4000-8000-000000000002";
    let file = large_claude_session(&world, id, 24 << 20);
    let size = fs::metadata(&file).unwrap().len();
    let (first, peak) = (world.path("first"), world.path("peak"));
    // The pager reads one line, notes the command's peak memory then (its parent is the
    // shell's parent), and quits.
    world.set(
        "PAGER",
        &format!(
            "head -n 1 > {}; grep VmHWM /proc/$PPID/status > {}",
            first.display(),
            peak.display()
        ),
    );
    // stderr to a file: what the command says there is checked apart from the terminal.
    let stderr = world.path("stderr");
    let command = format!(
        "{} history show claude:eeee5555 --all 2> {}",
        super::BIN,
        stderr.display()
    );
    let out = on_a_terminal(&world, &command);
    let shown = String::from_utf8_lossy(&out.stdout);
    assert_eq!((out.status.code(), shown.as_ref()), (Some(0), ""));
    assert_eq!(fs::read_to_string(stderr).unwrap(), "");
    let first = fs::read_to_string(first).unwrap();
    assert!(first.contains(&format!("claude:{id}: ")), "{first}");
    let peak: u64 = fs::read_to_string(peak)
        .unwrap()
        .strip_prefix("VmHWM:")
        .and_then(|v| v.trim().strip_suffix("kB"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap();
    let peak = peak * 1024;
    assert!(
        peak < 2 * size,
        "{peak} bytes when the pager read its first line, for a file of {size}"
    );
}

/// What `history show` writes into a pipe, a block at a time as it reads the session, is
/// byte for byte what the same run writes when it keeps its output whole (the run a pager
/// is given), for a session of many blocks and for every session of the fixtures, as rows
/// and as `--json`, in both orders; and the `--json` document is the one a whole-document
/// writer makes of its data (keys sorted, two-space indents).
#[test]
fn a_streamed_show_is_the_whole_output_byte_for_byte() {
    let world = World::new("stream-same");
    large_claude_session(&world, "eeee5555-0000-4000-8000-000000000002", 2 << 20);
    let listed = world.run(&["history", "sessions", "--json", "--limit", "200"]);
    let sessions: Vec<String> = listed.json()["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["session"].as_str().unwrap().to_owned())
        .collect();
    assert!(sessions.len() >= 4, "{sessions:?}");
    let env = notesoup_cli::Env::new(world.vars.clone(), world.path("project/sub"), false);
    for session in &sessions {
        for flags in [
            &["--all"][..],
            &["--all", "--reverse"],
            &["--all", "--json"],
            &["--all", "--json", "--reverse"],
            &["--limit", "3", "--json"],
            &["--limit", "3", "--roles", "user"],
        ] {
            let mut args = vec!["history", "show", session.as_str()];
            args.extend(flags);
            let streamed = world.command(&args).output().unwrap();
            let whole = notesoup_cli::run(std::iter::once("notesoup").chain(args.clone()), &env);
            let what = args.join(" ");
            assert_eq!(
                streamed.status.code(),
                Some(i32::from(whole.exit)),
                "{what}"
            );
            assert_eq!(
                String::from_utf8_lossy(&streamed.stderr),
                whole.stderr,
                "{what}"
            );
            assert!(
                streamed.stdout == whole.stdout.as_bytes(),
                "{what}: the streamed output differs from the whole one"
            );
            if flags.contains(&"--json") {
                let doc: serde_json::Value = serde_json::from_str(&whole.stdout).unwrap();
                let at_once = serde_json::to_string_pretty(&doc).unwrap() + "\n";
                assert!(
                    whole.stdout == at_once,
                    "{what}: not the document written at once"
                );
            }
        }
    }
}

/// A stdout that cannot take the text for another reason than its reader going away (a
/// full disk) is an error, said on stderr with exit 1: the output is cut, and a script
/// must not take it for whole.
#[test]
fn a_stdout_that_fails_is_an_error() {
    let world = World::new("stream-full");
    let out = world
        .command(&["history", "show", "claude:da56", "--all"])
        .stdout(fs::File::options().write(true).open("/dev/full").unwrap())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with("notesoup: could not write the output to stdout: "),
        "{stderr}"
    );
}

/// `history search TEXT | head -1` over many sessions: the matches are written as each
/// session is searched, and when the reader goes away the search stops there, quietly (no
/// footer counting a search cut short), exit 0. Before, every session was searched and the
/// footer said "200 of 207 sessions matched" on stderr to a person who had read one line.
#[test]
fn a_search_stops_quietly_when_its_reader_goes_away() {
    let world = World::new("stream-search");
    // 200 sessions of ten prompts that match: ten rows each, hundreds of KiB in all.
    let dir = world.path("claude/projects/-many");
    fs::create_dir_all(&dir).unwrap();
    for n in 0..200 {
        let id = format!("{n:08x}-0000-4000-8000-00000000000f");
        let lines: Vec<String> = (0..10)
            .map(|i| {
                serde_json::json!({
                    "parentUuid": (i > 0).then(|| format!("u{}", i - 1)), "isSidechain": false,
                    "type": "user", "message": {"role": "user",
                        "content": format!("the zebra-stripe {i} {}", "word ".repeat(40))},
                    "uuid": format!("u{i}"), "timestamp": "2026-11-03T10:00:00Z",
                    "cwd": "/work/app", "sessionId": id, "version": "2.1.319"
                })
                .to_string()
            })
            .collect();
        fs::write(dir.join(format!("{id}.jsonl")), lines.join("\n") + "\n").unwrap();
    }
    let mut child = world
        .command(&["history", "search", "zebra-stripe"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert!(first.contains("SEQ"), "{first}");
    drop(stdout);
    ends_quietly(child);
}

/// `history search TEXT` on a terminal, through a pager, over 3,000 sessions of ten
/// matches each: the pager gets its first screen before the search has read every session
/// (it reads on only as the pager takes the text, a few dozen sessions ahead of what it
/// wrote at most), and when the person quits the pager the
/// search stops there, quietly: exit 0, no footer counting a search cut short. Before, every
/// session was searched before the pager started, and the footer came after it.
#[test]
fn a_search_streams_into_a_pager_that_may_quit_early() {
    let mut world = World::new("stream-search-pager");
    let total = many_matching_sessions(&world, 3000);
    let (first, io) = (world.path("first"), world.path("io"));
    // The pager reads one line, notes how much the command has read by then (its parent is
    // the shell's parent), and quits.
    world.set(
        "PAGER",
        &format!(
            "head -n 1 > {}; cat /proc/$PPID/io > {}",
            first.display(),
            io.display()
        ),
    );
    // stderr to a file: nothing there (a progress bar is drawn only on a terminal).
    let stderr = world.path("stderr");
    let command = format!(
        "{} history search zebra-stripe 2> {}",
        super::BIN,
        stderr.display()
    );
    let out = on_a_terminal(&world, &command);
    let shown = String::from_utf8_lossy(&out.stdout);
    let first = fs::read_to_string(first).unwrap();
    assert!(first.contains("SEQ"), "{first:?}");
    let read = rchar(&fs::read_to_string(io).unwrap());
    assert!(
        read < total,
        "{read} bytes read when the pager read its first line, of {total} in the sessions"
    );
    assert_eq!((out.status.code(), shown.as_ref()), (Some(0), ""));
    assert_eq!(fs::read_to_string(stderr).unwrap(), "");
}

/// A search that finds little after the pager's first screen stops once the person quits
/// the pager, not when it next writes (review of the streamed pager: after `q` a search for
/// a rare text read on through every session, and Ctrl-C did nothing meanwhile). The pager
/// reads a line, notes how much notesoup has read, closes its input, waits until notesoup
/// is down to its main thread (the search over), and notes it again.
#[test]
fn a_search_stops_soon_after_the_pager_is_quit_though_it_writes_nothing() {
    let mut world = World::new("stream-search-pager-quit");
    let total = many_matching_sessions(&world, 3000);
    // Only the 20 newest sessions hold the text searched for.
    let dir = world.path("claude/projects/-many");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let base = std::time::SystemTime::now() - std::time::Duration::from_secs(86_400);
    for (i, file) in files.iter().enumerate() {
        if i >= 20 {
            let text = fs::read_to_string(file).unwrap();
            fs::write(file, text.replace("zebra-stripe", "horse-stripe")).unwrap();
        }
        let at = base - std::time::Duration::from_secs(60 * i as u64);
        fs::File::options()
            .write(true)
            .open(file)
            .unwrap()
            .set_modified(at)
            .unwrap();
    }
    // What notesoup has read when the pager quits, and when its search has ended: only
    // what it reads in between is the search's (a pager the machine's load starts late
    // finds more read already, which says nothing of the search).
    let (at_quit, at_end) = (world.path("io-quit"), world.path("io-end"));
    world.set(
        "PAGER",
        &format!(
            "head -n 1 > /dev/null; cat /proc/$PPID/io > {}; exec 0<&-; \
             while [ \"$(grep Threads: /proc/$PPID/status | tr -dc 0-9)\" != 1 ]; do sleep 0.02; done; \
             cat /proc/$PPID/io > {}",
            at_quit.display(),
            at_end.display()
        ),
    );
    world.set("LINES", "5");
    let command = format!("{} history search zebra-stripe 2> /dev/null", super::BIN);
    let out = on_a_terminal(&world, &command);
    let read =
        rchar(&fs::read_to_string(at_end).unwrap()) - rchar(&fs::read_to_string(at_quit).unwrap());
    assert!(
        read < total / 2,
        "{read} bytes read after the pager was quit, of {total} in the sessions: the search went on"
    );
    assert_eq!(out.status.code(), Some(0));
}

/// `n` Claude sessions of ten prompts that each hold `zebra-stripe`; their bytes in all.
fn many_matching_sessions(world: &World, n: usize) -> u64 {
    let dir = world.path("claude/projects/-many");
    fs::create_dir_all(&dir).unwrap();
    let mut total = 0;
    for n in 0..n {
        let id = format!("{n:08x}-0000-4000-8000-00000000000e");
        let lines: Vec<String> = (0..10)
            .map(|i| {
                serde_json::json!({
                    "parentUuid": (i > 0).then(|| format!("u{}", i - 1)), "isSidechain": false,
                    "type": "user", "message": {"role": "user",
                        "content": format!("the zebra-stripe {i} {}", "word ".repeat(40))},
                    "uuid": format!("u{i}"), "timestamp": "2026-11-03T10:00:00Z",
                    "cwd": "/work/app", "sessionId": id, "version": "2.1.319"
                })
                .to_string()
            })
            .collect();
        let text = lines.join("\n") + "\n";
        total += text.len() as u64;
        fs::write(dir.join(format!("{id}.jsonl")), text).unwrap();
    }
    total
}

/// Waits for `child`, whose reader went away: it ends with exit 0 and nothing on stderr.
fn ends_quietly(mut child: std::process::Child) {
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!((status.code(), stderr.as_str()), (Some(0), ""));
}

/// Runs `command` through `sh` on a terminal (`script`'s pty), in the world's project.
fn on_a_terminal(world: &World, command: &str) -> std::process::Output {
    std::process::Command::new("/usr/bin/script")
        .args(["-qec", command, "/dev/null"])
        .env_clear()
        .envs(world.vars.iter().cloned())
        .current_dir(world.path("project/sub"))
        .output()
        .unwrap()
}

/// The bytes read (`rchar`) in a copy of a process's `/proc/<pid>/io`.
fn rchar(io: &str) -> u64 {
    io.lines()
        .find_map(|l| l.strip_prefix("rchar:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap()
}

/// How many bytes a running process has read (`rchar`).
fn bytes_read(pid: u32) -> u64 {
    rchar(&fs::read_to_string(format!("/proc/{pid}/io")).unwrap())
}

/// `history search TEXT --json` over 3,000 sessions writes its document as the sessions
/// are searched: its first line comes before the search has read every session, and a
/// reader that goes away stops it quietly (exit 0). Before, the document was written
/// whole at the end, every session's matches held until then.
#[test]
fn a_search_json_streams_and_stops_quietly() {
    let world = World::new("stream-search-json");
    let total = many_matching_sessions(&world, 3000);
    let mut child = world
        .command(&["history", "search", "zebra-stripe", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert_eq!(first, "{\n");
    let read = bytes_read(child.id());
    assert!(
        read < total,
        "{read} bytes read at the document's first line, of {total} in the sessions"
    );
    drop(stdout);
    ends_quietly(child);
}

/// The `--json` document a search writes a session at a time is, byte for byte, the whole
/// document written at once (keys sorted, two spaces), with matches, with a session that
/// could not be read (`skipped`, written after `sessions`), and with no match at all.
#[test]
fn a_streamed_search_json_is_the_whole_document() {
    let world = World::new("stream-search-json-bytes");
    many_matching_sessions(&world, 12);
    let broken = world.path("claude/projects/-many/0b0b0000-0000-4000-8000-00000000000e.jsonl");
    fs::write(
        &broken,
        "{\"type\":\"user\",\"zebra-stripe only-in-the-broken-one\n",
    )
    .unwrap();
    for query in ["zebra-stripe", "only-in-the-broken-one"] {
        let run = world.run(&["history", "search", query, "--json", "--limit", "3"]);
        let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        assert_eq!(
            run.stdout,
            serde_json::to_string_pretty(&doc).unwrap() + "\n",
            "{query}"
        );
        assert_eq!(doc["skipped"].as_array().map(Vec::len), Some(1), "{query}");
        let sessions = doc["sessions"].as_array().map(Vec::len);
        assert_eq!(sessions, Some(if query == "zebra-stripe" { 12 } else { 0 }));
    }
}
