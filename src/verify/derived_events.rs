//! Events for an implementation whose answer sent none: one per part, derived from the raw
//! lines that quote it.

use crate::model::{NormalizedToolPart, PartEvent};

/// Events for an implementation that sent none: one per part, its final state, at the first raw
/// line quoting its id, and never before the event of the part before it (parts come in order of
/// first appearance): a part whose id no line quotes (a plan's `plan-1`, made up by the
/// normalizer) takes the line of the one before it, or line 1. The rules that follow events then
/// see only final states, in line order; an implementation that wants its state sequence judged
/// sends `events`.
pub(super) fn derived_events(
    input: &crate::stream::Input<'_>,
    parts: &[NormalizedToolPart],
) -> Vec<PartEvent> {
    let mut last = 1;
    parts
        .iter()
        .map(|p| {
            let quoted = format!("\"{}\"", p.id);
            let line = input
                .lines
                .iter()
                .find(|l| memchr::memmem::find(l.bytes, quoted.as_bytes()).is_some())
                .map_or(last, |l| l.number.max(last));
            last = line;
            PartEvent {
                line,
                part_id: p.id.clone(),
                state: p.state,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ToolKind, ToolState};
    use crate::stream::Input;

    fn part(id: &str) -> NormalizedToolPart {
        NormalizedToolPart {
            id: id.to_owned(),
            name: "t".to_owned(),
            kind: ToolKind::Bash,
            title: "T".to_owned(),
            input: serde_json::Value::Null,
            output: None,
            error: None,
            state: ToolState::Complete,
            timing: None,
            metadata: None,
        }
    }

    /// Derived events follow the lines: a part no line quotes takes the line of the part before
    /// it, never line 1 after a later one (which the events rule would call out of order).
    #[test]
    fn derived_events_are_in_line_order() {
        let input = Input::from_bytes(b"{\"id\":\"a\"}\n{}\n{\"id\":\"b\"}\n");
        let parts = [part("a"), part("b"), part("plan-1"), part("c")];
        let lines: Vec<u32> = derived_events(&input, &parts)
            .iter()
            .map(|e| e.line)
            .collect();
        assert_eq!(lines, [1, 3, 3, 3]);
    }
}
