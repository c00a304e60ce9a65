//! Running one scenario: a scratch HOME and workspace, the scripted model (and page) servers on
//! loopback, the agent configured, started and driven by its launcher ([`super::agents`]) and
//! recorded in-process through [`Recording`] into the corpus, then the run checked against the
//! scenario's expectations.

use std::fs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::Value;

use super::agents;
use super::mcp_server::{self, ServerCommand};
use super::model_server::{ModelServer, Script};
use super::npm;
use super::page_server::TlsPageServer;
use super::spec::{Agent, Cli, Scenario};
use crate::corpus::record::{AgentEnds, Recording, SseOptions, Subscription, WrappedAgent};
use crate::corpus::redact::{RedactOptions, Redactor};
use crate::stream::Provider;

/// How `scenario run` records.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The corpus root (`corpus/`); fixtures land in `<corpus>/<provider>/live-<name>.jsonl.zst`.
    pub corpus: PathBuf,
    /// Overwrite existing fixtures.
    pub force: bool,
    /// Keep the scratch folder (printed) for inspection.
    pub keep_scratch: bool,
    /// Copy each scenario's model request log here as `<name>.requests.jsonl`.
    pub request_logs: Option<PathBuf>,
    /// Use this CLI version instead of the scenario's pin (drift).
    pub version_override: Option<String>,
    /// Do not record: write the agent's raw stream to `<corpus>/<provider>/live-<name>.jsonl`
    /// (for exploring a new CLI version).
    pub raw: bool,
}

/// What one run produced.
#[derive(Debug)]
pub struct Outcome {
    pub name: String,
    pub fixture: PathBuf,
    pub cli_version: String,
    pub elapsed: Duration,
    pub requests: usize,
    /// Expectations that failed (a missing `expect_sent` string, an unfinished script).
    pub problems: Vec<String>,
}

/// The scratch folders of one run.
pub struct Scratch {
    pub root: PathBuf,
    pub home: PathBuf,
    pub work: PathBuf,
}

impl Scratch {
    fn create(name: &str) -> anyhow::Result<Scratch> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let root = std::env::temp_dir().join(format!(
            "toolnorm-scenario-{name}-{}-{nanos}",
            std::process::id()
        ));
        let home = root.join("home");
        let work = root.join("work");
        for d in [&home, &work, &root.join("tmp")] {
            fs::create_dir_all(d).with_context(|| format!("failed to create {}", d.display()))?;
        }
        // Canonical paths: the CLIs print resolved paths, and redaction must match them.
        let root = root
            .canonicalize()
            .context("failed to resolve the scratch folder")?;
        Ok(Scratch {
            home: root.join("home"),
            work: root.join("work"),
            root,
        })
    }

    /// Fold the scratch folders out of `text` (for files written beside the recorder's).
    pub fn redact_paths(&self, text: &str) -> String {
        text.replace(&self.work.display().to_string(), "~/work")
            .replace(&self.home.display().to_string(), "~")
            .replace(&self.root.display().to_string(), "~/scratch")
    }
}

/// Run one scenario end to end.
pub fn run_scenario(s: &Scenario, opts: &RunOptions) -> anyhow::Result<Outcome> {
    let started = Instant::now();
    let cli = s.agent.cli();
    let version = opts
        .version_override
        .clone()
        .unwrap_or_else(|| s.cli_version.clone());
    let bin = npm::ensure(cli, &version)
        .with_context(|| format!("failed to install {}@{version}", cli.package()))?;

    let provider_dir = opts.corpus.join(s.agent.provider());
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
    let provider_dir = opts.corpus.join(s.agent.provider());
    let fixture = provider_dir.join(format!(
        "{}.{}",
        s.fixture_name(),
        if opts.raw { "jsonl" } else { "jsonl.zst" }
    ));
    if fixture.exists() && !opts.force {
        bail!("{} exists (use --force to re-record)", fixture.display());
    }

    let scratch = Scratch::create(&s.name)?;
    for f in &s.files {
        let p = scratch.work.join(&f.path);
        if let Some(parent) = p.parent() {
            fs::create_dir_all(parent)
                .with_context(|| format!("failed to create {}", parent.display()))?;
        }
        fs::write(&p, &f.content).with_context(|| format!("failed to write {}", p.display()))?;
    }
    let log_path = scratch.root.join("requests.jsonl");
    let mut script = Script::from_scenario(s);
    script
        .vars
        .push(("workspace".to_owned(), scratch.work.display().to_string()));
    // Claude Code's WebFetch only fetches https: the pages are served over TLS as well, from a
    // certificate authority made for this run that only the agent trusts.
    let tls_pages = if s.agent == Agent::Claude && !s.pages.is_empty() {
        let pages = TlsPageServer::start(s.pages.clone())
            .context("failed to start the HTTPS page server")?;
        script
            .vars
            .push(("https_base_url".to_owned(), pages.base_url()));
        Some(pages)
    } else {
        None
    };
    let server = ModelServer::start(script, Some(&log_path))
        .context("failed to start the scripted model server")?;

    let launcher = agents::launcher(cli);
    let mcp = mcp_server::launch_command()?;
    let setup = Setup {
        scenario: s,
        scratch: &scratch,
        model_url: server.base_url(),
        mcp: &mcp,
    };
    let mut agent = AgentCommand::new(&bin);
    agent
        .env("HOME", scratch.home.display().to_string())
        .env("TMPDIR", scratch.root.join("tmp").display().to_string())
        .env("NO_COLOR", "1");
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
        version: &version,
        model_port: server.port(),
        https_port: tls_pages.as_ref().map(TlsPageServer::port),
    };
    let result = launcher.drive(&launch);
    server.stop();
    drop(tls_pages);

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
    let driven = result?;
    let mut problems = driven.problems;
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
        cli_version: version,
        elapsed: started.elapsed(),
        requests: log.lines().count(),
        problems,
    })
}

fn json_escaped(s: &str) -> String {
    let q = Value::String(s.to_owned()).to_string();
    q[1..q.len() - 1].to_owned()
}

/// What a launcher needs to configure the agent and build its command line.
pub struct Setup<'a> {
    pub scenario: &'a Scenario,
    pub scratch: &'a Scratch,
    /// The scripted model server, `http://127.0.0.1:<port>`.
    pub model_url: String,
    /// How the agent starts the fixture MCP server (when the scenario gives it one).
    pub mcp: &'a ServerCommand,
}

/// The agent command under construction: program, arguments, environment.
pub struct AgentCommand {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
}

impl AgentCommand {
    fn new(bin: &Path) -> AgentCommand {
        AgentCommand {
            program: bin.to_owned(),
            args: Vec::new(),
            env: Vec::new(),
        }
    }

    pub fn arg(&mut self, a: impl Into<String>) -> &mut Self {
        self.args.push(a.into());
        self
    }

    pub fn env(&mut self, k: &str, v: impl Into<String>) -> &mut Self {
        self.env.push((k.to_owned(), v.into()));
        self
    }
}

/// Write `text` to `path`, creating its folder.
pub fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)
            .with_context(|| format!("failed to create {}", parent.display()))?;
    }
    fs::write(path, text).with_context(|| format!("failed to write {}", path.display()))
}

/// The API key the agents are given for the scripted model.
pub const API_KEY: &str = "sk-scripted-model-key";

/// The port written in fixtures in place of the model server's real (free, random) one.
const STABLE_PORT: u16 = 8080;

/// Likewise for the HTTPS page server's port.
const STABLE_HTTPS_PORT: u16 = 8443;

/// What a launcher needs to start, record and drive the configured agent.
pub struct Launch<'a> {
    pub scenario: &'a Scenario,
    pub agent: &'a AgentCommand,
    pub scratch: &'a Scratch,
    /// The fixture to write (`.jsonl` in raw mode).
    pub fixture: &'a Path,
    pub opts: &'a RunOptions,
    /// The scenario's time limit for the whole session.
    pub limit: Duration,
    cli: Cli,
    version: &'a str,
    /// The model server's port (also the page server's), folded to a fixed one in fixtures so
    /// titles built from URLs do not change from run to run.
    model_port: u16,
    /// The HTTPS page server's port, folded to 8443 likewise.
    https_port: Option<u16>,
}

impl Launch<'_> {
    /// A `Command` for the agent with a clean environment (nothing of the real user's HOME or
    /// credentials reaches the CLI), in the workspace, leading a process group of its own so that
    /// everything it starts (MCP servers, shells, ripgrep) can be ended together.
    pub fn command(&self) -> Command {
        let mut c = Command::new(&self.agent.program);
        c.args(&self.agent.args).env_clear();
        for k in ["PATH", "LANG", "LC_ALL", "TERM"] {
            if let Some(v) = std::env::var_os(k) {
                c.env(k, v);
            }
        }
        for (k, v) in &self.agent.env {
            c.env(k, v);
        }
        c.current_dir(&self.scratch.work).process_group(0);
        c
    }

    /// Start the agent `cmd` with `ends`, recorded (or not, in raw mode).
    pub fn spawn(&self, cmd: Command, ends: AgentEnds) -> anyhow::Result<WrappedAgent> {
        match self.recording(&cmd)? {
            Some(r) => r.spawn(cmd, ends),
            None => WrappedAgent::unrecorded(cmd, ends),
        }
    }

    /// Subscribe to the event stream of the agent `cmd` started, recorded (or not, in raw mode).
    pub fn subscribe(&self, cmd: &Command, sse: SseOptions) -> anyhow::Result<Subscription> {
        match self.recording(cmd)? {
            Some(r) => r.subscribe(sse),
            None => Subscription::unrecorded(sse),
        }
    }

    /// Raw mode: write what the agent printed as the fixture, the scratch folders folded.
    pub fn write_raw(&self, text: &str) -> anyhow::Result<()> {
        fs::write(self.fixture, self.scratch.redact_paths(text))
            .with_context(|| format!("failed to write {}", self.fixture.display()))
    }

    /// The recording of this scenario (None in raw mode). The header takes the allow-listed part
    /// of the environment `cmd` runs in; redaction folds what differs from run to run.
    fn recording(&self, cmd: &Command) -> anyhow::Result<Option<Recording>> {
        if self.opts.raw {
            return Ok(None);
        }
        let s = self.scenario;
        let provider: Provider = s.agent.provider().parse().map_err(anyhow::Error::msg)?;
        let redactor = Redactor::new(&RedactOptions {
            // The agent's home is the scratch one.
            home: Some(self.scratch.home.display().to_string()),
            prefixes: self.folds(),
            extra: Vec::new(),
        })?;
        let env = cmd
            .get_envs()
            .filter_map(|(k, v)| Some((k.to_str()?, v?.to_str()?)));
        Ok(Some(Recording {
            cli: Some(self.cli.display().to_owned()),
            cli_version: Some(self.version.to_owned()),
            scenario: Some(s.name.clone()),
            env: Some(Recording::allowed_env(env)),
            force: self.opts.force,
            detect: Some(crate::dialects::detector),
            ..Recording::new(&self.opts.corpus, provider, &s.fixture_name(), redactor)?
        }))
    }

    /// The path prefixes folded in fixtures, and what they become.
    fn folds(&self) -> Vec<(String, String)> {
        let scratch = self.scratch;
        let work = scratch.work.display().to_string();
        // Scratch paths fold like home paths; the most specific prefix first.
        let mut maps = vec![
            (work.clone(), "~/work".to_owned()),
            (scratch.home.display().to_string(), "~".to_owned()),
            (scratch.root.display().to_string(), "~/scratch".to_owned()),
        ];
        // Claude Code names per-project folders after the workspace path with every other
        // character turned into `-` (`~/.claude/projects/-tmp-…-work`): fold that spelling too.
        let slug: String = work
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        maps.push((slug, "-work".to_owned()));
        // OpenCode's session `path` is the workspace without its leading `/`.
        maps.push((work.trim_start_matches('/').to_owned(), "work".to_owned()));
        // The CLI cache and the toolnorm binary live under the real user's folders: fold them too.
        if let Ok(cache) = npm::cache_root() {
            maps.push((
                cache.display().to_string(),
                "~/.cache/toolnorm/clis".to_owned(),
            ));
        }
        if let Some(dir) = std::env::current_exe()
            .ok()
            .and_then(|e| e.parent().map(Path::to_path_buf))
        {
            maps.push((dir.display().to_string(), "~/toolnorm-bin".to_owned()));
        }
        maps.push((
            format!("127.0.0.1:{}", self.model_port),
            format!("127.0.0.1:{STABLE_PORT}"),
        ));
        if let Some(port) = self.https_port {
            maps.push((
                format!("127.0.0.1:{port}"),
                format!("127.0.0.1:{STABLE_HTTPS_PORT}"),
            ));
        }
        maps
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::read_fixture;
    use crate::scenario::spec;

    /// Every launcher builds the command line its committed fixtures were recorded with (the
    /// header keeps it, scratch paths folded).
    #[test]
    fn launchers_build_the_recorded_command_lines() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mcp = ServerCommand {
            program: "/bin/toolnorm".to_owned(),
            args: vec![mcp_server::SUBCOMMAND.to_owned()],
        };
        let mut checked = std::collections::BTreeSet::new();
        for s in spec::load_dir(&root.join("scenarios")).unwrap() {
            let s = s.unwrap();
            let fixture = root
                .join("corpus")
                .join(s.agent.provider())
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
            let scratch = Scratch::create(&s.name).unwrap();
            let setup = Setup {
                scenario: &s,
                scratch: &scratch,
                model_url: "http://127.0.0.1:1".to_owned(),
                mcp: &mcp,
            };
            let mut cmd = AgentCommand::new(Path::new("agent"));
            let launcher = agents::launcher(s.agent.cli());
            launcher.configure(&setup, &mut cmd).unwrap();
            launcher.command(&setup, &mut cmd);
            let args: Vec<String> = cmd.args.iter().map(|a| scratch.redact_paths(a)).collect();
            let _ = fs::remove_dir_all(&scratch.root);
            assert_eq!(args, header.command[1..], "{}", s.name);
            checked.insert(s.agent);
        }
        // Each wrapped or proxied way of running an agent is covered.
        assert_eq!(
            checked.into_iter().collect::<Vec<_>>(),
            [
                Agent::Claude,
                Agent::CodexExec,
                Agent::CodexAppServer,
                Agent::OpencodeRun
            ]
        );
    }
}
