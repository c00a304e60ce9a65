//! The implementation protocol, version 1: JSON lines between toolnorm (the harness) and an
//! implementation under test on its stdin and stdout. toolnorm sends [`Hello`], one [`Normalize`]
//! per fixture and [`Bye`]; the implementation answers [`HelloReply`] and one [`NormalizeResult`]
//! per fixture. Pure: the message types, the encoding of raw lines and the parsing of answers.
//! Driving processes is the verify shell's business (`verify::implementation`).
//!
//! Extensions may add fields to any message; the names and meanings here stay. toolnorm's own
//! extensions: `unterminated` on `normalize` (the last line had no newline) and `events` on
//! `result` (the part events, as in the expected files).

pub mod builtin;
pub mod docs;

use base64::Engine;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::model::{Diagnostic, LegacyToolPart, NormalizedToolPart, PartEvent};
use crate::stream::{Direction, Input};

/// The protocol version this toolnorm speaks.
pub const PROTOCOL_VERSION: u32 = 1;

/// Declares the one-value `type` tag of a message, so each message is its own type (and schema).
macro_rules! message_tag {
    ($name:ident, $value:literal) => {
        #[doc = concat!("The `type` of the message: always `\"", $value, "\"`.")]
        #[derive(
            Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS,
        )]
        pub enum $name {
            #[default]
            #[serde(rename = $value)]
            #[ts(rename = $value)]
            Tag,
        }
    };
}
message_tag!(HelloType, "hello");
message_tag!(NormalizeType, "normalize");
message_tag!(ResultType, "result");
message_tag!(ByeType, "bye");

/// toolnorm → implementation, first: who is asking, in which protocol version.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct Hello {
    #[serde(rename = "type")]
    #[ts(rename = "type")]
    pub kind: HelloType,
    pub protocol: u32,
    /// toolnorm's version.
    pub toolnorm: String,
}

/// implementation → toolnorm, the answer to [`Hello`]: who it is and which dialects it claims.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct HelloReply {
    #[serde(rename = "type")]
    #[ts(rename = "type")]
    pub kind: HelloType,
    pub protocol: u32,
    pub name: String,
    pub version: String,
    /// `provider/dialect` names (`claude/stream-json`), or `"*"` for every dialect.
    pub dialects: Vec<String>,
}

impl HelloReply {
    /// Whether the implementation claims `provider/dialect`.
    pub fn claims(&self, provider: &str, dialect: &str) -> bool {
        self.dialects.iter().any(|d| {
            d == "*"
                || d.split_once('/') == Some((provider, dialect))
                || d == &format!("{provider}/*")
        })
    }
}

/// Who wrote a raw line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "lowercase")]
pub enum LineFrom {
    /// The agent (the default).
    Agent,
    /// The client driving the agent (two-way recordings: app-server, SDK-driven sessions).
    Client,
}

/// A raw line in object form: a line the client sent, or bytes that are not UTF-8.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct LineObject {
    /// Absent: the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<LineFrom>,
    /// The line, when it is UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The line's bytes in standard base64, when they are not UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base64: Option<String>,
}

/// One raw line: a JSON string for a line the agent wrote, an object otherwise.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(untagged)]
pub enum WireLine {
    Agent(String),
    Object(LineObject),
}

impl WireLine {
    /// Encode one line as the protocol sends it.
    pub fn encode(bytes: &[u8], direction: Direction) -> WireLine {
        let from = (direction == Direction::Client).then_some(LineFrom::Client);
        match std::str::from_utf8(bytes) {
            Ok(text) if from.is_none() => WireLine::Agent(text.to_owned()),
            Ok(text) => WireLine::Object(LineObject {
                from,
                text: Some(text.to_owned()),
                base64: None,
            }),
            Err(_) => WireLine::Object(LineObject {
                from,
                text: None,
                base64: Some(base64::engine::general_purpose::STANDARD.encode(bytes)),
            }),
        }
    }

    /// The line's bytes and direction back; `Err` says what is wrong with the object.
    pub fn decode(&self) -> Result<(Vec<u8>, Direction), String> {
        match self {
            WireLine::Agent(s) => Ok((s.as_bytes().to_vec(), Direction::Agent)),
            WireLine::Object(o) => {
                let direction = match o.from {
                    Some(LineFrom::Client) => Direction::Client,
                    Some(LineFrom::Agent) | None => Direction::Agent,
                };
                let bytes = match (&o.text, &o.base64) {
                    (Some(t), None) => t.as_bytes().to_vec(),
                    (None, Some(b)) => base64::engine::general_purpose::STANDARD
                        .decode(b)
                        .map_err(|e| format!("bad base64: {e}"))?,
                    (Some(_), Some(_)) => return Err("both `text` and `base64`".to_owned()),
                    (None, None) => return Err("neither `text` nor `base64`".to_owned()),
                };
                Ok((bytes, direction))
            }
        }
    }
}

/// toolnorm → implementation: normalize one fixture.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct Normalize {
    #[serde(rename = "type")]
    #[ts(rename = "type")]
    pub kind: NormalizeType,
    /// Increases by one per request to this process; the answer carries it back.
    #[ts(type = "number")]
    pub seq: u64,
    /// `provider/name` of the fixture.
    pub fixture: String,
    pub provider: String,
    pub dialect: String,
    /// The agent's working directory, when the recording knows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The raw lines in recorded order.
    pub lines: Vec<WireLine>,
    /// Extension: the last line had no newline (the stream was cut short).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unterminated: Option<bool>,
}

impl Normalize {
    /// The request for one raw stream.
    pub fn of_input(
        seq: u64,
        fixture: String,
        dialect: crate::stream::Dialect,
        cwd: Option<String>,
        input: &Input<'_>,
    ) -> Normalize {
        Normalize {
            kind: NormalizeType::Tag,
            seq,
            fixture,
            provider: dialect.provider().as_str().to_owned(),
            dialect: dialect.as_str().to_owned(),
            cwd,
            lines: wire_lines(input),
            unterminated: input
                .lines
                .last()
                .is_some_and(|l| l.unterminated)
                .then_some(true),
        }
    }
}

/// Every line of the stream, numbered by position: lines the input leaves out (a loaded stream keeps
/// no blank lines) are sent empty, so line `n` of the request is line `n` of the stream.
fn wire_lines(input: &Input<'_>) -> Vec<WireLine> {
    let mut out = Vec::with_capacity(input.lines.len());
    for l in &input.lines {
        while out.len() + 1 < l.number as usize {
            out.push(WireLine::encode(b"", crate::stream::Direction::Agent));
        }
        out.push(WireLine::encode(l.bytes, l.direction));
    }
    out
}

/// implementation → toolnorm: the answer to one [`Normalize`]: `parts` (with optional `legacy`,
/// `diagnostics` and `events`), or `error`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct NormalizeResult {
    #[serde(rename = "type")]
    #[ts(rename = "type")]
    pub kind: ResultType,
    #[ts(type = "number")]
    pub seq: u64,
    /// The final state of every tool call, in order of first appearance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts: Option<Vec<NormalizedToolPart>>,
    /// The implementation's own legacy UI view of the parts (`calling / output-available /
    /// output-error`), checked against the legacy mapping of the expected parts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legacy: Option<Vec<LegacyToolPart>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<Vec<Diagnostic>>,
    /// Extension: one entry per change (1-based raw line, part id, new state).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<PartEvent>>,
    /// Why the implementation could not normalize the fixture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// toolnorm → implementation, last: no more requests; exit.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct Bye {
    #[serde(rename = "type")]
    #[ts(rename = "type")]
    pub kind: ByeType,
}

impl Hello {
    pub fn current() -> Hello {
        Hello {
            kind: HelloType::Tag,
            protocol: PROTOCOL_VERSION,
            toolnorm: env!("CARGO_PKG_VERSION").to_owned(),
        }
    }
}

/// Any message toolnorm sends, as the implementation reads it.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    Hello(Hello),
    Normalize(Box<Normalize>),
    Bye,
}

/// What `line` says, or why it is not a protocol message: never panics on bad input.
fn typed(line: &str) -> Result<(String, Value), String> {
    let value: Value = serde_json::from_str(line.trim_end_matches(['\r', '\n']))
        .map_err(|e| format!("not JSON ({e}): {}", clip(line)))?;
    let kind = value
        .get("type")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("no string `type`: {}", clip(line)))?
        .to_owned();
    Ok((kind, value))
}

fn field_error(what: &str, e: serde_json::Error, line: &str) -> String {
    format!("bad `{what}` message ({e}): {}", clip(line))
}

/// A line toolnorm sent, parsed by an implementation (toolnorm's own protocol mode).
pub fn parse_request(line: &str) -> Result<Request, String> {
    let (kind, value) = typed(line)?;
    match kind.as_str() {
        "hello" => serde_json::from_value(value)
            .map(Request::Hello)
            .map_err(|e| field_error("hello", e, line)),
        "normalize" => serde_json::from_value(value)
            .map(|n| Request::Normalize(Box::new(n)))
            .map_err(|e| field_error("normalize", e, line)),
        "bye" => Ok(Request::Bye),
        other => Err(format!("unknown message type `{other}`")),
    }
}

/// The implementation's answer to `hello`.
pub fn parse_hello_reply(line: &str) -> Result<HelloReply, String> {
    let (kind, value) = typed(line)?;
    if kind != "hello" {
        return Err(format!(
            "expected a `hello` answer, got `{kind}`: {}",
            clip(line)
        ));
    }
    let reply: HelloReply =
        serde_json::from_value(value).map_err(|e| field_error("hello", e, line))?;
    if reply.protocol != PROTOCOL_VERSION {
        return Err(format!(
            "the implementation speaks protocol {}, this toolnorm speaks {PROTOCOL_VERSION}",
            reply.protocol
        ));
    }
    Ok(reply)
}

/// An answer to `normalize`, checked field by field so a bad part is named by its index.
pub fn parse_result(line: &str) -> Result<NormalizeResult, String> {
    let (kind, mut value) = typed(line)?;
    if kind != "result" {
        return Err(format!("expected a `result`, got `{kind}`: {}", clip(line)));
    }
    let seq = value
        .get("seq")
        .and_then(Value::as_u64)
        .ok_or_else(|| format!("`result` without a numeric `seq`: {}", clip(line)))?;
    let obj = value.as_object_mut().ok_or("not an object")?;
    fn list<T: serde::de::DeserializeOwned>(
        obj: &mut serde_json::Map<String, Value>,
        key: &str,
    ) -> Result<Option<Vec<T>>, String> {
        match obj.remove(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Array(items)) => items
                .into_iter()
                .enumerate()
                .map(|(i, v)| serde_json::from_value(v).map_err(|e| format!("`{key}[{i}]`: {e}")))
                .collect::<Result<Vec<T>, String>>()
                .map(Some),
            Some(_) => Err(format!("`{key}` is not an array")),
        }
    }
    let error = match obj.remove("error") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s),
        Some(other) => Some(other.to_string()),
    };
    let fail = |e: String| format!("result seq {seq}: {e}");
    let result = NormalizeResult {
        kind: ResultType::Tag,
        seq,
        parts: list(obj, "parts").map_err(fail)?,
        legacy: list(obj, "legacy").map_err(fail)?,
        diagnostics: list(obj, "diagnostics").map_err(fail)?,
        events: list(obj, "events").map_err(fail)?,
        error,
    };
    if result.parts.is_none() && result.error.is_none() {
        return Err(fail("neither `parts` nor `error`".to_owned()));
    }
    Ok(result)
}

/// A line clipped for an error message.
pub fn clip(line: &str) -> String {
    crate::text::truncate_counted(line.trim_end(), 200)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip_in_every_form() {
        for (bytes, dir) in [
            (&b"{\"a\":1}"[..], Direction::Agent),
            (&b"{\"id\":1}"[..], Direction::Client),
            (&b"\xff\xfe"[..], Direction::Agent),
            (&b"\xff"[..], Direction::Client),
        ] {
            let w = WireLine::encode(bytes, dir);
            let text = serde_json::to_string(&w).unwrap();
            let back: WireLine = serde_json::from_str(&text).unwrap();
            assert_eq!(back.decode().unwrap(), (bytes.to_vec(), dir), "{text}");
        }
        assert_eq!(
            serde_json::to_string(&WireLine::encode(b"x", Direction::Client)).unwrap(),
            r#"{"from":"client","text":"x"}"#
        );
        let agent_b64: WireLine = serde_json::from_str(r#"{"base64":"/w=="}"#).unwrap();
        assert_eq!(agent_b64.decode().unwrap(), (vec![0xff], Direction::Agent));
        let bad: WireLine = serde_json::from_str(r#"{"from":"client"}"#).unwrap();
        assert!(bad.decode().is_err());
    }

    #[test]
    fn messages_have_their_type_tags() {
        assert_eq!(
            serde_json::to_string(&Hello::current()).unwrap(),
            format!(
                r#"{{"type":"hello","protocol":1,"toolnorm":"{}"}}"#,
                env!("CARGO_PKG_VERSION")
            )
        );
        assert_eq!(
            serde_json::to_string(&Bye::default()).unwrap(),
            r#"{"type":"bye"}"#
        );
        assert!(matches!(
            parse_request(r#"{"type":"bye"}"#),
            Ok(Request::Bye)
        ));
    }

    #[test]
    fn bad_answers_are_errors_never_panics() {
        for line in [
            "",
            "garbage",
            "[]",
            r#"{"type":"result"}"#,
            r#"{"type":"result","seq":"1","parts":[]}"#,
            r#"{"type":"result","seq":1}"#,
            r#"{"type":"result","seq":1,"parts":{}}"#,
            r#"{"type":"result","seq":1,"parts":[{"id":1}]}"#,
            r#"{"type":"hello","seq":1}"#,
        ] {
            assert!(parse_result(line).is_err(), "{line}");
        }
        let e = parse_result(r#"{"type":"result","seq":4,"parts":[{"id":"x"}]}"#).unwrap_err();
        assert!(e.contains("seq 4") && e.contains("parts[0]"), "{e}");
        let ok = parse_result(r#"{"type":"result","seq":2,"parts":[],"extra":true}"#).unwrap();
        assert_eq!(ok.parts, Some(vec![]));
        let err = parse_result(r#"{"type":"result","seq":3,"error":"boom"}"#).unwrap();
        assert_eq!(err.error.as_deref(), Some("boom"));
        assert!(
            parse_hello_reply(
                r#"{"type":"hello","protocol":2,"name":"x","version":"1","dialects":[]}"#
            )
            .is_err()
        );
    }

    #[test]
    fn claims_dialects() {
        let h = HelloReply {
            kind: HelloType::Tag,
            protocol: 1,
            name: "x".into(),
            version: "1".into(),
            dialects: vec!["claude/stream-json".into(), "codex/*".into()],
        };
        assert!(h.claims("claude", "stream-json"));
        assert!(!h.claims("claude", "transcript"));
        assert!(h.claims("codex", "exec"));
    }
}
