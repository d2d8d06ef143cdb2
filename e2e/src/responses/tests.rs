use std::io::{Read, Write};
use std::time::Duration;

use serde_json::{Value, json};

use super::{ResponsesService, Turn, call_outputs, events, tool_names};

fn post(service: &ResponsesService, path: &str, body: &Value) -> String {
    let addr = service
        .base_url()
        .trim_start_matches("http://")
        .trim_end_matches("/v1")
        .to_owned();
    let body = body.to_string();
    let mut tcp = std::net::TcpStream::connect(addr).unwrap();
    write!(
        tcp,
        "POST {path} HTTP/1.1\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    tcp.read_to_string(&mut answer).unwrap();
    answer
}

#[test]
fn a_function_call_streams_its_item_and_completes() {
    let turn = Turn::Call {
        namespace: Some("mcp__notesoup".into()),
        name: "notes_write".into(),
        arguments: json!({"name": "a", "text": "b"}),
    };
    let ev = events(&turn, 3);
    let kinds: Vec<&str> = ev.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "response.created",
            "response.in_progress",
            "response.output_item.added",
            "response.function_call_arguments.delta",
            "response.function_call_arguments.done",
            "response.output_item.done",
            "response.completed"
        ]
    );
    let done = &ev[5]["item"];
    assert_eq!(
        (done["namespace"].as_str(), done["name"].as_str()),
        (Some("mcp__notesoup"), Some("notes_write"))
    );
    assert_eq!(
        serde_json::from_str::<Value>(done["arguments"].as_str().unwrap()).unwrap(),
        json!({"name": "a", "text": "b"})
    );
    assert_eq!(ev[6]["response"]["id"], "resp_e2e_0003");
    assert!(ev[6]["response"]["usage"]["total_tokens"].is_u64());
}

#[test]
fn the_service_answers_by_the_request_and_logs_it() {
    let service = ResponsesService::start(
        Box::new(|body: &Value| {
            if call_outputs(body).is_empty() {
                Turn::Call {
                    namespace: None,
                    name: tool_names(body)[0].clone(),
                    arguments: json!({}),
                }
            } else {
                Turn::Text(format!("got {}", call_outputs(body)[0]))
            }
        }),
        Duration::from_secs(30),
    )
    .unwrap();
    let first = post(
        &service,
        "/v1/responses",
        &json!({"tools": [{"type": "function", "name": "t1"}], "input": []}),
    );
    assert!(first.starts_with("HTTP/1.1 200 OK"));
    assert!(first.contains("event: response.output_item.done\ndata: "));
    assert!(first.contains(r#""name":"t1""#));
    let second = post(
        &service,
        "/v1/responses",
        &json!({"input": [{"type": "function_call_output", "call_id": "c", "output": "fine"}]}),
    );
    assert!(second.contains(r#""text":"got fine""#));
    let other = post(&service, "/v1/models", &json!({}));
    assert!(other.starts_with("HTTP/1.1 404"));
    let log = service.requests();
    assert_eq!(log.len(), 3);
    assert_eq!(log[1]["body"]["input"][0]["output"], "fine");
}

#[test]
fn searched_tools_come_from_tool_search_outputs() {
    let body = json!({"input": [
        {"type": "message", "role": "user", "content": []},
        {"type": "tool_search_output", "call_id": "s", "tools": [
            {"name": "mcp__notesoup", "tools": [{"name": "notes_write"}, {"name": "notes_read"}]},
            {"type": "function", "name": "plain"}]}]});
    assert_eq!(
        super::searched_tools(&body),
        vec![
            (Some("mcp__notesoup".to_owned()), "notes_write".to_owned()),
            (Some("mcp__notesoup".to_owned()), "notes_read".to_owned()),
            (None, "plain".to_owned())
        ]
    );
    let search = events(&Turn::ToolSearch("notes".into()), 1);
    assert_eq!(search[3]["item"]["type"], "tool_search_call");
    assert_eq!(search[3]["item"]["arguments"]["query"], "notes");
}
