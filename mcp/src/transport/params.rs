//! Params that do not fit a method this server serves.
//!
//! rmcp reads a request whose params do not fit its method's type as a request of some
//! other, unknown method, and answers `-32601` Method not found naming the method the
//! server does serve (or, before the session, it reads as a request that is not
//! `initialize`). JSON-RPC's answer is `-32602` Invalid params; this module says which
//! field is wrong, in serde's words.

use rmcp::model::{
    GetPromptRequestParams, InitializeRequestParams, PaginatedRequestParams,
    ReadResourceRequestParams,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Why `params` do not fit `method`, for a method served here whose params have a type;
/// `None` when they fit, or the method is not one of those. (`tools/call` is checked
/// before this, with its own words.)
pub(crate) fn misfit(method: &str, params: Option<&Value>) -> Option<String> {
    let why = match method {
        "initialize" => fits::<InitializeRequestParams>(params),
        "resources/read" => fits::<ReadResourceRequestParams>(params),
        "prompts/get" => fits::<GetPromptRequestParams>(params),
        "tools/list" | "resources/list" | "resources/templates/list" | "prompts/list" => {
            fits::<Option<PaginatedRequestParams>>(params)
        }
        _ => None,
    }?;
    Some(format!("Invalid params: `{method}`: {why}"))
}

fn fits<T: DeserializeOwned>(params: Option<&Value>) -> Option<String> {
    let params = params.cloned().unwrap_or(Value::Null);
    let missing = params.is_null();
    let err = serde_json::from_value::<T>(params).err()?;
    if missing {
        return Some("its params (an object) are missing".into());
    }
    Some(without_type_names(&err.to_string()))
}

/// serde's words without the Rust type it names ("expected struct Implementation"): the
/// client knows the field, not the type.
fn without_type_names(text: &str) -> String {
    const STRUCT: &str = "expected struct ";
    match text.split_once(STRUCT) {
        Some((before, after)) => {
            let rest = after
                .find(char::is_whitespace)
                .map_or("", |at| &after[at..]);
            format!("{before}expected an object{rest}")
        }
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_field_not_the_type() {
        let params = serde_json::json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": "me"});
        let why = misfit("initialize", Some(&params)).unwrap_or_default();
        assert!(
            why.starts_with(
                "Invalid params: `initialize`: invalid type: string \"me\", expected an object"
            ) && !why.contains("Implementation"),
            "{why}"
        );
        assert_eq!(
            misfit("prompts/get", None).as_deref(),
            Some("Invalid params: `prompts/get`: its params (an object) are missing")
        );
        assert_eq!(misfit("tools/list", None), None);
        assert_eq!(misfit("ping", None), None);
    }
}
