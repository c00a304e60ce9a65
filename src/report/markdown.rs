//! `summary.md`: a compact GitHub-flavoured markdown summary for `$GITHUB_STEP_SUMMARY`.
//!
//! Totals, the provider × rule matrix with pass rates, the failing fixtures (changed JSON
//! pointers, violations, a clipped diff), stale known failures, known failures and orphans.
//!
//! GitHub caps a step summary at 1 MiB, so every list is bounded (`MAX_*`) and says how many
//! entries it left out; the full detail is in `index.html` and `report.json`. Provider data is
//! untrusted: text goes through `text` (HTML entities for `<>&`, backslash escapes for markdown
//! punctuation, newlines folded), code through `code` (a backtick fence longer than any run in
//! the content) and diffs through a fence longer than any backtick run in the diff.

use std::io::{self, Write};

use super::model::*;
use super::result::*;
use crate::text::truncate;

/// Failing fixtures listed in full; the rest are counted.
const MAX_FIXTURES: usize = 50;
/// Changed JSON pointers listed per fixture.
const MAX_PATHS: usize = 10;
/// Violations listed per fixture.
const MAX_VIOLATIONS: usize = 10;
/// Unified-diff lines shown per fixture.
const MAX_DIFF_LINES: usize = 40;
/// Longest run of characters shown from one piece of provider data.
const MAX_TEXT: usize = 300;
/// Orphans and known failures listed.
const MAX_ROWS: usize = 100;

/// Write `summary.md` for `report`.
pub fn render(report: &Report, out: &mut impl Write) -> io::Result<()> {
    let s = &report.summary;
    let failed_gate = s.fails_gate();
    let verdict = if failed_gate {
        "❌ toolnorm verify: failed"
    } else {
        "✅ toolnorm verify: passed"
    };
    writeln!(out, "## {verdict}")?;
    writeln!(out)?;

    let mut totals = format!("**{} fixtures**: ", s.fixtures);
    totals.push_str(
        &[
            format!("{} passed", s.passed),
            format!("{} failed", s.failed),
            format!(
                "{} {}",
                s.errored,
                if s.errored == 1 { "error" } else { "errors" }
            ),
            format!("{} xfail", s.xfailed),
            format!("{} xpass", s.xpassed),
        ]
        .join(" · "),
    );
    totals.push_str(&format!(
        " · {} violations ({} known) · {} orphans · {} · {}",
        s.violations,
        s.known_violations,
        s.orphans,
        if s.strict { "strict" } else { "not strict" },
        duration(s.duration_ms),
    ));
    if s.skipped > 0 {
        totals.push_str(&format!(" · {} skipped entries", s.skipped));
    }
    if s.formatting > 0 {
        totals.push_str(&format!(" · {} to reformat", s.formatting));
    }
    totals.push_str(&format!(" · toolnorm {}", text(&report.toolnorm_version)));
    if let Some(shard) = &report.shard {
        totals.push_str(&format!(" · shard {}", text(shard)));
    }
    if s.unsupported > 0 {
        totals.push_str(&format!(" · {} unsupported", s.unsupported));
    }
    if let Some(i) = report
        .implementation
        .as_ref()
        .filter(|i| i.command.is_some())
    {
        totals.push_str(&format!(
            " · implementation {} (answers in {})",
            text(&i.label()),
            text(&i.answers_in())
        ));
    }
    writeln!(out, "{totals}")?;
    writeln!(out)?;

    matrix(report, out)?;
    failing(report, out)?;
    stale(report, out)?;
    known(report, out)?;
    orphans(report, out)?;
    skipped(report, out)?;
    formatting(report, out)?;
    Ok(())
}

/// Expected files that hold the right values written otherwise: one row each, never a diff.
fn formatting(report: &Report, out: &mut impl Write) -> io::Result<()> {
    let only = report.formatting_only();
    if only.is_empty() {
        return Ok(());
    }
    let effect = if report.summary.strict {
        "they fail the gate (strict)"
    } else {
        "warnings (they fail the gate under --strict)"
    };
    writeln!(
        out,
        "### Formatting ({}): {effect}; `toolnorm fmt` rewrites them",
        only.len()
    )?;
    writeln!(out)?;
    writeln!(out, "| Expected file | Written otherwise |")?;
    writeln!(out, "| :-- | :-- |")?;
    for f in only.iter().take(MAX_ROWS) {
        writeln!(
            out,
            "| {} | {} |",
            code(&format!("{}/{}.json", f.provider, f.name), true),
            text(&f.formatting.join("; "))
        )?;
    }
    if only.len() > MAX_ROWS {
        writeln!(out, "| … {} more | |", only.len() - MAX_ROWS)?;
    }
    writeln!(out)?;
    Ok(())
}

fn skipped(report: &Report, out: &mut impl Write) -> io::Result<()> {
    if report.skipped.is_empty() {
        return Ok(());
    }
    let effect = if report.summary.strict {
        "they fail the gate (strict)"
    } else {
        "warnings (they fail the gate under --strict)"
    };
    writeln!(
        out,
        "### Skipped entries ({}): {effect}",
        report.skipped.len()
    )?;
    writeln!(out)?;
    writeln!(out, "| Entry | Problem |")?;
    writeln!(out, "| :-- | :-- |")?;
    for e in report.skipped.iter().take(MAX_ROWS) {
        writeln!(out, "| {} | {} |", code(&e.path, true), text(&e.message))?;
    }
    if report.skipped.len() > MAX_ROWS {
        writeln!(out, "| … {} more | |", report.skipped.len() - MAX_ROWS)?;
    }
    writeln!(out)?;
    Ok(())
}

fn matrix(report: &Report, out: &mut impl Write) -> io::Result<()> {
    let providers = report.providers();
    if providers.is_empty() {
        return Ok(());
    }
    writeln!(out, "### Provider × rule")?;
    writeln!(out)?;
    // Only rules that failed somewhere get a column: a summary with dozens of all-green columns
    // is unreadable, and the clean rules are named below the table.
    let (shown, clean): (Vec<&RuleInfo>, Vec<&RuleInfo>) = report.rules.iter().partition(|r| {
        report
            .matrix
            .iter()
            .any(|c| c.rule == r.code && c.violations + c.known > 0)
    });
    let mut header = String::from("| Provider | Fixtures |");
    let mut align = String::from("| :-- | --: |");
    for rule in &shown {
        header.push_str(&format!(" {} |", code(&rule.code, true)));
        align.push_str(" :-: |");
    }
    writeln!(out, "{header}")?;
    writeln!(out, "{align}")?;
    for provider in providers {
        let (ok, all) = report
            .fixtures
            .provider_counts(provider, report.summary.strict);
        let mut row = format!("| {} | {}/{} |", text(provider), ok, all);
        for rule in &shown {
            row.push(' ');
            row.push_str(&match report.cell(provider, &rule.code) {
                None => "—".to_string(),
                Some(c) if c.checked == 0 => "—".to_string(),
                Some(c) => {
                    let passing = c.checked.saturating_sub(c.violations);
                    let mark = if c.violations > 0 {
                        "❌"
                    } else if c.known > 0 {
                        "⚠️"
                    } else {
                        "✅"
                    };
                    let known = if c.known > 0 {
                        format!(" ({} known)", c.known)
                    } else {
                        String::new()
                    };
                    format!("{mark} {passing}/{}{known}", c.checked)
                }
            });
            row.push_str(" |");
        }
        writeln!(out, "{row}")?;
    }
    writeln!(out)?;
    let legend: Vec<String> = shown
        .iter()
        .map(|r| format!("{} {}", code(&r.code, false), text(&r.name)))
        .collect();
    writeln!(
        out,
        "<sub>Cells: fixtures passing the rule / fixtures checked; ❌ unexpected violations, ⚠️ known failures only. {}</sub>",
        legend.join(" · ")
    )?;
    writeln!(out)?;
    if !clean.is_empty() {
        let codes: Vec<String> = clean.iter().map(|r| code(&r.code, false)).collect();
        writeln!(
            out,
            "{} other rules pass on every fixture checked: {}.",
            clean.len(),
            codes.join(", ")
        )?;
        writeln!(out)?;
    }
    Ok(())
}

fn failing(report: &Report, out: &mut impl Write) -> io::Result<()> {
    let failing: Vec<_> = report
        .fixtures
        .shown()
        .filter(|f| matches!(f.status, Status::Fail | Status::Error))
        .collect();
    if failing.is_empty() {
        return Ok(());
    }
    writeln!(out, "### Failing fixtures ({})", failing.len())?;
    writeln!(out)?;
    for f in failing.iter().take(MAX_FIXTURES) {
        let mark = if f.status == Status::Error {
            "💥 error"
        } else {
            "❌ fail"
        };
        let mut head = format!(
            "**{mark}** {} · {}",
            code(&format!("{}/{}", f.provider, f.name), false),
            code(&f.path, false)
        );
        if let Some(d) = &f.diff {
            head.push_str(&format!(" · +{} −{} lines", d.added, d.removed));
        }
        writeln!(out, "{head}")?;
        writeln!(out)?;
        let mut bullets = Vec::new();
        if let Some(m) = &f.message {
            bullets.push(text(m));
        }
        if let Some(d) = &f.diff {
            if !d.changed_paths.is_empty() {
                let mut paths: Vec<String> = d
                    .changed_paths
                    .iter()
                    .take(MAX_PATHS)
                    .map(|p| code(p, false))
                    .collect();
                if d.changed_paths.len() > MAX_PATHS {
                    paths.push(format!("… {} more", d.changed_paths.len() - MAX_PATHS));
                }
                bullets.push(format!("changed: {}", paths.join(", ")));
            }
            for inv in &d.invisible {
                bullets.push(format!("invisible: {}", text(inv)));
            }
        }
        for v in f.violations.iter().take(MAX_VIOLATIONS) {
            bullets.push(violation(v));
        }
        if f.violations.len() > MAX_VIOLATIONS {
            bullets.push(format!(
                "… {} more violations",
                f.violations.len() - MAX_VIOLATIONS
            ));
        }
        for b in &bullets {
            writeln!(out, "- {b}")?;
        }
        if !bullets.is_empty() {
            writeln!(out)?;
        }
        if let Some(d) = &f.diff
            && !d.unified.is_empty()
        {
            diff_block(d, out)?;
        }
    }
    if failing.len() > MAX_FIXTURES {
        writeln!(
            out,
            "… and {} more failing fixtures: see `index.html`.",
            failing.len() - MAX_FIXTURES
        )?;
        writeln!(out)?;
    }
    Ok(())
}

fn violation(v: &Violation) -> String {
    let mut s = format!("{} {}", code(&v.rule, false), text(&v.rule_name));
    if let Some(line) = v.line {
        s.push_str(&format!(", line {line}"));
    }
    if let Some(part) = &v.part_id {
        s.push_str(&format!(", part {}", code(part, false)));
    }
    s.push_str(&format!(": {}", text(&v.message)));
    if v.known {
        s.push_str(" (known");
        if let Some(r) = &v.reason {
            s.push_str(&format!(": {}", text(r)));
        }
        s.push(')');
    }
    s
}

/// The unified diff, clipped, in a collapsed block.
fn diff_block(d: &FixtureDiff, out: &mut impl Write) -> io::Result<()> {
    let lines: Vec<&str> = d.unified.lines().collect();
    let mut body: Vec<String> = lines
        .iter()
        .take(MAX_DIFF_LINES)
        .map(|l| truncate(l, MAX_TEXT))
        .collect();
    if lines.len() > MAX_DIFF_LINES {
        body.push(format!(
            "… {} more lines (see index.html)",
            lines.len() - MAX_DIFF_LINES
        ));
    }
    let body = body.join("\n");
    let fence = "`".repeat(longest_run(&body, '`').max(2) + 1);
    writeln!(out, "<details><summary>diff</summary>")?;
    writeln!(out)?;
    writeln!(out, "{fence}diff")?;
    writeln!(out, "{body}")?;
    writeln!(out, "{fence}")?;
    writeln!(out)?;
    writeln!(out, "</details>")?;
    writeln!(out)?;
    Ok(())
}

fn stale(report: &Report, out: &mut impl Write) -> io::Result<()> {
    let stale = report.stale_fixtures();
    let unused = report.unused_expectations();
    if stale.is_empty() && unused.is_empty() {
        return Ok(());
    }
    let effect = if report.summary.strict {
        "fails the gate (strict)"
    } else {
        "reported only (not strict)"
    };
    writeln!(
        out,
        "### Stale known failures ({})",
        stale.len() + unused.len()
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "Listed in `expectations.toml` but no longer failing: remove the entry. This {effect}."
    )?;
    writeln!(out)?;
    for f in stale.iter().take(MAX_ROWS) {
        let rules: Vec<String> = f.fixed.iter().map(|r| code(r, false)).collect();
        let rules = if rules.is_empty() {
            "its listed rules".to_string()
        } else {
            rules.join(", ")
        };
        writeln!(
            out,
            "- {} now passes {rules}: fixed, remove the entry",
            code(&format!("{}/{}", f.provider, f.name), false)
        )?;
    }
    for o in unused.iter().take(MAX_ROWS) {
        writeln!(out, "- {}: {}", code(&o.subject, false), text(&o.message))?;
    }
    writeln!(out)?;
    Ok(())
}

fn known(report: &Report, out: &mut impl Write) -> io::Result<()> {
    let known: Vec<_> = report
        .fixtures
        .shown()
        .flat_map(|f| f.violations.iter().map(move |v| (f, v)))
        .filter(|(_, v)| v.known)
        .collect();
    if known.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "<details><summary>Known failures ({})</summary>",
        known.len()
    )?;
    writeln!(out)?;
    writeln!(out, "| Fixture | Rule | Reason |")?;
    writeln!(out, "| :-- | :-- | :-- |")?;
    for (f, v) in known.iter().take(MAX_ROWS) {
        writeln!(
            out,
            "| {} | {} {} | {} |",
            code(&format!("{}/{}", f.provider, f.name), true),
            code(&v.rule, true),
            text(&v.rule_name),
            v.reason.as_deref().map(text).unwrap_or_default(),
        )?;
    }
    if known.len() > MAX_ROWS {
        writeln!(out, "| … {} more | | |", known.len() - MAX_ROWS)?;
    }
    writeln!(out)?;
    writeln!(out, "</details>")?;
    writeln!(out)?;
    Ok(())
}

fn orphans(report: &Report, out: &mut impl Write) -> io::Result<()> {
    if report.orphans.is_empty() {
        return Ok(());
    }
    writeln!(out, "### Orphans ({})", report.orphans.len())?;
    writeln!(out)?;
    writeln!(out, "| Kind | Subject | Problem |")?;
    writeln!(out, "| :-- | :-- | :-- |")?;
    for o in report.orphans.iter().take(MAX_ROWS) {
        let kind = match o.kind {
            OrphanKind::MissingExpected => "missing expected",
            OrphanKind::MissingFixture => "missing fixture",
            OrphanKind::UnusedExpectation => "unused expectation",
        };
        writeln!(
            out,
            "| {kind} | {} | {} |",
            code(&o.subject, true),
            text(&o.message)
        )?;
    }
    if report.orphans.len() > MAX_ROWS {
        writeln!(out, "| … {} more | | |", report.orphans.len() - MAX_ROWS)?;
    }
    writeln!(out)?;
    Ok(())
}

/// Untrusted text as inline markdown: one line, clipped, with HTML metacharacters as entities
/// (GitHub renders raw HTML) and markdown punctuation backslash-escaped (valid in table cells too).
pub(crate) fn text(s: &str) -> String {
    let s = truncate(s, MAX_TEXT);
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\n' | '\r' | '\t' => out.push(' '),
            // Inline markdown syntax: emphasis, code, links and images, table cells, headings
            // (`#`), strikethrough, GitHub math (`$`) and mentions (`@`). Line-start syntax
            // (`-`, `+`, `1.`, `>`) cannot occur: provider text never starts a line.
            '\\' | '`' | '*' | '_' | '[' | ']' | '#' | '!' | '|' | '~' | '$' | '@' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Untrusted text as a code span: one line, clipped, fenced with more backticks than the longest
/// run inside. In a table cell (`in_table`) `|` must still be escaped: GFM splits cells first.
pub(crate) fn code(s: &str, in_table: bool) -> String {
    let mut s: String = truncate(s, MAX_TEXT)
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if in_table {
        s = s.replace('|', "\\|");
    }
    if s.is_empty() {
        // "``" would read as two literal backticks, not an empty span.
        return "` `".to_string();
    }
    let fence = "`".repeat(longest_run(&s, '`') + 1);
    // A span starting or ending with a backtick needs a space inside the fence.
    let pad = if s.starts_with('`') || s.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{s}{pad}{fence}")
}

fn longest_run(s: &str, ch: char) -> usize {
    let (mut best, mut run) = (0, 0);
    for c in s.chars() {
        if c == ch {
            run += 1;
            best = best.max(run);
        } else {
            run = 0;
        }
    }
    best
}

fn duration(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::sample::sample_report;

    fn rendered(report: &Report) -> String {
        let mut buf = Vec::new();
        render(report, &mut buf).expect("writing to a Vec cannot fail");
        String::from_utf8(buf).expect("markdown is UTF-8")
    }

    #[test]
    fn summary_of_the_sample_report() {
        insta::assert_snapshot!(rendered(&sample_report()));
    }

    #[test]
    fn no_raw_html_from_provider_data() {
        let md = rendered(&sample_report());
        // Outside code spans and fences every `<` is ours: the only tags are details/summary/sub.
        let mut in_fence = false;
        for line in md.lines() {
            if line.starts_with("```") {
                in_fence = !in_fence;
                continue;
            }
            if in_fence {
                continue;
            }
            let without_code = strip_code_spans(line);
            for tag in ["<script", "<img", "<b>"] {
                assert!(
                    !without_code.contains(tag),
                    "raw {tag} outside code in: {line}"
                );
            }
        }
    }

    fn strip_code_spans(line: &str) -> String {
        let mut out = String::new();
        let mut rest = line;
        while let Some(start) = rest.find('`') {
            out.push_str(&rest[..start]);
            let run = rest[start..].chars().take_while(|&c| c == '`').count();
            let fence = "`".repeat(run);
            let after = &rest[start + run..];
            match after.find(&fence) {
                Some(end) => rest = &after[end + run..],
                None => {
                    rest = after;
                    break;
                }
            }
        }
        out.push_str(rest);
        out
    }

    #[test]
    fn clean_rules_get_no_column() {
        let mut r = sample_report();
        r.rules.push(RuleInfo {
            code: "TN099".into(),
            name: "AlwaysClean".into(),
            summary: "never fails".into(),
        });
        for p in ["claude", "codex", "opencode"] {
            r.matrix.push(MatrixCell {
                provider: p.into(),
                rule: "TN099".into(),
                checked: 3,
                violations: 0,
                known: 0,
            });
        }
        let md = rendered(&r);
        assert!(!md.contains("| `TN099` |"), "{md}");
        assert!(md.contains("1 other rules pass on every fixture checked: `TN099`."));
    }

    #[test]
    fn passing_report_is_short() {
        let mut r = sample_report();
        r.fixtures
            .edit(|v| v.retain(|f| f.status == Status::Pass))
            .unwrap();
        r.orphans.clear();
        r.summary = crate::report::model::summary(&r.fixtures, &r.orphans, r.summary.strict);
        let md = rendered(&r);
        assert!(md.starts_with("## ✅ toolnorm verify: passed"));
        assert!(!md.contains("Failing fixtures"));
        assert!(!md.contains("Orphans"));
    }

    proptest::proptest! {
        /// Any text stays one line with no raw HTML; a code span stays one span.
        #[test]
        fn inline_text_is_inert(s in "\\PC*") {
            let t = text(&s);
            proptest::prop_assert!(!t.contains(['<', '>', '\n', '\r']));
            let c = code(&s, true);
            proptest::prop_assert!(!c.contains(['\n', '\r']));
            let fence = c.chars().take_while(|&ch| ch == '`').count();
            proptest::prop_assert!(longest_run(&c[fence..c.len() - fence], '`') < fence);
        }
    }

    #[test]
    fn code_spans_survive_backticks_and_pipes() {
        assert_eq!(code("a`b", false), "``a`b``");
        assert_eq!(code("`x`", false), "`` `x` ``");
        assert_eq!(code("a|b", true), "`a\\|b`");
        assert_eq!(text("<b>*x*</b>\nnext"), "&lt;b&gt;\\*x\\*&lt;/b&gt; next");
    }
}
