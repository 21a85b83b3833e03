//! JSON text to a `Value`, as `serde_json::from_str` gives it, looking for
//! Ctrl-C every few thousand values: a tokenizer.json of millions of tokens
//! takes seconds to parse.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use crate::cancel::{self, CHECKPOINT_STEPS};
use crate::error::Result;

/// Parses `text`; `Error::Interrupted` once the call is told to stop, else
/// serde_json's own error text.
pub fn parse(text: &str) -> Result<Value> {
    let values = Cell::new(0usize);
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed = Stopping(&values)
        .deserialize(&mut de)
        .and_then(|v| de.end().map(|_| v));
    cancel::checkpoint()?;
    parsed.map_err(|e| super::fields::bad(e.to_string()))
}

/// A value of the text, counting values parsed so far.
#[derive(Clone, Copy)]
struct Stopping<'c>(&'c Cell<usize>);

impl Stopping<'_> {
    /// One more value; an error once the call is told to stop.
    fn step<E: de::Error>(&self) -> std::result::Result<(), E> {
        let n = self.0.get() + 1;
        self.0.set(n);
        if n.is_multiple_of(CHECKPOINT_STEPS) && cancel::checkpoint().is_err() {
            return Err(E::custom("interrupted"));
        }
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for Stopping<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> std::result::Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Stopping<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> std::result::Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> std::result::Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> std::result::Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> std::result::Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> std::result::Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> std::result::Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element_seed(self)? {
            self.step()?;
            items.push(v);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(self)?;
            self.step()?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use std::sync::Arc;

    #[test]
    fn parses_as_serde_json_does() {
        for text in [
            r#"{"a": [1, -2, 3.5, true, null, "x\u00e9"], "b": {"c": {}}, "a": 0}"#,
            "[]",
            "  \"s\" ",
            "18446744073709551615",
        ] {
            let want: Value = serde_json::from_str(text).unwrap();
            assert_eq!(parse(text).unwrap(), want, "{text}");
        }
        for bad in ["{", "[1,]", "{} x", "", "[".repeat(200).as_str()] {
            assert!(serde_json::from_str::<Value>(bad).is_err());
            assert!(matches!(parse(bad), Err(Error::Value(_))), "{bad}");
        }
    }

    #[test]
    fn stops_when_told() {
        let text = format!("[{}1]", "1,".repeat(3 * CHECKPOINT_STEPS));
        let cancel = Arc::new(cancel::Cancel::new());
        cancel.cancel();
        let r = cancel::with_ambient(&cancel, || parse(&text));
        assert!(matches!(r, Err(Error::Interrupted)));
    }
}
