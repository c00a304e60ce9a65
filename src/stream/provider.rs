//! Who wrote a stream and in which wire format: the [`Provider`] and its [`Dialect`]s. Names only;
//! what each dialect means (its sniffer, normalizer and raw-call scan) is in the dialect registry.

use std::fmt;
use std::str::FromStr;

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
