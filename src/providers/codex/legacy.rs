//! The old EventMsg stream: `{"id":"<submission>","msg":{…}}` lines from `codex proto` and
//! pre-0.44 `exec --json` (which also printed a config object and a `{"prompt"}` line first), the
//! TUI session log's `{"kind":"codex_event","payload":{"id","msg"}}` and the mcp-server's
//! `codex/event` notifications. The events themselves are handled by `event_msg`. No timestamps.

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::providers::{LineNormalizer, NormalizeOptions, PartStore, line_text, parse_json};
use crate::stream::RawLine;

use super::event_msg::{self, Pending};
use super::tracker::Tracker;

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(borrow, default)]
    msg: Option<&'a RawValue>,
    #[serde(borrow, default)]
    payload: Option<Wrapped<'a>>,
    #[serde(borrow, default)]
    params: Option<Wrapped<'a>>,
    #[serde(borrow, default)]
    ts: Option<std::borrow::Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Wrapped<'a> {
    #[serde(borrow, default)]
    msg: Option<&'a RawValue>,
}

/// Normalizes the old `{"id","msg"}` EventMsg stream.
pub(crate) struct Normalizer {
    tracker: Tracker,
    pending: Pending,
}

/// The normalizer of one stream; its cwd comes from the first command's.
pub(crate) fn new(_: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(Normalizer {
        tracker: Tracker::default(),
        pending: Pending::default(),
    })
}

impl LineNormalizer for Normalizer {
    fn line(&mut self, line: &RawLine<'_>, store: &mut PartStore) {
        let Normalizer { tracker, pending } = self;
        let Some(text) = line_text(line, store) else {
            return;
        };
        let Some(l) = parse_json::<Line<'_>>(line, &text, store) else {
            return;
        };
        let msg = l
            .msg
            .or_else(|| l.payload.and_then(|p| p.msg))
            .or_else(|| l.params.and_then(|p| p.msg));
        // Config and prompt lines carry no event.
        let Some(msg) = msg else { return };
        event_msg::handle(store, tracker, pending, line.number, l.ts.as_deref(), msg);
    }

    fn finish(&mut self, store: &mut PartStore) {
        self.tracker.finish(store);
    }
}

/// Recognises an old `{"id","msg":{"type":…}}` event.
pub(crate) fn sniff(p: &crate::providers::Probe<'_>) -> bool {
    p.nested_has("msg", "type") && p.has("id")
}

#[cfg(test)]
mod tests {
    use crate::model::{ToolKind, ToolState};
    use crate::stream::Dialect;

    fn run(text: &str) -> crate::model::NormalizedDocument {
        crate::dialects::normalize_text(text, Dialect::CodexLegacy)
    }

    #[test]
    fn old_exec_end_without_begin_and_failing_exit() {
        let doc = run(concat!(
            r#"{"model":"codex-mini-latest"}"#,
            "\n",
            r#"{"prompt":"hi"}"#,
            "\n",
            r#"{"id":"1","msg":{"type":"exec_command_begin","call_id":"c1","command":["bash","-lc","rg foo"],"cwd":"/w"}}"#,
            "\n",
            r#"{"id":"1","msg":{"type":"exec_command_end","call_id":"c1","stdout":"","stderr":"rg: not found\n","exit_code":127}}"#,
            "\n",
            r#"{"id":"1","msg":{"type":"exec_command_end","call_id":"c2","stdout":"ok\n","stderr":"","exit_code":0}}"#,
            "\n",
            r#"{"id":"1","msg":{"type":"mcp_tool_call_end","call_id":"m","invocation":{"server":"s","tool":"list_projects","arguments":{}},"result":{"Ok":{"content":[{"type":"text","text":"bad"}],"isError":true}}}}"#,
            "\n",
            r#"{"id":"1","msg":{"type":"exec_command_begin","call_id":"c3","command":["bash","-lc","sleep 9"],"cwd":"/w"}}"#,
            "\n",
            r#"{"id":"1","msg":{"type":"turn_aborted","reason":"replaced"}}"#,
            "\n",
        ));
        let by = |id: &str| doc.parts.iter().find(|p| p.id == id).unwrap();
        assert_eq!(by("c1").title, "Running rg foo");
        assert_eq!(by("c1").state, ToolState::Error);
        assert_eq!(
            by("c1").error.as_ref().unwrap().details.as_ref().unwrap(),
            "rg: not found\n"
        );
        assert_eq!(by("c2").state, ToolState::Complete);
        assert_eq!(by("c2").kind, ToolKind::Bash);
        assert_eq!(by("m").state, ToolState::Error);
        assert_eq!(by("m").error.as_ref().unwrap().message, "bad");
        assert_eq!(
            by("c3").error.as_ref().unwrap().code.as_deref(),
            Some("aborted")
        );
        assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
    }

    #[test]
    fn base64_output_deltas_are_provisional_then_settled() {
        let begin = r#"{"id":"1","msg":{"type":"exec_command_begin","call_id":"c","command":["bash","-lc","make"],"cwd":"/w"}}"#;
        // "hello\n" and "world\n"
        let d1 = r#"{"id":"1","msg":{"type":"exec_command_output_delta","call_id":"c","stream":"stdout","chunk":"aGVsbG8K"}}"#;
        let d2 = r#"{"id":"1","msg":{"type":"exec_command_output_delta","call_id":"c","stream":"stdout","chunk":"d29ybGQK"}}"#;
        let open = run(&format!("{begin}\n{d1}\n{d2}\n"));
        assert_eq!(open.parts[0].state, ToolState::Running);
        assert_eq!(open.parts[0].output.as_ref().unwrap(), "hello\nworld\n");
        let end = r#"{"id":"1","msg":{"type":"exec_command_end","call_id":"c","exit_code":1}}"#;
        let done = run(&format!("{begin}\n{d1}\n{d2}\n{end}\n"));
        let e = done.parts[0].error.as_ref().unwrap();
        assert_eq!(e.details.as_ref().unwrap(), "hello\nworld\n");
        assert_eq!(e.code.as_deref(), Some("1"));
    }
}
