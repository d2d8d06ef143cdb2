//! The person's unanswered input, clause by clause.

use super::{Role, TailMessage, unanswered_input};
use crate::Kept;

fn m(role: Role, text: &str) -> TailMessage<'_> {
    TailMessage {
        role,
        results: false,
        text,
    }
}

fn at(kept: &[Kept]) -> Vec<usize> {
    kept.iter().map(|k| k.at).collect()
}

/// The model's answer ends what went before: only the input after it is unanswered.
#[test]
fn only_the_input_after_the_models_last_answer_is_unanswered() {
    let tail = [
        m(Role::Person, "first"),
        m(Role::Model, "answered"),
        m(Role::Person, "second"),
    ];
    assert_eq!(at(&unanswered_input(&tail)), [2]);
    assert!(unanswered_input(&tail[..2]).is_empty());
}

/// A message that is neither the person's nor the model's (a tool result, a system
/// message, a host's hidden message after the prompt) is not input and answers nothing.
#[test]
fn another_roles_message_answers_nothing() {
    let tail = [
        m(Role::Person, "the first prompt"),
        m(Role::Other, "hidden"),
    ];
    assert_eq!(at(&unanswered_input(&tail)), [0]);
    let tail = [m(Role::Other, "x"), m(Role::Person, "steered")];
    assert_eq!(at(&unanswered_input(&tail)), [1]);
}

/// No text, a boot, a text kept already: not the person's input.
#[test]
fn empty_boot_and_repeated_texts_are_not_kept() {
    let tail = [
        m(Role::Person, " \n"),
        m(
            Role::Person,
            "x <notesoup-boot window=\"claude:s:3\">\n</notesoup-boot>",
        ),
        m(Role::Person, "typed"),
        m(Role::Person, "typed"),
    ];
    assert_eq!(at(&unanswered_input(&tail)), [2]);
    assert!(unanswered_input(&[]).is_empty());
}
