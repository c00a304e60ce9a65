//! One launcher per agent CLI (`claude.rs`, `codex.rs`, `copilot.rs`, `droid.rs`, `opencode.rs`
//! for OpenCode and Kilo, `gemini.rs` for Gemini CLI and Qwen Code): its configuration files, its
//! command line, and how it is driven and recorded. The ways of running an agent that several of
//! them share — a one-shot run passed through (`wrapped`), a two-way conversation over its stdio
//! (`proxied`) — are here.

mod acp;
mod claude;
pub(crate) mod cline;
mod codex;
pub(crate) mod copilot;
pub(crate) mod droid;
mod gemini;
mod opencode;

use std::fs::{self, File};
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context, bail};

use super::driver::LineChannel;
use super::launch::{AgentCommand, Launch, Setup};
use super::process::RunningAgent;
use super::spec::{Agent, Cli, Scenario};
use crate::corpus::record::memory::{self, Captured};
use crate::corpus::record::{AgentEnds, StderrEnd, StdinEnd};
use crate::stream::Dialect;

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

/// The launcher of `agent`.
pub fn launcher_of(agent: Agent) -> &'static dyn Launcher {
    if agent.is_acp() {
        &acp::Acp
    } else {
        launcher(agent.cli())
    }
}

/// The launcher of `cli`.
pub fn launcher(cli: Cli) -> &'static dyn Launcher {
    match cli {
        Cli::Claude => &claude::Claude,
        Cli::Codex => &codex::Codex,
        Cli::Opencode => &opencode::OPENCODE,
        Cli::Kilo => &opencode::KILO,
        Cli::Droid => &droid::Droid,
        Cli::Copilot => &copilot::Copilot,
        Cli::ClaudeAcp | Cli::CodexAcp => &acp::Acp,
        Cli::Gemini | Cli::Qwen => &gemini::Gemini,
        Cli::Cline => &cline::Cline,
    }
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
/// the recorder until it exits, SIGINT after `interrupt_after` when given (an interrupted turn).
/// What it printed comes back, for launchers that read how the session ended.
fn wrapped(launch: &Launch<'_>, interrupt_after: Option<Duration>) -> anyhow::Result<Vec<u8>> {
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
    let mut exit = None;
    let mut limit = launch.limit;
    if let Some(after) = interrupt_after {
        exit = running.wait_for(after)?;
        if exit.is_none() {
            running.interrupt();
            limit = limit.saturating_sub(after).max(Duration::from_secs(10));
        }
    }
    if exit.is_none() {
        exit = running.wait_until(limit)?;
    }
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

/// An agent spoken to over its stdio through the recording proxy (the recording holds both
/// directions): `drive` runs the session on the channel; closing its input then ends the agent.
fn proxied(
    launch: &Launch<'_>,
    who: &'static str,
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
    let driven = drive(&mut channel);
    channel.close();
    let exit = running
        .wait_until(Duration::from_secs(15))
        .with_context(|| format!("failed to wait for {who}"))?;
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
