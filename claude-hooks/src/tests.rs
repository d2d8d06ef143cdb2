//! The adapter's tests: the hook explorer, and a fork's boots through hook calls.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test code: a failed unwrap is a failed test"
)]

mod closeout;
mod copy;
pub(crate) mod explore;
mod interactive;
mod natural;
mod switch;
mod world;
