//! `notesoup history`: the sessions of every harness on this machine, through the helper
//! library's history ops, so listing, selection, paging and search are exactly the
//! model's tools'. The CLI only shapes the answers for a terminal.

use serde_json::{Map, Value, json};

use std::fmt::Write as _;

use crate::args::{HarnessArg, HistoryArgs, HistoryCommand};
use crate::term::{Out, Paint};
use crate::{CliError, EXIT_OK, Env};

/// One helper op, in-process: its success fields, or its refusal as an error.
fn op(name: &str, request: &Value, env: &Env) -> Result<Map<String, Value>, CliError> {
    let input = serde_json::to_vec(request).unwrap_or_default();
    let outcome = notesoup_app::run(Some(name), &input, &env.helper_context());
    match outcome.reply {
        Value::Object(mut reply) if reply.get("ok") == Some(&Value::Bool(true)) => {
            reply.remove("ok");
            Ok(reply)
        }
        reply => Err(CliError::History {
            code: reply["error"]["code"]
                .as_str()
                .unwrap_or("internal")
                .to_owned(),
            message: reply["error"]["message"]
                .as_str()
                .unwrap_or("the history op gave no reply")
                .to_owned(),
        }),
    }
}

/// Drop the `null` fields of a request (the ops treat absent and null alike; absent is
/// what a model sends).
fn request(fields: Value) -> Value {
    match fields {
        Value::Object(map) => {
            Value::Object(map.into_iter().filter(|(_, v)| !v.is_null()).collect())
        }
        other => other,
    }
}

pub(crate) fn run(args: &HistoryArgs, env: &Env, out: &mut Out) -> Result<u8, CliError> {
    match &args.command {
        HistoryCommand::Sessions { harness, limit } => {
            let reply = op(
                "history_sessions",
                &request(json!({"harness": harness.map(HarnessArg::name), "limit": limit})),
                env,
            )?;
            sessions(&reply, out);
        }
        HistoryCommand::Show {
            session,
            seq,
            offset,
            window,
            limit,
            cursor,
        } => {
            let reply = if let Some(seq) = seq {
                op(
                    "history_read",
                    &request(json!({"session": session, "seq": seq, "offset": offset})),
                    env,
                )?
            } else {
                op(
                    "history_list",
                    &request(
                        json!({"session": session, "window": window, "limit": limit, "cursor": cursor}),
                    ),
                    env,
                )?
            };
            page(&reply, out);
            continuation(&reply, session, out, |next| match next {
                Next::Cursor(c) => {
                    let mut line = format!("notesoup history show {session}");
                    if let Some(w) = window {
                        let _ = write!(line, " --window {w}");
                    }
                    if let Some(l) = limit {
                        let _ = write!(line, " --limit {l}");
                    }
                    format!("{line} --cursor {c}")
                }
                Next::Read { seq, offset } => {
                    format!("notesoup history show {session} --seq {seq} --offset {offset}")
                }
            });
        }
        HistoryCommand::Search {
            query,
            session: Some(session),
            limit,
            cursor,
            ..
        } => {
            let reply = op(
                "history_list",
                &request(
                    json!({"session": session, "query": query, "limit": limit, "cursor": cursor}),
                ),
                env,
            )?;
            page(&reply, out);
            continuation(&reply, session, out, |next| match next {
                Next::Cursor(c) => format!(
                    "notesoup history search {} --session {session} --cursor {c}",
                    shell_word(query)
                ),
                Next::Read { .. } => String::new(),
            });
        }
        HistoryCommand::Search {
            query,
            session: None,
            harness,
            sessions: count,
            limit,
            ..
        } => search_all(
            query,
            harness.map(HarnessArg::name),
            *count,
            *limit,
            env,
            out,
        )?,
    }
    Ok(EXIT_OK)
}

/// The sessions as a table (the op's own fields), or the reply under `--json`.
fn sessions(reply: &Map<String, Value>, out: &mut Out) {
    if out.json {
        out.json_doc(&json!({"ok": true, "total": reply["total"], "sessions": reply["sessions"]}));
        return;
    }
    let list = reply["sessions"].as_array().cloned().unwrap_or_default();
    let total = reply["total"].as_u64().unwrap_or(0);
    if list.is_empty() {
        out.line("No sessions found. `notesoup doctor` shows which folders are searched.");
        return;
    }
    let width = list
        .iter()
        .filter_map(|s| s["session"].as_str())
        .map(str::len)
        .max()
        .unwrap_or(7);
    for s in &list {
        let id = out.paint(
            Paint::Strong,
            &format!("{:<width$}", s["session"].as_str().unwrap_or("?")),
        );
        let started = s["started"].as_str().unwrap_or("-");
        let mut line = format!("{id}  {started}");
        if let Some(cwd) = s["cwd"].as_str() {
            let _ = write!(line, "  {cwd}");
        }
        out.line(line);
        let mut detail = Vec::new();
        if let Some(parent) = s["parent"].as_str() {
            detail.push(format!("fork of {parent}"));
        }
        if let Some(why) = s["unreadable"].as_str() {
            detail.push(out.paint(Paint::Warn, &format!("unreadable: {why}")));
        }
        if let Some(prompt) = s["first_prompt"].as_str() {
            detail.push(format!("{prompt:?}"));
        }
        if !detail.is_empty() {
            out.line(format!("    {}", detail.join("  ")));
        }
    }
    if total > list.len() as u64 {
        out.hint(format!(
            "{} of {total} sessions shown; --limit shows more.",
            list.len()
        ));
    }
}

/// One answer of `history_list` / `history_read`: its text (what the model would read).
fn page(reply: &Map<String, Value>, out: &mut Out) {
    if out.json {
        let mut doc = reply.clone();
        doc.insert("ok".into(), Value::Bool(true));
        out.json_doc(&Value::Object(doc));
        return;
    }
    let text = reply["text"].as_str().unwrap_or_default();
    for line in text.lines() {
        if line.starts_with("== ") && line.ends_with(" ==")
            || line.starts_with('#') && line.contains(" · ")
        {
            out.line(out.paint(Paint::Strong, line));
        } else if line.starts_with('[') && line.ends_with(']') {
            out.line(out.paint(Paint::Dim, line));
        } else {
            out.line(line);
        }
    }
}

enum Next {
    Cursor(String),
    Read { seq: u64, offset: u64 },
}

/// The command that shows the next page, as a hint on stderr.
fn continuation(
    reply: &Map<String, Value>,
    _session: &str,
    out: &mut Out,
    command: impl FnOnce(Next) -> String,
) {
    if out.json {
        return;
    }
    let next = if let Some(c) = reply.get("cursor").and_then(Value::as_str) {
        Next::Cursor(c.to_owned())
    } else if let Some(n) = reply.get("next").and_then(Value::as_object) {
        match (
            n.get("seq").and_then(Value::as_u64),
            n.get("offset").and_then(Value::as_u64),
        ) {
            (Some(seq), Some(offset)) => Next::Read { seq, offset },
            _ => return,
        }
    } else {
        return;
    };
    let line = command(next);
    if !line.is_empty() {
        out.hint(format!("next page: {line}"));
    }
}

/// A word as a POSIX shell reads it back.
fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:".contains(&b))
    {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// Search the recent sessions (newest first, as `history sessions` lists them), one
/// `history_list` page per session that matches.
fn search_all(
    query: &str,
    harness: Option<&str>,
    count: usize,
    limit: Option<usize>,
    env: &Env,
    out: &mut Out,
) -> Result<(), CliError> {
    let listed = op(
        "history_sessions",
        &request(json!({"harness": harness, "limit": count})),
        env,
    )?;
    let mut results = Vec::new();
    let mut skipped = Vec::new();
    for s in listed["sessions"].as_array().into_iter().flatten() {
        let Some(id) = s["session"].as_str() else {
            continue;
        };
        match op(
            "history_list",
            &request(json!({"session": id, "query": query, "limit": limit.unwrap_or(10)})),
            env,
        ) {
            Ok(reply) if reply["shown"].as_array().is_some_and(|a| !a.is_empty()) => {
                results.push((id.to_owned(), reply));
            }
            Ok(_) => {}
            Err(err) => skipped.push((id.to_owned(), err.to_string())),
        }
    }
    if out.json {
        out.json_doc(&json!({
            "ok": true,
            "query": query,
            "searched": listed["sessions"].as_array().map_or(0, Vec::len),
            "results": results.iter().map(|(id, r)| {
                let mut r = r.clone();
                r.insert("session".into(), json!(id));
                Value::Object(r)
            }).collect::<Vec<_>>(),
            "skipped": skipped.iter().map(|(id, why)| json!({"session": id, "error": why})).collect::<Vec<_>>(),
        }));
        return Ok(());
    }
    let searched = listed["sessions"].as_array().map_or(0, Vec::len);
    if results.is_empty() {
        out.line(format!(
            "No match for {query:?} in the {searched} most recent sessions."
        ));
    }
    for (id, reply) in &results {
        let matched = reply["matched"].as_u64().unwrap_or(0);
        out.line(out.paint(
            Paint::Strong,
            &format!(
                "━━ {id}: {matched} match{} ━━",
                if matched == 1 { "" } else { "es" }
            ),
        ));
        page(reply, out);
        if reply.get("cursor").and_then(Value::as_str).is_some() {
            out.hint(format!(
                "more in {id}: notesoup history search {} --session {id}",
                shell_word(query)
            ));
        }
    }
    for (id, why) in &skipped {
        out.hint(format!("skipped {id}: {why}"));
    }
    Ok(())
}
