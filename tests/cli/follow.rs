//! `toolnorm normalize --follow` on a live pipe: a real CLI recording replayed into it with its
//! recorded timing (scaled down), its updates read as they come.

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use toolnorm::corpus::read_fixture;
use toolnorm::stream::Direction;
use toolnorm::{Input, NormalizeOptions, NormalizedDocument};

use crate::cli::util::{root, toolnorm};

/// A real `claude -p --output-format stream-json` recording with partial messages.
const FIXTURE: &str = "corpus/claude/live-claude-partial.jsonl.zst";

/// Fold `--emit parts` lines back into a document.
fn fold(lines: &[serde_json::Value]) -> NormalizedDocument {
    let mut doc =
        serde_json::json!({"schemaVersion": 1, "parts": [], "events": [], "diagnostics": []});
    let mut order: Vec<String> = Vec::new();
    let mut parts = std::collections::HashMap::new();
    for l in lines {
        match l["type"].as_str().unwrap() {
            "dialect" => {
                doc["provider"] = l["provider"].clone();
                doc["dialect"] = l["dialect"].clone();
            }
            "part" | "revised" => {
                let id = l["part"]["id"].as_str().unwrap().to_owned();
                if !parts.contains_key(&id) {
                    order.push(id.clone());
                }
                parts.insert(id, l["part"].clone());
                if l["type"] == "part" {
                    doc["events"]
                        .as_array_mut()
                        .unwrap()
                        .push(l["event"].clone());
                }
            }
            "diagnostic" => doc["diagnostics"]
                .as_array_mut()
                .unwrap()
                .push(l["diagnostic"].clone()),
            other => panic!("unknown line type {other}"),
        }
    }
    doc["parts"] = order.iter().map(|id| parts[id].clone()).collect();
    let mut doc: NormalizedDocument = serde_json::from_value(doc).unwrap();
    let batch: NormalizedDocument = batch();
    doc.schema_version = batch.schema_version;
    doc
}

fn batch() -> NormalizedDocument {
    let out = toolnorm()
        .args(["normalize", "--compact", FIXTURE])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(out.status.success());
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn follow_emits_updates_while_the_recording_is_still_arriving() {
    let fixture = read_fixture(&root().join(FIXTURE)).unwrap();
    let lines: Vec<_> = fixture
        .lines
        .into_iter()
        .filter(|l| l.dir == Direction::Agent)
        .collect();
    let last = lines.last().unwrap().t.max(1);
    // The recording lasts seconds; replay it in about one, keeping its rhythm.
    let scale = (1000.0 / last as f64).min(1.0);
    let first_event_line = batch().events[0].line as usize;
    assert!(
        first_event_line < lines.len(),
        "the first part comes before the end"
    );

    let mut child = toolnorm()
        .args(["normalize", "--follow", "-"])
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel::<serde_json::Value>();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let v: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
            if tx.send(v).is_err() {
                break;
            }
        }
    });

    let mut stdin = child.stdin.take().unwrap();
    let start = Instant::now();
    let mut seen = Vec::new();
    let mut first_part_while_open = false;
    for (i, line) in lines.iter().enumerate() {
        let due = Duration::from_secs_f64(line.t as f64 * scale / 1000.0);
        if let Some(wait) = due.checked_sub(start.elapsed()) {
            std::thread::sleep(wait);
        }
        stdin.write_all(&line.bytes).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
        if i + 1 == first_event_line {
            // The line that opens the first part is in, and the input is still open: its
            // update must come now, not at the end.
            let deadline = Instant::now() + Duration::from_secs(30);
            while let Ok(v) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                let is_part = v["type"] == "part";
                seen.push(v);
                if is_part {
                    first_part_while_open = true;
                    break;
                }
            }
            assert!(
                first_part_while_open,
                "no part update before the input ended"
            );
        }
    }
    drop(stdin);
    seen.extend(rx.iter());
    reader.join().unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(seen[0]["type"], "dialect");
    assert_eq!(
        fold(&seen),
        batch(),
        "the updates fold into the batch document"
    );
}

/// Feed a live recording's agent lines into `normalize --follow -` one at a time over a pipe,
/// without `--dialect`: the first part update must come right after the line that opens it,
/// before any later line is written.
fn first_part_comes_with_its_line(fixture: &str) {
    let fixture_path = root().join(fixture);
    let lines: Vec<Vec<u8>> = read_fixture(&fixture_path)
        .unwrap()
        .lines
        .into_iter()
        .filter(|l| l.dir == Direction::Agent)
        .map(|l| l.bytes)
        .collect();
    let text: Vec<u8> = lines
        .iter()
        .flat_map(|l| [&l[..], b"\n"].concat())
        .collect();
    let batch =
        toolnorm::normalize(&Input::from_bytes(&text), NormalizeOptions::default()).unwrap();
    let first = &batch.events[0];
    let first_tool_line = first.line as usize;

    let mut child = toolnorm()
        .args(["normalize", "--follow", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel::<serde_json::Value>();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let v: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
            if tx.send(v).is_err() {
                break;
            }
        }
    });
    let mut stdin = child.stdin.take().unwrap();
    let mut seen: Vec<serde_json::Value> = Vec::new();
    for line in &lines[..first_tool_line] {
        stdin.write_all(line).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }
    // The input stays open: only the lines so far can have caused what comes. (The timeout is
    // a guard against a hang, not a pause: the loop ends at the first part update.)
    let deadline = Instant::now() + Duration::from_secs(60);
    while !seen.iter().any(|v| v["type"] == "part") {
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(v) => seen.push(v),
            Err(_) => panic!(
                "{fixture}: no part update after line {first_tool_line}, the first tool line; got {seen:?}"
            ),
        }
    }
    assert_eq!(
        seen[0],
        serde_json::json!({"type": "dialect", "provider": batch.provider, "dialect": batch.dialect}),
        "{fixture}"
    );
    let part = seen.iter().find(|v| v["type"] == "part").unwrap();
    assert_eq!(part["created"], true, "{fixture}");
    assert_eq!(part["part"]["id"], first.part_id.as_str(), "{fixture}");
    assert_eq!(part["event"]["line"], first.line, "{fixture}");
    drop(stdin);
    reader.join().unwrap();
    assert!(child.wait().unwrap().success());
}

#[test]
fn follow_answers_a_claude_stream_at_its_first_tool_line() {
    first_part_comes_with_its_line("corpus/claude/live-claude-bash.jsonl.zst");
}

#[test]
fn follow_answers_a_codex_stream_at_its_first_tool_line() {
    first_part_comes_with_its_line("corpus/codex/live-codex-exec-shell.jsonl.zst");
}

#[test]
fn follow_answers_an_opencode_stream_at_its_first_tool_line() {
    first_part_comes_with_its_line("corpus/opencode/live-opencode-run-bash.jsonl.zst");
}

#[test]
fn follow_ends_quietly_when_its_reader_goes_away() {
    let mut child = toolnorm()
        .args(["normalize", "--follow", "--emit", "acp", "-"])
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let call = |id: usize| {
        format!(
            r#"{{"type":"item.started","item":{{"id":"i{id}","type":"command_execution","command":"ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}}}"#
        )
    };
    for i in 0..8 {
        writeln!(stdin, "{}", call(i)).unwrap();
    }
    stdin.flush().unwrap();
    // The first line names the dialect: eight frames come, the reader takes one and leaves.
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    let frame: serde_json::Value = serde_json::from_str(&first).unwrap();
    assert_eq!(frame["method"], "session/update");
    assert_eq!(frame["params"]["update"]["sessionUpdate"], "tool_call");
    assert_eq!(frame["params"]["update"]["toolCallId"], "i0");
    drop(stdout);
    // Writing on goes to a closed pipe: toolnorm stops, with success.
    for i in 8..10_000 {
        if writeln!(stdin, "{}", call(i)).is_err() {
            break;
        }
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{:?}", out.status);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with(r#"{"type":"dialect","provider":"codex","dialect":"exec"}"#),
        "{stderr}"
    );
    assert!(!stderr.contains("Error"), "{stderr}");
}

#[test]
fn follow_reads_a_growing_file_until_it_stays_still() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.jsonl");
    std::fs::write(&path, "").unwrap();
    let mut child = toolnorm()
        .args([
            "normalize",
            "--follow",
            "--dialect",
            "exec",
            "--idle-timeout",
            "1",
        ])
        .arg(&path)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let item = |status: &str, ty: &str| {
        format!(
            r#"{{"type":"item.{ty}","item":{{"id":"i1","type":"command_execution","command":"ls","aggregated_output":"","exit_code":0,"status":"{status}"}}}}"#
        )
    };
    let append = |text: &str| {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(text.as_bytes()).unwrap();
    };
    append(&format!("{}\n", item("in_progress", "started")));
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert!(line.contains(r#""type":"dialect""#), "{line}");
    line.clear();
    stdout.read_line(&mut line).unwrap();
    assert!(line.contains(r#""state":"running""#), "{line}");
    // The file grows again (a last line without its newline), then stays still: the update
    // comes, and the command ends on its own.
    append(&item("completed", "completed"));
    line.clear();
    stdout.read_line(&mut line).unwrap();
    assert!(line.contains(r#""state":"complete""#), "{line}");
    assert!(child.wait().unwrap().success());
}

/// `--follow --emit ai-sdk` on a live pipe: the first tool chunk comes once the first tool line
/// is in, with the input still open (so nothing later can have caused it). AG-UI's consumers keep
/// a call's first name and arguments, so its emitter holds a call until it leaves `started`: its
/// first event comes with the line where the first call's name and input are final.
fn first_wire_chunk_comes_with_its_line(fixture: &str, emit: &str, first_tool_type: &str) {
    let lines: Vec<Vec<u8>> = read_fixture(&root().join(fixture))
        .unwrap()
        .lines
        .into_iter()
        .filter(|l| l.dir == Direction::Agent)
        .map(|l| l.bytes)
        .collect();
    let text: Vec<u8> = lines
        .iter()
        .flat_map(|l| [&l[..], b"\n"].concat())
        .collect();
    let batch =
        toolnorm::normalize(&Input::from_bytes(&text), NormalizeOptions::default()).unwrap();
    let first = if emit == "ag-ui" {
        let id = &batch.events[0].part_id;
        batch
            .events
            .iter()
            .find(|e| &e.part_id == id && e.state != toolnorm::ToolState::Started)
            .expect("the first call leaves started")
    } else {
        &batch.events[0]
    };
    let mut child = toolnorm()
        .args(["normalize", "--follow", "--emit", emit, "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel::<serde_json::Value>();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let v: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
            if tx.send(v).is_err() {
                break;
            }
        }
    });
    let mut stdin = child.stdin.take().unwrap();
    for line in &lines[..first.line as usize] {
        stdin.write_all(line).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    let tool = loop {
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(v) if v["type"] == first_tool_type => break v,
            Ok(_) => {}
            Err(_) => panic!("{fixture}: no {first_tool_type} after line {}", first.line),
        }
    };
    assert_eq!(tool["toolCallId"], first.part_id.as_str(), "{fixture}");
    drop(stdin);
    let rest: Vec<serde_json::Value> = rx.iter().collect();
    let last = if emit == "ai-sdk" {
        "finish"
    } else {
        "RUN_FINISHED"
    };
    assert_eq!(
        rest.last().map(|v| v["type"].clone()),
        Some(last.into()),
        "{fixture}"
    );
    reader.join().unwrap();
    assert!(child.wait().unwrap().success());
}

#[test]
fn follow_emits_the_first_ai_sdk_chunk_at_the_first_tool_line() {
    for fixture in [
        FIXTURE,
        "corpus/codex/live-codex-exec-shell.jsonl.zst",
        "corpus/gemini/live-gemini-files.jsonl.zst",
    ] {
        first_wire_chunk_comes_with_its_line(fixture, "ai-sdk", "tool-input-start");
    }
    first_wire_chunk_comes_with_its_line(FIXTURE, "ag-ui", "TOOL_CALL_START");
}
