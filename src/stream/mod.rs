//! The raw stream, the floor everything else stands on: who wrote it ([`Provider`], [`Dialect`]),
//! its numbered lines ([`RawLine`], [`Input`]) and which way each travelled ([`Direction`]). Pure
//! data with no knowledge of any dialect's content; the corpus, the normalizers, the rules and the
//! gate all import it from here.

#[cfg(feature = "cli")]
pub(crate) mod json_escape;
#[cfg(feature = "cli")]
pub(crate) mod json_text;
mod line;
mod provider;

/// For the readers of the command line's side (fixture records, the rules' scans).
#[cfg(feature = "cli")]
pub(crate) use line::utf8;
pub use line::{Direction, Input, RawLine, split_lines, trim_line};
pub(crate) use line::{find_byte, find_bytes};
pub use provider::{Dialect, Provider};

/// Tells a stream's dialect from its content, optionally only among one provider's dialects
/// (`Err` says why none was recognised). The dialect registry provides it; the corpus shells (recorder,
/// import) take it as a parameter so they never import the normalizers.
pub type Detector = fn(&Input<'_>, Option<Provider>) -> Result<Dialect, String>;
