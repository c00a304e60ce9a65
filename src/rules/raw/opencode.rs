//! The rules' scan of OpenCode streams: `tool` parts (the call id, else the part id), their error
//! status and bash exit codes, a `task`'s child session, and the lines that end a turn
//! (`session.idle`, an idle `session.status`, a `step_finish` that stops). Kilo writes the same
//! three formats: its dialects' rows use these scans.

use super::{Markers, Node, RawScan, TurnEnd, for_marked_lines, line_holding, merge_args, str_of};
use crate::stream::Input;

/// Lines worth parsing in the streams of one event per line (`events`, `run`).
static MARKERS: Markers =
    Markers::new(&["\"tool\"", "session.idle", "session.status", "step_finish"]);

/// The `opencode serve` event stream (`/event`, `/global/event`, SSE `data:` lines).
pub(crate) fn events(input: &Input<'_>) -> RawScan {
    lines(input)
}

/// `opencode run --format json`.
pub(crate) fn run(input: &Input<'_>) -> RawScan {
    lines(input)
}

fn lines(input: &Input<'_>) -> RawScan {
    let mut s = RawScan::default();
    for_marked_lines(input, &MARKERS, |line, v| event_line(&mut s, line, &v));
    s
}

fn event_line(s: &mut RawScan, line: u32, v: &Node<'_>) {
    // `/global/event` wraps the event in `payload`.
    let ev = v
        .get("payload")
        .filter(|p| p.get("type").is_some())
        .unwrap_or(v);
    let props = ev.get("properties");
    match str_of(ev, "type") {
        Some("session.idle") => {
            let scope = props
                .and_then(|p| str_of(p, "sessionID"))
                .map(str::to_owned);
            s.turn_ends.push(TurnEnd { line, scope });
        }
        Some("session.status") => {
            let idle = props
                .and_then(|p| p.get("status"))
                .and_then(|st| str_of(st, "type"))
                == Some("idle");
            if idle {
                let scope = props
                    .and_then(|p| str_of(p, "sessionID"))
                    .map(str::to_owned);
                s.turn_ends.push(TurnEnd { line, scope });
            }
        }
        Some("step_finish") => {
            let part = ev.get("part");
            if part.and_then(|p| str_of(p, "reason")) == Some("stop") {
                let scope = part
                    .and_then(|p| str_of(p, "sessionID"))
                    .or_else(|| str_of(ev, "sessionID"));
                s.turn_ends.push(TurnEnd {
                    line,
                    scope: scope.map(str::to_owned),
                });
            }
        }
        _ => {
            let part = props.and_then(|p| p.get("part")).or_else(|| ev.get("part"));
            if let Some(part) = part {
                tool_part(s, line, part);
            }
        }
    }
}

fn tool_part(s: &mut RawScan, line: u32, part: &Node<'_>) {
    if str_of(part, "type") != Some("tool") {
        return;
    }
    let id = str_of(part, "callID")
        .filter(|c| !c.is_empty())
        .or_else(|| str_of(part, "id"));
    let Some(id) = id else { return };
    let state = part.get("state");
    let status = state.and_then(|st| str_of(st, "status"));
    let tool = str_of(part, "tool");
    let exit = state
        .and_then(|st| st.get("metadata"))
        .and_then(|m| m.get("exit"))
        .and_then(Node::as_i64);
    let failed = status == Some("error") || (tool == Some("bash") && exit.is_some_and(|c| c != 0));
    let call = s.call(id, line);
    call.item_type.get_or_insert_with(|| "tool".to_owned());
    if let Some(t) = tool {
        call.name = Some(t.to_owned());
    }
    if call.scope.is_none() {
        call.scope = str_of(part, "sessionID").map(str::to_owned);
    }
    if let Some(input) = state.and_then(|st| st.get("input")) {
        merge_args(&mut call.args, input);
    }
    if tool == Some("task")
        && let Some(child) = state
            .and_then(|st| st.get("metadata"))
            .and_then(|m| str_of(m, "sessionId"))
    {
        call.child_session = Some(child.to_owned());
    }
    if failed {
        call.failed_line.get_or_insert(line);
    }
}

/// `opencode export` is one pretty-printed document: parse it whole, and point each call at the
/// first line holding its id.
pub(crate) fn export(input: &Input<'_>) -> RawScan {
    let mut s = RawScan::default();
    let Some(doc) = super::pruned::parse(input.bytes) else {
        return s;
    };
    let Some(messages) = doc.get("messages").and_then(Node::as_array) else {
        return s;
    };
    for msg in messages {
        for part in msg
            .get("parts")
            .and_then(Node::as_array)
            .into_iter()
            .flatten()
        {
            if str_of(part, "type") != Some("tool") {
                continue;
            }
            let id = str_of(part, "callID")
                .filter(|c| !c.is_empty())
                .or_else(|| str_of(part, "id"));
            let line = id.map(|id| line_holding(input, id)).unwrap_or(1);
            tool_part(&mut s, line, part);
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opencode_call_id_wins_and_bash_exit_fails() {
        let s = events(&Input::from_bytes(
            concat!(
                r#"data: {"type":"message.part.updated","properties":{"part":{"id":"prt_1","sessionID":"ses_a","type":"tool","callID":"call_1","tool":"bash","state":{"status":"completed","input":{"command":"false"},"metadata":{"exit":1}}}}}"#,
                "\n",
                r#"{"type":"session.idle","properties":{"sessionID":"ses_a"}}"#,
                "\n"
            )
            .as_bytes(),
        ));
        let c = s.get("call_1").unwrap();
        assert_eq!(c.failed_line, Some(1));
        assert_eq!(c.scope.as_deref(), Some("ses_a"));
        assert_eq!(
            s.turn_ends,
            vec![TurnEnd {
                line: 2,
                scope: Some("ses_a".into())
            }]
        );
    }
}
