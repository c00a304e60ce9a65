//! The corpus: the versioned fixture format (zstd JSONL), its reader and writer, the recorder,
//! redaction and import. This is a shell around the pure core: it does the file and process I/O.

use std::fs;
use std::io::{self, Read};
use std::path::Path;

use anyhow::Context;

use crate::providers::{Direction, Input, RawLine};

/// A raw stream loaded into memory, ready to normalize: the bytes as `toolnorm cat` prints them and
/// where each line starts.
#[derive(Debug, Default)]
pub struct LoadedStream {
    pub bytes: Vec<u8>,
    /// (start, end without terminator, direction, had a newline)
    pub spans: Vec<(usize, usize, Direction, bool)>,
    /// Provider and dialect named by a fixture header, if any.
    pub provider: Option<String>,
    pub dialect: Option<String>,
    /// Problems with the container itself (a fixture cut short by a crash), reported as diagnostics.
    pub notes: Vec<String>,
}

impl LoadedStream {
    /// A plain buffer: every line from the agent.
    pub fn from_plain(bytes: Vec<u8>) -> Self {
        let spans = crate::providers::split_lines(&bytes)
            .iter()
            .map(|l| {
                let start = l.bytes.as_ptr() as usize - bytes.as_ptr() as usize;
                (start, start + l.bytes.len(), l.direction, !l.unterminated)
            })
            .collect();
        LoadedStream {
            bytes,
            spans,
            ..LoadedStream::default()
        }
    }

    pub fn input(&self) -> Input<'_> {
        let lines = self
            .spans
            .iter()
            .enumerate()
            .map(|(i, &(s, e, direction, terminated))| RawLine {
                number: i as u32 + 1,
                bytes: &self.bytes[s..e],
                direction,
                unterminated: !terminated,
            })
            .collect();
        Input::from_lines(&self.bytes, lines)
    }
}

/// Load a raw `.jsonl` / `.json` file, a corpus fixture (`.jsonl.zst`), or `-` for stdin.
pub fn load_stream(path: &Path) -> anyhow::Result<LoadedStream> {
    if path == Path::new("-") {
        let mut buf = Vec::new();
        io::stdin()
            .read_to_end(&mut buf)
            .context("failed to read stdin")?;
        return Ok(LoadedStream::from_plain(buf));
    }
    let bytes = fs::read(path).with_context(|| format!("failed to read {}", path.display()))?;
    if bytes.starts_with(&[0x28, 0xB5, 0x2F, 0xFD]) {
        anyhow::bail!("{}: zstd fixtures are not readable yet", path.display());
    }
    Ok(LoadedStream::from_plain(bytes))
}
