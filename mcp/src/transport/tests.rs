use super::{Frame, INVALID_REQUEST, PARSE_ERROR, frame};

fn reply(line: &str) -> serde_json::Value {
    match frame(line.as_bytes()) {
        Frame::Reply(value) => value,
        other => panic!("{line:?} gave {other:?}, not a reply"),
    }
}

#[test]
fn not_json_is_a_parse_error_with_a_null_id() {
    let r = reply("{\"jsonrpc\":\"2.0\",\"id\":1,");
    assert_eq!(r["error"]["code"], PARSE_ERROR);
    assert!(r["id"].is_null());
    assert_eq!(reply("\u{fffd}garbage")["error"]["code"], PARSE_ERROR);
}

#[test]
fn a_request_of_the_wrong_shape_is_invalid_and_keeps_its_id() {
    let r = reply(r#"{"jsonrpc":"2.0","id":7,"method":5}"#);
    assert_eq!(r["error"]["code"], INVALID_REQUEST);
    assert_eq!(r["id"], 7);
    let r = reply(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#);
    assert_eq!(r["error"]["code"], INVALID_REQUEST);
    assert!(r["id"].is_null());
    assert_eq!(reply("42")["error"]["code"], INVALID_REQUEST);
}

#[test]
fn notifications_responses_and_blank_lines_are_never_answered() {
    for line in [
        "",
        "  \r",
        r#"{"jsonrpc":"2.0","method":"notifications/whatever","params":[1]}"#,
        r#"{"jsonrpc":"2.0","id":3,"result":{"weird":true}}"#,
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
    ] {
        assert!(
            matches!(frame(line.as_bytes()), Frame::Skip | Frame::Message(_)),
            "{line:?} was answered"
        );
    }
}

#[test]
fn a_good_request_is_a_message() {
    let line = b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"ping\"}\r";
    assert!(matches!(frame(line), Frame::Message(_)));
}

#[test]
fn a_tool_call_without_a_name_or_with_odd_arguments_is_invalid_params() {
    for (line, says) in [
        (
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}"#,
            "needs `name`",
        ),
        (
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":3}}"#,
            "needs `name`",
        ),
        (
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"notes_list","arguments":[1]}}"#,
            "must be an object",
        ),
    ] {
        let r = reply(line);
        assert_eq!(r["id"], 7, "{r}");
        assert_eq!(r["error"]["code"], -32602, "{r}");
        assert!(
            r["error"]["message"].as_str().unwrap().contains(says),
            "{r}"
        );
    }
    // A call of that shape with a name is the server's to answer.
    assert!(matches!(
        frame(br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"notes_list"}}"#),
        Frame::Message(_)
    ));
}

/// A writer whose reader went away: every write fails as a closed pipe's does.
struct Closed;

impl tokio::io::AsyncWrite for Closed {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
        _: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::task::Poll::Ready(Err(std::io::ErrorKind::BrokenPipe.into()))
    }

    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }
}

/// Once an answer cannot be written (the client closed its end of stdout, stdin still
/// open), the next receive ends the session: the server stops rather than work on the
/// requests still coming for a reader that is gone.
#[test]
fn a_failed_write_ends_the_session_at_the_next_receive() {
    use rmcp::transport::Transport as _;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let input = br#"{"jsonrpc":"2.0","id":2,"method":"ping"}
"#
        .repeat(3);
        let mut transport = super::LineTransport::new(&input[..], Closed);
        transport.started = true;
        assert!(transport.receive().await.is_some(), "the first request");
        let answer = serde_json::from_value(serde_json::json!(
            {"jsonrpc": "2.0", "id": 2, "result": {}}
        ))
        .expect("an answer");
        assert!(transport.send(answer).await.is_err(), "the write failed");
        assert!(
            transport.receive().await.is_none(),
            "the session went on after its answers could no longer be written"
        );
    });
}
