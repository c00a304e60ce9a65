//! Running one scenario: a scratch HOME and workspace, the agent's config, the scripted model and
//! MCP servers on loopback, and the agent driven through `toolnorm record` into the corpus.

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::{Value, json};

use super::model_server::{ModelServer, Script};
use super::npm;
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
    let server = ModelServer::start(script, Some(&log_path))
        .context("failed to start the scripted model server")?;
    let exe = std::env::current_exe().context("failed to locate the toolnorm executable")?;

    let mut agent = AgentCommand::new(&bin);
    configure(s, &scratch, &server, &exe, &mut agent)?;

    let header = Header {
        scenario: &s.name,
        model_port: server.port(),
        cli,
        version: &version,
        agent: s.agent,
    };
    let limit = Duration::from_secs(s.timeout_secs);
    // What the driver noticed along the way (the expectations below are added to it).
    let mut problems = Vec::new();
    let result = match s.agent {
        Agent::Claude | Agent::CodexExec | Agent::OpencodeRun => {
            let interrupt_after = s.interrupt_after_secs.map(Duration::from_secs);
            record_wrapped(
                &exe,
                &agent,
                &scratch,
                &fixture,
                &header,
                opts,
                limit,
                interrupt_after,
            )
        }
        Agent::CodexAppServer => record_app_server(
            &exe,
            &agent,
            &scratch,
            &fixture,
            &header,
            opts,
            s,
            limit,
            &mut problems,
        ),
        Agent::OpencodeServe => record_serve(
            &exe, &agent, &scratch, &fixture, &header, opts, s, &server, limit,
        ),
    };
    server.stop();

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
    result?;
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
    // An interrupted session stops before its script ends, by design.
    if played < s.turns.len() && s.interrupt_after_secs.is_none() {
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

/// The fixture header's scenario fields.
struct Header<'a> {
    scenario: &'a str,
    /// The model server's port (also the page server's), folded to a fixed one in fixtures so
    /// titles built from URLs do not change from run to run.
    model_port: u16,
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
            cmd.arg("-p")
                .arg(s.prompt.clone())
                .arg("--output-format")
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
fn agent_command(
    exe: &Path,
    agent: &AgentCommand,
    scratch: &Scratch,
    fixture: &Path,
    header: &Header,
    opts: &RunOptions,
    mode: &[&str],
) -> Command {
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
#[allow(clippy::too_many_arguments)]
fn record_wrapped(
    exe: &Path,
    agent: &AgentCommand,
    scratch: &Scratch,
    fixture: &Path,
    header: &Header,
    opts: &RunOptions,
    limit: Duration,
    interrupt_after: Option<Duration>,
) -> anyhow::Result<()> {
    let mut c = agent_command(exe, agent, scratch, fixture, header, opts, &[]);
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

/// `codex app-server` through `toolnorm record --proxy`, driven by a small JSON-RPC client.
#[allow(clippy::too_many_arguments)]
fn record_app_server(
    exe: &Path,
    agent: &AgentCommand,
    scratch: &Scratch,
    fixture: &Path,
    header: &Header,
    opts: &RunOptions,
    s: &Scenario,
    limit: Duration,
    problems: &mut Vec<String>,
) -> anyhow::Result<()> {
    let mut c = agent_command(exe, agent, scratch, fixture, header, opts, &["--proxy"]);
    c.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = spawn_group(&mut c).with_context(|| launch_error(exe, agent, opts))?;
    let err = collect(child.stderr.take());
    let mut raw_lines = Vec::new();
    let driven = drive_app_server(
        &mut child,
        s,
        &scratch.work,
        limit,
        &mut raw_lines,
        problems,
    );
    // Closing stdin ends the app-server (and the proxy) cleanly.
    drop(child.stdin.take());
    let status = wait_until(&mut child, Duration::from_secs(15))
        .context("failed to wait for codex app-server")?;
    let stderr = err.join().unwrap_or_default();
    if opts.raw {
        let text: String = raw_lines.iter().map(|l| format!("{l}\n")).collect();
        fs::write(fixture, redact_paths(&text, scratch))
            .with_context(|| format!("failed to write {}", fixture.display()))?;
    }
    driven.with_context(|| {
        format!(
            "codex app-server session failed; stderr:\n{}",
            tail(&stderr)
        )
    })?;
    if status.is_none() {
        eprintln!("warning: codex app-server did not exit after its stdin closed; killed");
    }
    Ok(())
}

/// The client side of one `codex app-server` session: JSON-RPC lines out, the server's lines in.
struct AppServerClient<'a> {
    rx: mpsc::Receiver<String>,
    stdin: std::process::ChildStdin,
    deadline: Instant,
    /// Every line the server printed (the raw recording in `--raw` mode).
    seen: &'a mut Vec<String>,
    /// The scenario's answers to the agent's questions, consumed in order.
    answers: std::slice::Iter<'a, Vec<String>>,
    /// What went differently from the script (unanswered questions, unhandled requests).
    problems: &'a mut Vec<String>,
}

impl AppServerClient<'_> {
    fn send(&mut self, v: &Value) -> anyhow::Result<()> {
        writeln!(self.stdin, "{v}").context("failed to write to codex app-server")?;
        self.stdin
            .flush()
            .context("failed to write to codex app-server")
    }

    /// Read until a message matches `pred`, answering the server's requests on the way.
    fn wait_for(&mut self, pred: &dyn Fn(&Value) -> bool, what: &str) -> anyhow::Result<Value> {
        loop {
            let left = self.deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                bail!("timed out waiting for {what}");
            }
            let line = match self.rx.recv_timeout(left) {
                Ok(l) => l,
                Err(mpsc::RecvTimeoutError::Timeout) => bail!("timed out waiting for {what}"),
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    bail!("codex app-server closed its output before {what}")
                }
            };
            self.seen.push(line.clone());
            let Ok(v) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if v.get("id").is_some() && v.get("method").is_some() {
                // A server→client request: the turn waits until it is answered.
                let (reply, problems) = server_request_reply(&v, &mut self.answers);
                self.problems.extend(problems);
                self.send(&reply)?;
                continue;
            }
            if let Some(e) = v.get("error").filter(|_| v.get("id").is_some()) {
                bail!("codex app-server answered {what} with an error: {e}");
            }
            if pred(&v) {
                return Ok(v);
            }
        }
    }
}

/// The client's reply to a server→client request, and what to report about it. Questions
/// (`item/tool/requestUserInput`) get the scenario's answers, one list of labels per question in
/// order; approvals are declined (scenarios run with `approvalPolicy: never`, so one is a
/// surprise); anything else gets a JSON-RPC error, so no request leaves the turn hanging.
fn server_request_reply<'a>(
    req: &Value,
    answers: &mut impl Iterator<Item = &'a Vec<String>>,
) -> (Value, Vec<String>) {
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
            let mut map = serde_json::Map::new();
            for (i, q) in questions.iter().enumerate() {
                let qid = q
                    .get("id")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .unwrap_or_else(|| format!("q{i}"));
                let labels = match answers.next() {
                    Some(a) => a.clone(),
                    None => {
                        problems.push(format!(
                            "the agent asked {qid:?} but the scenario has no answer left for it (answered with nothing)"
                        ));
                        Vec::new()
                    }
                };
                map.insert(qid, json!({ "answers": labels }));
            }
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

fn drive_app_server(
    child: &mut Child,
    s: &Scenario,
    cwd: &Path,
    limit: Duration,
    seen: &mut Vec<String>,
    problems: &mut Vec<String>,
) -> anyhow::Result<()> {
    let stdout = child.stdout.take().context("no stdout")?;
    let (tx, rx) = mpsc::channel::<String>();
    thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut c = AppServerClient {
        rx,
        stdin: child.stdin.take().context("no stdin")?,
        deadline: Instant::now() + limit,
        seen,
        answers: s.answers.iter(),
        problems,
    };
    c.send(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "toolnorm-scenario", "title": "toolnorm scenario", "version": env!("CARGO_PKG_VERSION")}}}),
    )?;
    c.wait_for(&|v| v.get("id") == Some(&json!(1)), "the initialize reply")?;
    c.send(&json!({"jsonrpc": "2.0", "method": "initialized"}))?;
    let cwd_s = cwd.display().to_string();
    c.send(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "thread/start", "params": {"cwd": cwd_s, "approvalPolicy": "never", "sandbox": "danger-full-access"}}),
    )?;
    let started = c.wait_for(
        &|v| v.get("id") == Some(&json!(2)),
        "the thread/start reply",
    )?;
    let thread_id = started
        .pointer("/result/thread/id")
        .or_else(|| started.pointer("/result/threadId"))
        .and_then(Value::as_str)
        .context("thread/start returned no thread id")?
        .to_owned();
    c.send(
        &json!({"jsonrpc": "2.0", "id": 3, "method": "turn/start", "params": {"threadId": thread_id, "input": [{"type": "text", "text": s.prompt}]}}),
    )?;
    // Subagents run their own threads with their own turns: wait for the main thread's.
    c.wait_for(
        &|v| {
            v.get("method").and_then(Value::as_str) == Some("turn/completed")
                && v.pointer("/params/threadId").and_then(Value::as_str) == Some(&thread_id)
        },
        "turn/completed",
    )?;
    Ok(())
}

/// `opencode serve` with its `/event` stream recorded by `toolnorm record --sse` while we post the
/// session and the message.
#[allow(clippy::too_many_arguments)]
fn record_serve(
    exe: &Path,
    agent: &AgentCommand,
    scratch: &Scratch,
    fixture: &Path,
    header: &Header,
    opts: &RunOptions,
    s: &Scenario,
    server: &ModelServer,
    limit: Duration,
) -> anyhow::Result<()> {
    let _ = server;
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
    let result = drive_serve(exe, agent, scratch, fixture, header, opts, s, port, limit);
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

#[allow(clippy::too_many_arguments)]
fn drive_serve(
    exe: &Path,
    agent: &AgentCommand,
    scratch: &Scratch,
    fixture: &Path,
    header: &Header,
    opts: &RunOptions,
    s: &Scenario,
    port: u16,
    limit: Duration,
) -> anyhow::Result<()> {
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
    // The message call blocks until the assistant finishes; bound it by the scenario timeout.
    let long = ureq::AgentBuilder::new().timeout(limit).build();
    let message = json!({"parts": [{"type": "text", "text": s.prompt}], "model": {"providerID": "mock", "modelID": "scripted"}});
    long.post(&format!("{base}/session/{sid}/message"))
        .set("Content-Type", "application/json")
        .send_string(&message.to_string())
        .context("failed to post the message to the opencode session")?;
    let left = deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_secs(5));
    if let Some(rec) = recorder.as_mut() {
        // The main session's last events (its session.idle) trail the message reply a little.
        thread::sleep(Duration::from_millis(1500));
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
    Ok(())
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

    #[test]
    fn questions_get_the_scripted_answers_in_order() {
        let answers = [vec!["Patch".to_owned()], vec!["Yes".to_owned()]];
        let mut it = answers.iter();
        let req = json!({"id": 0, "method": "item/tool/requestUserInput", "params": {"threadId": "t", "turnId": "u", "itemId": "call_1",
            "questions": [{"id": "bump", "header": "Bump", "question": "Which bump?", "isOther": true, "isSecret": false, "options": []}]}});
        let (reply, problems) = server_request_reply(&req, &mut it);
        assert!(problems.is_empty());
        assert_eq!(
            reply,
            json!({"jsonrpc": "2.0", "id": 0, "result": {"answers": {"bump": {"answers": ["Patch"]}}}})
        );
        // Two questions, one answer left: the second is answered with nothing, and reported.
        let req = json!({"id": 1, "method": "item/tool/requestUserInput", "params": {
            "questions": [{"id": "tag"}, {"id": "push"}]}});
        let (reply, problems) = server_request_reply(&req, &mut it);
        assert_eq!(reply["result"]["answers"]["tag"]["answers"], json!(["Yes"]));
        assert_eq!(reply["result"]["answers"]["push"]["answers"], json!([]));
        assert_eq!(problems.len(), 1);
    }

    #[test]
    fn other_server_requests_never_hang() {
        let none: [Vec<String>; 0] = [];
        let (reply, problems) = server_request_reply(
            &json!({"id": 7, "method": "item/commandExecution/requestApproval", "params": {}}),
            &mut none.iter(),
        );
        assert_eq!(reply["result"]["decision"], "decline");
        assert_eq!(problems.len(), 1);
        let (reply, _) = server_request_reply(
            &json!({"id": "x", "method": "mcpServer/elicitation/request"}),
            &mut none.iter(),
        );
        assert_eq!(reply["id"], "x");
        assert_eq!(reply["error"]["code"], -32601);
        // Garbage params do not panic.
        let (reply, _) = server_request_reply(
            &json!({"id": 2, "method": "item/tool/requestUserInput", "params": {"questions": "no"}}),
            &mut none.iter(),
        );
        assert_eq!(reply["result"]["answers"], json!({}));
    }
}
