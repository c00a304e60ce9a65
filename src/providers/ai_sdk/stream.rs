//! The `ai-sdk` dialect: a UI message stream, one chunk per line, as JSON Lines or as the SSE
//! `data:` lines a server sends (`data: [DONE]` ends it). Tool chunks (`tool-input-start`,
//! `tool-input-delta`, `tool-input-available`, `tool-approval-request`, `tool-output-available`,
//! `tool-output-error`, `tool-output-denied`, `tool-input-error`) name their call by `toolCallId`;
//! the other chunk types (text, reasoning, steps, `start`, `finish`) say nothing of tools.

use crate::model::wire::ai_sdk::AiSdkFold;
use crate::providers::wire_fold::WireNormalizer;
use crate::providers::{LineNormalizer, NormalizeOptions, Probe};

/// The chunk types only the AI SDK writes (kebab-case `tool-…`, `text-…`, `reasoning-…`, steps).
const TYPES: [&str; 14] = [
    "tool-input-start",
    "tool-input-delta",
    "tool-input-available",
    "tool-input-error",
    "tool-approval-request",
    "tool-output-available",
    "tool-output-error",
    "tool-output-denied",
    "text-start",
    "text-delta",
    "text-end",
    "reasoning-start",
    "start-step",
    "finish-step",
];

/// A chunk of one of the AI SDK's own types.
pub(crate) fn sniff(p: &Probe<'_>) -> bool {
    TYPES.contains(&p.ty().as_ref())
}

/// The per-line normalizer of a recorded UI message stream.
pub(crate) fn new(_: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(WireNormalizer::<AiSdkFold>::default())
}
