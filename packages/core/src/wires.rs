//! The UI wires (`toolnorm normalize --emit ai-sdk | ag-ui`) behind the facade: the core's own
//! emitters (`toolnorm::model::wire`), fed a part snapshot at a time, their frames written as a
//! JSON array (each frame what `--emit` prints on a line) or as the wire's SSE text (`--sse`).

use toolnorm::model::wire::{SSE_DONE, Wire, WireEmitter, WireFrame, document_frames, sse_event};
use toolnorm::{NormalizedDocument, Update};
use wasm_bindgen::JsError;

/// The wire `--emit` names `name`.
pub(crate) fn wire(name: &str) -> Result<Wire, JsError> {
    Wire::parse(name).ok_or_else(|| {
        JsError::new(&format!(
            "no wire {name:?}: the wires are \"ai-sdk\" and \"ag-ui\""
        ))
    })
}

/// The frames handed out by one call: a JSON array of them, or their SSE text.
pub(crate) struct WireWriter {
    wire: Wire,
    sse: bool,
    text: String,
    first: bool,
}

impl WireWriter {
    pub(crate) fn new(wire: Wire, sse: bool) -> WireWriter {
        WireWriter {
            wire,
            sse,
            text: if sse { String::new() } else { "[".to_owned() },
            first: true,
        }
    }

    pub(crate) fn frames(&mut self, frames: &[WireFrame]) -> Result<(), JsError> {
        for f in frames {
            let json = serde_json::to_string(f)
                .map_err(|e| JsError::new(&format!("could not write JSON: {e}")))?;
            if self.sse {
                self.text.push_str(&sse_event(&json));
            } else {
                if !self.first {
                    self.text.push(',');
                }
                self.text.push_str(&json);
            }
            self.first = false;
        }
        Ok(())
    }

    /// The frames of the parts these updates changed.
    pub(crate) fn updates(
        &mut self,
        emitter: &mut WireEmitter,
        updates: impl IntoIterator<Item = Update>,
    ) -> Result<(), JsError> {
        for u in updates {
            if let Some(part) = u.part() {
                self.frames(&emitter.part(part))?;
            }
        }
        Ok(())
    }

    /// The frames that close the stream (and the AI SDK's `[DONE]` line in SSE text).
    pub(crate) fn close(&mut self, emitter: &mut WireEmitter) -> Result<(), JsError> {
        self.frames(&emitter.finish())?;
        self.done();
        Ok(())
    }

    fn done(&mut self) {
        if self.sse && self.wire == Wire::AiSdk {
            self.text.push_str(SSE_DONE);
        }
    }

    /// Every frame of a whole document, as `toolnorm normalize --emit` writes them.
    pub(crate) fn document(mut self, doc: &NormalizedDocument) -> Result<String, JsError> {
        self.frames(&document_frames(self.wire, doc))?;
        self.done();
        Ok(self.finish())
    }

    pub(crate) fn finish(mut self) -> String {
        if !self.sse {
            self.text.push(']');
        }
        self.text
    }
}
