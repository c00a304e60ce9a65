//! [`Recording`]: what to record — the fixture's path and its header's facts, the redaction, whether
//! to overwrite — and the ways to feed it: a pipe, a wrapped agent, a two-way proxy, an SSE
//! subscription. The passthrough ends are the caller's, so `toolnorm record` passes its own stdio
//! and the scenario runner passes in-memory pipes and drives the agent itself.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use super::pipe::{CopyEnd, copy};
use super::sse::{self, SseOptions, Subscription};
use super::wrap::{AgentEnds, StdinEnd, WrappedAgent};
use super::{DEFAULT_MAX_LAG_BYTES, Outcome, Recorder, RecorderConfig};
use crate::corpus::format::{ENV_ALLOW_LIST, Header, new_header};
use crate::corpus::redact::Redactor;
use crate::corpus::{fixture_path, validate_name};
use crate::stream::{Detector, Dialect, Direction, Provider};

/// A recording to make. Build it with [`Recording::new`] and change the fields that differ, then
/// start it with one of the modes ([`pipe`](Recording::pipe), [`spawn`](Recording::spawn),
/// [`subscribe`](Recording::subscribe)).
#[derive(Clone, Debug)]
pub struct Recording {
    /// Where the fixture goes: `<corpus>/<provider>/<name>.jsonl.zst`.
    pub path: PathBuf,
    pub provider: Provider,
    /// The fixture name, written in the header.
    pub name: String,
    /// The dialect, when known up front (otherwise detected and written in the trailer).
    pub dialect: Option<Dialect>,
    /// The agent CLI's name (e.g. `claude-code`).
    pub cli: Option<String>,
    /// The agent CLI's version, when the stream does not announce it.
    pub cli_version: Option<String>,
    /// The live scenario the recording comes from.
    pub scenario: Option<String>,
    /// The agent's environment, when it is not ours (an agent started with a cleared
    /// environment): its allow-listed part goes into the header. `None`: ours.
    pub env: Option<BTreeMap<String, String>>,
    /// Folds secrets and paths, in the fixture and in the header's command and cwd.
    pub redactor: Redactor,
    /// Overwrite an existing fixture.
    pub force: bool,
    /// Stop recording (never the passthrough) when this many bytes wait for the writer.
    pub max_lag_bytes: usize,
    /// Tells the dialect for the trailer when the header does not name it.
    pub detect: Option<Detector>,
}

impl Recording {
    /// A recording of `name` into `corpus`, with nothing else known. The name is checked here.
    pub fn new(
        corpus: &Path,
        provider: Provider,
        name: &str,
        redactor: Redactor,
    ) -> anyhow::Result<Recording> {
        validate_name(name).map_err(anyhow::Error::msg)?;
        Ok(Recording {
            path: fixture_path(corpus, provider.as_str(), name),
            provider,
            name: name.to_owned(),
            dialect: None,
            cli: None,
            cli_version: None,
            scenario: None,
            env: None,
            redactor,
            force: false,
            max_lag_bytes: DEFAULT_MAX_LAG_BYTES,
            detect: None,
        })
    }

    /// The allow-listed part of `vars`, for [`Recording::env`].
    pub fn allowed_env<K: AsRef<str>, V: AsRef<str>>(
        vars: impl IntoIterator<Item = (K, V)>,
    ) -> BTreeMap<String, String> {
        vars.into_iter()
            .filter(|(k, _)| ENV_ALLOW_LIST.contains(&k.as_ref()))
            .map(|(k, v)| (k.as_ref().to_owned(), v.as_ref().to_owned()))
            .collect()
    }

    /// Pipe mode: copy `input` to `output` chunk by chunk until either ends, recording every
    /// chunk as `from agent`.
    pub fn pipe(self, input: impl Read, output: impl Write) -> anyhow::Result<(CopyEnd, Outcome)> {
        let header = self.header("pipe");
        let recorder = self.start(header)?;
        let end = copy(input, output, &recorder.tap(), Direction::Agent);
        Ok((end, recorder.finish(None)))
    }

    /// Wrap mode (or proxy mode, when `ends.stdin` is [`StdinEnd::Proxy`]): start the agent `cmd`
    /// with `ends`; [`WrappedAgent::run`] then passes its output through until it exits. The
    /// header holds the command line and the working folder, folded by the redactor. An existing
    /// fixture (without `force`) is an error before the agent starts; an agent that cannot be
    /// started leaves no fixture behind.
    pub fn spawn(self, cmd: Command, ends: AgentEnds) -> anyhow::Result<WrappedAgent> {
        let proxy = matches!(ends.stdin, StdinEnd::Proxy(_));
        let mut header = self.header(if proxy { "proxy" } else { "wrap" });
        let command: Vec<String> = std::iter::once(cmd.get_program())
            .chain(cmd.get_args())
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        // The agent runs in the folder it is given, else where we run.
        let cwd = match cmd.get_current_dir() {
            Some(d) if d.is_absolute() => Some(d.to_owned()),
            Some(d) => std::env::current_dir().ok().map(|c| c.join(d)),
            None => std::env::current_dir().ok(),
        };
        let mut state = self.redactor.state();
        let mut fold = |s: &str| {
            String::from_utf8_lossy(&self.redactor.redact(s.as_bytes(), &mut state)).into_owned()
        };
        header.command = command.iter().map(|a| fold(a)).collect();
        header.cwd = cwd.map(|d| fold(&d.display().to_string()));
        let recorder = self.start(header)?;
        match WrappedAgent::start(cmd, ends, recorder.tap()) {
            Ok(mut agent) => {
                agent.recorder = Some(recorder);
                Ok(agent)
            }
            Err(e) => {
                recorder.abort();
                Err(e)
            }
        }
    }

    /// SSE mode: subscribe to `opts.url` (a wrong URL is an error before any fixture exists),
    /// then start the recording; [`Subscription::run`] records the events.
    pub fn subscribe(self, opts: SseOptions) -> anyhow::Result<Subscription> {
        let mut header = self.header("sse");
        header.command = vec!["--sse".to_owned(), opts.url.clone()];
        let first = sse::connect(&opts.url)?;
        let recorder = self.start(header)?;
        let mut sub = Subscription::open(first, opts, recorder.tap());
        sub.recorder = Some(recorder);
        Ok(sub)
    }

    /// The header, before the mode adds its command line.
    fn header(&self, mode: &str) -> Header {
        let mut header = new_header(self.provider.as_str(), &self.name);
        header.dialect = self.dialect.map(|d| d.as_str().to_owned());
        header.cli_version = self.cli_version.clone();
        header.cli = self.cli.clone();
        header.scenario = self.scenario.clone();
        if let Some(env) = &self.env {
            header.env = env.clone();
        }
        header.mode = Some(mode.to_owned());
        header
    }

    fn start(self, header: Header) -> anyhow::Result<Recorder> {
        Recorder::start(RecorderConfig {
            path: self.path,
            header,
            force: self.force,
            redactor: self.redactor,
            max_lag_bytes: self.max_lag_bytes,
            detect: self.detect,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;

    use super::super::StderrEnd;
    use super::super::memory::{self, Captured};
    use super::*;
    use crate::corpus::read_fixture;

    fn recording(dir: &Path, provider: Provider, name: &str) -> Recording {
        let redactor = Redactor::for_user(Vec::new(), Vec::new()).unwrap();
        Recording::new(&dir.join("corpus"), provider, name, redactor).unwrap()
    }

    /// Bytes a line splitter must keep exactly: CRLF, not UTF-8, a blank line, no final newline.
    const TRICKY: &[u8] = b"{\"a\":1}\r\n\xff\xfe raw\n\n{\"type\":\"result\"}";

    #[test]
    fn a_pipe_recording_reads_back_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let mut rec = recording(dir.path(), Provider::Claude, "piped");
        rec.scenario = Some("demo".to_owned());
        rec.cli_version = Some("1.2.3".to_owned());
        rec.env = Some(Recording::allowed_env([("TERM", "xterm"), ("HOME", "/h")]));
        let path = rec.path.clone();
        let mut out = Vec::new();
        let (end, outcome) = rec.pipe(TRICKY, &mut out).unwrap();
        assert!(matches!(end, CopyEnd::Eof));
        assert_eq!(out, TRICKY, "the passthrough is byte for byte");
        assert!(outcome.complete);
        assert_eq!(outcome.lines, 4);
        assert_eq!(outcome.path, path);

        let fx = read_fixture(&path).unwrap();
        let mut back = Vec::new();
        for (i, l) in fx.lines.iter().enumerate() {
            assert_eq!(l.dir, Direction::Agent);
            back.extend_from_slice(&l.bytes);
            if i + 1 < fx.lines.len() {
                back.push(b'\n');
            }
        }
        assert_eq!(back, TRICKY);
        let h = &fx.header;
        assert_eq!(h.name, "piped");
        assert_eq!(h.mode.as_deref(), Some("pipe"));
        assert_eq!(h.scenario.as_deref(), Some("demo"));
        assert_eq!(h.cli_version.as_deref(), Some("1.2.3"));
        assert_eq!(
            h.env,
            BTreeMap::from([("TERM".to_owned(), "xterm".to_owned())])
        );
        assert!(h.command.is_empty() && h.cwd.is_none());
    }

    #[test]
    fn an_existing_fixture_is_kept_without_force_and_replaced_with_it() {
        let dir = tempfile::tempdir().unwrap();
        let rec = recording(dir.path(), Provider::Codex, "dup");
        rec.clone().pipe(&b"one\n"[..], std::io::sink()).unwrap();
        let err = rec
            .clone()
            .pipe(&b"two\n"[..], std::io::sink())
            .unwrap_err();
        assert!(err.to_string().contains("already exists"), "{err}");
        let forced = Recording {
            force: true,
            ..rec.clone()
        };
        forced.pipe(&b"three\n"[..], std::io::sink()).unwrap();
        let fx = read_fixture(&rec.path).unwrap();
        assert_eq!(fx.lines[0].bytes, b"three");
        let bad = Recording::new(dir.path(), Provider::Codex, "../up", rec.redactor.clone());
        assert!(bad.unwrap_err().to_string().contains("fixture name"));
    }

    /// A proxied agent driven from memory: requests in through one pipe, replies out through
    /// another, both directions recorded in order, the header naming the command and its folder.
    #[test]
    fn a_proxy_recording_holds_both_directions_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().canonicalize().unwrap();
        let rec = recording(&work, Provider::Codex, "rpc");
        let path = rec.path.clone();
        let (mut to_agent, agent_in) = memory::pipe();
        let (agent_out, from_agent) = memory::pipe();
        let mut cmd = Command::new("sh");
        cmd.args([
            "-c",
            "while IFS= read -r l; do echo \"{\\\"reply\\\":$l}\"; done",
        ])
        .current_dir(&work);
        let agent = rec
            .spawn(
                cmd,
                AgentEnds {
                    stdin: StdinEnd::Proxy(Box::new(agent_in)),
                    stdout: Box::new(agent_out),
                    stderr: StderrEnd::Direct(Stdio::null()),
                    forward_signals: false,
                },
            )
            .unwrap();
        let running = std::thread::spawn(move || agent.run().unwrap());
        let mut replies = BufReader::new(from_agent);
        let mut expected = Vec::new();
        for i in 1..=3 {
            let req = format!("{{\"id\":{i}}}");
            writeln!(to_agent, "{req}").unwrap();
            let mut reply = String::new();
            replies.read_line(&mut reply).unwrap();
            assert_eq!(reply, format!("{{\"reply\":{req}}}\n"));
            expected.push((Direction::Client, req.clone()));
            expected.push((Direction::Agent, format!("{{\"reply\":{req}}}")));
        }
        drop(to_agent);
        let exit = running.join().unwrap();
        assert_eq!(exit.code, 0);
        let outcome = exit.recording.unwrap();
        assert!(outcome.complete);
        assert_eq!(outcome.lines, 6);

        let fx = read_fixture(&path).unwrap();
        let got: Vec<(Direction, String)> = fx
            .lines
            .iter()
            .map(|l| (l.dir, String::from_utf8(l.bytes.clone()).unwrap()))
            .collect();
        assert_eq!(got, expected);
        assert!(fx.lines.windows(2).all(|w| w[0].t <= w[1].t));
        assert_eq!(fx.header.mode.as_deref(), Some("proxy"));
        assert_eq!(fx.header.command[0], "sh");
        assert_eq!(fx.header.cwd.as_deref(), work.to_str());
        assert_eq!(fx.trailer.unwrap().exit_code, Some(0));
    }

    #[test]
    fn a_wrapped_agent_is_recorded_with_its_stderr_and_exit_code_and_paths_folded() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().canonicalize().unwrap();
        let redactor = Redactor::for_user(
            vec![(work.display().to_string(), "~/work".to_owned())],
            vec![],
        )
        .unwrap();
        let rec =
            Recording::new(&work.join("corpus"), Provider::Claude, "wrapped", redactor).unwrap();
        let path = rec.path.clone();
        let out = Captured::new();
        let err = Captured::new();
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "printf 'out %s\\n' \"$PWD\"; echo oops >&2; exit 3"])
            .current_dir(&work);
        let exit = rec
            .spawn(
                cmd,
                AgentEnds {
                    stdin: StdinEnd::Null,
                    stdout: Box::new(out.clone()),
                    stderr: StderrEnd::Recorded(Box::new(err.clone())),
                    forward_signals: false,
                },
            )
            .unwrap()
            .run()
            .unwrap();
        assert_eq!(exit.code, 3);
        assert_eq!(out.bytes(), format!("out {}\n", work.display()).as_bytes());
        assert_eq!(err.bytes(), b"oops\n");

        let fx = read_fixture(&path).unwrap();
        let mut got: Vec<(Direction, Vec<u8>)> =
            fx.lines.iter().map(|l| (l.dir, l.bytes.clone())).collect();
        got.sort_by_key(|(d, _)| *d as usize);
        assert_eq!(
            got,
            vec![
                (Direction::Agent, b"out ~/work".to_vec()),
                (Direction::Stderr, b"oops".to_vec()),
            ]
        );
        assert_eq!(fx.header.mode.as_deref(), Some("wrap"));
        assert_eq!(fx.header.cwd.as_deref(), Some("~/work"));
        assert_eq!(fx.trailer.unwrap().exit_code, Some(3));
    }

    #[test]
    fn an_agent_that_cannot_start_leaves_no_fixture() {
        let dir = tempfile::tempdir().unwrap();
        let rec = recording(dir.path(), Provider::Claude, "missing");
        let path = rec.path.clone();
        let ends = AgentEnds {
            stdin: StdinEnd::Null,
            stdout: Box::new(std::io::sink()),
            stderr: StderrEnd::Direct(Stdio::null()),
            forward_signals: false,
        };
        let err = rec
            .spawn(Command::new("/nonexistent/toolnorm-test-agent"), ends)
            .err()
            .unwrap();
        assert!(err.to_string().contains("failed to start"), "{err}");
        assert!(!path.exists());
    }

    /// A one-shot SSE server: the headers, `events`, then the connection held open until the
    /// returned sender is dropped.
    fn sse_server(events: &'static str) -> (String, crossbeam_channel::Sender<()>) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/event", listener.local_addr().unwrap());
        let (hold, held) = crossbeam_channel::bounded::<()>(0);
        std::thread::spawn(move || {
            let (mut conn, _) = listener.accept().unwrap();
            let mut req = [0u8; 1024];
            let _ = std::io::Read::read(&mut conn, &mut req);
            let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n";
            conn.write_all(head.as_bytes()).unwrap();
            conn.write_all(events.as_bytes()).unwrap();
            let _ = held.recv();
        });
        (url, hold)
    }

    #[test]
    fn a_subscription_records_each_payload_until_told_to_stop() {
        let dir = tempfile::tempdir().unwrap();
        let (url, hold) = sse_server(
            "event: message\ndata: {\"type\":\"server.connected\"}\n\n: comment\nid: 7\ndata: {\"type\":\ndata: \"session.idle\"}\n\n",
        );
        let rec = recording(dir.path(), Provider::Opencode, "events");
        let path = rec.path.clone();
        let sse = SseOptions {
            url: url.clone(),
            until: None,
            reconnect: 0,
        };
        let subscription = rec.subscribe(sse).unwrap();
        let (out, printed) = memory::pipe();
        let (stop, stopped) = crossbeam_channel::bounded(1);
        let running = std::thread::spawn(move || subscription.run(Box::new(out), stopped));
        let mut printed = BufReader::new(printed);
        let mut lines = Vec::new();
        // Two events; the second's two `data:` lines join with a newline.
        for _ in 0..3 {
            let mut l = String::new();
            printed.read_line(&mut l).unwrap();
            lines.push(l);
        }
        assert_eq!(
            lines.concat(),
            "{\"type\":\"server.connected\"}\n{\"type\":\n\"session.idle\"}\n"
        );
        stop.send(()).unwrap();
        let outcome = running.join().unwrap().unwrap().unwrap();
        assert!(outcome.complete);
        drop(hold);

        let fx = read_fixture(&path).unwrap();
        let got: Vec<&[u8]> = fx.lines.iter().map(|l| l.bytes.as_slice()).collect();
        assert_eq!(
            got,
            [
                &b"{\"type\":\"server.connected\"}"[..],
                b"{\"type\":",
                b"\"session.idle\"}"
            ]
        );
        assert_eq!(fx.header.mode.as_deref(), Some("sse"));
        assert_eq!(fx.header.command, ["--sse", url.as_str()]);
        assert!(fx.trailer.unwrap().exit_code.is_none());
    }

    #[test]
    fn a_subscription_to_nothing_leaves_no_fixture() {
        let dir = tempfile::tempdir().unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let rec = recording(dir.path(), Provider::Opencode, "nothing");
        let path = rec.path.clone();
        let sse = SseOptions {
            url: format!("http://127.0.0.1:{port}/event"),
            until: Some("session.idle".to_owned()),
            reconnect: 0,
        };
        let err = rec.subscribe(sse).err().unwrap();
        assert!(err.to_string().contains("failed to subscribe"), "{err}");
        assert!(!path.exists());
    }
}
