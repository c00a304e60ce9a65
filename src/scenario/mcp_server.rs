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

impl ServerCommand {
    /// Fail unless the program is there to be started. An agent CLI that cannot start an MCP
    /// server goes on without its tools (OpenCode answers every call "unavailable tool"), so a
    /// toolnorm rebuilt or removed while it runs — Linux then names the running executable
    /// `<path> (deleted)` — would record a session without the server instead of failing.
    pub fn ensure_present(&self) -> anyhow::Result<()> {
        if std::path::Path::new(&self.program).is_file() {
            return Ok(());
        }
        anyhow::bail!(
            "the fixture MCP server's program {} is not there (was toolnorm rebuilt or removed \
             while it runs?): the agent could not start the server; run the scenario again",
            self.program
        )
    }
}

/// Whether the model heard back from this server: `Some(true)` when `log` (the scripted model
/// server's request log) holds the answer to one of `calls` (the scripted calls, as (name,
/// input)), `Some(false)` when it holds none, `None` when no call names one of this server's
/// tools. A call names a tool however the agent spells MCP tools: `mcp__amalgm__browser_navigate`,
/// `amalgm_browser_navigate`, `mcp_amalgm_browser_navigate`, or the bare tool in a namespace. The
/// first line of each answer is looked for, as written and JSON-escaped. An agent that could not
/// start or connect the server never shows the model one, whether it declares MCP tools up
/// front or defers them behind a tool search.
pub fn answered<'a>(
    calls: impl IntoIterator<Item = (&'a str, &'a Value)>,
    log: &str,
) -> Option<bool> {
    let tools = tools();
    let names: Vec<&str> = tools
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t.get("name").and_then(Value::as_str))
        .collect();
    let mut asked = false;
    for (name, input) in calls {
        let Some(tool) = names.iter().find(|t| {
            name == **t
                || name
                    .strip_suffix(**t)
                    .is_some_and(|prefix| prefix.ends_with('_'))
        }) else {
            continue;
        };
        asked = true;
        let (text, _) = call(tool, input);
        let first = text.lines().next().unwrap_or_default();
        let escaped = Value::String(first.to_owned()).to_string();
        let escaped = &escaped[1..escaped.len() - 1];
        if !first.is_empty() && (log.contains(first) || log.contains(escaped)) {
            return Some(true);
        }
    }
    asked.then_some(false)
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
    fn a_missing_program_is_refused() {
        let here = ServerCommand {
            program: std::env::current_exe().unwrap().display().to_string(),
            args: vec![SUBCOMMAND.to_owned()],
        };
        here.ensure_present().unwrap();
        let gone = ServerCommand {
            program: format!("{} (deleted)", here.program),
            args: here.args.clone(),
        };
        let err = gone.ensure_present().unwrap_err().to_string();
        assert!(err.contains("(deleted) is not there"), "{err}");
    }

    #[test]
    fn answers_are_found_in_any_spelling_of_the_tools() {
        let nav = json!({"url": "https://example.com"});
        let snap = json!({});
        // OpenCode's request after its call, and after a call to a tool it did not have.
        let served = r#"{"body":{"messages":[{"role":"tool","content":"Navigated to https://example.com\nPage title: Example Domain"}]}}"#;
        let unserved = r#"{"body":{"messages":[{"role":"tool","content":"Model tried to call unavailable tool 'amalgm_browser_navigate'"}]}}"#;
        for name in [
            "amalgm_browser_navigate",
            "mcp__amalgm__browser_navigate",
            "mcp_amalgm_browser_navigate",
            "browser_navigate",
        ] {
            assert_eq!(answered([(name, &nav)], served), Some(true), "{name}");
            assert_eq!(answered([(name, &nav)], unserved), Some(false), "{name}");
        }
        // An answer with quotes is looked for JSON-escaped too.
        let quoted = r#"{"content":"- document "Example Domain"
  - heading"}"#;
        assert_eq!(
            answered([("mcp__amalgm__browser_snapshot", &snap)], quoted),
            Some(true)
        );
        // No call to this server's tools: nothing to say.
        assert_eq!(
            answered([("Bash", &nav), ("xbrowser_navigate", &nav)], ""),
            None
        );
        assert_eq!(answered([], served), None);
    }

    #[test]
    fn failure_when_an_argument_says_fail() {
        assert!(call("browser_navigate", &json!({"url": "https://fail.example"})).1);
        assert!(!call("browser_navigate", &json!({"url": "https://example.com"})).1);
    }
}
