//! One real Pi transcript and one real Codex thread (the fixtures of `history-pi` and
//! `history-codex`, made by the real clients): `decode+*` is what one helper call does
//! after reading the files (decode, then list a page, search, or read); `decode/zst` adds
//! decompressing the `.jsonl.zst` Codex wrote.
//!
//! Quick: `cargo test -p notesoup-benches --benches` runs each once (scripts/test).
//! Full: `cargo bench -p notesoup-benches --bench cross_harness`.

#![allow(
    clippy::unwrap_used,
    reason = "benchmark setup: a failed unwrap is a broken benchmark"
)]
#![allow(
    missing_docs,
    reason = "criterion's macros generate the undocumented entry points"
)]

use std::hint::black_box;
use std::path::Path;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use notesoup_history_codex::{CodexFile, decompress};
use notesoup_history_core::{ANSWER_LIMIT, History, ListArgs, ReadArgs};
use notesoup_history_pi::PiFile;

const PI: &str = "history-pi/tests/data/agent/sessions/--tmp-xh-pirun-r3-work--/2026-12-02T15-16-58-039Z_01a23754-8e37-7027-8822-e05ee3580bae.jsonl";
const CODEX_DIR: &str = "history-codex/tests/data/codex-home/sessions/2026/12/02";
const CODEX: [&str; 3] = [
    "rollout-2026-12-02T15-17-58-01a23755-7b6b-79d2-9438-c01132a25971.jsonl",
    "rollout-2026-12-02T15-19-06-01a23755-7b6b-79d2-9438-c01132a25971_01a23756-8217-7b21-ab26-ecf2081c409d.jsonl",
    "rollout-2026-12-02T15-19-19-01a23756-b853-7e01-94a2-1ae0a322f736.jsonl",
];
const ZST: &str = "rollout-2026-12-02T15-19-28-01a23756-dae0-73f0-a878-6043e965173e.jsonl.zst";

fn read(relative: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(relative),
    )
    .unwrap()
}

fn search(query: &str) -> ListArgs {
    ListArgs {
        query: Some(query.into()),
        ..ListArgs::default()
    }
}

/// What one helper call does after reading the files: `decode` then list a page, search
/// for `query` (checked to fit the budget first), or read a range.
fn decode_and_answer(
    group: &mut BenchmarkGroup<'_, WallTime>,
    decode: &impl Fn() -> History,
    query: &str,
) {
    assert!(decode().list(&search(query)).unwrap().text.as_str().len() <= ANSWER_LIMIT);
    group.bench_function("decode+list_page", |b| {
        b.iter(|| black_box(decode().list(&ListArgs::default()).unwrap()));
    });
    group.bench_function("decode+search", |b| {
        b.iter(|| black_box(decode().list(&search(query)).unwrap()));
    });
    group.bench_function("decode+read", |b| {
        let args = ReadArgs {
            from: Some(1),
            to: Some(40),
            ..ReadArgs::default()
        };
        b.iter(|| black_box(decode().read(&args).unwrap()));
    });
}

fn pi(c: &mut Criterion) {
    let bytes = read(PI);
    let decode = || {
        let file = PiFile {
            name: PI,
            bytes: &bytes,
        };
        History::new(notesoup_history_pi::decode(&file, &[]).unwrap()).unwrap()
    };
    let mut group = c.benchmark_group("pi");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    decode_and_answer(&mut group, &decode, "probe");
    group.finish();
}

fn codex(c: &mut Criterion) {
    let files: Vec<Vec<u8>> = CODEX
        .iter()
        .map(|name| read(&format!("{CODEX_DIR}/{name}")))
        .collect();
    let total: usize = files.iter().map(Vec::len).sum();
    let decode = || {
        let chain: Vec<CodexFile<'_>> = CODEX
            .iter()
            .zip(&files)
            .map(|(name, bytes)| CodexFile { name, bytes })
            .collect();
        History::new(notesoup_history_codex::decode(&chain).unwrap()).unwrap()
    };
    let packed = read(&format!("{CODEX_DIR}/{ZST}"));
    let mut group = c.benchmark_group("codex");
    group.throughput(Throughput::Bytes(total as u64));
    decode_and_answer(&mut group, &decode, "codex-probe");
    group.throughput(Throughput::Bytes(packed.len() as u64));
    group.bench_function("decode/zst", |b| {
        b.iter(|| {
            let plain = decompress(ZST, &packed).unwrap();
            let file = CodexFile {
                name: ZST,
                bytes: &plain,
            };
            black_box(notesoup_history_codex::decode(&[file]).unwrap())
        });
    });
    group.finish();
}

criterion_group!(benches, pi, codex);
criterion_main!(benches);
