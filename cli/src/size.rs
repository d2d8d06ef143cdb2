//! A size in bytes for people, the one way every command writes one: `512 B`, `3.4 KiB`,
//! `12.0 MiB`.

/// `n` bytes for people: `512 B`, `3.4 KiB`, `12.0 MiB`, `1.2 GiB`.
pub(crate) fn bytes(n: u64) -> String {
    #[allow(clippy::cast_precision_loss, reason = "a display figure")]
    let f = n as f64;
    if n < 1024 {
        format!("{n} B")
    } else if n < 1 << 20 {
        format!("{:.1} KiB", f / 1024.0)
    } else if n < 1 << 30 {
        format!("{:.1} MiB", f / f64::from(1u32 << 20))
    } else {
        format!("{:.1} GiB", f / f64::from(1u32 << 30))
    }
}
