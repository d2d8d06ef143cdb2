use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rstest::rstest;

use super::*;

/// A scratch folder with a project in it; removed on drop.
struct Scratch {
    root: PathBuf,
}

impl Scratch {
    fn new() -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let root = std::env::temp_dir().join(format!(
            "notesoup-notes-unit-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(root.join("project/sub")).unwrap();
        Self { root }
    }

    fn brain(&self) -> Brain {
        Brain::open(&self.root.join("store"), &self.root.join("project")).unwrap()
    }

    /// Every file under the store with its bytes: what "changes nothing" compares.
    fn files(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        fn walk(dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
            let Ok(entries) = fs::read_dir(dir) else {
                return;
            };
            for e in entries.flatten() {
                let path = e.path();
                if e.file_type().unwrap().is_dir() {
                    walk(&path, out);
                } else if !path.ends_with("lock") {
                    out.insert(path.clone(), fs::read(&path).unwrap_or_default());
                }
            }
        }
        let mut out = BTreeMap::new();
        walk(&self.root.join("store"), &mut out);
        out
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

#[rstest]
#[case::empty("", "empty")]
#[case::absolute("/etc/passwd", "absolute")]
#[case::home("~/x", "absolute")]
#[case::dotdot("a/../b", "escape")]
#[case::only_dotdot("..", "escape")]
#[case::dot("./a", "escape")]
#[case::upper("Plans", "'P'")]
#[case::space("a b", "' '")]
#[case::extension("a.md", "'.'")]
#[case::backslash("a\\b", "'\\\\'")]
#[case::non_ascii("café", "'é'")]
#[case::double_slash("a//b", "empty segment")]
#[case::trailing_slash("a/", "empty segment")]
#[case::long_segment(&"x".repeat(65), "65 bytes")]
#[case::too_deep("a/b/c/d/e/f/g/h/i", "9 levels")]
fn bad_names_are_refused_and_change_nothing(#[case] name: &str, #[case] why: &str) {
    let s = Scratch::new();
    let brain = s.brain();
    brain.write("keep", "kept\n", None).unwrap();
    let before = s.files();
    for err in [
        brain.write(name, "x", None).unwrap_err(),
        brain.read(name).unwrap_err(),
        brain
            .edit(name, &Edit::Append("x".into()), None)
            .unwrap_err(),
        brain.delete(name, None).unwrap_err(),
    ] {
        assert_eq!(err.code(), "bad_name", "{err}");
        let message = err.to_string();
        assert!(message.contains(name), "{message}");
        assert!(message.contains(why), "`{why}` not in: {message}");
    }
    assert_eq!(s.files(), before);
}

#[rstest]
#[case::plain("a")]
#[case::folders("plans/2026/today")]
#[case::all_chars("x_1-2")]
#[case::longest_segment(&"y".repeat(64))]
#[case::deepest("a/b/c/d/e/f/g/h")]
fn good_names_round_trip(#[case] name: &str) {
    let s = Scratch::new();
    let brain = s.brain();
    let w = brain.write(name, "hello\n", None).unwrap();
    assert!(w.created);
    let note = brain.read(name).unwrap();
    assert_eq!(note.text, "hello\n");
    assert_eq!(note.version, w.version);
    assert_eq!(brain.list("").unwrap()[0].name, name);
}

/// The names `brain.list(folder)` shows, in its order.
fn names(brain: &Brain, folder: &str) -> Vec<String> {
    let listed = brain.list(folder).unwrap();
    listed.into_iter().map(|n| n.name).collect()
}

/// What the model reads back: "1 byte", and the limits with thousands separators (walk7
/// finding 10: "Created note `x`: 1 bytes", "limits: 65536 bytes a note").
#[test]
fn answers_write_sizes_as_people_do() {
    let s = Scratch::new();
    let brain = s.brain();
    let written = brain.write("one", "x", None).unwrap();
    assert!(
        crate::render_written(&written).starts_with("Created note `one`: 1 byte, version "),
        "{}",
        crate::render_written(&written)
    );
    let list = crate::render_list(&brain.list("").unwrap(), "");
    assert!(
        list.starts_with(
            "1 note in the brain, 1 byte (limits: 65,536 bytes a note, 524,288 a brain):"
        ),
        "{list}"
    );
}

#[test]
fn a_note_over_the_limit_is_refused_saying_the_limits() {
    let s = Scratch::new();
    let brain = s.brain();
    let limit = usize::try_from(MAX_NOTE_BYTES).unwrap();
    brain.write("big", &"a".repeat(limit), None).unwrap();
    let before = s.files();
    let err = brain
        .write("big", &"b".repeat(limit + 1), None)
        .unwrap_err();
    assert_eq!(err.code(), "too_large");
    let message = err.to_string();
    // Counts as people write them (walk7 finding 10), as the command line does.
    assert!(
        message.contains("would be 65,537 bytes, over the limit of 65,536 bytes")
            && message.contains("per brain 524,288 bytes"),
        "{message}"
    );
    let err = brain
        .edit("big", &Edit::Append("c".into()), None)
        .unwrap_err();
    assert_eq!(err.code(), "too_large");
    assert_eq!(s.files(), before);
}

#[test]
fn a_brain_over_the_limit_is_refused_but_replacing_in_place_is_not() {
    let s = Scratch::new();
    let brain = s.brain();
    let note = usize::try_from(MAX_NOTE_BYTES).unwrap();
    let count = MAX_BRAIN_BYTES / MAX_NOTE_BYTES;
    for i in 0..count {
        brain
            .write(&format!("n{i}"), &"a".repeat(note), None)
            .unwrap();
    }
    let before = s.files();
    let err = brain.write("one-more", "x", None).unwrap_err();
    assert_eq!(err.code(), "too_large");
    assert!(err.to_string().contains("the brain"), "{err}");
    // What frees room is deleting or shortening notes: splitting one into several leaves
    // the brain as large (walk9).
    assert!(
        !err.to_string().contains("split") && err.to_string().contains("delete notes"),
        "{err}"
    );
    assert_eq!(s.files(), before);
    // The same size again, in place, fits.
    brain.write("n0", &"b".repeat(note), None).unwrap();
}

#[test]
fn missing_notes_are_not_found() {
    let s = Scratch::new();
    let brain = s.brain();
    for err in [
        brain.read("ghost").unwrap_err(),
        brain
            .edit(
                "ghost",
                &Edit::Replace {
                    old: "a".into(),
                    new: "b".into(),
                },
                None,
            )
            .unwrap_err(),
        brain.delete("ghost", None).unwrap_err(),
    ] {
        assert_eq!(err.code(), "not_found", "{err}");
        assert!(err.to_string().contains("`ghost`"), "{err}");
    }
    assert!(s.files().is_empty(), "a refusal created files");
}

#[test]
fn stale_versions_are_refused_showing_the_current_one() {
    let s = Scratch::new();
    let brain = s.brain();
    let v1 = brain.write("n", "one\n", None).unwrap().version;
    let v2 = brain.write("n", "two\n", Some(&v1)).unwrap().version;
    let before = s.files();
    let replace = Edit::Replace {
        old: "two".into(),
        new: "three".into(),
    };
    for err in [
        brain.write("n", "x", Some(&v1)).unwrap_err(),
        brain.edit("n", &replace, Some(&v1)).unwrap_err(),
        brain
            .edit("n", &Edit::Append("x".into()), Some(&v1))
            .unwrap_err(),
        brain.delete("n", Some(&v1)).unwrap_err(),
    ] {
        assert_eq!(err.code(), "version_conflict");
        let message = err.to_string();
        assert!(message.contains(v1.as_str()), "{message}");
        assert!(message.contains(&format!("now version {v2}")), "{message}");
    }
    assert_eq!(s.files(), before);
    // A version for a note that does not exist is a conflict too (it was deleted since).
    let err = brain.write("gone", "x", Some(&v1)).unwrap_err();
    assert_eq!(err.code(), "version_conflict");
    assert!(err.to_string().contains("deleted"), "{err}");
    let err = brain.delete("gone", Some(&v1)).unwrap_err();
    assert_eq!(err.code(), "version_conflict");
    // The current version passes.
    brain.edit("n", &replace, Some(&v2)).unwrap();
    assert_eq!(brain.read("n").unwrap().text, "three\n");
}

#[rstest]
#[case::none("zzz", "no_match", "0 matches")]
#[case::several("ab", "ambiguous", "3 times")]
fn replace_needs_exactly_one_match(#[case] old: &str, #[case] code: &str, #[case] says: &str) {
    let s = Scratch::new();
    let brain = s.brain();
    brain.write("n", "ab ab ab\n", None).unwrap();
    let before = s.files();
    let err = brain
        .edit(
            "n",
            &Edit::Replace {
                old: old.into(),
                new: "x".into(),
            },
            None,
        )
        .unwrap_err();
    assert_eq!(err.code(), code);
    assert!(err.to_string().contains(says), "{err}");
    assert_eq!(s.files(), before);
}

#[rstest]
#[case::empty_old(Edit::Replace { old: String::new(), new: "x".into() })]
#[case::empty_append(Edit::Append(String::new()))]
fn empty_edits_are_refused(#[case] edit: Edit) {
    let s = Scratch::new();
    let brain = s.brain();
    brain.write("n", "text\n", None).unwrap();
    let before = s.files();
    assert_eq!(brain.edit("n", &edit, None).unwrap_err().code(), "bad_edit");
    assert_eq!(s.files(), before);
}

/// A note is never blank, however it would become so: the MCP server, the helper and the
/// CLI all answer through this one rule (`empty_note`), and a refusal changes nothing.
#[test]
fn a_note_is_never_blank() {
    let s = Scratch::new();
    let brain = s.brain();
    for text in ["", " \n\t"] {
        let err = brain.write("fresh", text, None).unwrap_err();
        assert_eq!(err.code(), "empty_note", "{err}");
        assert!(err.to_string().contains("notes_delete"), "{err}");
    }
    assert!(s.files().is_empty(), "a refusal created files");
    brain.write("n", "keep me\n", None).unwrap();
    let before = s.files();
    let wipe = Edit::Replace {
        old: "keep me\n".into(),
        new: String::new(),
    };
    for err in [
        brain.write("n", "", None).unwrap_err(),
        brain.write_keeping("n", "\n", None).unwrap_err(),
        brain.edit("n", &wipe, None).unwrap_err(),
        brain
            .edit("blank", &Edit::Append("  ".into()), None)
            .unwrap_err(),
    ] {
        assert_eq!(err.code(), "empty_note", "{err}");
    }
    assert_eq!(s.files(), before);
    assert_eq!(brain.read("n").unwrap().text, "keep me\n");
}

#[rstest]
#[case::old_alone(Some("a"), None, None)]
#[case::new_alone(None, Some("b"), None)]
#[case::old_and_append(Some("a"), None, Some("c"))]
#[case::all_three(Some("a"), Some("b"), Some("c"))]
#[case::none(None, None, None)]
fn an_edit_is_a_replacement_or_an_append_never_a_mix(
    #[case] old: Option<&str>,
    #[case] new: Option<&str>,
    #[case] append: Option<&str>,
) {
    let own = |s: Option<&str>| s.map(str::to_owned);
    let err = Edit::from_fields("n", own(old), own(new), own(append)).unwrap_err();
    assert_eq!(err.code(), "bad_edit");
    assert!(err.to_string().contains("`append` alone"), "{err}");
}

#[test]
fn edits_replace_once_and_append_creates() {
    let s = Scratch::new();
    let brain = s.brain();
    let w = brain
        .edit("log", &Edit::Append("a\n".into()), None)
        .unwrap();
    assert!(w.created);
    brain
        .edit("log", &Edit::Append("b\n".into()), None)
        .unwrap();
    brain
        .edit(
            "log",
            &Edit::Replace {
                old: "b".into(),
                new: "B".into(),
            },
            None,
        )
        .unwrap();
    assert_eq!(brain.read("log").unwrap().text, "a\nB\n");
}

#[test]
fn symlinks_are_refused() {
    let s = Scratch::new();
    let brain = s.brain();
    brain.write("real", "x", None).unwrap();
    let outside = s.root.join("outside");
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("secret.md"), "secret").unwrap();
    let notes = brain.dir().join("notes");
    std::os::unix::fs::symlink(outside.join("secret.md"), notes.join("link.md")).unwrap();
    std::os::unix::fs::symlink(&outside, notes.join("dir")).unwrap();
    for err in [
        brain.read("link").unwrap_err(),
        brain.write("link", "y", None).unwrap_err(),
        brain.delete("link", None).unwrap_err(),
        brain.read("dir/secret").unwrap_err(),
        brain.write("dir/new", "y", None).unwrap_err(),
        brain.list("dir").unwrap_err(),
    ] {
        assert_eq!(err.code(), "bad_name", "{err}");
        assert!(err.to_string().contains("symlink"), "{err}");
    }
    assert_eq!(
        fs::read_to_string(outside.join("secret.md")).unwrap(),
        "secret"
    );
    assert!(!outside.join("new.md").exists());
    // list skips what it must not follow.
    let names = names(&brain, "");
    assert_eq!(names, ["real"]);
}

#[test]
fn list_reports_names_sizes_versions_and_first_lines_under_a_folder() {
    let s = Scratch::new();
    let brain = s.brain();
    brain.write("zeta", "\n  last one  \nmore", None).unwrap();
    let v = brain
        .write("plans/today", "fix parser\n", None)
        .unwrap()
        .version;
    brain.write("plans/later/x", "x", None).unwrap();
    let all = brain.list("").unwrap();
    let all_names: Vec<&str> = all.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(all_names, ["plans/later/x", "plans/today", "zeta"]);
    assert_eq!(all[1].version, v);
    assert_eq!(all[1].bytes, 11);
    assert_eq!(all[1].first_line, "fix parser");
    assert_eq!(all[2].first_line, "last one");
    let plans = names(&brain, "plans/");
    assert_eq!(plans, ["plans/later/x", "plans/today"]);
    assert!(brain.list("nothing").unwrap().is_empty());
    assert_eq!(brain.list("/plans").unwrap_err().code(), "bad_name");
}

#[test]
fn delete_keeps_the_text_in_the_trash_and_prunes_it() {
    let s = Scratch::new();
    let brain = s.brain();
    brain.write("a/b", "precious\n", None).unwrap();
    let d = brain.delete("a/b", None).unwrap();
    assert_eq!(fs::read_to_string(&d.trash).unwrap(), "precious\n");
    // The same name deleted again in the same millisecond keeps both texts.
    let now = SystemTime::now();
    brain.write("twice", "first\n", None).unwrap();
    let first = brain.delete_at("twice", None, now).unwrap();
    brain.write("twice", "second\n", None).unwrap();
    let second = brain.delete_at("twice", None, now).unwrap();
    assert_ne!(first.trash, second.trash);
    assert_eq!(fs::read_to_string(&first.trash).unwrap(), "first\n");
    assert_eq!(fs::read_to_string(&second.trash).unwrap(), "second\n");
    assert!(
        d.trash.to_str().unwrap().ends_with("~a~b.md"),
        "{}",
        d.trash.display()
    );
    assert_eq!(brain.read("a/b").unwrap_err().code(), "not_found");
    assert!(
        !brain.dir().join("notes/a").exists(),
        "empty folder left behind"
    );

    // Retention: an old entry goes, and at most TRASH_KEEP stay.
    let day = Duration::from_secs(86_400);
    let base = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    brain.write("old", "x", None).unwrap();
    brain.delete_at("old", None, base).unwrap();
    let later = base + day * u32::try_from(TRASH_DAYS + 1).unwrap();
    for i in 0..=TRASH_KEEP {
        brain.write(&format!("n{i}"), "x", None).unwrap();
        brain
            .delete_at(
                &format!("n{i}"),
                None,
                later + Duration::from_millis(i as u64),
            )
            .unwrap();
    }
    let kept: Vec<String> = fs::read_dir(brain.dir().join("trash"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(kept.len(), TRASH_KEEP);
    assert!(!kept.iter().any(|k| k.ends_with("~old.md")), "{kept:?}");
    assert!(
        !kept.iter().any(|k| k.ends_with("~n0.md")),
        "oldest over the count kept"
    );
}

#[test]
fn leftover_temp_files_are_cleaned_by_the_next_writer() {
    let s = Scratch::new();
    let brain = s.brain();
    brain.write("n", "x", None).unwrap();
    let stale = brain.dir().join("tmp/n.99999.tmp");
    fs::write(&stale, "half").unwrap();
    brain.write("n", "y", None).unwrap();
    assert!(!stale.exists());
    assert_eq!(brain.list("").unwrap().len(), 1);
}

#[rstest]
#[case::notesoup_home(Some("/n"), Some("/x"), Some("/h"), "/n")]
#[case::xdg(None, Some("/x"), Some("/h"), "/x/notesoup")]
#[case::empty_is_unset(Some(""), Some(""), Some("/h"), "/h/.local/share/notesoup")]
#[case::relative_xdg_ignored(None, Some("rel"), Some("/h"), "/h/.local/share/notesoup")]
fn the_store_root_follows_the_environment(
    #[case] home_var: Option<&str>,
    #[case] xdg: Option<&str>,
    #[case] home: Option<&str>,
    #[case] want: &str,
) {
    assert_eq!(
        store_root(home_var, xdg, home).unwrap(),
        PathBuf::from(want)
    );
}

#[rstest]
#[case::nothing(None)]
#[case::relative_home(Some("home"))]
fn no_store_root_without_a_home(#[case] home: Option<&str>) {
    assert_eq!(store_root(None, None, home).unwrap_err().code(), "no_home");
}

#[test]
fn a_relative_notesoup_home_is_refused_with_the_fix() {
    let err = store_root(Some("notes"), None, Some("/h")).unwrap_err();
    assert_eq!(err.code(), "no_home");
    assert!(err.to_string().contains("absolute path"), "{err}");
}

#[test]
fn the_domain_is_the_git_root_else_the_folder() {
    let s = Scratch::new();
    let project = fs::canonicalize(s.root.join("project")).unwrap();
    assert_eq!(
        domain_of(&project.join("sub")).unwrap(),
        project.join("sub")
    );
    fs::create_dir(project.join(".git")).unwrap();
    assert_eq!(domain_of(&project.join("sub")).unwrap(), project);
    // A worktree's `.git` is a file.
    fs::write(project.join("sub/.git"), "gitdir: elsewhere\n").unwrap();
    assert_eq!(
        domain_of(&project.join("sub")).unwrap(),
        project.join("sub")
    );
    // One brain per domain: a subfolder shares the root's brain.
    fs::remove_file(project.join("sub/.git")).unwrap();
    let store = s.root.join("store");
    let a = Brain::open(&store, &project).unwrap();
    let b = Brain::open(&store, &project.join("sub")).unwrap();
    assert_eq!(a.dir(), b.dir());
    assert!(
        a.dir()
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("project-")
    );
    assert_eq!(
        domain_of(Path::new("relative")).unwrap_err().code(),
        "bad_cwd"
    );
    let err = domain_of(&project.join("missing")).unwrap_err();
    assert_eq!(err.code(), "bad_cwd");
    assert!(err.to_string().contains("missing"), "{err}");
    fs::write(project.join("file"), "").unwrap();
    assert_eq!(
        domain_of(&project.join("file")).unwrap_err().code(),
        "bad_cwd"
    );
}

#[rstest]
#[case::all(None, None, "a\nb\nc\n")]
#[case::window(Some(2), Some(1), "b\n")]
#[case::tail(Some(3), None, "c\n")]
#[case::past_the_end(Some(9), Some(1), "(no lines from line 9: the note has 3 lines)")]
fn read_pages_by_lines(
    #[case] offset: Option<usize>,
    #[case] limit: Option<usize>,
    #[case] body: &str,
) {
    let note = Note {
        name: "n".into(),
        text: "a\nb\nc\n".into(),
        version: Version::of("a\nb\nc\n"),
        updated: 0,
    };
    let text = render_read(&note, offset, limit);
    let (header, rest) = text.split_once('\n').unwrap();
    assert!(header.starts_with("note `n` | version "), "{header}");
    assert_eq!(rest, body);
}

#[test]
fn versions_are_stable_opaque_hashes() {
    assert_eq!(Version::of("").as_str(), "cbf29ce484222325");
    assert_ne!(Version::of("a"), Version::of("b"));
}

#[test]
fn refusals_on_a_new_brain_create_nothing() {
    let s = Scratch::new();
    let brain = s.brain();
    let big = "x".repeat(usize::try_from(MAX_NOTE_BYTES).unwrap() + 1);
    assert_eq!(
        brain.write("n", &big, None).unwrap_err().code(),
        "too_large"
    );
    let v = Version::of("x");
    assert_eq!(
        brain.write("n", "x", Some(&v)).unwrap_err().code(),
        "version_conflict"
    );
    assert_eq!(
        brain
            .edit("n", &Edit::Append("x".into()), Some(&v))
            .unwrap_err()
            .code(),
        "version_conflict"
    );
    assert_eq!(
        brain
            .edit("n", &Edit::Append(big), None)
            .unwrap_err()
            .code(),
        "too_large"
    );
    assert!(
        !s.root.join("store").exists(),
        "a refusal created the store"
    );
}

#[test]
fn a_file_that_is_not_utf8_is_skipped_by_list_and_named_by_read() {
    let s = Scratch::new();
    let brain = s.brain();
    brain.write("good", "x", None).unwrap();
    fs::write(brain.dir().join("notes/bad.md"), b"\xff\xfe").unwrap();
    let names = names(&brain, "");
    assert_eq!(names, ["good"]);
    let err = brain.read("bad").unwrap_err();
    assert_eq!(err.code(), "io");
    assert!(err.to_string().contains("not UTF-8"), "{err}");
    assert_eq!(brain.snapshot().unwrap().len(), 1);
}

// ---- trash, restore, create (trash.rs) ----

#[test]
fn the_trash_lists_deleted_notes_newest_first_with_name_time_and_size() {
    let s = Scratch::new();
    let brain = s.brain();
    assert_eq!(brain.trash().unwrap(), []);
    let base = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    brain.write("a/b", "first line\nmore\n", None).unwrap();
    brain.delete_at("a/b", None, base).unwrap();
    brain.write("c", "x", None).unwrap();
    brain
        .delete_at("c", None, base + Duration::from_millis(5))
        .unwrap();
    // Not entries this store made: skipped.
    fs::write(brain.dir().join("trash/notes.txt"), "x").unwrap();
    fs::write(brain.dir().join("trash/123~Bad Name.md"), "x").unwrap();
    let trash = brain.trash().unwrap();
    let seen: Vec<(&str, u64, u64, &str)> = trash
        .iter()
        .map(|t| {
            (
                t.name.as_str(),
                t.deleted_ms,
                t.bytes,
                t.first_line.as_str(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("c", 1_800_000_000_005, 1, "x"),
            ("a/b", 1_800_000_000_000, 16, "first line")
        ]
    );
}

#[test]
fn a_restored_note_reads_back_exactly_and_leaves_the_trash() {
    let s = Scratch::new();
    let brain = s.brain();
    let text = "deep/ly\n\nnested — ünïcode\n";
    let written = brain.write("deep/note", text, None).unwrap();
    brain.delete("deep/note", None).unwrap();
    assert_eq!(brain.read("deep/note").unwrap_err().code(), "not_found");
    let restored = brain.restore("deep/note", false).unwrap();
    assert_eq!(restored.version, written.version);
    assert_eq!(restored.replaced, None);
    let note = brain.read("deep/note").unwrap();
    assert_eq!(note.text, text);
    assert_eq!(note.version, written.version);
    assert_eq!(brain.trash().unwrap(), []);
    // Nothing left in tmp/ either.
    assert_eq!(fs::read_dir(brain.dir().join("tmp")).unwrap().count(), 0);
}

#[test]
fn restore_takes_the_newest_deleted_copy() {
    let s = Scratch::new();
    let brain = s.brain();
    let base = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    brain.write("n", "old\n", None).unwrap();
    brain.delete_at("n", None, base).unwrap();
    brain.write("n", "new\n", None).unwrap();
    // The same millisecond: the second entry takes the next one, both kept.
    brain.delete_at("n", None, base).unwrap();
    let stamps: Vec<u64> = brain
        .trash()
        .unwrap()
        .iter()
        .map(|t| t.deleted_ms)
        .collect();
    assert_eq!(stamps, [1_800_000_000_001, 1_800_000_000_000]);
    brain.restore_at("n", false, base).unwrap();
    assert_eq!(brain.read("n").unwrap().text, "new\n");
    brain.delete_at("n", None, base).unwrap();
    let restored = brain.restore_at("n", false, base).unwrap();
    assert_eq!(restored.deleted_ms, 1_800_000_000_001);
    assert_eq!(brain.read("n").unwrap().text, "new\n");
}

#[test]
fn a_refused_restore_changes_nothing() {
    let s = Scratch::new();
    let brain = s.brain();
    brain.write("plan", "deleted text\n", None).unwrap();
    brain.delete("plan", None).unwrap();
    let newer = brain.write("plan", "newer text\n", None).unwrap();
    let before = s.files();
    let err = brain.restore("plan", false).unwrap_err();
    assert_eq!(err.code(), "exists");
    assert!(err.to_string().contains(newer.version.as_str()), "{err}");
    assert_eq!(s.files(), before);
    // Not in the trash, or a bad name: refused, nothing changes.
    assert_eq!(
        brain.restore("nope", false).unwrap_err().code(),
        "not_in_trash"
    );
    assert_eq!(brain.restore("../x", true).unwrap_err().code(), "bad_name");
    assert_eq!(s.files(), before);
    // On a brain that never had a note: nothing is created.
    let fresh = Brain::open(&s.root.join("store2"), &s.root.join("project/sub")).unwrap();
    assert_eq!(
        fresh.restore("plan", true).unwrap_err().code(),
        "not_in_trash"
    );
    assert!(!s.root.join("store2").exists());
}

#[test]
fn a_forced_restore_moves_the_newer_note_to_the_trash_first() {
    let s = Scratch::new();
    let brain = s.brain();
    brain.write("plan", "deleted text\n", None).unwrap();
    brain.delete("plan", None).unwrap();
    brain.write("plan", "newer text\n", None).unwrap();
    let restored = brain.restore("plan", true).unwrap();
    assert_eq!(brain.read("plan").unwrap().text, "deleted text\n");
    let replaced = restored.replaced.unwrap();
    assert_eq!(fs::read_to_string(&replaced).unwrap(), "newer text\n");
    let trash = brain.trash().unwrap();
    assert_eq!(trash.len(), 1);
    assert_eq!(trash[0].file, replaced);
    // And back again: nothing was lost.
    brain.restore("plan", true).unwrap();
    assert_eq!(brain.read("plan").unwrap().text, "newer text\n");
    assert_eq!(
        fs::read_to_string(&brain.trash().unwrap()[0].file).unwrap(),
        "deleted text\n"
    );
}

#[test]
fn create_refuses_a_note_that_exists_and_changes_nothing() {
    let s = Scratch::new();
    let brain = s.brain();
    let made = brain.create("ideas/one", "first\n").unwrap();
    assert!(made.created);
    let before = s.files();
    let err = brain.create("ideas/one", "second\n").unwrap_err();
    assert_eq!(err.code(), "exists");
    assert!(err.to_string().contains(made.version.as_str()), "{err}");
    assert_eq!(s.files(), before);
    assert_eq!(brain.read("ideas/one").unwrap().text, "first\n");
}

#[test]
fn of_racing_creates_of_one_name_exactly_one_wins() {
    let s = Scratch::new();
    let brain = s.brain();
    // The brain's folders exist, so every racer goes straight to the lock.
    brain.write("other", "x", None).unwrap();
    let results: Vec<Result<Written, NotesError>> = std::thread::scope(|scope| {
        let racers: Vec<_> = (0..8)
            .map(|i| {
                let brain = brain.clone();
                scope.spawn(move || brain.create("race", &format!("racer {i}\n")))
            })
            .collect();
        racers.into_iter().map(|r| r.join().unwrap()).collect()
    });
    let won: Vec<&Written> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
    assert_eq!(won.len(), 1, "{results:?}");
    for lost in results.iter().filter_map(|r| r.as_ref().err()) {
        assert_eq!(lost.code(), "exists", "{lost}");
    }
    assert_eq!(brain.read("race").unwrap().version, won[0].version);
}

#[test]
fn refusals_quote_a_hostile_input_clipped() {
    let s = Scratch::new();
    let brain = s.brain();
    brain.write("n", "text\n", None).unwrap();
    let huge = "é".repeat(1 << 20);
    let err = brain
        .edit(
            "n",
            &Edit::Replace {
                old: huge.clone(),
                new: "x".into(),
            },
            None,
        )
        .unwrap_err();
    assert_eq!(err.code(), "no_match");
    assert!(
        err.to_string().chars().count() < 1000,
        "{} chars",
        err.to_string().len()
    );
    let err = brain.read(&format!("a{huge}")).unwrap_err();
    assert_eq!(err.code(), "bad_name");
    assert!(
        err.to_string().chars().count() < 1000,
        "{} chars",
        err.to_string().len()
    );
}

/// `brains` finds every brain with the folder it was written from, its notes and bytes;
/// a brain folder behind a link, or with no readable `domain`, is never followed or guessed.
#[test]
fn brains_lists_every_brain_with_its_folder() {
    let s = Scratch::new();
    let store = s.root.join("store");
    assert_eq!(brains(&store).unwrap(), vec![], "no store yet: no brains");
    fs::create_dir_all(s.root.join("other")).unwrap();
    s.brain().write("plan", "one\n", None).unwrap();
    s.brain().write("a/b", "three\n", None).unwrap();
    let other = Brain::open(&store, &s.root.join("other")).unwrap();
    other.write("x", "y\n", None).unwrap();
    other.delete("x", None).unwrap();
    let found = brains(&store).unwrap();
    let project = s.root.join("project").canonicalize().unwrap();
    let summary: Vec<_> = found
        .iter()
        .map(|b| (b.domain.clone(), b.notes, b.bytes, b.updated.is_some()))
        .collect();
    assert_eq!(
        summary,
        vec![
            (
                Some(s.root.join("other").canonicalize().unwrap()),
                0,
                0,
                false
            ),
            (Some(project), 2, 10, true),
        ]
    );
    assert_eq!(found[1].dir, s.brain().dir());
    // A link in `brains/` (to a real brain elsewhere) is not a brain of this store.
    std::os::unix::fs::symlink(
        s.brain().dir(),
        store.join("brains/linked-0000000000000000"),
    )
    .unwrap();
    // A brain whose `domain` file is gone is listed with no folder, not a guessed one.
    fs::remove_file(
        Brain::open(&store, &s.root.join("other"))
            .unwrap()
            .dir()
            .join("domain"),
    )
    .unwrap();
    let found = brains(&store).unwrap();
    assert_eq!(found.len(), 2);
    assert_eq!(found[0].domain, None);
}

/// A person's write keeps the text it replaces in the trash, as a delete keeps a note, and
/// `restore --force` brings it back; a new note, or the same text again, keeps nothing; the
/// agent's write (`write`) replaces in place.
#[test]
fn a_write_keeping_puts_the_replaced_text_in_the_trash() {
    let s = Scratch::new();
    let brain = s.brain();
    let created = brain.write_keeping("plan", "precious\n", None).unwrap();
    assert!(created.created && created.kept_old.is_none());
    let same = brain.write_keeping("plan", "precious\n", None).unwrap();
    assert!(same.kept_old.is_none(), "the same text again keeps nothing");
    let replaced = brain.write_keeping("plan", "oops\n", None).unwrap();
    let kept = replaced.kept_old.expect("the replaced text kept");
    assert_eq!(fs::read_to_string(&kept).unwrap(), "precious\n");
    let trash = brain.trash().unwrap();
    assert_eq!(trash.len(), 1);
    assert_eq!(trash[0].name, "plan");
    brain.restore("plan", true).unwrap();
    assert_eq!(brain.read("plan").unwrap().text, "precious\n");
    let before = brain.trash().unwrap().len();
    assert!(
        brain
            .write("plan", "the agent's\n", None)
            .unwrap()
            .kept_old
            .is_none()
    );
    assert_eq!(
        brain.trash().unwrap().len(),
        before,
        "the agent's write keeps nothing"
    );
}

/// A writer that holds the brain's lock and never lets go (stopped with Ctrl-Z, hung): a
/// change waits [`Brain::with_lock_wait`] for it, then is refused as `busy` with nothing
/// changed, never waited on for ever; once the holder lets go, the change goes through.
#[test]
fn a_lock_held_for_ever_is_refused_as_busy_after_the_wait() {
    let s = Scratch::new();
    let brain = s.brain().with_lock_wait(Duration::from_millis(50));
    brain.write("plan", "1. first\n", None).unwrap();
    let folder = notesoup_safe_fs::Dir::open(brain.dir()).unwrap();
    let held = folder.lock().unwrap();
    let (tell, told) = std::sync::mpsc::channel();
    let writer = brain.clone();
    std::thread::spawn(move || {
        let _ = tell.send((
            writer
                .write("plan", "2. second\n", None)
                .map_err(|e| e.code()),
            writer
                .edit("plan", &Edit::Append("more\n".into()), None)
                .map_err(|e| e.code()),
            writer.delete("plan", None).map_err(|e| e.code()),
        ));
    });
    // A bound on the test itself: without one, a lock waited on for ever hangs the suite.
    let (write, append, delete) = told
        .recv_timeout(Duration::from_secs(120))
        .expect("a change waited on the held lock for ever");
    assert_eq!(write.err(), Some("busy"));
    assert_eq!(append.err(), Some("busy"));
    assert_eq!(delete.err(), Some("busy"));
    assert_eq!(brain.read("plan").unwrap().text, "1. first\n");
    drop(held);
    brain.write("plan", "2. second\n", None).unwrap();
    assert_eq!(brain.read("plan").unwrap().text, "2. second\n");
}

/// A refused name is quoted with its control and invisible characters escaped: a line break
/// or a right-to-left override in a name never breaks or reorders the refusal's line.
#[test]
fn a_refused_name_is_quoted_with_its_invisible_characters_escaped() {
    for (name, shown) in [
        ("a\nb", "`a\\nb`"),
        ("a\u{202e}b", "`a\\u{202e}b`"),
        ("a\u{1b}[31mb", "`a\\u{1b}[31mb`"),
        ("Plan", "`Plan`"),
    ] {
        let message = check_name(name).unwrap_err().to_string();
        assert!(message.contains(shown), "{name:?}: {message}");
        assert!(
            !message.contains(['\n', '\u{202e}', '\u{1b}']),
            "{name:?}: {message:?}"
        );
    }
}
