//! SSE mode: subscribe to an OpenCode server's `/event` stream and record the `data:` payload of
//! every event as one line (the prefix and the blank separator lines are not part of the stream),
//! passing the payloads on to an output too.

use std::io::{BufRead, BufReader, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Context;
use crossbeam_channel::Receiver;

use super::{Outcome, Recorder, Tap};
use crate::stream::Direction;

/// A subscription's answer: its body is the event stream.
type Response = ureq::http::Response<ureq::Body>;

/// What to subscribe to.
#[derive(Clone, Debug)]
pub struct SseOptions {
    /// The event stream, e.g. `http://127.0.0.1:4096/event`.
    pub url: String,
    /// Stop after the first event of this type (e.g. `session.idle`).
    pub until: Option<String>,
    /// When the stream drops, subscribe again up to this many times in a row.
    pub reconnect: u32,
}

/// Why the subscription ended.
#[derive(Debug, PartialEq, Eq)]
pub enum SseEnd {
    /// The server closed the stream.
    Closed,
    /// An event of the `until` type arrived.
    Until,
    /// The subscriber was told to stop.
    Stopped,
}

/// An open subscription to an event stream, recorded (or not) once it runs.
pub struct Subscription {
    first: Response,
    opts: SseOptions,
    tap: Tap,
    pub(super) recorder: Option<Recorder>,
}

impl Subscription {
    /// Subscribe without recording (the passthrough alone).
    pub fn unrecorded(opts: SseOptions) -> anyhow::Result<Subscription> {
        Ok(Self::open(connect(&opts.url)?, opts, Tap::none()))
    }

    pub(super) fn open(first: Response, opts: SseOptions, tap: Tap) -> Subscription {
        Subscription {
            first,
            opts,
            tap,
            recorder: None,
        }
    }

    /// Pass every event's payload to `output` (one line each) until the stream ends for good,
    /// an `until` event arrives, or a message comes on `stop` (a dropped `stop` never stops it);
    /// then finish the recording. The reader is not waited for after a stop: it ends at the next
    /// line the server sends, or when the stream breaks.
    pub fn run(
        self,
        output: Box<dyn Write + Send>,
        stop: Receiver<()>,
    ) -> anyhow::Result<Option<Outcome>> {
        let Subscription {
            first,
            opts,
            tap,
            recorder,
        } = self;
        let stopped = Arc::new(AtomicBool::new(false));
        let (done_tx, done_rx) = crossbeam_channel::bounded::<anyhow::Result<()>>(1);
        let reader_stopped = stopped.clone();
        std::thread::spawn(move || {
            let mut output = output;
            let r = follow(first, &opts, &tap, &mut output, &reader_stopped).map(|_| ());
            let _ = done_tx.send(r);
        });
        let result = crossbeam_channel::select! {
            recv(done_rx) -> r => r.unwrap_or(Ok(())),
            recv(stop) -> r => match r {
                Ok(()) => Ok(()),
                Err(_) => done_rx.recv().unwrap_or(Ok(())),
            },
        };
        stopped.store(true, Ordering::SeqCst);
        let outcome = recorder.map(|r| r.finish(None));
        result.map(|()| outcome)
    }
}

/// Subscribe. Done before the recording starts, so a wrong URL leaves no fixture behind.
pub(super) fn connect(url: &str) -> anyhow::Result<Response> {
    subscribe(url, None)
}

fn subscribe(url: &str, last_event_id: Option<&str>) -> anyhow::Result<Response> {
    let mut req = ureq::get(url).header("Accept", "text/event-stream");
    if let Some(id) = last_event_id {
        req = req.header("Last-Event-ID", id);
    }
    req.call()
        .with_context(|| format!("failed to subscribe to {url}"))
}

/// The first wait before subscribing again; it doubles with every failed attempt.
const FIRST_BACKOFF: Duration = Duration::from_millis(500);

/// Follow the stream across drops: when it closes or breaks before `until`, subscribe again (up
/// to `reconnect` attempts in a row, waiting 0.5 s, 1 s, 2 s, ...; `Last-Event-ID` sent when the
/// server gave ids). Each reconnection is noted in the fixture as a `stderr` line and on our
/// stderr, since events sent in between may be missing. The last end is returned once the
/// attempts run out. `stopped` ends it at the next line, without subscribing again.
fn follow(
    first: Response,
    opts: &SseOptions,
    tap: &Tap,
    out: &mut dyn Write,
    stopped: &AtomicBool,
) -> anyhow::Result<SseEnd> {
    let (url, until, reconnect) = (opts.url.as_str(), opts.until.as_deref(), opts.reconnect);
    let mut resp = first;
    let mut last_id = None;
    loop {
        let end = run(resp, url, until, tap, out, stopped, &mut last_id);
        if matches!(end, Ok(SseEnd::Until | SseEnd::Stopped)) || stopped.load(Ordering::SeqCst) {
            return end;
        }
        let why = match &end {
            Ok(_) => "the server closed the event stream".to_owned(),
            Err(e) => format!("{e:#}"),
        };
        let mut attempt = 0;
        resp = loop {
            if attempt == reconnect {
                return end;
            }
            std::thread::sleep(FIRST_BACKOFF * 2u32.saturating_pow(attempt));
            if stopped.load(Ordering::SeqCst) {
                return end;
            }
            attempt += 1;
            if let Ok(r) = subscribe(url, last_id.as_deref()) {
                break r;
            }
        };
        let note = format!(
            "toolnorm record: {why}; subscribed again (attempt {attempt}); events sent in between may be missing"
        );
        eprintln!("warning: {note}");
        tap.record(Direction::Stderr, format!("{note}\n").as_bytes());
    }
}

/// Read events until the stream ends, an event whose `type` is `until` arrives or `stopped` is
/// set; `last_id` follows the server's `id:` fields.
fn run(
    resp: Response,
    url: &str,
    until: Option<&str>,
    tap: &Tap,
    out: &mut dyn Write,
    stopped: &AtomicBool,
    last_id: &mut Option<String>,
) -> anyhow::Result<SseEnd> {
    let mut reader = BufReader::new(resp.into_body().into_reader());
    let mut data: Vec<u8> = Vec::new();
    let mut has_data = false;
    let mut line = Vec::new();
    loop {
        if stopped.load(Ordering::SeqCst) {
            return Ok(SseEnd::Stopped);
        }
        line.clear();
        let n = reader
            .read_until(b'\n', &mut line)
            .with_context(|| format!("failed to read {url}"))?;
        if n == 0 {
            if has_data {
                emit(&mut data, tap, out);
            }
            return Ok(SseEnd::Closed);
        }
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        if text.is_empty() {
            if has_data {
                let hit = until.is_some_and(|u| event_type(&data).as_deref() == Some(u));
                emit(&mut data, tap, out);
                has_data = false;
                if hit {
                    return Ok(SseEnd::Until);
                }
            }
            continue;
        }
        if let Some(payload) = text.strip_prefix(b"data:") {
            let payload = payload.strip_prefix(b" ").unwrap_or(payload);
            if has_data {
                // Several `data:` lines of one event join with a newline (the SSE rule).
                data.push(b'\n');
            }
            data.extend_from_slice(payload);
            has_data = true;
        }
        if let Some(id) = text.strip_prefix(b"id:") {
            let id = id.strip_prefix(b" ").unwrap_or(id);
            *last_id = Some(String::from_utf8_lossy(id).into_owned());
        }
        // `event:`, `retry:` and `:` comments carry nothing the stream needs.
    }
}

/// Record an event's data, then pass it on: in that order, so that an event a reader has seen is
/// always in the recording, even when an interrupt ends the recording right after it was passed.
fn emit(data: &mut Vec<u8>, tap: &Tap, out: &mut dyn Write) {
    data.push(b'\n');
    tap.record(Direction::Agent, data);
    let _ = out.write_all(data);
    data.clear();
}

fn event_type(payload: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Typed {
        #[serde(rename = "type")]
        ty: String,
    }
    serde_json::from_slice::<Typed>(payload).ok().map(|t| t.ty)
}
