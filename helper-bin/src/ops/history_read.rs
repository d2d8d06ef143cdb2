//! `history_read`: one event or a range of events by seq, whole, with an offset to continue
//! a long one; within 32 KiB.

use notesoup_history_core::{ReadArgs, Seq};
use serde::Deserialize;
use serde_json::Value;

use super::Fields;
use super::history::{Source, answer_fields, load, or_null, refusal_fields, release};
use crate::{Context, OpError, parse};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    #[serde(default)]
    transcript_path: Option<String>,
    #[serde(default)]
    head: Option<String>,
    #[serde(default)]
    session: Option<String>,
    #[serde(default)]
    agent_id: Option<String>,
    #[serde(default)]
    roots: Option<crate::corpus::Roots>,
    #[serde(default)]
    seq: Option<Seq>,
    #[serde(default)]
    from: Option<Seq>,
    #[serde(default)]
    to: Option<Seq>,
    #[serde(default)]
    offset: Option<usize>,
}

pub(crate) fn run(request: Value, ctx: &Context) -> Result<Fields, OpError> {
    let r: Request = parse("history_read", request)?;
    let source = Source {
        transcript_path: r.transcript_path,
        head: r.head,
        session: r.session,
        agent_id: r.agent_id,
        roots: r.roots.unwrap_or_default(),
    };
    let history = load("history_read", &source, ctx)?;
    let args = ReadArgs {
        seq: r.seq,
        from: r.from,
        to: r.to,
        offset: r.offset,
    };
    let fields = match history.read(&args) {
        Ok(answer) => {
            let next = or_null(answer.next_read.clone());
            let mut fields = answer_fields(&history, answer);
            fields.insert("next".into(), next);
            fields
        }
        Err(err) => refusal_fields(&history, err.code(), history.refusal("history_read", &err)),
    };
    release(history);
    Ok(fields)
}
