//! The rules' scan of Cline's formats. `--json` (`json`): calls from `agent_event`
//! `content_start` with `contentType: "tool"`, failures from `content_end` (an `error`, an
//! `{error}` output, an output entry with `success: false`, an MCP result's `isError`), turn ends
//! from `run_result` and `run_aborted`. The task file (`task`, one document): `tool_use` blocks
//! and their `tool_result`s (`is_error`). An MCP tool is `<server>__<tool>`.

use super::{
    Markers, Node, RawScan, TurnEnd, for_marked_lines, line_holding, merge_all, merge_args, str_of,
};
use crate::stream::Input;

static MARKERS: Markers = Markers::new(&[
    "\"content_start\"",
    "\"content_end\"",
    "\"run_result\"",
    "\"run_aborted\"",
]);

/// The MCP server and tool of a `<server>__<tool>` name.
fn mcp_of(name: &str) -> Option<(String, String)> {
    let (server, tool) = name.split_once("__")?;
    (!server.is_empty() && !tool.is_empty()).then(|| (server.to_owned(), tool.to_owned()))
}

/// Whether a result says the call failed.
fn failed(output: Option<&Node<'_>>) -> bool {
    let Some(out) = output else { return false };
    if let Some(entries) = out.as_array() {
        return entries
            .iter()
            .any(|e| e.get("success").and_then(Node::as_bool) == Some(false));
    }
    if let Some(o) = out.as_object() {
        return (o.len() == 1 && out.get("error").is_some())
            || out.get("success").and_then(Node::as_bool) == Some(false)
            || out.get("isError").and_then(Node::as_bool) == Some(true);
    }
    false
}

fn open(s: &mut RawScan, id: &str, line: u32, name: Option<&str>, input: Option<&Node<'_>>) {
    let c = s.call(id, line);
    c.item_type.get_or_insert_with(|| "tool".to_owned());
    if let Some(name) = name {
        c.name.get_or_insert_with(|| name.to_owned());
        if c.mcp.is_none() {
            c.mcp = mcp_of(name);
        }
    }
    if let Some(args) = input {
        merge_args(&mut c.args, args);
        if c.mcp.is_some() {
            merge_all(&mut c.tool_args, args);
        }
    }
}

/// `cline --json`.
pub(crate) fn json(input: &Input<'_>) -> RawScan {
    let mut s = RawScan::default();
    for_marked_lines(input, &MARKERS, |line, v| match str_of(&v, "type") {
        Some("agent_event") => {
            let Some(ev) = v.get("event") else { return };
            if str_of(ev, "contentType") != Some("tool") {
                return;
            }
            let Some(id) = str_of(ev, "toolCallId") else {
                return;
            };
            match str_of(ev, "type") {
                Some("content_start") => {
                    open(&mut s, id, line, str_of(ev, "toolName"), ev.get("input"))
                }
                Some("content_end") if ev.get("error").is_some() || failed(ev.get("output")) => {
                    s.fail_known(id, line);
                }
                _ => {}
            }
        }
        Some("run_result" | "run_aborted") => s.turn_ends.push(TurnEnd { line, scope: None }),
        _ => {}
    });
    s
}

/// A saved task (`<id>.messages.json`).
pub(crate) fn task(input: &Input<'_>) -> RawScan {
    let mut s = RawScan::default();
    let Some(doc) = super::pruned::parse(input.bytes) else {
        return s;
    };
    let Some(messages) = doc.get("messages").and_then(Node::as_array) else {
        return s;
    };
    for msg in messages {
        for block in msg
            .get("content")
            .and_then(Node::as_array)
            .into_iter()
            .flatten()
        {
            match str_of(block, "type") {
                Some("tool_use") => {
                    if let Some(id) = str_of(block, "id") {
                        let line = line_holding(input, id);
                        open(&mut s, id, line, str_of(block, "name"), block.get("input"));
                    }
                }
                Some("tool_result") => {
                    let Some(id) = str_of(block, "tool_use_id") else {
                        continue;
                    };
                    let content = block.get("content");
                    let text_error = content
                        .and_then(Node::as_str)
                        .is_some_and(|t| t.trim_start().starts_with("{\"error\""));
                    if block.get("is_error").and_then(Node::as_bool) == Some(true)
                        || failed(content)
                        || text_error
                    {
                        // The result's own line: the id's second appearance.
                        let line = nth_line_holding(input, id, 2);
                        s.fail_known(id, line);
                    }
                }
                _ => {}
            }
        }
    }
    // The task file is written when the session ends: its calls' turn is over.
    if !s.calls.is_empty() {
        let last = input.lines.last().map_or(1, |l| l.number);
        s.turn_ends.push(TurnEnd {
            line: last,
            scope: None,
        });
    }
    s
}

/// The line of the `n`th raw line holding `"needle"` (the first one when there are fewer).
fn nth_line_holding(input: &Input<'_>, needle: &str, n: usize) -> u32 {
    let quoted = format!("\"{needle}\"");
    input
        .lines
        .iter()
        .filter(|l| memchr::memmem::find(l.bytes, quoted.as_bytes()).is_some())
        .nth(n - 1)
        .map_or_else(|| line_holding(input, needle), |l| l.number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_calls_failures_mcp_and_turn_ends() {
        let s = json(&Input::from_bytes(
            concat!(
                r#"{"ts":"t","type":"agent_event","event":{"type":"content_start","contentType":"tool","toolName":"run_commands","toolCallId":"c1","input":{"commands":["false"]}}}"#,
                "\n",
                r#"{"ts":"t","type":"agent_event","event":{"type":"content_end","contentType":"tool","toolName":"run_commands","toolCallId":"c1","output":[{"query":"false","result":"","error":"Command exited with code 1","success":false}]}}"#,
                "\n",
                r#"{"ts":"t","type":"agent_event","event":{"type":"content_start","contentType":"tool","toolName":"amalgm__browser_navigate","toolCallId":"c2","input":{"url":"https://x"}}}"#,
                "\n",
                r#"{"ts":"t","type":"agent_event","event":{"type":"content_end","contentType":"tool","toolName":"amalgm__browser_navigate","toolCallId":"c2","output":{"content":[],"isError":false}}}"#,
                "\n",
                r#"{"ts":"t","type":"run_result","finishReason":"completed"}"#,
                "\n"
            )
            .as_bytes(),
        ));
        assert_eq!(s.get("c1").unwrap().failed_line, Some(2));
        let c2 = s.get("c2").unwrap();
        assert_eq!(c2.failed_line, None);
        assert_eq!(c2.mcp, Some(("amalgm".into(), "browser_navigate".into())));
        assert_eq!(
            s.turn_ends,
            vec![TurnEnd {
                line: 5,
                scope: None
            }]
        );
    }

    #[test]
    fn task_calls_and_flagged_results() {
        let doc = r#"{
  "sessionId": "s",
  "messages": [
    {"role": "assistant", "content": [
      {"type": "tool_use", "id": "c1", "name": "editor", "input": {"path": "/a"}}
    ]},
    {"role": "user", "content": [
      {"type": "tool_result", "tool_use_id": "c1", "name": "editor", "content": "{\"error\":\"no\"}", "is_error": true}
    ]}
  ]
}"#;
        let s = task(&Input::from_bytes(doc.as_bytes()));
        let c = s.get("c1").unwrap();
        assert_eq!((c.line, c.failed_line), (5, Some(8)));
        assert_eq!(c.args.get("path"), Some(&serde_json::json!("/a")));
        assert_eq!(s.turn_ends.len(), 1);
    }
}
