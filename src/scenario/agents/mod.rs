//! The registry of agents: one row per way of running an agent CLI (`claude`, `codex-exec`,
//! `opencode-acp`, ...), as `src/dialects.rs` is for dialects. A row names everything the rest of
//! the scenarios ask of an agent: the name scenario files give it (`agent = "..."`), its CLI (the
//! npm package, `package::Cli`), the corpus provider folder its fixtures go to, the wire API the
//! scripted model speaks to it, the tools its model may call, what scenario options it takes, and
//! its launcher (how it is configured, started, driven and recorded). Adding an agent is its file
//! here (its CLI, its tools, its launcher) and one row in [`AGENTS`]; nothing else matches on
//! agents.
//!
//! One file per agent CLI (`claude.rs`, `codex.rs`, `copilot.rs`, `droid.rs`, `opencode.rs` for
//! OpenCode and Kilo, `gemini.rs` for Gemini CLI and Qwen Code, `cline.rs`, `openhands.rs`,
//! `kimi.rs`, `vibe.rs`, `acp.rs` for every ACP adapter).
//! The ways of running an agent that several of them share — a one-shot run passed through
//! (`wrapped`), a two-way conversation over its stdio (`proxied`) — are here.

mod acp;
mod claude;
mod cline;
mod codex;
mod copilot;
mod droid;
mod gemini;
mod kimi;
mod opencode;
mod openhands;
mod vibe;
mod vibe_app;

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use super::driver::LineChannel;
use super::interrupt::Interrupt;
use super::launch::{AgentCommand, Launch, Setup};
use super::package::Cli;
use super::process::RunningAgent;
use super::spec::{self, Api, CallKind, Scenario, SpecError};
use super::trace;
use crate::corpus::record::memory::{self, Captured};
use crate::corpus::record::{AgentEnds, StderrEnd, StdinEnd};
use crate::stream::{Dialect, Provider};

/// How one agent CLI is set up, started and driven.
pub trait Launcher: Sync {
    /// Write the agent's configuration files into the scratch folders and set its environment.
    fn configure(&self, setup: &Setup<'_>, cmd: &mut AgentCommand) -> anyhow::Result<()>;
    /// Fill in the agent's command line, the scenario's extra arguments included.
    fn command(&self, setup: &Setup<'_>, cmd: &mut AgentCommand);
    /// Start the agent, recorded, and drive it to the end of the session.
    fn drive(&self, launch: &Launch<'_>) -> anyhow::Result<Driven>;
    /// The dialect the run writes, when the recorder cannot tell it from the first lines (a
    /// whole document longer than its sniff window): written in the fixture's header.
    fn dialect(&self, _: &Scenario) -> Option<Dialect> {
        None
    }
}

/// `a` then `b`, as one array: an agent's tools, its provider's table of built-ins followed by
/// the fixture MCP server's tools as it names them (`N` is their lengths' sum).
pub(crate) const fn joined<const N: usize>(
    a: &[&'static str],
    b: &[&'static str],
) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < a.len() {
        out[i] = a[i];
        i += 1;
    }
    while i < N {
        out[i] = b[i - a.len()];
        i += 1;
    }
    out
}

/// One agent: a way of running one CLI.
pub struct AgentEntry {
    /// What scenario files call it (`agent = "codex-exec"`).
    pub name: &'static str,
    /// The CLI it runs (several rows may run one CLI), installed from npm at the scenario's
    /// `cli_version`.
    pub cli: &'static Cli,
    /// The provider folder of the corpus its fixtures are recorded into (`acp` for an ACP
    /// adapter, whatever its CLI).
    pub provider: Provider,
    /// The wire API the scripted model speaks to it.
    pub api: Api,
    /// The tools its model may call: a scenario's scripted calls are checked against them before
    /// a slow live run.
    pub tools: &'static [&'static str],
    /// What the scenario options that only some agents take mean to it.
    pub takes: Takes,
    /// How it is configured, started, driven and recorded.
    pub launcher: &'static dyn Launcher,
}

/// The scenario options only some agents take.
#[derive(Clone, Copy, Debug)]
pub struct Takes {
    /// `sdk` and `transcript` (Claude Code's Agent SDK mode and its session transcript).
    pub sdk: bool,
    /// `config`, merged into the agent's own configuration file.
    pub config: bool,
    /// `answers`: the agent waits for the user's answers to its questions.
    pub answers: bool,
    /// `interrupt_after_secs`.
    pub interrupt: bool,
    /// Its fetch tool fetches only https: the scenario's pages are also served over TLS.
    pub https_pages: bool,
}

/// What most agents take: answers and interrupts, no SDK mode, no configuration merge.
const TAKES: Takes = Takes {
    sdk: false,
    config: false,
    answers: true,
    interrupt: true,
    https_pages: false,
};

/// A one-shot run (`run`, `exec`, `-p`): nobody is there to answer.
const ONE_SHOT: Takes = Takes {
    answers: false,
    ..TAKES
};

/// Every agent.
pub static AGENTS: &[AgentEntry] = &[
    AgentEntry {
        name: "claude",
        cli: &claude::CLI,
        provider: Provider::Claude,
        api: Api::Anthropic,
        tools: claude::TOOLS,
        takes: Takes {
            sdk: true,
            https_pages: true,
            ..TAKES
        },
        launcher: &claude::Claude,
    },
    AgentEntry {
        name: "codex-exec",
        cli: &codex::CLI,
        provider: Provider::Codex,
        api: Api::Responses,
        tools: codex::TOOLS,
        takes: ONE_SHOT,
        launcher: &codex::EXEC,
    },
    AgentEntry {
        name: "codex-app-server",
        cli: &codex::CLI,
        provider: Provider::Codex,
        api: Api::Responses,
        tools: codex::TOOLS,
        takes: Takes {
            interrupt: false,
            ..TAKES
        },
        launcher: &codex::APP_SERVER,
    },
    AgentEntry {
        name: "opencode-run",
        cli: &opencode::OPENCODE_CLI,
        provider: Provider::Opencode,
        api: Api::ChatCompletions,
        tools: opencode::OPENCODE_TOOLS,
        takes: Takes {
            config: true,
            ..ONE_SHOT
        },
        launcher: &opencode::OPENCODE_RUN,
    },
    AgentEntry {
        name: "opencode-serve",
        cli: &opencode::OPENCODE_CLI,
        provider: Provider::Opencode,
        api: Api::ChatCompletions,
        tools: opencode::OPENCODE_TOOLS,
        takes: Takes {
            config: true,
            ..TAKES
        },
        launcher: &opencode::OPENCODE_SERVE,
    },
    AgentEntry {
        name: "claude-acp",
        cli: &acp::CLAUDE_ACP_CLI,
        provider: Provider::Acp,
        api: Api::Anthropic,
        tools: claude::TOOLS,
        takes: Takes {
            https_pages: true,
            ..TAKES
        },
        launcher: &acp::Acp {
            configure_as: &claude::Claude,
            command_as: None,
            args: &[],
            who: "claude-agent-acp",
            // It reads on after the end of its input.
            end: End::Terminate,
            mcp_in_session: true,
        },
    },
    AgentEntry {
        name: "codex-acp",
        cli: &acp::CODEX_ACP_CLI,
        provider: Provider::Acp,
        api: Api::Responses,
        tools: codex::TOOLS,
        takes: TAKES,
        launcher: &acp::Acp {
            configure_as: &codex::APP_SERVER,
            command_as: None,
            args: &[],
            who: "codex-acp",
            // It reads on after the end of its input.
            end: End::Terminate,
            mcp_in_session: false,
        },
    },
    AgentEntry {
        name: "opencode-acp",
        cli: &opencode::OPENCODE_CLI,
        provider: Provider::Acp,
        api: Api::ChatCompletions,
        tools: opencode::OPENCODE_TOOLS,
        takes: Takes {
            config: true,
            ..TAKES
        },
        launcher: &acp::Acp {
            configure_as: &opencode::OPENCODE_ACP,
            command_as: None,
            args: &["acp"],
            who: "opencode acp",
            end: End::Eof,
            mcp_in_session: true,
        },
    },
    AgentEntry {
        name: "kilo-run",
        cli: &opencode::KILO_CLI,
        provider: Provider::Kilo,
        api: Api::ChatCompletions,
        tools: opencode::KILO_TOOLS,
        takes: Takes {
            config: true,
            ..ONE_SHOT
        },
        launcher: &opencode::KILO_RUN,
    },
    AgentEntry {
        name: "kilo-serve",
        cli: &opencode::KILO_CLI,
        provider: Provider::Kilo,
        api: Api::ChatCompletions,
        tools: opencode::KILO_TOOLS,
        takes: Takes {
            config: true,
            ..TAKES
        },
        launcher: &opencode::KILO_SERVE,
    },
    AgentEntry {
        name: "kilo-acp",
        cli: &opencode::KILO_CLI,
        provider: Provider::Acp,
        api: Api::ChatCompletions,
        tools: opencode::KILO_TOOLS,
        takes: Takes {
            config: true,
            ..TAKES
        },
        launcher: &acp::Acp {
            configure_as: &opencode::KILO_ACP,
            command_as: None,
            args: &["acp"],
            who: "kilo acp",
            end: End::Eof,
            mcp_in_session: false,
        },
    },
    AgentEntry {
        name: "droid-exec",
        cli: &droid::CLI,
        provider: Provider::Droid,
        api: Api::ChatCompletions,
        tools: droid::TOOLS,
        takes: Takes {
            config: true,
            ..TAKES
        },
        launcher: &droid::EXEC,
    },
    AgentEntry {
        name: "droid-acp",
        cli: &droid::CLI,
        provider: Provider::Acp,
        api: Api::ChatCompletions,
        tools: droid::TOOLS,
        takes: Takes {
            config: true,
            ..TAKES
        },
        // The model is the BYOK one `settings.json` names (ACP's `session/new` does not take
        // `-m`). Its `Execute` wants `riskLevel` and `riskLevelReason` here, as under `--auto`,
        // whatever the flags; permissions are asked with `session/request_permission`.
        launcher: &acp::Acp {
            configure_as: &droid::ACP,
            command_as: None,
            args: &["exec", "--output-format", "acp"],
            who: "droid exec --output-format acp",
            end: End::Eof,
            mcp_in_session: false,
        },
    },
    AgentEntry {
        name: "copilot",
        cli: &copilot::CLI,
        provider: Provider::Copilot,
        api: Api::ChatCompletions,
        tools: copilot::TOOLS,
        takes: TAKES,
        launcher: &copilot::PROMPT,
    },
    AgentEntry {
        name: "copilot-acp",
        cli: &copilot::CLI,
        provider: Provider::Acp,
        api: Api::ChatCompletions,
        tools: copilot::TOOLS,
        takes: TAKES,
        // `copilot --acp`, offline on the custom provider, the MCP server in its flags.
        launcher: &acp::Acp::own(&copilot::ACP, "copilot --acp", false),
    },
    AgentEntry {
        name: "gemini",
        cli: &gemini::GEMINI_CLI,
        provider: Provider::Gemini,
        api: Api::Gemini,
        tools: gemini::GEMINI_TOOLS,
        takes: Takes {
            config: true,
            ..TAKES
        },
        launcher: &gemini::GEMINI,
    },
    AgentEntry {
        name: "gemini-acp",
        cli: &gemini::GEMINI_CLI,
        provider: Provider::Acp,
        api: Api::Gemini,
        tools: gemini::GEMINI_TOOLS,
        takes: Takes {
            config: true,
            ..TAKES
        },
        // As the native scenarios run: every tool allowed.
        launcher: &acp::Acp {
            configure_as: &gemini::GEMINI,
            command_as: None,
            args: &["--acp", "--approval-mode", "yolo"],
            who: "gemini --acp",
            end: End::Eof,
            mcp_in_session: false,
        },
    },
    AgentEntry {
        name: "qwen",
        cli: &gemini::QWEN_CLI,
        provider: Provider::Qwen,
        api: Api::ChatCompletions,
        tools: gemini::QWEN_TOOLS,
        takes: Takes {
            config: true,
            ..TAKES
        },
        launcher: &gemini::QWEN,
    },
    AgentEntry {
        name: "qwen-acp",
        cli: &gemini::QWEN_CLI,
        provider: Provider::Acp,
        api: Api::ChatCompletions,
        tools: gemini::QWEN_TOOLS,
        takes: Takes {
            config: true,
            ..TAKES
        },
        launcher: &acp::Acp {
            configure_as: &gemini::QWEN,
            command_as: None,
            args: &["--acp", "--approval-mode", "yolo"],
            who: "qwen --acp",
            end: End::Eof,
            mcp_in_session: false,
        },
    },
    AgentEntry {
        name: "cline",
        cli: &cline::CLI,
        provider: Provider::Cline,
        api: Api::ChatCompletions,
        tools: cline::TOOLS,
        takes: TAKES,
        launcher: &cline::JSON,
    },
    AgentEntry {
        name: "cline-acp",
        cli: &cline::CLI,
        provider: Provider::Acp,
        api: Api::ChatCompletions,
        tools: cline::TOOLS,
        takes: TAKES,
        // `cline --acp`, on the provider and MCP settings `cline` has.
        launcher: &acp::Acp::own(&cline::ACP, "cline --acp", false),
    },
    AgentEntry {
        name: "openhands",
        cli: &openhands::CLI,
        provider: Provider::Openhands,
        api: Api::ChatCompletions,
        tools: openhands::TOOLS,
        takes: ONE_SHOT,
        launcher: &openhands::Openhands,
    },
    AgentEntry {
        name: "kimi",
        cli: &kimi::CLI,
        provider: Provider::Kimi,
        api: Api::ChatCompletions,
        tools: kimi::TOOLS,
        takes: Takes {
            config: true,
            ..ONE_SHOT
        },
        launcher: &kimi::PRINT,
    },
    AgentEntry {
        name: "openhands-acp",
        cli: &openhands::CLI,
        provider: Provider::Acp,
        api: Api::ChatCompletions,
        tools: openhands::TOOLS,
        takes: TAKES,
        // `openhands acp`, its model in the saved agent settings, the MCP server in `session/new`.
        // It reads on after the end of its input.
        launcher: &acp::Acp {
            end: End::Terminate,
            ..acp::Acp::own(&openhands::ACP, "openhands acp", true)
        },
    },
    AgentEntry {
        name: "kimi-acp",
        cli: &kimi::CLI,
        provider: Provider::Acp,
        api: Api::ChatCompletions,
        tools: kimi::TOOLS,
        takes: Takes {
            config: true,
            ..TAKES
        },
        // `kimi acp`, the MCP server in `session/new`.
        launcher: &acp::Acp::own(&kimi::ACP, "kimi acp", true),
    },
    AgentEntry {
        name: "vibe",
        cli: &vibe::CLI,
        provider: Provider::Vibe,
        api: Api::ChatCompletions,
        tools: vibe::TOOLS,
        takes: Takes {
            config: true,
            ..ONE_SHOT
        },
        launcher: &vibe::STREAMING,
    },
    AgentEntry {
        name: "vibe-json",
        cli: &vibe::CLI,
        provider: Provider::Vibe,
        api: Api::ChatCompletions,
        tools: vibe::TOOLS,
        takes: Takes {
            config: true,
            ..ONE_SHOT
        },
        launcher: &vibe::JSON,
    },
    AgentEntry {
        name: "vibe-acp",
        cli: &vibe::CLI,
        provider: Provider::Acp,
        api: Api::ChatCompletions,
        tools: vibe::TOOLS,
        takes: Takes {
            config: true,
            ..TAKES
        },
        // `vibe-acp`, the MCP server in its configuration.
        launcher: &acp::Acp::own(&vibe::ACP, "vibe-acp", false),
    },
    AgentEntry {
        name: "vibe-app",
        cli: &vibe::CLI,
        provider: Provider::Vibe,
        api: Api::ChatCompletions,
        tools: vibe::TOOLS,
        takes: Takes {
            config: true,
            answers: false,
            interrupt: false,
            ..TAKES
        },
        launcher: &vibe_app::APP_SERVER,
    },
];

/// An agent: its registry row.
pub type Agent = &'static AgentEntry;

/// The agent scenario files call `name`.
pub fn find(name: &str) -> Option<Agent> {
    AGENTS.iter().find(|a| a.name == name)
}

/// The agent of a scenario (loaded through [`load_dir`], which checked the name).
pub fn of(s: &Scenario) -> anyhow::Result<Agent> {
    find(s.agent.as_str())
        .with_context(|| format!("scenario {}: unknown agent {:?}", s.name, s.agent.as_str()))
}

/// The CLI `--cli NAME` names (its package, its executable, its display name or an alias).
pub fn cli_named(name: &str) -> Option<&'static Cli> {
    AGENTS.iter().map(|a| a.cli).find(|c| c.is_named(name))
}

/// The CLIs' executables, for messages (`claude, codex, ...`).
pub fn cli_names() -> String {
    let mut names: Vec<&str> = Vec::new();
    for a in AGENTS {
        if !names.contains(&a.cli.bin) {
            names.push(a.cli.bin);
        }
    }
    names.join(", ")
}

/// Every scenario file under `dir` (see [`spec::load_dir`]), each checked against its agent's
/// row.
pub fn load_dir(dir: &Path) -> Result<Vec<Result<Scenario, SpecError>>, SpecError> {
    spec::load_dir(dir, problem)
}

/// The names of the agents whose row says `yes`, for messages.
fn names_where(yes: impl Fn(&AgentEntry) -> bool) -> String {
    let names: Vec<&str> = AGENTS.iter().filter(|a| yes(a)).map(|a| a.name).collect();
    names.join(", ")
}

/// The first thing a scenario asks of its agent that the agent's row does not offer, if any.
pub fn problem(s: &Scenario) -> Option<String> {
    let Some(agent) = find(s.agent.as_str()) else {
        return Some(format!(
            "unknown agent {:?} (the agents: {})",
            s.agent.as_str(),
            names_where(|_| true)
        ));
    };
    let all_turns = s
        .turns
        .iter()
        .chain(s.subagents.iter().flat_map(|s| s.turns.iter()));
    for (i, turn) in all_turns.enumerate() {
        for call in &turn.tools {
            if !agent.tools.contains(&call.name.as_str()) {
                return Some(format!(
                    "turn {}: tool {:?} is not a tool of {}",
                    i + 1,
                    call.name,
                    agent.name
                ));
            }
            if call.kind != CallKind::Function && agent.api != Api::Responses {
                return Some(format!(
                    "turn {}: call kind {:?} exists only on the Responses API ({})",
                    i + 1,
                    call.kind,
                    names_where(|a| a.api == Api::Responses)
                ));
            }
        }
    }
    let takes = agent.takes;
    if s.interrupt_after_secs.is_some() && !takes.interrupt {
        return Some(format!(
            "interrupt_after_secs works for {}, not {}",
            names_where(|a| a.takes.interrupt),
            agent.name
        ));
    }
    if s.interrupt_when_printed.is_some() && s.interrupt_when_running.is_none() {
        return Some("interrupt_when_printed goes with interrupt_when_running".to_owned());
    }
    if s.interrupt_when_running.is_some() && s.interrupt_after_secs.is_none() {
        return Some(
            "interrupt_when_running needs interrupt_after_secs, the latest the interrupt comes"
                .to_owned(),
        );
    }
    if (s.sdk || s.transcript) && !takes.sdk {
        return Some(format!(
            "sdk and transcript are options of {} scenarios, not {}",
            names_where(|a| a.takes.sdk),
            agent.name
        ));
    }
    if s.config.is_some() && !takes.config {
        return Some(format!(
            "config is merged into the configuration files of {}, not {}'s",
            names_where(|a| a.takes.config),
            agent.name
        ));
    }
    if !s.answers.is_empty() && !takes.answers {
        return Some(format!(
            "answers only reach agents that wait for the user ({}), not {}",
            names_where(|a| a.takes.answers),
            agent.name
        ));
    }
    None
}

/// What driving the agent found, beyond the fixture itself.
#[derive(Debug, Default)]
pub struct Driven {
    /// Expectations the session did not meet (unused answers, ...).
    pub problems: Vec<String>,
    /// The user said no — dismissed a question, or a permission was refused: OpenCode and Kilo
    /// end the turn there (unless `experimental.continue_loop_on_deny`), so the rest of the
    /// script is not played.
    pub dismissed: bool,
}

/// A one-shot run (`claude -p`, `codex exec`, `opencode run`): the agent's stdout passed through
/// the recorder until it exits, SIGINT when `interrupt` says (an interrupted turn).
/// What it printed comes back, for launchers that read how the session ended.
fn wrapped(launch: &Launch<'_>, interrupt: Option<Interrupt>) -> anyhow::Result<Vec<u8>> {
    let out = Captured::new();
    let stderr = StderrLog::in_scratch(launch);
    let agent = launch.spawn(
        launch.command(),
        AgentEnds {
            stdin: StdinEnd::Null,
            stdout: Box::new(out.clone()),
            stderr: StderrEnd::Direct(stderr.stdio()?),
            forward_signals: false,
        },
    )?;
    let mut running = RunningAgent::start(agent);
    trace::mark(&launch.scenario.name, "agent started");
    let mut exit = None;
    let mut limit = launch.limit;
    if let Some(interrupt) = interrupt {
        let started = Instant::now();
        if interrupt.wait(
            |text| out.contains(text.as_bytes()),
            |wait| {
                exit = running.wait_for(wait)?;
                Ok(exit.is_some())
            },
        )? {
            running.interrupt();
            limit = limit
                .saturating_sub(started.elapsed())
                .max(Duration::from_secs(10));
        }
    }
    if exit.is_none() {
        exit = running.wait_until(limit)?;
    }
    trace::mark(&launch.scenario.name, "agent exited");
    let stdout = out.bytes();
    let stderr = stderr.read();
    if launch.opts.raw {
        launch.write_raw(&String::from_utf8_lossy(&stdout))?;
    }
    match exit {
        None => bail!(
            "the agent did not finish within {}s; stderr:\n{}",
            limit.as_secs(),
            tail(&stderr)
        ),
        Some(e) if e.code != 0 && stdout.is_empty() => {
            bail!(
                "the agent exited with exit status: {} and printed nothing; stderr:\n{}",
                e.code,
                tail(&stderr)
            )
        }
        Some(_) => Ok(stdout),
    }
}

/// How an agent spoken to over its stdio (`proxied`) is ended once its session is over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// Its input is closed, and it exits at the end of its input.
    Eof,
    /// Its input is closed and its group is sent SIGTERM: it reads on after the end of its input
    /// (codex-acp 0.16.0, claude-agent-acp 0.23.1 and `openhands acp` 1.16.0 never exit on EOF;
    /// waiting for them cost 15 s a scenario), and exits at once on SIGTERM. Sent only when the
    /// session went as far as the driver waits (the prompt's response), so nothing of the
    /// session is cut off.
    Terminate,
}

/// An agent spoken to over its stdio through the recording proxy (the recording holds both
/// directions): `drive` runs the session on the channel; closing its input (and, by `end`,
/// SIGTERM) then ends the agent, whose exit is awaited.
fn proxied(
    launch: &Launch<'_>,
    who: &'static str,
    end: End,
    drive: impl FnOnce(&mut LineChannel) -> anyhow::Result<Driven>,
) -> anyhow::Result<Driven> {
    let (to_agent, agent_in) = memory::pipe();
    let (agent_out, from_agent) = memory::pipe();
    let stderr = StderrLog::in_scratch(launch);
    let agent = launch.spawn(
        launch.command(),
        AgentEnds {
            stdin: StdinEnd::Proxy(Box::new(agent_in)),
            stdout: Box::new(agent_out),
            stderr: StderrEnd::Direct(stderr.stdio()?),
            forward_signals: false,
        },
    )?;
    let mut running = RunningAgent::start(agent);
    let mut channel = LineChannel::new(from_agent, to_agent, who, launch.limit);
    trace::mark(&launch.scenario.name, "agent started");
    let driven = drive(&mut channel);
    trace::mark(&launch.scenario.name, "session driven; closing its stdin");
    channel.close();
    if end == End::Terminate && driven.is_ok() {
        running.terminate();
    }
    let exit = running
        .wait_until(Duration::from_secs(15))
        .with_context(|| format!("failed to wait for {who}"))?;
    trace::mark(
        &launch.scenario.name,
        if exit.is_some() {
            "agent exited"
        } else {
            "agent killed"
        },
    );
    let stderr = stderr.read();
    if launch.opts.raw {
        let text: String = channel.seen.iter().map(|l| format!("{l}\n")).collect();
        launch.write_raw(&text)?;
    }
    let driven =
        driven.with_context(|| format!("{who} session failed; stderr:\n{}", tail(&stderr)))?;
    if exit.is_none() {
        eprintln!("warning: {who} did not exit after its stdin closed; killed");
    }
    Ok(driven)
}

/// The agent's stderr, written to a file in the scratch folder (a grandchild that keeps it open
/// cannot hold anything up) and read back for error messages.
struct StderrLog(PathBuf);

impl StderrLog {
    fn in_scratch(launch: &Launch<'_>) -> StderrLog {
        StderrLog(launch.scratch.root.join("agent-stderr.log"))
    }

    fn stdio(&self) -> anyhow::Result<Stdio> {
        let f = File::create(&self.0)
            .with_context(|| format!("failed to create {}", self.0.display()))?;
        Ok(Stdio::from(f))
    }

    fn read(&self) -> Vec<u8> {
        fs::read(&self.0).unwrap_or_default()
    }
}

/// The last 20 lines of what a process printed.
fn tail(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each row has a name of its own, found by [`find`]; each CLI is found by its package, its
    /// executable and its header name; an adapter records into `acp`.
    #[test]
    fn every_row_is_found_by_its_names() {
        for a in AGENTS {
            assert!(std::ptr::eq(find(a.name).unwrap(), a), "{}", a.name);
            for name in [a.cli.package, a.cli.bin, a.cli.display] {
                assert_eq!(cli_named(name), Some(a.cli), "{name}");
            }
            assert!(!a.tools.is_empty(), "{}", a.name);
            if a.name.ends_with("-acp") {
                assert_eq!(a.provider, Provider::Acp, "{}", a.name);
            }
        }
        assert!(find("emacs").is_none() && cli_named("emacs").is_none());
        assert_eq!(
            cli_names(),
            "claude, codex, opencode, claude-agent-acp, codex-acp, kilo, droid, copilot, gemini, qwen, cline, openhands, kimi, vibe-acp"
        );
    }

    /// What a scenario asks of its agent is checked against the row, the message naming the
    /// agents that take it.
    #[test]
    fn a_scenario_asks_only_what_its_agent_takes() {
        let toml = |agent: &str, extra: &str| -> Scenario {
            toml::from_str(&format!(
                "name = \"x\"\ndescription = \"d\"\nagent = \"{agent}\"\ncli_version = \"1\"\n\
                 prompt = \"p\"\n{extra}\n[[turns]]\ntext = \"x\"\n"
            ))
            .unwrap()
        };
        assert_eq!(problem(&toml("codex-app-server", "")), None);
        let p = problem(&toml("codex-app-server", "interrupt_after_secs = 3")).unwrap();
        assert!(
            p.starts_with("interrupt_after_secs works for claude, codex-exec,"),
            "{p}"
        );
        let p = problem(&toml("claude", "interrupt_when_running = \"sleep 9\"")).unwrap();
        assert!(p.starts_with("interrupt_when_running needs"), "{p}");
        let both = "interrupt_after_secs = 9\ninterrupt_when_running = \"sleep 9\"";
        assert_eq!(problem(&toml("claude", both)), None);
        let p = problem(&toml("claude-acp", "sdk = true")).unwrap();
        assert_eq!(
            p,
            "sdk and transcript are options of claude scenarios, not claude-acp"
        );
        let p = problem(&toml("kilo-run", "answers = [[\"a\"]]")).unwrap();
        assert!(
            p.starts_with("answers only reach") && p.ends_with("not kilo-run"),
            "{p}"
        );
        assert_eq!(problem(&toml("kilo-run", "config = { a = 1 }")), None);
        let p = problem(&toml("copilot", "config = { a = 1 }")).unwrap();
        assert!(p.starts_with("config is merged into"), "{p}");
        let p = problem(&toml("emacs", "")).unwrap();
        assert!(
            p.starts_with("unknown agent \"emacs\" (the agents: claude, codex-exec"),
            "{p}"
        );
    }
}
