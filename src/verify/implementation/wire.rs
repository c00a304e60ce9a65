//! An answer in a wire (protocol 2), folded back into parts with the model's folds: each frame
//! read against the wire's schema (`ai_sdk::read_chunk`, `ag_ui::read_event`, the ACP schema
//! crate's `session/update`), then folded as the wire's consumer would. A frame the schema or the
//! fold rejects is left out here; the wire rules (TN020-TN022) read the frames themselves and
//! report it, so the fixture fails with the frame named.

use serde_json::Value;

use crate::model::NormalizedToolPart;
use crate::model::wire::{ag_ui, ai_sdk};
use crate::protocol::AnswerWire;
use crate::rules::FrameWire;

/// The parts `frames` fold into on `wire`.
pub fn fold(wire: AnswerWire, frames: &[Value]) -> Vec<NormalizedToolPart> {
    match wire {
        AnswerWire::AiSdk => {
            let mut fold = ai_sdk::AiSdkFold::new();
            for chunk in frames
                .iter()
                .filter_map(|v| ai_sdk::read_chunk(v).ok().flatten())
            {
                let _ = fold.chunk(&chunk);
            }
            fold.into_parts()
        }
        AnswerWire::AgUi => {
            let mut fold = ag_ui::AgUiFold::new();
            for event in frames
                .iter()
                .filter_map(|v| ag_ui::read_event(v).ok().flatten())
            {
                let _ = fold.event(&event);
            }
            fold.into_parts()
        }
        AnswerWire::Acp => {
            let mut fold = crate::model::acp::Fold::new();
            for frame in frames {
                if let Ok(f) =
                    serde_json::from_value::<crate::model::acp::AcpUpdateFrame>(frame.clone())
                {
                    let _ = fold.frame(&f);
                }
            }
            fold.into_parts()
        }
    }
}

/// The rules' name of a protocol wire.
pub fn rule_wire(wire: AnswerWire) -> FrameWire {
    match wire {
        AnswerWire::Acp => FrameWire::Acp,
        AnswerWire::AiSdk => FrameWire::AiSdk,
        AnswerWire::AgUi => FrameWire::AgUi,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn rejected_frames_are_left_out_and_the_rest_folds() {
        let frames = [
            json!({"type":"tool-input-delta","toolCallId":"ghost","inputTextDelta":"{"}),
            json!({"type":"tool-input-available","toolCallId":"a","toolName":"Bash","input":{"command":"ls"},"title":"Running ls"}),
            json!({"type":"bogus"}),
            json!({"type":"tool-output-available","toolCallId":"a","output":"x"}),
        ];
        let parts = fold(AnswerWire::AiSdk, &frames);
        assert_eq!(parts.len(), 1);
        assert_eq!(parts[0].title, "Running ls");
        assert_eq!(parts[0].output, Some(json!("x")));
        assert!(fold(AnswerWire::Acp, &[json!({"nope":1})]).is_empty());
        assert!(fold(AnswerWire::AgUi, &[json!([])]).is_empty());
    }
}
