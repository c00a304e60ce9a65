//! The rules' scan of Kimi CLI's messages (print mode's stream-json and a saved context, the same
//! messages): calls from an assistant message's `tool_calls` (`id`, `function.name`, the model's
//! arguments in `function.arguments`, a JSON text), failures from a `tool` message whose content
//! starts with Kimi's `<system>ERROR: …</system>` note. A turn ends at an assistant message with
//! no `tool_calls` (the answer). Kimi names an MCP tool by the tool alone, so the scan states no
//! MCP identity.

use super::{Markers, Node, RawScan, TurnEnd, for_marked_lines, merge_args, str_of};
use crate::stream::Input;

static MARKERS: Markers = Markers::new(&["\"role\""]);

/// Whether a tool message's content carries Kimi's error note.
fn failed(content: Option<&Node<'_>>) -> bool {
    let is_error = |t: &str| t.trim_start().starts_with("<system>ERROR:");
    match content {
        Some(c) => match c.as_array() {
            Some(parts) => parts
                .iter()
                .any(|p| p.get("text").and_then(Node::as_str).is_some_and(is_error)),
            None => c.as_str().is_some_and(is_error),
        },
        None => false,
    }
}

/// Kimi's messages, one a line.
pub(crate) fn messages(input: &Input<'_>) -> RawScan {
    let mut s = RawScan::default();
    for_marked_lines(input, &MARKERS, |line, v| match str_of(&v, "role") {
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
                    .and_then(super::pruned::parse_whole);
                if let Some(args) = args {
                    merge_args(&mut c.args, &args);
                }
            }
        }
        Some("tool") => {
            if let Some(id) = str_of(&v, "tool_call_id")
                && failed(v.get("content"))
            {
                s.fail_known(id, line);
            }
        }
        _ => {}
    });
    s
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
