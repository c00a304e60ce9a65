//! `toolnorm normalize --follow`: normalize a live stream as it arrives and write one JSON line per
//! update, flushed at once, so an engine can run toolnorm as a subprocess between an agent CLI and
//! its UI (`claude -p … --output-format stream-json | toolnorm normalize --follow --emit acp`).
//!
//! Where it reads: stdin or any pipe until its end; a regular file from its start and on as it
//! grows, until nothing was added for `--idle-timeout` seconds; a fixture (`.jsonl.zst`) line by
//! line. Where it writes: with `--emit parts` every update (dialect, part, revised part,
//! diagnostic) on stdout; with `--emit acp` or `legacy` only the frames on stdout, the dialect and
//! the diagnostics on stderr, each as a JSON line. A closed stdout ends it quietly.

use std::fs;
use std::io::{self, BufRead, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use super::Emit;
use crate::cli::exit;
use crate::corpus::load_stream;
use crate::model::wire::{Wire, WireEmitter, WireFrame};
use crate::model::{AcpFrame, LegacyToolPart, NormalizedToolPart};
use crate::normalizer::{Normalizer, Update};
use crate::providers::NormalizeOptions;

/// Where a rendered update goes: one line of JSON text (without its newline).
#[derive(Debug, PartialEq)]
pub(crate) enum Rendered {
    Stdout(String),
    Stderr(String),
    /// A wire's frames for stdout, each already with its end.
    Frames(String),
}

/// What `--emit ai-sdk` / `ag-ui` remembers between updates: the wire's emitter, and whether
/// frames are written as Server-Sent Events.
pub(crate) struct WireLive {
    emitter: WireEmitter,
    wire: Wire,
    sse: bool,
}

impl WireLive {
    pub(crate) fn new(wire: Wire, sse: bool) -> WireLive {
        WireLive {
            emitter: WireEmitter::new(wire),
            wire,
            sse,
        }
    }

    /// The frames as one text (lines or events, each with its end), `None` when there are none.
    fn text(&self, frames: &[WireFrame], end: bool) -> Option<String> {
        let mut buf = Vec::new();
        super::write_frames(&mut buf, self.wire, frames, self.sse, end).ok()?;
        (!buf.is_empty()).then(|| String::from_utf8_lossy(&buf).into_owned())
    }

    /// The frames for one update, written.
    pub(crate) fn update(&mut self, update: &Update) -> Option<String> {
        let frames = self.emitter.part(update.part()?);
        self.text(&frames, false)
    }

    /// The frames that close the stream, written.
    pub(crate) fn finish(&mut self) -> Option<String> {
        let frames = self.emitter.finish();
        self.text(&frames, true)
    }
}

/// What `--emit acp` remembers between updates: each part's last snapshot (a `tool_call_update`
/// carries what changed since it) and the session id the frames name. Proportional to the parts.
#[derive(Default)]
pub(crate) struct AcpLive {
    #[cfg(feature = "acp")]
    last: std::collections::HashMap<String, NormalizedToolPart>,
    #[cfg(feature = "acp")]
    session: Option<String>,
}

impl AcpLive {
    /// The frame for this change of `part`: a `tool_call` at its first appearance, else a
    /// `tool_call_update` against its previous snapshot.
    #[cfg(feature = "acp")]
    fn frame(&mut self, part: &NormalizedToolPart) -> serde_json::Result<String> {
        if self.session.is_none() {
            self.session = part.metadata.as_ref().and_then(|m| m.session_id.clone());
        }
        let session = self
            .session
            .as_deref()
            .unwrap_or(crate::model::acp::DEFAULT_SESSION_ID);
        let frame =
            crate::model::acp::part_update_frame(session, self.last.get(part.id.as_str()), part);
        self.last.insert(part.id.clone(), part.clone());
        serde_json::to_string(&frame)
    }
}

/// One update as `--follow` writes it for `emit`: the one place that knows an update's JSON line.
/// `None` only if the value cannot be written as JSON.
#[cfg(test)]
pub(crate) fn render(emit: Emit, update: &Update, live: &mut AcpLive) -> Option<Rendered> {
    render_with(emit, update, live, None)
}

/// [`render`], with the wire's emitter for `--emit ai-sdk` / `ag-ui` (whose text may be several
/// lines, each with its end, or nothing).
pub(crate) fn render_with(
    emit: Emit,
    update: &Update,
    live: &mut AcpLive,
    wire: Option<&mut WireLive>,
) -> Option<Rendered> {
    #[cfg(not(feature = "acp"))]
    let _ = live;
    let text = match (emit, update) {
        (Emit::Parts, _) => return serde_json::to_string(update).ok().map(Rendered::Stdout),
        // The views show parts; what is not a part goes to stderr as `parts` shows it.
        (_, Update::Dialect(_) | Update::Diagnostic(_)) => {
            return serde_json::to_string(update).ok().map(Rendered::Stderr);
        }
        #[cfg(feature = "acp")]
        (Emit::Acp, Update::Part { part, .. } | Update::Revised(part)) => live.frame(part),
        (Emit::AcpLegacy, Update::Part { part, .. } | Update::Revised(part)) => {
            serde_json::to_string(&AcpFrame::from(part))
        }
        (Emit::Legacy, Update::Part { part, .. } | Update::Revised(part)) => {
            serde_json::to_string(&LegacyToolPart::from(part))
        }
        (Emit::AiSdk | Emit::AgUi, _) => {
            return wire?.update(update).map(Rendered::Frames);
        }
    };
    text.ok().map(Rendered::Stdout)
}

/// Writes rendered updates, a flushed line each.
struct Writer {
    emit: Emit,
    live: AcpLive,
    wire: Option<WireLive>,
    out: io::Stdout,
    err: io::Stderr,
}

impl Writer {
    /// The wire's closing frames, if it is a wire.
    fn finish(&mut self) -> io::Result<()> {
        if let Some(text) = self.wire.as_mut().and_then(WireLive::finish) {
            let mut out = self.out.lock();
            out.write_all(text.as_bytes())?;
            out.flush()?;
        }
        Ok(())
    }

    fn write(&mut self, updates: impl IntoIterator<Item = Update>) -> io::Result<()> {
        for u in updates {
            let (mut text, to_stdout) =
                match render_with(self.emit, &u, &mut self.live, self.wire.as_mut()) {
                    Some(Rendered::Stdout(v)) => (v, true),
                    Some(Rendered::Stderr(v)) => (v, false),
                    Some(Rendered::Frames(v)) => (v, true),
                    None => continue,
                };
            if !text.ends_with('\n') {
                text.push('\n');
            }
            let text = text.as_bytes();
            if to_stdout {
                let mut out = self.out.lock();
                out.write_all(text)?;
                out.flush()?;
            } else {
                let mut err = self.err.lock();
                err.write_all(text)?;
                err.flush()?;
            }
        }
        Ok(())
    }
}

/// Follow `path` (`-` for stdin). `idle` bounds how long a growing regular file may stay still.
pub(crate) fn run(
    path: &Path,
    opts: NormalizeOptions<'_>,
    emit: Emit,
    sse: bool,
    idle: Duration,
) -> anyhow::Result<u8> {
    let mut writer = Writer {
        emit,
        live: AcpLive::default(),
        wire: emit.wire().map(|w| WireLive::new(w, sse)),
        out: io::stdout(),
        err: io::stderr(),
    };
    match follow(path, opts, &mut writer, idle) {
        Err(e) if crate::cli::is_broken_pipe(&e) => Ok(exit::SUCCESS),
        other => other,
    }
}

fn follow(
    path: &Path,
    opts: NormalizeOptions<'_>,
    writer: &mut Writer,
    idle: Duration,
) -> anyhow::Result<u8> {
    let name = path.display().to_string();
    let fail = |e: crate::dialects::NormalizeError| anyhow::anyhow!("{name}: {e}");
    let n = if path == Path::new("-") {
        let mut n = Normalizer::new(opts)?;
        let stdin = io::stdin();
        read_lines(&mut stdin.lock(), &mut n, writer, None, &name)?;
        n
    } else if name.ends_with(crate::corpus::format::FIXTURE_SUFFIX) {
        // A recording: its lines, numbered and directed as recorded, read as its header says.
        let stream = load_stream(path)?;
        let mut opts = NormalizeOptions {
            cwd: opts.cwd.or(stream.cwd.as_deref()),
            ..opts
        };
        if opts.dialect.is_none()
            && let (Some(p), Some(d)) = (&stream.provider, &stream.dialect)
        {
            let p: crate::stream::Provider = p.parse().map_err(anyhow::Error::msg)?;
            opts.provider.get_or_insert(p);
            opts.dialect = crate::stream::Dialect::parse(d, Some(p)).ok();
        }
        let mut n = Normalizer::new(opts)?;
        for line in &stream.input().lines {
            writer.write(n.push(line).map_err(fail)?)?;
        }
        n
    } else {
        let mut n = Normalizer::new(opts)?;
        let file = fs::File::open(path)
            .map_err(|e| anyhow::Error::new(e).context(format!("failed to read {name}")))?;
        let growing = file.metadata().is_ok_and(|m| m.is_file()).then_some(idle);
        let mut r = io::BufReader::with_capacity(1 << 16, file);
        read_lines(&mut r, &mut n, writer, growing, &name)?;
        n
    };
    writer.write(n.finish().map_err(fail)?)?;
    writer.finish()?;
    Ok(exit::SUCCESS)
}

/// How often a growing file is looked at again once its end is reached.
const POLL: Duration = Duration::from_millis(20);

/// Push every line of `r` as it comes. With `growing`, the end of the file is not the end of the
/// stream until nothing was added for that long.
fn read_lines(
    r: &mut impl BufRead,
    n: &mut Normalizer,
    writer: &mut Writer,
    growing: Option<Duration>,
    name: &str,
) -> anyhow::Result<()> {
    let mut line = Vec::new();
    let mut still_since = Instant::now();
    loop {
        let got = r
            .read_until(b'\n', &mut line)
            .map_err(|e| anyhow::Error::new(e).context(format!("failed to read {name}")))?;
        if line.last() == Some(&b'\n') {
            line.pop();
            writer.write(
                n.push_line(&line)
                    .map_err(|e| anyhow::anyhow!("{name}: {e}"))?,
            )?;
            line.clear();
            still_since = Instant::now();
            continue;
        }
        if got > 0 {
            still_since = Instant::now();
        }
        match growing {
            Some(idle) if still_since.elapsed() < idle => std::thread::sleep(POLL),
            _ => break,
        }
    }
    if !line.is_empty() {
        // The stream ended in the middle of a line.
        let number = n.lines().saturating_add(1);
        let raw = crate::stream::RawLine {
            number,
            bytes: crate::stream::trim_line(&line),
            direction: crate::stream::Direction::Agent,
            unterminated: true,
            text: None,
        };
        writer.write(n.push(&raw).map_err(|e| anyhow::anyhow!("{name}: {e}"))?)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DiagnosticLevel, PartEvent, ToolState};
    use serde_json::Value;

    fn json(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }
    use crate::stream::Dialect;

    fn part() -> crate::model::NormalizedToolPart {
        let mut n = Normalizer::new(NormalizeOptions {
            dialect: Some(Dialect::CodexExec),
            ..NormalizeOptions::default()
        })
        .unwrap();
        let line = br#"{"type":"item.started","item":{"id":"i1","type":"command_execution","command":"ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}"#;
        n.push_line(line).unwrap().for_each(drop);
        n.parts()[0].clone()
    }

    #[test]
    fn every_update_renders_for_every_emit() {
        let p = part();
        let update = Update::Part {
            event: PartEvent {
                line: 1,
                part_id: "i1".into(),
                state: ToolState::Running,
            },
            part: p.clone(),
            created: true,
        };
        let Some(Rendered::Stdout(v)) = render(Emit::Parts, &update, &mut AcpLive::default())
        else {
            panic!()
        };
        let v = json(&v);
        assert_eq!(v["type"], "part");
        assert!(
            matches!(render(Emit::Parts, &update, &mut AcpLive::default()), Some(Rendered::Stdout(t)) if t.starts_with(r#"{"type":"part","#))
        );
        assert_eq!(v["event"]["line"], 1);
        assert_eq!(v["part"]["title"], "Running ls");
        let mut live = AcpLive::default();
        let Some(Rendered::Stdout(v)) = render(Emit::Acp, &update, &mut live) else {
            panic!()
        };
        let v = json(&v);
        assert_eq!(v["method"], "session/update");
        assert_eq!(v["params"]["update"]["sessionUpdate"], "tool_call");
        assert_eq!(v["params"]["update"]["toolCallId"], "i1");
        // The same part again is an update of the call, not a second call.
        let Some(Rendered::Stdout(v)) = render(Emit::Acp, &update, &mut live) else {
            panic!()
        };
        assert_eq!(
            json(&v)["params"]["update"]["sessionUpdate"],
            "tool_call_update"
        );
        let Some(Rendered::Stdout(v)) = render(Emit::AcpLegacy, &update, &mut AcpLive::default())
        else {
            panic!()
        };
        let v = json(&v);
        assert_eq!(v["toolCallId"], "i1");
        assert_eq!(v["status"], "calling");
        let Some(Rendered::Stdout(v)) =
            render(Emit::Legacy, &Update::Revised(p), &mut AcpLive::default())
        else {
            panic!()
        };
        let v = json(&v);
        assert_eq!(v["state"], "calling");
        let d = Update::Diagnostic(crate::model::Diagnostic {
            line: 3,
            level: DiagnosticLevel::Warning,
            message: "not JSON".into(),
        });
        assert!(matches!(
            render(Emit::Parts, &d, &mut AcpLive::default()),
            Some(Rendered::Stdout(_))
        ));
        let Some(Rendered::Stderr(v)) = render(Emit::Acp, &d, &mut AcpLive::default()) else {
            panic!()
        };
        let v = json(&v);
        assert_eq!(v["diagnostic"]["line"], 3);
        let Some(Rendered::Stderr(v)) = render(
            Emit::Legacy,
            &Update::Dialect(Dialect::CodexExec),
            &mut AcpLive::default(),
        ) else {
            panic!()
        };
        let v = json(&v);
        assert_eq!(
            (v["provider"].as_str(), v["dialect"].as_str()),
            (Some("codex"), Some("exec"))
        );
    }
}
