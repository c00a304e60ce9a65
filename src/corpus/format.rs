//! The on-disk fixture format: what the header, line and trailer records of a `.jsonl.zst` fixture
//! hold. Reading and writing live in [`super::reader`] and [`super::writer`].
//!
//! A fixture is one or more zstd frames (a new one every 4 MiB of content; the stream is flushed
//! every 64 KiB, 256 lines or 250 ms, see [`super::writer`]) whose concatenated content is JSONL, so
//! `zstd -dc FIXTURE` alone shows it. No dictionary: a trained per-provider dictionary saved 0.2%
//! on the seeded corpus and would make `zstd -dc` alone unable to read a fixture.
//!
//! ```text
//! {"format":1,"provider":"claude","name":"demo","toolnorm":"0.1.0","command":["claude","-p"],...}
//! {"t":0,"d":"a","l":"{\"type\":\"system\",...}"}
//! {"t":12,"d":"a","b":"eyL/fQ==","n":true}
//! {"trailer":{"redactions":{"anthropic-key":1},"lines":2,"endedAt":"2026-12-02T15:00:00Z"}}
//! ```
//!
//! Line 1 is the [`Header`]; then one [`LineRecord`] per received line; last a [`Trailer`] with what
//! is only known at the end. A fixture without a trailer was cut short (the recorder was killed).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::stream::Direction;

/// Version of the fixture format, written in every header as `format`.
///
/// Bumps (a reader accepts every version up to this one):
/// - 1: first version — header, `t`/`d`/`l`|`b`/`n` line records, trailer.
pub const FORMAT_VERSION: u32 = 1;

/// The file name suffix of a fixture.
pub const FIXTURE_SUFFIX: &str = ".jsonl.zst";

/// Environment variables a recording may copy into its header. Anything else may hold a secret.
pub const ENV_ALLOW_LIST: &[&str] = &[
    "SHELL",
    "TERM",
    "LANG",
    "LC_ALL",
    "CI",
    "COLORTERM",
    "TERM_PROGRAM",
];

/// The first line of a fixture.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Header {
    /// [`FORMAT_VERSION`] of the writer.
    pub format: u32,
    pub provider: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialect: Option<String>,
    /// The fixture name (file name without the suffix).
    pub name: String,
    /// Version of toolnorm that wrote the fixture.
    pub toolnorm: String,
    /// The recorded command line (`toolnorm record ... -- agent args`), empty for pipe recordings.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub command: Vec<String>,
    /// Version of the agent CLI, when given or learnt from the stream before the header was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cli_version: Option<String>,
    /// RFC 3339.
    pub started_at: String,
    pub os: String,
    /// Allow-listed environment ([`ENV_ALLOW_LIST`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// Redactions applied, by kind. Live recordings only know them at the end: see [`Trailer`].
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub redactions: BTreeMap<String, u64>,
    /// For imports: the source file, relative to the home directory as `~/...` when under it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The live scenario that produced the recording (`toolnorm scenario run`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
    /// The agent CLI's name (`claude-code`, `codex-cli`, `opencode`), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cli: Option<String>,
    /// How the fixture was made: `pipe`, `wrap`, `proxy`, `sse` or `import`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// The agent's working directory (folded like every path), for dialects whose stream does
    /// not say it (`codex exec --json`, `opencode run --format json`): titles show paths
    /// relative to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
}

/// One received line. Exactly one of `l` (UTF-8 text) and `b` (base64 of bytes that are not UTF-8)
/// is present; the `\n` terminator is not stored, a `\r` before it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineRecord {
    /// Receive time, ms since `startedAt`.
    pub t: u64,
    pub d: Direction,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b: Option<String>,
    /// The line had no terminating newline (the stream ended without one).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub n: bool,
}

/// What is only known once the recording ends.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Trailer {
    #[serde(default)]
    pub redactions: BTreeMap<String, u64>,
    /// Number of line records written.
    pub lines: u64,
    pub ended_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cli_version: Option<String>,
    /// Dialect detected from the recorded content, when the header did not name one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialect: Option<String>,
    /// Set when recording stopped before the stream ended (fell behind, disk error); the
    /// passthrough went on, the fixture holds the lines before this point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recording_failed: Option<String>,
    /// Lines passed through but not in the fixture (the recording stopped, see
    /// `recordingFailed`), when there were any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped_lines: Option<u64>,
    /// Exit code of a wrapped or proxied agent (128+signal when it was killed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
}

#[derive(Serialize, Deserialize)]
pub(crate) struct TrailerRecord {
    pub trailer: Trailer,
}

/// A header with the trailer's end-of-recording facts merged in, as `toolnorm cat --header` shows it.
pub fn merged_header(header: &Header, trailer: Option<&Trailer>) -> serde_json::Value {
    let mut v = serde_json::to_value(header).unwrap_or(serde_json::Value::Null);
    let Some(obj) = v.as_object_mut() else {
        return v;
    };
    match trailer {
        Some(t) => {
            // Live recordings count redactions as they go and only know the totals at the end;
            // imports know them up front and write the same counts in both places.
            let redactions = if t.redactions.is_empty() {
                &header.redactions
            } else {
                &t.redactions
            };
            obj.insert(
                "redactions".into(),
                serde_json::to_value(redactions).unwrap_or_default(),
            );
            obj.insert("lines".into(), t.lines.into());
            obj.insert("endedAt".into(), t.ended_at.clone().into());
            if header.cli_version.is_none()
                && let Some(c) = &t.cli_version
            {
                obj.insert("cliVersion".into(), c.clone().into());
            }
            if header.dialect.is_none()
                && let Some(d) = &t.dialect
            {
                obj.insert("dialect".into(), d.clone().into());
            }
            if let Some(f) = &t.recording_failed {
                obj.insert("recordingFailed".into(), f.clone().into());
            }
            if let Some(n) = t.dropped_lines {
                obj.insert("droppedLines".into(), n.into());
            }
            if let Some(c) = t.exit_code {
                obj.insert("exitCode".into(), c.into());
            }
            obj.insert("complete".into(), true.into());
        }
        None => {
            obj.insert("complete".into(), false.into());
        }
    }
    v
}

/// The allow-listed part of this process's environment.
pub fn allowed_env() -> BTreeMap<String, String> {
    ENV_ALLOW_LIST
        .iter()
        .filter_map(|k| std::env::var(k).ok().map(|v| ((*k).to_owned(), v)))
        .collect()
}

/// A header for a new fixture with this machine's facts filled in.
pub fn new_header(provider: &str, name: &str) -> Header {
    Header {
        format: FORMAT_VERSION,
        provider: provider.to_owned(),
        name: name.to_owned(),
        toolnorm: env!("CARGO_PKG_VERSION").to_owned(),
        started_at: crate::timestamp::now_rfc3339(),
        os: format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH),
        env: allowed_env(),
        ..Header::default()
    }
}
