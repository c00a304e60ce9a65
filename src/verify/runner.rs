//! The verify runner: list the corpus compactly, then load, normalize, check and compare every
//! fixture in parallel (rayon), one fixture in memory per worker, handing the results on in
//! report order (so no output depends on thread scheduling) through a bounded window. This is a
//! shell: it reads fixtures and expected files and writes pending outputs.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Instant;

use super::VerifyError;
use super::derived_events::derived_events;
use super::expectations::{Expectations, FixtureKey};
use super::implementation::Implementation;
use super::timings::{self, Phase, Timings};
use crate::compare::{
    CompareMode, Comparison, canonical_json, canonical_of, compare, compare_with,
};
use crate::corpus::confined::{self, Dirs, Skipped, describe};
use crate::corpus::{FixtureEntry, FixtureIndex, load_file};
use crate::dialects::detect;
use crate::model::{
    Diagnostic, DiagnosticLevel, LegacyToolPart, NormalizedDocument, SCHEMA_VERSION,
};
use crate::normalizer::normalize;
use crate::protocol::Normalize;
use crate::providers::NormalizeOptions;
use crate::report::{FixtureDiff, FixtureResult, Status, Violation};
use crate::rules::{RuleContext, WireFrames, check_all};
use crate::stream::{Dialect, Provider};
use crate::text::truncate_counted;

/// Raw lines quoted in reports are clipped to this many characters.
const RAW_LINE_CLIP: usize = 2_000;

impl FixtureEntry {
    pub fn key(&self) -> FixtureKey<'_> {
        FixtureKey {
            provider: &self.provider,
            name: &self.name,
            path: &self.rel,
        }
    }

    /// `<provider>/<name>.json`: where its expected output sits under the expected folder, and
    /// its pending output under `<reports>/pending/`.
    pub fn output_rel(&self) -> PathBuf {
        Path::new(&self.provider).join(format!("{}.json", self.name))
    }
}

/// Every fixture under `root` (`<provider>/<name>.jsonl.zst`), sorted by path, as the corpus lists
/// them (one walker for every command), with the entries skipped. The root itself must be a
/// readable folder: the gate cannot say anything about a corpus it cannot read.
pub fn list_fixtures(root: &Path) -> Result<(Vec<FixtureEntry>, Vec<Skipped>), VerifyError> {
    let mut index = index_fixtures(root)?;
    let mut out: Vec<FixtureEntry> = index.entries().collect();
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok((out, std::mem::take(&mut index.skipped)))
}

/// [`list_fixtures`] held compactly, sorted by provider and name (see [`FixtureIndex`]); hidden
/// provider folders (`.…`) are left out.
pub fn index_fixtures(root: &Path) -> Result<FixtureIndex, VerifyError> {
    let meta = fs::metadata(root).map_err(|source| VerifyError::Corpus {
        path: root.to_owned(),
        source,
    })?;
    if !meta.is_dir() {
        return Err(VerifyError::Corpus {
            path: root.to_owned(),
            source: io::Error::new(io::ErrorKind::NotADirectory, "not a directory"),
        });
    }
    fs::read_dir(root).map_err(|source| VerifyError::Corpus {
        path: root.to_owned(),
        source,
    })?;
    Ok(FixtureIndex::scan(root, true))
}

/// The corpus root a listed fixture sits in (`<root>/<provider>/<file>`).
fn corpus_root(f: &FixtureEntry) -> &Path {
    f.path
        .parent()
        .and_then(Path::parent)
        .unwrap_or(Path::new("."))
}

/// Open a listed fixture through no link below its corpus root (in `corpus`, when the run keeps
/// the corpus's folders open), as the regular file it must still be (the file checked is the
/// file read), with its length when it was opened.
fn open_fixture(f: &FixtureEntry, corpus: Option<&Dirs>) -> Result<(std::fs::File, u64), String> {
    let root = corpus_root(f);
    let opened = match corpus {
        Some(dirs) if dirs.root() == root => dirs.open(Path::new(&f.rel)),
        _ => confined::open(root, f.path.strip_prefix(root).unwrap_or(&f.path)),
    };
    opened.map_err(|e| format!("{}: {e}", f.rel))
}

/// An expected file: (provider, name, path relative to the expected folder).
pub type ExpectedFile = (String, String, String);

/// Every expected file under `root` as (provider, name, relative path), sorted, and the entries
/// skipped (a symlinked provider folder, a `<name>.json` that is a link or not a regular file).
/// Links are never followed. A missing folder holds none.
pub fn list_expected(root: &Path) -> Result<(Vec<ExpectedFile>, Vec<Skipped>), VerifyError> {
    let mut out = Vec::new();
    let skipped = walk_expected(root, true, &mut |provider, name, rel| {
        out.push((provider.to_owned(), name.to_owned(), rel.to_owned()));
    })?;
    Ok((out, skipped))
}

/// Call `each` with (provider, name, relative path) of every expected file under `root`, in
/// file name order with `sorted`, else in the order the folders give them (then nothing is held
/// but the walk itself, however many files a folder has); return the entries skipped (see
/// [`list_expected`]).
pub fn walk_expected(
    root: &Path,
    sorted: bool,
    each: &mut dyn FnMut(&str, &str, &str),
) -> Result<Vec<Skipped>, VerifyError> {
    let mut skipped = Vec::new();
    if !root.exists() {
        return Ok(skipped);
    }
    let mut walker = walkdir::WalkDir::new(root).min_depth(1);
    if sorted {
        walker = walker.sort_by_file_name();
    }
    for entry in walker
        .into_iter()
        .filter_entry(|e| !e.file_name().to_string_lossy().starts_with('.'))
    {
        let entry = entry.map_err(|e| {
            let path = e.path().unwrap_or(root).to_owned();
            VerifyError::Expected {
                path,
                source: e
                    .into_io_error()
                    .unwrap_or_else(|| io::Error::other("walk failed")),
            }
        })?;
        let t = entry.file_type();
        if entry.depth() == 1 {
            if t.is_symlink() {
                skipped.push(Skipped {
                    path: entry.path().to_owned(),
                    what: describe(t).to_owned(),
                });
            }
            continue;
        }
        if !t.is_file() {
            if entry.file_name().to_string_lossy().ends_with(".json") {
                skipped.push(Skipped {
                    path: entry.path().to_owned(),
                    what: describe(t).to_owned(),
                });
            }
            continue;
        }
        let rel_path = entry.path().strip_prefix(root).unwrap_or(entry.path());
        let rel: Vec<String> = rel_path
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let rel = rel.join("/");
        let Some((provider, rest)) = rel.split_once('/') else {
            continue;
        };
        let Some(name) = rest.strip_suffix(".json") else {
            continue;
        };
        each(provider, name, &rel);
    }
    Ok(skipped)
}

/// A fixture's actual output, ready to compare or accept.
pub struct Normalized {
    pub dialect: Dialect,
    /// The canonical JSON of the normalized document: exactly what `accept` writes.
    pub canonical: String,
    pub parts: u32,
    pub violations: Vec<Violation>,
    pub raw_lines: BTreeMap<u32, String>,
    /// Document fields an external implementation did not send (`events`, `diagnostics`): the
    /// diff takes them from the expected file, so only what was sent is compared.
    pub unsent: Vec<&'static str>,
    /// The implementation's own legacy view, when it sent one.
    pub legacy: Option<Vec<LegacyToolPart>>,
    /// The wire the implementation answered in (`acp`, `ai-sdk`, `ag-ui`); `None` for parts.
    pub wire: Option<&'static str>,
}

/// What the implementation made of a fixture.
pub enum Outcome {
    Normalized(Box<Normalized>),
    /// The implementation does not claim the fixture's dialect.
    Unsupported(Dialect),
}

/// Load and normalize one fixture with the built-in normalizer; with `rules`, also run every
/// rule on it. `Err` is why the fixture could not be normalized at all (its `error` status).
pub fn normalize_fixture(f: &FixtureEntry, rules: bool) -> Result<Normalized, String> {
    match normalize_with(f, &Implementation::BuiltIn, rules)? {
        Outcome::Normalized(n) => Ok(*n),
        Outcome::Unsupported(d) => Err(format!("{}: dialect {d} not supported", f.rel)),
    }
}

/// Load one fixture, have `imp` normalize it, and (with `rules`) run every rule on the answer.
/// A panic anywhere below is caught and reported as an error: one broken fixture must not take
/// the gate down.
pub fn normalize_with(
    f: &FixtureEntry,
    imp: &Implementation,
    rules: bool,
) -> Result<Outcome, String> {
    normalize_in(f, imp, rules, None, &timings::OFF)
}

/// [`normalize_with`], the fixture opened in `corpus` when given.
fn normalize_in(
    f: &FixtureEntry,
    imp: &Implementation,
    rules: bool,
    corpus: Option<&Dirs>,
    timings: &Timings,
) -> Result<Outcome, String> {
    match panic::catch_unwind(AssertUnwindSafe(|| {
        normalize_inner(f, imp, rules, corpus, timings)
    })) {
        Ok(r) => r,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_owned());
            Err(format!("internal error while checking {}: {what}", f.rel))
        }
    }
}

fn normalize_inner(
    f: &FixtureEntry,
    imp: &Implementation,
    rules: bool,
    corpus: Option<&Dirs>,
    timings: &Timings,
) -> Result<Outcome, String> {
    let provider: Provider = f
        .provider
        .parse()
        .map_err(|e| format!("{}: provider folder: {e}", f.rel))?;
    let stream = timings.time(Phase::Reading, || {
        let (file, len) = open_fixture(f, corpus)?;
        load_file(file, Some(len), &f.path).map_err(|e| format!("{e:#}"))
    })?;
    let input = stream.input();
    // The folder names the provider; the header (or, failing that, the content) the dialect.
    let dialect = match stream
        .dialect
        .as_deref()
        .map(|d| Dialect::parse(d, Some(provider)))
    {
        Some(Ok(d)) => d,
        Some(Err(e)) => return Err(format!("{}: header: {e}", f.rel)),
        None => detect(&input, Some(provider)).map_err(|e| format!("{}: {e}", f.rel))?,
    };
    let mut unsent = Vec::new();
    let mut legacy = None;
    let mut wire = None;
    let normalizing = timings.start();
    let mut doc = match imp {
        Implementation::BuiltIn => normalize(
            &input,
            NormalizeOptions {
                provider: Some(provider),
                dialect: Some(dialect),
                cwd: stream.cwd.as_deref(),
            },
        )
        .map_err(|e| format!("{}: {e}", f.rel))?,
        Implementation::External(ext) => {
            if !ext.claims(provider.as_str(), dialect.as_str()) {
                return Ok(Outcome::Unsupported(dialect));
            }
            let req = Normalize::of_input(
                0,
                format!("{}/{}", f.provider, f.name),
                dialect,
                stream.cwd.clone(),
                &input,
            );
            let answer = ext.normalize(req).map_err(|e| format!("{}: {e}", f.rel))?;
            legacy = answer.legacy;
            let parts = match (answer.wire, answer.frames) {
                // An answer in a wire: its frames folded back into parts, judged like parts; the
                // frames go to the wire rules.
                (Some(w), Some(frames)) => {
                    let parts = super::implementation::wire::fold(w, &frames);
                    wire = Some((w, frames));
                    parts
                }
                _ => answer.parts.unwrap_or_default(),
            };
            let events = match answer.events {
                Some(e) => e,
                None => {
                    unsent.push("events");
                    derived_events(&input, &parts)
                }
            };
            let diagnostics = answer.diagnostics.unwrap_or_else(|| {
                unsent.push("diagnostics");
                Vec::new()
            });
            NormalizedDocument {
                schema_version: SCHEMA_VERSION,
                provider: provider.as_str().to_owned(),
                dialect: dialect.as_str().to_owned(),
                parts,
                events,
                diagnostics,
            }
        }
    };
    // Same document as `toolnorm normalize` prints: container problems lead the diagnostics.
    for note in stream.notes.iter().rev() {
        doc.diagnostics.insert(
            0,
            Diagnostic {
                line: 0,
                level: DiagnosticLevel::Error,
                message: note.clone(),
            },
        );
    }
    timings.end(Phase::Normalizing, normalizing);
    let canonical = timings.time(Phase::Canonical, || {
        canonical_of(&doc).map_err(|e| format!("{}: serializing the output: {e}", f.rel))
    })?;

    let mut violations = Vec::new();
    let mut raw_lines = BTreeMap::new();
    if rules {
        let raw = timings.time(Phase::RulesScan, || crate::dialects::scan(&input, dialect));
        let mut cx = RuleContext::new(dialect, &input, &doc, &raw);
        if let Some((w, frames)) = &wire {
            cx = cx.with_wire(WireFrames {
                wire: super::implementation::wire::rule_wire(*w),
                frames,
            });
        }
        let findings = timings.time(Phase::RulesChecks, || check_all(&cx));
        for (rule, finding) in findings {
            if let Some(n) = finding.line {
                // Lines are in number order: a lookup per finding, not a scan.
                if let Ok(i) = input.lines.binary_search_by_key(&n, |l| l.number) {
                    let line = &input.lines[i];
                    raw_lines
                        .entry(n)
                        .or_insert_with(|| truncate_counted(&line.text(), RAW_LINE_CLIP));
                }
            }
            violations.push(Violation::of(
                rule,
                finding,
                &f.provider,
                format!("{}/{}", f.provider, f.name),
            ));
        }
    }
    Ok(Outcome::Normalized(Box::new(Normalized {
        dialect,
        canonical,
        parts: doc.parts.len() as u32,
        violations,
        raw_lines,
        unsent,
        legacy,
        wire: wire.as_ref().map(|(w, _)| w.as_str()),
    })))
}

/// What one run checks fixtures against.
pub struct CheckContext<'a> {
    /// The corpus's folders, each opened once for the run.
    pub corpus: Dirs,
    /// The expected files' folders, each opened once for the run.
    pub expected: Dirs,
    /// Where pending outputs go (`None`: do not write them).
    pub reports: Option<&'a Path>,
    /// Whether `<reports>/pending` was there (as anything) when the run started. When it was
    /// not, no pending output of an earlier run is left to remove, and none is looked for.
    pub pending_folder: bool,
    pub expectations: &'a Expectations,
    /// Who normalizes the fixtures.
    pub implementation: &'a Implementation,
    /// How outputs are compared with their expected files.
    pub compare: CompareMode,
    /// Where the time goes (off unless `--timings`).
    pub timings: &'a Timings,
}

/// One fixture checked: its result, whether its expected file is missing (an orphan), and the
/// pending output left unwritten because a link or another non-file held its place.
#[derive(Debug)]
pub struct Checked {
    pub result: FixtureResult,
    pub expected_missing: bool,
    pub skipped: Vec<Skipped>,
}

/// Check one fixture completely. I/O failures of toolnorm's own (writing a pending file) are
/// errors; everything wrong with the fixture is in the result.
pub fn check_fixture(f: &FixtureEntry, cx: &CheckContext<'_>) -> Result<Checked, VerifyError> {
    let started = Instant::now();
    let mut result = FixtureResult {
        provider: f.provider.clone(),
        name: f.name.clone(),
        path: f.rel.clone(),
        dialect: None,
        status: Status::Pass,
        diff: None,
        legacy_diff: None,
        violations: Vec::new(),
        message: None,
        raw_lines: BTreeMap::new(),
        fixed: Vec::new(),
        formatting: Vec::new(),
        wire: None,
        parts: 0,
        raw_bytes: f.size,
        duration_ms: 0,
    };
    let checked = normalize_in(f, cx.implementation, true, Some(&cx.corpus), cx.timings);
    let mut normalized = match checked {
        Ok(Outcome::Normalized(n)) => *n,
        Ok(Outcome::Unsupported(dialect)) => {
            result.dialect = Some(dialect.as_str().to_owned());
            result.status = Status::Unsupported;
            result.message = Some(format!(
                "the implementation does not claim {}/{}",
                dialect.provider(),
                dialect.as_str()
            ));
            result.duration_ms = started.elapsed().as_millis() as u64;
            return Ok(Checked {
                result,
                expected_missing: false,
                skipped: Vec::new(),
            });
        }
        Err(message) => {
            result.status = Status::Error;
            result.message = Some(message);
            result.duration_ms = started.elapsed().as_millis() as u64;
            return Ok(Checked {
                result,
                expected_missing: false,
                skipped: Vec::new(),
            });
        }
    };
    result.dialect = Some(normalized.dialect.as_str().to_owned());
    result.parts = normalized.parts;
    result.wire = normalized.wire.map(str::to_owned);
    result.violations = std::mem::take(&mut normalized.violations);
    result.raw_lines = std::mem::take(&mut normalized.raw_lines);
    result.fixed = cx.expectations.apply(f.key(), &mut result.violations);

    let expected_rel = f.output_rel();
    let mut expected_missing = false;
    let differs = match cx
        .timings
        .time(Phase::Expected, || cx.expected.read(&expected_rel))
    {
        Ok(bytes) => {
            cx.timings.time(Phase::Comparing, || {
                let actual = with_unsent_from_expected(&normalized, &bytes);
                match compare_with(cx.compare, &bytes, &actual) {
                    Comparison::Same => {}
                    Comparison::Formatting(notes) => result.formatting = notes,
                    Comparison::Differs(d) => {
                        // A changed value in a file that is also not canonical: both are said.
                        if let Some((last, notes)) = d.invisible.split_last()
                            && last.contains("toolnorm fmt")
                        {
                            result.formatting = notes.to_vec();
                        }
                        result.diff = Some(d);
                    }
                }
                if let Some(legacy) = &normalized.legacy {
                    result.legacy_diff = legacy_diff(&bytes, legacy);
                }
                result.diff.is_some() || result.legacy_diff.is_some()
            })
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            result.message = Some(format!(
                "no expected file {}/{}.json: review the output, then run toolnorm accept",
                f.provider, f.name
            ));
            expected_missing = true;
            true
        }
        Err(e) if confined::refused(&e).is_some() => {
            // Never read through: the fixture has nothing to be compared with, so it fails (the
            // listing of the expected folder reports the entry too).
            result.message = Some(format!(
                "{e}; the fixture cannot be compared: make {}/{}.json a regular file",
                f.provider, f.name
            ));
            true
        }
        Err(e) => {
            return Err(VerifyError::Expected {
                path: cx.expected.root().join(expected_rel),
                source: e,
            });
        }
    };

    let unexpected = result.violations.iter().any(|v| !v.known);
    let known = result.violations.iter().any(|v| v.known);
    result.status = if differs || unexpected {
        Status::Fail
    } else if !result.fixed.is_empty() {
        Status::Xpass
    } else if known {
        Status::Xfail
    } else {
        Status::Pass
    };
    if !result.fixed.is_empty() {
        let entries: Vec<String> = result
            .fixed
            .iter()
            .flat_map(|rule| cx.expectations.entries_for(f.key(), rule))
            .map(|e| format!("`{}`", e.subject()))
            .collect();
        let fixed = format!(
            "fixed: remove the entry {} from expectations.toml",
            entries.join(", ")
        );
        result.message = Some(match result.message.take() {
            Some(m) => format!("{m}; {fixed}"),
            None => fixed,
        });
    }

    let mut skipped = Vec::new();
    if let Some(reports) = cx.reports {
        if differs {
            if let Some(s) = write_pending(f, reports, normalized.canonical.as_bytes())? {
                skipped.push(s);
            }
        } else if cx.pending_folder {
            // A pending output from an earlier run is stale once the fixture matches.
            skipped.extend(remove_pending(f, reports)?);
        }
    }
    result.duration_ms = started.elapsed().as_millis() as u64;
    Ok(Checked {
        result,
        expected_missing,
        skipped,
    })
}

/// The actual document to diff: what the implementation sent, with the fields it did not send
/// taken from the expected file (so they are not counted as differences).
fn with_unsent_from_expected<'n>(n: &'n Normalized, expected: &[u8]) -> Cow<'n, str> {
    if n.unsent.is_empty() {
        return Cow::Borrowed(&n.canonical);
    }
    let (Ok(mut actual), Ok(expected)) = (
        serde_json::from_str::<serde_json::Value>(&n.canonical),
        serde_json::from_slice::<serde_json::Value>(expected),
    ) else {
        return Cow::Borrowed(&n.canonical);
    };
    for key in &n.unsent {
        if let (Some(obj), Some(v)) = (actual.as_object_mut(), expected.get(*key)) {
            obj.insert((*key).to_owned(), v.clone());
        }
    }
    Cow::Owned(canonical_json(&actual))
}

/// The implementation's legacy view against the legacy mapping of the expected parts (both as
/// canonical JSON arrays), when they differ. An expected file that does not parse has no parts
/// to map: its own diff already says so.
fn legacy_diff(expected: &[u8], legacy: &[LegacyToolPart]) -> Option<FixtureDiff> {
    let doc: NormalizedDocument = serde_json::from_slice(expected).ok()?;
    let want = canonical_of(&crate::model::legacy_parts(&doc.parts)).ok()?;
    let got = canonical_of(legacy).ok()?;
    compare(want.as_bytes(), &got).into_diff()
}

/// `pending/<provider>/<name>.json`, relative to the reports folder.
fn pending_rel(f: &FixtureEntry) -> PathBuf {
    Path::new("pending").join(f.output_rel())
}

/// Write a fixture's pending output under `reports`, through no link. A link or another
/// non-file in its place is left alone and returned, to be reported.
pub fn write_pending(
    f: &FixtureEntry,
    reports: &Path,
    bytes: &[u8],
) -> Result<Option<Skipped>, VerifyError> {
    match write_file(reports, &pending_rel(f), bytes) {
        Ok(()) => Ok(None),
        Err(VerifyError::Write { path, source }) => match confined::refused(&source) {
            Some(r) => Ok(Some(Skipped {
                path: r.path.clone(),
                what: format!("{} (the pending output was not written)", r.what),
            })),
            None => Err(VerifyError::Write { path, source }),
        },
        Err(e) => Err(e),
    }
}

/// Remove a fixture's pending output under `reports`, if any, through no link. A linked folder
/// in its way is left alone and returned, to be reported.
pub fn remove_pending(f: &FixtureEntry, reports: &Path) -> Result<Option<Skipped>, VerifyError> {
    let rel = pending_rel(f);
    match confined::remove(reports, &rel) {
        Ok(()) => Ok(None),
        Err(e) => match confined::refused(&e) {
            Some(r) => Ok(Some(Skipped {
                path: r.path.clone(),
                what: format!("{} (a stale pending output was not removed)", r.what),
            })),
            None => Err(VerifyError::Write {
                path: reports.join(rel),
                source: e,
            }),
        },
    }
}

/// Write `root/rel`, creating its folders, through no link below `root` (a link or another
/// non-file in its place is refused: see [`confined::refused`]).
pub fn write_file(root: &Path, rel: &Path, bytes: &[u8]) -> Result<(), VerifyError> {
    confined::write(root, rel, bytes).map_err(|source| VerifyError::Write {
        path: root.join(rel),
        source,
    })
}

/// How far past the oldest fixture still being checked a worker may start one: what waits to be
/// handed on in order is at most this many results.
const WINDOW: usize = 256;

/// Check the `selected` fixtures of `index` (positions, in report order) on a pool of `jobs`
/// threads (0: one per core; one job works on the calling thread), calling `tick` after each
/// and handing every result to `sink` on the calling thread, in order. With `fail_fast`,
/// fixtures not yet started when one fails are skipped (the results handed on are then the
/// first ones, in order).
///
/// Memory: a worker holds one fixture at a time, and starts fixture `i` only once every fixture
/// before `i - WINDOW` has been handed on, so at most `WINDOW` results wait, whatever the size of
/// the corpus. The sink decides what is kept: a verify run keeps only what the reports show in
/// detail, copied on the calling thread (a result allocated by a worker between the megabytes of
/// the fixture it just checked would pin that worker's freed pages), and spools the rest.
pub fn run_ordered(
    index: &FixtureIndex,
    selected: &[usize],
    cx: &CheckContext<'_>,
    jobs: usize,
    fail_fast: bool,
    tick: &(dyn Fn(&FixtureResult) + Sync),
    sink: &mut dyn FnMut(Checked) -> Result<(), VerifyError>,
) -> Result<(), VerifyError> {
    if jobs == 1 {
        // One job: the fixtures are checked on the calling thread, in order, each handed on as
        // soon as it is checked. No pool, channel or window: a hand-over between two threads per
        // fixture (a wake-up, a switch, a spinning receiver) would cost more than it overlaps.
        for &at in selected {
            let checked = check_fixture(&index.entry(at), cx)?;
            let stop = fail_fast && matches!(checked.result.status, Status::Fail | Status::Error);
            tick(&checked.result);
            sink(checked)?;
            if stop {
                break;
            }
        }
        return Ok(());
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .thread_name(|i| format!("verify-{i}"))
        .build()
        .map_err(|e| VerifyError::Pool(e.to_string()))?;
    let workers = pool.current_num_threads();
    let shared = Shared {
        next: AtomicUsize::new(0),
        handed: Mutex::new(0),
        moved: Condvar::new(),
        stop: AtomicBool::new(false),
        abort: AtomicBool::new(false),
    };
    let (tx, rx) = crossbeam_channel::unbounded::<(usize, Result<Checked, VerifyError>)>();
    let mut failure: Option<VerifyError> = None;
    std::thread::scope(|scope| {
        let shared = &shared;
        let pool = &pool;
        let running = scope.spawn(move || {
            pool.scope(|s| {
                for _ in 0..workers {
                    let tx = tx.clone();
                    s.spawn(move |_| work(index, selected, cx, fail_fast, tick, shared, &tx));
                }
                drop(tx);
            });
        });
        // Hand results on in order as they arrive; the few that come early wait here.
        let mut waiting: BTreeMap<usize, Checked> = BTreeMap::new();
        let mut next = 0;
        for (i, checked) in rx {
            match checked {
                Ok(c) => {
                    waiting.insert(i, c);
                }
                Err(e) => {
                    failure.get_or_insert(e);
                    shared.abort();
                }
            }
            while let Some(c) = waiting.remove(&next) {
                next += 1;
                if failure.is_none()
                    && let Err(e) = sink(c)
                {
                    failure = Some(e);
                    shared.abort();
                }
                if let Ok(mut handed) = shared.handed.lock() {
                    *handed = next;
                }
                shared.moved.notify_all();
            }
        }
        if let Err(payload) = running.join() {
            panic::resume_unwind(payload);
        }
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// What the workers of [`run_ordered`] share.
struct Shared {
    /// The next position to start.
    next: AtomicUsize,
    /// How many results were handed on (all before that position).
    handed: Mutex<usize>,
    moved: Condvar,
    /// A fixture failed and `--fail-fast` was given: start no more.
    stop: AtomicBool,
    /// A worker failed or panicked: everyone stops.
    abort: AtomicBool,
}

impl Shared {
    fn abort(&self) {
        self.abort.store(true, Ordering::SeqCst);
        // Taken so no worker misses the news between its check and its wait.
        drop(self.handed.lock());
        self.moved.notify_all();
    }

    /// Wait until position `i` is within the window; false when the run is aborted.
    fn wait_for(&self, i: usize) -> bool {
        let Ok(mut handed) = self.handed.lock() else {
            return false;
        };
        while i >= *handed + WINDOW {
            if self.abort.load(Ordering::SeqCst) {
                return false;
            }
            handed = match self.moved.wait(handed) {
                Ok(h) => h,
                Err(_) => return false,
            };
        }
        !self.abort.load(Ordering::SeqCst)
    }
}

/// Aborts the run when its worker unwinds (a panic), so the others stop waiting.
struct AbortOnPanic<'a>(&'a Shared);

impl Drop for AbortOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.abort();
        }
    }
}

/// One worker: take the next position, wait for the window, check, send.
fn work(
    index: &FixtureIndex,
    selected: &[usize],
    cx: &CheckContext<'_>,
    fail_fast: bool,
    tick: &(dyn Fn(&FixtureResult) + Sync),
    shared: &Shared,
    tx: &crossbeam_channel::Sender<(usize, Result<Checked, VerifyError>)>,
) {
    let _guard = AbortOnPanic(shared);
    loop {
        if shared.abort.load(Ordering::SeqCst) || (fail_fast && shared.stop.load(Ordering::SeqCst))
        {
            return;
        }
        let i = shared.next.fetch_add(1, Ordering::SeqCst);
        let Some(&at) = selected.get(i) else {
            return;
        };
        if !shared.wait_for(i) {
            return;
        }
        let checked = check_fixture(&index.entry(at), cx);
        match &checked {
            Ok(c) => {
                if matches!(c.result.status, Status::Fail | Status::Error) {
                    shared.stop.store(true, Ordering::SeqCst);
                }
                tick(&c.result);
            }
            Err(_) => shared.abort(),
        }
        // The receiver lives until every worker is done.
        let _ = tx.send((i, checked));
    }
}
