//! Registry invariants (unique codes, every rule documented) and checks over the whole registry.

use std::collections::HashSet;

use super::{
    CLAUDE_FAILED, RuleContext, bash_doc, bash_part, by_code, check_all, raw, registry, render,
};
use crate::stream::Dialect;
use crate::stream::Input;

#[test]
fn codes_are_unique_and_every_rule_is_documented() {
    let mut codes = HashSet::new();
    let mut names = HashSet::new();
    for rule in registry() {
        assert!(codes.insert(rule.code()), "duplicate code {}", rule.code());
        assert!(names.insert(rule.name()), "duplicate name {}", rule.name());
        assert!(
            rule.code().starts_with("TN") && rule.code().len() == 5,
            "bad code {}",
            rule.code()
        );
        assert!(
            !rule.summary().is_empty() && !rule.summary().contains('\n'),
            "{} summary",
            rule.code()
        );
        let doc = rule.explain();
        for section in ["## What it checks", "## Why", "## Example"] {
            assert!(
                doc.contains(section),
                "{} explain lacks `{section}`",
                rule.code()
            );
        }
        assert!(
            !doc.starts_with(' '),
            "{} explain keeps rustdoc's leading space",
            rule.code()
        );
    }
    let sorted: Vec<&str> = registry().iter().map(|r| r.code()).collect();
    let mut want = sorted.clone();
    want.sort_unstable();
    assert_eq!(sorted, want, "the registry is in code order");
}

#[test]
fn by_code_is_case_insensitive() {
    assert_eq!(by_code("tn010").map(|r| r.name()), Some("LostCall"));
    assert!(by_code("TN999").is_none());
}

#[test]
fn check_all_shares_one_scan_and_reports_in_registry_order() {
    let input = Input::from_bytes(CLAUDE_FAILED.as_bytes());
    let doc = bash_doc(bash_part());
    let raw = raw::claude::stream_json(&input);
    let cx = RuleContext::new(Dialect::ClaudeStreamJson, &input, &doc, &raw);
    let found: Vec<String> = check_all(&cx).iter().map(|(r, f)| render(*r, f)).collect();
    insta::assert_snapshot!(found.join("\n"), @"TN011 FailedShownComplete line 2 part t1: the raw stream marks this call failed but the part is `complete`");
}
