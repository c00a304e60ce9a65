//! The `Tracker`: one ACP connection's state machine, fed one raw line at a time
//! ([`Tracker::line`]) and closed with [`Tracker::finish`]. It follows the client's requests
//! (`initialize`, `session/new`, `session/prompt`) to their responses, the agent's tool calls
//! (`session/update` `tool_call` / `tool_call_update`) and permission requests
//! (`session/request_permission`) to the client's answers, and turns each change of a call into a
//! part update.
//!
//! A call whose frames carry `_meta.toolnorm` (an engine speaking toolnorm's ACP, see
//! `docs/acp.md`) is folded exactly as `model::acp::Fold` does; any other call is derived from
//! ACP's own fields ([`super::tools`]).

use crate::hash::HashMap;

use serde_json::Value;
use serde_json::value::RawValue;

use crate::model::acp_meta::{apply_toolnorm_meta, kind_of_acp_kind, toolnorm_meta};
use crate::model::{McpRef, NormalizedToolPart, ToolState};
use crate::providers::opencode::tools::split_declared_mcp;
use crate::providers::{PartStore, PartUpdate, first_line, line_text, parse_json};
use crate::stream::RawLine;

use super::tools::{CallView, derive};
use super::wire::{
    InitializeResult, Message, PermissionOption, PermissionOutcome, PermissionRequest, RpcError,
    SESSION_SETUP_METHODS, SessionNotification, SessionSetup, ToolCallFields, session_update_kind,
};

/// At most this many MCP server names are kept from the client's session requests; a stream
/// declaring more is told once, and the rest do not name calls.
const MAX_DECLARED_SERVERS: usize = 256;

#[derive(Default)]
struct Call {
    view: CallView,
    /// The exact part, once the agent has sent `_meta.toolnorm` for this call.
    ours: Option<NormalizedToolPart>,
    /// The client rejected the call's permission request (the option kind it chose).
    declined: Option<String>,
}

/// A permission request waiting for the client's answer.
struct Permission {
    tool_call_id: String,
    options: Vec<PermissionOption>,
}

#[derive(Default)]
pub(crate) struct Tracker {
    calls: HashMap<String, Call>,
    /// The client's requests waiting for a response: JSON-RPC id → method.
    requests: HashMap<String, String>,
    /// The agent's permission requests waiting for the client's answer, by JSON-RPC id.
    permissions: HashMap<String, Permission>,
    /// Who the agent said it is in its `initialize` response.
    agent: Option<(String, Option<String>)>,
    /// How many prompts the client sent (numbers the plan parts).
    prompts: usize,
    /// The plan part of the current prompt turn, once a `plan` update came.
    plan: Option<String>,
    /// The names of the MCP servers the client declared (`session/new` & co., `mcpServers`),
    /// each once: the only servers an agent's `<server>_<tool>` name is split against.
    mcp_servers: Vec<String>,
    /// More were declared than are kept (said once).
    servers_capped: bool,
    /// The working directory of the session the client set up last.
    cwd: Option<String>,
}

impl Tracker {
    pub(crate) fn new() -> Tracker {
        Tracker::default()
    }

    /// The agent's name and version, from its `initialize` response: `claude-agent-acp 0.23.1`.
    fn agent_label(&self) -> Option<String> {
        self.agent.as_ref().map(|(n, v)| match v {
            Some(v) => format!("{n} {v}"),
            None => n.clone(),
        })
    }

    /// Read one raw line, either direction.
    pub(crate) fn line(&mut self, line: &RawLine<'_>, store: &mut PartStore) {
        let Some(text) = line_text(line, store) else {
            return;
        };
        let Some(msg) = parse_json::<Message>(line, &text, store) else {
            return;
        };
        let n = line.number;
        match (msg.method.as_deref(), msg.id_key()) {
            (Some("session/update"), _) => self.session_update(n, msg.params, store),
            (Some("session/request_permission"), id) => {
                self.permission_request(n, id, msg.params, store);
            }
            (Some(method), Some(id)) => {
                if method == "session/prompt" {
                    self.prompts += 1;
                }
                if SESSION_SETUP_METHODS.contains(&method) {
                    self.declare_servers(n, msg.params, store);
                }
                self.requests.insert(id, method.to_owned());
            }
            (Some(_), None) => {}
            (None, Some(id)) if msg.is_response() => self.response(n, &id, &msg, store),
            (None, _) => {}
        }
    }

    /// Keep the MCP server names a session request declares.
    fn declare_servers(&mut self, n: u32, params: Option<&RawValue>, store: &mut PartStore) {
        let Some(setup) = params.and_then(|p| serde_json::from_str::<SessionSetup>(p.get()).ok())
        else {
            return;
        };
        if let Some(cwd) = &setup.cwd {
            self.cwd = Some(cwd.clone());
        }
        for name in setup.server_names() {
            if self.mcp_servers.iter().any(|s| s == name) {
                continue;
            }
            if self.mcp_servers.len() == MAX_DECLARED_SERVERS {
                if !self.servers_capped {
                    self.servers_capped = true;
                    store.warn(
                        n,
                        format!(
                            "more than {MAX_DECLARED_SERVERS} MCP servers declared; the others do not name calls"
                        ),
                    );
                }
                return;
            }
            self.mcp_servers.push(name.to_owned());
        }
    }

    /// The end of the stream: nothing is invented for calls still open (the rules name them).
    pub(crate) fn finish(&mut self, _store: &mut PartStore) {}

    fn session_update(&mut self, n: u32, params: Option<&RawValue>, store: &mut PartStore) {
        let Some(params) = params else { return };
        if session_update_kind(params)
            .is_some_and(|k| !matches!(k.as_str(), "tool_call" | "tool_call_update" | "plan"))
        {
            // Message and thought chunks, mode and command updates: no tool call in them.
            return;
        }
        let Ok(note) = serde_json::from_str::<SessionNotification>(params.get()) else {
            store.warn(n, "session/update without a readable `update`; skipped");
            return;
        };
        let first = match note.update.session_update.as_deref() {
            Some("tool_call") => true,
            Some("tool_call_update") => false,
            Some("plan") => {
                let id = self
                    .plan
                    .get_or_insert_with(|| format!("plan-{}", self.prompts.max(1)))
                    .clone();
                let entries = note.update.entries.clone().unwrap_or(Value::Null);
                store.upsert(n, super::tools::plan_update(&id, &entries));
                if self.agent.as_ref().map(|(name, _)| name.as_str())
                    == Some(super::openhands::AGENT_NAME)
                {
                    // OpenHands sends a task list's result as the plan, never as the call's.
                    let mut ended: Vec<String> = self
                        .calls
                        .iter_mut()
                        .filter(|(_, c)| c.ours.is_none())
                        .filter_map(|(id, c)| {
                            super::openhands::answered_by_plan(&mut c.view, &entries)
                                .then(|| id.clone())
                        })
                        .collect();
                    ended.sort();
                    for id in ended {
                        self.emit(n, &id, store);
                    }
                }
                return;
            }
            _ => return,
        };
        self.frame(n, &note.update, first, store);
    }

    /// One tool-call frame (a `tool_call`, an update, or a permission request's `toolCall`).
    fn frame(&mut self, n: u32, f: &ToolCallFields, first: bool, store: &mut PartStore) {
        let Some(id) = f.tool_call_id.clone() else {
            store.warn(n, "tool call without `toolCallId`; skipped");
            return;
        };
        if !first && !self.calls.contains_key(&id) && f.title.is_none() {
            store.warn(
                n,
                format!("tool_call_update for `{id}`, which no tool_call announced; skipped"),
            );
            return;
        }
        let call = self.calls.entry(id.clone()).or_default();
        if first {
            // ACP: a repeated `tool_call` replaces the call.
            call.view = CallView::default();
            call.ours = None;
        }
        call.view.apply(f);
        if call.view.declared_mcp.is_none() {
            call.view.declared_mcp = declared_mcp(&call.view, &self.mcp_servers);
        }
        let meta = f.meta.as_ref().map(|m| Value::Object(m.clone()));
        if let Some(ours) = toolnorm_meta(meta.as_ref()) {
            let mut part = match call.ours.take() {
                Some(p) if !first => p,
                _ => NormalizedToolPart {
                    id: id.clone(),
                    name: call.view.title.clone().unwrap_or_default(),
                    kind: kind_of_acp_kind(call.view.kind.as_deref().unwrap_or("other")),
                    title: call.view.title.clone().unwrap_or_default(),
                    input: Value::Null,
                    output: None,
                    error: None,
                    state: ToolState::Started,
                    timing: None,
                    metadata: None,
                },
            };
            exact_fields(&mut part, f, first);
            if let Err(e) = apply_toolnorm_meta(&mut part, ours) {
                store.warn(
                    n,
                    format!(
                        "`_meta.toolnorm.{}` of `{id}` unreadable: {}",
                        e.field, e.reason
                    ),
                );
            }
            call.ours = Some(part);
        } else if let Some(part) = call.ours.as_mut() {
            exact_fields(part, f, false);
        }
        self.emit(n, &id, store);
    }

    /// Push the call's current part into the store.
    fn emit(&self, n: u32, id: &str, store: &mut PartStore) {
        let Some(call) = self.calls.get(id) else {
            return;
        };
        let update = match &call.ours {
            Some(p) => PartUpdate {
                id: p.id.clone(),
                name: Some(p.name.clone()),
                kind: Some(p.kind),
                title: Some(p.title.clone()),
                input: Some(p.input.clone()),
                output: p.output.clone(),
                error: p.error.clone(),
                state: Some(p.state),
                timing: p.timing.clone(),
                metadata: p.metadata.clone(),
            },
            None => {
                let mut d = derive(&call.view, call.declined.as_deref());
                match self.agent.as_ref().map(|(name, _)| name.as_str()) {
                    Some("cline") => {
                        super::cline::refine_acp(&mut d, &call.view, self.cwd.as_deref());
                    }
                    Some(super::vibe::AGENT_NAME) => {
                        super::vibe::refine_acp(&mut d, &call.view, self.cwd.as_deref());
                    }
                    Some(super::openhands::AGENT_NAME) => {
                        super::openhands::refine_acp(&mut d, &call.view, self.cwd.as_deref());
                    }
                    Some(super::kimi::AGENT_NAME) => super::kimi::refine_acp(
                        &mut d,
                        &call.view,
                        self.cwd.as_deref(),
                        &self.mcp_servers,
                    ),
                    _ => {}
                }
                if let Some(agent) = self.agent_label() {
                    d.metadata
                        .extra
                        .insert("acpAgent".to_owned(), Value::String(agent));
                }
                PartUpdate {
                    id: id.to_owned(),
                    name: Some(d.name),
                    kind: Some(d.kind),
                    title: Some(d.title),
                    input: Some(d.input),
                    output: d.output,
                    error: d.error,
                    state: Some(d.state),
                    timing: None,
                    metadata: Some(d.metadata),
                }
            }
        };
        store.upsert(n, update);
    }

    fn permission_request(
        &mut self,
        n: u32,
        id: Option<String>,
        params: Option<&RawValue>,
        store: &mut PartStore,
    ) {
        let Some(req) =
            params.and_then(|p| serde_json::from_str::<PermissionRequest>(p.get()).ok())
        else {
            store.warn(
                n,
                "session/request_permission without a readable `toolCall`",
            );
            return;
        };
        let Some(call_id) = req.tool_call.tool_call_id.clone() else {
            return;
        };
        // The request may be the first the client hears of the call.
        let first = !self.calls.contains_key(&call_id);
        let agent = self.agent.as_ref().map(|(name, _)| name.as_str());
        if first
            && agent == Some(super::openhands::AGENT_NAME)
            && super::openhands::confirms_pending_actions(&call_id)
        {
            // The answer reaches the calls as their own results (a rejection each).
            store.info(
                n,
                format!("`{call_id}` asks to run the pending calls, and is no call itself"),
            );
            return;
        }
        if first && req.tool_call.title.is_none() {
            store.warn(n, format!("permission asked for unknown call `{call_id}`"));
        } else {
            self.frame(n, &req.tool_call, first, store);
        }
        if let Some(id) = id {
            self.permissions.insert(
                id,
                Permission {
                    tool_call_id: call_id,
                    options: req.options.unwrap_or_default(),
                },
            );
        }
    }

    fn response(&mut self, n: u32, id: &str, msg: &Message, store: &mut PartStore) {
        // Only the answers to permission requests, `initialize` and `session/prompt` are read.
        let wanted = self.permissions.contains_key(id)
            || self
                .requests
                .get(id)
                .is_some_and(|m| m == "initialize" || m == "session/prompt");
        if !wanted {
            self.requests.remove(id);
            return;
        }
        let result: Option<Value> = msg.result.and_then(|r| serde_json::from_str(r.get()).ok());
        // The client's answer to a permission request.
        let outcome = result.as_ref().and_then(|r| r.get("outcome"));
        if let Some(outcome) = outcome
            && let Some(p) = self.permissions.remove(id)
        {
            let outcome: Option<PermissionOutcome> = serde_json::from_value(outcome.clone()).ok();
            let chosen = outcome.as_ref().and_then(|o| match o.outcome.as_deref() {
                Some("selected") => p
                    .options
                    .iter()
                    .find(|opt| opt.option_id == o.option_id)
                    .and_then(|opt| opt.kind.clone()),
                Some("cancelled") => Some("cancelled".to_owned()),
                _ => None,
            });
            if let Some(kind) = chosen.filter(|k| k.starts_with("reject") || k == "cancelled")
                && let Some(call) = self.calls.get_mut(&p.tool_call_id)
                && call.ours.is_none()
            {
                call.declined = Some(kind);
                self.emit(n, &p.tool_call_id, store);
            }
            return;
        }
        let Some(method) = self.requests.remove(id) else {
            return;
        };
        match method.as_str() {
            "initialize" => {
                let result: InitializeResult = result
                    .and_then(|r| serde_json::from_value(r).ok())
                    .unwrap_or_default();
                if let Some(info) = result.agent_info
                    && let Some(name) = info.name
                {
                    self.agent = Some((name, info.version));
                }
            }
            "session/prompt" => {
                // The turn is over: its plan is settled.
                if let Some(plan) = self.plan.take() {
                    let mut done = PartUpdate::new(plan);
                    done.state = Some(ToolState::Complete);
                    store.upsert(n, done);
                }
                if let Some(err) = msg.error {
                    let e: RpcError = serde_json::from_str(err.get()).unwrap_or_default();
                    let message = e
                        .message
                        .as_deref()
                        .and_then(first_line)
                        .unwrap_or_else(|| "the prompt failed".to_owned());
                    store.abort_open(n, &message, "error");
                    return;
                }
                let stop = result
                    .as_ref()
                    .and_then(|r| r.get("stopReason"))
                    .and_then(Value::as_str);
                if stop == Some("cancelled") {
                    store.abort_open(n, "the turn was cancelled", "interrupted");
                }
            }
            _ => {}
        }
    }
}

/// The MCP identity of a call named `<server>_<tool>` (OpenCode's spelling) after a server the
/// client declared: its stated name, or its title when it states none (OpenCode titles an MCP
/// call with the tool id). A name with another prefix is left alone.
fn declared_mcp(view: &CallView, servers: &[String]) -> Option<McpRef> {
    if servers.is_empty() {
        return None;
    }
    let name = view.tool_name().or_else(|| view.title.clone())?;
    let (server, tool) = split_declared_mcp(name.trim(), servers.iter().map(String::as_str))?;
    Some(McpRef {
        server: server.to_owned(),
        tool: tool.to_owned(),
    })
}

/// ACP's own fields of a frame onto an exact (toolnorm-speaking) part, as `model::acp::Fold` does.
fn exact_fields(part: &mut NormalizedToolPart, f: &ToolCallFields, first: bool) {
    if let Some(t) = &f.title {
        part.title = t.clone();
    }
    if let Some(k) = &f.kind {
        part.kind = kind_of_acp_kind(k);
    }
    match f.status.as_deref() {
        Some(s) => {
            if let Some(state) = crate::model::acp_meta::state_of_status(s) {
                part.state = state;
            }
        }
        // `pending` is ACP's default and may be left out of a `tool_call`.
        None if first => part.state = ToolState::Started,
        None => {}
    }
    if let Some(v) = f.raw_input.as_ref().filter(|v| !v.is_null()) {
        part.input = v.clone();
    }
    if let Some(v) = f.raw_output.as_ref().filter(|v| !v.is_null()) {
        part.output = Some(v.clone());
    }
}
