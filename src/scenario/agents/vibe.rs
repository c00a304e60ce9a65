//! Mistral Vibe (`mistral-vibe` on PyPI): `vibe-acp` driven as an ACP client, or `vibe -p PROMPT
//! --output json|streaming` (its headless mode, the Rust harness `vibe-rs`) recorded in wrap mode,
//! calls approved with `--auto-approve`, the workspace trusted with `--trust`. It runs on a
//! generic (OpenAI chat completions) provider that `~/.vibe/config.toml` points at the model
//! server, as its active model, the key in the variable the provider names; the fixture MCP
//! server is in the same file (`mcp_servers`). Telemetry is off in the configuration; anything
//! else it would reach is behind a closed proxy port.

use serde_json::{Value, json};

use super::{Driven, Launcher, wrapped};
use crate::scenario::launch::{API_KEY, AgentCommand, Launch, Setup, merged_toml, write};
use crate::scenario::mcp_server::SERVER_NAME;
use crate::scenario::package::{Cli, Declared, Registry};
use crate::scenario::spec::Scenario;
use crate::stream::Dialect;

/// `vibe-acp`, or `vibe -p PROMPT --output FORMAT`.
pub struct Vibe {
    /// The headless mode's `--output` format; `None` for `vibe-acp`.
    output: Option<&'static str>,
}

/// `vibe-acp`: configured so, driven by the ACP launcher.
pub const ACP: Vibe = Vibe { output: None };
/// `vibe -p PROMPT --output json`: the session's messages, one JSON document, at the end.
pub const JSON: Vibe = Vibe {
    output: Some("json"),
};
/// `vibe -p PROMPT --output streaming`: one JSON line per message, as each is done.
pub const STREAMING: Vibe = Vibe {
    output: Some("streaming"),
};

/// Mistral Vibe's ACP server (`vibe-acp`, beside the `vibe` terminal UI).
pub static CLI: Cli = Cli {
    package: "mistral-vibe",
    registry: Registry::Pypi { python: "3.12" },
    bin: "vibe-acp",
    display: "mistral-vibe",
    aliases: &["vibe"],
    node: false,
    ripgrep: true,
    newest_first: false,
    declared: Some(Declared::Call(Dialect::Acp, call)),
};

/// The ACP lines of `vibe-acp` starting a call of `tool` with empty input: the `initialize`
/// exchange (who the agent is) and the `tool_call` update, titled with the tool's name and its
/// name in `_meta.tool_name`, as Vibe sends a call it has no summary for.
fn call(tool: &str) -> Value {
    json!([
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}},
        {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1,
            "agentInfo": {"name": "@mistralai/mistral-vibe", "version": "3.0.2"}}},
        {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s",
            "update": {"sessionUpdate": "tool_call", "toolCallId": "c1", "title": tool,
                "kind": "other", "status": "pending", "rawInput": {},
                "_meta": {"tool_name": tool, "effect_kind": "tool"}}}}
    ])
}

/// The name of the model server's model in Vibe's configuration.
const MODEL: &str = "scripted";

/// The variable Vibe reads the scripted provider's key from.
const KEY_VAR: &str = "SCRIPTED_API_KEY";

/// The tools Mistral Vibe 3.0 can declare to the model: its provider's table of built-ins.
pub const TOOLS: &[&str] = crate::providers::acp::vibe::BUILTINS;

/// Vibe's configuration in the scratch home (`~/.vibe/config.toml`: the scripted provider and
/// model, telemetry off, the fixture MCP server) and its environment; shared by every way of
/// running it (`vibe_app.rs` too).
pub(super) fn configure(setup: &Setup<'_>, cmd: &mut AgentCommand) -> anyhow::Result<()> {
    let home = setup.scratch.home.join(".vibe");
    let mut config = format!(
        "active_model = \"{MODEL}\"\n\
         enable_telemetry = false\n\
         enable_otel = false\n\
         enable_connectors = false\n\
         \n\
         [[providers]]\n\
         name = \"scripted\"\n\
         api_base = \"{}/v1\"\n\
         api_key_env_var = \"{KEY_VAR}\"\n\
         api_style = \"openai\"\n\
         backend = \"generic\"\n\
         \n\
         [[models]]\n\
         name = \"{MODEL}\"\n\
         provider = \"scripted\"\n\
         alias = \"{MODEL}\"\n\
         temperature = 0.0\n",
        setup.model_url
    );
    if setup.scenario.mcp {
        let args: Vec<String> = setup
            .mcp
            .args
            .iter()
            .map(|a| serde_json::to_string(a).unwrap_or_default())
            .collect();
        config.push_str(&format!(
            "\n[[mcp_servers]]\nname = \"{SERVER_NAME}\"\ntransport = \"stdio\"\n\
             command = {}\nargs = [{}]\n",
            serde_json::to_string(&setup.mcp.program)?,
            args.join(", ")
        ));
    }
    write(
        &home.join("config.toml"),
        &merged_toml(&config, setup.scenario)?,
    )?;
    cmd.env("VIBE_HOME", home.display().to_string())
        .env(KEY_VAR, API_KEY)
        .env("HTTPS_PROXY", "http://127.0.0.1:9")
        .env("HTTP_PROXY", "http://127.0.0.1:9")
        .env("NO_PROXY", "127.0.0.1,localhost");
    Ok(())
}

impl Launcher for Vibe {
    fn configure(&self, setup: &Setup<'_>, cmd: &mut AgentCommand) -> anyhow::Result<()> {
        configure(setup, cmd)
    }

    fn command(&self, setup: &Setup<'_>, cmd: &mut AgentCommand) {
        let Some(output) = self.output else {
            return;
        };
        // The package's `vibe` executable, beside `vibe-acp`.
        cmd.program = cmd.program.with_file_name("vibe");
        let s = setup.scenario;
        cmd.arg("--output")
            .arg(output)
            .arg("--auto-approve")
            .arg("--trust");
        for a in &s.args {
            cmd.arg(a.clone());
        }
        cmd.arg("-p").arg(s.prompt.clone());
    }

    fn dialect(&self, _: &Scenario) -> Option<Dialect> {
        match self.output? {
            "json" => Some(Dialect::VibeJson),
            _ => Some(Dialect::VibeStreaming),
        }
    }

    fn drive(&self, launch: &Launch<'_>) -> anyhow::Result<Driven> {
        if self.output.is_none() {
            anyhow::bail!("`vibe-acp` is driven by the ACP launcher");
        }
        wrapped(launch, launch.interrupt())?;
        Ok(Driven {
            problems: Vec::new(),
            dismissed: false,
        })
    }
}
