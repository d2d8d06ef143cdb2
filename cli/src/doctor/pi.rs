//! The Pi checks: the notesoup extension where Pi loads it, the helper it runs, and Pi's
//! settings as notesoup reads them.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use notesoup_thresholds::{PiInputs, ThresholdError, pi_margins, resolve_pi};

use super::helper::{helper_runs, named_helper, platform_helper};
use super::pi_copies::{Kind, PACKAGE, Places};
use super::pi_trust;
use super::process::on_path;
use super::settings::{invalid_margins, margins_in_force};
use super::{Check, Status, built_from, check};
use crate::Env;
use crate::limits::pi_read::{PiRead, models_window};

/// The extension (`pi`), its helper (`pi-helper`) and Pi's settings as notesoup reads them
/// (`settings`), when Pi is here at all (`$PI`, `pi` on PATH, or Pi's folder); a machine
/// without Pi skips them.
pub(super) fn pi_check(env: &Env, checks: &mut Vec<Check>) {
    let read = PiRead::of(env, env.cwd());
    let here = checks.len();
    extension_check(env, &read, checks);
    if checks.get(here).is_some_and(|c| c.status != Status::Skip) {
        settings_check(env, &read, checks);
    }
}

/// Pi's settings files, each readable JSON (Pi ignores a broken one, with its own warning),
/// their notesoup margins whole numbers, and the points placeable in the default model's
/// window (`models.json`'s, else a 200K window).
fn settings_check(env: &Env, read: &PiRead, checks: &mut Vec<Check>) {
    let mut bad = false;
    for (f, _) in &read.files {
        if let Some(why) = &f.broken {
            bad = true;
            checks.push(check(
                "settings",
                Status::Warn,
                format!(
                    "Pi: {} is not a settings object ({why}): Pi ignores it",
                    f.path.display()
                ),
                Some(format!("fix the JSON of {}", f.path.display())),
            ));
        }
    }
    let settings = &read.settings;
    let invalid = invalid_margins(
        &pi_margins(Some(settings)),
        "Pi: ",
        &format!(" ({})", read.setting_files("notesoup")),
    );
    bad |= !invalid.is_empty();
    checks.extend(invalid);
    let model = read.default_model();
    let window = model
        .as_deref()
        .and_then(|m| models_window(env, m))
        .unwrap_or(crate::limits::pi::DEFAULT_WINDOW);
    if let Err(err) = resolve_pi(&PiInputs {
        model: model.as_deref(),
        ..PiInputs::new(window, Some(settings))
    }) {
        bad = true;
        let fix = match err {
            ThresholdError::PiReserveTooLarge { .. } | ThresholdError::PiSetting { .. } => {
                format!("change compaction in {}", read.setting_files("compaction"))
            }
            _ => format!(
                "lower notesoup.resetMarginTokens / notesoup.warningRunwayTokens in {} (or remove them for the defaults)",
                read.setting_files("notesoup")
            ),
        };
        checks.push(check(
            "settings",
            Status::Fail,
            format!("Pi: {err}"),
            Some(fix),
        ));
    }
    if !bad {
        let reserve = settings
            .compaction_settings(model.as_deref())
            .map_or(0, |c| c.reserve_tokens);
        checks.push(check(
            "settings",
            Status::Ok,
            format!(
                "Pi: notesoup margins valid: {}; compaction.reserveTokens {}",
                margins_in_force(&pi_margins(Some(settings))),
                notesoup_window::thousands(reserve)
            ),
            None,
        ));
    }
}

/// The extension (`pi`) and its helper (`pi-helper`).
fn extension_check(env: &Env, read: &PiRead, checks: &mut Vec<Check>) {
    let binary = env
        .var_set("PI")
        .map(PathBuf::from)
        .or_else(|| on_path(env, "pi"));
    let agent = crate::limits::pi_read::agent_dir(env);
    // Pi run through npx, an alias or a version manager is not on PATH: its folder says it
    // is used here all the same.
    let pi = match (&binary, &agent) {
        (Some(binary), _) => format!("Pi at {}", binary.display()),
        (None, Some(agent)) if agent.is_dir() => format!("Pi's folder {}", agent.display()),
        (None, _) => {
            checks.push(check(
                "pi",
                Status::Skip,
                "Pi not found (no `pi` on PATH, PI not set, no ~/.pi/agent): the Pi extension is not checked",
                None,
            ));
            return;
        }
    };
    let Some(agent) = agent else {
        checks.push(check(
            "pi",
            Status::Warn,
            format!("{pi}, but neither PI_CODING_AGENT_DIR nor HOME is set"),
            Some("set HOME (Pi keeps its extensions under ~/.pi/agent)".into()),
        ));
        return;
    };
    let places = Places::new(&agent, env.cwd(), listed_extension(read));
    let loaded = super::pi_copies::copies(read, &places);
    if loaded.len() > 1 {
        checks.extend(super::pi_copies::twice(&pi, &loaded));
        return;
    }
    let waiting = super::pi_copies::waiting(read, &places);
    if let (None, Some(waiting)) = (loaded.first(), &waiting) {
        checks.push(pi_trust::only_waiting(&pi, waiting, read.trusted, &places));
        return;
    }
    // The one copy Pi loads, as `copies` found it (an npm folder no settings name is not
    // loaded: `pi remove` leaves it so).
    let Some(one) = loaded.first() else {
        checks.push(no_extension(&pi, &agent, &places));
        return;
    };
    let folder = &one.folder;
    let (how, fix) = match one.kind {
        Kind::Linked | Kind::Listed => (
            if one.kind == Kind::Linked {
                "linked"
            } else {
                "in the extensions of Pi's settings.json"
            },
            match std::fs::canonicalize(folder)
                .ok()
                .and_then(|real| real.parent()?.parent().and_then(super::checkout))
                .or_else(built_from)
            {
                Some(checkout) => format!(
                    "run {}/scripts/install (it builds and stages the helper)",
                    checkout.display()
                ),
                None => {
                    format!("pi install npm:{PACKAGE} (npm brings the helper for this machine)")
                }
            },
        ),
        Kind::Npm => (
            "installed from npm",
            format!("reinstall: pi install npm:{PACKAGE} (npm brings the helper for this machine)"),
        ),
        Kind::ProjectNpm => (
            "installed from npm into this project",
            format!(
                "reinstall: cd {} && pi install -l npm:{PACKAGE} (npm brings the helper for this machine)",
                places.project.display()
            ),
        ),
    };
    let line = match &waiting {
        Some(waiting) => pi_trust::conflict_ahead(&pi, one, waiting, &places)
            .unwrap_or_else(|| ok_line(folder, how, &pi_trust::note(waiting, &places))),
        None => ok_line(folder, how, ""),
    };
    checks.push(line);
    let (helper, fix) = named_helper(env).unwrap_or_else(|| (extension_helper(env, folder), fix));
    checks.push(helper_runs(env, "pi-helper", &helper, fix));
}

/// The `pi` line when Pi finds no copy anywhere doctor looks: the install commands.
fn no_extension(pi: &str, agent: &Path, places: &Places) -> Check {
    let Places {
        link,
        npm,
        project_npm,
        ..
    } = places;
    check(
        "pi",
        Status::Warn,
        format!(
            "{pi}, but it loads no notesoup extension: none at {}, none at {} or {} that the packages of its settings name, none in the extensions of {} (one given with `pi -e` is not seen here)",
            link.display(),
            npm.display(),
            project_npm.display(),
            agent.join("settings.json").display()
        ),
        Some(match built_from() {
            Some(checkout) => format!(
                "pi install npm:{PACKAGE}, or run {0}/scripts/install (it links {1} to {0}/plugins/pi)",
                checkout.display(),
                link.display()
            ),
            None => format!("pi install npm:{PACKAGE}"),
        }),
    )
}

/// The `pi` line of the one copy Pi loads (`note`: what it adds about the project's copy).
fn ok_line(folder: &Path, how: &str, note: &str) -> Check {
    check(
        "pi",
        Status::Ok,
        format!("the Pi extension is at {} ({how}){note}", folder.display()),
        None,
    )
}

/// The helper the extension runs when `NOTESOUP_HELPER` is not set, in its order
/// (plugins/pi/index.ts `helperPath`): `bin/notesoup-helper` beside it, the platform package
/// Node's lookup finds from it (each `node_modules` up from its real folder),
/// `notesoup-helper` on PATH.
fn extension_helper(env: &Env, folder: &Path) -> PathBuf {
    let staged = folder.join("bin/notesoup-helper");
    if staged.exists() {
        return staged;
    }
    let real = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
    real.ancestors()
        .find_map(|dir| platform_helper(&dir.join("node_modules")))
        .or_else(|| on_path(env, "notesoup-helper"))
        .unwrap_or(staged)
}

/// The first folder the `extensions` list of Pi's settings (`<agent>/settings.json`; a
/// relative path is the settings folder's) names that holds notesoup's extension: an
/// `index.ts` that runs `notesoup-helper`. A settings file that is not there or not JSON
/// names none (Pi warns of a broken one itself).
fn listed_extension(read: &PiRead) -> Option<PathBuf> {
    read.extensions().into_iter().find(|folder| {
        // Opened without blocking and only as a regular file (a FIFO there is passed over).
        let mut head = String::new();
        notesoup_safe_fs::open_regular(&folder.join("index.ts")).is_ok_and(|(file, _)| {
            file.take(64 * 1024).read_to_string(&mut head).is_ok()
                && head.contains("notesoup-helper")
        })
    })
}
