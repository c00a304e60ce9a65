//! The scenario file format (TOML): which agent CLI at which pinned version, the prompt, the
//! workspace files, and the scripted model turns (with separate scripts for subagents).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Why a scenario file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("failed to read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Parse {
        path: PathBuf,
        source: Box<toml::de::Error>,
    },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
}

/// Which CLI, and how it is driven.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum Agent {
    /// `claude -p --output-format stream-json --verbose`, recorded in wrap mode.
    Claude,
    /// `codex exec --json`, recorded in wrap mode.
    CodexExec,
    /// `codex app-server`, driven over JSON-RPC through the recording proxy.
    CodexAppServer,
    /// `opencode run --format json`, recorded in wrap mode.
    OpencodeRun,
    /// `opencode serve`, its `/event` SSE stream recorded while we post the session.
    OpencodeServe,
    /// Zed's Claude adapter (`claude-agent-acp`), driven as an ACP client through the proxy.
    ClaudeAcp,
    /// Zed's Codex adapter (`codex-acp`), driven as an ACP client through the proxy.
    CodexAcp,
    /// `opencode acp`, driven as an ACP client through the proxy.
    OpencodeAcp,
    /// `kilo run --format json` (Kilo CLI, built on OpenCode), recorded in wrap mode.
    KiloRun,
    /// `kilo serve`, its `/event` SSE stream recorded while we post the session.
    KiloServe,
    /// `kilo acp`, driven as an ACP client through the proxy.
    KiloAcp,
    /// Factory's `droid exec --output-format stream-json`, recorded in wrap mode.
    DroidExec,
    /// `droid exec --output-format acp`, driven as an ACP client through the proxy.
    DroidAcp,
    /// GitHub Copilot CLI, `copilot -p PROMPT --output-format json`, recorded in wrap mode.
    Copilot,
    /// `copilot --acp`, driven as an ACP client through the proxy.
    CopilotAcp,
    /// `gemini -p --output-format stream-json` (or `json`), recorded in wrap mode.
    Gemini,
    /// `gemini --acp`, driven as an ACP client through the proxy.
    GeminiAcp,
    /// `qwen -p --output-format stream-json` (or `json`), recorded in wrap mode.
    Qwen,
    /// `qwen --acp`, driven as an ACP client through the proxy.
    QwenAcp,
    /// Cline's CLI, `cline --json PROMPT`, recorded in wrap mode.
    Cline,
    /// `cline --acp`, driven as an ACP client through the proxy.
    ClineAcp,
}

impl Agent {
    pub fn all() -> [Agent; 21] {
        [
            Agent::Claude,
            Agent::CodexExec,
            Agent::CodexAppServer,
            Agent::OpencodeRun,
            Agent::OpencodeServe,
            Agent::ClaudeAcp,
            Agent::CodexAcp,
            Agent::OpencodeAcp,
            Agent::KiloRun,
            Agent::KiloServe,
            Agent::KiloAcp,
            Agent::DroidExec,
            Agent::DroidAcp,
            Agent::Copilot,
            Agent::CopilotAcp,
            Agent::Gemini,
            Agent::GeminiAcp,
            Agent::Qwen,
            Agent::QwenAcp,
            Agent::Cline,
            Agent::ClineAcp,
        ]
    }

    /// An ACP adapter: driven as an ACP client, recorded into the `acp` provider folder.
    pub fn is_acp(self) -> bool {
        matches!(
            self,
            Agent::ClaudeAcp
                | Agent::CodexAcp
                | Agent::OpencodeAcp
                | Agent::KiloAcp
                | Agent::DroidAcp
                | Agent::CopilotAcp
                | Agent::GeminiAcp
                | Agent::QwenAcp
                | Agent::ClineAcp
        )
    }

    /// The agent whose native scenarios an ACP adapter's mirror (`claude-acp` of `claude`,
    /// `codex-acp` of `codex-app-server`, `opencode-acp` of `opencode-run`).
    pub fn native(self) -> Agent {
        match self {
            Agent::ClaudeAcp => Agent::Claude,
            Agent::CodexAcp => Agent::CodexAppServer,
            Agent::OpencodeAcp => Agent::OpencodeRun,
            Agent::KiloAcp => Agent::KiloRun,
            Agent::DroidAcp => Agent::DroidExec,
            Agent::CopilotAcp => Agent::Copilot,
            Agent::GeminiAcp => Agent::Gemini,
            Agent::QwenAcp => Agent::Qwen,
            Agent::ClineAcp => Agent::Cline,
            other => other,
        }
    }

    /// The provider folder of the corpus.
    pub fn provider(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::CodexExec | Agent::CodexAppServer => "codex",
            Agent::OpencodeRun | Agent::OpencodeServe => "opencode",
            Agent::KiloRun | Agent::KiloServe => "kilo",
            Agent::DroidExec => "droid",
            Agent::Copilot => "copilot",
            Agent::Gemini => "gemini",
            Agent::Qwen => "qwen",
            Agent::Cline => "cline",
            Agent::ClaudeAcp
            | Agent::CodexAcp
            | Agent::OpencodeAcp
            | Agent::KiloAcp
            | Agent::DroidAcp
            | Agent::CopilotAcp
            | Agent::GeminiAcp
            | Agent::QwenAcp
            | Agent::ClineAcp => "acp",
        }
    }

    /// The CLI family, as named in `--cli NAME@VERSION`.
    pub fn cli(self) -> Cli {
        match self {
            Agent::Claude => Cli::Claude,
            Agent::CodexExec | Agent::CodexAppServer => Cli::Codex,
            Agent::OpencodeRun | Agent::OpencodeServe | Agent::OpencodeAcp => Cli::Opencode,
            Agent::ClaudeAcp => Cli::ClaudeAcp,
            Agent::CodexAcp => Cli::CodexAcp,
            Agent::KiloRun | Agent::KiloServe | Agent::KiloAcp => Cli::Kilo,
            Agent::DroidExec | Agent::DroidAcp => Cli::Droid,
            Agent::Copilot | Agent::CopilotAcp => Cli::Copilot,
            Agent::Gemini | Agent::GeminiAcp => Cli::Gemini,
            Agent::Qwen | Agent::QwenAcp => Cli::Qwen,
            Agent::Cline | Agent::ClineAcp => Cli::Cline,
        }
    }

    /// Which wire API the scripted model must speak for this agent.
    pub fn api(self) -> Api {
        match self {
            Agent::Claude | Agent::ClaudeAcp => Api::Anthropic,
            Agent::CodexExec | Agent::CodexAppServer | Agent::CodexAcp => Api::Responses,
            Agent::OpencodeRun | Agent::OpencodeServe | Agent::OpencodeAcp => Api::ChatCompletions,
            Agent::KiloRun | Agent::KiloServe | Agent::KiloAcp => Api::ChatCompletions,
            Agent::DroidExec | Agent::DroidAcp => Api::ChatCompletions,
            Agent::Copilot | Agent::CopilotAcp => Api::ChatCompletions,
            Agent::Gemini | Agent::GeminiAcp => Api::Gemini,
            Agent::Qwen | Agent::QwenAcp => Api::ChatCompletions,
            Agent::Cline | Agent::ClineAcp => Api::ChatCompletions,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::CodexExec => "codex-exec",
            Agent::CodexAppServer => "codex-app-server",
            Agent::OpencodeRun => "opencode-run",
            Agent::OpencodeServe => "opencode-serve",
            Agent::ClaudeAcp => "claude-acp",
            Agent::CodexAcp => "codex-acp",
            Agent::OpencodeAcp => "opencode-acp",
            Agent::KiloRun => "kilo-run",
            Agent::KiloServe => "kilo-serve",
            Agent::KiloAcp => "kilo-acp",
            Agent::DroidExec => "droid-exec",
            Agent::DroidAcp => "droid-acp",
            Agent::Copilot => "copilot",
            Agent::CopilotAcp => "copilot-acp",
            Agent::Gemini => "gemini",
            Agent::GeminiAcp => "gemini-acp",
            Agent::Qwen => "qwen",
            Agent::QwenAcp => "qwen-acp",
            Agent::Cline => "cline",
            Agent::ClineAcp => "cline-acp",
        }
    }
}

/// An installable agent CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Cli {
    Claude,
    Codex,
    Opencode,
    /// Zed's Claude ACP adapter (formerly `@zed-industries/claude-code-acp`).
    ClaudeAcp,
    /// Zed's Codex ACP adapter.
    CodexAcp,
    /// Kilo CLI (`@kilocode/cli`), built on OpenCode.
    Kilo,
    /// Factory's droid (`droid`; `@factory/cli` is the same CLI under a scope).
    Droid,
    /// GitHub Copilot CLI (`@github/copilot`).
    Copilot,
    /// Google's Gemini CLI.
    Gemini,
    /// Qwen Code (a fork of Gemini CLI).
    Qwen,
    /// Cline's CLI (`cline`).
    Cline,
}

impl Cli {
    pub fn parse(name: &str) -> Option<Cli> {
        match name {
            "claude" | "claude-code" | "@anthropic-ai/claude-code" => Some(Cli::Claude),
            "codex" | "codex-cli" | "@openai/codex" => Some(Cli::Codex),
            "opencode" | "opencode-ai" => Some(Cli::Opencode),
            "claude-agent-acp" | "@zed-industries/claude-agent-acp" => Some(Cli::ClaudeAcp),
            "codex-acp" | "@zed-industries/codex-acp" => Some(Cli::CodexAcp),
            "kilo" | "kilocode" | "@kilocode/cli" => Some(Cli::Kilo),
            "droid" | "factory" | "@factory/cli" => Some(Cli::Droid),
            "copilot" | "copilot-cli" | "@github/copilot" => Some(Cli::Copilot),
            "gemini" | "gemini-cli" | "@google/gemini-cli" => Some(Cli::Gemini),
            "qwen" | "qwen-code" | "@qwen-code/qwen-code" => Some(Cli::Qwen),
            "cline" | "cline-cli" => Some(Cli::Cline),
            _ => None,
        }
    }

    /// The npm package the CLI is published as.
    pub fn package(self) -> &'static str {
        match self {
            Cli::Claude => "@anthropic-ai/claude-code",
            Cli::Codex => "@openai/codex",
            Cli::Opencode => "opencode-ai",
            Cli::ClaudeAcp => "@zed-industries/claude-agent-acp",
            Cli::CodexAcp => "@zed-industries/codex-acp",
            Cli::Kilo => "@kilocode/cli",
            Cli::Droid => "droid",
            Cli::Copilot => "@github/copilot",
            Cli::Gemini => "@google/gemini-cli",
            Cli::Qwen => "@qwen-code/qwen-code",
            Cli::Cline => "cline",
        }
    }

    /// The executable the package installs into `node_modules/.bin`.
    pub fn bin(self) -> &'static str {
        match self {
            Cli::Claude => "claude",
            Cli::Codex => "codex",
            Cli::Opencode => "opencode",
            Cli::ClaudeAcp => "claude-agent-acp",
            Cli::CodexAcp => "codex-acp",
            Cli::Kilo => "kilo",
            Cli::Droid => "droid",
            Cli::Copilot => "copilot",
            Cli::Gemini => "gemini",
            Cli::Qwen => "qwen",
            Cli::Cline => "cline",
        }
    }

    /// The CLI's name as written in fixture headers.
    pub fn display(self) -> &'static str {
        match self {
            Cli::Claude => "claude-code",
            Cli::Codex => "codex-cli",
            Cli::Opencode => "opencode",
            Cli::ClaudeAcp => "claude-agent-acp",
            Cli::CodexAcp => "codex-acp",
            Cli::Kilo => "kilo",
            Cli::Droid => "droid",
            Cli::Copilot => "copilot",
            Cli::Gemini => "gemini-cli",
            Cli::Qwen => "qwen-code",
            Cli::Cline => "cline",
        }
    }
}

/// The model wire APIs the scripted server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Api {
    Anthropic,
    Responses,
    ChatCompletions,
    /// Gemini's `models/<m>:streamGenerateContent?alt=sse` (and `generateContent`).
    Gemini,
}

/// One scenario file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Must equal the file stem; the fixture is `live-<name>`.
    pub name: String,
    pub description: String,
    pub agent: Agent,
    /// An ACP adapter's scenario: the native scenario it plays the same script as (for
    /// `toolnorm scenario compare`).
    #[serde(default)]
    pub mirrors: Option<String>,
    /// The pinned CLI version installed from npm.
    pub cli_version: String,
    pub prompt: String,
    /// Extra CLI arguments (e.g. `--allowedTools`).
    #[serde(default)]
    pub args: Vec<String>,
    /// Extra environment for the agent process.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Claude only: `--include-partial-messages`.
    #[serde(default)]
    pub partial_messages: bool,
    /// Claude: run under this `--permission-mode` instead of skipping permissions (to record
    /// refusals); droid: under `--auto <level>` (`low`, `medium`, `high`; `read-only` for no
    /// flag) instead of `--skip-permissions-unsafe`.
    #[serde(default)]
    pub permission_mode: Option<String>,
    /// Interrupt the agent this many seconds after it starts: an interrupted turn. Agents
    /// recorded in wrap mode (claude, codex-exec, opencode-run, kilo-run, …) get SIGINT, as
    /// Ctrl-C; Claude driven as the Agent SDK drives it gets the SDK's `interrupt` control
    /// request, `opencode serve` and `kilo serve` the session's abort call, ACP adapters a
    /// `session/cancel`.
    #[serde(default)]
    pub interrupt_after_secs: Option<u64>,
    /// Claude only: drive Claude Code over stdin as the Agent SDK drives it (recorded in proxy
    /// mode), as a scenario with `answers` always is.
    #[serde(default)]
    pub sdk: bool,
    /// Claude only: also keep the session transcript Claude Code wrote under the scratch HOME
    /// (`~/.claude/projects/<project>/<session>.jsonl`) as a fixture of the `transcript`
    /// dialect, `live-<name>-transcript`, folded and redacted as the recording is.
    #[serde(default)]
    pub transcript: bool,
    /// Configure the `amalgm` fixture MCP server for the agent.
    #[serde(default)]
    pub mcp: bool,
    /// Settings merged over the agent's own configuration file, key by key, the scenario's values
    /// winning (OpenCode and Kilo: `opencode.json` / `kilo.json`, e.g. `permission`; droid, Gemini
    /// CLI and Qwen Code: `settings.json`, e.g. a tool that is off by default).
    #[serde(default)]
    pub config: Option<toml::Table>,
    /// Seconds before the agent run is abandoned.
    #[serde(default = "default_timeout")]
    pub timeout_secs: u64,
    /// Files created in the scratch workspace before the run.
    #[serde(default)]
    pub files: Vec<WorkspaceFile>,
    /// Pages the scripted server also serves at `GET <path>` (for fetch tools).
    #[serde(default)]
    pub pages: Vec<Page>,
    /// The main agent's scripted turns, in order.
    pub turns: Vec<Turn>,
    /// Scripts for subagents, chosen by a marker in their first user message.
    #[serde(default)]
    pub subagents: Vec<Subagent>,
    /// Strings that must appear in some request the CLI sent to the model.
    #[serde(default)]
    pub expect_sent: Vec<String>,
    /// The user's answers to the agent's questions (question tools that wait for the user:
    /// Claude's AskUserQuestion through the SDK permission prompt, Codex app-server's
    /// `request_user_input`, OpenCode serve's `question`): one entry per question asked, in the
    /// order the questions come, each the labels chosen (or a free-text answer).
    #[serde(default)]
    pub answers: Vec<Vec<String>>,
}

fn default_timeout() -> u64 {
    180
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceFile {
    /// Relative to the workspace.
    pub path: String,
    #[serde(default)]
    pub content: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Page {
    pub path: String,
    #[serde(default = "default_content_type")]
    pub content_type: String,
    pub body: String,
    /// What the model answers when a fetch tool asks it about this page (Claude Code's WebFetch
    /// hands the page, as markdown, to the model in a request without tools).
    #[serde(default)]
    pub summary: Option<String>,
}

impl Page {
    /// The Content-Type served: HTML unless the page says plain text or JSON.
    pub fn mime(&self) -> &'static str {
        if self.content_type.starts_with("text/plain") {
            "text/plain; charset=utf-8"
        } else if self.content_type.starts_with("application/json") {
            "application/json"
        } else {
            "text/html; charset=utf-8"
        }
    }

    /// Whether `text` quotes this page: it holds one of the page's visible text runs (the text
    /// between tags, at least 8 characters), which survive an HTML-to-markdown conversion.
    pub fn quoted_in(&self, text: &str) -> bool {
        self.body
            .split(['<', '>'])
            .enumerate()
            // Outside tags: every other piece, starting before the first `<`.
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, run)| run.trim())
            .any(|run| run.chars().count() >= 8 && text.contains(run))
    }
}

fn default_content_type() -> String {
    "text/html; charset=utf-8".to_owned()
}

/// One model reply: optional text, then zero or more tool calls (several = parallel calls).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub tools: Vec<ToolCall>,
}

/// How a call is put on the wire (only the Responses API distinguishes them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallKind {
    /// A JSON-argument function call (every API).
    #[default]
    Function,
    /// Responses `custom_tool_call`: `input` is a string (Codex `apply_patch`).
    Custom,
    /// Responses `web_search_call`: `input` is the action object; served by the model side.
    WebSearch,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCall {
    pub name: String,
    #[serde(default = "empty_object")]
    pub input: serde_json::Value,
    #[serde(default)]
    pub kind: CallKind,
    /// Responses API namespace (Codex MCP tools: `mcp__<server>`).
    #[serde(default)]
    pub namespace: Option<String>,
}

fn empty_object() -> serde_json::Value {
    serde_json::Value::Object(serde_json::Map::new())
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Subagent {
    /// A word or phrase that appears in the subagent's first user message (its prompt).
    pub marker: String,
    pub turns: Vec<Turn>,
}

/// Tools each agent's model may call (for checking scenario files before a slow live run).
pub fn known_tools(agent: Agent) -> &'static [&'static str] {
    match agent.native() {
        Agent::Claude | Agent::ClaudeAcp => &[
            "Bash",
            "Read",
            "Write",
            "Edit",
            "Glob",
            "Grep",
            "WebFetch",
            "WebSearch",
            "Agent",
            "Task",
            "TodoWrite",
            "TaskCreate",
            "TaskUpdate",
            "TaskList",
            "TaskGet",
            "TaskOutput",
            "TaskStop",
            "AskUserQuestion",
            "NotebookEdit",
            "BashOutput",
            "KillShell",
            "ExitPlanMode",
            "Skill",
            "Monitor",
            "ToolSearch",
            "CronCreate",
            "CronDelete",
            "CronList",
            "EnterWorktree",
            "ExitWorktree",
            "ListAgents",
            "SendMessage",
            "ScheduleWakeup",
            "ReportFindings",
            "Workflow",
            "mcp__amalgm__browser_navigate",
            "mcp__amalgm__browser_snapshot",
            "mcp__amalgm__browser_tabs_new",
            "mcp__amalgm__artifacts_register",
        ],
        Agent::CodexExec | Agent::CodexAppServer | Agent::CodexAcp => &[
            "exec_command",
            "write_stdin",
            "shell",
            "apply_patch",
            "update_plan",
            "web_search",
            "view_image",
            "get_goal",
            "create_goal",
            "update_goal",
            "request_user_input",
            "tool_search",
            // The `collaboration` namespace (`-c features.multi_agent_v2=true`).
            "spawn_agent",
            "wait_agent",
            "list_agents",
            "send_message",
            "followup_task",
            "interrupt_agent",
            // The older collab tools (not offered by 0.171.0).
            "send_input",
            "wait",
            "close_agent",
            "browser_navigate",
            "browser_snapshot",
            "browser_tabs_new",
            "artifacts_register",
        ],
        Agent::OpencodeRun | Agent::OpencodeServe | Agent::OpencodeAcp => &[
            "bash",
            "read",
            "write",
            "edit",
            "glob",
            "grep",
            "list",
            "webfetch",
            "websearch",
            "todowrite",
            "todoread",
            "task",
            "question",
            "patch",
            "multiedit",
            "amalgm_browser_navigate",
            "amalgm_browser_snapshot",
            "amalgm_browser_tabs_new",
            "amalgm_artifacts_register",
        ],
        Agent::KiloRun | Agent::KiloServe | Agent::KiloAcp => &[
            "bash",
            "read",
            "write",
            "edit",
            "glob",
            "grep",
            "webfetch",
            "websearch",
            "todowrite",
            "task",
            "question",
            "skill",
            "lsp",
            "apply_patch",
            "background_process",
            "board_post",
            "board_read",
            "schedule_wakeup",
            "cancel_wakeup",
            "kilo_local_recall",
            "suggest",
            "list",
            "amalgm_browser_navigate",
            "amalgm_browser_snapshot",
            "amalgm_browser_tabs_new",
            "amalgm_artifacts_register",
        ],
        Agent::DroidExec | Agent::DroidAcp => crate::scenario::agents::droid::TOOLS,
        Agent::Copilot | Agent::CopilotAcp => crate::scenario::agents::copilot::TOOLS,
        Agent::Gemini | Agent::GeminiAcp => GEMINI_TOOLS,
        Agent::Qwen | Agent::QwenAcp => QWEN_TOOLS,
        Agent::Cline | Agent::ClineAcp => crate::scenario::agents::cline::TOOLS,
    }
}

/// Gemini CLI's tools (the built-in ones its releases declare, its subagents, the fixture MCP
/// server's under their declared names).
const GEMINI_TOOLS: &[&str] = &[
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
const QWEN_TOOLS: &[&str] = &[
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

impl Scenario {
    /// A Claude scenario with answers is driven over stdin as the Agent SDK drives Claude Code
    /// (its permission prompts, AskUserQuestion among them, answered by the driver).
    pub fn claude_sdk(&self) -> bool {
        self.agent == Agent::Claude && (self.sdk || !self.answers.is_empty())
    }

    /// Parse one scenario file and check it is usable.
    pub fn load(path: &Path) -> Result<Scenario, SpecError> {
        let text = fs::read_to_string(path).map_err(|source| SpecError::Read {
            path: path.to_owned(),
            source,
        })?;
        let s: Scenario = toml::from_str(&text).map_err(|e| SpecError::Parse {
            path: path.to_owned(),
            source: Box::new(e),
        })?;
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        if let Some(message) = s.problem(stem) {
            return Err(SpecError::Invalid {
                path: path.to_owned(),
                message,
            });
        }
        Ok(s)
    }

    /// The first problem found, if any.
    pub fn problem(&self, stem: &str) -> Option<String> {
        if self.name != stem {
            return Some(format!(
                "name {:?} must equal the file stem {:?}",
                self.name, stem
            ));
        }
        if self.turns.is_empty() {
            return Some("a scenario needs at least one scripted turn".to_owned());
        }
        let known = known_tools(self.agent);
        let all_turns = self
            .turns
            .iter()
            .chain(self.subagents.iter().flat_map(|s| s.turns.iter()));
        for (i, turn) in all_turns.enumerate() {
            if turn.text.is_none() && turn.tools.is_empty() {
                return Some(format!("turn {} has neither text nor tool calls", i + 1));
            }
            for call in &turn.tools {
                if !known.contains(&call.name.as_str()) {
                    return Some(format!(
                        "turn {}: tool {:?} is not a tool of {}",
                        i + 1,
                        call.name,
                        self.agent.as_str()
                    ));
                }
                if call.kind != CallKind::Function
                    && self.agent.api() != crate::scenario::spec::Api::Responses
                {
                    return Some(format!(
                        "turn {}: call kind {:?} exists only for codex",
                        i + 1,
                        call.kind
                    ));
                }
                match call.kind {
                    CallKind::Custom if !call.input.is_string() => {
                        return Some(format!(
                            "turn {}: a custom tool call's input must be a string",
                            i + 1
                        ));
                    }
                    CallKind::Function | CallKind::WebSearch if !call.input.is_object() => {
                        return Some(format!("turn {}: tool input must be a table", i + 1));
                    }
                    _ => {}
                }
            }
        }
        if self.interrupt_after_secs.is_some() && self.agent == Agent::CodexAppServer {
            return Some(
                "interrupt_after_secs works for wrapped agents, claude (also as the Agent SDK), \
                 the opencode and kilo servers and ACP adapters"
                    .to_owned(),
            );
        }
        if (self.sdk || self.transcript) && self.agent != Agent::Claude {
            return Some("sdk and transcript are options of claude scenarios".to_owned());
        }
        if self.config.is_some()
            && !matches!(
                self.agent.cli(),
                Cli::Opencode | Cli::Kilo | Cli::Droid | Cli::Gemini | Cli::Qwen
            )
        {
            return Some(format!(
                "config is merged into OpenCode's, Kilo's, droid's, Gemini CLI's and Qwen Code's \
                 configuration files, not {}'s",
                self.agent.as_str()
            ));
        }
        if !self.answers.is_empty()
            && matches!(
                self.agent,
                Agent::CodexExec | Agent::OpencodeRun | Agent::KiloRun
            )
        {
            return Some(format!(
                "answers only reach agents that wait for the user (claude, codex-app-server, \
                 opencode-serve), not {}",
                self.agent.as_str()
            ));
        }
        if self.turns.last().is_some_and(|t| !t.tools.is_empty()) {
            return Some("the last main turn must be text only, so the session ends".to_owned());
        }
        for f in &self.files {
            let p = Path::new(&f.path);
            if p.is_absolute()
                || p.components()
                    .any(|c| matches!(c, std::path::Component::ParentDir))
            {
                return Some(format!(
                    "workspace file {:?} must be a relative path inside the workspace",
                    f.path
                ));
            }
        }
        None
    }

    /// The fixture name this scenario records.
    pub fn fixture_name(&self) -> String {
        format!("live-{}", self.name)
    }

    /// The fixture name of the session transcript kept beside the recording (`transcript`).
    pub fn transcript_fixture_name(&self) -> String {
        format!("live-{}-transcript", self.name)
    }
}

/// Every scenario file under `dir`, sorted by name. Files that fail to parse are returned as errors
/// beside the good ones so one bad file does not hide the rest.
pub fn load_dir(dir: &Path) -> Result<Vec<Result<Scenario, SpecError>>, SpecError> {
    let entries = fs::read_dir(dir).map_err(|source| SpecError::Read {
        path: dir.to_owned(),
        source,
    })?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    Ok(paths.iter().map(|p| Scenario::load(p)).collect())
}
