//! The rules' scan of an AI SDK UI message stream: the calls of `tool-input-start`,
//! `tool-input-available` and `tool-input-error` by `toolCallId`, with their `toolName` and
//! `input`; `tool-input-error`, `tool-output-error` and `tool-output-denied` as the failure
//! markers; `finish` as the end of the turn.

use super::{Markers, RawScan, TurnEnd, for_marked_lines, merge_args, str_of};
use crate::stream::Input;

static MARKERS: Markers = Markers::new(&["toolCallId", "\"finish\""]);

/// A UI message stream, JSON Lines or SSE `data:` lines.
pub(crate) fn stream(input: &Input<'_>) -> RawScan {
    let mut s = RawScan::default();
    for_marked_lines(input, &MARKERS, |line, v| {
        let ty = str_of(&v, "type");
        if ty == Some("finish") {
            s.turn_ends.push(TurnEnd { line, scope: None });
            return;
        }
        let Some(id) = str_of(&v, "toolCallId") else {
            return;
        };
        match ty {
            Some("tool-input-start" | "tool-input-available" | "tool-input-error") => {
                let call = s.call(id, line);
                if call.name.is_none() {
                    call.name = str_of(&v, "toolName").map(str::to_owned);
                }
                if let Some(input) = v.get("input") {
                    merge_args(&mut call.args, input);
                }
                if ty == Some("tool-input-error") {
                    s.fail_known(id, line);
                }
            }
            Some("tool-output-error" | "tool-output-denied") => s.fail_known(id, line),
            _ => {}
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
            r#"{"type":"start"}"#,
            "\n",
            r#"data: {"type":"tool-input-start","toolCallId":"a","toolName":"Bash"}"#,
            "\n",
            r#"{"type":"tool-input-available","toolCallId":"a","toolName":"Bash","input":{"command":"ls"}}"#,
            "\n",
            r#"{"type":"tool-output-denied","toolCallId":"a"}"#,
            "\n",
            r#"{"type":"tool-output-error","toolCallId":"ghost","errorText":"x"}"#,
            "\n",
            r#"{"type":"finish"}"#,
            "\n",
        );
        let s = stream(&Input::from_bytes(text.as_bytes()));
        assert_eq!(s.calls.len(), 1);
        let a = &s.calls[0];
        assert_eq!(
            (a.id.as_str(), a.line, a.name.as_deref()),
            ("a", 2, Some("Bash"))
        );
        assert_eq!(a.args["command"], "ls");
        assert_eq!(a.failed_line, Some(4));
        assert_eq!(
            s.turn_ends,
            [TurnEnd {
                line: 6,
                scope: None
            }]
        );
    }
}
