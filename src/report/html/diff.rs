//! The diff of one fixture in the HTML report: side-by-side and inline tables with word-level
//! emphasis, bounded in rows and line length.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::{self, Write};

use super::{
    LARGE_DIFF_LINES, MAX_DIFF_ROWS, MAX_LINE_CHARS, MAX_TEXT_CHARS, bytes, esc, esc_clip,
};
use crate::report::*;
use crate::text::thousands;

pub(super) fn diff(index: usize, d: &FixtureDiff, w: &mut impl Write) -> io::Result<()> {
    write!(
        w,
        "<h4>Diff <span class=\"muted\">expected \u{2192} actual · {} \u{2192} {}</span></h4>",
        bytes(d.expected_bytes),
        bytes(d.actual_bytes)
    )?;
    if !d.changed_paths.is_empty() {
        w.write_all(b"<div class=\"paths\"><span class=\"muted\">changed</span> ")?;
        for p in d.changed_paths.iter().take(200) {
            write!(w, "<code>{}</code> ", esc_clip(p, 300))?;
        }
        if d.changed_paths.len() > 200 {
            write!(
                w,
                "<span class=\"muted\">… {} more</span>",
                thousands(d.changed_paths.len() as u64 - 200)
            )?;
        }
        w.write_all(b"</div>")?;
    }
    if !d.invisible.is_empty() {
        w.write_all(b"<ul class=\"invisible\">")?;
        for i in &d.invisible {
            write!(w, "<li>{}</li>", esc_clip(i, MAX_TEXT_CHARS))?;
        }
        w.write_all(b"</ul>")?;
    }
    if d.rows.is_empty() {
        return Ok(());
    }
    let changed = d.added as u64 + d.removed as u64;
    let large = changed > LARGE_DIFF_LINES as u64;
    if large {
        write!(
            w,
            "<details class=\"big\"><summary>{} changed lines \u{2014} <span class=\"closed\">show</span><span class=\"opened\">hide</span></summary>",
            thousands(changed)
        )?;
    }
    let rows = &d.rows[..d.rows.len().min(MAX_DIFF_ROWS)];
    write!(
        w,
        "<div class=\"diffview\"><input type=\"radio\" name=\"view-{index}\" id=\"v{index}s\" class=\"v-split\" checked>\
         <label for=\"v{index}s\">side by side</label><input type=\"radio\" name=\"view-{index}\" id=\"v{index}i\" class=\"v-inline\">\
         <label for=\"v{index}i\">inline</label>"
    )?;
    split_table(rows, w)?;
    inline_table(rows, w)?;
    if d.rows.len() > MAX_DIFF_ROWS {
        write!(
            w,
            "<p class=\"clip\">{} more diff rows not shown: see <code>report.json</code> or the pending output.</p>",
            thousands((d.rows.len() - MAX_DIFF_ROWS) as u64)
        )?;
    }
    w.write_all(b"</div>")?;
    if large {
        w.write_all(b"</details>")?;
    }
    Ok(())
}

/// A line's text with word-level emphasis, clipped.
fn segments(row: &DiffRow) -> String {
    let mut out = String::new();
    let mut left = MAX_LINE_CHARS;
    let total: usize = row.segments.iter().map(|(_, s)| s.chars().count()).sum();
    for (emph, text) in &row.segments {
        if left == 0 {
            break;
        }
        let n = text.chars().count();
        let piece: Cow<'_, str> = if n > left {
            let end = text
                .char_indices()
                .nth(left)
                .map(|(i, _)| i)
                .unwrap_or(text.len());
            Cow::Borrowed(&text[..end])
        } else {
            Cow::Borrowed(text.as_str())
        };
        left = left.saturating_sub(n);
        if *emph && row.tag != DiffTag::Equal {
            let _ = write!(out, "<span class=\"em\">{}</span>", esc(&piece));
        } else {
            out.push_str(&esc(&piece));
        }
    }
    if total > MAX_LINE_CHARS {
        let _ = write!(
            out,
            "<span class=\"clip\">… {} more characters</span>",
            thousands((total - MAX_LINE_CHARS) as u64)
        );
    }
    out
}

fn ln(n: Option<u32>) -> String {
    n.map(|n| n.to_string()).unwrap_or_default()
}

fn gap(cols: usize, w: &mut impl Write) -> io::Result<()> {
    write!(
        w,
        "<tr class=\"gap\"><td colspan=\"{cols}\">\u{22EF}</td></tr>"
    )
}

fn split_table(rows: &[Option<DiffRow>], w: &mut impl Write) -> io::Result<()> {
    w.write_all(b"<table class=\"diff d-split\"><colgroup><col class=\"lnc\"><col class=\"half\"><col class=\"lnc\"><col class=\"half\"></colgroup><tbody>")?;
    let mut i = 0;
    while i < rows.len() {
        match &rows[i] {
            None => {
                gap(4, w)?;
                i += 1;
            }
            Some(r) if r.tag == DiffTag::Equal => {
                let text = segments(r);
                write!(
                    w,
                    "<tr><td class=\"ln\">{}</td><td class=\"c\">{text}</td><td class=\"ln\">{}</td><td class=\"c\">{text}</td></tr>",
                    ln(r.old_line),
                    ln(r.new_line)
                )?;
                i += 1;
            }
            Some(_) => {
                // A change block: its deletions pair with its insertions, line by line.
                let mut dels = Vec::new();
                let mut ins = Vec::new();
                while let Some(Some(r)) = rows.get(i) {
                    match r.tag {
                        DiffTag::Delete => dels.push(r),
                        DiffTag::Insert => ins.push(r),
                        DiffTag::Equal => break,
                    }
                    i += 1;
                }
                for k in 0..dels.len().max(ins.len()) {
                    w.write_all(b"<tr>")?;
                    match dels.get(k) {
                        Some(r) => write!(
                            w,
                            "<td class=\"ln del\">{}</td><td class=\"c del\">{}</td>",
                            ln(r.old_line),
                            segments(r)
                        )?,
                        None => {
                            w.write_all(b"<td class=\"ln none\"></td><td class=\"c none\"></td>")?
                        }
                    }
                    match ins.get(k) {
                        Some(r) => write!(
                            w,
                            "<td class=\"ln add\">{}</td><td class=\"c add\">{}</td>",
                            ln(r.new_line),
                            segments(r)
                        )?,
                        None => {
                            w.write_all(b"<td class=\"ln none\"></td><td class=\"c none\"></td>")?
                        }
                    }
                    w.write_all(b"</tr>")?;
                }
            }
        }
    }
    w.write_all(b"</tbody></table>")
}

fn inline_table(rows: &[Option<DiffRow>], w: &mut impl Write) -> io::Result<()> {
    w.write_all(b"<table class=\"diff d-inline\"><colgroup><col class=\"lnc\"><col class=\"lnc\"><col class=\"sgn\"><col></colgroup><tbody>")?;
    for row in rows {
        match row {
            None => gap(4, w)?,
            Some(r) => {
                let (class, sign) = match r.tag {
                    DiffTag::Equal => ("", " "),
                    DiffTag::Delete => ("del", "-"),
                    DiffTag::Insert => ("add", "+"),
                };
                write!(
                    w,
                    "<tr class=\"{class}\"><td class=\"ln\">{}</td><td class=\"ln\">{}</td><td class=\"sg\">{sign}</td><td class=\"c\">{}</td></tr>",
                    ln(r.old_line),
                    ln(r.new_line),
                    segments(r)
                )?;
            }
        }
    }
    w.write_all(b"</tbody></table>")
}
