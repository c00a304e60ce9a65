//! Codex normalizer on every real Codex sample in `../shared/fixtures/codex`: a reviewed insta
//! snapshot per sample, invariants checked in code (every raw call exactly once, no failed call
//! shown complete, the per-tool counts of `fixtures/SOURCES.md`), and a property test that no
//! prefix of a sample panics or shows a state that a longer prefix moves backward.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::Value;
use toolnorm::dialects::normalize;
use toolnorm::model::{NormalizedDocument, NormalizedToolPart, ToolKind, ToolState};
use toolnorm::providers::NormalizeOptions;
use toolnorm::stream::Input;

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/codex")
}

fn read_fixture(name: &str) -> Option<Vec<u8>> {
    let path = fixtures_dir().join(name);
    match std::fs::read(&path) {
        Ok(b) => Some(b),
        Err(e) => {
            eprintln!(
                "skipping {name}: {} unreadable ({e}); the shared fixtures are not checked out",
                path.display()
            );
            None
        }
    }
}

fn run(bytes: &[u8]) -> NormalizedDocument {
    let input = Input::from_bytes(bytes);
    normalize(&input, NormalizeOptions::default()).expect("a Codex dialect is detected")
}

const TOOL_ITEM_TYPES: &[&str] = &[
    "commandExecution",
    "command_execution",
    "fileChange",
    "file_change",
    "mcpToolCall",
    "mcp_tool_call",
    "dynamicToolCall",
    "webSearch",
    "web_search",
    "collabAgentToolCall",
    "collab_tool_call",
    "imageView",
    "todo_list",
    "CommandExecution",
    "FileChange",
    "McpToolCall",
    "WebSearch",
    "ImageView",
];

/// The first `"id"` of an item object, read from the raw text the way a person would (the exec
/// web_search item repeats the key; the first is the stable `item_N`).
fn first_id(raw_item: &str) -> Option<String> {
    let at = raw_item.find("\"id\":\"")? + 6;
    let end = raw_item[at..].find('"')? + at;
    Some(raw_item[at..end].to_owned())
}

/// Raw facts of one stream, computed independently of the normalizer.
#[derive(Default, Debug)]
struct RawCalls {
    /// Distinct calls (exec: one per `item.completed`, since ids restart with every run).
    ids: BTreeSet<String>,
    exec_completions: usize,
    /// Calls the stream marks failed, declined or non-zero.
    failed: BTreeSet<String>,
}

fn raw_calls(bytes: &[u8], dialect: &str) -> RawCalls {
    let mut out = RawCalls::default();
    let text = String::from_utf8_lossy(bytes);
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let failed_item = |item: &Value| {
            matches!(
                item.get("status").and_then(Value::as_str),
                Some("failed" | "declined")
            ) || item
                .get("exitCode")
                .or_else(|| item.get("exit_code"))
                .and_then(Value::as_i64)
                .is_some_and(|c| c != 0)
        };
        match dialect {
            "app-server" | "exec" => {
                let item = v
                    .get("params")
                    .and_then(|p| p.get("item"))
                    .or_else(|| v.get("item"));
                let Some(item) = item else { continue };
                let ty = item.get("type").and_then(Value::as_str).unwrap_or("");
                if !TOOL_ITEM_TYPES.contains(&ty) {
                    continue;
                }
                // Re-serializing would lose the duplicate key; find the item text in the line.
                let item_text = &line[line.find("\"item\":").unwrap_or(0)..];
                let id = first_id(item_text).expect("tool items have ids");
                out.ids.insert(id.clone());
                let completed = matches!(
                    v.get("type").and_then(Value::as_str),
                    Some("item.completed")
                ) || v.get("method").and_then(Value::as_str)
                    == Some("item/completed");
                if completed && dialect == "exec" {
                    out.exec_completions += 1;
                }
                if completed && failed_item(item) {
                    out.failed.insert(id);
                }
            }
            _ => {
                let p = v.get("payload").or_else(|| v.get("msg")).unwrap_or(&v);
                let ty = p.get("type").and_then(Value::as_str).unwrap_or("");
                let id = p
                    .get("call_id")
                    .and_then(Value::as_str)
                    .or_else(|| {
                        if ty == "web_search_call" {
                            p.get("id").and_then(Value::as_str)
                        } else {
                            None
                        }
                    })
                    .or_else(|| {
                        p.get("item")
                            .filter(|i| {
                                TOOL_ITEM_TYPES
                                    .contains(&i.get("type").and_then(Value::as_str).unwrap_or(""))
                            })
                            .and_then(|i| i.get("id"))
                            .and_then(Value::as_str)
                    });
                let Some(id) = id else { continue };
                out.ids.insert(id.to_owned());
                let failed = p
                    .get("exit_code")
                    .and_then(Value::as_i64)
                    .is_some_and(|c| c != 0)
                    || p.get("success").and_then(Value::as_bool) == Some(false)
                    || p.get("result").is_some_and(|r| {
                        r.get("Err").is_some()
                            || r.get("Ok")
                                .and_then(|o| o.get("isError"))
                                .and_then(Value::as_bool)
                                == Some(true)
                    })
                    || p.get("item").is_some_and(failed_item);
                if failed {
                    out.failed.insert(id.to_owned());
                }
            }
        }
    }
    out
}

fn check_invariants(name: &str, bytes: &[u8], doc: &NormalizedDocument) {
    let raw = raw_calls(bytes, &doc.dialect);
    let part_ids: Vec<&str> = doc.parts.iter().map(|p| p.id.as_str()).collect();
    let unique: BTreeSet<&str> = part_ids.iter().copied().collect();
    assert_eq!(
        unique.len(),
        part_ids.len(),
        "{name}: duplicate part ids {part_ids:?}"
    );
    if doc.dialect == "exec" {
        assert_eq!(
            doc.parts.len(),
            raw.exec_completions,
            "{name}: one part per completed exec item"
        );
        for id in &raw.ids {
            let prefix = format!("{id}#");
            assert!(
                part_ids.iter().any(|p| p == id || p.starts_with(&prefix)),
                "{name}: raw call {id} has no part"
            );
        }
    } else {
        for id in &raw.ids {
            assert_eq!(
                part_ids.iter().filter(|p| **p == id.as_str()).count(),
                1,
                "{name}: raw call {id} must be exactly one part"
            );
        }
        assert_eq!(
            doc.parts.len(),
            raw.ids.len(),
            "{name}: parts without a raw call: {part_ids:?}"
        );
    }
    for id in &raw.failed {
        let matching: Vec<&NormalizedToolPart> = doc
            .parts
            .iter()
            .filter(|p| p.id == *id || p.id.starts_with(&format!("{id}#")))
            .collect();
        assert!(!matching.is_empty(), "{name}: failed call {id} missing");
        // In an exec stream a reused id may name another, successful call; one of them failed.
        assert!(
            matching.iter().any(|p| p.state == ToolState::Error),
            "{name}: failed call {id} is not an error"
        );
    }
    common::assert_part_invariants(name, doc);
}

/// `(name, kind) → (count, errors)` of a document, for the SOURCES.md tables.
fn tally(doc: &NormalizedDocument) -> BTreeMap<(String, ToolKind), (usize, usize)> {
    let mut m = BTreeMap::new();
    for p in &doc.parts {
        let e = m.entry((p.name.clone(), p.kind)).or_insert((0, 0));
        e.0 += 1;
        if p.state == ToolState::Error {
            e.1 += 1;
        }
    }
    m
}

fn expect(doc: &NormalizedDocument, name: &str, kind: ToolKind, count: usize, errors: usize) {
    let t = tally(doc);
    assert_eq!(
        t.get(&(name.to_owned(), kind)),
        Some(&(count, errors)),
        "{name}/{kind:?} in {t:?}"
    );
}

fn snapshot_and_check(file: &str, dialect: &str) -> Option<NormalizedDocument> {
    let bytes = read_fixture(file)?;
    let doc = run(&bytes);
    assert_eq!(doc.provider, "codex");
    assert_eq!(doc.dialect, dialect, "{file}: detected dialect");
    check_invariants(file, &bytes, &doc);
    let stem = file.trim_end_matches(".jsonl");
    insta::assert_json_snapshot!(format!("codex__{stem}"), doc);
    Some(doc)
}

fn title_of<'a>(doc: &'a NormalizedDocument, id: &str) -> &'a str {
    &doc.parts
        .iter()
        .find(|p| p.id == id)
        .unwrap_or_else(|| panic!("no part {id}"))
        .title
}

#[test]
fn live_exec_tools() {
    let Some(doc) = snapshot_and_check("live-codex-0.171.0-exec-tools.jsonl", "exec") else {
        return;
    };
    // SOURCES.md: shell ×3 (1 error), apply_patch add ×1 + update ×2, browser_navigate ×2 (1 error),
    // browser_snapshot ×1. exec has no command actions: every shell command is `bash`.
    expect(&doc, "commandExecution", ToolKind::Bash, 3, 1);
    expect(&doc, "fileChange", ToolKind::FileWrite, 1, 0);
    expect(&doc, "fileChange", ToolKind::FileEdit, 2, 0);
    expect(&doc, "browser_navigate", ToolKind::Browser, 2, 1);
    expect(&doc, "browser_snapshot", ToolKind::Browser, 1, 0);
    assert_eq!(title_of(&doc, "item_11"), "Reading browser page");
    assert_eq!(title_of(&doc, "item_10"), "Opening browser page");
    let failed = doc.parts.iter().find(|p| p.id == "item_2").unwrap();
    assert_eq!(failed.error.as_ref().unwrap().code.as_deref(), Some("2"));
}

#[test]
fn live_exec_websearch() {
    let Some(doc) = snapshot_and_check("live-codex-0.171.0-exec-websearch.jsonl", "exec") else {
        return;
    };
    expect(&doc, "webSearch", ToolKind::WebSearch, 3, 0);
    assert_eq!(title_of(&doc, "item_1"), "Searching Reuters top news");
    assert_eq!(title_of(&doc, "item_2"), "Opening apnews.com");
    assert_eq!(
        title_of(&doc, "item_3"),
        "Finding \"Updated\" on apnews.com"
    );
    assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
}

#[test]
fn live_appserver_tools() {
    let Some(doc) = snapshot_and_check("live-codex-0.171.0-appserver-tools.jsonl", "app-server")
    else {
        return;
    };
    // The first command reads and greps (pure actions) → file_read; `ls config/` lists → file_read.
    expect(&doc, "commandExecution", ToolKind::FileRead, 2, 1);
    expect(&doc, "commandExecution", ToolKind::Bash, 1, 0);
    expect(&doc, "fileChange", ToolKind::FileWrite, 1, 0);
    expect(&doc, "fileChange", ToolKind::FileEdit, 2, 0);
    expect(&doc, "browser_navigate", ToolKind::Browser, 2, 1);
    expect(&doc, "browser_snapshot", ToolKind::Browser, 1, 0);
    assert_eq!(title_of(&doc, "call_mockt7x0"), "Reading browser page");
    assert_eq!(title_of(&doc, "call_mockt6x1"), "Opening browser page");
    assert_eq!(title_of(&doc, "call_mockt1x0"), "Listing config");
    assert_eq!(title_of(&doc, "call_mockt2x1"), "Creating src/retry.js");
}

#[test]
fn live_appserver_websearch() {
    let Some(doc) =
        snapshot_and_check("live-codex-0.171.0-appserver-websearch.jsonl", "app-server")
    else {
        return;
    };
    expect(&doc, "webSearch", ToolKind::WebSearch, 3, 0);
    assert_eq!(title_of(&doc, "ws_mockt0x1"), "Searching Reuters top news");
    assert_eq!(title_of(&doc, "ws_mockt0x2"), "Opening apnews.com");
    assert_eq!(
        title_of(&doc, "ws_mockt0x3"),
        "Finding \"Updated\" on apnews.com"
    );
}

#[test]
fn go_harness_app_server_0_153_4() {
    let Some(doc) = snapshot_and_check(
        "unidentified-go-harness__codex-app-server-0.153.4-recorded.jsonl",
        "app-server",
    ) else {
        return;
    };
    // 5 commands (read, listFiles, failed exit 3, two with aggregatedOutput null) and one MCP call.
    expect(&doc, "commandExecution", ToolKind::FileRead, 2, 0);
    expect(&doc, "commandExecution", ToolKind::Bash, 3, 1);
    expect(&doc, "echo", ToolKind::Mcp, 1, 0);
    assert_eq!(
        title_of(&doc, "exec-b77282f9-db64-4899-96a4-18794035bba6"),
        "Reading notes.txt"
    );
    let null_output = doc
        .parts
        .iter()
        .find(|p| p.id == "exec-a9bda5da-698f-4906-ae4c-a5eba582397d")
        .unwrap();
    assert_eq!(null_output.output.as_ref().unwrap(), "");
}

#[test]
fn research_doc_exec_0_159_0() {
    let Some(doc) = snapshot_and_check(
        "unidentified-research-doc__codex-exec-json-0.159.0-live.jsonl",
        "exec",
    ) else {
        return;
    };
    // Runs concatenated: item_0 is reused by three different commands.
    expect(&doc, "commandExecution", ToolKind::Bash, 3, 1);
    expect(&doc, "fileChange", ToolKind::FileWrite, 1, 0);
    expect(&doc, "webSearch", ToolKind::WebSearch, 1, 0);
    assert_eq!(title_of(&doc, "item_2"), "Searching codex cli jsonl");
}

#[test]
fn leike_exec_auto_and_file_write() {
    if let Some(doc) = snapshot_and_check("leike0813-agent-test-env__codex-auto.jsonl", "exec") {
        expect(&doc, "commandExecution", ToolKind::Bash, 1, 0);
        assert_eq!(title_of(&doc, "item_1"), "Running date -Is");
    }
    if let Some(doc) =
        snapshot_and_check("leike0813-agent-test-env__codex-file-write.jsonl", "exec")
    {
        expect(&doc, "commandExecution", ToolKind::Bash, 3, 0);
        assert!(
            doc.parts
                .iter()
                .all(|p| p.output.as_ref().is_some_and(|o| o == ""))
        );
    }
}

#[test]
fn vibe_kanban_legacy() {
    let Some(doc) = snapshot_and_check(
        "bloopai-vibe-kanban__codex-legacy-exec-json.jsonl",
        "legacy",
    ) else {
        return;
    };
    expect(&doc, "commandExecution", ToolKind::Bash, 1, 0);
    expect(&doc, "fileChange", ToolKind::FileEdit, 1, 0);
    expect(&doc, "list_projects", ToolKind::Mcp, 1, 0);
}

#[test]
fn mixed_rollout_lines() {
    let Some(doc) = snapshot_and_check("mixed-sources__rollout-lines.jsonl", "rollout") else {
        return;
    };
    // web_search_end then web_search_call with the same id: one part; another web_search_end alone.
    expect(&doc, "webSearch", ToolKind::WebSearch, 2, 0);
    assert_eq!(
        title_of(
            &doc,
            "ws_0ba50992c17b4203016a47cc4297208191bb367cf8b5a7ba1e"
        ),
        "Searching argus"
    );
    assert_eq!(
        title_of(
            &doc,
            "ws_0125cc88504caca9016a3a38332b8c819489af1925a7afd047"
        ),
        "Opening help.openai.com"
    );
}

/// Every file of the directory is covered by a test above.
#[test]
fn every_sample_has_a_test() {
    let Ok(dir) = std::fs::read_dir(fixtures_dir()) else {
        eprintln!("skipping: {} absent", fixtures_dir().display());
        return;
    };
    let covered = [
        "live-codex-0.171.0-exec-tools.jsonl",
        "live-codex-0.171.0-exec-websearch.jsonl",
        "live-codex-0.171.0-appserver-tools.jsonl",
        "live-codex-0.171.0-appserver-websearch.jsonl",
        "unidentified-go-harness__codex-app-server-0.153.4-recorded.jsonl",
        "unidentified-research-doc__codex-exec-json-0.159.0-live.jsonl",
        "leike0813-agent-test-env__codex-auto.jsonl",
        "leike0813-agent-test-env__codex-file-write.jsonl",
        "bloopai-vibe-kanban__codex-legacy-exec-json.jsonl",
        "mixed-sources__rollout-lines.jsonl",
    ];
    for entry in dir.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".jsonl") {
            assert!(covered.contains(&name.as_str()), "{name} has no test");
        }
    }
}

// ---------------------------------------------------------------- hand-written edge cases

#[test]
fn bad_lines_are_diagnostics_and_the_rest_is_normalized() {
    let text = concat!(
        "\u{feff}{\"type\":\"thread.started\",\"thread_id\":\"t\"}\r\n",
        "not json\n",
        "\n",
        "{\"type\":\"item.completed\",\"item\":{\"id\":\"item_0\",\"type\":\"command_execution\",\"command\":\"ls\",\"aggregated_output\":\"\",\"exit_code\":0,\"status\":\"completed\"}}\n",
        "{\"type\":\"item.completed\",\"item\":{\"id\":\"item_1\",\"type\":\"brand_new_tool\"}}\n",
        "{\"type\":\"item.completed\",\"item\":{\"id\":\"item_2\",\"type\":\"command_exec"
    );
    let input = Input::from_bytes(text.as_bytes());
    let doc = normalize(&input, NormalizeOptions::default()).unwrap();
    assert_eq!(doc.dialect, "exec");
    assert_eq!(doc.parts.len(), 1);
    let lines: Vec<u32> = doc.diagnostics.iter().map(|d| d.line).collect();
    assert_eq!(lines, [2, 5, 6], "{:?}", doc.diagnostics);
}

#[test]
fn invalid_utf8_is_reported() {
    let mut bytes = br#"{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"echo "#.to_vec();
    bytes.push(0xff);
    bytes.extend_from_slice(br#"","aggregated_output":"","exit_code":0,"status":"completed"}}"#);
    bytes.push(b'\n');
    let input = Input::from_bytes(&bytes);
    let doc = normalize(&input, NormalizeOptions::default()).unwrap();
    assert_eq!(doc.parts.len(), 1);
    assert_eq!(doc.diagnostics.len(), 1);
}

#[test]
fn normalizing_twice_gives_the_same_parts() {
    let Some(bytes) = read_fixture("live-codex-0.171.0-appserver-tools.jsonl") else {
        return;
    };
    assert_eq!(run(&bytes).parts, run(&bytes).parts);
}

// ---------------------------------------------------------------- prefixes never move back

fn samples() -> Vec<Vec<u8>> {
    [
        "live-codex-0.171.0-appserver-tools.jsonl",
        "live-codex-0.171.0-exec-tools.jsonl",
        "unidentified-research-doc__codex-exec-json-0.159.0-live.jsonl",
        "bloopai-vibe-kanban__codex-legacy-exec-json.jsonl",
        "mixed-sources__rollout-lines.jsonl",
        "unidentified-go-harness__codex-app-server-0.153.4-recorded.jsonl",
    ]
    .iter()
    .filter_map(|f| std::fs::read(fixtures_dir().join(f)).ok())
    .collect()
}

fn states(bytes: &[u8]) -> BTreeMap<String, ToolState> {
    let input = Input::from_bytes(bytes);
    // A prefix may be too short to detect; the full stream's dialect is what a reader would force.
    match normalize(&input, NormalizeOptions::default()) {
        Ok(doc) => doc.parts.into_iter().map(|p| (p.id, p.state)).collect(),
        Err(_) => BTreeMap::new(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn prefixes_never_panic_and_never_move_state_back(which in 0usize..6, a in 0.0f64..1.0, b in 0.0f64..1.0) {
        let all = samples();
        if all.is_empty() {
            return Ok(());
        }
        let bytes = &all[which % all.len()];
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        let cut = |f: f64| ((bytes.len() as f64) * f) as usize;
        // Cuts land anywhere, also inside a multi-byte character or a JSON value.
        let short = states(&bytes[..cut(lo)]);
        let long = states(&bytes[..cut(hi)]);
        for (id, s) in &short {
            if let Some(l) = long.get(id) {
                prop_assert!(l.rank() >= s.rank(), "{id}: {s:?} then {l:?}");
            }
        }
    }
}
