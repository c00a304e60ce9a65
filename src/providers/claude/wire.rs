//! Borrowed, lenient serde types for the few fields of Claude Code lines (stream-json and
//! transcripts) that tool parts need. Everything else is skipped without being materialised, and a
//! field of an unexpected JSON type is read as absent rather than failing the whole line: a
//! transcript written by a newer CLI must still yield its tool calls.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

/// Implements the "anything else is absent" half of a lenient visitor.
macro_rules! ignore_other_types {
    ($out:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($out)
        }
    };
}

/// A string field; any other JSON type reads as absent. Borrows when the string has no escapes.
#[derive(Debug, Default, Clone)]
pub(crate) struct LStr<'a>(pub Option<Cow<'a, str>>);

impl<'a> LStr<'a> {
    pub(crate) fn get(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for LStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = LStr<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(LStr(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(LStr(Some(Cow::Owned(v.to_owned()))))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(LStr(Some(Cow::Owned(v))))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(LStr(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(LStr(None))
            }
            ignore_other_types!(LStr(None));
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// A number field (integer or float); any other JSON type reads as absent.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct LNum(pub Option<f64>);

impl LNum {
    /// The value as whole non-negative milliseconds.
    pub(crate) fn millis(self) -> Option<u64> {
        self.0
            .filter(|v| v.is_finite() && *v >= 0.0)
            .map(|v| v.round() as u64)
    }
}

impl<'de> Deserialize<'de> for LNum {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LNum;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<LNum, E> {
                Ok(LNum(Some(v as f64)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<LNum, E> {
                Ok(LNum(Some(v as f64)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<LNum, E> {
                Ok(LNum(Some(v)))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<LNum, E> {
                Ok(LNum(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<LNum, E> {
                Ok(LNum(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<LNum, E> {
                Ok(LNum(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<LNum, E> {
                Ok(LNum(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<LNum, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(LNum(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<LNum, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(LNum(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// A boolean field; any other JSON type reads as absent.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct LBool(pub Option<bool>);

impl LBool {
    pub(crate) fn is_true(self) -> bool {
        self.0 == Some(true)
    }
}

impl<'de> Deserialize<'de> for LBool {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LBool;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a boolean")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<LBool, E> {
                Ok(LBool(Some(v)))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<LBool, E> {
                Ok(LBool(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<LBool, E> {
                Ok(LBool(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<LBool, E> {
                Ok(LBool(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<LBool, E> {
                Ok(LBool(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<LBool, E> {
                Ok(LBool(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<LBool, E> {
                Ok(LBool(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<LBool, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(LBool(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<LBool, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(LBool(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// An object field read as `T`; a value of any other JSON type reads as absent.
#[derive(Debug)]
pub(crate) struct Lenient<T>(pub Option<T>);

impl<T> Default for Lenient<T> {
    fn default() -> Self {
        Lenient(None)
    }
}

impl<T> Lenient<T> {
    pub(crate) fn get(&self) -> Option<&T> {
        self.0.as_ref()
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Lenient<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(|t| Lenient(Some(t)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Lenient(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(Lenient(None))
            }
            ignore_other_types!(Lenient(None));
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// `message.content` / `tool_result.content`: a string or an array of blocks.
#[derive(Debug, Default)]
pub(crate) enum Content<'a> {
    Text(Cow<'a, str>),
    Blocks(Vec<Lenient<Block<'a>>>),
    /// An object (server-tool error payloads) or a scalar.
    #[default]
    Other,
}

impl<'a> Content<'a> {
    pub(crate) fn blocks(&self) -> impl Iterator<Item = &Block<'a>> {
        let slice: &[Lenient<Block<'a>>] = match self {
            Content::Blocks(b) => b,
            _ => &[],
        };
        slice.iter().filter_map(Lenient::get)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Content<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an array of content blocks")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(v)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(1));
                while let Some(b) = seq.next_element::<Lenient<Block<'a>>>()? {
                    blocks.push(b);
                }
                Ok(Content::Blocks(blocks))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Content::Other)
            }
            ignore_other_types!(Content::Other);
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// One content block: `text`, `thinking`, `tool_use`, `server_tool_use`, `tool_result`, `image`,
/// `*_tool_result`. Text stays raw (escaped) so narration is never decoded.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Block<'a> {
    #[serde(rename = "type", borrow, default)]
    pub ty: LStr<'a>,
    #[serde(borrow, default)]
    pub id: LStr<'a>,
    #[serde(borrow, default)]
    pub name: LStr<'a>,
    #[serde(borrow, default)]
    pub input: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub tool_use_id: LStr<'a>,
    #[serde(borrow, default)]
    pub content: Option<Content<'a>>,
    #[serde(default)]
    pub is_error: LBool,
    #[serde(borrow, default)]
    pub text: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub source: Lenient<ImageSource<'a>>,
    /// `tool_reference` blocks (ToolSearch's result): the tool loaded.
    #[serde(borrow, default)]
    pub tool_name: LStr<'a>,
}

impl Block<'_> {
    pub(crate) fn ty(&self) -> &str {
        self.ty.get().unwrap_or("")
    }
}

/// An image's or document's `source`: only the media type and the data's length matter.
#[derive(Debug, Default)]
pub(crate) struct ImageSource<'a> {
    pub media_type: LStr<'a>,
    /// The length of `data`: a `base64` source's string, without its quotes (its escapes, which
    /// base64 never needs but JSON allows, decoded); for any other source, the length of the
    /// value's JSON text less two, whatever its type.
    pub data_len: Option<usize>,
}

/// The keys are read by hand, not derived, for the data of a `base64` source (`type` before
/// `data`, as the CLI writes them): a screenshot is a megabyte of base64, which serde_json
/// passes over as bytes (memchr's search for the closing quote) several times faster than as a
/// string (a check of every byte for control characters, a word at a time); the control check
/// is made on the bytes after ([`Base64Len`]). What this costs: a `base64` source whose data is
/// neither a string, a list nor null fails its line, where any other type of source reads it as
/// raw text. A key given twice is an error, as a derived struct's is.
impl<'de: 'a, 'a> Deserialize<'de> for ImageSource<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = ImageSource<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an image source")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = ImageSource::default();
                let (mut base64, mut media_type, mut data) = (false, false, false);
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    match key.as_ref() {
                        "type" => base64 = map.next_value::<LStr<'_>>()?.get() == Some("base64"),
                        "media_type" if media_type => {
                            return Err(de::Error::duplicate_field("media_type"));
                        }
                        "media_type" => {
                            media_type = true;
                            out.media_type = map.next_value()?;
                        }
                        "data" if data => return Err(de::Error::duplicate_field("data")),
                        "data" => {
                            data = true;
                            out.data_len = if base64 {
                                map.next_value::<Option<Base64Len>>()?.and_then(|b| b.0)
                            } else {
                                map.next_value::<Option<&'de RawValue>>()?
                                    .map(|raw| raw.get().len().saturating_sub(2))
                            };
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(out)
            }
        }
        d.deserialize_map(V(PhantomData))
    }
}

/// The length of a `base64` source's data (see [`ImageSource`]); `None` for a list.
pub(crate) struct Base64Len(Option<usize>);

impl<'de> Deserialize<'de> for Base64Len {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Base64Len;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("base64 data")
            }
            /// The string's body as it stands in the line: a control byte is refused, as
            /// serde_json refuses one in any string it reads.
            fn visit_borrowed_bytes<E: de::Error>(self, v: &'de [u8]) -> Result<Base64Len, E> {
                // Sixty-four bytes a look, with no early exit inside one (it vectorizes).
                let control = v
                    .chunks(64)
                    .any(|c| c.iter().fold(false, |any, &b| any | (b < 0x20)));
                if control {
                    return Err(de::Error::custom(
                        "control character (\\u0000-\\u001F) found in base64 data",
                    ));
                }
                Ok(Base64Len(Some(v.len())))
            }
            /// A body with escapes, decoded.
            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Base64Len, E> {
                Ok(Base64Len(Some(v.len())))
            }
            /// From a deserializer that gives a string as text.
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Base64Len, E> {
                Ok(Base64Len(Some(v.len())))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Base64Len, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Base64Len(None))
            }
        }
        d.deserialize_bytes(V)
    }
}

/// An API message (`assistant.message`, `user.message`).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Message<'a> {
    #[serde(borrow, default)]
    pub model: LStr<'a>,

    #[serde(borrow, default)]
    pub content: Option<Content<'a>>,
}

/// One line of either dialect. Fields of every line type live side by side; each line type uses
/// its own.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Line<'a> {
    #[serde(rename = "type", borrow, default)]
    pub ty: LStr<'a>,
    #[serde(borrow, default)]
    pub subtype: LStr<'a>,
    #[serde(borrow, default)]
    pub message: Lenient<Message<'a>>,
    /// stream-json: the Agent/Task call a subagent line belongs to.
    #[serde(borrow, default)]
    pub parent_tool_use_id: LStr<'a>,
    /// transcript `progress` lines: the call the progress belongs to.
    #[serde(rename = "parentToolUseID", borrow, default)]
    pub parent_tool_use_id_camel: LStr<'a>,
    #[serde(rename = "toolUseID", borrow, default)]
    pub tool_use_id_camel: LStr<'a>,
    #[serde(borrow, default)]
    pub timestamp: LStr<'a>,
    #[serde(borrow, default)]
    pub cwd: LStr<'a>,
    /// stream-json spelling of the structured tool output.
    #[serde(borrow, default)]
    pub tool_use_result: Option<&'a RawValue>,
    /// transcript spelling of the same.
    #[serde(rename = "toolUseResult", borrow, default)]
    pub tool_use_result_camel: Option<&'a RawValue>,
    #[serde(rename = "isSidechain", default)]
    pub is_sidechain: LBool,
    #[serde(rename = "isApiErrorMessage", default)]
    pub is_api_error_message: LBool,
    // result lines
    #[serde(borrow, default)]
    pub permission_denials: Option<Vec<Lenient<Denial<'a>>>>,
    // system task_* lines
    #[serde(borrow, default)]
    pub task_id: LStr<'a>,
    #[serde(borrow, default)]
    pub tool_use_id: LStr<'a>,
    #[serde(borrow, default)]
    pub status: LStr<'a>,
    #[serde(borrow, default)]
    pub summary: LStr<'a>,
    #[serde(default)]
    pub usage: Lenient<TaskUsage>,
    #[serde(default)]
    pub duration_ms: LNum,
    #[serde(borrow, default)]
    pub patch: Lenient<Patch<'a>>,
    #[serde(default)]
    pub is_backgrounded: LBool,
    #[serde(borrow, default)]
    pub task_type: LStr<'a>,
    // stream_event lines
    #[serde(borrow, default)]
    pub event: Lenient<StreamEvent<'a>>,
    // transcript progress lines
    #[serde(borrow, default)]
    pub data: Lenient<ProgressData<'a>>,
    // transcript queue-operation lines: `enqueue` / `dequeue` / `remove` and the queued text
    #[serde(borrow, default)]
    pub operation: LStr<'a>,
    #[serde(borrow, default)]
    pub content: LStr<'a>,
    // transcript attachment lines
    #[serde(borrow, default)]
    pub attachment: Lenient<Attachment<'a>>,
}

impl<'a> Line<'a> {
    pub(crate) fn ty(&self) -> &str {
        self.ty.get().unwrap_or("")
    }
    pub(crate) fn subtype(&self) -> &str {
        self.subtype.get().unwrap_or("")
    }
    pub(crate) fn structured_result(&self) -> Option<&'a RawValue> {
        self.tool_use_result.or(self.tool_use_result_camel)
    }
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct Denial<'a> {
    #[serde(borrow, default)]
    pub tool_name: LStr<'a>,
    #[serde(borrow, default)]
    pub tool_use_id: LStr<'a>,
    #[serde(borrow, default)]
    pub tool_input: Option<&'a RawValue>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct TaskUsage {
    #[serde(default)]
    pub duration_ms: LNum,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct Patch<'a> {
    #[serde(borrow, default)]
    pub status: LStr<'a>,
    #[serde(borrow, default)]
    pub error: LStr<'a>,
}

/// The raw Messages-API stream event inside a `stream_event` line.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct StreamEvent<'a> {
    #[serde(rename = "type", borrow, default)]
    pub ty: LStr<'a>,
    #[serde(default)]
    pub index: LNum,
    #[serde(borrow, default)]
    pub content_block: Lenient<Block<'a>>,
    #[serde(borrow, default)]
    pub delta: Lenient<Delta<'a>>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct Delta<'a> {
    #[serde(rename = "type", borrow, default)]
    pub ty: LStr<'a>,
    #[serde(borrow, default)]
    pub partial_json: LStr<'a>,
}

/// `progress.data`: `agent_progress` embeds one message of a subagent.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ProgressData<'a> {
    #[serde(rename = "type", borrow, default)]
    pub ty: LStr<'a>,
    #[serde(borrow, default)]
    pub message: Lenient<Embedded<'a>>,
}

/// `attachment` of a transcript's `attachment` line; a `queued_command` holds the queued text (a
/// string, or blocks when images came with it).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Attachment<'a> {
    #[serde(rename = "type", borrow, default)]
    pub ty: LStr<'a>,
    #[serde(borrow, default)]
    pub prompt: Option<Content<'a>>,
}

/// A subagent line embedded in a `progress` line.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Embedded<'a> {
    #[serde(rename = "type", borrow, default)]
    pub ty: LStr<'a>,
    #[serde(borrow, default)]
    pub message: Lenient<Message<'a>>,
    #[serde(borrow, default)]
    pub timestamp: LStr<'a>,
    #[serde(rename = "toolUseResult", borrow, default)]
    pub tool_use_result: Option<&'a RawValue>,
}

/// The fields of the structured tool output (`tool_use_result` / `toolUseResult`) that matter for
/// parts. Parsed only for tools that use them, since Read/Write results carry whole files.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct StructuredResult<'a> {
    #[serde(default)]
    pub interrupted: LBool,
    #[serde(default)]
    pub truncated: LBool,
    #[serde(rename = "totalDurationMs", default)]
    pub total_duration_ms: LNum,
    #[serde(rename = "durationMs", default)]
    pub duration_ms: LNum,
    #[serde(rename = "durationSeconds", default)]
    pub duration_seconds: LNum,
    #[serde(rename = "agentId", borrow, default)]
    pub agent_id: LStr<'a>,
    #[serde(rename = "backgroundTaskId", borrow, default)]
    pub background_task_id: LStr<'a>,
    /// AskUserQuestion: question text → the chosen labels, comma-joined.
    #[serde(borrow, default)]
    pub answers: Option<&'a RawValue>,
    /// `SendMessage` and others: `false` is a failure the content only says in JSON.
    #[serde(default)]
    pub success: LBool,
    #[serde(borrow, default)]
    pub message: LStr<'a>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lenient_fields_tolerate_unexpected_types() {
        let l: Line<'_> = serde_json::from_str(
            r#"{"type":"user","timestamp":12,"message":"not an object","isSidechain":"yes","usage":[1]}"#,
        )
        .unwrap();
        assert_eq!(l.ty(), "user");
        assert!(l.timestamp.get().is_none());
        assert!(l.message.get().is_none());
        assert!(!l.is_sidechain.is_true());
    }

    #[test]
    fn content_is_string_or_blocks_and_borrows() {
        let text = r#"{"content":"plain"}"#;
        let b: Block<'_> = serde_json::from_str(text).unwrap();
        assert!(matches!(
            b.content,
            Some(Content::Text(Cow::Borrowed("plain")))
        ));
        let b: Block<'_> =
            serde_json::from_str(r#"{"content":[{"type":"text","text":"a\nb"},{"type":"image"}]}"#)
                .unwrap();
        assert_eq!(b.content.as_ref().unwrap().blocks().count(), 2);
    }

    fn source(json: &str) -> Result<ImageSource<'_>, serde_json::Error> {
        serde_json::from_str(json)
    }

    #[test]
    fn a_base64_sources_data_is_measured_as_bytes_and_any_other_as_raw_text() {
        let s =
            source(r#"{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}"#).unwrap();
        assert_eq!(s.media_type.get(), Some("image/png"));
        assert_eq!(s.data_len, Some(12));
        // Escapes (JSON allows `\/`) are decoded before measuring.
        assert_eq!(
            source(r#"{"type":"base64","data":"ab\/cd\u0041"}"#)
                .unwrap()
                .data_len,
            Some(6)
        );
        // Null, a list: no length; the line goes on.
        assert_eq!(
            source(r#"{"type":"base64","data":null}"#).unwrap().data_len,
            None
        );
        assert_eq!(
            source(r#"{"type":"base64","data":[1,"x"]}"#)
                .unwrap()
                .data_len,
            None
        );
        // Any other source, or data before the type: its JSON text's length less two, as the
        // whole value was always measured, whatever its type.
        assert_eq!(
            source(r#"{"type":"url","data":12345}"#).unwrap().data_len,
            Some(3)
        );
        assert_eq!(
            source(r#"{"data":"a\/b","type":"base64"}"#)
                .unwrap()
                .data_len,
            Some(4)
        );
        assert_eq!(source(r#"{"data":{"k":1}}"#).unwrap().data_len, Some(5));
        assert_eq!(source(r#"{"type":"base64"}"#).unwrap().data_len, None);
        // Other keys are passed over; a type that is not a string is not `base64`.
        let s = source(r#"{"type":7,"x":[{"y":"z"}],"data":true}"#).unwrap();
        assert_eq!(s.data_len, Some(2));
    }

    #[test]
    fn a_base64_sources_data_is_refused_where_serde_json_refuses_a_string() {
        // A control byte in the body, as serde_json refuses one in any string.
        for data in [
            "ab\u{1}cd",
            "\u{1f}",
            "abc\ndef",
            &format!("{}\t", "A".repeat(200)),
        ] {
            let text = format!(r#"{{"type":"base64","data":"{data}"}}"#);
            let e = source(&text)
                .err()
                .unwrap_or_else(|| panic!("{text:?} read"));
            assert!(e.to_string().contains("control character"), "{e}");
            assert!(serde_json::from_str::<serde_json::Value>(&text).is_err());
        }
        // Data that is neither a string, a list nor null fails its line (documented).
        for data in ["5", "true", r#"{"a":1}"#] {
            let text = format!(r#"{{"type":"base64","data":{data}}}"#);
            assert!(source(&text).is_err(), "{text}");
        }
        // A key given twice, as a derived struct refuses it.
        let e = source(r#"{"type":"base64","data":"a","data":"b"}"#)
            .err()
            .unwrap();
        assert!(e.to_string().contains("duplicate field `data`"), "{e}");
        let e = source(r#"{"media_type":"a","media_type":"b"}"#)
            .err()
            .unwrap();
        assert!(
            e.to_string().contains("duplicate field `media_type`"),
            "{e}"
        );
        // What is not an object is no source (the block's `source` is lenient).
        let b: Block<'_> = serde_json::from_str(r#"{"type":"image","source":"x"}"#).unwrap();
        assert!(b.source.get().is_none());
    }
}
