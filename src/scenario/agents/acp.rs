//! The ACP adapters — Zed's `claude-agent-acp` and `codex-acp`; `opencode acp`, `kilo acp`,
//! `droid exec --output-format acp`, `copilot --acp`, `gemini --acp` and `qwen --acp` — driven
//! with toolnorm as the ACP client through the recording proxy: `initialize`, `session/new` (in
//! the scratch workspace), one `session/prompt`, every `session/request_permission` answered with
//! the first option that allows, until the prompt's response. Each adapter is configured as its
//! native CLI is (the model server, the fixture MCP server); Claude's adapter and `opencode acp`
//! get the MCP server in `session/new`, as an editor passes it (so the recording names the
//! servers the client declared, which OpenCode's `<server>_<tool>` names are split against), the
//! others read it from their configuration.

use std::path::Path;

use serde_json::{Value, json};

use super::{Driven, End, Launcher, proxied};
use crate::scenario::driver::LineChannel;
use crate::scenario::interrupt::Interrupt;
use crate::scenario::launch::{AgentCommand, Launch, Setup};
use crate::scenario::mcp_server::{SERVER_NAME, ServerCommand};
use crate::scenario::package::{Cli, Registry};
use crate::scenario::spec::Scenario;

/// One ACP adapter: how it is configured and started (its row in the registry says so), then
/// driven as an ACP client.
pub struct Acp {
    /// The launcher whose configuration it is given (the native CLI's, the model server and the
    /// fixture MCP server in it).
    pub configure_as: &'static dyn Launcher,
    /// The launcher whose command line it is started with, when not `args` (Copilot CLI's flags
    /// carry its MCP server).
    pub command_as: Option<&'static dyn Launcher>,
    /// Its arguments before the scenario's (`acp`, `--acp`, ...).
    pub args: &'static [&'static str],
    /// What it is called in messages.
    pub who: &'static str,
    /// How it is ended once its session is over.
    pub end: End,
    /// It is given the fixture MCP server in `session/new`, as an editor passes it, rather than
    /// in its configuration.
    pub mcp_in_session: bool,
}

/// Zed's Claude ACP adapter (formerly `@zed-industries/claude-code-acp`).
pub static CLAUDE_ACP_CLI: Cli = Cli {
    package: "@zed-industries/claude-agent-acp",
    registry: Registry::Npm,
    bin: "claude-agent-acp",
    display: "claude-agent-acp",
    aliases: &[],
    node: true,
    ripgrep: false,
    newest_first: false,
    declared: None,
};

/// Zed's Codex ACP adapter.
pub static CODEX_ACP_CLI: Cli = Cli {
    package: "@zed-industries/codex-acp",
    registry: Registry::Npm,
    bin: "codex-acp",
    display: "codex-acp",
    aliases: &[],
    node: true,
    ripgrep: false,
    newest_first: false,
    declared: None,
};

/// ACP's protocol version the client speaks.
const PROTOCOL_VERSION: u64 = 1;

impl Acp {
    /// An agent whose own ACP launcher both configures it and gives its command line (its ACP
    /// mode's flags and the MCP server are in what that launcher builds).
    pub const fn own(
        launcher: &'static dyn Launcher,
        who: &'static str,
        mcp_in_session: bool,
    ) -> Acp {
        Acp {
            configure_as: launcher,
            command_as: Some(launcher),
            args: &[],
            who,
            end: End::Eof,
            mcp_in_session,
        }
    }
}

impl Launcher for Acp {
    fn configure(&self, setup: &Setup<'_>, cmd: &mut AgentCommand) -> anyhow::Result<()> {
        self.configure_as.configure(setup, cmd)
    }

    fn command(&self, setup: &Setup<'_>, cmd: &mut AgentCommand) {
        if let Some(launcher) = self.command_as {
            return launcher.command(setup, cmd);
        }
        for a in self.args {
            cmd.arg(*a);
        }
        for a in &setup.scenario.args {
            cmd.arg(a.clone());
        }
    }

    fn drive(&self, launch: &Launch<'_>) -> anyhow::Result<Driven> {
        let s = launch.scenario;
        let mcp = if s.mcp && self.mcp_in_session {
            acp_mcp_servers(launch.mcp)
        } else {
            json!([])
        };
        let cwd = launch.scratch.work.display().to_string();
        proxied(launch, self.who, self.end, |channel| {
            drive_acp(channel, s, &cwd, mcp, &launch.scratch.root)
        })
    }
}

/// The fixture MCP server as ACP's `session/new` takes it: one stdio server,
/// `[{name, command, args, env}]`.
fn acp_mcp_servers(server: &ServerCommand) -> Value {
    json!([{"name": SERVER_NAME, "command": server.program, "args": server.args, "env": []}])
}

/// Wait for the response to request `id`, answering the agent's own requests meanwhile.
fn response(
    channel: &mut LineChannel,
    id: u64,
    what: &str,
    problems: &mut Vec<String>,
) -> anyhow::Result<Value> {
    response_or_cancel(channel, id, what, problems, None)
}

/// [`response`], sending `session/cancel` for the session at the given time (an interrupted
/// turn, as an editor's stop button ends it) if the response has not come by then.
fn response_or_cancel(
    channel: &mut LineChannel,
    id: u64,
    what: &str,
    problems: &mut Vec<String>,
    mut cancel: Option<(Interrupt, &Value)>,
) -> anyhow::Result<Value> {
    loop {
        let check = cancel.as_ref().map(|(i, _)| i.next_check());
        let Some(v) = channel.next_before(check, what)? else {
            let seen = &channel.seen;
            let shown = |text: &str| seen.iter().any(|l| l.contains(text));
            if let Some((_, session)) = cancel.take_if(|(i, _)| i.due(shown)) {
                channel.send(&json!({"jsonrpc": "2.0", "method": "session/cancel",
                    "params": {"sessionId": session}}))?;
            }
            continue;
        };
        if let Some(method) = v.get("method").and_then(Value::as_str) {
            if let Some(req_id) = v.get("id").cloned() {
                let reply = answer(method, v.get("params"), problems);
                let mut msg = json!({"jsonrpc": "2.0", "id": req_id});
                match reply {
                    Ok(result) => msg["result"] = result,
                    Err(error) => msg["error"] = error,
                }
                channel.send(&msg)?;
            }
            continue;
        }
        if v.get("id").and_then(Value::as_u64) == Some(id) {
            if let Some(err) = v.get("error") {
                anyhow::bail!("{what} failed: {err}");
            }
            return Ok(v.get("result").cloned().unwrap_or(Value::Null));
        }
    }
}

/// The client's answer to one of the agent's requests: a permission request gets the first
/// option that allows; anything else (the client offers no file system or terminal) an error.
fn answer(
    method: &str,
    params: Option<&Value>,
    problems: &mut Vec<String>,
) -> Result<Value, Value> {
    if method != "session/request_permission" {
        // A method of ACP's own the client does not offer is a problem of the run; an agent's
        // extension (Qwen Code's `craft/drainMidTurnQueue`) is answered "method not found", as
        // ACP has a client answer what it does not know.
        let acp_own = ["fs/", "terminal/", "session/"]
            .iter()
            .any(|p| method.starts_with(p));
        if acp_own {
            problems.push(format!(
                "the agent asked the client for {method}, which it does not offer"
            ));
        }
        return Err(json!({"code": -32601, "message": format!("method not found: {method}")}));
    }
    let options = params
        .and_then(|p| p.get("options"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let kind = |o: &Value| o.get("kind").and_then(Value::as_str).map(str::to_owned);
    let chosen = ["allow_once", "allow_always"]
        .iter()
        .find_map(|k| options.iter().find(|o| kind(o).as_deref() == Some(*k)))
        .or_else(|| options.first());
    match chosen.and_then(|o| o.get("optionId")) {
        Some(id) => Ok(json!({"outcome": {"outcome": "selected", "optionId": id}})),
        None => {
            problems.push("a permission request offered no option".to_owned());
            Ok(json!({"outcome": {"outcome": "cancelled"}}))
        }
    }
}

/// One ACP session: initialize, session/new, the prompt, until its response.
fn drive_acp(
    channel: &mut LineChannel,
    s: &Scenario,
    cwd: &str,
    mcp_servers: Value,
    scratch: &Path,
) -> anyhow::Result<Driven> {
    let mut problems = Vec::new();
    channel.send(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": PROTOCOL_VERSION,
        "clientCapabilities": {"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false},
        "clientInfo": {"name": "toolnorm", "version": env!("CARGO_PKG_VERSION")}
    }}))?;
    response(channel, 0, "the initialize response", &mut problems)?;
    channel.send(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {
            "cwd": cwd, "mcpServers": mcp_servers
        }}),
    )?;
    let session = response(channel, 1, "the session/new response", &mut problems)?;
    let session_id = session
        .get("sessionId")
        .cloned()
        .ok_or_else(|| anyhow::anyhow!("session/new answered without a sessionId: {session}"))?;
    channel.send(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": {
            "sessionId": session_id, "prompt": [{"type": "text", "text": s.prompt}]
        }}),
    )?;
    let cancel_at = Interrupt::of(s, scratch).map(|i| (i, &session_id));
    let done = response_or_cancel(
        channel,
        2,
        "the session/prompt response",
        &mut problems,
        cancel_at,
    )?;
    let want = if s.interrupt_after_secs.is_some() {
        "cancelled"
    } else {
        "end_turn"
    };
    match done.get("stopReason").and_then(Value::as_str) {
        Some(r) if r == want => {}
        other => problems.push(format!("the prompt stopped with {other:?}, not {want}")),
    }
    Ok(Driven {
        problems,
        dismissed: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mcp_server_is_declared_as_a_stdio_server() {
        let server = ServerCommand {
            program: "/bin/toolnorm".to_owned(),
            args: vec!["mcp-fixture-server".to_owned()],
        };
        assert_eq!(
            acp_mcp_servers(&server),
            json!([{"name": "amalgm", "command": "/bin/toolnorm",
                "args": ["mcp-fixture-server"], "env": []}])
        );
    }

    #[test]
    fn permission_requests_get_the_first_allowing_option() {
        let mut problems = Vec::new();
        let params = json!({"options": [
            {"optionId": "no", "kind": "reject_once"},
            {"optionId": "always", "kind": "allow_always"},
            {"optionId": "yes", "kind": "allow_once"}]});
        let r = answer("session/request_permission", Some(&params), &mut problems).unwrap();
        assert_eq!(r["outcome"]["optionId"], "yes");
        assert!(answer("fs/read_text_file", None, &mut problems).is_err());
        assert_eq!(problems.len(), 1);
    }
}
