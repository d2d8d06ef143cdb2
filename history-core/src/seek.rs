//! [`partition_from`]: a partition point found from a place already passed, for walks of
//! ascending keys (the matches of a search, in file order) over long sorted lists.

/// `slice.partition_point(pred)` (`pred` true on a prefix of `slice`, false after it),
/// searched from `from` on when `pred` holds just before it: it gallops (probes 1, 2, 4, …
/// places on) and then searches between the last two probes, so a point near `from` costs
/// a few probes near it, not a search of the whole list (whose probes are far apart, each
/// a cache miss in a long list). Any `from` gives the same answer as
/// `partition_point`: one past the prefix, or not inside it, is searched whole.
pub fn partition_from<T>(slice: &[T], from: usize, pred: impl Fn(&T) -> bool) -> usize {
    let passed = match from.checked_sub(1) {
        None => true,
        Some(last) => slice.get(last).is_some_and(&pred),
    };
    if !passed {
        return slice.partition_point(pred);
    }
    // `pred` holds before `lo`; it fails at `hi`, or `hi` is the end.
    let (mut lo, mut hi, mut step) = (from, from, 1_usize);
    while hi < slice.len() && pred(&slice[hi]) {
        lo = hi + 1;
        hi = hi.saturating_add(step).min(slice.len());
        step = step.saturating_mul(2);
    }
    lo + slice[lo..hi].partition_point(pred)
}

#[cfg(test)]
mod tests {
    use super::partition_from;

    /// From every place, before, inside and past the prefix, and past the list's end, the
    /// point is `partition_point`'s, for lists of every length up to 40 with repeated keys.
    #[test]
    fn a_point_found_from_any_place_is_the_one_a_whole_search_finds() {
        for len in 0..40_u64 {
            let keys: Vec<u64> = (0..len).map(|i| i / 3 * 2).collect();
            for bound in 0..len * 2 + 2 {
                let pred = |k: &u64| *k < bound;
                let whole = keys.partition_point(pred);
                for from in 0..keys.len() + 3 {
                    assert_eq!(
                        partition_from(&keys, from, pred),
                        whole,
                        "len {len} bound {bound} from {from}"
                    );
                }
            }
        }
    }
}
