//! Passthrough ends in memory, for callers that drive an agent in the same process (the scenario
//! runner) and for tests: a one-way pipe between two threads, and a buffer that keeps what is
//! written to it.

use std::io::{self, Read, Write};
use std::sync::{Arc, Mutex, PoisonError};

use crossbeam_channel::{Receiver, Sender};

/// A pipe in memory: what is written to the [`PipeWriter`] is read, chunk for chunk, from the
/// [`PipeReader`]. The reader sees end of file once the writer is dropped; the writer gets a
/// broken pipe once the reader is dropped. Unbounded: the writer never waits.
pub fn pipe() -> (PipeWriter, PipeReader) {
    let (tx, rx) = crossbeam_channel::unbounded();
    (
        PipeWriter { tx },
        PipeReader {
            rx,
            chunk: Vec::new(),
            pos: 0,
        },
    )
}

/// The writing end of a [`pipe`].
pub struct PipeWriter {
    tx: Sender<Vec<u8>>,
}

impl Write for PipeWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        self.tx
            .send(buf.to_vec())
            .map_err(|_| io::Error::from(io::ErrorKind::BrokenPipe))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The reading end of a [`pipe`].
pub struct PipeReader {
    rx: Receiver<Vec<u8>>,
    chunk: Vec<u8>,
    pos: usize,
}

impl Read for PipeReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        while self.pos == self.chunk.len() {
            match self.rx.recv() {
                Ok(chunk) => {
                    self.chunk = chunk;
                    self.pos = 0;
                }
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.chunk.len() - self.pos);
        buf[..n].copy_from_slice(&self.chunk[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// A buffer that keeps every byte written to it; clones share it, so one clone can be given away
/// as a passthrough end and another read afterwards.
#[derive(Clone, Debug, Default)]
pub struct Captured(Arc<Mutex<Vec<u8>>>);

impl Captured {
    pub fn new() -> Self {
        Self::default()
    }

    /// What was written so far.
    pub fn bytes(&self) -> Vec<u8> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// `look` at what was written so far, in place (not copied): for a wait that polls it.
    pub fn read<R>(&self, look: impl FnOnce(&[u8]) -> R) -> R {
        look(&self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Whether what was written so far holds `needle` (searched in place, not copied).
    pub fn contains(&self, needle: &[u8]) -> bool {
        self.read(|bytes| memchr::memmem::find(bytes, needle).is_some())
    }
}

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pipe_passes_chunks_and_ends_with_its_writer() {
        let (mut w, mut r) = pipe();
        let t = std::thread::spawn(move || {
            w.write_all(b"one\ntw").unwrap();
            w.write_all(b"o\n").unwrap();
        });
        let mut got = Vec::new();
        r.read_to_end(&mut got).unwrap();
        t.join().unwrap();
        assert_eq!(got, b"one\ntwo\n");
    }

    #[test]
    fn a_small_read_takes_a_chunk_in_parts_and_a_gone_reader_breaks_the_pipe() {
        let (mut w, mut r) = pipe();
        w.write_all(b"abcdef").unwrap();
        let mut buf = [0u8; 4];
        assert_eq!(r.read(&mut buf).unwrap(), 4);
        assert_eq!(&buf, b"abcd");
        assert_eq!(r.read(&mut buf).unwrap(), 2);
        assert_eq!(&buf[..2], b"ef");
        drop(r);
        let err = w.write_all(b"x").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
    }

    #[test]
    fn captured_clones_share_one_buffer() {
        let c = Captured::new();
        let mut given = c.clone();
        given.write_all(b"hello ").unwrap();
        given.write_all(b"world").unwrap();
        assert_eq!(c.bytes(), b"hello world");
    }
}
