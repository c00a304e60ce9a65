//! Codex tools whose calls are titled from their name and arguments alone, with no item of
//! their own in `exec --json` or the app server: a command session's input (`write_stdin`), the
//! thread's goal, its context window, messages and permission requests to the user, MCP
//! resources, the tool search, and the agent message board's tools (`features.multi_agent_v2`
//! with `features.agent_message_board`, in the `collaboration` namespace).

use serde_json::Value;

use crate::model::ToolKind;
use crate::providers::titles;

/// The kind and title of a call of `name`, when it is one of these tools.
pub(crate) fn simple_tool(name: &str, args: &Value) -> Option<(ToolKind, String)> {
    let s = |k: &str| {
        args.get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|v| !v.is_empty())
    };
    let labelled = |label: &str, value: Option<&str>, bare: &str| match value {
        Some(v) => titles::finish(&format!("{label} {v}"), bare),
        None => bare.to_owned(),
    };
    let session = args.get("session_id").and_then(|v| {
        v.as_u64()
            .map(|n| n.to_string())
            .or(v.as_str().map(str::to_owned))
    });
    Some(match name {
        "write_stdin" => {
            let target = match &session {
                Some(id) => format!("session {id}"),
                None => "a running command".to_owned(),
            };
            let title = if s("chars").is_some() {
                format!("Writing to {target}")
            } else {
                format!("Reading output of {target}")
            };
            (ToolKind::Bash, title)
        }
        "get_goal" => (ToolKind::Todo, "Reading the goal".to_owned()),
        "create_goal" => (
            ToolKind::Todo,
            labelled("Setting the goal:", s("objective"), "Setting a goal"),
        ),
        "update_goal" => (
            ToolKind::Todo,
            labelled("Marking the goal", s("status"), "Updating the goal"),
        ),
        "get_context_remaining" => (
            ToolKind::Todo,
            "Checking the context window left".to_owned(),
        ),
        "new_context" => (ToolKind::Todo, "Starting a new context".to_owned()),
        "send_message_to_user_async" => (
            ToolKind::Todo,
            labelled(
                "Telling the user:",
                first_line(s("message")),
                "Messaging the user",
            ),
        ),
        "request_permissions" => (
            ToolKind::Question,
            labelled(
                "Asking for permissions:",
                s("reason"),
                "Asking for permissions",
            ),
        ),
        "list_mcp_resources" => (
            ToolKind::Mcp,
            labelled(
                "Listing MCP resources of",
                s("server"),
                "Listing MCP resources",
            ),
        ),
        "list_mcp_resource_templates" => (
            ToolKind::Mcp,
            labelled(
                "Listing MCP resource templates of",
                s("server"),
                "Listing MCP resource templates",
            ),
        ),
        "read_mcp_resource" => (
            ToolKind::Mcp,
            labelled("Reading MCP resource", s("uri"), "Reading an MCP resource"),
        ),
        "tool_search" => (
            ToolKind::Mcp,
            labelled("Searching tools for", s("query"), "Searching tools"),
        ),
        "create_channel" => (
            ToolKind::Subagent,
            labelled(
                "Creating channel",
                s("name").or(s("channel")),
                "Creating a channel",
            ),
        ),
        "get_channels" => (ToolKind::Subagent, "Listing channels".to_owned()),
        "subscribe" => (
            ToolKind::Subagent,
            labelled("Subscribing to", s("channel"), "Subscribing to a channel"),
        ),
        "unsubscribe" => (
            ToolKind::Subagent,
            labelled(
                "Unsubscribing from",
                s("channel"),
                "Unsubscribing from a channel",
            ),
        ),
        "post" => (
            ToolKind::Subagent,
            labelled("Posting to", s("channel"), "Posting a message"),
        ),
        "read_post" => (ToolKind::Subagent, "Reading a post".to_owned()),
        "search_posts" => (
            ToolKind::Subagent,
            labelled("Searching posts for", s("query"), "Searching posts"),
        ),
        "list_threads" => (ToolKind::Subagent, "Listing threads".to_owned()),
        "read_thread" => (ToolKind::Subagent, "Reading a thread".to_owned()),
        _ => return None,
    })
}

/// The first line of a text with something on it.
fn first_line(text: Option<&str>) -> Option<&str> {
    text.and_then(|t| t.lines().map(str::trim).find(|l| !l.is_empty()))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn each_tool_is_titled_from_its_arguments_or_its_name() {
        let t = |name: &str, args: Value| simple_tool(name, &args).unwrap();
        assert_eq!(
            t("write_stdin", json!({"session_id": 3, "chars": "y\n"})),
            (ToolKind::Bash, "Writing to session 3".to_owned())
        );
        assert_eq!(
            t("write_stdin", json!({"session_id": 3})),
            (ToolKind::Bash, "Reading output of session 3".to_owned())
        );
        assert_eq!(
            t("create_goal", json!({"objective": "Ship 2.4"})),
            (ToolKind::Todo, "Setting the goal: Ship 2.4".to_owned())
        );
        assert_eq!(
            t(
                "send_message_to_user_async",
                json!({"message": "\nBuild is green\nmore"})
            ),
            (
                ToolKind::Todo,
                "Telling the user: Build is green".to_owned()
            )
        );
        assert_eq!(
            t(
                "read_mcp_resource",
                json!({"server": "docs", "uri": "docs://a"})
            ),
            (ToolKind::Mcp, "Reading MCP resource docs://a".to_owned())
        );
        assert_eq!(
            t("post", json!({"channel": "release"})),
            (ToolKind::Subagent, "Posting to release".to_owned())
        );
        // Empty or odd arguments: the tool's own words, never its bare name.
        for name in [
            "get_goal",
            "request_permissions",
            "search_posts",
            "tool_search",
        ] {
            let (kind, title) = t(name, json!({"query": 7}));
            assert_ne!(kind, ToolKind::Unknown);
            assert!(!title.is_empty() && title != name, "{name}: {title}");
        }
        assert_eq!(simple_tool("teleport", &json!({})), None);
    }
}
