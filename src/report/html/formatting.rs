//! The report's "Formatting" section: expected files that hold the right values, written
//! otherwise (key order, indentation, escapes, the trailing newline). One row each, never a diff;
//! `toolnorm fmt` rewrites them.

use std::io::{self, Write};

use super::MAX_TEXT_CHARS;
use crate::report::Report;
use crate::report::escape::{esc, esc_clip};

/// Rows listed at most; the rest are counted (every one is in report.json).
const MAX_ROWS: usize = 500;

/// Shown only when any expected file needs `toolnorm fmt`.
pub(super) fn section(report: &Report, w: &mut impl Write) -> io::Result<()> {
    let only = report.formatting_only();
    if only.is_empty() {
        return Ok(());
    }
    let effect = if report.summary.strict {
        "They fail the gate (strict)."
    } else {
        "Warnings: they fail the gate under <code>--strict</code>."
    };
    write!(
        w,
        "<section id=\"formatting\"><h2>Formatting</h2>\n<p>{} expected files hold the right values, formatted otherwise: \
         <code>toolnorm fmt</code> rewrites them. {effect}</p>\
         <table class=\"list\"><thead><tr><th>expected file</th><th>written otherwise</th></tr></thead><tbody>",
        only.len()
    )?;
    for f in only.iter().take(MAX_ROWS) {
        write!(
            w,
            "<tr><td><code>{}/{}.json</code></td><td>{}</td></tr>",
            esc(&f.provider),
            esc(&f.name),
            esc_clip(&f.formatting.join("; "), MAX_TEXT_CHARS)
        )?;
    }
    if only.len() > MAX_ROWS {
        write!(
            w,
            "<tr><td colspan=\"2\">… {} more (see report.json)</td></tr>",
            only.len() - MAX_ROWS
        )?;
    }
    w.write_all(b"</tbody></table></section>\n")
}
