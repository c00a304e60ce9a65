//! The finished `Report` of a verify run: everything every renderer needs, computed once by
//! `verify`. Renderers only format it. `report.json` is this value serialized, and `report merge`
//! reads it back, so it round-trips through serde.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Version of `report.json`. Bump on any change consumers must know about.
///
/// - 1: first version.
pub const REPORT_VERSION: u32 = 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Matches its expected output and breaks no rule (beyond known failures that still fail).
    Pass,
    /// Differs from its expected output, breaks a rule unexpectedly, or has no expected file.
    Fail,
    /// Could not be read or normalized at all (corrupt zstd, undetectable dialect).
    Error,
    /// Only known failures (listed in expectations.toml), and they still fail.
    Xfail,
    /// A listed known failure no longer fails: remove the entry.
    Xpass,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DiffTag {
    Equal,
    Delete,
    Insert,
}

/// One line of a line diff between expected and actual canonical JSON, with word-level emphasis:
/// `segments` are (emphasized, text) pieces that concatenate to the line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffRow {
    pub tag: DiffTag,
    /// 1-based line in the expected file (delete / equal rows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_line: Option<u32>,
    /// 1-based line in the actual output (insert / equal rows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_line: Option<u32>,
    pub segments: Vec<(bool, String)>,
}

/// How a fixture's actual output differs from its expected file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FixtureDiff {
    /// Unified diff text (3 lines of context), expected → actual.
    pub unified: String,
    /// RFC 6901 JSON pointers of the values that changed (`/parts/3/title`).
    pub changed_paths: Vec<String>,
    /// Differences nobody can see, named in words ("the expected file uses CRLF line endings").
    pub invisible: Vec<String>,
    /// Rows grouped in hunks with context; `None` between hunks is a gap.
    pub rows: Vec<Option<DiffRow>>,
    /// Lines added and removed.
    pub added: u32,
    pub removed: u32,
    /// Sizes of the two documents in bytes.
    pub expected_bytes: u64,
    pub actual_bytes: u64,
}

/// One rule broken by one part (or by the fixture as a whole).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Violation {
    /// Stable rule code (`TN001`).
    pub rule: String,
    /// Rule name, naming the violation (`UnstableId`).
    pub rule_name: String,
    pub provider: String,
    pub fixture: String,
    /// 1-based raw line the violation points to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part_id: Option<String>,
    pub message: String,
    /// Listed in expectations.toml.
    pub known: bool,
    /// The expectation's reason, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FixtureResult {
    pub provider: String,
    /// Name without extension, relative to the provider folder (`live-coding`).
    pub name: String,
    /// Path relative to the corpus root (`claude/live-coding.jsonl.zst`).
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialect: Option<String>,
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<FixtureDiff>,
    pub violations: Vec<Violation>,
    /// Why the fixture is `error`, or why it failed without a diff (no expected file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The raw lines that violations point to (clipped), by line number.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub raw_lines: BTreeMap<u32, String>,
    /// Listed known failures of this fixture that no longer fail (rule codes).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fixed: Vec<String>,
    pub parts: u32,
    pub raw_bytes: u64,
    pub duration_ms: u64,
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
    pub strict: bool,
    /// 0 all pass, 1 failures (see the exit codes in the README).
    pub exit_code: u8,
    pub duration_ms: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub report_version: u32,
    pub toolnorm_version: String,
    /// Shard `k/n` this report covers, if sharded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    pub rules: Vec<RuleInfo>,
    /// Sorted by provider, then name.
    pub fixtures: Vec<FixtureResult>,
    /// Sorted by provider, then rule code.
    pub matrix: Vec<MatrixCell>,
    pub orphans: Vec<Orphan>,
    pub summary: Summary,
}

impl Status {
    /// The lowercase name used in every report (`pass`, `fail`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Error => "error",
            Status::Xfail => "xfail",
            Status::Xpass => "xpass",
        }
    }

    /// Whether a fixture with this status fails the gate: failures and errors always do, a stale
    /// known failure (`xpass`) only under `--strict`.
    pub fn fails_gate(self, strict: bool) -> bool {
        match self {
            Status::Fail | Status::Error => true,
            Status::Xpass => strict,
            Status::Pass | Status::Xfail => false,
        }
    }
}

impl Report {
    /// Fixtures with a listed known failure that no longer fails ("fixed: remove the entry").
    pub fn stale_fixtures(&self) -> Vec<&FixtureResult> {
        self.fixtures
            .iter()
            .filter(|f| f.status == Status::Xpass || !f.fixed.is_empty())
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
        let mut out: Vec<&str> = Vec::new();
        for p in self
            .fixtures
            .iter()
            .map(|f| f.provider.as_str())
            .chain(self.matrix.iter().map(|c| c.provider.as_str()))
        {
            if !out.contains(&p) {
                out.push(p);
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
