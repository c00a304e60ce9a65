//! The rules' scan of droid streams: `stream-json`'s `tool_call` lines (a failed `tool_result`
//! marks its call; `completion` and `error` end the turn), and a session file's `tool_use` /
//! `tool_result` blocks (an `agent_turn_outcome` ends the turn). MCP tools are
//! `<server>___<tool>`.

use super::{Markers, Node, RawScan, TurnEnd, for_marked_lines, merge_all, merge_args, str_of};
use crate::stream::Input;

static STREAM_MARKERS: Markers = Markers::new(&[
    "\"tool_call\"",
    "\"tool_result\"",
    "\"completion\"",
    "\"error\"",
]);

static SESSION_MARKERS: Markers =
    Markers::new(&["\"tool_use\"", "\"tool_result\"", "\"agent_turn_outcome\""]);

fn split_mcp(name: &str) -> Option<(String, String)> {
    let (server, tool) = name.split_once("___")?;
    (!server.is_empty() && !tool.is_empty()).then(|| (server.to_owned(), tool.to_owned()))
}

/// A call named `name` with arguments `args`, first seen at `line`.
fn call(
    s: &mut RawScan,
    line: u32,
    id: &str,
    item_type: &str,
    name: Option<&str>,
    args: Option<&Node<'_>>,
) {
    let c = s.call(id, line);
    c.item_type.get_or_insert_with(|| item_type.to_owned());
    if let Some(name) = name {
        c.name = Some(name.to_owned());
        c.mcp = split_mcp(name);
    }
    if let Some(args) = args {
        merge_args(&mut c.args, args);
        if c.mcp.is_some() {
            merge_all(&mut c.tool_args, args);
        }
    }
}

/// `droid exec --output-format stream-json`.
pub(crate) fn stream_json(input: &Input<'_>) -> RawScan {
    let mut s = RawScan::default();
    for_marked_lines(input, &STREAM_MARKERS, |line, v| match str_of(&v, "type") {
        Some("tool_call") => {
            if let Some(id) = str_of(&v, "id") {
                let name = str_of(&v, "toolName").or_else(|| str_of(&v, "toolId"));
                call(&mut s, line, id, "tool_call", name, v.get("parameters"));
            }
        }
        Some("tool_result") => {
            let failed = v.get("isError").and_then(Node::as_bool) == Some(true)
                || v.get("error").is_some_and(|e| !e.is_empty());
            if let (true, Some(id)) = (failed, str_of(&v, "id")) {
                s.fail_known(id, line);
            }
        }
        Some("completion" | "error") => s.turn_ends.push(TurnEnd { line, scope: None }),
        _ => {}
    });
    s
}

/// `~/.factory/sessions/**/<id>.jsonl`.
pub(crate) fn session(input: &Input<'_>) -> RawScan {
    let mut s = RawScan::default();
    for_marked_lines(input, &SESSION_MARKERS, |line, v| {
        match str_of(&v, "type") {
            Some("message") => {
                let blocks = v
                    .get("message")
                    .and_then(|m| m.get("content"))
                    .and_then(Node::as_array);
                for b in blocks.into_iter().flatten() {
                    match str_of(b, "type") {
                        Some("tool_use") => {
                            if let Some(id) = str_of(b, "id") {
                                call(
                                    &mut s,
                                    line,
                                    id,
                                    "tool_use",
                                    str_of(b, "name"),
                                    b.get("input"),
                                );
                            }
                        }
                        Some("tool_result")
                            if b.get("is_error").and_then(Node::as_bool) == Some(true) =>
                        {
                            if let Some(id) = str_of(b, "tool_use_id") {
                                s.fail_known(id, line);
                            }
                        }
                        _ => {}
                    }
                }
            }
            Some("agent_turn_outcome") => s.turn_ends.push(TurnEnd { line, scope: None }),
            _ => {}
        }
    });
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_failures_and_turn_ends() {
        let s = stream_json(&Input::from_bytes(
            concat!(
                r#"{"type":"tool_call","id":"c1","toolName":"amalgm___browser_navigate","parameters":{"url":"https://x"},"session_id":"s"}"#,
                "\n",
                r#"{"type":"tool_result","id":"c1","isError":true,"error":{"type":"tool_error","message":"Error: no"},"session_id":"s"}"#,
                "\n",
                r#"{"type":"completion","finalText":"x","session_id":"s"}"#,
                "\n"
            )
            .as_bytes(),
        ));
        let c = s.get("c1").unwrap();
        assert_eq!(c.failed_line, Some(2));
        assert_eq!(c.mcp, Some(("amalgm".into(), "browser_navigate".into())));
        assert_eq!(
            c.tool_args.get("url"),
            Some(&serde_json::json!("https://x"))
        );
        assert_eq!(
            s.turn_ends,
            vec![TurnEnd {
                line: 3,
                scope: None
            }]
        );

        let s = session(&Input::from_bytes(
            concat!(
                r#"{"type":"message","id":"m","timestamp":"t","message":{"role":"assistant","content":[{"type":"tool_use","id":"c2","name":"Execute","input":{"command":"false"}}]}}"#,
                "\n",
                r#"{"type":"message","id":"n","timestamp":"t","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c2","is_error":true,"content":"Error: x"}]}}"#,
                "\n",
                r#"{"type":"agent_turn_outcome","turnId":"u","reason":"completed"}"#,
                "\n"
            )
            .as_bytes(),
        ));
        let c = s.get("c2").unwrap();
        assert_eq!((c.line, c.failed_line), (1, Some(2)));
        assert_eq!(c.args.get("command"), Some(&serde_json::json!("false")));
        assert_eq!(s.turn_ends.len(), 1);
    }
}
