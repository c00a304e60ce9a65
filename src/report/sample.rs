//! A rich synthetic [`Report`] for the renderers' tests: every status, several providers, known
//! failures, orphans, a large diff, and hostile provider data (HTML, scripts, event handlers,
//! markdown and XML metacharacters) everywhere provider data can appear.
//!
//! Public (but hidden from the docs) so the browser integration test can render it too.

use std::collections::BTreeMap;

use similar::{ChangeTag, TextDiff};

use super::fixtures::Fixtures;
use super::model::*;
use super::result::*;

/// A script payload that, were it ever executed, would rename the page. Tests look for it.
pub const SCRIPT_PAYLOAD: &str = "<script>document.title='PWNED'</script>";
/// An event-handler payload with the same effect.
pub const ONERROR_PAYLOAD: &str = "<img src=x onerror=\"document.title='PWNED'\">";

/// Both payloads plus markdown/XML metacharacters, for one string.
fn hostile(prefix: &str) -> String {
    format!("{prefix} {SCRIPT_PAYLOAD} {ONERROR_PAYLOAD} | *bold* `tick` ]]> &amp;")
}

/// Build a [`FixtureDiff`] from two documents the way verify presents them: grouped hunks with
/// 3 lines of context and word-level emphasis. (Test data only; verify has its own compare.)
pub fn diff_of(
    expected: &str,
    actual: &str,
    changed_paths: &[&str],
    invisible: &[&str],
) -> FixtureDiff {
    let diff = TextDiff::from_lines(expected, actual);
    let mut rows = Vec::new();
    let (mut added, mut removed) = (0, 0);
    for (i, group) in diff.grouped_ops(3).iter().enumerate() {
        if i > 0 {
            rows.push(None);
        }
        for op in group {
            for change in diff.iter_inline_changes(op) {
                let tag = match change.tag() {
                    ChangeTag::Equal => DiffTag::Equal,
                    ChangeTag::Delete => {
                        removed += 1;
                        DiffTag::Delete
                    }
                    ChangeTag::Insert => {
                        added += 1;
                        DiffTag::Insert
                    }
                };
                let segments = change
                    .iter_strings_lossy()
                    .map(|(emph, s)| (emph, s.trim_end_matches(['\n', '\r']).to_string()))
                    .filter(|(_, s)| !s.is_empty())
                    .collect();
                rows.push(Some(DiffRow {
                    tag,
                    old_line: change.old_index().map(|n| n as u32 + 1),
                    new_line: change.new_index().map(|n| n as u32 + 1),
                    segments,
                }));
            }
        }
    }
    FixtureDiff {
        unified: diff
            .unified_diff()
            .context_radius(3)
            .header("expected", "actual")
            .to_string(),
        changed_paths: changed_paths.iter().map(|s| s.to_string()).collect(),
        invisible: invisible.iter().map(|s| s.to_string()).collect(),
        rows,
        added,
        removed,
        expected_bytes: expected.len() as u64,
        actual_bytes: actual.len() as u64,
    }
}

fn rules() -> Vec<RuleInfo> {
    [
        (
            "TN001",
            "UnstableId",
            "A part keeps one id from its first update to its last.",
        ),
        (
            "TN004",
            "MissingRawOutput",
            "Every completed part carries its raw output or an error.",
        ),
        (
            "TN010",
            "StateRegression",
            "A part's state only moves forward; a terminal state never reverts.",
        ),
        (
            "TN013",
            "RawToolTitle",
            "Titles are human: no raw tool names or JSON, one line, bounded.",
        ),
    ]
    .into_iter()
    .map(|(code, name, summary)| RuleInfo {
        code: code.into(),
        name: name.into(),
        summary: summary.into(),
    })
    .collect()
}

fn fixture(provider: &str, name: &str, status: Status) -> FixtureResult {
    FixtureResult {
        provider: provider.into(),
        name: name.into(),
        path: format!("{provider}/{name}.jsonl.zst"),
        dialect: Some(format!("{provider}-stream-json")),
        status,
        diff: None,
        legacy_diff: None,
        violations: Vec::new(),
        message: None,
        raw_lines: BTreeMap::new(),
        fixed: Vec::new(),
        formatting: Vec::new(),
        wire: None,
        parts: 4,
        raw_bytes: 18_432,
        duration_ms: 12,
    }
}

#[expect(
    clippy::too_many_arguments,
    reason = "a test-data constructor mirroring the struct"
)]
fn violation(
    provider: &str,
    fixture: &str,
    rule: &str,
    rule_name: &str,
    line: Option<u32>,
    part_id: Option<&str>,
    message: &str,
    reason: Option<&str>,
) -> Violation {
    Violation {
        rule: rule.into(),
        rule_name: rule_name.into(),
        provider: provider.into(),
        // verify names the fixture `provider/name`.
        fixture: format!("{provider}/{fixture}"),
        line,
        part_id: part_id.map(Into::into),
        message: message.into(),
        known: reason.is_some(),
        reason: reason.map(Into::into),
    }
}

/// A large expected/actual pair: `n` parts whose titles all changed.
fn large_docs(n: usize) -> (String, String) {
    let mut expected = String::from("{\n  \"parts\": [\n");
    let mut actual = expected.clone();
    for i in 0..n {
        let sep = if i + 1 == n { "" } else { "," };
        expected.push_str(&format!(
            "    {{\n      \"id\": \"call_{i:04}\",\n      \"state\": \"completed\",\n      \"title\": \"Read src/module_{i}.rs\"\n    }}{sep}\n"
        ));
        actual.push_str(&format!(
            "    {{\n      \"id\": \"call_{i:04}\",\n      \"state\": \"completed\",\n      \"title\": \"Read module_{i}.rs (lines 1-40)\"\n    }}{sep}\n"
        ));
    }
    expected.push_str("  ]\n}\n");
    actual.push_str("  ]\n}\n");
    (expected, actual)
}

/// The sample report: 3 providers, every status, hostile data in every provider-data field.
pub fn sample_report() -> Report {
    let mut fixtures = Vec::new();

    // claude: a pass, a failing fixture full of payloads, a large diff.
    fixtures.push(fixture("claude", "live-coding", Status::Pass));

    let mut xss = fixture("claude", "hostile-output", Status::Fail);
    let expected = "{\n  \"parts\": [\n    {\n      \"id\": \"toolu_01\",\n      \"kind\": \"execute\",\n      \"rawOutput\": \"total 0\",\n      \"state\": \"completed\",\n      \"title\": \"Run ls\"\n    }\n  ],\n  \"provider\": \"claude\"\n}\n";
    let actual = format!(
        "{{\n  \"parts\": [\n    {{\n      \"id\": \"toolu_01\",\n      \"kind\": \"execute\",\n      \"rawOutput\": {},\n      \"state\": \"completed\",\n      \"title\": \"Run ls {}\"\n    }}\n  ],\n  \"provider\": \"claude\"\n}}\n",
        serde_json::to_string(&hostile("total 0")).expect("a string serializes"),
        ONERROR_PAYLOAD.replace('"', "\\\""),
    );
    xss.diff = Some(diff_of(
        expected,
        &actual,
        &["/parts/0/rawOutput", "/parts/0/title"],
        &[],
    ));
    xss.violations = vec![
        violation(
            "claude",
            "hostile-output",
            "TN013",
            "RawToolTitle",
            Some(7),
            Some("toolu_01"),
            &hostile("title holds markup:"),
            None,
        ),
        violation(
            "claude",
            "hostile-output",
            "TN004",
            "MissingRawOutput",
            Some(9),
            Some("toolu_<b>02</b>"),
            "completed part has neither rawOutput nor error",
            None,
        ),
    ];
    xss.raw_lines.insert(
        7,
        format!(
            "{{\"type\":\"assistant\",\"message\":{{\"content\":[{{\"type\":\"tool_use\",\"id\":\"toolu_01\",\"name\":\"Bash\",\"input\":{{\"command\":\"ls {}\"}}}}]}}}}",
            SCRIPT_PAYLOAD.replace('\'', "\\u0027")
        ),
    );
    xss.raw_lines.insert(
        9,
        hostile("{\"type\":\"user\",\"content\":\"").replace('"', "\\\""),
    );
    xss.parts = 2;
    fixtures.push(xss);

    let mut big = fixture("claude", "long-session", Status::Fail);
    let (e, a) = large_docs(300);
    big.diff = Some(diff_of(
        &e,
        &a,
        &["/parts/0/title", "/parts/1/title", "/parts/2/title"],
        &[],
    ));
    big.parts = 300;
    big.raw_bytes = 4_718_592;
    big.duration_ms = 840;
    fixtures.push(big);

    let mut crlf = fixture("claude", "windows-line-endings", Status::Fail);
    crlf.diff = Some(diff_of(
        "{\n  \"parts\": []\n}\n",
        "{\n  \"parts\": []\n}",
        &[],
        &[
            "the expected file uses CRLF line endings",
            "the actual output has no trailing newline",
        ],
    ));
    fixtures.push(crlf);

    // codex: an error with a hostile message, a known failure, a pass.
    let mut corrupt = fixture("codex", "corrupt-frame", Status::Error);
    corrupt.dialect = None;
    corrupt.message = Some(hostile("line 3: invalid zstd frame:"));
    corrupt.parts = 0;
    fixtures.push(corrupt);

    let mut known = fixture("codex", "exec-approval", Status::Xfail);
    known.violations = vec![violation(
        "codex",
        "exec-approval",
        "TN010",
        "StateRegression",
        Some(14),
        Some("call_7"),
        "state moved from completed back to running",
        Some("codex re-sends exec_command_begin after approval <upstream #123>"),
    )];
    known.raw_lines.insert(
        14,
        "{\"type\":\"exec_command_begin\",\"call_id\":\"call_7\"}".into(),
    );
    fixtures.push(known);

    fixtures.push(fixture("codex", "mcp-tools", Status::Pass));

    // opencode: a stale known failure, a fixture without expected output, a nested pass, and a
    // fixture whose very name is hostile.
    let mut fixed = fixture("opencode", "fixed-upstream", Status::Xpass);
    fixed.fixed = vec!["TN001".into()];
    fixtures.push(fixed);

    let mut missing = fixture("opencode", "new-sample", Status::Fail);
    missing.message = Some(
        "no expected file: run `toolnorm accept` to create expected/opencode/new-sample.json"
            .into(),
    );
    fixtures.push(missing);

    fixtures.push(fixture("opencode", "sessions/nested", Status::Pass));

    let mut named = fixture("opencode", "odd <b>name</b> & \"quotes\"", Status::Fail);
    named.violations = vec![violation(
        "opencode",
        "odd <b>name</b> & \"quotes\"",
        "TN001",
        "UnstableId",
        None,
        None,
        "part id changed from prt_1 to prt_2",
        None,
    )];
    fixtures.push(named);

    let orphans = vec![
        Orphan {
            kind: OrphanKind::MissingExpected,
            subject: "opencode/new-sample.jsonl.zst".into(),
            message: "fixture has no expected output".into(),
        },
        Orphan {
            kind: OrphanKind::MissingFixture,
            subject: hostile("expected/claude/gone"),
            message: "expected file has no fixture".into(),
        },
        Orphan {
            kind: OrphanKind::UnusedExpectation,
            subject: "codex/*-old.jsonl.zst TN004".into(),
            message: "expectation matches no fixture".into(),
        },
    ];
    // Built from the same matrix and summary as a real run, in the order written here (the
    // renderers' tests point at fixtures by position).
    let rules = rules();
    let fixtures = Fixtures::from_vec(fixtures);
    Report {
        report_version: REPORT_VERSION,
        toolnorm_version: "0.1.0".into(),
        implementation: None,
        shard: None,
        matrix: matrix(&rules, &fixtures),
        summary: Summary {
            duration_ms: 1_234,
            ..summary(&fixtures, &orphans, true)
        },
        rules,
        fixtures,
        orphans,
        skipped: Vec::new(),
    }
}
