//! The terminal report: the provider × rule matrix, then failures (diffs, violations), orphans and
//! a one-line summary. Generic over `io::Write`, so tests render into a buffer; colour is the
//! caller's choice (on for a terminal without `NO_COLOR`).

use std::io::{self, Write};

use owo_colors::{OwoColorize, Style};

use super::{FixtureResult, OrphanKind, Report, Status};

/// Diff lines shown per fixture; the rest is in the other reports.
const MAX_DIFF_LINES: usize = 60;
/// Violations shown per fixture.
const MAX_VIOLATIONS: usize = 20;
/// Changed pointers shown per fixture.
const MAX_PATHS: usize = 10;
/// Expected files in need of `toolnorm fmt` named one by one.
const MAX_FORMATTING: usize = 20;

struct Painter {
    color: bool,
}

impl Painter {
    fn paint(&self, text: &str, style: Style) -> String {
        if self.color {
            text.style(style).to_string()
        } else {
            text.to_owned()
        }
    }
}

fn status_style(status: Status) -> Style {
    match status {
        Status::Pass => Style::new().green(),
        Status::Fail => Style::new().red().bold(),
        Status::Error => Style::new().magenta().bold(),
        Status::Xfail => Style::new().yellow(),
        Status::Xpass => Style::new().cyan().bold(),
        Status::Unsupported => Style::new().dimmed(),
    }
}

fn status_label(status: Status) -> &'static str {
    match status {
        Status::Pass => "PASS",
        Status::Fail => "FAIL",
        Status::Error => "ERROR",
        Status::Xfail => "XFAIL",
        Status::Xpass => "XPASS",
        Status::Unsupported => "UNSUPPORTED",
    }
}

/// Render the report. `reports_dir` names where the files went, if they were written.
pub fn render(
    report: &Report,
    out: &mut impl Write,
    color: bool,
    reports_dir: Option<&str>,
) -> io::Result<()> {
    let p = Painter { color };
    render_matrix(report, out, &p)?;

    let failing: Vec<&FixtureResult> = report
        .fixtures
        .shown()
        .filter(|f| matches!(f.status, Status::Fail | Status::Error | Status::Xpass))
        .collect();
    if !failing.is_empty() {
        writeln!(
            out,
            "{}",
            p.paint("Failures", Style::new().bold().underline())
        )?;
        for f in failing {
            render_fixture(f, out, &p)?;
        }
        writeln!(out)?;
    }
    let xfail: Vec<&FixtureResult> = report
        .fixtures
        .shown()
        .filter(|f| f.status == Status::Xfail)
        .collect();
    if !xfail.is_empty() {
        writeln!(
            out,
            "{}",
            p.paint("Known failures", Style::new().bold().underline())
        )?;
        for f in xfail {
            let rules: Vec<&str> = f
                .violations
                .iter()
                .filter(|v| v.known)
                .map(|v| v.rule.as_str())
                .collect();
            let mut rules = rules;
            rules.dedup();
            writeln!(
                out,
                "{} {}/{}: {}",
                p.paint("XFAIL", status_style(Status::Xfail)),
                f.provider,
                f.name,
                rules.join(", ")
            )?;
        }
        writeln!(out)?;
    }
    render_formatting(report, out, &p)?;
    if !report.orphans.is_empty() {
        writeln!(
            out,
            "{}",
            p.paint("Orphans", Style::new().bold().underline())
        )?;
        for o in &report.orphans {
            let kind = match o.kind {
                OrphanKind::MissingExpected => "no expected file",
                OrphanKind::MissingFixture => "no fixture",
                OrphanKind::UnusedExpectation => "unused expectation",
            };
            writeln!(
                out,
                "{} {}: {}",
                p.paint("ORPHAN", Style::new().red().bold()),
                kind,
                o.message
            )?;
        }
        writeln!(out)?;
    }
    if !report.skipped.is_empty() {
        let (label, style) = if report.summary.strict {
            ("ERROR", Style::new().red().bold())
        } else {
            ("WARNING", Style::new().yellow().bold())
        };
        writeln!(
            out,
            "{}",
            p.paint("Skipped entries", Style::new().bold().underline())
        )?;
        for e in &report.skipped {
            writeln!(out, "{} {}", p.paint(label, style), e.message)?;
        }
        writeln!(out)?;
    }
    render_summary(report, out, &p)?;
    if let Some(dir) = reports_dir {
        writeln!(
            out,
            "reports: {dir}/index.html, report.json, junit.xml, summary.md"
        )?;
    }
    Ok(())
}

/// Expected files that hold the right values written otherwise: one line each (a few), never a
/// diff. Warnings, errors under `--strict`.
fn render_formatting(report: &Report, out: &mut impl Write, p: &Painter) -> io::Result<()> {
    let only = report.formatting_only();
    if only.is_empty() {
        return Ok(());
    }
    let (label, style, effect) = if report.summary.strict {
        (
            "ERROR",
            Style::new().red().bold(),
            "they fail the gate (strict)",
        )
    } else {
        (
            "WARNING",
            Style::new().yellow().bold(),
            "they fail the gate under --strict",
        )
    };
    writeln!(
        out,
        "{} ({} expected files hold the right values, formatted otherwise: run toolnorm fmt; {effect})",
        p.paint("Formatting", Style::new().bold().underline()),
        only.len()
    )?;
    for f in only.iter().take(MAX_FORMATTING) {
        writeln!(
            out,
            "{} {}/{}.json: {}",
            p.paint(label, style),
            f.provider,
            f.name,
            f.formatting.join("; ")
        )?;
    }
    if only.len() > MAX_FORMATTING {
        writeln!(out, "… {} more", only.len() - MAX_FORMATTING)?;
    }
    writeln!(out)
}

fn render_matrix(report: &Report, out: &mut impl Write, p: &Painter) -> io::Result<()> {
    let providers = report.fixtures.providers();
    if providers.is_empty() {
        return writeln!(out, "no fixtures selected\n");
    }
    if report.rules.is_empty() {
        writeln!(
            out,
            "{}",
            p.paint("Rules: none registered", Style::new().bold())
        )?;
        return writeln!(out);
    }
    writeln!(
        out,
        "{} (fixtures violating / checked; +N known)",
        p.paint("Rules", Style::new().bold().underline()),
    )?;
    // Rules down, providers across: there are many more rules than providers, so the table stays
    // narrow enough for a terminal.
    let cells: Vec<Vec<(String, Style)>> = report
        .rules
        .iter()
        .map(|rule| {
            providers
                .iter()
                .map(|provider| {
                    let cell = report
                        .matrix
                        .iter()
                        .find(|c| c.provider == *provider && c.rule == rule.code);
                    match cell {
                        Some(c) if c.violations > 0 => (
                            cell_text(c.violations, c.checked, c.known),
                            Style::new().red().bold(),
                        ),
                        Some(c) if c.known > 0 => (
                            cell_text(c.violations, c.checked, c.known),
                            Style::new().yellow(),
                        ),
                        Some(c) => (
                            cell_text(c.violations, c.checked, c.known),
                            Style::new().green(),
                        ),
                        None => ("-".to_owned(), Style::new().dimmed()),
                    }
                })
                .collect()
        })
        .collect();
    let label = |r: &super::RuleInfo| format!("{} {}", r.code, r.name);
    let first = report
        .rules
        .iter()
        .map(|r| label(r).chars().count())
        .max()
        .unwrap_or(0);
    let widths: Vec<usize> = providers
        .iter()
        .enumerate()
        .map(|(i, p)| {
            cells
                .iter()
                .map(|row| row[i].0.len())
                .chain([p.len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    write!(out, "{:first$}", "")?;
    for (provider, w) in providers.iter().zip(&widths) {
        write!(out, "  {provider:>w$}")?;
    }
    writeln!(out)?;
    for (rule, row) in report.rules.iter().zip(&cells) {
        write!(out, "{:first$}", label(rule))?;
        for ((text, style), w) in row.iter().zip(&widths) {
            write!(out, "  {}", p.paint(&format!("{text:>w$}"), *style))?;
        }
        writeln!(out)?;
    }
    writeln!(out)
}

fn cell_text(violations: u32, checked: u32, known: u32) -> String {
    if known > 0 {
        format!("{violations}/{checked} +{known}")
    } else {
        format!("{violations}/{checked}")
    }
}

fn render_fixture(f: &FixtureResult, out: &mut impl Write, p: &Painter) -> io::Result<()> {
    let dialect = f
        .dialect
        .as_deref()
        .map(|d| format!(", {d}"))
        .unwrap_or_default();
    writeln!(
        out,
        "{} {}/{} ({}{dialect})",
        p.paint(status_label(f.status), status_style(f.status)),
        f.provider,
        f.name,
        f.path
    )?;
    if let Some(m) = &f.message {
        writeln!(out, "  {m}")?;
    }
    if let Some(d) = &f.legacy_diff {
        let shown: Vec<&str> = d
            .changed_paths
            .iter()
            .take(MAX_PATHS)
            .map(String::as_str)
            .collect();
        writeln!(
            out,
            "  legacy view differs from the expected parts' legacy mapping: {}",
            shown.join(", ")
        )?;
    }
    if let Some(d) = &f.diff {
        for note in &d.invisible {
            writeln!(out, "  note: {note}")?;
        }
        if !d.changed_paths.is_empty() {
            let shown: Vec<&str> = d
                .changed_paths
                .iter()
                .take(MAX_PATHS)
                .map(String::as_str)
                .collect();
            let more = d.changed_paths.len().saturating_sub(MAX_PATHS);
            let more = if more > 0 {
                format!(" (+{more} more)")
            } else {
                String::new()
            };
            writeln!(out, "  changed: {}{more}", shown.join(", "))?;
        }
        let lines: Vec<&str> = d.unified.lines().collect();
        for line in lines.iter().take(MAX_DIFF_LINES) {
            let style = if line.starts_with("+++") || line.starts_with("---") {
                Style::new().bold()
            } else if line.starts_with('+') {
                Style::new().green()
            } else if line.starts_with('-') {
                Style::new().red()
            } else if line.starts_with("@@") {
                Style::new().cyan()
            } else {
                Style::new()
            };
            writeln!(out, "  {}", p.paint(line, style))?;
        }
        if lines.len() > MAX_DIFF_LINES {
            writeln!(
                out,
                "  … {} more diff lines (+{} -{} in all)",
                lines.len() - MAX_DIFF_LINES,
                d.added,
                d.removed
            )?;
        }
    }
    for v in f.violations.iter().take(MAX_VIOLATIONS) {
        let at = match (v.line, &v.part_id) {
            (Some(l), Some(id)) => format!(" line {l}, part {id}"),
            (Some(l), None) => format!(" line {l}"),
            (None, Some(id)) => format!(" part {id}"),
            (None, None) => String::new(),
        };
        let known = match &v.reason {
            Some(r) if v.known => format!(" (known: {r})"),
            _ if v.known => " (known)".to_owned(),
            _ => String::new(),
        };
        let style = if v.known {
            Style::new().yellow()
        } else {
            Style::new().red()
        };
        writeln!(
            out,
            "  {} {}{at}: {}{known}",
            p.paint(&v.rule, style),
            v.rule_name,
            v.message
        )?;
    }
    if f.violations.len() > MAX_VIOLATIONS {
        writeln!(
            out,
            "  … {} more violations",
            f.violations.len() - MAX_VIOLATIONS
        )?;
    }
    Ok(())
}

/// The report's closing line without colour (`PASS: 3 fixtures: …`), for other reports that
/// must say what the terminal says (`scenario drift`'s `drift.md`).
pub fn summary_line(report: &Report) -> String {
    let mut out = Vec::new();
    // Writing into memory cannot fail.
    let _ = render_summary(report, &mut out, &Painter { color: false });
    String::from_utf8_lossy(&out).trim_end().to_owned()
}

fn render_summary(report: &Report, out: &mut impl Write, p: &Painter) -> io::Result<()> {
    let s = &report.summary;
    let verdict = if !s.fails_gate() {
        p.paint("PASS", Style::new().green().bold())
    } else {
        p.paint("FAIL", Style::new().red().bold())
    };
    let shard = report
        .shard
        .as_deref()
        .map(|s| format!(" (shard {s})"))
        .unwrap_or_default();
    if let Some(i) = report
        .implementation
        .as_ref()
        .filter(|i| i.command.is_some())
    {
        writeln!(
            out,
            "implementation: {} ({}), answers in {}",
            i.label(),
            i.command.as_deref().unwrap_or_default(),
            i.answers_in()
        )?;
    }
    let unsupported = if s.unsupported > 0 {
        format!(
            ", {} unsupported{}",
            s.unsupported,
            if s.require_all {
                " (--require-all)"
            } else {
                ""
            }
        )
    } else {
        String::new()
    };
    let mut skipped = if s.skipped > 0 {
        format!(", {} skipped entries", s.skipped)
    } else {
        String::new()
    };
    if s.formatting > 0 {
        skipped.push_str(&format!(
            ", {} expected files to reformat (toolnorm fmt)",
            s.formatting
        ));
    }
    writeln!(
        out,
        "{verdict}: {} fixtures{shard}: {} passed, {} failed, {} errors{unsupported}, {} known failures, {} fixed; {} violations (+{} known), {} orphans{skipped}{}",
        s.fixtures,
        s.passed,
        s.failed,
        s.errored,
        s.xfailed,
        s.xpassed,
        s.violations,
        s.known_violations,
        s.orphans,
        if s.strict { "; strict" } else { "" },
    )
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;

    use super::*;
    use crate::compare::{canonical_json, compare};
    use crate::report::{MatrixCell, Orphan, RuleInfo, Summary, Violation};

    fn fixture(provider: &str, name: &str, status: Status) -> FixtureResult {
        FixtureResult {
            provider: provider.to_owned(),
            name: name.to_owned(),
            path: format!("{provider}/{name}.jsonl.zst"),
            dialect: Some("exec".to_owned()),
            status,
            diff: None,
            legacy_diff: None,
            violations: Vec::new(),
            message: None,
            raw_lines: BTreeMap::new(),
            fixed: Vec::new(),
            formatting: Vec::new(),
            wire: None,
            parts: 1,
            raw_bytes: 100,
            duration_ms: 7,
        }
    }

    fn violation(rule: &str, known: bool) -> Violation {
        Violation {
            rule: rule.to_owned(),
            rule_name: "UnpairedToolResult".to_owned(),
            provider: "codex".to_owned(),
            fixture: "codex/b".to_owned(),
            line: Some(4),
            part_id: Some("item_1".to_owned()),
            message: "result without a call".to_owned(),
            known,
            reason: known.then(|| "upstream bug".to_owned()),
        }
    }

    fn sample() -> Report {
        let old = canonical_json(&json!({"parts": [{"id": "item_1", "title": "Run ls"}]}));
        let new = canonical_json(&json!({"parts": [{"id": "item_1", "title": "Run ls -la"}]}));
        let mut failing = fixture("codex", "b", Status::Fail);
        failing.diff = compare(old.as_bytes(), &new).into_diff();
        failing.violations = vec![violation("TN002", false)];
        let mut xfail = fixture("claude", "a", Status::Xfail);
        xfail.violations = vec![violation("TN002", true)];
        let mut error = fixture("opencode", "c", Status::Error);
        error.message = Some("opencode/c.jsonl.zst: not a zstd frame".to_owned());
        error.dialect = None;
        let rules = vec![RuleInfo {
            code: "TN002".to_owned(),
            name: "UnpairedToolResult".to_owned(),
            summary: "every result has a call".to_owned(),
        }];
        let cell = |provider: &str, violations, known| MatrixCell {
            provider: provider.to_owned(),
            rule: "TN002".to_owned(),
            checked: 1,
            violations,
            known,
        };
        Report {
            report_version: 1,
            skipped: Vec::new(),
            toolnorm_version: "0.1.0".to_owned(),
            implementation: None,
            shard: None,
            rules,
            fixtures: vec![xfail, failing, error].into(),
            matrix: vec![cell("claude", 0, 1), cell("codex", 1, 0)],
            orphans: vec![Orphan {
                kind: crate::report::OrphanKind::MissingFixture,
                subject: "codex/gone.json".to_owned(),
                message: "expected file codex/gone.json has no fixture codex/gone.jsonl.zst"
                    .to_owned(),
            }],
            summary: Summary {
                fixtures: 3,
                failed: 1,
                errored: 1,
                xfailed: 1,
                violations: 1,
                known_violations: 1,
                orphans: 1,
                duration_ms: 1234,
                ..Summary::default()
            },
        }
    }

    #[test]
    fn renders_matrix_failures_orphans_and_summary() {
        let mut out = Vec::new();
        render(&sample(), &mut out, false, Some("reports")).unwrap();
        insta::assert_snapshot!(String::from_utf8(out).unwrap());
    }

    #[test]
    fn colour_only_when_asked() {
        let mut plain = Vec::new();
        render(&sample(), &mut plain, false, None).unwrap();
        assert!(!plain.contains(&0x1b));
        let mut coloured = Vec::new();
        render(&sample(), &mut coloured, true, None).unwrap();
        assert!(coloured.contains(&0x1b));
    }
}
