//! Rollout files (`~/.codex/sessions/**/rollout-*.jsonl`): `{"timestamp","type","payload"}` lines.
//! A tool call is written twice — as model items (`response_item` function_call /
//! custom_tool_call / local_shell_call / web_search_call + the `*_output`) and as events
//! (`event_msg` exec_command_*, patch_apply_*, mcp_tool_call_*, web_search_*, newer
//! `item_completed`) — and both are joined by call id into ONE part. Line timestamps give timing.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::model::{TimeValue, Timing, ToolKind, ToolMetadata, ToolState};
use crate::providers::{
    LineNormalizer, NormalizeOptions, PartStore, PartUpdate, first_line, line_text, parse_json,
    raw_to_value, titles,
};
use crate::stream::RawLine;

use super::event_msg::{self, Pending};
use super::tools::{self, Command};
use super::tracker::Tracker;
use super::wire::Status;

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(rename = "type", borrow, default)]
    ty: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    payload: Option<&'a RawValue>,
}

/// The payload of a `session_meta` or `turn_context` line: only its cwd is read.
#[derive(Deserialize)]
struct CwdPayload<'a> {
    #[serde(borrow, default)]
    cwd: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Response<'a> {
    #[serde(rename = "type", borrow)]
    ty: Cow<'a, str>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    namespace: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    arguments: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    call_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    input: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    output: Option<&'a RawValue>,
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    action: Option<&'a RawValue>,
}

/// Normalizes a rollout file.
pub(crate) struct Normalizer {
    tracker: Tracker,
    pending: Pending,
}

/// The normalizer of one stream; its cwd comes from `session_meta` and `turn_context`.
pub(crate) fn new(_: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(Normalizer {
        tracker: Tracker::default(),
        pending: Pending::default(),
    })
}

impl LineNormalizer for Normalizer {
    fn line(&mut self, line: &RawLine<'_>, store: &mut PartStore) {
        let Normalizer { tracker, pending } = self;
        let Some(text) = line_text(line, store) else {
            return;
        };
        let Some(l) = parse_json::<Line<'_>>(line, &text, store) else {
            return;
        };
        let n = line.number;
        let at = l.timestamp.as_deref();
        match (l.ty.as_deref(), l.payload) {
            (Some("event_msg"), Some(p)) => event_msg::handle(store, tracker, pending, n, at, p),
            (Some("response_item"), Some(p)) => response_item(store, tracker, n, at, p),
            (Some("session_meta" | "turn_context"), Some(p)) => {
                if let Ok(s) = serde_json::from_str::<CwdPayload<'_>>(p.get())
                    && let Some(c) = s.cwd
                {
                    tracker.cwd = Some(c.into_owned());
                }
            }
            // The oldest rollouts wrote response items bare, one per line.
            (Some(t), None) if is_response_type(t) => {
                if let Ok(raw) = serde_json::from_str::<&RawValue>(&text) {
                    response_item(store, tracker, n, at, raw);
                }
            }
            _ => {}
        }
    }

    fn finish(&mut self, store: &mut PartStore) {
        self.tracker.finish(store);
    }
}

fn is_response_type(t: &str) -> bool {
    matches!(
        t,
        "function_call"
            | "function_call_output"
            | "custom_tool_call"
            | "custom_tool_call_output"
            | "local_shell_call"
            | "web_search_call"
    )
}

fn response_item(
    store: &mut PartStore,
    tracker: &mut Tracker,
    n: u32,
    at: Option<&str>,
    raw: &RawValue,
) {
    let r: Response<'_> = match serde_json::from_str(raw.get()) {
        Ok(r) => r,
        Err(e) => {
            store.warn(n, format!("response item not understood: {e}"));
            return;
        }
    };
    let started = at.map(|t| Timing {
        started_at: Some(TimeValue::Text(t.to_owned())),
        ..Timing::default()
    });
    match r.ty.as_ref() {
        "function_call" => {
            let Some(id) = r.call_id.as_deref() else {
                return;
            };
            let name = r.name.as_deref().unwrap_or("");
            let args_text = r.arguments.as_deref().unwrap_or("{}");
            let args: Value = serde_json::from_str(args_text)
                .unwrap_or_else(|_| Value::String(args_text.to_owned()));
            let mut u = tools::function_call(
                id,
                name,
                r.namespace.as_deref(),
                args,
                tracker.cwd.as_deref(),
            );
            u.timing = started;
            settle_new(store, n, u, &r.ty);
        }
        "custom_tool_call" => {
            let Some(id) = r.call_id.as_deref() else {
                return;
            };
            let name = r.name.as_deref().unwrap_or("");
            let text = r.input.as_deref().unwrap_or("");
            let mut u = if name == "apply_patch" {
                let changes = tools::changes_from_patch(text);
                let mut u = tools::patch_update(id, &changes, tracker.cwd.as_deref());
                u.name = Some(name.to_owned());
                u.input = Some(json!({ "input": text }));
                u
            } else {
                let mut u = tools::named(id, name, ToolKind::Unknown);
                let input = json!({ "input": text });
                u.title = Some(titles::generic(name, &input, tracker.cwd.as_deref()));
                u.input = Some(input);
                u
            };
            u.timing = started;
            settle_new(store, n, u, &r.ty);
        }
        "local_shell_call" => {
            let Some(id) = r.call_id.as_deref().or(r.id.as_deref()) else {
                return;
            };
            let action = r.action.map_or(Value::Null, raw_to_value);
            let cmd = Command {
                command: action.get("command").cloned().unwrap_or(Value::Null),
                cwd: action
                    .get("working_directory")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                actions: Vec::new(),
                extra: Map::new(),
            };
            let mut u = cmd.update(id, tracker.cwd.as_deref());
            u.name = Some("local_shell".to_owned());
            u.timing = started;
            settle_new(store, n, u, &r.ty);
        }
        "web_search_call" => {
            let Some(id) = r.id.as_deref().or(r.call_id.as_deref()) else {
                return;
            };
            let action = r.action.map(raw_to_value).filter(|a| !a.is_null());
            let query = action
                .as_ref()
                .and_then(|a| a.get("query"))
                .and_then(Value::as_str)
                .map(str::to_owned);
            let mut u = tools::web_search_update(id, query.as_deref(), action);
            match r.status.as_deref().and_then(Status::parse) {
                Some(Status::Running) | None => u.state = Some(ToolState::Running),
                Some(s) => tools::simple_outcome(&mut u, s, None, "Web search failed"),
            }
            if store.contains(id) {
                // `web_search_end` may have come first with the same facts; keep its name and timing.
                u.name = None;
            } else {
                u.timing = started;
            }
            settle_new(store, n, u, &r.ty);
        }
        "function_call_output" | "custom_tool_call_output" => {
            let Some(id) = r.call_id.as_deref() else {
                return;
            };
            let Some(part) = store.get(id) else {
                store.info(n, format!("output for call `{id}` that was never called"));
                return;
            };
            // The exec/patch/MCP end event already settled it, with richer facts.
            if part.state.is_terminal() {
                return;
            }
            let shell = part.input.get("command").is_some()
                && matches!(part.kind, ToolKind::Bash | ToolKind::FileRead);
            let patch = matches!(part.kind, ToolKind::FileEdit | ToolKind::FileWrite);
            let (text, exit_code, success) = parse_output(r.output);
            let mut u = PartUpdate::new(id);
            if let Some(t) = at {
                u.timing = Some(Timing {
                    completed_at: Some(TimeValue::Text(t.to_owned())),
                    ..Timing::default()
                });
            }
            let status = if success == Some(false) {
                Status::Failed
            } else {
                Status::Completed
            };
            if shell || (exit_code.is_some() && !patch) {
                tools::command_outcome(&mut u, status, exit_code, text);
            } else if patch {
                let status = if exit_code.is_some_and(|c| c != 0) {
                    Status::Failed
                } else {
                    status
                };
                let failure = Some(text.clone());
                tools::patch_outcome(&mut u, status, Some(text), failure);
            } else {
                let output = Some(Value::String(text));
                tools::simple_outcome(&mut u, status, output, "Tool call failed");
                if let Some(e) = u.error.as_mut()
                    && let Some(m) = e
                        .details
                        .as_ref()
                        .and_then(Value::as_str)
                        .and_then(first_line)
                {
                    e.message = m;
                }
            }
            store.upsert(n, u);
        }
        _ => {}
    }
}

/// Upsert a model item; it is the call as issued (`started`) and never moves a part back.
fn settle_new(store: &mut PartStore, n: u32, mut u: PartUpdate, provider_type: &str) {
    if u.state.is_none() {
        u.state = Some(ToolState::Started);
    }
    let meta = u.metadata.get_or_insert_with(ToolMetadata::default);
    meta.provider_type = Some(provider_type.to_owned());
    if let Some(existing) = store.get(&u.id) {
        // Events may have come first (web_search_end): they already titled the finished call.
        if existing.state.is_terminal() {
            u.timing = None;
        }
    }
    store.upsert(n, u);
}

/// `function_call_output.output`: a JSON string `{"output","metadata":{"exit_code"}}` (2025), a
/// unified-exec text with "Process exited with code N", an array of `input_text` items, or an old
/// `{content, success}` object. Returns the text, the exit code and an explicit success flag.
fn parse_output(raw: Option<&RawValue>) -> (String, Option<i64>, Option<bool>) {
    let value = raw.map_or(Value::Null, raw_to_value);
    match value {
        Value::String(s) => parse_output_text(s),
        Value::Array(list) => {
            let text = list
                .iter()
                .filter_map(|i| i.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n");
            parse_output_text(text)
        }
        Value::Object(m) => {
            let success = m.get("success").and_then(Value::as_bool);
            let (text, code, _) = match m.get("content").or_else(|| m.get("output")) {
                Some(Value::String(s)) => parse_output_text(s.clone()),
                Some(other) => (other.to_string(), None, None),
                None => (String::new(), None, None),
            };
            (text, code, success)
        }
        Value::Null => (String::new(), None, None),
        other => (other.to_string(), None, None),
    }
}

fn parse_output_text(s: String) -> (String, Option<i64>, Option<bool>) {
    if s.trim_start().starts_with('{')
        && let Ok(Value::Object(m)) = serde_json::from_str::<Value>(&s)
        && let Some(out) = m.get("output").and_then(Value::as_str)
    {
        let code = m
            .get("metadata")
            .and_then(|md| md.get("exit_code"))
            .and_then(Value::as_i64);
        return (out.to_owned(), code, None);
    }
    // Unified exec: "Chunk ID: …\nWall time: …\nProcess exited with code N\n…\nOutput:\n…".
    let code = s
        .lines()
        .find_map(|l| l.trim().strip_prefix("Process exited with code "))
        .and_then(|c| c.trim().parse::<i64>().ok());
    if code.is_some()
        && let Some((_, body)) = s.split_once("\nOutput:\n")
    {
        return (body.to_owned(), code, None);
    }
    // `shell_command` (0.6x–0.9x): "Exit code: N\nWall time: …\nOutput:\n…".
    let code = code.or_else(|| {
        s.lines()
            .find_map(|l| l.trim().strip_prefix("Exit code: "))
            .and_then(|c| c.trim().parse().ok())
    });
    if code.is_some()
        && s.starts_with("Exit code: ")
        && let Some((_, body)) = s.split_once("\nOutput:\n")
    {
        return (body.to_owned(), code, None);
    }
    let failed = PLAIN_TEXT_FAILURES
        .iter()
        .any(|m| s.trim_start().starts_with(m));
    (s, code, failed.then_some(false))
}

/// How outputs that are only text begin when the call failed without an exit code: the sandbox
/// refused it, the command could not be started, the call is not offered, the patch did not
/// apply.
const PLAIN_TEXT_FAILURES: &[&str] = &[
    "failed in sandbox",
    "execution error:",
    "unsupported call:",
    "apply_patch verification failed",
    "Failed to apply patch",
    "exec command rejected",
];

/// Recognises a rollout line: one of its record types with a `payload`.
pub(crate) fn sniff(p: &crate::providers::Probe<'_>) -> bool {
    p.has("payload")
        && matches!(
            p.ty().as_ref(),
            "session_meta" | "response_item" | "event_msg" | "turn_context" | "compacted"
        )
}

#[cfg(test)]
mod tests {
    use crate::model::{ToolKind, ToolState};
    use crate::stream::Dialect;

    fn run(text: &str) -> crate::model::NormalizedDocument {
        crate::dialects::normalize_text(text, Dialect::CodexRollout)
    }

    #[test]
    fn function_call_and_exec_events_are_one_part() {
        let doc = run(concat!(
            r#"{"timestamp":"2026-01-01T00:00:00.000Z","type":"turn_context","payload":{"cwd":"/w"}}"#,
            "\n",
            r#"{"timestamp":"2026-01-01T00:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"cat a.txt\",\"workdir\":\"/w\"}","call_id":"call_1"}}"#,
            "\n",
            r#"{"timestamp":"2026-01-01T00:00:01.100Z","type":"event_msg","payload":{"type":"exec_command_begin","call_id":"call_1","turn_id":"t","command":["/bin/bash","-lc","cat a.txt"],"cwd":"/w","parsed_cmd":[{"type":"read","cmd":"cat a.txt","name":"a.txt","path":"/w/a.txt"}],"source":"agent"}}"#,
            "\n",
            r#"{"timestamp":"2026-01-01T00:00:01.300Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"call_1","command":["/bin/bash","-lc","cat a.txt"],"cwd":"/w","parsed_cmd":[{"type":"read","cmd":"cat a.txt","name":"a.txt","path":"/w/a.txt"}],"stdout":"hi\n","stderr":"","aggregated_output":"hi\n","exit_code":0,"duration":{"secs":0,"nanos":200000000},"formatted_output":"hi\n"}}"#,
            "\n",
            r#"{"timestamp":"2026-01-01T00:00:01.400Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"Chunk ID: 1\nWall time: 0.2s\nProcess exited with code 0\nOutput:\nhi\n"}}"#,
            "\n",
        ));
        assert_eq!(doc.parts.len(), 1);
        let p = &doc.parts[0];
        assert_eq!(p.name, "exec_command");
        assert_eq!(p.kind, ToolKind::FileRead);
        assert_eq!(p.title, "Reading a.txt");
        assert_eq!(p.state, ToolState::Complete);
        assert_eq!(p.output.as_ref().unwrap(), "hi\n");
        let t = p.timing.as_ref().unwrap();
        assert_eq!(t.elapsed_ms, Some(200));
        assert!(t.started_at.is_some() && t.completed_at.is_some());
    }

    #[test]
    fn output_shapes_decide_failure() {
        let doc = run(concat!(
            r#"{"timestamp":"t1","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"false\"]}","call_id":"a"}}"#,
            "\n",
            r#"{"timestamp":"t2","type":"response_item","payload":{"type":"function_call_output","call_id":"a","output":"{\"output\":\"nope\\n\",\"metadata\":{\"exit_code\":1,\"duration_seconds\":0.1}}"}}"#,
            "\n",
            r#"{"timestamp":"t3","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"make\"}","call_id":"b"}}"#,
            "\n",
            r#"{"timestamp":"t4","type":"response_item","payload":{"type":"function_call_output","call_id":"b","output":"Chunk ID: x\nWall time: 1s\nProcess exited with code 2\nOutput:\nerr\n"}}"#,
            "\n",
            r#"{"timestamp":"t5","type":"response_item","payload":{"type":"function_call","name":"update_plan","arguments":"{\"plan\":[{\"step\":\"a\",\"status\":\"completed\"},{\"step\":\"b\",\"status\":\"pending\"}]}","call_id":"c"}}"#,
            "\n",
            r#"{"timestamp":"t6","type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":[{"type":"input_text","text":"Plan updated"}]}}"#,
            "\n",
            r#"{"timestamp":"t7","type":"response_item","payload":{"type":"function_call_output","call_id":"zzz","output":"orphan"}}"#,
            "\n",
        ));
        let by = |id: &str| doc.parts.iter().find(|p| p.id == id).unwrap();
        assert_eq!(by("a").state, ToolState::Error);
        assert_eq!(by("a").error.as_ref().unwrap().code.as_deref(), Some("1"));
        assert_eq!(by("a").title, "Running false");
        assert_eq!(by("b").error.as_ref().unwrap().code.as_deref(), Some("2"));
        assert_eq!(
            by("b").error.as_ref().unwrap().details.as_ref().unwrap(),
            "err\n"
        );
        assert_eq!(by("c").kind, ToolKind::Todo);
        assert_eq!(by("c").title, "Updating the todo list (2 items, 1 done)");
        assert_eq!(by("c").output.as_ref().unwrap(), "Plan updated");
        assert_eq!(doc.parts.len(), 3);
        assert!(doc.diagnostics.iter().any(|d| d.line == 7));
    }

    #[test]
    fn request_user_input_is_a_question_and_collab_calls_are_subagents() {
        let doc = run(concat!(
            r#"{"timestamp":"t1","type":"response_item","payload":{"type":"function_call","name":"request_user_input","arguments":"{\"questions\":[{\"id\":\"bump\",\"header\":\"Bump\",\"question\":\"Which bump?\",\"options\":[{\"label\":\"Patch\",\"description\":\"x\"}]}]}","call_id":"q"}}"#,
            "\n",
            r#"{"timestamp":"t2","type":"response_item","payload":{"type":"function_call_output","call_id":"q","output":"{\"answers\":{\"bump\":{\"answers\":[\"Patch\"]}}}"}}"#,
            "\n",
            r#"{"timestamp":"t3","type":"response_item","payload":{"type":"function_call","name":"spawn_agent","namespace":"collaboration","arguments":"{\"task_name\":\"check\",\"message\":\"Read VERSION\",\"fork_turns\":\"none\"}","call_id":"s"}}"#,
            "\n",
        ));
        let q = &doc.parts[0];
        assert_eq!(
            (q.name.as_str(), q.kind),
            ("request_user_input", ToolKind::Question)
        );
        assert_eq!(q.title, "Asking: Which bump?");
        assert_eq!(q.input["questions"][0]["id"], "bump");
        assert_eq!(q.state, ToolState::Complete);
        let s = &doc.parts[1];
        assert_eq!(
            (s.name.as_str(), s.kind),
            ("spawn_agent", ToolKind::Subagent)
        );
        assert_eq!(s.title, "Subagent: Read VERSION");
    }

    #[test]
    fn apply_patch_mcp_and_web_search_pairs() {
        let doc = run(concat!(
            r#"{"timestamp":"t1","type":"response_item","payload":{"type":"custom_tool_call","status":"completed","call_id":"p","name":"apply_patch","input":"*** Begin Patch\n*** Add File: /w/n.txt\n+x\n*** End Patch\n"}}"#,
            "\n",
            r#"{"timestamp":"t2","type":"event_msg","payload":{"type":"patch_apply_begin","call_id":"p","turn_id":"t","auto_approved":true,"changes":{"/w/n.txt":{"type":"add","content":"x\n"}}}}"#,
            "\n",
            r#"{"timestamp":"t3","type":"event_msg","payload":{"type":"patch_apply_end","call_id":"p","turn_id":"t","stdout":"","stderr":"patch rejected","success":false}}"#,
            "\n",
            r#"{"timestamp":"t4","type":"response_item","payload":{"type":"function_call","name":"mcp__amalgm__browser_snapshot","arguments":"{}","call_id":"m"}}"#,
            "\n",
            r#"{"timestamp":"t5","type":"event_msg","payload":{"type":"mcp_tool_call_begin","call_id":"m","invocation":{"server":"amalgm","tool":"browser_snapshot","arguments":{}}}}"#,
            "\n",
            r#"{"timestamp":"t6","type":"event_msg","payload":{"type":"mcp_tool_call_end","call_id":"m","invocation":{"server":"amalgm","tool":"browser_snapshot","arguments":{}},"duration":{"secs":1,"nanos":0},"result":{"Err":"tool call timed out"}}}"#,
            "\n",
            r#"{"timestamp":"t7","type":"event_msg","payload":{"type":"web_search_end","call_id":"ws","query":"argus","action":{"type":"search","query":"argus"}}}"#,
            "\n",
            r#"{"timestamp":"t8","type":"response_item","payload":{"type":"web_search_call","id":"ws","status":"completed","action":{"type":"search","query":"argus"}}}"#,
            "\n",
            r#"{"timestamp":"t9","type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}"#,
            "\n",
        ));
        assert_eq!(doc.parts.len(), 3);
        let by = |id: &str| doc.parts.iter().find(|p| p.id == id).unwrap();
        assert_eq!(by("p").name, "apply_patch");
        assert_eq!(by("p").title, "Creating /w/n.txt");
        assert_eq!(by("p").state, ToolState::Error);
        assert_eq!(by("p").error.as_ref().unwrap().message, "patch rejected");
        assert_eq!(by("m").name, "browser_snapshot");
        assert_eq!(by("m").title, "Reading browser page");
        assert_eq!(by("m").state, ToolState::Error);
        assert_eq!(
            by("m").error.as_ref().unwrap().message,
            "tool call timed out"
        );
        assert_eq!(by("m").timing.as_ref().unwrap().elapsed_ms, Some(1000));
        assert_eq!(by("ws").title, "Searching argus");
        assert_eq!(by("ws").state, ToolState::Complete);
    }

    #[test]
    fn turn_aborted_closes_open_calls_and_item_completed_items() {
        let doc = run(concat!(
            r#"{"timestamp":"t1","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"sleep 100\"}","call_id":"s"}}"#,
            "\n",
            r#"{"timestamp":"t2","type":"event_msg","payload":{"type":"item_completed","thread_id":"th","turn_id":"tu","item":{"type":"CommandExecution","id":"x1","command":["bash","-lc","ls src"],"cwd":"/w","parsed_cmd":[{"type":"list_files","cmd":"ls src","path":"src"}],"source":"agent","status":"completed","exit_code":0,"aggregated_output":"a.rs\n","duration":{"secs":0,"nanos":3000000}},"completed_at_ms":1789076651768}}"#,
            "\n",
            r#"{"timestamp":"t3","type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}"#,
            "\n",
        ));
        let by = |id: &str| doc.parts.iter().find(|p| p.id == id).unwrap();
        assert_eq!(by("s").state, ToolState::Error);
        assert_eq!(
            by("s").error.as_ref().unwrap().code.as_deref(),
            Some("interrupted")
        );
        assert_eq!(by("x1").title, "Listing src");
        assert_eq!(by("x1").kind, ToolKind::FileRead);
        assert_eq!(by("x1").state, ToolState::Complete);
        assert_eq!(by("x1").timing.as_ref().unwrap().elapsed_ms, Some(3));
    }
}
