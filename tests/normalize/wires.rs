//! The AI SDK UI message stream and AG-UI over the whole corpus: every fixture's parts, written on
//! each wire and read back as a client reads them (JSON text), fold back to exactly the parts; and
//! a consumer that reads only the wire's own fields (no extension slot) gets the fields
//! `docs/ui-wires.md` calls native, field by field.

use serde_json::Value;
use toolnorm::model::wire::{Wire, ag_ui, ai_sdk, document_frames};
use toolnorm::{NormalizedToolPart, ToolState};

use crate::normalize::samples::load_all;

/// The frames of a document on `wire`, as JSON values.
fn frames(wire: Wire, doc: &toolnorm::NormalizedDocument) -> Vec<Value> {
    document_frames(wire, doc)
        .iter()
        .map(|f| serde_json::from_str(&serde_json::to_string(f).unwrap()).unwrap())
        .collect()
}

fn fold(wire: Wire, frames: &[Value]) -> Result<Vec<NormalizedToolPart>, String> {
    match wire {
        Wire::AiSdk => {
            let c: Vec<_> = frames
                .iter()
                .map(ai_sdk::read_chunk)
                .collect::<Result<Vec<_>, _>>()?;
            ai_sdk::fold_chunks(&c.into_iter().flatten().collect::<Vec<_>>())
                .map_err(|e| e.to_string())
        }
        Wire::AgUi => {
            let e: Vec<_> = frames
                .iter()
                .map(ag_ui::read_event)
                .collect::<Result<Vec<_>, _>>()?;
            ag_ui::fold_events(&e.into_iter().flatten().collect::<Vec<_>>())
                .map_err(|e| e.to_string())
        }
    }
}

/// The frames without the wire's extension slot: what a consumer that reads only the wire's own
/// fields sees.
fn without_slot(frames: &[Value]) -> Vec<Value> {
    frames
        .iter()
        .map(|f| {
            let mut f = f.clone();
            if let Some(o) = f.as_object_mut() {
                o.remove("toolMetadata");
                o.remove("metadata");
            }
            f
        })
        .filter(|f| f["type"] != "CUSTOM")
        .collect()
}

#[test]
fn every_fixture_round_trips_through_both_wires() {
    let mut parts = 0usize;
    for s in load_all() {
        let doc = s.normalize();
        for wire in Wire::ALL {
            let frames = frames(wire, &doc);
            let folded =
                fold(wire, &frames).unwrap_or_else(|e| panic!("{} {}: {e}", s.name, wire.as_str()));
            assert_eq!(
                folded.len(),
                doc.parts.len(),
                "{} {}",
                s.name,
                wire.as_str()
            );
            for (a, b) in folded.iter().zip(&doc.parts) {
                assert_eq!(
                    a,
                    b,
                    "{}: part {} changed on the way through {}",
                    s.name,
                    b.id,
                    wire.as_str()
                );
            }
            // The native fields, field by field (docs/ui-wires.md, "What survives").
            let native = fold(wire, &without_slot(&frames))
                .unwrap_or_else(|e| panic!("{} {} without slot: {e}", s.name, wire.as_str()));
            for (a, b) in native.iter().zip(&doc.parts) {
                let at = format!("{} {} part {}", s.name, wire.as_str(), b.id);
                assert_eq!(a.id, b.id, "{at}: id");
                assert_eq!(a.name, b.name, "{at}: name");
                assert_eq!(
                    a.state.is_terminal(),
                    b.state.is_terminal(),
                    "{at}: finished"
                );
                match wire {
                    Wire::AiSdk => {
                        assert_eq!(a.title, b.title, "{at}: title");
                        assert_eq!(a.input, b.input, "{at}: input");
                        assert_eq!(a.state, b.state, "{at}: state");
                        if b.state == ToolState::Complete {
                            assert_eq!(a.output, b.output, "{at}: output");
                        }
                        if b.state == ToolState::Error && !ai_sdk::is_denied(b) {
                            assert_eq!(
                                a.error.as_ref().map(|e| &e.message),
                                b.error.as_ref().map(|e| &e.message),
                                "{at}: error message"
                            );
                        }
                    }
                    // AG-UI's own fields: id, name, whether the call finished (its result); the
                    // output text of a result can be revised later only through the slot.
                    Wire::AgUi => {}
                }
            }
        }
        parts += doc.parts.len();
    }
    assert!(parts > 100, "only {parts} parts: the corpus is missing");
}

/// The `ai-sdk` and `ag-ui` dialects read an engine's recorded wire back: every fixture's frames,
/// as one stream (JSON Lines, and SSE `data:` lines), are detected as the wire and normalize to its
/// parts.
#[test]
fn every_fixture_s_wire_normalizes_back_as_its_dialect() {
    use toolnorm::{Dialect, Input, NormalizeOptions, normalize};
    for s in load_all() {
        let doc = s.normalize();
        if doc.parts.is_empty() {
            // Only the stream's opening and end: nothing says which wire it is.
            continue;
        }
        for (wire, dialect) in [(Wire::AiSdk, Dialect::AiSdk), (Wire::AgUi, Dialect::AgUi)] {
            for sse in [false, true] {
                let mut text = String::new();
                for f in document_frames(wire, &doc) {
                    let json = serde_json::to_string(&f).unwrap();
                    if sse {
                        text.push_str(&toolnorm::model::wire::sse_event(&json));
                    } else {
                        text.push_str(&json);
                        text.push('\n');
                    }
                }
                let at = format!("{} {} sse={sse}", s.name, wire.as_str());
                let back = normalize(
                    &Input::from_bytes(text.as_bytes()),
                    NormalizeOptions::default(),
                )
                .unwrap_or_else(|e| panic!("{at}: {e}"));
                assert_eq!(back.dialect, dialect.as_str(), "{at}");
                assert!(back.diagnostics.is_empty(), "{at}: {:?}", back.diagnostics);
                assert_eq!(back.parts.len(), doc.parts.len(), "{at}");
                for (a, b) in back.parts.iter().zip(&doc.parts) {
                    assert_eq!(a, b, "{at}: part {}", b.id);
                }
            }
        }
    }
}
