//! An independent, light scan of a raw stream: which tool calls it holds (id, first raw line,
//! explicit name, meaningful args), which of them it marks failed, and where it says a turn ended.
//!
//! This deliberately shares no code with the normalizers in `crate::providers`: the rules that
//! compare the normalized parts against this scan (lost calls, failures shown as complete, ...)
//! are only worth something if a normalizer bug cannot hide in code both sides use. It is also
//! deliberately shallow: it only reads ids, names, failure markers and a few argument keys.
//!
//! Speed: a line is only parsed (into a `serde_json::Value`) when it contains one of the dialect's
//! marker substrings, found with `memchr::memmem`.

use std::collections::HashMap;

use memchr::memmem;
use serde_json::{Map, Value};

use crate::stream::{Dialect, Input};

/// Argument keys that carry what a call is about (contract rule 5).
pub(crate) const MEANINGFUL_KEYS: &[&str] = &[
    "command",
    "cmd",
    "cwd",
    "workdir",
    "path",
    "file_path",
    "filePath",
    "notebook_path",
    "query",
    "url",
    "prompt",
    "pattern",
];

/// One tool call as the raw stream shows it.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct RawCall {
    pub id: String,
    /// 1-based raw line where the id first appears.
    pub line: u32,
    /// First raw line that marks the call failed (error flag, failed/declined status, non-zero
    /// exit code).
    pub failed_line: Option<u32>,
    /// The explicit tool name the provider gave, as written (`mcp__jira__search`, `bash`).
    pub name: Option<String>,
    /// The raw item or block type (`tool_use`, `commandExecution`, `function_call`, `tool`).
    pub item_type: Option<String>,
    /// MCP `(server, tool)` when the raw stream states it.
    pub mcp: Option<(String, String)>,
    /// Meaningful arguments (see [`MEANINGFUL_KEYS`]), the latest non-empty value of each.
    pub args: Map<String, Value>,
    /// MCP / dynamic tool arguments, every key meaningful.
    pub tool_args: Map<String, Value>,
    /// Thread or session the call belongs to, when the dialect says.
    pub scope: Option<String>,
    /// Codex web search: the raw stream carried a typed `action`.
    pub web_action: bool,
    /// OpenCode `task`: the child session id it spawned.
    pub child_session: Option<String>,
}

/// A raw line saying the provider's turn is over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TurnEnd {
    pub line: u32,
    /// The thread / session whose turn ended; `None` ends every call's turn.
    pub scope: Option<String>,
}

/// The rules' independent reading of a raw stream: every tool call it holds (in order of first
/// appearance), with what the raw lines say of it, and where turns end.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RawScan {
    pub(crate) calls: Vec<RawCall>,
    pub(crate) turn_ends: Vec<TurnEnd>,
    index: HashMap<String, usize>,
    /// `codex exec`: raw item id → (call id in use, finished, uses so far). Item ids restart at
    /// `item_0` on every resumed run, so one stream can reuse an id for different calls.
    exec_ids: HashMap<String, (String, bool, u32)>,
}

impl RawScan {
    pub(crate) fn get(&self, id: &str) -> Option<&RawCall> {
        self.index.get(id).map(|&i| &self.calls[i])
    }

    /// The call for `id`, created at `line` the first time it is seen.
    fn call(&mut self, id: &str, line: u32) -> &mut RawCall {
        let i = match self.index.get(id) {
            Some(&i) => i,
            None => {
                self.calls.push(RawCall {
                    id: id.to_owned(),
                    line,
                    ..RawCall::default()
                });
                self.index.insert(id.to_owned(), self.calls.len() - 1);
                self.calls.len() - 1
            }
        };
        &mut self.calls[i]
    }

    /// Mark failed only if the call is already known (a result for an unknown call is not a call).
    fn fail_known(&mut self, id: &str, line: u32) {
        if let Some(&i) = self.index.get(id) {
            self.calls[i].failed_line.get_or_insert(line);
        }
    }
}

/// Scan a raw stream of the given dialect.
pub(crate) fn scan(input: &Input<'_>, dialect: Dialect) -> RawScan {
    let mut s = RawScan::default();
    match dialect {
        Dialect::ClaudeStreamJson | Dialect::ClaudeTranscript => for_marked_lines(
            input,
            &["\"tool_use\"", "\"tool_result\"", "\"result\""],
            |line, v| claude_line(&mut s, line, &v, true),
        ),
        Dialect::CodexAppServer => for_marked_lines(
            input,
            &[
                "\"item/started\"",
                "\"item/completed\"",
                "\"turn/completed\"",
                "\"item/tool/requestUserInput\"",
                "\"turn/plan/updated\"",
            ],
            |line, v| codex_app_server_line(&mut s, line, &v),
        ),
        Dialect::CodexExec => {
            let markers = [
                "\"item.started\"",
                "\"item.updated\"",
                "\"item.completed\"",
                "\"turn.completed\"",
                "\"turn.failed\"",
            ];
            for raw in input.lines.iter() {
                if !has_marker(raw.bytes, &markers) {
                    continue;
                }
                if let Ok(v) = serde_json::from_slice::<Value>(raw.bytes) {
                    codex_exec_line(&mut s, raw.number, &v, raw.bytes);
                }
            }
        }
        Dialect::CodexRollout | Dialect::CodexLegacy => for_marked_lines(
            input,
            &[
                "_call\"",
                "_call_output\"",
                "_begin\"",
                "_end\"",
                "\"item_completed\"",
                "\"task_complete\"",
                "\"turn_aborted\"",
            ],
            |line, v| {
                let payload = if dialect == Dialect::CodexLegacy {
                    v.get("msg")
                } else {
                    v.get("payload")
                };
                if let Some(p) = payload {
                    codex_event_msg(&mut s, line, p);
                }
            },
        ),
        Dialect::OpencodeEvents | Dialect::OpencodeRun => for_marked_lines(
            input,
            &["\"tool\"", "session.idle", "session.status", "step_finish"],
            |line, v| opencode_line(&mut s, line, &v),
        ),
        Dialect::OpencodeExport => opencode_export(&mut s, input),
    }
    s
}

fn has_marker(bytes: &[u8], markers: &[&str]) -> bool {
    markers
        .iter()
        .any(|m| memmem::find(bytes, m.as_bytes()).is_some())
}

/// Parse (as JSON) only the lines holding a marker; OpenCode SSE `data:` prefixes are dropped.
fn for_marked_lines(input: &Input<'_>, markers: &[&str], mut f: impl FnMut(u32, Value)) {
    let finders: Vec<memmem::Finder<'_>> = markers
        .iter()
        .map(|m| memmem::Finder::new(m.as_bytes()))
        .collect();
    for raw in input.lines.iter() {
        if !finders.iter().any(|fd| fd.find(raw.bytes).is_some()) {
            continue;
        }
        let mut bytes = raw.bytes;
        if let Some(rest) = bytes.strip_prefix(b"data:") {
            bytes = rest;
        }
        if let Ok(v) = serde_json::from_slice::<Value>(bytes) {
            f(raw.number, v);
        }
    }
}

fn str_of<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str)
}

/// True for values that say nothing: null, "", {}, [].
fn is_empty_value(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Object(m) => m.is_empty(),
        Value::Array(a) => a.is_empty(),
        _ => false,
    }
}

/// Keep the meaningful keys of an argument object, the latest non-empty value winning.
fn merge_args(dst: &mut Map<String, Value>, src: &Value) {
    if let Some(obj) = src.as_object() {
        for key in MEANINGFUL_KEYS {
            if let Some(v) = obj.get(*key) {
                if !is_empty_value(v) {
                    dst.insert((*key).to_owned(), v.clone());
                }
            }
        }
    }
}

fn merge_all(dst: &mut Map<String, Value>, src: &Value) {
    if let Some(obj) = src.as_object() {
        for (k, v) in obj {
            if !is_empty_value(v) {
                dst.insert(k.clone(), v.clone());
            }
        }
    }
}

fn set_arg(dst: &mut Map<String, Value>, key: &str, v: Option<&Value>) {
    if let Some(v) = v {
        if !is_empty_value(v) {
            dst.insert(key.to_owned(), v.clone());
        }
    }
}

/// `mcp__<server>__<tool>`: split on the first `__` after the prefix (tools may hold `__`? no,
/// but server names never do).
pub(crate) fn split_claude_mcp(name: &str) -> Option<(String, String)> {
    let rest = name.strip_prefix("mcp__")?;
    let (server, tool) = rest.split_once("__")?;
    (!server.is_empty() && !tool.is_empty()).then(|| (server.to_owned(), tool.to_owned()))
}

// ---------------------------------------------------------------------------------------------
// Claude

fn claude_line(s: &mut RawScan, line: u32, v: &Value, top_level: bool) {
    match str_of(v, "type") {
        Some("result") if top_level => s.turn_ends.push(TurnEnd { line, scope: None }),
        Some("assistant") | Some("user") => {
            if let Some(msg) = v.get("message") {
                claude_message(s, line, msg);
            }
        }
        Some("stream_event") => {
            let ev = v.get("event");
            if ev.and_then(|e| str_of(e, "type")) == Some("content_block_start") {
                if let Some(block) = ev.and_then(|e| e.get("content_block")) {
                    claude_block(s, line, block);
                }
            }
        }
        Some("progress") => {
            // Transcript `agent_progress` embeds the subagent's messages; their tool_use ids are
            // real calls (and repeat the ones the subagent file has).
            if let Some(inner) = v.get("data").and_then(|d| d.get("message")) {
                if inner.get("type").is_some() {
                    claude_line(s, line, inner, false);
                } else {
                    claude_message(s, line, inner);
                }
            }
        }
        _ => {}
    }
}

fn claude_message(s: &mut RawScan, line: u32, msg: &Value) {
    if let Some(blocks) = msg.get("content").and_then(Value::as_array) {
        for block in blocks {
            claude_block(s, line, block);
        }
    }
}

fn claude_block(s: &mut RawScan, line: u32, block: &Value) {
    match str_of(block, "type") {
        Some("tool_use") => {
            let Some(id) = str_of(block, "id") else {
                return;
            };
            let call = s.call(id, line);
            call.item_type.get_or_insert_with(|| "tool_use".to_owned());
            if let Some(name) = str_of(block, "name") {
                call.name = Some(name.to_owned());
                if let Some(mcp) = split_claude_mcp(name) {
                    call.mcp = Some(mcp);
                    if let Some(input) = block.get("input") {
                        merge_all(&mut call.tool_args, input);
                    }
                }
            }
            if let Some(input) = block.get("input") {
                merge_args(&mut call.args, input);
            }
        }
        Some("tool_result") if block.get("is_error").and_then(Value::as_bool) == Some(true) => {
            if let Some(id) = str_of(block, "tool_use_id") {
                s.fail_known(id, line);
            }
        }
        _ => {}
    }
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

fn codex_app_server_line(s: &mut RawScan, line: u32, v: &Value) {
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
            codex_item(s, line, id, ty, item, scope);
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
fn codex_item(s: &mut RawScan, line: u32, id: &str, ty: &str, item: &Value, scope: Option<String>) {
    let failed = codex_item_failed(item);
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
            let paths: Vec<Value> = item
                .get("changes")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(|c| c.get("path").cloned()).collect())
                .unwrap_or_default();
            set_arg(&mut call.args, "path", Some(&Value::Array(paths)));
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

fn codex_item_failed(item: &Value) -> bool {
    let status_failed = matches!(
        str_of(item, "status"),
        Some("failed" | "declined" | "Failed" | "Declined")
    );
    let exit = item
        .get("exitCode")
        .or_else(|| item.get("exit_code"))
        .and_then(Value::as_i64);
    let mcp_error = item.get("error").is_some_and(|e| e.is_object());
    let dynamic_failed = item.get("success").and_then(Value::as_bool) == Some(false);
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

fn codex_exec_line(s: &mut RawScan, line: u32, v: &Value, bytes: &[u8]) {
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
                let id = exec_call_id(s, &raw_id, started);
                codex_item(s, line, &id, ty, item, None);
                if str_of(v, "type") == Some("item.completed") {
                    if let Some(entry) = s.exec_ids.get_mut(&raw_id) {
                        entry.1 = true;
                    }
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
fn exec_call_id(s: &mut RawScan, raw_id: &str, started: bool) -> String {
    match s.exec_ids.get_mut(raw_id) {
        Some((current, finished, uses)) => {
            if started && *finished {
                *uses += 1;
                *current = format!("{raw_id}#{uses}");
                *finished = false;
            }
            current.clone()
        }
        None => {
            s.exec_ids
                .insert(raw_id.to_owned(), (raw_id.to_owned(), false, 1));
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

fn codex_event_msg(s: &mut RawScan, line: u32, p: &Value) {
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
            let namespaced = p.get("namespace").is_some_and(|n| !is_empty_value(n));
            if let Some(args) =
                str_of(p, "arguments").and_then(|a| serde_json::from_str::<Value>(a).ok())
            {
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
            if let (Some(id), Some(out)) = (str_of(p, "call_id"), p.get("output")) {
                if output_exit_code(out).is_some_and(|c| c != 0) {
                    s.fail_known(id, line);
                }
            }
        }
        "item_completed" => {
            let Some(item) = p.get("item") else { return };
            let Some(ity) = str_of(item, "type") else {
                return;
            };
            if ROLLOUT_TYPED_TOOL_ITEMS.contains(&ity) {
                if let Some(id) = str_of(item, "id") {
                    codex_item(s, line, id, ity, item, None);
                }
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
            if let Some(changes) = p.get("changes").and_then(Value::as_object) {
                let paths: Vec<Value> = changes.keys().map(|k| Value::String(k.clone())).collect();
                set_arg(&mut call.args, "path", Some(&Value::Array(paths)));
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
            if let Some(action) = p.get("action").filter(|a| a.is_object()) {
                if str_of(action, "type").is_some_and(|t| t != "other") {
                    call.web_action = true;
                }
            }
            if failed {
                call.failed_line.get_or_insert(line);
            }
        }
        _ => {}
    }
}

fn event_failed(ty: &str, p: &Value) -> bool {
    if matches!(str_of(p, "status"), Some("failed" | "declined")) {
        return true;
    }
    match ty {
        "exec_command_end" => p
            .get("exit_code")
            .and_then(Value::as_i64)
            .is_some_and(|c| c != 0),
        "patch_apply_end" => p.get("success").and_then(Value::as_bool) == Some(false),
        "mcp_tool_call_end" => match p.get("result") {
            Some(r) if r.get("Err").is_some() => true,
            Some(r) => {
                r.get("Ok")
                    .and_then(|ok| ok.get("isError"))
                    .and_then(Value::as_bool)
                    == Some(true)
            }
            None => false,
        },
        _ => false,
    }
}

/// The exit code a `function_call_output` reports: the 2025 JSON form
/// `{"output":…,"metadata":{"exit_code":N}}` or unified exec's `Process exited with code N`.
fn output_exit_code(out: &Value) -> Option<i64> {
    let text = out.as_str()?;
    if text.trim_start().starts_with('{') {
        let v: Value = serde_json::from_str(text).ok()?;
        return v
            .get("metadata")
            .and_then(|m| m.get("exit_code"))
            .and_then(Value::as_i64);
    }
    let at = text.find("Process exited with code ")?;
    let digits: String = text[at + 25..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    digits.parse().ok()
}

// ---------------------------------------------------------------------------------------------
// OpenCode

fn opencode_line(s: &mut RawScan, line: u32, v: &Value) {
    // `/global/event` wraps the event in `payload`.
    let ev = v
        .get("payload")
        .filter(|p| p.get("type").is_some())
        .unwrap_or(v);
    let props = ev.get("properties");
    match str_of(ev, "type") {
        Some("session.idle") => {
            let scope = props
                .and_then(|p| str_of(p, "sessionID"))
                .map(str::to_owned);
            s.turn_ends.push(TurnEnd { line, scope });
        }
        Some("session.status") => {
            let idle = props
                .and_then(|p| p.get("status"))
                .and_then(|st| str_of(st, "type"))
                == Some("idle");
            if idle {
                let scope = props
                    .and_then(|p| str_of(p, "sessionID"))
                    .map(str::to_owned);
                s.turn_ends.push(TurnEnd { line, scope });
            }
        }
        Some("step_finish") => {
            let part = ev.get("part");
            if part.and_then(|p| str_of(p, "reason")) == Some("stop") {
                let scope = part
                    .and_then(|p| str_of(p, "sessionID"))
                    .or_else(|| str_of(ev, "sessionID"));
                s.turn_ends.push(TurnEnd {
                    line,
                    scope: scope.map(str::to_owned),
                });
            }
        }
        _ => {
            let part = props.and_then(|p| p.get("part")).or_else(|| ev.get("part"));
            if let Some(part) = part {
                opencode_part(s, line, part);
            }
        }
    }
}

fn opencode_part(s: &mut RawScan, line: u32, part: &Value) {
    if str_of(part, "type") != Some("tool") {
        return;
    }
    let id = str_of(part, "callID")
        .filter(|c| !c.is_empty())
        .or_else(|| str_of(part, "id"));
    let Some(id) = id else { return };
    let state = part.get("state");
    let status = state.and_then(|st| str_of(st, "status"));
    let tool = str_of(part, "tool");
    let exit = state
        .and_then(|st| st.get("metadata"))
        .and_then(|m| m.get("exit"))
        .and_then(Value::as_i64);
    let failed = status == Some("error") || (tool == Some("bash") && exit.is_some_and(|c| c != 0));
    let call = s.call(id, line);
    call.item_type.get_or_insert_with(|| "tool".to_owned());
    if let Some(t) = tool {
        call.name = Some(t.to_owned());
    }
    if call.scope.is_none() {
        call.scope = str_of(part, "sessionID").map(str::to_owned);
    }
    if let Some(input) = state.and_then(|st| st.get("input")) {
        merge_args(&mut call.args, input);
    }
    if tool == Some("task") {
        if let Some(child) = state
            .and_then(|st| st.get("metadata"))
            .and_then(|m| str_of(m, "sessionId"))
        {
            call.child_session = Some(child.to_owned());
        }
    }
    if failed {
        call.failed_line.get_or_insert(line);
    }
}

/// `opencode export` is one pretty-printed document: parse it whole, and point each call at the
/// first line holding its id.
fn opencode_export(s: &mut RawScan, input: &Input<'_>) {
    let Ok(doc) = serde_json::from_slice::<Value>(input.bytes) else {
        return;
    };
    let Some(messages) = doc.get("messages").and_then(Value::as_array) else {
        return;
    };
    for msg in messages {
        for part in msg
            .get("parts")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if str_of(part, "type") != Some("tool") {
                continue;
            }
            let id = str_of(part, "callID")
                .filter(|c| !c.is_empty())
                .or_else(|| str_of(part, "id"));
            let line = id.map(|id| line_holding(input, id)).unwrap_or(1);
            opencode_part(s, line, part);
        }
    }
}

fn line_holding(input: &Input<'_>, needle: &str) -> u32 {
    let quoted = format!("\"{needle}\"");
    let finder = memmem::Finder::new(quoted.as_bytes());
    input
        .lines
        .iter()
        .find(|l| finder.find(l.bytes).is_some())
        .map_or(1, |l| l.number)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan_str(text: &str, dialect: Dialect) -> RawScan {
        scan(&Input::from_bytes(text.as_bytes()), dialect)
    }

    #[test]
    fn app_server_questions_plans_and_subagent_activity() {
        let s = scan_str(
            concat!(
                r#"{"method":"item/tool/requestUserInput","id":0,"params":{"threadId":"t","turnId":"u","itemId":"call_q","questions":[]}}"#,
                "\n",
                r#"{"method":"turn/plan/updated","params":{"threadId":"t","turnId":"u","explanation":null,"plan":[]}}"#,
                "\n",
                r#"{"method":"item/completed","params":{"item":{"type":"subAgentActivity","id":"call_s","kind":"started","agentThreadId":"c"},"threadId":"t","turnId":"u"}}"#,
                "\n",
                r#"{"method":"item/completed","params":{"item":{"type":"subAgentActivity","id":"subagent-completed-u2","kind":"completed","agentThreadId":"c"},"threadId":"t","turnId":"u"}}"#,
                "\n",
            ),
            Dialect::CodexAppServer,
        );
        let ids: Vec<&str> = s.calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["call_q", "plan-u", "call_s"]);
        assert_eq!(s.get("call_q").unwrap().scope.as_deref(), Some("t"));
    }

    #[test]
    fn claude_tool_use_result_error_and_turn_end() {
        let s = scan_str(
            concat!(
                r#"{"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t1","name":"Bash","input":{}}}}"#,
                "\n",
                r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}},{"type":"tool_use","id":"t2","name":"mcp__jira__get-issue","input":{"key":"A-1"}}]}}"#,
                "\n",
                r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":"no"}]}}"#,
                "\n",
                r#"{"type":"result","subtype":"success"}"#,
                "\n"
            ),
            Dialect::ClaudeStreamJson,
        );
        assert_eq!(s.calls.len(), 2);
        let t1 = s.get("t1").unwrap();
        assert_eq!((t1.line, t1.failed_line), (1, None));
        assert_eq!(t1.args.get("command"), Some(&Value::from("ls")));
        let t2 = s.get("t2").unwrap();
        assert_eq!(t2.failed_line, Some(3));
        assert_eq!(t2.mcp, Some(("jira".into(), "get-issue".into())));
        assert_eq!(
            s.turn_ends,
            vec![TurnEnd {
                line: 4,
                scope: None
            }]
        );
    }

    #[test]
    fn exec_web_search_uses_first_id_and_exit_codes_fail() {
        let s = scan_str(
            concat!(
                r#"{"type":"item.started","item":{"id":"item_2","type":"web_search","id":"ws_1","query":"","action":{"type":"other"}}}"#,
                "\n",
                r#"{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"x","aggregated_output":"","exit_code":3,"status":"completed"}}"#,
                "\n",
                r#"{"type":"turn.completed","usage":{}}"#,
                "\n"
            ),
            Dialect::CodexExec,
        );
        let ids: Vec<&str> = s.calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["item_2", "item_0"]);
        assert_eq!(s.get("item_0").unwrap().failed_line, Some(2));
        assert_eq!(s.turn_ends.len(), 1);
    }

    #[test]
    fn rollout_pairs_call_ids_and_reads_failures() {
        let s = scan_str(
            concat!(
                r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"ls\"]}","call_id":"c1"}}"#,
                "\n",
                r#"{"timestamp":"t","type":"event_msg","payload":{"type":"exec_command_end","call_id":"c1","exit_code":2}}"#,
                "\n",
                r#"{"timestamp":"t","type":"event_msg","payload":{"type":"mcp_tool_call_end","call_id":"c2","invocation":{"server":"s","tool":"t"},"result":{"Err":"boom"}}}"#,
                "\n",
                r#"{"timestamp":"t","type":"event_msg","payload":{"type":"task_complete"}}"#,
                "\n"
            ),
            Dialect::CodexRollout,
        );
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
    fn opencode_call_id_wins_and_bash_exit_fails() {
        let s = scan_str(
            concat!(
                r#"data: {"type":"message.part.updated","properties":{"part":{"id":"prt_1","sessionID":"ses_a","type":"tool","callID":"call_1","tool":"bash","state":{"status":"completed","input":{"command":"false"},"metadata":{"exit":1}}}}}"#,
                "\n",
                r#"{"type":"session.idle","properties":{"sessionID":"ses_a"}}"#,
                "\n"
            ),
            Dialect::OpencodeEvents,
        );
        let c = s.get("call_1").unwrap();
        assert_eq!(c.failed_line, Some(1));
        assert_eq!(c.scope.as_deref(), Some("ses_a"));
        assert_eq!(
            s.turn_ends,
            vec![TurnEnd {
                line: 2,
                scope: Some("ses_a".into())
            }]
        );
    }

    #[test]
    fn exec_reused_item_ids_are_new_calls() {
        let s = scan_str(
            concat!(
                r#"{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"a","status":"in_progress"}}"#,
                "\n",
                r#"{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"a","exit_code":0,"status":"completed"}}"#,
                "\n",
                r#"{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"b","status":"in_progress"}}"#,
                "\n",
                r#"{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"b","exit_code":3,"status":"failed"}}"#,
                "\n"
            ),
            Dialect::CodexExec,
        );
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
