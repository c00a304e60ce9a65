//! Writing a fixture: header, line records and trailer as JSONL, zstd-compressed so that a writer
//! killed at any moment leaves everything it flushed readable.
//!
//! Crash safety without losing the compression context: the stream is flushed (a zstd block
//! boundary: all data so far decodable from what is on disk) every [`FLUSH_BYTES`] or
//! [`FLUSH_INTERVAL`], and the frame is closed every [`FRAME_BYTES`], so a damaged frame never
//! costs more than that. The reader decodes frame by frame and salvages the flushed blocks of a
//! frame that was cut short.

use std::io::{self, Write};
use std::time::{Duration, Instant};

use base64::Engine as _;

use super::format::{Header, Trailer, TrailerRecord};
use crate::stream::Direction;

/// Flush (make decodable on disk) once this much JSONL is pending…
pub const FLUSH_BYTES: usize = 64 * 1024;
/// …or once the oldest pending line has waited this long.
pub const FLUSH_INTERVAL: Duration = Duration::from_millis(250);
/// Close the zstd frame after this much JSONL and start a new one.
pub const FRAME_BYTES: usize = 4 << 20;
/// zstd level of live recordings (the level `zstd` uses by default): the CPU it costs is what the
/// recorder costs.
pub const LEVEL: i32 = 3;
/// zstd level of imports and other one-off writes: small files, written once, read many times.
pub const IMPORT_LEVEL: i32 = 19;

/// Writes one fixture. Call [`tick`] regularly (the recorder does so every 50 ms) so that a quiet
/// stream still reaches the disk within [`FLUSH_INTERVAL`].
///
/// [`tick`]: FixtureWriter::tick
pub struct FixtureWriter<W: Write> {
    pub(crate) enc: Option<zstd::stream::write::Encoder<'static, W>>,
    level: i32,
    record: Vec<u8>,
    frame_bytes: usize,
    unflushed: usize,
    pending_since: Option<Instant>,
    lines: u64,
}

impl<W: Write> FixtureWriter<W> {
    /// Start a fixture: the header is flushed at once, so even a recorder killed before the first
    /// line leaves a readable (empty, cut-short) fixture.
    pub fn new(out: W, header: &Header) -> io::Result<Self> {
        Self::with_level(out, header, LEVEL)
    }

    /// [`new`](Self::new) with another zstd level.
    pub fn with_level(out: W, header: &Header, level: i32) -> io::Result<Self> {
        let mut w = FixtureWriter {
            enc: Some(zstd::stream::write::Encoder::new(out, level)?),
            level,
            record: Vec::with_capacity(4096),
            frame_bytes: 0,
            unflushed: 0,
            pending_since: None,
            lines: 0,
        };
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
        write!(buf, "{{\"t\":{t_ms},\"d\":\"{d}\",")?;
        match std::str::from_utf8(bytes) {
            Ok(text) => {
                buf.extend_from_slice(b"\"l\":");
                serde_json::to_writer(&mut *buf, text).map_err(io::Error::other)?;
            }
            Err(_) => {
                buf.extend_from_slice(b"\"b\":\"");
                buf.extend_from_slice(
                    base64::engine::general_purpose::STANDARD
                        .encode(bytes)
                        .as_bytes(),
                );
                buf.push(b'"');
            }
        }
        if !terminated {
            buf.extend_from_slice(b",\"n\":true");
        }
        buf.extend_from_slice(b"}\n");
        self.lines += 1;
        self.emit()?;
        if self.pending_since.is_none() {
            self.pending_since = Some(Instant::now());
        }
        if self.frame_bytes >= FRAME_BYTES {
            self.end_frame()?;
        } else if self.unflushed >= FLUSH_BYTES {
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
    pub fn flush(&mut self) -> io::Result<()> {
        if let Some(enc) = &mut self.enc {
            enc.flush()?;
        }
        self.unflushed = 0;
        self.pending_since = None;
        Ok(())
    }

    /// Close the current frame and open the next one.
    pub fn end_frame(&mut self) -> io::Result<()> {
        if let Some(enc) = self.enc.take() {
            let mut out = enc.finish()?;
            out.flush()?;
            self.enc = Some(zstd::stream::write::Encoder::new(out, self.level)?);
        }
        self.frame_bytes = 0;
        self.unflushed = 0;
        self.pending_since = None;
        Ok(())
    }

    /// Line records written so far.
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// Write the trailer (its `lines` is filled in here), close the frame, return the output.
    pub fn finish(mut self, mut trailer: Trailer) -> io::Result<W> {
        trailer.lines = self.lines;
        self.record.clear();
        serde_json::to_writer(&mut self.record, &TrailerRecord { trailer })
            .map_err(io::Error::other)?;
        self.record.push(b'\n');
        self.emit()?;
        let enc = self
            .enc
            .take()
            .ok_or_else(|| io::Error::other("the fixture writer already failed"))?;
        let mut out = enc.finish()?;
        out.flush()?;
        Ok(out)
    }

    fn emit(&mut self) -> io::Result<()> {
        let enc = self
            .enc
            .as_mut()
            .ok_or_else(|| io::Error::other("the fixture writer already failed"))?;
        enc.write_all(&self.record)?;
        self.frame_bytes += self.record.len();
        self.unflushed += self.record.len();
        Ok(())
    }
}
