//! TN016: titles are one short, non-empty line of text, not JSON.

use super::{Finding, RuleContext, declare_rule};

/// Longest title the UI shows without wrapping, in characters.
const MAX_TITLE_CHARS: usize = 100;

declare_rule! {
    /// ## What it checks
    /// Every `title` is non-empty, a single line, at most 100 characters, and not JSON: it does
    /// not parse as a JSON object or array, and does not start like a serialized object or array
    /// (`{"`, `["`, `[{`, also when shortened with an ellipsis). JSON-like text inside a title is
    /// fine: `Running rg '"role":"assistant"' logs/` is a command, not a dump.
    ///
    /// ## Why
    /// The title is the one line a tool row shows. A multi-line command, a 4 KB prompt or a
    /// serialized input object breaks the row layout and hides the action; an empty title leaves
    /// a blank row. Long values must be shortened (with an ellipsis) by the normalizer.
    ///
    /// ## Example
    /// Violation: `title: "{\"command\":\"ls\"}"` or a title holding a newline.
    /// Conforming: `title: "Running ls"`, `title: "Running jq '{\"a\":1}' x.json"`.
    pub(crate) struct BadTitleShape {
        code: "TN016",
        summary: "title is one non-empty line of at most 100 characters, not JSON",
        check: check,
    }
}

fn problem(title: &str) -> Option<String> {
    let trimmed = title.trim();
    if trimmed.is_empty() {
        return Some("title is empty".to_owned());
    }
    if title.contains(['\n', '\r']) {
        return Some("title spans several lines".to_owned());
    }
    let n = title.chars().count();
    if n > MAX_TITLE_CHARS {
        return Some(format!(
            "title is {n} characters long (at most {MAX_TITLE_CHARS})"
        ));
    }
    if is_json_dump(trimmed) {
        return Some("title looks like JSON".to_owned());
    }
    None
}

/// A serialized object or array: the whole title parses as one, or it opens like one (a dump
/// shortened with an ellipsis no longer parses). Quotes and colons elsewhere are ordinary text.
fn is_json_dump(trimmed: &str) -> bool {
    let opens = ["{\"", "[\"", "[{"].iter().any(|p| trimmed.starts_with(p));
    opens
        || (trimmed.starts_with(['{', '['])
            && matches!(
                serde_json::from_str::<serde_json::Value>(trimmed),
                Ok(serde_json::Value::Object(_) | serde_json::Value::Array(_))
            ))
}

fn check(cx: &RuleContext<'_>) -> Vec<Finding> {
    cx.doc
        .parts
        .iter()
        .filter_map(|p| {
            problem(&p.title).map(|msg| Finding::new(cx.first_event_line(&p.id), Some(&p.id), msg))
        })
        .collect()
}
