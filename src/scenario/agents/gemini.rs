//! Gemini CLI and its fork Qwen Code: `gemini -p PROMPT --output-format stream-json` (`qwen`
//! likewise) recorded in wrap mode, or `--acp` driven through the ACP launcher. Both read a
//! `settings.json` in the scratch HOME (`~/.gemini/`, `~/.qwen/`), which switches off every
//! network call beside the model's — update checks, usage statistics, telemetry — and gives them
//! the fixture MCP server. Gemini CLI reaches the scripted model's Gemini API through
//! `GOOGLE_GEMINI_BASE_URL` with a dummy `GEMINI_API_KEY`; Qwen Code its Chat Completions API
//! through `OPENAI_BASE_URL` / `OPENAI_API_KEY` / `OPENAI_MODEL`.

use std::time::Duration;

use serde_json::{Value, json};

use super::{Driven, Launcher, wrapped};
use crate::scenario::launch::{
    API_KEY, AgentCommand, Launch, Setup, config_overrides, merge_json, write,
};
use crate::scenario::mcp_server::SERVER_NAME;
use crate::scenario::spec::{Agent, Cli, Scenario};
use crate::stream::Dialect;

/// The model the CLIs are told to use (Gemini CLI routes nothing when one is named).
pub const GEMINI_MODEL: &str = "gemini-2.5-flash";
/// Qwen Code's model name on the OpenAI-compatible server.
pub const QWEN_MODEL: &str = "scripted-model";

pub struct Gemini;

/// Where a CLI of the family keeps its settings, under HOME.
fn settings_dir(cli: Cli) -> &'static str {
    if cli == Cli::Qwen { ".qwen" } else { ".gemini" }
}

/// The settings both CLIs read (the shared keys) plus each one's own.
fn settings(setup: &Setup<'_>, cli: Cli) -> anyhow::Result<Value> {
    let s = setup.scenario;
    let mut v = json!({
        "general": {
            "disableAutoUpdate": true,
            "disableUpdateNag": true,
            "enableAutoUpdate": false,
            "enableAutoUpdateNotification": false,
            "checkpointing": {"enabled": false}
        },
        "privacy": {"usageStatisticsEnabled": false},
        "telemetry": {"enabled": false, "logPrompts": false},
        "ui": {"hideTips": true, "hideBanner": true},
        "security": {"folderTrust": {"enabled": false}},
        "ide": {"enabled": false}
    });
    if cli == Cli::Qwen {
        v["security"]["auth"] = json!({"selectedType": "openai"});
        v["model"] = json!({"name": QWEN_MODEL});
    } else {
        v["security"]["auth"] = json!({"selectedType": "gemini-api-key"});
        v["model"] = json!({"name": GEMINI_MODEL});
    }
    if s.mcp {
        v["mcpServers"] = json!({SERVER_NAME: {
            "command": setup.mcp.program,
            "args": setup.mcp.args,
            "trust": s.permission_mode.is_none(),
        }});
    }
    merge_json(&mut v, &config_overrides(s)?);
    Ok(v)
}

/// Settings and environment shared by the native and the ACP launchers.
pub(super) fn configure(setup: &Setup<'_>, cmd: &mut AgentCommand, cli: Cli) -> anyhow::Result<()> {
    write(
        &setup
            .scratch
            .home
            .join(settings_dir(cli))
            .join("settings.json"),
        &serde_json::to_string_pretty(&settings(setup, cli)?)?,
    )?;
    // No relaunch into a child process with a larger heap: one process to record and interrupt.
    cmd.env("GEMINI_CLI_NO_RELAUNCH", "true")
        .env("QWEN_CODE_NO_RELAUNCH", "true")
        .env("NO_BROWSER", "true")
        .env("CI", "true");
    if cli == Cli::Qwen {
        cmd.env("OPENAI_BASE_URL", format!("{}/v1", setup.model_url))
            .env("OPENAI_API_KEY", API_KEY)
            .env("OPENAI_MODEL", QWEN_MODEL);
    } else {
        cmd.env("GOOGLE_GEMINI_BASE_URL", setup.model_url.clone())
            .env("GEMINI_API_KEY", API_KEY)
            .env("GEMINI_MODEL", GEMINI_MODEL);
    }
    Ok(())
}

/// Whether the scenario chose its own `--output-format` (`json`): the default is `stream-json`.
fn own_format(args: &[String]) -> bool {
    args.iter()
        .any(|a| a == "-o" || a == "--output-format" || a.starts_with("--output-format="))
}

impl Launcher for Gemini {
    fn configure(&self, setup: &Setup<'_>, cmd: &mut AgentCommand) -> anyhow::Result<()> {
        configure(setup, cmd, setup.scenario.agent.cli())
    }

    fn command(&self, setup: &Setup<'_>, cmd: &mut AgentCommand) {
        let s = setup.scenario;
        cmd.arg("-p").arg(s.prompt.clone());
        if !own_format(&s.args) {
            cmd.arg("--output-format").arg("stream-json");
        }
        match &s.permission_mode {
            Some(mode) => cmd.arg("--approval-mode").arg(mode.clone()),
            None => cmd.arg("--approval-mode").arg("yolo"),
        };
        for a in &s.args {
            cmd.arg(a.clone());
        }
    }

    /// `--output-format json` is one document written at the end (Gemini CLI's pretty-printed
    /// over many lines): named here, since the recorder sniffs only the first lines.
    fn dialect(&self, s: &Scenario) -> Option<Dialect> {
        let json = s
            .args
            .windows(2)
            .any(|w| matches!(w[0].as_str(), "-o" | "--output-format") && w[1] == "json")
            || s.args.iter().any(|a| a == "--output-format=json");
        match (json, s.agent.cli()) {
            (true, Cli::Gemini) => Some(Dialect::GeminiJson),
            (true, Cli::Qwen) => Some(Dialect::QwenJson),
            _ => None,
        }
    }

    fn drive(&self, launch: &Launch<'_>) -> anyhow::Result<Driven> {
        let s = launch.scenario;
        debug_assert!(matches!(s.agent, Agent::Gemini | Agent::Qwen));
        wrapped(launch, s.interrupt_after_secs.map(Duration::from_secs)).map(|_| Driven::default())
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::scenario::launch::Scratch;
    use crate::scenario::mcp_server::ServerCommand;

    /// The settings file a scenario's launcher writes, read back.
    fn written(s: &Scenario) -> Value {
        let scratch = Scratch::create(&s.name).unwrap();
        let mcp = ServerCommand {
            program: "/bin/toolnorm".to_owned(),
            args: Vec::new(),
        };
        let setup = Setup {
            scenario: s,
            scratch: &scratch,
            model_url: "http://127.0.0.1:1".to_owned(),
            mcp: &mcp,
        };
        let mut cmd = AgentCommand::new(Path::new("agent"));
        configure(&setup, &mut cmd, s.agent.cli()).unwrap();
        let path = scratch
            .home
            .join(settings_dir(s.agent.cli()))
            .join("settings.json");
        let text = std::fs::read_to_string(path).unwrap();
        let _ = std::fs::remove_dir_all(&scratch.root);
        serde_json::from_str(&text).unwrap()
    }

    /// A scenario's `settings` reach `settings.json` table by table: the tools it switches on
    /// are on, the launcher's own keys in the same tables stay, a value it names replaces ours.
    #[test]
    fn scenario_settings_are_merged_into_the_settings_file() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        let s = Scenario::load(&root.join("qwen-todo-list.toml")).unwrap();
        let v = written(&s);
        assert_eq!(v["tools"]["todoWrite"]["enabled"], json!(true));
        assert_eq!(v["tools"]["listDirectory"]["enabled"], json!(true));
        assert_eq!(v["security"]["auth"]["selectedType"], json!("openai"));

        let mut s = s;
        s.config = Some(
            toml::from_str("model = \"flat\"\nsecurity = { folderTrust = { enabled = true } }")
                .unwrap(),
        );
        let v = written(&s);
        assert_eq!(v["security"]["folderTrust"]["enabled"], json!(true));
        assert_eq!(v["security"]["auth"]["selectedType"], json!("openai"));
        assert_eq!(v["model"], json!("flat"));
        assert_eq!(v["general"]["disableAutoUpdate"], json!(true));
        assert!(v.get("tools").is_none());

        // Without settings the tools stay as the release ships them.
        s.config = None;
        assert!(written(&s).get("tools").is_none());
    }
}
