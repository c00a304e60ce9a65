//! Kilo CLI (`@kilocode/cli`), built on OpenCode: `kilo run --format json` (`run`), the `kilo serve`
//! event stream (`events`) and `kilo export` (`export`) are OpenCode's three formats, byte for
//! byte, so each dialect is OpenCode's normalizer with Kilo's own tools (`tools::KILO`) known
//! before OpenCode's table and before its `<server>_<tool>` MCP split. From content alone a Kilo
//! stream reads as OpenCode (OpenCode's rows come first in the registry); a fixture's provider
//! folder and header, or `--provider kilo`, tell it apart.

pub(crate) mod events;
pub(crate) mod export;
pub(crate) mod run;
pub(crate) mod tools;
