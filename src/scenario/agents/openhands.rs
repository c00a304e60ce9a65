//! The OpenHands CLI (`openhands` on PyPI): `openhands --headless --json --override-with-envs -t
//! PROMPT` recorded in wrap mode. `--override-with-envs` makes it take its model from `LLM_MODEL`
//! (`openai/<id>`: LiteLLM's OpenAI-compatible route), `LLM_BASE_URL` (the model server's `/v1`)
//! and `LLM_API_KEY`; without it a headless run refuses to start until the interactive setup has
//! saved settings. The fixture MCP server goes in `~/.openhands/mcp.json`. LiteLLM reads its
//! bundled model cost map (`LITELLM_LOCAL_MODEL_COST_MAP`) instead of fetching it; what else it
//! would reach (the public skills' `git clone`, telemetry) is behind a closed proxy port and
//! fails at once. `--headless` approves every action itself.
//!
//! `openhands acp` (agent `openhands-acp`) is the same CLI as an ACP agent, as an editor starts
//! it: it takes no model from the environment (its `--override-with-envs` is parsed and then not
//! passed on: the ACP server loads the saved agent only), so the saved agent an interactive
//! setup would write, `~/.openhands/agent_settings.json`, names the model server; the fixture MCP
//! server comes in `session/new`. Its default confirmation mode asks the client before every
//! action (`session/request_permission`, answered by the ACP launcher).

use serde_json::{Value, json};

use super::{Driven, Launcher, joined, wrapped};
use crate::providers::openhands::tools::BUILTINS;
use crate::scenario::launch::{API_KEY, AgentCommand, Launch, Setup, write};
use crate::scenario::mcp_server::{self, SERVER_NAME};
use crate::scenario::package::{Cli, Declared, Registry};
use crate::stream::Dialect;

/// `openhands --headless --json -t PROMPT`, recorded in wrap mode.
pub struct Openhands;

/// `openhands acp`: configured so, driven by the ACP launcher.
pub struct OpenhandsAcp;

/// `openhands acp`.
pub const ACP: OpenhandsAcp = OpenhandsAcp;

/// The OpenHands CLI (`openhands`), which needs Python 3.12 (`Requires-Python: ==3.12.*`).
pub static CLI: Cli = Cli {
    package: "openhands",
    registry: Registry::Pypi { python: "3.12" },
    bin: "openhands",
    display: "openhands",
    aliases: &["openhands-cli"],
    node: false,
    ripgrep: false,
    newest_first: false,
    declared: Some(Declared::Call(Dialect::OpenhandsJson, call)),
};

/// A `--json` line that calls `tool` with empty input: an `MCPToolAction` for a tool of the
/// fixture MCP server (OpenHands declares an MCP tool by its bare name; the CLI has no browser
/// tools of its own), else a call whose action is left out.
fn call(tool: &str) -> Value {
    let fixture = mcp_server::tools()
        .as_array()
        .is_some_and(|t| t.iter().any(|t| t.get("name") == Some(&json!(tool))));
    let action = if fixture {
        json!({"data": {}, "kind": "MCPToolAction"})
    } else {
        Value::Null
    };
    json!({"id": "a1", "timestamp": "2026-01-01T00:00:00.000000", "source": "agent",
        "thought": [], "action": action, "tool_name": tool, "tool_call_id": "c1",
        "tool_call": {"id": "c1", "name": tool, "arguments": "{}", "origin": "completion"},
        "kind": "ActionEvent"})
}

/// The model, as LiteLLM is told it: its OpenAI-compatible route, the model server's id.
const MODEL: &str = "openai/scripted";

/// The fixture MCP server's tools OpenHands declares beside its built-ins: it names them bare
/// (`browser_navigate` is also a built-in, listed once).
const MCP_TOOLS: &[&str] = &["browser_snapshot", "browser_tabs_new", "artifacts_register"];

const ALL_TOOLS: [&str; BUILTINS.len() + MCP_TOOLS.len()] = joined(BUILTINS, MCP_TOOLS);

/// The tools OpenHands (CLI 1.16, SDK and tools 1.21) can declare to the model: the provider's
/// table of them (`providers::openhands::tools::BUILTINS`: the CLI's `terminal`, `file_editor`,
/// `task_tracker`, `task`, `finish`, `think`, `invoke_skill`, the other presets' and tool sets'),
/// and the fixture MCP server's tools.
pub const TOOLS: &[&str] = &ALL_TOOLS;

/// The model as the scenario names it (`LLM_MODEL` in its `env`), else the scripted one.
fn model<'a>(setup: &'a Setup<'_>) -> &'a str {
    setup
        .scenario
        .env
        .get("LLM_MODEL")
        .map_or(MODEL, String::as_str)
}

/// What both modes are started with: LiteLLM's bundled cost map, no banner, unbuffered output,
/// and every other host behind a closed proxy port.
fn offline(cmd: &mut AgentCommand) {
    cmd.env("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        .env("OPENHANDS_SUPPRESS_BANNER", "1")
        // Python buffers a pipe: without this every line comes at the end.
        .env("PYTHONUNBUFFERED", "1")
        .env("HTTPS_PROXY", "http://127.0.0.1:9")
        .env("HTTP_PROXY", "http://127.0.0.1:9")
        .env("https_proxy", "http://127.0.0.1:9")
        .env("http_proxy", "http://127.0.0.1:9")
        .env("NO_PROXY", "127.0.0.1,localhost")
        .env("no_proxy", "127.0.0.1,localhost");
}

impl Launcher for Openhands {
    fn configure(&self, setup: &Setup<'_>, cmd: &mut AgentCommand) -> anyhow::Result<()> {
        if setup.scenario.mcp {
            let servers = json!({"mcpServers": {SERVER_NAME: {
                "command": setup.mcp.program, "args": setup.mcp.args}}});
            write(
                &setup.scratch.home.join(".openhands/mcp.json"),
                &serde_json::to_string_pretty(&servers)?,
            )?;
        }
        cmd.env("LLM_MODEL", model(setup))
            .env("LLM_BASE_URL", format!("{}/v1", setup.model_url))
            .env("LLM_API_KEY", API_KEY);
        offline(cmd);
        Ok(())
    }

    fn command(&self, setup: &Setup<'_>, cmd: &mut AgentCommand) {
        let s = setup.scenario;
        cmd.arg("--headless")
            .arg("--json")
            .arg("--override-with-envs");
        for a in &s.args {
            cmd.arg(a.clone());
        }
        cmd.arg("-t").arg(s.prompt.clone());
    }

    fn drive(&self, launch: &Launch<'_>) -> anyhow::Result<Driven> {
        let interrupt = launch.scenario.interrupt_after_secs;
        let out = wrapped(launch, launch.interrupt())?;
        // The `finish` tool ends the run: the rest of the script is not played.
        let finished = String::from_utf8_lossy(&out).contains("\"kind\": \"FinishAction\"");
        Ok(Driven {
            problems: Vec::new(),
            dismissed: finished && interrupt.is_none(),
        })
    }
}

/// The saved agent `openhands acp` loads (`~/.openhands/agent_settings.json`, the SDK's `Agent`
/// as pydantic dumps it): only its model; the CLI adds its tools, skills and MCP servers when it
/// loads it, as it does for an agent the interactive setup saved.
fn agent_settings(model: &str, base_url: &str) -> Value {
    json!({"llm": {"model": model, "base_url": base_url, "api_key": API_KEY, "usage_id": "agent"}})
}

impl Launcher for OpenhandsAcp {
    fn configure(&self, setup: &Setup<'_>, cmd: &mut AgentCommand) -> anyhow::Result<()> {
        let settings = agent_settings(model(setup), &format!("{}/v1", setup.model_url));
        write(
            &setup.scratch.home.join(".openhands/agent_settings.json"),
            &serde_json::to_string_pretty(&settings)?,
        )?;
        offline(cmd);
        Ok(())
    }

    fn command(&self, setup: &Setup<'_>, cmd: &mut AgentCommand) {
        cmd.arg("acp");
        for a in &setup.scenario.args {
            cmd.arg(a.clone());
        }
    }

    fn drive(&self, _launch: &Launch<'_>) -> anyhow::Result<Driven> {
        anyhow::bail!("`openhands acp` is driven by the ACP launcher")
    }
}
