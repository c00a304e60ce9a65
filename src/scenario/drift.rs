//! `scenario drift`: re-record one CLI's scenarios with another version into a temporary corpus
//! and verify them against the current expected outputs, so the report shows exactly what the new
//! version changed.
//!
//! A drift run has one verdict. The new recordings are verified like any fixture, rules
//! included, except that each output is compared with its expected file in their stable forms
//! ([`crate::compare::volatile`]): what two recordings of one session differ in while nothing
//! changed (timing, ids drawn per run, the order of parallel calls) is left out there, in that one
//! place. A scenario that could not be recorded, or whose session did not go as scripted, is a
//! failing fixture of the same report. Every report is written from that one [`Report`]: the
//! terminal, `report.json`, `junit.xml`, `summary.md`, `index.html` and `drift.md` (per scenario:
//! unchanged, or what changed), and the command's exit code follows its verdict.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use super::agents;
use super::launch::RunOptions;
use super::package::Cli;
use super::run::run_scenario;
use super::spec::Scenario;
use crate::compare::CompareMode;
use crate::report::{self, FixtureResult, Report, Status, terminal};
use crate::verify::{Selection, VerifyOptions, verify};

#[derive(Debug, Clone)]
pub struct DriftOptions {
    /// `NAME@VERSION`.
    pub cli: String,
    pub names: Vec<String>,
    pub expected: PathBuf,
    pub reports: PathBuf,
    /// Keep the new recordings here (default: a temporary folder, removed afterwards).
    pub corpus: Option<PathBuf>,
    /// Verify strictly (see `toolnorm verify --strict`).
    pub strict: bool,
    /// Scenarios recorded at once (0: one per CPU core, `scenario drift`'s default).
    pub jobs: usize,
}

/// What a drift check found: the report of the new recordings (written under the reports folder,
/// with `drift.md`), whose verdict is the drift's.
#[derive(Debug)]
pub struct DriftOutcome {
    pub scenarios: usize,
    /// Scenarios whose new recording fails the gate: changed, breaking a rule, or not recorded.
    pub changed: usize,
    /// Scenarios that changed in a first recording and not in a second: the CLI's own
    /// unsteadiness, not the release's change (they pass; `drift.md` shows the first diff).
    pub unsteady: usize,
    pub report: Report,
    pub drift_md: PathBuf,
}

/// Split `claude@2.1.198` into the CLI and the version.
pub fn parse_cli_spec(spec: &str) -> anyhow::Result<(&'static Cli, String)> {
    let (name, version) = spec.rsplit_once('@').filter(|(n, v)| !n.is_empty() && !v.is_empty()).with_context(|| {
        format!("--cli {spec:?}: expected NAME@VERSION, e.g. claude@2.1.198, codex@0.172.0, opencode@1.18.34")
    })?;
    let cli = agents::cli_named(name).with_context(|| {
        format!(
            "--cli {spec:?}: unknown CLI {name:?} ({})",
            agents::cli_names()
        )
    })?;
    Ok((cli, version.to_owned()))
}

/// The scenarios of `cli` named in `names` (`live-` prefix allowed), or all of its scenarios when
/// none is named; none at all is an error.
pub(crate) fn choose<'a>(
    all: &'a [Scenario],
    cli: &'static Cli,
    names: &[String],
) -> anyhow::Result<Vec<&'a Scenario>> {
    let chosen: Vec<&Scenario> = all
        .iter()
        .filter(|s| agents::of(s).is_ok_and(|a| a.cli == cli))
        .filter(|s| {
            names.is_empty()
                || names
                    .iter()
                    .any(|n| n.strip_prefix("live-").unwrap_or(n) == s.name)
        })
        .collect();
    if chosen.is_empty() {
        bail!("no scenario of {} matches", cli.display);
    }
    Ok(chosen)
}

/// What went wrong with a scenario's session itself, for its fixture's result.
#[derive(Clone, Debug)]
pub struct Trouble {
    pub provider: String,
    /// The fixture's name (`live-<scenario>`).
    pub name: String,
    /// `fail` (the session did not go as scripted) or `error` (no recording).
    pub status: Status,
    pub message: String,
}

/// New recordings to judge against expected outputs: the second half of a drift run.
#[derive(Clone, Debug)]
pub struct Judge {
    /// `codex-cli 0.171.0`, as `drift.md` titles it.
    pub title: String,
    /// The folder of the new recordings (`<provider>/<name>.jsonl.zst`).
    pub corpus: PathBuf,
    /// Their expected outputs.
    pub expected: PathBuf,
    /// The known failures.
    pub expectations: PathBuf,
    /// The recordings to judge, `provider/name`.
    pub fixtures: Vec<String>,
    /// What went wrong while recording (the scenarios without a recording included).
    pub trouble: Vec<Trouble>,
    /// The failing results of a first recording of scenarios recorded again (empty on a first
    /// judging): a scenario that passes now changed in one recording only, which `drift.md`
    /// shows beside its verdict.
    pub earlier: Vec<FixtureResult>,
    pub reports: PathBuf,
    pub strict: bool,
}

/// Run the drift check.
pub fn run(all: &[Scenario], opts: &DriftOptions) -> anyhow::Result<DriftOutcome> {
    let (cli, version) = parse_cli_spec(&opts.cli)?;
    let chosen = choose(all, cli, &opts.names)?;
    // A program the agent needs from the machine is missing: that is no verdict on the release.
    super::sandbox::check_programs(cli)?;
    // Nor is a release that cannot be installed: that stops the drift before any recording.
    super::npm::ensure(cli, &version)
        .with_context(|| format!("failed to install {}@{version}", cli.package))?;
    let temp = std::env::temp_dir().join(format!("toolnorm-drift-{}", std::process::id()));
    let corpus = opts.corpus.clone().unwrap_or_else(|| temp.join("corpus"));
    let expected = temp.join("expected");
    fs::create_dir_all(&expected)
        .with_context(|| format!("failed to create {}", expected.display()))?;

    let run_opts = RunOptions {
        corpus: corpus.clone(),
        force: true,
        keep_scratch: false,
        request_logs: Some(opts.reports.join("requests")),
        version_override: Some(version.clone()),
        raw: false,
    };
    let rec = Recorder {
        cli,
        version: &version,
        run_opts: &run_opts,
        expected_from: &opts.expected,
        expected_to: &expected,
        corpus: &corpus,
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs)
        .build()
        .context("failed to start the recording threads")?;
    let all: Vec<Option<&Scenario>> = chosen.iter().map(|s| Some(*s)).collect();
    let mut recordings: Vec<Recording> =
        rec.record_all(&pool, &all)?.into_iter().flatten().collect();
    let judge_with = |recordings: &[Recording], earlier: Vec<FixtureResult>| {
        let recorded: Vec<String> = recordings.iter().flat_map(|r| r.fixtures.clone()).collect();
        if recorded.is_empty() {
            return Err(anyhow::anyhow!(
                "no scenario could be re-recorded with {}@{version}",
                cli.display
            ));
        }
        judge(Judge {
            title: format!("{} {version}", cli.display),
            corpus: corpus.clone(),
            expected: expected.clone(),
            expectations: PathBuf::from("expectations.toml"),
            fixtures: recorded,
            trouble: recordings.iter().flat_map(|r| r.trouble.clone()).collect(),
            earlier,
            reports: opts.reports.clone(),
            strict: opts.strict,
        })
    };
    let mut judged = judge_with(&recordings, Vec::new());
    // A scenario that changed is recorded once more, and judged on that second recording: a CLI
    // that races with itself (Qwen Code now and then loses a fast command's output) changes one
    // recording, a release changes both. The first recording's result stays in drift.md.
    if let Ok(first) = &judged
        && first.changed > 0
    {
        let earlier = failing(&first.report)?;
        let changed = |s: &Scenario| {
            earlier
                .iter()
                .any(|f| f.name == s.fixture_name() || f.name == s.transcript_fixture_name())
        };
        eprintln!(
            "{} scenario(s) changed: recording them once more, to tell a release's change from a \
             CLI's unsteadiness",
            chosen.iter().filter(|s| changed(s)).count()
        );
        let again: Vec<Option<&Scenario>> =
            chosen.iter().map(|s| changed(s).then_some(*s)).collect();
        for (new, recording) in rec
            .record_all(&pool, &again)?
            .into_iter()
            .zip(&mut recordings)
        {
            if let Some(new) = new {
                *recording = new;
            }
        }
        judged = judge_with(&recordings, earlier);
    }
    if opts.corpus.is_none() {
        let _ = fs::remove_dir_all(&temp);
    } else {
        let _ = fs::remove_dir_all(&expected);
    }
    judged
}

/// Records scenarios into a drift's corpus and copies their expected files beside them.
struct Recorder<'a> {
    cli: &'static Cli,
    version: &'a str,
    run_opts: &'a RunOptions,
    /// The expected outputs (`--expected`) and the drift's own copy of those it judges.
    expected_from: &'a Path,
    expected_to: &'a Path,
    corpus: &'a Path,
}

/// One scenario's recording in a drift: its fixtures (`provider/name`: the recording, and the
/// transcript kept beside it) and what went wrong.
struct Recording {
    fixtures: Vec<String>,
    trouble: Vec<Trouble>,
}

impl Recorder<'_> {
    /// Record the scenarios given (`None`: not this time) on `pool`'s threads, each into its own
    /// scratch folder; the results in the order given. A scenario interrupted at a fixed time
    /// (`interrupt_after_secs` without `interrupt_when_running`) is recorded afterwards, alone: on
    /// a machine busy with the others, its agent might not have printed anything by then. One
    /// interrupted once its command runs goes with the others.
    fn record_all(
        &self,
        pool: &rayon::ThreadPool,
        scenarios: &[Option<&Scenario>],
    ) -> anyhow::Result<Vec<Option<Recording>>> {
        use rayon::prelude::*;
        let alone =
            |s: &Scenario| s.interrupt_after_secs.is_some() && s.interrupt_when_running.is_none();
        let mut recorded: Vec<Option<Recording>> = pool.install(|| {
            scenarios
                .par_iter()
                .map(|s| match s {
                    Some(s) if !alone(s) => self.record(s).map(Some),
                    _ => Ok(None),
                })
                .collect::<anyhow::Result<_>>()
        })?;
        for (s, slot) in scenarios.iter().zip(&mut recorded) {
            if let Some(s) = s.filter(|s| alone(s)) {
                *slot = Some(self.record(s)?);
            }
        }
        Ok(recorded)
    }

    /// Record scenario `s`.
    fn record(&self, s: &Scenario) -> anyhow::Result<Recording> {
        let (cli, version, run_opts, corpus) = (self.cli, self.version, self.run_opts, self.corpus);
        let mut recorded: Vec<String> = Vec::new();
        let mut trouble: Vec<Trouble> = Vec::new();
        eprintln!("re-recording {} with {}@{version}", s.name, cli.display);
        let provider = agents::of(s)?.provider.as_str().to_owned();
        let name = s.fixture_name();
        // A session that could not run at all (the CLI exited at once, a timeout) is tried once
        // more: one failed start on a loaded machine says nothing about the release.
        let recording = run_scenario(s, run_opts).or_else(|e| {
            eprintln!("  {}: error: {e:#}; trying once more", s.name);
            run_scenario(s, run_opts)
        });
        match recording {
            Ok(o) => {
                eprintln!("  {}: recorded in {:.1}s", s.name, o.elapsed.as_secs_f64());
                for p in &o.problems {
                    eprintln!("  {}: problem: {p}", s.name);
                }
                // The recording, and the session transcript kept beside it (`transcript`). An
                // all-tools scenario (`*-all-tools`) is there for what its release declares (checked
                // below), not for its one-text-turn session, which has no expected output.
                let declares_only = super::declared::Features::of_scenario(&s.name)
                    == super::declared::Features::All;
                if declares_only {
                    let path = corpus.join(&provider).join(format!("{name}.jsonl.zst"));
                    fs::remove_file(&path)
                        .with_context(|| format!("failed to remove {}", path.display()))?;
                }
                let mut names = if declares_only {
                    Vec::new()
                } else {
                    vec![name.clone()]
                };
                if o.transcript.is_some() {
                    names.push(s.transcript_fixture_name());
                }
                for fixture in names {
                    // Verify compares only what was re-recorded: copy just these expected files.
                    let rel = Path::new(&provider).join(format!("{fixture}.json"));
                    let from = self.expected_from.join(&rel);
                    if from.exists() {
                        let to = self.expected_to.join(&rel);
                        if let Some(p) = to.parent() {
                            fs::create_dir_all(p)
                                .with_context(|| format!("failed to create {}", p.display()))?;
                        }
                        fs::copy(&from, &to)
                            .with_context(|| format!("failed to copy {}", from.display()))?;
                    }
                    recorded.push(format!("{provider}/{fixture}"));
                }
                if !o.problems.is_empty() {
                    trouble.push(Trouble {
                        provider: provider.clone(),
                        name: name.clone(),
                        status: Status::Fail,
                        message: format!(
                            "the session did not go as scripted: {}",
                            o.problems.join("; ")
                        ),
                    });
                }
                // A built-in tool the release declares without a title here is a change the release
                // made, whatever the parts.
                if let Some(new) =
                    super::declared::untitled(cli, &o.declared).filter(|n| !n.is_empty())
                {
                    eprintln!("  {}: untitled tools: {}", s.name, new.join(", "));
                    trouble.push(Trouble {
                        provider,
                        name,
                        status: Status::Fail,
                        message: format!(
                            "the release declares built-in tools the normalizer has no title and kind for: {}",
                            new.join(", ")
                        ),
                    });
                }
            }
            Err(e) => {
                eprintln!("  error: {}: {e:#}", s.name);
                // Half a session is not judged: the error says what happened.
                let _ = fs::remove_file(corpus.join(&provider).join(format!("{name}.jsonl.zst")));
                trouble.push(Trouble {
                    provider,
                    name,
                    status: Status::Error,
                    message: format!("not re-recorded with {}@{version}: {e:#}", cli.display),
                });
            }
        }
        Ok(Recording {
            fixtures: recorded,
            trouble,
        })
    }
}

/// Verify the new recordings against their expected outputs in their stable forms, add what went
/// wrong while recording, and write every report (`drift.md` included) from the one result.
pub fn judge(j: Judge) -> anyhow::Result<DriftOutcome> {
    let verified = verify(
        &VerifyOptions {
            implementation: std::sync::Arc::new(
                crate::verify::implementation::Implementation::BuiltIn,
            ),
            require_all: false,
            corpus: j.corpus.clone(),
            expected: j.expected.clone(),
            reports: j.reports.clone(),
            expectations: j.expectations.clone(),
            expectations_required: false,
            jobs: 0,
            // The recordings of this run are the selection: the known failures of other
            // fixtures are not this run's to judge.
            selection: Selection {
                filter: Some(any_of(&j.fixtures)),
                ..Selection::default()
            },
            fail_fast: false,
            strict: j.strict,
            write_pending: true,
            compare: CompareMode::Stable,
            timings: None,
        },
        &|_| {},
        &|_| {},
    );
    let report = verified.context("failed to verify the new recordings")?;
    let report = with_trouble(report, j.trouble)?;
    report::write_all(&report, &j.reports)?;
    let drift_md = j.reports.join("drift.md");
    fs::write(&drift_md, markdown(&j.title, &report, &j.earlier)?)
        .with_context(|| format!("failed to write {}", drift_md.display()))?;
    let failed = failing(&report)?;
    let unsteady = j
        .earlier
        .iter()
        .filter(|e| {
            !failed
                .iter()
                .any(|f| f.provider == e.provider && f.name == e.name)
        })
        .count();
    Ok(DriftOutcome {
        scenarios: report.fixtures.len(),
        changed: failed.len(),
        unsteady,
        report,
        drift_md,
    })
}

/// A glob selecting exactly these `provider/name` fixtures.
fn any_of(fixtures: &[String]) -> String {
    let escaped: Vec<String> = fixtures
        .iter()
        .map(|f| {
            f.chars()
                .flat_map(|c| {
                    let special = matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | ',' | '\\');
                    special.then_some('\\').into_iter().chain([c])
                })
                .collect()
        })
        .collect();
    format!("{{{}}}", escaped.join(","))
}

/// The report with each scenario's trouble in its fixture's result (a result of its own when the
/// scenario left no recording), rebuilt so the counts and the verdict include it.
fn with_trouble(report: Report, trouble: Vec<Trouble>) -> anyhow::Result<Report> {
    if trouble.is_empty() {
        return Ok(report);
    }
    let mut fixtures = report
        .fixtures
        .to_vec()
        .context("failed to read back the results")?;
    for t in trouble {
        match fixtures
            .iter_mut()
            .find(|f| f.provider == t.provider && f.name == t.name)
        {
            Some(f) => {
                f.message = Some(match f.message.take() {
                    Some(m) => format!("{}; {m}", t.message),
                    None => t.message,
                });
                if !f.status.fails_gate(true) {
                    f.status = t.status;
                }
            }
            None => fixtures.push(FixtureResult {
                path: format!("{}/{}.jsonl.zst", t.provider, t.name),
                provider: t.provider,
                name: t.name,
                dialect: None,
                status: t.status,
                diff: None,
                legacy_diff: None,
                violations: Vec::new(),
                message: Some(t.message),
                raw_lines: Default::default(),
                fixed: Vec::new(),
                formatting: Vec::new(),
                wire: None,
                parts: 0,
                raw_bytes: 0,
                duration_ms: 0,
            }),
        }
    }
    let mut rebuilt = Report::build(
        report.rules,
        fixtures,
        report.orphans,
        report.summary.strict,
        report.shard,
    )
    .with_skipped(report.skipped);
    rebuilt.implementation = report.implementation;
    rebuilt.summary.require_all = report.summary.require_all;
    rebuilt.summary.duration_ms = report.summary.duration_ms;
    Ok(rebuilt)
}

/// The fixtures that fail the gate, in report order.
fn failing(report: &Report) -> anyhow::Result<Vec<FixtureResult>> {
    let strict = report.summary.strict;
    Ok(report
        .fixtures
        .to_vec()
        .context("failed to read back the results")?
        .into_iter()
        .filter(|f| f.status.fails_gate(strict))
        .collect())
}

/// `drift.md`: the verdict and the terminal's closing line, then one section per scenario. A
/// scenario in `earlier` (failing in a first recording) was recorded twice: it is judged on the
/// second, and the first's result follows its verdict.
pub fn markdown(title: &str, report: &Report, earlier: &[FixtureResult]) -> anyhow::Result<String> {
    let fixtures = report
        .fixtures
        .to_vec()
        .context("failed to read back the results")?;
    let strict = report.summary.strict;
    let changed = fixtures
        .iter()
        .filter(|f| f.status.fails_gate(strict))
        .count();
    let verdict = if report.summary.fails_gate() {
        "FAIL"
    } else {
        "PASS"
    };
    let mut md = format!(
        "# Drift: {title}\n\n**{verdict}**: {} scenario(s), {changed} changed, {} unchanged.\n\n`{}`\n\n\
         Each new recording is verified against the committed expected output, rules included, \
         with the volatile fields left out: timing, the ids a CLI draws or numbers per run, the \
         order of calls that finish in any order (parts are matched by what they are). Diffs are \
         of those stable forms, the committed output (`-`) against the new recording (`+`). \
         verify's full report is beside this file (index.html, report.json, junit.xml). A \
         scenario that changed was recorded once more and is judged on that second recording.\n\n",
        fixtures.len(),
        fixtures.len() - changed,
        terminal::summary_line(report),
    );
    for f in &fixtures {
        let scenario = f.name.strip_prefix("live-").unwrap_or(&f.name);
        let what = match f.status {
            Status::Pass | Status::Xfail => "unchanged",
            Status::Xpass if !strict => "unchanged (a known failure no longer fails)",
            Status::Error => "not re-recorded",
            _ if f.diff.is_some() => "changed",
            _ => "failed",
        };
        let first = earlier
            .iter()
            .find(|e| e.provider == f.provider && e.name == f.name);
        let passes = !f.status.fails_gate(strict);
        let twice = match first {
            None => "",
            Some(_) if passes => {
                " in a second recording; the first changed (the CLI's own unsteadiness)"
            }
            Some(_) => " in two recordings",
        };
        md.push_str(&format!("## {scenario}: {what}{twice}\n\n"));
        if let Some(m) = &f.message {
            md.push_str(&format!("{m}\n\n"));
        }
        let unexpected: Vec<_> = f.violations.iter().filter(|v| !v.known).collect();
        if !unexpected.is_empty() {
            md.push_str("Rules broken by the new recording:\n\n");
            for v in unexpected {
                let line = v.line.map(|l| format!(" (line {l})")).unwrap_or_default();
                md.push_str(&format!(
                    "- {} {}{line}: {}\n",
                    v.rule, v.rule_name, v.message
                ));
            }
            md.push('\n');
        }
        if let Some(d) = &f.diff {
            md.push_str(&fenced_diff(&d.unified));
        }
        if let Some(e) = first.filter(|_| passes) {
            md.push_str("The first recording:\n\n");
            if let Some(m) = &e.message {
                md.push_str(&format!("{m}\n\n"));
            }
            if let Some(d) = &e.diff {
                md.push_str(&fenced_diff(&d.unified));
            }
        }
    }
    for o in &report.orphans {
        md.push_str(&format!("- orphan: {}\n", o.message));
    }
    for s in &report.skipped {
        md.push_str(&format!("- skipped: {}\n", s.message));
    }
    Ok(md)
}

/// A diff in a fence longer than any run of backticks in it.
fn fenced_diff(unified: &str) -> String {
    let fence = "`".repeat(3.max(longest_backtick_run(unified) + 1));
    format!("{fence}diff\n{unified}{fence}\n\n")
}

fn longest_backtick_run(s: &str) -> usize {
    s.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::expectations::{FixtureKey, fixture_glob, glob_selects};

    #[test]
    fn the_selection_is_exactly_the_recorded_fixtures() {
        let glob = fixture_glob(&any_of(&[
            "codex/live-codex-exec-shell".to_owned(),
            "codex/live-a,b{c}".to_owned(),
        ]))
        .unwrap();
        let key = |name: &str| {
            glob_selects(
                &glob,
                FixtureKey {
                    provider: "codex",
                    name,
                    path: &format!("codex/{name}.jsonl.zst"),
                },
            )
        };
        assert!(key("live-codex-exec-shell"));
        assert!(key("live-a,b{c}"));
        assert!(!key("live-codex-exec-shell2"));
        assert!(!key("live-codex-exec-plan"));
    }
}
