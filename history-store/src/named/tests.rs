use super::*;

const LIVE: &str = "/p/6e9d0c1a-5f2b-4c3d-9e8f-0a1b2c3d4e5f.jsonl";
const ID: &str = "6e9d0c1a-5f2b-4c3d-9e8f-0a1b2c3d4e5f";

fn live() -> Named<'static> {
    Named::Live {
        path: Path::new(LIVE),
        session: ID.into(),
        head: "h",
    }
}

/// `named` for a main-agent call with the live head `h`; `None` for a refusal.
fn main_named<'a>(selector: Option<&'a str>, path: Option<&'a str>) -> Option<Named<'a>> {
    named("history_list", None, selector, path, Some("h")).ok()
}

#[test]
fn the_live_session_by_its_exact_id_keeps_its_live_head() {
    assert_eq!(
        main_named(Some(&format!("claude:{ID}")).map(|s| &**s), Some(LIVE)),
        Some(live())
    );
}

#[test]
fn a_prefix_another_harness_or_a_bad_selector_goes_to_the_corpus() {
    for selector in ["claude:6e9d0c1a", &format!("pi:{ID}") as &str, "nonsense"] {
        assert_eq!(
            main_named(Some(selector), Some(LIVE)),
            Some(Named::Listed(selector))
        );
    }
    assert_eq!(
        main_named(Some(&format!("claude:{ID}")[..]), None).map(|n| matches!(n, Named::Listed(_))),
        Some(true)
    );
}

#[test]
fn without_a_selector_the_live_session_or_nothing() {
    assert_eq!(main_named(None, Some(LIVE)), Some(live()));
    assert_eq!(main_named(None, None), None);
}

#[test]
fn a_subagent_an_unbound_call_and_a_live_session_with_no_head_are_refused() {
    let code = |agent, selector, path, head| {
        named("history_read", agent, selector, path, head)
            .unwrap_err()
            .code()
    };
    // A subagent is refused even when it names a session.
    assert_eq!(
        code(Some("a1"), Some("pi:x"), Some(LIVE), Some("h")),
        "subagent"
    );
    assert_eq!(code(None, None, None, Some("h")), "history_unavailable");
    assert_eq!(code(None, None, Some(LIVE), None), "no_head");
    assert_eq!(
        code(None, Some(&format!("claude:{ID}")[..]), Some(LIVE), None),
        "no_head"
    );
    // A corpus session needs no live head.
    assert_eq!(
        named("history_read", None, Some("pi:x"), None, None).ok(),
        Some(Named::Listed("pi:x"))
    );
    let err = named("history_read", Some("a1"), None, None, None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "`history_read` is not available to subagents (agent a1): history belongs to the main conversation"
    );
}
