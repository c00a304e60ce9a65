//! The compliance matrix of several implementations (`report merge` of their reports), like
//! Bowtie's: implementation × provider (fixtures passed, failed, unsupported) and implementation ×
//! provider × rule (fixtures violating / checked), in the terminal, markdown and HTML. Each
//! implementation keeps its full report (with its diffs) in its own folder, which the HTML links.

use std::collections::BTreeSet;
use std::io::{self, Write};

use serde::Serialize;

use super::html::fixture_anchor;
use super::{FixtureResult, ImplementationInfo, MatrixCell, Report, RuleInfo, Status};

/// Several implementations' reports, side by side.
#[derive(Clone, Debug, PartialEq)]
pub struct Compliance {
    /// Sorted by implementation name; each one's own folder name is [`Compliance::folders`].
    pub reports: Vec<Report>,
    pub providers: Vec<String>,
    pub rules: Vec<RuleInfo>,
}

/// One implementation's fixtures of one provider, by verdict.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Tally {
    pub passed: u32,
    pub failed: u32,
    pub errored: u32,
    pub unsupported: u32,
    /// xfail and xpass.
    pub known: u32,
}

impl Tally {
    pub fn judged(&self) -> u32 {
        self.passed + self.failed + self.errored + self.known
    }
}

/// `compliance.json`: the two matrices, for tools.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ComplianceJson<'a> {
    implementations: Vec<ImplJson<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ImplJson<'a> {
    implementation: ImplementationInfo,
    folder: &'a str,
    fails_gate: bool,
    providers: Vec<(String, Tally)>,
    matrix: &'a [MatrixCell],
}

impl Compliance {
    pub fn build(mut reports: Vec<Report>) -> Compliance {
        reports.sort_by_key(|r| Self::info(r).label());
        let providers: BTreeSet<String> = reports
            .iter()
            .flat_map(|r| r.providers().into_iter().map(str::to_owned))
            .collect();
        let mut rules: Vec<RuleInfo> = Vec::new();
        for r in &reports {
            for rule in &r.rules {
                if !rules.iter().any(|x| x.code == rule.code) {
                    rules.push(rule.clone());
                }
            }
        }
        rules.sort_by(|a, b| a.code.cmp(&b.code));
        Compliance {
            reports,
            providers: providers.into_iter().collect(),
            rules,
        }
    }

    pub fn info(r: &Report) -> ImplementationInfo {
        r.implementation
            .clone()
            .unwrap_or_else(ImplementationInfo::built_in)
    }

    /// Each implementation's folder under the merged reports: its name as a slug, made unique.
    pub fn folders(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for r in &self.reports {
            let base: String = Self::info(r)
                .label()
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '.' {
                        c.to_ascii_lowercase()
                    } else {
                        '-'
                    }
                })
                .collect();
            let base = base.trim_matches('-').to_owned();
            let base = if base.is_empty() {
                "implementation".to_owned()
            } else {
                base
            };
            let mut name = base.clone();
            let mut n = 2;
            while out.contains(&name) {
                name = format!("{base}-{n}");
                n += 1;
            }
            out.push(name);
        }
        out
    }

    pub fn tally(r: &Report, provider: &str) -> Tally {
        let mut t = Tally::default();
        for f in held(r).iter().filter(|f| f.provider == provider) {
            match f.status {
                Status::Pass => t.passed += 1,
                Status::Fail => t.failed += 1,
                Status::Error => t.errored += 1,
                Status::Unsupported => t.unsupported += 1,
                Status::Xfail | Status::Xpass => t.known += 1,
            }
        }
        t
    }

    /// Any implementation fails its gate.
    pub fn fails_gate(&self) -> bool {
        self.reports.iter().any(|r| r.summary.fails_gate())
    }

    /// Every fixture path of any implementation, sorted.
    fn fixture_paths(&self) -> Vec<(String, String, String)> {
        let all: BTreeSet<(String, String, String)> = self
            .reports
            .iter()
            .flat_map(|r| {
                held(r)
                    .iter()
                    .map(|f| (f.provider.clone(), f.name.clone(), f.path.clone()))
            })
            .collect();
        all.into_iter().collect()
    }

    fn cell_text(r: &Report, provider: &str, rule: &str) -> String {
        match r.cell(provider, rule) {
            Some(c) if c.checked == 0 => "–".to_owned(),
            Some(c) if c.known > 0 => format!("{}/{} +{}", c.violations, c.checked, c.known),
            Some(c) => format!("{}/{}", c.violations, c.checked),
            None => "–".to_owned(),
        }
    }

    fn tally_text(t: Tally) -> String {
        let mut s = format!("{}/{}", t.passed + t.known, t.judged());
        if t.unsupported > 0 {
            s.push_str(&format!(" ({} unsupp.)", t.unsupported));
        }
        s
    }
}

fn status_of<'r>(r: &'r Report, path: &str) -> Option<&'r FixtureResult> {
    held(r).iter().find(|f| f.path == path)
}

/// A report's fixtures: the reports compared are read back from `report.json`, so all are in
/// memory.
fn held(r: &Report) -> &[FixtureResult] {
    r.fixtures.as_slice().unwrap_or_default()
}

/// `compliance.json`.
pub fn render_json(c: &Compliance, out: &mut impl Write) -> io::Result<()> {
    let folders = c.folders();
    let doc = ComplianceJson {
        implementations: c
            .reports
            .iter()
            .zip(&folders)
            .map(|(r, folder)| ImplJson {
                implementation: Compliance::info(r),
                folder,
                fails_gate: r.summary.fails_gate(),
                providers: c
                    .providers
                    .iter()
                    .map(|p| (p.clone(), Compliance::tally(r, p)))
                    .collect(),
                matrix: &r.matrix,
            })
            .collect(),
    };
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}

/// The terminal view: the two matrices, then each implementation's verdict.
pub fn render_terminal(c: &Compliance, out: &mut impl Write) -> io::Result<()> {
    let names: Vec<String> = c
        .reports
        .iter()
        .map(|r| Compliance::info(r).label())
        .collect();
    let width = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0)
        .max(14);
    let wires: Vec<String> = c
        .reports
        .iter()
        .map(|r| Compliance::info(r).answers_in())
        .collect();
    let wire_width = wires
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0)
        .max(4);
    writeln!(out, "Compliance (fixtures passing / judged per provider)")?;
    write!(out, "{:width$}  {:wire_width$}", "", "wire")?;
    for p in &c.providers {
        write!(out, "  {p:>22}")?;
    }
    writeln!(out)?;
    for ((r, name), wire) in c.reports.iter().zip(&names).zip(&wires) {
        write!(out, "{name:width$}  {wire:wire_width$}")?;
        for p in &c.providers {
            write!(
                out,
                "  {:>22}",
                Compliance::tally_text(Compliance::tally(r, p))
            )?;
        }
        writeln!(out)?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "Rules (fixtures violating / checked, per implementation × provider)"
    )?;
    write!(out, "{:30}", "")?;
    for name in &names {
        let span = 10 * c.providers.len();
        write!(
            out,
            "  {:^span$}",
            crate::text::truncate_counted(name, span)
        )?;
    }
    writeln!(out)?;
    write!(out, "{:30}", "")?;
    for _ in &names {
        write!(out, "  ")?;
        for p in &c.providers {
            write!(out, "{:>10}", crate::text::truncate_counted(p, 9))?;
        }
    }
    writeln!(out)?;
    for rule in &c.rules {
        write!(out, "{:30}", format!("{} {}", rule.code, rule.name))?;
        for r in &c.reports {
            write!(out, "  ")?;
            for p in &c.providers {
                write!(out, "{:>10}", Compliance::cell_text(r, p, &rule.code))?;
            }
        }
        writeln!(out)?;
    }
    writeln!(out)?;
    for (r, name) in c.reports.iter().zip(&names) {
        let s = &r.summary;
        writeln!(
            out,
            "{}: {name}: {} passed, {} failed, {} errors, {} unsupported; {} violations",
            if s.fails_gate() { "FAIL" } else { "PASS" },
            s.passed,
            s.failed,
            s.errored,
            s.unsupported,
            s.violations
        )?;
    }
    Ok(())
}

fn md(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// `summary.md`: the matrices as markdown tables.
pub fn render_markdown(c: &Compliance, out: &mut impl Write) -> io::Result<()> {
    let verdict = if c.fails_gate() { "❌" } else { "✅" };
    writeln!(
        out,
        "## {verdict} toolnorm compliance: {} implementations\n",
        c.reports.len()
    )?;
    write!(out, "| implementation | wire |")?;
    for p in &c.providers {
        write!(out, " {} |", md(p))?;
    }
    writeln!(out, " verdict |")?;
    writeln!(out, "|---|---|{}---|", "---|".repeat(c.providers.len()))?;
    for r in &c.reports {
        let info = Compliance::info(r);
        write!(
            out,
            "| {} | {} |",
            md(&info.label()),
            md(&info.answers_in())
        )?;
        for p in &c.providers {
            write!(
                out,
                " {} |",
                Compliance::tally_text(Compliance::tally(r, p))
            )?;
        }
        writeln!(
            out,
            " {} |",
            if r.summary.fails_gate() {
                "fail"
            } else {
                "pass"
            }
        )?;
    }
    writeln!(out, "\n### Rules (fixtures violating / checked)\n")?;
    write!(out, "| rule |")?;
    for r in &c.reports {
        for p in &c.providers {
            write!(out, " {} · {} |", md(&Compliance::info(r).name), md(p))?;
        }
    }
    writeln!(out)?;
    writeln!(
        out,
        "|---|{}",
        "---|".repeat(c.providers.len() * c.reports.len())
    )?;
    for rule in &c.rules {
        write!(out, "| {} {} |", rule.code, md(&rule.name))?;
        for r in &c.reports {
            for p in &c.providers {
                write!(out, " {} |", Compliance::cell_text(r, p, &rule.code))?;
            }
        }
        writeln!(out)?;
    }
    Ok(())
}

fn esc(s: &str) -> String {
    html_escape::encode_text(s).into_owned()
}

const CSS: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1f2328}table{border-collapse:collapse;margin:8px 0 24px}\
th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:center;white-space:nowrap}th.l,td.l{text-align:left}\
thead th{background:#f6f8fa}.pass{background:#dafbe1}.fail{background:#ffebe9}.error{background:#ffd8b5}\
.unsupported{background:#eaeef2;color:#57606a}.xfail,.xpass{background:#fff8c5}.zero{color:#57606a}.bad{background:#ffebe9;font-weight:600}\
code{font-size:12px}a{color:#0969da}h1 small{font-weight:normal;color:#57606a}";

/// `index.html`: the matrices side by side, then every fixture's verdict per implementation,
/// each linking to that implementation's own report (with its diffs).
pub fn render_html(c: &Compliance, out: &mut impl Write) -> io::Result<()> {
    let folders = c.folders();
    write!(
        out,
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>toolnorm compliance</title><style>{CSS}</style></head><body>\
         <h1>toolnorm compliance <small>{} implementations · {} providers · {} rules</small></h1>",
        c.reports.len(),
        c.providers.len(),
        c.rules.len()
    )?;
    out.write_all(b"<h2>Implementations</h2><table><thead><tr><th class=\"l\">implementation</th><th class=\"l\">command</th><th class=\"l\">wire</th>")?;
    for p in &c.providers {
        write!(out, "<th>{}</th>", esc(p))?;
    }
    out.write_all(b"<th>verdict</th><th>report</th></tr></thead><tbody>")?;
    for (r, folder) in c.reports.iter().zip(&folders) {
        let info = Compliance::info(r);
        write!(
            out,
            "<tr><td class=\"l\"><strong>{}</strong></td><td class=\"l\"><code>{}</code></td><td class=\"l\">{}</td>",
            esc(&info.label()),
            esc(info.command.as_deref().unwrap_or("built in")),
            esc(&info.answers_in())
        )?;
        for p in &c.providers {
            let t = Compliance::tally(r, p);
            let class = if t.failed + t.errored > 0 {
                "fail"
            } else if t.judged() == 0 {
                "unsupported"
            } else {
                "pass"
            };
            write!(
                out,
                "<td class=\"{class}\">{}</td>",
                esc(&Compliance::tally_text(t))
            )?;
        }
        let fails = r.summary.fails_gate();
        write!(
            out,
            "<td class=\"{}\">{}</td><td><a href=\"{}/index.html\">diffs &amp; details</a></td></tr>",
            if fails { "fail" } else { "pass" },
            if fails { "fail" } else { "pass" },
            esc(folder)
        )?;
    }
    out.write_all(b"</tbody></table><h2>Rules</h2><p>Fixtures violating the rule / fixtures checked (+ known failures).</p><table><thead><tr><th class=\"l\" rowspan=\"2\">rule</th>")?;
    for r in &c.reports {
        write!(
            out,
            "<th colspan=\"{}\">{}</th>",
            c.providers.len(),
            esc(&Compliance::info(r).label())
        )?;
    }
    out.write_all(b"</tr><tr>")?;
    for _ in &c.reports {
        for p in &c.providers {
            write!(out, "<th>{}</th>", esc(p))?;
        }
    }
    out.write_all(b"</tr></thead><tbody>")?;
    for rule in &c.rules {
        write!(
            out,
            "<tr><td class=\"l\" title=\"{}\"><code>{}</code> {}</td>",
            esc(&rule.summary),
            esc(&rule.code),
            esc(&rule.name)
        )?;
        for r in &c.reports {
            for p in &c.providers {
                let class = match r.cell(p, &rule.code) {
                    Some(cell) if cell.violations > 0 => "bad",
                    Some(cell) if cell.checked == 0 => "unsupported",
                    None => "unsupported",
                    _ => "zero",
                };
                write!(
                    out,
                    "<td class=\"{class}\">{}</td>",
                    esc(&Compliance::cell_text(r, p, &rule.code))
                )?;
            }
        }
        out.write_all(b"</tr>")?;
    }
    out.write_all(
        b"</tbody></table><h2>Fixtures</h2><table><thead><tr><th class=\"l\">fixture</th>",
    )?;
    for r in &c.reports {
        write!(out, "<th>{}</th>", esc(&Compliance::info(r).label()))?;
    }
    out.write_all(b"</tr></thead><tbody>")?;
    for (provider, name, path) in c.fixture_paths() {
        write!(
            out,
            "<tr><td class=\"l\"><code>{}/{}</code></td>",
            esc(&provider),
            esc(&name)
        )?;
        for (r, folder) in c.reports.iter().zip(&folders) {
            match status_of(r, &path) {
                Some(f) => {
                    let mut what = f.status.as_str().to_owned();
                    let unexpected = f.violations.iter().filter(|v| !v.known).count();
                    if f.diff.is_some() {
                        what.push_str(" · diff");
                    }
                    if f.legacy_diff.is_some() {
                        what.push_str(" · legacy");
                    }
                    if unexpected > 0 {
                        what.push_str(&format!(" · {unexpected} viol."));
                    }
                    let title = f.message.as_deref().unwrap_or("");
                    write!(
                        out,
                        "<td class=\"{}\" title=\"{}\"><a href=\"{}/index.html#{}\">{}</a></td>",
                        f.status.as_str(),
                        esc(&crate::text::truncate_counted(title, 300)),
                        esc(folder),
                        fixture_anchor(&f.provider, &f.name),
                        esc(&what)
                    )?;
                }
                None => out.write_all(b"<td class=\"unsupported\">not run</td>")?,
            }
        }
        out.write_all(b"</tr>")?;
    }
    out.write_all(b"</tbody></table></body></html>\n")
}
