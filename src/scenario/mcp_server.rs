//! The fixture MCP server (`toolnorm mcp-fixture-server`): a stdio JSON-RPC server exposing an
//! `amalgm` server's browser and artifact tools with scripted results, and `isError` failures
//! whenever an argument contains "fail". The agent CLIs start it themselves, from the command
//! [`launch_command`] gives.

use std::io::{self, BufRead, Write};

use anyhow::Context;
use serde_json::{Value, json};

/// The protocol version answered when the client names none.
const DEFAULT_PROTOCOL: &str = "2025-06-18";

/// The `toolnorm` subcommand that serves this server on stdio.
pub const SUBCOMMAND: &str = "mcp-fixture-server";

/// The name the agents know the server by (its tools are `amalgm`'s).
pub const SERVER_NAME: &str = "amalgm";

/// How an agent CLI starts the server: a program and its arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerCommand {
    pub program: String,
    pub args: Vec<String>,
}

/// This `toolnorm` executable with [`SUBCOMMAND`].
pub fn launch_command() -> anyhow::Result<ServerCommand> {
    let exe = std::env::current_exe().context("failed to locate the toolnorm executable")?;
    Ok(ServerCommand {
        program: exe.display().to_string(),
        args: vec![SUBCOMMAND.to_owned()],
    })
}

/// The tools this server lists.
pub fn tools() -> Value {
    json!([
        {
            "name": "browser_navigate",
            "description": "Navigate the browser tab to a URL.",
            "inputSchema": {"type": "object", "properties": {"url": {"type": "string", "description": "The URL to open"}}, "required": ["url"]}
        },
        {
            "name": "browser_snapshot",
            "description": "Capture an accessibility snapshot of the current page.",
            "inputSchema": {"type": "object", "properties": {"selector": {"type": "string", "description": "Optional CSS selector to scope the snapshot"}}}
        },
        {
            "name": "browser_tabs_new",
            "description": "Open a new browser tab, optionally at a URL.",
            "inputSchema": {"type": "object", "properties": {"url": {"type": "string", "description": "The URL to open in the new tab"}}}
        },
        {
            "name": "artifacts_register",
            "description": "Register a file in the workspace as an artifact.",
            "inputSchema": {"type": "object", "properties": {
                "path": {"type": "string", "description": "Workspace path of the artifact"},
                "title": {"type": "string", "description": "Human title of the artifact"}
            }, "required": ["path"]}
        }
    ])
}

/// The scripted result of one tool call: `(text, is_error)`.
pub fn call(name: &str, args: &Value) -> (String, bool) {
    let arg = |k: &str| {
        args.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    if args.to_string().contains("fail") {
        let what = match name {
            "browser_navigate" | "browser_tabs_new" => {
                format!("net::ERR_NAME_NOT_RESOLVED at {}", arg("url"))
            }
            "artifacts_register" => format!("artifact path not found: {}", arg("path")),
            _ => format!("{name} failed"),
        };
        return (what, true);
    }
    match name {
        "browser_navigate" => (format!("Navigated to {}\nPage title: Example Domain", arg("url")), false),
        "browser_snapshot" => (
            "- document \"Example Domain\"\n  - heading \"Example Domain\" [level=1]\n  - paragraph: This domain is for use in illustrative examples.\n  - link \"More information...\""
                .to_owned(),
            false,
        ),
        "browser_tabs_new" => {
            let url = arg("url");
            (if url.is_empty() { "Opened tab 2 (about:blank)".to_owned() } else { format!("Opened tab 2 at {url}") }, false)
        }
        "artifacts_register" => {
            let path = arg("path");
            (format!("Registered artifact art_0001 for {path}"), false)
        }
        other => (format!("unknown tool: {other}"), true),
    }
}

/// Answer one JSON-RPC message; `None` for notifications.
pub fn answer(msg: &Value) -> Option<Value> {
    let id = msg.get("id")?.clone();
    let method = msg
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let params = msg.get("params").cloned().unwrap_or(Value::Null);
    let result = match method {
        "initialize" => {
            let version = params
                .get("protocolVersion")
                .and_then(Value::as_str)
                .unwrap_or(DEFAULT_PROTOCOL);
            json!({
                "protocolVersion": version,
                "capabilities": {"tools": {"listChanged": false}},
                "serverInfo": {"name": "amalgm", "version": env!("CARGO_PKG_VERSION")}
            })
        }
        "ping" => json!({}),
        "tools/list" => json!({"tools": tools()}),
        "resources/list" => json!({"resources": []}),
        "resources/templates/list" => json!({"resourceTemplates": []}),
        "prompts/list" => json!({"prompts": []}),
        "tools/call" => {
            let name = params
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let args = params
                .get("arguments")
                .cloned()
                .unwrap_or_else(|| json!({}));
            let (text, is_error) = call(name, &args);
            json!({"content": [{"type": "text", "text": text}], "isError": is_error})
        }
        other => {
            return Some(
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": format!("method not found: {other}")}}),
            );
        }
    };
    Some(json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

/// Serve newline-delimited JSON-RPC from `input` to `output` until end of input.
pub fn serve(input: impl BufRead, mut output: impl Write) -> io::Result<()> {
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let reply = match serde_json::from_str::<Value>(&line) {
            Ok(msg) => answer(&msg),
            Err(e) => Some(
                json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": format!("parse error: {e}")}}),
            ),
        };
        if let Some(r) = reply {
            writeln!(output, "{r}")?;
            output.flush()?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_when_an_argument_says_fail() {
        assert!(call("browser_navigate", &json!({"url": "https://fail.example"})).1);
        assert!(!call("browser_navigate", &json!({"url": "https://example.com"})).1);
    }
}
