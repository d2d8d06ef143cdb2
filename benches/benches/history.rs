//! The 32 KiB history selection path on generated transcripts of 1k, 10k and 100k events:
//! `select/*` answers from a decoded history (list a page, search, read), `decode+*` adds
//! decoding the JSONL bytes, which is what one helper call does.
//!
//! Quick: `cargo test -p notesoup-benches --benches` runs each once (scripts/test).
//! Full: `cargo bench -p notesoup-benches`.

#![allow(
    clippy::unwrap_used,
    reason = "benchmark setup: a failed unwrap is a broken benchmark"
)]
#![allow(
    missing_docs,
    reason = "criterion's macros generate the undocumented entry points"
)]

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use notesoup_benches::{NEEDLE, generate};
use notesoup_history_claude::{Head, Options, decode};
use notesoup_history_core::{ANSWER_LIMIT, History, ListArgs, ReadArgs};

fn history_of(jsonl: &str) -> History {
    History::new(decode(jsonl.as_bytes(), &Options::default(), &Head::Leaf).unwrap()).unwrap()
}

fn search() -> ListArgs {
    ListArgs {
        query: Some(NEEDLE.into()),
        ..ListArgs::default()
    }
}

fn read_mid(h: &History) -> ReadArgs {
    let mid = h.events()[h.events().len() / 2].seq;
    ReadArgs {
        from: Some(mid),
        to: Some(mid + 200),
        ..ReadArgs::default()
    }
}

fn selection(c: &mut Criterion) {
    let mut group = c.benchmark_group("history");
    group.sample_size(10);
    for events in [1_000, 10_000, 100_000] {
        let jsonl = generate(events, 42);
        let h = history_of(&jsonl);
        assert!(h.list(&search()).unwrap().text.as_str().len() <= ANSWER_LIMIT);
        group.throughput(Throughput::Bytes(jsonl.len() as u64));
        group.bench_with_input(BenchmarkId::new("select/list_page", events), &h, |b, h| {
            b.iter(|| black_box(h.list(&ListArgs::default()).unwrap()));
        });
        group.bench_with_input(BenchmarkId::new("select/search", events), &h, |b, h| {
            b.iter(|| black_box(h.list(&search()).unwrap()));
        });
        group.bench_with_input(BenchmarkId::new("select/read", events), &h, |b, h| {
            let args = read_mid(h);
            b.iter(|| black_box(h.read(&args).unwrap()));
        });
        group.bench_with_input(
            BenchmarkId::new("decode+list_page", events),
            &jsonl,
            |b, j| {
                b.iter(|| black_box(history_of(j).list(&ListArgs::default()).unwrap()));
            },
        );
        group.bench_with_input(BenchmarkId::new("decode+search", events), &jsonl, |b, j| {
            b.iter(|| black_box(history_of(j).list(&search()).unwrap()));
        });
        group.bench_with_input(BenchmarkId::new("decode+read", events), &jsonl, |b, j| {
            b.iter(|| {
                let h = history_of(j);
                black_box(h.read(&read_mid(&h)).unwrap())
            });
        });
    }
    group.finish();
}

criterion_group!(benches, selection);
criterion_main!(benches);
