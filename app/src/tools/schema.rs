//! The model's arguments held to a tool's schema ([`arguments`]): the one check of what a
//! tool takes, before any typed call.

use serde_json::{Map, Value};

use super::{ToolAnswer, ToolSpec, refuse};

/// The model's arguments checked against the tool's schema, the one source of what a tool
/// takes: an object (`null` counts as no arguments) holding only declared fields, every
/// required one, each of its declared type, within its enum and its bounds. Anything else
/// is refused as `bad_request`, naming the field and what the tool takes, so the model can
/// correct the call; a field the schema does not declare (a `transcript_path`, a `roots`)
/// is refused rather than dropped, so it never reaches the op and a misspelt argument is
/// never silently ignored.
pub(crate) fn arguments(spec: &ToolSpec, args: &Value) -> Result<Map<String, Value>, ToolAnswer> {
    let name = spec.name;
    let bad = |message: String| refuse("bad_request", &message);
    let args = match args {
        Value::Null => Map::new(),
        Value::Object(args) => args.clone(),
        other => {
            return Err(bad(format!(
                "`{name}` arguments must be a JSON object, got {}",
                kind_of(other)
            )));
        }
    };
    let empty = Map::new();
    let properties = spec.input_schema["properties"]
        .as_object()
        .unwrap_or(&empty);
    let takes = || {
        if properties.is_empty() {
            "no arguments".to_owned()
        } else {
            format!(
                "only `{}`",
                properties
                    .keys()
                    .map(String::as_str)
                    .collect::<Vec<_>>()
                    .join("`, `")
            )
        }
    };
    if let Some(field) = args
        .keys()
        .find(|key| !properties.contains_key(key.as_str()))
    {
        return Err(bad(format!(
            "`{name}` takes no argument `{}`; it takes {}",
            notesoup_history_core::clip(field.clone(), 100),
            takes()
        )));
    }
    for required in spec.input_schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if !args.contains_key(required) {
            return Err(bad(format!("`{name}` needs `{required}`")));
        }
    }
    for (field, value) in &args {
        if let Err(why) = fits(&properties[field.as_str()], value) {
            return Err(bad(format!("`{name}` argument `{field}`: {why}")));
        }
    }
    Ok(args)
}

/// Whether `value` fits one property schema of the kinds [`super::specs`] writes (a type, an
/// enum, an array of an enum, integer bounds); why not, in words.
fn fits(schema: &Value, value: &Value) -> Result<(), String> {
    if let Some(values) = schema["enum"].as_array() {
        return if values.contains(value) {
            Ok(())
        } else {
            Err(format!("must be one of {}", Value::Array(values.clone())))
        };
    }
    let kind = schema["type"].as_str().unwrap_or_default();
    let fits = match kind {
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "integer" => value.is_i64() || value.is_u64(),
        "array" => match value.as_array() {
            Some(items) => {
                for item in items {
                    fits(&schema["items"], item).map_err(|why| format!("an item {why}"))?;
                }
                true
            }
            None => false,
        },
        _ => true,
    };
    if !fits {
        return Err(format!("must be {}, got {}", an(kind), kind_of(value)));
    }
    if let Some(n) = value.as_i64().or_else(|| value.as_u64().map(|_| i64::MAX)) {
        if let Some(min) = schema["minimum"].as_i64().filter(|min| n < *min) {
            return Err(format!("must be at least {min}, got {value}"));
        }
        if let Some(max) = schema["maximum"].as_i64().filter(|max| n > *max) {
            return Err(format!("must be at most {max}, got {value}"));
        }
    }
    Ok(())
}

/// A JSON Schema type name with its article, as the refusals say it.
fn an(kind: &str) -> String {
    match kind {
        "integer" | "array" => format!("an {kind}"),
        _ => format!("a {kind}"),
    }
}

/// A JSON value's kind, for refusals ("a string", "an array", ...): the one wording of
/// every refusal of a JSON shape, the model's arguments' and the helper's requests'.
pub fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
