//! A large report's fixtures, kept cheap for the browser: past [`COMPACT_FROM`] fixtures, the
//! passing ones are not elements but one row each in a JSON data block, which the script renders
//! as a virtual list (only the rows on screen exist), and the diffs of the others are inert
//! `<template>`s, rendered when their fixture is opened. The failures are still server-rendered
//! first, so the page paints what matters at once, whatever the size of the corpus.
//!
//! Safety: the data block is `<script type="application/json">`, which never runs (the policy
//! allows only the one script by its hash anyway); it holds JSON whose `<`, `>` and `&` are
//! written as `\u003c`, `\u003e`, `\u0026`, so no provider string can close it. The script puts
//! its values in the page with `textContent` and `setAttribute` only, never as markup.

use std::io::{self, Write};

use serde::Serialize;

use super::{fixture_anchor, thousands};
use crate::report::{Report, Status};

/// Reports with more fixtures than this list their passing fixtures compactly and defer diffs.
pub(super) const COMPACT_FROM: usize = 1_000;

pub(super) fn is_compact(report: &Report) -> bool {
    report.fixtures.len() > COMPACT_FROM
}

/// Write what `body` writes as is, or (with `lazy`) inside a `<template class="lazy">` that the
/// script renders when its fixture is opened.
pub(super) fn deferred<W: Write>(
    lazy: bool,
    w: &mut W,
    body: impl FnOnce(&mut W) -> io::Result<()>,
) -> io::Result<()> {
    if !lazy {
        return body(w);
    }
    w.write_all(b"<template class=\"lazy\">")?;
    body(w)?;
    w.write_all(b"</template>")
}

/// The data block's head: providers and dialects once (then one row per fixture).
#[derive(Serialize)]
struct Head<'a> {
    providers: Vec<&'a str>,
    dialects: Vec<&'a str>,
}

/// `[provider, name, dialect (-1: none), parts, raw bytes, milliseconds, anchor]`, the anchor
/// `0` when it is the plain `fixture-<provider>-<name>`.
type Row<'a> = (usize, &'a str, i64, u32, u64, u64, Anchor);

#[derive(Serialize)]
#[serde(untagged)]
enum Anchor {
    Plain(u8),
    Other(String),
}

/// The passing fixtures' list: its heading, the element the script fills, and their data
/// (`{"providers":[…],"dialects":[…],"rows":[…]}`). Written in two passes over the report's
/// fixtures (the names first, then the rows), so no list of every row is ever held.
pub(super) fn list(report: &Report, w: &mut impl Write) -> io::Result<()> {
    let mut providers: Vec<String> = Vec::new();
    let mut dialects: Vec<String> = Vec::new();
    let mut count = 0usize;
    for f in report.fixtures.all() {
        let f = f?;
        if f.status != Status::Pass {
            continue;
        }
        count += 1;
        intern(&mut providers, &f.provider);
        if let Some(d) = &f.dialect {
            intern(&mut dialects, d);
        }
    }
    let n = thousands(count as u64);
    write!(
        w,
        "<div id=\"passing\" class=\"passing\" data-count=\"{count}\"><h3>Passing fixtures <span class=\"muted\">{n}</span></h3>\
         <noscript><p class=\"empty\">{n} passing fixtures: at this size they are listed by the page's script only; \
         <code>report.json</code> lists every fixture.</p></noscript><div id=\"plist\" class=\"plist\" role=\"list\"></div></div>\n\
         <script type=\"application/json\" id=\"passing-data\">",
    )?;
    let head = Head {
        providers: providers.iter().map(String::as_str).collect(),
        dialects: dialects.iter().map(String::as_str).collect(),
    };
    let head = serde_json::to_string(&head).map_err(io::Error::other)?;
    // The head without its closing brace, then the rows.
    write_inert_json(&head[..head.len() - 1], w)?;
    w.write_all(b",\"rows\":[")?;
    let mut first = true;
    for f in report.fixtures.all() {
        let f = f?;
        if f.status != Status::Pass {
            continue;
        }
        let p = providers.iter().position(|p| *p == f.provider).unwrap_or(0);
        let d = f.dialect.as_deref().map_or(-1, |d| {
            dialects.iter().position(|x| x == d).unwrap_or(0) as i64
        });
        let anchor = fixture_anchor(&f.provider, &f.name);
        let plain = format!("fixture-{}-{}", f.provider, f.name);
        let anchor = if anchor == plain {
            Anchor::Plain(0)
        } else {
            Anchor::Other(anchor)
        };
        let row: Row<'_> = (p, &f.name, d, f.parts, f.raw_bytes, f.duration_ms, anchor);
        if !first {
            w.write_all(b",")?;
        }
        first = false;
        write_inert_json(&serde_json::to_string(&row).map_err(io::Error::other)?, w)?;
    }
    w.write_all(b"]}</script>\n")
}

/// Add `item` to `list` (a handful of providers and dialects) if new.
fn intern(list: &mut Vec<String>, item: &str) {
    if !list.iter().any(|p| p == item) {
        list.push(item.to_owned());
    }
}

/// JSON with `<`, `>` and `&` as `\u` escapes (they only occur inside strings), so that nothing
/// in it can end the element it sits in.
fn write_inert_json(json: &str, w: &mut impl Write) -> io::Result<()> {
    let bytes = json.as_bytes();
    let mut start = 0;
    for (i, b) in bytes.iter().enumerate() {
        let esc: &[u8] = match b {
            b'<' => b"\\u003c",
            b'>' => b"\\u003e",
            b'&' => b"\\u0026",
            _ => continue,
        };
        w.write_all(&bytes[start..i])?;
        w.write_all(esc)?;
        start = i + 1;
    }
    w.write_all(&bytes[start..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inert_json_cannot_close_its_element() {
        let mut out = Vec::new();
        let json = serde_json::to_string(&["</script><script>alert(1)</script>", "a&b>c"]).unwrap();
        write_inert_json(&json, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(!text.contains('<') && !text.contains('>') && !text.contains('&'));
        let back: Vec<String> = serde_json::from_str(&text).unwrap();
        assert_eq!(back, ["</script><script>alert(1)</script>", "a&b>c"]);
    }
}
