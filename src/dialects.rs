//! The registry of dialects: one row per wire format naming its sniffer, its normalizer and its
//! raw-call scan, as `rules/registry.rs` is for rules. Detection, normalization and the rules'
//! scan all go through this table, so adding a dialect is its folder and one row here.

use crate::model::NormalizedDocument;
use crate::providers::{
    NormalizeFn, NormalizeOptions, PartStore, Probe, acp, claude, codex, opencode,
};
use crate::rules::{RawScan, raw};
use crate::stream::{Dialect, Input, Provider};

/// One dialect: how it is recognised, normalized and scanned.
pub struct DialectEntry {
    pub dialect: Dialect,
    /// Recognises one line of the dialect from its top-level keys.
    pub sniff: fn(&Probe<'_>) -> bool,
    /// Recognises a whole-document dialect (a single JSON value spanning many lines).
    pub sniff_document: Option<fn(&[u8]) -> bool>,
    /// Reads the whole stream into parts.
    pub normalize: NormalizeFn,
    /// The rules' independent scan of the raw stream (see `rules::raw`).
    pub scan: fn(&Input<'_>) -> RawScan,
}

/// Every dialect, in detection order: a line counts for the first row whose sniffer recognises it.
pub static DIALECTS: &[DialectEntry] = &[
    // Above `app-server`, whose sniffer takes any method with a `/`.
    DialectEntry {
        dialect: Dialect::Acp,
        sniff: acp::stdio::sniff,
        sniff_document: None,
        normalize: acp::stdio::normalize,
        scan: raw::acp::stdio,
    },
    DialectEntry {
        dialect: Dialect::OpencodeEvents,
        sniff: opencode::events::sniff,
        sniff_document: None,
        normalize: opencode::events::normalize,
        scan: raw::opencode::events,
    },
    DialectEntry {
        dialect: Dialect::OpencodeRun,
        sniff: opencode::run::sniff,
        sniff_document: None,
        normalize: opencode::run::normalize,
        scan: raw::opencode::run,
    },
    DialectEntry {
        dialect: Dialect::OpencodeExport,
        sniff: opencode::export::sniff,
        sniff_document: Some(opencode::export::sniff_document),
        normalize: opencode::export::normalize,
        scan: raw::opencode::export,
    },
    DialectEntry {
        dialect: Dialect::CodexAppServer,
        sniff: codex::app_server::sniff,
        sniff_document: None,
        normalize: codex::app_server::normalize,
        scan: raw::codex::app_server,
    },
    DialectEntry {
        dialect: Dialect::CodexLegacy,
        sniff: codex::legacy::sniff,
        sniff_document: None,
        normalize: codex::legacy::normalize,
        scan: raw::codex::legacy,
    },
    DialectEntry {
        dialect: Dialect::CodexRollout,
        sniff: codex::rollout::sniff,
        sniff_document: None,
        normalize: codex::rollout::normalize,
        scan: raw::codex::rollout,
    },
    DialectEntry {
        dialect: Dialect::CodexExec,
        sniff: codex::exec::sniff,
        sniff_document: None,
        normalize: codex::exec::normalize,
        scan: raw::codex::exec,
    },
    DialectEntry {
        dialect: Dialect::ClaudeTranscript,
        sniff: claude::transcript::sniff,
        sniff_document: None,
        normalize: claude::transcript::normalize,
        scan: raw::claude::transcript,
    },
    DialectEntry {
        dialect: Dialect::ClaudeStreamJson,
        sniff: claude::stream_json::sniff,
        sniff_document: None,
        normalize: claude::stream_json::normalize,
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
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum NormalizeError {
    #[error("could not detect the dialect: {0}")]
    Undetectable(String),
    /// Nothing to detect from: no line, or only blank ones.
    #[error("empty input: {0}")]
    Empty(&'static str),
    #[error("dialect `{dialect}` belongs to {actual}, not {requested}")]
    Mismatch {
        dialect: &'static str,
        actual: Provider,
        requested: Provider,
    },
}

/// Normalize one raw stream. Bad lines become diagnostics; only an undetectable dialect is an error.
pub fn normalize(
    input: &Input<'_>,
    opts: NormalizeOptions<'_>,
) -> Result<NormalizedDocument, NormalizeError> {
    let dialect = match (opts.dialect, opts.provider) {
        (Some(d), Some(p)) if d.provider() != p => {
            return Err(NormalizeError::Mismatch {
                dialect: d.as_str(),
                actual: d.provider(),
                requested: p,
            });
        }
        (Some(d), _) => d,
        (None, p) => detect(input, p)?,
    };
    let mut store = PartStore::new();
    (entry(dialect).normalize)(input, &opts, &mut store);
    Ok(store.finish(dialect.provider().as_str(), dialect.as_str()))
}

/// The rules' scan of a stream in a dialect.
pub fn scan(input: &Input<'_>, dialect: Dialect) -> RawScan {
    (entry(dialect).scan)(input)
}

/// Normalize a plain text stream as `dialect` (for tests of a dialect's own file).
#[cfg(test)]
pub(crate) fn normalize_text(text: &str, dialect: Dialect) -> NormalizedDocument {
    let input = Input::from_bytes(text.as_bytes());
    normalize(
        &input,
        NormalizeOptions {
            dialect: Some(dialect),
            ..NormalizeOptions::default()
        },
    )
    .expect("a forced dialect always normalizes")
}

/// How many non-blank lines detection looks at, at most.
const SNIFF_LINES: usize = 64;
/// Detection stops early once this many lines agree and none disagrees.
const UNANIMOUS: usize = 8;

/// Detect the dialect from content, optionally only among one provider's dialects.
pub fn detect(input: &Input<'_>, provider: Option<Provider>) -> Result<Dialect, NormalizeError> {
    let allowed = |e: &&DialectEntry| provider.is_none_or(|p| e.dialect.provider() == p);
    for e in DIALECTS.iter().filter(allowed) {
        if e.sniff_document.is_some_and(|sniff| sniff(input.bytes)) {
            return Ok(e.dialect);
        }
    }
    if input.lines.iter().all(|l| l.is_blank()) {
        return Err(NormalizeError::Empty(if input.lines.is_empty() {
            "no lines"
        } else {
            "only blank lines"
        }));
    }
    let mut votes: Vec<(Dialect, usize)> = Vec::new();
    for line in input
        .lines
        .iter()
        .filter(|l| !l.is_blank())
        .take(SNIFF_LINES)
    {
        let text = line.text();
        let Some(probe) = Probe::parse(&text) else {
            continue;
        };
        if let Some(e) = DIALECTS.iter().find(|e| (e.sniff)(&probe)) {
            if allowed(&e) {
                match votes.iter_mut().find(|(x, _)| *x == e.dialect) {
                    Some((_, n)) => *n += 1,
                    None => votes.push((e.dialect, 1)),
                }
            }
        }
        // Enough unanimous evidence: stop reading.
        if let [(_, n)] = votes.as_slice() {
            if *n >= UNANIMOUS {
                break;
            }
        }
    }
    votes.sort_by_key(|v| std::cmp::Reverse(v.1));
    match votes.first() {
        Some((d, _)) => Ok(*d),
        None => Err(NormalizeError::Undetectable(match provider {
            Some(p) => format!("no line looks like any {p} dialect"),
            None => "no line looks like Claude, Codex, OpenCode or ACP output".to_owned(),
        })),
    }
}

/// [`detect`] as the corpus shells take it (see [`crate::stream::Detector`]).
pub fn detector(input: &Input<'_>, provider: Option<Provider>) -> Result<Dialect, String> {
    detect(input, provider).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

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
