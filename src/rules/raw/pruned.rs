//! The scans' JSON parse: a tree of [`Node`]s holding only what some scan reads. Every object key
//! the scans look up is kept (its value pruned the same way); the argument containers are kept
//! whole (their keys are the tool's own); everything else is skipped without being built (tool
//! outputs, file contents, usage blocks, the duplicated `toolUseResult` of a transcript). A
//! `content` string is dropped too: the scans only read `content` as a list of blocks.
//!
//! Skipping costs a scan of the bytes, building costs an allocation per array and object (and
//! per string that holds an escape): on recorded streams most bytes are in the skipped parts. The
//! tree borrows its keys and plain strings from the line, and an object is a list of its entries
//! (a pruned object has a handful), so nothing is hashed; what a scan keeps of it becomes a
//! `serde_json::Value` only then ([`Node::to_value`]). A line that is not JSON is still refused
//! as a whole.
//!
//! When a scan starts reading a new key, add it to [`keep`] (as whole if its keys are not known
//! in advance): the scans' tests run through this parse, so a missing key fails them.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Number, Value};

use super::MEANINGFUL_KEYS;

/// A JSON value as the scans read it, borrowing from the line it was parsed from. An object's
/// entries keep their first position and last value, as in a `serde_json::Value` of the same
/// text, so a key given twice reads the same either way.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Node<'a> {
    Null,
    Bool(bool),
    Number(Number),
    String(Cow<'a, str>),
    Array(Vec<Node<'a>>),
    Object(Vec<(Cow<'a, str>, Node<'a>)>),
}

impl<'a> Node<'a> {
    /// The value under `key` of an object.
    pub(crate) fn get(&self, key: &str) -> Option<&Node<'a>> {
        self.as_object()?
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Node::String(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn as_bool(&self) -> Option<bool> {
        match self {
            Node::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub(crate) fn as_i64(&self) -> Option<i64> {
        match self {
            Node::Number(n) => n.as_i64(),
            _ => None,
        }
    }

    pub(crate) fn as_array(&self) -> Option<&[Node<'a>]> {
        match self {
            Node::Array(a) => Some(a),
            _ => None,
        }
    }

    pub(crate) fn as_object(&self) -> Option<&[(Cow<'a, str>, Node<'a>)]> {
        match self {
            Node::Object(o) => Some(o),
            _ => None,
        }
    }

    pub(crate) fn is_object(&self) -> bool {
        matches!(self, Node::Object(_))
    }

    /// True for values that say nothing: null, "", {}, [].
    pub(crate) fn is_empty(&self) -> bool {
        match self {
            Node::Null => true,
            Node::String(s) => s.is_empty(),
            Node::Object(o) => o.is_empty(),
            Node::Array(a) => a.is_empty(),
            Node::Bool(_) | Node::Number(_) => false,
        }
    }

    /// The same value as a `serde_json::Value` (what a scan keeps of a call's arguments).
    pub(crate) fn to_value(&self) -> Value {
        match self {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Bool(*b),
            Node::Number(n) => Value::Number(n.clone()),
            Node::String(s) => Value::String(s.as_ref().to_owned()),
            Node::Array(a) => Value::Array(a.iter().map(Node::to_value).collect()),
            Node::Object(o) => Value::Object(
                o.iter()
                    .map(|(k, v)| (k.as_ref().to_owned(), v.to_value()))
                    .collect::<Map<String, Value>>(),
            ),
        }
    }
}

/// JSON text, as a `serde_json::Value` of the same value prints (a request id as a map key).
impl fmt::Display for Node<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.to_value(), f)
    }
}

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
pub(crate) fn parse(bytes: &[u8]) -> Option<Node<'_>> {
    // A line checked as UTF-8 once, in one pass, is read as text: serde_json then does not check
    // each string it reads on its own (the same values, at a fraction of the cost). A line that
    // is not UTF-8 is read as bytes, so that what is rejected stays the same.
    match std::str::from_utf8(bytes) {
        Ok(text) => run(serde_json::Deserializer::from_str(text), false),
        Err(_) => run(serde_json::Deserializer::from_slice(bytes), false),
    }
}

/// Parse `text` as JSON, keeping all of it (a call's arguments given as a JSON string).
pub(crate) fn parse_whole(text: &str) -> Option<Node<'_>> {
    run(serde_json::Deserializer::from_str(text), true)
}

fn run<'de, R: serde_json::de::Read<'de>>(
    mut de: serde_json::Deserializer<R>,
    whole: bool,
) -> Option<Node<'de>> {
    let v = Pruned { hops: 0, whole }.deserialize(&mut de).ok()?;
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
    /// Inside a value kept whole: every key is kept.
    whole: bool,
}

impl<'de> DeserializeSeed<'de> for Pruned {
    type Value = Node<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Node<'de>, D::Error> {
        d.deserialize_any(self)
    }
}

/// An object key, borrowed from the input when it has no escapes.
struct Key<'de>(Cow<'de, str>);

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
    type Value = Node<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Node<'de>, E> {
        Ok(Node::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Node<'de>, E> {
        Ok(Node::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Node<'de>, E> {
        Ok(Node::Number(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Node<'de>, E> {
        Ok(Number::from_f64(v).map_or(Node::Null, Node::Number))
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Node<'de>, E> {
        Ok(Node::String(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Node<'de>, E> {
        Ok(Node::String(Cow::Owned(v.to_owned())))
    }
    fn visit_unit<E>(self) -> Result<Node<'de>, E> {
        Ok(Node::Null)
    }
    fn visit_none<E>(self) -> Result<Node<'de>, E> {
        Ok(Node::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Node<'de>, D::Error> {
        self.deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node<'de>, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(self)? {
            out.push(v);
        }
        Ok(Node::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node<'de>, A::Error> {
        let mut out = Vec::new();
        while let Some(Key(k)) = map.next_key::<Key<'de>>()? {
            let how = if self.whole { Keep::Whole } else { keep(&k) };
            let v = match how {
                Keep::Skip => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
                Keep::Whole => map.next_value_seed(Pruned {
                    whole: true,
                    ..self
                })?,
                Keep::Pruned => map.next_value_seed(self)?,
                Keep::NoString => {
                    // Seen as raw text first: a long string is skipped, never unescaped.
                    let raw = map.next_value::<&'de RawValue>()?;
                    match raw.get().as_bytes().first() {
                        Some(b'"') => Node::Null,
                        _ if self.hops >= MAX_HOPS => Node::Null,
                        _ => {
                            let mut inner = serde_json::Deserializer::from_str(raw.get());
                            Pruned {
                                hops: self.hops + 1,
                                whole: false,
                            }
                            .deserialize(&mut inner)
                            .map_err(de::Error::custom)?
                        }
                    }
                }
            };
            out.push((k, v));
        }
        dedupe(&mut out);
        Ok(Node::Object(out))
    }
}

/// Give a key that came more than once its first position and its last value, as a
/// `serde_json::Value` map does. Checked pairwise in a small object, by sorting in a large one
/// (never quadratic); rebuilt only when a key did repeat.
fn dedupe<'a>(entries: &mut Vec<(Cow<'a, str>, Node<'a>)>) {
    let n = entries.len();
    let repeats = if n <= 8 {
        (1..n).any(|i| entries[..i].iter().any(|(k, _)| *k == entries[i].0))
    } else {
        let mut keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_ref()).collect();
        keys.sort_unstable();
        keys.windows(2).any(|w| w[0] == w[1])
    };
    if !repeats {
        return;
    }
    let mut at: crate::rules::support::HashMap<String, usize> = Default::default();
    let mut out: Vec<(Cow<'a, str>, Node<'a>)> = Vec::with_capacity(n);
    for (k, v) in entries.drain(..) {
        match at.get(k.as_ref()) {
            Some(&i) => out[i].1 = v,
            None => {
                at.insert(k.as_ref().to_owned(), out.len());
                out.push((k, v));
            }
        }
    }
    *entries = out;
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
            v.to_value(),
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
        while let Some(inner) = at
            .get("content")
            .and_then(Node::as_array)
            .and_then(|c| c.first())
        {
            at = inner;
            hops += 1;
        }
        assert_eq!(hops, usize::from(MAX_HOPS));
        let shallow =
            parse(br#"{"content":[{"content":[{"type":"tool_result","tool_use_id":"t"}]}]}"#);
        assert_eq!(
            shallow.map(|v| v.to_value()),
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
        assert_eq!(parse(b" 3 ").map(|v| v.to_value()), Some(Value::from(3)));
        assert_eq!(parse(b"1.5").map(|v| v.to_value()), Some(Value::from(1.5)));
    }

    /// What a `serde_json::Value` of the line holds under `input` (a key kept whole).
    fn as_value_does(line: &str) -> (Value, Value) {
        let ours = parse(line.as_bytes()).unwrap();
        let theirs: Value = serde_json::from_str(line).unwrap();
        (
            ours.get("input").unwrap().to_value(),
            theirs["input"].clone(),
        )
    }

    #[test]
    fn a_repeated_key_keeps_its_first_place_and_last_value() {
        let small = r#"{"input":{"a":1,"b":2,"a":3}}"#;
        let (ours, theirs) = as_value_does(small);
        assert_eq!(ours, theirs);
        assert_eq!(serde_json::to_string(&ours).unwrap(), r#"{"a":3,"b":2}"#);
        // Past the pairwise check: twelve keys, one of them three times.
        let keys: Vec<String> = (0..12).map(|i| format!("\"k{i}\":{i}")).collect();
        let large = format!(
            r#"{{"input":{{{},"k3":"x","k0":[],"k3":null}}}}"#,
            keys.join(",")
        );
        let (ours, theirs) = as_value_does(&large);
        assert_eq!(
            serde_json::to_string(&ours).unwrap(),
            serde_json::to_string(&theirs).unwrap()
        );
        // Lookups see the last value too, in a pruned object as in a whole one.
        let v = parse(br#"{"id":"first","id":"last"}"#).unwrap();
        assert_eq!(v.get("id").and_then(Node::as_str), Some("last"));
    }

    #[test]
    fn strings_with_escapes_and_every_number_read_as_a_value_does() {
        let (ours, theirs) = as_value_does(
            r#"{"input":{"s":"a\"b\u00e9\n","i":-3,"u":18446744073709551615,"f":1.5e300,"z":-0.0}}"#,
        );
        assert_eq!(ours, theirs);
    }

    fn json() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        crate::compare::canonical::json_leaf().prop_recursive(4, 40, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                proptest::collection::vec(("[a-c\"\\\\]{0,2}", inner), 0..12).prop_map(|kv| {
                    // Written by hand below, so keys may repeat.
                    Value::Array(
                        kv.into_iter()
                            .map(|(k, v)| Value::Array(vec![Value::from(k), v]))
                            .collect(),
                    )
                }),
            ]
        })
    }

    /// JSON text of `v`, where an array of `[key, value]` pairs is written as an object (keys may
    /// repeat, as they may on a raw line).
    fn text(v: &Value, out: &mut String) {
        match v {
            Value::Array(items)
                if !items.is_empty()
                    && items.iter().all(|p| {
                        p.as_array()
                            .is_some_and(|p| p.len() == 2 && p[0].is_string())
                    }) =>
            {
                out.push('{');
                for (i, p) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&p[0].to_string());
                    out.push(':');
                    text(&p[1], out);
                }
                out.push('}');
            }
            Value::Array(items) => {
                out.push('[');
                for (i, x) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    text(x, out);
                }
                out.push(']');
            }
            other => out.push_str(&other.to_string()),
        }
    }

    /// The node holds the value's entries, in its order, and nothing else (checked entry by
    /// entry, not through [`Node::to_value`], whose map would hide a repeated key).
    fn same(node: &Node<'_>, value: &Value) -> bool {
        match (node, value) {
            (Node::Object(entries), Value::Object(map)) => {
                entries.len() == map.len()
                    && entries
                        .iter()
                        .zip(map)
                        .all(|((k, v), (mk, mv))| k == mk && same(v, mv))
            }
            (Node::Array(items), Value::Array(values)) => {
                items.len() == values.len() && items.iter().zip(values).all(|(n, v)| same(n, v))
            }
            (Node::Object(_) | Node::Array(_), _) => false,
            (scalar, value) => scalar.to_value() == *value,
        }
    }

    proptest::proptest! {
        /// A value kept whole reads exactly as serde_json reads it, repeated keys included.
        #[test]
        fn a_whole_value_is_what_serde_json_reads(v in json()) {
            let mut line = String::from("{\"input\":");
            text(&v, &mut line);
            line.push('}');
            let ours = parse(line.as_bytes()).unwrap();
            let theirs: Value = serde_json::from_str(&line).unwrap();
            proptest::prop_assert!(same(ours.get("input").unwrap(), &theirs["input"]));
        }
    }
}
