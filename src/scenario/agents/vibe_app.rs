//! Mistral Vibe's app server (`vibe-app-server`, beside `vibe` and `vibe-acp`) driven over its
//! JSON-RPC through the recording proxy, as `codex app-server` is: `initialize` (and
//! `initialized`), `session/start` with the workspace trusted and calls approved
//! (`agentConfig.autoApprove`, the protocol's own setting; not with `permission_mode = "ask"`),
//! `turn/start` with the prompt, until the session's `turn/completed`. An approval the server
//! asks (a `callback/call` request, its `callback` a history entry of kind `approval`) is
//! acknowledged and approved with `callback/result`, as a client would; a question is declined
//! (an error result: the scenarios of this row script no answers). Vibe is configured as for its
//! other modes (`vibe.rs`).

use std::path::Path;

use anyhow::Context;
use serde_json::{Value, json};

use super::{Driven, End, Launcher, proxied};
use crate::scenario::driver::LineChannel;
use crate::scenario::launch::{AgentCommand, Launch, Setup};
use crate::scenario::spec::Scenario;
use crate::stream::Dialect;

/// `vibe-app-server`, driven over JSON-RPC.
pub struct VibeApp;

/// The one way to run it.
pub const APP_SERVER: VibeApp = VibeApp;

impl Launcher for VibeApp {
    fn configure(&self, setup: &Setup<'_>, cmd: &mut AgentCommand) -> anyhow::Result<()> {
        super::vibe::configure(setup, cmd)
    }

    fn command(&self, setup: &Setup<'_>, cmd: &mut AgentCommand) {
        // The package's `vibe-app-server` executable, beside `vibe-acp`.
        cmd.program = cmd.program.with_file_name("vibe-app-server");
        for a in &setup.scenario.args {
            cmd.arg(a.clone());
        }
    }

    fn dialect(&self, _: &Scenario) -> Option<Dialect> {
        Some(Dialect::VibeAppServer)
    }

    fn drive(&self, launch: &Launch<'_>) -> anyhow::Result<Driven> {
        let s = launch.scenario;
        proxied(launch, "vibe-app-server", End::Eof, |channel| {
            drive_app_server(channel, s, &launch.scratch.work)
        })
    }
}

/// The `callback/result` that answers a `callback` history entry the server delivered, if it is
/// one still open (sent for the entry's own session), and what to report about it: an approval
/// is approved (for this call), a question declined, any other kind answered with an error and
/// reported.
fn callback_answer(entry: &Value, id: u64) -> (Option<Value>, Vec<String>) {
    if entry.get("type").and_then(Value::as_str) != Some("callback")
        || entry.pointer("/state/status").and_then(Value::as_str) != Some("open")
    {
        return (None, Vec::new());
    }
    let Some(callback) = entry.get("callbackId").and_then(Value::as_str) else {
        return (
            None,
            vec!["vibe-app-server opened a callback without a callbackId".to_owned()],
        );
    };
    let kind = entry
        .pointer("/detail/kind")
        .and_then(Value::as_str)
        .unwrap_or("");
    let mut problems = Vec::new();
    let result = match kind {
        "approval" => json!({"callbackId": callback,
            "output": {"type": "approval", "decision": {"type": "approve"}}}),
        "user_input" => json!({"callbackId": callback,
            "error": {"message": "the scenario answers no question", "code": "declined"}}),
        other => {
            problems.push(format!(
                "vibe-app-server opened a `{other}` callback, which the driver does not handle; answered with an error"
            ));
            json!({"callbackId": callback,
                "error": {"message": format!("the toolnorm scenario driver does not handle `{other}` callbacks")}})
        }
    };
    let session = entry.get("sessionId").cloned().unwrap_or(Value::Null);
    let request = json!({"jsonrpc": "2.0", "id": id, "method": "callback/result",
        "params": {"sessionId": session, "result": result}});
    (Some(request), problems)
}

/// What the client sends for a request of the server (`req`), and what to report about it: a
/// `callback/call` (an approval or a question, `params.callback` a `callback` history entry) is
/// acknowledged (`{callbackId, accepted: true}`) and then answered with a `callback/result`
/// request of id `id` ([`callback_answer`]); any other request gets an error (none is expected:
/// the client offers no tools of its own), so nothing waits on it.
fn server_request_replies(req: &Value, id: u64) -> (Vec<Value>, Vec<String>) {
    let req_id = req.get("id").cloned().unwrap_or(Value::Null);
    let method = req.get("method").and_then(Value::as_str).unwrap_or("");
    let callback = req
        .pointer("/params/callback")
        .filter(|_| method == "callback/call");
    let Some(callback) = callback else {
        return (
            vec![
                json!({"jsonrpc": "2.0", "id": req_id, "error": {"code": "method_not_found",
                "message": format!("the toolnorm scenario driver does not handle `{method}`")}}),
            ],
            vec![format!(
                "vibe-app-server sent the request `{method}`, which the driver does not handle; answered with an error"
            )],
        );
    };
    let callback_id = callback.get("callbackId").cloned().unwrap_or(Value::Null);
    let mut out = vec![json!({"jsonrpc": "2.0", "id": req_id,
        "result": {"callbackId": callback_id, "accepted": true}})];
    let (answer, problems) = callback_answer(callback, id);
    out.extend(answer);
    (out, problems)
}

/// `vibe-app-server` over JSON-RPC: initialize, session/start, turn/start, answering the
/// callbacks the session opens on the way, until its turn completes.
fn drive_app_server(channel: &mut LineChannel, s: &Scenario, cwd: &Path) -> anyhow::Result<Driven> {
    let mut problems = Vec::new();
    let mut next_id = 10u64;
    let mut wait_for = |channel: &mut LineChannel,
                        pred: &dyn Fn(&Value) -> bool,
                        what: &str|
     -> anyhow::Result<Value> {
        channel.next_rpc(what, pred, &mut |req| {
            let (replies, p) = server_request_replies(req, next_id);
            next_id += 1;
            problems.extend(p);
            replies
        })
    };
    channel.send(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "clientInfo": {"name": "toolnorm-scenario", "title": "toolnorm scenario",
            "version": env!("CARGO_PKG_VERSION")},
        "capabilities": {"callbackKinds": ["approval", "user_input"]}}}),
    )?;
    wait_for(
        channel,
        &|v| v.get("id") == Some(&json!(1)),
        "the initialize reply",
    )?;
    channel.send(&json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}))?;
    let cwd_s = cwd.display().to_string();
    // `permission_mode = "ask"`: the server asks, and the driver approves each call.
    let auto_approve = s.permission_mode.as_deref() != Some("ask");
    channel.send(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "session/start", "params": {
        "agentConfig": {"cwd": cwd_s, "autoApprove": auto_approve, "trustWorkspace": true}}}),
    )?;
    let started = wait_for(
        channel,
        &|v| v.get("id") == Some(&json!(2)),
        "the session/start reply",
    )?;
    let id = started
        .pointer("/result/state/session/id")
        .and_then(Value::as_str)
        .context("session/start returned no session id")?
        .to_owned();
    channel.send(
        &json!({"jsonrpc": "2.0", "id": 3, "method": "turn/start", "params": {
        "sessionId": id, "message": [{"type": "text", "text": s.prompt}]}}),
    )?;
    // A subagent runs a child session with turns of its own: wait for this session's.
    wait_for(
        channel,
        &|v| {
            v.get("method").and_then(Value::as_str) == Some("turn/completed")
                && v.pointer("/params/sessionId").and_then(Value::as_str) == Some(&id)
        },
        "turn/completed",
    )?;
    Ok(Driven {
        problems,
        dismissed: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn callback(kind: &str, status: &str) -> Value {
        json!({"id": "e1", "sessionId": "s1", "type": "callback", "callbackId": "cb1", "title": "bash",
            "detail": {"kind": kind}, "state": {"status": status}})
    }

    #[test]
    fn an_open_approval_is_approved() {
        let (request, problems) = callback_answer(&callback("approval", "open"), 10);
        assert!(problems.is_empty());
        assert_eq!(
            request.unwrap(),
            json!({"jsonrpc": "2.0", "id": 10, "method": "callback/result", "params": {
                "sessionId": "s1", "result": {"callbackId": "cb1",
                    "output": {"type": "approval", "decision": {"type": "approve"}}}}})
        );
    }

    #[test]
    fn other_entries_and_answered_callbacks_get_no_answer() {
        for entry in [
            callback("approval", "answered"),
            json!({"id": "e2", "type": "effect", "state": {"status": "open"}}),
            json!("not an entry"),
        ] {
            let (request, problems) = callback_answer(&entry, 10);
            assert!(request.is_none() && problems.is_empty(), "{entry}");
        }
        // An open callback without its id is reported, not answered.
        let mut entry = callback("approval", "open");
        entry.as_object_mut().unwrap().remove("callbackId");
        let (request, problems) = callback_answer(&entry, 10);
        assert!(request.is_none());
        assert_eq!(problems.len(), 1);
    }

    #[test]
    fn questions_are_declined_and_other_kinds_reported() {
        let (request, problems) = callback_answer(&callback("user_input", "open"), 12);
        assert_eq!(
            request.unwrap()["params"]["result"]["error"]["code"],
            "declined"
        );
        assert!(problems.is_empty());
        let (request, problems) = callback_answer(&callback("connector_auth", "open"), 13);
        assert!(request.unwrap()["params"]["result"]["error"].is_object());
        assert_eq!(problems.len(), 1);
    }

    #[test]
    fn a_callback_call_is_acknowledged_then_answered_and_other_requests_get_an_error() {
        let req = json!({"jsonrpc": "2.0", "id": 0, "method": "callback/call",
            "params": {"callback": callback("approval", "open")}});
        let (replies, problems) = server_request_replies(&req, 11);
        assert!(problems.is_empty());
        assert_eq!(
            replies[0],
            json!({"jsonrpc": "2.0", "id": 0, "result": {"callbackId": "cb1", "accepted": true}})
        );
        assert_eq!(replies[1]["method"], "callback/result");
        assert_eq!(replies[1]["id"], 11);
        assert_eq!(replies[1]["params"]["sessionId"], "s1");
        assert_eq!(replies.len(), 2);
        // Another request, or a callback/call without its callback: an error, reported.
        for req in [
            json!({"jsonrpc": "2.0", "id": 1, "method": "session/spawn", "params": {}}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "callback/call", "params": 7}),
        ] {
            let (replies, problems) = server_request_replies(&req, 12);
            assert_eq!(replies.len(), 1);
            assert_eq!(replies[0]["id"], req["id"]);
            assert_eq!(replies[0]["error"]["code"], "method_not_found");
            assert_eq!(problems.len(), 1);
        }
    }
}
