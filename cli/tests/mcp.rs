//! `notesoup mcp` is the MCP server: the handshake and `tools/list` through the real binary,
//! and a clean exit when stdin closes. (The protocol itself is tested in `notesoup-mcp`.)

use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn notesoup_mcp_serves_and_exits_on_eof() {
    let home = std::env::temp_dir().join(format!("notesoup-cli-mcp-{}", std::process::id()));
    std::fs::create_dir_all(&home).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_notesoup"))
        .args(["mcp", "--project"])
        .arg(&home)
        .env_clear()
        .env("HOME", &home)
        .env("NOTESOUP_HOME", home.join("notesoup"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(concat!(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#, "\n",
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, "\n",
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#, "\n",
        ).as_bytes())
        .unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let _ = std::fs::remove_dir_all(&home);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let replies: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let tools = replies.iter().find(|r| r["id"] == 2).unwrap();
    assert_eq!(
        tools["result"]["tools"].as_array().unwrap().len(),
        8,
        "{stdout}"
    );
    assert_eq!(replies[0]["result"]["serverInfo"]["name"], "notesoup");
}
