//! The rules' scan of Claude Code streams: `tool_use` blocks (in assistant messages, partial
//! `content_block_start` events and a transcript's `agent_progress`), `tool_result` errors, and
//! the `result` line that ends a turn. Stream-json and transcripts share these shapes. A call the
//! stream says runs in the background (`system` `task_started` with `is_backgrounded`) ends with
//! its task's `task_notification`, not with the turn.

use super::{Markers, Node, RawScan, TurnEnd, for_marked_lines, merge_all, merge_args, str_of};
use crate::stream::Input;

/// Lines worth parsing.
static MARKERS: Markers = Markers::new(&[
    "\"tool_use\"",
    "\"tool_result\"",
    "\"result\"",
    "\"task_started\"",
    "\"task_notification\"",
]);

/// `claude -p --output-format stream-json --verbose`.
pub(crate) fn stream_json(input: &Input<'_>) -> RawScan {
    scan(input)
}

/// `~/.claude/projects/**.jsonl` session transcripts.
pub(crate) fn transcript(input: &Input<'_>) -> RawScan {
    scan(input)
}

fn scan(input: &Input<'_>) -> RawScan {
    let mut s = RawScan::default();
    for_marked_lines(input, &MARKERS, |line, v| scan_line(&mut s, line, &v, true));
    s
}

/// `mcp__<server>__<tool>`: split on the first `__` after the prefix (tools may hold `__`? no,
/// but server names never do).
fn split_mcp(name: &str) -> Option<(String, String)> {
    let rest = name.strip_prefix("mcp__")?;
    let (server, tool) = rest.split_once("__")?;
    (!server.is_empty() && !tool.is_empty()).then(|| (server.to_owned(), tool.to_owned()))
}

fn scan_line(s: &mut RawScan, line: u32, v: &Node<'_>, top_level: bool) {
    match str_of(v, "type") {
        Some("result") if top_level => s.turn_ends.push(TurnEnd { line, scope: None }),
        Some("system") => {
            let Some(id) = str_of(v, "tool_use_id") else {
                return;
            };
            let scope = format!("task:{id}");
            match str_of(v, "subtype") {
                Some("task_started")
                    if v.get("is_backgrounded").and_then(Node::as_bool) == Some(true)
                        && s.get(id).is_some() =>
                {
                    let call = s.call(id, line);
                    call.background = true;
                    call.scope = Some(scope);
                }
                Some("task_notification") if s.get(id).is_some_and(|c| c.background) => {
                    s.turn_ends.push(TurnEnd {
                        line,
                        scope: Some(scope),
                    });
                    if matches!(str_of(v, "status"), Some("failed" | "killed" | "stopped")) {
                        s.fail_known(id, line);
                    }
                }
                _ => {}
            }
        }
        Some("assistant") | Some("user") => {
            if let Some(msg) = v.get("message") {
                scan_message(s, line, msg);
            }
        }
        Some("stream_event") => {
            let ev = v.get("event");
            if ev.and_then(|e| str_of(e, "type")) == Some("content_block_start") {
                if let Some(block) = ev.and_then(|e| e.get("content_block")) {
                    scan_block(s, line, block);
                }
            }
        }
        Some("progress") => {
            // Transcript `agent_progress` embeds the subagent's messages; their tool_use ids are
            // real calls (and repeat the ones the subagent file has).
            if let Some(inner) = v.get("data").and_then(|d| d.get("message")) {
                if inner.get("type").is_some() {
                    scan_line(s, line, inner, false);
                } else {
                    scan_message(s, line, inner);
                }
            }
        }
        _ => {}
    }
}

fn scan_message(s: &mut RawScan, line: u32, msg: &Node<'_>) {
    if let Some(blocks) = msg.get("content").and_then(Node::as_array) {
        for block in blocks {
            scan_block(s, line, block);
        }
    }
}

fn scan_block(s: &mut RawScan, line: u32, block: &Node<'_>) {
    match str_of(block, "type") {
        Some("tool_use") => {
            let Some(id) = str_of(block, "id") else {
                return;
            };
            let call = s.call(id, line);
            call.item_type.get_or_insert_with(|| "tool_use".to_owned());
            if let Some(name) = str_of(block, "name") {
                call.name = Some(name.to_owned());
                if let Some(mcp) = split_mcp(name) {
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
        Some("tool_result") if block.get("is_error").and_then(Node::as_bool) == Some(true) => {
            if let Some(id) = str_of(block, "tool_use_id") {
                s.fail_known(id, line);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_tool_use_result_error_and_turn_end() {
        let s = stream_json(&Input::from_bytes(
            concat!(
                r#"{"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t1","name":"Bash","input":{}}}}"#,
                "\n",
                r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}},{"type":"tool_use","id":"t2","name":"mcp__jira__get-issue","input":{"key":"A-1"}}]}}"#,
                "\n",
                r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":"no"}]}}"#,
                "\n",
                r#"{"type":"result","subtype":"success"}"#,
                "\n"
            )
            .as_bytes(),
        ));
        assert_eq!(s.calls.len(), 2);
        let t1 = s.get("t1").unwrap();
        assert_eq!((t1.line, t1.failed_line), (1, None));
        assert_eq!(t1.args.get("command"), Some(&serde_json::Value::from("ls")));
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
    fn a_background_call_ends_with_its_task() {
        let s = stream_json(&Input::from_bytes(
            concat!(
                r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"a1","name":"Agent","input":{"prompt":"p"}}]}}"#,
                "\n",
                r#"{"type":"system","subtype":"task_started","task_id":"k","tool_use_id":"a1","is_backgrounded":true}"#,
                "\n",
                r#"{"type":"result","subtype":"success"}"#,
                "\n",
                r#"{"type":"system","subtype":"task_notification","task_id":"k","tool_use_id":"a1","status":"failed"}"#,
                "\n",
                // A foreground task's lines change nothing.
                r#"{"type":"system","subtype":"task_started","task_id":"j","tool_use_id":"zz","is_backgrounded":true}"#,
                "\n"
            )
            .as_bytes(),
        ));
        let a1 = s.get("a1").unwrap();
        assert!(a1.background);
        assert_eq!(a1.scope.as_deref(), Some("task:a1"));
        assert_eq!(a1.failed_line, Some(4));
        assert_eq!(s.calls.len(), 1);
        assert_eq!(
            s.turn_ends,
            vec![
                TurnEnd {
                    line: 3,
                    scope: None
                },
                TurnEnd {
                    line: 4,
                    scope: Some("task:a1".into())
                }
            ]
        );
    }
}
