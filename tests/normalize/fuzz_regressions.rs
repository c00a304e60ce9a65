//! What the fuzz targets (`fuzz/`, `scripts/fuzz.sh`) found, pinned. The redactor's finding is a
//! unit test beside it (`corpus::redact`); the dialects' is here, through the public API as the
//! targets call it.

use toolnorm::{Dialect, Input, NormalizeOptions};

/// `opencode_export` on an empty input: a forced dialect normalizes nothing without a panic, and
/// a diagnostic about the missing document points at most at the line where the input ends
/// (line 1 of an empty input, line 4 after three newlines: where the parser met its end), never
/// past it; the same holds for every dialect, and a stream of blank lines is no different.
#[test]
fn every_forced_dialect_normalizes_an_empty_input() {
    for input in [&b""[..], b"\n\n  \n"] {
        let lines = Input::from_bytes(input);
        let end = input.iter().filter(|b| **b == b'\n').count() as u32 + 1;
        for dialect in Dialect::ALL {
            let doc = toolnorm::normalize(
                &lines,
                NormalizeOptions {
                    provider: Some(dialect.provider()),
                    dialect: Some(dialect),
                    cwd: None,
                },
            )
            .unwrap_or_else(|e| panic!("{dialect}: {e}"));
            assert!(doc.parts.is_empty(), "{dialect}: parts from nothing");
            assert!(doc.events.is_empty(), "{dialect}: events from nothing");
            for d in &doc.diagnostics {
                assert!(d.line <= end, "{dialect}: diagnostic at line {}", d.line);
            }
            let json = serde_json::to_value(&doc).expect("serializes");
            assert_eq!(json["dialect"], dialect.as_str());
        }
    }
}

/// `opencode_export` with a `limit` of `6.666666666666665e49`: the document's canonical JSON,
/// read back, held `6.666666666666666e49`, because the JSON parser rounded floats faster but not
/// exactly (serde_json's `float_roundtrip` feature makes it exact). An expected file read back as
/// a value must hold the numbers that were written.
#[test]
fn canonical_json_reads_back_the_same_floats() {
    for x in [
        6.666666666666665e49,
        0.1 + 0.2,
        1e-300,
        123456789.12345678,
        f64::MAX,
    ] {
        let value = serde_json::json!({ "limit": x, "nested": [x, { "x": x }] });
        let text = toolnorm::compare::canonical_json(&value);
        let back: serde_json::Value = serde_json::from_str(&text).expect("parses");
        assert_eq!(back, value, "{x:e} written as {text}");
    }
}

/// `gemini_json` and `qwen_json` on a document cut inside its last line (no newline after it): the
/// parse error at the end pointed one line past the input, since the kept lines each got a
/// newline, the last one too.
#[test]
fn a_document_cut_in_its_last_line_is_reported_at_that_line() {
    let gemini = "{\n  \"session_id\": \"s\",\n  \"response\": \"x\",\n  \"stats\": {\"tools\": {}";
    let qwen = r#"[{"type":"system","subtype":"init","uuid":"u","session_id":"u","cwd":"~/work","tools[":"#;
    let session = "{\n  \"sessionId\": \"s\",\n  \"messages\": [";
    for (dialect, text, last) in [
        (Dialect::GeminiJson, gemini, 4),
        (Dialect::QwenJson, qwen, 1),
        (Dialect::GeminiSession, session, 3),
    ] {
        let doc = toolnorm::normalize(
            &Input::from_bytes(text.as_bytes()),
            NormalizeOptions {
                provider: Some(dialect.provider()),
                dialect: Some(dialect),
                cwd: None,
            },
        )
        .unwrap();
        assert!(!doc.diagnostics.is_empty(), "{dialect}");
        for d in &doc.diagnostics {
            assert!(
                d.line <= last,
                "{dialect}: diagnostic at line {} of {last}",
                d.line
            );
        }
        assert_eq!(doc.diagnostics[0].line, last, "{dialect}");
    }
}
