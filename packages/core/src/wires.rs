//! The UI wires (`toolnorm normalize --emit ai-sdk | ag-ui`) behind the facade: the core's own
//! emitters (`toolnorm::model::wire`), fed a part snapshot at a time, their frames written as a
//! JSON array (each frame what `--emit` prints on a line) or as the wire's SSE text (`--sse`).

use serde::Serialize;
use toolnorm::model::wire::{SSE_DONE, ag_ui, ai_sdk, sse_event};
use toolnorm::{NormalizedDocument, NormalizedToolPart, Update};
use wasm_bindgen::JsError;

/// A wire's emitter.
pub(crate) enum Wire {
    AiSdk(ai_sdk::AiSdkEmitter),
    AgUi(ag_ui::AgUiEmitter),
}

impl Wire {
    /// The wire as `--emit` names it.
    pub(crate) fn new(name: &str) -> Result<Wire, JsError> {
        match name {
            "ai-sdk" => Ok(Wire::AiSdk(ai_sdk::AiSdkEmitter::new())),
            "ag-ui" => Ok(Wire::AgUi(ag_ui::AgUiEmitter::new())),
            other => Err(JsError::new(&format!(
                "no wire {other:?}: the wires are \"ai-sdk\" and \"ag-ui\""
            ))),
        }
    }

    fn part(&mut self, part: &NormalizedToolPart, out: &mut WireWriter) -> Result<(), JsError> {
        match self {
            Wire::AiSdk(e) => out.frames(&e.part(part)),
            Wire::AgUi(e) => out.frames(&e.part(part)),
        }
    }

    /// The frames that end the stream: the emitter's last ones (and the AI SDK's `[DONE]` line
    /// in SSE text).
    pub(crate) fn finish(&mut self, out: &mut WireWriter) -> Result<(), JsError> {
        match self {
            Wire::AiSdk(e) => out.frames(&e.finish())?,
            Wire::AgUi(e) => out.frames(&e.finish())?,
        }
        self.close(out);
        Ok(())
    }

    /// The AI SDK's SSE stream ends with its `[DONE]` line; AG-UI's with its last event.
    fn close(&self, out: &mut WireWriter) {
        if out.sse && matches!(self, Wire::AiSdk(_)) {
            out.text.push_str(SSE_DONE);
        }
    }

    /// The frames of the parts these updates changed.
    pub(crate) fn updates(
        &mut self,
        updates: impl IntoIterator<Item = Update>,
        out: &mut WireWriter,
    ) -> Result<(), JsError> {
        for u in updates {
            if let Update::Part { part, .. } | Update::Revised(part) = &u {
                self.part(part, out)?;
            }
        }
        Ok(())
    }

    /// Every frame of a whole document, as `toolnorm normalize --emit` writes them (the core's
    /// document emitters; this emitter's own state is not used).
    pub(crate) fn document(&self, doc: &NormalizedDocument, sse: bool) -> Result<String, JsError> {
        let mut out = WireWriter::new(sse);
        match self {
            Wire::AiSdk(_) => out.frames(&ai_sdk::document_chunks(doc))?,
            Wire::AgUi(_) => out.frames(&ag_ui::document_events(doc))?,
        }
        self.close(&mut out);
        Ok(out.finish())
    }
}

/// The frames handed out by one call: a JSON array of them, or their SSE text.
pub(crate) struct WireWriter {
    sse: bool,
    text: String,
    first: bool,
}

impl WireWriter {
    pub(crate) fn new(sse: bool) -> WireWriter {
        WireWriter {
            sse,
            text: if sse { String::new() } else { "[".to_owned() },
            first: true,
        }
    }

    fn frames<T: Serialize>(&mut self, frames: &[T]) -> Result<(), JsError> {
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

    pub(crate) fn finish(mut self) -> String {
        if !self.sse {
            self.text.push(']');
        }
        self.text
    }
}
