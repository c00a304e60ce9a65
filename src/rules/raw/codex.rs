//! The rules' scan of Codex streams: thread items of either casing (app-server camelCase, exec
//! snake_case, rollout typed items), rollout and legacy `EventMsg` payloads and response items,
//! their failure markers (failed / declined status, non-zero exit codes, MCP errors), and the
//! lines that end a turn.

use crate::rules::support::HashMap;

use memchr::memmem;
use serde_json::Value;

use super::pruned::{Node, parse, parse_whole};
use super::{
    Markers, RawScan, TurnEnd, for_marked_lines, merge_all, merge_args, set_arg, set_paths, str_of,
};
use crate::stream::Input;

/// `codex app-server` v2 JSON-RPC notifications.
pub(crate) fn app_server(input: &Input<'_>) -> RawScan {
    let mut s = RawScan::default();
    static MARKERS: Markers = Markers::new(&[
        "\"item/started\"",
        "\"item/completed\"",
        "\"turn/completed\"",
        "\"item/tool/requestUserInput\"",
        "\"turn/plan/updated\"",
    ]);
    for_marked_lines(input, &MARKERS, |line, v| app_server_line(&mut s, line, &v));
    s
}

/// `codex exec --json`.
pub(crate) fn exec(input: &Input<'_>) -> RawScan {
    static MARKERS: Markers = Markers::new(&[
        "\"item.started\"",
        "\"item.updated\"",
        "\"item.completed\"",
        "\"turn.completed\"",
        "\"turn.failed\"",
    ]);
    let mut s = RawScan::default();
    let mut ids = ExecIds::default();
    super::for_marked_raw_lines(input, &MARKERS, false, |raw, v| {
        exec_line(&mut s, &mut ids, raw.number, &v, raw.bytes)
    });
    s
}

/// `~/.codex/sessions/**.jsonl` rollout files: the event is the line's `payload`.
pub(crate) fn rollout(input: &Input<'_>) -> RawScan {
    event_stream(input, "payload")
}

/// The old `{"id","msg"}` EventMsg stream: the event is the line's `msg`.
pub(crate) fn legacy(input: &Input<'_>) -> RawScan {
    event_stream(input, "msg")
}

/// A stream of `EventMsg` payloads and response items, each under `key` of its line.
fn event_stream(input: &Input<'_>, key: &str) -> RawScan {
    let mut s = RawScan::default();
    static MARKERS: Markers = Markers::new(&[
        "_call\"",
        "_call_output\"",
        "_begin\"",
        "_end\"",
        "\"item_completed\"",
        "\"task_complete\"",
        "\"turn_aborted\"",
    ]);
    for_marked_lines(input, &MARKERS, |line, v| {
        if let Some(p) = v.get(key) {
            event_msg(&mut s, line, p);
        }
    });
    s
}

// ---------------------------------------------------------------------------------------------
// Codex app-server (camelCase ThreadItems)

const APP_SERVER_TOOL_ITEMS: &[&str] = &[
    "commandExecution",
    "fileChange",
    "mcpToolCall",
    "webSearch",
    "dynamicToolCall",
    "collabAgentToolCall",
    "subAgentActivity",
    "imageView",
];

fn app_server_line(s: &mut RawScan, line: u32, v: &Node<'_>) {
    let Some(params) = v.get("params") else {
        return;
    };
    match str_of(v, "method") {
        Some("item/started") | Some("item/completed") => {
            let Some(item) = params.get("item") else {
                return;
            };
            let Some(ty) = str_of(item, "type") else {
                return;
            };
            if !APP_SERVER_TOOL_ITEMS.contains(&ty) {
                return;
            }
            // A subagent's `completed` activity is the parent's notice that it finished, not a
            // call (its id is `subagent-completed-<turn>`, not a call id).
            if ty == "subAgentActivity" && str_of(item, "kind") == Some("completed") {
                return;
            }
            let Some(id) = str_of(item, "id") else { return };
            let scope = str_of(params, "threadId").map(str::to_owned);
            thread_item(s, line, id, ty, item, scope);
        }
        Some("turn/completed") => {
            let scope = str_of(params, "threadId").map(str::to_owned);
            s.turn_ends.push(TurnEnd { line, scope });
        }
        // A question (request_user_input) is a server→client request about the call `itemId`.
        Some("item/tool/requestUserInput") => {
            let Some(id) = str_of(params, "itemId") else {
                return;
            };
            let call = s.call(id, line);
            call.item_type = Some("item/tool/requestUserInput".to_owned());
            if call.scope.is_none() {
                call.scope = str_of(params, "threadId").map(str::to_owned);
            }
        }
        // `update_plan` makes no item: the plan of a turn is identified by its turn id, as
        // `plan-<turnId>` (one plan per turn, updated in place).
        Some("turn/plan/updated") => {
            let Some(turn) = str_of(params, "turnId") else {
                return;
            };
            let call = s.call(&format!("plan-{turn}"), line);
            call.item_type = Some("turn/plan/updated".to_owned());
            if call.scope.is_none() {
                call.scope = str_of(params, "threadId").map(str::to_owned);
            }
        }
        _ => {}
    }
}

/// A Codex thread item of either casing (app-server camelCase, exec snake_case, rollout typed
/// items): record it and its failure markers.
fn thread_item(
    s: &mut RawScan,
    line: u32,
    id: &str,
    ty: &str,
    item: &Node<'_>,
    scope: Option<String>,
) {
    let failed = item_failed(item);
    let call = s.call(id, line);
    call.item_type = Some(ty.to_owned());
    if call.scope.is_none() {
        call.scope = scope;
    }
    match ty {
        "commandExecution" | "command_execution" | "CommandExecution" => {
            set_arg(&mut call.args, "command", item.get("command"));
            set_arg(&mut call.args, "cwd", item.get("cwd"));
        }
        "fileChange" | "file_change" | "FileChange" => {
            let paths = item
                .get("changes")
                .and_then(Node::as_array)
                .unwrap_or_default()
                .iter()
                .filter_map(|c| c.get("path").map(Node::to_value));
            set_paths(&mut call.args, paths.collect());
        }
        "mcpToolCall" | "mcp_tool_call" | "McpToolCall" => {
            if let (Some(server), Some(tool)) = (str_of(item, "server"), str_of(item, "tool")) {
                call.mcp = Some((server.to_owned(), tool.to_owned()));
                call.name = Some(tool.to_owned());
            }
            if let Some(a) = item.get("arguments") {
                merge_all(&mut call.tool_args, a);
            }
        }
        "dynamicToolCall" => {
            if let Some(tool) = str_of(item, "tool") {
                call.name = Some(tool.to_owned());
            }
            if let Some(a) = item.get("arguments") {
                merge_all(&mut call.tool_args, a);
            }
        }
        "webSearch" | "web_search" | "WebSearch" => {
            set_arg(&mut call.args, "query", item.get("query"));
            if let Some(action) = item.get("action").filter(|a| a.is_object()) {
                let ty = str_of(action, "type").unwrap_or("other");
                if ty != "other" {
                    call.web_action = true;
                }
                set_arg(&mut call.args, "url", action.get("url"));
                set_arg(&mut call.args, "pattern", action.get("pattern"));
            }
        }
        "collabAgentToolCall" | "collab_tool_call" | "CollabAgentToolCall" => {
            if let Some(tool) = str_of(item, "tool") {
                call.name = Some(tool.to_owned());
            }
            set_arg(&mut call.args, "prompt", item.get("prompt"));
        }
        "imageView" | "ImageView" => set_arg(&mut call.args, "path", item.get("path")),
        _ => {}
    }
    if failed {
        call.failed_line.get_or_insert(line);
    }
}

fn item_failed(item: &Node<'_>) -> bool {
    let status_failed = matches!(
        str_of(item, "status"),
        Some("failed" | "declined" | "Failed" | "Declined")
    );
    let exit = item
        .get("exitCode")
        .or_else(|| item.get("exit_code"))
        .and_then(Node::as_i64);
    let mcp_error = item.get("error").is_some_and(|e| e.is_object());
    let dynamic_failed = item.get("success").and_then(Node::as_bool) == Some(false);
    status_failed || exit.is_some_and(|c| c != 0) || mcp_error || dynamic_failed
}

// ---------------------------------------------------------------------------------------------
// Codex exec --json (snake_case; web_search items carry `"id"` twice)

const EXEC_TOOL_ITEMS: &[&str] = &[
    "command_execution",
    "file_change",
    "mcp_tool_call",
    "web_search",
    "collab_tool_call",
    "todo_list",
];

/// `codex exec` item ids: raw item id → (call id in use, finished, uses so far). Item ids restart
/// at `item_0` on every resumed run, so one stream can reuse an id for different calls.
type ExecIds = HashMap<String, (String, bool, u32)>;

fn exec_line(s: &mut RawScan, ids: &mut ExecIds, line: u32, v: &Node<'_>, bytes: &[u8]) {
    match str_of(v, "type") {
        Some("item.started" | "item.updated" | "item.completed") => {
            let Some(item) = v.get("item") else { return };
            let Some(ty) = str_of(item, "type") else {
                return;
            };
            if !EXEC_TOOL_ITEMS.contains(&ty) {
                return;
            }
            // serde_json keeps the LAST duplicate key; the item's own id is the FIRST one.
            let raw_id = first_item_id(bytes).or_else(|| str_of(item, "id").map(str::to_owned));
            if let Some(raw_id) = raw_id {
                let started = str_of(v, "type") == Some("item.started");
                let id = exec_call_id(ids, &raw_id, started);
                thread_item(s, line, &id, ty, item, None);
                if str_of(v, "type") == Some("item.completed")
                    && let Some(entry) = ids.get_mut(&raw_id)
                {
                    entry.1 = true;
                }
            }
        }
        Some("turn.completed" | "turn.failed") => s.turn_ends.push(TurnEnd { line, scope: None }),
        _ => {}
    }
}

/// The call id for a raw exec item id. A fresh `item.started` of an id whose call already
/// completed is the next run reusing it: its n-th use is the call `<id>#<n>` (the naming the
/// normalized output uses for reused ids).
fn exec_call_id(ids: &mut ExecIds, raw_id: &str, started: bool) -> String {
    match ids.get_mut(raw_id) {
        Some((current, finished, uses)) => {
            if started && *finished {
                *uses += 1;
                *current = format!("{raw_id}#{uses}");
                *finished = false;
            }
            current.clone()
        }
        None => {
            ids.insert(raw_id.to_owned(), (raw_id.to_owned(), false, 1));
            raw_id.to_owned()
        }
    }
}

/// The first `"id"` string after `"item":` in a raw exec line.
fn first_item_id(bytes: &[u8]) -> Option<String> {
    let start = memmem::find(bytes, b"\"item\"")?;
    let rest = &bytes[start..];
    let at = memmem::find(rest, b"\"id\"")?;
    let rest = &rest[at + 4..];
    let colon = rest.iter().position(|b| !b.is_ascii_whitespace())?;
    if rest[colon] != b':' {
        return None;
    }
    let rest = &rest[colon + 1..];
    let q = rest.iter().position(|b| !b.is_ascii_whitespace())?;
    if rest[q] != b'"' {
        return None;
    }
    // Find the closing quote, skipping escaped characters, then let serde decode the string.
    let body = &rest[q..];
    let mut i = 1;
    while i < body.len() {
        match body[i] {
            b'\\' => i += 2,
            b'"' => return serde_json::from_slice::<String>(&body[..=i]).ok(),
            _ => i += 1,
        }
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Codex EventMsg (rollout payloads, legacy `msg`) and rollout response items

const ROLLOUT_TYPED_TOOL_ITEMS: &[&str] = &[
    "CommandExecution",
    "FileChange",
    "McpToolCall",
    "WebSearch",
    "ImageView",
    "CollabAgentToolCall",
];

fn event_msg(s: &mut RawScan, line: u32, p: &Node<'_>) {
    let Some(ty) = str_of(p, "type") else { return };
    match ty {
        "function_call" | "custom_tool_call" | "local_shell_call" => {
            let Some(id) = str_of(p, "call_id").or_else(|| str_of(p, "id")) else {
                return;
            };
            let call = s.call(id, line);
            call.item_type.get_or_insert_with(|| ty.to_owned());
            if let Some(name) = str_of(p, "name") {
                call.name = Some(name.to_owned());
            }
            let namespaced = p.get("namespace").is_some_and(|n| !n.is_empty());
            if let Some(args) = str_of(p, "arguments").and_then(parse_whole) {
                merge_args(&mut call.args, &args);
                if namespaced {
                    merge_all(&mut call.tool_args, &args);
                }
            }
            if let Some(action) = p.get("action") {
                set_arg(&mut call.args, "command", action.get("command"));
                set_arg(&mut call.args, "cwd", action.get("working_directory"));
            }
            if matches!(str_of(p, "status"), Some("failed" | "declined")) {
                call.failed_line.get_or_insert(line);
            }
        }
        "web_search_call" => {
            let Some(id) = str_of(p, "id").or_else(|| str_of(p, "call_id")) else {
                return;
            };
            let call = s.call(id, line);
            call.item_type.get_or_insert_with(|| ty.to_owned());
            if let Some(action) = p.get("action").filter(|a| a.is_object()) {
                if str_of(action, "type").is_some_and(|t| t != "other") {
                    call.web_action = true;
                }
                set_arg(&mut call.args, "query", action.get("query"));
                set_arg(&mut call.args, "url", action.get("url"));
            }
            if matches!(str_of(p, "status"), Some("failed")) {
                call.failed_line.get_or_insert(line);
            }
        }
        "function_call_output" | "custom_tool_call_output" => {
            if let (Some(id), Some(out)) = (str_of(p, "call_id"), p.get("output"))
                && output_exit_code(out).is_some_and(|c| c != 0)
            {
                s.fail_known(id, line);
            }
        }
        "item_completed" => {
            let Some(item) = p.get("item") else { return };
            let Some(ity) = str_of(item, "type") else {
                return;
            };
            if ROLLOUT_TYPED_TOOL_ITEMS.contains(&ity)
                && let Some(id) = str_of(item, "id")
            {
                thread_item(s, line, id, ity, item, None);
            }
        }
        "task_complete" | "turn_aborted" => s.turn_ends.push(TurnEnd { line, scope: None }),
        t if t.ends_with("_begin") || t.ends_with("_end") => {
            let Some(id) = str_of(p, "call_id") else {
                return;
            };
            let failed = event_failed(t, p);
            let call = s.call(id, line);
            call.item_type.get_or_insert_with(|| t.to_owned());
            set_arg(&mut call.args, "command", p.get("command"));
            set_arg(&mut call.args, "cwd", p.get("cwd"));
            set_arg(&mut call.args, "query", p.get("query"));
            if let Some(changes) = p.get("changes").and_then(Node::as_object) {
                let paths = changes.iter().map(|(k, _)| Value::from(k.as_ref()));
                set_paths(&mut call.args, paths.collect());
            }
            if let Some(inv) = p.get("invocation") {
                if let (Some(server), Some(tool)) = (str_of(inv, "server"), str_of(inv, "tool")) {
                    call.mcp = Some((server.to_owned(), tool.to_owned()));
                    call.name = Some(tool.to_owned());
                }
                if let Some(a) = inv.get("arguments") {
                    merge_all(&mut call.tool_args, a);
                }
            }
            if let Some(action) = p.get("action").filter(|a| a.is_object())
                && str_of(action, "type").is_some_and(|t| t != "other")
            {
                call.web_action = true;
            }
            if failed {
                call.failed_line.get_or_insert(line);
            }
        }
        _ => {}
    }
}

fn event_failed(ty: &str, p: &Node<'_>) -> bool {
    if matches!(str_of(p, "status"), Some("failed" | "declined")) {
        return true;
    }
    match ty {
        "exec_command_end" => p
            .get("exit_code")
            .and_then(Node::as_i64)
            .is_some_and(|c| c != 0),
        "patch_apply_end" => p.get("success").and_then(Node::as_bool) == Some(false),
        "mcp_tool_call_end" => match p.get("result") {
            Some(r) if r.get("Err").is_some() => true,
            Some(r) => {
                r.get("Ok")
                    .and_then(|ok| ok.get("isError"))
                    .and_then(Node::as_bool)
                    == Some(true)
            }
            None => false,
        },
        _ => false,
    }
}

/// The exit code a `function_call_output` reports: the 2025 JSON form
/// `{"output":…,"metadata":{"exit_code":N}}` or unified exec's `Process exited with code N`.
fn output_exit_code(out: &Node<'_>) -> Option<i64> {
    let text = out.as_str()?;
    if text.trim_start().starts_with('{') {
        return parse(text.as_bytes())?
            .get("metadata")
            .and_then(|m| m.get("exit_code"))
            .and_then(Node::as_i64);
    }
    let at = text.find("Process exited with code ")?;
    let digits: String = text[at + 25..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn app_server_questions_plans_and_subagent_activity() {
        let s = app_server(&Input::from_bytes(
            concat!(
                r#"{"method":"item/tool/requestUserInput","id":0,"params":{"threadId":"t","turnId":"u","itemId":"call_q","questions":[]}}"#,
                "\n",
                r#"{"method":"turn/plan/updated","params":{"threadId":"t","turnId":"u","explanation":null,"plan":[]}}"#,
                "\n",
                r#"{"method":"item/completed","params":{"item":{"type":"subAgentActivity","id":"call_s","kind":"started","agentThreadId":"c"},"threadId":"t","turnId":"u"}}"#,
                "\n",
                r#"{"method":"item/completed","params":{"item":{"type":"subAgentActivity","id":"subagent-completed-u2","kind":"completed","agentThreadId":"c"},"threadId":"t","turnId":"u"}}"#,
                "\n",
            )
            .as_bytes(),
        ));
        let ids: Vec<&str> = s.calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["call_q", "plan-u", "call_s"]);
        assert_eq!(s.get("call_q").unwrap().scope.as_deref(), Some("t"));
    }

    #[test]
    fn exec_web_search_uses_first_id_and_exit_codes_fail() {
        let s = exec(&Input::from_bytes(
            concat!(
                r#"{"type":"item.started","item":{"id":"item_2","type":"web_search","id":"ws_1","query":"","action":{"type":"other"}}}"#,
                "\n",
                r#"{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"x","aggregated_output":"","exit_code":3,"status":"completed"}}"#,
                "\n",
                r#"{"type":"turn.completed","usage":{}}"#,
                "\n"
            )
            .as_bytes(),
        ));
        let ids: Vec<&str> = s.calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["item_2", "item_0"]);
        assert_eq!(s.get("item_0").unwrap().failed_line, Some(2));
        assert_eq!(s.turn_ends.len(), 1);
    }

    #[test]
    fn rollout_pairs_call_ids_and_reads_failures() {
        let s = rollout(&Input::from_bytes(
            concat!(
                r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"ls\"]}","call_id":"c1"}}"#,
                "\n",
                r#"{"timestamp":"t","type":"event_msg","payload":{"type":"exec_command_end","call_id":"c1","exit_code":2}}"#,
                "\n",
                r#"{"timestamp":"t","type":"event_msg","payload":{"type":"mcp_tool_call_end","call_id":"c2","invocation":{"server":"s","tool":"t"},"result":{"Err":"boom"}}}"#,
                "\n",
                r#"{"timestamp":"t","type":"event_msg","payload":{"type":"task_complete"}}"#,
                "\n"
            )
            .as_bytes(),
        ));
        assert_eq!(s.calls.len(), 2);
        assert_eq!(s.get("c1").unwrap().failed_line, Some(2));
        assert_eq!(s.get("c2").unwrap().failed_line, Some(3));
        assert_eq!(s.get("c2").unwrap().mcp, Some(("s".into(), "t".into())));
        assert_eq!(
            s.turn_ends,
            vec![TurnEnd {
                line: 4,
                scope: None
            }]
        );
    }

    #[test]
    fn exec_reused_item_ids_are_new_calls() {
        let s = exec(&Input::from_bytes(
            concat!(
                r#"{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"a","status":"in_progress"}}"#,
                "\n",
                r#"{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"a","exit_code":0,"status":"completed"}}"#,
                "\n",
                r#"{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"b","status":"in_progress"}}"#,
                "\n",
                r#"{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"b","exit_code":3,"status":"failed"}}"#,
                "\n"
            )
            .as_bytes(),
        ));
        let ids: Vec<&str> = s.calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["item_0", "item_0#2"]);
        assert_eq!(s.get("item_0").unwrap().failed_line, None);
        assert_eq!(s.get("item_0#2").unwrap().failed_line, Some(4));
    }

    #[test]
    fn first_item_id_handles_spacing_and_escapes() {
        assert_eq!(
            first_item_id(br#"{"item": {"id" : "a\"b","id":"z"}}"#).as_deref(),
            Some("a\"b")
        );
        assert_eq!(first_item_id(br#"{"x":1}"#), None);
    }
}
