//! The scans' JSON parse: a tree of [`Node`]s holding only what some scan reads. Every object key
//! the scans look up is kept (its value pruned the same way); the argument containers are kept
//! whole (their keys are the tool's own); everything else is skipped without being built (tool
//! outputs, file contents, usage blocks, the duplicated `toolUseResult` of a transcript). A
//! `content` string is dropped too: the scans only read `content` as a list of blocks.
//!
//! Skipping costs a scan of the bytes, building costs an allocation per array and object (and
//! per string that holds an escape): on recorded streams most bytes are in the skipped parts. The
//! tree borrows its keys and plain strings from the line, and an object is a list of its entries
//! (a pruned object has a handful), so nothing is hashed; what a scan keeps of it becomes a
//! `serde_json::Value` only then ([`Node::to_value`]). A line that is not JSON is still refused
//! as a whole.
//!
//! The parser is written here rather than driven through serde_json's deserializer, for speed:
//! a skipped string costs one look per sixteen bytes and per escape, not a call per escape. It
//! refuses and reads exactly what serde_json does: it hands serde_json what is rare and subtle
//! (escaped strings it keeps, numbers that are not small whole ones), and property tests hold it
//! to the serde_json-driven parse it replaced (`pruned_oracle.rs`, compiled for the tests only).
//!
//! When a scan starts reading a new key, add it to [`keep`] (as whole if its keys are not known
//! in advance): the scans' tests run through this parse, so a missing key fails them.

use std::borrow::Cow;
use std::fmt;

use serde_json::{Map, Number, Value};

use super::MEANINGFUL_KEYS;
use crate::stream::json_text;

#[cfg(test)]
#[path = "pruned_oracle.rs"]
mod oracle;

/// A JSON value as the scans read it, borrowing from the line it was parsed from. An object's
/// entries keep their first position and last value, as in a `serde_json::Value` of the same
/// text, so a key given twice reads the same either way.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Node<'a> {
    Null,
    Bool(bool),
    Number(Number),
    String(Cow<'a, str>),
    Array(Vec<Node<'a>>),
    Object(Vec<(Cow<'a, str>, Node<'a>)>),
}

impl<'a> Node<'a> {
    /// The value under `key` of an object.
    pub(crate) fn get(&self, key: &str) -> Option<&Node<'a>> {
        self.as_object()?
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Node::String(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn as_bool(&self) -> Option<bool> {
        match self {
            Node::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub(crate) fn as_i64(&self) -> Option<i64> {
        match self {
            Node::Number(n) => n.as_i64(),
            _ => None,
        }
    }

    pub(crate) fn as_array(&self) -> Option<&[Node<'a>]> {
        match self {
            Node::Array(a) => Some(a),
            _ => None,
        }
    }

    pub(crate) fn as_object(&self) -> Option<&[(Cow<'a, str>, Node<'a>)]> {
        match self {
            Node::Object(o) => Some(o),
            _ => None,
        }
    }

    pub(crate) fn is_object(&self) -> bool {
        matches!(self, Node::Object(_))
    }

    /// True for values that say nothing: null, "", {}, [].
    pub(crate) fn is_empty(&self) -> bool {
        match self {
            Node::Null => true,
            Node::String(s) => s.is_empty(),
            Node::Object(o) => o.is_empty(),
            Node::Array(a) => a.is_empty(),
            Node::Bool(_) | Node::Number(_) => false,
        }
    }

    /// The same value as a `serde_json::Value` (what a scan keeps of a call's arguments).
    pub(crate) fn to_value(&self) -> Value {
        match self {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Bool(*b),
            Node::Number(n) => Value::Number(n.clone()),
            Node::String(s) => Value::String(s.as_ref().to_owned()),
            Node::Array(a) => Value::Array(a.iter().map(Node::to_value).collect()),
            Node::Object(o) => Value::Object(
                o.iter()
                    .map(|(k, v)| (k.as_ref().to_owned(), v.to_value()))
                    .collect::<Map<String, Value>>(),
            ),
        }
    }
}

/// JSON text, as a `serde_json::Value` of the same value prints (a request id as a map key).
impl fmt::Display for Node<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.to_value(), f)
    }
}

/// What to do with the value under a key.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Keep {
    /// Build it, pruning the objects inside it.
    Pruned,
    /// Build it whole.
    Whole,
    /// Build it pruned, but drop it if it is a string.
    NoString,
    /// Do not build it.
    Skip,
}

fn keep(key: &str) -> Keep {
    // A match on the key compiles to a switch on its length, then a comparison or two.
    match key {
        "content" => Keep::NoString,
        "Err" | "Ok" | "action" | "callID" | "call_id" | "content_block" | "data" | "error"
        | "event" | "exit" | "exitCode" | "exit_code" | "id" | "isError" | "is_backgrounded"
        | "is_error" | "item" | "itemId" | "kind" | "message" | "messages" | "metadata"
        | "method" | "msg" | "name" | "namespace" | "optionId" | "options" | "outcome"
        | "output" | "params" | "part" | "parts" | "payload" | "properties" | "reason"
        | "result" | "server" | "sessionID" | "sessionId" | "sessionUpdate" | "state"
        | "status" | "stopReason" | "subtype" | "success" | "threadId" | "tool" | "toolCall"
        | "toolCallId" | "toolName" | "tool_use_id" | "turnId" | "type" | "update"
        | "working_directory" => Keep::Pruned,
        "_meta" | "arguments" | "changes" | "input" | "invocation" | "rawInput" => Keep::Whole,
        k if MEANINGFUL_KEYS.contains(&k) => Keep::Pruned,
        _ => Keep::Skip,
    }
}

/// Parse `bytes` as JSON, keeping only what the scans read (see the module's documentation).
pub(crate) fn parse(bytes: &[u8]) -> Option<Node<'_>> {
    Parser::new(bytes, std::str::from_utf8(bytes).ok()).top(How {
        hops: 0,
        whole: false,
    })
}

/// Parse `text` as JSON, keeping all of it (a call's arguments given as a JSON string).
pub(crate) fn parse_whole(text: &str) -> Option<Node<'_>> {
    Parser::new(text.as_bytes(), Some(text)).top(How {
        hops: 0,
        whole: true,
    })
}

/// How many `content` values, one inside another, are parsed on their own. Each such parse has
/// the nesting limit afresh, so without a cap a line of nested `content` lists nests parses until
/// the stack overflows. Real streams nest two; deeper ones are dropped.
const MAX_HOPS: u8 = 8;

/// How many arrays and objects a parse builds one inside another, as serde_json counts them
/// (127: a 128th is refused). Values that are skipped are not built and not counted.
const DEPTH: u8 = 128;

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
/// and each costs one look at the sixteen bytes after it.
struct Parser<'a> {
    s: &'a [u8],
    /// The same bytes as text, when they are UTF-8 (checked once, in one pass): a string is
    /// then borrowed without a check of its own.
    text: Option<&'a str>,
    i: usize,
    /// The arrays and objects being skipped, innermost last.
    open: Vec<u8>,
}

impl<'a> Parser<'a> {
    fn new(s: &'a [u8], text: Option<&'a str>) -> Self {
        Parser {
            s,
            text,
            i: 0,
            open: Vec::new(),
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

    /// Take `b` as the next byte after white space.
    fn expect(&mut self, b: u8) -> Option<()> {
        if self.ws()? != b {
            return None;
        }
        self.i += 1;
        Some(())
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
        if self.ws()? == b']' {
            self.i += 1;
            return Some(Node::Array(out));
        }
        loop {
            out.push(self.value(how, depth)?);
            match self.ws()? {
                b',' => self.i += 1,
                b']' => break,
                _ => return None,
            }
        }
        self.i += 1;
        Some(Node::Array(out))
    }

    fn object(&mut self, how: How, depth: u8) -> Option<Node<'a>> {
        let mut out = Vec::new();
        if self.ws()? == b'}' {
            self.i += 1;
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
            }
            match self.ws()? {
                b',' => self.i += 1,
                b'}' => break,
                _ => return None,
            }
        }
        self.i += 1;
        dedupe(&mut out);
        Some(Node::Object(out))
    }

    /// A `content` value: skipped first, so that a long string is never unescaped; then, unless
    /// it is a string (or lies too many `content`s deep), parsed on its own with a nesting limit
    /// afresh. Its text must be UTF-8 even where it is skipped, as serde_json reads it as text.
    fn no_string(&mut self, how: How) -> Option<Node<'a>> {
        self.ws()?;
        let start = self.i;
        self.skip()?;
        let raw = &self.s[start..self.i];
        let text = match self.text {
            Some(text) => text.get(start..self.i)?,
            None => std::str::from_utf8(raw).ok()?,
        };
        if raw[0] == b'"' || how.hops >= MAX_HOPS {
            return Some(Node::Null);
        }
        Parser::new(raw, Some(text)).value(
            How {
                hops: how.hops + 1,
                whole: false,
            },
            DEPTH,
        )
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
        let s = self.s;
        let mut i = self.i;
        let mut escaped = false;
        while let Some(chunk) = s.get(i..i + 16) {
            let b = json_text::block(chunk.try_into().ok()?);
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
                    if self.ws()? != close {
                        self.open.push(open);
                        if open == b'{' {
                            self.skip_key()?;
                        }
                        continue;
                    }
                    self.i += 1;
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

/// Give a key that came more than once its first position and its last value, as a
/// `serde_json::Value` map does. Checked pairwise in a small object, by sorting in a large one
/// (never quadratic); rebuilt only when a key did repeat.
fn dedupe<'a>(entries: &mut Vec<(Cow<'a, str>, Node<'a>)>) {
    let n = entries.len();
    let repeats = if n <= 8 {
        (1..n).any(|i| entries[..i].iter().any(|(k, _)| *k == entries[i].0))
    } else {
        let mut keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_ref()).collect();
        keys.sort_unstable();
        keys.windows(2).any(|w| w[0] == w[1])
    };
    if !repeats {
        return;
    }
    let mut at: crate::rules::support::HashMap<String, usize> = Default::default();
    let mut out: Vec<(Cow<'a, str>, Node<'a>)> = Vec::with_capacity(n);
    for (k, v) in entries.drain(..) {
        match at.get(k.as_ref()) {
            Some(&i) => out[i].1 = v,
            None => {
                at.insert(k.as_ref().to_owned(), out.len());
                out.push((k, v));
            }
        }
    }
    *entries = out;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_what_scans_read_and_drops_the_rest() {
        let v = parse(
            br#"{"type":"user","toolUseResult":{"stdout":"big"},"message":{"content":[{"type":"tool_result","tool_use_id":"t","is_error":true,"content":"long output"},{"type":"tool_use","id":"u","input":{"any key":{"deep":[1,"x"]}}}]}}"#,
        )
        .unwrap();
        assert_eq!(
            v.to_value(),
            serde_json::json!({"type":"user","message":{"content":[
                {"type":"tool_result","tool_use_id":"t","is_error":true,"content":null},
                {"type":"tool_use","id":"u","input":{"any key":{"deep":[1,"x"]}}}
            ]}})
        );
    }

    #[test]
    fn nested_content_lists_end_at_a_fixed_depth() {
        // 100,000 `content` lists one inside another: no stack overflow, the line still reads,
        // with what lies deeper than MAX_HOPS dropped.
        let depth = 100_000;
        let mut line = "{\"content\":[".repeat(depth);
        line.push_str(&"]}".repeat(depth));
        let v = parse(line.as_bytes()).expect("the line reads");
        let mut at = &v;
        let mut hops = 0;
        while let Some(inner) = at
            .get("content")
            .and_then(Node::as_array)
            .and_then(|c| c.first())
        {
            at = inner;
            hops += 1;
        }
        assert_eq!(hops, usize::from(MAX_HOPS));
        let shallow =
            parse(br#"{"content":[{"content":[{"type":"tool_result","tool_use_id":"t"}]}]}"#);
        assert_eq!(
            shallow.map(|v| v.to_value()),
            Some(
                serde_json::json!({"content":[{"content":[{"type":"tool_result","tool_use_id":"t"}]}]})
            )
        );
    }

    #[test]
    fn refuses_what_is_not_one_json_value() {
        assert!(parse(b"{\"type\":").is_none());
        assert!(parse(b"{\"a\":1} {\"b\":2}").is_none());
        assert!(parse(b"{\"skipped\":[1,}").is_none());
        assert_eq!(parse(b" 3 ").map(|v| v.to_value()), Some(Value::from(3)));
        assert_eq!(parse(b"1.5").map(|v| v.to_value()), Some(Value::from(1.5)));
    }

    #[test]
    fn nesting_is_limited_where_serde_json_limits_it() {
        let kept =
            |depth: usize| format!("{{\"input\":{}{}}}", "[".repeat(depth), "]".repeat(depth));
        for depth in 125..=129 {
            let line = kept(depth);
            assert_eq!(
                parse(line.as_bytes()),
                oracle::parse(line.as_bytes()),
                "{depth}"
            );
        }
        assert!(parse(kept(126).as_bytes()).is_some());
        assert!(parse(kept(127).as_bytes()).is_none());
        // What is skipped is not built, and may go as deep as it likes.
        let skipped = format!(
            "{{\"skipped\":{}1{}}}",
            "[{\"a\":".repeat(100_000),
            "}]".repeat(100_000)
        );
        assert!(parse(skipped.as_bytes()).is_some());
        assert_eq!(parse(skipped.as_bytes()), oracle::parse(skipped.as_bytes()));
    }

    #[test]
    fn numbers_at_the_edges_read_as_serde_json_reads_them() {
        for n in [
            "0",
            "-0",
            "7",
            "-7",
            "1234567890123456789",
            "9999999999999999999",
            "18446744073709551615",
            "18446744073709551616",
            "99999999999999999999",
            "-9223372036854775808",
            "-9223372036854775809",
            "1.5",
            "-0.0",
            "1e308",
            "1e309",
            "1E-400",
            "2.5e+3",
            "01",
            "1.",
            "-",
            "1e",
            ".5",
        ] {
            let line = format!("{{\"input\":[{n}],\"skipped\":{n}}}");
            let ours = parse(line.as_bytes());
            assert_eq!(ours, oracle::parse(line.as_bytes()), "{n}");
            if let Some(v) = ours {
                let theirs: Value = serde_json::from_str(&line).unwrap();
                assert_eq!(v.get("input").unwrap().to_value(), theirs["input"], "{n}");
            }
        }
    }

    /// Every line of the shipped corpus reads as serde_json reads it.
    #[test]
    fn the_shipped_corpus_reads_as_serde_json_reads_it() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
        let mut lines = 0;
        for f in crate::corpus::list_fixtures(&root) {
            let stream = crate::corpus::load_stream(&f.path).unwrap();
            for line in stream.input().lines.iter() {
                let bytes = line.bytes.strip_prefix(b"data:").unwrap_or(line.bytes);
                assert_eq!(
                    parse(bytes),
                    oracle::parse(bytes),
                    "{}:{}",
                    f.rel,
                    line.number
                );
                lines += 1;
            }
        }
        assert!(lines > 1000, "{lines} lines");
    }

    /// What a `serde_json::Value` of the line holds under `input` (a key kept whole).
    fn as_value_does(line: &str) -> (Value, Value) {
        let ours = parse(line.as_bytes()).unwrap();
        let theirs: Value = serde_json::from_str(line).unwrap();
        (
            ours.get("input").unwrap().to_value(),
            theirs["input"].clone(),
        )
    }

    #[test]
    fn a_repeated_key_keeps_its_first_place_and_last_value() {
        let small = r#"{"input":{"a":1,"b":2,"a":3}}"#;
        let (ours, theirs) = as_value_does(small);
        assert_eq!(ours, theirs);
        assert_eq!(serde_json::to_string(&ours).unwrap(), r#"{"a":3,"b":2}"#);
        // Past the pairwise check: twelve keys, one of them three times.
        let keys: Vec<String> = (0..12).map(|i| format!("\"k{i}\":{i}")).collect();
        let large = format!(
            r#"{{"input":{{{},"k3":"x","k0":[],"k3":null}}}}"#,
            keys.join(",")
        );
        let (ours, theirs) = as_value_does(&large);
        assert_eq!(
            serde_json::to_string(&ours).unwrap(),
            serde_json::to_string(&theirs).unwrap()
        );
        // Lookups see the last value too, in a pruned object as in a whole one.
        let v = parse(br#"{"id":"first","id":"last"}"#).unwrap();
        assert_eq!(v.get("id").and_then(Node::as_str), Some("last"));
    }

    #[test]
    fn strings_with_escapes_and_every_number_read_as_a_value_does() {
        let (ours, theirs) = as_value_does(
            r#"{"input":{"s":"a\"b\u00e9\n","i":-3,"u":18446744073709551615,"f":1.5e300,"z":-0.0}}"#,
        );
        assert_eq!(ours, theirs);
    }

    fn json() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        crate::compare::canonical::json_leaf().prop_recursive(4, 40, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                proptest::collection::vec(("[a-c\"\\\\]{0,2}", inner), 0..12).prop_map(|kv| {
                    // Written by hand below, so keys may repeat.
                    Value::Array(
                        kv.into_iter()
                            .map(|(k, v)| Value::Array(vec![Value::from(k), v]))
                            .collect(),
                    )
                }),
            ]
        })
    }

    /// JSON text of `v`, where an array of `[key, value]` pairs is written as an object (keys may
    /// repeat, as they may on a raw line).
    fn text(v: &Value, out: &mut String) {
        match v {
            Value::Array(items)
                if !items.is_empty()
                    && items.iter().all(|p| {
                        p.as_array()
                            .is_some_and(|p| p.len() == 2 && p[0].is_string())
                    }) =>
            {
                out.push('{');
                for (i, p) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&p[0].to_string());
                    out.push(':');
                    text(&p[1], out);
                }
                out.push('}');
            }
            Value::Array(items) => {
                out.push('[');
                for (i, x) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    text(x, out);
                }
                out.push(']');
            }
            Value::String(t) if t.starts_with(RAW) => out.push_str(&t[RAW.len()..]),
            other => out.push_str(&other.to_string()),
        }
    }

    /// The node holds the value's entries, in its order, and nothing else (checked entry by
    /// entry, not through [`Node::to_value`], whose map would hide a repeated key).
    fn same(node: &Node<'_>, value: &Value) -> bool {
        match (node, value) {
            (Node::Object(entries), Value::Object(map)) => {
                entries.len() == map.len()
                    && entries
                        .iter()
                        .zip(map)
                        .all(|((k, v), (mk, mv))| k == mk && same(v, mv))
            }
            (Node::Array(items), Value::Array(values)) => {
                items.len() == values.len() && items.iter().zip(values).all(|(n, v)| same(n, v))
            }
            (Node::Object(_) | Node::Array(_), _) => false,
            (scalar, value) => scalar.to_value() == *value,
        }
    }

    /// Keys the scans keep in every way ([`keep`]), and keys they skip.
    fn key() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        prop_oneof![
            Just("content".to_owned()),
            Just("input".to_owned()),
            Just("arguments".to_owned()),
            Just("type".to_owned()),
            Just("id".to_owned()),
            Just("message".to_owned()),
            Just("toolUseResult".to_owned()),
            "[a-c\"\\\\\u{e9}]{0,2}",
        ]
    }

    /// Values whose objects (arrays of `[key, value]` pairs, see [`text`]) use [`key`].
    fn keyed_json() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            3 => crate::compare::canonical::json_leaf(),
            1 => string_text(false).prop_map(|t| {
                Value::from(format!("{RAW}{}", String::from_utf8_lossy(&t)))
            }),
        ];
        leaf.prop_recursive(5, 48, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                proptest::collection::vec((key(), inner), 1..6).prop_map(|kv| {
                    Value::Array(
                        kv.into_iter()
                            .map(|(k, v)| Value::Array(vec![Value::from(k), v]))
                            .collect(),
                    )
                }),
            ]
        })
    }

    /// Bytes that JSON text goes wrong with, or that the parse must read exactly.
    fn fragment() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let words: &[&[u8]] = &[
            b"{",
            b"}",
            b"[",
            b"]",
            b",",
            b":",
            b"\"",
            b"\\",
            b" ",
            b"\n",
            b"\t",
            b"\x0c",
            b"\\u00e9",
            b"\\ud83d\\ude00",
            b"\\ud800",
            b"\\udc00x",
            b"\\u12g4",
            b"\\x",
            b"\\/",
            b"\x00",
            b"\x1f",
            b"\x7f",
            b"\xc3\xa9",
            b"\xff",
            b"\xe2\x82",
            b"0",
            b"-0",
            b"01",
            b"1.",
            b"1.5",
            b"1e400",
            b"-1E-5",
            b"1e+",
            b"-",
            b"18446744073709551616",
            b"99999999999999999999",
            b"true",
            b"nul",
            b"null",
            b"\"content\":",
            b"\"input\":",
            b"\"type\":\"x\"",
            b"data:",
        ];
        prop_oneof![
            proptest::sample::select(words).prop_map(<[u8]>::to_vec),
            any::<u8>().prop_map(|b| vec![b]),
            string_text(true),
        ]
    }

    /// A string's text, quotes included, of plain runs and every kind of escape, right and
    /// wrong, and (with `bytes`) bytes that are not UTF-8.
    fn string_text(bytes: bool) -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let escapes: &[&[u8]] = &[
            br#"\""#,
            br"\\",
            br"\/",
            br"\b",
            br"\f",
            br"\n",
            br"\r",
            br"\t",
            br"\u00e9",
            br"\uD83D\uDE00",
            br"\ud800",
            br"\udc00",
            br"\u12g4",
            br"\u12",
            br"\x",
            br"\",
            b"\x00",
            b"\x1f",
            b"\xc3\xa9",
            b"\x7f",
        ];
        let not_utf8: &[&[u8]] = if bytes { &[b"\xff", b"\xc3"] } else { &[b"e"] };
        let piece = prop_oneof![
            "[a-z ]{1,24}".prop_map(String::into_bytes),
            proptest::sample::select(escapes).prop_map(<[u8]>::to_vec),
            proptest::sample::select(not_utf8).prop_map(<[u8]>::to_vec),
        ];
        proptest::collection::vec(piece, 0..8).prop_map(|pieces| {
            let mut out = b"\"".to_vec();
            out.extend(pieces.concat());
            out.push(b'"');
            out
        })
    }

    /// A string of [`keyed_json`] that starts with this is written as the text after it, not
    /// as a JSON string.
    const RAW: &str = "\u{0}raw:";

    /// JSON text of `v` (see [`text`]) with a few bytes changed: a fragment put in, a run taken
    /// out, a byte replaced. Most of it is still nearly JSON, so both parses go deep before
    /// they refuse (or read) it.
    fn mutated() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        (
            keyed_json(),
            proptest::collection::vec((any::<usize>(), 0..3u8, fragment()), 0..4),
        )
            .prop_map(|(v, edits)| {
                let mut line = String::new();
                text(&v, &mut line);
                let mut bytes = line.into_bytes();
                for (at, how, frag) in edits {
                    let at = at % (bytes.len() + 1);
                    match how {
                        0 => {
                            bytes.splice(at..at, frag);
                        }
                        1 => {
                            let end = (at + frag.len()).min(bytes.len());
                            bytes.drain(at..end);
                        }
                        _ => {
                            if let Some(b) = bytes.get_mut(at) {
                                *b = frag[0];
                            }
                        }
                    }
                }
                bytes
            })
    }

    proptest::proptest! {
        // Each case is cheap, and a wrong escape or number takes a few thousand to turn up.
        #![proptest_config(proptest::test_runner::Config::with_cases(2000))]

        /// A value kept whole reads exactly as serde_json reads it, repeated keys included.
        #[test]
        fn a_whole_value_is_what_serde_json_reads(v in json()) {
            let mut line = String::from("{\"input\":");
            text(&v, &mut line);
            line.push('}');
            let ours = parse(line.as_bytes()).unwrap();
            let theirs: Value = serde_json::from_str(&line).unwrap();
            proptest::prop_assert!(same(ours.get("input").unwrap(), &theirs["input"]));
        }

        /// The hand-written parse refuses what serde_json refuses and reads what it reads, on
        /// JSON with keys the scans keep, skip and re-parse, and on that JSON a few bytes
        /// wrong.
        #[test]
        fn the_parse_is_serde_json_s(bytes in mutated()) {
            proptest::prop_assert_eq!(parse(&bytes), oracle::parse(&bytes));
            if let Ok(text) = std::str::from_utf8(&bytes) {
                proptest::prop_assert_eq!(parse_whole(text), oracle::parse_whole(text));
            }
        }

        /// And on any run of the bytes JSON goes wrong with.
        #[test]
        fn the_parse_is_serde_json_s_on_fragments(
            frags in proptest::collection::vec(fragment(), 0..24)
        ) {
            let bytes = frags.concat();
            proptest::prop_assert_eq!(parse(&bytes), oracle::parse(&bytes));
        }
    }
}
