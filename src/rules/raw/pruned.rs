//! The scans' JSON parse: a `serde_json::Value` holding only what some scan reads. Every object
//! key the scans look up is kept (its value pruned the same way); the argument containers are
//! kept whole (their keys are the tool's own); everything else is skipped without being built
//! (tool outputs, file contents, usage blocks, the duplicated `toolUseResult` of a transcript).
//! A `content` string is dropped too: the scans only read `content` as a list of blocks.
//!
//! Skipping costs a scan of the bytes, building a `Value` costs an allocation per string, array
//! and object: on recorded streams most bytes are in the skipped parts. A line that is not JSON
//! is still refused as a whole.
//!
//! When a scan starts reading a new key, add it to [`keep`] (as whole if its keys are not known
//! in advance): the scans' tests run through this parse, so a missing key fails them.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::MEANINGFUL_KEYS;

/// What to do with the value under a key.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Keep {
    /// Build it, pruning the objects inside it.
    Pruned,
    /// Build it whole.
    Whole,
    /// Build it pruned, but drop it if it is a string.
    NoString,
    /// Do not build it.
    Skip,
}

fn keep(key: &str) -> Keep {
    // A match on the key compiles to a switch on its length, then a comparison or two.
    match key {
        "content" => Keep::NoString,
        "Err" | "Ok" | "action" | "callID" | "call_id" | "content_block" | "data" | "error"
        | "event" | "exit" | "exitCode" | "exit_code" | "id" | "isError" | "is_backgrounded"
        | "is_error" | "item" | "itemId" | "kind" | "message" | "messages" | "metadata"
        | "method" | "msg" | "name" | "namespace" | "optionId" | "options" | "outcome"
        | "output" | "params" | "part" | "parts" | "payload" | "properties" | "reason"
        | "result" | "server" | "sessionID" | "sessionId" | "sessionUpdate" | "state"
        | "status" | "stopReason" | "subtype" | "success" | "threadId" | "tool" | "toolCall"
        | "toolCallId" | "toolName" | "tool_use_id" | "turnId" | "type" | "update"
        | "working_directory" => Keep::Pruned,
        "_meta" | "arguments" | "changes" | "input" | "invocation" | "rawInput" => Keep::Whole,
        k if MEANINGFUL_KEYS.contains(&k) => Keep::Pruned,
        _ => Keep::Skip,
    }
}

/// Parse `bytes` as JSON, keeping only what the scans read (see the module's documentation).
pub(crate) fn parse(bytes: &[u8]) -> Option<Value> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let v = Pruned { hops: 0 }.deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(v)
}

/// How many `content` values, one inside another, are parsed on their own. Each such parse has
/// serde_json's nesting limit afresh, so without a cap a line of nested `content` lists nests
/// parses until the stack overflows. Real streams nest two; deeper ones are dropped.
const MAX_HOPS: u8 = 8;

#[derive(Clone, Copy)]
struct Pruned {
    /// `content` values parsed on their own around this one.
    hops: u8,
}

impl<'de> DeserializeSeed<'de> for Pruned {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

/// An object key, borrowed from the input when it has no escapes.
struct Key<'de>(std::borrow::Cow<'de, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(v.into()))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(v.to_owned().into()))
            }
        }
        d.deserialize_str(V)
    }
}

impl<'de> Visitor<'de> for Pruned {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(v.into())
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(v.into())
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        self.deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(self)? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(Key(k)) = map.next_key::<Key<'de>>()? {
            let v = match keep(&k) {
                Keep::Skip => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
                Keep::Whole => map.next_value::<Value>()?,
                Keep::Pruned => map.next_value_seed(self)?,
                Keep::NoString => {
                    // Seen as raw text first: a long string is skipped, never unescaped.
                    let raw = map.next_value::<&'de RawValue>()?;
                    match raw.get().as_bytes().first() {
                        Some(b'"') => Value::Null,
                        _ if self.hops >= MAX_HOPS => Value::Null,
                        _ => {
                            let mut inner = serde_json::Deserializer::from_str(raw.get());
                            Pruned {
                                hops: self.hops + 1,
                            }
                            .deserialize(&mut inner)
                            .map_err(de::Error::custom)?
                        }
                    }
                }
            };
            out.insert(k.into_owned(), v);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_what_scans_read_and_drops_the_rest() {
        let v = parse(
            br#"{"type":"user","toolUseResult":{"stdout":"big"},"message":{"content":[{"type":"tool_result","tool_use_id":"t","is_error":true,"content":"long output"},{"type":"tool_use","id":"u","input":{"any key":{"deep":[1,"x"]}}}]}}"#,
        )
        .unwrap();
        assert_eq!(
            v,
            serde_json::json!({"type":"user","message":{"content":[
                {"type":"tool_result","tool_use_id":"t","is_error":true,"content":null},
                {"type":"tool_use","id":"u","input":{"any key":{"deep":[1,"x"]}}}
            ]}})
        );
    }

    #[test]
    fn nested_content_lists_end_at_a_fixed_depth() {
        // 100,000 `content` lists one inside another: no stack overflow, the line still reads,
        // with what lies deeper than MAX_HOPS dropped.
        let depth = 100_000;
        let mut line = "{\"content\":[".repeat(depth);
        line.push_str(&"]}".repeat(depth));
        let v = parse(line.as_bytes()).expect("the line reads");
        let mut at = &v;
        let mut hops = 0;
        while let Some(inner) = at.get("content").and_then(|c| c.get(0)) {
            at = inner;
            hops += 1;
        }
        assert_eq!(hops, usize::from(MAX_HOPS));
        let shallow =
            parse(br#"{"content":[{"content":[{"type":"tool_result","tool_use_id":"t"}]}]}"#);
        assert_eq!(
            shallow,
            Some(
                serde_json::json!({"content":[{"content":[{"type":"tool_result","tool_use_id":"t"}]}]})
            )
        );
    }

    #[test]
    fn refuses_what_is_not_one_json_value() {
        assert!(parse(b"{\"type\":").is_none());
        assert!(parse(b"{\"a\":1} {\"b\":2}").is_none());
        assert!(parse(b"{\"skipped\":[1,}").is_none());
        assert_eq!(parse(b" 3 "), Some(Value::from(3)));
        assert_eq!(parse(b"1.5"), Some(Value::from(1.5)));
    }
}
