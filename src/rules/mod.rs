//! Contract rules as checks over a fixture's raw stream and its normalized output, independent of
//! the expected files. One file per rule; [`registry`] lists them all. Pure: no I/O.

use crate::model::{NormalizedDocument, PartEvent, ToolState};
use crate::stream::{Dialect, Input, Provider};

pub(crate) mod raw;
mod registry;
mod shape;
mod support;
mod wire;

mod acp_frame_incomplete;
mod bad_title_shape;
mod error_on_success;
mod events_incoherent;
mod failed_shown_complete;
mod guessed_name;
mod incoherent_kind;
mod input_not_preserved;
mod invented_timing;
mod legacy_view_inconsistent;
mod lost_call;
mod mcp_identity;
mod metadata_detail_lost;
mod output_on_error;
mod oversized_metadata;
mod raw_name_title;
mod running_after_turn_end;
mod state_regressed;
mod unstable_id;
mod wire_result_missing;
mod wire_sequence_rejected;
mod wire_state_misshown;

#[cfg(test)]
mod tests;

pub use raw::RawScan;

/// A wire an implementation answered in (the protocol's `wire`), whose frames the wire rules read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FrameWire {
    /// ACP `session/update` notifications.
    Acp,
    /// AI SDK UI message chunks.
    AiSdk,
    /// AG-UI events.
    AgUi,
}

impl FrameWire {
    pub fn as_str(self) -> &'static str {
        match self {
            FrameWire::Acp => "acp",
            FrameWire::AiSdk => "ai-sdk",
            FrameWire::AgUi => "ag-ui",
        }
    }
}

/// The frames an implementation answered in, as it sent them: the output judged (`doc`) is their
/// fold, and the wire rules (TN020-TN022) read the frames themselves.
#[derive(Clone, Copy, Debug)]
pub struct WireFrames<'a> {
    pub wire: FrameWire,
    pub frames: &'a [serde_json::Value],
}

/// What a rule is checked against: the raw stream with the rules' own scan of it, and the output
/// to judge, with its events indexed by part. Everything a rule reads comes through here.
pub struct RuleContext<'a> {
    pub provider: Provider,
    pub dialect: Dialect,
    /// The raw stream, line by line.
    pub input: &'a Input<'a>,
    /// The normalizer's actual output for it.
    pub doc: &'a NormalizedDocument,
    raw: &'a RawScan,
    events: support::EventIndex,
    /// The wire's frames, when the output judged came from a wire (else the wire rules are
    /// silent).
    wire: Option<wire::WireView>,
}

impl<'a> RuleContext<'a> {
    /// The context of one fixture: `raw` is the dialect's scan of `input` (its function in
    /// `raw`, e.g. `raw::codex::exec`), computed once for all rules.
    pub fn new(
        dialect: Dialect,
        input: &'a Input<'a>,
        doc: &'a NormalizedDocument,
        raw: &'a RawScan,
    ) -> Self {
        RuleContext {
            provider: dialect.provider(),
            dialect,
            input,
            doc,
            raw,
            events: support::EventIndex::of(doc),
            wire: None,
        }
    }

    /// The context of an output that came from a wire: `doc` is the fold of `frames`, which the
    /// wire rules read (each frame read once, here, for all of them).
    pub fn with_wire(mut self, frames: WireFrames<'_>) -> Self {
        self.wire = Some(wire::WireView::read(frames));
        self
    }

    /// The rules' reading of the wire's frames, when the output came from a wire.
    pub(crate) fn wire(&self) -> Option<&wire::WireView> {
        self.wire.as_ref()
    }

    /// The independent scan of the raw stream (see `raw`).
    pub(crate) fn raw(&self) -> &RawScan {
        self.raw
    }

    /// The events of one part, in stream order.
    pub(crate) fn events_of<'s>(&'s self, id: &str) -> impl Iterator<Item = &'s PartEvent> {
        self.events.events(self.doc, id)
    }

    /// The raw line where the part first appeared.
    pub(crate) fn first_event_line(&self, id: &str) -> Option<u32> {
        self.events_of(id).map(|e| e.line).next()
    }

    /// The raw line where the part first reached a state matching `pred` (where it got that
    /// value), falling back to its first line.
    pub(crate) fn line_of_state(&self, id: &str, pred: impl Fn(ToolState) -> bool) -> Option<u32> {
        self.events_of(id)
            .find(|e| pred(e.state))
            .map(|e| e.line)
            .or_else(|| self.first_event_line(id))
    }
}

/// One violation found by one rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// 1-based raw line the violation points to, when it has one.
    pub line: Option<u32>,
    pub part_id: Option<String>,
    pub message: String,
}

impl Finding {
    pub(crate) fn new(
        line: Option<u32>,
        part_id: Option<&str>,
        message: impl Into<String>,
    ) -> Self {
        Finding {
            line,
            part_id: part_id.map(str::to_owned),
            message: message.into(),
        }
    }
}

/// A conformance rule. Codes are stable and never reused.
pub trait Rule: Sync {
    /// Stable code, e.g. `TN001`.
    fn code(&self) -> &'static str;
    /// Names the violation, e.g. `UnstableId`.
    fn name(&self) -> &'static str;
    /// One line: what it checks.
    fn summary(&self) -> &'static str;
    /// The rule's full documentation (what it checks, why, an example), from its doc comment.
    fn explain(&self) -> &'static str;
    fn check(&self, cx: &RuleContext<'_>) -> Vec<Finding>;
}

/// Strip the one leading space rustdoc comments leave on every line (`/// text` is `" text"`).
fn dedent(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for line in raw.lines() {
        out.push_str(line.strip_prefix(' ').unwrap_or(line));
        out.push('\n');
    }
    out.trim().to_owned() + "\n"
}

/// Declares a rule: a unit struct whose doc comment is its `explain()` text, with its code and
/// summary, and the pure function that checks it. Capturing `#[doc]` attributes keeps the user
/// documentation in exactly one place, the rule's own doc comment.
macro_rules! declare_rule {
    (
        $(#[doc = $doc:expr])*
        pub(crate) struct $name:ident {
            code: $code:literal,
            summary: $summary:literal,
            check: $check:path $(,)?
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Clone, Copy, Debug, Default)]
        pub(crate) struct $name;

        impl $crate::rules::Rule for $name {
            fn code(&self) -> &'static str {
                $code
            }
            fn name(&self) -> &'static str {
                stringify!($name)
            }
            fn summary(&self) -> &'static str {
                $summary
            }
            fn explain(&self) -> &'static str {
                static DOC: ::std::sync::OnceLock<String> = ::std::sync::OnceLock::new();
                DOC.get_or_init(|| $crate::rules::dedent(concat!($($doc, "\n"),*)))
            }
            fn check(&self, cx: &$crate::rules::RuleContext<'_>) -> Vec<$crate::rules::Finding> {
                $check(cx)
            }
        }
    };
}
pub(crate) use declare_rule;

/// Every rule, in code order. Codes are never reused.
pub fn registry() -> &'static [&'static dyn Rule] {
    registry::RULES
}

/// Look a rule up by code (case-insensitive).
pub fn by_code(code: &str) -> Option<&'static dyn Rule> {
    registry()
        .iter()
        .copied()
        .find(|r| r.code().eq_ignore_ascii_case(code))
}

/// Run every rule on one fixture. Findings come back in registry order, each with its rule.
pub fn check_all(cx: &RuleContext<'_>) -> Vec<(&'static dyn Rule, Finding)> {
    let mut out = Vec::new();
    for rule in registry() {
        for f in rule.check(cx) {
            out.push((*rule, f));
        }
    }
    out
}

/// Render a finding the way reports and snapshots show it: `CODE Name line N part ID: message`.
pub fn render(rule: &dyn Rule, f: &Finding) -> String {
    let mut s = format!("{} {}", rule.code(), rule.name());
    if let Some(line) = f.line {
        s.push_str(&format!(" line {line}"));
    }
    if let Some(id) = &f.part_id {
        s.push_str(&format!(" part {id}"));
    }
    s.push_str(": ");
    s.push_str(&f.message);
    s
}
