//! Every tool Kilo, droid and Copilot CLI declare to the model has a specific title and a kind.
//!
//! `scenarios/tools/<cli>-<version>.json` (`{cli, version, tools}`) lists the tool names a pinned
//! release declared in the requests its scenarios sent to the scripted model: what the model
//! server logged, the union over the scenario runs (droid names the tools it defers in a system
//! reminder, loaded with `ToolSearch`: those count as declared too). Each built-in one (the
//! fixture MCP server's `amalgm` tools left out) is called with empty input in a one-line stream
//! of the CLI's dialect, and the part it makes must have a kind other than `unknown`, no MCP
//! identity, and a title that is neither the raw name nor the generic title of a tool no table
//! knows. A release that declares a new tool fails this test when its list is recaptured.

use std::fs;
use std::path::Path;

use serde_json::{Value, json};
use toolnorm::{Dialect, Input, NormalizeOptions, ToolKind, normalize};

/// The dialect a CLI's declared tools are checked through, and the one-line stream that calls
/// `tool` with empty input in it.
fn call_line(cli: &str, tool: &str) -> Option<(Dialect, String)> {
    Some(match cli {
        "@kilocode/cli" => (
            Dialect::KiloRun,
            json!({"type": "tool_use", "timestamp": 1, "sessionID": "ses_a", "part": {
                "id": "prt_1", "sessionID": "ses_a", "messageID": "msg_1", "type": "tool",
                "callID": "c1", "tool": tool,
                "state": {"status": "running", "input": {}, "time": {"start": 1}}}})
            .to_string(),
        ),
        "droid" => (
            Dialect::DroidStreamJson,
            json!({"type": "tool_call", "id": "c1", "toolId": tool, "toolName": tool,
                "parameters": {}, "timestamp": 1, "session_id": "s"})
            .to_string(),
        ),
        "@github/copilot" => (
            Dialect::CopilotJson,
            json!({"type": "tool.execution_start", "data": {"toolCallId": "c1",
                "toolName": tool, "arguments": {}}, "id": "e1",
                "timestamp": "2026-01-01T00:00:00.000Z"})
            .to_string(),
        ),
        _ => return None,
    })
}

/// What a tool that no table knows is titled: its name in words, "(no arguments)".
fn generic_title(tool: &str) -> String {
    let words = tool.replace(['_', '-'], " ");
    let mut chars = words.chars();
    let capitalized = match chars.next() {
        Some(c) => c.to_uppercase().collect::<String>() + chars.as_str(),
        None => String::new(),
    };
    format!("{capitalized} (no arguments)")
}

#[test]
fn every_declared_built_in_tool_has_a_title_and_a_kind() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/tools");
    let mut checked = Vec::new();
    for entry in fs::read_dir(&dir).expect("scenarios/tools exists") {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let doc: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let cli = doc["cli"].as_str().expect("a cli");
        if call_line(cli, "x").is_none() {
            continue;
        }
        let tools: Vec<&str> = doc["tools"]
            .as_array()
            .expect("a tools list")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert!(tools.len() >= 10, "{}: too few tools", path.display());
        let mut missing = Vec::new();
        for tool in tools.iter().filter(|t| !t.starts_with("amalgm")) {
            let (dialect, line) = call_line(cli, tool).unwrap();
            let opts = NormalizeOptions {
                dialect: Some(dialect),
                ..NormalizeOptions::default()
            };
            let doc = normalize(&Input::from_bytes(line.as_bytes()), opts).unwrap();
            let part = &doc.parts[0];
            let mcp = part.metadata.as_ref().and_then(|m| m.mcp.as_ref());
            if part.kind == ToolKind::Unknown
                || mcp.is_some()
                || part.title == *tool
                || part.title == generic_title(tool)
                || part.title.starts_with("Using ")
            {
                missing.push(format!("{tool} ({:?}: {:?})", part.kind, part.title));
            }
        }
        assert!(
            missing.is_empty(),
            "{}: declared tools without a specific title and kind: {missing:?}",
            path.display()
        );
        checked.push(cli.to_owned());
    }
    checked.sort();
    assert_eq!(checked, ["@github/copilot", "@kilocode/cli", "droid"]);
}

#[test]
fn a_tool_no_table_knows_fails_the_check() {
    for cli in ["@kilocode/cli", "droid", "@github/copilot"] {
        let (dialect, line) = call_line(cli, "brand_new_tool").unwrap();
        let opts = NormalizeOptions {
            dialect: Some(dialect),
            ..NormalizeOptions::default()
        };
        let doc = normalize(&Input::from_bytes(line.as_bytes()), opts).unwrap();
        let part = &doc.parts[0];
        let mcp = part.metadata.as_ref().and_then(|m| m.mcp.as_ref());
        // Kilo (OpenCode) reads an unknown `<a>_<b>` as an MCP tool; the others as unknown.
        assert!(
            part.kind == ToolKind::Unknown || mcp.is_some(),
            "{cli}: {part:?}"
        );
    }
}
