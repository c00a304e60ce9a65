//! The scans' parse as it was first written, through serde_json's own deserializer: the oracle the
//! hand-written parser ([`super::parser`]) is held to (what one refuses the other refuses, what one
//! reads the other reads).

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Number;
use serde_json::value::RawValue;

use super::{Keep, MAX_HOPS, Node, dedupe, is_notice, keep};

/// Parse `bytes` as JSON, keeping only what the scans read (see the module's documentation).
pub(super) fn parse(bytes: &[u8]) -> Option<Node<'_>> {
    // A line checked as UTF-8 once, in one pass, is read as text: serde_json then does not check
    // each string it reads on its own (the same values, at a fraction of the cost). A line that
    // is not UTF-8 is read as bytes, so that what is rejected stays the same.
    match std::str::from_utf8(bytes) {
        Ok(text) => run(serde_json::Deserializer::from_str(text), false),
        Err(_) => run(serde_json::Deserializer::from_slice(bytes), false),
    }
}

/// Parse `text` as JSON, keeping all of it (a call's arguments given as a JSON string).
pub(super) fn parse_whole(text: &str) -> Option<Node<'_>> {
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
                Keep::Notice => {
                    let raw = map.next_value::<&'de RawValue>()?;
                    if !(raw.get().starts_with('"') && is_notice(raw.get().as_bytes())) {
                        continue;
                    }
                    Pruned {
                        hops: 0,
                        whole: false,
                    }
                    .deserialize(&mut serde_json::Deserializer::from_str(raw.get()))
                    .map_err(de::Error::custom)?
                }
                Keep::NoString => {
                    // Seen as raw text first: a long string is skipped, never unescaped.
                    let raw = map.next_value::<&'de RawValue>()?;
                    match raw.get().as_bytes().first() {
                        Some(b'"') if !is_notice(raw.get().as_bytes()) => Node::Null,
                        Some(b'"') => Pruned {
                            hops: 0,
                            whole: false,
                        }
                        .deserialize(&mut serde_json::Deserializer::from_str(raw.get()))
                        .map_err(de::Error::custom)?,
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
