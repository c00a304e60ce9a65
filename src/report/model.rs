//! The finished `Report` of a verify run: everything every renderer needs, computed once by
//! `verify`. Renderers only format it. `report.json` is this value serialized, and `report merge`
//! reads it back, so it round-trips through serde.

use serde::{Deserialize, Serialize};

use super::fixtures::Fixtures;
use super::result::{FixtureResult, Status};

pub use crate::compare::{DiffRow, DiffTag, FixtureDiff};

/// Version of `report.json`. Bump on any change consumers must know about.
///
/// - 1: first version.
/// - 2: the summary no longer carries `exitCode` (the verdict is derived from its counts; the exit
///   code is the command line's). Version 1 reports are still read.
/// - 3: `implementation` names who normalized the fixtures (`verify --impl`); a fixture may be
///   `unsupported` (its dialect not claimed) and carry a `legacyDiff`; the summary may count
///   `unsupported` and say `requireAll`. Versions 1 and 2 are still read.
/// - 5: a fixture whose expected file holds the right value written otherwise (key order,
///   indentation, escapes, the trailing newline) is no longer a diff: it carries `formatting` (what
///   differs, in words), counted in the summary's `formatting`; under `--strict` it fails the gate.
///   Versions 1 to 4 are still read (with no formatting).
/// - 4: `skipped` lists the entries of the corpus, expected and pending folders left alone (a
///   symlink, a FIFO, a directory named like a fixture), counted in the summary's `skipped`;
///   under `--strict` they fail the gate. Versions 1 to 3 are still read (with none skipped).
/// - 6: `implementation.wires` says what an external implementation's answers came in (`parts`,
///   or protocol 2's `acp`, `ai-sdk`, `ag-ui`), and its violations may be of the wire rules
///   (TN020-TN022). Versions 1 to 5 are still read (answers in parts).
pub const REPORT_VERSION: u32 = 6;

/// Who normalized the fixtures of a report.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImplementationInfo {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The command run through the protocol; absent for the built-in normalizer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The wires its answers came in (`parts`, or protocol 2's `acp`, `ai-sdk`, `ag-ui`), in the
    /// order first used; absent for the built-in normalizer and before report version 6.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wires: Vec<String>,
}

impl ImplementationInfo {
    /// toolnorm's own normalizer, called in process.
    pub fn built_in() -> ImplementationInfo {
        ImplementationInfo {
            name: "toolnorm".to_owned(),
            version: Some(env!("CARGO_PKG_VERSION").to_owned()),
            command: None,
            wires: Vec::new(),
        }
    }

    /// What its answers came in, as reports say it: `ai-sdk`, `parts, ag-ui`; `parts` when it
    /// did not say.
    pub fn answers_in(&self) -> String {
        if self.wires.is_empty() {
            "parts".to_owned()
        } else {
            self.wires.join(", ")
        }
    }

    /// `name version`, as reports title it.
    pub fn label(&self) -> String {
        match &self.version {
            Some(v) => format!("{} {v}", self.name),
            None => self.name.clone(),
        }
    }
}

/// One cell of the provider × rule matrix.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MatrixCell {
    pub provider: String,
    pub rule: String,
    /// Fixtures the rule was checked on.
    pub checked: u32,
    /// Fixtures with at least one unexpected violation of the rule.
    pub violations: u32,
    /// Fixtures whose violations of the rule are all listed known failures.
    pub known: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleInfo {
    pub code: String,
    pub name: String,
    /// One line: what the rule checks.
    pub summary: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OrphanKind {
    /// A fixture with no expected output.
    MissingExpected,
    /// An expected file with no fixture.
    MissingFixture,
    /// An expectations.toml entry that matches no fixture or no violation.
    UnusedExpectation,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Orphan {
    pub kind: OrphanKind,
    /// The file or the expectation entry (`claude/*.jsonl.zst TN004`).
    pub subject: String,
    pub message: String,
}

/// An entry of the corpus, expected or pending folder that was left alone: toolnorm reads and
/// writes nothing through a link, nor anything but regular files. A warning, an error under
/// `--strict`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkippedEntry {
    /// The entry's path as the run named it (`corpus/claude/x.jsonl.zst`).
    pub path: String,
    /// What it is and what was left undone.
    pub message: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub fixtures: u32,
    pub passed: u32,
    pub failed: u32,
    pub errored: u32,
    pub xfailed: u32,
    pub xpassed: u32,
    pub violations: u32,
    pub known_violations: u32,
    pub orphans: u32,
    /// Fixtures whose dialect the implementation does not claim.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unsupported: u32,
    /// Entries left alone (see [`SkippedEntry`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub skipped: u32,
    /// Fixtures whose expected file is not written canonically (see
    /// [`FixtureResult::formatting`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub formatting: u32,
    pub strict: bool,
    /// `--require-all`: an unsupported fixture fails the gate.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub require_all: bool,
    /// The run selected no fixture at all (a filter or provider that matches nothing, an empty
    /// corpus) and that was not allowed (`--allow-empty`): a gate that checked nothing fails.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub nothing_selected: bool,
    pub duration_ms: u64,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Summary {
    /// The gate's verdict: failures, errors and orphans always fail it, a stale known failure
    /// (`xpass`), a skipped entry or an expected file in need of `toolnorm fmt` only under
    /// `--strict`. (The exit code that follows is the
    /// command line's business.)
    pub fn fails_gate(&self) -> bool {
        self.failed > 0
            || self.errored > 0
            || self.orphans > 0
            || (self.strict && (self.xpassed > 0 || self.skipped > 0 || self.formatting > 0))
            || (self.require_all && self.unsupported > 0)
            || self.nothing_selected
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub report_version: u32,
    pub toolnorm_version: String,
    /// Who normalized the fixtures (absent in reports before version 3: the built-in normalizer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub implementation: Option<ImplementationInfo>,
    /// Shard `k/n` this report covers, if sharded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    pub rules: Vec<RuleInfo>,
    /// Sorted by provider, then name.
    pub fixtures: Fixtures,
    /// Sorted by provider, then rule code.
    pub matrix: Vec<MatrixCell>,
    pub orphans: Vec<Orphan>,
    /// Entries left alone, sorted by path (absent before version 4: none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<SkippedEntry>,
    pub summary: Summary,
}

impl Report {
    /// Assemble a report from its parts: sort, then compute the matrix and the summary. `verify`
    /// and `report merge` both build through here, so a merged report is computed exactly like an
    /// unsharded one.
    pub fn build(
        rules: Vec<RuleInfo>,
        mut fixtures: Vec<FixtureResult>,
        orphans: Vec<Orphan>,
        strict: bool,
        shard: Option<String>,
    ) -> Report {
        fixtures
            .sort_by(|a, b| (&a.provider, &a.name, &a.path).cmp(&(&b.provider, &b.name, &b.path)));
        Report::assemble(rules, Fixtures::from_vec(fixtures), orphans, strict, shard)
    }

    /// [`Report::build`] over fixtures already in report order (a verify run's spooled list).
    pub fn assemble(
        mut rules: Vec<RuleInfo>,
        fixtures: Fixtures,
        mut orphans: Vec<Orphan>,
        strict: bool,
        shard: Option<String>,
    ) -> Report {
        rules.sort_by(|a, b| a.code.cmp(&b.code));
        orphans.sort_by(|a, b| (a.kind as u8, &a.subject).cmp(&(b.kind as u8, &b.subject)));
        orphans.dedup();
        let matrix = matrix(&rules, &fixtures);
        let summary = summary(&fixtures, &orphans, strict);
        Report {
            report_version: REPORT_VERSION,
            toolnorm_version: env!("CARGO_PKG_VERSION").to_owned(),
            implementation: None,
            shard,
            rules,
            fixtures,
            matrix,
            orphans,
            skipped: Vec::new(),
            summary,
        }
    }

    /// The report with `skipped` entries (sorted, each once: shards list the same ones) and
    /// their count in the summary.
    pub fn with_skipped(mut self, mut skipped: Vec<SkippedEntry>) -> Report {
        skipped.sort();
        skipped.dedup();
        self.summary.skipped = skipped.len() as u32;
        self.skipped = skipped;
        self
    }

    /// Fixtures with a listed known failure that no longer fails ("fixed: remove the entry").
    pub fn stale_fixtures(&self) -> Vec<&FixtureResult> {
        self.fixtures
            .shown()
            .filter(|f| f.status == Status::Xpass || !f.fixed.is_empty())
            .collect()
    }

    /// Fixtures whose only difference from their expected file is its formatting (the failing
    /// ones are listed with their diffs).
    pub fn formatting_only(&self) -> Vec<&FixtureResult> {
        self.fixtures
            .shown()
            .filter(|f| f.is_formatting_only())
            .collect()
    }

    /// expectations.toml entries that match nothing.
    pub fn unused_expectations(&self) -> Vec<&Orphan> {
        self.orphans
            .iter()
            .filter(|o| o.kind == OrphanKind::UnusedExpectation)
            .collect()
    }

    /// The rule's info by code, if the report lists it.
    pub fn rule(&self, code: &str) -> Option<&RuleInfo> {
        self.rules.iter().find(|r| r.code == code)
    }

    /// Providers in report order (fixtures are sorted by provider), each once, including
    /// providers that appear only in the matrix.
    pub fn providers(&self) -> Vec<&str> {
        let mut out = self.fixtures.providers();
        for c in &self.matrix {
            if !out.contains(&c.provider.as_str()) {
                out.push(c.provider.as_str());
            }
        }
        out.sort_unstable();
        out
    }

    /// The matrix cell of `provider` × `rule`, if the rule was checked there.
    pub fn cell(&self, provider: &str, rule: &str) -> Option<&MatrixCell> {
        self.matrix
            .iter()
            .find(|c| c.provider == provider && c.rule == rule)
    }
}

/// The provider × rule matrix over every provider that has fixtures: every rule is checked on every
/// fixture that normalized (errors are not checked). `rules` are sorted by code.
pub fn matrix(rules: &[RuleInfo], fixtures: &Fixtures) -> Vec<MatrixCell> {
    let mut cells = Vec::new();
    for provider in fixtures.providers() {
        // Plain passes were checked and broke no rule.
        let mine: Vec<&FixtureResult> = fixtures
            .shown()
            .filter(|f| {
                f.provider == provider && !matches!(f.status, Status::Error | Status::Unsupported)
            })
            .collect();
        let checked = fixtures.plain_passes(provider) + mine.len() as u32;
        for rule in rules {
            let mut cell = MatrixCell {
                provider: provider.to_owned(),
                rule: rule.code.clone(),
                checked,
                violations: 0,
                known: 0,
            };
            for f in &mine {
                let mut of_rule = f
                    .violations
                    .iter()
                    .filter(|v| v.rule == rule.code)
                    .peekable();
                if of_rule.peek().is_none() {
                    continue;
                }
                if of_rule.any(|v| !v.known) {
                    cell.violations += 1;
                } else {
                    cell.known += 1;
                }
            }
            cells.push(cell);
        }
    }
    cells
}

/// The counts of a report's summary (its duration is set by whoever timed the run).
pub fn summary(fixtures: &Fixtures, orphans: &[Orphan], strict: bool) -> Summary {
    let mut s = Summary {
        fixtures: fixtures.len() as u32,
        passed: fixtures.plain_total(),
        strict,
        orphans: orphans.len() as u32,
        ..Summary::default()
    };
    for f in fixtures.shown() {
        if !f.formatting.is_empty() {
            s.formatting += 1;
        }
        match f.status {
            Status::Pass => s.passed += 1,
            Status::Fail => s.failed += 1,
            Status::Error => s.errored += 1,
            Status::Xfail => s.xfailed += 1,
            Status::Xpass => s.xpassed += 1,
            Status::Unsupported => s.unsupported += 1,
        }
        for v in &f.violations {
            if v.known {
                s.known_violations += 1;
            } else {
                s.violations += 1;
            }
        }
    }
    s
}
