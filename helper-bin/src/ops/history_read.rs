//! `history_read`: one event or a range of events by seq, whole, with an offset to continue
//! a long one; within 32 KiB.

use notesoup_history_core::{ReadArgs, Seq};
use serde::Deserialize;
use serde_json::Value;

use super::Fields;
use super::history::{Source, answer, or_null};
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
    roots: Option<notesoup_history_store::Roots>,
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
    let args = ReadArgs {
        seq: r.seq,
        from: r.from,
        to: r.to,
        offset: r.offset,
    };
    answer(
        "history_read",
        &source,
        ctx,
        |history| history.read(&args),
        |_, answer| {
            let mut fields = Fields::new();
            fields.insert("next".into(), or_null(answer.next_read.clone()));
            fields
        },
    )
}
