//! TN020: the wire's consumer accepts every frame an implementation answered in, in its order.

use super::support::{HashMap, HashSet};
use super::wire::{Frame, Step, WireView};
use super::{Finding, FrameWire, RuleContext, declare_rule};

declare_rule! {
    /// ## What it checks
    /// When an implementation answers in a wire (`verify --impl`, protocol 2), every frame is one
    /// the wire's schema accepts (an AI SDK chunk of `uiMessageChunkSchema`, an AG-UI event of
    /// `@ag-ui/core`'s `EventSchemas`, an ACP `session/update` notification), and the sequence is
    /// one the wire's consumer accepts:
    /// - AI SDK (`readUIMessageStream`): nothing after `finish`; a `tool-input-delta` only
    ///   between its call's `tool-input-start` and `tool-input-available`; an approval request
    ///   or an output only for a call a `tool-input-start` / `tool-input-available` opened;
    /// - AG-UI (`verifyEvents`): `RUN_STARTED` first; nothing after `RUN_ERROR`, nothing but a
    ///   new `RUN_STARTED` after `RUN_FINISHED`, and no `RUN_FINISHED` while a call is open;
    ///   `TOOL_CALL_ARGS` and `TOOL_CALL_END` only for an open call, `TOOL_CALL_START` not for one
    ///   already open; a `TOOL_CALL_RESULT` only for a call that started;
    /// - ACP: a `tool_call_update` only for a call a `tool_call` announced.
    ///
    /// ## Why
    /// A consumer that rejects a frame stops reading the stream (the AI SDK throws, `verifyEvents`
    /// errors the run): the UI shows nothing after it. These faults sit in the last mapping from
    /// parts to the wire, which the parts alone do not show.
    ///
    /// ## Example
    /// Violation: `{"type":"tool-input-delta","toolCallId":"t1",…}` before any
    /// `tool-input-start` of `t1`; `TOOL_CALL_RESULT` after `RUN_FINISHED`.
    /// Conforming: `tool-input-start`, `tool-input-delta`, `tool-input-available`,
    /// `tool-output-available`, `finish`.
    pub(crate) struct WireSequenceRejected {
        code: "TN020",
        summary: "the wire's consumer accepts every frame of the answer, in its order",
        check: check,
    }
}

/// Findings beyond this many per fixture are summed up in the last one.
const MAX_FINDINGS: usize = 20;

fn check(cx: &RuleContext<'_>) -> Vec<Finding> {
    let Some(w) = cx.wire() else {
        return Vec::new();
    };
    let mut problems: Vec<(usize, Option<&str>, String)> = w
        .invalid
        .iter()
        .map(|(i, e)| (*i, None, format!("rejected by the wire's schema: {e}")))
        .collect();
    match w.wire {
        FrameWire::AiSdk => ai_sdk(w, &mut problems),
        FrameWire::AgUi => ag_ui(w, &mut problems),
        FrameWire::Acp => acp(w, &mut problems),
    }
    problems.sort_by_key(|p| p.0);
    let total = problems.len();
    let mut out: Vec<Finding> = problems
        .into_iter()
        .take(MAX_FINDINGS)
        .map(|(i, call, message)| {
            let ty = w
                .frames
                .iter()
                .find(|f| f.index == i)
                .map_or(String::new(), |f| format!(" (`{}`)", f.ty));
            let line = call.and_then(|id| {
                cx.raw()
                    .get(id)
                    .map(|c| c.line)
                    .or_else(|| cx.first_event_line(id))
            });
            Finding::new(
                line,
                call,
                format!("{} frame {}{ty}: {message}", w.wire.as_str(), i + 1),
            )
        })
        .collect();
    if total > MAX_FINDINGS
        && let Some(last) = out.last_mut()
    {
        last.message
            .push_str(&format!(" (and {} more)", total - MAX_FINDINGS));
    }
    out
}

type Problems<'w> = Vec<(usize, Option<&'w str>, String)>;

fn ai_sdk<'w>(w: &'w WireView, out: &mut Problems<'w>) {
    #[derive(PartialEq)]
    enum Input {
        Streaming,
        Complete,
    }
    let mut calls: HashMap<&str, Input> = HashMap::default();
    let mut finished = false;
    for f in &w.frames {
        if finished && f.step != Step::Other {
            out.push((
                f.index,
                f.call.as_deref(),
                "comes after `finish`".to_owned(),
            ));
            continue;
        }
        let id = f.call.as_deref().unwrap_or_default();
        match f.step {
            Step::RunEnd => finished = true,
            Step::Open => {
                calls.insert(id, Input::Streaming);
            }
            Step::InputDone => {
                calls.insert(id, Input::Complete);
            }
            Step::Delta => match calls.get(id) {
                Some(Input::Streaming) => {}
                Some(Input::Complete) => out.push((
                    f.index,
                    Some(id),
                    format!("input of `{id}` after its `tool-input-available`"),
                )),
                None => out.push((
                    f.index,
                    Some(id),
                    format!("input of `{id}` before its `tool-input-start`"),
                )),
            },
            // `tool-input-error` opens a call of its own.
            Step::Result if f.ty == "tool-input-error" => {
                calls.insert(id, Input::Complete);
            }
            Step::Approval | Step::Result | Step::Update if !calls.contains_key(id) => {
                out.push((f.index, Some(id), unknown(id, "tool-input-start")));
            }
            _ => {}
        }
    }
}

fn ag_ui<'w>(w: &'w WireView, out: &mut Problems<'w>) {
    let mut active: Vec<&str> = Vec::new();
    let mut started: HashSet<&str> = HashSet::default();
    // None: no run yet; Some(true): a run is open; Some(false): finished.
    let mut run: Option<bool> = None;
    let mut errored = false;
    for f in &w.frames {
        let id = f.call.as_deref().unwrap_or_default();
        if errored {
            out.push((
                f.index,
                f.call.as_deref(),
                "comes after `RUN_ERROR`".to_owned(),
            ));
            continue;
        }
        match run {
            None if f.step != Step::RunStart => {
                out.push((
                    f.index,
                    f.call.as_deref(),
                    "the first event is not `RUN_STARTED`".to_owned(),
                ));
                run = Some(true);
            }
            Some(false) if f.step != Step::RunStart => {
                out.push((
                    f.index,
                    f.call.as_deref(),
                    "comes after `RUN_FINISHED`".to_owned(),
                ));
                continue;
            }
            _ => {}
        }
        match f.step {
            Step::RunStart => run = Some(true),
            Step::RunEnd if f.ty == "RUN_ERROR" => errored = true,
            Step::RunEnd => {
                if !active.is_empty() {
                    out.push((
                        f.index,
                        active.first().copied(),
                        format!("ends the run while `{}` is still open", active.join("`, `")),
                    ));
                }
                run = Some(false);
            }
            Step::Open => {
                if active.contains(&id) {
                    out.push((f.index, Some(id), format!("starts `{id}`, already open")));
                } else {
                    active.push(id);
                }
                started.insert(id);
            }
            Step::Delta | Step::InputDone if !active.contains(&id) => out.push((
                f.index,
                Some(id),
                format!("`{id}` is not an open call (no `TOOL_CALL_START`, or after its `TOOL_CALL_END`)"),
            )),
            Step::InputDone => active.retain(|a| *a != id),
            Step::Result | Step::Update if !started.contains(id) => {
                out.push((f.index, Some(id), unknown(id, "TOOL_CALL_START")));
            }
            _ => {}
        }
    }
}

fn acp<'w>(w: &'w WireView, out: &mut Problems<'w>) {
    let mut announced: HashSet<&str> = HashSet::default();
    for f in &w.frames {
        let Some(id) = f.call.as_deref() else {
            continue;
        };
        if is_announcement(f) {
            announced.insert(id);
        } else if !announced.contains(id) {
            out.push((f.index, Some(id), unknown(id, "tool_call")));
        }
    }
}

fn is_announcement(f: &Frame) -> bool {
    f.ty == "tool_call"
}

fn unknown(id: &str, opener: &str) -> String {
    format!("for `{id}`, which no `{opener}` opened")
}
