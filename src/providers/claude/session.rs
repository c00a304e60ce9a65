//! The logic both Claude dialects share: assistant `tool_use` blocks open parts, user
//! `tool_result` blocks close them, subagent task lines and interrupts update them. Dialect files
//! only decide which lines carry what and call in here.

use std::collections::HashMap;

use serde_json::Value;
use serde_json::value::RawValue;

use super::tools;
use super::wire::{Block, Content, Message, StructuredResult};
use crate::model::{Attachment, TimeValue, Timing, ToolError, ToolKind, ToolMetadata, ToolState};
use crate::providers::{PartStore, PartUpdate};

/// Where a message came from: its raw line, timestamp and subagent context.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Ctx<'c> {
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

/// State across lines of one stream.
#[derive(Debug, Default)]
pub(crate) struct Session {
    cwd: Option<String>,
    pending: HashMap<String, PendingResult>,
    /// task_id → tool_use id (`task_updated` names only the task).
    tasks: HashMap<String, String>,
    /// (parent call, block index) of streamed blocks → (tool id, accumulated input JSON).
    streaming: HashMap<(Option<String>, u64), (String, String)>,
    /// Subagent calls of the main conversation, in order (inline sidechain attribution).
    subagents: Vec<String>,
}

const INTERRUPTED_BY_USER: &str = "Interrupted by the user";

impl Session {
    pub(crate) fn set_cwd(&mut self, cwd: Option<&str>) {
        if let Some(c) = cwd.filter(|c| !c.is_empty()) {
            if self.cwd.as_deref() != Some(c) {
                self.cwd = Some(c.to_owned());
            }
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
    pub(crate) fn assistant(&mut self, ctx: Ctx<'_>, msg: &Message<'_>, store: &mut PartStore) {
        // API-error turns are written as assistant messages of a fake model; they call no tools.
        if msg.model.get() == Some("<synthetic>") {
            return;
        }
        let Some(content) = &msg.content else { return };
        for block in content.blocks() {
            match block.ty() {
                // `tool_use`, `server_tool_use`, `mcp_tool_use` and any newer `*_tool_use` block.
                ty if ty.ends_with("tool_use") => {
                    self.tool_use(ctx, block, false, store);
                }
                ty if ty.ends_with("_tool_result") => {
                    // Server tools answer inside the assistant message itself.
                    self.tool_result(ctx, block, None, store);
                }
                _ => {}
            }
        }
    }

    /// A user message: tool_result blocks close parts; an interrupt marker aborts open ones.
    pub(crate) fn user(
        &mut self,
        ctx: Ctx<'_>,
        msg: &Message<'_>,
        structured: Option<&RawValue>,
        store: &mut PartStore,
    ) {
        let Some(content) = &msg.content else { return };
        match content {
            Content::Text(t) => {
                if t.trim_start().starts_with("[Request interrupted by user") {
                    store.abort_open(ctx.line, INTERRUPTED_BY_USER, "interrupted");
                }
            }
            Content::Blocks(_) => {
                // The structured result belongs to the line's only tool_result.
                let results = content.blocks().filter(|b| b.ty() == "tool_result").count();
                let structured = if results == 1 { structured } else { None };
                let mut interrupted = false;
                for block in content.blocks() {
                    match block.ty() {
                        "tool_result" => self.tool_result(ctx, block, structured, store),
                        "text" => {
                            interrupted |= block.text.is_some_and(|raw| {
                                raw.get().starts_with("\"[Request interrupted by user")
                            });
                        }
                        _ => {}
                    }
                }
                if interrupted {
                    store.abort_open(ctx.line, INTERRUPTED_BY_USER, "interrupted");
                }
            }
            Content::Other => {}
        }
    }

    /// A tool_use block. `partial`: from a `content_block_start` stream event, input still `{}`.
    pub(crate) fn tool_use(
        &mut self,
        ctx: Ctx<'_>,
        block: &Block<'_>,
        partial: bool,
        store: &mut PartStore,
    ) {
        let (Some(id), Some(name)) = (block.id.get(), block.name.get()) else {
            store.info(ctx.line, "tool_use block without id or name skipped");
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
            u.timing = ctx.timestamp.map(|t| Timing {
                started_at: Some(TimeValue::Text(t.to_owned())),
                ..Timing::default()
            });
        }
        let mut meta = ToolMetadata {
            provider_type: block.ty.get().map(str::to_owned),
            mcp: described.mcp,
            parent_tool_use_id: ctx.parent.map(str::to_owned),
            ..ToolMetadata::default()
        };
        if described.kind == ToolKind::Subagent {
            if let Some(Value::String(t)) = u.input.as_ref().and_then(|i| i.get("subagent_type")) {
                meta.extra
                    .insert("subagentType".into(), Value::String(t.clone()));
            }
        }
        u.metadata = Some(meta);
        store.upsert(ctx.line, u);
        if described.kind == ToolKind::Subagent && !ctx.sidechain && !known {
            self.subagents.push(id.to_owned());
        }
        if let Some(p) = self.pending.remove(id) {
            let ctx = Ctx {
                line: p.line,
                timestamp: p.timestamp.as_deref(),
                ..ctx
            };
            let structured = p
                .structured
                .as_deref()
                .and_then(|s| serde_json::from_str::<&RawValue>(s).ok());
            self.apply_result(ctx, id, &p.outcome, structured, store);
        }
    }

    /// A tool_result block (or a server tool's `*_tool_result`).
    pub(crate) fn tool_result(
        &mut self,
        ctx: Ctx<'_>,
        block: &Block<'_>,
        structured: Option<&RawValue>,
        store: &mut PartStore,
    ) {
        let Some(id) = block.tool_use_id.get() else {
            store.info(ctx.line, "tool_result block without tool_use_id skipped");
            return;
        };
        let outcome = read_result(block);
        if store.contains(id) {
            self.apply_result(ctx, id, &outcome, structured, store);
        } else {
            self.pending.insert(
                id.to_owned(),
                PendingResult {
                    line: ctx.line,
                    timestamp: ctx.timestamp.map(str::to_owned),
                    outcome,
                    structured: structured.map(|r| r.get().to_owned()),
                },
            );
        }
    }

    fn apply_result(
        &mut self,
        ctx: Ctx<'_>,
        id: &str,
        outcome: &ResultData,
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
        // whole files.
        let structured_text = structured
            .filter(|r| r.get().starts_with('"'))
            .and_then(|r| serde_json::from_str::<String>(r.get()).ok());
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
            timing.completed_at = ctx.timestamp.map(|t| TimeValue::Text(t.to_owned()));
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
            meta.extra
                .insert("answers".into(), question_answers(questions, &answers));
        }

        let mut text = outcome.text.clone();
        if kind == ToolKind::Subagent {
            if let Some((body, trailer)) = split_agent_trailer(&text) {
                if let Some(agent) = trailer.agent_id {
                    meta.extra.entry("agentId").or_insert(Value::String(agent));
                }
                if timing.elapsed_ms.is_none() {
                    timing.elapsed_ms = trailer.duration_ms;
                }
                text = body;
            }
        }
        if fields.truncated.is_true() || is_truncated(&text) {
            meta.truncated = Some(true);
        }

        let failed = outcome.is_error || outcome.object_content;
        if failed {
            let err = classify_error(kind, &text, structured_text.as_deref());
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
                details: (!text.is_empty()).then(|| Value::String(text.clone())),
            });
        } else {
            u.state = Some(ToolState::Complete);
            let shown = if kind == ToolKind::FileRead {
                strip_system_reminder(&text)
            } else {
                &text
            };
            if !shown.is_empty() || outcome.attachments.is_empty() {
                u.output = Some(Value::String(shown.to_owned()));
            }
        }
        if !timing.is_empty() {
            u.timing = Some(timing);
        }
        if !meta.is_empty() {
            u.metadata = Some(meta);
        }
        store.upsert(ctx.line, u);
    }

    /// `system` `task_started` / `task_progress` / `task_updated` / `task_notification`.
    #[expect(
        clippy::too_many_arguments,
        reason = "the task line's fields, read once by the caller"
    )]
    pub(crate) fn task(
        &mut self,
        line: u32,
        subtype: &str,
        task_id: Option<&str>,
        tool_use_id: Option<&str>,
        status: Option<&str>,
        error: Option<&str>,
        summary: Option<&str>,
        duration_ms: Option<u64>,
        store: &mut PartStore,
    ) {
        if let (Some(task), Some(tool)) = (task_id, tool_use_id) {
            self.tasks
                .entry(task.to_owned())
                .or_insert_with(|| tool.to_owned());
        }
        let Some(id) = tool_use_id
            .map(str::to_owned)
            .or_else(|| task_id.and_then(|t| self.tasks.get(t).cloned()))
        else {
            return;
        };
        if !store.contains(&id) {
            return;
        }
        let mut u = PartUpdate::new(&id);
        u.metadata = task_id.map(|t| ToolMetadata {
            task_id: Some(t.to_owned()),
            ..ToolMetadata::default()
        });
        u.timing = duration_ms.map(|ms| Timing {
            elapsed_ms: Some(ms),
            ..Timing::default()
        });
        match (subtype, status) {
            ("task_started", _) | ("task_progress", _) => u.state = Some(ToolState::Running),
            (_, Some("failed")) => {
                u.state = Some(ToolState::Error);
                u.error = Some(ToolError {
                    message: error
                        .or(summary)
                        .map_or_else(|| "The task failed".to_owned(), first_line),
                    code: Some("failed".to_owned()),
                    details: None,
                });
            }
            (_, Some("stopped" | "killed")) => {
                u.state = Some(ToolState::Error);
                u.error = Some(ToolError {
                    message: "The task was stopped".to_owned(),
                    code: Some("interrupted".to_owned()),
                    details: None,
                });
            }
            _ => {}
        }
        store.upsert(line, u);
    }

    /// Streamed blocks (`--include-partial-messages`).
    pub(crate) fn stream_block_start(
        &mut self,
        ctx: Ctx<'_>,
        index: u64,
        block: &Block<'_>,
        store: &mut PartStore,
    ) {
        if !block.ty().ends_with("tool_use") {
            return;
        }
        let Some(id) = block.id.get() else { return };
        self.tool_use(ctx, block, true, store);
        self.streaming.insert(
            (ctx.parent.map(str::to_owned), index),
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
    pub(crate) fn stream_block_stop(&mut self, ctx: Ctx<'_>, index: u64, store: &mut PartStore) {
        let Some((id, buf)) = self
            .streaming
            .remove(&(ctx.parent.map(str::to_owned), index))
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
        store.upsert(ctx.line, u);
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

    /// End of stream: results that never found their call are reported.
    pub(crate) fn finish(self, store: &mut PartStore) {
        let mut orphans: Vec<(u32, String)> = self
            .pending
            .into_iter()
            .map(|(id, p)| (p.line, id))
            .collect();
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
                    "image" | "document" => {
                        let src = b.source.get();
                        out.attachments.push(Attachment {
                            media_type: src.and_then(|s| s.media_type.get()).map(str::to_owned),
                            size: src
                                .and_then(|s| s.data)
                                .map(|d| d.get().len().saturating_sub(2) as u64),
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

/// The first meaningful line of an error text: markdown heading marks are dropped and a bare
/// "Error" heading (MCP servers write `### Error`) gives way to the line after it.
fn first_line(text: &str) -> String {
    let mut lines = text
        .lines()
        .map(|l| l.trim().trim_start_matches('#').trim())
        .filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or("");
    let line = if matches!(
        first.to_ascii_lowercase().as_str(),
        "error" | "error:" | "errors"
    ) {
        lines.next().unwrap_or(first)
    } else {
        first
    };
    crate::text::clip(line, 200)
}

/// AskUserQuestion's answers (question text → labels joined with `, `) as one list of labels per
/// question in the order asked, the shape OpenCode's `metadata.answers` has. A joined answer is
/// split only when every piece is one of the question's option labels (a free-text answer may
/// hold a comma).
fn question_answers(questions: &Value, answers: &serde_json::Map<String, Value>) -> Value {
    let per_question = questions.as_array().into_iter().flatten().map(|q| {
        let text = q.get("question").and_then(Value::as_str).unwrap_or("");
        let Some(answer) = answers.get(text).and_then(Value::as_str) else {
            return Value::Array(Vec::new());
        };
        let labels: Vec<&str> = q
            .get("options")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|o| o.get("label").and_then(Value::as_str))
            .collect();
        let pieces: Vec<&str> = answer.split(", ").collect();
        let chosen = if pieces.iter().all(|p| labels.contains(p)) {
            pieces
        } else {
            vec![answer]
        };
        Value::Array(
            chosen
                .into_iter()
                .map(|c| Value::String(c.to_owned()))
                .collect(),
        )
    });
    Value::Array(per_question.collect())
}

/// Turn a failed tool_result's text into the contract's error.
fn classify_error(kind: ToolKind, text: &str, structured: Option<&str>) -> ToolError {
    let t = text.trim();
    let coded = |message: &str, code: &str| ToolError {
        message: message.to_owned(),
        code: Some(code.to_owned()),
        details: None,
    };
    if t.starts_with("[Request interrupted by user") {
        return coded(INTERRUPTED_BY_USER, "interrupted");
    }
    if t.starts_with("Permission prompt was aborted") {
        return coded("The permission prompt was aborted", "aborted");
    }
    if structured == Some("User rejected tool use")
        || t == "User rejected tool use"
        || t.starts_with("The user doesn't want to proceed with this tool use")
        || t.starts_with("The user doesn't want to take this action")
    {
        // The same code Codex (`status: declined`) and OpenCode (a dismissed question, a
        // rejected permission) give a call the user said no to.
        return coded("Rejected by the user", "declined");
    }
    if t.starts_with("Claude requested permissions to ") || t.contains("haven't granted it yet") {
        return ToolError {
            message: first_line(t),
            code: Some("permission_denied".into()),
            details: None,
        };
    }
    if let Some(inner) = t.strip_prefix("<tool_use_error>") {
        let inner = inner
            .trim_end()
            .strip_suffix("</tool_use_error>")
            .unwrap_or(inner)
            .trim();
        return plain_error(inner);
    }
    if kind == ToolKind::Bash {
        let body = t.strip_prefix("Error: ").unwrap_or(t);
        if let Some(rest) = body.strip_prefix("Exit code ") {
            let (code, output) = rest.split_once('\n').unwrap_or((rest, ""));
            if let Ok(n) = code.trim().parse::<i64>() {
                return ToolError {
                    message: format!("Exit code {n}"),
                    code: Some(n.to_string()),
                    details: (!output.is_empty()).then(|| Value::String(output.to_owned())),
                };
            }
        }
    }
    // MCP servers often answer with a JSON error object as text.
    if t.starts_with('{') {
        if let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(t) {
            if let Some(msg) = v
                .get("message")
                .or_else(|| v.get("error"))
                .and_then(Value::as_str)
            {
                return ToolError {
                    message: first_line(msg),
                    code: None,
                    details: Some(v),
                };
            }
        }
    }
    plain_error(t)
}

fn plain_error(t: &str) -> ToolError {
    if t.is_empty() {
        return ToolError {
            message: "The tool call failed".to_owned(),
            code: None,
            details: None,
        };
    }
    let message = first_line(t);
    let details = (message != t).then(|| Value::String(t.to_owned()));
    ToolError {
        message,
        code: None,
        details,
    }
}

fn is_truncated(text: &str) -> bool {
    (text.contains(" lines truncated] ...") && text.contains("... ["))
        || text.contains("(Results are truncated. Consider using a more specific path or pattern.)")
}

/// Read results may end with a `<system-reminder>` meant for the model, not the user.
fn strip_system_reminder(text: &str) -> &str {
    match text.rfind("<system-reminder>") {
        Some(i) if text.trim_end().ends_with("</system-reminder>") => text[..i].trim_end(),
        _ => text,
    }
}

struct AgentTrailer {
    agent_id: Option<String>,
    duration_ms: Option<u64>,
}

/// Agent results end with `agentId: … <usage>…duration_ms: N</usage>` for the model; split it off.
fn split_agent_trailer(text: &str) -> Option<(String, AgentTrailer)> {
    let start = if text.starts_with("agentId: ") {
        0
    } else {
        text.rfind("\nagentId: ")? + 1
    };
    let trailer = &text[start..];
    let agent_id = trailer["agentId: ".len()..]
        .split(|c: char| c.is_whitespace())
        .next()
        .map(str::to_owned);
    let duration_ms = trailer
        .find("duration_ms: ")
        .map(|i| &trailer[i + "duration_ms: ".len()..])
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|d| d.parse().ok());
    Some((
        text[..start].trim_end().to_owned(),
        AgentTrailer {
            agent_id,
            duration_ms,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bash_exit_code_becomes_code_and_details() {
        let e = classify_error(ToolKind::Bash, "Exit code 1\nF\nFAIL: test_x", None);
        assert_eq!(e.message, "Exit code 1");
        assert_eq!(e.code.as_deref(), Some("1"));
        assert_eq!(e.details, Some(Value::String("F\nFAIL: test_x".into())));
    }

    #[test]
    fn known_error_texts_get_codes() {
        let code = |t: &str, s: Option<&str>| classify_error(ToolKind::FileWrite, t, s).code;
        assert_eq!(
            code("[Request interrupted by user for tool use]", None).as_deref(),
            Some("interrupted")
        );
        assert_eq!(
            code("Permission prompt was aborted.", None).as_deref(),
            Some("aborted")
        );
        assert_eq!(
            code(
                "The user doesn't want to proceed with this tool use.",
                Some("User rejected tool use")
            )
            .as_deref(),
            Some("declined")
        );
        assert_eq!(
            code(
                "Claude requested permissions to use Bash, but you haven't granted it yet.",
                None
            )
            .as_deref(),
            Some("permission_denied")
        );
        let e = classify_error(
            ToolKind::FileRead,
            "<tool_use_error>File does not exist.</tool_use_error>",
            None,
        );
        assert_eq!(e.message, "File does not exist.");
        assert!(e.code.is_none() && e.details.is_none());
    }

    #[test]
    fn heading_only_first_lines_are_skipped() {
        let e = classify_error(
            ToolKind::Browser,
            "### Error\nError: page.goto: net::ERR_NAME_NOT_RESOLVED\nCall log:",
            None,
        );
        assert_eq!(e.message, "Error: page.goto: net::ERR_NAME_NOT_RESOLVED");
        assert!(e.details.is_some());
    }

    #[test]
    fn json_error_objects_are_read() {
        let e = classify_error(
            ToolKind::Mcp,
            r#"{"error":true,"message":"Failed to create issue"}"#,
            None,
        );
        assert_eq!(e.message, "Failed to create issue");
        assert!(e.details.is_some());
    }

    #[test]
    fn agent_trailer_is_split_off() {
        let (body, t) = split_agent_trailer("Answer.\nagentId: abc123 (use SendMessage)\n<usage>tool_uses: 2\nduration_ms: 151</usage>").unwrap();
        assert_eq!(body, "Answer.");
        assert_eq!(t.agent_id.as_deref(), Some("abc123"));
        assert_eq!(t.duration_ms, Some(151));
        assert!(split_agent_trailer("no trailer").is_none());
    }

    #[test]
    fn reminder_is_stripped() {
        assert_eq!(
            strip_system_reminder("1\tx\n\n<system-reminder>\nbe careful\n</system-reminder>\n"),
            "1\tx"
        );
        assert_eq!(strip_system_reminder("plain"), "plain");
    }
}
