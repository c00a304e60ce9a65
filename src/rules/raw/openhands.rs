//! The rules' scan of OpenHands' events (`--json` lines and a saved conversation's, the same
//! events): calls from `ActionEvent`s (`tool_call_id`, `tool_name`, the model's arguments in
//! `tool_call.arguments`, a JSON text, without OpenHands' own `security_risk` and `summary`),
//! failures from an `ObservationEvent` whose observation says `is_error` or a non-zero
//! `exit_code` (but `-1`, a command left running after 30 s without output), an `AgentErrorEvent` and a `UserRejectObservation`; turn ends from the agent's
//! `MessageEvent` (its answer, sent when no call is left), the `finish` tool's observation and a
//! `ConversationErrorEvent`. An MCP call's action is an `MCPToolAction`, but no event names its
//! server, so the scan states no MCP identity.

use super::{Markers, Node, RawScan, TurnEnd, for_marked_lines, merge_all, merge_args, str_of};
use crate::stream::Input;

static MARKERS: Markers = Markers::new(&[
    "ActionEvent",
    "ObservationEvent",
    "AgentErrorEvent",
    "UserRejectObservation",
    "MessageEvent",
    "ConversationErrorEvent",
]);

/// OpenHands' `--json` lines and its saved events.
pub(crate) fn events(input: &Input<'_>) -> RawScan {
    let mut s = RawScan::default();
    for_marked_lines(input, &MARKERS, |line, v| {
        let id = str_of(&v, "tool_call_id").filter(|i| !i.is_empty());
        match (str_of(&v, "kind"), id) {
            (Some("ActionEvent"), Some(id)) => {
                let action_kind = v.get("action").and_then(|a| str_of(a, "kind"));
                let c = s.call(id, line);
                c.item_type
                    .get_or_insert_with(|| action_kind.unwrap_or("ActionEvent").to_owned());
                if let Some(name) = str_of(&v, "tool_name") {
                    c.name.get_or_insert_with(|| name.to_owned());
                }
                let arguments = v
                    .get("tool_call")
                    .and_then(|t| str_of(t, "arguments"))
                    .and_then(super::pruned::parse_whole);
                if let Some(args) = arguments {
                    let args = without_openhands_fields(args);
                    merge_args(&mut c.args, &args);
                    if action_kind == Some("MCPToolAction") {
                        merge_all(&mut c.tool_args, &args);
                    }
                }
            }
            (Some("ObservationEvent"), Some(id)) => {
                let obs = v.get("observation");
                let flagged =
                    obs.and_then(|o| o.get("is_error")).and_then(Node::as_bool) == Some(true);
                let exit = obs
                    .and_then(|o| o.get("exit_code"))
                    .and_then(Node::as_i64)
                    // `-1` without `is_error`: left running after OpenHands' soft timeout.
                    .is_some_and(|c| c != 0 && c != -1);
                if flagged || exit {
                    s.fail_known(id, line);
                }
                if str_of(&v, "tool_name") == Some("finish") {
                    s.turn_ends.push(TurnEnd { line, scope: None });
                }
            }
            (Some("AgentErrorEvent" | "UserRejectObservation"), Some(id)) => {
                s.fail_known(id, line);
            }
            (Some("MessageEvent"), _) if str_of(&v, "source") == Some("agent") => {
                s.turn_ends.push(TurnEnd { line, scope: None });
            }
            (Some("ConversationErrorEvent"), _) => {
                s.turn_ends.push(TurnEnd { line, scope: None });
            }
            _ => {}
        }
    });
    s
}

/// The model's arguments without the two every OpenHands tool takes beside its own.
fn without_openhands_fields(args: Node<'_>) -> Node<'_> {
    match args {
        Node::Object(entries) => Node::Object(
            entries
                .into_iter()
                .filter(|(k, _)| k != "security_risk" && k != "summary")
                .collect(),
        ),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_failures_and_turn_ends() {
        let s = events(&Input::from_bytes(
            concat!(
                "Agent is working\n",
                r#"{"id": "a1", "timestamp": "t", "source": "agent", "action": {"command": "sh x", "kind": "TerminalAction"}, "tool_name": "terminal", "tool_call_id": "c1", "tool_call": {"id": "c1", "name": "terminal", "arguments": "{\"command\": \"sh x\", \"security_risk\": \"LOW\"}"}, "kind": "ActionEvent"}"#,
                "\n",
                r#"{"id": "o1", "timestamp": "t", "source": "environment", "tool_name": "terminal", "tool_call_id": "c1", "observation": {"content": [], "is_error": false, "exit_code": 3, "kind": "TerminalObservation"}, "action_id": "a1", "kind": "ObservationEvent"}"#,
                "\n",
                r#"{"id": "a3", "timestamp": "t", "source": "agent", "action": {"command": "sleep 99", "kind": "TerminalAction"}, "tool_name": "terminal", "tool_call_id": "c3", "kind": "ActionEvent"}"#,
                "\n",
                r#"{"id": "o3", "timestamp": "t", "source": "environment", "tool_name": "terminal", "tool_call_id": "c3", "observation": {"content": [], "is_error": false, "exit_code": -1, "kind": "TerminalObservation"}, "kind": "ObservationEvent"}"#,
                "\n",
                r#"{"id":"a2","timestamp":"t","source":"agent","action":{"data":{"url":"https://x"},"kind":"MCPToolAction"},"tool_name":"browser_navigate","tool_call_id":"c2","tool_call":{"id":"c2","name":"browser_navigate","arguments":"{\"url\": \"https://x\", \"security_risk\": \"LOW\"}"},"kind":"ActionEvent"}"#,
                "\n",
                r#"{"id":"e2","timestamp":"t","source":"agent","tool_name":"browser_navigate","tool_call_id":"c2","error":"boom","kind":"AgentErrorEvent"}"#,
                "\n",
                r#"{"id":"m","timestamp":"t","source":"agent","llm_message":{"role":"assistant"},"kind":"MessageEvent"}"#,
                "\n"
            )
            .as_bytes(),
        ));
        let c1 = s.get("c1").unwrap();
        assert_eq!((c1.line, c1.failed_line), (2, Some(3)));
        assert_eq!(c1.args.get("command"), Some(&serde_json::json!("sh x")));
        assert_eq!(c1.item_type.as_deref(), Some("TerminalAction"));
        assert_eq!(s.get("c3").unwrap().failed_line, None);
        let c2 = s.get("c2").unwrap();
        assert_eq!(c2.failed_line, Some(7));
        assert_eq!(c2.mcp, None);
        assert_eq!(
            c2.tool_args.get("url"),
            Some(&serde_json::json!("https://x"))
        );
        assert!(!c2.tool_args.contains_key("security_risk"));
        assert_eq!(
            s.turn_ends,
            vec![TurnEnd {
                line: 8,
                scope: None
            }]
        );
    }
}
