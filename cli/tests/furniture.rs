//! Furniture: `notesoup --version` / `-V`, `notesoup completions`, `notesoup man`, and
//! their install.

use notesoup_cli::{CLAUDE_CODE_VERSION, Env, run};

fn version_line(flag: &str) -> String {
    let env = Env::new(Vec::<(String, String)>::new(), "/", false);
    let report = run(["notesoup", flag], &env);
    assert_eq!(report.exit, 0, "{flag}: {}", report.stderr);
    report.stdout
}

#[test]
fn version_names_the_release_the_commit_and_the_claude_code_version() {
    for flag in ["--version", "-V"] {
        let text = version_line(flag);
        assert!(
            text.starts_with(&format!("notesoup {}", env!("CARGO_PKG_VERSION"))),
            "{text}"
        );
        assert!(
            text.contains(&format!("built for Claude Code {CLAUDE_CODE_VERSION}")),
            "{text}"
        );
        let commit = text
            .split("(commit ")
            .nth(1)
            .and_then(|rest| rest.split(',').next());
        let commit = commit.unwrap_or_else(|| panic!("no commit in {text}"));
        assert!(
            commit == "unknown"
                || (commit.len() >= 7 && commit.chars().all(|c| c.is_ascii_hexdigit())),
            "{text}"
        );
    }
}

/// Every command path of the clap tree (`["notes", "write"]`, ...), `help` left out.
fn command_paths() -> Vec<Vec<String>> {
    use clap::CommandFactory as _;
    fn walk(cmd: &clap::Command, at: &[String], out: &mut Vec<Vec<String>>) {
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            let mut path = at.to_vec();
            path.push(sub.get_name().to_owned());
            out.push(path.clone());
            walk(sub, &path, out);
        }
    }
    let mut out = Vec::new();
    walk(&notesoup_cli::Cli::command(), &[], &mut out);
    out
}

fn stdout_of(args: &[&str]) -> String {
    let env = Env::new(Vec::<(String, String)>::new(), "/", false);
    let report = run(
        std::iter::once("notesoup").chain(args.iter().copied()),
        &env,
    );
    assert_eq!(report.exit, 0, "{args:?}: {}", report.stderr);
    report.stdout
}

/// `notesoup completions <shell>` names every command of the tree (walked, so a new one is
/// checked too), and the shells that are installed accept the script.
#[test]
fn completions_name_every_command_and_parse() {
    let paths = command_paths();
    assert!(paths.len() > 15, "{paths:?}");
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = stdout_of(&["completions", shell]);
        for path in &paths {
            let name = path.last().unwrap();
            assert!(script.contains(name.as_str()), "{shell}: no `{name}`");
        }
        let check = match shell {
            "bash" => Some(("bash", vec!["-n"])),
            "zsh" => Some(("zsh", vec!["-n"])),
            "fish" => Some(("fish", vec!["--no-execute"])),
            _ => None,
        };
        let Some((program, args)) = check else {
            continue;
        };
        let file = std::env::temp_dir().join(format!(
            "notesoup-completion-{}.{shell}",
            std::process::id()
        ));
        std::fs::write(&file, &script).unwrap();
        match std::process::Command::new(program)
            .args(&args)
            .arg(&file)
            .output()
        {
            Ok(out) => assert!(
                out.status.success(),
                "{program} refuses the script: {}",
                String::from_utf8_lossy(&out.stderr)
            ),
            Err(_) => eprintln!("{program} is not installed: its completion script is not parsed"),
        }
        let _ = std::fs::remove_file(&file);
    }
}

/// `notesoup man` is a manual page `man` renders, naming every top-level command and the
/// exit statuses; `--out-dir` writes one page per command.
#[test]
fn man_pages_render_and_cover_every_command() {
    let page = stdout_of(&["man"]);
    assert!(
        page.starts_with(".ie") || page.contains(".TH notesoup 1"),
        "{page}"
    );
    let file = std::env::temp_dir().join(format!("notesoup-man-{}.1", std::process::id()));
    std::fs::write(&file, &page).unwrap();
    let rendered = std::process::Command::new("man")
        .args(["-l", "-P", "cat"])
        .arg(&file)
        .env("MANWIDTH", "100")
        .output();
    let _ = std::fs::remove_file(&file);
    match rendered {
        Ok(out) if out.status.success() => {
            let text = String::from_utf8_lossy(&out.stdout);
            for path in command_paths().iter().filter(|p| p.len() == 1) {
                assert!(text.contains(path[0].as_str()), "man: no `{}`", path[0]);
            }
            assert!(text.contains("Exit status"), "{text}");
        }
        other => eprintln!("man could not render the page ({other:?}): only its source is checked"),
    }
    let dir = std::env::temp_dir().join(format!("notesoup-man-dir-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    stdout_of(&["man", "--out-dir", dir.to_str().unwrap()]);
    for path in command_paths() {
        let name = format!("notesoup-{}.1", path.join("-"));
        assert!(dir.join(&name).is_file(), "no {name}");
    }
    assert!(dir.join("notesoup.1").is_file());
    let _ = std::fs::remove_dir_all(&dir);
}

/// README's "Configuration" names every environment variable notesoup's code reads (the
/// Rust crates and the hooks modules, tests left out) and the install scripts read
/// (`scripts/install`, `install-extras`, `get-claude`), so a new one cannot go undocumented.
#[test]
fn readme_configuration_names_every_variable_the_code_reads() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let section = readme
        .split("\n## Configuration\n")
        .nth(1)
        .expect("README has a Configuration section")
        .split("\n## ")
        .next()
        .unwrap();
    let reads = regex::Regex::new(
        r#"(?:\bvar(?:_set|_os)?|env\.get|\.get)\(\s*["']([A-Z][A-Z0-9_]+)["']|process\.env\.([A-Z][A-Z0-9_]+)|["'`]((?:NOTESOUP|CLAUDE|PI|CODEX|XDG|DISABLE)_[A-Z0-9_]+)["'`]"#,
    )
    .unwrap();
    // Read only by tests, benchmarks or the build: not settings of the product.
    let internal = |name: &str| {
        name.starts_with("NOTESOUP_TEST")
            || name.starts_with("FAKE_")
            || [
                "NOTESOUP_BLESS",
                "NOTESOUP_GIT_COMMIT",
                "NOTESOUP_MCP_TEST_SERVE",
                "NOTESOUP_WINDOW_STORE_TEST_HOME",
                "PATH",
            ]
            .contains(&name)
    };
    // The scripts a person runs to install: `${NAME...}` and `$NAME`.
    let shell_reads = regex::Regex::new(r"\$\{?([A-Z][A-Z0-9_]*)").unwrap();
    let mut files = Vec::new();
    sources(&root, &mut files);
    assert!(files.len() > 50, "{} source files", files.len());
    let scripts = [
        "scripts/install",
        "scripts/install-extras",
        "scripts/get-claude",
    ]
    .map(|s| root.join(s));
    let mut missing = std::collections::BTreeSet::new();
    for file in files.iter().chain(&scripts) {
        let text = std::fs::read_to_string(file).unwrap();
        let pattern = if scripts.contains(file) {
            &shell_reads
        } else {
            &reads
        };
        for c in pattern.captures_iter(&text) {
            let name = (1..=3).find_map(|i| c.get(i)).unwrap().as_str();
            if !internal(name)
                && !section.contains(&format!("`{name}`"))
                && !section.contains(&format!("`{name},"))
                && !section.contains(&format!(" {name}`"))
                && !section.contains(&format!(" {name},"))
            {
                missing.insert(format!(
                    "{name} ({})",
                    file.strip_prefix(&root).unwrap().display()
                ));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "README's Configuration does not name: {missing:?}"
    );
}

/// The product's sources: `*.rs` of the crates (not their tests, benches or e2e) and the
/// hooks modules' `*.ts`.
fn sources(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let entries = std::fs::read_dir(dir).expect("a source folder can be listed");
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            let skip = [
                "target",
                "tests",
                "node_modules",
                ".git",
                "e2e",
                "benches",
                "testkit",
                "dist",
                "scripts",
            ];
            if !skip.contains(&name.as_str()) && !name.starts_with('.') {
                sources(&path, out);
            }
        } else {
            let ext = path
                .extension()
                .and_then(|e| e.to_str())
                .unwrap_or_default();
            let rust = ext == "rs" && name != "tests.rs" && name != "build.rs";
            let ts = ext == "ts" && !name.ends_with(".test.ts") && !name.ends_with(".d.ts");
            if !(rust || ts) {
                continue;
            }
            out.push(path);
        }
    }
}

/// Bash offers, after each command that has subcommands, every one of them: the script
/// sourced in bash and its completion function called as Tab calls it.
#[test]
fn bash_offers_every_subcommand_on_tab() {
    use clap::CommandFactory as _;
    let file = std::env::temp_dir().join(format!("notesoup-tab-{}.bash", std::process::id()));
    std::fs::write(&file, stdout_of(&["completions", "bash"])).unwrap();
    let top = notesoup_cli::Cli::command();
    let mut parents = vec![Vec::new()];
    parents.extend(command_paths());
    let mut asked = 0;
    for path in parents {
        let mut node = &top;
        for word in &path {
            node = node.find_subcommand(word).unwrap();
        }
        let children: Vec<&str> = node
            .get_subcommands()
            .map(clap::Command::get_name)
            .filter(|n| *n != "help")
            .collect();
        if children.is_empty() {
            continue;
        }
        asked += 1;
        let words = std::iter::once("notesoup")
            .chain(path.iter().map(String::as_str))
            .chain([""])
            .map(|w| format!("'{w}'"))
            .collect::<Vec<_>>()
            .join(" ");
        let script = format!(
            "source '{}'; COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); _notesoup notesoup '' \"${{COMP_WORDS[COMP_CWORD-1]}}\"; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            file.display()
        );
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(&script)
            .output()
            .unwrap();
        let offered = String::from_utf8_lossy(&out.stdout);
        let offered: Vec<&str> = offered.lines().collect();
        for child in children {
            assert!(
                offered.contains(&child),
                "`notesoup {} <Tab>` does not offer {child}: {offered:?}",
                path.join(" ")
            );
        }
    }
    assert!(asked >= 3, "{asked} commands with subcommands");
    let _ = std::fs::remove_file(&file);
}

/// `scripts/install-extras` (what `scripts/install` runs with the command it installed)
/// puts each completion script and the manual pages where the shells and `man` look,
/// under the XDG folders of HOME, each the command's own output; `scripts/install
/// --uninstall` removes every one of them and leaves the notes.
#[test]
fn install_puts_completions_and_man_pages_in_place_and_uninstall_removes_them() {
    let root = std::env::temp_dir().join(format!("notesoup-install-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let home = root.join("home");
    let notes = home.join(".local/share/notesoup/brains/app-0123456789abcdef/plan.md");
    std::fs::create_dir_all(notes.parent().unwrap()).unwrap();
    std::fs::write(&notes, "keep me\n").unwrap();
    let scripts = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts");
    let script = |name: &str, args: &[&str]| {
        let out = std::process::Command::new(scripts.join(name))
            .args(args)
            .env_clear()
            .env("HOME", &home)
            .env("PATH", "/usr/bin:/bin")
            .env("NOTESOUP_BIN_DIR", root.join("bin"))
            .env("CLAUDE", "/bin/false")
            .env("CODEX", "/bin/false")
            .env("PI", "/bin/false")
            .output()
            .unwrap();
        assert!(out.status.success(), "{name} {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let said = script("install-extras", &[env!("CARGO_BIN_EXE_notesoup")]);
    let completions = [
        (".local/share/bash-completion/completions/notesoup", "bash"),
        (".local/share/zsh/site-functions/_notesoup", "zsh"),
        (".config/fish/completions/notesoup.fish", "fish"),
    ];
    for (file, shell) in completions {
        let got = std::fs::read_to_string(home.join(file))
            .unwrap_or_else(|e| panic!("{file} not installed ({e}): {said}"));
        assert_eq!(got, stdout_of(&["completions", shell]), "{file}");
    }
    let man = home.join(".local/share/man/man1");
    let page = std::fs::read_to_string(man.join("notesoup.1")).unwrap();
    assert!(page.contains(".TH notesoup 1"), "{page}");
    for path in command_paths() {
        let page = man.join(format!("notesoup-{}.1", path.join("-")));
        assert!(page.is_file(), "{} not installed", page.display());
    }
    let said = script("install", &["--uninstall"]);
    for (file, _) in completions {
        assert!(!home.join(file).exists(), "{file} left: {said}");
    }
    let left: Vec<_> = std::fs::read_dir(&man).unwrap().flatten().collect();
    assert!(left.is_empty(), "manual pages left: {left:?}");
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "keep me\n");
    std::fs::remove_dir_all(&root).unwrap();
}
