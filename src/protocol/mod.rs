//! The implementation protocol, version 2: JSON lines between toolnorm (the harness) and an
//! implementation under test on its stdin and stdout. toolnorm sends [`Hello`], one [`Normalize`]
//! per fixture and [`Bye`]; the implementation answers [`HelloReply`] and one [`NormalizeResult`]
//! per fixture. Pure: the message types, the encoding of raw lines and the parsing of answers.
//! Driving processes is the verify shell's business (`verify::implementation`).
//!
//! Version 2 adds answers in a wire a UI reads: an implementation lists in `hello` the wires it
//! answers in (`wires`: [`AnswerWire`]), and a `result` may carry `wire` and `frames` (the wire's
//! frames: ACP `session/update` notifications, AI SDK UI message chunks or AG-UI events) in place
//! of `parts`. An implementation of version 1 (parts only) is still judged: toolnorm accepts both
//! versions in the answer to `hello` ([`SUPPORTED_PROTOCOLS`]).
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

/// The protocol version this toolnorm speaks (and says in its `hello`).
pub const PROTOCOL_VERSION: u32 = 2;

/// The versions an implementation may answer `hello` with: 1 (parts only) and 2 (parts or a
/// wire's frames).
pub const SUPPORTED_PROTOCOLS: [u32; 2] = [1, 2];

/// A wire an implementation may answer in instead of toolnorm parts (protocol 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
pub enum AnswerWire {
    /// ACP: JSON-RPC `session/update` notifications (`tool_call`, `tool_call_update`).
    #[serde(rename = "acp")]
    #[ts(rename = "acp")]
    Acp,
    /// The AI SDK UI message stream: `uiMessageChunkSchema` chunks.
    #[serde(rename = "ai-sdk")]
    #[ts(rename = "ai-sdk")]
    AiSdk,
    /// AG-UI 1.0 events (`@ag-ui/core`'s `EventSchemas`).
    #[serde(rename = "ag-ui")]
    #[ts(rename = "ag-ui")]
    AgUi,
}

impl AnswerWire {
    pub const ALL: [AnswerWire; 3] = [AnswerWire::Acp, AnswerWire::AiSdk, AnswerWire::AgUi];

    /// The wire's name, as the protocol and `--emit` say it: `acp`, `ai-sdk`, `ag-ui`.
    pub fn as_str(self) -> &'static str {
        match self {
            AnswerWire::Acp => "acp",
            AnswerWire::AiSdk => "ai-sdk",
            AnswerWire::AgUi => "ag-ui",
        }
    }

    pub fn parse(name: &str) -> Option<AnswerWire> {
        AnswerWire::ALL.into_iter().find(|w| w.as_str() == name)
    }
}

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
    /// Protocol 2: the wires the implementation may answer in besides parts (absent: parts only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<AnswerWire>>", optional)]
    pub wires: Vec<AnswerWire>,
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
/// `diagnostics` and `events`), or (protocol 2) `wire` and `frames` (with optional `legacy` and
/// `diagnostics`), or `error`.
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
    /// Protocol 2: the wire `frames` are in, one the implementation listed in `hello`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wire: Option<AnswerWire>,
    /// Protocol 2: the answer as the wire's frames, in the order a consumer reads them (each the
    /// frame's JSON object: an ACP `session/update` notification, an AI SDK chunk, an AG-UI
    /// event). toolnorm validates each against the wire's schema, folds them into parts and
    /// judges those; the wire-level rules read the frames themselves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(type = "Array<Record<string, unknown>>")]
    pub frames: Option<Vec<Value>>,
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
    if !SUPPORTED_PROTOCOLS.contains(&reply.protocol) {
        return Err(format!(
            "the implementation speaks protocol {}, this toolnorm speaks {}",
            reply.protocol,
            SUPPORTED_PROTOCOLS.map(|v| v.to_string()).join(" and ")
        ));
    }
    if reply.protocol < 2 && !reply.wires.is_empty() {
        return Err(format!(
            "the implementation lists `wires` but speaks protocol {}: answers in a wire are protocol 2",
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
        wire: match obj.remove("wire") {
            None | Some(Value::Null) => None,
            Some(Value::String(w)) => Some(AnswerWire::parse(&w).ok_or_else(|| {
                fail(format!(
                    "unknown `wire` `{}` (the wires are acp, ai-sdk and ag-ui)",
                    crate::text::truncate_counted(&w, 40)
                ))
            })?),
            Some(_) => return Err(fail("`wire` is not a string".to_owned())),
        },
        frames: match obj.remove("frames") {
            None | Some(Value::Null) => None,
            Some(Value::Array(items)) => Some(items),
            Some(_) => return Err(fail("`frames` is not an array".to_owned())),
        },
        error,
    };
    match (&result.parts, &result.wire, &result.frames) {
        _ if result.error.is_some() => {}
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
            return Err(fail(
                "both `parts` and a wire's `frames`: answer in one".to_owned(),
            ));
        }
        (None, Some(_), None) => return Err(fail("`wire` without `frames`".to_owned())),
        (None, None, Some(_)) => {
            return Err(fail(
                "`frames` without `wire` (acp, ai-sdk or ag-ui)".to_owned(),
            ));
        }
        (None, None, None) => {
            return Err(fail("neither `parts`, `frames` nor `error`".to_owned()));
        }
        _ => {}
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
                r#"{{"type":"hello","protocol":2,"toolnorm":"{}"}}"#,
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
                r#"{"type":"hello","protocol":3,"name":"x","version":"1","dialects":[]}"#
            )
            .is_err()
        );
    }

    #[test]
    fn answers_in_a_wire_are_protocol_2() {
        let v1 = parse_hello_reply(
            r#"{"type":"hello","protocol":1,"name":"x","version":"1","dialects":["*"]}"#,
        )
        .unwrap();
        assert!(v1.wires.is_empty());
        let v2 = parse_hello_reply(
            r#"{"type":"hello","protocol":2,"name":"x","version":"1","dialects":["*"],"wires":["ai-sdk","acp"]}"#,
        )
        .unwrap();
        assert_eq!(v2.wires, [AnswerWire::AiSdk, AnswerWire::Acp]);
        let e = parse_hello_reply(
            r#"{"type":"hello","protocol":1,"name":"x","version":"1","dialects":[],"wires":["ag-ui"]}"#,
        )
        .unwrap_err();
        assert!(e.contains("protocol 2"), "{e}");
        let ok = parse_result(
            r#"{"type":"result","seq":1,"wire":"ag-ui","frames":[{"type":"RUN_STARTED"}]}"#,
        )
        .unwrap();
        assert_eq!(ok.wire, Some(AnswerWire::AgUi));
        assert_eq!(ok.frames.map(|f| f.len()), Some(1));
        for (line, needle) in [
            (
                r#"{"type":"result","seq":1,"wire":"ag-ui"}"#,
                "without `frames`",
            ),
            (r#"{"type":"result","seq":1,"frames":[]}"#, "without `wire`"),
            (
                r#"{"type":"result","seq":1,"wire":"sse","frames":[]}"#,
                "unknown `wire`",
            ),
            (
                r#"{"type":"result","seq":1,"wire":"acp","frames":{}}"#,
                "not an array",
            ),
            (
                r#"{"type":"result","seq":1,"wire":"acp","frames":[],"parts":[]}"#,
                "answer in one",
            ),
        ] {
            let e = parse_result(line).unwrap_err();
            assert!(e.contains(needle), "{line}: {e}");
        }
    }

    #[test]
    fn claims_dialects() {
        let h = HelloReply {
            kind: HelloType::Tag,
            protocol: 1,
            name: "x".into(),
            version: "1".into(),
            dialects: vec!["claude/stream-json".into(), "codex/*".into()],
            wires: Vec::new(),
        };
        assert!(h.claims("claude", "stream-json"));
        assert!(!h.claims("claude", "transcript"));
        assert!(h.claims("codex", "exec"));
    }
}
