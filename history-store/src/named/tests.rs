use super::*;

const LIVE: &str = "/p/6e9d0c1a-5f2b-4c3d-9e8f-0a1b2c3d4e5f.jsonl";
const ID: &str = "6e9d0c1a-5f2b-4c3d-9e8f-0a1b2c3d4e5f";

fn live() -> Named<'static> {
    Named::Live {
        path: Path::new(LIVE),
        session: ID.into(),
    }
}

#[test]
fn the_live_session_by_its_exact_id_keeps_its_live_head() {
    assert_eq!(
        named(Some(&format!("claude:{ID}")).map(|s| &**s), Some(LIVE)),
        Some(live())
    );
}

#[test]
fn a_prefix_another_harness_or_a_bad_selector_goes_to_the_corpus() {
    for selector in ["claude:6e9d0c1a", &format!("pi:{ID}") as &str, "nonsense"] {
        assert_eq!(
            named(Some(selector), Some(LIVE)),
            Some(Named::Listed(selector))
        );
    }
    assert_eq!(
        named(Some(&format!("claude:{ID}")[..]), None).map(|n| matches!(n, Named::Listed(_))),
        Some(true)
    );
}

#[test]
fn without_a_selector_the_live_session_or_nothing() {
    assert_eq!(named(None, Some(LIVE)), Some(live()));
    assert_eq!(named(None, None), None);
}
