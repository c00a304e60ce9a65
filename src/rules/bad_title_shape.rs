//! TN016: titles are one short, non-empty line of text, not JSON.

use super::{Finding, RuleContext, declare_rule};

/// Longest title the UI shows without wrapping, in characters.
const MAX_TITLE_CHARS: usize = 100;

declare_rule! {
    /// ## What it checks
    /// Every `title` is non-empty, a single line, at most 100 characters, and not JSON (it does
    /// not start with `{` or `[` and holds no `":"`).
    ///
    /// ## Why
    /// The title is the one line a tool row shows. A multi-line command, a 4 KB prompt or a
    /// serialized input object breaks the row layout and hides the action; an empty title leaves
    /// a blank row. Long values must be shortened (with an ellipsis) by the normalizer.
    ///
    /// ## Example
    /// Violation: `title: "{\"command\":\"ls\"}"` or a title holding a newline.
    /// Conforming: `title: "Running ls"`.
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
    if trimmed.starts_with('{') || trimmed.starts_with('[') || title.contains("\":\"") {
        return Some("title looks like JSON".to_owned());
    }
    None
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
