//! Factory's droid: `droid exec --output-format stream-json PROMPT` recorded in wrap mode, and
//! `droid exec --output-format acp` driven as an ACP client. droid runs on a custom model without
//! a Factory account once `FACTORY_API_KEY` holds anything (a placeholder, never checked):
//! `~/.factory/settings.json` declares the model server as a BYOK model (`customModels`, the Chat
//! Completions API), `-m custom:Scripted-0` selects it for `exec` and the settings' `model` for ACP;
//! `~/.factory/mcp.json` gives it the fixture MCP server. Its calls to Factory's own services
//! (telemetry, feature flags, updates) go to a closed proxy port, so a run is the same with or
//! without network.

use serde_json::{Value, json};

use super::{Driven, Launcher, wrapped};
use crate::scenario::launch::{
    API_KEY, AgentCommand, Launch, Setup, config_overrides, merge_json, write,
};
use crate::scenario::mcp_server::SERVER_NAME;
use crate::scenario::package::{Cli, Declared, Registry};
use crate::stream::Dialect;

/// `droid exec --output-format stream-json`, or droid configured for ACP.
pub struct Droid {
    acp: bool,
}

/// `droid exec --output-format stream-json PROMPT`, recorded in wrap mode.
pub const EXEC: Droid = Droid { acp: false };
/// droid configured for `droid exec --output-format acp` (the ACP launcher starts and drives it).
pub const ACP: Droid = Droid { acp: true };

/// Factory's droid (`@factory/cli` is the same CLI under a scope).
pub static CLI: Cli = Cli {
    package: "droid",
    registry: Registry::Npm,
    bin: "droid",
    display: "droid",
    aliases: &["factory", "@factory/cli"],
    node: false,
    ripgrep: false,
    newest_first: false,
    declared: Some(Declared::Call(Dialect::DroidStreamJson, call)),
};

/// A droid `stream-json` line that calls `tool` with empty input.
fn call(tool: &str) -> Value {
    json!({"type": "tool_call", "id": "c1", "toolId": tool, "toolName": tool,
        "parameters": {}, "timestamp": 1, "session_id": "s"})
}

/// What `FACTORY_API_KEY` is set to: a placeholder, never sent anywhere that could check it.
const OFFLINE_KEY: &str = "fk-offline-placeholder";

/// The id droid gives the first custom model of `settings.json` (its display name, `-`, index).
pub const MODEL: &str = "custom:Scripted-0";

/// The tools droid 0.215.0 lists in its `system` `init` line, and the fixture MCP server's
/// tools as droid names them.
pub const TOOLS: &[&str] = &[
    "Read",
    "LS",
    "Execute",
    "Edit",
    "ApplyPatch",
    "Grep",
    "Glob",
    "Create",
    "ExitSpecMode",
    "AskUser",
    "WebSearch",
    "TodoWrite",
    "FetchUrl",
    "slack_post_file",
    "slack_post_message",
    "slack_create_or_update_code_channel",
    "slack_archive_code_channel",
    "store_agent_readiness_report",
    "get_agent_effectiveness_usage",
    "render_agent_effectiveness_report",
    "GenerateDroid",
    "UpgradeSessionModel",
    "Script",
    "WaitForScript",
    "TaskOutput",
    "TaskStop",
    "ToolSearch",
    "Skill",
    "ProposeMission",
    "StartMissionRun",
    "EndFeatureRun",
    "DismissHandoffItems",
    "GenerateImage",
    "Loop",
    "Task",
    "amalgm___browser_navigate",
    "amalgm___browser_snapshot",
    "amalgm___browser_tabs_new",
    "amalgm___artifacts_register",
];

impl Launcher for Droid {
    fn configure(&self, setup: &Setup<'_>, cmd: &mut AgentCommand) -> anyhow::Result<()> {
        let factory = setup.scratch.home.join(".factory");
        let mut settings = json!({
            "customModels": [{
                "model": "scripted",
                "displayName": "Scripted",
                "baseUrl": format!("{}/v1", setup.model_url),
                "apiKey": API_KEY,
                "provider": "generic-chat-completion-api",
                "maxOutputTokens": 8192
            }],
            "autoUpdateEnabled": false
        });
        if self.acp {
            // ACP mode starts on Factory's default model; this makes the custom one the default.
            settings["model"] = json!(MODEL);
        }
        merge_json(&mut settings, &config_overrides(setup.scenario)?);
        write(
            &factory.join("settings.json"),
            &serde_json::to_string_pretty(&settings)?,
        )?;
        if setup.scenario.mcp {
            let mcp = json!({"mcpServers": {SERVER_NAME: {
                "type": "stdio",
                "command": setup.mcp.program,
                "args": setup.mcp.args,
            }}});
            write(
                &factory.join("mcp.json"),
                &serde_json::to_string_pretty(&mcp)?,
            )?;
        }
        cmd.env("FACTORY_DROID_AUTO_UPDATE_ENABLED", "false")
            .env("FACTORY_DISABLE_KEYRING", "1")
            // Releases before 0.215.0 refuse to start without a login or a key, even on a BYOK
            // model ("Authentication failed"); a key that is never checked (Factory's API is
            // behind the closed port below) lets every release run on the custom model.
            .env("FACTORY_API_KEY", OFFLINE_KEY)
            // Factory's services (telemetry, flags, updates) behind a closed port: offline or
            // not, they are unreachable; the model server is reached directly.
            .env("HTTPS_PROXY", "http://127.0.0.1:9")
            .env("HTTP_PROXY", "http://127.0.0.1:9")
            .env("NO_PROXY", "127.0.0.1,localhost");
        Ok(())
    }

    fn command(&self, setup: &Setup<'_>, cmd: &mut AgentCommand) {
        let s = setup.scenario;
        cmd.arg("exec")
            .arg("-m")
            .arg(MODEL)
            .arg("--output-format")
            .arg("stream-json");
        match s.permission_mode.as_deref() {
            None => {
                cmd.arg("--skip-permissions-unsafe");
            }
            Some("read-only") => {}
            Some(level) => {
                cmd.arg("--auto").arg(level);
            }
        }
        for a in &s.args {
            cmd.arg(a.clone());
        }
        cmd.arg(s.prompt.clone());
    }

    fn drive(&self, launch: &Launch<'_>) -> anyhow::Result<Driven> {
        let out = wrapped(launch, launch.interrupt())?;
        // A call the autonomy level does not allow ends the run ("Exec ended early: insufficient
        // permission to proceed"): the rest of the script is not played.
        let refused = String::from_utf8_lossy(&out).contains("insufficient permission to proceed");
        Ok(Driven {
            problems: Vec::new(),
            dismissed: refused,
        })
    }
}
