//! `toolnorm import`, `toolnorm cat` of imports, and `toolnorm corpus lint`, end to end.

use std::fs;

use toolnorm::corpus::format::new_header;
use toolnorm::corpus::writer::FixtureWriter;
use toolnorm::stream::Direction;

use crate::cli::util::{root, run_in, stderr, stdout, tempdir};

/// The plain text of some corpus fixtures (as `toolnorm cat` prints it), imported into a new
/// corpus: `cat` of the import gives the text back byte for byte, and the header names the dialect.
#[test]
fn imports_round_trip_byte_for_byte() {
    let dir = tempdir();
    let files = [
        ("claude", "live-claude-2.1.197-coding", "stream-json"),
        ("codex", "live-codex-0.171.0-appserver-tools", "app-server"),
        ("opencode", "live-opencode-1.18.33-serve-tools", "events"),
        ("opencode", "live-opencode-1.18.33-run-tools", "run"),
        ("claude", "spotter_short", "transcript"),
    ];
    for (provider, name, dialect) in files {
        let committed = root().join(format!("corpus/{provider}/{name}.jsonl.zst"));
        let text = run_in(dir.path(), &["cat", committed.to_str().unwrap()]);
        assert!(text.status.success(), "{name}: {}", stderr(&text));
        let src = dir.path().join(format!("plain/{provider}/{name}.jsonl"));
        fs::create_dir_all(src.parent().unwrap()).unwrap();
        fs::write(&src, &text.stdout).unwrap();
        let o = run_in(
            dir.path(),
            &["import", "--corpus", "c", src.to_str().unwrap()],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let fixture = format!("c/{provider}/{name}.jsonl.zst");
        let c = run_in(dir.path(), &["cat", &fixture]);
        assert!(c.status.success());
        assert!(
            c.stdout == text.stdout,
            "{name}: cat differs from the source"
        );
        let h: serde_json::Value =
            serde_json::from_slice(&run_in(dir.path(), &["cat", "--header", &fixture]).stdout)
                .unwrap();
        assert_eq!(h["dialect"], dialect, "{name}");
        assert_eq!(h["mode"], "import");
        assert!(
            h["source"]
                .as_str()
                .unwrap()
                .ends_with(&format!("{provider}/{name}.jsonl")),
            "{h}"
        );
        // `opencode run` output never names the version; the others do.
        if dialect != "run" {
            assert!(h["cliVersion"].is_string(), "{name}: {h}");
        }
    }
}

#[test]
fn directories_are_walked_and_non_sessions_skipped() {
    let dir = tempdir();
    let src = dir.path().join("src");
    fs::create_dir_all(src.join("proj/sess1/subagents")).unwrap();
    fs::create_dir_all(src.join("other")).unwrap();
    let transcript = "{\"type\":\"user\",\"sessionId\":\"s1\",\"parentUuid\":null,\"timestamp\":\"2026-01-01T00:00:00Z\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n\
        {\"type\":\"assistant\",\"sessionId\":\"s1\",\"parentUuid\":\"u1\",\"timestamp\":\"2026-01-01T00:00:02Z\",\"message\":{\"role\":\"assistant\",\"content\":[]}}\n";
    fs::write(src.join("proj/sess1.jsonl"), transcript).unwrap();
    fs::write(
        src.join("proj/sess1/subagents/agent-a1.jsonl"),
        transcript.replace("\"isSidechain\"", "\"x\""),
    )
    .unwrap();
    fs::write(src.join("other/settings.json"), "{\"theme\":\"dark\"}").unwrap();
    fs::write(src.join("other/notes.jsonl"), "not json at all\n").unwrap();
    fs::write(src.join("other/empty.jsonl"), "").unwrap();
    let o = run_in(dir.path(), &["import", "--corpus", "c", "src"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("skipped src/other/settings.json: not a session file"),
        "{err}"
    );
    assert!(err.contains("skipped src/other/notes.jsonl"), "{err}");
    assert!(
        err.contains("skipped src/other/empty.jsonl: empty file"),
        "{err}"
    );
    assert!(err.contains("2 imported, 3 skipped, 0 failed"), "{err}");
    assert!(dir.path().join("c/claude/sess1.jsonl.zst").is_file());
    assert!(
        dir.path()
            .join("c/claude/sess1__subagents__agent-a1.jsonl.zst")
            .is_file()
    );
    let fx = toolnorm::corpus::read_fixture(&dir.path().join("c/claude/sess1.jsonl.zst")).unwrap();
    assert_eq!(
        fx.lines.iter().map(|l| l.t).collect::<Vec<_>>(),
        vec![0, 2000]
    );
    assert_eq!(fx.header.started_at, "2026-01-01T00:00:00Z");

    // Importing a transcript file brings its subagents; an existing fixture is skipped, not replaced.
    let o = run_in(
        dir.path(),
        &["import", "--corpus", "c2", "src/proj/sess1.jsonl"],
    );
    assert!(stderr(&o).contains("2 imported"), "{}", stderr(&o));
    let o = run_in(
        dir.path(),
        &["import", "--corpus", "c2", "src/proj/sess1.jsonl"],
    );
    assert!(stderr(&o).contains("already exists"), "{}", stderr(&o));
    assert!(o.status.success());
    // A missing path is an error, the rest still runs.
    let o = run_in(
        dir.path(),
        &["import", "--corpus", "c3", "nope", "src/proj/sess1.jsonl"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(dir.path().join("c3/claude/sess1.jsonl.zst").is_file());
}

#[test]
fn import_redacts_and_counts_in_the_header() {
    let dir = tempdir();
    let line = "{\"type\":\"item.completed\",\"item\":{\"id\":\"i\",\"type\":\"command_execution\",\"command\":\"curl -H 'Authorization: Bearer tok123456789abcdefgh' x\",\"aggregated_output\":\"OPENAI_API_KEY=sk-proj-AbCdEfGhIjKlMnOpQrStUvWx\"}}\n";
    fs::write(dir.path().join("run.jsonl"), line).unwrap();
    let o = run_in(dir.path(), &["import", "--corpus", "c", "run.jsonl"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let c = stdout(&run_in(dir.path(), &["cat", "c/codex/run.jsonl.zst"]));
    assert!(
        !c.contains("tok123456789") && !c.contains("sk-proj-"),
        "{c}"
    );
    let h: serde_json::Value = serde_json::from_slice(
        &run_in(dir.path(), &["cat", "--header", "c/codex/run.jsonl.zst"]).stdout,
    )
    .unwrap();
    assert_eq!(h["redactions"]["bearer"], 1, "{h}");
    assert_eq!(h["redactions"]["secret-env"], 1, "{h}");
}

#[test]
fn lint_names_file_line_and_kind() {
    let dir = tempdir();
    let path = dir.path().join("c/claude/leaky.jsonl.zst");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut w = FixtureWriter::new(
        fs::File::create(&path).unwrap(),
        &new_header("claude", "leaky"),
    )
    .unwrap();
    w.push_line(0, Direction::Agent, b"{\"ok\":1}", true)
        .unwrap();
    w.push_line(
        1,
        Direction::Agent,
        b"{\"k\":\"ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789\"}",
        true,
    )
    .unwrap();
    w.finish(Default::default()).unwrap();
    let o = run_in(dir.path(), &["corpus", "lint", "--corpus", "c"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("leaky.jsonl.zst: line 2: github-token"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn the_committed_corpus_is_clean_and_attributed() {
    let corpus = root().join("corpus");
    let o = run_in(
        &root(),
        &["corpus", "lint", "--corpus", corpus.to_str().unwrap()],
    );
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let sources = fs::read_to_string(corpus.join("SOURCES.md")).unwrap();
    for e in toolnorm::corpus::list_fixtures(&corpus) {
        assert!(
            sources.contains(&e.name),
            "{} has no row in corpus/SOURCES.md",
            e.name
        );
        let fx = toolnorm::corpus::read_fixture(&e.path).unwrap();
        assert!(fx.is_complete(), "{}: {:?}", e.name, fx.notes);
    }
}
