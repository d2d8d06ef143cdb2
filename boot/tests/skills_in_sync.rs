//! The plugins ship byte-identical copies of the canonical skills and playbook in `boot/`.
//! This test fails when a copy drifts; fix it with the `cp` command it prints.

#![allow(
    clippy::unwrap_used,
    reason = "test code: a failed unwrap is a failed test"
)]

use std::path::Path;

/// (canonical, under `boot/`) → (copy, under the workspace root).
const COPIES: &[(&str, &str)] = &[
    (
        "skills/memory/SKILL.md",
        "plugins/claude/skills/memory/SKILL.md",
    ),
    (
        "skills/dream/SKILL.md",
        "plugins/claude/skills/dream/SKILL.md",
    ),
    ("playbook/dream.md", "plugins/claude/playbook/dream.md"),
];

#[test]
fn plugin_copies_match_the_canonical_texts() {
    let boot = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = boot.parent().unwrap();
    let mut drift = Vec::new();
    for (canonical, copy) in COPIES {
        let want = std::fs::read(boot.join(canonical)).unwrap();
        match std::fs::read(root.join(copy)) {
            Ok(got) if got == want => {}
            Ok(_) => drift.push(format!("{copy} differs: cp boot/{canonical} {copy}")),
            Err(e) => drift.push(format!("{copy}: {e}: cp boot/{canonical} {copy}")),
        }
    }
    assert!(drift.is_empty(), "{}", drift.join("\n"));
}

#[test]
fn skills_have_claude_code_frontmatter() {
    for (skill, name) in [
        (notesoup_boot::MEMORY_SKILL, "memory"),
        (notesoup_boot::DREAM_SKILL, "dream"),
    ] {
        let front = skill
            .strip_prefix("---\n")
            .and_then(|rest| rest.split_once("\n---\n"))
            .map_or_else(|| panic!("{name}: no frontmatter"), |(front, _)| front);
        assert!(
            front.lines().any(|l| l == format!("name: {name}")),
            "{front}"
        );
        let description = front
            .lines()
            .find_map(|l| l.strip_prefix("description: "))
            .unwrap_or_else(|| panic!("{name}: no description"));
        assert!(
            description.len() > 40 && description.len() <= 1024,
            "{description}"
        );
    }
}
