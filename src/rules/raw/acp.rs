//! The rules' scan of ACP traffic: the tool calls of `session/update` (`tool_call`,
//! `tool_call_update`) and of the agent's permission requests, by `toolCallId`; the name an agent
//! states (ACP's `name`, `_meta.toolnorm.name`, or an adapter's `_meta.<agent>.toolName`); a
//! `failed` status, or a permission request the client answered with a `reject_*` option, as the
//! failure marker; the MCP server and tool of `mcp__<server>__<tool>`, or of `<server>_<tool>`
//! (OpenCode's spelling, in the stated name or else the title) after a server the client declared
//! in `session/new`, `session/load` or `session/resume` (`mcpServers[].name`, in OpenCode's
//! spelling: characters other than ASCII letters, digits, `_` and `-` as `_`); a `plan` update as the turn's todo list (`plan-<turn>`, turns counted by the
//! client's `session/prompt` requests); and a `session/prompt` response (`stopReason`) as the end
//! of the turn.

use crate::rules::support::HashMap;

use super::{Markers, Node, RawScan, TurnEnd, for_marked_lines, merge_args, str_of};
use crate::stream::Input;

static MARKERS: Markers = Markers::new(&[
    "toolCallId",
    "stopReason",
    "outcome",
    "\"plan\"",
    "session/prompt",
    "mcpServers",
    "agentInfo",
]);

/// The name `openhands acp` gives itself in its `initialize` response: it asks the client once to
/// run all the calls it has announced, under a call id of its own (`confirmation-<session id>`)
/// that is no call.
const OPENHANDS_ACP: &str = "OpenHands CLI ACP Agent";

/// ACP over stdio, both directions.
pub(crate) fn stdio(input: &Input<'_>) -> RawScan {
    let mut s = RawScan::default();
    // Permission request id (as JSON text) → (call id, reject option ids).
    let mut asked: HashMap<String, (String, Vec<String>)> = HashMap::default();
    // A `plan` update is the todo list of its prompt turn: one call per turn, `plan-<turn>`.
    let mut prompts = 0usize;
    // The MCP servers the client declared: (name as declared, as OpenCode writes it in tool ids).
    let mut servers: Vec<(String, String)> = Vec::new();
    // The agent's name, from its `initialize` response.
    let mut agent: Option<String> = None;
    for_marked_lines(input, &MARKERS, |line, v| {
        let method = str_of(&v, "method");
        let params = v.get("params");
        match method {
            Some("session/prompt") => prompts += 1,
            Some("session/new" | "session/load" | "session/resume") => {
                let declared = params
                    .and_then(|p| p.get("mcpServers"))
                    .and_then(Node::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|m| str_of(m, "name"));
                for name in declared {
                    if servers.len() < MAX_SERVERS && !servers.iter().any(|(n, _)| n == name) {
                        let written = name
                            .chars()
                            .map(|c| match c {
                                'a'..='z' | 'A'..='Z' | '0'..='9' | '_' | '-' => c,
                                _ => '_',
                            })
                            .collect();
                        servers.push((name.to_owned(), written));
                    }
                }
            }
            Some("session/update") => {
                let Some(u) = params.and_then(|p| p.get("update")) else {
                    return;
                };
                if str_of(u, "sessionUpdate") == Some("plan") {
                    let call = s.call(&format!("plan-{}", prompts.max(1)), line);
                    call.item_type.get_or_insert_with(|| "plan".to_owned());
                    return;
                }
                if matches!(
                    str_of(u, "sessionUpdate"),
                    Some("tool_call" | "tool_call_update")
                ) {
                    call_fields(&mut s, line, u, &servers);
                }
            }
            Some("session/request_permission") => {
                let Some(tc) = params.and_then(|p| p.get("toolCall")) else {
                    return;
                };
                if agent.as_deref() == Some(OPENHANDS_ACP)
                    && str_of(tc, "toolCallId").is_some_and(|i| i.starts_with("confirmation-"))
                {
                    return;
                }
                call_fields(&mut s, line, tc, &servers);
                let (Some(id), Some(call)) = (v.get("id"), str_of(tc, "toolCallId")) else {
                    return;
                };
                let rejects = params
                    .and_then(|p| p.get("options"))
                    .and_then(Node::as_array)
                    .into_iter()
                    .flatten()
                    .filter(|o| str_of(o, "kind").is_some_and(|k| k.starts_with("reject")))
                    .filter_map(|o| str_of(o, "optionId").map(str::to_owned))
                    .collect();
                asked.insert(id.to_string(), (call.to_owned(), rejects));
            }
            Some(_) => {}
            None => {
                let result = v.get("result");
                if let Some(name) = result
                    .and_then(|r| r.get("agentInfo"))
                    .and_then(|a| str_of(a, "name"))
                {
                    agent = Some(name.to_owned());
                }
                if result.and_then(|r| r.get("stopReason")).is_some() {
                    s.turn_ends.push(TurnEnd { line, scope: None });
                }
                let outcome = result.and_then(|r| r.get("outcome"));
                let Some((call, rejects)) = v.get("id").and_then(|id| asked.get(&id.to_string()))
                else {
                    return;
                };
                let rejected = match outcome.and_then(|o| str_of(o, "outcome")) {
                    Some("selected") => outcome
                        .and_then(|o| str_of(o, "optionId"))
                        .is_some_and(|id| rejects.iter().any(|r| r == id)),
                    Some("cancelled") => true,
                    _ => false,
                };
                if rejected {
                    s.fail_known(call, line);
                }
            }
        }
    });
    s
}

/// At most this many declared MCP servers are kept.
const MAX_SERVERS: usize = 256;

fn call_fields(s: &mut RawScan, line: u32, u: &Node<'_>, servers: &[(String, String)]) {
    let Some(id) = str_of(u, "toolCallId") else {
        return;
    };
    let meta = u.get("_meta");
    let name = str_of(u, "name")
        .or_else(|| {
            meta.and_then(|m| m.get("toolnorm"))
                .and_then(|t| str_of(t, "name"))
        })
        .or_else(|| {
            meta.and_then(Node::as_object)?
                .iter()
                .find_map(|(_, v)| str_of(v, "toolName"))
        });
    let failed = str_of(u, "status") == Some("failed");
    let call = s.call(id, line);
    call.item_type.get_or_insert_with(|| "tool_call".to_owned());
    if let Some(n) = name {
        call.name = Some(n.to_owned());
        if let Some((server, tool)) = n
            .strip_prefix("mcp__")
            .and_then(|rest| rest.split_once("__"))
        {
            call.mcp = Some((server.to_owned(), tool.to_owned()));
        }
    }
    if call.mcp.is_none()
        && let Some(m) = name
            .or_else(|| str_of(u, "title"))
            .and_then(|n| declared_tool(n.trim(), servers))
    {
        call.mcp = Some(m);
    }
    if let Some(input) = u.get("rawInput") {
        merge_args(&mut call.args, input);
    }
    if failed {
        call.failed_line.get_or_insert(line);
    }
}

/// `<server>_<tool>` after a declared server (the longest that fits), the tool an identifier.
fn declared_tool(name: &str, servers: &[(String, String)]) -> Option<(String, String)> {
    let mut best: Option<(&str, &str)> = None;
    for (declared, written) in servers {
        let Some(tool) = name
            .strip_prefix(written.as_str())
            .and_then(|r| r.strip_prefix('_'))
        else {
            continue;
        };
        let ident = !tool.is_empty()
            && tool
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if ident && best.is_none_or(|(_, t)| tool.len() < t.len()) {
            best = Some((declared, tool));
        }
    }
    best.map(|(s, t)| (s.to_owned(), t.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_failures_rejections_and_turn_ends() {
        let s = stdio(&Input::from_bytes(
            concat!(
                r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"a","title":"Run ls","kind":"execute","rawInput":{"command":"ls"},"_meta":{"claudeCode":{"toolName":"Bash"}}}}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"a","status":"failed"}}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"b","title":"Write x"},"options":[{"optionId":"ok","name":"Allow","kind":"allow_once"},{"optionId":"no","name":"Reject","kind":"reject_once"}]}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"no"}}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[]}}}"#,
                "\n",
            )
            .as_bytes(),
        ));
        let a = s.get("a").unwrap();
        assert_eq!(a.name.as_deref(), Some("Bash"));
        assert_eq!(a.failed_line, Some(2));
        assert_eq!(a.args.get("command"), Some(&serde_json::Value::from("ls")));
        assert_eq!(s.get("b").unwrap().failed_line, Some(4));
        assert_eq!(
            s.turn_ends,
            vec![TurnEnd {
                line: 5,
                scope: None
            }]
        );
        assert_eq!(s.get("plan-2").unwrap().line, 8);
    }

    #[test]
    fn mcp_calls_named_after_declared_servers() {
        let s = stdio(&Input::from_bytes(
            concat!(
                r#"{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[{"name":"amalgm","command":"/s","args":[],"env":[]},{"name":"my.docs","command":"/d","args":[],"env":[]},{"name":"my","command":"/m","args":[],"env":[]}]}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"a","title":"amalgm_browser_navigate","kind":"other","status":"pending","rawInput":{}}}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"b","title":"my_docs_search","kind":"other"}}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"c","title":"github_create_issue","kind":"other"}}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"d","title":"amalgm_open a page","kind":"other"}}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"e","title":"x","kind":"other","_meta":{"claudeCode":{"toolName":"mcp__jira__search"}}}}}"#,
                "\n",
            )
            .as_bytes(),
        ));
        let mcp = |id: &str| s.get(id).unwrap().mcp.clone();
        let pair = |a: &str, b: &str| Some((a.to_owned(), b.to_owned()));
        assert_eq!(mcp("a"), pair("amalgm", "browser_navigate"));
        assert_eq!(mcp("b"), pair("my.docs", "search"));
        assert_eq!(mcp("c"), None, "undeclared");
        assert_eq!(mcp("d"), None, "not a tool id");
        assert_eq!(mcp("e"), pair("jira", "search"));
    }
}
