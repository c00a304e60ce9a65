//! Rule table tests: for every rule, a raw stream and a hand-built normalized document that
//! trigger it and one that stays clean, with the rendered findings snapshotted. Plus registry
//! invariants (unique codes, documented rules).

use serde_json::{Value, json};

use super::{
    FrameWire, RawScan, RuleContext, WireFrames, by_code, check_all, raw, registry, render,
};

mod background;
mod invariants;
mod lost_calls;
mod wire;
use crate::model::NormalizedDocument;
use crate::stream::{Dialect, Input};

/// Claude stream-json: one Bash call, its result, the turn end.
const CLAUDE_OK: &str = concat!(
    r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls -la","description":"List files"}}]}}"#,
    "\n",
    r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"a.txt\nb.txt"}]}}"#,
    "\n",
    r#"{"type":"result","subtype":"success"}"#,
    "\n"
);

/// The same call, failed.
/// ACP: a tool call, the agent's permission request for it, the client's rejection.
const ACP_REJECTED: &str = concat!(
    r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"t1","title":"Run ls","kind":"execute","rawInput":{"command":"ls"},"_meta":{"claudeCode":{"toolName":"Bash"}}}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"t1"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"},{"optionId":"reject","name":"Reject","kind":"reject_once"}]}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"reject"}}}"#,
    "\n",
);

const CLAUDE_FAILED: &str = concat!(
    r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls -la","description":"List files"}}]}}"#,
    "\n",
    r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"Exit code 2"}]}}"#,
    "\n",
    r#"{"type":"result","subtype":"success"}"#,
    "\n"
);

/// A call the turn end cuts off (no tool_result).
const CLAUDE_INTERRUPTED: &str = concat!(
    r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls -la","description":"List files"}}]}}"#,
    "\n",
    r#"{"type":"result","subtype":"error_during_execution"}"#,
    "\n"
);

/// An MCP call.
const CLAUDE_MCP: &str = concat!(
    r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"m1","name":"mcp__jira__getIssue","input":{"key":"PROJ-1"}}]}}"#,
    "\n",
    r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"m1","content":[{"type":"text","text":"PROJ-1: fix it"}]}]}}"#,
    "\n"
);

/// A Claude transcript whose tool_result line is written before its tool_use line (real
/// transcripts do this): a prompt, the result, then the call.
const CLAUDE_TRANSCRIPT_RESULT_FIRST: &str = concat!(
    r#"{"type":"user","uuid":"u1","sessionId":"s1","message":{"role":"user","content":"list files"}}"#,
    "\n",
    r#"{"type":"user","uuid":"u3","parentUuid":"a2","sessionId":"s1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a.txt\nb.txt"}]}}"#,
    "\n",
    r#"{"type":"assistant","uuid":"a2","parentUuid":"u1","sessionId":"s1","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls -la","description":"List files"}}]}}"#,
    "\n"
);

/// Stream-json with the tool_result before its tool_use, then the turn end.
const CLAUDE_RESULT_FIRST_THEN_END: &str = concat!(
    r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"a.txt\nb.txt"}]}}"#,
    "\n",
    r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls -la","description":"List files"}}]}}"#,
    "\n",
    r#"{"type":"result","subtype":"success"}"#,
    "\n"
);

/// Codex exec: a web search (the item id appears twice) and a command, then the turn end.
const CODEX_EXEC: &str = concat!(
    r#"{"type":"item.started","item":{"id":"item_0","type":"web_search","id":"ws_1","query":"","action":{"type":"other"}}}"#,
    "\n",
    r#"{"type":"item.completed","item":{"id":"item_0","type":"web_search","id":"ws_1","query":"rust","action":{"type":"search","query":"rust"}}}"#,
    "\n",
    r#"{"type":"turn.completed","usage":{}}"#,
    "\n"
);

/// OpenCode events: a task that spawned a child session.
const OPENCODE_TASK: &str = concat!(
    r#"{"type":"message.part.updated","properties":{"part":{"id":"prt_1","sessionID":"ses_p","messageID":"msg_1","type":"tool","callID":"call_1","tool":"task","state":{"status":"completed","input":{"description":"Research","prompt":"Find it","subagent_type":"general"},"output":"done","title":"Research","metadata":{"sessionId":"ses_child"},"time":{"start":1,"end":2}}}}}"#,
    "\n",
    r#"{"type":"session.idle","properties":{"sessionID":"ses_p"}}"#,
    "\n"
);

/// The conforming part for the Bash call in the Claude streams.
fn bash_part() -> Value {
    json!({
        "id": "t1", "name": "Bash", "kind": "bash", "title": "Running ls -la",
        "input": {"command": "ls -la", "description": "List files"},
        "output": "a.txt\nb.txt", "state": "complete",
        "metadata": {"providerType": "tool_use"}
    })
}

fn doc(dialect: Dialect, parts: Vec<Value>, events: Value) -> NormalizedDocument {
    serde_json::from_value(json!({
        "schemaVersion": 1,
        "provider": dialect.provider().as_str(),
        "dialect": dialect.as_str(),
        "parts": parts,
        "events": events,
        "diagnostics": []
    }))
    .expect("hand-built document matches the model")
}

/// A part and the events the Claude OK stream gives it.
fn bash_doc(part: Value) -> NormalizedDocument {
    let events = json!([
        {"line": 1, "partId": "t1", "state": "running"},
        {"line": 2, "partId": "t1", "state": part["state"].clone()}
    ]);
    doc(Dialect::ClaudeStreamJson, vec![part], events)
}

fn with(mut base: Value, patch: Value) -> Value {
    for (k, v) in patch.as_object().expect("patch is an object") {
        if v.is_null() {
            base.as_object_mut().expect("part is an object").remove(k);
        } else {
            base[k] = v.clone();
        }
    }
    base
}

fn failed_part() -> Value {
    with(
        bash_part(),
        json!({"state": "error", "output": null, "error": {"message": "Exit code 2", "code": "2"}}),
    )
}

fn mcp_part(patch: Value) -> NormalizedDocument {
    let part = with(
        json!({
            "id": "m1", "name": "getIssue", "kind": "mcp", "title": "Getting Jira issue PROJ-1",
            "input": {"key": "PROJ-1"}, "output": [{"type": "text", "text": "PROJ-1: fix it"}], "state": "complete",
            "metadata": {"providerType": "tool_use", "mcp": {"server": "jira", "tool": "getIssue"}}
        }),
        patch,
    );
    let events = json!([{"line": 1, "partId": "m1", "state": "running"}, {"line": 2, "partId": "m1", "state": "complete"}]);
    doc(Dialect::ClaudeStreamJson, vec![part], events)
}

fn web_search_doc(patch: Value) -> NormalizedDocument {
    let part = with(
        json!({
            "id": "item_0", "name": "webSearch", "kind": "web_search", "title": "Searching rust",
            "input": {"query": "rust"}, "output": null, "state": "complete",
            "metadata": {"providerType": "web_search", "action": {"type": "search", "query": "rust"}}
        }),
        patch,
    );
    let events = json!([{"line": 1, "partId": "item_0", "state": "running"}, {"line": 2, "partId": "item_0", "state": "complete"}]);
    doc(Dialect::CodexExec, vec![part], events)
}

fn task_doc(patch: Value) -> NormalizedDocument {
    let part = with(
        json!({
            "id": "call_1", "name": "task", "kind": "subagent", "title": "Research",
            "input": {"description": "Research", "prompt": "Find it", "subagent_type": "general"},
            "output": "done", "state": "complete",
            "metadata": {"providerType": "tool", "childSessionId": "ses_child"}
        }),
        patch,
    );
    doc(
        Dialect::OpencodeEvents,
        vec![part],
        json!([{"line": 1, "partId": "call_1", "state": "complete"}]),
    )
}

/// One row of the table: a rule, a case name, and whether it must trigger.
struct Case {
    code: &'static str,
    name: &'static str,
    triggers: bool,
    dialect: Dialect,
    raw: &'static str,
    doc: NormalizedDocument,
    /// The frames the output came from, when it came from a wire.
    wire: Option<(FrameWire, Vec<Value>)>,
}

fn case(
    code: &'static str,
    name: &'static str,
    triggers: bool,
    raw: &'static str,
    doc: NormalizedDocument,
) -> Case {
    let dialect = match doc.dialect.as_str() {
        "exec" => Dialect::CodexExec,
        "events" => Dialect::OpencodeEvents,
        "transcript" => Dialect::ClaudeTranscript,
        "acp" => Dialect::Acp,
        _ => Dialect::ClaudeStreamJson,
    };
    Case {
        code,
        name,
        triggers,
        dialect,
        raw,
        doc,
        wire: None,
    }
}

fn cases() -> Vec<Case> {
    let ok = || bash_doc(bash_part());
    let renamed_id = {
        let mut d = bash_doc(with(bash_part(), json!({"id": "tool-1"})));
        d.events
            .iter_mut()
            .for_each(|e| e.part_id = "tool-1".into());
        d
    };
    let two_parts = doc(
        Dialect::ClaudeStreamJson,
        vec![bash_part(), bash_part()],
        json!([{"line": 1, "partId": "t1", "state": "running"}, {"line": 2, "partId": "t1", "state": "complete"}]),
    );
    vec![
        case(
            "TN001",
            "id invented by the normalizer",
            true,
            CLAUDE_OK,
            renamed_id,
        ),
        case("TN001", "provider id", false, CLAUDE_OK, ok()),
        case(
            "TN002",
            "name guessed from the command",
            true,
            CLAUDE_OK,
            bash_doc(with(bash_part(), json!({"name": "Read"}))),
        ),
        case("TN002", "explicit name kept", false, CLAUDE_OK, ok()),
        case(
            "TN002",
            "MCP prefix stripped",
            false,
            CLAUDE_MCP,
            mcp_part(json!({})),
        ),
        case(
            "TN003",
            "shell filed as unknown",
            true,
            CLAUDE_OK,
            bash_doc(with(bash_part(), json!({"kind": "unknown"}))),
        ),
        case(
            "TN003",
            "web search filed as browser",
            true,
            CODEX_EXEC,
            web_search_doc(json!({"kind": "browser"})),
        ),
        case(
            "TN003",
            "MCP tool filed as unknown",
            true,
            CLAUDE_MCP,
            mcp_part(json!({"kind": "unknown"})),
        ),
        case("TN003", "shell is bash", false, CLAUDE_OK, ok()),
        case(
            "TN004",
            "title is the tool name",
            true,
            CLAUDE_OK,
            bash_doc(with(bash_part(), json!({"title": "bash"}))),
        ),
        case(
            "TN004",
            "title is the MCP tool",
            true,
            CLAUDE_MCP,
            mcp_part(json!({"title": "get_issue"})),
        ),
        case("TN004", "action title", false, CLAUDE_OK, ok()),
        case(
            "TN005",
            "command dropped",
            true,
            CLAUDE_OK,
            bash_doc(with(
                bash_part(),
                json!({"input": {"description": "List files"}}),
            )),
        ),
        case(
            "TN005",
            "MCP argument dropped",
            true,
            CLAUDE_MCP,
            mcp_part(json!({"input": {}})),
        ),
        case(
            "TN005",
            "web search query dropped",
            true,
            CODEX_EXEC,
            web_search_doc(json!({"input": {}})),
        ),
        case("TN005", "args kept", false, CLAUDE_OK, ok()),
        case(
            "TN005",
            "unwrapped command kept",
            false,
            CLAUDE_OK,
            bash_doc(with(bash_part(), json!({"input": {"command": "ls -la"}}))),
        ),
        case(
            "TN006",
            "failure text in output",
            true,
            CLAUDE_FAILED,
            bash_doc(with(failed_part(), json!({"output": "Exit code 2"}))),
        ),
        case(
            "TN006",
            "failure in error",
            false,
            CLAUDE_FAILED,
            bash_doc(failed_part()),
        ),
        case(
            "TN007",
            "error on a complete part",
            true,
            CLAUDE_OK,
            bash_doc(with(bash_part(), json!({"error": {"message": "warning"}}))),
        ),
        case(
            "TN007",
            "error state without error",
            true,
            CLAUDE_FAILED,
            bash_doc(with(failed_part(), json!({"error": null}))),
        ),
        case(
            "TN007",
            "empty error message",
            true,
            CLAUDE_FAILED,
            bash_doc(with(failed_part(), json!({"error": {"message": " "}}))),
        ),
        case(
            "TN007",
            "error only on failure",
            false,
            CLAUDE_FAILED,
            bash_doc(failed_part()),
        ),
        case(
            "TN008",
            "raw item type missing",
            true,
            CLAUDE_OK,
            bash_doc(with(bash_part(), json!({"metadata": null}))),
        ),
        case(
            "TN008",
            "web action missing",
            true,
            CODEX_EXEC,
            web_search_doc(json!({"metadata": {"providerType": "web_search"}})),
        ),
        case(
            "TN008",
            "child session missing",
            true,
            OPENCODE_TASK,
            task_doc(json!({"metadata": {"providerType": "tool"}})),
        ),
        case(
            "TN008",
            "detail kept",
            false,
            OPENCODE_TASK,
            task_doc(json!({})),
        ),
        case(
            "TN009",
            "output copied and raw item kept",
            true,
            CLAUDE_OK,
            bash_doc(with(
                bash_part(),
                json!({"output": "x".repeat(40), "metadata": {"providerType": "tool_use", "stdout": "x".repeat(40), "item": {"type": "tool_use"}}}),
            )),
        ),
        case(
            "TN009",
            "metadata over 4 KiB",
            true,
            CLAUDE_OK,
            bash_doc(with(
                bash_part(),
                json!({"metadata": {"providerType": "tool_use", "note": "y".repeat(5000)}}),
            )),
        ),
        case("TN009", "small metadata", false, CLAUDE_OK, ok()),
        case(
            "TN010",
            "call lost",
            true,
            CLAUDE_OK,
            doc(Dialect::ClaudeStreamJson, vec![], json!([])),
        ),
        case(
            "TN010",
            "call split in two parts",
            true,
            CLAUDE_OK,
            two_parts,
        ),
        case("TN010", "one part per call", false, CLAUDE_OK, ok()),
        case(
            "TN011",
            "failed call shown complete",
            true,
            CLAUDE_FAILED,
            ok(),
        ),
        case(
            "TN011",
            "failed call is error",
            false,
            CLAUDE_FAILED,
            bash_doc(failed_part()),
        ),
        case(
            "TN011",
            "ACP call whose permission the client rejected shown complete",
            true,
            ACP_REJECTED,
            doc(
                Dialect::Acp,
                vec![bash_part()],
                json!([{"line": 1, "partId": "t1", "state": "complete"}]),
            ),
        ),
        case(
            "TN011",
            "ACP call whose permission the client rejected is error",
            false,
            ACP_REJECTED,
            doc(
                Dialect::Acp,
                vec![failed_part()],
                json!([{"line": 1, "partId": "t1", "state": "started"}, {"line": 3, "partId": "t1", "state": "error"}]),
            ),
        ),
        case(
            "TN012",
            "complete goes back to running",
            true,
            CLAUDE_OK,
            doc(
                Dialect::ClaudeStreamJson,
                vec![with(bash_part(), json!({"state": "running"}))],
                json!([
                    {"line": 1, "partId": "t1", "state": "running"},
                    {"line": 2, "partId": "t1", "state": "complete"},
                    {"line": 3, "partId": "t1", "state": "running"}
                ]),
            ),
        ),
        case(
            "TN012",
            "complete turns into error, final state disagrees",
            true,
            CLAUDE_OK,
            doc(
                Dialect::ClaudeStreamJson,
                vec![bash_part()],
                json!([{"line": 2, "partId": "t1", "state": "complete"}, {"line": 3, "partId": "t1", "state": "error"}]),
            ),
        ),
        case("TN012", "forward only", false, CLAUDE_OK, ok()),
        case(
            "TN012",
            "result written before its call",
            false,
            CLAUDE_TRANSCRIPT_RESULT_FIRST,
            doc(
                Dialect::ClaudeTranscript,
                vec![bash_part()],
                json!([{"line": 3, "partId": "t1", "state": "running"}, {"line": 2, "partId": "t1", "state": "complete"}]),
            ),
        ),
        case(
            "TN013",
            "still running at the result line",
            true,
            CLAUDE_INTERRUPTED,
            doc(
                Dialect::ClaudeStreamJson,
                vec![with(
                    bash_part(),
                    json!({"state": "running", "output": null}),
                )],
                json!([{"line": 1, "partId": "t1", "state": "running"}]),
            ),
        ),
        case(
            "TN013",
            "closed at the result line",
            false,
            CLAUDE_INTERRUPTED,
            doc(
                Dialect::ClaudeStreamJson,
                vec![with(
                    failed_part(),
                    json!({"error": {"message": "Interrupted", "code": "interrupted"}}),
                )],
                json!([{"line": 1, "partId": "t1", "state": "running"}, {"line": 2, "partId": "t1", "state": "error"}]),
            ),
        ),
        case(
            "TN013",
            "result written before its call, closed at the turn end",
            false,
            CLAUDE_RESULT_FIRST_THEN_END,
            doc(
                Dialect::ClaudeStreamJson,
                vec![bash_part()],
                json!([{"line": 2, "partId": "t1", "state": "running"}, {"line": 1, "partId": "t1", "state": "complete"}]),
            ),
        ),
        case(
            "TN014",
            "output-error without errorText",
            true,
            CLAUDE_FAILED,
            bash_doc(with(failed_part(), json!({"error": null}))),
        ),
        case(
            "TN014",
            "output-available with errorText",
            true,
            CLAUDE_OK,
            bash_doc(with(bash_part(), json!({"error": {"message": "odd"}}))),
        ),
        case(
            "TN014",
            "consistent legacy view",
            false,
            CLAUDE_FAILED,
            bash_doc(failed_part()),
        ),
        case(
            "TN015",
            "error frame without error",
            true,
            CLAUDE_FAILED,
            bash_doc(with(failed_part(), json!({"error": null}))),
        ),
        case(
            "TN015",
            "complete frame without output",
            false,
            CLAUDE_OK,
            bash_doc(with(bash_part(), json!({"output": null}))),
        ),
        case(
            "TN015",
            "empty tool name and null input",
            true,
            CLAUDE_OK,
            {
                let mut d = bash_doc(with(bash_part(), json!({"name": ""})));
                d.parts[0].input = Value::Null;
                d
            },
        ),
        case(
            "TN015",
            "blank tool name alone",
            true,
            CLAUDE_OK,
            bash_doc(with(bash_part(), json!({"name": " \t"}))),
        ),
        case("TN015", "complete frame", false, CLAUDE_OK, ok()),
        case(
            "TN016",
            "JSON title",
            true,
            CLAUDE_OK,
            bash_doc(with(
                bash_part(),
                json!({"title": "{\"command\":\"ls -la\"}"}),
            )),
        ),
        case(
            "TN016",
            "multi-line title",
            true,
            CLAUDE_OK,
            bash_doc(with(bash_part(), json!({"title": "Running ls\n-la"}))),
        ),
        case(
            "TN016",
            "long title",
            true,
            CLAUDE_OK,
            bash_doc(with(
                bash_part(),
                json!({"title": format!("Running {}", "x".repeat(120))}),
            )),
        ),
        case(
            "TN016",
            "empty title",
            true,
            CLAUDE_OK,
            bash_doc(with(bash_part(), json!({"title": "  "}))),
        ),
        case(
            "TN016",
            "JSON array title",
            true,
            CLAUDE_MCP,
            mcp_part(json!({"title": "[{\"type\":\"text\",\"text\":\"PROJ-1\"}]"})),
        ),
        case(
            "TN016",
            "shortened JSON dump",
            true,
            CLAUDE_OK,
            bash_doc(with(
                bash_part(),
                json!({"title": "{\"command\":\"ls -la\",\"description\":\"List…"}),
            )),
        ),
        case("TN016", "good title", false, CLAUDE_OK, ok()),
        case(
            "TN016",
            "command with JSON-like quoting",
            false,
            CLAUDE_OK,
            bash_doc(with(
                bash_part(),
                json!({"title": "Running rg '\"role\":\"assistant\"' logs/"}),
            )),
        ),
        case(
            "TN016",
            "bracketed title",
            false,
            CLAUDE_OK,
            bash_doc(with(
                bash_part(),
                json!({"title": "[ -f a.txt ] && cat a.txt"}),
            )),
        ),
        case(
            "TN017",
            "prefixed name, no MCP metadata",
            true,
            CLAUDE_MCP,
            mcp_part(
                json!({"name": "mcp__jira__getIssue", "metadata": {"providerType": "tool_use"}}),
            ),
        ),
        case(
            "TN017",
            "wrong server",
            true,
            CLAUDE_MCP,
            mcp_part(
                json!({"metadata": {"providerType": "tool_use", "mcp": {"server": "mcp", "tool": "getIssue"}}}),
            ),
        ),
        case(
            "TN017",
            "MCP identity kept",
            false,
            CLAUDE_MCP,
            mcp_part(json!({})),
        ),
        case(
            "TN018",
            "timing invented on codex exec",
            true,
            CODEX_EXEC,
            web_search_doc(json!({"timing": {"elapsedMs": 5}})),
        ),
        case(
            "TN018",
            "completed before started, absurd elapsed",
            true,
            CLAUDE_OK,
            bash_doc(with(
                bash_part(),
                json!({"timing": {"startedAt": "2026-07-27T15:15:26.712Z", "completedAt": "2026-07-27T15:15:20Z", "elapsedMs": 999_999_999_999u64}}),
            )),
        ),
        case(
            "TN018",
            "sane timing",
            false,
            CLAUDE_OK,
            bash_doc(with(
                bash_part(),
                json!({"timing": {"startedAt": 1000, "completedAt": 1500, "elapsedMs": 500}}),
            )),
        ),
        case(
            "TN019",
            "event past the end, unknown part, part without events",
            true,
            CLAUDE_OK,
            doc(
                Dialect::ClaudeStreamJson,
                vec![bash_part()],
                json!([{"line": 40, "partId": "ghost", "state": "running"}, {"line": 2, "partId": "ghost", "state": "complete"}]),
            ),
        ),
        case(
            "TN019",
            "events out of order on a stream in order",
            true,
            CLAUDE_OK,
            doc(
                Dialect::ClaudeStreamJson,
                vec![bash_part()],
                json!([{"line": 2, "partId": "t1", "state": "running"}, {"line": 1, "partId": "t1", "state": "complete"}]),
            ),
        ),
        case(
            "TN019",
            "result before its call, event on a line without the part",
            true,
            CLAUDE_TRANSCRIPT_RESULT_FIRST,
            doc(
                Dialect::ClaudeTranscript,
                vec![bash_part()],
                json!([{"line": 3, "partId": "t1", "state": "running"}, {"line": 1, "partId": "t1", "state": "complete"}]),
            ),
        ),
        case("TN019", "events coherent", false, CLAUDE_OK, ok()),
        case(
            "TN019",
            "result written before its call",
            false,
            CLAUDE_TRANSCRIPT_RESULT_FIRST,
            doc(
                Dialect::ClaudeTranscript,
                vec![bash_part()],
                json!([{"line": 3, "partId": "t1", "state": "running"}, {"line": 2, "partId": "t1", "state": "complete"}]),
            ),
        ),
    ]
}

/// The rules' own scan of a stream in `dialect`: the one its row in the dialect registry names.
fn scan(input: &Input<'_>, dialect: Dialect) -> RawScan {
    let entry = crate::dialects::DIALECTS
        .iter()
        .find(|e| e.dialect == dialect)
        .expect("every dialect has a registry row");
    (entry.scan)(input)
}

fn run_case(c: &Case) -> Vec<String> {
    let rule = by_code(c.code).expect("case names a registered rule");
    let input = Input::from_bytes(c.raw.as_bytes());
    let raw = scan(&input, c.dialect);
    let mut cx = RuleContext::new(c.dialect, &input, &c.doc, &raw);
    if let Some((wire, frames)) = &c.wire {
        cx = cx.with_wire(WireFrames {
            wire: *wire,
            frames,
        });
    }
    rule.check(&cx).iter().map(|f| render(rule, f)).collect()
}

#[test]
fn every_rule_triggers_and_stays_clean() {
    let all: Vec<Case> = cases()
        .into_iter()
        .chain(background::cases())
        .chain(wire::cases())
        .collect();
    let mut failures = Vec::new();
    for rule in registry() {
        let mine: Vec<&Case> = all.iter().filter(|c| c.code == rule.code()).collect();
        assert!(
            mine.iter().any(|c| c.triggers),
            "{} has no triggering case",
            rule.code()
        );
        assert!(
            mine.iter().any(|c| !c.triggers),
            "{} has no clean case",
            rule.code()
        );
        let mut rendered = String::new();
        for c in &mine {
            let findings = run_case(c);
            if findings.is_empty() == c.triggers {
                failures.push(format!(
                    "{} `{}`: expected triggers={}, got {findings:?}",
                    c.code, c.name, c.triggers
                ));
            }
            rendered.push_str(&format!("## {}\n", c.name));
            if findings.is_empty() {
                rendered.push_str("(clean)\n");
            }
            for f in findings {
                rendered.push_str(&f);
                rendered.push('\n');
            }
            rendered.push('\n');
        }
        insta::assert_snapshot!(rule.code(), rendered);
    }
    assert!(
        failures.is_empty(),
        "cases that misbehaved:\n{}",
        failures.join("\n")
    );
}
