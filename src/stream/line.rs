//! Numbered lines of a raw stream. Splitting into numbered lines: CRLF, a BOM, blank lines, a last line without a
//! newline and bytes that are not UTF-8 are all handled here, once, for every dialect.

use std::borrow::Cow;

/// Which way a recorded line travelled: the one direction type of the whole crate, stored in a
/// fixture's `d` field. Plain files and pipe recordings hold only lines from the agent; proxy
/// recordings also hold what the client sent to the agent; wrap recordings may hold its stderr.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub enum Direction {
    /// From the agent (its stdout, or an SSE event).
    #[default]
    #[serde(rename = "a")]
    Agent,
    /// To the agent (what a proxied client wrote to its stdin).
    #[serde(rename = "c")]
    Client,
    /// The agent's stderr (recorded with `--stderr`); not part of the normalized stream.
    #[serde(rename = "e")]
    Stderr,
}

/// One line of the raw stream, without its line terminator.
#[derive(Clone, Copy, Debug)]
pub struct RawLine<'a> {
    /// 1-based line number in the stream as `toolnorm cat` prints it.
    pub number: u32,
    pub bytes: &'a [u8],
    pub direction: Direction,
    /// The line had no terminating newline (the last line of a cut-short stream).
    pub unterminated: bool,
    /// `bytes` as text, where whoever made the line already knows them to be UTF-8 (a fixture's
    /// line records are checked as they are decoded), so that no reader of the line checks them
    /// again: a line can be a megabyte of an image's base64, and each pass over it costs. `None`:
    /// not known, checked where the line is read ([`RawLine::as_text`]). Only ever used when it
    /// is `bytes` itself, the same memory.
    pub text: Option<&'a str>,
}

impl<'a> RawLine<'a> {
    /// Line `number` of an agent's stream, terminated, its text known (the tests' lines).
    #[cfg(test)]
    pub(crate) fn agent(number: usize, text: &'a str) -> RawLine<'a> {
        RawLine {
            number: number as u32,
            bytes: text.as_bytes(),
            direction: Direction::Agent,
            unterminated: false,
            text: Some(text),
        }
    }

    /// True for lines holding only white space.
    pub fn is_blank(&self) -> bool {
        self.bytes.iter().all(|b| b.is_ascii_whitespace())
    }

    /// The line as text; bytes that are not UTF-8 become U+FFFD (the caller reports that).
    pub fn text(&self) -> Cow<'a, str> {
        self.as_text()
            .map_or_else(|| String::from_utf8_lossy(self.bytes), Cow::Borrowed)
    }

    pub fn is_utf8(&self) -> bool {
        self.as_text().is_some()
    }

    /// The line as text when it is UTF-8: [`RawLine::text`] when that is known (and is these
    /// bytes), else checked here.
    pub fn as_text(&self) -> Option<&'a str> {
        match self.text {
            Some(t) if std::ptr::eq(t.as_bytes(), self.bytes) => Some(t),
            _ => utf8(self.bytes),
        }
    }
}

/// `bytes` as text when they are UTF-8, checked many bytes at a time (`simdutf8`: every line is
/// checked before it is parsed, most of them plain ASCII).
pub(crate) fn utf8(bytes: &[u8]) -> Option<&str> {
    simdutf8::basic::from_utf8(bytes).ok()
}

/// A raw stream ready for a dialect: the whole buffer (for whole-document dialects such as
/// `opencode export`) and its lines.
#[derive(Debug)]
pub struct Input<'a> {
    pub bytes: &'a [u8],
    pub lines: Vec<RawLine<'a>>,
}

impl<'a> Input<'a> {
    /// Split a plain buffer (every line from the agent).
    pub fn from_bytes(bytes: &'a [u8]) -> Self {
        Input {
            bytes,
            lines: split_lines(bytes),
        }
    }

    /// Build from already-separated lines (a corpus fixture); `bytes` is the concatenated stream.
    pub fn from_lines(bytes: &'a [u8], lines: Vec<RawLine<'a>>) -> Self {
        Input { bytes, lines }
    }
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A line as dialects see it: without a trailing `\r` (CRLF files) and a leading BOM. Every way a
/// stream is split into lines (a plain buffer, a loaded file, a fixture) trims through here.
pub fn trim_line(mut line: &[u8]) -> &[u8] {
    if line.last() == Some(&b'\r') {
        line = &line[..line.len() - 1];
    }
    line.strip_prefix(BOM).unwrap_or(line)
}

/// Split on `\n`, dropping a trailing `\r` and a leading BOM. Blank lines keep their number.
pub fn split_lines(bytes: &[u8]) -> Vec<RawLine<'_>> {
    let mut lines = Vec::new();
    let mut rest = bytes;
    let mut number = 0u32;
    while !rest.is_empty() {
        number += 1;
        let (line, unterminated) = match find_byte(b'\n', rest) {
            Some(i) => {
                let l = &rest[..i];
                rest = &rest[i + 1..];
                (l, false)
            }
            None => {
                let l = rest;
                rest = &[];
                (l, true)
            }
        };
        lines.push(RawLine {
            number,
            bytes: trim_line(line),
            direction: Direction::Agent,
            unterminated,
            text: None,
        });
    }
    lines
}

/// Where `byte` first occurs in `hay`: memchr's vectorised search when the crate is built with
/// the `cli` feature, a word-at-a-time scan in the dependency-free core (what the JavaScript and
/// Python packages run: splitting a stream into lines byte by byte cost the WebAssembly build 5%
/// of its time on the corpus).
pub(crate) fn find_byte(byte: u8, hay: &[u8]) -> Option<usize> {
    #[cfg(feature = "cli")]
    {
        memchr::memchr(byte, hay)
    }
    #[cfg(not(feature = "cli"))]
    {
        find_byte_by_words(byte, hay)
    }
}

/// [`find_byte`] a machine word at a time: a word holds `byte` when the word XORed with `byte`
/// in every lane has a zero lane (`(x - 0x01…) & !x & 0x80…` is non-zero exactly then); that
/// word is then searched byte by byte.
#[cfg_attr(feature = "cli", allow(dead_code))]
fn find_byte_by_words(byte: u8, hay: &[u8]) -> Option<usize> {
    const WORD: usize = size_of::<usize>();
    const LO: usize = usize::from_ne_bytes([0x01; WORD]);
    const HI: usize = usize::from_ne_bytes([0x80; WORD]);
    let lanes = LO * usize::from(byte);
    let mut words = hay.chunks_exact(WORD);
    let mut at = 0;
    for word in &mut words {
        let bytes: [u8; WORD] = word.try_into().unwrap_or([0; WORD]);
        let x = usize::from_ne_bytes(bytes) ^ lanes;
        if x.wrapping_sub(LO) & !x & HI != 0 {
            return word.iter().position(|&b| b == byte).map(|i| at + i);
        }
        at += WORD;
    }
    words
        .remainder()
        .iter()
        .position(|&b| b == byte)
        .map(|i| at + i)
}

/// Where `needle` first occurs in `hay` (an empty needle is found at 0).
pub(crate) fn find_bytes(hay: &[u8], needle: &[u8]) -> Option<usize> {
    #[cfg(feature = "cli")]
    {
        memchr::memmem::find(hay, needle)
    }
    #[cfg(not(feature = "cli"))]
    {
        let Some((&first, rest)) = needle.split_first() else {
            return Some(0);
        };
        let mut at = 0;
        while let Some(i) = find_byte(first, &hay[at..]) {
            let start = at + i;
            if hay[start + 1..].starts_with(rest) {
                return Some(start);
            }
            at = start + 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_word_scan_finds_what_a_byte_scan_finds() {
        let hay: Vec<u8> = (0..200u32).map(|i| (i * 37 % 251) as u8).collect();
        for byte in [0u8, 1, 10, 0x7f, 0x80, 0xff, b'"', b'\n'] {
            for start in 0..20 {
                for end in (start..hay.len()).step_by(7) {
                    let h = &hay[start..end];
                    assert_eq!(
                        find_byte_by_words(byte, h),
                        h.iter().position(|&b| b == byte),
                        "{byte} in {start}..{end}"
                    );
                }
            }
        }
    }

    #[test]
    fn splits_crlf_bom_and_unterminated_last_line() {
        let lines = split_lines(b"\xEF\xBB\xBF{\"a\":1}\r\n\n{\"b\":2}");
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0].bytes, b"{\"a\":1}");
        assert!(lines[1].is_blank());
        assert_eq!(lines[2].number, 3);
        assert!(lines[2].unterminated);
        assert!(!lines[0].unterminated);
    }

    #[test]
    fn byte_search_finds_the_first_match() {
        assert_eq!(find_byte(b'c', b"abcabc"), Some(2));
        assert_eq!(find_byte(b'z', b"abc"), None);
        assert_eq!(find_bytes(b"aXaab", b"aab"), Some(2));
        assert_eq!(find_bytes(b"aab", b"aaab"), None);
        assert_eq!(find_bytes(b"abc", b""), Some(0));
        assert_eq!(find_bytes(b"abcab", b"ab"), Some(0));
    }

    #[test]
    fn invalid_utf8_is_kept_and_flagged() {
        let lines = split_lines(b"{\"a\":\"\xff\"}\n");
        assert!(!lines[0].is_utf8());
        assert!(lines[0].text().contains('\u{FFFD}'));
    }
}
