//! The built-in normalizer as a protocol implementation: the answer to one `normalize` request,
//! computed by the same code `toolnorm normalize` runs. Pure; `toolnorm serve-protocol` does the
//! stdio around it.

use super::{HelloReply, HelloType, Normalize, NormalizeResult, ResultType};
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
    }
}

/// Normalize one request's lines: parts, legacy view, diagnostics and events, or an error.
pub fn answer(req: &Normalize) -> NormalizeResult {
    let mut result = NormalizeResult {
        kind: ResultType::Tag,
        seq: req.seq,
        parts: None,
        legacy: None,
        diagnostics: None,
        events: None,
        error: None,
    };
    match normalize_request(req) {
        Ok(doc) => {
            result.legacy = Some(crate::model::legacy_parts(&doc.parts));
            result.parts = Some(doc.parts);
            result.diagnostics = Some(doc.diagnostics);
            result.events = Some(doc.events);
        }
        Err(e) => result.error = Some(e),
    }
    result
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
