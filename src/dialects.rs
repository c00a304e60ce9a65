//! The registry of dialects: one row per wire format naming its sniffer, its normalizer and its
//! raw-call scan, as `rules/registry.rs` is for rules. Detection, normalization and the rules'
//! scan all go through this table, so adding a dialect is its folder and one row here. Detection
//! reads a line at a time (`Sniffer`); the streaming [`Normalizer`](crate::normalizer::Normalizer)
//! above this floor picks its rows, and [`normalize`](crate::normalize), the batch path, is a
//! loop over it.

use std::fmt;

#[cfg(test)]
use crate::model::NormalizedDocument;
#[cfg(test)]
use crate::providers::NormalizeOptions;
use crate::providers::{
    NewNormalizer, Probe, acp, ag_ui, ai_sdk, claude, cline, codex, copilot, droid, gemini, kilo,
    kimi, opencode, openhands, qwen, vibe,
};
#[cfg(feature = "cli")]
use crate::rules::{RawScan, raw};
use crate::stream::{Dialect, Direction, Input, Provider, RawLine};

/// One dialect: how it is recognised, normalized and scanned.
pub struct DialectEntry {
    pub dialect: Dialect,
    /// Recognises one line of the dialect from its top-level keys.
    pub sniff: fn(&Probe<'_>) -> bool,
    /// Recognises a whole-document dialect (a single JSON value spanning many lines).
    pub sniff_document: Option<fn(&[u8]) -> bool>,
    /// Makes the dialect's per-line normalizer for one stream.
    pub new: NewNormalizer,
    /// The rules' independent scan of the raw stream (`rules::raw`; built with the `cli`
    /// feature, which has the rules).
    #[cfg(feature = "cli")]
    pub scan: fn(&Input<'_>) -> RawScan,
}

/// Every dialect, in detection order: a line counts for the first row whose sniffer recognises it.
pub static DIALECTS: &[DialectEntry] = &[
    // The UI wires: their sniffers take only their own types (kebab-case `tool-…` chunks,
    // AG-UI's upper-case events).
    DialectEntry {
        dialect: Dialect::AiSdk,
        sniff: ai_sdk::stream::sniff,
        sniff_document: None,
        new: ai_sdk::stream::new,
        #[cfg(feature = "cli")]
        scan: raw::ai_sdk::stream,
    },
    DialectEntry {
        dialect: Dialect::AgUi,
        sniff: ag_ui::events::sniff,
        sniff_document: None,
        new: ag_ui::events::new,
        #[cfg(feature = "cli")]
        scan: raw::ag_ui::events,
    },
    // Above `app-server`, whose sniffer takes any method with a `/`.
    DialectEntry {
        dialect: Dialect::Acp,
        sniff: acp::stdio::sniff,
        sniff_document: None,
        new: acp::stdio::new,
        #[cfg(feature = "cli")]
        scan: raw::acp::stdio,
    },
    DialectEntry {
        dialect: Dialect::OpencodeEvents,
        sniff: opencode::events::sniff,
        sniff_document: None,
        new: opencode::events::new,
        #[cfg(feature = "cli")]
        scan: raw::opencode::events,
    },
    DialectEntry {
        dialect: Dialect::OpencodeRun,
        sniff: opencode::run::sniff,
        sniff_document: None,
        new: opencode::run::new,
        #[cfg(feature = "cli")]
        scan: raw::opencode::run,
    },
    DialectEntry {
        dialect: Dialect::OpencodeExport,
        sniff: opencode::export::sniff,
        sniff_document: Some(opencode::export::sniff_document),
        new: opencode::export::new,
        #[cfg(feature = "cli")]
        scan: raw::opencode::export,
    },
    // Kilo writes OpenCode's formats (see `FORKS`): its rows are read only when Kilo is asked for
    // (a fixture in `kilo/`, `--provider kilo`).
    DialectEntry {
        dialect: Dialect::KiloEvents,
        sniff: kilo::events::sniff,
        sniff_document: None,
        new: kilo::events::new,
        #[cfg(feature = "cli")]
        scan: raw::opencode::events,
    },
    DialectEntry {
        dialect: Dialect::KiloRun,
        sniff: kilo::run::sniff,
        sniff_document: None,
        new: kilo::run::new,
        #[cfg(feature = "cli")]
        scan: raw::opencode::run,
    },
    DialectEntry {
        dialect: Dialect::KiloExport,
        sniff: kilo::export::sniff,
        sniff_document: Some(kilo::export::sniff_document),
        new: kilo::export::new,
        #[cfg(feature = "cli")]
        scan: raw::opencode::export,
    },
    // Above Gemini CLI's rows: a Cline task file is also a document with `sessionId` and
    // `messages`, told apart by its `origin`.
    DialectEntry {
        dialect: Dialect::ClineJson,
        sniff: cline::json::sniff,
        sniff_document: None,
        new: cline::json::new,
        #[cfg(feature = "cli")]
        scan: raw::cline::json,
    },
    DialectEntry {
        dialect: Dialect::ClineTask,
        sniff: cline::task::sniff,
        sniff_document: Some(cline::task::sniff_document),
        new: cline::task::new,
        #[cfg(feature = "cli")]
        scan: raw::cline::task,
    },
    DialectEntry {
        dialect: Dialect::OpenhandsJson,
        sniff: openhands::json::sniff,
        sniff_document: None,
        new: openhands::json::new,
        #[cfg(feature = "cli")]
        scan: raw::openhands::events,
    },
    DialectEntry {
        dialect: Dialect::OpenhandsEvents,
        sniff: openhands::events::sniff,
        sniff_document: None,
        new: openhands::events::new,
        #[cfg(feature = "cli")]
        scan: raw::openhands::events,
    },
    DialectEntry {
        dialect: Dialect::VibeSession,
        sniff: vibe::session::sniff,
        sniff_document: None,
        new: vibe::session::new,
        #[cfg(feature = "cli")]
        scan: raw::vibe::session,
    },
    // Kimi's messages (a top-level `role`, no `type`): print mode's output above the saved
    // context, which also holds the user's messages and Kimi's records.
    DialectEntry {
        dialect: Dialect::KimiStreamJson,
        sniff: kimi::stream_json::sniff,
        sniff_document: None,
        new: kimi::stream_json::new,
        #[cfg(feature = "cli")]
        scan: raw::kimi::messages,
    },
    DialectEntry {
        dialect: Dialect::KimiSession,
        sniff: kimi::session::sniff,
        sniff_document: None,
        new: kimi::session::new,
        #[cfg(feature = "cli")]
        scan: raw::kimi::messages,
    },
    // Kimi's wire: `wire.jsonl`'s records (`timestamp`, `message`) and its header, `kimi --wire`'s
    // JSON-RPC `event`s and `request`s (their `params` a `{type, payload}` envelope).
    DialectEntry {
        dialect: Dialect::KimiWire,
        sniff: kimi::wire::sniff,
        sniff_document: None,
        new: kimi::wire::new,
        #[cfg(feature = "cli")]
        scan: raw::kimi::wire,
    },
    // Vibe's history entries (a `sessionId`, `turnId`, `generationStatus` and a `type` of
    // `message` or `effect`), the whole array of them, and its journal's records.
    DialectEntry {
        dialect: Dialect::VibeStreaming,
        sniff: vibe::streaming::sniff,
        sniff_document: None,
        new: vibe::streaming::new,
        #[cfg(feature = "cli")]
        scan: raw::vibe::streaming,
    },
    DialectEntry {
        dialect: Dialect::VibeJson,
        sniff: vibe::json::sniff,
        sniff_document: Some(vibe::json::sniff_document),
        new: vibe::json::new,
        #[cfg(feature = "cli")]
        scan: raw::vibe::json,
    },
    DialectEntry {
        dialect: Dialect::VibeJournal,
        sniff: vibe::journal::sniff,
        sniff_document: None,
        new: vibe::journal::new,
        #[cfg(feature = "cli")]
        scan: raw::vibe::journal,
    },
    DialectEntry {
        dialect: Dialect::GeminiStreamJson,
        sniff: gemini::stream_json::sniff,
        sniff_document: None,
        new: gemini::stream_json::new,
        #[cfg(feature = "cli")]
        scan: raw::gemini::gemini_stream_json,
    },
    DialectEntry {
        dialect: Dialect::GeminiJson,
        sniff: gemini::json::sniff,
        sniff_document: Some(gemini::json::sniff_document),
        new: gemini::json::new,
        #[cfg(feature = "cli")]
        scan: raw::gemini::gemini_json,
    },
    DialectEntry {
        dialect: Dialect::GeminiSession,
        sniff: gemini::session::sniff,
        sniff_document: Some(gemini::session::sniff_document),
        new: gemini::session::new,
        #[cfg(feature = "cli")]
        scan: raw::gemini::gemini_session,
    },
    // Above Claude's rows, whose sniffers take Qwen Code's Claude-shaped lines too.
    DialectEntry {
        dialect: Dialect::QwenStreamJson,
        sniff: qwen::stream_json::sniff,
        sniff_document: None,
        new: qwen::stream_json::new,
        #[cfg(feature = "cli")]
        scan: raw::gemini::qwen_stream_json,
    },
    DialectEntry {
        dialect: Dialect::QwenJson,
        sniff: qwen::json::sniff,
        sniff_document: Some(qwen::json::sniff_document),
        new: qwen::json::new,
        #[cfg(feature = "cli")]
        scan: raw::gemini::qwen_json,
    },
    DialectEntry {
        dialect: Dialect::QwenSession,
        sniff: qwen::session::sniff,
        sniff_document: None,
        new: qwen::session::new,
        #[cfg(feature = "cli")]
        scan: raw::gemini::qwen_session,
    },
    DialectEntry {
        dialect: Dialect::CodexAppServer,
        sniff: codex::app_server::sniff,
        sniff_document: None,
        new: codex::app_server::new,
        #[cfg(feature = "cli")]
        scan: raw::codex::app_server,
    },
    DialectEntry {
        dialect: Dialect::CodexLegacy,
        sniff: codex::legacy::sniff,
        sniff_document: None,
        new: codex::legacy::new,
        #[cfg(feature = "cli")]
        scan: raw::codex::legacy,
    },
    DialectEntry {
        dialect: Dialect::CodexRollout,
        sniff: codex::rollout::sniff,
        sniff_document: None,
        new: codex::rollout::new,
        #[cfg(feature = "cli")]
        scan: raw::codex::rollout,
    },
    DialectEntry {
        dialect: Dialect::CodexExec,
        sniff: codex::exec::sniff,
        sniff_document: None,
        new: codex::exec::new,
        #[cfg(feature = "cli")]
        scan: raw::codex::exec,
    },
    DialectEntry {
        dialect: Dialect::CopilotJson,
        sniff: copilot::json::sniff,
        sniff_document: None,
        new: copilot::json::new,
        #[cfg(feature = "cli")]
        scan: raw::copilot::events,
    },
    DialectEntry {
        dialect: Dialect::CopilotSession,
        sniff: copilot::session::sniff,
        sniff_document: None,
        new: copilot::session::new,
        #[cfg(feature = "cli")]
        scan: raw::copilot::events,
    },
    // Above Claude's rows: droid's `init` line is Claude's shape, told apart by its own keys.
    DialectEntry {
        dialect: Dialect::DroidStreamJson,
        sniff: droid::stream_json::sniff,
        sniff_document: None,
        new: droid::stream_json::new,
        #[cfg(feature = "cli")]
        scan: raw::droid::stream_json,
    },
    DialectEntry {
        dialect: Dialect::DroidSession,
        sniff: droid::session::sniff,
        sniff_document: None,
        new: droid::session::new,
        #[cfg(feature = "cli")]
        scan: raw::droid::session,
    },
    DialectEntry {
        dialect: Dialect::ClaudeTranscript,
        sniff: claude::transcript::sniff,
        sniff_document: None,
        new: claude::transcript::new,
        #[cfg(feature = "cli")]
        scan: raw::claude::transcript,
    },
    DialectEntry {
        dialect: Dialect::ClaudeStreamJson,
        sniff: claude::stream_json::sniff,
        sniff_document: None,
        new: claude::stream_json::new,
        #[cfg(feature = "cli")]
        scan: raw::claude::stream_json,
    },
];

/// The registry row of a dialect.
pub fn entry(dialect: Dialect) -> &'static DialectEntry {
    DIALECTS
        .iter()
        .find(|e| e.dialect == dialect)
        .expect("every dialect has a registry row (checked by a test)")
}

/// Why a stream could not be normalized at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NormalizeError {
    /// No line in the detection window looks like any dialect (of the provider asked for).
    Undetectable(String),
    /// Nothing to detect from: no line, or only blank ones.
    Empty(&'static str),
    /// The dialect asked for belongs to another provider than the one asked for.
    Mismatch {
        dialect: &'static str,
        actual: Provider,
        requested: Provider,
    },
}

impl fmt::Display for NormalizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NormalizeError::Undetectable(why) => write!(f, "could not detect the dialect: {why}"),
            NormalizeError::Empty(why) => write!(f, "empty input: {why}"),
            NormalizeError::Mismatch {
                dialect,
                actual,
                requested,
            } => write!(
                f,
                "dialect `{dialect}` belongs to {actual}, not {requested}"
            ),
        }
    }
}

impl std::error::Error for NormalizeError {}

/// The rules' scan of a stream in a dialect.
#[cfg(feature = "cli")]
pub fn scan(input: &Input<'_>, dialect: Dialect) -> RawScan {
    (entry(dialect).scan)(input)
}

/// Normalize a plain text stream as `dialect` (for tests of a dialect's own file).
#[cfg(test)]
pub(crate) fn normalize_text(text: &str, dialect: Dialect) -> NormalizedDocument {
    let input = Input::from_bytes(text.as_bytes());
    crate::normalizer::normalize(
        &input,
        NormalizeOptions {
            dialect: Some(dialect),
            ..NormalizeOptions::default()
        },
    )
    .expect("a forced dialect always normalizes")
}

/// Dialects that are another dialect's format byte for byte, written by a CLI built on the other
/// one's (Kilo on OpenCode): (the fork's dialect, the dialect whose format it is). From content
/// alone their lines are the other's, so detection never names the fork unless its provider is
/// asked for (a fixture's folder, `--provider kilo`); then the fork's rows read lines with the
/// other's sniffers. Their rows' own sniffers are the same functions, kept for that case.
pub static FORKS: &[(Dialect, Dialect)] = &[
    (Dialect::KiloEvents, Dialect::OpencodeEvents),
    (Dialect::KiloRun, Dialect::OpencodeRun),
    (Dialect::KiloExport, Dialect::OpencodeExport),
];

/// A line the first dialect accepts is not the second's, whose sniffer takes it too: Vibe's older
/// saved messages are Kimi CLI's chat shape with the `injected` flag every Vibe message has.
pub static SHADOWS: &[(Dialect, Dialect)] = &[
    (Dialect::VibeSession, Dialect::KimiSession),
    (Dialect::VibeSession, Dialect::KimiStreamJson),
];

/// Whether `e` is a fork's dialect ([`FORKS`]) that only its own provider may detect.
fn fork_hidden(e: &DialectEntry, provider: Option<Provider>) -> bool {
    provider != Some(e.dialect.provider()) && FORKS.iter().any(|(fork, _)| *fork == e.dialect)
}

/// Whether row `e` accepts the line, given the provider asked for.
fn sniffs(e: &DialectEntry, provider: Option<Provider>, probe: &Probe<'_>) -> bool {
    !fork_hidden(e, provider) && (e.sniff)(probe)
}

/// How many non-blank lines detection looks at, at most.
const SNIFF_LINES: usize = 64;
/// Detection stops early once this many lines agree and none disagrees.
const UNANIMOUS: usize = 8;

/// Detect the dialect from content, optionally only among one provider's dialects: a loop over
/// the incremental `Sniffer`.
pub fn detect(input: &Input<'_>, provider: Option<Provider>) -> Result<Dialect, NormalizeError> {
    let mut sniffer = Sniffer::new(provider);
    for line in &input.lines {
        if let Some(decided) = sniffer.push(line) {
            return decided;
        }
    }
    sniffer.finish()
}

/// A line kept while the dialect is not known yet, to be replayed once it is.
#[derive(Debug)]
pub(crate) struct HeldLine {
    pub number: u32,
    pub bytes: Vec<u8>,
    pub direction: Direction,
    pub unterminated: bool,
}

impl HeldLine {
    pub fn raw(&self) -> RawLine<'_> {
        RawLine {
            number: self.number,
            bytes: &self.bytes,
            direction: self.direction,
            unterminated: self.unterminated,
            text: None,
        }
    }
}

/// Could the stream read so far be one JSON document, an object or an array (what a
/// whole-document dialect is)? A scan
/// of its structure only: braces and brackets outside strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DocShape {
    /// Only white space so far.
    Nothing,
    /// Inside the first value, at this depth.
    Open {
        depth: u32,
        in_string: bool,
        escaped: bool,
    },
    /// The first value is complete and only white space has followed.
    Closed,
    /// Not one JSON object: it starts otherwise, or more follows the first value.
    No,
}

impl DocShape {
    fn feed(self, bytes: &[u8]) -> DocShape {
        let mut shape = self;
        for &b in bytes {
            shape = match shape {
                DocShape::No => return DocShape::No,
                DocShape::Nothing | DocShape::Closed if b.is_ascii_whitespace() => shape,
                DocShape::Nothing if b == b'{' || b == b'[' => DocShape::Open {
                    depth: 1,
                    in_string: false,
                    escaped: false,
                },
                DocShape::Nothing | DocShape::Closed => DocShape::No,
                DocShape::Open {
                    depth,
                    in_string: true,
                    escaped,
                } => match b {
                    // A raw line break never is inside a JSON string.
                    b'\n' => DocShape::No,
                    _ if escaped => DocShape::Open {
                        depth,
                        in_string: true,
                        escaped: false,
                    },
                    b'\\' => DocShape::Open {
                        depth,
                        in_string: true,
                        escaped: true,
                    },
                    b'"' => DocShape::Open {
                        depth,
                        in_string: false,
                        escaped: false,
                    },
                    _ => shape,
                },
                DocShape::Open { depth, .. } => match b {
                    b'"' => DocShape::Open {
                        depth,
                        in_string: true,
                        escaped: false,
                    },
                    b'{' | b'[' => DocShape::Open {
                        depth: depth + 1,
                        in_string: false,
                        escaped: false,
                    },
                    b'}' | b']' if depth == 1 => DocShape::Closed,
                    b'}' | b']' => DocShape::Open {
                        depth: depth - 1,
                        in_string: false,
                        escaped: false,
                    },
                    _ => shape,
                },
            };
        }
        shape
    }
}

/// Detection from content, a line at a time, with exactly the verdict of looking at the whole
/// stream:
///
/// - a whole-document dialect (`opencode export`) when the stream is one such JSON document;
/// - otherwise the dialect of the first line that only one dialect's sniffer accepts (among the
///   provider's, when one is asked for) — provided
///   every line before it that some sniffer accepted was accepted by that dialect too (foreign
///   lines, which no sniffer accepts, say nothing);
/// - failing that (every line so far was accepted by several dialects, or two lines contradict
///   each other), the dialect most of the first [`SNIFF_LINES`] non-blank lines look like (a line
///   counts for the first row, among the provider's, whose sniffer accepts it), decided as soon
///   as [`UNANIMOUS`] lines agree and none disagrees.
///
/// A fork's dialect that writes another's format byte for byte ([`FORKS`]: Kilo's, OpenCode's)
/// is never detected from content alone (its lines are the other's); when its provider is asked
/// for, its rows read lines with the other's sniffers.
///
/// So a stream is decided at its first line that names its dialect beyond doubt (Claude's
/// `system`/`init`, Codex's `thread.started`, OpenCode's `server.connected`), and only what is
/// truly ambiguous is held: lines several sniffers accept (an ACP `session/update` is also a
/// method with a `/`, a transcript's message line also reads as stream-json), blank and foreign
/// lines, and a stream that can still be one JSON document. It keeps the lines it has read (never
/// blank ones) until it decides: at most the sniff window, or a whole document while the stream
/// can still be one.
#[derive(Debug)]
pub(crate) struct Sniffer {
    provider: Option<Provider>,
    votes: Vec<(Dialect, usize)>,
    /// The dialects every line accepted so far was accepted by (among the provider's); empty once
    /// two lines contradicted each other.
    candidates: Vec<Dialect>,
    /// The first line only one dialect accepts, when it is still a candidate: the verdict.
    decisive: Option<Dialect>,
    /// Non-blank lines looked at (the window counts these).
    looked: usize,
    /// Lines seen, blank ones included.
    seen: u64,
    /// The window is over: the votes are final.
    voted: bool,
    shape: DocShape,
    /// The document sniffers' verdict on the closed first value (computed once).
    document: Option<Option<Dialect>>,
    held: Vec<HeldLine>,
}

impl Sniffer {
    pub fn new(provider: Option<Provider>) -> Self {
        let documents = DIALECTS
            .iter()
            .any(|e| e.sniff_document.is_some() && Self::allows(provider, e));
        Sniffer {
            provider,
            votes: Vec::new(),
            candidates: DIALECTS
                .iter()
                .filter(|e| Self::allows(provider, e) && !fork_hidden(e, provider))
                .map(|e| e.dialect)
                .collect(),
            decisive: None,
            looked: 0,
            seen: 0,
            voted: false,
            shape: if documents {
                DocShape::Nothing
            } else {
                DocShape::No
            },
            document: None,
            held: Vec::new(),
        }
    }

    fn allows(provider: Option<Provider>, e: &DialectEntry) -> bool {
        provider.is_none_or(|p| e.dialect.provider() == p)
    }

    /// Read one more line; `Some` once the dialect is decided (or known to be undetectable).
    /// The line is kept (see [`take_held`](Self::take_held)) unless it is blank.
    pub fn push(&mut self, line: &RawLine<'_>) -> Option<Result<Dialect, NormalizeError>> {
        self.seen += 1;
        if line.is_blank() {
            return self.decided();
        }
        if self.shape != DocShape::No {
            self.shape = self.shape.feed(line.bytes).feed(b"\n");
        }
        if !self.voted {
            self.vote(line);
        }
        self.held.push(HeldLine {
            number: line.number,
            bytes: line.bytes.to_vec(),
            direction: line.direction,
            unterminated: line.unterminated,
        });
        self.decided()
    }

    fn vote(&mut self, line: &RawLine<'_>) {
        self.looked += 1;
        let text = line.text();
        if let Some(probe) = Probe::parse(&text) {
            let provider = self.provider;
            let all: Vec<&DialectEntry> = DIALECTS
                .iter()
                .filter(|e| Self::allows(provider, e) && sniffs(e, provider, &probe))
                .collect();
            let mut accepted = all.iter().copied().filter(|e| {
                !all.iter()
                    .any(|a| SHADOWS.contains(&(a.dialect, e.dialect)))
            });
            if let Some(first) = accepted.next() {
                let others: Vec<&DialectEntry> = accepted.collect();
                match self.votes.iter_mut().find(|(x, _)| *x == first.dialect) {
                    Some((_, n)) => *n += 1,
                    None => self.votes.push((first.dialect, 1)),
                }
                self.narrow(first, &others);
            }
        }
        // A line that names the dialect, enough unanimous evidence, or the whole window: the
        // votes are final.
        let unanimous = matches!(self.votes.as_slice(), [(_, n)] if *n >= UNANIMOUS);
        self.voted = self.decisive.is_some() || unanimous || self.looked >= SNIFF_LINES;
    }

    /// Keep the candidates the line's sniffers (`first`, then `others`: the provider's, when
    /// one is asked for) accept; a line only one dialect accepts decides, if that dialect is
    /// still a candidate. A line only other providers' dialects accept never gets here: it says
    /// nothing, as a foreign line.
    fn narrow(&mut self, first: &DialectEntry, others: &[&DialectEntry]) {
        let accepts = |d: Dialect| first.dialect == d || others.iter().any(|e| e.dialect == d);
        self.candidates.retain(|&d| accepts(d));
        if others.is_empty() && self.candidates == [first.dialect] {
            self.decisive = Some(first.dialect);
        }
    }

    /// The verdict, when what is left of the stream can no longer change it.
    fn decided(&mut self) -> Option<Result<Dialect, NormalizeError>> {
        match self.shape {
            DocShape::Nothing | DocShape::Open { .. } => return None,
            // Still one document of a whole-document dialect: only the end of the stream can say.
            DocShape::Closed => {
                if self.document_dialect().is_some() {
                    return None;
                }
            }
            DocShape::No => {}
        }
        self.voted.then(|| self.by_votes())
    }

    /// The whole-document dialect the closed first value is, if any.
    fn document_dialect(&mut self) -> Option<Dialect> {
        if let Some(d) = self.document {
            return d;
        }
        let mut bytes = Vec::new();
        for l in &self.held {
            bytes.extend_from_slice(&l.bytes);
            bytes.push(b'\n');
        }
        let provider = self.provider;
        let d = DIALECTS
            .iter()
            .filter(|e| Self::allows(provider, e) && !fork_hidden(e, provider))
            .find(|e| e.sniff_document.is_some_and(|sniff| sniff(&bytes)))
            .map(|e| e.dialect);
        self.document = Some(d);
        d
    }

    fn by_votes(&self) -> Result<Dialect, NormalizeError> {
        if let Some(d) = self.decisive {
            return Ok(d);
        }
        // The most votes; on a tie, the dialect that was voted for first.
        let mut best: Option<(Dialect, usize)> = None;
        for &(d, n) in &self.votes {
            if best.is_none_or(|(_, b)| n > b) {
                best = Some((d, n));
            }
        }
        best.map(|(d, _)| d).ok_or_else(|| {
            NormalizeError::Undetectable(match self.provider {
                Some(p) => format!("no line looks like any {p} dialect"),
                None => "no line looks like the output of any known agent".to_owned(),
            })
        })
    }

    /// The stream has ended: the verdict on all of it.
    pub fn finish(&mut self) -> Result<Dialect, NormalizeError> {
        if self.shape == DocShape::Closed
            && let Some(d) = self.document_dialect()
        {
            return Ok(d);
        }
        if self.held.is_empty() {
            return Err(NormalizeError::Empty(if self.seen == 0 {
                "no lines"
            } else {
                "only blank lines"
            }));
        }
        self.by_votes()
    }

    /// The lines read so far, to replay into the dialect's normalizer.
    pub fn take_held(&mut self) -> Vec<HeldLine> {
        std::mem::take(&mut self.held)
    }
}

/// [`detect`] as the corpus shells take it (see [`crate::stream::Detector`]).
pub fn detector(input: &Input<'_>, provider: Option<Provider>) -> Result<Dialect, String> {
    detect(input, provider).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Push `lines` (numbered from 1) into a sniffer; the verdict and the line that gave it.
    fn sniff(provider: Option<Provider>, lines: &[&str]) -> Option<(u32, Dialect)> {
        let mut s = Sniffer::new(provider);
        for (i, text) in lines.iter().enumerate() {
            let line = RawLine {
                number: i as u32 + 1,
                bytes: text.as_bytes(),
                direction: Direction::Agent,
                unterminated: false,
                text: Some(text),
            };
            if let Some(verdict) = s.push(&line) {
                return Some((line.number, verdict.unwrap()));
            }
        }
        None
    }

    const ACP_UPDATE: &str = r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}"#;

    #[test]
    fn a_line_only_one_dialect_accepts_decides_at_once() {
        let first_lines = [
            (
                r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"s","tools":["Bash"]}"#,
                Dialect::ClaudeStreamJson,
            ),
            (
                r#"{"parentUuid":null,"isSidechain":false,"sessionId":"s","type":"user","message":{"role":"user","content":"hi"}}"#,
                Dialect::ClaudeTranscript,
            ),
            (
                r#"{"type":"thread.started","thread_id":"t"}"#,
                Dialect::CodexExec,
            ),
            (
                r#"{"jsonrpc":"2.0","method":"thread/started","params":{"thread":{"id":"t"}}}"#,
                Dialect::CodexAppServer,
            ),
            (
                r#"{"timestamp":"t","type":"session_meta","payload":{"id":"s","cwd":"/w"}}"#,
                Dialect::CodexRollout,
            ),
            (
                r#"{"id":"0","msg":{"type":"session_configured","session_id":"s"}}"#,
                Dialect::CodexLegacy,
            ),
            (
                r#"{"type":"server.connected","properties":{}}"#,
                Dialect::OpencodeEvents,
            ),
            (
                r#"{"type":"step_start","timestamp":1,"sessionID":"ses","part":{"type":"step-start"}}"#,
                Dialect::OpencodeRun,
            ),
            (
                r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}"#,
                Dialect::Acp,
            ),
        ];
        for (line, dialect) in first_lines {
            assert_eq!(sniff(None, &[line]), Some((1, dialect)), "{line}");
        }
    }

    #[test]
    fn blank_foreign_and_ambiguous_lines_are_held_until_a_line_names_the_dialect() {
        let item = r#"{"jsonrpc":"2.0","method":"item/started","params":{"item":{"id":"i","type":"commandExecution"}}}"#;
        // An ACP notification is also a method with a `/`, which Codex app-server's sniffer
        // takes: held, with the blank and foreign lines, until a line only one dialect accepts.
        let lines = ["", "not json", r#"{"model":"m"}"#, ACP_UPDATE, item];
        assert_eq!(sniff(None, &lines), Some((5, Dialect::CodexAppServer)));
        let init =
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}"#;
        assert_eq!(sniff(None, &[ACP_UPDATE, init]), Some((2, Dialect::Acp)));
        // Lines that contradict each other decide nothing early: the vote, at the end.
        let claude = r#"{"type":"system","subtype":"init","session_id":"s"}"#;
        assert_eq!(sniff(None, &[ACP_UPDATE, claude]), None);
        let mut s = Sniffer::new(None);
        for (i, text) in [ACP_UPDATE, claude].iter().enumerate() {
            let line = RawLine {
                number: i as u32 + 1,
                bytes: text.as_bytes(),
                direction: Direction::Agent,
                unterminated: false,
                text: Some(text),
            };
            assert!(s.push(&line).is_none());
        }
        assert_eq!(
            s.finish(),
            Ok(Dialect::Acp),
            "a tie goes to the first voted"
        );
    }

    #[test]
    fn a_provider_narrows_the_candidates() {
        let claude = r#"{"type":"system","subtype":"init","session_id":"s"}"#;
        let exec = r#"{"type":"turn.started"}"#;
        // Another provider's line says nothing, as a foreign one.
        assert_eq!(
            sniff(Some(Provider::Codex), &[claude, exec]),
            Some((2, Dialect::CodexExec))
        );
        assert_eq!(sniff(Some(Provider::Claude), &[exec]), None);
    }

    #[test]
    fn what_may_be_one_json_document_is_held() {
        // Its first line would name Codex exec, but the stream may be one `opencode export`.
        let export_like = r#"{"info":{},"messages":[],"type":"turn.started"}"#;
        assert_eq!(sniff(None, &[export_like]), None);
        assert_eq!(
            sniff(None, &[export_like, r#"{"type":"turn.started"}"#]),
            Some((2, Dialect::CodexExec))
        );
        // A document's first line.
        assert_eq!(sniff(None, &["{", r#""type":"turn.started","#]), None);
    }

    #[test]
    fn every_dialect_has_exactly_one_row() {
        for d in Dialect::ALL {
            assert_eq!(
                DIALECTS.iter().filter(|e| e.dialect == d).count(),
                1,
                "{d:?}"
            );
        }
        assert_eq!(DIALECTS.len(), Dialect::ALL.len());
    }
}
