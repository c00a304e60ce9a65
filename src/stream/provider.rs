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
    /// Google's Gemini CLI.
    Gemini,
    /// Qwen Code (a fork of Gemini CLI).
    Qwen,
    /// Any ACP (Agent Client Protocol) agent, read from its JSON-RPC traffic.
    Acp,
    /// Kilo CLI: OpenCode's formats, with tools of its own.
    Kilo,
    /// Factory's droid.
    Droid,
    /// GitHub Copilot CLI.
    Copilot,
    /// Cline's CLI (`cline` on npm).
    Cline,
    /// The OpenHands CLI (`openhands` on PyPI).
    Openhands,
    /// Kimi CLI (`kimi-cli` on PyPI, Moonshot AI).
    Kimi,
    /// Mistral Vibe (`mistral-vibe` on PyPI): its headless mode's outputs.
    Vibe,
    /// Any engine that answers in the AI SDK UI message stream (the `ai` package's chunks).
    #[serde(rename = "ai-sdk")]
    AiSdk,
    /// Any engine that answers in AG-UI events.
    #[serde(rename = "ag-ui")]
    AgUi,
}

impl Provider {
    pub const ALL: [Provider; 15] = [
        Provider::Claude,
        Provider::Codex,
        Provider::Opencode,
        Provider::Gemini,
        Provider::Qwen,
        Provider::Acp,
        Provider::Kilo,
        Provider::Droid,
        Provider::Copilot,
        Provider::Cline,
        Provider::Openhands,
        Provider::Kimi,
        Provider::Vibe,
        Provider::AiSdk,
        Provider::AgUi,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Claude => "claude",
            Provider::Codex => "codex",
            Provider::Opencode => "opencode",
            Provider::Gemini => "gemini",
            Provider::Qwen => "qwen",
            Provider::Acp => "acp",
            Provider::Kilo => "kilo",
            Provider::Droid => "droid",
            Provider::Copilot => "copilot",
            Provider::Cline => "cline",
            Provider::Openhands => "openhands",
            Provider::Kimi => "kimi",
            Provider::Vibe => "vibe",
            Provider::AiSdk => "ai-sdk",
            Provider::AgUi => "ag-ui",
        }
    }

    /// The provider's dialects, in [`Dialect::ALL`] order.
    pub fn dialects(self) -> impl Iterator<Item = Dialect> {
        Dialect::ALL
            .into_iter()
            .filter(move |d| d.provider() == self)
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
            "gemini" | "gemini-cli" => Ok(Provider::Gemini),
            "qwen" | "qwen-code" => Ok(Provider::Qwen),
            "acp" => Ok(Provider::Acp),
            "kilo" | "kilocode" | "kilo-code" => Ok(Provider::Kilo),
            "droid" | "factory" => Ok(Provider::Droid),
            "copilot" | "copilot-cli" | "github-copilot" => Ok(Provider::Copilot),
            "cline" | "cline-cli" => Ok(Provider::Cline),
            "openhands" | "openhands-cli" => Ok(Provider::Openhands),
            "kimi" | "kimi-cli" | "kimi-code" => Ok(Provider::Kimi),
            "vibe" | "mistral-vibe" => Ok(Provider::Vibe),
            "ai-sdk" | "aisdk" | "vercel-ai" => Ok(Provider::AiSdk),
            "ag-ui" | "agui" => Ok(Provider::AgUi),
            other => Err(format!(
                "unknown provider `{other}` (expected one of: {})",
                Provider::ALL.map(Provider::as_str).join(", ")
            )),
        }
    }
}

/// Declares [`Dialect`]: one line per wire format (variant, provider, name, what it is), from
/// which the enum, [`Dialect::ALL`], [`Dialect::provider`] and [`Dialect::as_str`] all come.
macro_rules! dialects {
    ($($(#[doc = $doc:expr])* $variant:ident => ($provider:ident, $name:literal),)*) => {
        /// Every wire format toolnorm reads. What each one means — its sniffer, normalizer and the
        /// rules' raw-call scan — is its row in the dialect registry (`crate::dialects`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Dialect {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Dialect {
            pub const ALL: [Dialect; [$(Dialect::$variant),*].len()] = [$(Dialect::$variant),*];

            pub fn provider(self) -> Provider {
                match self {
                    $(Dialect::$variant => Provider::$provider,)*
                }
            }

            pub fn as_str(self) -> &'static str {
                match self {
                    $(Dialect::$variant => $name,)*
                }
            }
        }
    };
}

dialects! {
    /// `claude -p --output-format stream-json --verbose` (with or without partial messages).
    ClaudeStreamJson => (Claude, "stream-json"),
    /// `~/.claude/projects/**.jsonl` session transcripts.
    ClaudeTranscript => (Claude, "transcript"),
    /// `codex app-server` v2 JSON-RPC notifications.
    CodexAppServer => (Codex, "app-server"),
    /// `codex exec --json`.
    CodexExec => (Codex, "exec"),
    /// `~/.codex/sessions/**.jsonl` rollout files.
    CodexRollout => (Codex, "rollout"),
    /// The old `{"id","msg"}` EventMsg stream (`codex proto`, pre-0.44 `exec --json`).
    CodexLegacy => (Codex, "legacy"),
    /// The `opencode serve` event stream (`/event`, `/global/event`, SSE `data:` lines).
    OpencodeEvents => (Opencode, "events"),
    /// `opencode run --format json`.
    OpencodeRun => (Opencode, "run"),
    /// `opencode export` session JSON.
    OpencodeExport => (Opencode, "export"),
    /// `gemini -p --output-format stream-json`.
    GeminiStreamJson => (Gemini, "stream-json"),
    /// `gemini -p --output-format json` (one document of statistics).
    GeminiJson => (Gemini, "json"),
    /// `~/.gemini/tmp/<project>/chats/session-*.jsonl` saved sessions.
    GeminiSession => (Gemini, "session"),
    /// `qwen -p --output-format stream-json` (Claude's stream-json shape, Qwen Code's tools).
    QwenStreamJson => (Qwen, "stream-json"),
    /// `qwen -p --output-format json` (one JSON array of the stream-json messages).
    QwenJson => (Qwen, "json"),
    /// `~/.qwen/projects/<project>/chats/<session>.jsonl` saved sessions.
    QwenSession => (Qwen, "session"),
    /// ACP (Agent Client Protocol) JSON-RPC traffic over stdio, both directions.
    Acp => (Acp, "acp"),
    /// `kilo run --format json`: OpenCode's `run` format, Kilo's tools.
    KiloRun => (Kilo, "run"),
    /// The `kilo serve` event stream: OpenCode's `events` format, Kilo's tools.
    KiloEvents => (Kilo, "events"),
    /// `kilo export` session JSON: OpenCode's `export` format, Kilo's tools.
    KiloExport => (Kilo, "export"),
    /// `droid exec --output-format stream-json`.
    DroidStreamJson => (Droid, "stream-json"),
    /// `~/.factory/sessions/**/<id>.jsonl` session files.
    DroidSession => (Droid, "session"),
    /// `copilot -p PROMPT --output-format json`.
    CopilotJson => (Copilot, "json"),
    /// `~/.copilot/session-state/<id>/events.jsonl` session files.
    CopilotSession => (Copilot, "session"),
    /// `cline --json PROMPT`.
    ClineJson => (Cline, "json"),
    /// `~/.cline/data/sessions/<id>/<id>.messages.json` saved tasks.
    ClineTask => (Cline, "task"),
    /// `openhands --headless --json -t TASK`: the conversation's events as JSON lines
    /// (`json.dumps(event.model_dump())`), among the CLI's console lines.
    OpenhandsJson => (Openhands, "json"),
    /// A saved conversation, `~/.openhands/conversations/<id>/events/event-*.json` (one compact
    /// event per file), as `toolnorm import` joins the folder: one event a line.
    OpenhandsEvents => (Openhands, "events"),
    /// `kimi --print --output-format stream-json`: the turn's messages (Kimi's `Message`s, in
    /// the OpenAI chat shape), one a line.
    KimiStreamJson => (Kimi, "stream-json"),
    /// `~/.kimi/sessions/<work dir hash>/<session id>/context.jsonl` saved sessions: the same
    /// messages with the user's, and Kimi's own `_`-roled records.
    KimiSession => (Kimi, "session"),
    /// Kimi's wire: a session folder's `wire.jsonl` (every event with its time) and `kimi --wire`
    /// (the same events as JSON-RPC).
    KimiWire => (Kimi, "wire"),
    /// `vibe -p PROMPT --output streaming` (Mistral Vibe's headless mode): the session's history
    /// entries, one a line as each is done.
    VibeStreaming => (Vibe, "streaming"),
    /// `vibe -p PROMPT --output json`: the same entries in one JSON array, at the end.
    VibeJson => (Vibe, "json"),
    /// `~/.vibe/logs/session/unified/<session id>/journal/<sequence>.jsonl` (and the copy
    /// `--output-dir DIR` makes in `DIR/session/`): the harness's recovery-journal records, the
    /// history entries inside those that advance the session's projection.
    VibeJournal => (Vibe, "journal"),
    /// `~/.vibe/logs/session/session_<date>_<time>_<id>/messages.jsonl` (the older loop, before the
    /// unified harness): the session's messages in the OpenAI chat shape, one a line.
    VibeSession => (Vibe, "session"),
    /// `vibe-app-server` (Vibe's app protocol, JSON-RPC over stdio, both directions recorded):
    /// the history entries its `history/entryAdded` notifications add, patched by
    /// `history/entryUpdated`.
    VibeAppServer => (Vibe, "app-server"),
    /// An AI SDK UI message stream (`ai` 7.x chunks), as JSON Lines or SSE `data:` lines.
    AiSdk => (AiSdk, "ai-sdk"),
    /// AG-UI 1.0 events, as JSON Lines or SSE `data:` lines.
    AgUi => (AgUi, "ag-ui"),
}

impl Dialect {
    /// Parse a dialect name, optionally within a provider (`exec` alone is Codex's). A name
    /// several providers use (`stream-json`: Claude's, Gemini's, Qwen's and droid's; `run`:
    /// OpenCode's and Kilo's) is the first of them in [`Dialect::ALL`] unless `provider` names
    /// another, so names given before a provider joined keep their meaning.
    pub fn parse(name: &str, provider: Option<Provider>) -> Result<Dialect, String> {
        let first = Dialect::ALL
            .into_iter()
            .find(|d| d.as_str() == name && provider.is_none_or(|p| d.provider() == p));
        match first {
            Some(d) => Ok(d),
            None => {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shared_dialect_name_is_the_first_providers_unless_one_is_named() {
        assert_eq!(
            Dialect::parse("stream-json", None),
            Ok(Dialect::ClaudeStreamJson)
        );
        assert_eq!(
            Dialect::parse("stream-json", Some(Provider::Qwen)),
            Ok(Dialect::QwenStreamJson)
        );
        assert_eq!(Dialect::parse("exec", None), Ok(Dialect::CodexExec));
        let e = Dialect::parse("exec", Some(Provider::Gemini)).unwrap_err();
        assert!(
            e.contains("unknown dialect `exec`") && e.contains("session"),
            "{e}"
        );
    }
}
