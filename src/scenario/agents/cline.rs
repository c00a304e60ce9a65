//! Cline's CLI (`cline` on npm): `cline --json PROMPT` recorded in wrap mode, or `cline --acp`
//! driven as an ACP client. It runs on its `openai-compatible` provider, which
//! `~/.cline/data/settings/providers.json` points at the model server (what `cline auth -p openai
//! -b URL -k KEY -m MODEL` writes), and gets the fixture MCP server from the settings file
//! `CLINE_MCP_SETTINGS_PATH` names. `CLINE_SESSION_BACKEND_MODE=local` keeps the session in the
//! CLI's own process: otherwise a run starts Cline's hub daemon, which outlives it. Anything else
//! it would reach (telemetry, feature flags, updates) is behind a closed proxy port.

use serde_json::{Value, json};

use super::{Driven, Launcher, joined, wrapped};
use crate::providers::cline::tools::BUILTINS;
use crate::scenario::launch::{API_KEY, AgentCommand, Launch, Setup, write};
use crate::scenario::mcp_server::SERVER_NAME;
use crate::scenario::package::{Cli, Declared, Registry};
use crate::stream::Dialect;

/// `cline --json PROMPT`, or `cline --acp`.
pub struct Cline {
    acp: bool,
}

/// `cline --json PROMPT`, recorded in wrap mode.
pub const JSON: Cline = Cline { acp: false };
/// `cline --acp`: configured and started so, driven by the ACP launcher.
pub const ACP: Cline = Cline { acp: true };

/// Cline's CLI (`cline`).
pub static CLI: Cli = Cli {
    package: "cline",
    registry: Registry::Npm,
    bin: "cline",
    display: "cline",
    aliases: &["cline-cli"],
    node: true,
    ripgrep: false,
    newest_first: false,
    declared: Some(Declared::Call(Dialect::ClineJson, call)),
};

/// A `cline --json` line that starts a call of `tool` with empty input.
fn call(tool: &str) -> Value {
    json!({"ts": "2026-01-01T00:00:00.000Z", "type": "agent_event", "event": {
        "type": "content_start", "contentType": "tool", "toolName": tool,
        "toolCallId": "c1", "input": {}}})
}

/// The model id the provider is given; a GPT or Codex model id would get `apply_patch` instead
/// of `editor` (Cline's model-tool routing).
const MODEL: &str = "scripted";

/// The fixture MCP server's tools as Cline names them.
const MCP_TOOLS: &[&str] = &[
    "amalgm__browser_navigate",
    "amalgm__browser_snapshot",
    "amalgm__browser_tabs_new",
    "amalgm__artifacts_register",
];

const ALL_TOOLS: [&str; BUILTINS.len() + MCP_TOOLS.len()] = joined(BUILTINS, MCP_TOOLS);

/// The tools Cline 3.0 can declare to the model (the provider's table of them,
/// `providers::cline::tools::BUILTINS`), and the fixture MCP server's tools as Cline names them.
pub const TOOLS: &[&str] = &ALL_TOOLS;

impl Launcher for Cline {
    fn configure(&self, setup: &Setup<'_>, cmd: &mut AgentCommand) -> anyhow::Result<()> {
        let settings = setup.scratch.home.join(".cline/data/settings");
        let model = setup
            .scenario
            .env
            .get("CLINE_MODEL")
            .map_or(MODEL, String::as_str);
        let providers = json!({
            "version": 1,
            "lastUsedProvider": "openai-compatible",
            "modes": {},
            "providers": {"openai-compatible": {
                "settings": {
                    "provider": "openai-compatible",
                    "apiKey": API_KEY,
                    "model": model,
                    "baseUrl": format!("{}/v1", setup.model_url),
                },
                // Without it the entry is dropped and the file rewritten for Cline's own
                // provider.
                "updatedAt": "2026-01-01T00:00:00.000Z",
                "tokenSource": "manual"
            }}
        });
        write(
            &settings.join("providers.json"),
            &serde_json::to_string_pretty(&providers)?,
        )?;
        // Telemetry off, as a user opts out (`global-settings.json`, read from the same folder):
        // otherwise every run ends by retrying its OpenTelemetry export to otel.cline.bot, which
        // the closed proxy refuses, with a backoff: 8 s of a 10 s scenario.
        write(
            &settings.join("global-settings.json"),
            &serde_json::to_string_pretty(&json!({"telemetryOptOut": true}))?,
        )?;
        let mcp_path = settings.join("cline_mcp_settings.json");
        let servers = if setup.scenario.mcp {
            json!({SERVER_NAME: {"command": setup.mcp.program, "args": setup.mcp.args}})
        } else {
            json!({})
        };
        write(
            &mcp_path,
            &serde_json::to_string_pretty(&json!({"mcpServers": servers}))?,
        )?;
        cmd.env("CLINE_MCP_SETTINGS_PATH", mcp_path.display().to_string())
            .env("CLINE_SESSION_BACKEND_MODE", "local")
            .env("CLINE_NO_AUTO_UPDATE", "1")
            .env("HTTPS_PROXY", "http://127.0.0.1:9")
            .env("HTTP_PROXY", "http://127.0.0.1:9")
            .env("NO_PROXY", "127.0.0.1,localhost");
        if self.acp {
            // `cline --acp` refuses `session/new` ("Authentication required") unless one of its
            // sign-ins (Cline, ClinePass, ChatGPT) is stored or `CLINE_API_KEY` is set, and then
            // runs on Cline's own provider unless `CLINE_PROVIDER` names another: the
            // openai-compatible one of `providers.json`, with this key.
            cmd.env("CLINE_API_KEY", API_KEY)
                .env("CLINE_PROVIDER", "openai-compatible");
        }
        Ok(())
    }

    fn command(&self, setup: &Setup<'_>, cmd: &mut AgentCommand) {
        let s = setup.scenario;
        if self.acp {
            cmd.arg("--acp");
        } else {
            cmd.arg("--json");
        }
        // `ask`: nothing is approved beforehand, and a headless run cannot ask.
        if s.permission_mode.as_deref() == Some("ask") {
            cmd.arg("--auto-approve").arg("false");
        }
        for a in &s.args {
            cmd.arg(a.clone());
        }
        if !self.acp {
            cmd.arg(s.prompt.clone());
        }
    }

    fn drive(&self, launch: &Launch<'_>) -> anyhow::Result<Driven> {
        let interrupt = launch.scenario.interrupt_after_secs;
        let out = wrapped(launch, launch.interrupt())?;
        // Refused calls end the run (`run_aborted`): the rest of the script is not played.
        let aborted = String::from_utf8_lossy(&out).contains("\"type\":\"run_aborted\"");
        Ok(Driven {
            problems: Vec::new(),
            dismissed: aborted && interrupt.is_none(),
        })
    }
}
