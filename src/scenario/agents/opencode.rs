//! OpenCode and the CLIs built on it (Kilo): `<cli> run --format json PROMPT` recorded in wrap
//! mode, or `<cli> serve` with its `/event` stream recorded as SSE while we post the session and
//! the message and answer its questions. A config file in the workspace (`opencode.json`,
//! `kilo.json`) points it at the model server (the Chat Completions API) and gives it the fixture
//! MCP server; its XDG folders are in the scratch HOME.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::Stdio;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::{Value, json};

use super::{Driven, Launcher, tail, wrapped};
use crate::corpus::record::SseOptions;
use crate::corpus::record::memory::Captured;
use crate::scenario::driver::ScriptedUser;
use crate::scenario::interrupt::Interrupt;
use crate::scenario::launch::{
    API_KEY, AgentCommand, Launch, Setup, config_overrides, merge_json, write,
};
use crate::scenario::mcp_server::SERVER_NAME;
use crate::scenario::package::{Cli, Declared, Registry};
use crate::scenario::process::{kill_group, spawn_group};
use crate::scenario::spec::Scenario;
use crate::scenario::trace;
use crate::stream::Dialect;

/// One CLI of the OpenCode family run one way: what differs between OpenCode and its forks, as
/// data.
pub struct Opencode {
    mode: Mode,
    /// The workspace config file and its `$schema`.
    config_file: &'static str,
    schema: &'static str,
    /// The prefix of the CLI's environment switches (`OPENCODE_`, `KILO_`).
    env_prefix: &'static str,
    /// What its log calls it, in error messages.
    who: &'static str,
    /// Its ACP adapter takes the fixture MCP server from the client, in `session/new` (the
    /// configuration file then leaves it out).
    acp_mcp_in_session: bool,
    /// Its global configuration folder under `XDG_CONFIG_HOME`, and the plugin package it
    /// installs there ([`seed_plugin_install`]).
    config_dir: &'static str,
    plugin: &'static str,
    /// Switches of its own that keep it off the network: what it would fetch or send is no
    /// part of a scenario, and offline each attempt costs a name lookup or a timeout.
    quiet: &'static [(&'static str, &'static str)],
}

/// How the CLI runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// `run --format json PROMPT`, recorded in wrap mode.
    Run,
    /// `serve`, its `/event` SSE stream recorded while we post the session.
    Serve,
    /// `acp`: configured here, started and driven by the ACP launcher.
    Acp,
}

/// OpenCode itself.
const OPENCODE: Opencode = Opencode {
    mode: Mode::Run,
    config_file: "opencode.json",
    schema: "https://opencode.ai/config.json",
    env_prefix: "OPENCODE_",
    who: "opencode",
    acp_mcp_in_session: true,
    config_dir: "opencode",
    plugin: "@opencode-ai/plugin",
    quiet: &[],
};

/// Kilo CLI: OpenCode's configuration under Kilo's names (`kilo.json`, `KILO_*`).
const KILO: Opencode = Opencode {
    mode: Mode::Run,
    config_file: "kilo.json",
    schema: "https://app.kilo.ai/config.json",
    env_prefix: "KILO_",
    who: "kilo",
    acp_mcp_in_session: false,
    config_dir: "kilo",
    plugin: "@kilocode/plugin",
    // Kilo 7.7.7 sends PostHog telemetry (`us.i.posthog.com`) from every process unless
    // `KILO_TELEMETRY_LEVEL` is set to anything but `all`.
    quiet: &[("KILO_TELEMETRY_LEVEL", "off")],
};

pub const OPENCODE_RUN: Opencode = OPENCODE;
pub const OPENCODE_SERVE: Opencode = Opencode {
    mode: Mode::Serve,
    ..OPENCODE
};
pub const OPENCODE_ACP: Opencode = Opencode {
    mode: Mode::Acp,
    ..OPENCODE
};
pub const KILO_RUN: Opencode = KILO;
pub const KILO_SERVE: Opencode = Opencode {
    mode: Mode::Serve,
    ..KILO
};
pub const KILO_ACP: Opencode = Opencode {
    mode: Mode::Acp,
    ..KILO
};

pub static OPENCODE_CLI: Cli = Cli {
    package: "opencode-ai",
    registry: Registry::Npm,
    bin: "opencode",
    display: "opencode",
    aliases: &[],
    node: false,
    ripgrep: true,
    newest_first: true,
    declared: Some(Declared::Call(Dialect::OpencodeRun, run_call)),
};

/// Kilo CLI (`@kilocode/cli`), built on OpenCode.
pub static KILO_CLI: Cli = Cli {
    package: "@kilocode/cli",
    registry: Registry::Npm,
    bin: "kilo",
    display: "kilo",
    aliases: &["kilocode"],
    node: true,
    ripgrep: true,
    newest_first: true,
    declared: Some(Declared::Call(Dialect::KiloRun, run_call)),
};

/// An `opencode run --format json` line (`kilo run`'s too) that starts a call of `tool` with
/// empty input.
fn run_call(tool: &str) -> Value {
    json!({"type": "tool_use", "timestamp": 1, "sessionID": "ses_a", "part": {
        "id": "prt_1", "sessionID": "ses_a", "messageID": "msg_1", "type": "tool",
        "callID": "c1", "tool": tool,
        "state": {"status": "running", "input": {}, "time": {"start": 1}}}})
}

/// The tools OpenCode's model may call, and the fixture MCP server's as it names them.
pub const OPENCODE_TOOLS: &[&str] = &[
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
];

/// Kilo's, likewise.
pub const KILO_TOOLS: &[&str] = &[
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
];

impl Launcher for Opencode {
    fn configure(&self, setup: &Setup<'_>, cmd: &mut AgentCommand) -> anyhow::Result<()> {
        let mut cfg = json!({
            "$schema": self.schema,
            "provider": {"mock": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Scripted",
                "options": {"baseURL": format!("{}/v1", setup.model_url), "apiKey": API_KEY},
                "models": {"scripted": {"name": "Scripted", "tool_call": true, "limit": {"context": 200000, "output": 8192}}}
            }},
            "model": "mock/scripted",
            "small_model": "mock/scripted",
            "autoupdate": false,
            "share": "disabled",
            "permission": {"edit": "allow", "bash": "allow", "webfetch": "allow", "external_directory": "allow"}
        });
        // `opencode acp` gets the server from the client, in `session/new`.
        if setup.scenario.mcp && !(self.mode == Mode::Acp && self.acp_mcp_in_session) {
            let mut command = vec![setup.mcp.program.clone()];
            command.extend(setup.mcp.args.iter().cloned());
            cfg["mcp"] =
                json!({SERVER_NAME: {"type": "local", "command": command, "enabled": true}});
        }
        merge_json(&mut cfg, &config_overrides(setup.scenario)?);
        write(
            &setup.scratch.work.join(self.config_file),
            &serde_json::to_string_pretty(&cfg)?,
        )?;
        seed_plugin_install(
            &setup.scratch.home.join(".config").join(self.config_dir),
            self.plugin,
        )?;
        for (k, d) in [
            ("XDG_CONFIG_HOME", ".config"),
            ("XDG_DATA_HOME", ".local/share"),
            ("XDG_CACHE_HOME", ".cache"),
            ("XDG_STATE_HOME", ".local/state"),
        ] {
            cmd.env(k, setup.scratch.home.join(d).display().to_string());
        }
        let models = pin_models_database(&setup.scratch.home.join(".cache").join(self.config_dir))?;
        cmd.env(
            &format!("{}MODELS_PATH", self.env_prefix),
            models.display().to_string(),
        );
        for k in [
            "DISABLE_MODELS_FETCH",
            "DISABLE_AUTOUPDATE",
            "DISABLE_SHARE",
            "DISABLE_LSP_DOWNLOAD",
            "DISABLE_DEFAULT_PLUGINS",
        ] {
            cmd.env(&format!("{}{k}", self.env_prefix), "1");
        }
        for (k, v) in self.quiet {
            cmd.env(k, *v);
        }
        Ok(())
    }

    fn command(&self, setup: &Setup<'_>, cmd: &mut AgentCommand) {
        let s = setup.scenario;
        if self.mode == Mode::Run {
            cmd.arg("run").arg("--format").arg("json");
        } else {
            cmd.arg("serve").arg("--hostname").arg("127.0.0.1");
        }
        for a in &s.args {
            cmd.arg(a.clone());
        }
        if self.mode == Mode::Run {
            cmd.arg(s.prompt.clone());
        }
    }

    fn drive(&self, launch: &Launch<'_>) -> anyhow::Result<Driven> {
        let s = launch.scenario;
        if self.mode == Mode::Run {
            let out = wrapped(launch, launch.interrupt())?;
            // A permission the configuration says to ask for is refused in `run` (Kilo: "run
            // ended with an auto-rejected permission"), which ends the session.
            let refused = String::from_utf8_lossy(&out).contains("auto-rejected permission");
            Ok(Driven {
                problems: Vec::new(),
                dismissed: refused,
            })
        } else {
            serve(launch, s, self.who)
        }
    }
}

/// Mark the plugin package as installed in the CLI's global configuration folder `dir`.
///
/// At every start OpenCode 1.18.33 (and Kilo 7.7.7) installs its plugin package (`plugin`) into
/// each configuration folder, in the background, with npm's Arborist inside its own process: the
/// registry's package documents of the plugin and its dependencies fetched and resolved, a
/// second or more of CPU per scenario on two cores, and a network request the scenario does not
/// need (the scenarios load no plugin). It skips the install when the folder has a
/// `node_modules` and a `package-lock.json` whose root already depends on every package it
/// would add, which this writes.
fn seed_plugin_install(dir: &std::path::Path, plugin: &str) -> anyhow::Result<()> {
    let modules = dir.join("node_modules");
    std::fs::create_dir_all(&modules)
        .with_context(|| format!("failed to create {}", modules.display()))?;
    let lock = json!({"lockfileVersion": 3, "packages": {"": {"dependencies": {plugin: "*"}}}});
    write(&dir.join("package-lock.json"), &lock.to_string())
}

/// Write the models database the CLI reads (`<PREFIX>MODELS_PATH`) into `dir` and return its
/// path: an empty one, as the scenarios' one provider (the scripted model) is declared whole in
/// the workspace configuration.
///
/// Without it OpenCode 1.18.33 (and Kilo 7.7.7) read the models.dev catalogue: the copy it
/// fetched last into its cache folder if there is one (a different catalogue on every machine
/// and every day), else the snapshot built into the release, whose thousands of models it loads
/// at every start: about 1.5 CPU-s of each scenario's 5.5 (`opencode-run-bash` 4.0 CPU-s with
/// this file, 5.5 without), most of what held a whole-set drift over a minute on two cores.
fn pin_models_database(dir: &Path) -> anyhow::Result<std::path::PathBuf> {
    let path = dir.join("models.json");
    write(&path, "{}")?;
    Ok(path)
}

/// `opencode serve` on a free port, its `/event` stream recorded while we post the session and
/// the message.
fn serve(launch: &Launch<'_>, s: &Scenario, who: &str) -> anyhow::Result<Driven> {
    let port = free_port().context("failed to find a free loopback port")?;
    let mut c = launch.command();
    c.arg("--port").arg(port.to_string());
    c.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut server = spawn_group(&mut c)
        .with_context(|| format!("failed to start {}", launch.agent.program.display()))?;
    let (out, listening) = collect_until(server.stdout.take(), LISTENING);
    let err = collect(server.stderr.take());
    trace::mark(&s.name, "server started");
    let result = drive_serve(launch, &c, s, port, who, &listening);
    trace::mark(&s.name, "session over; killing the server");
    kill_group(&server);
    let _ = server.kill();
    let _ = server.wait();
    let output = [
        out.join().unwrap_or_default(),
        err.join().unwrap_or_default(),
    ]
    .concat();
    result.with_context(|| format!("{who} serve session failed; its output:\n{}", tail(&output)))
}

/// What `opencode serve` and `kilo serve` print on stdout once they answer requests (`opencode
/// server listening on http://…`).
const LISTENING: &str = "server listening on ";

fn drive_serve(
    launch: &Launch<'_>,
    server: &std::process::Command,
    s: &Scenario,
    port: u16,
    who: &str,
    listening: &crossbeam_channel::Receiver<()>,
) -> anyhow::Result<Driven> {
    let base = format!("http://127.0.0.1:{port}");
    let limit = launch.limit;
    let deadline = Instant::now() + limit;
    let http = client(Duration::from_secs(2), Duration::from_secs(30));
    // Wait for the server to say it listens. A request sent before that may be accepted while it
    // starts and then never answered (OpenCode 1.18.33 leaves it hanging): polling with one
    // cost ~30 s a scenario, a client's whole timeout.
    match listening.recv_deadline(deadline) {
        Ok(()) => {}
        Err(crossbeam_channel::RecvTimeoutError::Timeout) => {
            bail!(
                "{who} serve did not say it listens within {}s",
                limit.as_secs()
            )
        }
        Err(crossbeam_channel::RecvTimeoutError::Disconnected) => {
            bail!("{who} serve closed its output before it listened")
        }
    }
    trace::mark(&s.name, "server says it listens");
    // Then until it answers; a probe that hangs is given up after a second and sent again.
    let probe = client(Duration::from_secs(1), Duration::from_secs(1));
    while probe.get(&format!("{base}/session")).call().is_err() {
        if Instant::now() >= deadline {
            bail!("{who} serve did not come up on port {port}");
        }
        thread::sleep(Duration::from_millis(100));
    }
    trace::mark(&s.name, "server answers");
    let events = SseOptions {
        url: format!("{base}/event"),
        // Not `until: session.idle`: a task's child session goes idle before the parent, so the
        // recording is stopped (a clean finish) once the message call returns.
        until: None,
        reconnect: 3,
    };
    // Subscribed before anything happens: no event is missed.
    let subscription = launch.subscribe(server, events)?;
    let printed = Captured::new();
    let (stop, stopped) = crossbeam_channel::bounded::<()>(1);
    let (recorded_tx, recorded) = mpsc::channel();
    let to = printed.clone();
    thread::spawn(move || {
        let _ = recorded_tx.send(subscription.run(Box::new(to), stopped));
    });
    let driven = converse(
        &http,
        &base,
        s,
        limit,
        deadline,
        &launch.scratch.root,
        &printed,
    );
    trace::mark(&s.name, "message call returned");
    if let Ok((_, sid)) = &driven {
        // The main session's last events (a dismissed question's error, its `session.idle`)
        // trail the message reply a little: the recording goes on until the stream shows the
        // session idle, or for `IDLE_GRACE` at most (the fixed wait this replaced).
        let until = Instant::now() + IDLE_GRACE;
        while !printed.read(|b| shows_idle(b, sid)) && Instant::now() < until {
            thread::sleep(Duration::from_millis(50));
        }
        trace::mark(&s.name, "session idle");
    }
    let _ = stop.send(());
    let left = deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_secs(5));
    let recording = recorded.recv_timeout(left.min(Duration::from_secs(20)));
    trace::mark(&s.name, "event stream recorded");
    let (driven, _) = driven?;
    match recording {
        Ok(r) => {
            r.with_context(|| format!("failed to record the {who} event stream"))?;
        }
        Err(_) => bail!("the recording of the {who} event stream did not stop"),
    }
    if launch.opts.raw {
        launch.write_raw(&String::from_utf8_lossy(&printed.bytes()))?;
    }
    Ok(driven)
}

/// A client of the local server whose requests connect within `connect` and end within `limit`.
fn client(connect: Duration, limit: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_connect(Some(connect))
        .timeout_global(Some(limit))
        .build()
        .new_agent()
}

/// POST a JSON body and read the answer's; a status of 400 or more is an error.
fn post_json(http: &ureq::Agent, url: &str, body: &str) -> Result<String, ureq::Error> {
    http.post(url)
        .header("Content-Type", "application/json")
        .send(body)?
        .into_body()
        .read_to_string()
}

/// GET a JSON answer; `null` when the request fails or the answer is not JSON (read again at the
/// next poll).
fn get_json(http: &ureq::Agent, url: &str) -> Value {
    http.get(url)
        .call()
        .ok()
        .and_then(|r| r.into_body().read_to_string().ok())
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null)
}

/// How long the recording waits, after the message call returned, for the main session's
/// `session.idle` event.
const IDLE_GRACE: Duration = Duration::from_millis(1500);

/// Whether the recorded `/event` stream holds the `session.idle` event of session `sid`.
fn shows_idle(stream: &[u8], sid: &str) -> bool {
    let of = format!("\"sessionID\":\"{sid}\"");
    // Only the lines of idle events are looked at, not every line of the stream.
    memchr::memmem::find_iter(stream, br#""type":"session.idle""#).any(|at| {
        let start = memchr::memrchr(b'\n', &stream[..at]).map_or(0, |i| i + 1);
        let end = memchr::memchr(b'\n', &stream[at..]).map_or(stream.len(), |i| at + i);
        memchr::memmem::find(&stream[start..end], of.as_bytes()).is_some()
    })
}

/// Create the session, post the prompt, and answer the questions the agent asks until the message
/// call returns; what the user did, and the session's id.
fn converse(
    http: &ureq::Agent,
    base: &str,
    s: &Scenario,
    limit: Duration,
    deadline: Instant,
    scratch: &Path,
    printed: &Captured,
) -> anyhow::Result<(Driven, String)> {
    let session = post_json(http, &format!("{base}/session"), "{}")
        .context("failed to create the opencode session")?;
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
    let long = client(limit, limit);
    let message = json!({"parts": [{"type": "text", "text": s.prompt}], "model": {"providerID": "mock", "modelID": "scripted"}});
    let message_url = format!("{base}/session/{sid}/message");
    let (posted_tx, posted_rx) = mpsc::channel::<Result<(), ureq::Error>>();
    thread::spawn(move || {
        let r = post_json(&long, &message_url, &message.to_string()).map(drop);
        let _ = posted_tx.send(r);
    });
    let mut answers = ServeQuestions::new(&s.answers);
    // An interrupted turn: what a UI's stop button does, `POST /session/:id/abort`.
    let mut abort = Interrupt::of(s, scratch);
    loop {
        let shown = |text: &str| printed.contains(text.as_bytes());
        if abort.take_if(|i| i.due(shown)).is_some() {
            post_json(http, &format!("{base}/session/{sid}/abort"), "{}")
                .context("failed to abort the session")?;
        }
        let wait = abort.as_ref().map_or(Duration::from_millis(300), |i| {
            i.next_check().saturating_duration_since(Instant::now())
        });
        match posted_rx.recv_timeout(wait.min(Duration::from_millis(300))) {
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
        answers.answer_pending(http, base)?;
        answers.dismiss_suggestions(http, base)?;
    }
    Ok((
        Driven {
            problems: answers.user.problems(),
            dismissed: answers.user.any_declined() || answers.dismissed_suggestion,
        },
        sid,
    ))
}

/// The scripted user of `opencode serve`: answers each pending question request (`GET
/// /question`) with the scenario's next answers, one label list per question, and dismisses it
/// (`POST /question/:id/reject`) when the user declines (an empty list, or the answers ran out):
/// a scenario without answers records a dismissed question.
struct ServeQuestions<'a> {
    user: ScriptedUser<'a>,
    handled: HashSet<String>,
    /// A suggestion was dismissed: the turn ends there.
    dismissed_suggestion: bool,
}

impl<'a> ServeQuestions<'a> {
    fn new(scripted: &'a [Vec<String>]) -> Self {
        ServeQuestions {
            user: ScriptedUser::new(scripted),
            handled: Default::default(),
            dismissed_suggestion: false,
        }
    }

    /// Answer (or dismiss) the requests not seen before. A list that cannot be read is retried
    /// at the next poll; a reply the server refuses ends the run.
    fn answer_pending(&mut self, http: &ureq::Agent, base: &str) -> anyhow::Result<()> {
        let list = get_json(http, &format!("{base}/question"));
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
            post_json(
                http,
                &format!("{base}/question/{id}/{route}"),
                &body.to_string(),
            )
            .with_context(|| format!("opencode refused the {route} to question {id}"))?;
        }
        Ok(())
    }
}

impl ServeQuestions<'_> {
    /// Kilo's `suggest` (a review offered at the end of a turn) waits for the user: each new
    /// request listed at `GET /suggestion` is dismissed (`POST /suggestion/:id/dismiss`). A server
    /// without suggestions (OpenCode) answers the list with an error, which is no suggestion.
    fn dismiss_suggestions(&mut self, http: &ureq::Agent, base: &str) -> anyhow::Result<()> {
        let list = get_json(http, &format!("{base}/suggestion"));
        for request in list.as_array().into_iter().flatten() {
            let Some(id) = request.get("id").and_then(Value::as_str) else {
                continue;
            };
            if !self.handled.insert(id.to_owned()) {
                continue;
            }
            post_json(http, &format!("{base}/suggestion/{id}/dismiss"), "{}")
                .with_context(|| format!("the server refused to dismiss suggestion {id}"))?;
            self.dismissed_suggestion = true;
        }
        Ok(())
    }
}

fn free_port() -> std::io::Result<u16> {
    let l = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(l.local_addr()?.port())
}

/// Read `r` to its end, as [`collect`] does, and say on the channel when a line holding `marker`
/// went by (the channel closes unsaid when `r` ends first).
fn collect_until<R: Read + Send + 'static>(
    r: Option<R>,
    marker: &'static str,
) -> (thread::JoinHandle<Vec<u8>>, crossbeam_channel::Receiver<()>) {
    let (said, heard) = crossbeam_channel::bounded(1);
    let reader = thread::spawn(move || {
        let mut buf = Vec::new();
        let Some(r) = r else { return buf };
        let mut r = BufReader::new(r);
        let mut said = Some(said);
        loop {
            let start = buf.len();
            match r.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            if String::from_utf8_lossy(&buf[start..]).contains(marker)
                && let Some(tx) = said.take()
            {
                let _ = tx.send(());
            }
        }
        buf
    });
    (reader, heard)
}

fn collect<R: Read + Send + 'static>(r: Option<R>) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(mut r) = r {
            let _ = r.read_to_end(&mut buf);
        }
        buf
    })
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    /// The recording stops at the main session's `session.idle` as `serve` writes it (a `data:`
    /// line of the SSE stream), not at a child session's or another event of the main one.
    #[test]
    fn the_main_sessions_idle_event_is_found() {
        let child =
            br#"data: {"id":"evt_1","type":"session.idle","properties":{"sessionID":"ses_child"}}"#;
        let busy = br#"data: {"id":"evt_2","type":"session.status","properties":{"sessionID":"ses_main","status":{"type":"busy"}}}"#;
        let idle =
            br#"data: {"id":"evt_3","type":"session.idle","properties":{"sessionID":"ses_main"}}"#;
        let mut stream = [&child[..], b"\n\n", &busy[..], b"\n\n"].concat();
        assert!(!shows_idle(&stream, "ses_main"));
        assert!(shows_idle(&stream, "ses_child"));
        stream.extend_from_slice(idle);
        stream.extend_from_slice(b"\n\n");
        assert!(shows_idle(&stream, "ses_main"));
        assert!(!shows_idle(b"", "ses_main"));
    }

    /// The config folder says the plugin is installed as OpenCode 1.18.33's `Npm.install`
    /// checks it: a `node_modules`, and a lock whose root depends on the package it would add.
    #[test]
    fn the_plugin_is_marked_installed() {
        let dir = std::env::temp_dir().join(format!("toolnorm-plugin-seed-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        seed_plugin_install(&dir, "@opencode-ai/plugin").unwrap();
        assert!(dir.join("node_modules").is_dir());
        let lock: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("package-lock.json")).unwrap())
                .unwrap();
        assert!(lock["packages"][""]["dependencies"]["@opencode-ai/plugin"].is_string());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// OpenCode and Kilo, however they run, are pointed at an empty models database in the
    /// scratch HOME, not at the catalogue built into the release or fetched into a cache.
    #[test]
    fn the_models_database_is_pinned_empty_in_the_scratch_home() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        let base = tempfile::tempdir().unwrap();
        let mcp = crate::scenario::mcp_server::ServerCommand {
            program: "toolnorm".to_owned(),
            args: Vec::new(),
        };
        for (launcher, name, prefix) in [
            (&OPENCODE_RUN, "opencode-run-bash", "OPENCODE_"),
            (&OPENCODE_SERVE, "opencode-serve-bash", "OPENCODE_"),
            (&OPENCODE_ACP, "opencode-acp-bash", "OPENCODE_"),
            (&KILO_RUN, "kilo-run-bash", "KILO_"),
            (&KILO_SERVE, "kilo-serve-task", "KILO_"),
            (&KILO_ACP, "kilo-acp-bash", "KILO_"),
        ] {
            let s = Scenario::load(&root.join(format!("{name}.toml")), |_| None).unwrap();
            let (scratch, cmd) =
                crate::scenario::launch::configured(launcher, &s, base.path(), &mcp);
            let key = format!("{prefix}MODELS_PATH");
            let path = cmd
                .env
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| std::path::PathBuf::from(v))
                .unwrap_or_else(|| panic!("{name}: no {key}"));
            assert!(
                path.starts_with(&scratch.home),
                "{name}: {}",
                path.display()
            );
            let models: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            assert_eq!(models, json!({}), "{name}");
        }
    }

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
        client(Duration::from_secs(5), Duration::from_secs(5))
    }

    #[test]
    fn the_listening_line_is_heard_and_all_output_kept() {
        let out = b"Warning: unsecured\nopencode server listening on http://127.0.0.1:1\nmore\n";
        let (all, heard) = collect_until(Some(&out[..]), LISTENING);
        assert_eq!(heard.recv_timeout(Duration::from_secs(5)), Ok(()));
        assert_eq!(all.join().unwrap(), out);
        // Output that ends without the line closes the channel unsaid.
        let (all, heard) = collect_until(Some(&b"Error: no config\n"[..]), LISTENING);
        assert_eq!(all.join().unwrap(), b"Error: no config\n");
        assert!(heard.recv_timeout(Duration::from_secs(5)).is_err());
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
}
