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
#[cfg(any(test, feature = "cli"))]
use crate::stream::Input;
use crate::stream::{Dialect, Provider};

mod detect;
pub use detect::{FORKS, detect, detector};
pub(crate) use detect::{HeldLine, Sniffer};

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
    // Above ACP's and Codex's app server's rows, which take any `session/…` or `…/…` method:
    // Vibe's app server's notifications (an `eventId`, a `sessionId` and an `emittedAt` in their
    // params) and the client's Vibe-only requests.
    DialectEntry {
        dialect: Dialect::VibeAppServer,
        sniff: vibe::app_server::sniff,
        sniff_document: None,
        new: vibe::app_server::new,
        #[cfg(feature = "cli")]
        scan: raw::vibe::app_server,
    },
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
