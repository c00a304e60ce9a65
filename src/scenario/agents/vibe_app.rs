//! Mistral Vibe's app server (`vibe-app-server`, beside `vibe` and `vibe-acp`) driven over its
//! JSON-RPC through the recording proxy, as `codex app-server` is: `initialize` (and
//! `initialized`), `session/start`
//! with the workspace trusted and calls approved (`agentConfig.autoApprove`, the protocol's own
//! setting), `turn/start` with the prompt, until the session's `turn/completed`. An approval the
//! server asks anyway (a `callback` history entry of kind `approval`) is approved with
//! `callback/result`, as a client would; a question is declined (an error result: the scenarios
//! of this row script no answers). Vibe is configured as for its other modes (`vibe.rs`).

use std::path::Path;

use anyhow::{Context, bail};
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

/// The `callback/result` that answers a `callback` history entry the server added, if it is one
/// still open, and what to report about it: an approval is approved (for this call), a question
/// declined, any other kind answered with an error and reported.
fn callback_answer(session: &str, entry: &Value, id: u64) -> (Option<Value>, Vec<String>) {
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
    let request = json!({"jsonrpc": "2.0", "id": id, "method": "callback/result",
        "params": {"sessionId": session, "result": result}});
    (Some(request), problems)
}

/// `vibe-app-server` over JSON-RPC: initialize, session/start, turn/start, answering the
/// callbacks the session opens on the way, until its turn completes.
fn drive_app_server(channel: &mut LineChannel, s: &Scenario, cwd: &Path) -> anyhow::Result<Driven> {
    let mut problems = Vec::new();
    let mut next_id = 10u64;
    // The session, once started: its callbacks are answered.
    let mut session: Option<String> = None;
    let mut wait_for = |channel: &mut LineChannel,
                        session: &Option<String>,
                        pred: &dyn Fn(&Value) -> bool,
                        what: &str|
     -> anyhow::Result<Value> {
        loop {
            let v = channel.next(what)?;
            if v.get("id").is_some() && v.get("method").is_some() {
                // A server→client request (none is expected without client tools): an error
                // answer, so nothing waits on it.
                let method = v.get("method").and_then(Value::as_str).unwrap_or("");
                problems.push(format!(
                    "vibe-app-server sent the request `{method}`, which the driver does not handle; answered with an error"
                ));
                channel.send(&json!({"jsonrpc": "2.0", "id": v["id"], "error": {"code": -32601,
                    "message": format!("the toolnorm scenario driver does not handle `{method}`")}}))?;
                continue;
            }
            if let Some(e) = v.get("error").filter(|_| v.get("id").is_some()) {
                bail!("vibe-app-server answered {what} with an error: {e}");
            }
            if let (Some(session), Some("history/entryAdded")) =
                (session, v.get("method").and_then(Value::as_str))
                && let Some(entry) = v.pointer("/params/entry")
            {
                let (request, p) = callback_answer(session, entry, next_id);
                problems.extend(p);
                if let Some(request) = request {
                    next_id += 1;
                    channel.send(&request)?;
                }
            }
            if pred(&v) {
                return Ok(v);
            }
        }
    };
    channel.send(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "clientInfo": {"name": "toolnorm-scenario", "title": "toolnorm scenario",
            "version": env!("CARGO_PKG_VERSION")},
        "capabilities": {"callbackKinds": ["approval", "user_input"]}}}),
    )?;
    wait_for(
        channel,
        &session,
        &|v| v.get("id") == Some(&json!(1)),
        "the initialize reply",
    )?;
    channel.send(&json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}))?;
    let cwd_s = cwd.display().to_string();
    channel.send(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "session/start", "params": {
        "agentConfig": {"cwd": cwd_s, "autoApprove": true, "trustWorkspace": true}}}),
    )?;
    let started = wait_for(
        channel,
        &session,
        &|v| v.get("id") == Some(&json!(2)),
        "the session/start reply",
    )?;
    let id = started
        .pointer("/result/state/session/id")
        .and_then(Value::as_str)
        .context("session/start returned no session id")?
        .to_owned();
    session = Some(id.clone());
    channel.send(
        &json!({"jsonrpc": "2.0", "id": 3, "method": "turn/start", "params": {
        "sessionId": id, "message": [{"type": "text", "text": s.prompt}]}}),
    )?;
    // A subagent runs a child session with turns of its own: wait for this session's.
    wait_for(
        channel,
        &session,
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
        json!({"id": "e1", "type": "callback", "callbackId": "cb1", "title": "bash",
            "detail": {"kind": kind}, "state": {"status": status}})
    }

    #[test]
    fn an_open_approval_is_approved() {
        let (request, problems) = callback_answer("s1", &callback("approval", "open"), 10);
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
            let (request, problems) = callback_answer("s1", &entry, 10);
            assert!(request.is_none() && problems.is_empty(), "{entry}");
        }
        // An open callback without its id is reported, not answered.
        let mut entry = callback("approval", "open");
        entry.as_object_mut().unwrap().remove("callbackId");
        let (request, problems) = callback_answer("s1", &entry, 10);
        assert!(request.is_none());
        assert_eq!(problems.len(), 1);
    }

    #[test]
    fn questions_are_declined_and_other_kinds_reported() {
        let (request, problems) = callback_answer("s", &callback("user_input", "open"), 12);
        assert_eq!(
            request.unwrap()["params"]["result"]["error"]["code"],
            "declined"
        );
        assert!(problems.is_empty());
        let (request, problems) = callback_answer("s", &callback("connector_auth", "open"), 13);
        assert!(request.unwrap()["params"]["result"]["error"].is_object());
        assert_eq!(problems.len(), 1);
    }
}
