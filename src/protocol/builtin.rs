//! The built-in normalizer as a protocol implementation: the answer to one `normalize` request,
//! computed by the same code `toolnorm normalize` runs, as parts or (protocol 2) as one wire's
//! frames, written by the same emitters as `normalize --emit`. Pure; `toolnorm serve-protocol`
//! does the stdio around it.

use serde_json::Value;

use super::{AnswerWire, HelloReply, HelloType, Normalize, NormalizeResult, ResultType};
use crate::model::NormalizedDocument;
use crate::model::wire::{Wire, document_frames};
use crate::normalizer::normalize;
use crate::providers::NormalizeOptions;
use crate::stream::{Dialect, Input, Provider, RawLine};

/// The built-in implementation's answer to `hello`: every dialect.
pub fn hello_reply() -> HelloReply {
    HelloReply {
        kind: HelloType::Tag,
        protocol: super::PROTOCOL_VERSION,
        name: "toolnorm".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        dialects: vec!["*".to_owned()],
        wires: AnswerWire::ALL.to_vec(),
    }
}

/// Normalize one request's lines: parts, legacy view, diagnostics and events, or an error.
pub fn answer(req: &Normalize) -> NormalizeResult {
    answer_in(req, None)
}

/// [`answer`], in `wire` when given: the document's frames on that wire (what
/// `normalize --emit <wire>` writes) with the legacy view and the diagnostics, in place of the
/// parts and events.
pub fn answer_in(req: &Normalize, wire: Option<AnswerWire>) -> NormalizeResult {
    let mut result = NormalizeResult {
        kind: ResultType::Tag,
        seq: req.seq,
        parts: None,
        legacy: None,
        diagnostics: None,
        events: None,
        wire: None,
        frames: None,
        error: None,
    };
    match normalize_request(req) {
        Ok(doc) => {
            result.legacy = Some(crate::model::legacy_parts(&doc.parts));
            match wire {
                Some(w) => {
                    result.frames = Some(frames_of(w, &doc));
                    result.wire = Some(w);
                }
                None => {
                    result.parts = Some(doc.parts);
                    result.events = Some(doc.events);
                }
            }
            result.diagnostics = Some(doc.diagnostics);
        }
        Err(e) => result.error = Some(e),
    }
    result
}

/// Every frame of a document on `wire`, as JSON values.
pub fn frames_of(wire: AnswerWire, doc: &NormalizedDocument) -> Vec<Value> {
    fn values<T: serde::Serialize>(frames: &[T]) -> Vec<Value> {
        frames
            .iter()
            .map(|f| serde_json::to_value(f).unwrap_or(Value::Null))
            .collect()
    }
    match wire {
        AnswerWire::Acp => values(&crate::model::acp::document_frames(doc)),
        AnswerWire::AiSdk => values(&document_frames(Wire::AiSdk, doc)),
        AnswerWire::AgUi => values(&document_frames(Wire::AgUi, doc)),
    }
}

fn normalize_request(req: &Normalize) -> Result<crate::model::NormalizedDocument, String> {
    let provider: Provider = req.provider.parse().map_err(|e| format!("provider: {e}"))?;
    let dialect =
        Dialect::parse(&req.dialect, Some(provider)).map_err(|e| format!("dialect: {e}"))?;
    let mut bytes = Vec::new();
    let mut spans = Vec::with_capacity(req.lines.len());
    let last = req.lines.len().saturating_sub(1);
    for (i, line) in req.lines.iter().enumerate() {
        let (b, direction) = line.decode().map_err(|e| format!("line {}: {e}", i + 1))?;
        let start = bytes.len();
        bytes.extend_from_slice(&b);
        let terminated = !(i == last && req.unterminated == Some(true));
        spans.push((start, bytes.len(), direction, terminated));
        if terminated {
            bytes.push(b'\n');
        }
    }
    let lines = spans
        .iter()
        .enumerate()
        .map(|(i, &(s, e, direction, terminated))| RawLine {
            number: i as u32 + 1,
            bytes: &bytes[s..e],
            direction,
            unterminated: !terminated,
            text: None,
        })
        .collect();
    let input = Input::from_lines(&bytes, lines);
    normalize(
        &input,
        NormalizeOptions {
            provider: Some(provider),
            dialect: Some(dialect),
            cwd: req.cwd.as_deref(),
        },
    )
    .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{NormalizeType, WireLine};

    fn request(provider: &str, dialect: &str, lines: Vec<WireLine>) -> Normalize {
        Normalize {
            kind: NormalizeType::Tag,
            seq: 7,
            fixture: "x/y".into(),
            provider: provider.into(),
            dialect: dialect.into(),
            cwd: None,
            lines,
            unterminated: None,
        }
    }

    #[test]
    fn answers_in_each_wire_fold_back_to_the_parts() {
        let line = r#"{"type":"assistant","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]},"parent_tool_use_id":null,"session_id":"s"}"#;
        let req = request("claude", "stream-json", vec![WireLine::Agent(line.into())]);
        let parts = answer(&req).parts.unwrap();
        for wire in AnswerWire::ALL {
            let a = answer_in(&req, Some(wire));
            assert_eq!(a.wire, Some(wire));
            assert!(a.parts.is_none() && a.events.is_none());
            let frames = a.frames.unwrap();
            assert!(!frames.is_empty(), "{wire:?}");
            let text = serde_json::to_string(&frames).unwrap();
            assert!(text.contains("toolu_1"), "{wire:?}: {text}");
        }
        assert_eq!(parts.len(), 1);
    }

    #[test]
    fn answers_parts_or_a_named_error() {
        let line = r#"{"type":"assistant","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]},"parent_tool_use_id":null,"session_id":"s"}"#;
        let ok = answer(&request(
            "claude",
            "stream-json",
            vec![WireLine::Agent(line.into())],
        ));
        assert_eq!(ok.seq, 7);
        assert_eq!(ok.parts.as_ref().map(Vec::len), Some(1));
        assert_eq!(ok.legacy.as_ref().map(Vec::len), Some(1));
        let bad = answer(&request("nobody", "stream-json", vec![]));
        assert!(
            bad.error
                .as_deref()
                .is_some_and(|e| e.starts_with("provider")),
            "{bad:?}"
        );
        let bad_line = answer(&request(
            "claude",
            "stream-json",
            vec![WireLine::Object(crate::protocol::LineObject {
                from: None,
                text: None,
                base64: None,
            })],
        ));
        assert!(
            bad_line
                .error
                .as_deref()
                .is_some_and(|e| e.contains("line 1")),
            "{bad_line:?}"
        );
    }
}
