//! An engine's AG-UI events, read back into parts: the events are `crate::model::wire::ag_ui`'s,
//! folded as a client builds its tool calls (`metadata.toolnorm` read back into what AG-UI has no
//! field for).

pub(crate) mod events;
