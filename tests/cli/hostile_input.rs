//! Hostile input: tiny files that expand to millions of bad or blank lines, and files that are not
//! what their name says. Output, diagnostics and memory stay bounded; every message says what the
//! input is, once.

use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::Value;
use toolnorm::corpus::format::new_header;
use toolnorm::corpus::writer::FixtureWriter;
use toolnorm::corpus::{FORMAT_VERSION, Trailer};
use toolnorm::stream::Direction;

use crate::cli::util::{run_in, stderr, stdout, tempdir};

const VALID: &str = r#"{"type":"thread.started","thread_id":"t1"}"#;

/// Lines enough to show the shape (a million in the issue) and still run fast in a debug build.
const BAD_LINES: usize = 200_000;

fn bad_stream(n: usize) -> String {
    let mut s = String::with_capacity(n * 2 + VALID.len() + 1);
    s.push_str(VALID);
    s.push('\n');
    for _ in 0..n {
        s.push_str("x\n");
    }
    s
}

/// A codex exec fixture of one valid line and `n` bad ones: a few kilobytes compressed.
fn bomb_fixture(path: &Path, n: usize) {
    let mut header = new_header("codex", "bomb");
    header.dialect = Some("exec".to_owned());
    let mut w = FixtureWriter::new(Vec::new(), &header).unwrap();
    w.push_line(0, Direction::Agent, VALID.as_bytes(), true)
        .unwrap();
    for _ in 0..n {
        w.push_line(0, Direction::Agent, b"x", true).unwrap();
    }
    let bytes = w.finish(Trailer::default()).unwrap();
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

fn diagnostics(out: &str) -> Vec<Value> {
    let doc: Value = serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out:.300}"));
    doc["diagnostics"].as_array().unwrap().clone()
}

fn assert_bounded(diags: &[Value], n: usize) {
    assert!(
        diags.len() <= 12,
        "{} diagnostics: {:?}",
        diags.len(),
        &diags[..3]
    );
    assert_eq!(diags[0]["line"], 2);
    assert!(
        diags[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("not JSON"),
        "{diags:?}"
    );
    let more = format!("… and {} more lines like this: not JSON", {
        let s = (n - 10).to_string();
        let mut out = String::new();
        for (i, c) in s.chars().enumerate() {
            if i > 0 && (s.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        out
    });
    let last = diags.last().unwrap()["message"].as_str().unwrap();
    assert!(last.starts_with(&more), "{last}");
    assert_eq!(diags.last().unwrap()["line"], 12, "the first line left out");
}

#[test]
fn many_bad_lines_give_a_bounded_document() {
    let dir = tempdir();
    fs::write(dir.path().join("bad.jsonl"), bad_stream(BAD_LINES)).unwrap();
    let o = run_in(dir.path(), &["normalize", "--compact", "bad.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stdout.len() < 4_000, "{} bytes printed", o.stdout.len());
    assert_bounded(&diagnostics(&stdout(&o)), BAD_LINES);
}

#[test]
fn a_small_fixture_of_many_bad_lines_gives_a_bounded_document_and_pending_file() {
    let dir = tempdir();
    let d = dir.path();
    let fixture = d.join("corpus/codex/bomb.jsonl.zst");
    bomb_fixture(&fixture, BAD_LINES);
    assert!(fs::metadata(&fixture).unwrap().len() < 20_000);
    let o = run_in(
        d,
        &["normalize", "--compact", "corpus/codex/bomb.jsonl.zst"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stdout.len() < 4_000, "{} bytes printed", o.stdout.len());
    assert_bounded(&diagnostics(&stdout(&o)), BAD_LINES);

    let o = run_in(d, &["verify", "--jobs", "1"]);
    let pending = d.join("reports/pending/codex/bomb.json");
    let len = fs::metadata(&pending)
        .unwrap_or_else(|e| panic!("{e}: {}{}", stdout(&o), stderr(&o)))
        .len();
    assert!(len < 8_000, "a {len}-byte pending file");
}

/// The binary under an address-space limit (`RLIMIT_AS`): over it, an allocation fails and the
/// process aborts.
fn limited(dir: &Path, bytes: u64, args: &[&str]) -> std::process::Output {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_toolnorm"));
    cmd.args(args).current_dir(dir);
    // SAFETY: only async-signal-safe setrlimit runs between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit {
                rlim_cur: bytes as libc::rlim_t,
                rlim_max: bytes as libc::rlim_t,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.output().expect("failed to run toolnorm")
}

#[test]
fn blank_lines_cost_nothing() {
    let dir = tempdir();
    let mut s = String::from(VALID);
    s.push('\n');
    s.push_str(&"\n".repeat(10_000_000));
    s.push_str(r#"{"type":"turn.started"}"#);
    s.push('\n');
    fs::write(dir.path().join("blank.jsonl"), s).unwrap();
    // 10 million blank lines held as lines take over 400 MB; read as a stream, a few.
    let o = limited(
        dir.path(),
        384 << 20,
        &["normalize", "--compact", "blank.jsonl"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["dialect"], "exec");
    assert_eq!(doc["diagnostics"].as_array().unwrap().len(), 0);
}

fn once(haystack: &str, needle: &str) {
    assert_eq!(
        haystack.matches(needle).count(),
        1,
        "{needle:?} in {haystack}"
    );
}

#[test]
fn a_fixture_name_on_plain_text_says_it_is_not_zstd_once() {
    let dir = tempdir();
    fs::write(dir.path().join("t.jsonl.zst"), format!("{VALID}\n")).unwrap();
    for cmd in ["normalize", "cat"] {
        let o = run_in(dir.path(), &[cmd, "t.jsonl.zst"]);
        assert_eq!(o.status.code(), Some(2), "{cmd}");
        let err = stderr(&o);
        once(&err, "not a zstd fixture");
        assert!(err.contains("plain text"), "{cmd}: {err}");
    }
}

#[test]
fn a_newer_format_is_said_once() {
    let dir = tempdir();
    let mut header = new_header("codex", "new");
    header.format = FORMAT_VERSION + 1;
    let bytes = FixtureWriter::new(Vec::new(), &header)
        .unwrap()
        .finish(Trailer::default())
        .unwrap();
    fs::write(dir.path().join("new.jsonl.zst"), bytes).unwrap();
    for cmd in ["normalize", "cat"] {
        let o = run_in(dir.path(), &[cmd, "new.jsonl.zst"]);
        assert_eq!(o.status.code(), Some(2));
        once(&stderr(&o), "is newer than");
    }
}

#[test]
fn a_missing_corpus_is_said_once() {
    let dir = tempdir();
    let o = run_in(dir.path(), &["verify", "--corpus", "nope"]);
    assert_eq!(o.status.code(), Some(2));
    once(&stderr(&o), "No such file or directory");
}

#[test]
fn an_empty_file_is_empty() {
    let dir = tempdir();
    fs::write(dir.path().join("e.jsonl"), "").unwrap();
    let o = run_in(dir.path(), &["normalize", "e.jsonl"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("empty input: no lines"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn json_without_type_is_called_so() {
    let dir = tempdir();
    fs::write(
        dir.path().join("x.jsonl"),
        format!("{VALID}\n{{\"thread_id\":\"x\"}}\n"),
    )
    .unwrap();
    let o = run_in(dir.path(), &["normalize", "--dialect", "exec", "x.jsonl"]);
    assert_eq!(o.status.code(), Some(0));
    let diags = diagnostics(&stdout(&o));
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0]["line"], 2);
    assert_eq!(diags[0]["message"], "a JSON object without `type`; skipped");
}
