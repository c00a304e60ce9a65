//! Running one scenario: a scratch HOME and workspace, the scripted model (and page) servers on
//! loopback, the agent configured, started and driven by its launcher ([`super::agents`]) and
//! recorded in-process through [`Recording`](crate::corpus::record::Recording) into the corpus, then the run checked against the
//! scenario's expectations.

use std::fs;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::Value;

use super::agents;
use super::mcp_server;
use super::model_server::{ModelServer, Script};
use super::npm;
#[cfg(feature = "https-pages")]
use super::page_server::TlsPageServer;
use super::sandbox;
use super::spec::Scenario;
use super::trace;
use super::transcript;

use super::launch::{AgentCommand, Launch, RunOptions, Scratch, Setup, write};

/// What one run produced.
#[derive(Debug)]
pub struct Outcome {
    pub name: String,
    pub fixture: PathBuf,
    /// The session transcript kept beside the recording (`transcript = true`).
    pub transcript: Option<PathBuf>,
    pub cli_version: String,
    pub elapsed: Duration,
    pub requests: usize,
    /// Expectations that failed (a missing `expect_sent` string, an unfinished script).
    pub problems: Vec<String>,
    /// The tools the CLI declared to the model in its requests.
    pub declared: std::collections::BTreeSet<String>,
}

/// Run one scenario end to end.
pub fn run_scenario(s: &Scenario, opts: &RunOptions) -> anyhow::Result<Outcome> {
    let started = Instant::now();
    trace::mark(&s.name, "start");
    let entry = agents::of(s)?;
    let cli = entry.cli;
    let version = opts
        .version_override
        .clone()
        .unwrap_or_else(|| s.cli_version.clone());
    let bin = npm::ensure(cli, &version)
        .with_context(|| format!("failed to install {}@{version}", cli.package))?;
    // A program the agent needs from the machine is missing: say so before the session starts.
    sandbox::check_programs(cli)?;
    trace::mark(&s.name, "installed and programs checked");

    let provider_dir = opts.corpus.join(entry.provider.as_str());
    fs::create_dir_all(&provider_dir)
        .with_context(|| format!("failed to create {}", provider_dir.display()))?;
    // The agent runs in the scratch workspace: the fixture's path is made absolute.
    let corpus = opts
        .corpus
        .canonicalize()
        .with_context(|| format!("failed to resolve {}", opts.corpus.display()))?;
    let opts = &RunOptions {
        corpus,
        ..opts.clone()
    };
    let provider_dir = opts.corpus.join(entry.provider.as_str());
    let fixture = provider_dir.join(format!(
        "{}.{}",
        s.fixture_name(),
        if opts.raw { "jsonl" } else { "jsonl.zst" }
    ));
    if fixture.exists() && !opts.force {
        bail!("{} exists (use --force to re-record)", fixture.display());
    }

    let scratch = Scratch::create(&s.name)?;
    for (i, f) in s.files.iter().enumerate() {
        let p = scratch.work.join(&f.path);
        if let Some(parent) = p.parent() {
            fs::create_dir_all(parent)
                .with_context(|| format!("failed to create {}", parent.display()))?;
        }
        fs::write(&p, &f.content).with_context(|| format!("failed to write {}", p.display()))?;
        sandbox::set_file_time(&p, i, s.files.len(), sandbox::file_order(cli))?;
    }
    let log_path = scratch.root.join("requests.jsonl");
    let mut script = Script::from_scenario(s);
    script
        .vars
        .push(("workspace".to_owned(), scratch.work.display().to_string()));
    // Claude Code's WebFetch only fetches https: the pages are served over TLS as well, from a
    // certificate authority made for this run that only the agent trusts.
    let needs_https = entry.takes.https_pages && !s.pages.is_empty();
    #[cfg(feature = "https-pages")]
    let tls_pages = if needs_https {
        let pages = TlsPageServer::start(s.pages.clone())
            .context("failed to start the HTTPS page server")?;
        script
            .vars
            .push(("https_base_url".to_owned(), pages.base_url()));
        Some(pages)
    } else {
        None
    };
    #[cfg(not(feature = "https-pages"))]
    let tls_pages: Option<NoTlsPages> = if needs_https {
        bail!(
            "scenario {} serves its pages over HTTPS (Claude Code's WebFetch fetches only https), \
             and this toolnorm was built without the HTTPS page server (feature `https-pages`, \
             off by default and in the npm binaries): build it with `cargo build --release \
             --features https-pages`",
            s.name
        );
    } else {
        None
    };
    let server = ModelServer::start(script, Some(&log_path))
        .context("failed to start the scripted model server")?;

    let launcher = entry.launcher;
    let mcp = mcp_server::launch_command()?;
    if s.mcp {
        mcp.ensure_present()?;
    }
    let setup = Setup {
        scenario: s,
        scratch: &scratch,
        model_url: server.base_url(),
        mcp: &mcp,
    };
    let mut agent = AgentCommand::new(&bin);
    let path = sandbox::provide(cli, &scratch.bin)?;
    for (k, v) in sandbox::environment(&scratch.root, &path) {
        agent.env(k, v);
    }
    launcher.configure(&setup, &mut agent)?;
    launcher.command(&setup, &mut agent);
    for (k, v) in &s.env {
        agent.env(k, v.clone());
    }
    if let Some(pages) = &tls_pages {
        let ca = scratch.root.join("page-ca.pem");
        write(&ca, pages.ca_pem())?;
        agent.env("NODE_EXTRA_CA_CERTS", ca.display().to_string());
    }

    let launch = Launch {
        scenario: s,
        agent: &agent,
        scratch: &scratch,
        fixture: &fixture,
        opts,
        limit: Duration::from_secs(s.timeout_secs),
        cli,
        provider: entry.provider,
        version: &version,
        mcp: &mcp,
        dialect: launcher.dialect(s),
        model_port: server.port(),
        https_port: tls_pages.as_ref().map(|p| p.port()),
    };
    trace::mark(&s.name, "configured; starting the agent");
    let result = launcher.drive(&launch);
    trace::mark(&s.name, "driven");
    server.stop();
    // The page server stops once the session is over.
    #[cfg(feature = "https-pages")]
    drop(tls_pages);
    // What the CLI wrote under the scratch HOME is read before the scratch folder goes.
    let kept = (s.transcript && result.is_ok()).then(|| transcript::keep(&launch));

    let log = fs::read_to_string(&log_path).unwrap_or_default();
    if let Some(dir) = &opts.request_logs {
        fs::create_dir_all(dir).with_context(|| format!("failed to create {}", dir.display()))?;
        let to = dir.join(format!("{}.requests.jsonl", s.name));
        fs::write(&to, scratch.redact_paths(&log))
            .with_context(|| format!("failed to write {}", to.display()))?;
    }
    if opts.keep_scratch {
        eprintln!("scratch kept: {}", scratch.root.display());
    } else {
        let _ = fs::remove_dir_all(&scratch.root);
    }
    trace::mark(&s.name, "scratch removed");
    let driven = result?;
    let mut problems = driven.problems;
    let transcript = match kept {
        Some(Ok(path)) => Some(path),
        Some(Err(e)) => {
            problems.push(format!("{e:#}"));
            None
        }
        None => None,
    };
    if !fixture.exists() {
        bail!(
            "the recording ended but {} was not written",
            fixture.display()
        );
    }

    for want in &s.expect_sent {
        if !log.contains(want.as_str()) && !log.contains(&json_escaped(want)) {
            problems.push(format!("no request to the model contained {want:?}"));
        }
    }
    // An agent that could not start or connect the fixture MCP server goes on without its tools:
    // the recording would hold failed calls, not the server's.
    if s.mcp {
        let calls = s
            .turns
            .iter()
            .chain(s.subagents.iter().flat_map(|a| &a.turns))
            .flat_map(|t| &t.tools)
            .map(|c| (c.name.as_str(), &c.input));
        if mcp_server::answered(calls, &log) == Some(false) {
            problems.push(format!(
                "no answer of the fixture MCP server reached the model: the agent did not start \
                 or connect {} (its log under the scratch HOME says why; --keep-scratch keeps it)",
                mcp_server::SERVER_NAME
            ));
        }
    }
    let played = log
        .lines()
        .filter(|l| l.contains("\"script\":\"main\""))
        .count();
    // An interrupted session, or one whose question the user dismissed, stops before its script
    // ends, by design.
    if played < s.turns.len() && s.interrupt_after_secs.is_none() && !driven.dismissed {
        problems.push(format!(
            "the CLI asked the model {played} times, the script has {} main turns",
            s.turns.len()
        ));
    }
    Ok(Outcome {
        name: s.name.clone(),
        fixture,
        transcript,
        cli_version: version,
        elapsed: started.elapsed(),
        requests: log.lines().count(),
        problems,
        declared: super::declared::from_log(&log),
    })
}

/// What stands for the HTTPS page server in a build without it: never made.
#[cfg(not(feature = "https-pages"))]
enum NoTlsPages {}

#[cfg(not(feature = "https-pages"))]
impl NoTlsPages {
    fn port(&self) -> u16 {
        match *self {}
    }

    fn ca_pem(&self) -> &str {
        match *self {}
    }
}

fn json_escaped(s: &str) -> String {
    let q = Value::String(s.to_owned()).to_string();
    q[1..q.len() - 1].to_owned()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::corpus::read_fixture;
    use crate::scenario::mcp_server::ServerCommand;

    /// Every launcher builds the command line its committed fixtures were recorded with (the
    /// header keeps it, scratch paths folded).
    #[test]
    fn launchers_build_the_recorded_command_lines() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mcp = ServerCommand {
            // The folded spelling of the binary a recording names (an MCP server in the args).
            program: "~/toolnorm-bin/toolnorm".to_owned(),
            args: vec![mcp_server::SUBCOMMAND.to_owned()],
        };
        let mut checked = std::collections::BTreeSet::new();
        let base = tempfile::tempdir().unwrap();
        for s in agents::load_dir(&root.join("scenarios")).unwrap() {
            let s = s.unwrap();
            let agent = agents::of(&s).unwrap();
            let fixture = root
                .join("corpus")
                .join(agent.provider.as_str())
                .join(format!("{}.jsonl.zst", s.fixture_name()));
            let Ok(fx) = read_fixture(&fixture) else {
                continue;
            };
            let header = fx.header;
            if header.cli_version.as_deref() != Some(s.cli_version.as_str())
                || !matches!(header.mode.as_deref(), Some("wrap" | "proxy"))
            {
                continue;
            }
            let (scratch, cmd) =
                crate::scenario::launch::configured(agent.launcher, &s, base.path(), &mcp);
            let args: Vec<String> = cmd.args.iter().map(|a| scratch.redact_paths(a)).collect();
            assert_eq!(args, header.command[1..], "{}", s.name);
            checked.insert(agent.name);
        }
        // Each wrapped or proxied way of running an agent is covered: every agent but the
        // servers (`opencode-serve`, `kilo-serve`, recorded as SSE).
        let servers = ["opencode-serve", "kilo-serve"];
        let all: std::collections::BTreeSet<&str> = agents::AGENTS
            .iter()
            .map(|a| a.name)
            .filter(|n| !servers.contains(n))
            .collect();
        assert_eq!(checked, all);
    }
}
