//! When a session was last active, from the tail of its file: the harness-neutral walk
//! over the tail's lines, newest first. Each decoder says what time one line of its format
//! records (`last_time` in `history-claude`, `history-pi` and `history-codex`); the store
//! reads the tail.

/// The time (milliseconds since the Unix epoch) of the newest line of `tail` that
/// `time_of` finds a time in, trying the lines from the last back. `tail` holds whole lines:
/// a reader that starts mid-file drops what comes before its first line break. Its last
/// line may be a write still under way; it is tried like the others (`time_of` finds no
/// time in a cut line).
///
/// ```
/// use notesoup_history_core::last_line_time;
///
/// let tail = b"a 5\nb 7\nc\n";
/// let time = |line: &[u8]| std::str::from_utf8(line).ok()?.split_once(' ')?.1.parse().ok();
/// assert_eq!(last_line_time(tail, time), Some(7));
/// assert_eq!(last_line_time(b"c\n", time), None);
/// ```
pub fn last_line_time(tail: &[u8], time_of: impl Fn(&[u8]) -> Option<u64>) -> Option<u64> {
    tail.rsplit(|&b| b == b'\n')
        .filter(|line| !line.iter().all(u8::is_ascii_whitespace))
        .find_map(time_of)
}
