//! The state machine every Gemini CLI and Qwen Code dialect feeds: a call (its id, tool name and
//! arguments) becomes a part through [`tools::describe`](super::tools::describe); its result
//! completes or fails it, the error kept apart from the output (the contract's rule 7). The
//! dialects only unwrap their envelopes; what a call and a result mean is decided here.

use serde_json::Value;

use super::tools::{Family, describe};
use crate::model::{TimeValue, Timing, ToolError, ToolKind, ToolMetadata, ToolState};
use crate::providers::{PartStore, PartUpdate};

/// How a call ended.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// It succeeded, with what it showed (absent when the CLI shows nothing as text).
    Done { output: Option<Value> },
    /// It failed: one line, the CLI's error type, and what the CLI displayed beside it.
    Failed {
        message: String,
        code: Option<String>,
        details: Option<Value>,
    },
}

/// `Exit Code: N` in a shell call's text (both CLIs write it so).
pub(crate) fn exit_code(text: &str) -> Option<i64> {
    text.lines()
        .find_map(|l| l.trim().strip_prefix("Exit Code: "))
        .and_then(|c| c.trim().parse().ok())
}

/// What a failed call's text says about why: a declined permission, a tool the release does
/// not register or has switched off.
pub(crate) fn error_code(text: &str) -> Option<&'static str> {
    if text.contains("permission was declined") || text.contains("permission denied") {
        Some("permission_denied")
    } else if text.contains("not found in registry") || text.contains("\" not found.") {
        Some("tool_not_registered")
    } else if text.contains("is disabled by default") {
        Some("tool_disabled")
    } else if text.contains("[Operation Cancelled]") {
        Some("interrupted")
    } else if text.starts_with("File not found") {
        Some("file_not_found")
    } else {
        None
    }
}

/// The per-session state of a Gemini-family stream.
#[derive(Debug)]
pub(crate) struct Tracker {
    pub family: Family,
    cwd: Option<String>,
}

impl Tracker {
    pub fn new(family: Family, cwd: Option<&str>) -> Tracker {
        Tracker {
            family,
            cwd: cwd.map(str::to_owned),
        }
    }

    pub fn set_cwd(&mut self, cwd: Option<&str>) {
        if let Some(c) = cwd.filter(|c| !c.is_empty()) {
            self.cwd = Some(c.to_owned());
        }
    }

    /// A call the model made: created (or, seen again, updated) as `state`.
    #[allow(clippy::too_many_arguments)]
    pub fn call(
        &self,
        line: u32,
        id: &str,
        name: &str,
        input: Value,
        state: ToolState,
        provider_type: &str,
        timestamp: Option<&str>,
        store: &mut PartStore,
    ) {
        let d = describe(self.family, name, &input, self.cwd.as_deref());
        let metadata = ToolMetadata {
            provider_type: Some(provider_type.to_owned()),
            mcp: d.mcp,
            ..ToolMetadata::default()
        };
        store.upsert(
            line,
            PartUpdate {
                name: Some(d.name),
                kind: Some(d.kind),
                title: Some(d.title),
                input: Some(input),
                state: Some(state),
                timing: timestamp.map(|t| Timing {
                    started_at: Some(TimeValue::Text(t.to_owned())),
                    ..Timing::default()
                }),
                metadata: Some(metadata),
                ..PartUpdate::new(id)
            },
        );
    }

    /// The outcome of a call the CLI marked failed with `text` and no error type: a shell
    /// command's exit code is the code (`Exit code 1`, the text kept as details), else the
    /// text's first line with what it says about why.
    pub fn failure(&self, id: &str, text: String, store: &PartStore) -> Outcome {
        let bash = store.get(id).is_some_and(|p| p.kind == ToolKind::Bash);
        if let (true, Some(n)) = (bash, exit_code(&text)) {
            return Outcome::Failed {
                message: format!("Exit code {n}"),
                code: Some(n.to_string()),
                details: Some(Value::String(text)),
            };
        }
        Outcome::Failed {
            code: error_code(&text).map(str::to_owned),
            message: text,
            details: None,
        }
    }

    /// A call's result. A result whose call was never seen is reported, not invented.
    pub fn result(
        &self,
        line: u32,
        id: &str,
        outcome: Outcome,
        timestamp: Option<&str>,
        store: &mut PartStore,
    ) {
        if !store.contains(id) {
            store.warn(
                line,
                format!("a result for call {id}, which the stream never started; skipped"),
            );
            return;
        }
        let timing = timestamp.map(|t| Timing {
            completed_at: Some(TimeValue::Text(t.to_owned())),
            ..Timing::default()
        });
        let exit = match &outcome {
            Outcome::Failed {
                code: Some(c),
                details: Some(_),
                ..
            } => c.parse::<i64>().ok(),
            _ => None,
        };
        let update = match outcome {
            Outcome::Done { output } => PartUpdate {
                state: Some(ToolState::Complete),
                output,
                timing,
                ..PartUpdate::new(id)
            },
            Outcome::Failed {
                message,
                code,
                details,
            } => PartUpdate {
                state: Some(ToolState::Error),
                error: Some(ToolError {
                    message: crate::providers::first_line(&message)
                        .unwrap_or_else(|| "the tool call failed".to_owned()),
                    code,
                    details,
                }),
                timing,
                metadata: exit.map(|c| ToolMetadata {
                    exit_code: Some(c),
                    ..ToolMetadata::default()
                }),
                ..PartUpdate::new(id)
            },
        };
        store.upsert(line, update);
    }
}
