//! An engine's AI SDK UI message stream (the `ai` package's chunks), read back into parts: the
//! chunks are `crate::model::wire::ai_sdk`'s, folded as `readUIMessageStream` builds its tool
//! parts (`toolMetadata` read back into kind, timing, metadata and error).

pub(crate) mod stream;
