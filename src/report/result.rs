//! One fixture's result in a report (its status, the rules it breaks, its diff): what the stored
//! list of results ([`super::fixtures::Fixtures`]) and the report ([`super::model::Report`]) hold.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::compare::FixtureDiff;

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
    /// The implementation does not claim the fixture's dialect (shown, not failed, unless
    /// `--require-all`).
    Unsupported,
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

impl Violation {
    /// A rule's finding on the fixture (or session) `fixture` of `provider`, not (yet) known.
    pub fn of(
        rule: &dyn crate::rules::Rule,
        finding: crate::rules::Finding,
        provider: &str,
        fixture: String,
    ) -> Violation {
        Violation {
            rule: rule.code().to_owned(),
            rule_name: rule.name().to_owned(),
            provider: provider.to_owned(),
            fixture,
            line: finding.line,
            part_id: finding.part_id,
            message: finding.message,
            known: false,
            reason: None,
        }
    }
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
    /// The implementation's `legacy` view against the legacy mapping of the expected parts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legacy_diff: Option<FixtureDiff>,
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
    /// How the expected file is written otherwise than canonically, in words (`toolnorm fmt`
    /// rewrites it); empty when it is canonical.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub formatting: Vec<String>,
    /// The wire an external implementation answered this fixture in (`acp`, `ai-sdk`, `ag-ui`:
    /// its frames were folded back into the parts judged here); absent for parts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wire: Option<String>,
    pub parts: u32,
    pub raw_bytes: u64,
    pub duration_ms: u64,
}

impl FixtureResult {
    /// Its only difference from its expected file is the file's formatting (see
    /// [`FixtureResult::formatting`]).
    pub fn is_formatting_only(&self) -> bool {
        !self.formatting.is_empty() && self.diff.is_none()
    }
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
            Status::Unsupported => "unsupported",
        }
    }

    /// Whether a fixture with this status fails the gate: failures and errors always do, a stale
    /// known failure (`xpass`) only under `--strict`.
    pub fn fails_gate(self, strict: bool) -> bool {
        match self {
            Status::Fail | Status::Error => true,
            Status::Xpass => strict,
            Status::Pass | Status::Xfail | Status::Unsupported => false,
        }
    }
}
