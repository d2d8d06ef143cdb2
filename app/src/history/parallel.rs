//! Work over many items on every core, the answers in the items' order; a budget that
//! bounds what the workers hold at once.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, mpsc};

/// How many bytes of answers (as `weigh` counts them) the workers of [`in_order`] may hold
/// ahead of the last one handed over: while `each` waits (its reader is slow, or a pager
/// shows the first screen), the answers held stay about this size.
pub(crate) const HELD_AHEAD: u64 = 4 << 20;

/// Where the hand-over stands, shared by the workers and the calling thread.
#[derive(Debug, Default)]
struct Handed {
    /// How many answers are handed over.
    count: usize,
    /// What the answers given to the calling thread and not yet handed over weigh.
    held: u64,
}

/// `work` of every item, on as many threads as there are cores (they end with the call: no
/// pool is kept). `each` is handed each item's answer in the items' order, as soon as the
/// answers before it are handed over (`None` only when a thread stopped before it), so only
/// answers that came early are held. While those weigh [`HELD_AHEAD`] or more (`weigh`: an
/// answer's bytes; one with nothing in it weighs nothing), no item is started but the next
/// to be handed over: a slow `each` holds the workers back, and a slow item does not hold
/// back the items after it that answer nothing. When `each` breaks, no item is started
/// after and nothing more is handed (the items being worked on are finished and dropped).
/// `done` is told how many are answered, after each one. Both are called on the calling
/// thread.
pub(crate) fn in_order<T: Sync, R: Send>(
    items: &[T],
    work: impl Fn(&T) -> R + Sync,
    weigh: impl Fn(&R) -> u64 + Sync,
    done: &mut dyn FnMut(usize),
    each: &mut dyn FnMut(usize, Option<R>) -> ControlFlow<()>,
) {
    let workers = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(items.len())
        .max(1);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    // The hand-over, under its lock; a worker waits for the answers held to get lighter.
    let (handed_so_far, advanced) = (Mutex::new(Handed::default()), Condvar::new());
    // A worker that panicked never answers its item, so the count would never pass it: the
    // others then stop waiting (what it left is handed over as `None` at the end).
    let lost = AtomicBool::new(false);
    let mut early: Vec<Option<(u64, R)>> =
        std::iter::repeat_with(|| None).take(items.len()).collect();
    let mut handed = 0;
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel();
        for _ in 0..workers {
            let (tx, next, stop, work, weigh) = (tx.clone(), &next, &stop, &work, &weigh);
            let (handed_so_far, advanced, lost) = (&handed_so_far, &advanced, &lost);
            scope.spawn(move || {
                let _said = SaidIfLost {
                    lost,
                    handed_so_far,
                    advanced,
                };
                while !stop.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else {
                        break;
                    };
                    // The next answer to hand over is always worked on (the others wait for
                    // it); a later one waits while what is held is heavy (a poisoned lock:
                    // no wait).
                    if let Ok(mut now) = handed_so_far.lock() {
                        while i > now.count
                            && now.held >= HELD_AHEAD
                            && !stop.load(Ordering::Relaxed)
                            && !lost.load(Ordering::Relaxed)
                        {
                            match advanced.wait(now) {
                                Ok(again) => now = again,
                                Err(_) => break,
                            }
                        }
                    }
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let answer = work(item);
                    let weight = weigh(&answer);
                    // Counted before it is sent, so the hand-over never takes more than
                    // was counted.
                    if let Ok(mut now) = handed_so_far.lock() {
                        now.held += weight;
                    }
                    if tx.send((i, weight, answer)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // `each` panicking (a bug) unwinds through here: the workers must not wait for a
        // hand-over that will not come, or the scope would wait for them for ever.
        let _lost_if_each_panics = SaidIfLost {
            lost: &lost,
            handed_so_far: &handed_so_far,
            advanced: &advanced,
        };
        // Dropped when this loop ends: a worker's next send fails, and it ends.
        'answers: for (n, (i, weight, answer)) in rx.into_iter().enumerate() {
            early[i] = Some((weight, answer));
            while let Some((weight, answer)) = early.get_mut(handed).and_then(Option::take) {
                if each(handed, Some(answer)).is_break() {
                    stop.store(true, Ordering::Relaxed);
                    // Under the lock, so no worker misses it between its check and its wait.
                    drop(handed_so_far.lock());
                    advanced.notify_all();
                    break 'answers;
                }
                handed += 1;
                if let Ok(mut now) = handed_so_far.lock() {
                    now.count = handed;
                    now.held = now.held.saturating_sub(weight);
                }
                advanced.notify_all();
            }
            done(n + 1);
        }
    });
    if stop.into_inner() {
        return;
    }
    for (i, answer) in early.into_iter().enumerate().skip(handed) {
        if each(i, answer.map(|(_, answer)| answer)).is_break() {
            return;
        }
    }
}

/// Tells the workers of [`in_order`] when a thread panics, a worker or the one handing the
/// answers over (they stop waiting for the answers held to get lighter).
struct SaidIfLost<'a> {
    lost: &'a AtomicBool,
    handed_so_far: &'a Mutex<Handed>,
    advanced: &'a Condvar,
}

impl Drop for SaidIfLost<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.lost.store(true, Ordering::Relaxed);
            // Under the lock, so no worker misses it between its check and its wait.
            drop(self.handed_so_far.lock());
            self.advanced.notify_all();
        }
    }
}

/// A bound on what the workers of [`in_order`] hold at once (bytes of the sessions they
/// decode, say): a worker takes its item's cost before the work and gives it back after.
/// Costs are let in first come, first served while their sum stays within the limit; a
/// cost over the limit is let in alone. So at most `max(limit, the largest cost)` is held
/// at once, and a large item waits only for the ones let in before it.
#[derive(Debug)]
pub(crate) struct Budget {
    limit: u64,
    state: Mutex<Admission>,
    changed: Condvar,
}

/// What a [`Budget`] has let in, and whose turn it is.
#[derive(Debug, Default)]
struct Admission {
    /// The costs let in and not yet given back.
    held: u64,
    /// How many are let in or waiting (the next one's ticket).
    tickets: u64,
    /// The ticket let in next.
    turn: u64,
}

/// A cost let in by a [`Budget`]; dropping it gives the cost back.
#[derive(Debug)]
pub(crate) struct Taken<'a> {
    budget: &'a Budget,
    cost: u64,
}

impl Budget {
    /// A budget of `limit`.
    pub(crate) fn new(limit: u64) -> Self {
        Self {
            limit,
            state: Mutex::new(Admission::default()),
            changed: Condvar::new(),
        }
    }

    /// Waits for this cost's turn and room for it (see the type's docs), and takes it.
    pub(crate) fn take(&self, cost: u64) -> Taken<'_> {
        // A worker that panicked while holding the lock changed nothing but the counts it
        // was updating: the counts stay usable.
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let ticket = state.tickets;
        state.tickets += 1;
        while state.turn != ticket || (state.held > 0 && state.held + cost > self.limit) {
            state = self
                .changed
                .wait(state)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        state.turn += 1;
        state.held += cost;
        drop(state);
        self.changed.notify_all();
        Taken { budget: self, cost }
    }
}

impl Drop for Taken<'_> {
    fn drop(&mut self) {
        let mut state = self
            .budget
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        state.held -= self.cost;
        drop(state);
        self.budget.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::{Budget, HELD_AHEAD, in_order};
    use std::ops::ControlFlow;
    use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

    #[test]
    fn a_budget_holds_at_most_its_limit_or_one_larger_cost_and_lets_every_cost_in() {
        let costs: Vec<u64> = (0..400).map(|n| [1, 3, 9, 25, 2][n % 5]).collect();
        let budget = Budget::new(10);
        let held = AtomicU64::new(0);
        let (most, together) = (AtomicU64::new(0), AtomicU64::new(0));
        let items = AtomicU64::new(0);
        let mut answers = Vec::new();
        in_order(
            &costs,
            |&cost| {
                let _taken = budget.take(cost);
                let before = held.fetch_add(cost, Ordering::SeqCst);
                if cost <= 10 {
                    most.fetch_max(before + cost, Ordering::SeqCst);
                }
                together.fetch_max(items.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
                // Long enough for the other workers to try to come in beside it.
                std::thread::sleep(std::time::Duration::from_micros(200));
                let alone = held.load(Ordering::SeqCst) == cost;
                items.fetch_sub(1, Ordering::SeqCst);
                held.fetch_sub(cost, Ordering::SeqCst);
                // A cost over the limit came in alone and nothing came in beside it.
                (cost, cost <= 10 || (before == 0 && alone))
            },
            |_| 0,
            &mut |_| {},
            &mut |_, answer| {
                answers.extend(answer);
                ControlFlow::Continue(())
            },
        );
        assert_eq!(answers.len(), costs.len());
        assert!(
            answers.iter().all(|&(_, ok)| ok),
            "a 25 was held beside another"
        );
        let most = most.into_inner();
        assert!(most <= 10, "held {most} at once");
        // The small ones side by side, when there are cores for it.
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        if cores > 1 {
            assert!(
                together.into_inner() > 1,
                "the small costs never ran side by side"
            );
        }
    }

    #[test]
    fn every_answer_is_handed_over_in_the_items_order_and_each_is_counted() {
        let items: Vec<u64> = (0..500).collect();
        let mut counted = Vec::new();
        let mut handed = Vec::new();
        in_order(
            &items,
            |n| {
                // Later items answer sooner, so answers come out of order.
                std::thread::sleep(std::time::Duration::from_micros(500 - n));
                n * 2
            },
            |_| 1,
            &mut |done| counted.push(done),
            &mut |i, answer| {
                handed.push((i, answer));
                ControlFlow::Continue(())
            },
        );
        let expected: Vec<(usize, Option<u64>)> =
            (0..500).map(|n| (n, Some(n as u64 * 2))).collect();
        assert_eq!(handed, expected);
        assert_eq!(counted, (1..=500).collect::<Vec<_>>());
        let mut none = 0;
        in_order(&[] as &[u64], |n| *n, |_| 1, &mut |_| {}, &mut |_, _| {
            none += 1;
            ControlFlow::Continue(())
        });
        assert_eq!(none, 0);
    }

    /// While `each` is slow (its reader waits), the workers start no item while the answers
    /// held weigh `HELD_AHEAD` or more: the answers held stay few, not the whole run's.
    #[test]
    fn a_slow_taker_holds_the_workers_back() {
        let items: Vec<usize> = (0..2000).collect();
        let furthest = AtomicUsize::new(0);
        let workers = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        let mut handed = 0;
        in_order(
            &items,
            |n| {
                furthest.fetch_max(*n, Ordering::Relaxed);
                *n
            },
            // Eight answers weigh what may be held.
            |_| HELD_AHEAD / 8,
            &mut |_| {},
            &mut |i, answer| {
                assert_eq!(answer, Some(i));
                if i < 20 {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                // The eight held, one more on each worker that found them lighter, and
                // the one handed over.
                let seen = furthest.load(Ordering::Relaxed);
                assert!(
                    seen <= i + 8 + workers,
                    "item {seen} started while {i} was handed over"
                );
                handed += 1;
                ControlFlow::Continue(())
            },
        );
        assert_eq!(handed, items.len());
    }

    /// A slow item does not hold back the items after it that answer nothing (a whole-history
    /// search's large session, and the many that do not hold the text): they are all worked
    /// on while it is, and only the ones with something in them are held.
    #[test]
    fn answers_that_weigh_nothing_do_not_wait_for_a_slow_item() {
        let items: Vec<usize> = (0..1000).collect();
        let finished = AtomicUsize::new(0);
        let workers = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        let mut seen_at_first = None;
        in_order(
            &items,
            |&n| {
                if n == 0 {
                    // Until the others are done, or long enough to show they waited.
                    let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
                    while finished.load(Ordering::SeqCst) < items.len() - 1
                        && std::time::Instant::now() < until
                    {
                        std::thread::sleep(std::time::Duration::from_millis(1));
                    }
                } else {
                    finished.fetch_add(1, Ordering::SeqCst);
                }
                n
            },
            |_| 0,
            &mut |_| {},
            &mut |i, _| {
                if i == 0 {
                    seen_at_first = Some(finished.load(Ordering::SeqCst));
                }
                ControlFlow::Continue(())
            },
        );
        if workers > 1 {
            assert_eq!(
                seen_at_first,
                Some(items.len() - 1),
                "the items after the slow one waited for it"
            );
        }
    }

    #[test]
    fn a_break_hands_nothing_more() {
        let items: Vec<u64> = (0..500).collect();
        let mut handed = Vec::new();
        in_order(&items, |n| *n, |_| 1, &mut |_| {}, &mut |i, answer| {
            handed.push((i, answer));
            if i == 2 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        assert_eq!(handed, [(0, Some(0)), (1, Some(1)), (2, Some(2))]);
    }
}
