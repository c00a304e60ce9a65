//! The wire rules' own reading of the frames an implementation answered in (TN020-TN022): each
//! frame read against the wire's schema (the model's frame types: `uiMessageChunkSchema`'s chunks,
//! `@ag-ui/core`'s events, the ACP schema crate's `session/update`), and reduced to what a
//! consumer of the wire does with it: which call it is about, what step of the call's life it is,
//! and which legacy state the consumer shows the call in after it, from the wire's own fields.
//!
//! This reads the frames; it does not fold them into parts (the verify shell does, with the
//! model's folds, and the rules judge that fold as `cx.doc`), so a fault of the fold cannot hide
//! here. The extension slots (`toolMetadata`, `metadata.toolnorm`, `_meta.toolnorm`) are only read
//! for what the rules compare: whether the slot says the call failed, and AG-UI's `state`.

use serde_json::Value;

use super::{FrameWire, WireFrames};
use crate::model::LegacyState;
use crate::model::wire::{EXT_KEY, ag_ui, ai_sdk};

/// What a frame does to its call, as the wire's consumer reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// The message or run begins (`start`, `RUN_STARTED`).
    RunStart,
    /// The message or run ends (`finish`, `RUN_FINISHED`, `RUN_ERROR`).
    RunEnd,
    /// A call appears (`tool-input-start`, `TOOL_CALL_START`, ACP `tool_call`).
    Open,
    /// A piece of its input (`tool-input-delta`, `TOOL_CALL_ARGS`).
    Delta,
    /// Its input is complete (`tool-input-available`, `TOOL_CALL_END`).
    InputDone,
    /// The agent asks permission (`tool-approval-request`).
    Approval,
    /// Its result (`tool-output-*`, `tool-input-error`, `TOOL_CALL_RESULT`; an ACP status
    /// `completed` / `failed`).
    Result,
    /// Another change of a known call (ACP `tool_call_update`, AG-UI's `toolnorm.tool_call`).
    Update,
    /// Says nothing of tool calls (text, reasoning, steps).
    Other,
}

/// One frame as the rules read it.
#[derive(Clone, Debug)]
pub(crate) struct Frame {
    /// 0-based position in the answer.
    pub index: usize,
    /// The frame's `type` (`sessionUpdate` for ACP).
    pub ty: String,
    pub call: Option<String>,
    pub step: Step,
    /// The legacy state the consumer shows the call in after this frame, from the wire's own
    /// fields (`None`: unchanged). A preliminary output is still `calling`.
    pub shows: Option<LegacyState>,
    /// The frame's extension slot says the call failed (an `error` in it, or AG-UI's
    /// `state: "error"`).
    pub ext_error: bool,
    /// AG-UI: the `state` the frame's `metadata.toolnorm` gives the call.
    pub ext_state: Option<String>,
}

/// The frames of one answer, read.
#[derive(Clone, Debug)]
pub(crate) struct WireView {
    pub wire: FrameWire,
    pub frames: Vec<Frame>,
    /// Frames the wire's schema rejects: (0-based index, why).
    pub invalid: Vec<(usize, String)>,
}

impl WireView {
    pub(crate) fn read(w: WireFrames<'_>) -> WireView {
        let mut frames = Vec::with_capacity(w.frames.len());
        let mut invalid = Vec::new();
        for (index, value) in w.frames.iter().enumerate() {
            let read = match w.wire {
                FrameWire::AiSdk => ai_sdk_frame(value),
                FrameWire::AgUi => ag_ui_frame(value),
                FrameWire::Acp => acp_frame(value),
            };
            match read {
                Ok(mut f) => {
                    f.index = index;
                    frames.push(f);
                }
                Err(e) => invalid.push((index, e)),
            }
        }
        WireView {
            wire: w.wire,
            frames,
            invalid,
        }
    }

    /// The ids of the calls the frames name, in order of first mention.
    pub(crate) fn calls(&self) -> Vec<&str> {
        let mut seen = super::support::HashSet::default();
        self.frames
            .iter()
            .filter_map(|f| f.call.as_deref())
            .filter(|id| seen.insert(*id))
            .collect()
    }

    /// The frames about one call, in order.
    pub(crate) fn of<'s>(&'s self, id: &'s str) -> impl Iterator<Item = &'s Frame> + 's {
        self.frames
            .iter()
            .filter(move |f| f.call.as_deref() == Some(id))
    }
}

fn frame(ty: &str, call: Option<&str>, step: Step) -> Frame {
    Frame {
        index: 0,
        ty: ty.to_owned(),
        call: call.map(str::to_owned),
        step,
        shows: None,
        ext_error: false,
        ext_state: None,
    }
}

fn ai_sdk_frame(value: &Value) -> Result<Frame, String> {
    use ai_sdk::UiChunk as C;
    let Some(chunk) = ai_sdk::read_chunk(value)? else {
        let ty = value.get("type").and_then(Value::as_str).unwrap_or("");
        return Ok(frame(ty, None, Step::Other));
    };
    let ty = chunk.type_name();
    let call = chunk.tool_call_id();
    let (step, shows) = match &chunk {
        C::Start { .. } => (Step::RunStart, None),
        C::Finish { .. } => (Step::RunEnd, None),
        C::ToolInputStart { .. } => (Step::Open, Some(LegacyState::Calling)),
        C::ToolInputDelta { .. } => (Step::Delta, None),
        C::ToolInputAvailable { .. } => (Step::InputDone, Some(LegacyState::Calling)),
        C::ToolApprovalRequest { .. } => (Step::Approval, None),
        C::ToolOutputAvailable { preliminary, .. } => (
            Step::Result,
            Some(if *preliminary == Some(true) {
                LegacyState::Calling
            } else {
                LegacyState::OutputAvailable
            }),
        ),
        C::ToolInputError { .. } | C::ToolOutputError { .. } | C::ToolOutputDenied { .. } => {
            (Step::Result, Some(LegacyState::OutputError))
        }
    };
    let meta = match &chunk {
        C::ToolInputStart { tool_metadata, .. }
        | C::ToolInputAvailable { tool_metadata, .. }
        | C::ToolInputError { tool_metadata, .. }
        | C::ToolOutputAvailable { tool_metadata, .. }
        | C::ToolOutputError { tool_metadata, .. } => tool_metadata.as_ref(),
        _ => None,
    };
    let mut f = frame(ty, call, step);
    f.shows = shows;
    f.ext_error = meta.is_some_and(|m| m.get("error").is_some_and(|e| !e.is_null()));
    Ok(f)
}

fn ag_ui_frame(value: &Value) -> Result<Frame, String> {
    use ag_ui::AgUiEvent as E;
    let Some(event) = ag_ui::read_event(value)? else {
        let ty = value.get("type").and_then(Value::as_str).unwrap_or("");
        return Ok(frame(ty, None, Step::Other));
    };
    let ty = event.type_name();
    let call = event.tool_call_id();
    let ext = value
        .get("metadata")
        .and_then(|m| m.get(EXT_KEY))
        .and_then(Value::as_object);
    let ext_state = ext
        .and_then(|e| e.get("state"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let ext_error = ext_state.as_deref() == Some("error")
        || ext.is_some_and(|e| e.get("error").is_some_and(|v| !v.is_null()));
    let (step, shows) = match &event {
        E::RunStarted { .. } => (Step::RunStart, None),
        E::RunFinished { .. } | E::RunError { .. } => (Step::RunEnd, None),
        E::ToolCallStart { .. } => (Step::Open, Some(LegacyState::Calling)),
        E::ToolCallArgs { .. } => (Step::Delta, None),
        E::ToolCallEnd { .. } => (Step::InputDone, None),
        // AG-UI has no field for a failure: a result is the call's output unless the documented
        // slot says it failed.
        E::ToolCallResult { .. } => (
            Step::Result,
            Some(if ext_state.as_deref() == Some("error") {
                LegacyState::OutputError
            } else {
                LegacyState::OutputAvailable
            }),
        ),
        E::Custom { .. } if call.is_some() => (
            Step::Update,
            (ext_state.as_deref() == Some("error")).then_some(LegacyState::OutputError),
        ),
        _ => (Step::Other, None),
    };
    let mut f = frame(ty, call, step);
    f.shows = shows;
    f.ext_error = ext_error;
    f.ext_state = ext_state;
    Ok(f)
}

fn acp_frame(value: &Value) -> Result<Frame, String> {
    use agent_client_protocol_schema::v1 as acp;
    let parsed: crate::model::acp::AcpUpdateFrame = serde_json::from_value(value.clone())
        .map_err(|e| format!("not a `session/update` notification the ACP schema accepts: {e}"))?;
    let n = parsed.inner();
    if &*n.method != crate::model::acp::SESSION_UPDATE {
        return Err(format!("method `{}`, not `session/update`", n.method));
    }
    let Some(params) = &n.params else {
        return Err("a `session/update` without `params`".to_owned());
    };
    let shows = |status: Option<acp::ToolCallStatus>| {
        status.map(|s| match s {
            acp::ToolCallStatus::Completed => LegacyState::OutputAvailable,
            acp::ToolCallStatus::Failed => LegacyState::OutputError,
            _ => LegacyState::Calling,
        })
    };
    let slot_error = |meta: Option<&acp::Meta>| {
        meta.and_then(|m| m.get(crate::model::acp::META_KEY))
            .and_then(|t| t.get("error"))
            .is_some_and(|e| !e.is_null())
    };
    Ok(match &params.update {
        acp::SessionUpdate::ToolCall(call) => {
            let id = call.tool_call_id.0.to_string();
            let shown = shows(Some(call.status));
            let mut f = frame("tool_call", Some(&id), Step::Open);
            if shown != Some(LegacyState::Calling) {
                f.step = Step::Result;
            }
            f.shows = shown;
            f.ext_error = slot_error(call.meta.as_ref());
            f
        }
        acp::SessionUpdate::ToolCallUpdate(u) => {
            let id = u.tool_call_id.0.to_string();
            let shown = shows(u.fields.status);
            let step = match shown {
                Some(LegacyState::OutputAvailable | LegacyState::OutputError) => Step::Result,
                _ => Step::Update,
            };
            let mut f = frame("tool_call_update", Some(&id), step);
            f.shows = shown;
            f.ext_error = slot_error(u.meta.as_ref());
            f
        }
        _ => frame("session/update", None, Step::Other),
    })
}

/// A legacy state as its wire name (`calling`, `output-available`, `output-error`).
pub(crate) fn legacy_name(s: LegacyState) -> &'static str {
    match s {
        LegacyState::Calling => "calling",
        LegacyState::OutputAvailable => "output-available",
        LegacyState::OutputError => "output-error",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn frames_are_read_per_wire_and_bad_ones_named() {
        let frames = [
            json!({"type":"start"}),
            json!({"type":"tool-input-start","toolCallId":"a","toolName":"Bash"}),
            json!({"type":"tool-output-available","toolCallId":"a","output":1,"preliminary":true}),
            json!({"type":"tool-output-available","toolCallId":"a","output":1,"toolMetadata":{"kind":"bash","error":{"message":"x"}}}),
            json!({"type":"text-delta","id":"t","delta":"hi"}),
            json!({"type":"nonsense"}),
        ];
        let v = WireView::read(WireFrames {
            wire: FrameWire::AiSdk,
            frames: &frames,
        });
        let steps: Vec<Step> = v.frames.iter().map(|f| f.step).collect();
        assert_eq!(
            steps,
            [
                Step::RunStart,
                Step::Open,
                Step::Result,
                Step::Result,
                Step::Other
            ]
        );
        assert_eq!(v.frames[2].shows, Some(LegacyState::Calling));
        assert_eq!(v.frames[3].shows, Some(LegacyState::OutputAvailable));
        assert!(v.frames[3].ext_error && !v.frames[2].ext_error);
        assert_eq!(v.invalid.len(), 1);
        assert_eq!(v.invalid[0].0, 5);
        assert_eq!(v.calls(), ["a"]);

        let acp = [
            json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"t","title":"Run","status":"pending"}}}),
            json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"t","status":"failed"}}}),
            json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s"}}),
        ];
        let v = WireView::read(WireFrames {
            wire: FrameWire::Acp,
            frames: &acp,
        });
        assert_eq!(v.frames[0].step, Step::Open);
        assert_eq!(v.frames[1].shows, Some(LegacyState::OutputError));
        assert_eq!(v.invalid.len(), 1, "{:?}", v.invalid);

        let ag = [
            json!({"type":"RUN_STARTED","threadId":"t","runId":"r"}),
            json!({"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"c","content":"boom","metadata":{"toolnorm":{"state":"error"}}}),
        ];
        let v = WireView::read(WireFrames {
            wire: FrameWire::AgUi,
            frames: &ag,
        });
        assert_eq!(v.frames[1].shows, Some(LegacyState::OutputError));
        assert_eq!(v.frames[1].ext_state.as_deref(), Some("error"));
    }
}
