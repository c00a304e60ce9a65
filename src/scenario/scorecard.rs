//! The ACP adapters' scorecard: each adapter scenario's normalized output beside the native
//! normalization of the same script (the scenario it `mirrors`), part by part and field by field
//! — what the adapter keeps, changes, loses or adds — as markdown and as an HTML section.
//! `toolnorm scenario compare` loads the fixtures and prints it.

use std::fmt::Write as _;

use serde_json::Value;

use crate::model::{NormalizedDocument, NormalizedToolPart};

/// The fields compared, in column order.
pub const FIELDS: [&str; 11] = [
    "name",
    "kind",
    "title",
    "state",
    "input",
    "output",
    "error",
    "error code",
    "MCP identity",
    "subagent link",
    "timing",
];

/// What became of one field of one part on the ACP path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Neither side has it.
    Absent,
    Kept,
    Changed,
    Lost,
    /// The adapter has it, the native normalization not.
    Added,
}

impl Verdict {
    pub fn as_str(&self) -> &'static str {
        match self {
            Verdict::Absent => "",
            Verdict::Kept => "kept",
            Verdict::Changed => "changed",
            Verdict::Lost => "lost",
            Verdict::Added => "added",
        }
    }
}

/// One part of the native normalization, and what the adapter's output made of it.
#[derive(Clone, Debug)]
pub struct PartRow {
    /// The native part's name and id.
    pub native: String,
    /// `None`: the adapter's output has no such part.
    pub cells: Option<Vec<Verdict>>,
}

/// One adapter scenario against its native mirror.
#[derive(Clone, Debug)]
pub struct Card {
    /// The adapter (`claude-acp`).
    pub adapter: String,
    pub scenario: String,
    pub native: String,
    pub rows: Vec<PartRow>,
    /// Parts only the adapter's output has (name and id).
    pub extra: Vec<String>,
}

fn verdict<T: PartialEq>(native: Option<T>, acp: Option<T>) -> Verdict {
    match (native, acp) {
        (None, None) => Verdict::Absent,
        (Some(a), Some(b)) if a == b => Verdict::Kept,
        (Some(_), Some(_)) => Verdict::Changed,
        (Some(_), None) => Verdict::Lost,
        (None, Some(_)) => Verdict::Added,
    }
}

/// What ties a call to a subagent: the spawning call's id, the child session or thread, the task.
fn subagent_link(p: &NormalizedToolPart) -> Option<Vec<Option<&str>>> {
    let m = p.metadata.as_ref()?;
    let link = vec![
        m.parent_tool_use_id.as_deref(),
        m.child_session_id.as_deref(),
        m.task_id.as_deref(),
        m.session_id.as_deref(),
    ];
    link.iter().any(Option::is_some).then_some(link)
}

/// Field by field, in [`FIELDS`] order.
pub fn compare_part(native: &NormalizedToolPart, acp: &NormalizedToolPart) -> Vec<Verdict> {
    let nonempty = |v: &Value| !matches!(v, Value::Null) && *v != Value::Object(Default::default());
    vec![
        verdict(Some(&native.name), Some(&acp.name)),
        verdict(Some(native.kind), Some(acp.kind)),
        verdict(Some(&native.title), Some(&acp.title)),
        verdict(Some(native.state), Some(acp.state)),
        verdict(
            Some(&native.input).filter(|v| nonempty(v)),
            Some(&acp.input).filter(|v| nonempty(v)),
        ),
        verdict(native.output.as_ref(), acp.output.as_ref()),
        verdict(
            native.error.as_ref().map(|e| &e.message),
            acp.error.as_ref().map(|e| &e.message),
        ),
        verdict(
            native.error.as_ref().and_then(|e| e.code.as_ref()),
            acp.error.as_ref().and_then(|e| e.code.as_ref()),
        ),
        verdict(
            native.metadata.as_ref().and_then(|m| m.mcp.as_ref()),
            acp.metadata.as_ref().and_then(|m| m.mcp.as_ref()),
        ),
        verdict(subagent_link(native), subagent_link(acp)),
        verdict(
            native.timing.as_ref().filter(|t| !t.is_empty()),
            acp.timing.as_ref().filter(|t| !t.is_empty()),
        ),
    ]
}

fn label(p: &NormalizedToolPart) -> String {
    format!("{} `{}`", p.name, p.id)
}

/// Match the adapter's parts to the native ones (same id first, then in order among the rest)
/// and compare each pair.
pub fn card(
    adapter: &str,
    scenario: &str,
    native_name: &str,
    native: &NormalizedDocument,
    acp: &NormalizedDocument,
) -> Card {
    let mut used = vec![false; acp.parts.len()];
    let mut matched: Vec<Option<usize>> = native
        .parts
        .iter()
        .map(|n| {
            let i = acp.parts.iter().position(|a| a.id == n.id)?;
            used[i] = true;
            Some(i)
        })
        .collect();
    let mut rest = (0..acp.parts.len())
        .filter(|i| !used[*i])
        .collect::<Vec<_>>()
        .into_iter();
    for m in matched.iter_mut().filter(|m| m.is_none()) {
        *m = rest.next();
        if let Some(i) = *m {
            used[i] = true;
        }
    }
    let rows = native
        .parts
        .iter()
        .zip(&matched)
        .map(|(n, m)| PartRow {
            native: label(n),
            cells: m.map(|i| compare_part(n, &acp.parts[i])),
        })
        .collect();
    let extra = acp
        .parts
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|(p, _)| label(p))
        .collect();
    Card {
        adapter: adapter.to_owned(),
        scenario: scenario.to_owned(),
        native: native_name.to_owned(),
        rows,
        extra,
    }
}

/// Per field, how many of the adapter's compared parts keep it, out of those where either side
/// has it.
fn totals(cards: &[&Card]) -> Vec<(usize, usize, usize, usize)> {
    let mut t = vec![(0, 0, 0, 0); FIELDS.len()];
    for c in cards {
        for row in &c.rows {
            let Some(cells) = &row.cells else { continue };
            for (i, v) in cells.iter().enumerate() {
                match v {
                    Verdict::Kept => t[i].0 += 1,
                    Verdict::Changed => t[i].1 += 1,
                    Verdict::Lost => t[i].2 += 1,
                    Verdict::Added => t[i].3 += 1,
                    Verdict::Absent => {}
                }
            }
        }
    }
    t
}

fn adapters(cards: &[Card]) -> Vec<&str> {
    let mut names: Vec<&str> = cards.iter().map(|c| c.adapter.as_str()).collect();
    names.dedup();
    names
}

/// The scorecard as markdown: per adapter, a summary line per field and a table per part.
pub fn markdown(cards: &[Card]) -> String {
    let mut out = String::new();
    for adapter in adapters(cards) {
        let mine: Vec<&Card> = cards.iter().filter(|c| c.adapter == adapter).collect();
        let _ = writeln!(out, "### {adapter}\n");
        let parts: usize = mine.iter().map(|c| c.rows.len()).sum();
        let missing: usize = mine
            .iter()
            .map(|c| c.rows.iter().filter(|r| r.cells.is_none()).count())
            .sum();
        let extra: usize = mine.iter().map(|c| c.extra.len()).sum();
        let _ = writeln!(
            out,
            "{} scenarios, {parts} native parts: {missing} missing from the adapter's output, {extra} only in it.\n",
            mine.len()
        );
        let _ = writeln!(
            out,
            "| field | kept | changed | lost | added |\n| --- | --- | --- | --- | --- |"
        );
        for (f, (k, c, l, a)) in FIELDS.iter().zip(totals(&mine)) {
            let _ = writeln!(out, "| {f} | {k} | {c} | {l} | {a} |");
        }
        let _ = writeln!(out);
        let _ = writeln!(out, "| scenario | part (native) | {} |", FIELDS.join(" | "));
        let _ = writeln!(out, "|{}", " --- |".repeat(FIELDS.len() + 2));
        for c in &mine {
            for row in &c.rows {
                let cells = match &row.cells {
                    Some(cells) => cells.iter().map(Verdict::as_str).collect::<Vec<_>>(),
                    None => vec!["missing"; FIELDS.len()],
                };
                let _ = writeln!(
                    out,
                    "| {} | {} | {} |",
                    c.scenario,
                    row.native,
                    cells.join(" | ")
                );
            }
            for extra in &c.extra {
                let _ = writeln!(
                    out,
                    "| {} | (adapter only) {extra} |{}",
                    c.scenario,
                    " |".repeat(FIELDS.len())
                );
            }
        }
        let _ = writeln!(out);
    }
    out
}

/// The scorecard as an HTML section (`<section class="scorecard">`), self-contained.
pub fn html(cards: &[Card]) -> String {
    use html_escape::encode_text as esc;
    let mut out = String::from("<section class=\"scorecard\">\n<h2>ACP adapters: scorecard</h2>\n");
    for adapter in adapters(cards) {
        let mine: Vec<&Card> = cards.iter().filter(|c| c.adapter == adapter).collect();
        let _ = writeln!(
            out,
            "<h3>{}</h3>\n<table>\n<tr><th>scenario</th><th>part (native)</th>",
            esc(adapter)
        );
        for f in FIELDS {
            let _ = write!(out, "<th>{}</th>", esc(f));
        }
        out.push_str("</tr>\n");
        for c in &mine {
            for row in &c.rows {
                let _ = write!(
                    out,
                    "<tr><td>{}</td><td>{}</td>",
                    esc(&c.scenario),
                    esc(&row.native)
                );
                match &row.cells {
                    Some(cells) => {
                        for v in cells {
                            let _ = write!(out, "<td class=\"{0}\">{0}</td>", v.as_str());
                        }
                    }
                    None => {
                        let _ = write!(
                            out,
                            "<td class=\"lost\" colspan=\"{}\">missing</td>",
                            FIELDS.len()
                        );
                    }
                }
                out.push_str("</tr>\n");
            }
            for extra in &c.extra {
                let _ = writeln!(
                    out,
                    "<tr><td>{}</td><td>(adapter only) {}</td><td colspan=\"{}\"></td></tr>",
                    esc(&c.scenario),
                    esc(extra),
                    FIELDS.len()
                );
            }
        }
        out.push_str("</table>\n");
    }
    out.push_str("</section>\n");
    out
}

/// A whole HTML page holding the scorecard section.
pub fn html_page(cards: &[Card]) -> String {
    format!(
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>toolnorm: ACP adapter scorecard</title>\n<style>\
         body{{font:14px system-ui,sans-serif;margin:2em}}table{{border-collapse:collapse;margin-bottom:2em}}\
         td,th{{border:1px solid #ccc;padding:2px 6px}}.kept{{background:#e6f4ea}}.changed{{background:#fff4ce}}\
         .lost{{background:#fde2e1}}.added{{background:#e3ecfa}}</style></head><body>\n{}</body></html>\n",
        html(cards)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{McpRef, ToolError, ToolKind, ToolMetadata, ToolState};
    use serde_json::json;

    fn part(id: &str) -> NormalizedToolPart {
        NormalizedToolPart {
            id: id.into(),
            name: "Bash".into(),
            kind: ToolKind::Bash,
            title: "Run x".into(),
            input: json!({"command": "x"}),
            output: None,
            error: Some(ToolError {
                message: "Exit code 3".into(),
                code: Some("3".into()),
                details: None,
            }),
            state: ToolState::Error,
            timing: None,
            metadata: Some(ToolMetadata {
                mcp: Some(McpRef {
                    server: "s".into(),
                    tool: "t".into(),
                }),
                ..ToolMetadata::default()
            }),
        }
    }

    fn doc(parts: Vec<NormalizedToolPart>) -> NormalizedDocument {
        NormalizedDocument {
            schema_version: 1,
            provider: "x".into(),
            dialect: "y".into(),
            parts,
            events: vec![],
            diagnostics: vec![],
        }
    }

    #[test]
    fn fields_are_kept_changed_lost_or_added() {
        let native = part("a");
        let mut acp = part("a");
        acp.title = "x".into();
        acp.error.as_mut().unwrap().code = None;
        acp.metadata = None;
        let v = compare_part(&native, &acp);
        let by = |f: &str| v[FIELDS.iter().position(|x| *x == f).unwrap()].clone();
        assert_eq!(by("name"), Verdict::Kept);
        assert_eq!(by("title"), Verdict::Changed);
        assert_eq!(by("error code"), Verdict::Lost);
        assert_eq!(by("MCP identity"), Verdict::Lost);
        assert_eq!(by("timing"), Verdict::Absent);
    }

    #[test]
    fn parts_match_by_id_then_in_order_and_the_rest_are_named() {
        let native = doc(vec![part("a"), part("b"), part("c")]);
        let acp = doc(vec![part("b"), part("z"), part("y"), part("w")]);
        let c = card(
            "claude-acp",
            "claude-acp-bash",
            "claude-bash",
            &native,
            &acp,
        );
        assert!(c.rows.iter().all(|r| r.cells.is_some()));
        assert_eq!(c.extra, vec!["Bash `w`".to_owned()]);
        let md = markdown(std::slice::from_ref(&c));
        assert!(md.contains("### claude-acp"), "{md}");
        assert!(
            md.contains(
                "1 scenarios, 3 native parts: 0 missing from the adapter's output, 1 only in it."
            ),
            "{md}"
        );
        assert!(md.contains("| error code | 3 | 0 | 0 | 0 |"), "{md}");
        let page = html_page(&[c]);
        assert!(page.contains("<section class=\"scorecard\">"));
        assert!(page.contains("<td class=\"kept\">kept</td>"));
    }
}
