//! The offline demo (placeholder until the walk-through lands).
fn main() {}
