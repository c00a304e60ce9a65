//! OpenCode's wire types: the `ToolPart` snapshot (SDK `types.gen.ts`) that all three dialects
//! carry, its state, time, attachments and metadata, and the error object of sessions, messages
//! and `run` error lines. Each dialect file keeps only its own envelope.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

/// A `ToolPart` (or any other part: `type` tells) as the SDK declares it. Only what a tool part
/// needs is read; text and reasoning parts go through the same struct and are dropped by `type`.
#[derive(Deserialize)]
pub(super) struct PartWire<'a> {
    #[serde(borrow, default)]
    pub id: Option<Cow<'a, str>>,
    #[serde(rename = "sessionID", borrow, default)]
    pub session_id: Option<Cow<'a, str>>,
    #[serde(rename = "messageID", borrow, default)]
    pub message_id: Option<Cow<'a, str>>,
    #[serde(rename = "type", borrow, default)]
    pub ty: Option<Cow<'a, str>>,
    #[serde(rename = "callID", borrow, default)]
    pub call_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub tool: Option<Cow<'a, str>>,
    /// Typed in place: a second pass over a state (bash output, file contents) would cost more
    /// than the rest of the line.
    #[serde(borrow, default)]
    pub state: Option<StateWire<'a>>,
    /// `part.metadata`: provider metadata, `{providerExecuted: true}`.
    #[serde(borrow, default)]
    pub metadata: Option<&'a RawValue>,
}

/// `ToolState` in any of its four variants.
#[derive(Deserialize, Default)]
pub(super) struct StateWire<'a> {
    #[serde(borrow, default)]
    pub status: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub input: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub output: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub title: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub error: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub metadata: Option<MetaWire<'a>>,
    #[serde(default)]
    pub time: Option<TimeWire>,
    #[serde(borrow, default)]
    pub attachments: Option<Vec<AttachmentWire<'a>>>,
}

#[derive(Deserialize, Default, Clone, Copy)]
pub(super) struct TimeWire {
    #[serde(default)]
    pub start: Option<f64>,
    #[serde(default)]
    pub end: Option<f64>,
    #[serde(default)]
    pub compacted: Option<f64>,
}

/// A `FilePart` attachment. The `url` is a data URL that can weigh megabytes: it stays raw, only
/// its length is kept.
#[derive(Deserialize)]
pub(super) struct AttachmentWire<'a> {
    #[serde(borrow, default)]
    pub mime: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub filename: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub url: Option<&'a RawValue>,
}

/// The few keys of `state.metadata` the normalizer uses; bash's growing `output`, diffs and
/// previews are skipped unread.
#[derive(Deserialize, Default)]
pub(super) struct MetaWire<'a> {
    #[serde(default)]
    pub exit: Option<Value>,
    #[serde(default)]
    pub truncated: Option<Value>,
    #[serde(rename = "outputPath", borrow, default)]
    pub output_path: Option<Cow<'a, str>>,
    #[serde(rename = "sessionId", borrow, default)]
    pub session_id: Option<Cow<'a, str>>,
    #[serde(default)]
    pub interrupted: Option<Value>,
    #[serde(rename = "actionDescriptor", borrow, default)]
    pub action_descriptor: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub description: Option<Cow<'a, str>>,
    /// `question`: the user's answers, one list of chosen labels per question.
    #[serde(borrow, default)]
    pub answers: Option<&'a RawValue>,
}

impl MetaWire<'_> {
    /// The bash exit code when it is a number (`null` when the process was killed).
    pub fn exit_code(&self) -> Option<i64> {
        self.exit.as_ref().and_then(Value::as_i64)
    }

    pub fn interrupted(&self) -> bool {
        self.interrupted
            .as_ref()
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }
}

/// `part.metadata`.
#[derive(Deserialize, Default)]
pub(super) struct PartMetaWire {
    #[serde(rename = "providerExecuted", default)]
    pub provider_executed: Option<Value>,
}

/// An error object (`session.error`, `message.updated` info.error, `run` error lines).
/// A session or message error: `{name, data: {message}}`, or (Kilo's `run`: "run ended with an
/// auto-rejected permission; …") just the message as a string.
#[derive(Default)]
pub(super) struct ErrorWire<'a> {
    pub name: Option<Cow<'a, str>>,
    pub data: Option<ErrorDataWire<'a>>,
}

#[derive(Deserialize, Default)]
pub(super) struct ErrorDataWire<'a> {
    #[serde(borrow, default)]
    pub message: Option<Cow<'a, str>>,
}

impl<'de: 'a, 'a> Deserialize<'de> for ErrorWire<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Repr<'a> {
            Text(#[serde(borrow)] Cow<'a, str>),
            Object {
                #[serde(borrow, default)]
                name: Option<Cow<'a, str>>,
                #[serde(borrow, default)]
                data: Option<ErrorDataWire<'a>>,
            },
        }
        Ok(match Repr::deserialize(d)? {
            Repr::Text(message) => ErrorWire {
                name: None,
                data: Some(ErrorDataWire {
                    message: Some(message),
                }),
            },
            Repr::Object { name, data } => ErrorWire { name, data },
        })
    }
}

impl ErrorWire<'_> {
    pub fn is_abort(&self) -> bool {
        matches!(
            self.name.as_deref(),
            Some("MessageAbortedError" | "AbortError")
        )
    }

    /// `UnknownError: Unexpected server error…`, one line (the message alone when the error has
    /// no name).
    pub fn summary(&self) -> String {
        let message = self.data.as_ref().and_then(|d| d.message.as_deref());
        match (self.name.as_deref(), message) {
            (Some(name), Some(m)) if !m.trim().is_empty() => {
                format!("{name}: {}", crate::text::clip(m, 200))
            }
            (None, Some(m)) if !m.trim().is_empty() => crate::text::clip(m, 200),
            (name, _) => name.unwrap_or("error").to_owned(),
        }
    }
}
