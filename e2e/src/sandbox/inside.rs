//! The sandbox from inside: what `notesoup-e2e-sandbox` does as the first process of the
//! user, network, mount and PID namespaces `unshare` made for it. It brings up loopback
//! (the only interface), lays a tmpfs over the real home with the paths a run needs bound
//! back (the engine's install read-only, a run dir under the home writable), starts the
//! relays to the scripted services, then runs the command and exits with its status; the
//! PID namespace ends with it, and everything the command left behind with it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::E2eError;
use crate::sandbox::relay;

/// Where `ip`, `mount` and `umount` are looked for (the command's own PATH may lack sbin).
const SYSTEM_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// What the sandbox is to hold; the arguments of `notesoup-e2e-sandbox` are its one
/// written form ([`Plan::to_args`], [`Plan::parse`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// The real home, laid over with an empty tmpfs.
    pub home: Option<PathBuf>,
    /// An empty folder outside the home where the home is bound while paths are brought back.
    pub stage: Option<PathBuf>,
    /// Paths under the home brought back read-only.
    pub read_only: Vec<PathBuf>,
    /// Paths under the home brought back writable.
    pub writable: Vec<PathBuf>,
    /// `127.0.0.1:<port>` inside, handed to this unix socket.
    pub relays: Vec<(u16, PathBuf)>,
    /// The program and its arguments (none: only set the sandbox up, then exit 0).
    pub command: Vec<OsString>,
}

impl Plan {
    /// The arguments that [`Plan::parse`] reads back.
    pub fn to_args(&self) -> Vec<OsString> {
        let mut args: Vec<OsString> = Vec::new();
        let mut flag = |name: &str, value: OsString| {
            args.push(name.into());
            args.push(value);
        };
        if let Some(home) = &self.home {
            flag("--home", home.into());
        }
        if let Some(stage) = &self.stage {
            flag("--stage", stage.into());
        }
        for path in &self.read_only {
            flag("--ro", path.into());
        }
        for path in &self.writable {
            flag("--rw", path.into());
        }
        for (port, socket) in &self.relays {
            let mut value = OsString::from(format!("{port}="));
            value.push(socket);
            flag("--relay", value);
        }
        args.push("--".into());
        args.extend(self.command.iter().cloned());
        args
    }

    /// Reads the arguments [`Plan::to_args`] wrote.
    pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Self, E2eError> {
        let mut plan = Self::default();
        let mut args = args.into_iter();
        while let Some(flag) = args.next() {
            if flag == "--" {
                plan.command = args.collect();
                return Ok(plan);
            }
            let value = args
                .next()
                .ok_or_else(|| E2eError::Setup(format!("{} needs a value", flag.display())))?;
            match flag.to_str() {
                Some("--home") => plan.home = Some(value.into()),
                Some("--stage") => plan.stage = Some(value.into()),
                Some("--ro") => plan.read_only.push(value.into()),
                Some("--rw") => plan.writable.push(value.into()),
                Some("--relay") => {
                    let text = value.to_string_lossy();
                    let parsed = text
                        .split_once('=')
                        .and_then(|(port, socket)| Some((port.parse().ok()?, socket.into())));
                    let relay = parsed.ok_or_else(|| {
                        E2eError::Setup(format!("--relay {text}: expected PORT=SOCKET"))
                    })?;
                    plan.relays.push(relay);
                }
                _ => return Err(E2eError::Setup(format!("unknown flag {}", flag.display()))),
            }
        }
        Ok(plan)
    }
}

/// Sets the sandbox up as `plan` says, then runs its command to its end; returns the exit
/// code to leave with (128 + the signal for a killed command).
pub fn enter(plan: &Plan) -> Result<i32, E2eError> {
    system(&["ip", "link", "set", "lo", "up"])?;
    if let Some(home) = &plan.home {
        hide_home(home, plan)?;
    }
    for (port, socket) in &plan.relays {
        relay::relay(*port, socket.clone())?;
    }
    let Some((program, args)) = plan.command.split_first() else {
        return Ok(0);
    };
    let status = Command::new(program)
        .args(args)
        .status()
        .map_err(|e| E2eError::io(&Path::new(program).display().to_string(), e))?;
    Ok(exit_code(status))
}

fn exit_code(status: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt as _;
    status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(1)
}

/// Lays an empty tmpfs over `home`, then binds each kept path back from a view of the
/// real home left at the stage (parents before children), then lets go of the stage.
fn hide_home(home: &Path, plan: &Plan) -> Result<(), E2eError> {
    let stage = plan.stage.as_deref().ok_or_else(|| {
        E2eError::Setup("--home needs --stage (where the real home is seen meanwhile)".into())
    })?;
    let mut kept: Vec<(&Path, bool)> = plan
        .read_only
        .iter()
        .map(|p| (p.as_path(), true))
        .chain(plan.writable.iter().map(|p| (p.as_path(), false)))
        .collect();
    kept.sort_by_key(|(path, _)| path.components().count());
    mount(&["--rbind".as_ref(), home.as_os_str(), stage.as_os_str()])?;
    mount(&[
        "-t".as_ref(),
        "tmpfs".as_ref(),
        "-o".as_ref(),
        "mode=0755,size=16m".as_ref(),
        "notesoup-e2e-hidden-home".as_ref(),
        home.as_os_str(),
    ])?;
    for (path, read_only) in kept {
        let relative = path.strip_prefix(home).map_err(|_| {
            E2eError::Setup(format!(
                "{} is not under the hidden home {}",
                path.display(),
                home.display()
            ))
        })?;
        let seen = stage.join(relative);
        let what = |p: &Path| p.display().to_string();
        if seen.is_dir() {
            std::fs::create_dir_all(path).map_err(|e| E2eError::io(&what(path), e))?;
        } else {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|e| E2eError::io(&what(parent), e))?;
            }
            std::fs::write(path, b"").map_err(|e| E2eError::io(&what(path), e))?;
        }
        mount(&["--rbind".as_ref(), seen.as_os_str(), path.as_os_str()])?;
        if read_only {
            mount(&["-o".as_ref(), "remount,bind,ro".as_ref(), path.as_os_str()])?;
        }
    }
    let status = Command::new("umount")
        .env("PATH", SYSTEM_PATH)
        .arg("-l")
        .arg(stage)
        .status()
        .map_err(|e| E2eError::io("umount", e))?;
    if !status.success() {
        return Err(E2eError::Setup(format!(
            "umount -l {}: {status}",
            stage.display()
        )));
    }
    Ok(())
}

fn mount(args: &[&std::ffi::OsStr]) -> Result<(), E2eError> {
    let out = Command::new("mount")
        .env("PATH", SYSTEM_PATH)
        .args(args)
        .output()
        .map_err(|e| E2eError::io("mount", e))?;
    if out.status.success() {
        return Ok(());
    }
    Err(E2eError::Setup(format!(
        "mount {}: {}",
        args.iter()
            .map(|a| a.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" "),
        String::from_utf8_lossy(&out.stderr).trim()
    )))
}

fn system(args: &[&str]) -> Result<(), E2eError> {
    let out = Command::new(args[0])
        .env("PATH", SYSTEM_PATH)
        .args(&args[1..])
        .output()
        .map_err(|e| E2eError::io(args[0], e))?;
    if out.status.success() {
        return Ok(());
    }
    Err(E2eError::Setup(format!(
        "{}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr).trim()
    )))
}
