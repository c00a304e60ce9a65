//! End-to-end tests of a `toolnorm verify` that selects no fixture: a typo in a CI filter must
//! fail the gate, not turn it off.

use std::path::Path;

use crate::cli::util::{stderr, stdout, tempdir, toolnorm};

const CLAUDE: &str = r#"{"type":"system","subtype":"init","session_id":"s1","tools":["Bash"],"model":"m"}
{"type":"result","subtype":"success","is_error":false,"session_id":"s1","result":"done"}
"#;

/// A corpus of three fixtures, accepted.
fn corpus(dir: &Path) {
    use toolnorm::corpus::format::new_header;
    use toolnorm::corpus::redact::{RedactOptions, Redactor};
    use toolnorm::corpus::{fixture_path, write_fixture};
    use toolnorm::stream::Direction;
    let redactor = Redactor::new(&RedactOptions::default()).unwrap();
    for name in ["a", "b", "c"] {
        let lines = CLAUDE
            .lines()
            .enumerate()
            .map(|(i, l)| (i as u64, Direction::Agent, l.as_bytes(), true));
        let path = fixture_path(&dir.join("corpus"), "claude", name);
        write_fixture(&path, new_header("claude", name), lines, &redactor, true).unwrap();
    }
    let o = ci(dir, &["accept"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
}

/// toolnorm in `dir` as CI runs it (`CI=true`: strict).
fn ci(dir: &Path, args: &[&str]) -> std::process::Output {
    toolnorm()
        .args(args)
        .current_dir(dir)
        .env("CI", "true")
        .output()
        .expect("failed to run toolnorm")
}

#[test]
fn a_filter_that_selects_nothing_fails_the_gate_unless_allowed() {
    let dir = tempdir();
    let d = dir.path();
    corpus(d);
    let o = ci(d, &["verify", "--filter", "claude/typo-*"]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("--filter 'claude/typo-*' selects none of the 3 fixtures in corpus"),
        "{err}"
    );
    // Every report says what the exit code says: the gate failed.
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("reports/report.json")).unwrap()).unwrap();
    assert_eq!(report["summary"]["nothingSelected"], true, "{report}");
    let summary = std::fs::read_to_string(d.join("reports/summary.md")).unwrap();
    assert!(summary.contains("failed"), "{summary}");
    assert!(stdout(&o).contains("FAIL"), "{}", stdout(&o));
    let o = ci(d, &["verify", "--filter", "claude/typo-*", "--allow-empty"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stderr(&o).contains("note: no fixture checked"),
        "{}",
        stderr(&o)
    );
    // The same filter, spelt right, passes.
    let o = ci(d, &["verify", "--filter", "claude/*"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
}

#[test]
fn an_empty_corpus_fails_the_gate_unless_allowed() {
    let dir = tempdir();
    let d = dir.path();
    std::fs::create_dir_all(d.join("corpus/claude")).unwrap();
    let o = ci(d, &["verify"]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert!(stderr(&o).contains("holds no fixture"), "{}", stderr(&o));
    let o = ci(d, &["verify", "--allow-empty"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
}

/// A CI matrix of 5 shards over 3 fixtures: the empty shards pass (the others check every
/// fixture), but a filter that matches nothing fails every shard.
#[test]
fn an_empty_shard_passes_only_when_its_selection_is_not_empty() {
    let dir = tempdir();
    let d = dir.path();
    corpus(d);
    let mut checked = 0;
    for k in 1..=5 {
        let shard = format!("{k}/5");
        let reports = format!("reports-{k}");
        let o = ci(d, &["verify", "--shard", &shard, "--reports", &reports]);
        assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
        let report: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(d.join(&reports).join("report.json")).unwrap(),
        )
        .unwrap();
        let n = report["summary"]["fixtures"].as_u64().unwrap();
        if n == 0 {
            assert!(
                stderr(&o).contains(&format!(
                    "shard {shard} holds none of the 3 selected fixtures"
                )),
                "{}",
                stderr(&o)
            );
        }
        checked += n;
        let o = ci(
            d,
            &["verify", "--shard", &shard, "--filter", "claude/typo-*"],
        );
        assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    }
    assert_eq!(checked, 3, "the shards together check every fixture");
}
