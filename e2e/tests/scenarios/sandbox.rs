//! The e2e sandbox holds (spec: "a sandbox blocking external network access and reads of
//! the real home"): from inside the real Claude Code, in `-p` and in a terminal, a Bash
//! tool call can neither read a canary file in the real home nor connect to this
//! machine's own non-loopback address, both of which the test process itself can.

use std::io::Read as _;
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use notesoup_e2e::{Match, Mode, Reply, Sandbox, Script, Step};
use rstest::rstest;

use super::{assert_clean_exit, serial, session, tmux, tool_results_text};

/// A file in the real home with a secret in it; removed when dropped.
struct Canary {
    path: PathBuf,
    secret: String,
}

impl Canary {
    fn plant(home: &Path, name: &str) -> Self {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let secret = format!("the canary's secret is {nanos}");
        let path = home.join(format!(
            ".notesoup-e2e-canary-{}-{name}",
            std::process::id()
        ));
        std::fs::write(&path, &secret).unwrap();
        Self { path, secret }
    }
}

impl Drop for Canary {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// This machine's first IPv4 address that is not loopback (`hostname -I`).
fn own_address() -> Option<Ipv4Addr> {
    let out = Command::new("hostname").arg("-I").output().ok()?;
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .filter_map(|a| a.parse::<Ipv4Addr>().ok())
        .find(|a| !a.is_loopback())
}

#[rstest]
#[case::print("print")]
#[case::tmux("tmux")]
fn x01_the_sandbox_blocks_the_network_and_the_real_home(#[case] driven: &str) {
    let Some(sandbox) = Sandbox::get().unwrap() else {
        // The reason was printed once; NOTESOUP_E2E_SANDBOX=require makes this a failure.
        return;
    };
    let home = sandbox
        .home()
        .expect("HOME names a folder the sandbox hides");
    let address = own_address().expect("a non-loopback address on this machine");
    let canary = Canary::plant(home, driven);
    // Outside the sandbox both are reachable: the listener is on every address of this
    // machine (the traffic never leaves it), and the canary is readable.
    let listener = TcpListener::bind((Ipv4Addr::UNSPECIFIED, 0)).unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(TcpStream::connect((address, port)).expect("the test reaches its own address"));
    listener.accept().unwrap();
    listener.set_nonblocking(true).unwrap();
    let mut seen = String::new();
    std::fs::File::open(&canary.path)
        .and_then(|mut f| f.read_to_string(&mut seen))
        .unwrap();
    assert_eq!(seen, canary.secret);

    let command = format!(
        "cat {path}; echo read-exit=$?; bash -c 'exec 3<>/dev/tcp/{address}/{port}' && echo CONNECTED || echo connect-failed",
        path = canary.path.display()
    );
    let script = Script::new()
        .then(Reply::tool(
            "Bash",
            serde_json::json!({"command": command, "description": "probe the sandbox"}),
        ))
        .then_when(Match::tool_result(true), Reply::text("probed the sandbox"))
        .fallback(Reply::text("(fallback)"));
    let mode = match driven {
        "print" => Mode::Print("Probe the sandbox.".into()),
        _ => tmux(
            "Probe the sandbox.",
            vec![
                Step::WaitFor("probed the sandbox".into(), Duration::from_secs(60)),
                Step::Sleep(Duration::from_secs(1)),
            ],
        ),
    };
    let out = {
        let _one = serial();
        session(&format!("x01-sandbox-{driven}"), script)
            // The default mode: a terminal's auto mode asks before any Bash call here (its
            // check runs on Anthropic's server), whatever `--allowedTools` says.
            .args(&["--allowedTools", "Bash", "--permission-mode", "default"])
            .run(&mode)
            .unwrap()
    };
    assert_clean_exit(&out);
    let requests = out.model_turn_requests();
    let result = requests
        .iter()
        .map(|r| tool_results_text(*r))
        .find(|t| t.contains("read-exit="))
        .unwrap_or_else(|| panic!("the probe's tool result never reached the model"));
    assert!(
        !result.contains(&canary.secret),
        "the engine read the canary in the real home: {result}"
    );
    assert!(
        !result.contains("read-exit=0"),
        "the canary's read did not fail: {result}"
    );
    assert!(
        result.contains("connect-failed") && !result.contains("CONNECTED"),
        "the engine connected to {address}:{port}: {result}"
    );
    assert!(
        listener.accept().is_err(),
        "a connection reached the listener on {address}:{port} from inside the sandbox"
    );
}
