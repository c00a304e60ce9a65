//! End-to-end tests of `toolnorm verify`, `accept`, `review` and `report merge` on small synthetic
//! corpora built in temp dirs.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::cli::util::{run_in, stderr, stdout, tempdir, toolnorm};

const CLAUDE: &str = r#"{"type":"system","subtype":"init","session_id":"s1","tools":["Bash"],"model":"m"}
{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls","description":"List files"}}]},"session_id":"s1","parent_tool_use_id":null}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a\nb","is_error":false}]},"session_id":"s1","parent_tool_use_id":null}
{"type":"result","subtype":"success","is_error":false,"session_id":"s1","result":"done"}
"#;

/// No tool call: the Codex normalizer may not be merged yet, and a call it does not turn into a
/// part would break a rule. The Claude fixture carries the tool call the title test edits.
const CODEX: &str = r#"{"type":"thread.started","thread_id":"t1"}
{"type":"turn.started"}
{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"hello"}}
{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}
"#;

const OPENCODE: &str = r#"{"type":"step_start","timestamp":1,"sessionID":"ses_1","part":{"id":"prt_0","type":"step-start"}}
{"type":"tool_use","timestamp":2,"sessionID":"ses_1","part":{"id":"prt_1","type":"tool","callID":"call_1","tool":"bash","state":{"status":"completed","input":{"command":"ls","description":"List"},"output":"a\n","title":"List","metadata":{},"time":{"start":1,"end":2}}}}
"#;

/// Write `text` as the fixture `corpus/<provider>/<name>.jsonl.zst`, as `import` would.
fn fixture_file(dir: &Path, provider: &str, name: &str, text: &str) {
    use toolnorm::corpus::format::new_header;
    use toolnorm::corpus::redact::{RedactOptions, Redactor};
    use toolnorm::corpus::{fixture_path, write_fixture};
    use toolnorm::stream::Direction;
    let redactor = Redactor::new(&RedactOptions::default()).unwrap();
    let lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i as u64, Direction::Agent, l.as_bytes(), true));
    let path = fixture_path(&dir.join("corpus"), provider, name);
    write_fixture(&path, new_header(provider, name), lines, &redactor, true).unwrap();
}

const CODEX_TOOL: &str = r#"{"type":"thread.started","thread_id":"t1"}
{"type":"turn.started"}
{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}
{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"a\n","exit_code":0,"status":"completed"}}
{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}
"#;

const CLAUDE_UNANSWERED: &str = r#"{"type":"system","subtype":"init","session_id":"s1","tools":["Bash"],"model":"m"}
{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"toolu_9","name":"Bash","input":{"command":"sleep 9"}}]},"session_id":"s1","parent_tool_use_id":null}
{"type":"result","subtype":"success","is_error":false,"session_id":"s1","result":"done"}
"#;

/// A corpus of four fixtures and nothing else.
fn corpus(dir: &Path) {
    fixture_file(dir, "claude", "basic", CLAUDE);
    fixture_file(dir, "claude", "second", &CLAUDE.replace("ls", "pwd"));
    fixture_file(dir, "codex", "exec", CODEX);
    fixture_file(dir, "opencode", "run", OPENCODE);
}

fn write(path: &Path, bytes: &[u8]) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

/// A corpus whose expected outputs were accepted: verify passes on it.
fn accepted_corpus(dir: &Path) {
    corpus(dir);
    let o = run_in(dir, &["accept"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "accept: {}{}",
        stdout(&o),
        stderr(&o)
    );
}

fn report_json(dir: &Path, reports: &str) -> Value {
    let text = fs::read_to_string(dir.join(reports).join("report.json")).expect("report.json");
    serde_json::from_str(&text).unwrap()
}

fn fixture<'a>(report: &'a Value, path: &str) -> &'a Value {
    report["fixtures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == path)
        .unwrap_or_else(|| panic!("{path}"))
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn a_passing_corpus_exits_0_and_writes_every_report() {
    let dir = tempdir();
    let d = dir.path();
    accepted_corpus(d);
    assert!(d.join("expected/opencode/run.json").is_file());
    assert!(d.join("expected/claude/second.json").is_file());
    let o = run_in(d, &["verify"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    for file in ["report.json", "junit.xml", "summary.md", "index.html"] {
        assert!(d.join("reports").join(file).is_file(), "{file} missing");
    }
    let out = stdout(&o);
    assert!(
        out.contains("PASS: 4 fixtures: 4 passed, 0 failed"),
        "{out}"
    );
    assert!(
        !out.contains('\x1b'),
        "no colour when stdout is not a terminal: {out}"
    );
    let report = report_json(d, "reports");
    assert_eq!(report["summary"]["failed"], 0);
    assert!(
        report["summary"].get("exitCode").is_none(),
        "the exit code is the command's, not the report's"
    );
    let paths: Vec<&str> = report["fixtures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            "claude/basic.jsonl.zst",
            "claude/second.jsonl.zst",
            "codex/exec.jsonl.zst",
            "opencode/run.jsonl.zst"
        ]
    );
    assert!(
        report["fixtures"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["status"] == "pass")
    );
    assert!(
        !d.join("reports/pending").exists()
            || fs::read_dir(d.join("reports/pending/claude")).is_err()
    );
}

/// Change one value of one expected file: the title of the first part once the normalizer makes
/// parts, otherwise the first diagnostic's message.
fn change_one_expected_value(path: &Path) -> (String, String) {
    let mut v: Value = serde_json::from_str(&read(path)).unwrap();
    let pointer = if v.pointer("/parts/0/title").is_some() {
        "/parts/0/title"
    } else {
        "/diagnostics/0/message"
    };
    let slot = v
        .pointer_mut(pointer)
        .expect("the expected file has a title or a diagnostic to change");
    let old = slot.as_str().unwrap().to_owned();
    *slot = Value::String("EditedByAReviewer".to_owned());
    let mut text = serde_json::to_string_pretty(&v).unwrap();
    text.push('\n');
    fs::write(path, text).unwrap();
    (pointer.to_owned(), old)
}

#[test]
fn one_changed_expected_value_fails_and_shows_in_every_report() {
    let dir = tempdir();
    let d = dir.path();
    accepted_corpus(d);
    let (pointer, old) = change_one_expected_value(&d.join("expected/claude/basic.json"));
    let o = run_in(d, &["verify"]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));

    let out = stdout(&o);
    assert!(out.contains("FAIL claude/basic"), "{out}");
    assert!(out.contains(&format!("changed: {pointer}")), "{out}");
    assert!(out.contains("EditedByAReviewer"), "{out}");

    let report = report_json(d, "reports");
    let f = fixture(&report, "claude/basic.jsonl.zst");
    assert_eq!(f["status"], "fail");
    assert_eq!(f["diff"]["changedPaths"], serde_json::json!([pointer]));
    assert!(f["diff"]["unified"].as_str().unwrap().contains("-"), "{f}");
    assert!(
        f["diff"]["unified"]
            .as_str()
            .unwrap()
            .contains("EditedByAReviewer")
    );
    assert_eq!(fixture(&report, "codex/exec.jsonl.zst")["status"], "pass");
    assert_eq!(report["summary"]["failed"], 1);

    for file in ["junit.xml", "summary.md", "index.html"] {
        let text = read(&d.join("reports").join(file));
        assert!(
            text.contains("EditedByAReviewer"),
            "{file} does not show the change"
        );
    }
    // The actual output waits for review; accepting it restores the old value.
    let pending = read(&d.join("reports/pending/claude/basic.json"));
    assert!(pending.contains(&old) && !pending.contains("EditedByAReviewer"));
    // --fail-fast: with one worker, fixtures run in order and nothing starts after the failure.
    let o = run_in(d, &["verify", "--fail-fast", "--jobs", "1"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(report_json(d, "reports")["summary"]["fixtures"], 1);
    let o = run_in(d, &["accept", "--filter", "claude/*"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stdout(&o).contains("updated claude/basic.json"),
        "{}",
        stdout(&o)
    );
    assert!(!d.join("reports/pending/claude/basic.json").exists());
    assert_eq!(run_in(d, &["verify"]).status.code(), Some(0));
}

#[test]
fn a_corrupt_zstd_fixture_is_an_error_not_a_crash() {
    let dir = tempdir();
    let d = dir.path();
    accepted_corpus(d);
    let mut bytes = vec![0x28, 0xB5, 0x2F, 0xFD];
    bytes.extend_from_slice(b"definitely not a zstd frame");
    write(&d.join("corpus/claude/broken.jsonl.zst"), &bytes);
    write(&d.join("expected/claude/broken.json"), b"{}\n");
    let o = run_in(d, &["verify"]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let report = report_json(d, "reports");
    let f = fixture(&report, "claude/broken.jsonl.zst");
    assert_eq!(f["status"], "error");
    assert!(
        f["message"].as_str().unwrap().contains("broken.jsonl.zst"),
        "{f}"
    );
    assert_eq!(report["summary"]["errored"], 1);
    assert_eq!(report["summary"]["passed"], 4);
    assert!(stdout(&o).contains("ERROR claude/broken"), "{}", stdout(&o));
}

#[test]
fn orphans_both_ways_fail_the_gate() {
    let dir = tempdir();
    let d = dir.path();
    accepted_corpus(d);
    fs::remove_file(d.join("expected/codex/exec.json")).unwrap();
    write(&d.join("expected/opencode/gone.json"), b"{}\n");
    write(
        &d.join("expectations.toml"),
        b"[[known]]\nfixture = \"codex/nothing-*\"\nrule = \"TN001\"\nreason = \"was flaky\"\n",
    );
    let o = run_in(d, &["verify"]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let report = report_json(d, "reports");
    let kinds: Vec<(&str, &str)> = report["orphans"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["kind"].as_str().unwrap(), o["subject"].as_str().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("missing-expected", "codex/exec.jsonl.zst"),
            ("missing-fixture", "opencode/gone.json"),
            ("unused-expectation", "codex/nothing-* TN001"),
        ]
    );
    assert_eq!(fixture(&report, "codex/exec.jsonl.zst")["status"], "fail");
    assert!(d.join("reports/pending/codex/exec.json").is_file());
    let out = stdout(&o);
    assert!(out.contains("ORPHAN no fixture"), "{out}");
    // A filtered run does not call other providers' files and known-failure entries orphans:
    // only those of the fixtures it selects.
    let orphans = |args: &[&str]| {
        let mut all = vec!["verify", "--expectations", "expectations.toml"];
        all.extend_from_slice(args);
        let o = run_in(d, &all);
        let report = report_json(d, "reports");
        let subjects: Vec<String> = report["orphans"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["subject"].as_str().unwrap().to_owned())
            .collect();
        (subjects, stdout(&o))
    };
    let (subjects, out) = orphans(&["--provider", "claude"]);
    assert!(subjects.is_empty(), "{subjects:?}\n{out}");
    assert!(!out.contains("unused expectation"), "{out}");
    let (subjects, out) = orphans(&["--provider", "codex"]);
    assert_eq!(
        subjects,
        ["codex/exec.jsonl.zst", "codex/nothing-* TN001"],
        "{out}"
    );
    let (subjects, out) = orphans(&["--filter", "codex/*", "--shard", "1/2"]);
    assert!(
        subjects.contains(&"codex/nothing-* TN001".to_owned()),
        "{subjects:?}\n{out}"
    );
    let (subjects, out) = orphans(&["--filter", "claude/*", "--shard", "2/2"]);
    assert!(subjects.is_empty(), "{subjects:?}\n{out}");
}

#[test]
fn a_listed_failure_that_passes_is_xpass_and_fails_only_when_strict() {
    let dir = tempdir();
    let d = dir.path();
    accepted_corpus(d);
    let o = run_in(d, &["verify"]);
    let report = report_json(d, "reports");
    assert_eq!(o.status.code(), Some(0));
    let violated: Vec<&str> = fixture(&report, "codex/exec.jsonl.zst")["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["rule"].as_str().unwrap())
        .collect();
    // A rule this fixture keeps: listing it is stale.
    let code = toolnorm::rules::registry()
        .iter()
        .map(|r| r.code())
        .find(|c| !violated.contains(c))
        .expect("codex/exec breaks every rule; the test needs a fixture that keeps one");
    write(
        &d.join("expectations.toml"),
        format!("[[known]]\nfixture = \"codex/exec\"\nrule = \"{code}\"\nreason = \"r\"\n")
            .as_bytes(),
    );

    let o = run_in(d, &["verify", "--no-strict"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let report = report_json(d, "reports");
    let f = fixture(&report, "codex/exec.jsonl.zst");
    assert_eq!(f["status"], "xpass");
    assert_eq!(f["fixed"], serde_json::json!([code]));
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .contains("fixed: remove the entry"),
        "{f}"
    );
    assert!(stdout(&o).contains("XPASS codex/exec"), "{}", stdout(&o));

    assert_eq!(run_in(d, &["verify", "--strict"]).status.code(), Some(1));
    // CI turns strict on by default; --no-strict still wins.
    let ci = |v: &str, extra: &[&str]| {
        toolnorm()
            .arg("verify")
            .args(extra)
            .current_dir(d)
            .env("CI", v)
            .output()
            .unwrap()
            .status
            .code()
    };
    assert_eq!(ci("true", &[]), Some(1));
    assert_eq!(ci("false", &[]), Some(0));
    assert_eq!(ci("1", &["--no-strict"]), Some(0));
}

#[test]
fn listed_violations_are_known_failures() {
    let dir = tempdir();
    let d = dir.path();
    corpus(d);
    // Fixtures likely to break a rule somewhere while normalizers are young: a Codex command the
    // normalizer may not turn into a part, a Claude call whose result never comes.
    fixture_file(d, "codex", "tool", CODEX_TOOL);
    fixture_file(d, "claude", "unanswered", CLAUDE_UNANSWERED);
    assert_eq!(run_in(d, &["accept"]).status.code(), Some(0));
    run_in(d, &["verify"]);
    let report = report_json(d, "reports");
    let found = report["fixtures"].as_array().unwrap().iter().find_map(|f| {
        f["violations"]
            .as_array()
            .unwrap()
            .first()
            .map(|v| (f["provider"].clone(), f["name"].clone(), v["rule"].clone()))
    });
    let (provider, name, rule) =
        found.expect("the synthetic corpus breaks no rule; the test needs a fixture that does");
    let (provider, name, rule) = (
        provider.as_str().unwrap(),
        name.as_str().unwrap(),
        rule.as_str().unwrap(),
    );
    write(
        &d.join("expectations.toml"),
        format!("[[known]]\nfixture = \"{provider}/{name}\"\nrule = \"{rule}\"\nreason = \"tracked upstream\"\n").as_bytes(),
    );
    run_in(d, &["verify"]);
    let report = report_json(d, "reports");
    let f = fixture(
        &report,
        report["fixtures"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name)
            .unwrap()["path"]
            .as_str()
            .unwrap(),
    );
    let v = f["violations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["rule"] == rule)
        .unwrap();
    assert_eq!(v["known"], true);
    assert_eq!(v["reason"], "tracked upstream");
}

#[test]
fn usage_and_unreadable_corpus_exit_2() {
    let dir = tempdir();
    let d = dir.path();
    let o = run_in(d, &["verify", "--corpus", "missing"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("failed to read the corpus missing"),
        "{}",
        stderr(&o)
    );
    write(&d.join("file"), b"x");
    assert_eq!(
        run_in(d, &["verify", "--corpus", "file"]).status.code(),
        Some(2)
    );
    corpus(d);
    assert_eq!(
        run_in(d, &["verify", "--shard", "0/2"]).status.code(),
        Some(2)
    );
    assert_eq!(
        run_in(d, &["verify", "--filter", "a[b"]).status.code(),
        Some(2)
    );
    write(&d.join("bad.toml"), b"[[known]]\nfixture = 1\n");
    let o = run_in(d, &["verify", "--expectations", "bad.toml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bad.toml"), "{}", stderr(&o));
    assert_eq!(
        run_in(d, &["verify", "--expectations", "nope.toml"])
            .status
            .code(),
        Some(2)
    );
}

fn without_volatile(mut v: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.remove("durationMs");
                m.remove("shard");
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

#[test]
fn shards_partition_the_corpus_and_merge_into_the_unsharded_report() {
    let dir = tempdir();
    let d = dir.path();
    accepted_corpus(d);
    for i in 0..5 {
        fixture_file(d, "codex", &format!("extra-{i}"), &CODEX.repeat(i + 1));
    }
    // One failure and one orphan, so merging has something to recompute.
    change_one_expected_value(&d.join("expected/claude/basic.json"));
    let o = run_in(d, &["verify"]);
    assert_eq!(o.status.code(), Some(1));
    let whole = report_json(d, "reports");
    let mut seen = Vec::new();
    for k in 1..=3 {
        let out = format!("shard{k}");
        run_in(
            d,
            &["verify", "--shard", &format!("{k}/3"), "--reports", &out],
        );
        let r = report_json(d, &out);
        assert_eq!(r["shard"], format!("{k}/3"));
        seen.extend(
            r["fixtures"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["path"].as_str().unwrap().to_owned()),
        );
    }
    seen.sort();
    let all: Vec<String> = whole["fixtures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(seen, all, "every fixture in exactly one shard");

    let o = run_in(
        d,
        &[
            "report",
            "merge",
            "shard1",
            "shard2",
            "shard3",
            "--reports",
            "merged",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(
        without_volatile(report_json(d, "merged")),
        without_volatile(whole)
    );
    assert!(d.join("merged/index.html").is_file());
    // The same shard twice is a mistake, not a merge.
    let o = run_in(d, &["report", "merge", "shard1", "shard1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is in both"), "{}", stderr(&o));
}

#[test]
fn accept_creates_and_overwrites_expected_files() {
    let dir = tempdir();
    let d = dir.path();
    corpus(d);
    let o = run_in(d, &["accept", "--provider", "codex"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stdout(&o).contains("created codex/exec.json"),
        "{}",
        stdout(&o)
    );
    assert!(!d.join("expected/claude").exists());
    let first = read(&d.join("expected/codex/exec.json"));
    assert!(first.ends_with("}\n") && first.starts_with("{\n  \""));
    fs::write(d.join("expected/codex/exec.json"), "{\"stale\": true}").unwrap();
    let o = run_in(d, &["accept"]);
    assert!(
        stdout(&o).contains("updated codex/exec.json"),
        "{}",
        stdout(&o)
    );
    assert!(
        stdout(&o).contains("created claude/basic.json"),
        "{}",
        stdout(&o)
    );
    assert_eq!(read(&d.join("expected/codex/exec.json")), first);
    let o = run_in(d, &["accept"]);
    assert!(
        stdout(&o).contains("0 created, 0 updated, 4 unchanged"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn review_needs_a_terminal() {
    let dir = tempdir();
    let d = dir.path();
    corpus(d);
    let o = run_in(d, &["review"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("nothing to review"));
    assert_eq!(run_in(d, &["verify"]).status.code(), Some(1));
    assert!(d.join("reports/pending/claude/basic.json").is_file());
    let o = run_in(d, &["review"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("stdin is not a terminal"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_stale_pending_output_is_removed_once_its_fixture_passes() {
    for jobs in ["1", "2"] {
        let dir = tempdir();
        let d = dir.path();
        accepted_corpus(d);
        // A passing run with no pending folder makes none.
        assert_eq!(
            run_in(d, &["verify", "--jobs", jobs]).status.code(),
            Some(0)
        );
        assert!(!d.join("reports/pending").exists(), "--jobs {jobs}");
        let expected = d.join("expected/claude/basic.json");
        let good = read(&expected);
        fs::write(&expected, good.replace("List files", "Something else")).unwrap();
        assert_eq!(
            run_in(d, &["verify", "--jobs", jobs]).status.code(),
            Some(1)
        );
        let pending = d.join("reports/pending/claude/basic.json");
        assert!(pending.is_file(), "--jobs {jobs}");
        // Another output left by hand beside it, for a fixture that passes too.
        write(&d.join("reports/pending/codex/exec.json"), b"{}\n");
        fs::write(&expected, &good).unwrap();
        let o = run_in(d, &["verify", "--jobs", jobs]);
        assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
        assert!(!pending.exists(), "--jobs {jobs}");
        assert!(!d.join("reports/pending/codex/exec.json").exists());
    }
}

/// The seconds of a `--timings` row (`  name  what  0.012 s  3.4%`).
fn timing_row(table: &str, name: &str) -> f64 {
    let line = table
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{name} ")))
        .unwrap_or_else(|| panic!("no row {name}: {table}"));
    // The number followed by the unit `s`.
    let words: Vec<&str> = line.split_whitespace().collect();
    words
        .windows(2)
        .find_map(|w| (w[1] == "s").then(|| w[0].parse().ok()).flatten())
        .unwrap_or_else(|| panic!("no seconds in {line}"))
}

#[test]
fn timings_say_where_the_time_went_and_change_nothing_else() {
    let dir = tempdir();
    let d = dir.path();
    accepted_corpus(d);
    let plain = run_in(d, &["verify", "--jobs", "1", "--reports", "plain"]);
    assert_eq!(plain.status.code(), Some(0), "{}", stderr(&plain));
    assert!(!stderr(&plain).contains("timings:"), "{}", stderr(&plain));

    let timed = run_in(
        d,
        &["verify", "--jobs", "1", "--reports", "timed", "--timings"],
    );
    assert_eq!(timed.status.code(), Some(0), "{}", stderr(&timed));
    assert_eq!(
        without_volatile(report_json(d, "timed")),
        without_volatile(report_json(d, "plain")),
        "--timings changes no report"
    );
    let table = stderr(&timed);
    assert!(
        table.contains("timings: 4 fixture(s), --jobs 1; wall time inside each phase\n"),
        "{table}"
    );
    let phases = [
        "listing",
        "reading",
        "normalizing",
        "canonical",
        "rules-scan",
        "rules-checks",
        "expected",
        "comparing",
        "spooling",
        "reports",
    ];
    let mut sum = 0.0;
    for p in phases {
        sum += timing_row(&table, p);
    }
    // Each row is rounded to the millisecond.
    assert!(
        (timing_row(&table, "phases") - sum).abs() <= 0.001 * phases.len() as f64,
        "{table}"
    );
    assert!(
        table.contains("process      CPU time of the whole process"),
        "{table}"
    );
    assert!(timing_row(&table, "process") > 0.0, "{table}");

    // Several jobs: their times add up, and the table says so.
    let jobs = run_in(
        d,
        &["verify", "--jobs", "3", "--reports", "jobs", "--timings"],
    );
    assert_eq!(jobs.status.code(), Some(0), "{}", stderr(&jobs));
    assert!(
        stderr(&jobs).contains("--jobs 3; wall time inside each phase, summed over the jobs"),
        "{}",
        stderr(&jobs)
    );
}
