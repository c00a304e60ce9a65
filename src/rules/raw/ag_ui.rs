//! The rules' scan of AG-UI events: the calls of `TOOL_CALL_START` by `toolCallId`, with their
//! `toolCallName`; a call's `metadata.toolnorm.state` of `error` (the slot toolnorm's wire puts
//! a failure in: AG-UI has no error field) as the failure marker; `RUN_FINISHED` and `RUN_ERROR`
//! as the end of the turn.

use super::{Markers, RawScan, TurnEnd, for_marked_lines, str_of};
use crate::stream::Input;

static MARKERS: Markers = Markers::new(&["toolCallId", "RUN_FINISHED", "RUN_ERROR"]);

/// AG-UI events, JSON Lines or SSE `data:` lines.
pub(crate) fn events(input: &Input<'_>) -> RawScan {
    let mut s = RawScan::default();
    for_marked_lines(input, &MARKERS, |line, v| {
        let ty = str_of(&v, "type");
        if matches!(ty, Some("RUN_FINISHED" | "RUN_ERROR")) {
            s.turn_ends.push(TurnEnd { line, scope: None });
            return;
        }
        let id = str_of(&v, "toolCallId").or_else(|| {
            (ty == Some("CUSTOM"))
                .then(|| v.get("value").and_then(|x| str_of(x, "toolCallId")))
                .flatten()
        });
        let Some(id) = id else {
            return;
        };
        if ty == Some("TOOL_CALL_START") {
            let call = s.call(id, line);
            if call.name.is_none() {
                call.name = str_of(&v, "toolCallName").map(str::to_owned);
            }
        }
        let failed = v
            .get("metadata")
            .and_then(|m| m.get("toolnorm"))
            .and_then(|t| t.get("state"))
            .and_then(|st| st.as_str())
            == Some("error");
        if failed {
            s.fail_known(id, line);
        }
    });
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_failures_and_the_turn_end() {
        let text = concat!(
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
            "\n",
            r#"data: {"type":"TOOL_CALL_START","toolCallId":"a","toolCallName":"Bash"}"#,
            "\n",
            r#"{"type":"TOOL_CALL_END","toolCallId":"a"}"#,
            "\n",
            r#"{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"a","content":"no","metadata":{"toolnorm":{"state":"error"}}}"#,
            "\n",
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
            "\n",
        );
        let s = events(&Input::from_bytes(text.as_bytes()));
        assert_eq!(s.calls.len(), 1);
        let a = &s.calls[0];
        assert_eq!(
            (a.id.as_str(), a.line, a.name.as_deref()),
            ("a", 2, Some("Bash"))
        );
        assert_eq!(a.failed_line, Some(4));
        assert_eq!(
            s.turn_ends,
            [TurnEnd {
                line: 5,
                scope: None
            }]
        );
    }
}
