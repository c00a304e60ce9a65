//! The OpenHands CLI (`openhands` on PyPI, 1.x on the OpenHands SDK): the events
//! `openhands --headless --json -t TASK` prints (`json`: `json.dumps(event.model_dump())`, one
//! event a line among the CLI's console lines) and the conversation it saves
//! (`events`: `~/.openhands/conversations/<id>/events/event-NNNNN-<event id>.json`, one compact
//! event per file, which `toolnorm import` joins into one event a line). Both carry the same
//! events (`tracker`), named and titled through `tools`; they differ in their formatting only
//! (the saved events leave out `null` fields and write no spaces), which is what tells them apart.

pub(crate) mod events;
pub(crate) mod json;
pub(crate) mod tools;
mod tracker;

use serde_json::value::RawValue;

use crate::providers::{LineNormalizer, PartStore, Probe, line_text, report_bad_json};
use crate::stream::RawLine;

/// The classes of the events an OpenHands conversation holds (`kind`).
const EVENT_KINDS: &[&str] = &[
    "ActionEvent",
    "ObservationEvent",
    "MessageEvent",
    "AgentErrorEvent",
    "UserRejectObservation",
    "SystemPromptEvent",
    "ConversationStateUpdateEvent",
    "ConversationErrorEvent",
    "PauseEvent",
    "Condensation",
    "CondensationRequest",
    "CondensationSummaryEvent",
    "HookExecutionEvent",
    "TokenEvent",
    "LLMCompletionLogEvent",
    "StreamingDeltaEvent",
    "ACPToolCallEvent",
];

/// Whether the line is an OpenHands event: its `kind` one of the event classes, with the `id`,
/// `timestamp` and `source` every event has.
fn is_event(p: &Probe<'_>) -> bool {
    p.has("id")
        && p.has("timestamp")
        && p.has("source")
        && p.str("kind")
            .is_some_and(|k| EVENT_KINDS.contains(&k.as_ref()))
}

/// How the line was written, when it shows: `Some(true)` for Python's `json.dumps` (a space
/// after each `:`, `null` fields kept: the `--json` lines), `Some(false)` for pydantic's compact
/// JSON without `null`s (the saved events), `None` when no value shows either (no nested object,
/// no `null`).
fn dumped_by_python(p: &Probe<'_>) -> Option<bool> {
    let mut compact = false;
    for key in p.keys() {
        let Some(raw) = p.raw(key) else { continue };
        if raw.get() == "null" {
            return Some(true);
        }
        match spaced_after_first_key(raw) {
            Some(true) => return Some(true),
            Some(false) => compact = true,
            None => {}
        }
    }
    compact.then_some(false)
}

/// For an object (or an array that starts with one): whether its first key is followed by `: `.
fn spaced_after_first_key(raw: &RawValue) -> Option<bool> {
    let text = raw.get().trim_start_matches('[').trim_start();
    let rest = text.strip_prefix("{\"")?;
    let mut escaped = false;
    for (i, c) in rest.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => {
                let after = rest[i + 1..].strip_prefix(':')?;
                return Some(after.starts_with(' '));
            }
            _ => {}
        }
    }
    None
}

/// The normalizer both dialects share: each line an event (`console`: the `--json` output, where
/// lines that are not JSON are the CLI's own console text).
struct Normalizer {
    tracker: tracker::Tracker,
    console: bool,
}

impl LineNormalizer for Normalizer {
    fn line(&mut self, line: &RawLine<'_>, store: &mut PartStore) {
        let Some(text) = line_text(line, store) else {
            return;
        };
        let trimmed = text.trim_start();
        // A blank line says nothing (a loaded stream keeps none; the same text piped in does).
        if trimmed.is_empty() {
            return;
        }
        if self.console && !trimmed.starts_with('{') {
            store.info(
                line.number,
                "console text of the CLI, not an event; skipped",
            );
            return;
        }
        match serde_json::from_str::<tracker::Event>(&text) {
            Ok(ev) => self.tracker.event(line.number, ev, store),
            Err(err) if err.is_data() => store.warn(
                line.number,
                format!("JSON, but not an OpenHands event: {err}"),
            ),
            Err(err) => report_bad_json(line, &err, store),
        }
    }

    fn finish(&mut self, store: &mut PartStore) {
        self.tracker.finish(store);
    }
}

#[cfg(test)]
mod tests {
    use crate::dialects::{detect, normalize_text};
    use crate::model::{DiagnosticLevel, ToolKind, ToolState};
    use crate::stream::{Dialect, Input};

    const ACTION: &str = r#"{"id": "a1", "timestamp": "2026-01-01T00:00:00.000000", "source": "agent", "thought": [], "reasoning_content": null, "action": {"command": "ls", "is_input": false, "timeout": null, "reset": false, "kind": "TerminalAction"}, "tool_name": "terminal", "tool_call_id": "c1", "tool_call": {"id": "c1", "name": "terminal", "arguments": "{\"command\": \"ls\"}", "origin": "completion"}, "kind": "ActionEvent"}"#;
    const SAVED_PROMPT: &str = r#"{"id":"s","timestamp":"2026-01-01T00:00:00.000000","source":"agent","system_prompt":{"type":"text","text":"You are OpenHands agent"},"tools":[],"dynamic_context":{"type":"text","text":"Your current working directory is: /w\nUser operating system: Linux"},"kind":"SystemPromptEvent"}"#;
    const SAVED_ACTION: &str = r#"{"id":"a1","timestamp":"2026-01-01T00:00:00.000000","source":"agent","thought":[],"action":{"command":"view","path":"/w/src/a.rs","kind":"FileEditorAction"},"tool_name":"file_editor","tool_call_id":"c1","tool_call":{"id":"c1","name":"file_editor","arguments":"{}"},"kind":"ActionEvent"}"#;
    /// No nested object and no `null`: either dialect's.
    const AGENT_ERROR: &str = r#"{"id":"e1","timestamp":"2026-01-01T00:00:01.000000","source":"agent","tool_name":"terminal","tool_call_id":"c1","error":"Error validating tool 'terminal': Failed to provide security_risk field","kind":"AgentErrorEvent"}"#;

    #[test]
    fn the_two_formats_tell_themselves_apart() {
        let json = format!("Agent is working\n{ACTION}\n{AGENT_ERROR}\n");
        assert_eq!(
            detect(&Input::from_bytes(json.as_bytes()), None),
            Ok(Dialect::OpenhandsJson)
        );
        let saved = format!("{SAVED_PROMPT}\n{AGENT_ERROR}\n");
        assert_eq!(
            detect(&Input::from_bytes(saved.as_bytes()), None),
            Ok(Dialect::OpenhandsEvents)
        );
        // An AgentErrorEvent alone shows neither formatting: both sniffers take it.
        let probe = crate::providers::Probe::parse(AGENT_ERROR).unwrap();
        assert!(super::json::sniff(&probe) && super::events::sniff(&probe));
        let probe = crate::providers::Probe::parse(ACTION).unwrap();
        assert!(super::json::sniff(&probe) && !super::events::sniff(&probe));
    }

    #[test]
    fn a_saved_conversation_says_its_cwd_and_agent_errors_fail_calls() {
        let doc = normalize_text(
            &format!("{SAVED_PROMPT}\n{SAVED_ACTION}\n{AGENT_ERROR}\n"),
            Dialect::OpenhandsEvents,
        );
        let p = &doc.parts[0];
        assert_eq!(
            (p.kind, p.title.as_str()),
            (ToolKind::FileRead, "Reading src/a.rs")
        );
        assert_eq!(p.state, ToolState::Error);
        let e = p.error.as_ref().unwrap();
        assert_eq!(e.code.as_deref(), Some("invalid_input"));
        assert!(e.message.starts_with("Error validating tool 'terminal'"));
    }

    #[test]
    fn a_conversation_error_ends_what_still_runs_and_rejections_fail() {
        let failed = r#"{"id":"x","timestamp":"t","source":"environment","code":"LLMError","detail":"the model went away","kind":"ConversationErrorEvent"}"#;
        let doc = normalize_text(&format!("{ACTION}\n{failed}\n"), Dialect::OpenhandsJson);
        let p = &doc.parts[0];
        assert_eq!(p.state, ToolState::Error);
        let e = p.error.as_ref().unwrap();
        assert_eq!(e.code.as_deref(), Some("LLMError"));
        assert!(e.message.contains("the model went away"), "{}", e.message);
        let reject = r#"{"id":"r","timestamp":"t","source":"user","tool_name":"terminal","tool_call_id":"c1","rejection_reason":"Not now","rejection_source":"user","action_id":"a1","kind":"UserRejectObservation"}"#;
        let doc = normalize_text(&format!("{ACTION}\n{reject}\n"), Dialect::OpenhandsJson);
        let e = doc.parts[0].error.as_ref().unwrap();
        assert_eq!(
            (e.message.as_str(), e.code.as_deref()),
            ("Not now", Some("declined"))
        );
    }

    #[test]
    fn broken_lines_are_named_and_console_text_is_not_a_warning() {
        let doc = normalize_text(
            &format!("Agent is working\n{{\"id\": \"a\", \"kind\n{ACTION}\n[1, 2]\n"),
            Dialect::OpenhandsJson,
        );
        assert_eq!(doc.parts.len(), 1);
        let at = |line: u32| doc.diagnostics.iter().find(|d| d.line == line).unwrap();
        assert_eq!(at(1).level, DiagnosticLevel::Info);
        assert_eq!(at(2).level, DiagnosticLevel::Warning);
        assert!(at(2).message.starts_with("not JSON"), "{}", at(2).message);
        // A saved conversation has no console: text there is a broken line.
        let doc = normalize_text("not an event\n", Dialect::OpenhandsEvents);
        assert_eq!(doc.diagnostics[0].level, DiagnosticLevel::Warning);
    }
}
