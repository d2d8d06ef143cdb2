//! The typed history calls on a real Claude transcript: answers, the tools' refusals as
//! `Answered::Refused` (with the reason a front end words), and refusals of the call.
#![allow(clippy::unwrap_used, reason = "tests: a panic is the failure report")]

use std::path::{Path, PathBuf};

use notesoup_history_core::{ListArgs, QueryError, ReadArgs};

use super::*;

const SID: &str = "da56055c-293e-4422-b5b8-62b1c7e6c03d";

/// A Claude config folder holding the fixture, and a context naming it.
fn world(name: &str) -> (PathBuf, Context) {
    let dir = std::env::temp_dir().join(format!("notesoup-typed-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let project = dir.join("projects/-tmp-p");
    std::fs::create_dir_all(&project).unwrap();
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/history/{SID}.jsonl"));
    std::fs::copy(fixture, project.join(format!("{SID}.jsonl"))).unwrap();
    let ctx = Context::from_vars([
        ("CLAUDE_CONFIG_DIR", dir.to_str().unwrap()),
        ("NOTESOUP_HOME", dir.join("home").to_str().unwrap()),
    ]);
    (dir, ctx)
}

#[test]
fn a_wrong_call_is_a_refused_answer_with_its_reason() {
    let (dir, ctx) = world("refused");
    let source = SessionSource::selected("claude:da56055c");
    let page = |args: ListArgs| list(&ctx, &source, &args).unwrap();
    match page(ListArgs::default()) {
        Answered::Answer(page) => {
            assert_eq!(page.session, format!("claude:{SID}"));
            assert!(!page.shown.is_empty());
        }
        Answered::Refused(refusal) => panic!("refused: {}", refusal.text),
    }
    let empty = ListArgs {
        query: Some(String::new()),
        ..ListArgs::default()
    };
    let Answered::Refused(refusal) = page(empty) else {
        panic!("an empty query was answered");
    };
    assert_eq!(refusal.error, QueryError::EmptyQuery);
    assert_eq!(refusal.refused, "empty_query");
    assert!(refusal.text.contains("history_list refused (empty_query)"));
    let cursor = ListArgs {
        cursor: Some("bogus".into()),
        ..ListArgs::default()
    };
    assert!(matches!(
        page(cursor),
        Answered::Refused(Refusal {
            error: QueryError::Cursor { .. },
            ..
        })
    ));
    let missing = ReadArgs {
        seq: Some(999),
        ..ReadArgs::default()
    };
    assert!(matches!(
        read(&ctx, &source, &missing).unwrap(),
        Answered::Refused(Refusal {
            error: QueryError::SeqNotFound { seq: 999, .. },
            ..
        })
    ));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_refused_call_carries_its_code_and_input() {
    let (dir, ctx) = world("errors");
    let err = list(&ctx, &SessionSource::default(), &ListArgs::default()).unwrap_err();
    assert_eq!(err.code(), "history_unavailable");
    let harness = SessionsArgs {
        harness: Some("gemini".into()),
        ..SessionsArgs::default()
    };
    let err = sessions(&ctx, &harness).unwrap_err();
    assert_eq!((err.code(), err.malformed()), ("bad_request", true));
    assert!(err.to_string().contains("`gemini`"), "{err}");
    let state = state(&ctx, &SessionSource::selected("claude:da56055c")).unwrap();
    assert_eq!(state.window, format!("claude:{SID}:2"));
    let _ = std::fs::remove_dir_all(dir);
}

/// `SessionArgs::FIELDS` is the struct's own field list: serde's refusal of an unknown
/// field names every field the struct has, in order.
#[test]
fn the_session_field_list_is_the_structs() {
    let err = serde_json::from_value::<SessionArgs>(serde_json::json!({"nope": 1})).unwrap_err();
    let listed = err.to_string();
    let expected: Vec<&str> = listed
        .split_once("expected one of ")
        .unwrap()
        .1
        .split(", ")
        .map(|name| name.trim_matches('`'))
        .collect();
    assert_eq!(expected, SessionArgs::FIELDS, "{listed}");
}

#[test]
fn a_context_that_keeps_histories_answers_a_second_call_without_reading_again() {
    let (dir, plain) = world("kept");
    let ctx = plain.clone().keeping_histories(Kept::default());
    let source = SessionSource::selected("claude:da56055c");
    let args = |query: &str| ListArgs {
        query: Some(query.to_owned()),
        ..ListArgs::default()
    };
    for query in ["the", "a", "the"] {
        assert_eq!(
            list(&ctx, &source, &args(query)).unwrap(),
            list(&plain, &source, &args(query)).unwrap(),
            "{query:?}"
        );
    }
    let read = ReadArgs {
        seq: Some(3),
        ..ReadArgs::default()
    };
    assert_eq!(
        super::read(&ctx, &source, &read).unwrap(),
        super::read(&plain, &source, &read).unwrap()
    );
    assert_eq!(
        ctx.kept().unwrap().reads(),
        1,
        "a later call read the file again"
    );
    assert!(plain.kept().is_none());
    let _ = std::fs::remove_dir_all(dir);
}

/// A `claude:` prefix of the live session's id names the live session, as its whole id
/// does: read up to the live head (not the file's last leaf, a sibling branch here), and
/// refused before the first append, not read from the file's last row.
#[test]
fn a_prefix_of_the_live_sessions_id_keeps_its_live_head() {
    let (dir, ctx) = world("live-prefix");
    let sid = "00000002-0000-4000-8000-000000000000";
    let row = |uuid: &str, parent: Option<&str>, kind: &str, text: &str| {
        let message = if kind == "user" {
            serde_json::json!({"role": "user", "content": text})
        } else {
            serde_json::json!({"id": format!("msg_{uuid}"), "type": "message", "role": "assistant",
                "model": "m", "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn", "stop_sequence": null,
                "usage": {"input_tokens": 1, "output_tokens": 1}})
        };
        serde_json::json!({"parentUuid": parent, "isSidechain": false, "type": kind,
            "message": message, "uuid": uuid, "timestamp": "2026-12-02T14:00:05.000Z",
            "cwd": "/tmp/w", "sessionId": sid, "version": "2.1.319"})
        .to_string()
            + "\n"
    };
    let path = dir.join(format!("projects/-tmp-p/{sid}.jsonl"));
    let text = row("u1", None, "user", "p")
        + &row("a1", Some("u1"), "assistant", "LEAF-first")
        + &row("a2", Some("u1"), "assistant", "LEAF-second");
    std::fs::write(&path, text).unwrap();
    let source = |selector: &str, head: Option<&str>| SessionSource {
        live: Some(LiveSession {
            transcript_path: path.to_str().unwrap().to_owned(),
            head: head.map(str::to_owned),
        }),
        selector: Some(selector.to_owned()),
        ..SessionSource::default()
    };
    let full = format!("claude:{sid}");
    for selector in [full.as_str(), "claude:00000002", "00000002"] {
        match list(&ctx, &source(selector, Some("a1")), &ListArgs::default()).unwrap() {
            Answered::Answer(page) => assert!(
                page.text.contains("LEAF-first") && !page.text.contains("LEAF-second"),
                "{selector}: {}",
                page.text
            ),
            Answered::Refused(refusal) => panic!("{selector}: refused: {}", refusal.text),
        }
        let early = list(&ctx, &source(selector, None), &ListArgs::default()).unwrap_err();
        assert_eq!(early.code(), "no_head", "{selector}");
    }
    // A prefix the live session shares with another session is refused as ambiguous.
    std::fs::copy(
        &path,
        dir.join("projects/-tmp-p/00000002-1111-4000-8000-000000000000.jsonl"),
    )
    .unwrap();
    let both = list(
        &ctx,
        &source("claude:00000002", Some("a1")),
        &ListArgs::default(),
    );
    assert_eq!(both.unwrap_err().code(), "ambiguous_session");
    let _ = std::fs::remove_dir_all(dir);
}
