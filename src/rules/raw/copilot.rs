//! The rules' scan of Copilot CLI's session events (`-p --output-format json` and the session
//! files alike): calls from `tool.execution_start` and an assistant message's `toolRequests`,
//! failures from `tool.execution_complete` (`success: false`, or a shell's non-zero
//! `shellExecution.exitCode`), turn ends from `assistant.turn_end` (its session's: the main one,
//! or a subagent's `agentId`), `abort` and the closing `result` (every call's). MCP calls name their server and tool (`mcpServerName`, `mcpToolName`).

use super::{Markers, Node, RawScan, TurnEnd, for_marked_lines, merge_all, merge_args, str_of};
use crate::stream::Input;

/// The scope of the main session's calls and turns (a subagent's are its `agentId`).
const MAIN: &str = "main";

static MARKERS: Markers = Markers::new(&[
    "\"tool.execution_start\"",
    "\"tool.execution_complete\"",
    "\"toolRequests\"",
    "\"assistant.turn_end\"",
    "\"abort\"",
    "\"result\"",
]);

/// Both dialects.
pub(crate) fn events(input: &Input<'_>) -> RawScan {
    let mut s = RawScan::default();
    for_marked_lines(input, &MARKERS, |line, v| {
        let data = v.get("data");
        match str_of(&v, "type") {
            Some("assistant.message") => {
                let requests = data
                    .and_then(|d| d.get("toolRequests"))
                    .and_then(Node::as_array);
                for r in requests.into_iter().flatten() {
                    if let Some(id) = str_of(r, "toolCallId") {
                        let c = s.call(id, line);
                        c.item_type.get_or_insert_with(|| "tool".to_owned());
                        if let Some(name) = str_of(r, "name") {
                            c.name.get_or_insert_with(|| name.to_owned());
                        }
                        if let Some(args) = r.get("arguments") {
                            merge_args(&mut c.args, args);
                        }
                    }
                }
            }
            Some("tool.execution_start") => {
                let Some(d) = data else { return };
                let Some(id) = str_of(d, "toolCallId") else {
                    return;
                };
                let c = s.call(id, line);
                c.item_type.get_or_insert_with(|| "tool".to_owned());
                if let Some(name) = str_of(d, "toolName") {
                    c.name = Some(name.to_owned());
                }
                if let (Some(server), Some(tool)) =
                    (str_of(d, "mcpServerName"), str_of(d, "mcpToolName"))
                {
                    c.mcp = Some((server.to_owned(), tool.to_owned()));
                }
                if let Some(args) = d.get("arguments") {
                    merge_args(&mut c.args, args);
                    if c.mcp.is_some() {
                        merge_all(&mut c.tool_args, args);
                    }
                }
                // A subagent's calls are its agent's; the main session's are `main`'s.
                let scope = str_of(&v, "agentId").unwrap_or(MAIN);
                c.scope.get_or_insert_with(|| scope.to_owned());
            }
            Some("tool.execution_complete") => {
                let Some(d) = data else { return };
                let Some(id) = str_of(d, "toolCallId") else {
                    return;
                };
                let exit = d
                    .get("shellExecution")
                    .and_then(|e| e.get("exitCode"))
                    .and_then(Node::as_i64);
                let shell = s
                    .get(id)
                    .and_then(|c| c.name.as_deref())
                    .is_some_and(|n| n == "bash" || n == "powershell");
                if d.get("success").and_then(Node::as_bool) == Some(false)
                    || (shell && exit.is_some_and(|c| c != 0))
                {
                    s.fail_known(id, line);
                }
            }
            // A turn's end is its session's: a background subagent works on past the main turn.
            Some("assistant.turn_end") => {
                let scope = str_of(&v, "agentId").unwrap_or(MAIN);
                s.turn_ends.push(TurnEnd {
                    line,
                    scope: Some(scope.to_owned()),
                });
            }
            Some("abort" | "result") => s.turn_ends.push(TurnEnd { line, scope: None }),
            _ => {}
        }
    });
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_failures_mcp_and_turn_ends() {
        let s = events(&Input::from_bytes(
            concat!(
                r#"{"type":"tool.execution_start","data":{"toolCallId":"c1","toolName":"bash","arguments":{"command":"false"}},"id":"e1","timestamp":"t"}"#,
                "\n",
                r#"{"type":"tool.execution_complete","data":{"toolCallId":"c1","success":true,"shellExecution":{"exitCode":1},"result":{"content":""}},"id":"e2","timestamp":"t"}"#,
                "\n",
                r#"{"type":"tool.execution_start","data":{"toolCallId":"c2","toolName":"amalgm-browser_navigate","mcpServerName":"amalgm","mcpToolName":"browser_navigate","arguments":{"url":"https://x"}},"id":"e3","timestamp":"t"}"#,
                "\n",
                r#"{"type":"assistant.turn_end","data":{"turnId":"0"},"id":"e4","timestamp":"t"}"#,
                "\n"
            )
            .as_bytes(),
        ));
        assert_eq!(s.get("c1").unwrap().failed_line, Some(2));
        let c2 = s.get("c2").unwrap();
        assert_eq!(c2.mcp, Some(("amalgm".into(), "browser_navigate".into())));
        assert_eq!(
            c2.tool_args.get("url"),
            Some(&serde_json::json!("https://x"))
        );
        assert_eq!(
            s.turn_ends,
            vec![TurnEnd {
                line: 4,
                scope: Some("main".into())
            }]
        );
    }
}
