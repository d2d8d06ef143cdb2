//! A kept history answers a later call without a read, for any query, until its file
//! changes; and the keeper's budget holds: a third file over it pushes out the least
//! recently used.
#![allow(clippy::unwrap_used, reason = "tests: a panic is the failure report")]

use std::io::Write as _;
use std::path::PathBuf;

use notesoup_history_core::{History, ListArgs};

use crate::{Cache, Corpus, Kept, Roots};

/// Three Claude sessions under a scratch `projects` folder, each a generated transcript of
/// its own id; with the corpus over them and an index cache.
fn world(name: &str) -> (PathBuf, Corpus, Cache, Vec<String>) {
    let dir = std::env::temp_dir().join(format!("notesoup-kept-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let project = dir.join("projects/-tmp-p");
    std::fs::create_dir_all(&project).unwrap();
    let mut ids = Vec::new();
    for (n, seed) in [(1, 7), (2, 8), (3, 9)] {
        let id = format!("6e9d000{n}-0000-4000-8000-00000000b3c4");
        let text = notesoup_benches::generate(300, seed).replace(notesoup_benches::SESSION, &id);
        std::fs::write(project.join(format!("{id}.jsonl")), text).unwrap();
        ids.push(id);
    }
    let roots = Roots {
        claude: Some(dir.join("projects").display().to_string()),
        ..Roots::default()
    };
    let mut cache = Cache::new(dir.join("cache"));
    cache.min_bytes = 0;
    (dir, Corpus::new(roots, |_| None), cache, ids)
}

fn list(history: &History, query: &str) -> (String, usize) {
    let args = ListArgs {
        query: Some(query.to_owned()),
        ..ListArgs::default()
    };
    let answer = history.list(&args).unwrap();
    (answer.text.into_string(), answer.matched)
}

#[test]
fn a_second_question_is_a_search_of_the_kept_history_not_a_read() {
    let (dir, corpus, cache, ids) = world("again");
    let kept = Kept::default();
    let found = corpus.resolve(&format!("claude:{}", ids[0])).unwrap();
    let history = |query| {
        corpus
            .history(&found, Some(&cache), Some(query), Some(&kept))
            .unwrap()
    };
    let first = history("zebra-needle");
    assert_eq!(kept.reads(), 1);
    // Another query, then the first one again: no read, the answers a fresh read gives.
    for query in ["the", "zebra-needle"] {
        let again = history(query);
        assert_eq!(
            kept.reads(),
            1,
            "the call for {query:?} read the file again"
        );
        assert!(std::sync::Arc::ptr_eq(&first, &again));
        let fresh = corpus
            .history(&found, Some(&cache), Some(query), None)
            .unwrap();
        let answer = list(&again, query);
        assert!(answer.1 > 0, "{query:?} matches nothing");
        assert_eq!(answer, list(&fresh, query), "{query:?}");
    }
    // The file grows: it is read again (through its index), and the answer holds the rows
    // appended.
    let before = list(&first, "the").1;
    let tail = std::fs::read_to_string(&found.path).unwrap();
    let last = tail.lines().rev().find(|l| l.contains("\"uuid\"")).unwrap();
    let uuid = last
        .split("\"uuid\":\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    let row = last
        .replace(&format!("\"uuid\":\"{uuid}\""), "\"uuid\":\"appended-1\"")
        .replacen(
            "\"parentUuid\":",
            &format!("\"parentUuid\":\"{uuid}\",\"was\":"),
            1,
        );
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&found.path)
        .unwrap();
    writeln!(file, "{row}").unwrap();
    drop(file);
    let grown = history("the");
    assert_eq!(
        kept.reads(),
        2,
        "a grown file was answered from the kept history"
    );
    assert!(!std::sync::Arc::ptr_eq(&first, &grown));
    assert_eq!(
        kept.len(),
        1,
        "the history of the file before it grew is still kept"
    );
    let fresh = corpus
        .history(&found, Some(&cache), Some("the"), None)
        .unwrap();
    assert_eq!(list(&grown, "the"), list(&fresh, "the"));
    assert!(list(&grown, "the").1 >= before);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_budget_holds_a_third_file_pushes_out_the_least_recently_used() {
    let (dir, corpus, cache, ids) = world("budget");
    let found: Vec<_> = ids
        .iter()
        .map(|id| corpus.resolve(&format!("claude:{id}")).unwrap())
        .collect();
    let size = |n: usize| std::fs::metadata(&found[n].path).unwrap().len();
    // Room for the two largest files' bytes, not for three.
    let mut sizes = [size(0), size(1), size(2)];
    sizes.sort_unstable();
    let kept = Kept::new(64, sizes[1] + sizes[2]);
    let read = |n: usize| {
        corpus
            .history(&found[n], Some(&cache), Some("zebra-needle"), Some(&kept))
            .unwrap()
    };
    read(0);
    read(1);
    assert_eq!((kept.reads(), kept.len()), (2, 2));
    read(0); // now the most recently used
    assert_eq!(kept.reads(), 2);
    read(2); // over the budget: 1, the least recently used, goes
    assert_eq!((kept.reads(), kept.len()), (3, 2));
    read(0);
    read(2);
    assert_eq!(kept.reads(), 3, "a file within the budget was read again");
    read(1);
    assert_eq!(
        kept.reads(),
        4,
        "the least recently used file was still kept"
    );
    assert_eq!(kept.len(), 2);
    // The count bound too: one history at most keeps only the newest.
    let one = Kept::new(1, u64::MAX);
    for n in [0, 1, 0] {
        corpus
            .history(&found[n], Some(&cache), None, Some(&one))
            .unwrap();
    }
    assert_eq!((one.reads(), one.len()), (3, 1));
    let _ = std::fs::remove_dir_all(dir);
}
