//! The per-session state of a Claude stream, shared by both dialects: [`Tracker`] opens a part
//! for every assistant `tool_use` block, closes it with the user `tool_result` block, and applies
//! subagent task lines, streamed blocks, permission denials and interrupts. Dialect files only
//! decide which lines carry what and call in here; how a result's text reads is in [`tools`].

use crate::hash::{HashMap, HashSet};
use std::borrow::Cow;

use serde_json::Value;
use serde_json::value::RawValue;

mod tasks;

pub(crate) use tasks::TaskLine;

use super::background::{launch_notice, unwrap_hand_back};
use super::notification;
use super::tools::{self, INTERRUPTED_BY_USER};
use super::wire::{Block, Content, Message, StructuredResult};
use crate::model::{Attachment, TimeValue, Timing, ToolError, ToolKind, ToolMetadata, ToolState};
use crate::providers::{PartStore, PartUpdate, first_line};

/// Where a message came from: its raw line, timestamp and subagent context.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Origin<'c> {
    pub line: u32,
    pub timestamp: Option<&'c str>,
    /// The Agent/Task call this message ran inside.
    pub parent: Option<&'c str>,
    /// The line belongs to a subagent (transcript `isSidechain`, progress embeds, stream-json lines
    /// with a parent).
    pub sidechain: bool,
}

/// A tool_result seen before its tool_use (out-of-order streams): kept until the call appears.
#[derive(Debug)]
struct PendingResult {
    line: u32,
    timestamp: Option<String>,
    outcome: ResultData,
    structured: Option<String>,
}

/// What a tool_result block says, before knowing which tool it answers.
#[derive(Debug, Default, Clone)]
struct ResultData {
    text: String,
    attachments: Vec<Attachment>,
    is_error: bool,
    /// `content` was an object (server-tool error payloads).
    object_content: bool,
}

/// The state of one stream across its lines: the cwd, results waiting for their call, task ids,
/// streamed blocks and the open subagent calls.
#[derive(Debug, Default)]
pub(crate) struct Tracker {
    cwd: Option<String>,
    pending: HashMap<String, PendingResult>,
    /// task_id → tool_use id (`task_updated` names only the task).
    tasks: HashMap<String, String>,
    /// (parent call, block index) of streamed blocks → (tool id, accumulated input JSON).
    streaming: HashMap<(Option<String>, u64), (String, String)>,
    /// Subagent calls of the main conversation, in order (inline sidechain attribution).
    subagents: Vec<String>,
    /// Calls whose work goes on in the background (an async `Agent`, a `run_in_background`
    /// `Bash`, a `Monitor`): their tool_result is a launch notice, their task's notification the
    /// outcome.
    background: HashSet<String>,
    /// `<task-notification>`s waiting for the launch notice that names their task, by task id
    /// (or call id).
    notices: HashMap<String, tasks::PendingNotice>,
}

/// `TaskOutput`, `TaskStop` and their older names: follow-ups of a background task.
fn task_follow_up(name: &str, input: &Value) -> Option<String> {
    if !matches!(
        name,
        "TaskOutput" | "TaskStop" | "BashOutput" | "KillShell" | "KillBash"
    ) {
        return None;
    }
    ["task_id", "shell_id", "bash_id"]
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
        .filter(|t| !t.trim().is_empty())
        .map(str::to_owned)
}

impl Tracker {
    pub(crate) fn set_cwd(&mut self, cwd: Option<&str>) {
        if let Some(c) = cwd.filter(|c| !c.is_empty())
            && self.cwd.as_deref() != Some(c)
        {
            self.cwd = Some(c.to_owned());
        }
    }

    /// The single Agent/Task call still open in the main conversation, if exactly one: old
    /// transcripts write subagent lines inline (`isSidechain`) without naming their call.
    pub(crate) fn sole_open_subagent(&self, store: &PartStore) -> Option<String> {
        let mut open = self
            .subagents
            .iter()
            .filter(|id| store.get(id).is_some_and(|p| !p.state.is_terminal()));
        let first = open.next()?;
        open.next().is_none().then(|| first.clone())
    }

    /// An assistant message: every tool-bearing block becomes or updates a part.
    pub(crate) fn assistant(
        &mut self,
        origin: Origin<'_>,
        msg: &Message<'_>,
        store: &mut PartStore,
    ) {
        // API-error turns are written as assistant messages of a fake model; they call no tools.
        if msg.model.get() == Some("<synthetic>") {
            return;
        }
        let Some(content) = &msg.content else { return };
        for block in content.blocks() {
            match block.ty() {
                // `tool_use`, `server_tool_use`, `mcp_tool_use` and any newer `*_tool_use` block.
                ty if ty.ends_with("tool_use") => {
                    self.tool_use(origin, block, false, store);
                }
                ty if ty.ends_with("_tool_result") => {
                    // Server tools answer inside the assistant message itself.
                    self.tool_result(origin, block, None, store);
                }
                _ => {}
            }
        }
    }

    /// A user message: tool_result blocks close parts; `<task-notification>` text ends background
    /// calls; an interrupt marker ends the turn's open calls ([`Self::end_turn`]).
    pub(crate) fn user(
        &mut self,
        origin: Origin<'_>,
        msg: &Message<'_>,
        structured: Option<&RawValue>,
        store: &mut PartStore,
    ) {
        let Some(content) = &msg.content else { return };
        match content {
            Content::Text(t) => {
                if t.trim_start().starts_with("[Request interrupted by user") {
                    self.end_turn(origin.line, INTERRUPTED_BY_USER, "interrupted", store);
                } else if notification::is_carrier(t) {
                    self.notifications(origin.line, t, store);
                }
            }
            Content::Blocks(_) => {
                // The structured result belongs to the line's only tool_result.
                let results = content.blocks().filter(|b| b.ty() == "tool_result").count();
                let structured = if results == 1 { structured } else { None };
                let mut interrupted = false;
                for block in content.blocks() {
                    match block.ty() {
                        "tool_result" => self.tool_result(origin, block, structured, store),
                        "text" => {
                            let Some(raw) = block.text.map(RawValue::get) else {
                                continue;
                            };
                            interrupted |= raw.starts_with("\"[Request interrupted by user");
                            if raw.contains("task-notification>")
                                && let Ok(text) = serde_json::from_str::<String>(raw)
                            {
                                self.notifications(origin.line, &text, store);
                            }
                        }
                        _ => {}
                    }
                }
                if interrupted {
                    self.end_turn(origin.line, INTERRUPTED_BY_USER, "interrupted", store);
                }
            }
            Content::Other => {}
        }
    }

    /// A tool_use block. `partial`: from a `content_block_start` stream event, input still `{}`.
    pub(crate) fn tool_use(
        &mut self,
        origin: Origin<'_>,
        block: &Block<'_>,
        partial: bool,
        store: &mut PartStore,
    ) {
        let (Some(id), Some(name)) = (block.id.get(), block.name.get()) else {
            store.info(origin.line, "tool_use block without id or name skipped");
            return;
        };
        let input: Value = block
            .input
            .and_then(|raw| serde_json::from_str(raw.get()).ok())
            .unwrap_or_else(|| Value::Object(Default::default()));
        let existing = store.get(id);
        let known = existing.is_some();
        let has_start = existing
            .and_then(|p| p.timing.as_ref())
            .is_some_and(|t| t.started_at.is_some());
        // A stream start after the full message (or a replay) must not blank the input.
        let keep_input = partial && known;
        let described = tools::describe(
            name,
            if keep_input {
                &existing.unwrap().input
            } else {
                &input
            },
            self.cwd.as_deref(),
        );
        let mut u = PartUpdate::new(id);
        u.state = Some(if partial {
            ToolState::Started
        } else {
            ToolState::Running
        });
        if !keep_input {
            u.input = Some(input);
        }
        u.name = Some(described.name);
        u.kind = Some(described.kind);
        u.title = Some(described.title);
        if !has_start {
            u.timing = origin.timestamp.map(|t| Timing {
                started_at: Some(TimeValue::Text(t.to_owned())),
                ..Timing::default()
            });
        }
        let mut meta = ToolMetadata {
            provider_type: block.ty.get().map(str::to_owned),
            mcp: described.mcp,
            parent_tool_use_id: origin.parent.map(str::to_owned),
            ..ToolMetadata::default()
        };
        if described.kind == ToolKind::Subagent
            && let Some(Value::String(t)) = u.input.as_ref().and_then(|i| i.get("subagent_type"))
        {
            meta.extra
                .insert("subagentType".into(), Value::String(t.clone()));
        }
        // A follow-up names the background task it reads or stops: linked to the call that
        // started it.
        if let Some(task) = u.input.as_ref().and_then(|i| task_follow_up(name, i)) {
            if let Some(call) = self.tasks.get(&task) {
                meta.extra
                    .insert("taskToolUseId".into(), Value::String(call.clone()));
            }
            meta.task_id = Some(task);
        }
        u.metadata = Some(meta);
        store.upsert(origin.line, u);
        let runs_subagents = !matches!(name, "ListAgents" | "SendMessage");
        if described.kind == ToolKind::Subagent && runs_subagents && !origin.sidechain && !known {
            self.subagents.push(id.to_owned());
        }
        if let Some(p) = self.pending.remove(id) {
            let origin = Origin {
                line: p.line,
                timestamp: p.timestamp.as_deref(),
                ..origin
            };
            let structured = p
                .structured
                .as_deref()
                .and_then(|s| serde_json::from_str::<&RawValue>(s).ok());
            self.apply_result(origin, id, p.outcome, structured, store);
        }
    }

    /// A tool_result block (or a server tool's `*_tool_result`).
    pub(crate) fn tool_result(
        &mut self,
        origin: Origin<'_>,
        block: &Block<'_>,
        structured: Option<&RawValue>,
        store: &mut PartStore,
    ) {
        let Some(id) = block.tool_use_id.get() else {
            store.info(origin.line, "tool_result block without tool_use_id skipped");
            return;
        };
        let outcome = read_result(block);
        if store.contains(id) {
            self.apply_result(origin, id, outcome, structured, store);
        } else {
            self.pending.insert(
                id.to_owned(),
                PendingResult {
                    line: origin.line,
                    timestamp: origin.timestamp.map(str::to_owned),
                    outcome,
                    structured: structured.map(|r| r.get().to_owned()),
                },
            );
        }
    }

    fn apply_result(
        &mut self,
        origin: Origin<'_>,
        id: &str,
        outcome: ResultData,
        structured: Option<&RawValue>,
        store: &mut PartStore,
    ) {
        let Some(part) = store.get(id) else { return };
        let kind = part.kind;
        let name = part.name.clone();
        let has_end = part
            .timing
            .as_ref()
            .is_some_and(|t| t.completed_at.is_some());
        // The structured output is only parsed where it adds something: Read/Write outputs carry
        // whole files. As a string it only ever explains a failure, so it is decoded then.
        let structured_text = || {
            structured
                .filter(|r| r.get().starts_with('"'))
                .and_then(|r| serde_json::from_str::<String>(r.get()).ok())
        };
        let wants_structured = matches!(
            kind,
            ToolKind::Bash
                | ToolKind::Subagent
                | ToolKind::WebSearch
                | ToolKind::Browser
                | ToolKind::Question
        ) || matches!(name.as_str(), "Glob" | "Grep");
        let fields: StructuredResult<'_> = match structured {
            Some(r) if wants_structured && r.get().starts_with('{') => {
                serde_json::from_str(r.get()).unwrap_or_default()
            }
            _ => StructuredResult::default(),
        };

        let mut u = PartUpdate::new(id);
        let mut meta = ToolMetadata::default();
        let mut timing = Timing::default();
        if !has_end {
            timing.completed_at = origin.timestamp.map(|t| TimeValue::Text(t.to_owned()));
        }
        timing.elapsed_ms = fields
            .total_duration_ms
            .millis()
            .or(fields.duration_ms.millis())
            .or(fields
                .duration_seconds
                .0
                .map(|s| s * 1000.0)
                .and_then(|ms| super::wire::LNum(Some(ms)).millis()));
        if !outcome.attachments.is_empty() {
            meta.attachments = Some(outcome.attachments.clone());
        }
        if let Some(agent) = fields.agent_id.get() {
            meta.extra
                .insert("agentId".into(), Value::String(agent.to_owned()));
        }
        if let Some(task) = fields.background_task_id.get() {
            meta.task_id = Some(task.to_owned());
        }
        if let Some(answers) = fields
            .answers
            .and_then(|r| serde_json::from_str::<serde_json::Map<String, Value>>(r.get()).ok())
        {
            let questions = part.input.get("questions").unwrap_or(&Value::Null);
            meta.extra.insert(
                "answers".into(),
                tools::question_answers(questions, &answers),
            );
        }

        // The output as the result gave it, copied only where it is cut.
        let mut text = Cow::Borrowed(outcome.text.as_str());
        if kind == ToolKind::Subagent {
            if let Some((report, used)) = unwrap_hand_back(&text) {
                if !used.is_empty() {
                    meta.extra.insert(
                        "toolsUsed".into(),
                        Value::Array(used.into_iter().map(Value::String).collect()),
                    );
                }
                text = Cow::Owned(report);
            }
            if let Some((body, trailer)) = tools::split_agent_trailer(&text) {
                if let Some(agent) = trailer.agent_id {
                    meta.extra.entry("agentId").or_insert(Value::String(agent));
                }
                if timing.elapsed_ms.is_none() {
                    timing.elapsed_ms = trailer.duration_ms;
                }
                text = Cow::Owned(body);
            }
        }
        if fields.truncated.is_true() || tools::is_truncated(&text) {
            meta.truncated = Some(true);
        }

        // `{"success": false, "message": …}` in the structured result: a failure the content
        // only says in JSON (SendMessage to nobody).
        let refused = (!outcome.is_error && fields.success.0 == Some(false))
            .then(|| fields.message.get().and_then(first_line))
            .flatten();
        let failed = outcome.is_error || outcome.object_content || refused.is_some();
        let launch = (!failed)
            .then(|| launch_notice(&outcome.text, fields.background_task_id.get()))
            .flatten();
        if launch.is_some() || (!failed && self.background.contains(id)) {
            // Only the launch: the part runs on until its task's notification; the notice is
            // internal and is never the output.
            self.background.insert(id.to_owned());
            let task = launch.and_then(|l| l.task_id);
            if let Some(task) = &task {
                self.tasks
                    .entry(task.clone())
                    .or_insert_with(|| id.to_owned());
                meta.task_id.get_or_insert(task.clone());
            }
            meta.extra.insert("background".into(), Value::Bool(true));
            meta.extra.remove("agentId");
            let mut u = PartUpdate::new(id);
            u.state = Some(ToolState::Running);
            u.metadata = Some(meta);
            store.upsert(origin.line, u);
            // Notifications that came before this notice end the call now.
            self.resolve_notices(id, task.as_deref(), store);
            return;
        }
        if failed {
            let err = match refused {
                Some(message) => ToolError {
                    message,
                    code: None,
                    details: Some(Value::String(text.to_string())),
                },
                None => tools::classify_error(kind, &text, structured_text().as_deref()),
            };
            if let Some(code) = err.code.as_deref().and_then(|c| c.parse::<i64>().ok()) {
                meta.exit_code = Some(code);
            }
            u.state = Some(ToolState::Error);
            u.error = Some(err);
        } else if kind == ToolKind::Bash && fields.interrupted.is_true() {
            u.state = Some(ToolState::Error);
            u.error = Some(ToolError {
                message: "The command was interrupted".to_owned(),
                code: Some("interrupted".to_owned()),
                details: (!text.is_empty()).then(|| Value::String(text.to_string())),
            });
        } else {
            u.state = Some(ToolState::Complete);
            let shown = if kind == ToolKind::FileRead {
                tools::strip_system_reminder(&text)
            } else {
                &text
            };
            if !shown.is_empty() || outcome.attachments.is_empty() {
                // `shown` is a prefix of `text`: the output is the text cut there, moved rather
                // than copied when nothing else was cut from it.
                let keep = shown.len();
                let mut output = match text {
                    Cow::Borrowed(_) => outcome.text,
                    Cow::Owned(t) => t,
                };
                output.truncate(keep);
                u.output = Some(Value::String(output));
            }
        }
        if !timing.is_empty() {
            u.timing = Some(timing);
        }
        if !meta.is_empty() {
            u.metadata = Some(meta);
        }
        store.upsert(origin.line, u);
    }

    /// Streamed blocks (`--include-partial-messages`).
    pub(crate) fn stream_block_start(
        &mut self,
        origin: Origin<'_>,
        index: u64,
        block: &Block<'_>,
        store: &mut PartStore,
    ) {
        if !block.ty().ends_with("tool_use") {
            return;
        }
        let Some(id) = block.id.get() else { return };
        self.tool_use(origin, block, true, store);
        self.streaming.insert(
            (origin.parent.map(str::to_owned), index),
            (id.to_owned(), String::new()),
        );
    }

    pub(crate) fn stream_input_delta(
        &mut self,
        parent: Option<&str>,
        index: u64,
        partial_json: &str,
    ) {
        if let Some((_, buf)) = self.streaming.get_mut(&(parent.map(str::to_owned), index)) {
            // Bounded: the full message repeats the input anyway.
            if buf.len() < 1 << 20 {
                buf.push_str(partial_json);
            }
        }
    }

    /// The block's input is complete: show it (and its title) while the call is still `started`.
    pub(crate) fn stream_block_stop(
        &mut self,
        origin: Origin<'_>,
        index: u64,
        store: &mut PartStore,
    ) {
        let Some((id, buf)) = self
            .streaming
            .remove(&(origin.parent.map(str::to_owned), index))
        else {
            return;
        };
        let Some(part) = store.get(&id) else { return };
        if part.state != ToolState::Started || buf.trim().is_empty() {
            return;
        }
        let Ok(input @ Value::Object(_)) = serde_json::from_str::<Value>(&buf) else {
            return;
        };
        let name = part
            .metadata
            .as_ref()
            .and_then(|m| m.mcp.as_ref())
            .map_or_else(
                || part.name.clone(),
                |m| format!("mcp__{}__{}", m.server, m.tool),
            );
        let described = tools::describe(&name, &input, self.cwd.as_deref());
        let mut u = PartUpdate::new(id);
        u.title = Some(described.title);
        u.input = Some(input);
        store.upsert(origin.line, u);
    }

    pub(crate) fn stream_message_start(&mut self, parent: Option<&str>) {
        self.streaming.retain(|(p, _), _| p.as_deref() != parent);
    }

    /// `result.permission_denials`: each denied call is an error (created if never seen).
    pub(crate) fn permission_denied(
        &mut self,
        line: u32,
        id: &str,
        tool_name: Option<&str>,
        tool_input: Option<&RawValue>,
        store: &mut PartStore,
    ) {
        if !store.contains(id) {
            let Some(name) = tool_name else { return };
            let input: Value = tool_input
                .and_then(|r| serde_json::from_str(r.get()).ok())
                .unwrap_or_else(|| Value::Object(Default::default()));
            let d = tools::describe(name, &input, self.cwd.as_deref());
            let mut u = PartUpdate::new(id);
            u.name = Some(d.name);
            u.kind = Some(d.kind);
            u.title = Some(d.title);
            u.input = Some(input);
            u.metadata = Some(ToolMetadata {
                mcp: d.mcp,
                provider_type: Some("permission_denial".into()),
                ..ToolMetadata::default()
            });
            store.upsert(line, u);
        }
        // The tool_result already carries what the host said when it denied the call (an SDK
        // host's own message): keep that text, and only say which kind of error it was.
        let message = store
            .get(id)
            .and_then(|p| p.error.as_ref())
            .map(|e| e.message.clone())
            .unwrap_or_else(|| {
                format!(
                    "Permission to use {} was denied",
                    tool_name.unwrap_or("the tool")
                )
            });
        let mut u = PartUpdate::new(id);
        u.state = Some(ToolState::Error);
        u.error = Some(ToolError {
            message,
            code: Some("permission_denied".to_owned()),
            details: None,
        });
        store.upsert(line, u);
    }

    /// End of stream: results that never found their call, and notifications that never found
    /// theirs, are reported.
    pub(crate) fn finish(&mut self, store: &mut PartStore) {
        self.finish_notices(store);
        let mut orphans: Vec<(u32, String)> =
            self.pending.drain().map(|(id, p)| (p.line, id)).collect();
        orphans.sort();
        for (line, id) in orphans {
            store.warn(
                line,
                format!("tool_result for {id} has no matching tool_use in this stream"),
            );
        }
    }
}

/// Read a tool_result block's content without knowing the tool.
fn read_result(block: &Block<'_>) -> ResultData {
    let mut out = ResultData {
        is_error: block.is_error.is_true(),
        ..ResultData::default()
    };
    match &block.content {
        Some(Content::Text(t)) => out.text = t.to_string(),
        Some(c @ Content::Blocks(_)) => {
            for b in c.blocks() {
                match b.ty() {
                    "text" => {
                        if let Some(t) = b
                            .text
                            .and_then(|raw| serde_json::from_str::<String>(raw.get()).ok())
                        {
                            if !out.text.is_empty() {
                                out.text.push('\n');
                            }
                            out.text.push_str(&t);
                        }
                    }
                    // ToolSearch: the tools it loaded, one per line.
                    "tool_reference" => {
                        if let Some(name) = b.tool_name.get() {
                            if !out.text.is_empty() {
                                out.text.push('\n');
                            }
                            out.text.push_str(name);
                        }
                    }
                    "image" | "document" => {
                        let src = b.source.get();
                        out.attachments.push(Attachment {
                            media_type: src.and_then(|s| s.media_type.get()).map(str::to_owned),
                            size: src.and_then(|s| s.data_len).map(|n| n as u64),
                            filename: None,
                        });
                    }
                    _ => {}
                }
            }
        }
        Some(Content::Other) => out.object_content = block.ty() != "tool_result",
        None => {}
    }
    out
}
