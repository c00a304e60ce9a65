//! Tool cards: a `NormalizedToolPart` drawn as a UI would draw it, beside the raw lines that made
//! it. One renderer, used by the report's previews ([`preview`]) and by `toolnorm view`
//! ([`page`]).
//!
//! A card is server-rendered HTML: kind icon, title, state badge with the legacy state name beside
//! it, elapsed time, MCP server and tool, the rule findings on the part, then collapsible
//! `<details>` for the error, the file edit (as a diff when the input carries old and new text),
//! the input, the output and the metadata, long text clipped with the rest counted. Beside it,
//! its raw lines (every line the document's `events` name for the part, and the lines its
//! findings point at), pretty-printed and collapsed. A subagent's calls are nested under the call
//! that ran them (`parentToolUseId`, or the `sessionId` a parent's `childSessionId` names).
//!
//! Safety: as in the report, every byte of provider data goes through `esc`, in text and in
//! attributes alike; nothing from provider data is placed in a script, a style, a URL or an event
//! handler, and the pages carry a Content-Security-Policy that allows only their one stylesheet
//! and one script by hash. The HTML of cards drawn later (see [`page`]) sits in inert
//! `<script type="text/x-toolnorm-cards">` blocks: since every `<` of provider data is written
//! `&lt;`, neither `</script` nor `<!--` can occur in them.

pub mod edit;
pub mod page;
pub mod preview;

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{self, Write};

use serde_json::Value;

use super::escape::{esc, esc_clip};
use super::result::Violation;
use crate::model::{LegacyState, NormalizedDocument, NormalizedToolPart, ToolKind};
use crate::text::thousands;
use crate::timestamp::epoch_millis;

/// Characters of an input, output, error or metadata block shown at most.
pub const MAX_BLOCK_CHARS: usize = 4_000;
/// Characters of one pretty-printed raw line shown at most.
pub const MAX_RAW_CHARS: usize = 1_500;
/// Raw lines shown per card at most (the rest are counted).
pub const MAX_RAW_LINES: usize = 6;
/// A block with more lines than this starts folded even where a short one would be open.
const FOLD_LINES: usize = 12;
/// Subagent nesting deeper than this is drawn flat (a hostile stream cannot blow the stack).
const MAX_DEPTH: usize = 8;

/// Raw lines by number, as the stream gave them.
pub type RawLines<'a> = BTreeMap<u32, Cow<'a, str>>;

/// What the cards of one session are drawn from: the normalized document, the raw lines its
/// events and findings name (by line number, as the stream gave them), and the findings.
pub struct Session<'a> {
    pub doc: &'a NormalizedDocument,
    pub raw: &'a RawLines<'a>,
    pub findings: &'a [Violation],
}

impl Session<'_> {
    /// The raw lines of part `id`: the lines of its events, then those of its findings, in
    /// number order, each with the states its events there record.
    fn lines_of(&self, id: &str) -> BTreeMap<u32, Vec<&'static str>> {
        let mut lines: BTreeMap<u32, Vec<&'static str>> = BTreeMap::new();
        for e in self.doc.events.iter().filter(|e| e.part_id == id) {
            let states = lines.entry(e.line).or_default();
            if !states.contains(&e.state.as_str()) {
                states.push(e.state.as_str());
            }
        }
        for f in self.findings_of(id) {
            if let Some(l) = f.line {
                lines.entry(l).or_default();
            }
        }
        lines
    }

    fn findings_of<'s>(&'s self, id: &'s str) -> impl Iterator<Item = &'s Violation> + 's {
        self.findings
            .iter()
            .filter(move |f| f.part_id.as_deref() == Some(id))
    }

    /// Findings on no part of this document (the stream as a whole, or a part id it lacks).
    pub fn loose_findings(&self) -> Vec<&Violation> {
        let ids: BTreeSet<&str> = self.doc.parts.iter().map(|p| p.id.as_str()).collect();
        self.findings
            .iter()
            .filter(|f| f.part_id.as_deref().is_none_or(|p| !ids.contains(p)))
            .collect()
    }

    /// The lines every part and finding names, for the caller to fetch from the stream.
    pub fn wanted_lines(doc: &NormalizedDocument, findings: &[Violation]) -> BTreeSet<u32> {
        doc.events
            .iter()
            .map(|e| e.line)
            .chain(findings.iter().filter_map(|f| f.line))
            .collect()
    }
}

/// The nesting of a session's parts: each part's children, and the parts no other part holds,
/// in document order.
pub struct Tree {
    pub roots: Vec<usize>,
    pub children: Vec<Vec<usize>>,
}

impl Tree {
    /// A part is the child of the part whose id its `parentToolUseId` names, or of the part whose
    /// `childSessionId` is its `sessionId`. Cycles and nesting past `MAX_DEPTH` are cut: such
    /// a part is drawn as a root.
    pub fn of(parts: &[NormalizedToolPart]) -> Tree {
        let mut by_id: HashMap<&str, usize> = HashMap::new();
        let mut by_child_session: HashMap<&str, usize> = HashMap::new();
        for (i, p) in parts.iter().enumerate() {
            by_id.entry(p.id.as_str()).or_insert(i);
            if let Some(s) = p
                .metadata
                .as_ref()
                .and_then(|m| m.child_session_id.as_deref())
            {
                by_child_session.entry(s).or_insert(i);
            }
        }
        let parent: Vec<Option<usize>> = parts
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let m = p.metadata.as_ref()?;
                m.parent_tool_use_id
                    .as_deref()
                    .and_then(|id| by_id.get(id))
                    .or_else(|| {
                        m.session_id
                            .as_deref()
                            .and_then(|s| by_child_session.get(s))
                    })
                    .copied()
                    .filter(|&j| j != i)
            })
            .collect();
        let mut tree = Tree {
            roots: Vec::new(),
            children: vec![Vec::new(); parts.len()],
        };
        for (i, &p) in parent.iter().enumerate() {
            // Walk up: a cycle or a chain too deep leaves the part a root.
            let mut up = p;
            let mut depth = 0;
            while let Some(j) = up {
                depth += 1;
                if j == i || depth > MAX_DEPTH {
                    break;
                }
                up = parent[j];
            }
            match p {
                Some(j) if up.is_none() => tree.children[j].push(i),
                _ => tree.roots.push(i),
            }
        }
        tree
    }
}

/// How one card is drawn.
#[derive(Clone, Copy, Default)]
pub struct CardOptions<'a> {
    /// Prefix of the card's element ids (`c` + part index), unique per session on the page.
    pub prefix: &'a str,
    /// The fields that differ from the other side of a preview pair (`title`, `state`, …).
    pub changed: &'a [&'a str],
    /// What the card is in a preview pair (`expected`, `actual`), shown on it.
    pub side: Option<&'a str>,
}

/// The element id of part `i`'s card, and of its raw lines.
pub fn card_id(prefix: &str, i: usize) -> String {
    format!("{prefix}c{i}")
}

fn raw_id(prefix: &str, i: usize) -> String {
    format!("{prefix}r{i}")
}

/// Draw part `i` of `s` and (with `tree`) its children nested in it.
pub fn card(
    s: &Session<'_>,
    i: usize,
    tree: Option<&Tree>,
    o: CardOptions<'_>,
    w: &mut impl Write,
) -> io::Result<()> {
    let p = &s.doc.parts[i];
    let changed = |f: &str| o.changed.contains(&f);
    let chg = |f: &str| if changed(f) { " chg" } else { "" };
    let state = p.state.as_str();
    let legacy = legacy_name(LegacyState::from(p.state));
    let kind = p.kind.as_str();
    let lines = s.lines_of(&p.id);
    write!(
        w,
        "<article class=\"tc st-{state} k-{kind}{}\" id=\"{}\" data-part=\"{}\" tabindex=\"-1\"><div class=\"tc-main\">",
        if o.changed.is_empty() { "" } else { " changed" },
        card_id(o.prefix, i),
        esc(&p.id)
    )?;
    // The head: icon, title, state, time.
    let title = if p.title.is_empty() {
        &p.name
    } else {
        &p.title
    };
    write!(
        w,
        "<div class=\"tc-head\"><span class=\"ki{}\" title=\"{kind}\">{}</span><span class=\"tt{}\">{}</span>",
        chg("kind"),
        icon(p.kind),
        chg("title"),
        esc_clip(title, 500)
    )?;
    write!(
        w,
        "<span class=\"sb st-{state}{}\">{state}</span><span class=\"lg\" title=\"legacy state name\">{legacy}</span>",
        chg("state")
    )?;
    if let Some(ms) = elapsed_ms(p) {
        write!(
            w,
            "<span class=\"el{}\" title=\"elapsed\">{}</span>",
            chg("timing"),
            elapsed(ms)
        )?;
    }
    if let Some(side) = o.side {
        write!(w, "<span class=\"side\">{}</span>", esc(side))?;
    }
    w.write_all(b"</div>")?;
    // The line below: the tool's name, MCP identity, id, raw link, changed fields.
    write!(
        w,
        "<div class=\"tc-sub\"><code class=\"nm{}\">{}</code>",
        chg("name"),
        esc_clip(&p.name, 200)
    )?;
    if let Some(mcp) = p.metadata.as_ref().and_then(|m| m.mcp.as_ref()) {
        write!(
            w,
            "<span class=\"mcp\">MCP <b>{}</b> \u{203a} <b>{}</b></span>",
            esc_clip(&mcp.server, 200),
            esc_clip(&mcp.tool, 200)
        )?;
    }
    write!(
        w,
        "<code class=\"pid\" title=\"part id\">{}</code>",
        esc_clip(&p.id, 120)
    )?;
    if !lines.is_empty() {
        write!(
            w,
            "<a class=\"rawlink\" href=\"#{}\">{}</a>",
            raw_id(o.prefix, i),
            line_span(&lines)
        )?;
    }
    if !o.changed.is_empty() {
        write!(
            w,
            "<span class=\"chgd\">changed: {}</span>",
            esc(&o.changed.join(", "))
        )?;
    }
    w.write_all(b"</div>")?;
    findings(s, &p.id, o.prefix, w)?;
    w.write_all(b"<div class=\"secs\">")?;
    if let Some(e) = &p.error {
        w.write_all(b"<details class=\"sec err")?;
        w.write_all(chg("error").as_bytes())?;
        write!(
            w,
            "\" open><summary>error{}</summary><div class=\"errmsg\">{}</div>",
            e.code
                .as_deref()
                .map(|c| format!(" <code>{}</code>", esc_clip(c, 100)))
                .unwrap_or_default(),
            esc_clip(&e.message, MAX_BLOCK_CHARS)
        )?;
        if let Some(d) = &e.details {
            write!(w, "<pre>{}</pre>", esc_clip(&shown(d), MAX_BLOCK_CHARS))?;
        }
        w.write_all(b"</details>")?;
    }
    if p.kind == ToolKind::FileEdit || p.kind == ToolKind::FileWrite {
        edit::section(&p.input, changed("input"), w)?;
    }
    block("input", &p.input, changed("input"), w)?;
    if let Some(out) = &p.output {
        block("output", out, changed("output"), w)?;
    }
    if let Some(m) = p.metadata.as_ref().filter(|m| !m.is_empty())
        && let Ok(v) = serde_json::to_value(m)
    {
        block("metadata", &v, changed("metadata"), w)?;
    }
    if let Some(t) = p.timing.as_ref().filter(|t| !t.is_empty())
        && let Ok(v) = serde_json::to_value(t)
    {
        block("timing", &v, changed("timing"), w)?;
    }
    w.write_all(b"</div></div>")?;
    raw_lines(s, &lines, &raw_id(o.prefix, i), w)?;
    if let Some(t) = tree
        && !t.children[i].is_empty()
    {
        write!(
            w,
            "<div class=\"kids\"><div class=\"kids-h\">{} by this call</div>",
            plural(t.children[i].len(), "call", "calls")
        )?;
        for &c in &t.children[i] {
            card(s, c, tree, o, w)?;
        }
        w.write_all(b"</div>")?;
    }
    w.write_all(b"</article>\n")
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!(
        "{} {}",
        thousands(n as u64),
        if n == 1 { one } else { many }
    )
}

fn legacy_name(s: LegacyState) -> &'static str {
    match s {
        LegacyState::Calling => "calling",
        LegacyState::OutputAvailable => "output-available",
        LegacyState::OutputError => "output-error",
    }
}

/// The part's elapsed time: its own `elapsedMs`, else the span between its start and end when
/// both are epoch milliseconds or both RFC 3339 (never invented from anything else).
pub fn elapsed_ms(p: &NormalizedToolPart) -> Option<u64> {
    let t = p.timing.as_ref()?;
    if let Some(ms) = t.elapsed_ms {
        return Some(ms);
    }
    let (a, b) = (
        epoch_millis(t.started_at.as_ref()?)?,
        epoch_millis(t.completed_at.as_ref()?)?,
    );
    u64::try_from(b - a).ok()
}

fn elapsed(ms: u64) -> String {
    match ms {
        ms if ms < 1000 => format!("{ms} ms"),
        ms if ms < 60_000 => format!("{:.1} s", ms as f64 / 1000.0),
        ms => format!("{}m {:02}s", ms / 60_000, (ms % 60_000) / 1000),
    }
}

/// `raw line 3` / `raw lines 3–9 (4)`.
fn line_span(lines: &BTreeMap<u32, Vec<&'static str>>) -> String {
    let (first, last) = (
        lines.keys().next().copied().unwrap_or(0),
        lines.keys().last().copied().unwrap_or(0),
    );
    if lines.len() == 1 {
        format!("raw line {first}")
    } else {
        format!("raw lines {first}\u{2013}{last} ({})", lines.len())
    }
}

/// The part's findings, each with its rule, message and raw line.
fn findings(s: &Session<'_>, id: &str, prefix: &str, w: &mut impl Write) -> io::Result<()> {
    let mut any = false;
    for f in s.findings_of(id) {
        if !any {
            w.write_all(b"<ul class=\"fd\">")?;
            any = true;
        }
        finding(f, prefix, w)?;
    }
    if any {
        w.write_all(b"</ul>")?;
    }
    Ok(())
}

/// One finding as a list item (its line linked to the raw line on the page, when drawn).
pub fn finding(f: &Violation, _prefix: &str, w: &mut impl Write) -> io::Result<()> {
    write!(
        w,
        "<li class=\"{}\"><span class=\"code\">{}</span> <b>{}</b>{}: {}{}</li>",
        if f.known { "known" } else { "unexpected" },
        esc(&f.rule),
        esc(&f.rule_name),
        f.line
            .map(|l| format!(" <span class=\"muted\">line {l}</span>"))
            .unwrap_or_default(),
        esc_clip(&f.message, 2000),
        if f.known {
            " <span class=\"badge st-xfail\">known</span>"
        } else {
            ""
        }
    )
}

/// A value as people read it: a string as its text, anything else as pretty JSON.
pub fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        v => serde_json::to_string_pretty(v).unwrap_or_default(),
    }
}

/// A collapsible block: `label`, its size, the value clipped. Open when changed.
fn block(label: &str, v: &Value, changed: bool, w: &mut impl Write) -> io::Result<()> {
    if v.is_null() || v.as_object().is_some_and(|o| o.is_empty()) && label != "input" {
        return Ok(());
    }
    let text = shown(v);
    let lines = text.lines().count();
    let size = if lines > 1 {
        format!("{} lines", thousands(lines as u64))
    } else {
        format!("{} chars", thousands(text.chars().count() as u64))
    };
    let open = changed && lines <= FOLD_LINES * 20;
    write!(
        w,
        "<details class=\"sec s-{label}{}\"{}><summary>{label} <span class=\"muted\">{size}</span></summary><pre>{}</pre></details>",
        if changed { " chg" } else { "" },
        if open { " open" } else { "" },
        text_clip(&text, MAX_BLOCK_CHARS)
    )
}

/// The raw lines beside a card: each pretty-printed, collapsed, with the states its events
/// record there.
fn raw_lines(
    s: &Session<'_>,
    lines: &BTreeMap<u32, Vec<&'static str>>,
    id: &str,
    w: &mut impl Write,
) -> io::Result<()> {
    if lines.is_empty() {
        return w.write_all(b"<div class=\"tc-raw none\">no raw line named</div>");
    }
    write!(
        w,
        "<details class=\"tc-raw\" id=\"{id}\"><summary>{}</summary>",
        line_span(lines)
    )?;
    for (n, states) in lines.iter().take(MAX_RAW_LINES) {
        write!(w, "<div class=\"rline\"><div class=\"rl-h\">line {n}")?;
        if !states.is_empty() {
            write!(w, " \u{b7} {}", states.join(", "))?;
        }
        w.write_all(b"</div>")?;
        match s.raw.get(n) {
            Some(text) => write!(w, "<pre>{}</pre>", text_clip(&pretty(text), MAX_RAW_CHARS))?,
            None => w.write_all(b"<p class=\"muted\">not in the stream read</p>")?,
        }
        w.write_all(b"</div>")?;
    }
    if lines.len() > MAX_RAW_LINES {
        write!(
            w,
            "<p class=\"clip\">\u{2026} {} more lines</p>",
            thousands((lines.len() - MAX_RAW_LINES) as u64)
        )?;
    }
    w.write_all(b"</details>")
}

/// Escape for element text only (`&`, `<`, `>`): the bulk of a page is JSON in `<pre>`, whose
/// quotes need no entity there (a third of a big page's bytes were `&quot;`). Never for an
/// attribute: those go through `esc`. `<` stays escaped, so the inert blocks stay inert.
fn text_clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => html_escape::encode_text(s).into_owned(),
        Some((i, _)) => format!(
            "{}<span class=\"clip\">\u{2026} {} more characters</span>",
            html_escape::encode_text(&s[..i]),
            thousands(s[i..].chars().count() as u64)
        ),
    }
}

/// A raw line pretty-printed when it is JSON, else as it is.
pub fn pretty(line: &str) -> String {
    match serde_json::from_str::<Value>(line) {
        Ok(v) => serde_json::to_string_pretty(&v).unwrap_or_else(|_| line.to_owned()),
        Err(_) => line.to_owned(),
    }
}

/// A small line icon per kind (inline SVG, drawn with the text colour).
fn icon(kind: ToolKind) -> &'static str {
    macro_rules! svg {
        ($($d:literal),*) => {
            concat!(
                "<svg viewBox=\"0 0 24 24\" aria-hidden=\"true\">",
                $("<path d=\"", $d, "\"/>",)*
                "</svg>"
            )
        };
    }
    match kind {
        ToolKind::Bash => svg!("M4 6l6 6-6 6", "M12 18h8"),
        ToolKind::FileRead => svg!("M6 3h8l4 4v14H6z", "M14 3v4h4", "M9 12h6", "M9 16h6"),
        ToolKind::FileWrite => svg!("M6 3h8l4 4v14H6z", "M14 3v4h4", "M12 11v6", "M9 14h6"),
        ToolKind::FileEdit => svg!("M4 20h4L19 9l-4-4L4 16z", "M13 7l4 4"),
        ToolKind::WebSearch => svg!("M10 4a6 6 0 1 0 0 12a6 6 0 1 0 0-12z", "M15 15l5 5"),
        ToolKind::Browser => svg!(
            "M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18z",
            "M3 12h18",
            "M12 3c3 3 3 15 0 18",
            "M12 3c-3 3-3 15 0 18"
        ),
        ToolKind::Subagent => svg!(
            "M12 4a3 3 0 1 0 0 6a3 3 0 1 0 0-6z",
            "M6 20c0-4 3-6 6-6s6 2 6 6"
        ),
        ToolKind::Mcp => svg!("M9 3v6", "M15 3v6", "M6 9h12v3a6 6 0 0 1-12 0z", "M12 18v3"),
        ToolKind::Question => svg!(
            "M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18z",
            "M9.5 9a2.5 2.5 0 1 1 3.5 2.3c-.6.3-1 .9-1 1.7",
            "M12 17h.01"
        ),
        ToolKind::Todo => svg!(
            "M4 6l2 2 3-3",
            "M12 7h8",
            "M4 13l2 2 3-3",
            "M12 14h8",
            "M12 20h8"
        ),
        ToolKind::Unknown => svg!("M4 4h16v16H4z", "M9 12h6"),
    }
}

#[cfg(test)]
mod tests;
