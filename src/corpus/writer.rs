//! Writing a fixture: header, line records and trailer as JSONL, zstd-compressed so that a writer
//! killed at any moment leaves everything it flushed readable.
//!
//! Crash safety without losing the compression context: the stream is flushed (a zstd block
//! boundary, always after a whole record: all records so far decodable from what is on disk)
//! every [`FLUSH_BYTES`], [`FLUSH_LINES`] or [`FLUSH_INTERVAL`], and the frame is closed every
//! [`FRAME_BYTES`], so a damaged frame never costs more than that. The reader decodes frame by
//! frame and salvages the flushed blocks of a frame that was cut short. (The `zstd` 1.5 command
//! line tool, given a frame cut short, drops what it decoded but had not yet written out — up to
//! its 128 KiB output buffer — so it may stop inside a record; the library's decoder does not.)

use std::io::{self, Write};
use std::time::{Duration, Instant};

use base64::Engine as _;

use super::format::{Header, Trailer, TrailerRecord};
use crate::stream::Direction;
use crate::stream::json_escape::escape_json_string;

/// Flush (make decodable on disk) once this much JSONL is pending…
pub const FLUSH_BYTES: usize = 64 * 1024;
/// …or this many lines…
pub const FLUSH_LINES: u64 = 256;
/// …or once the oldest pending line has waited this long.
pub const FLUSH_INTERVAL: Duration = Duration::from_millis(250);
/// Close the zstd frame after this much JSONL and start a new one.
pub const FRAME_BYTES: usize = 4 << 20;
/// zstd window of live recordings: 4 MiB, the size of a frame ([`FRAME_BYTES`]).
pub const WINDOW_LOG: u32 = 22;
/// zstd level of live recordings: zstd's fastest strategy. With [`HASH_LOG`] and the frame-long
/// window it compresses corpus streams about as well as `zstd -3` (the command's default) does
/// the raw stream (within a few percent either way), for about a tenth less of zstd's CPU, which
/// is most of what the recorder costs. Level 3 here gave 5% smaller fixtures.
pub const LEVEL: i32 = 1;
/// zstd hash table of live recordings: 2^17 entries, level 3's (level 1's own 2^13 misses most
/// repeats of a JSON stream's keys and ids, a third more output).
pub const HASH_LOG: u32 = 17;
/// zstd level of imports and other one-off writes: small files, written once, read many times.
pub const IMPORT_LEVEL: i32 = 19;

/// Writes one fixture. Call [`tick`] regularly (the recorder does so after every chunk it reads,
/// and every 20 ms when none comes) so that a slow stream still reaches the disk within
/// [`FLUSH_INTERVAL`]; a line does not look at the clock itself.
///
/// [`tick`]: FixtureWriter::tick
pub struct FixtureWriter<W: Write> {
    pub(crate) enc: Option<zstd::stream::write::Encoder<'static, FlushGate<W>>>,
    /// The last record's `\n`, not yet given to the encoder (see [`flush`](Self::flush)).
    held_newline: bool,
    level: i32,
    /// The bytes a frame is expected to hold (see [`with_size`](Self::with_size)); 0 when unknown.
    size_hint: u32,
    /// The record being written (a `\n` slot first), or its head when its line is in `text`.
    record: Vec<u8>,
    /// A line escaped as a JSON string, at its start; the buffer only grows, so no line pays for
    /// clearing it (see [`escape_json_string`]).
    text: Vec<u8>,
    frame_bytes: usize,
    unflushed: usize,
    pending_since: Option<Instant>,
    lines: u64,
    /// `lines` at the last flush: the line records decodable from the output.
    flushed_lines: u64,
}

impl<W: Write> FixtureWriter<W> {
    /// Start a fixture: the header is flushed at once, so even a recorder killed before the first
    /// line leaves a readable (empty, cut-short) fixture.
    pub fn new(out: W, header: &Header) -> io::Result<Self> {
        Self::with_level(out, header, LEVEL)
    }

    /// [`new`](Self::new) with another zstd level.
    pub fn with_level(out: W, header: &Header, level: i32) -> io::Result<Self> {
        Self::with_size(out, header, level, 0)
    }

    /// [`with_level`](Self::with_level) for about `bytes` of records, known before the first
    /// (a one-off write of a whole stream). zstd sizes its window and tables to that, as for a
    /// source of known size: at [`IMPORT_LEVEL`] a small fixture's encoder takes a few hundred
    /// kilobytes instead of about 90 MB, all of it touched, for the same format.
    pub fn with_size(out: W, header: &Header, level: i32, bytes: u64) -> io::Result<Self> {
        let size_hint = u32::try_from(bytes.min(FRAME_BYTES as u64)).unwrap_or(0);
        let mut w = FixtureWriter {
            enc: Some(encoder(
                FlushGate {
                    inner: out,
                    pass: false,
                },
                level,
                size_hint,
            )?),
            held_newline: false,
            level,
            size_hint,
            record: Vec::with_capacity(4096),
            text: Vec::new(),
            frame_bytes: 0,
            unflushed: 0,
            pending_since: None,
            lines: 0,
            flushed_lines: 0,
        };
        w.record.push(b'\n');
        serde_json::to_writer(&mut w.record, header).map_err(io::Error::other)?;
        w.record.push(b'\n');
        w.emit()?;
        w.flush()?;
        Ok(w)
    }

    /// Append one received line (without its `\n`; a `\r` before it stays in `bytes`).
    pub fn push_line(
        &mut self,
        t_ms: u64,
        dir: Direction,
        bytes: &[u8],
        terminated: bool,
    ) -> io::Result<()> {
        let d = match dir {
            Direction::Agent => "a",
            Direction::Client => "c",
            Direction::Stderr => "e",
        };
        self.record.clear();
        let buf = &mut self.record;
        buf.push(b'\n');
        buf.extend_from_slice(b"{\"t\":");
        push_decimal(buf, t_ms);
        buf.extend_from_slice(b",\"d\":\"");
        buf.extend_from_slice(d.as_bytes());
        buf.extend_from_slice(b"\",");
        let mark = buf.len();
        buf.extend_from_slice(b"\"l\":");
        // Escaped first, checked after: most lines are ASCII, which the escape tells.
        let (mut text_len, ascii) = escape_json_string(&mut self.text, bytes);
        if !ascii && std::str::from_utf8(bytes).is_err() {
            text_len = 0;
            buf.truncate(mark);
            buf.extend_from_slice(b"\"b\":\"");
            buf.extend_from_slice(
                base64::engine::general_purpose::STANDARD
                    .encode(bytes)
                    .as_bytes(),
            );
            buf.push(b'"');
        }
        let tail: &[u8] = if terminated {
            b"}\n"
        } else {
            b",\"n\":true}\n"
        };
        self.lines += 1;
        self.emit_parts(text_len, tail)?;
        if self.pending_since.is_none() {
            self.pending_since = Some(Instant::now());
        }
        if self.frame_bytes >= FRAME_BYTES {
            self.end_frame()?;
        } else if self.unflushed >= FLUSH_BYTES || self.lines - self.flushed_lines >= FLUSH_LINES {
            self.flush()?;
        }
        Ok(())
    }

    /// Flush if the oldest unflushed line has waited [`FLUSH_INTERVAL`].
    pub fn tick(&mut self) -> io::Result<()> {
        if self
            .pending_since
            .is_some_and(|s| s.elapsed() >= FLUSH_INTERVAL)
        {
            self.flush()?;
        }
        Ok(())
    }

    /// Make everything written so far decodable from the output.
    ///
    /// The last record's `\n` goes in a zstd block of its own, and both blocks reach the output in
    /// one write: a decoder then stops on a whole record even if it drops the data of the last
    /// whole block it decoded, as the `zstd` command line tool does at a frame cut short.
    pub fn flush(&mut self) -> io::Result<()> {
        if let Some(enc) = &mut self.enc {
            if std::mem::take(&mut self.held_newline) {
                enc.flush()?;
                enc.write_all(b"\n")?;
            }
            enc.get_mut().pass = true;
            let flushed = enc.flush();
            enc.get_mut().pass = false;
            flushed?;
        }
        self.unflushed = 0;
        self.pending_since = None;
        self.flushed_lines = self.lines;
        Ok(())
    }

    /// Close the current frame and open the next one.
    pub fn end_frame(&mut self) -> io::Result<()> {
        self.release_newline()?;
        if let Some(enc) = self.enc.take() {
            let mut out = enc.finish()?;
            out.inner.flush()?;
            self.enc = Some(encoder(out, self.level, self.size_hint)?);
        }
        self.frame_bytes = 0;
        self.unflushed = 0;
        self.pending_since = None;
        self.flushed_lines = self.lines;
        Ok(())
    }

    /// Line records written so far.
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// Line records decodable from the output (written before the last flush).
    pub fn flushed_lines(&self) -> u64 {
        self.flushed_lines
    }

    /// Write the trailer (its `lines` is filled in here), close the frame, return the output.
    pub fn finish(mut self, mut trailer: Trailer) -> io::Result<W> {
        trailer.lines = self.lines;
        self.record.clear();
        self.record.push(b'\n');
        serde_json::to_writer(&mut self.record, &TrailerRecord { trailer })
            .map_err(io::Error::other)?;
        self.record.push(b'\n');
        self.emit()?;
        self.release_newline()?;
        let enc = self
            .enc
            .take()
            .ok_or_else(|| io::Error::other("the fixture writer already failed"))?;
        let mut out = enc.finish()?.inner;
        out.flush()?;
        Ok(out)
    }

    /// Write the record in `self.record` (a `\n` slot first, then one whole record, `\n` last),
    /// holding its `\n` back. The previous record's held `\n` goes in the slot.
    fn emit(&mut self) -> io::Result<()> {
        self.emit_parts(0, b"")
    }

    /// [`emit`](Self::emit) of a record in three parts: `self.record`, the first `text` bytes of
    /// `self.text`, then `tail` (which ends with the `\n` held back); with no `tail`, the record
    /// is whole in `self.record`.
    fn emit_parts(&mut self, text: usize, tail: &[u8]) -> io::Result<()> {
        let enc = self
            .enc
            .as_mut()
            .ok_or_else(|| io::Error::other("the fixture writer already failed"))?;
        let from = usize::from(!std::mem::take(&mut self.held_newline));
        let record_len = self.record.len() + text + tail.len() - 1;
        if tail.is_empty() {
            enc.write_all(&self.record[from..self.record.len() - 1])?;
        } else {
            enc.write_all(&self.record[from..])?;
            enc.write_all(&self.text[..text])?;
            enc.write_all(&tail[..tail.len() - 1])?;
        }
        self.held_newline = true;
        self.frame_bytes += record_len;
        self.unflushed += record_len;
        Ok(())
    }

    fn release_newline(&mut self) -> io::Result<()> {
        if std::mem::take(&mut self.held_newline) {
            let enc = self
                .enc
                .as_mut()
                .ok_or_else(|| io::Error::other("the fixture writer already failed"))?;
            enc.write_all(b"\n")?;
        }
        Ok(())
    }
}

/// A zstd encoder at `level`. Live recordings ([`LEVEL`]) get a window as long as a frame
/// ([`WINDOW_LOG`]): every match may reach back to the frame's start, and zstd's input buffer
/// never wraps inside a frame, which spares it the slower search across a wrapped buffer; and a
/// hash table of [`HASH_LOG`]. The decoder keeps 4 MiB of window (imports, at level 19, already
/// use 8 MiB). A `size_hint` other than 0 has zstd choose the level's parameters for a source of
/// that size.
fn encoder<W: Write>(
    out: W,
    level: i32,
    size_hint: u32,
) -> io::Result<zstd::stream::write::Encoder<'static, W>> {
    let mut enc = zstd::stream::write::Encoder::new(out, level)?;
    if level <= LEVEL {
        enc.window_log(WINDOW_LOG)?;
        enc.set_parameter(zstd::zstd_safe::CParameter::HashLog(HASH_LOG))?;
    }
    if size_hint > 0 {
        enc.set_parameter(zstd::zstd_safe::CParameter::SrcSizeHint(size_hint))?;
    }
    Ok(enc)
}

/// `n` in decimal.
fn push_decimal(buf: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    buf.extend_from_slice(&digits[i..]);
}

/// The encoder's output, whose `flush` goes through only when the writer means it: the encoder
/// flushes its output after every block it is told to end, and a flush of two blocks must reach
/// the output in one write.
pub struct FlushGate<W> {
    inner: W,
    pass: bool,
}

impl<W: Write> Write for FlushGate<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.pass {
            self.inner.flush()
        } else {
            Ok(())
        }
    }
}

impl<W> std::ops::Deref for FlushGate<W> {
    type Target = W;

    fn deref(&self) -> &W {
        &self.inner
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;
    use crate::corpus::format::new_header;

    /// A fixture of 3,000 lines of varied length, and the output's length after each flush.
    fn fixture() -> (Vec<u8>, Vec<usize>) {
        let mut w = FixtureWriter::new(Vec::new(), &new_header("claude", "cut")).unwrap();
        let mut seed: u64 = 7;
        let mut flushed = Vec::new();
        for i in 0..3000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let pad = "abcdefgh".repeat((seed % 200) as usize);
            let line =
                format!("{{\"type\":\"assistant\",\"i\":{i},\"r\":{seed},\"pad\":\"{pad}\"}}");
            let before = w.flushed_lines();
            w.push_line(i, Direction::Agent, line.as_bytes(), true)
                .unwrap();
            if w.flushed_lines() != before {
                flushed.push(w.enc.as_ref().unwrap().get_ref().len());
            }
        }
        (w.enc.as_ref().unwrap().get_ref().inner.clone(), flushed)
    }

    /// What the library's decoder gives for `bytes` cut short: every byte before the first error.
    fn decode_prefix(bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut buf = [0u8; 4096];
        let Ok(mut dec) = zstd::stream::read::Decoder::new(bytes) else {
            return out;
        };
        loop {
            match dec.read(&mut buf) {
                Ok(0) | Err(_) => return out,
                Ok(n) => out.extend_from_slice(&buf[..n]),
            }
        }
    }

    /// Cut anywhere, the library's decoder gives whole records (or, cut inside the few bytes
    /// between a flush's two blocks, whole records but the last one's `\n`); cut at a flush,
    /// whole records.
    #[test]
    fn a_fixture_cut_anywhere_decodes_to_whole_records() {
        let (out, flushed) = fixture();
        let all = decode_prefix(&out);
        assert!(flushed.len() > 20);
        for cut in (0..out.len()).step_by(97) {
            let got = decode_prefix(&out[..cut]);
            assert!(all.starts_with(&got));
            assert!(
                got.is_empty() || got.ends_with(b"\n") || all[got.len()] == b'\n',
                "cut at {cut} of {}: ends inside a record",
                out.len()
            );
        }
        for cut in flushed {
            assert!(
                decode_prefix(&out[..cut]).ends_with(b"\n"),
                "flush at {cut}"
            );
        }
    }

    /// The escaped text of a line is kept from one line to the next: a short line after a long
    /// one, a line with no text and an unterminated one come back exactly.
    #[test]
    fn lines_read_back_exactly_whatever_the_line_before_them() {
        let lines: [(&[u8], bool); 6] = [
            (&[b'x'; 5000], true),
            (b"{\"a\":\"q\\\"\"}", true),
            (b"", true),
            (b"\xff\xfe not UTF-8", true),
            (b"ab", true),
            (b"tail \"cut", false),
        ];
        let mut w = FixtureWriter::new(Vec::new(), &new_header("claude", "back")).unwrap();
        for (t, (line, terminated)) in lines.iter().enumerate() {
            w.push_line(t as u64, Direction::Agent, line, *terminated)
                .unwrap();
        }
        let out = w.finish(Trailer::default()).unwrap();
        let fx = crate::corpus::reader::read_fixture_bytes(&out).unwrap();
        let got: Vec<(&[u8], bool)> = fx
            .lines
            .iter()
            .map(|l| (l.bytes.as_slice(), l.terminated))
            .collect();
        assert_eq!(got, lines);
    }

    /// A size hint is a hint: a fixture of far more than it said (over two frames) or of far less
    /// reads back exactly, at the import level as at the live one.
    #[test]
    fn a_wrong_size_hint_still_reads_back_exactly() {
        let big: Vec<u8> = (0..FRAME_BYTES * 3 / 2)
            .map(|i| b"abcdefghij\\"[i * 7 % 11])
            .collect();
        let cases: [(&[&[u8]], u64); 3] = [
            (&[b"short", &big, b"after the long one"], 100),
            (&[b"one", b"two"], 1 << 30),
            (&[b"{\"a\":1}"], 0),
        ];
        for level in [LEVEL, IMPORT_LEVEL] {
            for (lines, hint) in &cases {
                let header = new_header("claude", "hint");
                let mut w = FixtureWriter::with_size(Vec::new(), &header, level, *hint).unwrap();
                for (t, line) in lines.iter().enumerate() {
                    w.push_line(t as u64, Direction::Agent, line, true).unwrap();
                }
                let out = w.finish(Trailer::default()).unwrap();
                let fx = crate::corpus::reader::read_fixture_bytes(&out).unwrap();
                let got: Vec<&[u8]> = fx.lines.iter().map(|l| l.bytes.as_slice()).collect();
                assert_eq!(&got, lines, "level {level}, hint {hint}");
            }
        }
    }

    /// The same with the `zstd` command line tool, which drops what it decoded but had not yet
    /// written out when a frame is cut short.
    #[test]
    #[ignore = "needs zstd: run scripts/install-test-deps.sh, then cargo test -- --ignored"]
    fn zstd_dc_of_a_fixture_cut_at_a_flush_ends_on_a_whole_record() {
        let (out, flushed) = fixture();
        let mut bad = Vec::new();
        for &cut in &flushed {
            let mut child = std::process::Command::new("zstd")
                .args(["-dc", "-q"])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::null())
                .spawn()
                .expect("zstd is installed");
            let mut stdin = child.stdin.take().unwrap();
            let input = out[..cut].to_vec();
            let feed = std::thread::spawn(move || stdin.write_all(&input));
            let got = child.wait_with_output().unwrap().stdout;
            let _ = feed.join();
            if !got.ends_with(b"\n") {
                bad.push(cut);
            }
        }
        assert!(
            bad.is_empty(),
            "{} of {} flush points end inside a record: {bad:?}",
            bad.len(),
            flushed.len()
        );
    }
}
