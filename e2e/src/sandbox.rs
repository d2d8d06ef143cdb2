//! The e2e sandbox: every real engine (Claude Code in each mode, Pi, Codex) runs where it
//! can reach nothing but loopback and cannot read the real home (spec: "a sandbox blocking
//! external network access and reads of the real home").
//!
//! A run's engine is started as `unshare --user --map-root-user --net --mount --pid --fork
//! --kill-child --mount-proc -- notesoup-e2e-sandbox PLAN -- ENGINE ARGS`: new user,
//! network, mount and PID namespaces, in which `notesoup-e2e-sandbox` ([`inside`]) brings up
//! `lo` (the only interface), lays an empty tmpfs over the real home and binds back what
//! the run needs (the engine's install read-only, the run dir writable, when they are under
//! the home). The scripted services stay in the test process, on this side's loopback: a
//! relay inside listens on each service's own port and hands every connection through a
//! unix socket in the run dir to a bridge (`relay.rs`) here, which connects to the service.
//! So `ANTHROPIC_BASE_URL` and the providers' URLs are the same inside and out.
//!
//! The PID namespace ends with its first process: whatever the engine left (MCP servers,
//! a tmux pane) goes with it, and `--kill-child` ends that process when `unshare` is killed.
//!
//! Where the machine has no unprivileged user namespaces, no `unshare` or no `ip`, the
//! runs fall back to what the sandbox adds to (an isolated HOME, fake keys, a dead proxy)
//! and the reason is printed once. `NOTESOUP_E2E_SANDBOX=off` turns the sandbox off;
//! `NOTESOUP_E2E_SANDBOX=require` makes its absence an error.

pub mod inside;
pub(crate) mod relay;

use std::ffi::OsString;
use std::io::Write as _;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::E2eError;
use inside::Plan;
use relay::Bridge;

/// The namespaces and the clean-up `unshare` is asked for.
const UNSHARE_FLAGS: [&str; 8] = [
    "--user",
    "--map-root-user",
    "--net",
    "--mount",
    "--pid",
    "--fork",
    "--kill-child",
    "--mount-proc",
];
/// The binary that sets the sandbox up from inside (a sibling of the test binaries).
const TOOL: &str = "notesoup-e2e-sandbox";

/// The sandbox on this machine: `unshare`, the tool, and the real home it hides.
#[derive(Debug)]
pub struct Sandbox {
    unshare: PathBuf,
    tool: PathBuf,
    home: Option<PathBuf>,
}

/// One run's sandbox: the bridges to its services (alive as long as this is) and what
/// each engine process of the run is started with ([`Confined::command`]).
pub struct Confined {
    sandbox: &'static Sandbox,
    run: PathBuf,
    stage: PathBuf,
    relays: Vec<(u16, PathBuf)>,
    _bridges: Vec<Bridge>,
}

impl Confined {
    /// A command that runs `program` in a fresh sandbox of this run; `read_only` paths
    /// (the engine's install, see [`install_root`]) stay readable when under the home.
    /// Add the program's arguments, env, cwd and stdio as usual.
    pub fn command(&self, program: &Path, read_only: &[&Path]) -> Command {
        let sandbox = self.sandbox;
        let mut plan = sandbox.plan(Some(&self.stage), read_only, &[&self.run], &self.relays);
        plan.command = vec![OsString::from(program)];
        let mut cmd = Command::new(&sandbox.unshare);
        cmd.args(UNSHARE_FLAGS)
            .arg("--")
            .arg(&sandbox.tool)
            .args(plan.to_args());
        cmd
    }
}

impl Drop for Confined {
    fn drop(&mut self) {
        // Empty on this side: the home was bound onto it only inside the sandbox.
        let _ = std::fs::remove_dir(&self.stage);
    }
}

impl Sandbox {
    /// The sandbox, probed once per process: `Ok(None)` when this machine cannot make one
    /// (the reason printed once to stderr), an error when `NOTESOUP_E2E_SANDBOX=require`.
    pub fn get() -> Result<Option<&'static Self>, E2eError> {
        static PROBED: OnceLock<Result<Sandbox, String>> = OnceLock::new();
        let probed = PROBED.get_or_init(|| {
            let found = Self::probe();
            if let Err(reason) = &found {
                // Straight to the process's stderr: a test's `eprintln!` is captured and
                // shown only when it fails, and this notice is for every run.
                let _ = writeln!(
                    std::io::stderr(),
                    "notesoup-e2e: no sandbox ({reason}); the engines run with only an isolated HOME, fake keys and a dead proxy"
                );
            }
            found
        });
        let required = std::env::var("NOTESOUP_E2E_SANDBOX").is_ok_and(|v| v == "require");
        match probed {
            Ok(sandbox) => Ok(Some(sandbox)),
            Err(reason) if required => Err(E2eError::Setup(format!(
                "NOTESOUP_E2E_SANDBOX=require, but there is no sandbox: {reason}"
            ))),
            Err(_) => Ok(None),
        }
    }

    /// Finds `unshare` and the tool, then sets a sandbox up once with no command.
    fn probe() -> Result<Self, String> {
        if std::env::var("NOTESOUP_E2E_SANDBOX").is_ok_and(|v| v == "off") {
            return Err("turned off by NOTESOUP_E2E_SANDBOX=off".into());
        }
        let unshare = on_path("unshare").ok_or("no `unshare` on PATH (util-linux)")?;
        if on_path("ip").is_none() {
            return Err("no `ip` (iproute2) to bring up loopback in a network namespace".into());
        }
        let tool = tool_path().ok_or_else(|| {
            format!("no {TOOL} beside the test binary (cargo builds it with the e2e crate)")
        })?;
        let home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .filter(|h| h.is_absolute() && h.parent().is_some() && h.is_dir());
        let sandbox = Self {
            unshare,
            tool,
            home,
        };
        let stage = sandbox.stage_dir(&std::env::temp_dir())?;
        let plan = sandbox.plan(Some(&stage), &[], &[], &[]);
        let out = Command::new(&sandbox.unshare)
            .args(UNSHARE_FLAGS)
            .arg("--")
            .arg(&sandbox.tool)
            .args(plan.to_args())
            .stdin(Stdio::null())
            .output();
        let _ = std::fs::remove_dir(&stage);
        let out = out.map_err(|e| format!("{}: {e}", sandbox.unshare.display()))?;
        if !out.status.success() {
            return Err(format!(
                "unshare {} failed: {}",
                UNSHARE_FLAGS.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(sandbox)
    }

    /// The real home it hides (none when HOME is unset or `/`).
    pub fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    /// Sets a run up for sandboxed engines: a bridge to each of `services` (the relay
    /// inside listens on the same port) and the stage. `run` (writable) stays reachable
    /// when it is under the home. Keep the [`Confined`] until the engines have ended.
    pub fn confine(
        &'static self,
        run: &Path,
        services: &[SocketAddr],
    ) -> Result<Confined, E2eError> {
        let mut bridges = Vec::new();
        let mut relays = Vec::new();
        for addr in services {
            let socket = run.join(format!(".sandbox-{}.sock", addr.port()));
            bridges.push(Bridge::start(&socket, *addr)?);
            relays.push((addr.port(), socket));
        }
        let stage = if self.under_home(run) {
            self.stage_dir(&std::env::temp_dir())
        } else {
            self.stage_dir(run)
        }
        .map_err(E2eError::Setup)?;
        Ok(Confined {
            sandbox: self,
            run: run.to_owned(),
            stage,
            relays,
            _bridges: bridges,
        })
    }

    fn plan(
        &self,
        stage: Option<&Path>,
        read_only: &[&Path],
        writable: &[&Path],
        relays: &[(u16, PathBuf)],
    ) -> Plan {
        let under = |paths: &[&Path]| -> Vec<PathBuf> {
            paths
                .iter()
                .filter(|p| self.under_home(p))
                .map(|p| p.to_path_buf())
                .collect()
        };
        Plan {
            home: self.home.clone(),
            stage: self.home.as_ref().and(stage.map(Path::to_path_buf)),
            read_only: under(read_only),
            writable: under(writable),
            relays: relays.to_vec(),
            command: Vec::new(),
        }
    }

    fn under_home(&self, path: &Path) -> bool {
        self.home
            .as_ref()
            .is_some_and(|home| path.starts_with(home))
    }

    /// A fresh empty folder in `parent` (which must not be under the home) where the real
    /// home is seen while the kept paths are bound back.
    fn stage_dir(&self, parent: &Path) -> Result<PathBuf, String> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        if self.under_home(parent) {
            return Err(format!(
                "{} is under the home {}: no place to stage the home outside it",
                parent.display(),
                self.home.as_deref().unwrap_or(Path::new("")).display()
            ));
        }
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let dir = parent.join(format!(".sandbox-stage-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        Ok(dir)
    }
}

/// The run's sandbox when this machine has one ([`Sandbox::get`], then
/// [`Sandbox::confine`]); `None` where it has none.
pub fn confine(run: &Path, services: &[SocketAddr]) -> Result<Option<Confined>, E2eError> {
    Sandbox::get()?
        .map(|sandbox| sandbox.confine(run, services))
        .transpose()
}

/// What a run's engine binary needs to stay readable: its install (the folder named
/// `package` or `node_modules` on its path, as npm lays them out), else its own folder.
pub fn install_root(binary: &Path) -> PathBuf {
    let mut root = PathBuf::new();
    for part in binary.components() {
        root.push(part);
        if matches!(part.as_os_str().to_str(), Some("package" | "node_modules")) {
            return root;
        }
    }
    binary
        .parent()
        .map_or_else(|| binary.to_path_buf(), Path::to_path_buf)
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin"].map(PathBuf::from))
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// `notesoup-e2e-sandbox` beside the running binary: a test binary lives in
/// `target/<profile>/deps/`, the package's binaries in `target/<profile>/`.
fn tool_path() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("NOTESOUP_E2E_SANDBOX_TOOL") {
        return Some(PathBuf::from(path));
    }
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?;
    [Some(dir), dir.parent()]
        .into_iter()
        .flatten()
        .map(|d| d.join(TOOL))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests;
