//! `toolnorm record`: capture a live provider stream into the corpus while passing it through —
//! pipe (stdin → stdout), wrap (`-- agent args`), proxy (two-way stdio) or SSE (`--sse URL`). The
//! flags map onto a [`Recording`]; the process's own stdio are its passthrough ends.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use anyhow::Context;

use crate::cli::exit;
use crate::corpus::record::pipe::{CopyEnd, RawStdout};
use crate::corpus::record::{
    AgentEnds, DEFAULT_MAX_LAG_BYTES, Recording, SseOptions, StderrEnd, StdinEnd,
};
use crate::corpus::redact::Redactor;
use crate::corpus::validate_name;
use crate::stream::{Dialect, Provider};

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    claude -p --output-format stream-json --verbose | toolnorm record --provider claude --name demo | engine\n  \
    toolnorm record --provider claude --name demo -- claude -p --output-format stream-json --verbose\n  \
    toolnorm record --provider codex --name rpc --proxy -- codex app-server\n  \
    toolnorm record --provider opencode --name ev --sse http://127.0.0.1:4096/event --until session.idle")]
pub struct Args {
    /// The agent's provider: claude, codex, opencode or acp (any ACP agent, with `--proxy`).
    #[arg(long)]
    pub provider: Provider,
    /// Fixture name (default: the start time, e.g. 20261202-151000).
    #[arg(long)]
    pub name: Option<String>,
    /// Corpus directory; the fixture goes to `DIR/<provider>/<name>.jsonl.zst`.
    #[arg(long, value_name = "DIR", default_value = "corpus")]
    pub corpus: PathBuf,
    /// Overwrite an existing fixture.
    #[arg(long)]
    pub force: bool,
    /// Also record the agent's stderr (it is always passed through).
    #[arg(long)]
    pub stderr: bool,
    /// Two-way stdio proxy (JSON-RPC agents such as `codex app-server`): records both directions.
    #[arg(long, requires = "command")]
    pub proxy: bool,
    /// Subscribe to an OpenCode server's event stream (…/event) and record each event.
    #[arg(long, value_name = "URL", conflicts_with_all = ["command", "proxy", "stderr"])]
    pub sse: Option<String>,
    /// With --sse: stop after the first event of this type (e.g. session.idle).
    #[arg(long, value_name = "EVENT_TYPE", requires = "sse")]
    pub until: Option<String>,
    /// With --sse: when the stream drops, subscribe again up to this many times in a row
    /// (waiting 0.5 s, 1 s, 2 s, ...); each reconnection is noted in the fixture.
    #[arg(long, value_name = "N", default_value_t = 3, requires = "sse")]
    pub reconnect: u32,
    /// An extra pattern to redact (repeatable), recorded as kind `custom`.
    #[arg(long = "redact", value_name = "REGEX")]
    pub redact: Vec<String>,
    /// Replace a path prefix in the fixture (repeatable), e.g. a scratch dir: --map-path /tmp/x=/work.
    #[arg(long = "map-path", value_name = "FROM=TO")]
    pub map_path: Vec<String>,
    /// The dialect, when known up front (otherwise it is detected and written in the trailer).
    #[arg(long)]
    pub dialect: Option<String>,
    /// The agent CLI's version, when the stream does not announce it.
    #[arg(long, value_name = "VERSION")]
    pub cli_version: Option<String>,
    /// The agent CLI's name, written in the header (e.g. claude-code).
    #[arg(long, value_name = "NAME")]
    pub cli: Option<String>,
    /// The live scenario this recording comes from, written in the header.
    #[arg(long, value_name = "NAME")]
    pub scenario: Option<String>,
    /// Stop recording (never the passthrough) when this many MiB wait for the writer.
    #[arg(long, value_name = "MIB", default_value_t = DEFAULT_MAX_LAG_BYTES >> 20, hide = true)]
    pub max_lag_mib: usize,
    /// The agent command to wrap (after `--`).
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// Parse `FROM=TO` path mappings.
pub fn parse_map_paths(items: &[String]) -> anyhow::Result<Vec<(String, String)>> {
    items
        .iter()
        .map(|m| {
            m.split_once('=')
                .map(|(a, b)| (a.to_owned(), b.to_owned()))
                .with_context(|| format!("--map-path `{m}` is not FROM=TO"))
        })
        .collect()
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let name = args.name.clone().unwrap_or_else(default_name);
    validate_name(&name).map_err(anyhow::Error::msg)?;
    let dialect = args
        .dialect
        .as_deref()
        .map(|d| Dialect::parse(d, Some(args.provider)).map_err(anyhow::Error::msg))
        .transpose()?;
    let redactor = Redactor::for_user(parse_map_paths(&args.map_path)?, args.redact.clone())?;
    let recording = Recording {
        dialect,
        cli_version: args.cli_version.clone(),
        cli: args.cli.clone(),
        scenario: args.scenario.clone(),
        force: args.force,
        max_lag_bytes: args.max_lag_mib.saturating_mul(1 << 20).max(1),
        detect: Some(crate::dialects::detector),
        ..Recording::new(&args.corpus, args.provider, &name, redactor)?
    };

    if let Some(url) = &args.sse {
        let sse = SseOptions {
            url: url.clone(),
            until: args.until.clone(),
            reconnect: args.reconnect,
        };
        let subscription = recording.subscribe(sse)?;
        let (stop, stopped) = crossbeam_channel::bounded::<()>(1);
        let _signals = on_interrupt(move || {
            let _ = stop.send(());
        });
        subscription.run(Box::new(RawStdout::new()), stopped)?;
        return Ok(exit::SUCCESS);
    }

    if args.command.is_empty() {
        let (end, _) = recording.pipe(std::io::stdin().lock(), RawStdout::new())?;
        if let CopyEnd::OutputClosed(e) = end
            && e.kind() != std::io::ErrorKind::BrokenPipe
        {
            return Err(anyhow::Error::new(e).context("failed to write stdout"));
        }
        return Ok(exit::SUCCESS);
    }

    // Wrapped and proxied agents run where the recorder runs, with its environment.
    let mut cmd = Command::new(&args.command[0]);
    cmd.args(&args.command[1..]);
    let ends = AgentEnds {
        stdin: if args.proxy {
            StdinEnd::Proxy(Box::new(std::io::stdin()))
        } else {
            StdinEnd::Inherit
        },
        stdout: Box::new(RawStdout::new()),
        stderr: if args.stderr {
            StderrEnd::Recorded(Box::new(std::io::stderr()))
        } else {
            StderrEnd::Direct(Stdio::inherit())
        },
        forward_signals: true,
    };
    let code = recording.spawn(cmd, ends)?.run()?.code;
    Ok((code & 0xff) as u8)
}

/// A timestamp name: `20261202-151000`.
fn default_name() -> String {
    crate::timestamp::now_compact()
}

/// Run `f` on the first SIGINT/SIGTERM (SSE mode ends its recording cleanly on Ctrl-C).
#[cfg(unix)]
fn on_interrupt(f: impl FnOnce() + Send + 'static) -> Option<signal_hook::iterator::Handle> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]).ok()?;
    let handle = signals.handle();
    std::thread::spawn(move || {
        if signals.forever().next().is_some() {
            f();
        }
    });
    Some(handle)
}

#[cfg(not(unix))]
fn on_interrupt(_f: impl FnOnce() + Send + 'static) -> Option<()> {
    None
}
