//! Work over many items on every core, the answers in the items' order.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

/// `work` of every item, on as many threads as there are cores (they end with the call: no
/// pool is kept), each answer at its item's place (`None` only when a thread stopped before
/// it). `done` is told how many are answered, after each one, on the calling thread.
pub(crate) fn in_order<T: Sync, R: Send>(
    items: &[T],
    work: impl Fn(&T) -> R + Sync,
    done: &mut dyn FnMut(usize),
) -> Vec<Option<R>> {
    let workers = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(items.len())
        .max(1);
    let next = AtomicUsize::new(0);
    let mut answers: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel();
        for _ in 0..workers {
            let (tx, next, work) = (tx.clone(), &next, &work);
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else {
                        break;
                    };
                    if tx.send((i, work(item))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for (n, (i, answer)) in rx.into_iter().enumerate() {
            answers[i] = Some(answer);
            done(n + 1);
        }
    });
    answers
}

#[cfg(test)]
mod tests {
    use super::in_order;

    #[test]
    fn every_answer_is_at_its_items_place_and_each_is_counted() {
        let items: Vec<u64> = (0..500).collect();
        let mut counted = Vec::new();
        let answers = in_order(&items, |n| n * 2, &mut |done| counted.push(done));
        let expected: Vec<Option<u64>> = (0..500).map(|n| Some(n * 2)).collect();
        assert_eq!(answers, expected);
        assert_eq!(counted, (1..=500).collect::<Vec<_>>());
        assert!(in_order(&[] as &[u64], |n| *n, &mut |_| {}).is_empty());
    }
}
