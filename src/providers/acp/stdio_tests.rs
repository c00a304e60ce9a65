//! The `acp` dialect on small recorded conversations: a derived call through its updates, a
//! rejected permission, a cancelled turn, an exact (`_meta.toolnorm`) call, bad lines.

use serde_json::json;

use crate::dialects::normalize_text;
use crate::model::{NormalizedDocument, ToolKind, ToolState};
use crate::stream::Dialect;

fn run(lines: &[serde_json::Value]) -> NormalizedDocument {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    normalize_text(&text, Dialect::Acp)
}

fn update(u: serde_json::Value) -> serde_json::Value {
    json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": u}})
}

#[test]
fn a_call_is_derived_from_acp_fields_through_its_updates() {
    let doc = run(&[
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}),
        json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1, "agentInfo": {"name": "claude-agent-acp", "version": "0.1"}}}),
        update(
            json!({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "`ls`",
            "kind": "execute", "status": "pending", "rawInput": {"command": "ls"},
            "_meta": {"claudeCode": {"toolName": "Bash"}}}),
        ),
        update(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "in_progress"}),
        ),
        update(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed",
            "content": [{"type": "content", "content": {"type": "text", "text": "a\nb"}}]}),
        ),
    ]);
    assert_eq!(doc.provider, "acp");
    let p = &doc.parts[0];
    assert_eq!(
        (p.name.as_str(), p.kind, p.state),
        ("Bash", ToolKind::Bash, ToolState::Complete)
    );
    assert_eq!(p.title, "`ls`");
    assert_eq!(p.input, json!({"command": "ls"}));
    assert_eq!(p.output, Some(json!("a\nb")));
    let extra = &p.metadata.as_ref().unwrap().extra;
    assert_eq!(extra["acpAgent"], "claude-agent-acp 0.1");
    assert_eq!(extra["acpKind"], "execute");
    let states: Vec<ToolState> = doc.events.iter().map(|e| e.state).collect();
    assert_eq!(
        states,
        [ToolState::Started, ToolState::Running, ToolState::Complete]
    );
    assert_eq!(doc.events[0].line, 3);
}

#[test]
fn a_rejected_permission_is_a_declined_error_and_a_cancelled_turn_interrupts() {
    let doc = run(&[
        json!({"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": {"sessionId": "s", "prompt": []}}),
        update(
            json!({"sessionUpdate": "tool_call", "toolCallId": "w", "title": "Write a.txt", "kind": "edit"}),
        ),
        json!({"jsonrpc": "2.0", "id": 0, "method": "session/request_permission", "params": {"sessionId": "s",
            "toolCall": {"toolCallId": "w"}, "options": [
                {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
                {"optionId": "reject", "name": "Reject", "kind": "reject_once"}]}}),
        json!({"jsonrpc": "2.0", "id": 0, "result": {"outcome": {"outcome": "selected", "optionId": "reject"}}}),
        update(
            json!({"sessionUpdate": "tool_call", "toolCallId": "r", "title": "Read b", "kind": "read"}),
        ),
        json!({"jsonrpc": "2.0", "id": 2, "result": {"stopReason": "cancelled"}}),
    ]);
    let w = &doc.parts[0];
    assert_eq!(w.state, ToolState::Error);
    assert_eq!(w.error.as_ref().unwrap().code.as_deref(), Some("declined"));
    let r = &doc.parts[1];
    assert_eq!(r.state, ToolState::Error);
    assert_eq!(
        r.error.as_ref().unwrap().code.as_deref(),
        Some("interrupted")
    );
    assert_eq!(doc.events.last().unwrap().line, 6);
}

#[test]
fn toolnorm_meta_gives_the_exact_part() {
    let doc = run(&[
        update(
            json!({"sessionUpdate": "tool_call", "toolCallId": "m", "title": "Opening browser page",
            "kind": "fetch", "rawInput": {"url": "http://x"},
            "_meta": {"toolnorm": {"name": "browser_navigate", "kind": "browser",
                "metadata": {"mcp": {"server": "amalgm", "tool": "browser_navigate"}}}}}),
        ),
        update(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "m", "status": "failed",
            "_meta": {"toolnorm": {"error": {"message": "timeout", "code": "ETIMEDOUT"},
                "timing": {"elapsedMs": 5}}}}),
        ),
    ]);
    let p = &doc.parts[0];
    assert_eq!(
        (p.name.as_str(), p.kind),
        ("browser_navigate", ToolKind::Browser)
    );
    assert_eq!(p.error.as_ref().unwrap().code.as_deref(), Some("ETIMEDOUT"));
    assert_eq!(p.timing.as_ref().unwrap().elapsed_ms, Some(5));
    assert_eq!(
        p.metadata.as_ref().unwrap().mcp.as_ref().unwrap().server,
        "amalgm"
    );
}

#[test]
fn bad_lines_are_diagnostics_and_the_rest_goes_on() {
    let text = concat!(
        "not json\n",
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"ghost","status":"completed"}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","title":"no id"}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"ok","title":"Fine"}}}"#,
        "\n",
    );
    let doc = normalize_text(text, Dialect::Acp);
    assert_eq!(doc.parts.len(), 1);
    let lines: Vec<u32> = doc.diagnostics.iter().map(|d| d.line).collect();
    assert_eq!(lines, [1, 2, 3]);
}

#[test]
fn a_plan_is_one_todo_part_per_turn_settled_when_the_prompt_ends() {
    let doc = run(&[
        json!({"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": {"sessionId": "s", "prompt": []}}),
        update(json!({"sessionUpdate": "plan", "entries": [
            {"content": "a", "status": "in_progress", "priority": "medium"},
            {"content": "b", "status": "pending", "priority": "medium"}]})),
        update(json!({"sessionUpdate": "plan", "entries": [
            {"content": "a", "status": "completed", "priority": "medium"},
            {"content": "b", "status": "in_progress", "priority": "medium"}]})),
        json!({"jsonrpc": "2.0", "id": 2, "result": {"stopReason": "end_turn"}}),
    ]);
    assert_eq!(doc.parts.len(), 1);
    let p = &doc.parts[0];
    assert_eq!(
        (p.id.as_str(), p.kind, p.state),
        ("plan-1", ToolKind::Todo, ToolState::Complete)
    );
    assert_eq!(p.title, "Updating the todo list (2 items, 1 done)");
    assert_eq!(p.input["entries"][0]["status"], "completed");
}

/// A session request declaring `servers` (stdio servers, as a client sends them).
fn session_new(servers: &[&str]) -> serde_json::Value {
    let declared: Vec<serde_json::Value> = servers
        .iter()
        .map(|n| json!({"name": n, "command": "/bin/server", "args": [], "env": []}))
        .collect();
    json!({"jsonrpc": "2.0", "id": 1, "method": "session/new",
        "params": {"cwd": "/w", "mcpServers": declared}})
}

/// OpenCode's frames for one MCP call: titled with the tool id, kind `other`, no name.
fn opencode_mcp_call(id: &str, tool_id: &str, input: serde_json::Value) -> Vec<serde_json::Value> {
    vec![
        update(
            json!({"sessionUpdate": "tool_call", "toolCallId": id, "title": tool_id,
            "kind": "other", "status": "pending", "locations": [], "rawInput": {}}),
        ),
        update(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": id, "title": tool_id,
            "kind": "other", "status": "in_progress", "rawInput": input}),
        ),
        update(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": id, "status": "completed",
            "rawOutput": {"output": "ok", "metadata": {"truncated": false}}}),
        ),
    ]
}

#[test]
fn an_opencode_mcp_name_splits_after_a_declared_server_only() {
    let mut lines = vec![session_new(&["amalgm", "docs.site"])];
    lines.extend(opencode_mcp_call(
        "a",
        "amalgm_browser_navigate",
        json!({"url": "https://example.com"}),
    ));
    lines.extend(opencode_mcp_call(
        "b",
        "amalgm_artifacts_register",
        json!({"path": "r.md", "title": "Site report"}),
    ));
    lines.extend(opencode_mcp_call(
        "c",
        "docs_site_search",
        json!({"query": "acp"}),
    ));
    // Not a declared server: the name stays whole, nothing is guessed.
    lines.extend(opencode_mcp_call("d", "github_create_issue", json!({})));
    let doc = run(&lines);
    let row = |i: usize| {
        let p = &doc.parts[i];
        let mcp = p.metadata.as_ref().and_then(|m| m.mcp.clone());
        (
            p.name.clone(),
            p.kind,
            p.title.clone(),
            mcp.map(|m| (m.server, m.tool)),
        )
    };
    assert_eq!(
        row(0),
        (
            "browser_navigate".into(),
            ToolKind::Browser,
            "Opening browser page".into(),
            Some(("amalgm".into(), "browser_navigate".into()))
        )
    );
    assert_eq!(
        row(1),
        (
            "artifacts_register".into(),
            ToolKind::Mcp,
            "Registering artifact Site report".into(),
            Some(("amalgm".into(), "artifacts_register".into()))
        )
    );
    assert_eq!(
        row(2),
        (
            "search".into(),
            ToolKind::Mcp,
            "Docs site: search acp".into(),
            Some(("docs.site".into(), "search".into()))
        )
    );
    assert_eq!(
        row(3),
        (
            "other".into(),
            ToolKind::Unknown,
            "github_create_issue".into(),
            None
        )
    );
    assert_eq!(doc.parts[0].input, json!({"url": "https://example.com"}));
    assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
}

#[test]
fn without_declared_servers_no_name_splits_and_claude_names_always_do() {
    let mut lines = vec![session_new(&[])];
    lines.extend(opencode_mcp_call("a", "amalgm_browser_navigate", json!({})));
    lines.push(update(
        json!({"sessionUpdate": "tool_call", "toolCallId": "b",
        "title": "mcp__amalgm__browser_snapshot", "kind": "other", "status": "completed",
        "rawInput": {}, "_meta": {"claudeCode": {"toolName": "mcp__amalgm__browser_snapshot"}}}),
    ));
    // An adapter's title that says more than the tool's name is kept.
    lines.push(update(
        json!({"sessionUpdate": "tool_call", "toolCallId": "c",
        "title": "Snapshot of the checkout page", "kind": "other", "status": "completed",
        "_meta": {"claudeCode": {"toolName": "mcp__amalgm__browser_snapshot"}}}),
    ));
    let doc = run(&lines);
    let a = &doc.parts[0];
    assert_eq!((a.name.as_str(), a.kind), ("other", ToolKind::Unknown));
    assert!(a.metadata.as_ref().unwrap().mcp.is_none());
    let b = &doc.parts[1];
    assert_eq!(
        (b.name.as_str(), b.kind, b.title.as_str()),
        (
            "browser_snapshot",
            ToolKind::Browser,
            "Reading browser page"
        )
    );
    assert_eq!(
        b.metadata.as_ref().unwrap().mcp.as_ref().unwrap().server,
        "amalgm"
    );
    assert_eq!(doc.parts[2].title, "Snapshot of the checkout page");
}

#[test]
fn declared_servers_are_read_leniently_and_kept_bounded() {
    // Entries without a string name are skipped; the others still declare.
    let odd = json!({"jsonrpc": "2.0", "id": 1, "method": "session/load", "params": {
        "sessionId": "s", "cwd": "/w",
        "mcpServers": [7, {"name": 3}, {"type": "http", "name": "amalgm", "url": "u", "headers": []}]}});
    let mut lines = vec![odd];
    lines.extend(opencode_mcp_call("a", "amalgm_browser_tabs_new", json!({})));
    let doc = run(&lines);
    assert_eq!(doc.parts[0].name, "browser_tabs_new");
    assert_eq!(doc.parts[0].title, "Opening browser tab");

    // A flood of declared servers is cut at the bound, with one diagnostic.
    let many: Vec<String> = (0..300).map(|i| format!("s{i}")).collect();
    let names: Vec<&str> = many.iter().map(String::as_str).collect();
    let mut lines = vec![session_new(&names), session_new(&names)];
    lines.extend(opencode_mcp_call("a", "s299_do", json!({})));
    lines.extend(opencode_mcp_call("b", "s3_do", json!({})));
    let doc = run(&lines);
    assert_eq!(doc.parts[0].name, "other", "s299 is past the bound");
    assert_eq!(doc.parts[1].name, "do");
    let told: Vec<_> = doc
        .diagnostics
        .iter()
        .filter(|d| d.message.contains("MCP servers declared"))
        .collect();
    assert_eq!(told.len(), 1, "{:?}", doc.diagnostics);
    assert_eq!(told[0].line, 1);
}
