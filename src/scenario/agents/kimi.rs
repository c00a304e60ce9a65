//! Kimi CLI (`kimi-cli` on PyPI, Moonshot AI): `kimi --print --output-format stream-json -p
//! PROMPT` recorded in wrap mode (print mode approves every call itself and dismisses
//! `AskUserQuestion`), or `kimi acp` driven as an ACP client. It runs on an
//! `openai_legacy` provider (OpenAI chat completions) that `~/.kimi/config.toml` points at the
//! model server, as its default model. `kimi acp` refuses `session/new` ("Authentication
//! required") unless a Kimi Code sign-in is stored (`~/.kimi/credentials/kimi-code.json`), even
//! when the default model is another provider's: a placeholder token is written, which nothing
//! uses (the scripted provider has its own key). Telemetry is off in the configuration; anything
//! else it would reach is behind a closed proxy port. The fixture MCP server is passed in
//! `session/new`, as an editor passes it; in print mode in `--mcp-config`.

use serde_json::{Value, json};

use super::{Driven, Launcher, joined, wrapped};
use crate::providers::kimi::tools::BUILTINS;
use crate::scenario::launch::{API_KEY, AgentCommand, Launch, Setup, merged_toml, write};
use crate::scenario::mcp_server::SERVER_NAME;
use crate::scenario::package::{Cli, Declared, Registry};
use crate::stream::Dialect;

/// `kimi --print --output-format stream-json -p PROMPT`, or `kimi acp`.
pub struct Kimi {
    acp: bool,
}

/// `kimi --print --output-format stream-json -p PROMPT`, recorded in wrap mode.
pub const PRINT: Kimi = Kimi { acp: false };
/// `kimi acp`: configured so, driven by the ACP launcher.
pub const ACP: Kimi = Kimi { acp: true };

/// Kimi CLI (`kimi`).
pub static CLI: Cli = Cli {
    package: "kimi-cli",
    // Its Requires-Python is >=3.12, but under 3.12.1 it fails on import (`super(type, obj)`
    // in `typing`'s `__orig_class__` assignment on its slotted `SlashCommand`); 3.13 runs it.
    registry: Registry::Pypi { python: "3.13" },
    bin: "kimi",
    display: "kimi-cli",
    aliases: &["kimi-code"],
    node: false,
    ripgrep: false,
    newest_first: false,
    declared: Some(Declared::Call(Dialect::Acp, call)),
};

/// The ACP lines of `kimi acp` starting a call of `tool` with empty input: the `initialize`
/// exchange (who the agent is) and the `tool_call` update, titled as Kimi titles a call with no
/// key argument (the tool's name).
fn call(tool: &str) -> Value {
    // The fixture MCP server's tools, which Kimi declares bare, are that server's when the
    // session declared it (as `session/new` does in the scenarios).
    let servers = if FIXTURE_MCP_TOOLS.contains(&tool) {
        json!([{"name": SERVER_NAME, "command": "toolnorm", "args": [], "env": []}])
    } else {
        json!([])
    };
    json!([
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}},
        {"jsonrpc": "2.0", "id": 1, "method": "session/new",
            "params": {"cwd": "/w", "mcpServers": servers}},
        {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1,
            "agentInfo": {"name": "Kimi Code CLI", "version": "1.51.0"}}},
        {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s",
            "update": {"sessionUpdate": "tool_call", "toolCallId": "t/c1", "title": tool,
                "status": "in_progress",
                "content": [{"type": "content", "content": {"type": "text", "text": "{}"}}]}}}
    ])
}

/// The fixture MCP server's tools, as Kimi declares them (bare).
const FIXTURE_MCP_TOOLS: &[&str] = &[
    "browser_navigate",
    "browser_snapshot",
    "browser_tabs_new",
    "artifacts_register",
];

const ALL_TOOLS: [&str; BUILTINS.len() + FIXTURE_MCP_TOOLS.len()] =
    joined(BUILTINS, FIXTURE_MCP_TOOLS);

/// The tools Kimi CLI 1.51 can declare to the model: the provider's table of its built-ins
/// (`providers::kimi::tools::BUILTINS`: the default agent's, the `okabe` agent's `SendDMail`,
/// `Think`, in the default agent's file but commented out), and the fixture MCP server's tools
/// as Kimi names them (the tool's own name).
pub const TOOLS: &[&str] = &ALL_TOOLS;

impl Launcher for Kimi {
    fn configure(&self, setup: &Setup<'_>, cmd: &mut AgentCommand) -> anyhow::Result<()> {
        let share = setup.scratch.home.join(".kimi");
        let config = format!(
            "default_model = \"scripted\"\n\
             telemetry = false\n\
             \n\
             [providers.scripted]\n\
             type = \"openai_legacy\"\n\
             base_url = \"{}/v1\"\n\
             api_key = \"{API_KEY}\"\n\
             \n\
             [models.scripted]\n\
             provider = \"scripted\"\n\
             model = \"scripted\"\n\
             max_context_size = 128000\n",
            setup.model_url
        );
        write(
            &share.join("config.toml"),
            &merged_toml(&config, setup.scenario)?,
        )?;
        // A stored sign-in `session/new` asks for; never used (see the module's doc).
        let token = json!({
            "access_token": "placeholder-not-used",
            "refresh_token": "",
            "expires_at": 0,
            "scope": "",
            "token_type": "Bearer",
            "expires_in": 0
        });
        write(
            &share.join("credentials/kimi-code.json"),
            &serde_json::to_string_pretty(&token)?,
        )?;
        cmd.env("HTTPS_PROXY", "http://127.0.0.1:9")
            .env("HTTP_PROXY", "http://127.0.0.1:9")
            .env("NO_PROXY", "127.0.0.1,localhost");
        Ok(())
    }

    fn command(&self, setup: &Setup<'_>, cmd: &mut AgentCommand) {
        if self.acp {
            cmd.arg("acp");
            return;
        }
        let s = setup.scenario;
        cmd.arg("--print").arg("--output-format").arg("stream-json");
        if s.mcp {
            let servers = json!({"mcpServers": {SERVER_NAME: {
                "command": setup.mcp.program, "args": setup.mcp.args}}});
            cmd.arg("--mcp-config").arg(servers.to_string());
        }
        for a in &s.args {
            cmd.arg(a.clone());
        }
        cmd.arg("-p").arg(s.prompt.clone());
    }

    fn drive(&self, launch: &Launch<'_>) -> anyhow::Result<Driven> {
        if self.acp {
            anyhow::bail!("`kimi acp` is driven by the ACP launcher");
        }
        wrapped(launch, launch.interrupt())?;
        Ok(Driven {
            problems: Vec::new(),
            dismissed: false,
        })
    }
}
