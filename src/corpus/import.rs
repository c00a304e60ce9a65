//! Import: session files users already have become fixtures — Claude transcripts (with their
//! `subagents/agent-*.jsonl` siblings), Codex rollouts, `opencode export` JSON, `opencode run
//! --format json` output, and any stream the dialect detector recognizes (stream-json, exec,
//! app-server, events).
//!
//! A Claude subagent file is imported as a fixture of its own, named
//! `<session>__subagents__<agent>`: it is a separate stream with its own line numbers and would
//! break the parent's ordering if appended.
//!
//! An OpenHands conversation is a folder, `<id>/events/`, of one JSON file per event
//! (`event-00000-<event id>.json`): the folder is one input, its files joined in event order, one
//! event a line, into the fixture `<id>` (a subagent's, `<id>/subagents/<sub>/events/`, into
//! `<id>__subagents__<sub>`). The conversation's other files (`base_state.json`, `TASKS.json`)
//! are not sessions and are left alone.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Component, Path, PathBuf};

use serde::Deserialize;

use super::format::{Header, new_header};
use super::redact::Redactor;
use super::{fixture_path, validate_name, write_fixture};
use crate::stream::{Detector, Direction, Input, Provider};

/// What an import is told.
pub struct ImportOptions<'a> {
    pub corpus: &'a Path,
    pub provider: Option<Provider>,
    pub force: bool,
    pub redactor: &'a Redactor,
    pub home: Option<String>,
    /// Tells each file's dialect from its content.
    pub detect: Detector,
}

/// The result of importing one file.
#[derive(Debug)]
pub enum Imported {
    Done {
        source: PathBuf,
        fixture: PathBuf,
        provider: Provider,
        dialect: String,
        lines: usize,
        redactions: u64,
    },
    /// Not a session file, or empty: a message, never an error.
    Skipped {
        source: PathBuf,
        reason: String,
    },
    Failed {
        source: PathBuf,
        error: String,
    },
}

/// The files to import under `paths`: files as given, directories walked for `*.jsonl` / `*.json`;
/// a Claude transcript brings its `<session>/subagents/agent-*.jsonl`; an OpenHands events folder
/// ([`is_events_dir`]) is one input, its files not walked. Sorted, no duplicates.
pub fn collect_inputs(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<String>) {
    let mut files = BTreeSet::new();
    let mut errors = Vec::new();
    for p in paths {
        if p.is_dir() {
            let walk = walkdir::WalkDir::new(p)
                .follow_links(false)
                .sort_by_file_name()
                .into_iter()
                .filter_entry(|e| {
                    // Below an events folder: its event files, read as one input.
                    !e.path().parent().is_some_and(is_events_dir)
                });
            for entry in walk {
                match entry {
                    Ok(e) if e.file_type().is_dir() && is_events_dir(e.path()) => {
                        files.insert(e.path().to_owned());
                    }
                    Ok(e)
                        if e.file_type().is_file()
                            && is_candidate(e.path())
                            && !is_conversation_state(e.path()) =>
                    {
                        files.insert(e.path().to_owned());
                    }
                    Ok(_) => {}
                    Err(e) => errors.push(format!("{e}")),
                }
            }
        } else if p.is_file() {
            files.insert(p.clone());
            for sub in subagent_files(p) {
                files.insert(sub);
            }
        } else {
            errors.push(format!("{}: no such file or directory", p.display()));
        }
    }
    (files.into_iter().collect(), errors)
}

/// An OpenHands conversation's events folder: named `events`, holding `event-*.json` files.
pub fn is_events_dir(p: &Path) -> bool {
    p.file_name().is_some_and(|n| n == "events")
        && fs::read_dir(p).is_ok_and(|entries| entries.flatten().any(|e| is_event_file(&e.path())))
}

/// `event-00000-<event id>.json`.
fn is_event_file(p: &Path) -> bool {
    p.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("event-") && n.ends_with(".json"))
}

/// A conversation's state beside its events folder (`base_state.json`, `TASKS.json`): not a
/// session.
fn is_conversation_state(p: &Path) -> bool {
    p.file_name()
        .is_some_and(|n| n == "base_state.json" || n == "TASKS.json")
        && p.parent().is_some_and(|d| is_events_dir(&d.join("events")))
}

/// An events folder's event files joined in event order (their names' index), one event a line.
fn read_events_dir(dir: &Path) -> std::io::Result<Vec<u8>> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)?
        .flatten()
        .map(|e| e.path())
        .filter(|p| is_event_file(p) && p.is_file())
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let bytes = fs::read(&f)?;
        let event = bytes.trim_ascii();
        if event.is_empty() {
            continue;
        }
        out.extend_from_slice(event);
        out.push(b'\n');
    }
    Ok(out)
}

fn is_candidate(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "jsonl" || e == "json")
}

/// `<dir>/<session>.jsonl` → `<dir>/<session>/subagents/agent-*.jsonl`.
fn subagent_files(p: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(stem)) = (p.parent(), p.file_stem()) else {
        return Vec::new();
    };
    let sub = dir.join(stem).join("subagents");
    let Ok(entries) = fs::read_dir(&sub) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    out.sort();
    out
}

/// The fixture name of a source file: its name without `.jsonl` / `.json`; a Claude subagent file
/// `<session>/subagents/agent-x.jsonl` becomes `<session>__subagents__agent-x`; an OpenHands
/// events folder is named after its conversation (`<id>/events` → `<id>`, and a subagent's
/// `<id>/subagents/<sub>/events` → `<id>__subagents__<sub>`).
pub fn fixture_name(p: &Path) -> String {
    if p.file_name().is_some_and(|n| n == "events")
        && let Some(conversation) = p.parent()
    {
        return fixture_name(conversation);
    }
    let file = p
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = file
        .strip_suffix(".jsonl")
        .or_else(|| file.strip_suffix(".json"))
        .unwrap_or(&file)
        .to_owned();
    let parent = p.parent();
    if parent
        .and_then(Path::file_name)
        .is_some_and(|n| n == "subagents")
        && let Some(session) = parent.and_then(Path::parent).and_then(Path::file_name)
    {
        return format!("{}__subagents__{stem}", session.to_string_lossy());
    }
    stem
}

/// How the source is named in the header: `~/...` under the home directory, else as given.
pub fn source_label(p: &Path, home: Option<&str>) -> String {
    if p.is_absolute()
        && let Some(rest) = home.and_then(|h| p.strip_prefix(h).ok())
    {
        return format!("~/{}", slash(rest));
    }
    slash(p)
}

fn slash(p: &Path) -> String {
    p.components()
        .filter(|c| !matches!(c, Component::CurDir))
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
        .replacen("//", "/", 1)
}

/// Import one file, named after it ([`fixture_name`]), its source noted in the header.
pub fn import_file(source: &Path, opts: &ImportOptions<'_>) -> Imported {
    let label = source_label(source, opts.home.as_deref());
    import_as(source, &fixture_name(source), opts, |h| {
        h.source = Some(label)
    })
}

/// Import one file as the fixture `name`; `header` fills in what the header says of where it
/// came from (its source, the scenario that made it).
pub fn import_as(
    source: &Path,
    name: &str,
    opts: &ImportOptions<'_>,
    header: impl FnOnce(&mut Header),
) -> Imported {
    let skip = |reason: String| Imported::Skipped {
        source: source.to_owned(),
        reason,
    };
    let read = if source.is_dir() {
        read_events_dir(source)
    } else {
        fs::read(source)
    };
    let bytes = match read {
        Ok(b) => b,
        Err(e) => {
            return Imported::Failed {
                source: source.to_owned(),
                error: format!("failed to read: {e}"),
            };
        }
    };
    if bytes.trim_ascii().is_empty() {
        return skip("empty file".to_owned());
    }
    let dialect = match (opts.detect)(&Input::from_bytes(&bytes), opts.provider) {
        Ok(d) => d,
        Err(e) => return skip(format!("not a session file ({e})")),
    };
    let provider = dialect.provider();
    if let Err(e) = validate_name(name) {
        return skip(e);
    }
    let lines = split_raw(&bytes);
    let times = line_times(&lines);
    let mut head: Header = new_header(provider.as_str(), name);
    head.dialect = Some(dialect.as_str().to_owned());
    head.mode = Some("import".to_owned());
    head.command = Vec::new();
    head.env.clear();
    if let Some(start) = times.start.clone() {
        head.started_at = start;
    }
    header(&mut head);
    let fixture = fixture_path(opts.corpus, provider.as_str(), name);
    let records = lines
        .iter()
        .zip(&times.offsets)
        .map(|((b, term), t)| (*t, Direction::Agent, *b, *term));
    match write_fixture(&fixture, head, records, opts.redactor, opts.force) {
        Ok(trailer) => Imported::Done {
            source: source.to_owned(),
            fixture,
            provider,
            dialect: dialect.as_str().to_owned(),
            lines: lines.len(),
            redactions: trailer.redactions.values().sum(),
        },
        Err(e) if e.to_string().contains("already exists") => skip(format!("{e:#}")),
        Err(e) => Imported::Failed {
            source: source.to_owned(),
            error: format!("{e:#}"),
        },
    }
}

/// Lines as stored: without `\n`, with any `\r`; the last one may lack its newline.
fn split_raw(bytes: &[u8]) -> Vec<(&[u8], bool)> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        match memchr::memchr(b'\n', rest) {
            Some(i) => {
                out.push((&rest[..i], true));
                rest = &rest[i + 1..];
            }
            None => {
                out.push((rest, false));
                rest = &[];
            }
        }
    }
    out
}

struct Times {
    start: Option<String>,
    offsets: Vec<u64>,
}

/// Receive times for an import come from the lines' own `timestamp` fields (Claude transcripts,
/// Codex rollouts), as offsets from the first; lines without one keep the previous offset.
fn line_times(lines: &[(&[u8], bool)]) -> Times {
    #[derive(Deserialize)]
    struct Stamped {
        timestamp: Option<serde_json::Value>,
    }
    let parse = |b: &[u8]| -> Option<(i128, String)> {
        let s: Stamped = serde_json::from_slice(b).ok()?;
        let text = s.timestamp?.as_str()?.to_owned();
        Some((crate::timestamp::rfc3339_nanos(&text)?, text))
    };
    let mut first: Option<i128> = None;
    let mut start = None;
    let mut last = 0u64;
    let mut offsets = Vec::with_capacity(lines.len());
    for (b, _) in lines {
        if let Some((t, text)) = parse(b) {
            let f = *first.get_or_insert_with(|| {
                start = Some(text);
                t
            });
            // Whole milliseconds between the two, toward zero.
            last = last.max(u64::try_from((t - f) / 1_000_000).unwrap_or(0));
        }
        offsets.push(last);
    }
    Times { start, offsets }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_sources() {
        assert_eq!(
            fixture_name(Path::new("a/spotter_short.jsonl")),
            "spotter_short"
        );
        assert_eq!(
            fixture_name(Path::new("p/ae4a/subagents/agent-aac.jsonl")),
            "ae4a__subagents__agent-aac"
        );
        assert_eq!(fixture_name(Path::new("x/export.json")), "export");
        assert_eq!(
            source_label(Path::new("/home/a/.claude/p/s.jsonl"), Some("/home/a")),
            "~/.claude/p/s.jsonl"
        );
        assert_eq!(
            source_label(Path::new("./../samples/x.jsonl"), Some("/home/a")),
            "../samples/x.jsonl"
        );
    }

    #[test]
    fn an_openhands_events_folder_is_one_input() {
        let dir = tempfile::tempdir().unwrap();
        let conv = dir.path().join("c0ffee");
        let events = conv.join("events");
        let sub = conv.join("subagents").join("5ub").join("events");
        fs::create_dir_all(&events).unwrap();
        fs::create_dir_all(&sub).unwrap();
        fs::write(events.join("event-00001-b.json"), "{\"id\":\"b\"}").unwrap();
        fs::write(events.join("event-00000-a.json"), "{\"id\":\"a\"}\n").unwrap();
        fs::write(events.join(".eventlog.lock"), "").unwrap();
        fs::write(sub.join("event-00000-s.json"), "{\"id\":\"s\"}").unwrap();
        fs::write(conv.join("base_state.json"), "{}").unwrap();
        let (inputs, errors) = collect_inputs(&[dir.path().to_owned()]);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(inputs, vec![events.clone(), sub.clone()]);
        assert_eq!(fixture_name(&events), "c0ffee");
        assert_eq!(fixture_name(&sub), "c0ffee__subagents__5ub");
        assert_eq!(
            read_events_dir(&events).unwrap(),
            b"{\"id\":\"a\"}\n{\"id\":\"b\"}\n"
        );
    }

    #[test]
    fn times_come_from_timestamps() {
        let lines: Vec<(&[u8], bool)> = vec![
            (br#"{"timestamp":"2026-01-01T00:00:00.000Z"}"#, true),
            (br#"{"x":1}"#, true),
            (br#"{"timestamp":"2026-01-01T00:00:01.500Z"}"#, true),
        ];
        let t = line_times(&lines);
        assert_eq!(t.offsets, vec![0, 0, 1500]);
        assert_eq!(t.start.as_deref(), Some("2026-01-01T00:00:00.000Z"));
    }
}
