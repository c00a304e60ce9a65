//! Claude Code: `claude -p PROMPT --output-format stream-json --verbose` recorded in wrap mode, or,
//! for a scenario with answers, driven over stdin as the Agent SDK drives it (recorded in proxy
//! mode). Settings in the scratch HOME, the model server as `ANTHROPIC_BASE_URL`, the fixture MCP
//! server in an `--mcp-config` file.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{Driven, End, Launcher, proxied, wrapped};
use crate::scenario::driver::{LineChannel, ScriptedUser, claude_permission};
use crate::scenario::interrupt::Interrupt;
use crate::scenario::launch::{API_KEY, AgentCommand, Launch, Setup, write};
use crate::scenario::mcp_server::SERVER_NAME;
use crate::scenario::package::{Cli, Declared, Registry};
use crate::scenario::spec::Scenario;
use crate::stream::Dialect;

pub struct Claude;

pub static CLI: Cli = Cli {
    package: "@anthropic-ai/claude-code",
    registry: Registry::Npm,
    bin: "claude",
    display: "claude-code",
    aliases: &[],
    node: false,
    ripgrep: false,
    newest_first: false,
    declared: Some(Declared::Call(Dialect::ClaudeStreamJson, call)),
};

/// A `stream-json` assistant line that calls `tool` with empty input.
fn call(tool: &str) -> Value {
    json!({"type": "assistant", "session_id": "s1", "message": {"id": "msg_1",
        "type": "message", "role": "assistant",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": tool, "input": {}}]}})
}

/// The tools Claude Code's model may call, and the fixture MCP server's as it names them.
pub const TOOLS: &[&str] = &[
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
];

/// Driven over stdin as the Agent SDK drives Claude Code (its permission prompts,
/// AskUserQuestion among them, answered by the driver): asked for, or a scenario with answers.
fn sdk(s: &Scenario) -> bool {
    s.sdk || !s.answers.is_empty()
}

/// The `--mcp-config` file.
fn mcp_config(setup: &Setup<'_>) -> PathBuf {
    setup.scratch.root.join("mcp.json")
}

impl Launcher for Claude {
    fn configure(&self, setup: &Setup<'_>, cmd: &mut AgentCommand) -> anyhow::Result<()> {
        write(
            &setup.scratch.home.join(".claude/settings.json"),
            &json!({"skipWebFetchPreflight": true}).to_string(),
        )?;
        cmd.env("ANTHROPIC_BASE_URL", setup.model_url.clone())
            .env("ANTHROPIC_API_KEY", API_KEY)
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("IS_SANDBOX", "1");
        if setup.scenario.mcp {
            let server =
                json!({"type": "stdio", "command": setup.mcp.program, "args": setup.mcp.args});
            let mcp = json!({"mcpServers": {SERVER_NAME: server}});
            write(&mcp_config(setup), &mcp.to_string())?;
        }
        Ok(())
    }

    fn command(&self, setup: &Setup<'_>, cmd: &mut AgentCommand) {
        let s = setup.scenario;
        cmd.arg("-p");
        if sdk(s) {
            // Driven as the Agent SDK drives it: the prompt and the answers to permission
            // prompts (AskUserQuestion's answers among them) go over stdin.
            cmd.arg("--input-format")
                .arg("stream-json")
                .arg("--permission-prompt-tool")
                .arg("stdio");
        } else {
            cmd.arg(s.prompt.clone());
        }
        cmd.arg("--output-format")
            .arg("stream-json")
            .arg("--verbose");
        match &s.permission_mode {
            Some(mode) => cmd.arg("--permission-mode").arg(mode.clone()),
            None => cmd.arg("--dangerously-skip-permissions"),
        };
        if s.partial_messages {
            cmd.arg("--include-partial-messages");
        }
        if s.mcp {
            cmd.arg("--mcp-config")
                .arg(mcp_config(setup).display().to_string());
        }
        for a in &s.args {
            cmd.arg(a.clone());
        }
    }

    fn drive(&self, launch: &Launch<'_>) -> anyhow::Result<Driven> {
        let s = launch.scenario;
        if sdk(s) {
            proxied(launch, "claude", End::Eof, |channel| {
                drive_sdk(channel, s, &launch.scratch.root)
            })
        } else {
            wrapped(launch, launch.interrupt()).map(|_| Driven::default())
        }
    }
}

/// Claude Code as the Agent SDK drives it (`--input-format stream-json --permission-prompt-tool
/// stdio`): an `initialize` control request, the prompt as a user message, an answer to every
/// `can_use_tool` control request (allow; AskUserQuestion gets the scenario's answers), the
/// SDK's `interrupt` control request `interrupt_after_secs` after Claude Code answered
/// `initialize` (its start, however long that took) when given, until a `result`
/// line with no background task left running (the last `background_tasks_changed` list empty):
/// a task that outlives its turn ends with a notification and a turn of its own, as in `-p`.
fn drive_sdk(channel: &mut LineChannel, s: &Scenario, scratch: &Path) -> anyhow::Result<Driven> {
    channel.send(&json!({"type": "control_request", "request_id": "init-1", "request": {"subtype": "initialize", "hooks": null}}))?;
    channel.send(&json!({"type": "user", "session_id": "", "parent_tool_use_id": null, "message": {"role": "user", "content": [{"type": "text", "text": s.prompt}]}}))?;
    let mut user = ScriptedUser::new(&s.answers);
    let mut interrupt_pending = s.interrupt_after_secs.is_some();
    let mut interrupt: Option<Interrupt> = None;
    let mut background_tasks = 0;
    loop {
        let check = interrupt.as_ref().map(Interrupt::next_check);
        let Some(v) = channel.next_before(check, "the session's result")? else {
            let seen = &channel.seen;
            let shown = |text: &str| seen.iter().any(|l| l.contains(text));
            if interrupt.take_if(|i| i.due(shown)).is_some() {
                // What the SDK's `interrupt()` sends: the turn stops, the session goes on.
                channel.send(&json!({"type": "control_request", "request_id": "interrupt-1", "request": {"subtype": "interrupt"}}))?;
            }
            continue;
        };
        match v.get("type").and_then(Value::as_str) {
            Some("control_response") if interrupt_pending => {
                interrupt_pending = false;
                interrupt = Interrupt::of(s, scratch);
            }
            Some("system")
                if v.get("subtype").and_then(Value::as_str) == Some("background_tasks_changed") =>
            {
                background_tasks = v.get("tasks").and_then(Value::as_array).map_or(0, Vec::len);
            }
            // A declined question does not end Claude's turn: the whole script still plays.
            Some("result") if background_tasks == 0 => {
                return Ok(Driven {
                    problems: user.problems(),
                    dismissed: false,
                });
            }
            Some("control_request") => {
                let id = v.get("request_id").cloned().unwrap_or(Value::Null);
                let req = v.get("request").unwrap_or(&Value::Null);
                let reply = match req.get("subtype").and_then(Value::as_str) {
                    Some("can_use_tool") => {
                        let tool = req.get("tool_name").and_then(Value::as_str).unwrap_or("");
                        let input = req.get("input").unwrap_or(&Value::Null);
                        json!({"subtype": "success", "request_id": id, "response": claude_permission(tool, input, &mut user)})
                    }
                    other => {
                        json!({"subtype": "error", "request_id": id, "error": format!("the scenario driver does not handle {}", other.unwrap_or("this request"))})
                    }
                };
                channel.send(&json!({"type": "control_response", "response": reply}))?;
            }
            _ => {}
        }
    }
}
