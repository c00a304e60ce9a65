//! End-to-end tests of `verify --impl`: the built-in normalizer through the protocol gives the
//! built-in run's verdicts on the shipped corpus, and a deliberately wrong implementation
//! (`examples/wrong-impl/wrong.py`) has every kind of wrong caught: diffs, violations, a wrong
//! legacy view, error answers, crashes, hangs, garbage, answers out of order and slow answers.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::cli::util::{root, stderr, stdout, tempdir, toolnorm};

/// The `--impl` commands of the `toolnorm verify --impl 'toolnorm serve-protocol …'` lines of a
/// page's section (`toolnorm` as the binary under test). The docs test leaves those blocks of
/// docs/protocol.md and docs/ui-wires.md to the tests here, which run each command and check
/// much more than its exit code; any other line in such a block fails here.
fn documented_impls(page: &str, heading: &str) -> Vec<String> {
    let exe = env!("CARGO_BIN_EXE_toolnorm");
    let mut found = Vec::new();
    for (info, code) in crate::cli::docs::section_blocks(page, heading) {
        if info != "sh" || !code.contains("serve-protocol") {
            continue;
        }
        for line in code.lines() {
            let line = line.split(" #").next().unwrap_or_default().trim();
            if line.is_empty() {
                continue;
            }
            let cmd = line
                .strip_prefix("toolnorm verify --impl '")
                .and_then(|rest| rest.strip_suffix('\''))
                .and_then(|c| c.strip_prefix("toolnorm serve-protocol"))
                .unwrap_or_else(|| panic!("{page}: `{line}` is not a command the tests here run"));
            found.push(format!("{exe} serve-protocol{cmd}"));
        }
    }
    assert!(
        !found.is_empty(),
        "{page}: no serve-protocol block under {heading}"
    );
    found
}

/// Two small Claude stream-json fixtures of the shipped corpus (each with tool calls).
const TWO_CLAUDE: &str = "claude/live-claude-{bash,interrupted}";

/// `toolnorm verify` on the shipped corpus (run from the project root) with `args`, its report.
fn verify(args: &[&str], env: &[(&str, &str)]) -> (Output, Value) {
    let dir = tempdir();
    let reports = dir.path().join("reports");
    let mut cmd: Command = toolnorm();
    cmd.current_dir(root())
        .env_remove("CI")
        .arg("verify")
        .arg("--reports")
        .arg(&reports)
        .args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("failed to run toolnorm");
    let report = std::fs::read_to_string(reports.join("report.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    (out, report)
}

/// The built-in normalizer's verify of the shipped corpus, which the implementations' verdicts
/// are held to: run once for the tests that compare with it.
fn builtin() -> &'static (Output, Value) {
    static BUILTIN: std::sync::OnceLock<(Output, Value)> = std::sync::OnceLock::new();
    BUILTIN.get_or_init(|| verify(&["--jobs", "2"], &[]))
}

/// A tool the test cannot do without: a missing one fails the test with what to install, never
/// passes it unseen.
fn require(tool: &'static str, why: &str) -> &'static str {
    let ok = Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        ok,
        "{tool} is needed for {why}: run scripts/install-test-deps.sh"
    );
    tool
}

/// Python 3 (which every supported machine has) as the wrong implementations run it: the
/// interpreter's own path, asked for once. A `python3` on the PATH may be a version manager's shim
/// (pyenv's is a shell script that runs a dozen more before Python), which every worker process of
/// every `verify --impl` here would pay again.
fn python3(why: &str) -> &'static str {
    static PYTHON: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    PYTHON
        .get_or_init(|| {
            let o = Command::new("python3")
                .args(["-c", "import sys; print(sys.executable)"])
                .output()
                .ok()?;
            let path = String::from_utf8(o.stdout).ok()?.trim().to_owned();
            (o.status.success() && !path.is_empty()).then_some(path)
        })
        .as_deref()
        .unwrap_or_else(|| panic!("python3 is needed for {why}: run scripts/install-test-deps.sh"))
}

/// The wrong implementation in one of its modes.
fn wrong(mode: &str) -> String {
    let script = root().join("examples/wrong-impl/wrong.py");
    let python = python3("the wrong implementation (examples/wrong-impl)");
    format!("{python} {} {mode}", script.display())
}

fn fixtures(report: &Value) -> &Vec<Value> {
    report["fixtures"].as_array().expect("report has fixtures")
}

fn statuses(report: &Value) -> Vec<&str> {
    fixtures(report)
        .iter()
        .map(|f| f["status"].as_str().unwrap())
        .collect()
}

fn messages(report: &Value) -> Vec<String> {
    fixtures(report)
        .iter()
        .map(|f| f["message"].as_str().unwrap_or("").to_owned())
        .collect()
}

/// Run the wrong implementation in `mode` on the two fixtures with a short timeout.
fn run_wrong(mode: &str, extra: &[&str], env: &[(&str, &str)]) -> (Output, Value) {
    let cmd = wrong(mode);
    let mut args = vec!["--impl", &cmd, "--filter", TWO_CLAUDE];
    if !extra.contains(&"--timeout") {
        args.extend(["--timeout", "2"]);
    }
    args.extend_from_slice(extra);
    verify(&args, env)
}

/// The codes of the rules a fixture's result breaks.
fn rules_of(fixture: &Value) -> Vec<&str> {
    fixture["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["rule"].as_str().unwrap())
        .collect()
}

/// The verdict of each fixture: everything but durations.
fn verdicts(report: &Value) -> Vec<Value> {
    fixtures(report)
        .iter()
        .map(|f| {
            let mut f = f.clone();
            f.as_object_mut().unwrap().remove("durationMs");
            f
        })
        .collect()
}

#[test]
fn built_in_through_the_protocol_gives_the_built_in_verdicts() {
    let (builtin_out, builtin) = builtin();
    let exe = Path::new(env!("CARGO_BIN_EXE_toolnorm"))
        .display()
        .to_string();
    let cmd = format!("{exe} serve-protocol");
    // docs/protocol.md shows this command and the same answering in a wire (run below);
    // docs/embedding.md shows it alone.
    let documented = documented_impls("docs/protocol.md", "Running it");
    assert_eq!(documented[0], cmd);
    assert_eq!(
        documented_impls("docs/embedding.md", "The protocol"),
        [cmd.as_str()]
    );
    for other in &documented[1..] {
        let wire = other
            .strip_prefix(&format!("{cmd} --wire "))
            .unwrap_or_default();
        assert!(WIRES.contains(&wire), "docs/protocol.md: `{other}`");
    }
    let (proto_out, proto) = verify(&["--impl", &cmd, "--jobs", "2"], &[]);
    assert_eq!(
        builtin_out.status.code(),
        proto_out.status.code(),
        "{}",
        stdout(&proto_out)
    );
    assert!(
        fixtures(builtin).len() > 50,
        "the shipped corpus is checked"
    );
    assert_eq!(verdicts(builtin), verdicts(&proto));
    assert_eq!(builtin["matrix"], proto["matrix"]);
    assert_eq!(builtin["implementation"]["command"], Value::Null);
    assert_eq!(proto["implementation"]["name"], "toolnorm");
    assert_eq!(proto["implementation"]["command"], cmd.as_str());
    assert_eq!(proto["reportVersion"], toolnorm::report::REPORT_VERSION);
}

#[test]
fn wrong_parts_are_diffs_and_rule_violations() {
    let (out, report) = run_wrong("empty", &[], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(statuses(&report), ["fail", "fail"]);
    for f in fixtures(&report) {
        assert!(f["diff"].is_object(), "{f}");
        let rules = rules_of(f);
        assert!(
            rules.contains(&"TN010"),
            "lost calls are violations: {rules:?}"
        );
    }
    assert_eq!(report["implementation"]["name"], "wrong-impl");
    assert_eq!(report["implementation"]["version"], "0.0.1");

    let (_, report) = run_wrong("bad-part", &["--impl-name", "broken"], &[]);
    assert_eq!(statuses(&report), ["fail", "fail"]);
    assert_eq!(report["implementation"]["name"], "broken");
    let rules = rules_of(&fixtures(&report)[0]);
    assert!(
        rules.iter().any(|r| *r != "TN010"),
        "the invented part breaks rules: {rules:?}"
    );
}

#[test]
fn a_wrong_legacy_view_is_a_failure() {
    let (out, report) = run_wrong("bad-legacy", &[], &[]);
    assert_eq!(out.status.code(), Some(1));
    for f in fixtures(&report) {
        assert!(f["legacyDiff"].is_object(), "{f}");
    }
}

#[test]
fn error_answers_crashes_garbage_and_disorder_are_errors_with_reasons() {
    let cases = [
        (
            "error",
            "answered an error: wrong-impl refuses claude/live-claude-bash",
        ),
        ("crash", "crashing on purpose"),
        ("garbage", "not JSON"),
        ("out-of-order", "out of order"),
    ];
    for (mode, needle) in cases {
        let (out, report) = run_wrong(mode, &[], &[]);
        assert_eq!(out.status.code(), Some(1), "{mode}: {}", stderr(&out));
        assert_eq!(statuses(&report), ["error", "error"], "{mode}");
        let msgs = messages(&report);
        assert!(msgs[0].contains(needle), "{mode}: {msgs:?}");
        assert!(stdout(&out).contains("ERROR"), "{mode}");
    }
    let (_, report) = run_wrong("crash", &[], &[]);
    assert!(messages(&report)[0].contains("exited (exit status: 3)"));
}

#[test]
fn a_crashed_worker_is_restarted() {
    let cmd = wrong("crash-second");
    let (_, report) = verify(
        &[
            "--impl",
            &cmd,
            "--jobs",
            "1",
            "--filter",
            "claude/live-claude-{bash,glob-grep,interrupted}",
        ],
        &[],
    );
    // One process answers the first fixture and crashes on the second; a new one answers the third.
    assert_eq!(statuses(&report), ["fail", "error", "fail"]);
}

#[test]
fn hangs_and_slow_answers_time_out_and_fast_enough_ones_do_not() {
    let started = Instant::now();
    let (out, report) = run_wrong("hang", &["--timeout", "1"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(statuses(&report), ["error", "error"]);
    let msgs = messages(&report);
    assert!(
        msgs[0].contains("timeout") && msgs[0].contains("hanging on purpose"),
        "{msgs:?}"
    );

    let (_, report) = run_wrong("slow", &["--timeout", "1"], &[("WRONG_DELAY", "3")]);
    assert_eq!(statuses(&report), ["error", "error"]);
    assert!(messages(&report)[0].contains("within 1 s (timeout)"));
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "timeouts bound the run: {:?}",
        started.elapsed()
    );

    let (_, report) = run_wrong("slow", &["--timeout", "5"], &[("WRONG_DELAY", "0.1")]);
    assert_eq!(
        statuses(&report),
        ["fail", "fail"],
        "slow but in time is judged"
    );
}

#[test]
fn unclaimed_dialects_are_unsupported_and_fail_only_with_require_all() {
    let env = [("WRONG_DIALECTS", "codex/exec,opencode/*")];
    let (out, report) = run_wrong("empty", &[], &env);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(statuses(&report), ["unsupported", "unsupported"]);
    assert_eq!(report["summary"]["unsupported"], 2);
    let (out, report) = run_wrong("empty", &["--require-all"], &env);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(report["summary"]["requireAll"], true);
}

#[test]
fn an_implementation_that_cannot_say_hello_is_a_usage_error() {
    let (out, _) = run_wrong("bad-hello", &[], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("protocol 99"), "{}", stderr(&out));
    let (out, _) = verify(&["--impl", "exit 7"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("exited"), "{}", stderr(&out));
}

#[test]
#[ignore = "needs node: run scripts/install-test-deps.sh, then cargo test -- --ignored"]
fn the_javascript_example_passes_claude_stream_json_and_is_unsupported_elsewhere() {
    let node = require("node", "the JavaScript example (examples/js-claude)");
    let script = root().join("examples/js-claude/normalize.mjs");
    let cmd = format!("{node} {}", script.display());
    let (out, report) = verify(&["--impl", &cmd, "--jobs", "2"], &[]);
    assert_eq!(report["implementation"]["name"], "js-claude");
    let mut stream_json = 0;
    let mut newer_failed = 0;
    for f in fixtures(&report) {
        let status = f["status"].as_str().unwrap();
        let path = f["path"].as_str().unwrap();
        if f["provider"] == "claude" && f["dialect"] == "stream-json" {
            stream_json += 1;
            // The example follows Claude Code up to 2.1.197 (and the imported samples); the
            // recordings of later releases (background tasks, new tools) are judged and may fail,
            // never error.
            let newer = path.starts_with("claude/live-claude-")
                && !path.starts_with("claude/live-claude-2.1.197-");
            if newer {
                assert!(status == "pass" || status == "fail", "{path}: {status}");
                newer_failed += usize::from(status == "fail");
            } else {
                assert_eq!(status, "pass", "{path}: {f}");
                assert_eq!(f["violations"], Value::Array(vec![]), "{path}");
            }
        } else {
            assert_eq!(status, "unsupported", "{path}");
        }
    }
    let expected_code = if newer_failed > 0 { 1 } else { 0 };
    assert_eq!(out.status.code(), Some(expected_code), "{}", stdout(&out));
    assert!(
        stream_json >= 20,
        "the shipped Claude stream-json fixtures are judged"
    );
    let (out, _) = verify(&["--impl", &cmd, "--require-all"], &[]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "unsupported fails under --require-all"
    );
}

#[test]
fn merging_several_implementations_gives_the_compliance_matrix() {
    let cmd = wrong("empty");
    let dir = tempdir();
    let run = |sub: &str, extra: &[&str]| {
        let out = toolnorm()
            .current_dir(root())
            .env_remove("CI")
            .args(["verify", "--filter", TWO_CLAUDE, "--reports"])
            .arg(dir.path().join(sub))
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.code().is_some_and(|c| c < 2), "{}", stderr(&out));
    };
    run("builtin", &[]);
    run("wrong", &["--impl", &cmd]);
    let merged = dir.path().join("merged");
    let out = toolnorm()
        .args(["report", "merge"])
        .arg(dir.path().join("builtin"))
        .arg(dir.path().join("wrong"))
        .arg("--reports")
        .arg(&merged)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "the wrong one fails: {}",
        stderr(&out)
    );
    let text = stdout(&out);
    assert!(
        text.contains("Compliance") && text.contains("wrong-impl 0.0.1"),
        "{text}"
    );
    assert!(text.contains("TN010 LostCall"), "{text}");
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(merged.join("compliance.json")).unwrap())
            .unwrap();
    let impls = json["implementations"].as_array().unwrap();
    assert_eq!(impls.len(), 2);
    let html = std::fs::read_to_string(merged.join("index.html")).unwrap();
    for folder in impls.iter().map(|i| i["folder"].as_str().unwrap()) {
        assert!(merged.join(folder).join("index.html").is_file(), "{folder}");
        assert!(html.contains(&format!(
            "href=\"{folder}/index.html#fixture-claude-live-claude-bash\""
        )));
    }
    let md = std::fs::read_to_string(merged.join("summary.md")).unwrap();
    assert!(md.contains("| wrong-impl 0.0.1 |"), "{md}");
}

/// The implementation that answers in a wire: toolnorm's own emitter (`serve-protocol --wire`)
/// behind `examples/wrong-impl/wrong_wire.py`, which breaks its frames with `fault`.
fn wire_impl(wire: &str, fault: &str) -> String {
    let script = root().join("examples/wrong-impl/wrong_wire.py");
    let python = python3("the wrong wire implementation (examples/wrong-impl)");
    format!(
        "{python} {} {} {wire} {fault}",
        script.display(),
        env!("CARGO_BIN_EXE_toolnorm")
    )
}

const WIRES: [&str; 3] = ["acp", "ai-sdk", "ag-ui"];

#[test]
fn a_correct_wire_implementation_gives_the_built_in_verdicts_on_the_whole_corpus() {
    let exe = env!("CARGO_BIN_EXE_toolnorm");
    let (builtin_out, builtin) = builtin();
    // docs/ui-wires.md shows one command for each wire: these.
    let documented = documented_impls(
        "docs/ui-wires.md",
        "Gating an engine that answers in a wire",
    );
    let mut wires: Vec<&str> = documented
        .iter()
        .filter_map(|c| c.strip_prefix(&format!("{exe} serve-protocol --wire ")))
        .collect();
    wires.sort_unstable();
    assert_eq!(
        wires,
        ["acp", "ag-ui", "ai-sdk"],
        "docs/ui-wires.md: {documented:?}"
    );
    // Each wire's implementation judges a third of the corpus (`--shard k/3`): the three judge
    // every fixture once between them, through a process answering in a wire, each with the
    // built-in verdicts. Every fixture in every wire is held in process, by tests/normalize/wires.rs
    // and acp.rs: three whole runs here (a debug build) cost 10 CPU-s for nothing more.
    let verdicts: std::collections::HashMap<&str, &str> = fixtures(builtin)
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["status"].as_str().unwrap()))
        .collect();
    let mut judged = std::collections::HashSet::new();
    for (k, wire) in WIRES.into_iter().enumerate() {
        let cmd = format!("{exe} serve-protocol --wire {wire}");
        let shard = format!("{}/{}", k + 1, WIRES.len());
        let (out, report) = verify(&["--impl", &cmd, "--jobs", "2", "--shard", &shard], &[]);
        assert_eq!(
            out.status.code(),
            builtin_out.status.code(),
            "{wire}: {}",
            stdout(&out)
        );
        assert!(fixtures(&report).len() > 50, "{wire}: the corpus is judged");
        for f in fixtures(&report) {
            let path = f["path"].as_str().unwrap();
            assert_eq!(
                Some(&f["status"].as_str().unwrap()),
                verdicts.get(path),
                "{wire}: {path}"
            );
            assert!(judged.insert(path.to_owned()), "{path} judged twice");
            if f["status"] != "unsupported" {
                assert_eq!(
                    f["wire"], wire,
                    "{}: the wire it was answered in",
                    f["path"]
                );
            }
            let rules = rules_of(f);
            assert!(
                !rules
                    .iter()
                    .any(|r| ["TN020", "TN021", "TN022"].contains(r)),
                "{wire}: {}: {rules:?}",
                f["path"]
            );
        }
        assert_eq!(report["implementation"]["wires"], serde_json::json!([wire]));
        assert!(stdout(&out).contains(&format!("answers in {wire}")));
    }
    assert_eq!(
        judged.len(),
        verdicts.len(),
        "every fixture judged in some wire"
    );
    // An answer in a wire the implementation's hello did not list is an error, not judged.
    let cmd = wire_impl("ai-sdk", "unlisted");
    let (out, report) = verify(&["--impl", &cmd, "--filter", TWO_CLAUDE], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(statuses(&report), ["error", "error"]);
    assert!(
        messages(&report)[0].contains("answered in `ai-sdk`, which its hello does not list"),
        "{:?}",
        messages(&report)
    );
}

#[test]
fn a_wrong_wire_implementation_fails_with_a_clear_diff_in_every_report() {
    // (fault, the changed field it must show, the rule it must break, a fixture it breaks)
    let cases = [
        ("drop-title", "/parts/0/title", "TN004"),
        ("error-as-output", "/parts/1/state", "TN022"),
        ("drop-result", "/parts/0/state", "TN021"),
    ];
    for wire in WIRES {
        for (fault, path, rule) in cases {
            let at = format!("{wire} {fault}");
            let cmd = wire_impl(wire, fault);
            let dir = tempdir();
            let reports = dir.path().join("reports");
            let out = toolnorm()
                .current_dir(root())
                .env_remove("CI")
                .args([
                    "verify",
                    "--filter",
                    "claude/live-claude-bash",
                    "--impl",
                    &cmd,
                ])
                .arg("--reports")
                .arg(&reports)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(1), "{at}: {}", stderr(&out));
            let read = |name: &str| std::fs::read_to_string(reports.join(name)).unwrap();
            // JSON: the fixture fails with the field in its diff and the rule among its violations.
            let report: Value = serde_json::from_str(&read("report.json")).unwrap();
            assert_eq!(statuses(&report), ["fail"], "{at}");
            let f = &fixtures(&report)[0];
            let changed: Vec<&str> = f["diff"]["changedPaths"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_str().unwrap())
                .collect();
            assert!(changed.contains(&path), "{at}: {changed:?}");
            assert!(rules_of(f).contains(&rule), "{at}: {:?}", rules_of(f));
            assert_eq!(
                f["wire"], wire,
                "{at}: the fixture names the wire it was answered in"
            );
            assert_eq!(report["implementation"]["wires"], serde_json::json!([wire]));
            // Terminal, markdown, JUnit, HTML: the fixture, the field, the rule and the wire.
            let terminal = stdout(&out);
            let md = read("summary.md");
            let junit = read("junit.xml");
            let html = read("index.html");
            let html_path = path.replace('/', "&#x2F;");
            for (name, text, field, wire_said) in [
                ("terminal", &terminal, path, format!("answers in {wire}")),
                ("markdown", &md, path, format!("answers in {wire}")),
                (
                    "junit",
                    &junit,
                    path,
                    format!("name=\"wire\" value=\"{wire}\""),
                ),
                (
                    "html",
                    &html,
                    html_path.as_str(),
                    format!("answers in <code>{wire}</code>"),
                ),
            ] {
                assert!(text.contains("live-claude-bash"), "{at} {name}: fixture");
                assert!(text.contains(field), "{at} {name}: {field}");
                assert!(text.contains(rule), "{at} {name}: {rule}");
                assert!(text.contains(&wire_said), "{at} {name}: {wire_said}");
            }
        }
    }
}
