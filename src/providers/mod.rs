//! Provider dialects → the contract's parts. One folder per provider, one file per dialect; all of
//! them feed the shared [`PartStore`] and use the shared [`titles`]. Dialects are detected from
//! content and can be forced. Pure: no I/O, no printing.

pub mod claude;
pub mod codex;
pub mod input;
pub mod opencode;
pub mod store;
pub mod titles;

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use serde::de::IgnoredAny;
use serde_json::Value;

use crate::model::NormalizedDocument;
pub use input::{Direction, Input, RawLine, split_lines};
pub use store::{PartStore, PartUpdate, Upserted};

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    Claude,
    Codex,
    Opencode,
}

impl Provider {
    pub const ALL: [Provider; 3] = [Provider::Claude, Provider::Codex, Provider::Opencode];

    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Claude => "claude",
            Provider::Codex => "codex",
            Provider::Opencode => "opencode",
        }
    }

    pub fn dialects(self) -> &'static [Dialect] {
        match self {
            Provider::Claude => &[Dialect::ClaudeStreamJson, Dialect::ClaudeTranscript],
            Provider::Codex => &[
                Dialect::CodexAppServer,
                Dialect::CodexExec,
                Dialect::CodexRollout,
                Dialect::CodexLegacy,
            ],
            Provider::Opencode => &[
                Dialect::OpencodeEvents,
                Dialect::OpencodeRun,
                Dialect::OpencodeExport,
            ],
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Provider {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "claude" | "claude-code" => Ok(Provider::Claude),
            "codex" => Ok(Provider::Codex),
            "opencode" => Ok(Provider::Opencode),
            other => Err(format!(
                "unknown provider `{other}` (expected claude, codex or opencode)"
            )),
        }
    }
}

/// Every wire format toolnorm reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// `claude -p --output-format stream-json --verbose` (with or without partial messages).
    ClaudeStreamJson,
    /// `~/.claude/projects/**.jsonl` session transcripts.
    ClaudeTranscript,
    /// `codex app-server` v2 JSON-RPC notifications.
    CodexAppServer,
    /// `codex exec --json`.
    CodexExec,
    /// `~/.codex/sessions/**.jsonl` rollout files.
    CodexRollout,
    /// The old `{"id","msg"}` EventMsg stream (`codex proto`, pre-0.44 `exec --json`).
    CodexLegacy,
    /// The `opencode serve` event stream (`/event`, `/global/event`, SSE `data:` lines).
    OpencodeEvents,
    /// `opencode run --format json`.
    OpencodeRun,
    /// `opencode export` session JSON.
    OpencodeExport,
}

impl Dialect {
    pub const ALL: [Dialect; 9] = [
        Dialect::ClaudeStreamJson,
        Dialect::ClaudeTranscript,
        Dialect::CodexAppServer,
        Dialect::CodexExec,
        Dialect::CodexRollout,
        Dialect::CodexLegacy,
        Dialect::OpencodeEvents,
        Dialect::OpencodeRun,
        Dialect::OpencodeExport,
    ];

    pub fn provider(self) -> Provider {
        match self {
            Dialect::ClaudeStreamJson | Dialect::ClaudeTranscript => Provider::Claude,
            Dialect::CodexAppServer
            | Dialect::CodexExec
            | Dialect::CodexRollout
            | Dialect::CodexLegacy => Provider::Codex,
            Dialect::OpencodeEvents | Dialect::OpencodeRun | Dialect::OpencodeExport => {
                Provider::Opencode
            }
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::ClaudeStreamJson => "stream-json",
            Dialect::ClaudeTranscript => "transcript",
            Dialect::CodexAppServer => "app-server",
            Dialect::CodexExec => "exec",
            Dialect::CodexRollout => "rollout",
            Dialect::CodexLegacy => "legacy",
            Dialect::OpencodeEvents => "events",
            Dialect::OpencodeRun => "run",
            Dialect::OpencodeExport => "export",
        }
    }

    /// Parse a dialect name, optionally within a provider (`exec` alone is Codex's).
    pub fn parse(name: &str, provider: Option<Provider>) -> Result<Dialect, String> {
        let matches: Vec<Dialect> = Dialect::ALL
            .into_iter()
            .filter(|d| d.as_str() == name && provider.is_none_or(|p| d.provider() == p))
            .collect();
        match matches.as_slice() {
            [d] => Ok(*d),
            _ => {
                let known: Vec<&str> = Dialect::ALL
                    .iter()
                    .filter(|d| provider.is_none_or(|p| d.provider() == p))
                    .map(|d| d.as_str())
                    .collect();
                Err(format!(
                    "unknown dialect `{name}` (expected one of: {})",
                    known.join(", ")
                ))
            }
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a stream could not be normalized at all.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum NormalizeError {
    #[error("could not detect the dialect: {0}")]
    Undetectable(String),
    #[error("dialect `{dialect}` belongs to {actual}, not {requested}")]
    Mismatch {
        dialect: &'static str,
        actual: Provider,
        requested: Provider,
    },
}

#[derive(Clone, Copy, Debug, Default)]
pub struct NormalizeOptions<'a> {
    pub provider: Option<Provider>,
    pub dialect: Option<Dialect>,
    /// The agent's working directory, for dialects whose stream does not carry one (`codex exec
    /// --json`, `opencode run --format json`): paths in titles are shown relative to it. A
    /// fixture's header gives it; dialects that know their own cwd ignore it.
    pub cwd: Option<&'a str>,
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
    match dialect.provider() {
        Provider::Claude => claude::normalize(dialect, input, &mut store),
        Provider::Codex => codex::normalize(dialect, input, opts.cwd, &mut store),
        Provider::Opencode => opencode::normalize(dialect, input, opts.cwd, &mut store),
    }
    Ok(store.finish(dialect.provider().as_str(), dialect.as_str()))
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
    let allowed = |d: Dialect| provider.is_none_or(|p| d.provider() == p);
    // A whole-document JSON (opencode export) spans many lines.
    let trimmed = trim_ascii(input.bytes);
    if trimmed.first() == Some(&b'{') && allowed(Dialect::OpencodeExport) {
        if let Ok(v) = serde_json::from_slice::<Value>(strip_bom(trimmed)) {
            if v.get("info").is_some() && v.get("messages").is_some_and(Value::is_array) {
                return Ok(Dialect::OpencodeExport);
            }
        }
    }
    let mut votes: Vec<(Dialect, usize)> = Vec::new();
    for line in input
        .lines
        .iter()
        .filter(|l| !l.is_blank())
        .take(SNIFF_LINES)
    {
        let text = line.text();
        let json = text
            .trim()
            .strip_prefix("data:")
            .map_or(text.trim(), str::trim_start);
        let Ok(v) = serde_json::from_str::<Probe<'_>>(json) else {
            continue;
        };
        if let Some(d) = sniff(&v, text.trim_start().starts_with("data:")) {
            if allowed(d) {
                match votes.iter_mut().find(|(x, _)| *x == d) {
                    Some((_, n)) => *n += 1,
                    None => votes.push((d, 1)),
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
            None => "no line looks like Claude, Codex or OpenCode output".to_owned(),
        })),
    }
}

fn strip_bom(b: &[u8]) -> &[u8] {
    b.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(b)
}

fn trim_ascii(b: &[u8]) -> &[u8] {
    strip_bom(b).trim_ascii()
}

/// The few top-level keys detection looks at, parsed without building a `Value` (nested values are
/// skipped, not materialised), so sniffing stays cheap next to normalization itself.
#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct Probe<'a> {
    #[serde(borrow, rename = "type")]
    ty: Option<Cow<'a, str>>,
    #[serde(borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow)]
    event_type: Option<Cow<'a, str>>,
    msg: Option<ProbeMsg>,
    payload: Option<IgnoredAny>,
    directory: Option<IgnoredAny>,
    properties: Option<IgnoredAny>,
    part: Option<IgnoredAny>,
    #[serde(rename = "sessionID")]
    opencode_session: Option<IgnoredAny>,
    id: Option<IgnoredAny>,
    #[serde(rename = "sessionId")]
    transcript_session: Option<IgnoredAny>,
    #[serde(rename = "parentUuid")]
    parent_uuid: Option<IgnoredAny>,
    #[serde(rename = "isSidechain")]
    is_sidechain: Option<IgnoredAny>,
    session_id: Option<IgnoredAny>,
    parent_tool_use_id: Option<IgnoredAny>,
    message: Option<IgnoredAny>,
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct ProbeMsg {
    #[serde(rename = "type")]
    ty: Option<IgnoredAny>,
}

fn sniff(v: &Probe<'_>, sse: bool) -> Option<Dialect> {
    let ty = v.ty.as_deref().unwrap_or("");
    if v.payload.is_some() && v.directory.is_some() {
        return Some(Dialect::OpencodeEvents);
    }
    if v.properties.is_some() && ty.contains('.') {
        return Some(Dialect::OpencodeEvents);
    }
    // Plugin event-hook logs of OpenCode events name the type `event_type`.
    if v.properties.is_some() && v.event_type.as_deref().is_some_and(|t| t.contains('.')) {
        return Some(Dialect::OpencodeEvents);
    }
    if sse && ty.contains('.') {
        return Some(Dialect::OpencodeEvents);
    }
    if matches!(
        ty,
        "tool_use" | "step_start" | "step_finish" | "text" | "reasoning" | "error"
    ) && (v.opencode_session.is_some() || v.part.is_some())
    {
        return Some(Dialect::OpencodeRun);
    }
    if let Some(m) = v.method.as_deref() {
        if m.contains('/') || m == "initialized" || m == "error" {
            return Some(Dialect::CodexAppServer);
        }
    }
    if v.msg.as_ref().is_some_and(|m| m.ty.is_some()) && v.id.is_some() {
        return Some(Dialect::CodexLegacy);
    }
    if v.payload.is_some()
        && matches!(
            ty,
            "session_meta" | "response_item" | "event_msg" | "turn_context" | "compacted"
        )
    {
        return Some(Dialect::CodexRollout);
    }
    if ty.starts_with("thread.") || ty.starts_with("turn.") || ty.starts_with("item.") {
        return Some(Dialect::CodexExec);
    }
    let claude_type = matches!(
        ty,
        "system"
            | "assistant"
            | "user"
            | "result"
            | "stream_event"
            | "tool_progress"
            | "tool_use_summary"
            | "rate_limit_event"
            | "summary"
            | "file-history-snapshot"
            | "queue-operation"
            | "progress"
            | "attachment"
    );
    if claude_type {
        let transcript = v.transcript_session.is_some()
            || v.parent_uuid.is_some()
            || v.is_sidechain.is_some()
            || matches!(
                ty,
                "summary" | "file-history-snapshot" | "queue-operation" | "progress"
            );
        if transcript {
            return Some(Dialect::ClaudeTranscript);
        }
        if v.session_id.is_some() || v.parent_tool_use_id.is_some() || v.message.is_some() {
            return Some(Dialect::ClaudeStreamJson);
        }
    }
    None
}

/// The text of a line for a dialect to parse: `None` for blank lines; bytes that are not UTF-8 are
/// reported and replaced.
pub(crate) fn line_text<'a>(line: &RawLine<'a>, store: &mut PartStore) -> Option<Cow<'a, str>> {
    if line.is_blank() {
        return None;
    }
    match std::str::from_utf8(line.bytes) {
        Ok(s) => Some(Cow::Borrowed(s)),
        Err(e) => {
            store.warn(
                line.number,
                format!(
                    "invalid UTF-8 at byte {}; replaced with U+FFFD",
                    e.valid_up_to()
                ),
            );
            Some(String::from_utf8_lossy(line.bytes))
        }
    }
}

/// Parse one line's text as the dialect's typed (borrowed) JSON; a line that does not parse is
/// reported (see [`report_bad_json`]) and comes back as `None`, so the caller moves on.
pub(crate) fn parse_json<'t, T: serde::Deserialize<'t>>(
    line: &RawLine<'_>,
    text: &'t str,
    store: &mut PartStore,
) -> Option<T> {
    match serde_json::from_str(text) {
        Ok(v) => Some(v),
        Err(e) => {
            report_bad_json(line, &e, store);
            None
        }
    }
}

/// Report a line that is not the JSON the dialect expects, naming a cut-short last line as such.
pub(crate) fn report_bad_json(line: &RawLine<'_>, err: &serde_json::Error, store: &mut PartStore) {
    if line.unterminated && err.is_eof() {
        store.diagnostic(
            line.number,
            crate::model::DiagnosticLevel::Error,
            "truncated last line: the stream ends in the middle of a JSON value",
        );
    } else {
        store.warn(line.number, format!("not JSON: {err}"));
    }
}
