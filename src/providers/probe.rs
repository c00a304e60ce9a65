//! A cheap first look at one line, for the dialects' sniffers: its top-level keys with their values
//! left unparsed (nested values are skipped, never materialised), so detection stays cheap next to
//! normalization itself. The probe knows no dialect; each dialect's sniffer asks it for the keys
//! that dialect is recognised by.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, MapAccess, Visitor};
use serde_json::value::RawValue;

/// The top-level keys of one JSON object line.
#[derive(Debug, Default)]
pub struct Probe<'a> {
    fields: Vec<(Cow<'a, str>, &'a RawValue)>,
    /// The line came as a server-sent event (`data: {...}`).
    pub sse: bool,
}

#[derive(Deserialize)]
struct Key<'a>(#[serde(borrow)] Cow<'a, str>);

impl<'a> Probe<'a> {
    /// Look at one line: `None` unless it is a JSON object (optionally behind an SSE `data:`).
    pub fn parse(text: &'a str) -> Option<Probe<'a>> {
        let trimmed = text.trim();
        let (json, sse) = match trimmed.strip_prefix("data:") {
            Some(rest) => (rest.trim_start(), text.trim_start().starts_with("data:")),
            None => (trimmed, false),
        };
        let mut probe: Probe<'a> = serde_json::from_str(json).ok()?;
        probe.sse = sse;
        Some(probe)
    }

    /// The raw value of a top-level key; `null` counts as absent.
    pub fn get(&self, key: &str) -> Option<&'a RawValue> {
        self.fields
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| *v)
            .filter(|v| v.get() != "null")
    }

    /// The raw value of a top-level key as written, `null` included.
    pub fn raw(&self, key: &str) -> Option<&'a RawValue> {
        self.fields.iter().find(|(k, _)| k == key).map(|(_, v)| *v)
    }

    /// True when the key is present and not `null`.
    pub fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The key's value when it is a string.
    pub fn str(&self, key: &str) -> Option<Cow<'a, str>> {
        #[derive(Deserialize)]
        struct Text<'a>(#[serde(borrow)] Cow<'a, str>);
        let raw = self.get(key)?;
        serde_json::from_str::<Text<'a>>(raw.get())
            .ok()
            .map(|t| t.0)
    }

    /// The top-level keys, in the order the line writes them.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.fields.iter().map(|(k, _)| k.as_ref())
    }

    /// The key's value when it is an object that has `inner` (not `null`).
    pub fn nested_has(&self, key: &str, inner: &str) -> bool {
        self.get(key)
            .and_then(|raw| Probe::parse(raw.get()))
            .is_some_and(|p| p.has(inner))
    }

    /// The `type` field as text (`""` when absent or not a string).
    pub fn ty(&self) -> Cow<'a, str> {
        self.str("type").unwrap_or(Cow::Borrowed(""))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Probe<'a> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Fields<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for Fields<'a> {
            type Value = Probe<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Probe<'a>, M::Error> {
                let mut fields = Vec::new();
                while let Some(Key(k)) = map.next_key::<Key<'de>>()? {
                    let v: &'de RawValue = map.next_value()?;
                    fields.push((k, v));
                }
                Ok(Probe { fields, sse: false })
            }
        }
        d.deserialize_map(Fields(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_top_level_keys_and_sse_lines() {
        let p = Probe::parse(r#"data: {"type":"item.started","properties":{"a":[1,2]},"x":null}"#)
            .expect("an object");
        assert!(p.sse);
        assert_eq!(p.ty(), "item.started");
        assert!(p.has("properties"));
        assert!(!p.has("x"), "null counts as absent");
        assert!(p.nested_has("properties", "a"));
        assert!(Probe::parse("[1,2]").is_none());
        assert!(Probe::parse("not json").is_none());
    }
}
