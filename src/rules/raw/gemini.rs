//! The rules' scan of Gemini CLI and Qwen Code streams, the family read side by side since the
//! fork shares its tool calls' shapes where the wire agrees:
//!
//! - Gemini stream-json: `tool_use` lines (`tool_id`, `tool_name`, `parameters`), a
//!   `tool_result` with `status: "error"` fails its call, the `result` line ends the turn;
//!   MCP tools are named `mcp_<server>_<tool>`.
//! - Gemini sessions: every `toolCalls` entry, wherever the record holds it (a message, a
//!   `$set` of the messages, a whole-document session's `messages`); `status` `error` or
//!   `cancelled` fails it. A session file has no turn end.
//! - Gemini's json document names no call.
//! - Qwen stream-json (and its json array): Claude-shaped `tool_use` / `tool_result` blocks in
//!   `assistant` / `user` messages, `is_error` fails, `result` ends the turn; MCP tools are
//!   `mcp__<server>__<tool>`.
//! - Qwen sessions: `functionCall` parts of `assistant` records, a `functionResponse` with an
//!   `error` (or a `toolCallResult` with status `error`) fails its call.

use memchr::memmem;

use super::{
    Markers, Node, RawCall, RawScan, TurnEnd, for_marked_lines, merge_all, merge_args, str_of,
};
use crate::stream::Input;

static GEMINI_STREAM: Markers = Markers::new(&["\"tool_id\"", "\"result\""]);
static GEMINI_SESSION: Markers = Markers::new(&["\"toolCalls\""]);
static QWEN_STREAM: Markers = Markers::new(&["\"tool_use\"", "\"tool_result\"", "\"result\""]);
static QWEN_SESSION: Markers = Markers::new(&["\"functionCall\"", "\"functionResponse\""]);

/// `mcp_<server>_<tool>` (Gemini CLI) or `mcp__<server>__<tool>` (Qwen Code).
fn split_mcp(name: &str) -> Option<(String, String)> {
    let (server, tool) = match name.strip_prefix("mcp__") {
        Some(rest) => rest.split_once("__")?,
        None => name.strip_prefix("mcp_")?.split_once('_')?,
    };
    (!server.is_empty() && !tool.is_empty()).then(|| (server.to_owned(), tool.to_owned()))
}

/// One call with its explicit name and arguments.
fn call(
    s: &mut RawScan,
    line: u32,
    id: &str,
    name: Option<&str>,
    ty: &str,
    args: Option<&Node<'_>>,
) {
    let call = s.call(id, line);
    call.item_type.get_or_insert_with(|| ty.to_owned());
    if let Some(name) = name {
        call.name = Some(name.to_owned());
        if let Some(mcp) = split_mcp(name) {
            call.mcp = Some(mcp);
            if let Some(a) = args {
                merge_all(&mut call.tool_args, a);
            }
        }
    }
    if let Some(a) = args {
        merge_args(&mut call.args, a);
    }
}

/// `gemini -p … --output-format stream-json`.
pub(crate) fn gemini_stream_json(input: &Input<'_>) -> RawScan {
    let mut s = RawScan::default();
    for_marked_lines(input, &GEMINI_STREAM, |line, v| match str_of(&v, "type") {
        Some("tool_use") => {
            if let Some(id) = str_of(&v, "tool_id") {
                call(
                    &mut s,
                    line,
                    id,
                    str_of(&v, "tool_name"),
                    "tool_use",
                    v.get("parameters"),
                );
            }
        }
        Some("tool_result") => {
            let failed = str_of(&v, "status") == Some("error") || v.get("error").is_some();
            if let (true, Some(id)) = (failed, str_of(&v, "tool_id")) {
                s.fail_known(id, line);
            }
        }
        Some("result") => s.turn_ends.push(TurnEnd { line, scope: None }),
        _ => {}
    });
    s
}

/// `gemini -p … --output-format json`: statistics only, no call.
pub(crate) fn gemini_json(_: &Input<'_>) -> RawScan {
    RawScan::default()
}

fn session_calls(s: &mut RawScan, line: u32, calls: Option<&Node<'_>>) {
    for c in calls.and_then(Node::as_array).into_iter().flatten() {
        let Some(id) = str_of(c, "id") else { continue };
        call(s, line, id, str_of(c, "name"), "toolCall", c.get("args"));
        if matches!(str_of(c, "status"), Some("error" | "cancelled")) {
            s.fail_known(id, line);
        }
    }
}

fn session_messages(s: &mut RawScan, line: u32, messages: Option<&Node<'_>>) {
    for m in messages.and_then(Node::as_array).into_iter().flatten() {
        session_calls(s, line, m.get("toolCalls"));
    }
}

/// `~/.gemini/tmp/<project>/chats/session-*.jsonl`, or an older release's one pretty-printed
/// `session-*.json` document (each call pointed at the line holding its id).
pub(crate) fn gemini_session(input: &Input<'_>) -> RawScan {
    let mut s = RawScan::default();
    let first = input
        .lines
        .iter()
        .find(|l| !l.bytes.trim_ascii().is_empty());
    if first.is_some_and(|l| l.bytes.trim_ascii() == b"{") {
        let Some(doc) = super::pruned::parse(input.bytes) else {
            return s;
        };
        let mut calls = RawScan::default();
        session_messages(&mut calls, 1, doc.get("messages"));
        for c in calls.calls {
            let line = line_holding(input, &c.id);
            let failed = c.failed_line.is_some();
            let call = s.call(&c.id, line);
            *call = RawCall {
                line,
                failed_line: failed.then_some(line),
                ..c
            };
        }
        return s;
    }
    for_marked_lines(input, &GEMINI_SESSION, |line, v| {
        session_calls(&mut s, line, v.get("toolCalls"));
        session_messages(&mut s, line, v.get("messages"));
        session_messages(&mut s, line, v.get("$set").and_then(|x| x.get("messages")));
    });
    s
}

fn line_holding(input: &Input<'_>, id: &str) -> u32 {
    let quoted = format!("\"{id}\"");
    let finder = memmem::Finder::new(quoted.as_bytes());
    input
        .lines
        .iter()
        .find(|l| finder.find(l.bytes).is_some())
        .map_or(1, |l| l.number)
}

fn qwen_message(s: &mut RawScan, line: u32, msg: &Node<'_>) {
    for b in msg
        .get("content")
        .and_then(Node::as_array)
        .into_iter()
        .flatten()
    {
        match str_of(b, "type") {
            Some("tool_use") => {
                if let Some(id) = str_of(b, "id") {
                    call(s, line, id, str_of(b, "name"), "tool_use", b.get("input"));
                }
            }
            Some("tool_result") if b.get("is_error").and_then(Node::as_bool) == Some(true) => {
                if let Some(id) = str_of(b, "tool_use_id") {
                    s.fail_known(id, line);
                }
            }
            _ => {}
        }
    }
}

fn qwen_line(s: &mut RawScan, line: u32, v: &Node<'_>) {
    match str_of(v, "type") {
        Some("assistant" | "user") => {
            if let Some(m) = v.get("message") {
                qwen_message(s, line, m);
            }
        }
        Some("stream_event") => {
            let block = v.get("event").and_then(|e| e.get("content_block"));
            if let Some(b) = block.filter(|b| str_of(b, "type") == Some("tool_use"))
                && let Some(id) = str_of(b, "id")
            {
                call(s, line, id, str_of(b, "name"), "tool_use", None);
            }
        }
        Some("result") => s.turn_ends.push(TurnEnd { line, scope: None }),
        _ => {}
    }
}

/// `qwen -p … --output-format stream-json`.
pub(crate) fn qwen_stream_json(input: &Input<'_>) -> RawScan {
    let mut s = RawScan::default();
    for_marked_lines(input, &QWEN_STREAM, |line, v| qwen_line(&mut s, line, &v));
    s
}

/// `qwen -p … --output-format json`: the same messages as one array.
pub(crate) fn qwen_json(input: &Input<'_>) -> RawScan {
    let mut s = RawScan::default();
    let Some(doc) = super::pruned::parse(input.bytes) else {
        return s;
    };
    let line = input.lines.first().map_or(1, |l| l.number);
    for v in doc.as_array().into_iter().flatten() {
        qwen_line(&mut s, line, v);
    }
    s
}

/// `~/.qwen/projects/<project>/chats/<session>.jsonl`.
pub(crate) fn qwen_session(input: &Input<'_>) -> RawScan {
    let mut s = RawScan::default();
    for_marked_lines(input, &QWEN_SESSION, |line, v| {
        let parts = v.get("message").and_then(|m| m.get("parts"));
        let status = v.get("toolCallResult").and_then(|r| str_of(r, "status"));
        for p in parts.and_then(Node::as_array).into_iter().flatten() {
            if let Some(fc) = p.get("functionCall")
                && let Some(id) = str_of(fc, "id")
            {
                call(
                    &mut s,
                    line,
                    id,
                    str_of(fc, "name"),
                    "functionCall",
                    fc.get("args"),
                );
            }
            if let Some(fr) = p.get("functionResponse") {
                let failed = fr.get("response").and_then(|r| r.get("error")).is_some()
                    || matches!(status, Some("error" | "cancelled"));
                if let (true, Some(id)) = (failed, str_of(fr, "id")) {
                    s.fail_known(id, line);
                }
            }
        }
    });
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gemini_calls_failures_mcp_and_turn_end() {
        let s = gemini_stream_json(&Input::from_bytes(
            concat!(
                r#"{"type":"tool_use","tool_name":"mcp_amalgm_browser_navigate","tool_id":"a","parameters":{"url":"u"}}"#,
                "\n",
                r#"{"type":"tool_use","tool_name":"read_file","tool_id":"b","parameters":{"file_path":"x"}}"#,
                "\n",
                r#"{"type":"tool_result","tool_id":"b","status":"error","error":{"type":"file_not_found","message":"m"}}"#,
                "\n",
                r#"{"type":"result","status":"success","stats":{}}"#,
                "\n"
            )
            .as_bytes(),
        ));
        assert_eq!(s.calls.len(), 2);
        assert_eq!(
            s.get("a").unwrap().mcp,
            Some(("amalgm".into(), "browser_navigate".into()))
        );
        assert_eq!(s.get("b").unwrap().failed_line, Some(3));
        assert_eq!(
            s.turn_ends,
            vec![TurnEnd {
                line: 4,
                scope: None
            }]
        );
    }

    #[test]
    fn session_calls_are_found_wherever_the_record_holds_them() {
        let s = gemini_session(&Input::from_bytes(
            concat!(
                r#"{"id":"m","type":"gemini","toolCalls":[{"id":"c1","name":"glob","args":{"pattern":"*"},"status":"success"}]}"#,
                "\n",
                r#"{"$set":{"messages":[{"id":"m2","type":"gemini","toolCalls":[{"id":"c2","name":"replace","status":"error"}]}]}}"#,
                "\n"
            )
            .as_bytes(),
        ));
        assert_eq!(s.calls.len(), 2);
        assert_eq!(s.get("c2").unwrap().failed_line, Some(2));
    }

    #[test]
    fn an_older_whole_document_session_points_at_the_id_lines() {
        let s = gemini_session(&Input::from_bytes(
            b"{\n \"sessionId\": \"s\",\n \"messages\": [{\"toolCalls\": [\n  {\"id\": \"c1\", \"name\": \"glob\", \"status\": \"error\"}\n ]}]\n}\n",
        ));
        let c = s.get("c1").unwrap();
        assert_eq!((c.line, c.failed_line), (4, Some(4)));
    }

    #[test]
    fn qwen_streams_documents_and_sessions() {
        let st = qwen_stream_json(&Input::from_bytes(
            concat!(
                r#"{"type":"assistant","uuid":"u","message":{"content":[{"type":"tool_use","id":"t","name":"mcp__amalgm__browser_snapshot","input":{}}]}}"#,
                "\n",
                r#"{"type":"user","uuid":"v","message":{"content":[{"type":"tool_result","tool_use_id":"t","is_error":true}]}}"#,
                "\n"
            )
            .as_bytes(),
        ));
        assert_eq!(st.get("t").unwrap().failed_line, Some(2));
        let doc = qwen_json(&Input::from_bytes(
            br#"[{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"glob","input":{}}]}},{"type":"result"}]"#,
        ));
        assert_eq!(doc.calls.len(), 1);
        assert_eq!(doc.turn_ends.len(), 1);
        let se = qwen_session(&Input::from_bytes(
            concat!(
                r#"{"type":"assistant","message":{"parts":[{"functionCall":{"id":"f","name":"edit","args":{"file_path":"a"}}}]}}"#,
                "\n",
                r#"{"type":"tool_result","message":{"parts":[{"functionResponse":{"id":"f","response":{"error":"no"}}}]}}"#,
                "\n"
            )
            .as_bytes(),
        ));
        assert_eq!(se.get("f").unwrap().failed_line, Some(2));
    }
}
