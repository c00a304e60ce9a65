//! The rules' scan of Kimi CLI's messages (print mode's stream-json and a saved context, the same
//! messages): calls from an assistant message's `tool_calls` (`id`, `function.name`, the model's
//! arguments in `function.arguments`, a JSON text), failures from a `tool` message whose content
//! starts with Kimi's `<system>ERROR: …</system>` note (found in the line's bytes: the parse the
//! scans share drops texts). A turn ends at an assistant message with
//! no `tool_calls` (the answer). Kimi names an MCP tool by the tool alone, so the scan states no
//! MCP identity.

use memchr::memmem;

use super::{Markers, Node, RawScan, TurnEnd, merge_args, pruned, str_of};
use crate::stream::Input;

static MARKERS: Markers = Markers::new(&["\"role\""]);

/// Whether a line holds a JSON string that opens with Kimi's error note (inside another string
/// its quote would be escaped).
fn failed(line: &[u8]) -> bool {
    memmem::find_iter(line, b"\"<system>ERROR: ").any(|at| at == 0 || line[at - 1] != b'\\')
}

/// Kimi's messages, one a line.
pub(crate) fn messages(input: &Input<'_>) -> RawScan {
    let mut s = RawScan::default();
    for raw in input.lines.iter() {
        if !MARKERS.in_line(raw.bytes) {
            continue;
        }
        let Some(v) = pruned::parse_line(raw, false) else {
            continue;
        };
        message(&mut s, raw.number, &v, raw.bytes);
    }
    s
}

/// One message read from raw line `line`.
fn message(s: &mut RawScan, line: u32, v: &Node<'_>, bytes: &[u8]) {
    match str_of(v, "role") {
        Some("assistant") => {
            let calls = v.get("tool_calls").and_then(Node::as_array).unwrap_or(&[]);
            if calls.is_empty() {
                s.turn_ends.push(TurnEnd { line, scope: None });
            }
            for call in calls {
                let Some(id) = str_of(call, "id").filter(|i| !i.is_empty()) else {
                    continue;
                };
                let function = call.get("function");
                let c = s.call(id, line);
                c.item_type.get_or_insert_with(|| "function".to_owned());
                if let Some(name) = function.and_then(|f| str_of(f, "name")) {
                    c.name.get_or_insert_with(|| name.to_owned());
                }
                let args = function
                    .and_then(|f| str_of(f, "arguments"))
                    .and_then(pruned::parse_whole);
                if let Some(args) = args {
                    merge_args(&mut c.args, &args);
                }
            }
        }
        Some("tool") => {
            if let Some(id) = str_of(v, "tool_call_id")
                && failed(bytes)
            {
                s.fail_known(id, line);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_failures_and_turn_ends() {
        let s = messages(&Input::from_bytes(
            concat!(
                r#"{"role":"assistant","content":[{"type":"text","text":"Running."}],"tool_calls":[{"type":"function","id":"c1","function":{"name":"Shell","arguments":"{\"command\": \"sh x\"}"}},{"type":"function","id":"c2","function":{"name":"ReadFile","arguments":"{\"path\": \"a\"}"}}]}"#,
                "\n",
                r#"{"role":"tool","content":[{"type":"text","text":"<system>ERROR: Command failed with exit code: 3.</system>"},{"type":"text","text":"boom\n"}],"tool_call_id":"c1"}"#,
                "\n",
                r#"{"role":"tool","content":[{"type":"text","text":"<system>1 lines read</system>"},{"type":"text","text":"x"}],"tool_call_id":"c2"}"#,
                "\n",
                r#"{"role":"tool","content":"<system>ERROR: nope</system>","tool_call_id":"c9"}"#,
                "\n",
                r#"{"role":"assistant","content":"Done."}"#,
                "\n"
            )
            .as_bytes(),
        ));
        let c1 = s.get("c1").unwrap();
        assert_eq!((c1.line, c1.failed_line), (1, Some(2)));
        assert_eq!(c1.name.as_deref(), Some("Shell"));
        assert_eq!(c1.args.get("command"), Some(&serde_json::json!("sh x")));
        assert_eq!(s.get("c2").unwrap().failed_line, None);
        assert!(s.get("c9").is_none());
        assert_eq!(
            s.turn_ends,
            vec![TurnEnd {
                line: 5,
                scope: None
            }]
        );
    }
}
