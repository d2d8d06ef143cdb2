#![allow(clippy::unwrap_used, reason = "tests")]

use rstest::rstest;
use serde_json::{Value, json};

use crate::{COMPACTION_MARKER, Match, Reply, Request, Script, sse_events};

fn body(last_user: Value, system: &str, tools: bool) -> Value {
    let mut b = json!({
        "model": "claude-opus-5-5",
        "system": [{"type": "text", "text": system}],
        "tools": if tools { json!([{"name": "Bash"}, {"name": "mcp__notesoup__notes_list"}]) } else { json!([]) },
        "messages": [
            {"role": "user", "content": "first"},
            {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
        ],
    });
    b["messages"]
        .as_array_mut()
        .unwrap()
        .push(json!({"role": "user", "content": null}));
    b["messages"][2]["content"] = last_user;
    b
}

#[rstest]
#[case::user_text(Match::user_contains("needle"), json!("a needle here"), true)]
#[case::user_text_missing(Match::user_contains("needle"), json!("nothing"), false)]
#[case::user_blocks(Match::user_contains("needle"), json!([{"type": "text", "text": "x needle"}]), true)]
#[case::tool_result_text(Match::user_contains("out"), json!([{"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text", "text": "out"}]}]), true)]
#[case::tool_result_present(Match::tool_result(true), json!([{"type": "tool_result", "tool_use_id": "t", "content": "x"}]), true)]
#[case::tool_result_absent(Match::tool_result(true), json!("plain"), false)]
#[case::no_tool_result(Match::tool_result(false), json!("plain"), true)]
#[case::compaction(Match::compaction(), json!(format!("{COMPACTION_MARKER} of the conversation")), true)]
#[case::not_compaction(Match::compaction(), json!("hello"), false)]
#[case::system(Match::system_contains("SYS"), json!("x"), true)]
#[case::both_must_hold(Match::system_contains("SYS").and_user_contains("nope"), json!("x"), false)]
#[case::tail(Match::tail_contains("needle"), json!("a needle"), true)]
#[case::tail_not_before_assistant(Match::tail_contains("first"), json!("x"), false)]
#[case::raw(Match::any_contains("opus-5-5"), json!("x"), true)]
fn matches_on_request_content(#[case] when: Match, #[case] last_user: Value, #[case] fits: bool) {
    let b = body(last_user, "the SYS prompt", true);
    assert_eq!(when.fits(&Request::new(&b), &b.to_string()), fits);
}

#[test]
fn rules_first_then_queue_in_order_then_fallback() {
    let mut script = Script::new()
        .rule_times(Match::compaction(), Reply::text("summary"), 1)
        .then(Reply::text("one"))
        .then_when(Match::user_contains("second"), Reply::text("two"))
        .fallback(Reply::text("fb"));
    let pick = |s: &mut Script, last: &str| {
        let b = body(json!(last), "", true);
        let (who, reply) = s.pick(&Request::new(&b), &b.to_string());
        (
            who,
            reply.message(1, "m")["content"][0]["text"]
                .as_str()
                .unwrap()
                .to_owned(),
        )
    };
    assert_eq!(
        pick(&mut script, COMPACTION_MARKER),
        ("rule0".into(), "summary".into())
    );
    // The rule was good for one use only: the compaction request now takes the queue head.
    assert_eq!(
        pick(&mut script, COMPACTION_MARKER),
        ("q0".into(), "one".into())
    );
    // The head wants "second": a request without it gets the fallback and leaves the head.
    assert_eq!(pick(&mut script, "first"), ("fallback".into(), "fb".into()));
    assert_eq!(pick(&mut script, "the second"), ("q1".into(), "two".into()));
    assert_eq!(script.queued_left(), 0);
}

#[test]
fn message_carries_tools_usage_and_stop_reason() {
    let reply = Reply::text("saving")
        .and_tool(
            "mcp__notesoup__notes_write",
            json!({"name": "plan", "text": "x"}),
        )
        .and_tool_with_id("toolu_fixed", "Read", json!({"file_path": "/tmp/a"}))
        .with_input_tokens(150_000);
    let m = reply.message(7, "claude-opus-5-5");
    assert_eq!(m["stop_reason"], "tool_use");
    assert_eq!(m["usage"]["input_tokens"], 150_000);
    assert_eq!(m["content"][1]["id"], "toolu_e2e_0007_1");
    assert_eq!(m["content"][2]["id"], "toolu_fixed");
    assert_eq!(Reply::text("x").message(1, "m")["stop_reason"], "end_turn");
}

#[test]
fn sse_stream_rebuilds_the_message() {
    let reply = Reply::default()
        .and_thinking("let me think about a fairly long thought here, past forty chars")
        .and_text("héllo wörld, a text longer than one forty-character piece of the stream")
        .and_tool(
            "Bash",
            json!({"command": "echo a long enough command to need two pieces"}),
        );
    let message = reply.message(3, "m");
    let events = sse_events(&message);
    let names: Vec<&str> = events.iter().map(|(n, _)| *n).collect();
    assert_eq!(names.first(), Some(&"message_start"));
    assert_eq!(names.last(), Some(&"message_stop"));
    assert_eq!(names[names.len() - 2], "message_delta");
    assert_eq!(events[0].1["message"]["content"], json!([]));
    assert_eq!(events[0].1["message"]["stop_reason"], Value::Null);
    // Rebuild each block from its deltas, as a client does.
    let mut text = String::new();
    let mut thinking = String::new();
    let mut partial = String::new();
    let mut signature = Value::Null;
    for (name, data) in &events {
        if *name != "content_block_delta" {
            continue;
        }
        let d = &data["delta"];
        match d["type"].as_str().unwrap() {
            "text_delta" => text.push_str(d["text"].as_str().unwrap()),
            "thinking_delta" => thinking.push_str(d["thinking"].as_str().unwrap()),
            "input_json_delta" => partial.push_str(d["partial_json"].as_str().unwrap()),
            "signature_delta" => signature = d["signature"].clone(),
            other => panic!("unexpected delta {other}"),
        }
    }
    assert_eq!(text, message["content"][1]["text"]);
    assert_eq!(thinking, message["content"][0]["thinking"]);
    assert_eq!(
        serde_json::from_str::<Value>(&partial).unwrap(),
        message["content"][2]["input"]
    );
    assert_eq!(signature, "e2e-signature");
    let starts = events
        .iter()
        .filter(|(n, _)| *n == "content_block_start")
        .count();
    let stops = events
        .iter()
        .filter(|(n, _)| *n == "content_block_stop")
        .count();
    assert_eq!((starts, stops), (3, 3));
    let delta = &events[events.len() - 2].1;
    assert_eq!(delta["delta"]["stop_reason"], "tool_use");
    assert_eq!(delta["usage"]["output_tokens"], 20);
    assert_eq!(delta["usage"]["input_tokens"], 100);
}

#[test]
fn head_and_tail_cover_system_role_messages() {
    let b = json!({"messages": [
        {"role": "user", "content": "prompt"},
        {"role": "system", "content": [{"type": "text", "text": "BOOT"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "reply"}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "out"}]},
        {"role": "system", "content": [{"type": "text", "text": "mid-turn input"}]},
    ]});
    let r = Request::new(&b);
    assert_eq!(r.head_text(), "prompt\nBOOT");
    assert_eq!(r.tail_text(), "out\nmid-turn input");
    assert_eq!(r.all_text(), "prompt\nBOOT\nout\nmid-turn input");
    assert_eq!(r.last_user_text(), "out");
    assert!(r.has_tool_result());
}

mod over_tcp {
    use std::io::{Read, Write};
    use std::net::TcpStream;
    use std::time::Duration;

    use serde_json::{Value, json};

    use crate::{Match, Reply, Script, Service};

    fn exchange(service: &Service, raw: &str) -> String {
        let addr = service.base_url().trim_start_matches("http://").to_owned();
        let mut tcp = TcpStream::connect(addr).unwrap();
        tcp.write_all(raw.as_bytes()).unwrap();
        let mut answer = String::new();
        tcp.read_to_string(&mut answer).unwrap();
        answer
    }

    fn post(path: &str, body: &str) -> String {
        format!(
            "POST {path} HTTP/1.1\r\nHost: x\r\nx-api-key: k\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
    }

    #[test]
    fn every_route_is_answered_and_logged() {
        let dir = std::env::temp_dir().join(format!("notesoup-e2e-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("requests.jsonl");
        let script = Script::new()
            .rule(
                Match::user_contains("overload"),
                Reply::error(529, "overloaded_error"),
            )
            .then(Reply::tool("Bash", json!({"command": "ls"})).with_input_tokens(5000));
        let mut service = Service::start(script, &log, Duration::from_secs(30)).unwrap();

        // Chunked body to count_tokens.
        let body = r#"{"messages":[{"role":"user","content":"count me"}]}"#;
        let chunked = format!(
            "POST /v1/messages/count_tokens?beta=true HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{body}\r\n0\r\n\r\n",
            body.len()
        );
        let answer = exchange(&service, &chunked);
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(answer.contains("\"input_tokens\":"), "{answer}");

        // A scripted API error, not streamed.
        let overload =
            r#"{"model":"m","stream":true,"messages":[{"role":"user","content":"overload"}]}"#;
        let answer = exchange(&service, &post("/v1/messages?beta=true", overload));
        assert!(answer.starts_with("HTTP/1.1 529"), "{answer}");
        assert!(answer.contains("overloaded_error"));

        // A non-streaming request gets the whole message as JSON.
        let plain = r#"{"model":"m","messages":[{"role":"user","content":"hi"}]}"#;
        let answer = exchange(&service, &post("/v1/messages", plain));
        let json_part = &answer[answer.find("\r\n\r\n").unwrap() + 4..];
        let message: Value = serde_json::from_str(json_part).unwrap();
        assert_eq!(message["content"][0]["name"], "Bash");
        assert_eq!(message["stop_reason"], "tool_use");
        assert_eq!(message["usage"]["input_tokens"], 5000);

        // Models and an unknown path.
        let answer = exchange(&service, "GET /v1/models HTTP/1.1\r\n\r\n");
        assert!(
            answer.starts_with("HTTP/1.1 200") && answer.contains("\"data\""),
            "{answer}"
        );
        let answer = exchange(&service, "GET /elsewhere HTTP/1.1\r\n\r\n");
        assert!(answer.starts_with("HTTP/1.1 404"), "{answer}");

        service.stop();
        let logged = service.requests();
        let routes: Vec<&str> = logged
            .iter()
            .map(|r| r["answered_by"].as_str().unwrap())
            .collect();
        assert_eq!(routes, ["count_tokens", "rule0", "q0", "models", "other"]);
        assert_eq!(logged[0]["body"]["messages"][0]["content"], "count me");
        assert_eq!(logged[1]["status"], 529);
        assert_eq!(logged[2]["headers"]["has_x_api_key"], true);
        assert_eq!(logged[2]["reply"]["content"][0]["input"]["command"], "ls");
        let on_disk = std::fs::read_to_string(&log).unwrap();
        assert_eq!(
            on_disk.lines().count(),
            5,
            "the JSONL log holds every request"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Claude Code starts a reactive compaction only on the API's own wording (`prompt is
    /// too long: N tokens > M maximum`, HTTP 400, `invalid_request_error`): the service
    /// sends exactly that, as JSON (never an SSE stream), and logs it as the reply.
    #[test]
    fn prompt_too_long_is_the_apis_exact_400() {
        let dir = std::env::temp_dir().join(format!("notesoup-e2e-unit-p-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let script = Script::new()
            .then(Reply::prompt_too_long(210_000, 200_000))
            .then(Reply::text("retried"));
        let mut service =
            Service::start(script, &dir.join("r.jsonl"), Duration::from_secs(30)).unwrap();
        let body = r#"{"model":"m","stream":true,"messages":[{"role":"user","content":"big"}]}"#;
        let answer = exchange(&service, &post("/v1/messages?beta=true", body));
        assert!(
            answer.starts_with("HTTP/1.1 400 Bad Request\r\n"),
            "{answer}"
        );
        assert!(
            answer.contains("Content-Type: application/json\r\n"),
            "{answer}"
        );
        let json_part = &answer[answer.find("\r\n\r\n").unwrap() + 4..];
        let error: Value = serde_json::from_str(json_part).unwrap();
        assert_eq!(
            error,
            json!({"type": "error",
                   "error": {"type": "invalid_request_error",
                             "message": "prompt is too long: 210000 tokens > 200000 maximum"},
                   "request_id": "req_e2e_0001"})
        );
        // The next request gets the next reply: the error was consumed once.
        let answer = exchange(&service, &post("/v1/messages?beta=true", body));
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(answer.contains("retried"), "{answer}");
        service.stop();
        let logged = service.requests();
        assert_eq!(logged[0]["status"], 400);
        assert_eq!(logged[0]["reply"], error);
        assert_eq!(logged[1]["status"], 200);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_service_stops_by_itself_after_its_timeout() {
        let dir = std::env::temp_dir().join(format!("notesoup-e2e-unit-t-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let service = Service::start(
            Script::new(),
            &dir.join("r.jsonl"),
            Duration::from_millis(200),
        )
        .unwrap();
        let addr = service.base_url().trim_start_matches("http://").to_owned();
        // Once its timeout has passed the listener is closed: connecting is refused. Poll
        // (bounded) instead of betting on one sleep.
        let refused = (0..100).any(|_| {
            std::thread::sleep(Duration::from_millis(100));
            TcpStream::connect(&addr).is_err()
        });
        assert!(
            refused,
            "the service still accepts connections long after its timeout"
        );
        assert_eq!(service.request_count(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
