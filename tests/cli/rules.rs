//! `toolnorm rules`: the listing, `--explain`, `--json`, and an unknown code.

use crate::cli::util::{root, run_in, stderr, stdout};

#[test]
fn lists_every_rule_in_an_aligned_table() {
    let o = run_in(&root(), &["rules"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.len() >= 19, "{out}");
    assert!(lines[0].starts_with("TN001  UnstableId"), "{out}");
    assert!(out.contains("TN010  LostCall"), "{out}");
    // Aligned: every summary starts in the same column (after code, name and padding).
    let summary_col = |l: &str| {
        let after_code = l.find(' ').expect("code then name");
        let name_start = after_code + l[after_code..].find(|c: char| c != ' ').expect("a name");
        let name_end = name_start + l[name_start..].find(' ').expect("name then summary");
        name_end + l[name_end..].find(|c: char| c != ' ').expect("a summary")
    };
    let col = summary_col(lines[0]);
    assert!(lines.iter().all(|l| summary_col(l) == col), "{out}");
}

#[test]
fn explains_a_rule_by_code() {
    let o = run_in(&root(), &["rules", "--explain", "tn011"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("TN011 FailedShownComplete: "), "{out}");
    for section in ["## What it checks", "## Why", "## Example"] {
        assert!(out.contains(section), "{out}");
    }
}

#[test]
fn unknown_code_is_a_usage_error() {
    let o = run_in(&root(), &["rules", "--explain", "TN999"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unknown rule code `TN999`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn json_lists_codes_names_and_summaries() {
    let o = run_in(&root(), &["rules", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("rules --json prints JSON");
    let rules = v.as_array().expect("an array");
    assert!(
        rules
            .iter()
            .all(|r| r["code"].is_string() && r["name"].is_string() && r["summary"].is_string())
    );
    let one = run_in(&root(), &["rules", "--explain", "TN001", "--json"]);
    let v: serde_json::Value =
        serde_json::from_slice(&one.stdout).expect("explain --json prints JSON");
    assert_eq!(v["name"], "UnstableId");
    assert!(v["explain"].as_str().is_some_and(|d| d.contains("## Why")));
}
