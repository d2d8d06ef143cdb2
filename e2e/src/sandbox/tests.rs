use std::ffi::OsString;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};

use super::inside::Plan;
use super::install_root;
use super::relay::Bridge;

#[test]
fn a_plan_reads_back_what_it_wrote() {
    let plan = Plan {
        home: Some("/home/me".into()),
        stage: Some("/tmp/run/.stage".into()),
        read_only: vec!["/home/me/.cache/x/package".into()],
        writable: vec!["/home/me/runs/r1".into()],
        relays: vec![(40123, "/tmp/run/.sandbox-40123.sock".into())],
        command: vec!["/bin/echo".into(), "--ro".into(), "-- x".into()],
    };
    assert_eq!(Plan::parse(plan.to_args()).unwrap(), plan);
}

#[test]
fn a_bad_plan_says_which_argument() {
    let args = |a: &[&str]| a.iter().map(OsString::from).collect::<Vec<_>>();
    let err = Plan::parse(args(&["--relay", "12"])).unwrap_err();
    assert!(err.to_string().contains("--relay 12"), "{err}");
    let err = Plan::parse(args(&["--home"])).unwrap_err();
    assert!(err.to_string().contains("--home needs a value"), "{err}");
    let err = Plan::parse(args(&["--nope", "x"])).unwrap_err();
    assert!(err.to_string().contains("--nope"), "{err}");
}

#[test]
fn the_install_root_is_the_npm_package_or_the_binary_folder() {
    let root = |p: &str| install_root(Path::new(p));
    assert_eq!(
        root("/h/.cache/notesoup/claude-code/2.1.319-linux-x64/package/claude"),
        PathBuf::from("/h/.cache/notesoup/claude-code/2.1.319-linux-x64/package")
    );
    assert_eq!(
        root("/h/.cache/notesoup/pi/pi-1.6.0/node_modules/@e/pi/dist/bundle/cli.js"),
        PathBuf::from("/h/.cache/notesoup/pi/pi-1.6.0/node_modules")
    );
    assert_eq!(
        root("/w/target/release/notesoup-helper"),
        PathBuf::from("/w/target/release")
    );
}

#[test]
fn a_bridge_carries_a_connection_both_ways_to_the_service() {
    let dir = std::env::temp_dir().join(format!("notesoup-e2e-bridge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let service = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = service.local_addr().unwrap();
    let socket = dir.join("s.sock");
    let bridge = Bridge::start(&socket, addr).unwrap();
    let echo = std::thread::spawn(move || {
        let (mut tcp, _) = service.accept().unwrap();
        let mut asked = String::new();
        tcp.read_to_string(&mut asked).unwrap();
        tcp.write_all(format!("answer to {asked}").as_bytes())
            .unwrap();
    });
    let mut unix = std::os::unix::net::UnixStream::connect(&socket).unwrap();
    unix.write_all(b"the question").unwrap();
    unix.shutdown(std::net::Shutdown::Write).unwrap();
    let mut answer = String::new();
    unix.read_to_string(&mut answer).unwrap();
    echo.join().unwrap();
    assert_eq!(answer, "answer to the question");
    drop(bridge);
    assert!(!socket.exists(), "the bridge left its socket behind");
    std::fs::remove_dir_all(&dir).unwrap();
}
