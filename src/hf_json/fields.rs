//! Reading a tokenizer.json part: its type first, then its fields, and the
//! errors that name what is wrong.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::{Error, Result};

pub(super) fn unsupported(what: impl Into<String>) -> Error {
    Error::Unsupported(what.into())
}

pub(super) fn bad(what: impl Into<String>) -> Error {
    Error::Value(format!("invalid tokenizer.json: {}", what.into()))
}

/// A component's `type` and its object, or None when absent or null.
pub(super) fn component(v: Option<Value>, key: &str) -> Result<Option<(String, Value)>> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(o)) => match o.get("type") {
            Some(Value::String(t)) => Ok(Some((t.clone(), Value::Object(o)))),
            _ => Err(bad(format!("{key} has no type"))),
        },
        Some(v) => Err(bad(format!("{key} should be an object, got {v}"))),
    }
}

/// The fields of a part, as its type's struct.
pub(super) fn fields<T: DeserializeOwned>(v: Value, key: &str) -> Result<T> {
    serde_json::from_value(v).map_err(|e| bad(format!("{key}: {e}")))
}

/// An optional part (absent or null: None).
pub(super) fn part<T: DeserializeOwned>(v: Option<Value>, key: &str) -> Result<Option<T>> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(v) => fields(v, key).map(Some),
    }
}

pub(super) fn flag(o: &Value, name: &str, default: bool) -> Result<bool> {
    match o.get(name) {
        None | Some(Value::Null) => Ok(default),
        Some(Value::Bool(b)) => Ok(*b),
        Some(v) => Err(bad(format!("{name} should be a boolean, got {v}"))),
    }
}

pub(super) fn text_field(o: &Value, name: &str, key: &str) -> Result<String> {
    match o.get(name) {
        Some(Value::String(s)) => Ok(s.clone()),
        _ => Err(bad(format!("{key} needs a string {name}"))),
    }
}

/// A field HF requires (its reader refuses the file without it): wpiece
/// refuses too, rather than load the file with a default its author may not
/// have meant.
pub(super) fn required<T>(v: Option<T>, key: &str, name: &str) -> Result<T> {
    v.ok_or_else(|| bad(format!("{key}: missing field `{name}`")))
}
