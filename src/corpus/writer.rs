//! Writing a fixture: header, line records and trailer as JSONL, cut into independent zstd frames
//! so that a writer killed at any moment leaves every frame it finished readable.

use std::io::{self, Write};
use std::time::{Duration, Instant};

use base64::Engine as _;

use super::format::{Dir, Header, Trailer, TrailerRecord};

/// Close a frame once this much JSONL is pending…
pub const FRAME_BYTES: usize = 64 * 1024;
/// …or once the oldest pending line has waited this long.
pub const FRAME_INTERVAL: Duration = Duration::from_millis(250);
/// zstd level of live recordings and imports (the level `zstd` uses by default).
pub const LEVEL: i32 = 3;

/// Writes one fixture. Lines are buffered and compressed a frame at a time; call [`tick`] regularly
/// (the recorder does so at least every [`FRAME_INTERVAL`]) so that a quiet stream still reaches
/// the disk.
///
/// [`tick`]: FixtureWriter::tick
pub struct FixtureWriter<W: Write> {
    out: W,
    pending: Vec<u8>,
    pending_since: Option<Instant>,
    compressor: zstd::bulk::Compressor<'static>,
    lines: u64,
}

impl<W: Write> FixtureWriter<W> {
    /// Start a fixture: the header goes out in a frame of its own at once, so even a recorder
    /// killed before the first line leaves a readable (empty, cut-short) fixture.
    pub fn new(out: W, header: &Header) -> io::Result<Self> {
        let mut w = FixtureWriter {
            out,
            pending: Vec::with_capacity(FRAME_BYTES * 2),
            pending_since: None,
            compressor: zstd::bulk::Compressor::new(LEVEL)?,
            lines: 0,
        };
        serde_json::to_writer(&mut w.pending, header).map_err(io::Error::other)?;
        w.pending.push(b'\n');
        w.flush_frame()?;
        Ok(w)
    }

    /// Append one received line (without its `\n`; a `\r` before it stays in `bytes`).
    pub fn push_line(
        &mut self,
        t_ms: u64,
        dir: Dir,
        bytes: &[u8],
        terminated: bool,
    ) -> io::Result<()> {
        let d = match dir {
            Dir::Agent => "a",
            Dir::Client => "c",
            Dir::Stderr => "e",
        };
        let buf = &mut self.pending;
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
        if self.pending_since.is_none() {
            self.pending_since = Some(Instant::now());
        }
        if self.pending.len() >= FRAME_BYTES {
            self.flush_frame()?;
        }
        Ok(())
    }

    /// Close the pending frame if it has waited [`FRAME_INTERVAL`].
    pub fn tick(&mut self) -> io::Result<()> {
        if self
            .pending_since
            .is_some_and(|s| s.elapsed() >= FRAME_INTERVAL)
        {
            self.flush_frame()?;
        }
        Ok(())
    }

    /// Compress what is pending into one complete frame and hand it to the output.
    pub fn flush_frame(&mut self) -> io::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let frame = self.compressor.compress(&self.pending)?;
        self.out.write_all(&frame)?;
        self.out.flush()?;
        self.pending.clear();
        self.pending_since = None;
        Ok(())
    }

    /// Line records written so far.
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// Write the trailer (its `lines` is filled in here) and return the output.
    pub fn finish(mut self, mut trailer: Trailer) -> io::Result<W> {
        trailer.lines = self.lines;
        serde_json::to_writer(&mut self.pending, &TrailerRecord { trailer })
            .map_err(io::Error::other)?;
        self.pending.push(b'\n');
        self.flush_frame()?;
        Ok(self.out)
    }
}
