//! The compatibility table of `scenario matrix` in the terminal, as markdown (`matrix.md`, with
//! each changed cell's drift below the table), as a self-contained HTML page (`matrix.html`,
//! each cell opening its drift) and as JSON (`matrix.json`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::matrix::{Cell, Matrix};

/// One cell in a table: a word, and a mark for the terminal.
fn short(cell: &Cell) -> String {
    match cell {
        Cell::Same => "same".to_owned(),
        Cell::Changed { .. } => "changed".to_owned(),
        Cell::Failed { .. } => "failed".to_owned(),
        Cell::ToolAbsent { tools, .. } => format!("absent: {}", tools.join(", ")),
    }
}

fn date(published: Option<&str>) -> &str {
    published.map_or("", |p| p.get(..10).unwrap_or(p))
}

/// Counts of a row's verdicts: `12 same, 3 changed, 1 failed`.
fn tally(cells: &[Cell]) -> String {
    let mut parts = Vec::new();
    for label in ["same", "changed", "tool absent", "failed"] {
        let n = cells.iter().filter(|c| c.label() == label).count();
        if n > 0 {
            parts.push(format!("{n} {label}"));
        }
    }
    parts.join(", ")
}

/// The terminal table: one line per version, one column per scenario.
pub fn terminal(m: &Matrix) -> String {
    let mut out = format!(
        "{}: {} version(s) × {} scenario(s) in {:.0} s\n\n",
        m.cli,
        m.rows.len(),
        m.scenarios.len(),
        m.seconds
    );
    let width = m
        .rows
        .iter()
        .flat_map(|r| r.cells.iter().map(|c| short(c).len()))
        .chain(m.scenarios.iter().map(String::len))
        .max()
        .unwrap_or(8)
        .min(28);
    let _ = write!(out, "{:<12} {:<10}", "version", "published");
    for s in &m.scenarios {
        let _ = write!(out, " {:<width$}", crate::text::clip(s, width));
    }
    out.push('\n');
    for r in &m.rows {
        let _ = write!(
            out,
            "{:<12} {:<10}",
            r.version,
            date(r.published.as_deref())
        );
        for c in &r.cells {
            let _ = write!(out, " {:<width$}", crate::text::clip(&short(c), width));
        }
        let _ = writeln!(out, "   ({}; {:.0} s)", tally(&r.cells), r.seconds);
    }
    out
}

fn anchor(version: &str, scenario: &str) -> String {
    format!("{version}-{scenario}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// `matrix.md`: the table (versions down, scenarios across), then every cell that is not
/// `same` with its drift or reason.
pub fn markdown(m: &Matrix) -> String {
    let mut out = format!(
        "# Compatibility: {}\n\n{} version(s) × {} scenario(s), recorded in {:.0} s. Each cell compares the normalized parts of the new recording with the committed fixture (timing and run-drawn ids left out): **same**, **changed** (the drift below), **tool absent** (the version does not offer a tool the scenario calls) or **failed** (it did not run).\n\n",
        m.cli,
        m.rows.len(),
        m.scenarios.len(),
        m.seconds
    );
    out.push_str("| version | published |");
    for s in &m.scenarios {
        let _ = write!(out, " {s} |");
    }
    out.push_str(" summary |\n|---|---|");
    for _ in &m.scenarios {
        out.push_str("---|");
    }
    out.push_str("---|\n");
    for r in &m.rows {
        let _ = write!(out, "| {} | {} |", r.version, date(r.published.as_deref()));
        for (s, c) in m.scenarios.iter().zip(&r.cells) {
            match c {
                Cell::Same => out.push_str(" same |"),
                other => {
                    let _ = write!(out, " [{}](#{}) |", short(other), anchor(&r.version, s));
                }
            }
        }
        let _ = writeln!(out, " {} ({:.0} s) |", tally(&r.cells), r.seconds);
    }
    out.push('\n');
    for r in &m.rows {
        for (s, c) in m.scenarios.iter().zip(&r.cells) {
            let body = match c {
                Cell::Same => continue,
                Cell::Changed { diff } => diff.clone(),
                Cell::ToolAbsent { tools, diff } => {
                    format!(
                        "Not offered by this version: {}.\n\n{diff}",
                        tools.join(", ")
                    )
                }
                Cell::Failed { reason } => format!("```\n{reason}\n```\n"),
            };
            let _ = write!(
                out,
                "<a id=\"{}\"></a>\n\n### {} {s}: {}\n\n{}\n",
                anchor(&r.version, s),
                r.version,
                short(c),
                demote_headings(&body)
            );
        }
    }
    out
}

/// The drift's `## scenario` headings as `####`, below the cell's own.
fn demote_headings(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for line in text.split_inclusive('\n') {
        if line.starts_with("## ") {
            out.push_str("##");
        }
        out.push_str(line);
    }
    out
}

fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// `matrix.html`: one page, no script; a cell that is not `same` opens its drift.
pub fn html(m: &Matrix) -> String {
    let mut out = String::from(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n",
    );
    let _ = write!(
        out,
        "<title>Compatibility: {}</title>\n<style>body{{font:14px system-ui,sans-serif;margin:2em}}table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:4px 8px;vertical-align:top}}.same{{background:#e6f4ea}}.changed{{background:#fff4d6}}.absent{{background:#e8eefc}}.failed{{background:#fde2e1}}pre{{white-space:pre-wrap;max-width:70em;font-size:12px}}summary{{cursor:pointer}}</style></head><body>\n<h1>Compatibility: {}</h1>\n<p>{} version(s) × {} scenario(s), recorded in {:.0} s. Each cell compares the normalized parts of the new recording with the committed fixture (timing and run-drawn ids left out).</p>\n<table><thead><tr><th>version</th><th>published</th>",
        esc(&m.cli),
        esc(&m.cli),
        m.rows.len(),
        m.scenarios.len(),
        m.seconds
    );
    for s in &m.scenarios {
        let _ = write!(out, "<th>{}</th>", esc(s));
    }
    out.push_str("<th>summary</th></tr></thead><tbody>\n");
    for r in &m.rows {
        let _ = write!(
            out,
            "<tr><th>{}</th><td>{}</td>",
            esc(&r.version),
            esc(date(r.published.as_deref()))
        );
        for c in &r.cells {
            let (class, detail) = match c {
                Cell::Same => ("same", None),
                Cell::Changed { diff } => ("changed", Some(diff.clone())),
                Cell::ToolAbsent { diff, .. } => ("absent", Some(diff.clone())),
                Cell::Failed { reason } => ("failed", Some(reason.clone())),
            };
            match detail {
                None => {
                    let _ = write!(out, "<td class=\"{class}\">{}</td>", esc(&short(c)));
                }
                Some(d) => {
                    let _ = write!(
                        out,
                        "<td class=\"{class}\"><details><summary>{}</summary><pre>{}</pre></details></td>",
                        esc(&short(c)),
                        esc(&d)
                    );
                }
            }
        }
        let _ = writeln!(
            out,
            "<td>{} ({:.0} s)</td></tr>",
            esc(&tally(&r.cells)),
            r.seconds
        );
    }
    out.push_str("</tbody></table>\n</body></html>\n");
    out
}

/// Write `matrix.md`, `matrix.html` and `matrix.json` into `dir`.
pub fn write_all(m: &Matrix, dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("failed to create {}", dir.display()))?;
    let json = serde_json::to_string_pretty(m).context("failed to serialize the matrix")? + "\n";
    let mut written = Vec::new();
    for (name, body) in [
        ("matrix.md", markdown(m)),
        ("matrix.html", html(m)),
        ("matrix.json", json),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, body)
            .with_context(|| format!("failed to write {}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::super::matrix::Row;
    use super::*;

    fn sample() -> Matrix {
        Matrix {
            cli: "codex-cli".into(),
            scenarios: vec!["codex-exec-shell".into(), "codex-exec-plan".into()],
            rows: vec![
                Row {
                    version: "0.150.0".into(),
                    published: Some("2026-09-16T10:00:00Z".into()),
                    seconds: 41.0,
                    cells: vec![
                        Cell::Changed {
                            diff: "## codex-exec-shell\n\n```diff\n-a <b>\n+c\n```\n".into(),
                        },
                        Cell::ToolAbsent {
                            tools: vec!["update_plan".into()],
                            diff: "x".into(),
                        },
                    ],
                },
                Row {
                    version: "0.171.0".into(),
                    published: None,
                    seconds: 20.0,
                    cells: vec![
                        Cell::Same,
                        Cell::Failed {
                            reason: "npm install failed".into(),
                        },
                    ],
                },
            ],
            seconds: 61.0,
        }
    }

    #[test]
    fn the_table_in_every_format() {
        let m = sample();
        let t = terminal(&m);
        assert!(t.contains("2 version(s) × 2 scenario(s) in 61 s"), "{t}");
        let row = t.lines().find(|l| l.starts_with("0.150.0")).unwrap();
        assert!(
            row.contains("2026-09-16")
                && row.contains("changed")
                && row.contains("absent: update_plan")
        );
        assert!(row.contains("(1 changed, 1 tool absent; 41 s)"), "{row}");

        let md = markdown(&m);
        assert!(
            md.contains("| version | published | codex-exec-shell | codex-exec-plan | summary |")
        );
        assert!(md.contains("| 0.171.0 |  | same | [failed](#0-171-0-codex-exec-plan) | 1 same, 1 failed (20 s) |"), "{md}");
        assert!(md.contains("<a id=\"0-150-0-codex-exec-shell\"></a>"));
        assert!(md.contains("Not offered by this version: update_plan."));
        // The drift's own headings sit below the cell's.
        assert!(md.contains("#### codex-exec-shell"));

        let h = html(&m);
        assert!(h.contains("<td class=\"same\">same</td>"));
        assert!(h.contains("&lt;b&gt;"));
        assert!(!h.contains("<b>"));
        assert!(h.contains(
            "<td class=\"failed\"><details><summary>failed</summary><pre>npm install failed</pre>"
        ));
    }

    #[test]
    fn written_files_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let files = write_all(&sample(), dir.path()).unwrap();
        assert_eq!(files.len(), 3);
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("matrix.json")).unwrap())
                .unwrap();
        assert_eq!(json["rows"][0]["cells"][1]["verdict"], "toolAbsent");
        assert_eq!(json["rows"][1]["cells"][0]["verdict"], "same");
    }
}
