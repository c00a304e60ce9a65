//! The corpus: the versioned fixture format (zstd JSONL), its reader and writer, the recorder,
//! redaction and import. This is a shell around the pure core: it does the file and process I/O.

pub mod confined;
pub mod format;
pub mod import;
pub mod lint;
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
pub use reader::{Fixture, FixtureError, Line, read_fixture};

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
    /// The agent's working directory named by a fixture header (recorded wrap/proxy sessions).
    pub cwd: Option<String>,
    /// Problems with the container itself (a fixture cut short by a crash), reported as diagnostics.
    pub notes: Vec<String>,
}

impl LoadedStream {
    /// A plain buffer: every line from the agent.
    pub fn from_plain(bytes: Vec<u8>) -> Self {
        let spans = crate::stream::split_lines(&bytes)
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
    if bytes.starts_with(&reader::ZSTD_MAGIC) {
        let fixture = reader::read_fixture_bytes(&bytes).map_err(|kind| FixtureError {
            path: path.to_owned(),
            kind,
        })?;
        return Ok(LoadedStream::from_fixture(fixture));
    }
    Ok(LoadedStream::from_plain(bytes))
}

impl LoadedStream {
    /// The stream of a fixture: its lines from and to the agent in recorded order (stderr lines are
    /// left out), provider and dialect from its header (or trailer), and a note when it was cut
    /// short.
    pub fn from_fixture(fixture: Fixture) -> Self {
        let Fixture {
            header,
            lines,
            trailer,
            notes,
        } = fixture;
        let mut bytes = Vec::with_capacity(lines.iter().map(|l| l.bytes.len() + 1).sum());
        let mut spans = Vec::with_capacity(lines.len());
        for line in lines {
            let direction = line.dir;
            if direction == Direction::Stderr {
                continue;
            }
            let mut start = bytes.len();
            bytes.extend_from_slice(&line.bytes);
            let mut end = bytes.len();
            // The same trimming as `split_lines`, so a plain file and its fixture normalize alike.
            if bytes[start..end].starts_with(b"\xEF\xBB\xBF") {
                start += 3;
            }
            if end > start && bytes[end - 1] == b'\r' {
                end -= 1;
            }
            if line.terminated {
                bytes.push(b'\n');
            }
            spans.push((start, end, direction, line.terminated));
        }
        let dialect = header
            .dialect
            .clone()
            .or_else(|| trailer.as_ref().and_then(|t| t.dialect.clone()));
        LoadedStream {
            bytes,
            spans,
            provider: Some(header.provider),
            dialect,
            cwd: header.cwd,
            notes,
        }
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

/// Every fixture under a corpus root, and every entry skipped: a provider folder that is a
/// symlink (or cannot be read), a `<name>.jsonl.zst` that is a symlink, a directory, a FIFO or
/// anything but a regular file. Nothing is followed: the types come from the directory entries
/// (`lstat`), and the commands that read a fixture open it again through [`confined`]. Files at
/// the root are not part of the corpus and not listed.
pub fn scan_fixtures(root: &Path) -> Listing {
    let mut out = Listing::default();
    let Ok(providers) = fs::read_dir(root) else {
        return out;
    };
    for dir in providers.flatten() {
        let provider = dir.file_name().to_string_lossy().into_owned();
        let skip = |what: String| confined::Skipped {
            path: dir.path(),
            what,
        };
        match dir.file_type() {
            Ok(t) if t.is_dir() => {}
            Ok(t) if t.is_symlink() => {
                out.skipped.push(skip("a symlink".to_owned()));
                continue;
            }
            Ok(_) => continue,
            Err(e) => {
                out.skipped.push(skip(format!("unreadable: {e}")));
                continue;
            }
        }
        let files = match fs::read_dir(dir.path()) {
            Ok(f) => f,
            Err(e) => {
                out.skipped.push(skip(format!("unreadable: {e}")));
                continue;
            }
        };
        for file in files.flatten() {
            let file_name = file.file_name().to_string_lossy().into_owned();
            let Some(name) = file_name.strip_suffix(format::FIXTURE_SUFFIX) else {
                continue;
            };
            let skip = |what: String| confined::Skipped {
                path: file.path(),
                what,
            };
            // `DirEntry::metadata` does not follow a link.
            let meta = match file.metadata() {
                Ok(m) => m,
                Err(e) => {
                    out.skipped.push(skip(format!("unreadable: {e}")));
                    continue;
                }
            };
            if !meta.is_file() {
                out.skipped
                    .push(skip(confined::describe(meta.file_type()).to_owned()));
                continue;
            }
            out.fixtures.push(FixtureEntry {
                rel: format!("{provider}/{file_name}"),
                provider: provider.clone(),
                name: name.to_owned(),
                path: file.path(),
                size: meta.len(),
            });
        }
    }
    out.fixtures.sort();
    out.skipped.sort();
    out
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
    let mut w =
        writer::FixtureWriter::with_level(io::BufWriter::new(file), &header, writer::IMPORT_LEVEL)
            .with_context(|| format!("failed to write {}", path.display()))?;
    for (t, d, b, term) in &redacted {
        w.push_line(*t, *d, b, *term)
            .with_context(|| format!("failed to write {}", path.display()))?;
    }
    let trailer = Trailer {
        redactions: header.redactions.clone(),
        ended_at: format::now_rfc3339(),
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
