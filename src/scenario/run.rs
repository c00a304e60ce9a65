//! Running one scenario: a scratch HOME and workspace, the agent's config, the scripted model and
//! MCP servers on loopback, and the agent driven through `toolnorm record` into the corpus.

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::{Value, json};

use super::driver::{LineChannel, ScriptedUser, claude_permission};
use super::model_server::{ModelServer, Script};
use super::npm;
use super::page_server::TlsPageServer;
use super::process::{interrupt, kill_group, spawn_group, wait_for, wait_until};
use super::spec::{Agent, Cli, Scenario};

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
    /// Do not go through `toolnorm record`: write the agent's raw stream to
    /// `<corpus>/<provider>/live-<name>.jsonl` (for exploring a new CLI version).
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

/// What driving the agent found, beyond the fixture itself.
#[derive(Debug, Default)]
struct Driven {
    /// Expectations the session did not meet (unused answers, ...).
    problems: Vec<String>,
    /// The user dismissed a question: OpenCode ends the turn there (unless
    /// `experimental.continue_loop_on_deny`), so the rest of the script is not played.
    dismissed: bool,
}

/// The scratch folders of one run.
struct Scratch {
    root: PathBuf,
    home: PathBuf,
    work: PathBuf,
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
    // The recorder runs in the scratch workspace: it must get an absolute corpus path.
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
    let exe = std::env::current_exe().context("failed to locate the toolnorm executable")?;

    let mut agent = AgentCommand::new(&bin);
    configure(s, &scratch, &server, &exe, &mut agent)?;
    if let Some(pages) = &tls_pages {
        let ca = scratch.root.join("page-ca.pem");
        write(&ca, pages.ca_pem())?;
        agent.env("NODE_EXTRA_CA_CERTS", ca.display().to_string());
    }

    let header = Header {
        scenario: &s.name,
        model_port: server.port(),
        https_port: tls_pages.as_ref().map(TlsPageServer::port),
        cli,
        version: &version,
        agent: s.agent,
    };
    let run = Session {
        exe: &exe,
        agent: &agent,
        scratch: &scratch,
        fixture: &fixture,
        header: &header,
        opts,
        limit: Duration::from_secs(s.timeout_secs),
    };
    let result = match s.agent {
        Agent::Claude if s.claude_sdk() => {
            record_proxied(&run, "claude", |channel| drive_claude_sdk(channel, s))
        }
        Agent::Claude | Agent::CodexExec | Agent::OpencodeRun => {
            record_wrapped(&run, s.interrupt_after_secs.map(Duration::from_secs))
                .map(|()| Driven::default())
        }
        Agent::CodexAppServer => record_proxied(&run, "codex app-server", |channel| {
            drive_app_server(channel, s, &scratch.work)
        }),
        Agent::OpencodeServe => record_serve(&run, s),
    };
    server.stop();
    drop(tls_pages);

    let log = fs::read_to_string(&log_path).unwrap_or_default();
    if let Some(dir) = &opts.request_logs {
        fs::create_dir_all(dir).with_context(|| format!("failed to create {}", dir.display()))?;
        let to = dir.join(format!("{}.requests.jsonl", s.name));
        fs::write(&to, redact_paths(&log, &scratch))
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

fn redact_paths(text: &str, scratch: &Scratch) -> String {
    text.replace(&scratch.work.display().to_string(), "~/work")
        .replace(&scratch.home.display().to_string(), "~")
        .replace(&scratch.root.display().to_string(), "~/scratch")
}

/// What every recording mode needs to start the agent, directly or through the recorder.
#[derive(Clone, Copy)]
struct Session<'a> {
    exe: &'a Path,
    agent: &'a AgentCommand,
    scratch: &'a Scratch,
    fixture: &'a Path,
    header: &'a Header<'a>,
    opts: &'a RunOptions,
    /// The scenario's time limit for the whole session.
    limit: Duration,
}

/// The fixture header's scenario fields.
struct Header<'a> {
    scenario: &'a str,
    /// The model server's port (also the page server's), folded to a fixed one in fixtures so
    /// titles built from URLs do not change from run to run.
    model_port: u16,
    /// The HTTPS page server's port, folded to 8443 likewise.
    https_port: Option<u16>,
    cli: Cli,
    version: &'a str,
    agent: Agent,
}

/// The agent command under construction: program, arguments, environment, working folder.
struct AgentCommand {
    program: PathBuf,
    args: Vec<String>,
    env: Vec<(String, String)>,
}

impl AgentCommand {
    fn new(bin: &Path) -> AgentCommand {
        AgentCommand {
            program: bin.to_owned(),
            args: Vec::new(),
            env: Vec::new(),
        }
    }
    fn arg(&mut self, a: impl Into<String>) -> &mut Self {
        self.args.push(a.into());
        self
    }
    fn env(&mut self, k: &str, v: impl Into<String>) -> &mut Self {
        self.env.push((k.to_owned(), v.into()));
        self
    }
}

fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)
            .with_context(|| format!("failed to create {}", parent.display()))?;
    }
    fs::write(path, text).with_context(|| format!("failed to write {}", path.display()))
}

const API_KEY: &str = "sk-scripted-model-key";

/// The port written in fixtures in place of the model server's real (free, random) one.
const STABLE_PORT: u16 = 8080;

/// Likewise for the HTTPS page server's port.
const STABLE_HTTPS_PORT: u16 = 8443;

/// Write the agent's config files into the scratch folders and fill in its command line.
fn configure(
    s: &Scenario,
    scratch: &Scratch,
    server: &ModelServer,
    exe: &Path,
    cmd: &mut AgentCommand,
) -> anyhow::Result<()> {
    let exe_s = exe.display().to_string();
    let tmp = scratch.root.join("tmp").display().to_string();
    cmd.env("HOME", scratch.home.display().to_string())
        .env("TMPDIR", tmp)
        .env("NO_COLOR", "1");
    match s.agent {
        Agent::Claude => {
            write(
                &scratch.home.join(".claude/settings.json"),
                &json!({"skipWebFetchPreflight": true}).to_string(),
            )?;
            cmd.env("ANTHROPIC_BASE_URL", server.base_url())
                .env("ANTHROPIC_API_KEY", API_KEY)
                .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
                .env("DISABLE_TELEMETRY", "1")
                .env("DISABLE_AUTOUPDATER", "1")
                .env("IS_SANDBOX", "1");
            cmd.arg("-p");
            if s.claude_sdk() {
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
                let cfg = scratch.root.join("mcp.json");
                let mcp = json!({"mcpServers": {"amalgm": {"type": "stdio", "command": exe_s, "args": ["mcp-fixture-server"]}}});
                write(&cfg, &mcp.to_string())?;
                cmd.arg("--mcp-config").arg(cfg.display().to_string());
            }
        }
        Agent::CodexExec | Agent::CodexAppServer => {
            let codex_home = scratch.home.join(".codex");
            let mut cfg = format!(
                "model = \"gpt-5.5\"\nmodel_provider = \"mock\"\napproval_policy = \"never\"\nsandbox_mode = \"danger-full-access\"\n\n\
                 [model_providers.mock]\nname = \"mock\"\nbase_url = \"{}/v1\"\nwire_api = \"responses\"\nenv_key = \"TOOLNORM_SCRIPTED_KEY\"\n\
                 request_max_retries = 0\nstream_max_retries = 0\n",
                server.base_url()
            );
            if s.mcp {
                cfg.push_str(&format!(
                    "\n[mcp_servers.amalgm]\ncommand = {}\nargs = [\"mcp-fixture-server\"]\n",
                    toml_str(&exe_s)
                ));
            }
            write(&codex_home.join("config.toml"), &cfg)?;
            cmd.env("CODEX_HOME", codex_home.display().to_string())
                .env("TOOLNORM_SCRIPTED_KEY", API_KEY);
            if s.agent == Agent::CodexExec {
                cmd.arg("exec")
                    .arg("--json")
                    .arg("--skip-git-repo-check")
                    .arg("--dangerously-bypass-approvals-and-sandbox");
            } else {
                cmd.arg("app-server");
            }
        }
        Agent::OpencodeRun | Agent::OpencodeServe => {
            let mut cfg = json!({
                "$schema": "https://opencode.ai/config.json",
                "provider": {"mock": {
                    "npm": "@ai-sdk/openai-compatible",
                    "name": "Scripted",
                    "options": {"baseURL": format!("{}/v1", server.base_url()), "apiKey": API_KEY},
                    "models": {"scripted": {"name": "Scripted", "tool_call": true, "limit": {"context": 200000, "output": 8192}}}
                }},
                "model": "mock/scripted",
                "small_model": "mock/scripted",
                "autoupdate": false,
                "share": "disabled",
                "permission": {"edit": "allow", "bash": "allow", "webfetch": "allow", "external_directory": "allow"}
            });
            if s.mcp {
                cfg["mcp"] = json!({"amalgm": {"type": "local", "command": [exe_s, "mcp-fixture-server"], "enabled": true}});
            }
            write(
                &scratch.work.join("opencode.json"),
                &serde_json::to_string_pretty(&cfg)?,
            )?;
            for (k, d) in [
                ("XDG_CONFIG_HOME", ".config"),
                ("XDG_DATA_HOME", ".local/share"),
                ("XDG_CACHE_HOME", ".cache"),
                ("XDG_STATE_HOME", ".local/state"),
            ] {
                cmd.env(k, scratch.home.join(d).display().to_string());
            }
            for k in [
                "OPENCODE_DISABLE_MODELS_FETCH",
                "OPENCODE_DISABLE_AUTOUPDATE",
                "OPENCODE_DISABLE_SHARE",
                "OPENCODE_DISABLE_LSP_DOWNLOAD",
                "OPENCODE_DISABLE_DEFAULT_PLUGINS",
            ] {
                cmd.env(k, "1");
            }
            if s.agent == Agent::OpencodeRun {
                cmd.arg("run").arg("--format").arg("json");
            } else {
                cmd.arg("serve").arg("--hostname").arg("127.0.0.1");
            }
        }
    }
    for a in &s.args {
        cmd.arg(a.clone());
    }
    if matches!(s.agent, Agent::CodexExec | Agent::OpencodeRun) {
        cmd.arg(s.prompt.clone());
    }
    for (k, v) in &s.env {
        cmd.env(k, v.clone());
    }
    Ok(())
}

fn toml_str(s: &str) -> String {
    toml::Value::String(s.to_owned()).to_string()
}

/// A `Command` for the agent (directly, or as the tail of `toolnorm record … --`) with a clean
/// environment: nothing of the real user's HOME or credentials reaches the CLI.
fn base_command(program: &Path, agent: &AgentCommand, scratch: &Scratch) -> Command {
    let mut c = Command::new(program);
    c.env_clear();
    for k in ["PATH", "LANG", "LC_ALL", "TERM"] {
        if let Some(v) = std::env::var_os(k) {
            c.env(k, v);
        }
    }
    for (k, v) in &agent.env {
        c.env(k, v);
    }
    c.current_dir(&scratch.work);
    c
}

/// `toolnorm record` arguments shared by every mode.
fn record_args(
    fixture: &Path,
    header: &Header,
    opts: &RunOptions,
    scratch: &Scratch,
) -> Vec<String> {
    let mut a = vec![
        "record".to_owned(),
        "--provider".to_owned(),
        header.agent.provider().to_owned(),
        "--name".to_owned(),
        fixture_stem(fixture),
        "--corpus".to_owned(),
        opts.corpus.display().to_string(),
        "--scenario".to_owned(),
        header.scenario.to_owned(),
        "--cli".to_owned(),
        header.cli.display().to_owned(),
        "--cli-version".to_owned(),
        header.version.to_owned(),
    ];
    // Scratch paths fold like home paths; the most specific prefix first.
    let mut maps = vec![
        (scratch.work.clone(), "~/work".to_owned()),
        (scratch.home.clone(), "~".to_owned()),
        (scratch.root.clone(), "~/scratch".to_owned()),
    ];
    // Claude Code names per-project folders after the workspace path with every other character
    // turned into `-` (`~/.claude/projects/-tmp-…-work`): fold that spelling too.
    let slug: String = scratch
        .work
        .display()
        .to_string()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    maps.push((PathBuf::from(slug), "-work".to_owned()));
    // OpenCode's session `path` is the workspace without its leading `/`.
    let relative = scratch
        .work
        .display()
        .to_string()
        .trim_start_matches('/')
        .to_owned();
    maps.push((PathBuf::from(relative), "work".to_owned()));
    // The CLI cache and the toolnorm binary live under the real user's folders: fold them too.
    if let Ok(cache) = npm::cache_root() {
        maps.push((cache, "~/.cache/toolnorm/clis".to_owned()));
    }
    if let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        maps.push((dir, "~/toolnorm-bin".to_owned()));
    }
    maps.push((
        PathBuf::from(format!("127.0.0.1:{}", header.model_port)),
        format!("127.0.0.1:{STABLE_PORT}"),
    ));
    if let Some(port) = header.https_port {
        maps.push((
            PathBuf::from(format!("127.0.0.1:{port}")),
            format!("127.0.0.1:{STABLE_HTTPS_PORT}"),
        ));
    }
    for (path, to) in maps {
        // `--flag=value`: a slug value starts with `-`.
        a.push(format!("--map-path={}={to}", path.display()));
    }
    if opts.force {
        a.push("--force".to_owned());
    }
    a
}

fn fixture_stem(fixture: &Path) -> String {
    let n = fixture
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    n.trim_end_matches(".zst")
        .trim_end_matches(".jsonl")
        .to_owned()
}

/// The agent's command: run directly with `--raw`, else through `toolnorm record [mode flags] --`.
fn agent_command(run: &Session<'_>, mode: &[&str]) -> Command {
    let Session {
        exe,
        agent,
        scratch,
        fixture,
        header,
        opts,
        ..
    } = *run;
    if opts.raw {
        let mut c = base_command(&agent.program, agent, scratch);
        c.args(&agent.args);
        return c;
    }
    let mut c = base_command(exe, agent, scratch);
    c.args(record_args(fixture, header, opts, scratch))
        .args(mode)
        .arg("--")
        .arg(&agent.program)
        .args(&agent.args);
    c
}

/// claude -p / codex exec / opencode run: `toolnorm record … -- agent args` (wrap mode).
fn record_wrapped(run: &Session<'_>, interrupt_after: Option<Duration>) -> anyhow::Result<()> {
    let Session {
        exe,
        agent,
        scratch,
        fixture,
        opts,
        limit,
        ..
    } = *run;
    let mut c = agent_command(run, &[]);
    c.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = spawn_group(&mut c).with_context(|| launch_error(exe, agent, opts))?;
    let out = collect(child.stdout.take());
    let err = collect(child.stderr.take());
    let mut status = None;
    let mut limit = limit;
    if let Some(after) = interrupt_after {
        status = wait_for(&mut child, after).context("failed to wait for the agent")?;
        if status.is_none() {
            interrupt(&child);
            limit = limit.saturating_sub(after).max(Duration::from_secs(10));
        }
    }
    if status.is_none() {
        status = wait_until(&mut child, limit).context("failed to wait for the agent")?;
    }
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    if opts.raw {
        fs::write(
            fixture,
            redact_paths(&String::from_utf8_lossy(&stdout), scratch),
        )
        .with_context(|| format!("failed to write {}", fixture.display()))?;
    }
    match status {
        None => bail!(
            "the agent did not finish within {}s; stderr:\n{}",
            limit.as_secs(),
            tail(&stderr)
        ),
        Some(st) if !st.success() && stdout.is_empty() => {
            bail!(
                "the agent exited with {st} and printed nothing; stderr:\n{}",
                tail(&stderr)
            )
        }
        Some(_) => Ok(()),
    }
}

/// What failed to start: the recorder (whose executable may have been rebuilt away under a
/// running `scenario run`) or, in raw mode, the agent.
fn launch_error(exe: &Path, agent: &AgentCommand, opts: &RunOptions) -> String {
    if opts.raw {
        format!("failed to start {}", agent.program.display())
    } else {
        format!(
            "failed to start {} record -- {} (was toolnorm rebuilt during the run?)",
            exe.display(),
            agent.program.display()
        )
    }
}

fn collect<R: std::io::Read + Send + 'static>(r: Option<R>) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(mut r) = r {
            let _ = r.read_to_end(&mut buf);
        }
        buf
    })
}

fn tail(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}

/// An agent spoken to over its stdio through `toolnorm record --proxy` (the recording holds both
/// directions): `drive` runs the session on the channel; closing stdin then ends the agent.
fn record_proxied(
    run: &Session<'_>,
    who: &'static str,
    drive: impl FnOnce(&mut LineChannel) -> anyhow::Result<Driven>,
) -> anyhow::Result<Driven> {
    let Session {
        exe,
        agent,
        scratch,
        fixture,
        opts,
        limit,
        ..
    } = *run;
    let mut c = agent_command(run, &["--proxy"]);
    c.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = spawn_group(&mut c).with_context(|| launch_error(exe, agent, opts))?;
    let err = collect(child.stderr.take());
    let mut channel = LineChannel::open(&mut child, who, limit)?;
    let driven = drive(&mut channel);
    channel.close();
    let status = wait_until(&mut child, Duration::from_secs(15))
        .with_context(|| format!("failed to wait for {who}"))?;
    let stderr = err.join().unwrap_or_default();
    if opts.raw {
        let text: String = channel.seen.iter().map(|l| format!("{l}\n")).collect();
        fs::write(fixture, redact_paths(&text, scratch))
            .with_context(|| format!("failed to write {}", fixture.display()))?;
    }
    let driven =
        driven.with_context(|| format!("{who} session failed; stderr:\n{}", tail(&stderr)))?;
    if status.is_none() {
        eprintln!("warning: {who} did not exit after its stdin closed; killed");
    }
    Ok(driven)
}

/// Claude Code as the Agent SDK drives it (`--input-format stream-json --permission-prompt-tool
/// stdio`): an `initialize` control request, the prompt as a user message, an answer to every
/// `can_use_tool` control request (allow; AskUserQuestion gets the scenario's answers), until the
/// `result` line.
fn drive_claude_sdk(channel: &mut LineChannel, s: &Scenario) -> anyhow::Result<Driven> {
    channel.send(&json!({"type": "control_request", "request_id": "init-1", "request": {"subtype": "initialize", "hooks": null}}))?;
    channel.send(&json!({"type": "user", "session_id": "", "parent_tool_use_id": null, "message": {"role": "user", "content": [{"type": "text", "text": s.prompt}]}}))?;
    let mut user = ScriptedUser::new(&s.answers);
    loop {
        let v = channel.next("the session's result")?;
        match v.get("type").and_then(Value::as_str) {
            // A declined question does not end Claude's turn: the whole script still plays.
            Some("result") => {
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

/// The client's reply to a `codex app-server` server→client request, and what to report about it.
/// Questions (`item/tool/requestUserInput`) get the scenario's answers, one list of labels per
/// question (a declined prompt: empty lists, Codex has no way to decline); approvals are declined
/// (scenarios run with `approvalPolicy: never`, so one is a surprise); anything else gets a
/// JSON-RPC error, so no request leaves the turn hanging.
fn server_request_reply(req: &Value, user: &mut ScriptedUser<'_>) -> (Value, Vec<String>) {
    let id = req.get("id").cloned().unwrap_or(Value::Null);
    let method = req.get("method").and_then(Value::as_str).unwrap_or("");
    let mut problems = Vec::new();
    let result = match method {
        "item/tool/requestUserInput" => {
            let questions = req
                .pointer("/params/questions")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            let answers = user.answer(questions.len()).unwrap_or(&[]);
            let map: serde_json::Map<String, Value> = questions
                .iter()
                .enumerate()
                .map(|(i, q)| {
                    let qid = q
                        .get("id")
                        .and_then(Value::as_str)
                        .map_or_else(|| format!("q{i}"), str::to_owned);
                    let labels = answers.get(i).cloned().unwrap_or_default();
                    (qid, json!({ "answers": labels }))
                })
                .collect();
            json!({ "answers": map })
        }
        "item/commandExecution/requestApproval" | "item/fileChange/requestApproval" => {
            problems.push(format!("codex app-server asked `{method}`; declined"));
            json!({ "decision": "decline" })
        }
        _ => {
            problems.push(format!(
                "codex app-server sent the request `{method}`, which the driver does not handle; answered with an error"
            ));
            return (
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": format!("the toolnorm scenario driver does not handle `{method}`")}}),
                problems,
            );
        }
    };
    (
        json!({"jsonrpc": "2.0", "id": id, "result": result}),
        problems,
    )
}

/// `codex app-server` over JSON-RPC: initialize, thread/start, turn/start, answering the server's
/// requests on the way, until the main thread's turn completes.
fn drive_app_server(channel: &mut LineChannel, s: &Scenario, cwd: &Path) -> anyhow::Result<Driven> {
    let mut user = ScriptedUser::new(&s.answers);
    let mut problems = Vec::new();
    // Read until a message matches `pred`, answering the server's requests on the way.
    let mut wait_for = |channel: &mut LineChannel,
                        pred: &dyn Fn(&Value) -> bool,
                        what: &str|
     -> anyhow::Result<Value> {
        loop {
            let v = channel.next(what)?;
            if v.get("id").is_some() && v.get("method").is_some() {
                // A server→client request: the turn waits until it is answered.
                let (reply, p) = server_request_reply(&v, &mut user);
                problems.extend(p);
                channel.send(&reply)?;
                continue;
            }
            if let Some(e) = v.get("error").filter(|_| v.get("id").is_some()) {
                bail!("codex app-server answered {what} with an error: {e}");
            }
            if pred(&v) {
                return Ok(v);
            }
        }
    };
    channel.send(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "toolnorm-scenario", "title": "toolnorm scenario", "version": env!("CARGO_PKG_VERSION")}}}),
    )?;
    wait_for(
        channel,
        &|v| v.get("id") == Some(&json!(1)),
        "the initialize reply",
    )?;
    channel.send(&json!({"jsonrpc": "2.0", "method": "initialized"}))?;
    let cwd_s = cwd.display().to_string();
    channel.send(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "thread/start", "params": {"cwd": cwd_s, "approvalPolicy": "never", "sandbox": "danger-full-access"}}),
    )?;
    let started = wait_for(
        channel,
        &|v| v.get("id") == Some(&json!(2)),
        "the thread/start reply",
    )?;
    let thread_id = started
        .pointer("/result/thread/id")
        .or_else(|| started.pointer("/result/threadId"))
        .and_then(Value::as_str)
        .context("thread/start returned no thread id")?
        .to_owned();
    channel.send(
        &json!({"jsonrpc": "2.0", "id": 3, "method": "turn/start", "params": {"threadId": thread_id, "input": [{"type": "text", "text": s.prompt}]}}),
    )?;
    // Subagents run their own threads with their own turns: wait for the main thread's.
    wait_for(
        channel,
        &|v| {
            v.get("method").and_then(Value::as_str) == Some("turn/completed")
                && v.pointer("/params/threadId").and_then(Value::as_str) == Some(&thread_id)
        },
        "turn/completed",
    )?;
    problems.extend(user.problems());
    Ok(Driven {
        problems,
        dismissed: false,
    })
}

/// `opencode serve` with its `/event` stream recorded by `toolnorm record --sse` while we post the
/// session and the message.
fn record_serve(run: &Session<'_>, s: &Scenario) -> anyhow::Result<Driven> {
    let (agent, scratch) = (run.agent, run.scratch);
    let port = free_port().context("failed to find a free loopback port")?;
    let mut c = base_command(&agent.program, agent, scratch);
    c.args(&agent.args).arg("--port").arg(port.to_string());
    c.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut serve = spawn_group(&mut c)
        .with_context(|| format!("failed to start {}", agent.program.display()))?;
    let out = collect(serve.stdout.take());
    let err = collect(serve.stderr.take());
    let result = drive_serve(run, s, port);
    kill_group(&serve);
    let _ = serve.kill();
    let _ = serve.wait();
    let stderr = [
        out.join().unwrap_or_default(),
        err.join().unwrap_or_default(),
    ]
    .concat();
    result.with_context(|| {
        format!(
            "opencode serve session failed; its output:\n{}",
            tail(&stderr)
        )
    })
}

fn drive_serve(run: &Session<'_>, s: &Scenario, port: u16) -> anyhow::Result<Driven> {
    let Session {
        exe,
        agent,
        scratch,
        fixture,
        header,
        opts,
        limit,
    } = *run;
    let base = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + limit;
    let http = ureq::AgentBuilder::new()
        .timeout_connect(Duration::from_secs(2))
        .timeout(Duration::from_secs(30))
        .build();
    // Wait until the server answers.
    loop {
        if http.get(&format!("{base}/session")).call().is_ok() {
            break;
        }
        if Instant::now() >= deadline {
            bail!("opencode serve did not come up on port {port}");
        }
        thread::sleep(Duration::from_millis(200));
    }
    let events_url = format!("{base}/event");
    let (mut recorder, raw_reader) = if opts.raw {
        (None, Some(spawn_raw_sse(&events_url, fixture.to_owned())?))
    } else {
        let mut c = base_command(exe, agent, scratch);
        c.args(record_args(fixture, header, opts, scratch))
            .arg("--sse")
            .arg(&events_url)
            // Not `--until session.idle`: a task's child session goes idle before the parent, so
            // the recording is stopped (SIGINT, a clean finish) once the message call returns.
            ;
        c.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        (
            Some(spawn_group(&mut c).context("failed to start toolnorm record --sse")?),
            None,
        )
    };
    // Give the subscriber time to connect before anything happens.
    thread::sleep(Duration::from_millis(700));
    let session = http
        .post(&format!("{base}/session"))
        .set("Content-Type", "application/json")
        .send_string("{}")
        .context("failed to create the opencode session")?
        .into_string()
        .context("failed to read the opencode session")?;
    let session: Value =
        serde_json::from_str(&session).context("opencode returned a session that is not JSON")?;
    let sid = session
        .get("id")
        .and_then(Value::as_str)
        .context("opencode returned a session without an id")?
        .to_owned();
    // The message call blocks until the assistant finishes (bounded by the scenario timeout), and
    // a `question` call blocks it until the user answers: post it on a thread and answer the
    // pending questions meanwhile.
    let long = ureq::AgentBuilder::new().timeout(limit).build();
    let message = json!({"parts": [{"type": "text", "text": s.prompt}], "model": {"providerID": "mock", "modelID": "scripted"}});
    let message_url = format!("{base}/session/{sid}/message");
    let (posted_tx, posted_rx) = mpsc::channel::<Result<(), ureq::Error>>();
    thread::spawn(move || {
        let r = long
            .post(&message_url)
            .set("Content-Type", "application/json")
            .send_string(&message.to_string())
            .map(drop);
        let _ = posted_tx.send(r);
    });
    let mut answers = ServeQuestions::new(&s.answers);
    loop {
        match posted_rx.recv_timeout(Duration::from_millis(300)) {
            Ok(r) => {
                r.context("failed to post the message to the opencode session")?;
                break;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                bail!("the message call to the opencode session ended without a reply")
            }
        }
        if Instant::now() >= deadline {
            bail!(
                "the opencode session did not finish within {}s",
                limit.as_secs()
            );
        }
        answers.answer_pending(&http, &base)?;
    }
    let driven = Driven {
        problems: answers.user.problems(),
        dismissed: answers.user.any_declined(),
    };
    let left = deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_secs(5));
    // The main session's last events (its session.idle, a dismissed question's error) trail the
    // message reply a little.
    thread::sleep(Duration::from_millis(1500));
    if let Some(rec) = recorder.as_mut() {
        if let Ok(pid) = libc::pid_t::try_from(rec.id()) {
            // SAFETY: kill(2) on the recorder we spawned, with a valid signal; no memory effects.
            unsafe {
                libc::kill(pid, libc::SIGINT);
            }
        }
        match wait_until(rec, left.min(Duration::from_secs(20)))
            .context("failed to wait for the recorder")?
        {
            Some(st) if st.success() => {}
            Some(st) => bail!("toolnorm record --sse exited with {st}"),
            None => bail!("toolnorm record --sse did not stop when interrupted"),
        }
    }
    if let Some((done, stop)) = raw_reader {
        let _ = stop.send(());
        // The reader notices the stop at its next event (opencode sends heartbeats).
        let text = done
            .recv_timeout(Duration::from_secs(20))
            .context("the event reader did not stop")?;
        fs::write(fixture, redact_paths(&text, scratch))
            .with_context(|| format!("failed to write {}", fixture.display()))?;
    }
    Ok(driven)
}

/// The scripted user of `opencode serve`: answers each pending question request (`GET
/// /question`) with the scenario's next answers, one label list per question, and dismisses it
/// (`POST /question/:id/reject`) when the user declines (an empty list, or the answers ran out):
/// a scenario without answers records a dismissed question.
struct ServeQuestions<'a> {
    user: ScriptedUser<'a>,
    handled: std::collections::HashSet<String>,
}

impl<'a> ServeQuestions<'a> {
    fn new(scripted: &'a [Vec<String>]) -> Self {
        ServeQuestions {
            user: ScriptedUser::new(scripted),
            handled: Default::default(),
        }
    }

    /// Answer (or dismiss) the requests not seen before. A list that cannot be read is retried
    /// at the next poll; a reply the server refuses ends the run.
    fn answer_pending(&mut self, http: &ureq::Agent, base: &str) -> anyhow::Result<()> {
        let Ok(list) = http.get(&format!("{base}/question")).call() else {
            return Ok(());
        };
        let list: Value = list
            .into_string()
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or(Value::Null);
        for request in list.as_array().into_iter().flatten() {
            let Some(id) = request.get("id").and_then(Value::as_str) else {
                continue;
            };
            if !self.handled.insert(id.to_owned()) {
                continue;
            }
            let asked = request
                .get("questions")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            let (route, body) = match self.user.answer(asked) {
                Some(answers) => ("reply", json!({ "answers": answers })),
                None => ("reject", json!({})),
            };
            http.post(&format!("{base}/question/{id}/{route}"))
                .set("Content-Type", "application/json")
                .send_string(&body.to_string())
                .with_context(|| format!("opencode refused the {route} to question {id}"))?;
        }
        Ok(())
    }
}

type RawSse = (mpsc::Receiver<String>, mpsc::Sender<()>);

/// Without the recorder: read the SSE `data:` payloads ourselves, one JSON per line, until the
/// main session goes idle or we are told to stop.
fn spawn_raw_sse(url: &str, _fixture: PathBuf) -> anyhow::Result<RawSse> {
    let resp = ureq::get(url)
        .call()
        .context("failed to subscribe to opencode events")?;
    let (stop_tx, stop_rx) = mpsc::channel::<()>();
    let (done_tx, done_rx) = mpsc::channel::<String>();
    thread::spawn(move || {
        let mut out = String::new();
        let reader = BufReader::new(resp.into_reader());
        for line in reader.lines() {
            let Ok(line) = line else { break };
            if let Some(data) = line.strip_prefix("data:") {
                out.push_str(data.trim_start());
                out.push('\n');
            }
            if stop_rx.try_recv().is_ok() {
                break;
            }
        }
        let _ = done_tx.send(out);
    });
    Ok((done_rx, stop_tx))
}

fn free_port() -> std::io::Result<u16> {
    let l = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(l.local_addr()?.port())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// The (path, JSON body) of every POST the fake server received.
    type Posts = Arc<Mutex<Vec<(String, Value)>>>;

    /// A fake `opencode serve` question API: `GET /question` lists `pending` (its body as given),
    /// every POST is kept as (path, body) and answered 200, or 400 when `refuse` is set.
    fn fake_server(pending: &'static str, refuse: bool) -> (String, Posts) {
        let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
        let port = server.server_addr().to_ip().unwrap().port();
        let posts = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&posts);
        thread::spawn(move || {
            for mut req in server.incoming_requests() {
                if *req.method() == tiny_http::Method::Get {
                    let _ = req.respond(tiny_http::Response::from_string(pending));
                    continue;
                }
                let mut body = String::new();
                let _ = std::io::Read::read_to_string(req.as_reader(), &mut body);
                let body = serde_json::from_str(&body).unwrap_or(Value::Null);
                seen.lock().unwrap().push((req.url().to_owned(), body));
                let code = if refuse { 400 } else { 200 };
                let _ =
                    req.respond(tiny_http::Response::from_string("true").with_status_code(code));
            }
        });
        (format!("http://127.0.0.1:{port}"), posts)
    }

    fn agent() -> ureq::Agent {
        ureq::AgentBuilder::new()
            .timeout(Duration::from_secs(5))
            .build()
    }

    #[test]
    fn questions_are_answered_in_order_then_dismissed() {
        let (base, posts) = fake_server(
            r#"[{"id":"que_1","sessionID":"ses_a","questions":[{"question":"A?"},{"question":"B?"}]},
                {"id":"que_2","sessionID":"ses_a","questions":[{"question":"C?"}]},
                {"id":"que_3","sessionID":"ses_a","questions":[{"question":"D?"}]}]"#,
            false,
        );
        let scripted = vec![
            vec!["Bar".to_owned()],
            vec!["x".to_owned(), "y".to_owned()],
            vec!["Line".to_owned()],
        ];
        let mut answers = ServeQuestions::new(&scripted);
        answers.answer_pending(&agent(), &base).unwrap();
        // The same requests listed again are not answered twice.
        answers.answer_pending(&agent(), &base).unwrap();
        let posts = posts.lock().unwrap().clone();
        assert_eq!(
            posts,
            vec![
                (
                    "/question/que_1/reply".to_owned(),
                    json!({"answers": [["Bar"], ["x", "y"]]})
                ),
                (
                    "/question/que_2/reply".to_owned(),
                    json!({"answers": [["Line"]]})
                ),
                ("/question/que_3/reject".to_owned(), json!({})),
            ]
        );
        assert!(answers.user.any_declined());
        assert_eq!(
            answers.user.problems(),
            vec!["1 question prompt(s) were declined: the scenario's answers ran out".to_owned()]
        );
    }

    #[test]
    fn no_answers_dismisses_and_unused_answers_are_problems() {
        let (base, posts) =
            fake_server(r#"[{"id":"que_1","questions":[{"question":"A?"}]}]"#, false);
        let mut answers = ServeQuestions::new(&[]);
        answers.answer_pending(&agent(), &base).unwrap();
        assert_eq!(posts.lock().unwrap()[0].0, "/question/que_1/reject");
        // A deliberate dismissal is not a problem.
        assert!(answers.user.problems().is_empty());

        let scripted = vec![vec!["Bar".to_owned()]];
        let answers = ServeQuestions::new(&scripted);
        assert_eq!(
            answers.user.problems(),
            vec!["the agent asked 0 questions, the scenario has 1 answers".to_owned()]
        );
    }

    #[test]
    fn odd_lists_are_skipped_and_a_refused_reply_is_an_error() {
        for body in ["not json", "{}", r#"[{"questions":[]}, 3, null]"#, ""] {
            let (base, posts) = fake_server(body, false);
            let mut answers = ServeQuestions::new(&[]);
            answers.answer_pending(&agent(), &base).unwrap();
            assert!(posts.lock().unwrap().is_empty(), "{body}");
        }
        let (base, _) = fake_server(r#"[{"id":"que_1","questions":[{"question":"A?"}]}]"#, true);
        let scripted = vec![vec!["Bar".to_owned()]];
        let mut answers = ServeQuestions::new(&scripted);
        let err = answers.answer_pending(&agent(), &base).unwrap_err();
        assert!(
            format!("{err:#}").contains("refused the reply to question que_1"),
            "{err:#}"
        );
        // Nothing listening: the poll is retried later, not an error.
        let mut answers = ServeQuestions::new(&scripted);
        answers
            .answer_pending(
                &agent(),
                &format!("http://127.0.0.1:{}", free_port().unwrap()),
            )
            .unwrap();
    }

    #[test]
    fn questions_get_the_scripted_answers_in_order() {
        let answers = [vec!["Patch".to_owned()], vec!["Yes".to_owned()]];
        let mut it = ScriptedUser::new(&answers);
        let req = json!({"id": 0, "method": "item/tool/requestUserInput", "params": {"threadId": "t", "turnId": "u", "itemId": "call_1",
            "questions": [{"id": "bump", "header": "Bump", "question": "Which bump?", "isOther": true, "isSecret": false, "options": []}]}});
        let (reply, problems) = server_request_reply(&req, &mut it);
        assert!(problems.is_empty());
        assert_eq!(
            reply,
            json!({"jsonrpc": "2.0", "id": 0, "result": {"answers": {"bump": {"answers": ["Patch"]}}}})
        );
        // Two questions, one answer left: the prompt is declined (answered with nothing, since
        // Codex cannot be told no), and the user reports the answers ran out.
        let req = json!({"id": 1, "method": "item/tool/requestUserInput", "params": {
            "questions": [{"id": "tag"}, {"id": "push"}]}});
        let (reply, problems) = server_request_reply(&req, &mut it);
        assert!(problems.is_empty());
        assert_eq!(reply["result"]["answers"]["tag"]["answers"], json!([]));
        assert_eq!(reply["result"]["answers"]["push"]["answers"], json!([]));
        assert_eq!(it.problems().len(), 2);
    }

    #[test]
    fn other_server_requests_never_hang() {
        let (reply, problems) = server_request_reply(
            &json!({"id": 7, "method": "item/commandExecution/requestApproval", "params": {}}),
            &mut ScriptedUser::new(&[]),
        );
        assert_eq!(reply["result"]["decision"], "decline");
        assert_eq!(problems.len(), 1);
        let (reply, _) = server_request_reply(
            &json!({"id": "x", "method": "mcpServer/elicitation/request"}),
            &mut ScriptedUser::new(&[]),
        );
        assert_eq!(reply["id"], "x");
        assert_eq!(reply["error"]["code"], -32601);
        // Garbage params do not panic.
        let (reply, _) = server_request_reply(
            &json!({"id": 2, "method": "item/tool/requestUserInput", "params": {"questions": "no"}}),
            &mut ScriptedUser::new(&[]),
        );
        assert_eq!(reply["result"]["answers"], json!({}));
    }
}
