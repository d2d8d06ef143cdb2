//! An own tool's call answered in a session: what follows the answer never takes its place.

use super::after_the_answer;

#[test]
fn a_bug_after_the_answer_never_takes_its_place() {
    // The step after an answered call (the flow, the warning) panics: the caller gets a
    // refusal to log beside the answer, never the panic (which answered `internal` for the
    // whole call, after a notes_edit had landed).
    let stepped = after_the_answer::<()>(|| panic!("a bug in the flow"));
    let err = stepped.expect_err("the panic is a refusal");
    assert_eq!(err.code(), "internal");
    assert!(err.to_string().contains("after this answer"), "{err}");
    let fine = after_the_answer(|| Ok(7));
    assert_eq!(fine.ok(), Some(7));
}
