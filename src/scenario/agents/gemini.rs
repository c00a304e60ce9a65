//! Gemini CLI and its fork Qwen Code: `gemini -p PROMPT --output-format stream-json` (`qwen`
//! likewise) recorded in wrap mode, or `--acp` driven through the ACP launcher. Both read a
//! `settings.json` in the scratch HOME (`~/.gemini/`, `~/.qwen/`), which switches off every
//! network call beside the model's — update checks, usage statistics, telemetry — and gives them
//! the fixture MCP server. Gemini CLI reaches the scripted model's Gemini API through
//! `GOOGLE_GEMINI_BASE_URL` with a dummy `GEMINI_API_KEY`; Qwen Code its Chat Completions API
//! through `OPENAI_BASE_URL` / `OPENAI_API_KEY` / `OPENAI_MODEL`.

use serde_json::{Value, json};

use super::{Driven, Launcher, wrapped};
use crate::providers::gemini::tools::Family;
use crate::scenario::launch::{
    API_KEY, AgentCommand, Launch, Setup, config_overrides, merge_json, write,
};
use crate::scenario::mcp_server::SERVER_NAME;
use crate::scenario::package::{Cli, Declared, Registry};
use crate::scenario::spec::Scenario;
use crate::stream::Dialect;

/// The model the CLIs are told to use (Gemini CLI routes nothing when one is named).
pub const GEMINI_MODEL: &str = "gemini-2.5-flash";
/// Qwen Code's model name on the OpenAI-compatible server.
pub const QWEN_MODEL: &str = "scripted-model";

/// Gemini CLI or Qwen Code, run with `-p` (the ACP launcher starts and drives `--acp`).
pub struct Gemini {
    qwen: bool,
}

pub const GEMINI: Gemini = Gemini { qwen: false };
pub const QWEN: Gemini = Gemini { qwen: true };

/// Google's Gemini CLI.
pub static GEMINI_CLI: Cli = Cli {
    package: "@google/gemini-cli",
    registry: Registry::Npm,
    bin: "gemini",
    display: "gemini-cli",
    aliases: &[],
    node: true,
    ripgrep: true,
    newest_first: false,
    declared: Some(Declared::Family(Family::Gemini)),
};

/// Qwen Code (a fork of Gemini CLI).
pub static QWEN_CLI: Cli = Cli {
    package: "@qwen-code/qwen-code",
    registry: Registry::Npm,
    bin: "qwen",
    display: "qwen-code",
    aliases: &[],
    node: true,
    ripgrep: true,
    newest_first: false,
    declared: Some(Declared::Family(Family::Qwen)),
};

/// Gemini CLI's tools (the built-in ones its releases declare, its subagents, the fixture MCP
/// server's under their declared names).
pub const GEMINI_TOOLS: &[&str] = &[
    "run_shell_command",
    "read_file",
    "read_many_files",
    "write_file",
    "replace",
    "glob",
    "grep_search",
    "search_file_content",
    "list_directory",
    "web_fetch",
    "google_web_search",
    "write_todos",
    "save_memory",
    "ask_user",
    "activate_skill",
    "get_internal_docs",
    "enter_plan_mode",
    "exit_plan_mode",
    "update_topic",
    "complete_task",
    "invoke_agent",
    "list_background_processes",
    "read_background_output",
    "codebase_investigator",
    "cli_help",
    "generalist",
    "tracker_create_task",
    "tracker_update_task",
    "tracker_get_task",
    "tracker_list_tasks",
    "tracker_add_dependency",
    "tracker_visualize",
    "list_mcp_resources",
    "read_mcp_resource",
    "browser_navigate",
    "browser_snapshot",
    "browser_tabs_new",
    "artifacts_register",
    "mcp_amalgm_browser_navigate",
    "mcp_amalgm_browser_snapshot",
    "mcp_amalgm_browser_tabs_new",
    "mcp_amalgm_artifacts_register",
];

/// Qwen Code's tools, likewise.
pub const QWEN_TOOLS: &[&str] = &[
    "run_shell_command",
    "read_file",
    "read_many_files",
    "write_file",
    "edit",
    "glob",
    "grep_search",
    "list_directory",
    "web_fetch",
    "web_search",
    "todo_write",
    "save_memory",
    "agent",
    "task",
    "skill",
    "ask_user_question",
    "exit_plan_mode",
    "enter_plan_mode",
    "lsp",
    "monitor",
    "cron_create",
    "cron_list",
    "cron_delete",
    "task_create",
    "task_update",
    "task_list",
    "task_stop",
    "send_message",
    "list_agents",
    "tool_search",
    "tool_call",
    "get_goal",
    "update_goal",
    "zoom_image",
    "report_findings",
    "enter_worktree",
    "exit_worktree",
    "record_artifact",
    "loop_wakeup",
    "notebook_edit",
    "read_mcp_resource",
    "mcp__amalgm__browser_navigate",
    "mcp__amalgm__browser_snapshot",
    "mcp__amalgm__browser_tabs_new",
    "mcp__amalgm__artifacts_register",
    "browser_navigate",
    "browser_snapshot",
    "browser_tabs_new",
    "artifacts_register",
];

/// Where a CLI of the family keeps its settings, under HOME.
fn settings_dir(qwen: bool) -> &'static str {
    if qwen { ".qwen" } else { ".gemini" }
}

/// The settings both CLIs read (the shared keys) plus each one's own.
fn settings(setup: &Setup<'_>, qwen: bool) -> anyhow::Result<Value> {
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
    if qwen {
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

/// Settings and environment, for `-p` and `--acp` alike.
fn configure(setup: &Setup<'_>, cmd: &mut AgentCommand, qwen: bool) -> anyhow::Result<()> {
    write(
        &setup
            .scratch
            .home
            .join(settings_dir(qwen))
            .join("settings.json"),
        &serde_json::to_string_pretty(&settings(setup, qwen)?)?,
    )?;
    // No relaunch into a child process with a larger heap: one process to record and interrupt.
    cmd.env("GEMINI_CLI_NO_RELAUNCH", "true")
        .env("QWEN_CODE_NO_RELAUNCH", "true")
        .env("NO_BROWSER", "true")
        .env("CI", "true");
    if qwen {
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
        configure(setup, cmd, self.qwen)
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
        match (json, self.qwen) {
            (true, false) => Some(Dialect::GeminiJson),
            (true, true) => Some(Dialect::QwenJson),
            (false, _) => None,
        }
    }

    fn drive(&self, launch: &Launch<'_>) -> anyhow::Result<Driven> {
        wrapped(launch, launch.interrupt()).map(|_| Driven::default())
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
        let base = tempfile::tempdir().unwrap();
        let scratch = Scratch::create_in(base.path(), &s.name).unwrap();
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
        let qwen = s.agent.as_str() == "qwen";
        configure(&setup, &mut cmd, qwen).unwrap();
        let path = scratch.home.join(settings_dir(qwen)).join("settings.json");
        let text = std::fs::read_to_string(path).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    /// A scenario's `settings` reach `settings.json` table by table: the tools it switches on
    /// are on, the launcher's own keys in the same tables stay, a value it names replaces ours.
    #[test]
    fn scenario_settings_are_merged_into_the_settings_file() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        let s = Scenario::load(&root.join("qwen-todo-list.toml"), super::super::problem).unwrap();
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
