//! Comparing a fixture's actual normalized output with its expected file, as JSON values: the same
//! value written differently is formatting (named in words, fixed by `toolnorm fmt`); a different
//! value is a line diff of canonical JSON with word-level emphasis and the JSON pointers that
//! changed. Pure: no I/O, and deterministic: the same two documents give the same diff
//! on any machine, however loaded (the work is bounded by size, never by a clock).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use similar::{Algorithm, ChangeTag, TextDiff};

/// Lines of context around each hunk, as in `diff -u`.
const CONTEXT: usize = 3;
/// A diff of two huge, unrelated documents must not stall the gate: when the lines that differ
/// (after the common head and tail) exceed this on the two sides together, the middle is shown as
/// one replaced block instead of being diffed line by line (a coarser, still correct answer).
const MAX_DIFFED_LINES: usize = 20_000;
/// Per-fixture results stay small however large the fixture: rows, unified text and pointers beyond
/// these are dropped, and the unified text says how many lines were left out.
const MAX_ROWS: usize = 4_000;
const MAX_UNIFIED_BYTES: usize = 512 * 1024;
const MAX_PATHS: usize = 1_000;

pub(crate) mod canonical;
mod formatting;
pub mod volatile;

pub use canonical::canonical_of;
pub(crate) use canonical::map_key;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DiffTag {
    Equal,
    Delete,
    Insert,
}

/// One line of a line diff between expected and actual canonical JSON, with word-level emphasis:
/// `segments` are (emphasized, text) pieces that concatenate to the line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffRow {
    pub tag: DiffTag,
    /// 1-based line in the expected file (delete / equal rows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_line: Option<u32>,
    /// 1-based line in the actual output (insert / equal rows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_line: Option<u32>,
    pub segments: Vec<(bool, String)>,
}

/// How a fixture's actual output differs from its expected file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FixtureDiff {
    /// Unified diff text (3 lines of context), expected → actual.
    pub unified: String,
    /// RFC 6901 JSON pointers of the values that changed (`/parts/3/title`).
    pub changed_paths: Vec<String>,
    /// Differences nobody can see, named in words ("the expected file uses CRLF line endings").
    pub invisible: Vec<String>,
    /// Rows grouped in hunks with context; `None` between hunks is a gap.
    pub rows: Vec<Option<DiffRow>>,
    /// Lines added and removed.
    pub added: u32,
    pub removed: u32,
    /// Sizes of the two documents in bytes.
    pub expected_bytes: u64,
    pub actual_bytes: u64,
}

/// The canonical form of a JSON value as expected files hold it: keys sorted, two-space pretty
/// printing (serde_json's pretty layout), a trailing newline. Keys are sorted here rather than
/// relying on serde_json's map order, which a `preserve_order` feature anywhere in the build would
/// change.
pub fn canonical_json(value: &Value) -> String {
    // A `Value` always serializes: its keys are strings and its numbers finite.
    canonical_of(value).unwrap_or_default()
}

/// What comparing an expected file with the actual output found.
#[derive(Clone, Debug, PartialEq)]
pub enum Comparison {
    /// The same bytes.
    Same,
    /// The same JSON value, written differently (key order, indentation, escapes, the trailing
    /// newline, line endings, a BOM, number spellings that parse to the same number): what
    /// differs, in words. `toolnorm fmt` rewrites the file canonically.
    Formatting(Vec<String>),
    /// A different value (or an expected file that is not JSON at all).
    Differs(FixtureDiff),
}

impl Comparison {
    /// The diff, when the values differ.
    pub fn into_diff(self) -> Option<FixtureDiff> {
        match self {
            Comparison::Differs(d) => Some(d),
            Comparison::Same | Comparison::Formatting(_) => None,
        }
    }
}

/// The canonical form of an expected file's bytes (what `toolnorm fmt` writes): a BOM, CRLF line
/// endings and extra trailing newlines taken out, then the JSON value printed by
/// [`canonical_json`]. `Err` says why the bytes are not one JSON document.
pub fn canonical_file(bytes: &[u8]) -> Result<String, String> {
    let v = formatting::visible(bytes);
    if !v.utf8 {
        return Err("not valid UTF-8".to_owned());
    }
    serde_json::from_str::<Value>(&v.text)
        .map(|value| canonical_json(&value))
        .map_err(|e| format!("not valid JSON ({e})"))
}

/// Compare an expected file's bytes with the actual canonical output, as JSON values: the same
/// value written differently is [`Comparison::Formatting`], never a diff. When the values differ
/// and the expected file is not canonical too, the diff is of its canonical form, so it shows the
/// changed values and not the layout (a note says so).
pub fn compare(expected: &[u8], actual: &str) -> Comparison {
    if expected == actual.as_bytes() {
        return Comparison::Same;
    }
    let formatting::Visible {
        text: visible,
        notes: mut invisible,
        utf8,
    } = formatting::visible(expected);
    let actual_value: Option<Value> = serde_json::from_str(actual).ok();
    let expected_value = match serde_json::from_str::<Value>(&visible) {
        Ok(v) => Some(v),
        Err(e) => {
            invisible.push(format!("the expected file is not valid JSON ({e})"));
            None
        }
    };
    let mut changed_paths = Vec::new();
    let mut old_text = visible;
    if let (Some(old), Some(new)) = (&expected_value, &actual_value) {
        let canonical = canonical_json(old);
        let mut notes = invisible;
        notes.extend(formatting::layout_notes(&old_text, &canonical));
        if utf8 && old == new && canonical == actual {
            return Comparison::Formatting(notes);
        }
        changed_pointers(old, new, &mut String::new(), &mut changed_paths);
        invisible = notes;
        if canonical != old_text || !invisible.is_empty() {
            invisible.push(
                "the expected file is not canonical either: the diff is of its canonical form \
                 (run toolnorm fmt)"
                    .to_owned(),
            );
        }
        old_text = canonical;
    }

    let lines = line_diff(&old_text, actual, EXACT_HEADERS);
    Comparison::Differs(FixtureDiff {
        unified: lines.unified,
        changed_paths,
        invisible,
        rows: lines.rows,
        added: lines.added,
        removed: lines.removed,
        expected_bytes: expected.len() as u64,
        actual_bytes: actual.len() as u64,
    })
}

/// How an expected file and the actual output are compared.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CompareMode {
    /// As they are ([`compare`]): the gate over the committed corpus.
    #[default]
    Exact,
    /// Their stable forms ([`volatile::compare_stable`]): what a re-recording of the same session
    /// changes without anything having changed (timing, ids drawn per run, the order of parallel
    /// calls) is left out. `scenario drift` verifies its new recordings so.
    Stable,
}

/// Compare an expected file's bytes with the actual canonical output as `mode` says.
pub fn compare_with(mode: CompareMode, expected: &[u8], actual: &str) -> Comparison {
    match mode {
        CompareMode::Exact => compare(expected, actual),
        CompareMode::Stable => volatile::compare_stable(expected, actual),
    }
}

struct LineDiff {
    unified: String,
    rows: Vec<Option<DiffRow>>,
    added: u32,
    removed: u32,
}

/// The names of the two sides in a unified diff's header: (old, new).
type Headers = (&'static str, &'static str);

/// The headers of a diff of the documents as they are.
const EXACT_HEADERS: Headers = ("expected", "actual");

fn line_diff(old: &str, new: &str, headers: Headers) -> LineDiff {
    if let Some(coarse) = coarse_diff(old, new, headers) {
        return coarse;
    }
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Myers)
        .diff_lines(old, new);
    let (mut added, mut removed) = (0u32, 0u32);
    for op in diff.ops() {
        for change in diff.iter_changes(op) {
            match change.tag() {
                ChangeTag::Insert => added += 1,
                ChangeTag::Delete => removed += 1,
                ChangeTag::Equal => {}
            }
        }
    }

    let mut unified = diff
        .unified_diff()
        .context_radius(CONTEXT)
        .header(headers.0, headers.1)
        .to_string();
    if unified.len() > MAX_UNIFIED_BYTES {
        let cut = floor_line_boundary(&unified, MAX_UNIFIED_BYTES);
        let left = unified[cut..].lines().count();
        unified.truncate(cut);
        unified.push_str(&format!(
            "@@ {left} more lines of this diff are not shown @@\n"
        ));
    }

    let mut rows: Vec<Option<DiffRow>> = Vec::new();
    let mut shown = 0usize;
    'groups: for (i, group) in diff.grouped_ops(CONTEXT).iter().enumerate() {
        if i > 0 {
            rows.push(None);
        }
        for op in group {
            for change in diff.iter_inline_changes(op) {
                if shown >= MAX_ROWS {
                    rows.push(None);
                    break 'groups;
                }
                shown += 1;
                let tag = match change.tag() {
                    ChangeTag::Equal => DiffTag::Equal,
                    ChangeTag::Delete => DiffTag::Delete,
                    ChangeTag::Insert => DiffTag::Insert,
                };
                let mut segments: Vec<(bool, String)> = change
                    .iter_strings_lossy()
                    .map(|(emph, s)| (emph, s.into_owned()))
                    .collect();
                // Rows are lines: the terminator belongs to the file, not to the line.
                if let Some((_, last)) = segments.last_mut()
                    && last.ends_with('\n')
                {
                    last.pop();
                }
                segments.retain(|(_, s)| !s.is_empty());
                rows.push(Some(DiffRow {
                    tag,
                    old_line: change.old_index().map(|n| n as u32 + 1),
                    new_line: change.new_index().map(|n| n as u32 + 1),
                    segments,
                }));
            }
        }
    }
    LineDiff {
        unified,
        rows,
        added,
        removed,
    }
}

/// The diff of two documents whose differing middle is too large to diff line by line
/// ([`MAX_DIFFED_LINES`]): the common head and tail as context, the middle as one deletion and one
/// insertion. `None` when the middle is small enough for the real diff.
fn coarse_diff(old: &str, new: &str, headers: Headers) -> Option<LineDiff> {
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (gone, came) = (&a[head..a.len() - tail], &b[head..b.len() - tail]);
    if gone.len() + came.len() <= MAX_DIFFED_LINES {
        return None;
    }
    let before = head.saturating_sub(CONTEXT);
    let after = (a.len() - tail + CONTEXT).min(a.len());
    let after_new = (b.len() - tail + CONTEXT).min(b.len());
    let row = |tag, old_line: Option<usize>, new_line: Option<usize>, text: &str| DiffRow {
        tag,
        old_line: old_line.map(|n| n as u32 + 1),
        new_line: new_line.map(|n| n as u32 + 1),
        segments: vec![(false, text.strip_suffix('\n').unwrap_or(text).to_owned())]
            .into_iter()
            .filter(|(_, s)| !s.is_empty())
            .collect(),
    };
    let mut unified = format!(
        "--- {}\n+++ {}\n@@ -{},{} +{},{} @@\n",
        headers.0,
        headers.1,
        before + 1,
        after - before,
        before + 1,
        after_new - before
    );
    let mut rows = Vec::new();
    let mut push = |prefix: char, r: DiffRow, text: &str| {
        if unified.len() < MAX_UNIFIED_BYTES {
            unified.push(prefix);
            unified.push_str(text);
            if !text.ends_with('\n') {
                unified.push_str("\n\\ No newline at end of file\n");
            }
        }
        if rows.len() < MAX_ROWS {
            rows.push(Some(r));
        }
    };
    for (i, text) in a.iter().enumerate().take(head).skip(before) {
        push(' ', row(DiffTag::Equal, Some(i), Some(i), text), text);
    }
    for (k, text) in gone.iter().enumerate() {
        push('-', row(DiffTag::Delete, Some(head + k), None, text), text);
    }
    for (k, text) in came.iter().enumerate() {
        push('+', row(DiffTag::Insert, None, Some(head + k), text), text);
    }
    let shift = b.len() as isize - a.len() as isize;
    for (i, text) in a.iter().enumerate().take(after).skip(a.len() - tail) {
        let j = (i as isize + shift) as usize;
        push(' ', row(DiffTag::Equal, Some(i), Some(j), text), text);
    }
    if rows.len() >= MAX_ROWS {
        rows.push(None);
    }
    if unified.len() >= MAX_UNIFIED_BYTES {
        let cut = floor_line_boundary(&unified, MAX_UNIFIED_BYTES);
        unified.truncate(cut);
        unified.push_str("@@ the rest of this diff is not shown @@\n");
    }
    Some(LineDiff {
        unified,
        rows,
        added: came.len() as u32,
        removed: gone.len() as u32,
    })
}

fn floor_line_boundary(s: &str, max: usize) -> usize {
    let mut cut = max.min(s.len());
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    s[..cut].rfind('\n').map_or(0, |i| i + 1)
}

/// RFC 6901 pointers of the values that differ between `old` and `new`, in document order. An
/// array element present on one side only is a change at its index; a value whose type changed is
/// one change, not one per leaf.
pub fn changed_pointers(old: &Value, new: &Value, at: &mut String, out: &mut Vec<String>) {
    if out.len() >= MAX_PATHS || old == new {
        return;
    }
    match (old, new) {
        (Value::Object(a), Value::Object(b)) => {
            let mut keys: Vec<&String> = a
                .keys()
                .chain(b.keys().filter(|k| !a.contains_key(*k)))
                .collect();
            keys.sort();
            for key in keys {
                let len = at.len();
                at.push('/');
                push_escaped(at, key);
                match (a.get(key), b.get(key)) {
                    (Some(x), Some(y)) => changed_pointers(x, y, at, out),
                    _ => push_path(out, at),
                }
                at.truncate(len);
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for i in 0..a.len().max(b.len()) {
                let len = at.len();
                at.push('/');
                at.push_str(&i.to_string());
                match (a.get(i), b.get(i)) {
                    (Some(x), Some(y)) => changed_pointers(x, y, at, out),
                    _ => push_path(out, at),
                }
                at.truncate(len);
            }
        }
        _ => push_path(out, at),
    }
}

fn push_path(out: &mut Vec<String>, at: &str) {
    if out.len() < MAX_PATHS {
        out.push(at.to_owned());
    }
}

fn push_escaped(at: &mut String, key: &str) {
    for c in key.chars() {
        match c {
            '~' => at.push_str("~0"),
            '/' => at.push_str("~1"),
            c => at.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn canonical_sorts_keys_and_matches_serde_pretty_layout() {
        let v = json!({"b": [1, {"z": null, "a": "x\"y"}], "a": {}, "c": []});
        let text = canonical_json(&v);
        assert_eq!(
            text,
            "{\n  \"a\": {},\n  \"b\": [\n    1,\n    {\n      \"a\": \"x\\\"y\",\n      \"z\": null\n    }\n  ],\n  \"c\": []\n}\n"
        );
        // Same bytes as serde_json's pretty printer over a sorted map.
        let sorted: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            format!("{}\n", serde_json::to_string_pretty(&sorted).unwrap()),
            text
        );
    }

    #[test]
    fn identical_bytes_are_no_diff() {
        let text = canonical_json(&json!({"a": 1}));
        assert_eq!(compare(text.as_bytes(), &text), Comparison::Same);
    }

    fn diff(expected: &[u8], actual: &str) -> FixtureDiff {
        match compare(expected, actual) {
            Comparison::Differs(d) => d,
            other => panic!("expected a diff, got {other:?}"),
        }
    }

    fn formatting(expected: &[u8], actual: &str) -> Vec<String> {
        match compare(expected, actual) {
            Comparison::Formatting(notes) => notes,
            other => panic!("expected formatting, got {other:?}"),
        }
    }

    #[test]
    fn a_changed_title_is_a_line_diff_with_word_emphasis_and_a_pointer() {
        let old = canonical_json(&json!({"parts": [{"id": "1", "title": "Read src/main.rs"}]}));
        let new = canonical_json(&json!({"parts": [{"id": "1", "title": "Read src/lib.rs"}]}));
        let d = diff(old.as_bytes(), &new);
        assert_eq!(d.changed_paths, vec!["/parts/0/title"]);
        assert_eq!((d.added, d.removed), (1, 1));
        assert!(d.invisible.is_empty());
        assert!(
            d.unified.contains("-      \"title\": \"Read src/main.rs\""),
            "{}",
            d.unified
        );
        assert!(
            d.unified.contains("+      \"title\": \"Read src/lib.rs\""),
            "{}",
            d.unified
        );
        let deleted = d
            .rows
            .iter()
            .flatten()
            .find(|r| r.tag == DiffTag::Delete)
            .unwrap();
        assert!(
            deleted
                .segments
                .iter()
                .any(|(emph, s)| *emph && s.contains("main")),
            "{deleted:?}"
        );
        let whole: String = deleted.segments.iter().map(|(_, s)| s.as_str()).collect();
        assert_eq!(whole, "      \"title\": \"Read src/main.rs\"");
    }

    #[test]
    fn hunks_are_separated_by_gaps() {
        let old: Vec<Value> = (0..40).map(|i| json!(i)).collect();
        let mut new = old.clone();
        new[2] = json!("two");
        new[35] = json!("thirty-five");
        let d = diff(
            canonical_json(&json!(old)).as_bytes(),
            &canonical_json(&json!(new)),
        );
        assert_eq!(d.rows.iter().filter(|r| r.is_none()).count(), 1);
        assert_eq!(d.changed_paths, vec!["/2", "/35"]);
    }

    #[test]
    fn invisible_differences_are_formatting_named_in_words() {
        let actual = canonical_json(&json!({"a": 1, "b": 2}));
        let crlf = actual.replace('\n', "\r\n");
        assert_eq!(
            formatting(crlf.as_bytes(), &actual),
            vec!["the expected file uses CRLF line endings"]
        );
        assert_eq!(
            formatting(actual.trim_end().as_bytes(), &actual),
            vec!["the expected file has no trailing newline"]
        );
        let mut bom = b"\xEF\xBB\xBF".to_vec();
        bom.extend_from_slice(actual.as_bytes());
        assert_eq!(
            formatting(&bom, &actual),
            vec!["the expected file starts with a byte order mark (BOM)"]
        );
        assert_eq!(
            formatting(format!("{actual}\n").as_bytes(), &actual),
            vec!["the expected file ends with 2 newlines instead of one"]
        );
    }

    #[test]
    fn the_same_value_written_otherwise_is_formatting_not_a_diff() {
        let actual = canonical_json(&json!({"a": "café", "b": [1.5, 100.0], "c": {"d": null}}));
        let other =
            "{\n    \"c\": {\"d\": null},\n    \"b\": [1.50, 1e2],\n    \"a\": \"caf\\u00e9\"\n}";
        let notes = formatting(other.as_bytes(), &actual);
        let all = notes.join("; ");
        for word in ["trailing newline", "sorted", "4 spaces", "escaped"] {
            assert!(all.contains(word), "{word} missing from {all}");
        }
        assert_eq!(
            canonical_file(other.as_bytes()).as_deref(),
            Ok(actual.as_str())
        );
        // An integer where a float was is another value, not another spelling.
        let d = diff(b"{\"a\": 1}\n", &canonical_json(&json!({"a": 1.0})));
        assert_eq!(d.changed_paths, vec!["/a"]);
    }

    #[test]
    fn a_real_change_in_a_reformatted_file_is_a_diff_of_the_canonical_form() {
        let old = "{\n    \"b\": 2,\n    \"a\": 1\n}";
        let actual = canonical_json(&json!({"a": 1, "b": 3}));
        let d = diff(old.as_bytes(), &actual);
        assert_eq!(d.changed_paths, vec!["/b"]);
        assert_eq!((d.added, d.removed), (1, 1), "{}", d.unified);
        assert!(
            d.unified.contains("-  \"b\": 2\n+  \"b\": 3\n"),
            "{}",
            d.unified
        );
        assert!(
            d.invisible.iter().any(|n| n.contains("toolnorm fmt")),
            "{:?}",
            d.invisible
        );
        assert!(canonical_file(b"{\"a\": ").is_err());
        assert!(canonical_file(b"\xff").is_err());
    }

    #[test]
    fn invalid_expected_json_is_named() {
        let actual = canonical_json(&json!({"a": 1}));
        let d = diff(b"{\"a\": \n", &actual);
        assert!(
            d.invisible[0].starts_with("the expected file is not valid JSON"),
            "{:?}",
            d.invisible
        );
    }

    #[test]
    fn pointers_escape_and_report_added_and_removed() {
        let old = json!({"a/b": {"x~": 1}, "gone": true, "list": [1, 2, 3]});
        let new = json!({"a/b": {"x~": 2}, "new": null, "list": [1, 2]});
        let mut out = Vec::new();
        changed_pointers(&old, &new, &mut String::new(), &mut out);
        assert_eq!(out, vec!["/a~1b/x~0", "/gone", "/list/2", "/new"]);
    }

    #[test]
    fn a_type_change_is_one_pointer() {
        let mut out = Vec::new();
        changed_pointers(
            &json!({"a": {"b": 1}}),
            &json!({"a": [1]}),
            &mut String::new(),
            &mut out,
        );
        assert_eq!(out, vec!["/a"]);
    }

    #[test]
    fn a_huge_unrelated_middle_is_one_replaced_block_whatever_the_machine() {
        let old: String = (0..15_000).map(|i| format!("  \"a{i}\": {i},\n")).collect();
        let new: String = (0..15_000).map(|i| format!("  \"b{i}\": {i},\n")).collect();
        let (old, new) = (format!("{{\n{old}}}\n"), format!("{{\n{new}}}\n"));
        let d = diff(old.as_bytes(), &new);
        assert_eq!((d.removed, d.added), (15_000, 15_000));
        assert!(
            d.unified
                .starts_with("--- expected\n+++ actual\n@@ -1,15002 +1,15002 @@\n {\n")
        );
        assert!(
            d.unified.len() <= MAX_UNIFIED_BYTES + 64,
            "{}",
            d.unified.len()
        );
        assert_eq!(
            d.rows.len(),
            MAX_ROWS + 1,
            "rows are capped, with a gap marker"
        );
        assert_eq!(d.rows[0].as_ref().unwrap().tag, DiffTag::Equal);
        assert_eq!(d.rows[1].as_ref().unwrap().old_line, Some(2));
        // The same inputs give the same diff, always.
        assert_eq!(compare(old.as_bytes(), &new), Comparison::Differs(d));
    }

    #[test]
    fn a_small_change_in_a_large_document_is_still_diffed_line_by_line() {
        let old: String = (0..30_000).map(|i| format!("  \"a{i}\": {i},\n")).collect();
        let new = old.replacen("\"a7\": 7", "\"a7\": 8", 1);
        let d = diff(old.as_bytes(), &new);
        assert_eq!((d.removed, d.added), (1, 1));
        assert!(
            d.unified.contains("-  \"a7\": 7,\n+  \"a7\": 8,\n"),
            "{}",
            d.unified
        );
    }
}
