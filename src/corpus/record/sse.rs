//! SSE mode: subscribe to an OpenCode server's `/event` stream and record the `data:` payload of
//! every event as one line (the prefix and the blank separator lines are not part of the stream),
//! passing the payloads to stdout too.

use std::io::{BufRead, BufReader, Write};
use std::time::Duration;

use anyhow::Context;

use super::Tap;
use super::pipe::RawStdout;
use crate::stream::Direction;

/// Why the subscription ended.
#[derive(Debug, PartialEq, Eq)]
pub enum SseEnd {
    /// The server closed the stream.
    Closed,
    /// An event of the `--until` type arrived.
    Until,
}

/// Subscribe. Done before the recording starts, so a wrong URL leaves no fixture behind.
pub fn connect(url: &str) -> anyhow::Result<ureq::Response> {
    subscribe(url, None)
}

fn subscribe(url: &str, last_event_id: Option<&str>) -> anyhow::Result<ureq::Response> {
    let mut req = ureq::get(url).set("Accept", "text/event-stream");
    if let Some(id) = last_event_id {
        req = req.set("Last-Event-ID", id);
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
/// attempts run out.
pub fn follow(
    first: ureq::Response,
    url: &str,
    until: Option<&str>,
    reconnect: u32,
    tap: &Tap,
) -> anyhow::Result<SseEnd> {
    let mut resp = first;
    let mut last_id = None;
    loop {
        let end = run(resp, url, until, tap, &mut last_id);
        if matches!(end, Ok(SseEnd::Until)) {
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

/// Read events until the stream ends or an event whose `type` is `until` arrives; `last_id`
/// follows the server's `id:` fields.
fn run(
    resp: ureq::Response,
    url: &str,
    until: Option<&str>,
    tap: &Tap,
    last_id: &mut Option<String>,
) -> anyhow::Result<SseEnd> {
    let mut reader = BufReader::new(resp.into_reader());
    let mut out = RawStdout::new();
    let mut data: Vec<u8> = Vec::new();
    let mut has_data = false;
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = reader
            .read_until(b'\n', &mut line)
            .with_context(|| format!("failed to read {url}"))?;
        if n == 0 {
            if has_data {
                emit(&mut data, tap, &mut out);
            }
            return Ok(SseEnd::Closed);
        }
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        if text.is_empty() {
            if has_data {
                let hit = until.is_some_and(|u| event_type(&data).as_deref() == Some(u));
                emit(&mut data, tap, &mut out);
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

fn emit(data: &mut Vec<u8>, tap: &Tap, out: &mut RawStdout) {
    data.push(b'\n');
    let _ = out.write_all(data);
    tap.record(Direction::Agent, data);
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
