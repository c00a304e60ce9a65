//! ACP frames over the whole corpus: every fixture's `session/update` frames (`--emit acp`) are
//! valid against the official ACP JSON Schema vendored in `schema/acp/`, and fold back into
//! exactly the fixture's parts.

#![cfg(feature = "acp")]

use std::path::Path;

use serde_json::{Value, json};
use toolnorm::model::acp::{AcpUpdateFrame, document_frames, fold_frames};

use crate::normalize::samples::load_all;
use crate::normalize::schema_check::Validator;

fn acp_schema() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/acp/schema.json");
    let text = std::fs::read_to_string(&path).expect("the vendored ACP schema");
    serde_json::from_str(&text).expect("the vendored ACP schema is JSON")
}

/// A validator for one of the schema's definitions.
fn definition(schema: &Value, name: &str) -> Validator {
    Validator::at(schema, &format!("/$defs/{name}"))
}

#[test]
fn every_fixture_s_frames_validate_against_the_acp_schema() {
    let schema = acp_schema();
    let whole = Validator::new(&schema);
    let agent = definition(&schema, "AgentNotification");
    let session = definition(&schema, "SessionNotification");
    let mut checked = 0usize;
    for s in load_all() {
        let doc = s.normalize();
        for (i, frame) in document_frames(&doc).iter().enumerate() {
            let v = serde_json::to_value(frame).unwrap();
            // The top level (any ACP message) admits extension notifications; the frame must
            // also be an agent notification whose params are a SessionNotification.
            for (what, validator, instance) in [
                ("message", &whole, &v),
                ("agent notification", &agent, &v),
                ("session notification", &session, &v["params"]),
            ] {
                let errs = validator.errors(instance);
                assert!(
                    errs.is_empty(),
                    "{} frame {i}: not a valid ACP {what}: {errs:?}\n{v}",
                    s.name
                );
            }
            assert_eq!(v["method"], "session/update", "{} frame {i}", s.name);
            checked += 1;
        }
    }
    assert!(
        checked > 100,
        "only {checked} frames: the corpus is missing"
    );
}

#[test]
fn a_frame_that_breaks_the_schema_is_caught() {
    let schema = acp_schema();
    let session = definition(&schema, "SessionNotification");
    let bad = json!({"sessionId": "s", "update": {"sessionUpdate": "tool_call",
        "toolCallId": "t", "title": "x", "status": "output-available"}});
    assert!(!session.errors(&bad).is_empty());
    let good = json!({"sessionId": "s", "update": {"sessionUpdate": "tool_call",
        "toolCallId": "t", "title": "x", "status": "completed"}});
    assert_eq!(session.errors(&good), Vec::<String>::new());
}

#[test]
fn every_fixture_s_frames_fold_back_into_its_parts() {
    let mut parts = 0usize;
    for s in load_all() {
        let doc = s.normalize();
        let frames = document_frames(&doc);
        // Through the wire and back, as a client reads them.
        let text: Vec<String> = frames
            .iter()
            .map(|f| serde_json::to_string(f).unwrap())
            .collect();
        let read: Vec<AcpUpdateFrame> = text
            .iter()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}: {l}", s.name)))
            .collect();
        let folded = fold_frames(&read).unwrap_or_else(|e| panic!("{}: {e}", s.name));
        assert_eq!(folded.len(), doc.parts.len(), "{}", s.name);
        for (a, b) in folded.iter().zip(&doc.parts) {
            assert_eq!(
                a, b,
                "{}: part {} changed on the way through ACP",
                s.name, b.id
            );
        }
        let events = doc
            .events
            .iter()
            .filter(|e| doc.parts.iter().any(|p| p.id == e.part_id))
            .count();
        let silent = doc
            .parts
            .iter()
            .filter(|p| !doc.events.iter().any(|e| e.part_id == p.id))
            .count();
        assert_eq!(
            frames.len(),
            events + silent,
            "{}: one frame per event",
            s.name
        );
        parts += doc.parts.len();
    }
    assert!(parts > 100, "only {parts} parts: the corpus is missing");
}

/// The `acp` dialect reads toolnorm's own frames back: an engine that emits them is put under the
/// gate with nothing lost. Every fixture's frames, as one ACP stream, normalize to its parts.
#[test]
fn every_fixture_s_frames_normalize_back_through_the_acp_dialect() {
    for s in load_all() {
        let doc = s.normalize();
        let text: String = document_frames(&doc)
            .iter()
            .map(|f| serde_json::to_string(f).unwrap() + "\n")
            .collect();
        if text.is_empty() {
            continue;
        }
        let input = toolnorm::Input::from_bytes(text.as_bytes());
        let detected =
            toolnorm::dialects::detect(&input, None).unwrap_or_else(|e| panic!("{}: {e}", s.name));
        assert_eq!(detected, toolnorm::Dialect::Acp, "{}", s.name);
        let back = toolnorm::normalize(
            &input,
            toolnorm::NormalizeOptions {
                dialect: Some(toolnorm::Dialect::Acp),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(back.provider, "acp");
        assert!(
            back.diagnostics.is_empty(),
            "{}: {:?}",
            s.name,
            back.diagnostics
        );
        assert_eq!(back.parts.len(), doc.parts.len(), "{}", s.name);
        for (a, b) in back.parts.iter().zip(&doc.parts) {
            assert_eq!(
                a, b,
                "{}: part {} changed through the acp dialect",
                s.name, b.id
            );
        }
    }
}
