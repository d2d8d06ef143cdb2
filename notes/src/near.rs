//! Did-you-mean: the existing note names closest to one that was not found.

/// At most this many names are suggested.
pub const NEAR_MAX: usize = 3;

/// The names among `names` that `wanted` was most likely meant to be, closest first (at
/// most [`NEAR_MAX`]): a name at a small edit distance (a typo: at most a third of the
/// longer name's characters, and at least one), or one whose last segment is `wanted`'s
/// (the note lives in another folder). Pure.
///
/// ```
/// use notesoup_notes::near_names;
///
/// let names = ["plan", "project/build", "todo"];
/// assert_eq!(near_names("paln", names), vec!["plan"]);
/// assert_eq!(near_names("build", names), vec!["project/build"]);
/// assert!(near_names("zzzzzz", names).is_empty());
/// ```
pub fn near_names<'a>(wanted: &str, names: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let last = |name: &str| name.rsplit('/').next().unwrap_or(name).to_owned();
    let wanted_last = last(wanted);
    let mut scored: Vec<(usize, &str)> = names
        .into_iter()
        .filter(|name| *name != wanted)
        .filter_map(|name| {
            let distance = edit_distance(wanted, name);
            let longer = wanted.chars().count().max(name.chars().count());
            let typo = distance <= (longer / 3).max(1);
            let moved = last(name) == wanted_last;
            (typo || moved).then_some((if typo { distance } else { longer }, name))
        })
        .collect();
    scored.sort_unstable();
    scored
        .into_iter()
        .take(NEAR_MAX)
        .map(|(_, name)| name)
        .collect()
}

/// Edit distance in characters: insert, delete, substitute and swap two neighbours each
/// cost 1 (optimal string alignment), so `paln` is one edit from `plan`.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut before: Vec<usize> = Vec::new();
    let mut last: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            row[j] = (last[j - 1] + cost).min(last[j] + 1).min(row[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(before[j - 2] + 1);
            }
        }
        before = std::mem::replace(&mut last, row);
    }
    last[b.len()]
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    #[rstest]
    #[case("", "", 0)]
    #[case("plan", "plan", 0)]
    #[case("plan", "paln", 1)]
    #[case("plan", "plans", 1)]
    #[case("kitten", "sitting", 3)]
    #[case("ü", "u", 1)]
    fn distance(#[case] a: &str, #[case] b: &str, #[case] want: usize) {
        assert_eq!(edit_distance(a, b), want);
        assert_eq!(edit_distance(b, a), want);
    }

    #[rstest]
    #[case("plna", &["plan", "plant", "notes/plan"], &["plan"])]
    #[case("a/b", &["a/c", "b", "x/b"], &["a/c", "x/b", "b"])]
    #[case("x", &["y", "xx", "abc"], &["xx", "y"])]
    #[case("deploy", &["a", "b"], &[])]
    #[case("plan", &["plan"], &[])]
    fn nearest(#[case] wanted: &str, #[case] names: &[&str], #[case] want: &[&str]) {
        assert_eq!(near_names(wanted, names.iter().copied()), want);
    }

    #[test]
    fn at_most_three() {
        let names = ["ab", "ac", "ad", "ae"];
        assert_eq!(near_names("aa", names).len(), NEAR_MAX);
    }
}
