//! What the whole-document dialects share (`opencode export`, Cline's task file): the lines kept
//! until the stream ends, a parse failure reported at its line, and the raw line where an id is
//! written, so each part's events point at the document's own line.

use crate::model::DiagnosticLevel;
use crate::providers::PartStore;
use crate::stream::{RawLine, find_bytes};

/// A document as its lines came: each line (as split: without `\r` or a BOM) and its `\n`, and
/// where each line starts with its number.
#[derive(Default)]
pub(crate) struct Kept {
    bytes: Vec<u8>,
    starts: Vec<(usize, u32)>,
}

impl Kept {
    /// Keep one more line.
    pub(crate) fn push(&mut self, line: &RawLine<'_>) {
        self.starts.push((self.bytes.len(), line.number));
        self.bytes.extend_from_slice(line.bytes);
        if !line.unterminated {
            self.bytes.push(b'\n');
        }
    }

    /// The document's bytes and where its lines start, leaving this empty.
    pub(crate) fn take(&mut self) -> (Vec<u8>, Vec<(usize, u32)>) {
        (
            std::mem::take(&mut self.bytes),
            std::mem::take(&mut self.starts),
        )
    }
}

/// Report a document `what` names that did not parse: an error when it was cut short, a warning
/// when it is some other JSON, at the line the parser stopped.
pub(crate) fn report_parse_error(what: &str, e: &serde_json::Error, store: &mut PartStore) {
    let (level, how) = if e.is_eof() {
        (DiagnosticLevel::Error, "cut short")
    } else {
        (DiagnosticLevel::Warning, "is not the expected JSON")
    };
    store.diagnostic(
        u32::try_from(e.line()).unwrap_or(u32::MAX).max(1),
        level,
        format!("{what} {how}: {e}"),
    );
}

/// Finds the raw line where an id is written, moving forward through the document.
pub(crate) struct LineFinder<'a> {
    bytes: &'a [u8],
    /// Byte offset where each raw line starts, with its number.
    starts: Vec<(usize, u32)>,
    cursor: usize,
}

impl<'a> LineFinder<'a> {
    pub(crate) fn new(bytes: &'a [u8], starts: Vec<(usize, u32)>) -> Self {
        LineFinder {
            bytes,
            starts,
            cursor: 0,
        }
    }

    /// The line of the next `"id"` from where the last one was found (from the start when
    /// there is none after it); line 1 when the id is nowhere.
    pub(crate) fn line_of(&mut self, id: &str) -> u32 {
        let needle = format!("\"{id}\"");
        let found = find_bytes(&self.bytes[self.cursor..], needle.as_bytes())
            .map(|i| i + self.cursor)
            .or_else(|| find_bytes(self.bytes, needle.as_bytes()));
        let Some(at) = found else { return 1 };
        self.cursor = at + needle.len();
        match self.starts.partition_point(|(s, _)| *s <= at) {
            0 => 1,
            i => self.starts[i - 1].1,
        }
    }
}

/// Whether `bytes` (a BOM and surrounding blanks aside) is one JSON object for which `accept`
/// says yes.
pub(crate) fn sniff_object(bytes: &[u8], accept: impl Fn(&serde_json::Value) -> bool) -> bool {
    let bytes = bytes
        .strip_prefix(b"\xEF\xBB\xBF")
        .unwrap_or(bytes)
        .trim_ascii();
    bytes.first() == Some(&b'{')
        && serde_json::from_slice::<serde_json::Value>(bytes).is_ok_and(|v| accept(&v))
}
