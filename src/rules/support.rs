//! Small helpers the rules share: the index of a document's events by part, identifier comparison
//! that ignores case and separators, walking JSON values, and a value as a message shows it.

use std::borrow::Cow;

use serde_json::Value;

use crate::model::{NormalizedDocument, PartEvent};

/// The rules' hash maps: the core's (a keyed hash several times cheaper than SipHash on the
/// short ids the rules look up for every part and event). Build one with `default()`.
pub(crate) use crate::hash::{HashMap, HashSet};

/// Positions of each part's events in a document, by part id: most rules look up every part's
/// events, and a scan of all events per part would be quadratic on large fixtures.
#[derive(Debug, Default)]
pub(crate) struct EventIndex(HashMap<String, Vec<usize>>);

impl EventIndex {
    pub(crate) fn of(doc: &NormalizedDocument) -> Self {
        let mut index: HashMap<String, Vec<usize>> = HashMap::default();
        index.reserve(doc.parts.len());
        for (i, e) in doc.events.iter().enumerate() {
            index.entry(e.part_id.clone()).or_default().push(i);
        }
        EventIndex(index)
    }

    /// The events of one part of `doc` (the document indexed), in stream order.
    pub(crate) fn events<'d>(
        &'d self,
        doc: &'d NormalizedDocument,
        id: &str,
    ) -> impl Iterator<Item = &'d PartEvent> {
        self.0
            .get(id)
            .into_iter()
            .flatten()
            .filter_map(|&i| doc.events.get(i))
    }
}

/// An identifier reduced to lowercase alphanumerics, so `web_search`, `webSearch` and `WebSearch`
/// compare equal.
pub(crate) fn ident(s: &str) -> String {
    ident_bytes(s).map(char::from).collect()
}

fn ident_bytes(s: &str) -> impl Iterator<Item = u8> + '_ {
    // No byte of a character past ASCII is an ASCII alphanumeric: going by bytes keeps what going
    // by characters keeps.
    s.bytes()
        .filter(u8::is_ascii_alphanumeric)
        .map(|b| b.to_ascii_lowercase())
}

/// Whether `a` and `b` are the same [`ident`], without making either (a title is long; the
/// comparison ends at the first difference).
pub(crate) fn same_ident(a: &str, b: &str) -> bool {
    ident_bytes(a).eq(ident_bytes(b))
}

/// Whether `s`'s [`ident`] is empty.
pub(crate) fn ident_is_empty(s: &str) -> bool {
    ident_bytes(s).next().is_none()
}

/// Every string inside a JSON value (object keys excluded).
pub(crate) fn string_leaves<'v>(v: &'v Value, out: &mut Vec<&'v str>) {
    match v {
        Value::String(s) => out.push(s),
        Value::Array(a) => a.iter().for_each(|x| string_leaves(x, out)),
        Value::Object(m) => m.values().for_each(|x| string_leaves(x, out)),
        _ => {}
    }
}

/// True when `needle` is `hay` or occurs anywhere inside it.
pub(crate) fn contains_value(hay: &Value, needle: &Value) -> bool {
    if hay == needle {
        return true;
    }
    match hay {
        Value::Array(a) => a.iter().any(|x| contains_value(x, needle)),
        Value::Object(m) => m.values().any(|x| contains_value(x, needle)),
        _ => false,
    }
}

/// True when some object inside `hay` has `key` with a value equal to `needle`.
pub(crate) fn contains_entry(hay: &Value, key: &str, needle: &Value) -> bool {
    match hay {
        Value::Object(m) => {
            m.get(key) == Some(needle) || m.values().any(|x| contains_entry(x, key, needle))
        }
        Value::Array(a) => a.iter().any(|x| contains_entry(x, key, needle)),
        _ => false,
    }
}

/// A JSON value as a message shows it: a string as it is, anything else as compact JSON (shorten
/// it with [`crate::text::one_line`]).
pub(crate) fn value_text(v: &Value) -> Cow<'_, str> {
    match v {
        Value::String(s) => Cow::Borrowed(s),
        other => Cow::Owned(other.to_string()),
    }
}

#[cfg(test)]
mod ident_tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn same_ident_ignores_case_separators_and_non_ascii() {
        assert!(same_ident("web_search", "WebSearch"));
        assert!(same_ident("Running ls", "running-LS é"));
        assert!(!same_ident("Bash", "bash2"));
        assert!(!same_ident("Bash", "Bas"));
        assert!(ident_is_empty("_ é-…"));
        assert!(!ident_is_empty("é1"));
    }

    proptest! {
        #[test]
        fn same_ident_is_equality_of_idents(a in "[a-zA-Z0-9_ é…-]{0,12}", b in "[a-zA-Z0-9_ é…-]{0,12}") {
            prop_assert_eq!(same_ident(&a, &b), ident(&a) == ident(&b));
            let respelled = format!("_{}-é", a.to_ascii_uppercase());
            prop_assert!(same_ident(&a, &respelled));
            prop_assert_eq!(ident_is_empty(&a), ident(&a).is_empty());
        }
    }
}
