//! Pipe mode and the copy loop every mode shares: raw chunks in, the same chunks out, a copy to the
//! recorder. No line splitting on this side (the writer thread does it), no per-line syscalls.

use std::io::{self, Read, Write};
use std::sync::Arc;

use super::{PIECE_LINES, Tap};
use crate::stream::Direction;

/// Read size of the passthrough.
pub const CHUNK: usize = 256 << 10;
/// Read buffers kept for reuse.
const BUFFERS: usize = 16;

/// How a copy ended.
#[derive(Debug)]
pub enum CopyEnd {
    /// The input reached end of file.
    Eof,
    /// The output stopped accepting data (a closed pipe downstream).
    OutputClosed(io::Error),
}

/// Copy `input` to `output` chunk by chunk, flushing each one, and hand every chunk to the tap.
/// The tap comes first: it only copies the chunk into the queue, and in proxy mode it keeps the
/// order right — once a chunk is passed on, the other side may answer at once, and the answer
/// must not be recorded before the chunk that caused it. A read error ends the copy as end of
/// file does.
///
/// The tap shares a big read's buffer with the writer thread rather than copying it: a buffer is
/// read into again once the writer is done with it, else a new one is taken (a few kept
/// for reuse). A small read is copied, so the buffers in flight hold at most four times the bytes
/// the lag bounds allow.
pub fn copy(mut input: impl Read, mut output: impl Write, tap: &Tap, dir: Direction) -> CopyEnd {
    let mut spare: Vec<Arc<Vec<u8>>> = Vec::new();
    loop {
        let mut shared = spare
            .iter()
            .position(|b| Arc::strong_count(b) == 1)
            .map_or_else(|| Arc::new(vec![0u8; CHUNK]), |i| spare.swap_remove(i));
        let Some(buf) = Arc::get_mut(&mut shared) else {
            // Not reachable: the buffer was fresh or held here alone.
            spare.clear();
            continue;
        };
        let n = match input.read(buf) {
            Ok(0) => return CopyEnd::Eof,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return CopyEnd::Eof,
        };
        // In pieces of at most PIECE_LINES lines, so that the recorder's lag stays bounded by
        // lines however short they are (one piece, one write, for a chunk of long lines).
        let mut start = 0;
        while start < n {
            let rest = &shared[start..n];
            let end = start
                + memchr::memchr_iter(b'\n', rest)
                    .nth(PIECE_LINES - 1)
                    .map_or(rest.len(), |i| i + 1);
            if n >= CHUNK / 4 {
                tap.record_shared(dir, &shared, start..end);
            } else {
                // A small read (a live stream's line or two): copied, so that a buffer held by
                // the writer is mostly full and the one here stays free for the next read.
                tap.record(dir, &shared[start..end]);
            }
            if let Err(e) = output.write_all(&shared[start..end]) {
                return CopyEnd::OutputClosed(e);
            }
            start = end;
        }
        if spare.len() < BUFFERS {
            spare.push(shared);
        }
        if let Err(e) = output.flush() {
            return CopyEnd::OutputClosed(e);
        }
    }
}

/// Our stdout without Rust's line buffering, which would hold a partial last line back and split
/// big chunks at newlines.
pub struct RawStdout {
    #[cfg(unix)]
    file: std::mem::ManuallyDrop<std::fs::File>,
    #[cfg(not(unix))]
    out: io::Stdout,
}

impl RawStdout {
    pub fn new() -> Self {
        #[cfg(unix)]
        {
            use std::os::fd::FromRawFd;
            // SAFETY: fd 1 stays open for the life of the process and ManuallyDrop never closes it.
            let file = unsafe { std::fs::File::from_raw_fd(1) };
            RawStdout {
                file: std::mem::ManuallyDrop::new(file),
            }
        }
        #[cfg(not(unix))]
        {
            RawStdout { out: io::stdout() }
        }
    }
}

impl Default for RawStdout {
    fn default() -> Self {
        Self::new()
    }
}

impl Write for RawStdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        #[cfg(unix)]
        {
            (&*self.file).write(buf)
        }
        #[cfg(not(unix))]
        {
            self.out.write(buf)
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        #[cfg(unix)]
        {
            Ok(())
        }
        #[cfg(not(unix))]
        {
            self.out.flush()
        }
    }
}
