//! End-to-end tests of symlinks and other non-files in the corpus, expected and pending folders:
//! nothing outside them is ever read or written, and every entry left alone is reported (a
//! warning; an error that fails the gate under `--strict`).

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

use serde_json::Value;

use crate::cli::util::{stderr, stdout, tempdir, toolnorm};

const CLAUDE: &str = r#"{"type":"system","subtype":"init","session_id":"s1","tools":["Bash"],"model":"m"}
{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls","description":"List files"}}]},"session_id":"s1","parent_tool_use_id":null}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a\nb","is_error":false}]},"session_id":"s1","parent_tool_use_id":null}
{"type":"result","subtype":"success","is_error":false,"session_id":"s1","result":"done"}
"#;

const SECRET: &str = "root:SECRET-OUTSIDE-THE-TREE:0:0";

fn fixture_file(corpus: &Path, provider: &str, name: &str, text: &str) {
    use toolnorm::corpus::format::new_header;
    use toolnorm::corpus::redact::{RedactOptions, Redactor};
    use toolnorm::corpus::{fixture_path, write_fixture};
    use toolnorm::stream::Direction;
    let redactor = Redactor::new(&RedactOptions::default()).unwrap();
    let lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i as u64, Direction::Agent, l.as_bytes(), true));
    let path = fixture_path(corpus, provider, name);
    write_fixture(&path, new_header(provider, name), lines, &redactor, true).unwrap();
}

fn run(dir: &Path, args: &[&str], ci: bool) -> std::process::Output {
    let mut cmd = toolnorm();
    cmd.args(args).current_dir(dir).env_remove("CI");
    if ci {
        cmd.env("CI", "true");
    }
    cmd.output().expect("failed to run toolnorm")
}

/// `dir/outside/secret` (a file no command may read or write) and an accepted corpus of two
/// Claude fixtures.
fn setup(d: &Path) {
    fs::create_dir_all(d.join("outside")).unwrap();
    fs::write(d.join("outside/secret"), SECRET).unwrap();
    fixture_file(&d.join("corpus"), "claude", "a", CLAUDE);
    fixture_file(&d.join("corpus"), "claude", "b", CLAUDE);
    let o = run(d, &["accept"], false);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
}

fn all_reports(d: &Path, reports: &str) -> String {
    ["report.json", "index.html", "summary.md", "junit.xml"]
        .iter()
        .map(|f| fs::read_to_string(d.join(reports).join(f)).unwrap())
        .collect()
}

fn report_json(d: &Path, reports: &str) -> Value {
    serde_json::from_str(&fs::read_to_string(d.join(reports).join("report.json")).unwrap()).unwrap()
}

fn skipped_paths(report: &Value) -> Vec<String> {
    report["skipped"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|s| s["path"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_symlinked_expected_file_is_never_read_nor_overwritten() {
    let dir = tempdir();
    let d = dir.path();
    setup(d);
    fs::remove_file(d.join("expected/claude/a.json")).unwrap();
    symlink(d.join("outside/secret"), d.join("expected/claude/a.json")).unwrap();

    let o = run(d, &["verify"], false);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let reports = all_reports(d, "reports");
    assert!(
        !reports.contains("SECRET"),
        "the link's target leaked into a report"
    );
    assert!(!stdout(&o).contains("SECRET"), "{}", stdout(&o));
    let report = report_json(d, "reports");
    let a = report["fixtures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "claude/a.jsonl.zst")
        .unwrap();
    assert_eq!(a["status"], "fail");
    assert!(
        a["message"].as_str().unwrap().contains("is a symlink"),
        "{a}"
    );
    assert_eq!(skipped_paths(&report), ["expected/claude/a.json"]);
    assert_eq!(report["summary"]["skipped"], 1);
    assert!(stdout(&o).contains("WARNING"), "{}", stdout(&o));

    let o = run(d, &["accept"], false);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert!(stderr(&o).contains("is a symlink"), "{}", stderr(&o));
    assert_eq!(
        fs::read_to_string(d.join("outside/secret")).unwrap(),
        SECRET
    );
    assert!(
        fs::symlink_metadata(d.join("expected/claude/a.json"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn a_symlinked_expected_folder_is_never_followed() {
    let dir = tempdir();
    let d = dir.path();
    setup(d);
    fs::create_dir_all(d.join("outside/claude")).unwrap();
    fs::write(d.join("outside/claude/a.json"), SECRET).unwrap();
    fs::rename(d.join("expected/claude"), d.join("expected-claude")).unwrap();
    symlink(d.join("outside/claude"), d.join("expected/claude")).unwrap();
    let o = run(d, &["verify"], false);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert!(!all_reports(d, "reports").contains("SECRET"));
    assert_eq!(
        skipped_paths(&report_json(d, "reports")),
        ["expected/claude"]
    );
    let o = run(d, &["accept"], false);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(
        fs::read_to_string(d.join("outside/claude/a.json")).unwrap(),
        SECRET
    );
    assert!(
        !d.join("outside/claude/b.json").exists(),
        "accept wrote through the link"
    );
}

#[test]
fn corpus_links_dirs_and_fifos_are_skipped_and_reported() {
    let dir = tempdir();
    let d = dir.path();
    setup(d);
    // A provider folder outside the corpus, a linked fixture, a directory and a FIFO named like
    // fixtures.
    fixture_file(&d.join("outside"), "codex", "elsewhere", CLAUDE);
    symlink(d.join("outside/codex"), d.join("corpus/codex")).unwrap();
    symlink(
        d.join("corpus/claude/a.jsonl.zst"),
        d.join("corpus/claude/linked.jsonl.zst"),
    )
    .unwrap();
    fs::create_dir_all(d.join("corpus/claude/folder.jsonl.zst")).unwrap();
    let fifo = std::ffi::CString::new(
        d.join("corpus/claude/pipe.jsonl.zst")
            .as_os_str()
            .as_encoded_bytes(),
    )
    .unwrap();
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    let want = [
        "corpus/claude/folder.jsonl.zst",
        "corpus/claude/linked.jsonl.zst",
        "corpus/claude/pipe.jsonl.zst",
        "corpus/codex",
    ];

    let o = run(d, &["verify", "--no-strict"], false);
    assert_eq!(
        o.status.code(),
        Some(0),
        "warnings only: {}{}",
        stdout(&o),
        stderr(&o)
    );
    let report = report_json(d, "reports");
    assert_eq!(
        report["summary"]["fixtures"], 2,
        "only the two real fixtures"
    );
    assert_eq!(skipped_paths(&report), want);
    let out = stdout(&o);
    for w in want {
        assert!(out.contains(&format!("WARNING {w} is ")), "{w}: {out}");
    }
    assert!(out.contains("4 skipped entries"), "{out}");
    let html = fs::read_to_string(d.join("reports/index.html")).unwrap();
    assert!(
        html.contains("id=\"skipped\""),
        "the HTML report shows them"
    );
    assert!(
        fs::read_to_string(d.join("reports/summary.md"))
            .unwrap()
            .contains("Skipped entries (4)")
    );
    assert!(
        fs::read_to_string(d.join("reports/junit.xml"))
            .unwrap()
            .contains("skipped-entries")
    );

    // On CI (strict) they fail the gate.
    let o = run(d, &["verify", "--reports", "strict"], true);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("ERROR corpus/codex is a symlink"),
        "{}",
        stdout(&o)
    );

    // Every command that lists the corpus says so too.
    for args in [&["corpus", "list"][..], &["corpus", "lint"], &["accept"]] {
        let o = run(d, args, false);
        let err = stderr(&o);
        for w in want {
            assert!(
                err.contains(&format!("warning: {w} is ")),
                "{args:?} {w}: {err}"
            );
        }
        assert!(
            !stdout(&o).contains("elsewhere"),
            "{args:?}: {}",
            stdout(&o)
        );
    }
    assert!(
        !d.join("expected/codex").exists(),
        "accept took nothing from outside"
    );
}

#[test]
fn a_symlinked_pending_output_is_never_written_through() {
    let dir = tempdir();
    let d = dir.path();
    setup(d);
    fs::write(d.join("expected/claude/a.json"), "{}\n").unwrap();
    fs::create_dir_all(d.join("reports/pending/claude")).unwrap();
    symlink(
        d.join("outside/secret"),
        d.join("reports/pending/claude/a.json"),
    )
    .unwrap();
    let o = run(d, &["verify"], false);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(
        fs::read_to_string(d.join("outside/secret")).unwrap(),
        SECRET
    );
    assert_eq!(
        skipped_paths(&report_json(d, "reports")),
        ["reports/pending/claude/a.json"]
    );

    // A linked pending folder: a passing fixture's stale output is not removed through it.
    fs::create_dir_all(d.join("outside/pending-claude")).unwrap();
    fs::write(d.join("outside/pending-claude/b.json"), SECRET).unwrap();
    fs::remove_dir_all(d.join("reports/pending/claude")).unwrap();
    symlink(
        d.join("outside/pending-claude"),
        d.join("reports/pending/claude"),
    )
    .unwrap();
    let o = run(d, &["verify", "--filter", "claude/b"], false);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(
        fs::read_to_string(d.join("outside/pending-claude/b.json")).unwrap(),
        SECRET
    );
    assert_eq!(
        skipped_paths(&report_json(d, "reports")),
        ["reports/pending/claude"]
    );
}
