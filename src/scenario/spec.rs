//! The scenario file format (TOML): which agent CLI at which pinned version, the prompt, the
//! workspace files, and the scripted model turns (with separate scripts for subagents). The
//! agents themselves (their names, CLIs, tools and what each takes) are rows of the agent
//! registry, `scenario::agents`, which loads scenario files through this module.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Why a scenario file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("failed to read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Parse {
        path: PathBuf,
        source: Box<toml::de::Error>,
    },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
}

/// The agent a scenario runs, by the name its row in the agent registry
/// (`scenario::agents::AGENTS`) gives it: `claude`, `codex-exec`, `opencode-acp`, ... The
/// registry checks the name and everything the scenario asks of that agent when it loads the file
/// (`scenario::agents::load_dir`); this format only reads it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct AgentName(pub String);

impl AgentName {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The model wire APIs the scripted server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Api {
    Anthropic,
    Responses,
    ChatCompletions,
    /// Gemini's `models/<m>:streamGenerateContent?alt=sse` (and `generateContent`).
    Gemini,
}

/// One scenario file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Must equal the file stem; the fixture is `live-<name>`.
    pub name: String,
    pub description: String,
    pub agent: AgentName,
    /// An ACP adapter's scenario: the native scenario it plays the same script as (for
    /// `toolnorm scenario compare`).
    #[serde(default)]
    pub mirrors: Option<String>,
    /// The pinned CLI version installed from npm.
    pub cli_version: String,
    pub prompt: String,
    /// Extra CLI arguments (e.g. `--allowedTools`).
    #[serde(default)]
    pub args: Vec<String>,
    /// Extra environment for the agent process.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Claude only: `--include-partial-messages`.
    #[serde(default)]
    pub partial_messages: bool,
    /// Claude: run under this `--permission-mode` instead of skipping permissions (to record
    /// refusals); droid: under `--auto <level>` (`low`, `medium`, `high`; `read-only` for no
    /// flag) instead of `--skip-permissions-unsafe`.
    #[serde(default)]
    pub permission_mode: Option<String>,
    /// Interrupt the agent this many seconds after it starts: an interrupted turn. Agents
    /// recorded in wrap mode (claude, codex-exec, opencode-run, kilo-run, …) get SIGINT, as
    /// Ctrl-C; Claude driven as the Agent SDK drives it gets the SDK's `interrupt` control
    /// request, `opencode serve` and `kilo serve` the session's abort call, ACP adapters a
    /// `session/cancel`.
    #[serde(default)]
    pub interrupt_after_secs: Option<u64>,
    /// Interrupt as soon as a process with this command line (its arguments joined by spaces,
    /// e.g. `sleep 60`) runs in the scenario's scratch folder — the long command of the turn is
    /// under way — rather than at a fixed time, which comes earlier in the turn on a slow
    /// machine; `interrupt_after_secs` is then the latest the interrupt comes.
    #[serde(default)]
    pub interrupt_when_running: Option<String>,
    /// With `interrupt_when_running`: the text the agent's output must show before the interrupt
    /// (by default the command itself, as the call announces it), for an agent that reports a
    /// running command a while after it started (Claude Code's `task_started`).
    #[serde(default)]
    pub interrupt_when_printed: Option<String>,
    /// Claude only: drive Claude Code over stdin as the Agent SDK drives it (recorded in proxy
    /// mode), as a scenario with `answers` always is.
    #[serde(default)]
    pub sdk: bool,
    /// Claude only: also keep the session transcript Claude Code wrote under the scratch HOME
    /// (`~/.claude/projects/<project>/<session>.jsonl`) as a fixture of the `transcript`
    /// dialect, `live-<name>-transcript`, folded and redacted as the recording is.
    #[serde(default)]
    pub transcript: bool,
    /// Configure the `amalgm` fixture MCP server for the agent.
    #[serde(default)]
    pub mcp: bool,
    /// Settings merged over the agent's own configuration file, key by key, the scenario's values
    /// winning (OpenCode and Kilo: `opencode.json` / `kilo.json`, e.g. `permission`; droid, Gemini
    /// CLI and Qwen Code: `settings.json`, e.g. a tool that is off by default; Kimi CLI and Mistral Vibe:
    /// `config.toml`, e.g. a search service that adds a tool).
    #[serde(default)]
    pub config: Option<toml::Table>,
    /// Seconds before the agent run is abandoned.
    #[serde(default = "default_timeout")]
    pub timeout_secs: u64,
    /// Files created in the scratch workspace before the run.
    #[serde(default)]
    pub files: Vec<WorkspaceFile>,
    /// Pages the scripted server also serves at `GET <path>` (for fetch tools).
    #[serde(default)]
    pub pages: Vec<Page>,
    /// The main agent's scripted turns, in order.
    pub turns: Vec<Turn>,
    /// Scripts for subagents, chosen by a marker in their first user message.
    #[serde(default)]
    pub subagents: Vec<Subagent>,
    /// Strings that must appear in some request the CLI sent to the model.
    #[serde(default)]
    pub expect_sent: Vec<String>,
    /// The user's answers to the agent's questions (question tools that wait for the user:
    /// Claude's AskUserQuestion through the SDK permission prompt, Codex app-server's
    /// `request_user_input`, OpenCode serve's `question`): one entry per question asked, in the
    /// order the questions come, each the labels chosen (or a free-text answer).
    #[serde(default)]
    pub answers: Vec<Vec<String>>,
}

fn default_timeout() -> u64 {
    180
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceFile {
    /// Relative to the workspace.
    pub path: String,
    #[serde(default)]
    pub content: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Page {
    pub path: String,
    #[serde(default = "default_content_type")]
    pub content_type: String,
    pub body: String,
    /// What the model answers when a fetch tool asks it about this page (Claude Code's WebFetch
    /// hands the page, as markdown, to the model in a request without tools).
    #[serde(default)]
    pub summary: Option<String>,
}

impl Page {
    /// The Content-Type served: HTML unless the page says plain text or JSON.
    pub fn mime(&self) -> &'static str {
        if self.content_type.starts_with("text/plain") {
            "text/plain; charset=utf-8"
        } else if self.content_type.starts_with("application/json") {
            "application/json"
        } else {
            "text/html; charset=utf-8"
        }
    }

    /// Whether `text` quotes this page: it holds one of the page's visible text runs (the text
    /// between tags, at least 8 characters), which survive an HTML-to-markdown conversion.
    pub fn quoted_in(&self, text: &str) -> bool {
        self.body
            .split(['<', '>'])
            .enumerate()
            // Outside tags: every other piece, starting before the first `<`.
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, run)| run.trim())
            .any(|run| run.chars().count() >= 8 && text.contains(run))
    }
}

fn default_content_type() -> String {
    "text/html; charset=utf-8".to_owned()
}

/// One model reply: optional text, then zero or more tool calls (several = parallel calls).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub tools: Vec<ToolCall>,
}

/// How a call is put on the wire (only the Responses API distinguishes them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallKind {
    /// A JSON-argument function call (every API).
    #[default]
    Function,
    /// Responses `custom_tool_call`: `input` is a string (Codex `apply_patch`).
    Custom,
    /// Responses `web_search_call`: `input` is the action object; served by the model side.
    WebSearch,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCall {
    pub name: String,
    #[serde(default = "empty_object")]
    pub input: serde_json::Value,
    #[serde(default)]
    pub kind: CallKind,
    /// Responses API namespace (Codex MCP tools: `mcp__<server>`).
    #[serde(default)]
    pub namespace: Option<String>,
}

fn empty_object() -> serde_json::Value {
    serde_json::Value::Object(serde_json::Map::new())
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Subagent {
    /// A word or phrase that appears in the subagent's first user message (its prompt).
    pub marker: String,
    pub turns: Vec<Turn>,
}

impl Scenario {
    /// Parse one scenario file and check it is usable: by [`Scenario::problem`], then by
    /// `agent_problem`, the agent registry's check of what it asks of its agent
    /// (`scenario::agents::load_dir` passes it).
    pub fn load(
        path: &Path,
        agent_problem: fn(&Scenario) -> Option<String>,
    ) -> Result<Scenario, SpecError> {
        let text = fs::read_to_string(path).map_err(|source| SpecError::Read {
            path: path.to_owned(),
            source,
        })?;
        let s: Scenario = toml::from_str(&text).map_err(|e| SpecError::Parse {
            path: path.to_owned(),
            source: Box::new(e),
        })?;
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        if let Some(message) = s.problem(stem).or_else(|| agent_problem(&s)) {
            return Err(SpecError::Invalid {
                path: path.to_owned(),
                message,
            });
        }
        Ok(s)
    }

    /// The first problem found, if any, of those any agent's scenario can have (the agent
    /// registry checks what the scenario asks of its agent: `scenario::agents::problem`).
    pub fn problem(&self, stem: &str) -> Option<String> {
        if self.name != stem {
            return Some(format!(
                "name {:?} must equal the file stem {:?}",
                self.name, stem
            ));
        }
        if self.turns.is_empty() {
            return Some("a scenario needs at least one scripted turn".to_owned());
        }
        let all_turns = self
            .turns
            .iter()
            .chain(self.subagents.iter().flat_map(|s| s.turns.iter()));
        for (i, turn) in all_turns.enumerate() {
            if turn.text.is_none() && turn.tools.is_empty() {
                return Some(format!("turn {} has neither text nor tool calls", i + 1));
            }
            for call in &turn.tools {
                match call.kind {
                    CallKind::Custom if !call.input.is_string() => {
                        return Some(format!(
                            "turn {}: a custom tool call's input must be a string",
                            i + 1
                        ));
                    }
                    CallKind::Function | CallKind::WebSearch if !call.input.is_object() => {
                        return Some(format!("turn {}: tool input must be a table", i + 1));
                    }
                    _ => {}
                }
            }
        }
        if self.turns.last().is_some_and(|t| !t.tools.is_empty()) {
            return Some("the last main turn must be text only, so the session ends".to_owned());
        }
        for f in &self.files {
            let p = Path::new(&f.path);
            if p.is_absolute()
                || p.components()
                    .any(|c| matches!(c, std::path::Component::ParentDir))
            {
                return Some(format!(
                    "workspace file {:?} must be a relative path inside the workspace",
                    f.path
                ));
            }
        }
        None
    }

    /// The fixture name this scenario records.
    pub fn fixture_name(&self) -> String {
        format!("live-{}", self.name)
    }

    /// The fixture name of the session transcript kept beside the recording (`transcript`).
    pub fn transcript_fixture_name(&self) -> String {
        format!("live-{}-transcript", self.name)
    }
}

/// Every scenario file under `dir`, sorted by name. Files that fail to parse are returned as errors
/// beside the good ones so one bad file does not hide the rest.
pub fn load_dir(
    dir: &Path,
    agent_problem: fn(&Scenario) -> Option<String>,
) -> Result<Vec<Result<Scenario, SpecError>>, SpecError> {
    let entries = fs::read_dir(dir).map_err(|source| SpecError::Read {
        path: dir.to_owned(),
        source,
    })?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    Ok(paths
        .iter()
        .map(|p| Scenario::load(p, agent_problem))
        .collect())
}
