//! The hooks fill the vault without anyone asking: a session's start sweeps the harnesses'
//! files in (once an hour), a prompt keeps the live transcript's growth; each bounded, and
//! nothing with `NOTESOUP_VAULT=off`.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use notesoup_app::Context;

use crate::run;

const SID: &str = "da56055c-293e-4422-b5b8-62b1c7e6c03d";

struct World(PathBuf);

impl World {
    fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("notesoup-hook-vault-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let project = dir.join("claude/projects/-tmp-p");
        std::fs::create_dir_all(&project).expect("temp dir");
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("../app/tests/data/history/{SID}.jsonl"));
        std::fs::copy(fixture, self_transcript(&dir)).expect("fixture");
        World(dir)
    }

    fn transcript(&self) -> PathBuf {
        self_transcript(&self.0)
    }

    fn hook(&self, vars: &[(&str, &str)], event: &str, facts: &Value) -> Value {
        let session = json!({"harness": "claude", "id": SID, "process": "p1"});
        let request = json!({"event": event, "session": session, "facts": facts});
        let dir = |rel: &str| self.0.join(rel).to_string_lossy().into_owned();
        let mut all = vec![
            ("NOTESOUP_HOME".to_owned(), dir("home")),
            ("CLAUDE_CONFIG_DIR".to_owned(), dir("claude")),
            ("HOME".to_owned(), dir("nobody")),
        ];
        all.extend(vars.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
        let out = run(
            Some("hook"),
            request.to_string().as_bytes(),
            &Context::from_vars(all),
        );
        assert_eq!(out.exit, 0, "{}", out.reply);
        out.reply
    }

    /// The vault's copy of the transcript, if any.
    fn kept(&self) -> Option<Vec<u8>> {
        notesoup_vault_store::Vault::open(&self.0.join("home/vault"))
            .expect("vault")
            .read("claude", SID)
            .expect("readable")
    }
}

fn self_transcript(dir: &Path) -> PathBuf {
    dir.join(format!("claude/projects/-tmp-p/{SID}.jsonl"))
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn a_sessions_start_sweeps_and_a_prompt_keeps_the_live_growth() {
    let world = World::new("fill");
    let start = json!({"env": {}});
    world.hook(&[], "session.start", &start);
    let original = std::fs::read(world.transcript()).expect("transcript");
    assert_eq!(
        world.kept().as_deref(),
        Some(&original[..]),
        "swept in at the start"
    );

    // The session goes on: a prompt keeps what was added once there is enough of it
    // (LIVE_MIN: a copy in tiny pieces compresses worse).
    let path = world.transcript().to_string_lossy().into_owned();
    let prompt = json!({"cwd": world.0.to_string_lossy(), "transcript_path": path, "kept": []});
    let mut grown = original.clone();
    grown.extend_from_slice(b"{\"type\":\"progress\"}\n");
    std::fs::write(world.transcript(), &grown).expect("grows");
    world.hook(&[], "prompt.context", &prompt);
    assert_eq!(
        world.kept().as_deref(),
        Some(&original[..]),
        "20 bytes wait"
    );
    while grown.len() - original.len() < 70_000 {
        grown.extend_from_slice(b"{\"type\":\"progress\"}\n");
    }
    std::fs::write(world.transcript(), &grown).expect("grows");
    world.hook(&[], "prompt.context", &prompt);
    assert_eq!(
        world.kept().as_deref(),
        Some(&grown[..]),
        "kept at the prompt"
    );

    // A second start within the hour does not sweep again: a new session waits for its
    // prompt (or the next hour's sweep).
    let other = world
        .0
        .join("claude/projects/-tmp-p/0b1e0000-0000-4000-8000-000000000001.jsonl");
    std::fs::write(&other, &original).expect("another session");
    world.hook(&[], "session.start", &start);
    let vault = notesoup_vault_store::Vault::open(&world.0.join("home/vault")).expect("vault");
    assert_eq!(vault.names("claude").expect("names").len(), 1);
}

#[test]
fn nothing_is_vaulted_when_the_vault_is_off() {
    let world = World::new("off");
    let off = [("NOTESOUP_VAULT", "off")];
    world.hook(&off, "session.start", &json!({"env": {}}));
    let path = world.transcript().to_string_lossy().into_owned();
    let prompt = json!({"cwd": world.0.to_string_lossy(), "transcript_path": path, "kept": []});
    world.hook(&off, "prompt.context", &prompt);
    assert!(!world.0.join("home/vault").exists());
}

/// A Pi prompt keeps its session's file, found by the session's id (the extension names no
/// file).
#[test]
fn a_pi_prompt_keeps_its_session_file() {
    let dir = std::env::temp_dir().join(format!("notesoup-hook-vault-pi-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let sessions = dir.join("pi/--w--");
    std::fs::create_dir_all(&sessions).expect("temp dir");
    let name = "2026-12-02T15-16-58-039Z_01a23754-8e37-7027-8822-e05ee3580bae";
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
        "../history-pi/tests/data/agent/sessions/--tmp-xh-pirun-r3-work--/{name}.jsonl"
    ));
    let original = std::fs::read(fixture).expect("fixture");
    std::fs::write(sessions.join(format!("{name}.jsonl")), &original).expect("copy");
    let path = |rel: &str| dir.join(rel).to_string_lossy().into_owned();
    let request = json!({
        "event": "before_agent_start",
        "session": {"harness": "pi", "id": "01a23754-8e37-7027-8822-e05ee3580bae", "process": "p1"},
        "facts": {"kept": null, "cwd": path("work")},
    });
    let ctx = Context::from_vars([
        ("NOTESOUP_HOME".to_owned(), path("home")),
        ("PI_CODING_AGENT_SESSION_DIR".to_owned(), path("pi")),
        ("HOME".to_owned(), path("nobody")),
    ]);
    let out = run(Some("pi_hook"), request.to_string().as_bytes(), &ctx);
    assert_eq!(out.exit, 0, "{}", out.reply);
    let kept = notesoup_vault_store::Vault::open(&dir.join("home/vault"))
        .expect("vault")
        .read("pi", name)
        .expect("readable");
    assert_eq!(kept.as_deref(), Some(&original[..]));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_pi_prompt_keeps_the_file_the_extension_names_only_when_it_is_the_sessions() {
    let dir = std::env::temp_dir().join(format!(
        "notesoup-hook-vault-pi-named-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let id = "01a23754-8e37-7027-8822-e05ee3580bae";
    let name = format!("2026-12-02T15-16-58-039Z_{id}");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
        "../history-pi/tests/data/agent/sessions/--tmp-xh-pirun-r3-work--/{name}.jsonl"
    ));
    let original = std::fs::read(fixture).expect("fixture");
    // Two files of the session under Pi's folder (a copy in another project's folder): the
    // walk by id cannot tell which is live; the extension names it.
    for folder in ["pi/--w--", "pi/--copy--"] {
        std::fs::create_dir_all(dir.join(folder)).expect("temp dir");
    }
    std::fs::write(dir.join(format!("pi/--w--/{name}.jsonl")), &original).expect("live");
    std::fs::write(dir.join(format!("pi/--copy--/{name}.jsonl")), b"{}\n").expect("copy");
    // A file of the same name outside Pi's folder.
    std::fs::create_dir_all(dir.join("elsewhere")).expect("temp dir");
    std::fs::write(dir.join(format!("elsewhere/{name}.jsonl")), b"secret\n").expect("outside");
    let path = |rel: &str| dir.join(rel).to_string_lossy().into_owned();
    let ctx = Context::from_vars([
        ("NOTESOUP_HOME".to_owned(), path("home")),
        ("PI_CODING_AGENT_SESSION_DIR".to_owned(), path("pi")),
        ("HOME".to_owned(), path("nobody")),
    ]);
    let prompt = |named: String| {
        let request = json!({
            "event": "before_agent_start",
            "session": {"harness": "pi", "id": id, "process": "p1"},
            "facts": {"kept": null, "cwd": path("work"), "session_file": named},
        });
        let out = run(Some("pi_hook"), request.to_string().as_bytes(), &ctx);
        assert_eq!(out.exit, 0, "{}", out.reply);
    };
    let kept = || {
        notesoup_vault_store::Vault::open(&dir.join("home/vault"))
            .expect("vault")
            .read("pi", &name)
            .expect("readable")
    };
    // Outside Pi's folder: not taken; the walk finds two files and keeps neither.
    prompt(path(&format!("elsewhere/{name}.jsonl")));
    assert_eq!(kept(), None);
    // The live file, named: kept.
    prompt(path(&format!("pi/--w--/{name}.jsonl")));
    assert!(
        kept().as_deref() == Some(&original[..]),
        "the live file the extension named was not kept"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Sets the vault's last sweep two hours back: the next session's start sweeps.
fn sweep_due(world: &World) {
    let swept = std::fs::File::options()
        .write(true)
        .open(world.0.join("home/vault/swept"))
        .expect("swept");
    let then = std::time::SystemTime::now() - std::time::Duration::from_secs(2 * 3600);
    swept.set_modified(then).expect("aged");
}

/// A copy an earlier notesoup kept without the facts a listing shows, whose original the
/// harness has since deleted, gets them at a session's start from the copy itself, within
/// what the sweep's keeps left of its budget: not while they took it all, at the next sweep
/// once they do not.
#[test]
fn a_sweep_fills_the_facts_of_a_copy_an_earlier_notesoup_kept() {
    let world = World::new("facts");
    let start = json!({"env": {}});
    world.hook(&[], "session.start", &start);
    let facts = world.0.join(format!("home/vault/claude/{SID}/v1.facts"));
    let recorded = std::fs::read(&facts).expect("a keep records the facts");
    std::fs::remove_file(&facts).expect("as an earlier notesoup kept it");
    std::fs::remove_file(world.transcript()).expect("deleted by the harness");

    // A new session file more than the budget: this sweep's keep takes all of it.
    let line = format!("{{\"type\":\"progress\",\"pad\":\"{}\"}}\n", "x".repeat(80));
    let lines = usize::try_from(notesoup_app::vault::HOOK_BUDGET).expect("small") / line.len() + 10;
    let big = world
        .0
        .join("claude/projects/-tmp-p/0b1e0000-0000-4000-8000-000000000002.jsonl");
    std::fs::write(&big, line.repeat(lines)).expect("a big session");
    sweep_due(&world);
    world.hook(&[], "session.start", &start);
    assert!(!facts.exists(), "filled although the keeps took the budget");

    // The next sweep keeps the rest of it, and fills the facts with what is left.
    sweep_due(&world);
    world.hook(&[], "session.start", &start);
    assert_eq!(
        std::fs::read(&facts).ok(),
        Some(recorded),
        "the facts a keep of the original recorded"
    );
}

/// Small copies are filled a bounded number a sweep (each charged at least
/// `FILL_FLOOR`), so a vault of thousands of small old copies costs a session's start no
/// more than the budget stands for; the next sweeps go on (review: 2,122 filled in one
/// sweep of 0.86 s).
#[test]
fn a_sweep_fills_a_bounded_number_of_small_copies() {
    let world = World::new("facts-small");
    let whole = std::fs::read_to_string(world.transcript()).expect("fixture");
    let small = whole.lines().take(5).collect::<Vec<_>>().join("\n") + "\n";
    std::fs::remove_file(world.transcript()).expect("only the small ones");
    let dir = world.0.join("claude/projects/-tmp-p");
    let ids: Vec<String> = (0..40)
        .map(|i| format!("0b1e{i:04x}-0000-4000-8000-000000000003"))
        .collect();
    for id in &ids {
        std::fs::write(dir.join(format!("{id}.jsonl")), &small).expect("small session");
    }
    let start = json!({"env": {}});
    world.hook(&[], "session.start", &start);
    let facts = |id: &String| world.0.join(format!("home/vault/claude/{id}/v1.facts"));
    for id in &ids {
        std::fs::remove_file(facts(id)).expect("as an earlier notesoup kept it");
        std::fs::remove_file(dir.join(format!("{id}.jsonl"))).expect("deleted by the harness");
    }
    let filled = || ids.iter().filter(|id| facts(id).exists()).count();
    let per_sweep =
        usize::try_from(notesoup_app::vault::HOOK_BUDGET / notesoup_app::vault::FILL_FLOOR)
            .expect("small");
    sweep_due(&world);
    world.hook(&[], "session.start", &start);
    assert_eq!(filled(), per_sweep, "one sweep's fills");
    sweep_due(&world);
    world.hook(&[], "session.start", &start);
    sweep_due(&world);
    world.hook(&[], "session.start", &start);
    assert_eq!(filled(), ids.len(), "the next sweeps go on");
}

/// A prompt keeps only the session's own transcript (`<session id>.jsonl`, as Claude Code
/// names it): a `transcript_path` naming any other file (a secret, another session's file)
/// is never copied into the vault, while the session's own is.
#[test]
fn a_prompt_keeps_only_the_sessions_own_transcript() {
    let world = World::new("own-only");
    let secret = world.0.join("secret");
    std::fs::write(&secret, "root:$6$salt$hash:20228:0:99999:7:::\n").expect("secret");
    let other = world
        .0
        .join("claude/projects/-tmp-p/0b1e0000-0000-4000-8000-000000000001.jsonl");
    std::fs::copy(world.transcript(), &other).expect("another session");
    let kept = || -> Vec<String> {
        notesoup_vault_store::Vault::open(&world.0.join("home/vault"))
            .expect("vault")
            .names("claude")
            .expect("names")
            .into_iter()
            .map(|(name, _)| name)
            .collect()
    };
    for path in [&secret, &other] {
        let prompt = json!({"cwd": world.0.to_string_lossy(), "transcript_path": path, "kept": []});
        world.hook(&[], "prompt.context", &prompt);
        assert_eq!(
            kept(),
            Vec::<String>::new(),
            "{} was kept as this session's transcript",
            path.display()
        );
    }
    let own = world.transcript().to_string_lossy().into_owned();
    let prompt = json!({"cwd": world.0.to_string_lossy(), "transcript_path": own, "kept": []});
    world.hook(&[], "prompt.context", &prompt);
    assert_eq!(kept(), vec![SID.to_owned()]);
}
