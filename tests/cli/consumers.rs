//! The UI wires toolnorm emits, judged by their official consumers over the whole shipped corpus:
//! every fixture's `toolnorm normalize --emit ai-sdk` and `--emit ag-ui` (JSON Lines and `--sse`)
//! goes, in one batch, through one Node process (`tests/consumers/check.mjs`: the `ai` package's
//! `uiMessageChunkSchema`, `parseJsonEventStream` and `readUIMessageStream`; `@ag-ui/core`'s
//! `EventSchemas`, `@ag-ui/client`'s `verifyEvents` and `HttpAgent`) and one Python process
//! (`tests/consumers/check.py`: `ag-ui-protocol`'s pydantic models). A consumer that rejects
//! anything fails the test with the fixture and the chunk or event named.
//!
//! Ignored by a plain `cargo test`: they need node, npm and python3, which
//! `scripts/install-test-deps.sh` installs (with the consumers themselves, by
//! `scripts/install-consumers.sh`, which the tests run too: it skips what is there).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use toolnorm::Dialect;
use toolnorm::corpus::{list_fixtures, load_stream};
use toolnorm::protocol::Normalize;

use crate::cli::util::{assert_ok as ok, root, stderr, stdout, tempdir, toolnorm};

/// The consumers, installed once per test run.
fn consumers() -> PathBuf {
    static READY: OnceLock<()> = OnceLock::new();
    READY.get_or_init(|| {
        let o = Command::new("bash")
            .arg("scripts/install-consumers.sh")
            .current_dir(root())
            .env("npm_config_update_notifier", "false")
            .output()
            .expect("failed to run bash");
        ok(&o, "scripts/install-consumers.sh");
    });
    root().join("tests/consumers")
}

fn python() -> PathBuf {
    root().join("target/consumers/venv/bin/python")
}

/// `toolnorm normalize ARGS FIXTURE`'s stdout, the fixture and arguments named on failure.
fn normalize(fixture: &Path, args: &[&str]) -> String {
    let o = toolnorm()
        .arg("normalize")
        .args(args)
        .arg(fixture)
        .current_dir(root())
        .output()
        .expect("failed to run toolnorm");
    ok(
        &o,
        &format!(
            "toolnorm normalize {} {}",
            args.join(" "),
            fixture.display()
        ),
    );
    String::from_utf8(o.stdout).expect("toolnorm writes UTF-8")
}

fn json_lines(text: &str, what: &str) -> Vec<Value> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l).unwrap_or_else(|e| panic!("{what}: line {}: {e}", i + 1))
        })
        .collect()
}

/// The CLIs that write another's formats byte for byte (Kilo writes OpenCode's): content alone
/// reads their fixtures as that other CLI's, so their provider is named.
const FORKS: [&str; 1] = ["kilo"];

/// A fixture's raw stream as a `normalize` request carries it (docs/protocol.md): its lines (each
/// a string, or `{text|base64, from}`), `cwd`, `unterminated`; with the provider to name.
fn raw_stream(name: &str, path: &Path) -> Value {
    let stream = load_stream(path).unwrap_or_else(|e| panic!("{name}: {e:#}"));
    let (provider, _) = name.split_once('/').unwrap();
    let dialect = stream
        .dialect
        .as_deref()
        .map(|d| Dialect::parse(d, provider.parse().ok()))
        .unwrap_or_else(|| panic!("{name}: no dialect in its header"))
        .unwrap();
    let request = Normalize::of_input(
        1,
        name.to_owned(),
        dialect,
        stream.cwd.clone(),
        &stream.input(),
    );
    let request = serde_json::to_value(&request).unwrap();
    json!({
        "lines": request["lines"],
        "cwd": request["cwd"],
        "unterminated": request["unterminated"],
        "provider": FORKS.contains(&provider).then_some(provider),
    })
}

/// The batch line of one fixture: its parts and both wires, as JSON Lines and as SSE, and its raw
/// stream.
fn batch_entry(name: &str, path: &Path) -> Value {
    let doc: Value = serde_json::from_str(&normalize(path, &["--compact"]))
        .unwrap_or_else(|e| panic!("{name}: the document: {e}"));
    let wire = |emit: &str| {
        let chunks = json_lines(
            &normalize(path, &["--emit", emit]),
            &format!("{name} --emit {emit}"),
        );
        let sse = normalize(path, &["--emit", emit, "--sse"]);
        (chunks, sse)
    };
    let (chunks, ai_sse) = wire("ai-sdk");
    let (events, ag_sse) = wire("ag-ui");
    json!({
        "fixture": name,
        "parts": doc["parts"],
        "aiSdk": {"chunks": chunks, "sse": ai_sse},
        "agUi": {"events": events, "sse": ag_sse},
        "stream": raw_stream(name, path),
    })
}

/// Every fixture of the corpus as a batch line, in the corpus's order (two at a time).
fn corpus_batch() -> Vec<Value> {
    let fixtures = list_fixtures(&root().join("corpus"));
    assert!(
        fixtures.len() > 100,
        "a corpus of {} fixtures",
        fixtures.len()
    );
    let next = AtomicUsize::new(0);
    let mut lines: Vec<Option<Value>> = vec![None; fixtures.len()];
    let done: Vec<Vec<(usize, Value)>> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(e) = fixtures.get(i) else { break };
                        mine.push((
                            i,
                            batch_entry(&format!("{}/{}", e.provider, e.name), &e.path),
                        ));
                    }
                    mine
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    for (i, v) in done.into_iter().flatten() {
        lines[i] = Some(v);
    }
    lines.into_iter().map(Option::unwrap).collect()
}

fn write_batch(path: &Path, lines: &[Value]) {
    let mut text = String::new();
    for l in lines {
        text.push_str(&l.to_string());
        text.push('\n');
    }
    fs::write(path, text).unwrap();
}

/// Run a consumer over the batch: its exit code, its summary (stdout) and its rejections (stderr).
fn consume(program: &Path, script: &str, batch: &Path) -> (Option<i32>, Value, String) {
    let o = Command::new(program)
        .arg(consumers().join(script))
        .arg(batch)
        .current_dir(consumers())
        .output()
        .unwrap_or_else(|e| panic!("failed to run {}: {e}", program.display()));
    let summary = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{script}: no JSON summary ({e}):\n{}\n{}",
            stdout(&o),
            stderr(&o)
        )
    });
    (o.status.code(), summary, stderr(&o))
}

fn node() -> PathBuf {
    PathBuf::from("node")
}

#[test]
#[ignore = "needs node, npm and python3: scripts/install-test-deps.sh"]
fn every_fixture_passes_the_official_consumers_of_both_wires() {
    consumers();
    let dir = tempdir();
    let lines = corpus_batch();
    let parts: u64 = lines
        .iter()
        .map(|l| l["parts"].as_array().unwrap().len() as u64)
        .sum();
    let batch = dir.path().join("batch.jsonl");
    write_batch(&batch, &lines);

    let (code, summary, rejected) = consume(&node(), "check.mjs", &batch);
    assert_eq!(
        code,
        Some(0),
        "the JavaScript consumers rejected:\n{rejected}"
    );
    assert_eq!(summary["fixtures"], lines.len() as u64, "{summary}");
    assert_eq!(summary["parts"], parts, "{summary}");
    // One rebuilt tool part and one rebuilt tool call per part: nothing vanished, nothing doubled.
    assert_eq!(summary["aiSdkToolParts"], parts, "{summary}");
    assert_eq!(summary["agUiToolCalls"], parts, "{summary}");

    let (code, summary, rejected) = consume(&python(), "check.py", &batch);
    assert_eq!(code, Some(0), "ag-ui-protocol rejected:\n{rejected}");
    assert_eq!(summary["fixtures"], lines.len() as u64, "{summary}");
    assert!(
        summary["agUiEvents"].as_u64().unwrap() > 2 * parts,
        "{summary}"
    );
}

/// The fixture the planted faults go into: one with finished calls.
const PLANTED: &str = "corpus/claude/live-claude-bash.jsonl.zst";

fn index_of(items: &Value, pred: impl Fn(&Value) -> bool) -> usize {
    items
        .as_array()
        .unwrap()
        .iter()
        .position(pred)
        .unwrap_or_else(|| panic!("no such item in {items}"))
}

#[test]
#[ignore = "needs node, npm and python3: scripts/install-test-deps.sh"]
fn a_planted_bad_chunk_or_event_fails_the_consumers_naming_fixture_and_frame() {
    consumers();
    let dir = tempdir();
    let good = batch_entry("claude/live-claude-bash", &root().join(PLANTED));
    let mut lines = Vec::new();
    let mut plant = |suffix: &str, f: &dyn Fn(&mut Value)| {
        let mut line = good.clone();
        line["fixture"] = json!(format!("claude/live-claude-bash{suffix}"));
        f(&mut line);
        lines.push(line);
    };
    // A chunk the schema rejects: a tool-input-available without its toolCallId.
    plant("#no-call-id", &|l| {
        let i = index_of(&l["aiSdk"]["chunks"], |c| {
            c["type"] == "tool-input-available"
        });
        l["aiSdk"]["chunks"][i]
            .as_object_mut()
            .unwrap()
            .remove("toolCallId");
    });
    // A sequence readUIMessageStream rejects: output for a call that never started.
    plant("#orphan-output", &|l| {
        let chunks = l["aiSdk"]["chunks"].as_array_mut().unwrap();
        chunks.insert(
            1,
            json!({"type": "tool-output-available", "toolCallId": "ghost", "output": "x"}),
        );
    });
    // A finished call shown as failed: the rebuilt state is not the mapped one.
    plant("#error-shown", &|l| {
        let i = index_of(&l["aiSdk"]["chunks"], |c| {
            c["type"] == "tool-output-available"
        });
        let id = l["aiSdk"]["chunks"][i]["toolCallId"].clone();
        l["aiSdk"]["chunks"][i] =
            json!({"type": "tool-output-error", "toolCallId": id, "errorText": "x"});
    });
    // An event verifyEvents rejects: args before the call's start.
    plant("#args-first", &|l| {
        let i = index_of(&l["agUi"]["events"], |e| e["type"] == "TOOL_CALL_START");
        l["agUi"]["events"].as_array_mut().unwrap().remove(i);
    });
    // An event the schemas (TypeScript and Python) reject: a start without its tool's name.
    plant("#no-name", &|l| {
        let i = index_of(&l["agUi"]["events"], |e| e["type"] == "TOOL_CALL_START");
        l["agUi"]["events"][i]
            .as_object_mut()
            .unwrap()
            .remove("toolCallName");
    });
    let batch = dir.path().join("batch.jsonl");
    write_batch(&batch, &lines);

    let (code, summary, rejected) = consume(&node(), "check.mjs", &batch);
    assert_eq!(code, Some(1), "{summary}\n{rejected}");
    let chunk_of = |suffix: &str, ty: &str| {
        let chunks = &lines
            .iter()
            .find(|l| l["fixture"].as_str().unwrap().ends_with(suffix))
            .unwrap()["aiSdk"]["chunks"];
        index_of(chunks, |c| c["type"] == ty)
    };
    for want in [
        format!(
            "REJECTED claude/live-claude-bash#no-call-id: ai-sdk chunk #{} (tool-input-available): uiMessageChunkSchema: toolCallId:",
            chunk_of("#no-call-id", "tool-input-available")
        ),
        "REJECTED claude/live-claude-bash#orphan-output: ai-sdk chunk #1 (tool-output-available): readUIMessageStream: No tool invocation found for tool call ID \"ghost\"".to_owned(),
        "rebuilt state \"output-error\", the part's is \"output-available\"".to_owned(),
        "REJECTED claude/live-claude-bash#args-first: ag-ui event #".to_owned(),
        "(TOOL_CALL_ARGS): verifyEvents: Cannot send 'TOOL_CALL_ARGS' event".to_owned(),
        "REJECTED claude/live-claude-bash#no-name: ag-ui event #".to_owned(),
        "(TOOL_CALL_START): EventSchemas: toolCallName:".to_owned(),
    ] {
        assert!(rejected.contains(&want), "no {want:?} in:\n{rejected}");
    }

    let (code, summary, rejected) = consume(&python(), "check.py", &batch);
    assert_eq!(code, Some(1), "{summary}\n{rejected}");
    assert_eq!(summary["rejected"], 1, "{summary}\n{rejected}");
    assert!(
        rejected.contains("REJECTED claude/live-claude-bash#no-name: ag-ui (python) event #")
            && rejected.contains(
                "(TOOL_CALL_START): ag_ui.core.Event: TOOL_CALL_START.toolCallName: Field required"
            ),
        "{rejected}"
    );
}

#[test]
#[ignore = "needs node, npm, Chromium and the WebAssembly toolchain: scripts/install-test-deps.sh"]
fn the_javascript_package_writes_what_the_command_line_does_and_its_streams_pass_the_consumers() {
    crate::cli::wasm::package();
    consumers();
    let dir = tempdir();
    let lines = corpus_batch();
    let parts: u64 = lines
        .iter()
        .map(|l| l["parts"].as_array().unwrap().len() as u64)
        .sum();
    let batch = dir.path().join("batch.jsonl");
    write_batch(&batch, &lines);
    let (code, summary, rejected) = consume(&node(), "bindings.mjs", &batch);
    assert_eq!(code, Some(0), "@toolnorm/core's wires:\n{rejected}");
    assert_eq!(summary["fixtures"], lines.len() as u64, "{summary}");
    // Every stream an agent writes alone went through the TransformStreams (two-way proxy records
    // through the functions only), each rebuilt whole.
    let live = summary["live"].as_u64().unwrap();
    assert_eq!(
        live + summary["twoWay"].as_u64().unwrap(),
        lines.len() as u64,
        "{summary}"
    );
    // Most of them: 194 of the 269 shipped fixtures (the rest are the ACP adapters' two-way
    // recordings); a binding that skipped the streams would fall far below.
    assert!(live * 10 > lines.len() as u64 * 6, "{summary}");
    assert_eq!(summary["aiSdkToolParts"], summary["liveParts"], "{summary}");
    assert_eq!(summary["agUiToolCalls"], summary["liveParts"], "{summary}");
    assert_eq!(summary["parts"], parts, "{summary}");
}
