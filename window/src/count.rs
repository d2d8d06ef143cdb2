//! The one way a count is written for people: [`thousands`].

/// `n` with a comma between each group of three digits, as people read token counts.
///
/// ```
/// use notesoup_window::thousands;
///
/// assert_eq!(thousands(0), "0");
/// assert_eq!(thousands(999), "999");
/// assert_eq!(thousands(58_808), "58,808");
/// assert_eq!(thousands(1_000_000), "1,000,000");
/// ```
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
