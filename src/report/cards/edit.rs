//! A file edit's change as a diff, from what its input carries: old and new text
//! (`old_string`/`new_string`, `oldString`/`newString`, `old_str`/`new_str`, a list of such
//! `edits`), or a unified diff (Codex's `changes`, by path or as a list). Nothing is read from
//! disk; an input with none of these draws no diff.

use std::io::{self, Write};

use serde_json::{Map, Value};
use similar::{ChangeTag, TextDiff};

use super::super::escape::esc_clip;
use crate::text::thousands;

/// Diff lines drawn at most per edit (the rest counted).
const MAX_DIFF_LINES: usize = 400;
/// Characters of one diff line drawn at most.
const MAX_LINE_CHARS: usize = 1_000;

const PAIRS: [(&str, &str); 3] = [
    ("old_string", "new_string"),
    ("oldString", "newString"),
    ("old_str", "new_str"),
];

/// One change of a file: a path (when known) and its diff lines as (sign, text).
struct Change {
    path: Option<String>,
    lines: Vec<(char, String)>,
}

/// The changes an edit's input describes.
fn changes(input: &Value) -> Vec<Change> {
    let Some(o) = input.as_object() else {
        return Vec::new();
    };
    let path = ["file_path", "filePath", "path", "notebook_path"]
        .iter()
        .find_map(|k| o.get(*k).and_then(Value::as_str))
        .map(str::to_owned);
    if let Some(c) = pair(o, path.clone()) {
        return vec![c];
    }
    if let Some(edits) = o.get("edits").and_then(Value::as_array) {
        return edits
            .iter()
            .filter_map(|e| pair(e.as_object()?, path.clone()))
            .collect();
    }
    match o.get("changes") {
        Some(Value::Object(by_path)) => by_path
            .iter()
            .filter_map(|(p, c)| unified(Some(p.clone()), c))
            .collect(),
        Some(Value::Array(list)) => list
            .iter()
            .filter_map(|c| {
                let p = c.get("path").and_then(Value::as_str).map(str::to_owned);
                unified(p, c)
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Old and new text under one of [`PAIRS`], as a line diff.
fn pair(o: &Map<String, Value>, path: Option<String>) -> Option<Change> {
    let (old, new) = PAIRS
        .iter()
        .find_map(|(a, b)| Some((o.get(*a)?.as_str()?, o.get(*b)?.as_str()?)))?;
    let diff = TextDiff::from_lines(old, new);
    let lines = diff
        .iter_all_changes()
        .map(|c| {
            let sign = match c.tag() {
                ChangeTag::Delete => '-',
                ChangeTag::Insert => '+',
                ChangeTag::Equal => ' ',
            };
            (sign, c.value().trim_end_matches('\n').to_owned())
        })
        .collect();
    Some(Change { path, lines })
}

/// A change carrying a unified diff (`unified_diff` or `diff`): its lines as they are.
fn unified(path: Option<String>, c: &Value) -> Option<Change> {
    let text = ["unified_diff", "diff"]
        .iter()
        .find_map(|k| c.get(*k).and_then(Value::as_str))?;
    let lines = text
        .lines()
        .filter(|l| !l.starts_with("+++") && !l.starts_with("---"))
        .map(|l| {
            let sign = l
                .chars()
                .next()
                .filter(|c| matches!(c, '+' | '-' | '@'))
                .unwrap_or(' ');
            let body = if sign == ' ' {
                l.strip_prefix(' ').unwrap_or(l)
            } else {
                &l[1..]
            };
            (sign, body.to_owned())
        })
        .collect();
    Some(Change { path, lines })
}

/// The edit's diff as an open `<details>`, or nothing when its input carries none.
pub fn section(input: &Value, changed: bool, w: &mut impl Write) -> io::Result<()> {
    let changes = changes(input);
    if changes.is_empty() {
        return Ok(());
    }
    let (add, del) = changes
        .iter()
        .flat_map(|c| &c.lines)
        .fold((0, 0), |(a, d), (s, _)| {
            (a + usize::from(*s == '+'), d + usize::from(*s == '-'))
        });
    write!(
        w,
        "<details class=\"sec s-diff{}\" open><summary>diff <span class=\"chip add\">+{}</span> <span class=\"chip del\">\u{2212}{}</span></summary>",
        if changed { " chg" } else { "" },
        thousands(add as u64),
        thousands(del as u64)
    )?;
    for c in &changes {
        if let Some(p) = &c.path {
            write!(w, "<div class=\"ed-path\">{}</div>", esc_clip(p, 500))?;
        }
        w.write_all(b"<pre class=\"ed\">")?;
        for (sign, text) in c.lines.iter().take(MAX_DIFF_LINES) {
            let class = match sign {
                '+' => "a",
                '-' => "d",
                '@' => "h",
                _ => "e",
            };
            write!(
                w,
                "<span class=\"{class}\">{sign}{}</span>",
                esc_clip(text, MAX_LINE_CHARS)
            )?;
        }
        if c.lines.len() > MAX_DIFF_LINES {
            write!(
                w,
                "<span class=\"clip\">\u{2026} {} more lines</span>",
                thousands((c.lines.len() - MAX_DIFF_LINES) as u64)
            )?;
        }
        w.write_all(b"</pre>")?;
    }
    w.write_all(b"</details>")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn drawn(input: Value) -> String {
        let mut out = Vec::new();
        section(&input, false, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn old_and_new_text_become_a_line_diff() {
        for (a, b) in PAIRS {
            let html = drawn(json!({"file_path": "src/a.rs", a: "one\ntwo\n", b: "one\n2\n"}));
            assert!(html.contains("<span class=\"e\"> one</span>"), "{html}");
            assert!(html.contains("<span class=\"d\">-two</span>"), "{html}");
            assert!(html.contains("<span class=\"a\">+2</span>"), "{html}");
            assert!(html.contains("+1</span> <span class=\"chip del\">\u{2212}1"));
        }
    }

    #[test]
    fn codex_changes_show_their_unified_diff_and_edits_each_pair() {
        let html = drawn(
            json!({"changes": {"a.txt": {"type": "update", "unified_diff": "@@ -1 +1 @@\n-x\n+<y>\n"}}}),
        );
        assert!(html.contains("<div class=\"ed-path\">a.txt</div>"));
        assert!(
            html.contains("<span class=\"a\">+&lt;y&gt;</span>"),
            "{html}"
        );
        let html = drawn(
            json!({"file_path": "f", "edits": [{"old_string": "a", "new_string": "b"}, {"old_string": "c", "new_string": "d"}]}),
        );
        assert_eq!(html.matches("class=\"ed-path\"").count(), 2);
    }

    #[test]
    fn no_old_and_new_text_draws_nothing() {
        assert_eq!(drawn(json!({"content": "x", "file_path": "f"})), "");
        assert_eq!(drawn(json!("text")), "");
        assert_eq!(
            drawn(json!({"changes": [{"kind": "add", "path": "p"}]})),
            ""
        );
    }
}
