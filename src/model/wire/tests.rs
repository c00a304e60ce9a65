use serde_json::json;

use super::ag_ui::{self, AgUiEvent};
use super::ai_sdk::{self, UiChunk};
use super::*;
use crate::model::{
    Diagnostic, NormalizedToolPart, PartEvent, TimeValue, Timing, ToolError, ToolKind,
    ToolMetadata, ToolState,
};

fn part(id: &str, state: ToolState) -> NormalizedToolPart {
    NormalizedToolPart {
        id: id.into(),
        name: "Bash".into(),
        kind: ToolKind::Bash,
        title: "Running ls".into(),
        input: json!({"command": "ls"}),
        output: None,
        error: None,
        state,
        timing: None,
        metadata: None,
    }
}

/// A document whose parts cover what the wires must carry: a streamed-output call, a failure with
/// code and details, a refusal, a null output, a call that never ran, an approval, a subagent with
/// a child, timing and metadata.
pub(crate) fn sample() -> NormalizedDocument {
    let mut ok = part("a", ToolState::Complete);
    ok.output = Some(json!("file\n"));
    ok.timing = Some(Timing {
        started_at: Some(TimeValue::Millis(1)),
        completed_at: Some(TimeValue::Text("2026-01-01T00:00:00Z".into())),
        elapsed_ms: Some(5),
    });
    let mut failed = part("b", ToolState::Error);
    failed.error = Some(ToolError {
        message: "exit 1".into(),
        code: Some("1".into()),
        details: Some(json!({"stderr": "no"})),
    });
    let mut denied = part("c", ToolState::Error);
    denied.error = Some(ToolError {
        message: "Command declined".into(),
        code: Some("declined".into()),
        details: None,
    });
    let mut meta = ToolMetadata::default();
    meta.extra
        .insert(ai_sdk::APPROVAL_REQUESTED.into(), json!(true));
    meta.extra
        .insert(ai_sdk::APPROVAL_REASON.into(), json!("outside workspace"));
    denied.metadata = Some(meta);
    let mut null_out = part("d", ToolState::Complete);
    null_out.output = Some(serde_json::Value::Null);
    let mut json_out = part("e", ToolState::Complete);
    json_out.output = Some(json!({"files": [1, 2]}));
    let pending = NormalizedToolPart {
        input: serde_json::Value::Null,
        ..part("f", ToolState::Started)
    };
    let mut task = part("t", ToolState::Complete);
    task.kind = ToolKind::Subagent;
    task.name = "Task".into();
    task.title = "Research".into();
    task.output = Some(json!("done"));
    let mut child = part("t1", ToolState::Complete);
    child.output = Some(json!("x"));
    child.metadata = Some(ToolMetadata {
        parent_tool_use_id: Some("t".into()),
        session_id: Some("s1".into()),
        ..ToolMetadata::default()
    });
    let parts = vec![ok, task, child, failed, denied, null_out, json_out, pending];
    let ev = |line: u32, id: &str, state| PartEvent {
        line,
        part_id: id.into(),
        state,
    };
    let events = vec![
        ev(1, "a", ToolState::Started),
        ev(2, "a", ToolState::Running),
        ev(3, "t", ToolState::Running),
        ev(4, "t1", ToolState::Running),
        ev(5, "a", ToolState::Complete),
        ev(6, "b", ToolState::Running),
        ev(7, "b", ToolState::Error),
        ev(8, "c", ToolState::Running),
        ev(9, "c", ToolState::Error),
        ev(10, "d", ToolState::Complete),
        ev(11, "e", ToolState::Complete),
        ev(12, "f", ToolState::Started),
        ev(13, "t1", ToolState::Complete),
        ev(14, "t", ToolState::Complete),
    ];
    NormalizedDocument {
        schema_version: crate::model::SCHEMA_VERSION,
        provider: "claude".into(),
        dialect: "stream-json".into(),
        parts,
        events,
        diagnostics: Vec::<Diagnostic>::new(),
    }
}

#[test]
fn ai_sdk_chunks_fold_back_to_the_parts() {
    let doc = sample();
    let chunks = ai_sdk::document_chunks(&doc);
    assert_eq!(chunks.first().map(UiChunk::type_name), Some("start"));
    assert_eq!(chunks.last().map(UiChunk::type_name), Some("finish"));
    // The consumer's schema asks for `output` on every `tool-output-available`: a call that ended
    // without output says `output: null`, so a null output and none fold back alike (as none).
    let mut want = doc.parts.clone();
    for p in &mut want {
        if p.output == Some(serde_json::Value::Null) {
            p.output = None;
        }
    }
    assert_eq!(ai_sdk::fold_chunks(&chunks).unwrap(), want);
    // Through JSON, as a consumer reads them.
    let text: Vec<String> = chunks
        .iter()
        .map(|c| serde_json::to_string(c).unwrap())
        .collect();
    let back: Vec<UiChunk> = text
        .iter()
        .map(|t| {
            ai_sdk::read_chunk(&serde_json::from_str(t).unwrap())
                .unwrap()
                .unwrap()
        })
        .collect();
    assert_eq!(ai_sdk::fold_chunks(&back).unwrap(), want);
    let types: Vec<&str> = chunks.iter().map(UiChunk::type_name).collect();
    assert!(types.contains(&"tool-output-denied"));
    assert!(types.contains(&"tool-approval-request"));
    assert!(types.contains(&"tool-output-error"));
    let v: serde_json::Value = serde_json::from_str(&text[1]).unwrap();
    assert_eq!(
        v,
        json!({"type": "tool-input-start", "toolCallId": "a", "toolName": "Bash",
            "title": "Running ls", "dynamic": true, "providerExecuted": true,
            "toolMetadata": {"kind": "bash"}})
    );
}

#[test]
fn ag_ui_events_fold_back_to_the_parts() {
    let doc = sample();
    let events = ag_ui::document_events(&doc);
    assert_eq!(
        events.first().map(AgUiEvent::type_name),
        Some("RUN_STARTED")
    );
    assert_eq!(
        events.last().map(AgUiEvent::type_name),
        Some("RUN_FINISHED")
    );
    assert_eq!(ag_ui::fold_events(&events).unwrap(), doc.parts);
    let results = events
        .iter()
        .filter(|e| e.type_name() == "TOOL_CALL_RESULT")
        .count();
    let finished = doc.parts.iter().filter(|p| p.state.is_terminal()).count();
    assert_eq!(results, finished, "one TOOL_CALL_RESULT per finished call");
    // The child runs in the subagent's run, which ends after it.
    let pos = |f: &dyn Fn(&AgUiEvent) -> bool| events.iter().position(f).unwrap();
    let sub_start = pos(&|e| e.type_name() == "SUBAGENT_STARTED");
    let child = pos(
        &|e| matches!(e, AgUiEvent::ToolCallStart { tool_call_id, subagent_run_id: Some(s), .. } if tool_call_id == "t1" && s == "t"),
    );
    let sub_end = pos(&|e| e.type_name() == "SUBAGENT_FINISHED");
    assert!(sub_start < child && child < sub_end);
    let back: Vec<AgUiEvent> = events
        .iter()
        .map(|e| {
            let v = serde_json::to_value(e).unwrap();
            ag_ui::read_event(&v).unwrap().unwrap()
        })
        .collect();
    assert_eq!(back, events);
}

#[test]
fn live_emitters_follow_snapshots() {
    let mut started = part("x", ToolState::Started);
    started.input = serde_json::Value::Null;
    let mut running = part("x", ToolState::Running);
    running.output = Some(json!("partial"));
    let mut renamed = running.clone();
    renamed.title = "Running ls -la".into();
    let mut done = renamed.clone();
    done.state = ToolState::Complete;
    done.output = Some(json!("all"));
    let snaps = [started, running, renamed, done.clone()];
    let mut a = ai_sdk::AiSdkEmitter::new();
    let mut chunks: Vec<UiChunk> = snaps.iter().flat_map(|s| a.part(s)).collect();
    chunks.extend(a.finish());
    let prelim = chunks.iter().any(|c| {
        matches!(c, UiChunk::ToolOutputAvailable { preliminary: Some(true), output: Some(o), .. } if o == "partial")
    });
    assert!(prelim, "{chunks:?}");
    assert_eq!(ai_sdk::fold_chunks(&chunks).unwrap(), vec![done.clone()]);
    let mut g = ag_ui::AgUiEmitter::new();
    let mut events: Vec<AgUiEvent> = snaps.iter().flat_map(|s| g.part(s)).collect();
    events.extend(g.finish());
    assert_eq!(ag_ui::fold_events(&events).unwrap(), vec![done]);
    // The same snapshot twice says nothing new.
    let mut a = ai_sdk::AiSdkEmitter::new();
    let p = part("y", ToolState::Running);
    assert!(!a.part(&p).is_empty());
    assert!(a.part(&p).is_empty());
    let mut g = ag_ui::AgUiEmitter::new();
    assert!(!g.part(&p).is_empty());
    assert!(g.part(&p).is_empty());
}

#[test]
fn an_unfinished_call_is_ended_but_keeps_its_state() {
    let p = part("z", ToolState::Started);
    let mut g = ag_ui::AgUiEmitter::new();
    let mut events = g.part(&p);
    events.extend(g.finish());
    let types: Vec<&str> = events.iter().map(AgUiEvent::type_name).collect();
    assert_eq!(
        types,
        [
            "RUN_STARTED",
            "TOOL_CALL_START",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_END",
            "RUN_FINISHED"
        ]
    );
    assert_eq!(ag_ui::fold_events(&events).unwrap(), vec![p]);
}

#[test]
fn folds_reject_what_the_consumers_reject() {
    let orphan = UiChunk::ToolOutputAvailable {
        tool_call_id: "q".into(),
        output: Some(json!(1)),
        preliminary: None,
        dynamic: None,
        provider_executed: None,
        tool_metadata: None,
    };
    let e = ai_sdk::fold_chunks(&[orphan]).unwrap_err();
    assert!(e.to_string().contains("`q`"), "{e}");
    assert!(ai_sdk::read_chunk(&json!({"type": "tool-input-start", "toolCallId": 1})).is_err());
    assert!(ai_sdk::read_chunk(&json!({"type": "nope"})).is_err());
    assert_eq!(
        ai_sdk::read_chunk(&json!({"type": "text-delta", "id": "1", "delta": "x"})),
        Ok(None)
    );
    assert!(ag_ui::read_event(&json!({"type": "TOOL_CALL_ARGS", "toolCallId": "a"})).is_err());
    let args = AgUiEvent::ToolCallArgs {
        tool_call_id: "q".into(),
        delta: "{}".into(),
        subagent_run_id: None,
    };
    assert!(ag_ui::fold_events(&[args]).is_err());
}

#[test]
fn sse_frames() {
    assert_eq!(
        sse_event(r#"{"type":"finish"}"#),
        "data: {\"type\":\"finish\"}\n\n"
    );
    assert_eq!(SSE_DONE, "data: [DONE]\n\n");
}
