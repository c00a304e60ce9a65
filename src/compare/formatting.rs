//! How an expected file that holds the right JSON value is written differently from its canonical
//! form, named in words: a byte order mark, CRLF line endings, the trailing newline, key order,
//! indentation, string escapes, number spellings. Pure text scans; the verdict (same value or
//! not) is the caller's, these only describe it.

use std::fmt;

use serde::Deserializer;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};

pub(super) const BOM: &[u8] = b"\xEF\xBB\xBF";

/// An expected file taken apart: the text a JSON parser reads (no BOM, LF line endings, one
/// trailing newline) and the invisible differences that were taken out of it, in words.
pub(super) struct Visible {
    pub text: String,
    pub notes: Vec<String>,
    pub utf8: bool,
}

/// Take the invisible differences out of an expected file's bytes, naming each.
pub(super) fn visible(expected: &[u8]) -> Visible {
    let mut notes = Vec::new();
    let utf8 = std::str::from_utf8(expected).is_ok();
    if !utf8 {
        notes.push("the expected file is not valid UTF-8".to_owned());
    }
    let text = String::from_utf8_lossy(expected);
    let mut body: &str = &text;
    if expected.starts_with(BOM) {
        notes.push("the expected file starts with a byte order mark (BOM)".to_owned());
        body = &body[3..];
    }
    let mut body = if body.contains("\r\n") {
        notes.push("the expected file uses CRLF line endings".to_owned());
        body.replace("\r\n", "\n")
    } else {
        body.to_owned()
    };
    if !body.is_empty() {
        let body_len = body.trim_end_matches('\n').len();
        let newlines = body.len() - body_len;
        if newlines == 0 {
            notes.push("the expected file has no trailing newline".to_owned());
        } else if newlines > 1 {
            notes.push(format!(
                "the expected file ends with {newlines} newlines instead of one"
            ));
        }
        body.truncate(body_len);
        body.push('\n');
    }
    Visible {
        text: body,
        notes,
        utf8,
    }
}

/// What differs between `text` (the visible expected file, which parses to the same value as
/// `canonical`) and `canonical`, in words. Never empty when the two texts differ.
pub(super) fn layout_notes(text: &str, canonical: &str) -> Vec<String> {
    let mut notes = Vec::new();
    if text == canonical {
        return notes;
    }
    if !keys_sorted(text) {
        notes.push("keys are not in sorted order".to_owned());
    }
    if let Some(indent) = indentation(text) {
        notes.push(indent);
    }
    let escapes = extra_escapes(text);
    if escapes > 0 {
        notes.push(format!(
            "{escapes} string {} escaped that canonical JSON writes as they are (\\u00e9 for é, \\/ for /)",
            if escapes == 1 { "character is" } else { "characters are" }
        ));
    }
    if minified(text) != minified(canonical) && notes.is_empty() {
        notes.push("numbers are spelled differently (1e2 for 100.0, 1.50 for 1.5)".to_owned());
    }
    if notes.is_empty() {
        notes.push("spacing differs from two-space JSON".to_owned());
    }
    notes
}

/// Whether every object's keys appear in sorted order. A text that does not parse counts as sorted
/// (its own error is reported elsewhere).
fn keys_sorted(text: &str) -> bool {
    let mut de = serde_json::Deserializer::from_str(text);
    SortedSeed.deserialize(&mut de).unwrap_or(true)
}

/// Walks a document and answers whether all its objects' keys are sorted.
struct SortedSeed;

impl<'de> DeserializeSeed<'de> for SortedSeed {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_any(SortedVisitor)
    }
}

struct SortedVisitor;

impl<'de> Visitor<'de> for SortedVisitor {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<bool, E> {
        Ok(true)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<bool, E> {
        Ok(true)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<bool, E> {
        Ok(true)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<bool, E> {
        Ok(true)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<bool, E> {
        Ok(true)
    }
    fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
        Ok(true)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        let mut sorted = true;
        while let Some(s) = seq.next_element_seed(SortedSeed)? {
            sorted &= s;
        }
        Ok(sorted)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let mut sorted = true;
        let mut last: Option<String> = None;
        while let Some(key) = map.next_key::<String>()? {
            if last.as_deref().is_some_and(|l| l > key.as_str()) {
                sorted = false;
            }
            sorted &= map.next_value_seed(SortedSeed)?;
            last = Some(key);
        }
        Ok(sorted)
    }
}

/// How the indentation differs from two spaces per level, if it does: the first indented line
/// says which unit the file uses; a document of several values on one line is "on one line".
fn indentation(text: &str) -> Option<String> {
    let mut lines = text.lines();
    let first = lines.next()?;
    let Some(line) = lines.find(|l| !l.trim().is_empty()) else {
        let nested = first.trim_end().len() > 2;
        return nested.then(|| "the document is written on one line".to_owned());
    };
    let indent: &str = &line[..line.len() - line.trim_start().len()];
    if indent == "  " {
        return None;
    }
    Some(if indent.is_empty() {
        "nested values are not indented".to_owned()
    } else if indent.chars().all(|c| c == ' ') {
        format!("indented with {} spaces, not 2", indent.len())
    } else if indent.chars().all(|c| c == '\t') {
        "indented with tabs, not 2 spaces".to_owned()
    } else {
        "indented with mixed tabs and spaces, not 2 spaces".to_owned()
    })
}

/// Escapes canonical JSON does not write: `\/`, and `\uXXXX` for a character other than a control
/// character, `"` or `\`.
fn extra_escapes(text: &str) -> usize {
    let b = text.as_bytes();
    let mut n = 0;
    let mut i = 0;
    let mut in_string = false;
    while i < b.len() {
        match b[i] {
            b'"' => in_string = !in_string,
            b'\\' if in_string => {
                match b.get(i + 1) {
                    Some(b'/') => n += 1,
                    Some(b'u') => {
                        let code = text
                            .get(i + 2..i + 6)
                            .and_then(|h| u32::from_str_radix(h, 16).ok());
                        if code.is_some_and(|c| c >= 0x20 && c != 0x22 && c != 0x5c) {
                            n += 1;
                        }
                        i += 4;
                    }
                    _ => {}
                }
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    n
}

/// The text without whitespace outside strings.
fn minified(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    for c in text.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !c.is_whitespace() {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_order_is_checked_at_every_depth() {
        assert!(keys_sorted(r#"{"a": 1, "b": {"c": [{"d": 1, "e": 2}]}}"#));
        assert!(!keys_sorted(r#"{"a": 1, "b": {"c": [{"e": 1, "d": 2}]}}"#));
        assert!(!keys_sorted(r#"{"b": 1, "a": 2}"#));
        assert!(keys_sorted("not json"));
    }

    #[test]
    fn indentation_names_the_unit() {
        assert_eq!(indentation("{\n  \"a\": 1\n}\n"), None);
        assert_eq!(
            indentation("{\n    \"a\": 1\n}\n").as_deref(),
            Some("indented with 4 spaces, not 2")
        );
        assert_eq!(
            indentation("{\n\t\"a\": 1\n}\n").as_deref(),
            Some("indented with tabs, not 2 spaces")
        );
        assert_eq!(
            indentation("{\"a\":1}\n").as_deref(),
            Some("the document is written on one line")
        );
        assert_eq!(indentation("{}\n"), None);
    }

    #[test]
    fn only_escapes_canonical_json_avoids_are_counted() {
        assert_eq!(extra_escapes(r#"{"a": "caf\u00e9 \/ \u0001 \" \\ \n"}"#), 2);
        assert_eq!(extra_escapes(r#"{"\u0041": "\\u00e9"}"#), 1);
    }

    #[test]
    fn notes_name_each_difference() {
        let canonical = "{\n  \"a\": \"é\",\n  \"b\": 1\n}\n";
        let other = "{\n    \"b\": 1,\n    \"a\": \"\\u00e9\"\n}\n";
        let notes = layout_notes(other, canonical);
        assert_eq!(notes.len(), 3, "{notes:?}");
        assert!(notes[0].contains("sorted"));
        assert!(notes[1].contains("4 spaces"));
        assert!(notes[2].starts_with("1 string character is escaped"));
        let numbers = layout_notes("{\n  \"a\": 1e2\n}\n", "{\n  \"a\": 100.0\n}\n");
        assert_eq!(numbers.len(), 1);
        assert!(numbers[0].contains("numbers"));
        let spacing = layout_notes("{\n  \"a\":  1\n}\n", "{\n  \"a\": 1\n}\n");
        assert_eq!(spacing, vec!["spacing differs from two-space JSON"]);
        assert!(layout_notes(canonical, canonical).is_empty());
    }
}
