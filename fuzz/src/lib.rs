//! What each fuzz target checks, through toolnorm's public API only. Every target asserts more
//! than "no panic": the properties below hold for any input, so a failed assertion is a bug.
//!
//! - [`dialect`]: a forced dialect normalizes any bytes (bad lines become diagnostics, never an
//!   error); the document serializes, its canonical JSON parses back to the same value, every
//!   event points at a line of the input and every diagnostic at most where the input ends (0 is
//!   the container), and the rules' own
//!   scan and every rule run on it; a finding points at a line of the input.
//! - [`fixture_reader`]: the fixture reader on the bytes as given and, when they are not zstd,
//!   on their zstd compression (so the fuzzer reaches the record parser through the checksum);
//!   what it reads loads as a stream whose spans lie inside its buffer; and the bytes, cut into
//!   lines and written as a fixture (escaped sixteen bytes at a time), read back exactly.
//! - [`redactor`]: every line redacted (state carried over lines, as the recorder does) leaves
//!   nothing the secret lint finds, and redacting again changes nothing.
//! - [`expectations`]: any text parses or is refused with an error, and a parsed file applies to
//!   a fixture and lists its unused entries.

use toolnorm::corpus::LoadedStream;
use toolnorm::corpus::redact::{RedactOptions, Redactor};
use toolnorm::report::Violation;
use toolnorm::rules::{RuleContext, check_all};
use toolnorm::verify::expectations::{Expectations, FixtureKey};
use toolnorm::{Dialect, Input, NormalizeOptions};

/// See the module's documentation.
pub fn dialect(dialect: Dialect, data: &[u8]) {
    let input = Input::from_bytes(data);
    let doc = toolnorm::normalize(
        &input,
        NormalizeOptions {
            provider: Some(dialect.provider()),
            dialect: Some(dialect),
            cwd: Some("/work"),
        },
    )
    .expect("a forced dialect of its own provider always normalizes");
    let last = input.lines.last().map_or(0, |l| l.number);
    for e in &doc.events {
        assert!(e.line <= last, "event at line {} of {last}", e.line);
    }
    // A diagnostic may point where the input ends (a document cut short): the line after the
    // last newline.
    let end = data.iter().filter(|b| **b == b'\n').count() as u32 + 1;
    for d in &doc.diagnostics {
        assert!(d.line <= end, "diagnostic at line {} of {end}", d.line);
    }
    let value = serde_json::to_value(&doc).expect("the document serializes");
    let canonical = toolnorm::compare::canonical_json(&value);
    let back: serde_json::Value = serde_json::from_str(&canonical).expect("canonical JSON parses");
    assert_eq!(back, value, "canonical JSON is the same value");
    let raw = toolnorm::dialects::scan(&input, dialect);
    let cx = RuleContext::new(dialect, &input, &doc, &raw);
    for (rule, finding) in check_all(&cx) {
        if let Some(line) = finding.line {
            assert!(
                line >= 1 && line <= last,
                "{} points at line {line} of {last}",
                rule.code()
            );
        }
    }
}

/// See the module's documentation.
pub fn fixture_reader(data: &[u8]) {
    read(data);
    if !data.starts_with(&toolnorm::corpus::reader::ZSTD_MAGIC) {
        if let Ok(compressed) = zstd::encode_all(data, 1) {
            read(&compressed);
        }
    }
    round_trip(data);
}

/// `data` cut into lines (the last one unterminated), written as a fixture and read back: the
/// same lines, byte for byte.
fn round_trip(data: &[u8]) {
    use toolnorm::corpus::writer::FixtureWriter;
    use toolnorm::stream::Direction;
    let lines: Vec<(&[u8], bool)> = data
        .split_inclusive(|b| *b == b'\n')
        .map(|l| match l.strip_suffix(b"\n") {
            Some(line) => (line, true),
            None => (l, false),
        })
        .collect();
    let header = toolnorm::corpus::format::new_header("claude", "fuzz");
    let mut w = FixtureWriter::new(Vec::new(), &header).expect("a writer on memory");
    for (t, (line, terminated)) in lines.iter().enumerate() {
        w.push_line(t as u64, Direction::Agent, line, *terminated)
            .expect("writing to memory");
    }
    let out = w
        .finish(toolnorm::corpus::Trailer::default())
        .expect("finishing in memory");
    let back = toolnorm::corpus::reader::read_fixture_bytes(&out).expect("what was written reads");
    let got: Vec<(&[u8], bool)> = back
        .lines
        .iter()
        .map(|l| (l.bytes.as_slice(), l.terminated))
        .collect();
    assert_eq!(got, lines, "the lines written read back exactly");
}

fn read(bytes: &[u8]) {
    let fixture = toolnorm::corpus::reader::read_fixture_bytes(bytes);
    let stream = LoadedStream::from_fixture_bytes(bytes);
    assert_eq!(
        fixture.is_ok(),
        stream.is_ok(),
        "the reader and the loader agree on what is a fixture"
    );
    if let Ok(stream) = stream {
        for &(start, end, _, _, number) in stream.spans() {
            assert!(start <= end && end <= stream.bytes().len());
            assert!(number >= 1 && number <= stream.line_count);
        }
        let input = stream.input();
        assert_eq!(input.lines.len(), stream.spans().len());
    }
}

/// See the module's documentation.
pub fn redactor(data: &[u8]) {
    thread_local! {
        static REDACTOR: Redactor = Redactor::new(&RedactOptions {
            home: Some("/home/fuzz".to_owned()),
            prefixes: vec![("/tmp/scratch".to_owned(), "/work".to_owned())],
            extra: Vec::new(),
        })
        .expect("the built-in patterns compile");
    }
    REDACTOR.with(|r| {
        let mut state = r.state();
        for line in data.split(|b| *b == b'\n') {
            let once = r.redact(line, &mut state).into_owned();
            let found = r.find(&once);
            assert!(
                found.is_empty(),
                "a secret survives redaction: {found:?} in {:?}",
                String::from_utf8_lossy(&once)
            );
            let mut fresh = r.state();
            let twice = r.redact(&once, &mut fresh);
            assert_eq!(
                String::from_utf8_lossy(&twice),
                String::from_utf8_lossy(&once),
                "redaction is idempotent"
            );
        }
    });
}

/// See the module's documentation.
pub fn expectations(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let codes: Vec<&str> = toolnorm::rules::registry()
        .iter()
        .map(|r| r.code())
        .collect();
    let Ok(exp) = Expectations::parse(&text, "expectations.toml", &codes) else {
        return;
    };
    let key = FixtureKey {
        provider: "claude",
        name: "live-coding",
        path: "claude/live-coding.jsonl.zst",
    };
    let mut violations: Vec<Violation> = codes
        .iter()
        .map(|code| Violation {
            rule: (*code).to_owned(),
            rule_name: String::new(),
            provider: "claude".to_owned(),
            fixture: "claude/live-coding".to_owned(),
            line: Some(1),
            part_id: None,
            message: String::new(),
            known: false,
            reason: None,
        })
        .collect();
    let fixed = exp.apply(key, &mut violations);
    for rule in &fixed {
        assert!(!exp.entries_for(key, rule).is_empty());
    }
    let _ = exp.unused(std::iter::once(key));
}
