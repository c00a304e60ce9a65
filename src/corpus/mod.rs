//! The corpus: the versioned fixture format (zstd JSONL), its reader and writer, the recorder,
//! redaction and import. This is a shell around the pure core: it does the file and process I/O.

pub mod confined;
mod fast_record;
pub mod format;
pub mod import;
pub mod lint;
pub mod listing;
pub mod reader;
pub mod record;
pub mod redact;
pub mod writer;

use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::stream::{Direction, Input, RawLine};
pub use format::{FORMAT_VERSION, Header, LineRecord, Trailer};
pub use listing::FixtureIndex;
pub use reader::{Fixture, FixtureError, Line, read_fixture};

/// A line's place in a [`LoadedStream`]: (start, end without terminator, direction, had a
/// newline, 1-based line number).
type Span = (usize, usize, Direction, bool, u32);

/// Buffers a thread keeps for its next fixture: a dropped [`LoadedStream`] leaves its two here,
/// emptied, and the next one loaded on the thread starts from them; the compressed bytes and the
/// decoder's chunk are kept the same way. Loading fixture after fixture then neither asks the
/// allocator for fresh pages nor copies a growing buffer each time. Buffers larger than
/// [`SPARE_CAP`] bytes are let go.
mod spare {
    use std::cell::Cell;
    use std::thread::LocalKey;

    use super::Span;

    pub(super) const SPARE_CAP: usize = 64 << 20;

    thread_local! {
        static LINES: Cell<(Vec<u8>, Vec<Span>)> = const { Cell::new((Vec::new(), Vec::new())) };
        static BYTES: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
        static CHUNK: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
    }

    /// The thread's spare line buffers, empty.
    pub(super) fn lines() -> (Vec<u8>, Vec<Span>) {
        LINES.try_with(Cell::take).unwrap_or_default()
    }

    pub(super) fn keep_lines(mut bytes: Vec<u8>, mut spans: Vec<Span>) {
        if bytes.capacity() + spans.capacity() * size_of::<Span>() <= SPARE_CAP {
            bytes.clear();
            spans.clear();
            let _ = LINES.try_with(|c| c.set((bytes, spans)));
        }
    }

    /// Run `f` on the thread's spare byte buffer, empty (a fixture's compressed bytes).
    pub(super) fn with_bytes<T>(f: impl FnOnce(&mut Vec<u8>) -> T) -> T {
        with(&BYTES, |buf| {
            buf.clear();
            f(buf)
        })
    }

    /// Run `f` on the thread's spare window for decoded data, as the last use left it (its
    /// bytes are not zeroed again for every fixture).
    pub(super) fn with_chunk<T>(f: impl FnOnce(&mut Vec<u8>) -> T) -> T {
        with(&CHUNK, f)
    }

    /// The buffer is taken out while in use: a nested use gets a fresh one.
    fn with<T>(slot: &'static LocalKey<Cell<Vec<u8>>>, f: impl FnOnce(&mut Vec<u8>) -> T) -> T {
        let mut buf = slot.try_with(Cell::take).unwrap_or_default();
        let out = f(&mut buf);
        if buf.capacity() <= SPARE_CAP {
            let _ = slot.try_with(|c| c.set(buf));
        }
        out
    }
}

/// A raw stream loaded into memory, ready to normalize: the lines that hold something (blank
/// lines are counted, never stored: a stream of blank lines costs nothing) and where each starts.
#[derive(Debug, Default)]
pub struct LoadedStream {
    /// The stream's non-blank lines, each followed by its `\n` when it had one
    /// ([`LoadedStream::bytes`]).
    bytes: Vec<u8>,
    /// (start, end without terminator, direction, had a newline, 1-based line number as `toolnorm
    /// cat` prints it), for non-blank lines only ([`LoadedStream::spans`]).
    spans: Vec<Span>,
    /// Every kept line is known to be UTF-8: it came from a fixture's `l` record, which the
    /// reader checked as it decoded it. Only this module writes `bytes` and `spans`, so this
    /// stays true of them.
    utf8: bool,
    /// Provider and dialect named by a fixture header, if any.
    pub provider: Option<String>,
    pub dialect: Option<String>,
    /// The agent's working directory named by a fixture header (recorded wrap/proxy sessions).
    pub cwd: Option<String>,
    /// Problems with the container itself (a fixture cut short by a crash), reported as diagnostics.
    pub notes: Vec<String>,
    /// How many lines the stream has, blank ones included.
    pub line_count: u32,
}

/// Count one line, and note its span if it is to be kept (which only a blank line is not): the
/// line is kept as it came (what `toolnorm cat` prints), at `at` of the stream's bytes, followed
/// by its `\n` when it had one; its span is the trimmed part.
fn keep_line(
    spans: &mut Vec<Span>,
    line_count: &mut u32,
    line: &[u8],
    at: usize,
    direction: Direction,
    terminated: bool,
) -> bool {
    *line_count = line_count.saturating_add(1);
    if line.iter().all(|b| b.is_ascii_whitespace()) {
        return false;
    }
    let trimmed = crate::stream::trim_line(line);
    let start = at + (trimmed.as_ptr() as usize - line.as_ptr() as usize);
    spans.push((
        start,
        start + trimmed.len(),
        direction,
        terminated,
        *line_count,
    ));
    true
}

impl Drop for LoadedStream {
    fn drop(&mut self) {
        spare::keep_lines(
            std::mem::take(&mut self.bytes),
            std::mem::take(&mut self.spans),
        );
    }
}

impl LoadedStream {
    /// An empty stream, on the thread's spare buffers.
    fn recycled() -> Self {
        let (bytes, spans) = spare::lines();
        let mut s = LoadedStream::default();
        s.bytes = bytes;
        s.spans = spans;
        s
    }

    /// A plain buffer: every line from the agent.
    pub fn from_plain(bytes: Vec<u8>) -> Self {
        let mut s = LoadedStream::recycled();
        s.read_plain(&mut bytes.as_slice())
            .expect("reading from memory cannot fail");
        s
    }

    /// Read a plain stream line by line, keeping only the lines that are not blank.
    fn read_plain(&mut self, r: &mut impl io::BufRead) -> io::Result<()> {
        let mut line = Vec::new();
        loop {
            line.clear();
            if r.read_until(b'\n', &mut line)? == 0 {
                return Ok(());
            }
            let terminated = line.last() == Some(&b'\n');
            if terminated {
                line.pop();
            }
            self.push_line(&line, Direction::Agent, terminated);
        }
    }

    /// Append one line (without its `\n`): blank lines only take a number. Trimmed as
    /// [`crate::stream::split_lines`] trims (a trailing `\r`, a leading BOM), so a plain file and
    /// its fixture normalize alike.
    fn push_line(&mut self, line: &[u8], direction: Direction, terminated: bool) {
        let at = self.bytes.len();
        if keep_line(
            &mut self.spans,
            &mut self.line_count,
            line,
            at,
            direction,
            terminated,
        ) {
            self.bytes.extend_from_slice(line);
            if terminated {
                self.bytes.push(b'\n');
            }
        }
    }

    pub fn input(&self) -> Input<'_> {
        let lines = self
            .spans
            .iter()
            .map(|&(s, e, direction, terminated, number)| {
                let bytes = &self.bytes[s..e];
                RawLine {
                    number,
                    bytes,
                    direction,
                    unterminated: !terminated,
                    text: self.utf8.then(|| {
                        debug_assert!(std::str::from_utf8(bytes).is_ok());
                        // SAFETY: `utf8` says every kept line is UTF-8 (see there). A span is a
                        // whole line or the line trimmed of a leading BOM and a trailing `\r`,
                        // whole characters either way, so it is UTF-8 too.
                        unsafe { std::str::from_utf8_unchecked(bytes) }
                    }),
                }
            })
            .collect();
        Input::from_lines(&self.bytes, lines)
    }

    /// The stream's non-blank lines, each followed by its `\n` when it had one.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// (start, end without terminator, direction, had a newline, 1-based line number as `toolnorm
    /// cat` prints it) of each non-blank line, in `bytes`.
    pub fn spans(&self) -> &[Span] {
        &self.spans
    }

    /// The stream's bytes, taken out (its fields cannot be moved out: a dropped stream leaves
    /// its buffers for the next one).
    pub fn into_bytes(mut self) -> Vec<u8> {
        std::mem::take(&mut self.bytes)
    }

    /// True when the stream has no line at all (an empty file).
    pub fn is_empty(&self) -> bool {
        self.line_count == 0
    }
}

/// Load a raw `.jsonl` / `.json` file, a corpus fixture (`.jsonl.zst`), or `-` for stdin. A plain
/// stream is read line by line and a fixture record by record, so what is held is the non-blank
/// lines, never the file and a copy of it.
pub fn load_stream(path: &Path) -> anyhow::Result<LoadedStream> {
    if path == Path::new("-") {
        let mut s = LoadedStream::recycled();
        s.read_plain(&mut io::stdin().lock())
            .context("failed to read stdin")?;
        return Ok(s);
    }
    let file = fs::File::open(path)
        .map_err(|e| anyhow::Error::new(e).context(format!("failed to read {}", path.display())))?;
    let len = file
        .metadata()
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len());
    load_file(file, len, path)
}

/// How much of a file is read before it is told a fixture (zstd) or a plain stream: all of a
/// small fixture, and never more of a large file that turns out not to be one.
const HEAD: usize = 1 << 16;

/// [`load_stream`] of a file already open (a fixture opened through [`confined::open`], so what
/// was checked is what is read), `len` its length when it was opened if known (a hint: it is
/// read to its end whatever its length now); `path` names it in messages and tells a fixture by
/// its suffix. A fixture that has not changed since it was opened is read in one call (two past
/// 64 KiB, `HEAD`: its head is read first).
pub fn load_file(file: fs::File, len: Option<u64>, path: &Path) -> anyhow::Result<LoadedStream> {
    let fail =
        |e: io::Error| anyhow::Error::new(e).context(format!("failed to read {}", path.display()));
    let fixture_error = |kind| {
        anyhow::Error::new(FixtureError {
            path: path.to_owned(),
            kind,
        })
    };
    let named_fixture = path
        .file_name()
        .is_some_and(|n| n.to_string_lossy().ends_with(format::FIXTURE_SUFFIX));
    let magic = reader::ZSTD_MAGIC.len();
    // All of a small file (and its end) in one read; never less than the magic.
    let first = len.map_or(HEAD, |n| {
        n.saturating_add(1).clamp(magic as u64, HEAD as u64) as usize
    });
    spare::with_bytes(|bytes| {
        // Room for the first read whole (a known length is a regular file's: a read that gives
        // less than it asked for has reached the end).
        bytes.reserve(first);
        let mut ended = false;
        while bytes.len() < magic && !ended {
            ended = confined::read_some(&file, bytes, first - bytes.len(), len.is_some())
                .map_err(fail)?;
        }
        if bytes.starts_with(&reader::ZSTD_MAGIC) {
            // Compressed fixtures are small; their decompressed stream is decoded frame by frame.
            if !ended {
                let rest = len.map(|n| n.saturating_sub(bytes.len() as u64));
                confined::read_rest(&file, rest, bytes).map_err(fail)?;
            }
            return LoadedStream::from_fixture_bytes(bytes).map_err(fixture_error);
        }
        if named_fixture {
            return Err(fixture_error(reader::not_zstd(bytes)));
        }
        let mut s = LoadedStream::recycled();
        s.read_plain(&mut io::BufReader::with_capacity(
            HEAD,
            io::Cursor::new(&bytes[..]).chain(file),
        ))
        .map_err(fail)?;
        Ok(s)
    })
}

impl LoadedStream {
    /// The stream of a fixture held in memory: its lines from and to the agent in recorded order
    /// (stderr lines are left out), provider and dialect from its header (or trailer), and a note
    /// when it was cut short. Lines go straight from the decoder into the stream.
    pub fn from_fixture_bytes(bytes: &[u8]) -> Result<Self, reader::FixtureErrorKind> {
        let mut s = LoadedStream::recycled();
        // The lines are decoded where they are kept: `bytes` is handed to the reader, and each
        // line's span noted here.
        let mut kept = std::mem::take(&mut s.bytes);
        let (spans, line_count) = (&mut s.spans, &mut s.line_count);
        let mut utf8 = true;
        let read = reader::read_fixture_into(bytes, &mut kept, |line, start| {
            let keep = line.dir != Direction::Stderr
                && keep_line(
                    spans,
                    line_count,
                    line.bytes,
                    start,
                    line.dir,
                    line.terminated,
                );
            utf8 &= !keep || line.utf8;
            keep
        });
        s.bytes = kept;
        s.utf8 = utf8;
        let (header, trailer, notes) = read?;
        s.dialect = header
            .dialect
            .clone()
            .or_else(|| trailer.as_ref().and_then(|t| t.dialect.clone()));
        s.provider = Some(header.provider);
        s.cwd = header.cwd;
        s.notes = notes;
        Ok(s)
    }
}

/// One fixture file of a corpus: where it is. (Its decoded contents are a [`Fixture`], the stream
/// ready to normalize a [`LoadedStream`].)
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct FixtureEntry {
    /// The provider folder it sits in (`claude`, `codex`, `opencode`, or another name).
    pub provider: String,
    /// File name without `.jsonl.zst`.
    pub name: String,
    pub path: PathBuf,
    /// Compressed size in bytes.
    pub size: u64,
    /// Relative to the corpus root, `/`-separated: `claude/live-coding.jsonl.zst`.
    pub rel: String,
}

/// Every fixture under a corpus root (`<root>/<provider>/<name>.jsonl.zst`), sorted by provider and
/// name. A missing root yields nothing. What [`scan_fixtures`] skipped is left out.
pub fn list_fixtures(root: &Path) -> Vec<FixtureEntry> {
    scan_fixtures(root).fixtures
}

/// A corpus listing: its fixtures, and the entries that looked like part of it but were skipped.
#[derive(Debug, Default)]
pub struct Listing {
    pub fixtures: Vec<FixtureEntry>,
    /// Sorted by path.
    pub skipped: Vec<confined::Skipped>,
}

/// Every fixture under a corpus root, and every entry skipped, as entries of their own: see
/// [`FixtureIndex::scan`] (hidden provider folders included). A large corpus is better read
/// through the index itself, which holds a fixture in its name's bytes plus 24.
pub fn scan_fixtures(root: &Path) -> Listing {
    let mut index = FixtureIndex::scan(root, false);
    Listing {
        fixtures: index.entries().collect(),
        skipped: std::mem::take(&mut index.skipped),
    }
}

/// Where a fixture goes: `<root>/<provider>/<name>.jsonl.zst`.
pub fn fixture_path(root: &Path, provider: &str, name: &str) -> PathBuf {
    root.join(provider)
        .join(format!("{name}{}", format::FIXTURE_SUFFIX))
}

/// Check a fixture name: not empty, no path separator, no `..`, no NUL, no leading dot.
pub fn validate_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("the fixture name is empty".to_owned());
    }
    if name.contains(['/', '\\', '\0']) {
        return Err(format!(
            "the fixture name `{}` holds a path separator or NUL",
            name.escape_debug()
        ));
    }
    if name.contains("..") || name.starts_with('.') {
        return Err(format!(
            "the fixture name `{name}` starts with `.` or holds `..`"
        ));
    }
    if name.chars().any(char::is_control) {
        return Err(format!(
            "the fixture name `{}` holds a control character",
            name.escape_debug()
        ));
    }
    Ok(())
}

/// Write a whole fixture in one go (imports, the scenario runner): the lines are redacted with
/// `redactor` first so the header can carry the final counts. `lines` are `(t ms, direction, raw
/// bytes without the newline, terminated)`. Creates parent directories; refuses to overwrite an
/// existing file unless `force`.
pub fn write_fixture<'a>(
    path: &Path,
    mut header: Header,
    lines: impl IntoIterator<Item = (u64, Direction, &'a [u8], bool)>,
    redactor: &redact::Redactor,
    force: bool,
) -> anyhow::Result<Trailer> {
    let mut state = redactor.state();
    let redacted: Vec<(u64, Direction, std::borrow::Cow<'a, [u8]>, bool)> = lines
        .into_iter()
        .map(|(t, d, b, term)| (t, d, redactor.redact(b, &mut state), term))
        .collect();
    header.redactions = redactor.summary(&state);
    if header.cli_version.is_none() {
        header.cli_version = redacted
            .iter()
            .take(200)
            .find_map(|(_, _, b, _)| learn_cli_version(b));
    }
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).with_context(|| format!("failed to create {}", dir.display()))?;
    }
    let file = create_output(path, force)?;
    // What the records will take: each line's bytes (more where escaped) and its time and
    // direction.
    let bytes = redacted
        .iter()
        .map(|(_, _, b, _)| b.len() as u64 + 32)
        .sum::<u64>()
        + 1024;
    let mut w = writer::FixtureWriter::with_size(
        io::BufWriter::new(file),
        &header,
        writer::IMPORT_LEVEL,
        bytes,
    )
    .with_context(|| format!("failed to write {}", path.display()))?;
    for (t, d, b, term) in &redacted {
        w.push_line(*t, *d, b, *term)
            .with_context(|| format!("failed to write {}", path.display()))?;
    }
    let trailer = Trailer {
        redactions: header.redactions.clone(),
        ended_at: crate::timestamp::now_rfc3339(),
        cli_version: header.cli_version.clone(),
        ..Trailer::default()
    };
    let mut out = w
        .finish(trailer.clone())
        .with_context(|| format!("failed to write {}", path.display()))?;
    io::Write::flush(&mut out).with_context(|| format!("failed to write {}", path.display()))?;
    Ok(trailer)
}

/// Open a new fixture file: `create_new` unless `force` (then truncate). The data goes straight to
/// its final name, so a crash leaves what was written readable.
pub fn create_output(path: &Path, force: bool) -> anyhow::Result<fs::File> {
    let mut opts = fs::OpenOptions::new();
    opts.write(true);
    if force {
        opts.create(true).truncate(true);
    } else {
        opts.create_new(true);
    }
    opts.open(path).map_err(|e| {
        if e.kind() == io::ErrorKind::AlreadyExists {
            anyhow::anyhow!(
                "{} already exists (use --force to overwrite it)",
                path.display()
            )
        } else {
            anyhow::Error::new(e).context(format!("failed to create {}", path.display()))
        }
    })
}

/// The agent CLI's version when a line announces it: Claude's init `claude_code_version`, Codex's
/// rollout `cli_version` or app-server `userAgent` (`name/0.171.0 …`), OpenCode's session `version`.
pub fn learn_cli_version(line: &[u8]) -> Option<String> {
    static RE: std::sync::OnceLock<regex::bytes::Regex> = std::sync::OnceLock::new();
    let re = RE.get_or_init(|| {
        regex::bytes::Regex::new(
            r#""(?:claude_code_version|cli_version|version)":"([0-9]+\.[0-9]+\.[0-9]+[^"]*)"|"userAgent":"[^"/]+/([0-9]+\.[0-9]+\.[0-9]+)"#,
        )
        .expect("a valid built-in pattern")
    });
    let caps = re.captures(line)?;
    let m = caps.get(1).or(caps.get(2))?;
    Some(String::from_utf8_lossy(m.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// One record of a hand-made fixture: a line (text, or bytes that need base64), or a record
    /// the reader cannot read.
    #[derive(Clone, Debug)]
    enum Rec {
        Line(Vec<u8>, Direction, bool),
        Garbage(Vec<u8>),
    }

    fn rec() -> impl Strategy<Value = Rec> {
        let bytes = prop_oneof![
            "(?s)[ \t\r\n\\\"a-z{}:,\u{e9}\u{feff}]{0,40}".prop_map(String::into_bytes),
            proptest::collection::vec(any::<u8>(), 0..40),
        ];
        let dir = prop_oneof![
            Just(Direction::Agent),
            Just(Direction::Client),
            Just(Direction::Stderr)
        ];
        prop_oneof![
            6 => (bytes, dir, any::<bool>()).prop_map(|(b, d, t)| Rec::Line(b, d, t)),
            1 => "[^\n]{0,20}".prop_map(|g| Rec::Garbage(g.into_bytes())),
        ]
    }

    /// The fixture's decoded text: its header, then each record (a line as `l` when it is
    /// UTF-8, else as base64 `b`, as the writer does), in one zstd frame.
    fn fixture(recs: &[Rec]) -> Vec<u8> {
        use base64::Engine;
        let mut text = serde_json::to_vec(&format::new_header("claude", "t")).unwrap();
        text.push(b'\n');
        for (t, r) in recs.iter().enumerate() {
            let record = match r {
                Rec::Line(bytes, dir, terminated) => {
                    let mut m = serde_json::Map::new();
                    m.insert("t".into(), t.into());
                    m.insert("d".into(), serde_json::to_value(dir).unwrap());
                    match std::str::from_utf8(bytes) {
                        Ok(s) => m.insert("l".into(), s.into()),
                        Err(_) => m.insert(
                            "b".into(),
                            base64::engine::general_purpose::STANDARD
                                .encode(bytes)
                                .into(),
                        ),
                    };
                    if !terminated {
                        m.insert("n".into(), true.into());
                    }
                    serde_json::to_vec(&m).unwrap()
                }
                Rec::Garbage(g) => g.clone(),
            };
            text.extend_from_slice(&record);
            text.push(b'\n');
        }
        zstd::encode_all(&text[..], 3).unwrap()
    }

    proptest! {
        /// A fixture's lines decoded straight into the stream's buffer give the stream that
        /// reading them one by one and appending each gives: the same bytes, spans, line
        /// numbers and notes, whatever the lines (blank, CR-ended, BOM-led, not UTF-8, from
        /// stderr, unterminated) and whatever records cannot be read between them.
        #[test]
        fn lines_decoded_in_place_make_the_stream_that_appending_them_makes(
            recs in proptest::collection::vec(rec(), 0..30)
        ) {
            let bytes = fixture(&recs);
            let got = LoadedStream::from_fixture_bytes(&bytes).unwrap();
            let mut want = LoadedStream::default();
            let (_, _, notes) = reader::read_fixture_with(&bytes, |l| {
                if l.dir != Direction::Stderr {
                    want.push_line(l.bytes, l.dir, l.terminated);
                }
            })
            .unwrap();
            prop_assert_eq!(&got.bytes, &want.bytes);
            prop_assert_eq!(&got.spans, &want.spans);
            prop_assert_eq!(got.line_count, want.line_count);
            prop_assert_eq!(&got.notes, &notes);
            // And every line that was not from stderr nor blank is there, as it was written.
            let kept: Vec<&[u8]> = recs
                .iter()
                .filter_map(|r| match r {
                    Rec::Line(b, d, _) if *d != Direction::Stderr => Some(&b[..]),
                    _ => None,
                })
                .filter(|b| !b.iter().all(u8::is_ascii_whitespace))
                .collect();
            prop_assert_eq!(got.spans.len(), kept.len());
            // A line's text is known when every kept line came as `l`, which is when every
            // one is UTF-8 (the writer's choice above); and a known text is the line's bytes.
            let input = got.input();
            let known = kept.iter().all(|b| std::str::from_utf8(b).is_ok());
            for line in &input.lines {
                prop_assert_eq!(line.text.is_some(), known);
                if let Some(t) = line.text {
                    prop_assert!(std::ptr::eq(t.as_bytes(), line.bytes));
                }
                prop_assert_eq!(line.as_text(), std::str::from_utf8(line.bytes).ok());
            }
        }
    }

    #[test]
    fn only_lines_read_from_text_records_come_with_their_text() {
        let utf8 = [Rec::Line("{\"é\":1}\r".into(), Direction::Agent, true)];
        let s = LoadedStream::from_fixture_bytes(&fixture(&utf8)).unwrap();
        assert_eq!(s.input().lines[0].text, Some("{\"é\":1}"));
        // One line given as base64 (not UTF-8): no line's text is taken as known.
        let mixed = [
            Rec::Line(b"{\"a\":1}".to_vec(), Direction::Agent, true),
            Rec::Line(b"\xff{}".to_vec(), Direction::Agent, true),
        ];
        let s = LoadedStream::from_fixture_bytes(&fixture(&mixed)).unwrap();
        assert!(s.input().lines.iter().all(|l| l.text.is_none()));
        assert_eq!(s.input().lines[0].as_text(), Some("{\"a\":1}"));
        assert_eq!(s.input().lines[1].as_text(), None);
        // Nor from a plain file, whose lines nothing has checked yet.
        let s = LoadedStream::from_plain(b"{\"a\":1}\n".to_vec());
        assert_eq!(s.input().lines[0].text, None);
    }

    #[test]
    fn blank_lines_take_a_number_and_nothing_else() {
        let s = LoadedStream::from_plain(b"\xEF\xBB\xBF{\"a\":1}\r\n\n  \n\n{\"b\":2}".to_vec());
        assert_eq!(s.line_count, 5);
        assert_eq!(s.bytes, b"\xEF\xBB\xBF{\"a\":1}\r\n{\"b\":2}");
        let input = s.input();
        let lines: Vec<(u32, &[u8], bool)> = input
            .lines
            .iter()
            .map(|l| (l.number, l.bytes, l.unterminated))
            .collect();
        assert_eq!(
            lines,
            [(1, &b"{\"a\":1}"[..], false), (5, &b"{\"b\":2}"[..], true)]
        );
        assert!(LoadedStream::from_plain(Vec::new()).is_empty());
    }

    #[test]
    fn a_file_is_read_to_its_end_whatever_its_length_hint() {
        // Lines of pseudo-random letters: the fixture compresses to more than `HEAD` bytes.
        let mut seed = 7u64;
        let mut letter = || {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            char::from(b'a' + (seed >> 59) as u8 % 26)
        };
        let lines: Vec<Vec<u8>> = (0..200)
            .map(|_| {
                format!(
                    "{{\"x\":\"{}\"}}",
                    (0..1000).map(|_| letter()).collect::<String>()
                )
            })
            .map(String::into_bytes)
            .collect();
        let recs: Vec<Rec> = lines
            .iter()
            .map(|l| Rec::Line(l.clone(), Direction::Agent, true))
            .collect();
        let zst = fixture(&recs);
        let plain = lines
            .join(&b'\n')
            .into_iter()
            .chain([b'\n'])
            .collect::<Vec<u8>>();
        assert!(zst.len() > HEAD && plain.len() > HEAD, "{}", zst.len());
        let want = LoadedStream::from_plain(plain.clone());
        let want = (want.bytes.clone(), want.spans.clone());
        let dir = tempfile::tempdir().unwrap();
        for (name, bytes) in [("f.jsonl.zst", &zst), ("f.jsonl", &plain)] {
            let path = dir.path().join(name);
            fs::write(&path, bytes).unwrap();
            let n = bytes.len() as u64;
            for hint in [
                None,
                Some(0),
                Some(3),
                Some(n / 2),
                Some(n - 1),
                Some(n),
                Some(n * 3),
            ] {
                let got = load_file(fs::File::open(&path).unwrap(), hint, &path).unwrap();
                assert_eq!(
                    (&got.bytes, &got.spans),
                    (&want.0, &want.1),
                    "{name} {hint:?}"
                );
            }
        }
        // Plain text under a fixture's name is refused from its head.
        let path = dir.path().join("plain.jsonl.zst");
        fs::write(&path, &plain).unwrap();
        let file = fs::File::open(&path).unwrap();
        let e = load_file(file, Some(plain.len() as u64), &path).unwrap_err();
        assert!(format!("{e:#}").contains("plain text"), "{e:#}");
    }

    #[test]
    fn a_stream_on_recycled_buffers_holds_only_its_own_lines() {
        let big = LoadedStream::from_plain(b"{\"long\":\"line one\"}\n{\"two\":2}\n".repeat(1000));
        let (cap, span_cap) = (big.bytes.capacity(), big.spans.capacity());
        drop(big);
        // The next stream on this thread starts from the dropped one's buffers, emptied.
        let small = LoadedStream::from_plain(b"{\"a\":1}\n{\"b\":2}".to_vec());
        assert_eq!(small.bytes.capacity(), cap);
        assert_eq!(small.spans.capacity(), span_cap);
        assert_eq!(small.bytes, b"{\"a\":1}\n{\"b\":2}");
        assert_eq!(
            small.spans,
            [
                (0, 7, Direction::Agent, true, 1),
                (8, 15, Direction::Agent, false, 2)
            ]
        );
        assert_eq!(small.line_count, 2);
        // A buffer past the cap is let go, not kept for the thread.
        let mut huge = LoadedStream::from_plain(Vec::new());
        huge.bytes.reserve(spare::SPARE_CAP + 1);
        drop(huge);
        assert_eq!(LoadedStream::from_plain(Vec::new()).bytes.capacity(), 0);
    }
}
