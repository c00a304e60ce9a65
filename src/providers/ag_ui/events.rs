//! The `ag-ui` dialect: AG-UI 1.0 events, one per line, as JSON Lines or as SSE `data:` lines. A
//! call is `TOOL_CALL_START` (`toolCallId`, `toolCallName`), `TOOL_CALL_ARGS` (its input as JSON
//! text), `TOOL_CALL_END`, `TOOL_CALL_RESULT` (`content`); `metadata.toolnorm` on them, and a
//! `CUSTOM` event `toolnorm.tool_call`, carry the contract's fields AG-UI has none for. The run,
//! text, reasoning, state and subagent events say nothing more of tools.

use crate::model::wire::ag_ui::AgUiFold;
use crate::providers::wire_fold::WireNormalizer;
use crate::providers::{LineNormalizer, NormalizeOptions, Probe};

/// An event of AG-UI's own types (its `EventType` names, upper snake case).
pub(crate) fn sniff(p: &Probe<'_>) -> bool {
    let ty = p.ty();
    match ty.as_ref() {
        "RUN_STARTED" | "RUN_FINISHED" => p.has("runId") && p.has("threadId"),
        "TOOL_CALL_START" | "TOOL_CALL_ARGS" | "TOOL_CALL_END" | "TOOL_CALL_RESULT" => {
            p.has("toolCallId")
        }
        "TEXT_MESSAGE_START" | "TEXT_MESSAGE_CONTENT" | "TEXT_MESSAGE_END" => p.has("messageId"),
        _ => false,
    }
}

/// The per-line normalizer of recorded AG-UI events.
pub(crate) fn new(_: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(WireNormalizer::<AgUiFold>::default())
}
