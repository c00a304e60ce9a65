//! The rules' scan of Kimi CLI's messages (print mode's stream-json and a saved context, the same
//! messages): calls from an assistant message's `tool_calls` (`id`, `function.name`, the model's
//! arguments in `function.arguments`, a JSON text), failures from a `tool` message whose content
//! starts with Kimi's `<system>ERROR: …</system>` note (found in the line's bytes: the parse the
//! scans share drops texts). A turn ends at an assistant message with
//! no `tool_calls` (the answer). Kimi names an MCP tool by the tool alone, so the scan states no
//! MCP identity. Kimi's wire (`wire.jsonl`, `kimi --wire`) has a scan of its own, [`wire`].

use super::{
    Markers, Node, RawScan, TurnEnd, assistant_calls, for_marked_raw_lines, merge_args,
    opens_string, pruned, str_of,
};
use crate::stream::Input;

static MARKERS: Markers = Markers::new(&["\"role\""]);

/// Whether a line holds a JSON string that opens with Kimi's error note (inside another string
/// its quote would be escaped).
fn failed(line: &[u8]) -> bool {
    opens_string(line, b"\"<system>ERROR: ")
}

/// Kimi's messages, one a line.
pub(crate) fn messages(input: &Input<'_>) -> RawScan {
    let mut s = RawScan::default();
    for_marked_raw_lines(input, &MARKERS, false, |raw, v| {
        message(&mut s, raw.number, &v, raw.bytes)
    });
    s
}

/// One message read from raw line `line`.
fn message(s: &mut RawScan, line: u32, v: &Node<'_>, bytes: &[u8]) {
    match str_of(v, "role") {
        Some("assistant") => assistant_calls(s, line, v),
        Some("tool") => {
            if let Some(id) = str_of(v, "tool_call_id")
                && failed(bytes)
            {
                s.fail_known(id, line);
            }
        }
        _ => {}
    }
}

static WIRE_MARKERS: Markers = Markers::new(&["\"ToolCall", "\"ToolResult\"", "\"TurnEnd\""]);

/// How deep subagents' events are read inside one another.
const WIRE_DEPTH: usize = 8;

/// Kimi's wire (`wire.jsonl`'s records, `kimi --wire`'s JSON-RPC events): calls from `ToolCall`
/// events (`id`, `function.name`, `function.arguments`, and the `ToolCallPart`s that follow a call
/// in `kimi --wire`), failures from a `ToolResult` whose `return_value.is_error` is true, a turn's
/// end at the session's `TurnEnd`. A subagent's events come inside `SubagentEvent`s: its calls'
/// ids are `<agent id>/<call id>` (the parent call's id when no agent is named).
pub(crate) fn wire(input: &Input<'_>) -> RawScan {
    let mut w = Wire::default();
    for_marked_raw_lines(input, &WIRE_MARKERS, false, |raw, v| {
        let envelope = match (v.get("message"), str_of(&v, "method")) {
            (Some(m), _) => m,
            (None, Some("event" | "request")) => match v.get("params") {
                Some(p) => p,
                None => return,
            },
            _ => return,
        };
        w.event(raw.number, envelope, None, 0);
    });
    w.settle();
    w.s
}

#[derive(Default)]
struct Wire {
    s: RawScan,
    /// The session's last call and the arguments streamed for it since (`kimi --wire`).
    streaming: Option<(String, String)>,
}

impl Wire {
    fn event(&mut self, line: u32, envelope: &Node<'_>, prefix: Option<&str>, depth: usize) {
        let Some(payload) = envelope.get("payload") else {
            return;
        };
        let scoped = |id: &str| match prefix {
            Some(p) => format!("{p}/{id}"),
            None => id.to_owned(),
        };
        match str_of(envelope, "type") {
            Some("ToolCall") => {
                let Some(id) = str_of(payload, "id").filter(|i| !i.is_empty()) else {
                    return;
                };
                if prefix.is_none() {
                    self.settle();
                }
                let id = scoped(id);
                let function = payload.get("function");
                let c = self.s.call(&id, line);
                c.item_type.get_or_insert_with(|| "function".to_owned());
                if let Some(name) = function.and_then(|f| str_of(f, "name")) {
                    c.name.get_or_insert_with(|| name.to_owned());
                }
                let text = function.and_then(|f| str_of(f, "arguments")).unwrap_or("");
                if let Some(args) = pruned::parse_whole(text) {
                    merge_args(&mut c.args, &args);
                }
                if prefix.is_none() {
                    self.streaming = Some((id, text.to_owned()));
                }
            }
            Some("ToolCallPart") => {
                if let (Some((_, text)), Some(part)) =
                    (&mut self.streaming, str_of(payload, "arguments_part"))
                {
                    text.push_str(part);
                }
            }
            Some("ToolResult") => {
                let failed = payload
                    .get("return_value")
                    .and_then(|r| r.get("is_error"))
                    .and_then(Node::as_bool)
                    == Some(true);
                if let Some(id) = str_of(payload, "tool_call_id")
                    && failed
                {
                    self.s.fail_known(&scoped(id), line);
                }
            }
            Some("SubagentEvent") if depth < WIRE_DEPTH => {
                let own = str_of(payload, "agent_id")
                    .or_else(|| str_of(payload, "parent_tool_call_id"))
                    .or_else(|| str_of(payload, "task_tool_call_id"))
                    .filter(|a| !a.is_empty());
                if let (Some(own), Some(event)) = (own, payload.get("event")) {
                    let inner = scoped(own);
                    self.event(line, event, Some(&inner), depth + 1);
                }
            }
            Some("TurnEnd") if prefix.is_none() => {
                self.settle();
                self.s.turn_ends.push(TurnEnd { line, scope: None });
            }
            _ => {}
        }
    }

    /// The streamed call's arguments are over: what they name counts.
    fn settle(&mut self) {
        if let Some((id, text)) = self.streaming.take()
            && let Some(args) = pruned::parse_whole(&text)
        {
            let c = self.s.call(&id, 0);
            merge_args(&mut c.args, &args);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_failures_and_turn_ends() {
        let s = messages(&Input::from_bytes(
            concat!(
                r#"{"role":"assistant","content":[{"type":"text","text":"Running."}],"tool_calls":[{"type":"function","id":"c1","function":{"name":"Shell","arguments":"{\"command\": \"sh x\"}"}},{"type":"function","id":"c2","function":{"name":"ReadFile","arguments":"{\"path\": \"a\"}"}}]}"#,
                "\n",
                r#"{"role":"tool","content":[{"type":"text","text":"<system>ERROR: Command failed with exit code: 3.</system>"},{"type":"text","text":"boom\n"}],"tool_call_id":"c1"}"#,
                "\n",
                r#"{"role":"tool","content":[{"type":"text","text":"<system>1 lines read</system>"},{"type":"text","text":"x"}],"tool_call_id":"c2"}"#,
                "\n",
                r#"{"role":"tool","content":"<system>ERROR: nope</system>","tool_call_id":"c9"}"#,
                "\n",
                r#"{"role":"assistant","content":"Done."}"#,
                "\n"
            )
            .as_bytes(),
        ));
        let c1 = s.get("c1").unwrap();
        assert_eq!((c1.line, c1.failed_line), (1, Some(2)));
        assert_eq!(c1.name.as_deref(), Some("Shell"));
        assert_eq!(c1.args.get("command"), Some(&serde_json::json!("sh x")));
        assert_eq!(s.get("c2").unwrap().failed_line, None);
        assert!(s.get("c9").is_none());
        assert_eq!(
            s.turn_ends,
            vec![TurnEnd {
                line: 5,
                scope: None
            }]
        );
    }

    #[test]
    fn wire_calls_failures_subagents_and_turn_ends() {
        let s = wire(&Input::from_bytes(
            concat!(
                r#"{"type": "metadata", "protocol_version": "1.10"}"#,
                "\n",
                r#"{"timestamp": 1.0, "message": {"type": "ToolCall", "payload": {"type": "function", "id": "c1", "function": {"name": "Shell", "arguments": "{\"command\":\"exit 3\"}"}, "extras": null}}}"#,
                "\n",
                r#"{"timestamp": 1.1, "message": {"type": "ToolResult", "payload": {"tool_call_id": "c1", "return_value": {"is_error": true, "output": "", "message": "Command failed with exit code: 3.", "display": []}}}}"#,
                "\n",
                r#"{"timestamp": 1.2, "message": {"type": "SubagentEvent", "payload": {"parent_tool_call_id": "a1", "agent_id": "k7", "event": {"type": "ToolCall", "payload": {"type": "function", "id": "c1", "function": {"name": "ReadFile", "arguments": "{\"path\":\"a\"}"}}}}}}"#,
                "\n",
                r#"{"timestamp": 1.3, "message": {"type": "SubagentEvent", "payload": {"parent_tool_call_id": "a1", "agent_id": "k7", "event": {"type": "TurnEnd", "payload": {}}}}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","method":"event","params":{"type":"ToolCall","payload":{"type":"function","id":"c2","function":{"name":"Grep","arguments":"{\"pat"}}}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","method":"event","params":{"type":"ToolCallPart","payload":{"arguments_part":"tern\":\"TODO\"}"}}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","method":"event","params":{"type":"TurnEnd","payload":{}}}"#,
                "\n"
            )
            .as_bytes(),
        ));
        let c1 = s.get("c1").unwrap();
        assert_eq!((c1.line, c1.failed_line), (2, Some(3)));
        assert_eq!(c1.args.get("command"), Some(&serde_json::json!("exit 3")));
        let inner = s.get("k7/c1").unwrap();
        assert_eq!((inner.line, inner.failed_line), (4, None));
        assert_eq!(inner.name.as_deref(), Some("ReadFile"));
        let c2 = s.get("c2").unwrap();
        assert_eq!(c2.args.get("pattern"), Some(&serde_json::json!("TODO")));
        // The subagent's turn is not the session's.
        assert_eq!(
            s.turn_ends,
            vec![TurnEnd {
                line: 8,
                scope: None
            }]
        );
    }
}
