//! Reading a fixture frame by frame. A fixture cut short (a killed recorder, a truncated copy) or
//! with a corrupt tail yields every complete line before the damage and a note saying where it
//! stopped; it is never an error on its own.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde::Deserialize;

use super::format::{FORMAT_VERSION, Header, Trailer, TrailerRecord};
use crate::stream::Direction;

/// The zstd frame magic number, little endian.
pub const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

#[derive(Debug, thiserror::Error)]
#[error("{}: {kind}", path.display())]
pub struct FixtureError {
    pub path: PathBuf,
    /// Said in the message, so not also a `source` (an error chain would say it twice).
    pub kind: FixtureErrorKind,
}

#[derive(Debug, thiserror::Error)]
pub enum FixtureErrorKind {
    #[error("failed to read the file")]
    Io(#[from] std::io::Error),
    /// The file does not start with a zstd frame; what it holds instead (see [`not_zstd`]).
    #[error("not a zstd fixture: {0}")]
    NotZstd(String),
    #[error("the fixture has no complete header line")]
    NoHeader,
    #[error("the first line is not a fixture header: {0}")]
    BadHeader(String),
    #[error("fixture format {found} is newer than this toolnorm reads (up to {FORMAT_VERSION})")]
    TooNew { found: u32 },
}

/// The error for a file named like a fixture that holds no zstd frame, saying what it holds
/// instead, from its first bytes.
pub fn not_zstd(start: &[u8]) -> FixtureErrorKind {
    let head = &start[..start.len().min(16)];
    // Text cut at 16 bytes may end inside a character: up to 3 bytes of it are forgiven.
    let valid = match std::str::from_utf8(head) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or(""),
    };
    let text_like = valid.len() + 3 >= head.len()
        && !valid.chars().any(|c| c.is_control() && !c.is_whitespace());
    let what = if start.is_empty() {
        "the file is empty".to_owned()
    } else if text_like {
        let text = valid.lines().next().unwrap_or("");
        format!(
            "the file holds plain text (it starts with `{}`); a raw stream is read from a `.jsonl` file",
            text.trim_end()
        )
    } else {
        let hex: Vec<String> = head.iter().take(4).map(|b| format!("{b:02x}")).collect();
        format!(
            "no zstd frame at the start (the file starts with bytes {}, not 28 b5 2f fd)",
            hex.join(" ")
        )
    };
    FixtureErrorKind::NotZstd(what)
}

/// One received line as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub t: u64,
    pub dir: Direction,
    /// The raw bytes, without the `\n` terminator.
    pub bytes: Vec<u8>,
    pub terminated: bool,
}

/// A fixture read back.
#[derive(Debug)]
pub struct Fixture {
    pub header: Header,
    pub lines: Vec<Line>,
    pub trailer: Option<Trailer>,
    /// Why the fixture ends early, if it does: "fixture was cut short after line N" (N counts the
    /// line records read), plus records that could not be read.
    pub notes: Vec<String>,
}

impl Fixture {
    /// True when the recording ended normally (a trailer is present).
    pub fn is_complete(&self) -> bool {
        self.trailer.is_some()
    }

    /// The dialect named by the header, else the one detected at the end of the recording.
    pub fn dialect(&self) -> Option<&str> {
        self.header
            .dialect
            .as_deref()
            .or(self.trailer.as_ref().and_then(|t| t.dialect.as_deref()))
    }
}

/// A received line as the reader hands it on: its bytes are borrowed from the reader's buffer,
/// which the next line reuses (no allocation per line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineRef<'a> {
    pub t: u64,
    pub dir: Direction,
    /// The raw bytes, without the `\n` terminator.
    pub bytes: &'a [u8],
    pub terminated: bool,
    /// The bytes are known to be UTF-8: they came from the record's `l` string, which the
    /// decoding checked (a `b` line is not known to be).
    pub utf8: bool,
}

impl LineRef<'_> {
    pub fn to_line(&self) -> Line {
        Line {
            t: self.t,
            dir: self.dir,
            bytes: self.bytes.to_vec(),
            terminated: self.terminated,
        }
    }
}

/// One record of the JSONL content, in order.
#[derive(Debug)]
pub enum Record<'a> {
    Header(Box<Header>),
    Line(LineRef<'a>),
    Trailer(Trailer),
    /// A record that could not be read; the reader goes on with the next one.
    Bad {
        record: u64,
        message: String,
    },
}

/// Read a fixture file into memory.
pub fn read_fixture(path: &Path) -> Result<Fixture, FixtureError> {
    let err = |kind| FixtureError {
        path: path.to_owned(),
        kind,
    };
    let bytes = fs::read(path).map_err(|e| err(FixtureErrorKind::Io(e)))?;
    read_fixture_bytes(&bytes).map_err(err)
}

/// Read a fixture held in memory.
pub fn read_fixture_bytes(bytes: &[u8]) -> Result<Fixture, FixtureErrorKind> {
    let mut lines = Vec::new();
    let (header, trailer, notes) = read_fixture_with(bytes, |l| lines.push(l.to_line()))?;
    Ok(Fixture {
        header,
        lines,
        trailer,
        notes,
    })
}

/// Notes about unreadable records kept with their record number; the rest are counted.
const BAD_RECORD_NOTES: usize = 10;

/// Read a fixture held in memory, handing each line to `on_line` as soon as it is decoded (nothing
/// but the current frame's undecoded rest is held): its header, trailer and notes (at most
/// `BAD_RECORD_NOTES` about bad records, then one count, then where it was cut short).
pub fn read_fixture_with(
    bytes: &[u8],
    mut on_line: impl FnMut(LineRef<'_>),
) -> Result<(Header, Option<Trailer>, Vec<String>), FixtureErrorKind> {
    read_fixture_lines(bytes, None, |l, _| {
        on_line(l);
        false
    })
}

/// [`read_fixture_with`], every line decoded straight onto the end of `out` (where it starts is
/// handed on with it): a line `keep` says yes to stays there, followed by `\n` when it had one;
/// any other is taken off again. What a loaded stream holds is so decoded once and never copied.
pub(crate) fn read_fixture_into(
    bytes: &[u8],
    out: &mut Vec<u8>,
    keep: impl FnMut(LineRef<'_>, usize) -> bool,
) -> Result<(Header, Option<Trailer>, Vec<String>), FixtureErrorKind> {
    read_fixture_lines(bytes, Some(out), keep)
}

fn read_fixture_lines(
    bytes: &[u8],
    out: Option<&mut Vec<u8>>,
    mut on_line: impl FnMut(LineRef<'_>, usize) -> bool,
) -> Result<(Header, Option<Trailer>, Vec<String>), FixtureErrorKind> {
    let mut header = None;
    let mut trailer = None;
    let mut notes = Vec::new();
    let mut lines = 0u64;
    let mut bad = 0u64;
    let end = records_into(bytes, out, |rec, start| match rec {
        Record::Header(h) => {
            header = Some(*h);
            false
        }
        Record::Line(l) => {
            lines += 1;
            on_line(l, start)
        }
        Record::Trailer(t) => {
            trailer = Some(t);
            false
        }
        Record::Bad { record, message } => {
            bad += 1;
            if bad as usize <= BAD_RECORD_NOTES {
                notes.push(format!("fixture record {record}: {message}"))
            }
            false
        }
    })?;
    let header = header.ok_or(FixtureErrorKind::NoHeader)?;
    if bad as usize > BAD_RECORD_NOTES {
        notes.push(format!(
            "… and {} more fixture records that could not be read",
            bad - BAD_RECORD_NOTES as u64
        ));
    }
    if let Some(why) = end.damage {
        notes.push(format!("fixture was cut short after line {lines} ({why})"));
    } else if trailer.is_none() {
        notes.push(format!(
            "fixture was cut short after line {lines} (no trailer: the recording did not finish)"
        ));
    }
    Ok((header, trailer, notes))
}

/// How the content ended.
#[derive(Debug, Default)]
pub struct End {
    /// Set when the compressed data or the JSONL stopped in the middle of something.
    pub damage: Option<String>,
}

/// Decode `bytes` frame by frame and hand every record to `f` as soon as its line is complete, so
/// a large fixture can be streamed (`toolnorm cat`). Errors only when there is no header at all.
pub fn for_each_record(
    bytes: &[u8],
    mut f: impl FnMut(Record<'_>),
) -> Result<End, FixtureErrorKind> {
    records_into(bytes, None, |r, _| {
        f(r);
        false
    })
}

/// [`for_each_record`], with the lines decoded onto the end of `out` when it is given (see
/// [`read_fixture_into`]): `f` says which stay there.
fn records_into(
    bytes: &[u8],
    out: Option<&mut Vec<u8>>,
    mut f: impl FnMut(Record<'_>, usize) -> bool,
) -> Result<End, FixtureErrorKind> {
    if !bytes.starts_with(&ZSTD_MAGIC) {
        return Err(not_zstd(bytes));
    }
    let append = out.is_some();
    let mut lines = Vec::new();
    let out = out.unwrap_or(&mut lines);
    // The decoded data go to this thread's spare window, kept from one fixture to the next.
    super::spare::with_chunk(|window| {
        let mut parser = Parser {
            window: std::mem::take(window),
            start: 0,
            filled: 0,
            searched: 0,
            line: std::mem::take(out),
            append,
            record: 0,
            header_seen: false,
            header_error: None,
        };
        let end = parser.frames(bytes, &mut f);
        *window = parser.window;
        *out = parser.line;
        end
    })
}

thread_local! {
    /// The decompression context of this thread, kept from one frame to the next: making one
    /// costs an allocation of its tables and a CPU feature probe (slow in a virtual machine),
    /// once per frame of every fixture otherwise.
    static CONTEXT: std::cell::Cell<Option<zstd::zstd_safe::DCtx<'static>>> =
        const { std::cell::Cell::new(None) };
}

/// Run `f` on a decoder of the one zstd frame at the start of `frame`, on this thread's context
/// (taken out while in use, its session reset first; a nested use makes a context of its own).
fn with_decoder<T>(frame: &[u8], f: impl FnOnce(&mut dyn Read) -> T) -> T {
    let mut ctx = CONTEXT
        .try_with(std::cell::Cell::take)
        .ok()
        .flatten()
        .unwrap_or_else(zstd::zstd_safe::DCtx::create);
    let out = f(&mut zstd::stream::read::Decoder::with_context(frame, &mut ctx).single_frame());
    let _ = CONTEXT.try_with(|cell| cell.set(Some(ctx)));
    out
}

/// Decoded data are read this much at a time.
const CHUNK: usize = 1 << 16;

/// Decode `d` a chunk at a time into the parser, so a frame that decompresses to far more than
/// its size is never held whole. The outer error is the parser's (a bad header), the inner one
/// the decoder's.
fn feed_decoded(
    d: &mut dyn Read,
    parser: &mut Parser,
    f: &mut impl FnMut(Record<'_>, usize) -> bool,
) -> Result<Result<(), std::io::Error>, FixtureErrorKind> {
    loop {
        match d.read(parser.room()) {
            Ok(0) => return Ok(Ok(())),
            Ok(n) => parser.feed(n, f)?,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Ok(Err(e)),
        }
    }
}

struct Parser {
    /// The decoded data: `window[start..filled]` is what has not been handed on yet (an
    /// incomplete line, carried on to the next read and the next frame), and the room after it
    /// is where the decoder writes next. Records are read where they were decoded (a line that
    /// spans reads is never copied to a buffer of its own); the window is zeroed only where it
    /// grows, never cleared.
    window: Vec<u8>,
    start: usize,
    filled: usize,
    /// Where the search for the next newline goes on: `window[start..searched]` holds none.
    searched: usize,
    /// The current line's decoded bytes, reused from line to line; with `append`, the lines
    /// kept so far, the current one decoded after them.
    line: Vec<u8>,
    append: bool,
    record: u64,
    header_seen: bool,
    header_error: Option<FixtureErrorKind>,
}

impl Parser {
    /// Every frame of `bytes` decoded into records for `f`; how the content ended.
    fn frames(
        &mut self,
        bytes: &[u8],
        f: &mut impl FnMut(Record<'_>, usize) -> bool,
    ) -> Result<End, FixtureErrorKind> {
        let mut rest = bytes;
        let mut damage = None;
        while !rest.is_empty() {
            match zstd::zstd_safe::find_frame_compressed_size(rest) {
                Ok(n) if n <= rest.len() => {
                    let frame = &rest[..n];
                    rest = &rest[n..];
                    if let Err(e) = with_decoder(frame, |d| feed_decoded(d, self, f))? {
                        damage = Some(format!("corrupt zstd frame: {e}"));
                    }
                    if damage.is_some() {
                        break;
                    }
                }
                _ => {
                    // A frame cut short: decode the blocks that made it to disk.
                    let _ = with_decoder(rest, |d| feed_decoded(d, self, f))?;
                    damage = Some("the last zstd frame is incomplete".to_owned());
                    break;
                }
            }
        }
        if let Some(e) = self.header_error.take() {
            return Err(e);
        }
        if !self.header_seen {
            return Err(FixtureErrorKind::NoHeader);
        }
        if self.start < self.filled && damage.is_none() {
            damage = Some("the last record has no newline".to_owned());
        }
        Ok(End { damage })
    }

    /// Room for the next read, after what is held: what is held moved to the front first when
    /// the room is short, and the window grown when that is not enough either.
    fn room(&mut self) -> &mut [u8] {
        if self.filled + CHUNK > self.window.len() {
            self.window.copy_within(self.start..self.filled, 0);
            self.filled -= self.start;
            self.searched -= self.start;
            self.start = 0;
            if self.filled + CHUNK > self.window.len() {
                let len = (self.filled + CHUNK).max(2 * self.window.len());
                self.window.resize(len, 0);
            }
        }
        &mut self.window[self.filled..self.filled + CHUNK]
    }

    /// `n` bytes were read into the room: hand on every record they complete.
    fn feed(
        &mut self,
        n: usize,
        f: &mut impl FnMut(Record<'_>, usize) -> bool,
    ) -> Result<(), FixtureErrorKind> {
        self.filled += n;
        let window = std::mem::take(&mut self.window);
        let fed = self.records(&window, f);
        self.window = window;
        fed
    }

    fn records(
        &mut self,
        window: &[u8],
        f: &mut impl FnMut(Record<'_>, usize) -> bool,
    ) -> Result<(), FixtureErrorKind> {
        while let Some(i) = memchr::memchr(b'\n', &window[self.searched..self.filled]) {
            let end = self.searched + i;
            self.record(&window[self.start..end], f);
            self.start = end + 1;
            self.searched = self.start;
            if let Some(e) = self.header_error.take() {
                return Err(e);
            }
        }
        self.searched = self.filled;
        Ok(())
    }

    fn record(&mut self, line: &[u8], f: &mut impl FnMut(Record<'_>, usize) -> bool) {
        self.record += 1;
        if !self.header_seen {
            self.header_seen = true;
            match serde_json::from_slice::<Header>(line) {
                Ok(h) if h.format > FORMAT_VERSION => {
                    self.header_error = Some(FixtureErrorKind::TooNew { found: h.format });
                }
                Ok(h) => {
                    f(Record::Header(Box::new(h)), 0);
                }
                Err(e) => self.header_error = Some(FixtureErrorKind::BadHeader(e.to_string())),
            }
            return;
        }
        let base = if self.append { self.line.len() } else { 0 };
        self.line.truncate(base);
        let (keep, terminated) = match parse_record(line, &mut self.line) {
            Ok(r) => {
                let terminated = matches!(
                    r,
                    Record::Line(LineRef {
                        terminated: true,
                        ..
                    })
                );
                (f(r, base), terminated)
            }
            Err(message) => {
                let r = Record::Bad {
                    record: self.record,
                    message,
                };
                (f(r, base), false)
            }
        };
        if !self.append {
            return;
        }
        if keep {
            if terminated {
                self.line.push(b'\n');
            }
        } else {
            self.line.truncate(base);
        }
    }
}

#[derive(Deserialize)]
struct RawRecord {
    t: u64,
    d: Direction,
    #[serde(default)]
    l: Option<String>,
    #[serde(default)]
    b: Option<String>,
    #[serde(default)]
    n: bool,
}

/// One record; a line's bytes are decoded onto the end of `buf` and borrowed from there.
fn parse_record<'b>(line: &[u8], buf: &'b mut Vec<u8>) -> Result<Record<'b>, String> {
    let base = buf.len();
    if line.starts_with(b"{\"trailer\"") {
        return serde_json::from_slice::<TrailerRecord>(line)
            .map(|r| Record::Trailer(r.trailer))
            .map_err(|e| format!("bad trailer: {e}"));
    }
    if let Some((t, dir, terminated)) = super::fast_record::line_record(line, buf) {
        return Ok(Record::Line(LineRef {
            t,
            dir,
            bytes: &buf[base..],
            terminated,
            utf8: true,
        }));
    }
    let raw: RawRecord =
        serde_json::from_slice(line).map_err(|e| format!("bad line record: {e}"))?;
    let utf8 = raw.l.is_some();
    match (raw.l, raw.b) {
        (Some(l), None) => buf.extend_from_slice(l.as_bytes()),
        (None, Some(b)) => base64::engine::general_purpose::STANDARD
            .decode_vec(b, buf)
            .map_err(|e| format!("bad base64 in line record: {e}"))?,
        _ => return Err("a line record holds exactly one of `l` and `b`".to_owned()),
    };
    Ok(Record::Line(LineRef {
        t: raw.t,
        dir: raw.d,
        bytes: &buf[base..],
        terminated: !raw.n,
        utf8,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::format::new_header;
    use crate::corpus::writer::FixtureWriter;

    fn sample() -> Vec<u8> {
        let mut w = FixtureWriter::new(Vec::new(), &new_header("claude", "t")).unwrap();
        w.push_line(0, Direction::Agent, b"{\"a\":1}\r", true)
            .unwrap();
        w.end_frame().unwrap();
        w.push_line(5, Direction::Client, b"\xff\xfe", true)
            .unwrap();
        w.flush().unwrap();
        w.push_line(9, Direction::Agent, b"tail", false).unwrap();
        w.finish(Trailer::default()).unwrap()
    }

    #[test]
    fn round_trips_every_kind_of_line() {
        let fx = read_fixture_bytes(&sample()).unwrap();
        assert!(fx.notes.is_empty(), "{:?}", fx.notes);
        assert_eq!(fx.lines.len(), 3);
        assert_eq!(fx.lines[0].bytes, b"{\"a\":1}\r");
        assert_eq!(fx.lines[1].bytes, b"\xff\xfe");
        assert_eq!(fx.lines[1].dir, Direction::Client);
        assert!(!fx.lines[2].terminated);
        assert_eq!(fx.trailer.unwrap().lines, 3);
    }

    /// Lines longer than a read of the decoder (one spans several, and the window grows),
    /// between short ones and across frames and flushes, come back whole; a fixture read next on
    /// the same thread (the window kept, their bytes still in it) holds only its own lines.
    #[test]
    fn lines_longer_than_a_read_come_back_whole() {
        let mut w = FixtureWriter::new(Vec::new(), &new_header("claude", "t")).unwrap();
        let mut want = Vec::new();
        for (k, n) in [CHUNK - 1, CHUNK, CHUNK + 1, 5 * CHUNK + 7]
            .into_iter()
            .enumerate()
        {
            let long: Vec<u8> = (0..n).map(|i| b'a' + ((i * 7 + k) % 26) as u8).collect();
            w.push_line(k as u64, Direction::Agent, &long, true)
                .unwrap();
            w.push_line(k as u64, Direction::Agent, b"short", true)
                .unwrap();
            want.push(long);
            want.push(b"short".to_vec());
            if k % 2 == 0 {
                w.end_frame().unwrap();
            } else {
                w.flush().unwrap();
            }
        }
        let fx = read_fixture_bytes(&w.finish(Trailer::default()).unwrap()).unwrap();
        assert!(fx.notes.is_empty(), "{:?}", fx.notes);
        let got: Vec<Vec<u8>> = fx.lines.into_iter().map(|l| l.bytes).collect();
        assert!(got == want, "lines differ");
        let next = read_fixture_bytes(&sample()).unwrap();
        assert_eq!(next.lines.len(), 3);
        assert_eq!(next.lines[0].bytes, b"{\"a\":1}\r");
        assert_eq!(next.lines[2].bytes, b"tail");
    }

    #[test]
    fn every_truncation_keeps_the_complete_lines() {
        let full = sample();
        for cut in 1..full.len() {
            match read_fixture_bytes(&full[..cut]) {
                Ok(fx) => {
                    assert!(fx.lines.len() <= 3);
                    assert!(fx.trailer.is_none());
                    assert!(
                        fx.notes.iter().any(|n| n.contains("cut short")),
                        "{cut}: {:?}",
                        fx.notes
                    );
                }
                Err(FixtureErrorKind::NoHeader | FixtureErrorKind::NotZstd(_)) => {}
                Err(e) => panic!("cut at {cut}: {e}"),
            }
        }
    }

    #[test]
    fn a_frame_cut_after_a_flush_keeps_the_flushed_lines() {
        let mut w = FixtureWriter::new(Vec::new(), &new_header("claude", "t")).unwrap();
        w.push_line(0, Direction::Agent, b"one", true).unwrap();
        w.flush().unwrap();
        let flushed = w.enc.as_ref().unwrap().get_ref().len();
        w.push_line(1, Direction::Agent, b"two", true).unwrap();
        let bytes = w.finish(Trailer::default()).unwrap();
        let fx = read_fixture_bytes(&bytes[..flushed]).unwrap();
        assert_eq!(fx.lines.len(), 1);
        assert_eq!(fx.lines[0].bytes, b"one");
        assert!(
            fx.notes[0].contains("cut short after line 1"),
            "{:?}",
            fx.notes
        );
    }

    #[test]
    fn not_zstd_says_what_the_file_is() {
        let say = |b: &[u8]| not_zstd(b).to_string();
        assert_eq!(say(b""), "not a zstd fixture: the file is empty");
        assert!(
            say(b"{\"type\":\"x\"}\n").contains("plain text (it starts with `{\"type\":\"x\"}`)"),
            "{}",
            say(b"{\"type\":\"x\"}\n")
        );
        assert!(say(b"\x1f\x8b\x08\0").contains("bytes 1f 8b 08 00"));
    }

    #[test]
    fn bad_records_are_noted_ten_times_then_counted() {
        let mut w = FixtureWriter::new(Vec::new(), &new_header("claude", "t")).unwrap();
        w.push_line(0, Direction::Agent, b"one", true).unwrap();
        let mut bytes = w.finish(Trailer::default()).unwrap();
        let junk: Vec<u8> = b"not a record\n".repeat(1000);
        bytes.extend(zstd::encode_all(junk.as_slice(), 3).unwrap());
        let fx = read_fixture_bytes(&bytes).unwrap();
        assert_eq!(fx.notes.len(), 11, "{:?}", fx.notes);
        assert_eq!(
            fx.notes[10],
            "… and 990 more fixture records that could not be read"
        );
    }

    #[test]
    fn garbage_is_not_a_fixture() {
        assert!(matches!(
            read_fixture_bytes(b"{\"a\":1}\n"),
            Err(FixtureErrorKind::NotZstd(_))
        ));
    }
}
