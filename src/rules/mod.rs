//! Contract rules as checks over a fixture's raw stream and its normalized output, independent of
//! the expected files. One file per rule; [`registry`] lists them all. Pure: no I/O.

use crate::model::NormalizedDocument;
use crate::providers::{Dialect, Input, Provider};

/// What a rule is checked against.
pub struct RuleContext<'a> {
    pub provider: Provider,
    pub dialect: Dialect,
    /// The raw stream, line by line.
    pub input: &'a Input<'a>,
    /// The normalizer's actual output for it.
    pub doc: &'a NormalizedDocument,
}

/// One violation found by one rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// 1-based raw line the violation points to, when it has one.
    pub line: Option<u32>,
    pub part_id: Option<String>,
    pub message: String,
}

/// A conformance rule. Codes are stable and never reused.
pub trait Rule: Sync {
    /// Stable code, e.g. `TN001`.
    fn code(&self) -> &'static str;
    /// Names the violation, e.g. `UnstableId`.
    fn name(&self) -> &'static str;
    /// One line: what it checks.
    fn summary(&self) -> &'static str;
    /// The rule's full documentation (what it checks, why, an example), from its doc comment.
    fn explain(&self) -> &'static str;
    fn check(&self, cx: &RuleContext<'_>) -> Vec<Finding>;
}

/// Every rule, in code order. Codes are never reused.
pub fn registry() -> &'static [&'static dyn Rule] {
    &[]
}

/// Look a rule up by code (case-insensitive).
pub fn by_code(code: &str) -> Option<&'static dyn Rule> {
    registry()
        .iter()
        .copied()
        .find(|r| r.code().eq_ignore_ascii_case(code))
}

/// Run every rule on one fixture. Findings come back in registry order, each with its rule.
pub fn check_all(cx: &RuleContext<'_>) -> Vec<(&'static dyn Rule, Finding)> {
    let mut out = Vec::new();
    for rule in registry() {
        for f in rule.check(cx) {
            out.push((*rule, f));
        }
    }
    out
}
