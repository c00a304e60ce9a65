//! GitHub Copilot CLI: `copilot -p PROMPT --output-format json --allow-all` recorded in wrap mode
//! (or, for `copilot-acp`, `copilot --acp` driven as an ACP client). It runs offline on its
//! documented custom-provider settings: `COPILOT_PROVIDER_BASE_URL` points it at the model server
//! (the Chat Completions API), `COPILOT_OFFLINE=true` turns off GitHub sign-in, telemetry, web
//! tools, the GitHub MCP server and updates. The fixture MCP server comes in
//! `--additional-mcp-config`.

use serde_json::{Value, json};

use super::{Driven, Launcher, wrapped};
use crate::scenario::launch::{API_KEY, AgentCommand, Launch, Setup};
use crate::scenario::mcp_server::SERVER_NAME;
use crate::scenario::package::{Cli, Declared, Registry};
use crate::stream::Dialect;

/// `copilot -p PROMPT --output-format json`, or `copilot --acp`.
pub struct Copilot {
    acp: bool,
}

/// `copilot -p PROMPT --output-format json --allow-all`, recorded in wrap mode.
pub const PROMPT: Copilot = Copilot { acp: false };
/// `copilot --acp`: configured and started so, driven by the ACP launcher.
pub const ACP: Copilot = Copilot { acp: true };

pub static CLI: Cli = Cli {
    package: "@github/copilot",
    registry: Registry::Npm,
    bin: "copilot",
    display: "copilot",
    aliases: &["copilot-cli"],
    node: true,
    ripgrep: false,
    newest_first: false,
    declared: Some(Declared::Call(Dialect::CopilotJson, call)),
};

/// A `copilot --output-format json` line that starts a call of `tool` with empty input.
fn call(tool: &str) -> Value {
    json!({"type": "tool.execution_start", "data": {"toolCallId": "c1",
        "toolName": tool, "arguments": {}}, "id": "e1",
        "timestamp": "2026-01-01T00:00:00.000Z"})
}

/// The model name the CLI is given (and sends to the model server).
const MODEL: &str = "scripted";

/// The tools Copilot CLI 1.0.102 declares to the model in `-p` mode, and the fixture MCP server's
/// tools as it names them.
pub const TOOLS: &[&str] = &[
    "bash",
    "read_bash",
    "write_bash",
    "stop_bash",
    "list_bash",
    "view",
    "create",
    "edit",
    "apply_patch",
    "grep",
    "glob",
    "task",
    "read_agent",
    "list_agents",
    "write_agent",
    "skill",
    "sql",
    "session_store_sql",
    "fetch_copilot_cli_documentation",
    "report_intent",
    "task_complete",
    "exit_plan_mode",
    "update_todo",
    "web_fetch",
    "web_search",
    "ask_user",
    "amalgm-browser_navigate",
    "amalgm-browser_snapshot",
    "amalgm-browser_tabs_new",
    "amalgm-artifacts_register",
];

impl Launcher for Copilot {
    fn configure(&self, setup: &Setup<'_>, cmd: &mut AgentCommand) -> anyhow::Result<()> {
        cmd.env("COPILOT_OFFLINE", "true")
            .env(
                "COPILOT_PROVIDER_BASE_URL",
                format!("{}/v1", setup.model_url),
            )
            .env("COPILOT_PROVIDER_API_KEY", API_KEY)
            .env("COPILOT_MODEL", MODEL)
            .env("COPILOT_AUTO_UPDATE", "false")
            // Anything else it would reach (it should reach nothing offline) hits a closed port.
            .env("HTTPS_PROXY", "http://127.0.0.1:9")
            .env("HTTP_PROXY", "http://127.0.0.1:9")
            .env("NO_PROXY", "127.0.0.1,localhost");
        Ok(())
    }

    fn command(&self, setup: &Setup<'_>, cmd: &mut AgentCommand) {
        let s = setup.scenario;
        if self.acp {
            cmd.arg("--acp");
        } else {
            cmd.arg("-p")
                .arg(s.prompt.clone())
                .arg("--output-format")
                .arg("json");
        }
        match s.permission_mode.as_deref() {
            // Tools allowed one by one (`--allow-tool`), the rest refused.
            Some("ask") => {}
            _ => {
                cmd.arg("--allow-all");
            }
        }
        cmd.arg("--no-auto-update").arg("--disable-builtin-mcps");
        if s.mcp {
            let mut args = vec![setup.mcp.program.clone()];
            args.extend(setup.mcp.args.iter().cloned());
            let config = json!({"mcpServers": {SERVER_NAME: {
                "type": "local",
                "command": args[0],
                "args": args[1..],
                "tools": ["*"]
            }}});
            cmd.arg("--additional-mcp-config").arg(config.to_string());
        }
        for a in &s.args {
            cmd.arg(a.clone());
        }
    }

    fn drive(&self, launch: &Launch<'_>) -> anyhow::Result<Driven> {
        let out = wrapped(launch, launch.interrupt())?;
        // In autopilot, `task_complete` ends the session: the rest of the script is not played.
        let completed = String::from_utf8_lossy(&out).contains("\"toolName\":\"task_complete\"")
            && launch.scenario.args.iter().any(|a| a == "--autopilot");
        Ok(Driven {
            problems: Vec::new(),
            dismissed: completed,
        })
    }
}
