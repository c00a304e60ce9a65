//! Unit tests of the ACP frames: the mapping tables, one part's frames through its lifecycle, and
//! the fold's errors.

use serde_json::{Value, json};

use super::*;
use crate::model::{McpRef, PartEvent, Timing, ToolError, ToolMetadata};

fn part(state: ToolState) -> NormalizedToolPart {
    NormalizedToolPart {
        id: "call_1".into(),
        name: "Bash".into(),
        kind: ToolKind::Bash,
        title: "Run ls".into(),
        input: json!({"command": "ls"}),
        output: None,
        error: None,
        state,
        timing: None,
        metadata: None,
    }
}

fn json_of(f: &AcpUpdateFrame) -> Value {
    serde_json::to_value(f).unwrap()
}

#[test]
fn statuses_map_one_to_one_and_back() {
    for s in [
        ToolState::Started,
        ToolState::Running,
        ToolState::Complete,
        ToolState::Error,
    ] {
        assert_eq!(contract_state(acp_status(s)), s);
    }
    assert_eq!(
        serde_json::to_value(acp_status(ToolState::Running)).unwrap(),
        json!("in_progress")
    );
}

#[test]
fn kinds_map_to_acp_as_documented() {
    let table = [
        (ToolKind::FileRead, "read"),
        (ToolKind::FileWrite, "edit"),
        (ToolKind::FileEdit, "edit"),
        (ToolKind::Bash, "execute"),
        (ToolKind::WebSearch, "fetch"),
        (ToolKind::Browser, "fetch"),
        (ToolKind::Subagent, "think"),
        (ToolKind::Todo, "think"),
        (ToolKind::Mcp, "other"),
        (ToolKind::Question, "other"),
        (ToolKind::Unknown, "other"),
    ];
    assert_eq!(table.len(), ToolKind::ALL.len());
    for (k, name) in table {
        assert_eq!(
            serde_json::to_value(acp_kind(k)).unwrap(),
            json!(name),
            "{k:?}"
        );
    }
}

#[test]
fn a_first_appearance_is_a_tool_call_with_everything_acp_lacks_under_meta() {
    let p = part(ToolState::Started);
    let v = json_of(&part_update_frame("s1", None, &p));
    assert_eq!(v["jsonrpc"], "2.0");
    assert_eq!(v["method"], "session/update");
    assert_eq!(v["params"]["sessionId"], "s1");
    let u = &v["params"]["update"];
    assert_eq!(u["sessionUpdate"], "tool_call");
    assert_eq!(u["toolCallId"], "call_1");
    assert_eq!(u["title"], "Run ls");
    assert_eq!(u["kind"], "execute");
    assert_eq!(u["rawInput"], json!({"command": "ls"}));
    assert_eq!(u["_meta"]["toolnorm"]["name"], "Bash");
    assert_eq!(u["_meta"]["toolnorm"]["kind"], "bash");
    // `pending` is ACP's default and the crate leaves it out.
    assert!(u.get("status").is_none_or(|s| s == "pending"));
}

#[test]
fn a_failure_travels_as_failed_with_the_error_under_meta_and_folds_back() {
    let started = part(ToolState::Started);
    let running = part(ToolState::Running);
    let mut failed = part(ToolState::Error);
    failed.error = Some(ToolError {
        message: "Exit code 1".into(),
        code: Some("1".into()),
        details: Some(json!("ls: nope")),
    });
    failed.timing = Some(Timing {
        elapsed_ms: Some(12),
        ..Timing::default()
    });
    failed.metadata = Some(ToolMetadata {
        mcp: Some(McpRef {
            server: "s".into(),
            tool: "t".into(),
        }),
        exit_code: Some(1),
        ..ToolMetadata::default()
    });
    let frames = vec![
        part_update_frame("s", None, &started),
        part_update_frame("s", Some(&started), &running),
        part_update_frame("s", Some(&running), &failed),
    ];
    let last = json_of(&frames[2]);
    let u = &last["params"]["update"];
    assert_eq!(u["sessionUpdate"], "tool_call_update");
    assert_eq!(u["status"], "failed");
    assert_eq!(u["content"][0]["content"]["text"], "Exit code 1");
    assert_eq!(u["_meta"]["toolnorm"]["error"]["code"], "1");
    assert!(
        u["_meta"]["toolnorm"].get("name").is_none(),
        "unchanged: not repeated"
    );
    assert_eq!(fold_frames(&frames).unwrap(), vec![failed]);
}

#[test]
fn fields_that_go_away_are_unset_on_the_way_back() {
    let mut a = part(ToolState::Running);
    a.output = Some(json!("partial"));
    a.timing = Some(Timing {
        elapsed_ms: Some(1),
        ..Timing::default()
    });
    let mut b = part(ToolState::Complete);
    b.output = Some(Value::Null);
    let frames = vec![
        part_update_frame("s", None, &a),
        part_update_frame("s", Some(&a), &b),
    ];
    assert_eq!(fold_frames(&frames).unwrap(), vec![b]);
}

#[test]
fn a_document_gives_one_tool_call_then_one_update_per_event() {
    let mut done = part(ToolState::Complete);
    done.output = Some(json!("a\nb"));
    let mut other = part(ToolState::Complete);
    other.id = "call_2".into();
    let ev = |line, id: &str, state| PartEvent {
        line,
        part_id: id.into(),
        state,
    };
    let doc = NormalizedDocument {
        schema_version: 1,
        provider: "claude".into(),
        dialect: "stream-json".into(),
        parts: vec![done.clone(), other.clone()],
        events: vec![
            ev(1, "call_1", ToolState::Started),
            ev(2, "call_2", ToolState::Started),
            ev(3, "call_1", ToolState::Running),
            ev(4, "call_1", ToolState::Complete),
            ev(5, "call_2", ToolState::Complete),
        ],
        diagnostics: vec![],
    };
    let frames = document_frames(&doc);
    let kinds: Vec<(String, String)> = frames
        .iter()
        .map(|f| {
            let u = &json_of(f)["params"]["update"];
            (
                u["sessionUpdate"].as_str().unwrap().to_owned(),
                u["toolCallId"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let want = [
        ("tool_call", "call_1"),
        ("tool_call", "call_2"),
        ("tool_call_update", "call_1"),
        ("tool_call_update", "call_1"),
        ("tool_call_update", "call_2"),
    ];
    assert_eq!(
        kinds,
        want.map(|(a, b)| (a.to_owned(), b.to_owned())).to_vec()
    );
    // The output appears with the last event only.
    assert!(
        json_of(&frames[0])["params"]["update"]
            .get("rawOutput")
            .is_none()
    );
    assert_eq!(
        json_of(&frames[3])["params"]["update"]["rawOutput"],
        json!("a\nb")
    );
    assert_eq!(fold_frames(&frames).unwrap(), doc.parts);
    assert_eq!(document_session_id(&doc), DEFAULT_SESSION_ID);
}

#[test]
fn an_update_for_an_unknown_call_and_bad_meta_are_errors() {
    let p = part(ToolState::Running);
    let frame = part_update_frame("s", Some(&part(ToolState::Started)), &p);
    assert_eq!(
        fold_frames(&[frame]).unwrap_err(),
        FoldError::UnknownCall("call_1".into())
    );
    let mut v = json_of(&part_update_frame("s", None, &p));
    v["params"]["update"]["_meta"]["toolnorm"]["kind"] = json!("teleport");
    let frame: AcpUpdateFrame = serde_json::from_value(v).unwrap();
    assert!(matches!(
        fold_frames(&[frame]),
        Err(FoldError::BadMeta { field: "kind", .. })
    ));
}

#[test]
fn frames_without_our_meta_fold_from_acp_fields() {
    let v = json!({"jsonrpc": "2.0", "method": "session/update", "params": {
        "sessionId": "s", "update": {"sessionUpdate": "tool_call", "toolCallId": "t",
        "title": "Read /a", "kind": "read", "status": "completed", "rawInput": {"path": "/a"}}}});
    let frame: AcpUpdateFrame = serde_json::from_value(v).unwrap();
    let parts = fold_frames(&[frame]).unwrap();
    assert_eq!(parts[0].kind, ToolKind::FileRead);
    assert_eq!(parts[0].name, "Read /a");
    assert_eq!(parts[0].state, ToolState::Complete);
}
