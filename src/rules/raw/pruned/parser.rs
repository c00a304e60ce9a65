//! The hand-written JSON parser behind [`super::parse`] (see the module's documentation there).

use std::borrow::Cow;

use serde_json::Number;

use super::{DEPTH, Keep, MAX_HOPS, Node, dedupe, is_notice, keep};
use crate::stream::json_text;

/// `bytes` as one JSON value (`text`: the same bytes, when they are known to be UTF-8), pruned
/// or, with `whole`, kept whole.
pub(super) fn parse<'a>(bytes: &'a [u8], text: Option<&'a str>, whole: bool) -> Option<Node<'a>> {
    Parser::new(bytes, text).top(How { hops: 0, whole })
}

#[derive(Clone, Copy)]
struct How {
    /// `content` values parsed on their own around this one.
    hops: u8,
    /// Inside a value kept whole: every key is kept.
    whole: bool,
}

/// A parser of one JSON text, as serde_json reads it: what it refuses, this refuses, and what it
/// reads, this reads to the same values (a property test holds the two to that). What is
/// skipped is checked as serde_json checks a value it ignores (the grammar and the escapes, not
/// the UTF-8 of its strings, with no nesting limit); what is built is checked as serde_json
/// checks what it builds. Strings are looked at sixteen bytes at a time
/// ([`json_text::block`]): escapes come every few bytes in a tool's output or a file's text,
/// and each costs one look at the sixteen bytes after it. Where the CPU has AVX-512 BW, they are
/// looked at sixty-four bytes at a time, and a block's escapes all at once.
struct Parser<'a> {
    s: &'a [u8],
    /// The same bytes as text, when they are UTF-8 (checked once, in one pass): a string is
    /// then borrowed without a check of its own.
    text: Option<&'a str>,
    i: usize,
    /// The arrays and objects being skipped, innermost last.
    open: Vec<u8>,
    /// The CPU has AVX-512 BW: strings are looked at 64 bytes at a time (asked once a line).
    #[cfg(target_arch = "x86_64")]
    wide: bool,
}

impl<'a> Parser<'a> {
    fn new(s: &'a [u8], text: Option<&'a str>) -> Self {
        Parser {
            s,
            text,
            i: 0,
            open: Vec::new(),
            #[cfg(target_arch = "x86_64")]
            wide: json_text::has_wide_masks(),
        }
    }

    /// One value and nothing after it but white space.
    fn top(mut self, how: How) -> Option<Node<'a>> {
        let v = self.value(how, DEPTH)?;
        match self.ws() {
            None => Some(v),
            Some(_) => None,
        }
    }

    /// The next byte that is not white space, not taken; `None` at the end.
    fn ws(&mut self) -> Option<u8> {
        while let Some(&b) = self.s.get(self.i) {
            match b {
                b' ' | b'\n' | b'\t' | b'\r' => self.i += 1,
                _ => return Some(b),
            }
        }
        None
    }

    /// Take `b` if it is the next byte after white space; whether it was. `None` at the end.
    fn take(&mut self, b: u8) -> Option<bool> {
        let taken = self.ws()? == b;
        self.i += usize::from(taken);
        Some(taken)
    }

    /// Take `b` as the next byte after white space.
    fn expect(&mut self, b: u8) -> Option<()> {
        self.take(b)?.then_some(())
    }

    /// After an array's element or an object's entry: `true` past a comma (another follows),
    /// `false` past `close`.
    fn more(&mut self, close: u8) -> Option<bool> {
        if self.take(b',')? {
            return Some(true);
        }
        self.expect(close)?;
        Some(false)
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        if !self.s[self.i..].starts_with(word) {
            return None;
        }
        self.i += word.len();
        Some(())
    }

    /// A value, built as `how` says; `depth` more arrays and objects may open, less one.
    fn value(&mut self, how: How, depth: u8) -> Option<Node<'a>> {
        Some(match self.ws()? {
            b'"' => {
                self.i += 1;
                Node::String(self.string()?)
            }
            open @ (b'[' | b'{') => {
                let depth = depth - 1;
                if depth == 0 {
                    return None;
                }
                self.i += 1;
                if open == b'[' {
                    self.array(how, depth)?
                } else {
                    self.object(how, depth)?
                }
            }
            b't' => {
                self.literal(b"true")?;
                Node::Bool(true)
            }
            b'f' => {
                self.literal(b"false")?;
                Node::Bool(false)
            }
            b'n' => {
                self.literal(b"null")?;
                Node::Null
            }
            b'-' | b'0'..=b'9' => Node::Number(self.number()?),
            _ => return None,
        })
    }

    fn array(&mut self, how: How, depth: u8) -> Option<Node<'a>> {
        let mut out = Vec::new();
        if !self.take(b']')? {
            loop {
                out.push(self.value(how, depth)?);
                if !self.more(b']')? {
                    break;
                }
            }
        }
        Some(Node::Array(out))
    }

    fn object(&mut self, how: How, depth: u8) -> Option<Node<'a>> {
        let mut out = Vec::new();
        if self.take(b'}')? {
            return Some(Node::Object(out));
        }
        loop {
            self.expect(b'"')?;
            let key = self.string()?;
            self.expect(b':')?;
            match if how.whole { Keep::Whole } else { keep(&key) } {
                Keep::Skip => {
                    self.skip()?;
                }
                Keep::Whole => {
                    let v = self.value(How { whole: true, ..how }, depth)?;
                    out.push((key, v));
                }
                Keep::Pruned => {
                    let v = self.value(how, depth)?;
                    out.push((key, v));
                }
                Keep::NoString => {
                    let v = self.no_string(how)?;
                    out.push((key, v));
                }
                Keep::Notice => {
                    let (raw, text) = self.raw_value()?;
                    if raw[0] == b'"' && is_notice(raw) {
                        out.push((key, Parser::new(raw, Some(text)).value(how, DEPTH)?));
                    }
                }
            }
            if !self.more(b'}')? {
                break;
            }
        }
        dedupe(&mut out);
        Some(Node::Object(out))
    }

    /// A `content` value: skipped first, so that a long string is never unescaped; then, unless
    /// it is a string (or lies too many `content`s deep), parsed on its own with a nesting limit
    /// afresh. Its text must be UTF-8 even where it is skipped, as serde_json reads it as text.
    fn no_string(&mut self, how: How) -> Option<Node<'a>> {
        let nested = How {
            hops: how.hops + 1,
            whole: false,
        };
        if self.text.is_some() && self.ws()? != b'"' && how.hops < MAX_HOPS {
            // The text is known to be UTF-8: the value is parsed where it stands, with the
            // nesting limit afresh, as it would be on its own (one look at its bytes, not two).
            return self.value(nested, DEPTH);
        }
        let (raw, text) = self.raw_value()?;
        if raw[0] == b'"' {
            if !is_notice(raw) {
                return Some(Node::Null);
            }
            return Parser::new(raw, Some(text)).value(how, DEPTH);
        }
        if how.hops >= MAX_HOPS {
            return Some(Node::Null);
        }
        Parser::new(raw, Some(text)).value(nested, DEPTH)
    }

    /// The next value skipped, as its bytes and its text (which must be UTF-8 even where it is
    /// skipped, as serde_json reads a raw value as text).
    fn raw_value(&mut self) -> Option<(&'a [u8], &'a str)> {
        self.ws()?;
        let start = self.i;
        self.skip()?;
        let raw = &self.s[start..self.i];
        let text = match self.text {
            Some(text) => text.get(start..self.i)?,
            None => std::str::from_utf8(raw).ok()?,
        };
        Some((raw, text))
    }

    /// A string after its opening quote: borrowed from the text when it holds no escape.
    fn string(&mut self) -> Option<Cow<'a, str>> {
        let start = self.i;
        if !self.string_end()? {
            let end = self.i - 1;
            return match self.text {
                Some(text) => text.get(start..end),
                None => std::str::from_utf8(&self.s[start..end]).ok(),
            }
            .map(Cow::Borrowed);
        }
        // Escapes are rare in what is built: serde_json decodes them, surrogates and all.
        serde_json::from_slice::<String>(&self.s[start - 1..self.i])
            .ok()
            .map(Cow::Owned)
    }

    /// Past the closing quote of the string whose body starts here, every escape checked as
    /// serde_json checks an ignored string's; a control byte refuses it. Whether it held an
    /// escape. Every quote and backslash of a block is taken from the one look at it.
    fn string_end(&mut self) -> Option<bool> {
        #[cfg(target_arch = "x86_64")]
        if self.wide {
            // SAFETY: the CPU has AVX-512 F and BW (`wide`).
            return unsafe { self.string_end_avx512() };
        }
        self.string_end_narrow(self.i, false)
    }

    /// [`string_end`](Self::string_end) sixty-four bytes at a time, for a CPU with AVX-512 BW:
    /// a block's escapes are found all at once (as the reader's unescape finds them), so a
    /// string dense in escapes costs a look per block, not one per escape. The last bytes, fewer
    /// than a block, are left to the narrow scan.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn string_end_avx512(&mut self) -> Option<bool> {
        let s = self.s;
        let mut i = self.i;
        let mut escaped = false;
        while let Some(block) = s.get(i..i + 64) {
            let block: &[u8; 64] = block.try_into().ok()?;
            let m = json_text::wide_masks(block);
            if m.backslash | m.quote | m.controls == 0 {
                i += 64;
                continue;
            }
            let starts = json_text::escape_starts(m.backslash);
            // The string ends at a quote not escaped; a control byte, or an escape that goes on
            // past the block (its backslash is the block's last byte), stops the look too.
            let stray = m.quote & !(starts << 1);
            let stop = (u128::from(stray | m.controls | starts & 1 << 63) | 1 << 64)
                .trailing_zeros() as usize;
            let mut escapes = starts & json_text::low_bits(stop);
            if escapes != 0 {
                escaped = true;
                // Every escape before the stop must be one serde_json takes: its second byte one
                // of those below, or a `u` with four hex digits after it (looked at one by one).
                escapes &= !(json_text::wide_bytes_of(block, b"\"\\/bfnrt") >> 1);
                while escapes != 0 {
                    escape_len(s, i + escapes.trailing_zeros() as usize)?;
                    escapes &= escapes - 1;
                }
            }
            if stop == 64 {
                i += 64;
                continue;
            }
            let at = i + stop;
            match s[at] {
                b'"' => {
                    self.i = at + 1;
                    return Some(escaped);
                }
                b'\\' => {
                    escaped = true;
                    i = at + escape_len(s, at)?;
                }
                _ => return None,
            }
        }
        self.string_end_narrow(i, escaped)
    }

    /// [`string_end`](Self::string_end) from `i`, sixteen bytes at a time; `escaped`: an escape
    /// was seen before `i`.
    fn string_end_narrow(&mut self, i: usize, escaped: bool) -> Option<bool> {
        let s = self.s;
        let mut i = i;
        let mut escaped = escaped;
        while let Some(chunk) = s.get(i..i + 16) {
            let b = json_text::block(chunk.try_into().ok()?);
            if b.specials() == 0 {
                // A plain block: what follows is likely plain for a while too.
                i += 16;
                i += json_text::plain_run(&s[i..]).0;
                continue;
            }
            // Only what lies before the first control byte (exact: the lowest bit) counts.
            let controls = b.controls.trailing_zeros().min(16);
            let mut quotes = b.quotes & ((1 << controls) - 1);
            let mut next = 16;
            while quotes != 0 {
                let at = i + quotes.trailing_zeros() as usize;
                if s[at] == b'"' {
                    self.i = at + 1;
                    return Some(escaped);
                }
                escaped = true;
                next = at + escape_len(s, at)? - i;
                if next >= 16 {
                    break;
                }
                quotes &= !0 << next;
                next = 16;
            }
            if quotes == 0 && controls < 16 {
                return None;
            }
            i += next;
        }
        loop {
            match *s.get(i)? {
                b'"' => {
                    self.i = i + 1;
                    return Some(escaped);
                }
                b'\\' => {
                    escaped = true;
                    i += escape_len(s, i)?;
                }
                0..=0x1f => return None,
                _ => i += 1,
            }
        }
    }

    /// A number, read by serde_json but for a small whole one.
    fn number(&mut self) -> Option<Number> {
        let start = self.i;
        self.skip_number()?;
        let text = &self.s[start..self.i];
        if text.len() < 20 && text.iter().all(u8::is_ascii_digit) {
            let n = text.iter().fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
            return Some(n.into());
        }
        serde_json::from_slice(text).ok()
    }

    /// Past a number, checked as serde_json checks one it ignores (the grammar, not the range).
    fn skip_number(&mut self) -> Option<()> {
        let s = self.s;
        let digits = |i: usize| i + s[i..].iter().take_while(|b| b.is_ascii_digit()).count();
        let mut i = self.i + usize::from(s[self.i] == b'-');
        i = match s.get(i)? {
            b'0' if s.get(i + 1).is_some_and(u8::is_ascii_digit) => return None,
            b'0' => i + 1,
            b'1'..=b'9' => digits(i + 1),
            _ => return None,
        };
        if s.get(i) == Some(&b'.') {
            let end = digits(i + 1);
            if end == i + 1 {
                return None;
            }
            i = end;
        }
        if matches!(s.get(i), Some(b'e' | b'E')) {
            i += 1 + usize::from(matches!(s.get(i + 1), Some(b'+' | b'-')));
            let end = digits(i);
            if end == i {
                return None;
            }
            i = end;
        }
        self.i = i;
        Some(())
    }

    /// Past one value, built into nothing and checked as serde_json checks a value it ignores
    /// (its strings' escapes, not their UTF-8). Arrays and objects are followed on a stack, not
    /// by recursion: there is no limit to how deep they may go.
    fn skip(&mut self) -> Option<()> {
        self.open.clear();
        loop {
            match self.ws()? {
                b'"' => {
                    self.i += 1;
                    self.string_end()?;
                }
                open @ (b'[' | b'{') => {
                    self.i += 1;
                    let close = if open == b'[' { b']' } else { b'}' };
                    if !self.take(close)? {
                        self.open.push(open);
                        if open == b'{' {
                            self.skip_key()?;
                        }
                        continue;
                    }
                }
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b'n' => self.literal(b"null")?,
                b'-' | b'0'..=b'9' => self.skip_number()?,
                _ => return None,
            }
            // A value is over: close what it ended, or go on to the next.
            loop {
                let Some(&open) = self.open.last() else {
                    return Some(());
                };
                match (self.ws()?, open) {
                    (b',', b'[') => {
                        self.i += 1;
                        break;
                    }
                    (b',', _) => {
                        self.i += 1;
                        self.skip_key()?;
                        break;
                    }
                    (b']', b'[') | (b'}', b'{') => {
                        self.i += 1;
                        self.open.pop();
                    }
                    _ => return None,
                }
            }
        }
    }

    /// Past an object key and its colon.
    fn skip_key(&mut self) -> Option<()> {
        self.expect(b'"')?;
        self.string_end()?;
        self.expect(b':')
    }
}

/// The length of the escape whose backslash is at `at`, when serde_json takes it (any four hex
/// digits after `\u`: a lone surrogate is refused only where a string is built).
fn escape_len(s: &[u8], at: usize) -> Option<usize> {
    match s.get(at + 1)? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(2),
        b'u' if s.get(at + 2..at + 6)?.iter().all(u8::is_ascii_hexdigit) => Some(6),
        _ => None,
    }
}
