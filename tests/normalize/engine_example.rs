//! The engine-shaped example (`examples/engine`, a crate of its own built on the library with
//! `default-features = false`): fed every fixture of the corpus line by line, it prints exactly
//! the batch path's document.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use toolnorm::NormalizedDocument;
use toolnorm::corpus::read_fixture;
use toolnorm::stream::Direction;

use crate::normalize::samples::{corpus_root, load_all};

/// Build the example with cargo; the path of its binary.
fn build_example() -> std::path::PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = root.join("target").join("engine-example");
    let status = Command::new(env!("CARGO"))
        .args(["build", "--quiet", "--manifest-path"])
        .arg(root.join("examples/engine/Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .status()
        .expect("cargo runs");
    assert!(status.success(), "the example crate does not build");
    target.join("debug").join("toolnorm-engine-example")
}

#[test]
#[ignore = "builds examples/engine, a crate of its own, with cargo (an extra build of about a minute)"]
fn the_engine_example_gives_the_batch_document_on_every_fixture() {
    let bin = build_example();
    let samples = load_all();
    assert!(!samples.is_empty());
    for s in samples {
        let fixture = read_fixture(&corpus_root().join(format!("{}.jsonl.zst", s.name)))
            .unwrap_or_else(|e| panic!("{}: {e}", s.name));
        let mut records = String::new();
        for line in fixture.lines.iter().filter(|l| l.dir != Direction::Stderr) {
            let text = std::str::from_utf8(&line.bytes)
                .unwrap_or_else(|_| panic!("{}: a line that is not UTF-8", s.name));
            let d = if line.dir == Direction::Client {
                "c"
            } else {
                "a"
            };
            let record = serde_json::json!({"d": d, "l": text, "n": !line.terminated});
            records.push_str(&record.to_string());
            records.push('\n');
        }
        let mut cmd = Command::new(&bin);
        cmd.args(["--records", "--document"]).args([
            "--provider",
            s.provider.as_str(),
            "--dialect",
            s.dialect.as_str(),
        ]);
        if let Some(cwd) = &s.stream.cwd {
            cmd.args(["--cwd", cwd]);
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the example runs");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(records.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}: the example failed", s.name);
        let doc: NormalizedDocument = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{}: not a document: {e}", s.name));
        assert_eq!(
            doc,
            s.normalize(),
            "{}: the example's document differs",
            s.name
        );
    }

    // Raw agent lines with the dialect detected: one line per update, as they come.
    let raw = concat!(
        r#"{"type":"item.started","item":{"id":"i1","type":"command_execution","command":"ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}"#,
        "\n",
        r#"{"type":"item.completed","item":{"id":"i1","type":"command_execution","command":"ls","aggregated_output":"a\n","exit_code":0,"status":"completed"}}"#,
        "\n",
    );
    let mut child = Command::new(&bin)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(raw.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "dialect codex/exec\nline 1: new i1 Running Running ls\nline 2: upd i1 Complete Running ls\n"
    );
}
