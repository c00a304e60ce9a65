//! Codex: `codex exec --json PROMPT` recorded in wrap mode, or `codex app-server` driven over
//! JSON-RPC through the recording proxy. A `config.toml` in the scratch `CODEX_HOME` points it at
//! the model server (the Responses API) and gives it the fixture MCP server.

use std::path::Path;

use anyhow::Context;
use serde_json::{Value, json};

use super::{Driven, End, Launcher, proxied, wrapped};
use crate::scenario::driver::{LineChannel, ScriptedUser};
use crate::scenario::launch::{API_KEY, AgentCommand, Launch, Setup, write};
use crate::scenario::mcp_server::SERVER_NAME;
use crate::scenario::package::{Cli, Declared, Registry};
use crate::scenario::spec::Scenario;
use crate::stream::Dialect;

/// `codex exec` or `codex app-server`.
pub struct Codex {
    exec: bool,
}

/// `codex exec --json PROMPT`, recorded in wrap mode.
pub const EXEC: Codex = Codex { exec: true };
/// `codex app-server`, driven over JSON-RPC through the recording proxy.
pub const APP_SERVER: Codex = Codex { exec: false };

pub static CLI: Cli = Cli {
    package: "@openai/codex",
    registry: Registry::Npm,
    bin: "codex",
    display: "codex-cli",
    aliases: &[],
    node: true,
    ripgrep: false,
    newest_first: false,
    declared: Some(Declared::Call(Dialect::CodexRollout, call)),
};

/// A rollout line in which the model calls `tool` with empty arguments (the tool names the model
/// sees; `exec --json` and the app server name items, not tools).
fn call(tool: &str) -> Value {
    json!({"timestamp": "2026-01-01T00:00:00.000Z", "type": "response_item", "payload": {
        "type": "function_call", "name": tool, "arguments": "{}", "call_id": "call_1"}})
}

/// The tools Codex's model may call, and the fixture MCP server's as it names them.
pub const TOOLS: &[&str] = &[
    "exec_command",
    "write_stdin",
    "shell",
    "apply_patch",
    "update_plan",
    "web_search",
    "view_image",
    "get_goal",
    "create_goal",
    "update_goal",
    "request_user_input",
    "tool_search",
    // The `collaboration` namespace (`-c features.multi_agent_v2=true`).
    "spawn_agent",
    "wait_agent",
    "list_agents",
    "send_message",
    "followup_task",
    "interrupt_agent",
    // The older collab tools (not offered by 0.171.0).
    "send_input",
    "wait",
    "close_agent",
    "browser_navigate",
    "browser_snapshot",
    "browser_tabs_new",
    "artifacts_register",
];

impl Launcher for Codex {
    fn configure(&self, setup: &Setup<'_>, cmd: &mut AgentCommand) -> anyhow::Result<()> {
        let codex_home = setup.scratch.home.join(".codex");
        let mut cfg = format!(
            "model = \"gpt-5.5\"\nmodel_provider = \"mock\"\napproval_policy = \"never\"\nsandbox_mode = \"danger-full-access\"\n\n\
             [model_providers.mock]\nname = \"mock\"\nbase_url = \"{}/v1\"\nwire_api = \"responses\"\nenv_key = \"TOOLNORM_SCRIPTED_KEY\"\n\
             request_max_retries = 0\nstream_max_retries = 0\n",
            setup.model_url
        );
        if setup.scenario.mcp {
            let args = toml::Value::Array(
                setup
                    .mcp
                    .args
                    .iter()
                    .map(|a| toml::Value::String(a.clone()))
                    .collect(),
            );
            cfg.push_str(&format!(
                "\n[mcp_servers.{SERVER_NAME}]\ncommand = {}\nargs = {args}\n",
                toml::Value::String(setup.mcp.program.clone())
            ));
        }
        write(&codex_home.join("config.toml"), &cfg)?;
        cmd.env("CODEX_HOME", codex_home.display().to_string())
            .env("TOOLNORM_SCRIPTED_KEY", API_KEY);
        Ok(())
    }

    fn command(&self, setup: &Setup<'_>, cmd: &mut AgentCommand) {
        let s = setup.scenario;
        if self.exec {
            cmd.arg("exec")
                .arg("--json")
                .arg("--skip-git-repo-check")
                .arg("--dangerously-bypass-approvals-and-sandbox");
        } else {
            cmd.arg("app-server");
        }
        for a in &s.args {
            cmd.arg(a.clone());
        }
        if self.exec {
            cmd.arg(s.prompt.clone());
        }
    }

    fn drive(&self, launch: &Launch<'_>) -> anyhow::Result<Driven> {
        let s = launch.scenario;
        if self.exec {
            wrapped(launch, launch.interrupt()).map(|_| Driven::default())
        } else {
            proxied(launch, "codex app-server", End::Eof, |channel| {
                drive_app_server(channel, s, &launch.scratch.work)
            })
        }
    }
}

/// The client's reply to a `codex app-server` server→client request, and what to report about it.
/// Questions (`item/tool/requestUserInput`) get the scenario's answers, one list of labels per
/// question (a declined prompt: empty lists, Codex has no way to decline); approvals are declined
/// (scenarios run with `approvalPolicy: never`, so one is a surprise); anything else gets a
/// JSON-RPC error, so no request leaves the turn hanging.
fn server_request_reply(req: &Value, user: &mut ScriptedUser<'_>) -> (Value, Vec<String>) {
    let id = req.get("id").cloned().unwrap_or(Value::Null);
    let method = req.get("method").and_then(Value::as_str).unwrap_or("");
    let mut problems = Vec::new();
    let result = match method {
        "item/tool/requestUserInput" => {
            let questions = req
                .pointer("/params/questions")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            let answers = user.answer(questions.len()).unwrap_or(&[]);
            let map: serde_json::Map<String, Value> = questions
                .iter()
                .enumerate()
                .map(|(i, q)| {
                    let qid = q
                        .get("id")
                        .and_then(Value::as_str)
                        .map_or_else(|| format!("q{i}"), str::to_owned);
                    let labels = answers.get(i).cloned().unwrap_or_default();
                    (qid, json!({ "answers": labels }))
                })
                .collect();
            json!({ "answers": map })
        }
        "item/commandExecution/requestApproval" | "item/fileChange/requestApproval" => {
            problems.push(format!("codex app-server asked `{method}`; declined"));
            json!({ "decision": "decline" })
        }
        _ => {
            problems.push(format!(
                "codex app-server sent the request `{method}`, which the driver does not handle; answered with an error"
            ));
            return (
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": format!("the toolnorm scenario driver does not handle `{method}`")}}),
                problems,
            );
        }
    };
    (
        json!({"jsonrpc": "2.0", "id": id, "result": result}),
        problems,
    )
}

/// `codex app-server` over JSON-RPC: initialize, thread/start, turn/start, answering the server's
/// requests on the way, until the main thread's turn completes.
fn drive_app_server(channel: &mut LineChannel, s: &Scenario, cwd: &Path) -> anyhow::Result<Driven> {
    let mut user = ScriptedUser::new(&s.answers);
    let mut problems = Vec::new();
    // Read until a message matches `pred`, answering the server's requests on the way.
    let mut wait_for = |channel: &mut LineChannel,
                        pred: &dyn Fn(&Value) -> bool,
                        what: &str|
     -> anyhow::Result<Value> {
        channel.next_rpc(what, pred, &mut |req| {
            let (reply, p) = server_request_reply(req, &mut user);
            problems.extend(p);
            vec![reply]
        })
    };
    channel.send(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "toolnorm-scenario", "title": "toolnorm scenario", "version": env!("CARGO_PKG_VERSION")}}}),
    )?;
    wait_for(
        channel,
        &|v| v.get("id") == Some(&json!(1)),
        "the initialize reply",
    )?;
    channel.send(&json!({"jsonrpc": "2.0", "method": "initialized"}))?;
    let cwd_s = cwd.display().to_string();
    channel.send(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "thread/start", "params": {"cwd": cwd_s, "approvalPolicy": "never", "sandbox": "danger-full-access"}}),
    )?;
    let started = wait_for(
        channel,
        &|v| v.get("id") == Some(&json!(2)),
        "the thread/start reply",
    )?;
    let thread_id = started
        .pointer("/result/thread/id")
        .or_else(|| started.pointer("/result/threadId"))
        .and_then(Value::as_str)
        .context("thread/start returned no thread id")?
        .to_owned();
    channel.send(
        &json!({"jsonrpc": "2.0", "id": 3, "method": "turn/start", "params": {"threadId": thread_id, "input": [{"type": "text", "text": s.prompt}]}}),
    )?;
    // Subagents run their own threads with their own turns: wait for the main thread's.
    wait_for(
        channel,
        &|v| {
            v.get("method").and_then(Value::as_str) == Some("turn/completed")
                && v.pointer("/params/threadId").and_then(Value::as_str) == Some(&thread_id)
        },
        "turn/completed",
    )?;
    problems.extend(user.problems());
    Ok(Driven {
        problems,
        dismissed: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_get_the_scripted_answers_in_order() {
        let answers = [vec!["Patch".to_owned()], vec!["Yes".to_owned()]];
        let mut it = ScriptedUser::new(&answers);
        let req = json!({"id": 0, "method": "item/tool/requestUserInput", "params": {"threadId": "t", "turnId": "u", "itemId": "call_1",
            "questions": [{"id": "bump", "header": "Bump", "question": "Which bump?", "isOther": true, "isSecret": false, "options": []}]}});
        let (reply, problems) = server_request_reply(&req, &mut it);
        assert!(problems.is_empty());
        assert_eq!(
            reply,
            json!({"jsonrpc": "2.0", "id": 0, "result": {"answers": {"bump": {"answers": ["Patch"]}}}})
        );
        // Two questions, one answer left: the prompt is declined (answered with nothing, since
        // Codex cannot be told no), and the user reports the answers ran out.
        let req = json!({"id": 1, "method": "item/tool/requestUserInput", "params": {
            "questions": [{"id": "tag"}, {"id": "push"}]}});
        let (reply, problems) = server_request_reply(&req, &mut it);
        assert!(problems.is_empty());
        assert_eq!(reply["result"]["answers"]["tag"]["answers"], json!([]));
        assert_eq!(reply["result"]["answers"]["push"]["answers"], json!([]));
        assert_eq!(it.problems().len(), 2);
    }

    #[test]
    fn other_server_requests_never_hang() {
        let (reply, problems) = server_request_reply(
            &json!({"id": 7, "method": "item/commandExecution/requestApproval", "params": {}}),
            &mut ScriptedUser::new(&[]),
        );
        assert_eq!(reply["result"]["decision"], "decline");
        assert_eq!(problems.len(), 1);
        let (reply, _) = server_request_reply(
            &json!({"id": "x", "method": "mcpServer/elicitation/request"}),
            &mut ScriptedUser::new(&[]),
        );
        assert_eq!(reply["id"], "x");
        assert_eq!(reply["error"]["code"], -32601);
        // Garbage params do not panic.
        let (reply, _) = server_request_reply(
            &json!({"id": 2, "method": "item/tool/requestUserInput", "params": {"questions": "no"}}),
            &mut ScriptedUser::new(&[]),
        );
        assert_eq!(reply["result"]["answers"], json!({}));
    }
}
