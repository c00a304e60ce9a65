//! The rules' scan of Mistral Vibe's headless output: `--output streaming` (one history entry a
//! line) and `--output json` (the same entries in one array), and of its session journal (the
//! same entries inside the records that advance the session's projection: a `projection_delta`'s
//! or `session_relocated`'s `payload.delta` ops, `entry` or `entries`, a `projection_advanced`'s
//! `payload.snapshot.history.entries`). A call is an `effect` entry (its
//! `id`, the arguments in `detail.input`); it failed when its `state.status` is `failed`,
//! `cancelled` or `skipped`, or a completed one says `display.success: false` or, written as the
//! harness writes it (`detail.kind` `tool`), its result envelope is a `failure` or holds a
//! non-zero `returncode`. The harness names
//! its tools otherwise than the model (`file_system.bash` for `bash`), so the scan states no
//! name; nothing in the output says where a turn ends.

use serde_json::Value;

use super::{
    Markers, Node, RawScan, assistant_calls, for_marked_lines, for_marked_raw_lines, line_holding,
    merge_args, opens_string, pruned, str_of,
};
use crate::rules::support::HashMap;
use crate::stream::Input;

static MARKERS: Markers = Markers::new(&["\"effect\""]);

/// One entry, read at raw line `line` (the line holding its id in the json output).
fn entry(s: &mut RawScan, line: u32, v: &Node<'_>) {
    if str_of(v, "type") != Some("effect") {
        return;
    }
    let Some(id) = str_of(v, "id").filter(|i| !i.is_empty()) else {
        return;
    };
    let c = s.call(id, line);
    c.item_type.get_or_insert_with(|| "effect".to_owned());
    if let Some(input) = v.get("detail").and_then(|d| d.get("input")) {
        merge_args(&mut c.args, input);
    }
    let state = v.get("state");
    let status = state.and_then(|st| str_of(st, "status"));
    let unsuccessful = state
        .and_then(|st| st.get("display"))
        .and_then(|d| d.get("success"))
        .and_then(Node::as_bool)
        == Some(false);
    // A call as the harness wrote it (`detail.kind` `tool`, as the journal keeps every call):
    // its result envelope says a failure, or a command's exit code.
    let raw = matches!(
        v.get("detail").and_then(|d| str_of(d, "kind")),
        None | Some("tool")
    );
    let envelope = state.and_then(|st| st.get("output"));
    let harness_failed = raw
        && (envelope.and_then(|o| str_of(o, "type")) == Some("failure")
            || envelope
                .and_then(|o| o.get("structured_content"))
                .and_then(|r| r.get("returncode"))
                .and_then(Node::as_i64)
                .is_some_and(|c| c != 0));
    if matches!(status, Some("failed" | "cancelled" | "skipped"))
        || (status == Some("completed") && (unsuccessful || harness_failed))
    {
        s.fail_known(id, line);
    }
}

/// `--output streaming`: one entry a line.
pub(crate) fn streaming(input: &Input<'_>) -> RawScan {
    let mut s = RawScan::default();
    for_marked_lines(input, &MARKERS, |line, v| entry(&mut s, line, &v));
    s
}

/// `--output json`: one array of entries.
pub(crate) fn json(input: &Input<'_>) -> RawScan {
    let mut s = RawScan::default();
    let Some(doc) = super::pruned::parse(input.bytes) else {
        return s;
    };
    for v in doc.as_array().unwrap_or(&[]) {
        let line = str_of(v, "id").map_or(1, |id| line_holding(input, id));
        entry(&mut s, line, v);
    }
    s
}

/// The session journal: one record a line, its entries in the payload.
pub(crate) fn journal(input: &Input<'_>) -> RawScan {
    let mut s = RawScan::default();
    for_marked_lines(input, &MARKERS, |line, v| {
        let Some(payload) = v.get("payload") else {
            return;
        };
        if str_of(&v, "type") == Some("projection_advanced") {
            let all = payload
                .get("snapshot")
                .and_then(|p| p.get("history"))
                .and_then(|h| h.get("entries"))
                .and_then(Node::as_array);
            for e in all.unwrap_or(&[]) {
                entry(&mut s, line, e);
            }
            return;
        }
        for op in payload.get("delta").and_then(Node::as_array).unwrap_or(&[]) {
            if let Some(e) = op.get("entry") {
                entry(&mut s, line, e);
            }
            for e in op.get("entries").and_then(Node::as_array).unwrap_or(&[]) {
                entry(&mut s, line, e);
            }
        }
    });
    s
}

static APP_MARKERS: Markers = Markers::new(&[
    "\"history/entryAdded\"",
    "\"history/entryUpdated\"",
    "\"history\"",
]);

/// Set (`add`, `replace`) or drop (`remove`) the value at a JSON Pointer under `doc`, as far as a
/// scan needs: object keys and array indexes, no escapes beyond `~1` and `~0`. A path that names
/// nothing changes nothing.
fn patch_one(doc: &mut Value, op: &str, path: &str, value: Value) {
    let tokens: Vec<String> = path
        .split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect();
    let Some((last, parent)) = tokens.split_last() else {
        return;
    };
    let mut cur = doc;
    for t in parent {
        let next = match cur {
            Value::Object(m) => m.get_mut(t.as_str()),
            Value::Array(a) => t.parse::<usize>().ok().and_then(|i| a.get_mut(i)),
            _ => None,
        };
        let Some(next) = next else {
            return;
        };
        cur = next;
    }
    match (cur, op) {
        (Value::Object(m), "add" | "replace") => {
            m.insert(last.clone(), value);
        }
        (Value::Object(m), "remove") => {
            m.remove(last.as_str());
        }
        (Value::Array(a), "replace") => {
            if let Some(slot) = last.parse::<usize>().ok().and_then(|i| a.get_mut(i)) {
                *slot = value;
            }
        }
        _ => {}
    }
}

/// Read an entry of the app server's and keep it (pruned, by id) for the patches to come.
fn kept_entry(s: &mut RawScan, kept: &mut HashMap<String, Value>, line: u32, e: &Node<'_>) {
    if let Some(id) = str_of(e, "id") {
        if str_of(e, "type") == Some("effect") {
            kept.insert(id.to_owned(), e.to_value());
        } else {
            kept.remove(id);
        }
    }
    entry(s, line, e);
}

/// `vibe-app-server`'s recorded JSON-RPC: the effects (calls) `history/entryAdded` adds, kept by
/// id and read again after each `history/entryUpdated` patches them (an effect's end is a patch
/// of its `state`; the patches of other entries, a message's text growing, are passed over), and
/// the entries of a session's state (`history`) in a snapshot or an answer.
pub(crate) fn app_server(input: &Input<'_>) -> RawScan {
    let mut s = RawScan::default();
    let mut kept: HashMap<String, Value> = HashMap::default();
    for_marked_lines(input, &APP_MARKERS, |line, v| {
        let params = v.get("params");
        let method = str_of(&v, "method");
        match method {
            Some("history/entryAdded") => {
                if let Some(e) = params.and_then(|p| p.get("entry")) {
                    kept_entry(&mut s, &mut kept, line, e);
                }
            }
            Some("history/entryUpdated") => {
                let Some(id) = params.and_then(|p| str_of(p, "entryId")) else {
                    return;
                };
                let Some(doc) = kept.get_mut(id) else {
                    return;
                };
                let ops = params.and_then(|p| p.get("patch")).and_then(Node::as_array);
                for op in ops.unwrap_or(&[]) {
                    if let (Some(name), Some(path)) = (str_of(op, "op"), str_of(op, "path")) {
                        let value = op.get("value").map(Node::to_value).unwrap_or_default();
                        patch_one(doc, name, path, value);
                    }
                }
                let text = doc.to_string();
                if let Some(e) = pruned::parse_whole(&text) {
                    entry(&mut s, line, &e);
                }
            }
            _ => {
                let state = match method {
                    Some("session/snapshot") => params.and_then(|p| p.get("state")),
                    Some(_) => None,
                    None => v.get("result").and_then(|r| r.get("state")),
                };
                let history = state.and_then(|st| st.get("history"));
                for e in history.and_then(Node::as_array).unwrap_or(&[]) {
                    kept_entry(&mut s, &mut kept, line, e);
                }
            }
        }
    });
    s
}

static ROLES: Markers = Markers::new(&["\"role\""]);

/// Whether a line holds a JSON string that opens with one of Vibe's failure tags (inside another
/// string its quote would be escaped).
fn tagged_failure(line: &[u8]) -> bool {
    opens_string(line, b"\"<tool_error>") || opens_string(line, b"\"<user_cancellation>")
}

/// Vibe's older loop's saved messages (`messages.jsonl`): calls from an assistant message's `tool_calls`
/// (`id`, `function.name`, the model's arguments in `function.arguments`, a JSON text), failures
/// from a `tool` message whose content opens with `<tool_error>` or `<user_cancellation>` (found
/// in the line's bytes: the shared parse drops texts) or whose `tool_result` was cancelled, says
/// `presentation.display.success: false` or holds a non-zero `returncode`. A turn ends at an
/// assistant message with no `tool_calls`.
pub(crate) fn session(input: &Input<'_>) -> RawScan {
    let mut s = RawScan::default();
    for_marked_raw_lines(input, &ROLES, false, |raw, v| {
        let line = raw.number;
        match str_of(&v, "role") {
            Some("assistant") => assistant_calls(&mut s, line, &v),
            Some("tool") => {
                let Some(id) = str_of(&v, "tool_call_id") else {
                    return;
                };
                let result = v.get("tool_result");
                let cancelled = result
                    .and_then(|r| r.get("cancelled"))
                    .and_then(Node::as_bool)
                    == Some(true);
                let unsuccessful = result
                    .and_then(|r| r.get("presentation"))
                    .and_then(|p| p.get("display"))
                    .and_then(|d| d.get("success"))
                    .and_then(Node::as_bool)
                    == Some(false);
                let exited = result
                    .and_then(|r| r.get("output"))
                    .and_then(|o| o.get("returncode"))
                    .and_then(Node::as_i64)
                    .is_some_and(|c| c != 0);
                if tagged_failure(raw.bytes) || cancelled || unsuccessful || exited {
                    s.fail_known(id, line);
                }
            }
            _ => {}
        }
    });
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENTRIES: [&str; 4] = [
        r#"{"id":"m1","sessionId":"s","turnId":"t","generationStatus":"completed","type":"message","role":"assistant","content":[{"type":"text","text":"Running."}]}"#,
        r#"{"id":"e1","sessionId":"s","turnId":"t","generationStatus":"completed","type":"effect","title":"file_system.bash","detail":{"toolName":"file_system.bash","kind":"shell","input":{"command":"sh x"}},"state":{"status":"completed","output":{"stdout":"","stderr":"boom\n"},"display":{"success":false}}}"#,
        r#"{"id":"e2","sessionId":"s","turnId":"t","generationStatus":"completed","type":"effect","title":"file_system.read_file","detail":{"toolName":"file_system.read_file","kind":"file_read","input":{"filePath":"a.txt"}},"state":{"status":"completed","output":{"content":"x"},"display":{"success":true}}}"#,
        r#"{"id":"e3","sessionId":"s","turnId":"t","generationStatus":"completed","type":"effect","title":"file_system.read_file","detail":{"toolName":"file_system.read_file","kind":"file_read","input":{"filePath":"b.txt"}},"state":{"status":"failed","error":{"code":"tool_failed","message":"File not found"}}}"#,
    ];

    fn check(s: &RawScan, e1: u32, e3: u32) {
        let c1 = s.get("e1").unwrap();
        assert_eq!((c1.line, c1.failed_line), (e1, Some(e1)));
        assert_eq!(c1.args.get("command"), Some(&serde_json::json!("sh x")));
        assert_eq!(c1.name, None);
        assert_eq!(s.get("e2").unwrap().failed_line, None);
        assert_eq!(s.get("e3").unwrap().failed_line, Some(e3));
        assert!(s.get("m1").is_none());
    }

    #[test]
    fn effects_and_their_failures_in_both_outputs() {
        let lines = ENTRIES.join("\n") + "\n";
        check(&streaming(&Input::from_bytes(lines.as_bytes())), 2, 4);
        let doc = format!("[\n{}\n]\n", ENTRIES.join(",\n"));
        check(&json(&Input::from_bytes(doc.as_bytes())), 3, 5);
    }

    #[test]
    fn effects_in_the_journal_s_projection_records() {
        let record = |ty: &str, payload: String| {
            format!(
                r#"{{"recovery_journal_record_version":1,"sequence":1,"previous_record_sha256":null,"record_sha256":"00","type":"{ty}","payload":{payload}}}"#
            )
        };
        let lines = [
            record("command_reserved", r#"{"method":"turn/start"}"#.to_owned()),
            record(
                "projection_delta",
                format!(
                    r#"{{"watermark":1,"delta":[{{"op":"append_entry","entry":{}}},{{"op":"set_envelope","state":{{}}}}]}}"#,
                    ENTRIES[0]
                ),
            ),
            record(
                "projection_delta",
                format!(
                    r#"{{"watermark":2,"delta":[{{"op":"replace_entry","id":"e1","entry":{}}},{{"op":"set_history_entries","entries":[{}]}}]}}"#,
                    ENTRIES[1], ENTRIES[2]
                ),
            ),
            record(
                "projection_advanced",
                format!(
                    r#"{{"watermark":3,"snapshot":{{"history":{{"entries":[{}]}}}}}}"#,
                    ENTRIES[3]
                ),
            ),
        ];
        let text = lines.join("\n") + "\n";
        check(&journal(&Input::from_bytes(text.as_bytes())), 3, 4);
    }

    #[test]
    fn app_server_effects_end_in_their_patches() {
        let added = |id: &str, cmd: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","method":"history/entryAdded","params":{{"eventId":1,"sessionId":"s","emittedAt":1,"entry":{{"id":"{id}","type":"effect","detail":{{"toolName":"file_system.bash","kind":"shell","input":{{"command":"{cmd}"}}}},"state":{{"status":"running","outputText":""}}}}}}}}"#
            )
        };
        let ended = |id: &str, success: bool| {
            format!(
                r#"{{"jsonrpc":"2.0","method":"history/entryUpdated","params":{{"eventId":2,"sessionId":"s","emittedAt":2,"entryId":"{id}","patch":[{{"op":"add","path":"/state/display","value":{{"success":{success}}}}},{{"op":"append","path":"/state/outputText","value":"x"}},{{"op":"replace","path":"/state/status","value":"completed"}}]}}}}"#
            )
        };
        let text = [
            added("e1", "ls"),
            added("e2", "exit 3"),
            ended("e1", true),
            ended("e2", false),
            // A patch to an entry nobody added, and a session state with an entry that failed.
            ended("nope", false),
            r#"{"jsonrpc":"2.0","id":4,"result":{"state":{"history":[{"id":"e3","type":"effect","detail":{"toolName":"file_system.read_file","input":{"path":"a"}},"state":{"status":"failed","error":{"message":"no"}}}]}}}"#.to_owned(),
        ]
        .join("\n");
        let s = app_server(&Input::from_bytes(text.as_bytes()));
        let ids: Vec<&str> = s.calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["e1", "e2", "e3"]);
        assert_eq!(s.get("e1").unwrap().failed_line, None);
        assert_eq!(s.get("e2").unwrap().failed_line, Some(4));
        assert_eq!(s.get("e3").unwrap().failed_line, Some(6));
        assert_eq!(
            s.get("e2").unwrap().args.get("command"),
            Some(&serde_json::json!("exit 3"))
        );
    }
}
