//! `verify`, the CI gate: normalize every fixture, compare with the reviewed expected outputs, run
//! every rule, apply the known failures, find orphans, and build the one [`Report`] every renderer
//! formats. [`compare`](crate::compare), [`expectations`] and [`shard`] are pure; [`runner`] does the file I/O.

pub mod accept;
mod derived_events;
pub mod expectations;
pub mod fmt;
pub mod implementation;
pub mod merge;
pub mod review;
pub mod runner;
pub mod shard;
pub mod timings;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Instant;

use globset::GlobMatcher;

use crate::corpus::confined::{Dirs, Skipped};
use crate::corpus::{FixtureEntry, FixtureIndex};
use crate::report::fixtures::Spooler;
use crate::report::{FixtureResult, Orphan, OrphanKind, Report, RuleInfo, SkippedEntry};
use crate::stream::Provider;
use expectations::{Expectations, ExpectationsError, FixtureKey, fixture_glob, glob_selects};
use runner::{CheckContext, Checked, index_fixtures, run_ordered, walk_expected};
use shard::Shard;
use timings::Phase;

/// Why verify could not run at all (exit 2). Everything wrong with a fixture is in the report.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error("failed to read the corpus {}: {source}", path.display())]
    Corpus { path: PathBuf, source: io::Error },
    #[error("failed to read the expected outputs {}: {source}", path.display())]
    Expected { path: PathBuf, source: io::Error },
    #[error("failed to read {}: {source}", path.display())]
    ReadExpectations { path: PathBuf, source: io::Error },
    #[error(transparent)]
    Expectations(#[from] ExpectationsError),
    #[error("failed to write {}: {source}", path.display())]
    Write { path: PathBuf, source: io::Error },
    #[error("invalid --filter glob: {0}")]
    Filter(#[from] globset::Error),
    #[error("failed to start the worker threads: {0}")]
    Pool(String),
}

/// Which fixtures a command works on: `--filter`, `--provider`, `--shard`.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    pub filter: Option<String>,
    pub provider: Option<Provider>,
    pub shard: Option<Shard>,
}

impl Selection {
    fn matcher(&self) -> Result<Option<GlobMatcher>, VerifyError> {
        Ok(match &self.filter {
            Some(g) => Some(fixture_glob(g)?),
            None => None,
        })
    }

    fn selects(&self, glob: Option<&GlobMatcher>, key: FixtureKey<'_>) -> bool {
        self.provider.is_none_or(|p| p.as_str() == key.provider)
            && glob.is_none_or(|g| glob_selects(g, key))
    }

    /// Whether an expectations entry that matches no fixture of the corpus is this run's to
    /// report as an orphan: always without `--filter` and `--provider` (`--shard` splits the
    /// fixtures, not the entries); with them, only when the entry is about the fixtures they
    /// select, that is when they select the entry's own pattern read as a fixture name (its
    /// first folder, or its `provider`, as the provider). So `verify --provider codex` says
    /// nothing of a Claude entry, and `--filter 'codex/live-*'` nothing of `codex/imported-*`,
    /// which the runs over those fixtures judge.
    pub fn owns_entry(&self, glob: Option<&GlobMatcher>, entry: &expectations::Entry) -> bool {
        if self.filter.is_none() && self.provider.is_none() {
            return true;
        }
        let pattern = entry.fixture.as_str();
        let (folder, rest) = pattern.split_once('/').unwrap_or(("", pattern));
        let name = rest.strip_suffix(".jsonl.zst").unwrap_or(rest);
        let provider = entry
            .provider
            .as_deref()
            .unwrap_or(folder)
            .to_ascii_lowercase();
        let path = format!("{provider}/{name}.jsonl.zst");
        self.selects(
            glob,
            FixtureKey {
                provider: &provider,
                name,
                path: &path,
            },
        )
    }

    /// The selected fixtures of a full listing, in listing order.
    pub fn apply(&self, all: &[FixtureEntry]) -> Result<Vec<FixtureEntry>, VerifyError> {
        Ok(self.apply_counted(all)?.0)
    }

    /// [`Selection::apply`], with how many fixtures `--filter` and `--provider` matched before
    /// `--shard` took its part.
    pub fn apply_counted(
        &self,
        all: &[FixtureEntry],
    ) -> Result<(Vec<FixtureEntry>, usize), VerifyError> {
        let glob = self.matcher()?;
        let mut picked: Vec<FixtureEntry> = all
            .iter()
            .filter(|f| self.selects(glob.as_ref(), f.key()))
            .cloned()
            .collect();
        let matching = picked.len();
        if let Some(shard) = self.shard {
            let sizes: Vec<(&str, u64)> = picked.iter().map(|f| (f.rel.as_str(), f.size)).collect();
            let assigned = shard::assign(&sizes, shard.count);
            let mut i = 0;
            picked.retain(|_| {
                let keep = assigned[i] == shard.index - 1;
                i += 1;
                keep
            });
        }
        Ok((picked, matching))
    }

    /// The selected fixtures of a corpus index, as positions in it (in its order), with how
    /// many fixtures `--filter` and `--provider` matched before `--shard` took its part. What
    /// is held is a position per selected fixture (and, with `--shard`, each matching fixture's
    /// path and size while the shards are drawn).
    pub fn pick(&self, index: &FixtureIndex) -> Result<(Vec<usize>, usize), VerifyError> {
        let glob = self.matcher()?;
        let mut picked: Vec<usize> = Vec::new();
        for i in 0..index.len() {
            let selects = match (&glob, self.provider) {
                (None, None) => true,
                _ => {
                    let rel = index.rel(i);
                    let key = FixtureKey {
                        provider: index.provider(i),
                        name: index.name(i),
                        path: &rel,
                    };
                    self.selects(glob.as_ref(), key)
                }
            };
            if selects {
                picked.push(i);
            }
        }
        let matching = picked.len();
        if let Some(shard) = self.shard {
            let rels: Vec<String> = picked.iter().map(|&i| index.rel(i)).collect();
            let sizes: Vec<(&str, u64)> = rels
                .iter()
                .zip(&picked)
                .map(|(rel, &i)| (rel.as_str(), index.size(i)))
                .collect();
            let assigned = shard::assign(&sizes, shard.count);
            drop(sizes);
            drop(rels);
            let mut k = 0;
            picked.retain(|_| {
                let keep = assigned[k] == shard.index - 1;
                k += 1;
                keep
            });
        }
        picked.shrink_to_fit();
        Ok((picked, matching))
    }
}

/// How many fixtures a run found at each step of its selection: the command line judges a run
/// that checked nothing by these.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Selected {
    /// Fixtures in the corpus.
    pub corpus: usize,
    /// Of those, matched by `--filter` and `--provider`.
    pub matching: usize,
    /// Of those, in this `--shard`: the fixtures checked.
    pub checked: usize,
}

#[derive(Clone)]
pub struct VerifyOptions {
    pub corpus: PathBuf,
    pub expected: PathBuf,
    pub reports: PathBuf,
    /// The expectations file; a missing file at the default path means no known failures.
    pub expectations: PathBuf,
    pub expectations_required: bool,
    pub jobs: usize,
    pub selection: Selection,
    pub fail_fast: bool,
    pub strict: bool,
    /// Write failing fixtures' actual outputs under `<reports>/pending/`.
    pub write_pending: bool,
    /// Who normalizes the fixtures.
    pub implementation: std::sync::Arc<implementation::Implementation>,
    /// `--require-all`: a fixture whose dialect the implementation does not claim fails the gate.
    pub require_all: bool,
    /// How outputs are compared with their expected files: exactly (the gate), or with the
    /// volatile fields of a re-recording left out (`scenario drift`).
    pub compare: crate::compare::CompareMode,
    /// `--timings`: where the run's time goes, phase by phase (`None`: nothing is measured).
    pub timings: Option<std::sync::Arc<timings::Timings>>,
}

/// Load the expectations file. A missing file is an empty list unless it was named explicitly.
pub fn load_expectations(path: &Path, required: bool) -> Result<Expectations, VerifyError> {
    let text = match fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound && !required => {
            return Ok(Expectations::default());
        }
        Err(source) => {
            return Err(VerifyError::ReadExpectations {
                path: path.to_owned(),
                source,
            });
        }
    };
    let codes: Vec<&str> = crate::rules::registry().iter().map(|r| r.code()).collect();
    Ok(Expectations::parse(
        &text,
        &path.display().to_string(),
        &codes,
    )?)
}

/// Run the gate. `tick` is called after each fixture (the progress bar); `total` receives the
/// number of fixtures selected before any is checked.
pub fn verify(
    opts: &VerifyOptions,
    total: &dyn Fn(usize),
    tick: &(dyn Fn(&FixtureResult) + Sync),
) -> Result<Report, VerifyError> {
    verify_counted(opts, total, tick).map(|(report, _)| report)
}

/// [`verify`], with how many fixtures the selection found at each step.
pub fn verify_counted(
    opts: &VerifyOptions,
    total: &dyn Fn(usize),
    tick: &(dyn Fn(&FixtureResult) + Sync),
) -> Result<(Report, Selected), VerifyError> {
    let started = Instant::now();
    let timings = opts.timings.as_deref().unwrap_or(&timings::OFF);
    let mut index = index_fixtures(&opts.corpus)?;
    let mut skipped = std::mem::take(&mut index.skipped);
    let expectations = load_expectations(&opts.expectations, opts.expectations_required)?;
    let (selected, matching) = opts.selection.pick(&index)?;
    let counts = Selected {
        corpus: index.len(),
        matching,
        checked: selected.len(),
    };
    total(selected.len());

    // Orphans are judged against the whole corpus, so a filtered or sharded run never calls an
    // entry or expected file orphaned because its fixture lives elsewhere; and an entry that
    // matches nothing is reported only by the runs whose selection it is about.
    let mut usage = expectations.usage();
    if !expectations.is_empty() {
        for i in 0..index.len() {
            let rel = index.rel(i);
            usage.see(FixtureKey {
                provider: index.provider(i),
                name: index.name(i),
                path: &rel,
            });
        }
    }
    let glob = opts.selection.matcher()?;
    let mut orphans = usage.unused_where(|entry| opts.selection.owns_entry(glob.as_ref(), entry));
    // Each expected file is looked up in the sorted listing as the walk meets it: nothing is
    // held per expected file.
    let expected_skipped = walk_expected(&opts.expected, false, &mut |provider, name, rel| {
        let key = FixtureKey {
            provider,
            name,
            path: rel,
        };
        if !index.contains(provider, name) && opts.selection.selects(glob.as_ref(), key) {
            orphans.push(Orphan {
                kind: OrphanKind::MissingFixture,
                subject: format!("{provider}/{name}.json"),
                message: format!(
                    "expected file {provider}/{name}.json has no fixture {provider}/{name}.jsonl.zst: delete it or restore the fixture"
                ),
            });
        }
    })?;
    skipped.extend(expected_skipped);
    timings.add(Phase::Listing, started.elapsed());

    let cx = CheckContext {
        corpus: Dirs::new(&opts.corpus),
        expected: Dirs::new(&opts.expected),
        reports: opts.write_pending.then_some(opts.reports.as_path()),
        pending_folder: !matches!(
            fs::symlink_metadata(opts.reports.join("pending")),
            Err(e) if e.kind() == io::ErrorKind::NotFound
        ),
        expectations: &expectations,
        implementation: &opts.implementation,
        compare: opts.compare,
        timings,
    };
    // Every result goes to a spool under the reports folder, in report order; only what the
    // reports show in detail stays in memory.
    let write_error = |source| VerifyError::Write {
        path: opts.reports.clone(),
        source,
    };
    fs::create_dir_all(&opts.reports).map_err(write_error)?;
    let mut spool = Spooler::create(&opts.reports).map_err(write_error)?;
    run_ordered(
        &index,
        &selected,
        &cx,
        opts.jobs,
        opts.fail_fast,
        tick,
        &mut |mut c: Checked| {
            skipped.append(&mut c.skipped);
            let f = &c.result;
            if c.expected_missing {
                orphans.push(Orphan {
                    kind: OrphanKind::MissingExpected,
                    subject: f.path.clone(),
                    message: format!(
                        "fixture {} has no expected file {}/{}.json: review it, then run toolnorm accept",
                        f.path, f.provider, f.name
                    ),
                });
            }
            timings.time(Phase::Spooling, || {
                spool.push(&c.result).map_err(write_error)
            })
        },
    )?;
    drop(selected);
    drop(index);
    let fixtures = timings.time(Phase::Spooling, || spool.finish().map_err(write_error))?;
    let rules = crate::rules::registry()
        .iter()
        .map(|r| RuleInfo {
            code: r.code().to_owned(),
            name: r.name().to_owned(),
            summary: r.summary().to_owned(),
        })
        .collect();
    let report = Report::assemble(
        rules,
        fixtures,
        orphans,
        opts.strict,
        opts.selection.shard.map(|s| s.to_string()),
    );
    let mut report = report.with_skipped(skipped.iter().map(skipped_entry).collect());
    report.summary.require_all = opts.require_all;
    report.implementation = Some(opts.implementation.info());
    report.summary.duration_ms = started.elapsed().as_millis() as u64;
    Ok((report, counts))
}

/// A skipped entry as reports show it.
pub fn skipped_entry(s: &Skipped) -> SkippedEntry {
    SkippedEntry {
        path: s.path.display().to_string(),
        message: s.message(),
    }
}

/// `CI` set to anything but empty, `0` or `false` turns strict mode on by default.
pub fn strict_from_env(ci: Option<&str>) -> bool {
    ci.is_some_and(|v| !matches!(v.trim().to_ascii_lowercase().as_str(), "" | "0" | "false"))
}

#[cfg(test)]
mod memory_tests;
#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::report::{Status, Violation};

    fn fixture(
        provider: &str,
        name: &str,
        status: Status,
        violations: Vec<Violation>,
    ) -> FixtureResult {
        FixtureResult {
            provider: provider.to_owned(),
            name: name.to_owned(),
            path: format!("{provider}/{name}.jsonl.zst"),
            dialect: Some("stream-json".to_owned()),
            status,
            diff: None,
            legacy_diff: None,
            violations,
            message: None,
            raw_lines: BTreeMap::new(),
            fixed: Vec::new(),
            formatting: Vec::new(),
            wire: None,
            parts: 2,
            raw_bytes: 10,
            duration_ms: 3,
        }
    }

    fn violation(rule: &str, known: bool) -> Violation {
        Violation {
            rule: rule.to_owned(),
            rule_name: "Name".to_owned(),
            provider: "claude".to_owned(),
            fixture: "claude/x".to_owned(),
            line: Some(2),
            part_id: Some("toolu_1".to_owned()),
            message: "m".to_owned(),
            known,
            reason: known.then(|| "why".to_owned()),
        }
    }

    fn rules() -> Vec<RuleInfo> {
        ["TN002", "TN001"]
            .iter()
            .map(|c| RuleInfo {
                code: (*c).to_owned(),
                name: "N".to_owned(),
                summary: "s".to_owned(),
            })
            .collect()
    }

    #[test]
    fn matrix_counts_fixtures_per_provider_and_rule() {
        let fixtures = vec![
            fixture("codex", "b", Status::Pass, vec![]),
            fixture(
                "claude",
                "a",
                Status::Fail,
                vec![violation("TN001", false), violation("TN001", false)],
            ),
            fixture("claude", "c", Status::Xfail, vec![violation("TN002", true)]),
            fixture("claude", "d", Status::Error, vec![]),
        ];
        let report = Report::build(rules(), fixtures, vec![], false, None);
        let cells: Vec<(&str, &str, u32, u32, u32)> = report
            .matrix
            .iter()
            .map(|c| {
                (
                    c.provider.as_str(),
                    c.rule.as_str(),
                    c.checked,
                    c.violations,
                    c.known,
                )
            })
            .collect();
        assert_eq!(
            cells,
            [
                ("claude", "TN001", 2, 1, 0),
                ("claude", "TN002", 2, 0, 1),
                ("codex", "TN001", 1, 0, 0),
                ("codex", "TN002", 1, 0, 0)
            ]
        );
        assert_eq!(report.fixtures.to_vec().unwrap()[0].name, "a");
        assert_eq!(report.summary.violations, 2);
        assert_eq!(report.summary.known_violations, 1);
        assert!(report.summary.fails_gate());
    }

    #[test]
    fn xpass_fails_only_when_strict() {
        let fixtures = vec![fixture("claude", "a", Status::Xpass, vec![])];
        assert!(
            !Report::build(rules(), fixtures.clone(), vec![], false, None)
                .summary
                .fails_gate()
        );
        assert!(
            Report::build(rules(), fixtures, vec![], true, None)
                .summary
                .fails_gate()
        );
    }

    #[test]
    fn report_json_round_trips_and_snapshots_without_durations() {
        let fixtures = vec![
            fixture("claude", "a", Status::Xfail, vec![violation("TN002", true)]),
            fixture("codex", "b", Status::Pass, vec![]),
        ];
        let orphan = Orphan {
            kind: OrphanKind::MissingFixture,
            subject: "codex/gone.json".to_owned(),
            message: "m".to_owned(),
        };
        let mut report = Report::build(
            rules(),
            fixtures,
            vec![orphan.clone(), orphan],
            true,
            Some("1/2".to_owned()),
        );
        report.summary.duration_ms = 99;
        let mut text = Vec::new();
        crate::report::json::render(&report, &mut text).unwrap();
        let back: Report = serde_json::from_slice(&text).unwrap();
        assert_eq!(back, report);
        assert_eq!(
            report.orphans.len(),
            1,
            "duplicate orphans (from shards) are merged"
        );
        // The volatile fields, fixed for the snapshot.
        let mut frozen = serde_json::to_value(&report).unwrap();
        for f in frozen["fixtures"].as_array_mut().unwrap() {
            f["durationMs"] = "[duration]".into();
        }
        frozen["summary"]["durationMs"] = "[duration]".into();
        frozen["toolnormVersion"] = "[version]".into();
        insta::assert_json_snapshot!(frozen);
    }

    #[test]
    fn skipped_entries_fail_only_when_strict_and_old_reports_have_none() {
        let skipped = vec![SkippedEntry {
            path: "corpus/codex".to_owned(),
            message: "corpus/codex is a symlink: skipped".to_owned(),
        }];
        let build = |strict| {
            Report::build(rules(), vec![], vec![], strict, None).with_skipped(skipped.clone())
        };
        assert!(!build(false).summary.fails_gate());
        assert!(build(true).summary.fails_gate());
        assert_eq!(build(true).summary.skipped, 1);
        let mut v3 =
            serde_json::to_value(Report::build(rules(), vec![], vec![], true, None)).unwrap();
        v3["reportVersion"] = 3.into();
        assert!(v3.get("skipped").is_none());
        let back: Report = serde_json::from_value(v3).unwrap();
        assert!(back.skipped.is_empty());
        assert_eq!(back.summary.skipped, 0);
    }

    #[test]
    fn an_unused_entry_is_judged_only_by_the_runs_it_is_about() {
        let text = "[[known]]\nfixture = \"claude/gone\"\nrule = \"TN004\"\nreason = \"r\"\n\
                    [[known]]\nfixture = \"acp/live-*-mcp\"\nrule = \"TN004\"\nreason = \"r\"\n\
                    [[known]]\nfixture = \"**\"\nrule = \"TN004\"\nreason = \"r\"\nprovider = \"codex\"\n";
        let e = Expectations::parse(text, "x", &[]).unwrap();
        let unused = |selection: Selection| -> Vec<String> {
            let glob = selection.matcher().unwrap();
            e.usage()
                .unused_where(|entry| selection.owns_entry(glob.as_ref(), entry))
                .into_iter()
                .map(|o| o.subject)
                .collect()
        };
        let all = ["claude/gone TN004", "acp/live-*-mcp TN004", "** TN004"];
        assert_eq!(unused(Selection::default()), all);
        // --shard splits fixtures, not entries.
        let shard = Selection {
            shard: Some("2/3".parse().unwrap()),
            ..Selection::default()
        };
        assert_eq!(unused(shard), all);
        let provider = |p: Provider, filter: Option<&str>| Selection {
            provider: Some(p),
            filter: filter.map(str::to_owned),
            shard: None,
        };
        assert_eq!(unused(provider(Provider::Codex, None)), ["** TN004"]);
        assert_eq!(
            unused(provider(Provider::Acp, None)),
            ["acp/live-*-mcp TN004"]
        );
        let filter = |f: &str| Selection {
            filter: Some(f.to_owned()),
            ..Selection::default()
        };
        assert_eq!(unused(filter("claude/*")), ["claude/gone TN004"]);
        assert_eq!(unused(filter("acp/*")), ["acp/live-*-mcp TN004"]);
        assert!(unused(filter("codex/live-*")).is_empty());
        assert!(
            unused(filter(
                "{codex/live-codex-exec-shell,codex/live-codex-app-plan}"
            ))
            .is_empty()
        );
    }

    #[test]
    fn ci_env_turns_strict_on() {
        assert!(!strict_from_env(None));
        for off in ["", "0", "false", "FALSE"] {
            assert!(!strict_from_env(Some(off)), "{off}");
        }
        for on in ["1", "true", "yes"] {
            assert!(strict_from_env(Some(on)), "{on}");
        }
    }
}
