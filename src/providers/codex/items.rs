//! Codex tool items → part updates, shared by every Codex dialect. App-server (camelCase), exec
//! (snake_case) and rollout `item_completed` (PascalCase types, snake_case fields) items all parse
//! into one borrowed [`RawItem`]; the EventMsg and `response_item` paths build the same neutral
//! pieces ([`Command`], [`Change`], MCP and web-search updates), so a tool reads the same whatever
//! dialect it came from.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::model::{McpRef, TimeValue, Timing, ToolError, ToolKind, ToolMetadata, ToolState};
use crate::providers::titles;
use crate::providers::{PartStore, PartUpdate};

use super::Ctx;

/// Longest error message (characters) taken from output text.
const MESSAGE_MAX: usize = 200;

/// Where in its lifecycle an item notification is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    Started,
    Updated,
    Completed,
}

/// Provider statuses of every dialect, folded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    Running,
    Completed,
    Failed,
    Declined,
    Interrupted,
}

impl Status {
    pub(crate) fn parse(s: &str) -> Option<Status> {
        match s {
            "inProgress" | "in_progress" | "running" => Some(Status::Running),
            "completed" | "success" => Some(Status::Completed),
            "failed" | "errored" | "error" => Some(Status::Failed),
            "declined" | "rejected" => Some(Status::Declined),
            "interrupted" | "aborted" | "cancelled" => Some(Status::Interrupted),
            _ => None,
        }
    }
}

/// One thread item of any dialect. Every field is optional because item types share this struct
/// and builds differ; risky shapes stay `RawValue` so one odd field never loses the item.
#[derive(Deserialize, Debug, Default)]
pub(crate) struct RawItem<'a> {
    #[serde(rename = "type", borrow)]
    pub ty: Cow<'a, str>,
    #[serde(borrow, default)]
    pub id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub command: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub cwd: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub status: Option<Cow<'a, str>>,
    #[serde(borrow, default, alias = "commandActions", alias = "parsed_cmd")]
    pub command_actions: Option<&'a RawValue>,
    #[serde(borrow, default, alias = "aggregatedOutput")]
    pub aggregated_output: Option<Cow<'a, str>>,
    #[serde(default, alias = "exitCode")]
    pub exit_code: Option<i64>,
    #[serde(default, alias = "durationMs")]
    pub duration_ms: Option<u64>,
    #[serde(borrow, default)]
    pub duration: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub changes: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub server: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub tool: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub namespace: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub arguments: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub error: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub query: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub action: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub results: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub path: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub prompt: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub model: Option<Cow<'a, str>>,
    #[serde(borrow, default, alias = "receiverThreadIds")]
    pub receiver_thread_ids: Option<Vec<Cow<'a, str>>>,
    #[serde(borrow, default, alias = "agentsStates")]
    pub agents_states: Option<&'a RawValue>,
    /// `subAgentActivity`: `started`, `interacted`, `interrupted` or `completed` (kept raw: other
    /// item types may one day carry a `kind` of another shape).
    #[serde(borrow, default)]
    pub kind: Option<&'a RawValue>,
    #[serde(borrow, default, alias = "agentThreadId")]
    pub agent_thread_id: Option<Cow<'a, str>>,
    #[serde(borrow, default, alias = "agentPath")]
    pub agent_path: Option<Cow<'a, str>>,
    #[serde(borrow, default, alias = "reasoningEffort")]
    pub reasoning_effort: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub items: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub text: Option<Cow<'a, str>>,
    #[serde(borrow, default, alias = "contentItems")]
    pub content_items: Option<&'a RawValue>,
    #[serde(default)]
    pub success: Option<bool>,
    #[serde(borrow, default, alias = "revisedPrompt")]
    pub revised_prompt: Option<Cow<'a, str>>,
    #[serde(default, alias = "startedAtMs")]
    pub started_at_ms: Option<i64>,
    #[serde(default, alias = "completedAtMs")]
    pub completed_at_ms: Option<i64>,
}

/// Parse an item object. `codex exec --json` prints `web_search` items with the key `id` twice
/// (`{"id":"item_1","type":"web_search","id":"ws_…"}`); a derived struct rejects that, so on a
/// duplicate-field error the object is rewritten keeping the FIRST value of each key — `item_N`,
/// the id that is stable between `item.started` and `item.completed` — and parsed again.
pub(crate) fn parse_item<'a>(
    raw: &'a str,
    scratch: &'a mut Option<String>,
) -> Result<RawItem<'a>, serde_json::Error> {
    match serde_json::from_str::<RawItem<'a>>(raw) {
        Ok(item) => Ok(item),
        Err(e) if e.to_string().starts_with("duplicate field") => {
            let dedup = first_wins_object(raw).ok_or(e)?;
            *scratch = Some(dedup);
            serde_json::from_str::<RawItem<'a>>(scratch.as_deref().unwrap_or("{}"))
        }
        Err(e) => Err(e),
    }
}

/// Entries of one JSON object in order, values left raw, duplicates kept.
struct Entries<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de> Deserialize<'de> for Entries<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Entries<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(k) = m.next_key::<Cow<'de, str>>()? {
                    let v: &'de RawValue = m.next_value()?;
                    out.push((k, v));
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// The object with every repeated key dropped after its first occurrence.
fn first_wins_object(raw: &str) -> Option<String> {
    let Entries(entries) = serde_json::from_str::<Entries<'_>>(raw).ok()?;
    let mut out = String::with_capacity(raw.len());
    out.push('{');
    let mut seen: Vec<&str> = Vec::new();
    for (k, v) in &entries {
        if seen.contains(&k.as_ref()) {
            continue;
        }
        seen.push(k.as_ref());
        if out.len() > 1 {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(k.as_ref()).ok()?);
        out.push(':');
        out.push_str(v.get());
    }
    out.push('}');
    Some(out)
}

/// The tool-bearing item types, whatever the dialect's spelling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ItemType {
    Command,
    FileChange,
    Mcp,
    Dynamic,
    WebSearch,
    Collab,
    /// `subAgentActivity` (multi-agent v2): a spawn, a message or an interrupt of a subagent, or
    /// the notice that one finished.
    SubAgent,
    ImageView,
    ImageGeneration,
    TodoList,
    Plan,
    /// Messages, reasoning and bookkeeping: never parts.
    NotATool,
    Unknown,
}

impl ItemType {
    pub(crate) fn of(ty: &str) -> ItemType {
        match ty {
            "commandExecution" | "command_execution" | "CommandExecution" => ItemType::Command,
            "fileChange" | "file_change" | "FileChange" => ItemType::FileChange,
            "mcpToolCall" | "mcp_tool_call" | "McpToolCall" => ItemType::Mcp,
            "dynamicToolCall" | "dynamic_tool_call" | "DynamicToolCall" => ItemType::Dynamic,
            "webSearch" | "web_search" | "WebSearch" => ItemType::WebSearch,
            "collabAgentToolCall" | "collab_tool_call" | "CollabAgentToolCall" => ItemType::Collab,
            "subAgentActivity" | "SubAgentActivity" | "sub_agent_activity" => ItemType::SubAgent,
            "imageView" | "image_view" | "ImageView" => ItemType::ImageView,
            "imageGeneration" | "image_generation" | "ImageGeneration" => ItemType::ImageGeneration,
            "todo_list" | "todoList" | "TodoList" => ItemType::TodoList,
            "plan" | "Plan" => ItemType::Plan,
            "userMessage" | "UserMessage" | "user_message" | "agentMessage" | "AgentMessage"
            | "agent_message" | "reasoning" | "Reasoning" | "hookPrompt" | "HookPrompt"
            | "error" | "contextCompaction" | "ContextCompaction" | "enteredReviewMode"
            | "exitedReviewMode" | "sleep" | "Sleep" | "functionCallOutput"
            | "FunctionCallOutput" | "Extension" => ItemType::NotATool,
            _ => ItemType::Unknown,
        }
    }

    /// One name per tool across dialects: the app-server's camelCase item type.
    fn name(self) -> &'static str {
        match self {
            ItemType::Command => "commandExecution",
            ItemType::FileChange => "fileChange",
            ItemType::Mcp => "mcpToolCall",
            ItemType::Dynamic => "dynamicToolCall",
            ItemType::WebSearch => "webSearch",
            ItemType::Collab => "collabAgentToolCall",
            ItemType::SubAgent => "subAgentActivity",
            ItemType::ImageView => "imageView",
            ItemType::ImageGeneration => "imageGeneration",
            ItemType::TodoList => "todoList",
            ItemType::Plan => "plan",
            ItemType::NotATool | ItemType::Unknown => "unknown",
        }
    }
}

/// What the envelope around an item adds.
#[derive(Clone, Debug)]
pub(crate) struct Envelope {
    pub line: u32,
    pub phase: Phase,
    /// The part id to use instead of the item id (exec id reuse across runs).
    pub id: Option<String>,
    pub timing: Timing,
    /// The thread the item belongs to when it is not the main one (an app-server subagent's).
    pub session_id: Option<String>,
}

/// Apply one item notification to the store.
pub(crate) fn apply(store: &mut PartStore, ctx: &mut Ctx, env: &Envelope, item: &RawItem<'_>) {
    let ty = ItemType::of(&item.ty);
    if ty == ItemType::NotATool {
        return;
    }
    let Some(id) = env
        .id
        .clone()
        .or_else(|| item.id.as_deref().map(str::to_owned))
    else {
        if ty != ItemType::Unknown {
            store.info(
                env.line,
                format!("`{}` item without an id skipped", item.ty),
            );
        }
        return;
    };
    if ty == ItemType::Unknown {
        if ctx.unknown_types.insert(item.ty.to_string()) {
            store.info(env.line, format!("unknown item type `{}` skipped", item.ty));
        }
        return;
    }
    let status = item.status.as_deref().and_then(Status::parse);
    let mut timing = env.timing.clone();
    if timing.started_at.is_none() {
        timing.started_at = item.started_at_ms.map(TimeValue::Millis);
    }
    if timing.completed_at.is_none() {
        timing.completed_at = item.completed_at_ms.map(TimeValue::Millis);
    }
    if let Some(ms) = item
        .duration_ms
        .or_else(|| item.duration.and_then(duration_ms))
    {
        timing.elapsed_ms = Some(ms);
    }
    // A completion without a status is a success; an in-progress status on a completion stays open.
    let outcome = match (env.phase, status) {
        (_, Some(s)) if s != Status::Running => Some(s),
        (Phase::Completed, None) => Some(Status::Completed),
        _ => None,
    };
    let mut u = match ty {
        ItemType::Command => {
            let cmd = Command::from_item(item);
            if let Some(cwd) = &cmd.cwd {
                ctx.cwd.get_or_insert_with(|| cwd.clone());
            }
            let mut u = cmd.update(&id, ctx.cwd.as_deref());
            if let Some(s) = outcome {
                let output = item
                    .aggregated_output
                    .as_deref()
                    .map(str::to_owned)
                    .or_else(|| ctx.take_provisional(&id))
                    .unwrap_or_default();
                command_outcome(&mut u, s, item.exit_code, output);
            }
            u
        }
        ItemType::FileChange => {
            let changes = item.changes.map(parse_changes).unwrap_or_default();
            let mut u = patch_update(&id, &changes, ctx.cwd.as_deref());
            if let Some(s) = outcome {
                let diffs = joined_diffs(&changes);
                let output = if diffs.is_empty() {
                    ctx.take_provisional(&id)
                } else {
                    Some(diffs)
                };
                patch_outcome(&mut u, s, output, None);
            }
            u
        }
        ItemType::Mcp => {
            let args = raw_to_value(item.arguments);
            let mut u = mcp_update(
                &id,
                item.server.as_deref().unwrap_or(""),
                item.tool.as_deref().unwrap_or(""),
                args,
            );
            if let Some(s) = outcome {
                let result = item.result.map(|r| raw_to_value(Some(r)));
                let error = item.error.and_then(error_message);
                mcp_outcome(&mut u, s, result.as_ref(), error);
            }
            u
        }
        ItemType::Dynamic => dynamic_update(&id, item, outcome),
        ItemType::WebSearch => {
            let action = item
                .action
                .map(|a| raw_to_value(Some(a)))
                .filter(|a| !a.is_null());
            let mut u = web_search_update(&id, item.query.as_deref(), action);
            if let Some(s) = outcome {
                let output = item
                    .results
                    .map(|r| raw_to_value(Some(r)))
                    .filter(|v| !v.is_null());
                simple_outcome(&mut u, s, output, "Web search failed");
            }
            u
        }
        ItemType::Collab => collab_update(&id, item, outcome),
        ItemType::SubAgent => match subagent_activity_update(&id, item, outcome) {
            Some(u) => u,
            None => return,
        },
        ItemType::ImageView => {
            let path = item.path.as_deref().unwrap_or("");
            let mut u = named(&id, "imageView", ToolKind::FileRead);
            u.title = Some(titles::view_image(&titles::display_path(
                path,
                ctx.cwd.as_deref(),
            )));
            u.input = Some(json!({ "path": path }));
            if let Some(s) = outcome {
                simple_outcome(&mut u, s, None, "Viewing the image failed");
            }
            u
        }
        ItemType::ImageGeneration => {
            let mut u = named(&id, "imageGeneration", ToolKind::Unknown);
            u.title = Some(match item.revised_prompt.as_deref() {
                Some(p) if !p.trim().is_empty() => {
                    titles::finish(&format!("Generating image: {p}"), "Generating an image")
                }
                _ => "Generating an image".to_owned(),
            });
            if let Some(p) = &item.revised_prompt {
                u.input = Some(json!({ "prompt": p }));
            }
            // The status of an image generation is a free string; only the phase is reliable.
            if env.phase == Phase::Completed {
                simple_outcome(
                    &mut u,
                    outcome.unwrap_or(Status::Completed),
                    None,
                    "Image generation failed",
                );
            } else {
                u.state = Some(ToolState::Running);
            }
            u
        }
        ItemType::TodoList => {
            let entries = item
                .items
                .map(|i| raw_to_value(Some(i)))
                .unwrap_or(Value::Array(Vec::new()));
            let total = entries.as_array().map_or(0, Vec::len);
            let done = entries.as_array().map_or(0, |a| {
                a.iter()
                    .filter(|e| e.get("completed").and_then(Value::as_bool) == Some(true))
                    .count()
            });
            let mut u = named(&id, "todoList", ToolKind::Todo);
            u.title = Some(titles::todo(total, done));
            u.input = Some(json!({ "items": entries }));
            if env.phase == Phase::Completed {
                simple_outcome(&mut u, Status::Completed, None, "");
            } else {
                u.state = Some(ToolState::Running);
            }
            u
        }
        ItemType::Plan => {
            let mut u = named(&id, "plan", ToolKind::Todo);
            u.title = Some("Proposing a plan".to_owned());
            u.input = Some(json!({ "text": item.text.as_deref().unwrap_or("") }));
            if env.phase == Phase::Completed {
                simple_outcome(&mut u, Status::Completed, None, "");
            } else {
                u.state = Some(ToolState::Running);
            }
            u
        }
        ItemType::NotATool | ItemType::Unknown => return,
    };
    if u.state.is_none() {
        u.state = Some(ToolState::Running);
    }
    let meta = u.metadata.get_or_insert_with(ToolMetadata::default);
    meta.provider_type = Some(item.ty.to_string());
    if let Some(session) = &env.session_id {
        meta.session_id = Some(session.clone());
    }
    if !timing.is_empty() {
        u.timing = Some(timing);
    }
    if store.contains(&id) {
        // The first sighting named the part; later notifications never rename it.
        u.name = None;
    }
    store.upsert(env.line, u);
}

/// A new part's update with its name and kind.
pub(crate) fn named(id: &str, name: &str, kind: ToolKind) -> PartUpdate {
    PartUpdate {
        name: Some(name.to_owned()),
        kind: Some(kind),
        ..PartUpdate::new(id)
    }
}

pub(crate) fn raw_to_value(raw: Option<&RawValue>) -> Value {
    raw.and_then(|r| serde_json::from_str(r.get()).ok())
        .unwrap_or(Value::Null)
}

/// `{"secs":1,"nanos":5000000}` (serialized `std::time::Duration`), a millisecond number, or a
/// string such as `"1.5s"` / `"120ms"`.
pub(crate) fn duration_ms(raw: &RawValue) -> Option<u64> {
    match serde_json::from_str::<Value>(raw.get()).ok()? {
        Value::Object(m) => {
            let secs = m.get("secs").and_then(Value::as_u64)?;
            let nanos = m.get("nanos").and_then(Value::as_u64).unwrap_or(0);
            Some(secs * 1000 + nanos / 1_000_000)
        }
        Value::Number(n) => n.as_u64(),
        Value::String(s) => {
            let s = s.trim();
            if let Some(ms) = s.strip_suffix("ms") {
                ms.trim().parse::<f64>().ok().map(|v| v as u64)
            } else if let Some(secs) = s.strip_suffix('s') {
                secs.trim().parse::<f64>().ok().map(|v| (v * 1000.0) as u64)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// `{message}` or a plain string.
fn error_message(raw: &RawValue) -> Option<String> {
    match serde_json::from_str::<Value>(raw.get()).ok()? {
        Value::String(s) => Some(s),
        Value::Object(m) => m.get("message").and_then(Value::as_str).map(str::to_owned),
        _ => None,
    }
}

/// First meaningful line of a failure text, skipping markdown headings (`### Error`).
pub(crate) fn first_line(text: &str) -> Option<String> {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| crate::text::clip(l, MESSAGE_MAX))
}

// ---------------------------------------------------------------- commands

/// What a command action does, from `commandActions` / `parsed_cmd`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Action {
    Read {
        path: String,
    },
    List {
        path: Option<String>,
    },
    Search {
        query: Option<String>,
        path: Option<String>,
    },
    Unknown,
}

#[derive(Deserialize)]
struct RawAction<'a> {
    #[serde(rename = "type", borrow)]
    ty: Cow<'a, str>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    path: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    query: Option<Cow<'a, str>>,
}

/// Actions of either spelling; an unreadable list means "unknown" rather than a lost item.
pub(crate) fn parse_actions(raw: Option<&RawValue>) -> Vec<Action> {
    let Some(raw) = raw else { return Vec::new() };
    let Ok(list) = serde_json::from_str::<Vec<RawAction<'_>>>(raw.get()) else {
        return vec![Action::Unknown];
    };
    list.into_iter()
        .map(|a| {
            let s = |c: Option<Cow<'_, str>>| c.map(|c| c.into_owned()).filter(|c| !c.is_empty());
            match a.ty.as_ref() {
                "read" => Action::Read {
                    path: s(a.path).or(s(a.name)).unwrap_or_default(),
                },
                "listFiles" | "list_files" => Action::List { path: s(a.path) },
                "search" => Action::Search {
                    query: s(a.query),
                    path: s(a.path),
                },
                _ => Action::Unknown,
            }
        })
        .collect()
}

/// A shell command in any dialect.
#[derive(Clone, Debug, Default)]
pub(crate) struct Command {
    /// The command as the provider gave it: a string or an argv array.
    pub command: Value,
    pub cwd: Option<String>,
    pub actions: Vec<Action>,
    /// Other provider args kept in the input (`timeout_ms`, ...).
    pub extra: Map<String, Value>,
}

impl Command {
    pub(crate) fn from_item(item: &RawItem<'_>) -> Command {
        Command {
            command: raw_to_value(item.command),
            cwd: item.cwd.as_deref().map(str::to_owned),
            actions: parse_actions(item.command_actions),
            extra: Map::new(),
        }
    }

    /// The command line a person reads (argv joined, shell wrapper left for `titles::shell`).
    pub(crate) fn line(&self) -> String {
        match &self.command {
            Value::String(s) => normalize_shell_path(s),
            Value::Array(argv) => titles::argv_command(argv),
            _ => String::new(),
        }
    }

    pub(crate) fn kind_title(&self, session_cwd: Option<&str>) -> (ToolKind, String) {
        let cwd = self.cwd.as_deref().or(session_cwd);
        let pure = !self.actions.is_empty() && self.actions.iter().all(|a| *a != Action::Unknown);
        let kind = if pure {
            ToolKind::FileRead
        } else {
            ToolKind::Bash
        };
        let title = match self.actions.as_slice() {
            [one] if pure => action_title(one, cwd),
            // Several reads/searches chained (`sed … && grep …`): the actions, in order.
            [first, rest @ ..] if pure => {
                let mut t = action_title(first, cwd);
                for a in rest {
                    let next = action_title(a, cwd);
                    let mut chars = next.chars();
                    t.push_str(", ");
                    t.extend(chars.next().into_iter().flat_map(char::to_lowercase));
                    t.push_str(chars.as_str());
                }
                titles::finish(&t, "Reading files")
            }
            _ => titles::shell(&self.line()),
        };
        (kind, title)
    }

    pub(crate) fn input(&self) -> Value {
        let mut m = Map::new();
        m.insert("command".to_owned(), self.command.clone());
        if let Some(cwd) = &self.cwd {
            m.insert("cwd".to_owned(), Value::String(cwd.clone()));
        }
        for (k, v) in &self.extra {
            m.insert(k.clone(), v.clone());
        }
        Value::Object(m)
    }

    /// The update naming, titling and describing the call (no outcome).
    pub(crate) fn update(&self, id: &str, session_cwd: Option<&str>) -> PartUpdate {
        let (kind, title) = self.kind_title(session_cwd);
        let mut u = named(id, ItemType::Command.name(), kind);
        u.title = Some(title);
        u.input = Some(self.input());
        if !self.actions.is_empty() {
            let meta = u.metadata.get_or_insert_with(ToolMetadata::default);
            meta.action = Some(Value::Array(
                self.actions.iter().map(action_value).collect(),
            ));
        }
        u
    }
}

fn action_value(a: &Action) -> Value {
    match a {
        Action::Read { path } => json!({ "type": "read", "path": path }),
        Action::List { path } => json!({ "type": "listFiles", "path": path }),
        Action::Search { query, path } => json!({ "type": "search", "query": query, "path": path }),
        Action::Unknown => json!({ "type": "unknown" }),
    }
}

fn action_title(a: &Action, cwd: Option<&str>) -> String {
    match a {
        Action::Read { path } => titles::read(&titles::display_path(path, cwd), None, None),
        Action::List { path: Some(p) } => titles::list(&titles::display_path(p, cwd)),
        Action::List { path: None } => titles::finish("", "Listing files"),
        Action::Search {
            query: Some(q),
            path,
        } => {
            let scope = path.as_deref().map(|p| titles::display_path(p, cwd));
            titles::grep(q, scope.as_deref())
        }
        Action::Search {
            query: None,
            path: Some(p),
        } => titles::finish(
            &format!("Searching {}", titles::display_path(p, cwd)),
            "Searching files",
        ),
        Action::Search {
            query: None,
            path: None,
        } => titles::finish("", "Searching files"),
        Action::Unknown => titles::finish("", "Running a shell command"),
    }
}

/// `titles::shell` strips well-known wrappers (`/bin/bash -lc …`); other install paths of the same
/// shells (`/usr/bin/zsh -lc …`) are brought to their bare name so the wrapper is stripped too.
fn normalize_shell_path(command: &str) -> String {
    let c = command.trim_start();
    let (program, rest) = c.split_once(' ').unwrap_or((c, ""));
    if let Some((_, base)) = program.rsplit_once('/') {
        if matches!(base, "bash" | "zsh" | "sh")
            && (rest.starts_with("-lc ") || rest.starts_with("-c "))
        {
            return format!("{base} {rest}");
        }
    }
    command.to_owned()
}

/// Settle a command: success only for a completed status with exit code 0 or none; a non-zero exit
/// is an error whatever the status said.
pub(crate) fn command_outcome(
    u: &mut PartUpdate,
    status: Status,
    exit_code: Option<i64>,
    output: String,
) {
    let meta = u.metadata.get_or_insert_with(ToolMetadata::default);
    meta.exit_code = exit_code;
    let failed_exit = exit_code.is_some_and(|c| c != 0);
    match status {
        Status::Running => {}
        Status::Completed if !failed_exit => {
            u.state = Some(ToolState::Complete);
            u.output = Some(Value::String(output));
        }
        Status::Completed | Status::Failed => {
            u.state = Some(ToolState::Error);
            let message = match exit_code {
                Some(c) => format!("Exit code {c}"),
                None => first_line(&output).unwrap_or_else(|| "Command failed".to_owned()),
            };
            u.error = Some(ToolError {
                message,
                code: exit_code.map(|c| c.to_string()),
                details: (!output.is_empty()).then_some(Value::String(output)),
            });
        }
        Status::Declined => {
            u.state = Some(ToolState::Error);
            u.error = Some(ToolError {
                message: "Command declined".to_owned(),
                code: Some("declined".to_owned()),
                details: (!output.is_empty()).then_some(Value::String(output)),
            });
        }
        Status::Interrupted => {
            u.state = Some(ToolState::Error);
            u.error = Some(ToolError {
                message: "Command interrupted".to_owned(),
                code: Some("interrupted".to_owned()),
                details: (!output.is_empty()).then_some(Value::String(output)),
            });
        }
    }
}

/// Outcome of a tool with no exit code: completed → output, anything else → error.
pub(crate) fn simple_outcome(
    u: &mut PartUpdate,
    status: Status,
    output: Option<Value>,
    failure: &str,
) {
    match status {
        Status::Running => u.state = Some(ToolState::Running),
        Status::Completed => {
            u.state = Some(ToolState::Complete);
            u.output = output;
        }
        Status::Failed | Status::Declined | Status::Interrupted => {
            u.state = Some(ToolState::Error);
            let (message, code) = match status {
                Status::Declined => ("Declined".to_owned(), Some("declined".to_owned())),
                Status::Interrupted => ("Interrupted".to_owned(), Some("interrupted".to_owned())),
                _ => (
                    if failure.is_empty() {
                        "Failed".to_owned()
                    } else {
                        failure.to_owned()
                    },
                    None,
                ),
            };
            u.error = Some(ToolError {
                message,
                code,
                details: output,
            });
        }
    }
}

// ---------------------------------------------------------------- file changes

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ChangeKind {
    Add,
    Delete,
    Update,
}

/// One file of a patch.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Change {
    pub path: String,
    pub kind: ChangeKind,
    pub move_path: Option<String>,
    /// Unified diff (update) or file content (add/delete), when the dialect carries it.
    pub diff: Option<String>,
}

fn change_kind(s: &str) -> Option<ChangeKind> {
    match s {
        "add" | "Add" | "create" => Some(ChangeKind::Add),
        "delete" | "Delete" | "remove" => Some(ChangeKind::Delete),
        "update" | "Update" | "modify" => Some(ChangeKind::Update),
        _ => None,
    }
}

/// `kind` as a string (exec), a tagged object (app-server `{type, move_path}`, rollout
/// `{type, unified_diff|content}`) or an externally tagged object (old `{"update":{…}}`).
fn change_from(path: String, body: &Value) -> Option<Change> {
    let kind_val = body.get("kind").unwrap_or(body);
    let (kind, detail): (ChangeKind, &Value) = match kind_val {
        Value::String(s) => (change_kind(s)?, body),
        Value::Object(m) => match m.get("type").and_then(Value::as_str) {
            Some(t) => (change_kind(t)?, kind_val),
            None => {
                let (k, inner) = m.iter().next()?;
                (change_kind(k)?, inner)
            }
        },
        _ => return None,
    };
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    let diff = text(body, "diff")
        .or_else(|| text(detail, "unified_diff"))
        .or_else(|| text(detail, "content"))
        .filter(|d| !d.is_empty());
    let move_path = text(detail, "move_path").or_else(|| text(detail, "movePath"));
    Some(Change {
        path,
        kind,
        move_path,
        diff,
    })
}

/// `changes` as an array of `{path, kind, diff?}` or a map `path → FileChange`.
pub(crate) fn parse_changes(raw: &RawValue) -> Vec<Change> {
    match serde_json::from_str::<Value>(raw.get()) {
        Ok(Value::Array(list)) => list
            .iter()
            .filter_map(|c| {
                let path = c.get("path").and_then(Value::as_str)?.to_owned();
                change_from(path, c)
            })
            .collect(),
        Ok(Value::Object(map)) => map
            .iter()
            .filter_map(|(p, body)| change_from(p.clone(), body))
            .collect(),
        _ => Vec::new(),
    }
}

/// The files an `apply_patch` envelope touches (`*** Add File: p`, `*** Update File: p`, ...).
pub(crate) fn changes_from_patch(patch: &str) -> Vec<Change> {
    let mut out: Vec<Change> = Vec::new();
    for line in patch.lines() {
        let line = line.trim_end();
        let (kind, path) = if let Some(p) = line.strip_prefix("*** Add File: ") {
            (ChangeKind::Add, p)
        } else if let Some(p) = line.strip_prefix("*** Delete File: ") {
            (ChangeKind::Delete, p)
        } else if let Some(p) = line.strip_prefix("*** Update File: ") {
            (ChangeKind::Update, p)
        } else {
            if let Some(m) = line.strip_prefix("*** Move to: ") {
                if let Some(last) = out.last_mut() {
                    last.move_path = Some(m.trim().to_owned());
                }
            }
            continue;
        };
        out.push(Change {
            path: path.trim().to_owned(),
            kind,
            move_path: None,
            diff: None,
        });
    }
    out
}

pub(crate) fn joined_diffs(changes: &[Change]) -> String {
    let with_diff: Vec<&Change> = changes.iter().filter(|c| c.diff.is_some()).collect();
    match with_diff.as_slice() {
        [] => String::new(),
        [one] => one.diff.clone().unwrap_or_default(),
        many => many
            .iter()
            .map(|c| format!("--- {}\n{}", c.path, c.diff.as_deref().unwrap_or("")))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

fn kind_name(k: ChangeKind) -> &'static str {
    match k {
        ChangeKind::Add => "add",
        ChangeKind::Delete => "delete",
        ChangeKind::Update => "update",
    }
}

/// Kind and title of a patch: only new files → `file_write` "Creating …"; otherwise `file_edit`.
pub(crate) fn patch_kind_title(changes: &[Change], cwd: Option<&str>) -> (ToolKind, String) {
    let paths: Vec<String> = changes
        .iter()
        .map(|c| titles::display_path(&c.path, cwd))
        .collect();
    if !changes.is_empty() && changes.iter().all(|c| c.kind == ChangeKind::Add) {
        return (ToolKind::FileWrite, titles::create(&paths.join(", ")));
    }
    let title = match changes {
        [one] if one.kind == ChangeKind::Delete => titles::delete(&paths[0]),
        [one] => match &one.move_path {
            Some(m) => titles::edit(&format!("{} → {}", paths[0], titles::display_path(m, cwd))),
            None => titles::edit(&paths[0]),
        },
        _ => titles::edit_files(&paths),
    };
    (ToolKind::FileEdit, title)
}

/// The update describing a patch (no outcome). The input lists the files; the diffs go to output.
pub(crate) fn patch_update(id: &str, changes: &[Change], cwd: Option<&str>) -> PartUpdate {
    let (kind, title) = patch_kind_title(changes, cwd);
    let mut u = named(id, ItemType::FileChange.name(), kind);
    if !changes.is_empty() {
        u.title = Some(title);
        let list: Vec<Value> = changes
            .iter()
            .map(|c| {
                let mut m = Map::new();
                m.insert("path".to_owned(), Value::String(c.path.clone()));
                m.insert(
                    "kind".to_owned(),
                    Value::String(kind_name(c.kind).to_owned()),
                );
                if let Some(mp) = &c.move_path {
                    m.insert("movePath".to_owned(), Value::String(mp.clone()));
                }
                Value::Object(m)
            })
            .collect();
        u.input = Some(json!({ "changes": list }));
    } else {
        u.title = Some(titles::edit_files(&[]));
    }
    u
}

/// Settle a patch. `output` is the diff(s) or the apply_patch response; `failure` the error text.
pub(crate) fn patch_outcome(
    u: &mut PartUpdate,
    status: Status,
    output: Option<String>,
    failure: Option<String>,
) {
    match status {
        Status::Completed => {
            u.state = Some(ToolState::Complete);
            u.output = output.map(Value::String);
        }
        Status::Running => u.state = Some(ToolState::Running),
        Status::Failed | Status::Declined | Status::Interrupted => {
            u.state = Some(ToolState::Error);
            let details = failure.clone().filter(|f| !f.trim().is_empty());
            let (message, code) = match status {
                Status::Declined => ("Patch declined".to_owned(), Some("declined".to_owned())),
                Status::Interrupted => (
                    "Patch interrupted".to_owned(),
                    Some("interrupted".to_owned()),
                ),
                _ => (
                    details
                        .as_deref()
                        .and_then(first_line)
                        .unwrap_or_else(|| "Patch failed".to_owned()),
                    None,
                ),
            };
            u.error = Some(ToolError {
                message,
                code,
                details: details.map(Value::String),
            });
        }
    }
}

// ---------------------------------------------------------------- MCP

/// `mcp__server__tool` (the model-facing name in rollouts) → `(server, tool)`.
pub(crate) fn split_mcp_name(name: &str) -> Option<(&str, &str)> {
    let rest = name.strip_prefix("mcp__")?;
    let (server, tool) = rest.split_once("__")?;
    (!server.is_empty() && !tool.is_empty()).then_some((server, tool))
}

pub(crate) fn mcp_update(id: &str, server: &str, tool: &str, args: Value) -> PartUpdate {
    let mut u = named(
        id,
        if tool.is_empty() {
            ItemType::Mcp.name()
        } else {
            tool
        },
        titles::mcp_kind(server, tool),
    );
    u.title = Some(titles::mcp(server, tool, &args));
    u.input = Some(if args.is_null() {
        Value::Object(Map::new())
    } else {
        args
    });
    let meta = u.metadata.get_or_insert_with(ToolMetadata::default);
    meta.mcp = Some(McpRef {
        server: server.to_owned(),
        tool: tool.to_owned(),
    });
    u
}

/// The text blocks of an MCP result joined, or `None` when the content is not all text.
pub(crate) fn content_text(content: &Value) -> Option<String> {
    let blocks = content.as_array()?;
    let mut texts = Vec::with_capacity(blocks.len());
    for b in blocks {
        match b {
            Value::String(s) => texts.push(s.as_str()),
            Value::Object(m) => texts.push(m.get("text").and_then(Value::as_str)?),
            _ => return None,
        }
    }
    Some(texts.join("\n"))
}

/// Settle an MCP call from its result (`{content, structuredContent|structured_content, isError?}`)
/// and error message. A failed call may carry `error: null` with the text in `result.content`.
pub(crate) fn mcp_outcome(
    u: &mut PartUpdate,
    status: Status,
    result: Option<&Value>,
    error: Option<String>,
) {
    let content = result.and_then(|r| r.get("content"));
    let text = content.and_then(content_text);
    let is_error = result
        .and_then(|r| r.get("isError").or_else(|| r.get("is_error")))
        .and_then(Value::as_bool)
        == Some(true);
    let output = match (&text, content) {
        (Some(t), _) => Some(Value::String(t.clone())),
        (None, Some(c)) if !c.is_null() => Some(c.clone()),
        _ => result
            .and_then(|r| {
                r.get("structuredContent")
                    .or_else(|| r.get("structured_content"))
            })
            .filter(|v| !v.is_null())
            .cloned(),
    };
    let attachments = content.and_then(Value::as_array).map(|blocks| {
        blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("image"))
            .map(|b| crate::model::Attachment {
                media_type: b.get("mimeType").and_then(Value::as_str).map(str::to_owned),
                size: b
                    .get("data")
                    .and_then(Value::as_str)
                    .map(|d| d.len() as u64),
                filename: None,
            })
            .collect::<Vec<_>>()
    });
    if let Some(a) = attachments.filter(|a| !a.is_empty()) {
        u.metadata
            .get_or_insert_with(ToolMetadata::default)
            .attachments = Some(a);
    }
    let status = if status == Status::Completed && (is_error || error.is_some()) {
        Status::Failed
    } else {
        status
    };
    match status {
        Status::Running => u.state = Some(ToolState::Running),
        Status::Completed => {
            u.state = Some(ToolState::Complete);
            // Image payloads are never inlined: a content list with images keeps only its text.
            u.output = match (
                u.metadata.as_ref().and_then(|m| m.attachments.as_ref()),
                &output,
            ) {
                (Some(_), Some(Value::Array(blocks))) => Some(Value::String(
                    blocks
                        .iter()
                        .filter_map(|b| b.get("text").and_then(Value::as_str))
                        .collect::<Vec<_>>()
                        .join("\n"),
                )),
                _ => output,
            };
        }
        Status::Failed | Status::Declined | Status::Interrupted => {
            u.state = Some(ToolState::Error);
            let (message, code) = match status {
                Status::Declined => (
                    "MCP tool call declined".to_owned(),
                    Some("declined".to_owned()),
                ),
                Status::Interrupted => (
                    "MCP tool call interrupted".to_owned(),
                    Some("interrupted".to_owned()),
                ),
                _ => (
                    error
                        .as_deref()
                        .and_then(first_line)
                        .or_else(|| text.as_deref().and_then(first_line))
                        .unwrap_or_else(|| "MCP tool call failed".to_owned()),
                    None,
                ),
            };
            let details = text.map(Value::String).or_else(|| error.map(Value::String));
            u.error = Some(ToolError {
                message,
                code,
                details,
            });
        }
    }
}

// ---------------------------------------------------------------- web search

/// The action's tag folded to the app-server spelling.
fn action_type(action: &Value) -> &str {
    match action
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("other")
    {
        "open_page" | "openPage" => "openPage",
        "find_in_page" | "findInPage" => "findInPage",
        "search" => "search",
        _ => "other",
    }
}

pub(crate) fn web_search_title(query: Option<&str>, action: Option<&Value>) -> String {
    let get = |k: &str| {
        action
            .and_then(|a| a.get(k))
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
    };
    let query = query.filter(|q| !q.trim().is_empty());
    match action.map(action_type).unwrap_or("other") {
        "search" => {
            let q = get("query")
                .or_else(|| {
                    action
                        .and_then(|a| a.get("queries"))
                        .and_then(Value::as_array)
                        .and_then(|qs| qs.first())
                        .and_then(Value::as_str)
                })
                .or(query)
                .unwrap_or("");
            titles::web_search(q)
        }
        "openPage" => titles::open_page(get("url").or(query).unwrap_or("")),
        "findInPage" => match get("pattern") {
            Some(p) => titles::find_in_page(p, get("url")),
            None => titles::open_page(get("url").unwrap_or("")),
        },
        _ => titles::web_search(query.unwrap_or("")),
    }
}

pub(crate) fn web_search_update(
    id: &str,
    query: Option<&str>,
    action: Option<Value>,
) -> PartUpdate {
    let mut u = named(id, ItemType::WebSearch.name(), ToolKind::WebSearch);
    u.title = Some(web_search_title(query, action.as_ref()));
    let mut input = Map::new();
    input.insert(
        "query".to_owned(),
        Value::String(query.unwrap_or("").to_owned()),
    );
    if let Some(Value::Object(a)) = &action {
        for (k, v) in a {
            if k != "type" && !v.is_null() {
                input.insert(k.clone(), v.clone());
            }
        }
    }
    u.input = Some(Value::Object(input));
    if let Some(a) = action {
        u.metadata.get_or_insert_with(ToolMetadata::default).action = Some(a);
    }
    u
}

// ---------------------------------------------------------------- dynamic tools and sub-agents

fn dynamic_update(id: &str, item: &RawItem<'_>, outcome: Option<Status>) -> PartUpdate {
    let tool = item.tool.as_deref().unwrap_or("");
    let mut u = named(
        id,
        if tool.is_empty() {
            ItemType::Dynamic.name()
        } else {
            tool
        },
        ToolKind::Unknown,
    );
    u.title = Some(titles::unknown_tool(tool));
    let args = raw_to_value(item.arguments);
    u.input = Some(if args.is_null() {
        Value::Object(Map::new())
    } else {
        args
    });
    if let Some(ns) = &item.namespace {
        u.metadata
            .get_or_insert_with(ToolMetadata::default)
            .extra
            .insert("namespace".to_owned(), Value::String(ns.to_string()));
    }
    if let Some(s) = outcome {
        let content = raw_to_value(item.content_items);
        let text = content.as_array().map(|items| {
            items
                .iter()
                .filter_map(|i| i.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n")
        });
        let s = if s == Status::Completed && item.success == Some(false) {
            Status::Failed
        } else {
            s
        };
        let output = text.filter(|t| !t.is_empty()).map(Value::String);
        simple_outcome(&mut u, s, output, "Dynamic tool call failed");
        let first = u
            .error
            .as_ref()
            .and_then(|e| e.details.as_ref())
            .and_then(Value::as_str)
            .and_then(first_line);
        if let (Some(e), Some(t)) = (u.error.as_mut(), first) {
            e.message = t;
        }
    }
    u
}

/// `spawn_agent` → `spawnAgent`: exec's snake_case collab tools under the app-server names.
pub(crate) fn camel_case(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut upper = false;
    for ch in s.chars() {
        if ch == '_' {
            upper = true;
        } else if upper {
            out.extend(ch.to_uppercase());
            upper = false;
        } else {
            out.push(ch);
        }
    }
    out
}

/// Title of a collab (sub-agent) tool from the tool and its prompt.
pub(crate) fn collab_title(tool: &str, prompt: Option<&str>) -> String {
    let prompt = prompt.map(str::trim).filter(|p| !p.is_empty());
    let with = |verb: &str, fallback: &str| match prompt {
        Some(p) => titles::finish(&format!("{verb}: {p}"), fallback),
        None => fallback.to_owned(),
    };
    match camel_case(tool).as_str() {
        "spawnAgent" => titles::subagent(None, prompt),
        "sendInput" | "sendMessage" => with("Messaging subagent", "Messaging a subagent"),
        "followupTask" => with("Following up with subagent", "Following up with a subagent"),
        "wait" | "waitAgent" | "resumeAgent" => "Waiting for subagents".to_owned(),
        "closeAgent" => "Closing a subagent".to_owned(),
        "interruptAgent" => "Interrupting a subagent".to_owned(),
        "listAgents" => "Listing subagents".to_owned(),
        _ => with(
            &titles::capitalize(&titles::words(tool)),
            "Running a subagent",
        ),
    }
}

fn collab_update(id: &str, item: &RawItem<'_>, outcome: Option<Status>) -> PartUpdate {
    let tool = camel_case(item.tool.as_deref().unwrap_or(""));
    let mut u = named(
        id,
        if tool.is_empty() {
            ItemType::Collab.name()
        } else {
            &tool
        },
        ToolKind::Subagent,
    );
    u.title = Some(collab_title(&tool, item.prompt.as_deref()));
    let mut input = Map::new();
    if let Some(p) = &item.prompt {
        input.insert("prompt".to_owned(), Value::String(p.to_string()));
    }
    if let Some(m) = &item.model {
        input.insert("model".to_owned(), Value::String(m.to_string()));
    }
    // `wait` names no receiver (multi-agent v2): an empty list says nothing.
    if let Some(r) = item.receiver_thread_ids.as_ref().filter(|r| !r.is_empty()) {
        input.insert(
            "receiverThreadIds".to_owned(),
            Value::Array(r.iter().map(|s| Value::String(s.to_string())).collect()),
        );
    }
    u.input = Some(Value::Object(input));
    if let Some(child) = item.receiver_thread_ids.as_ref().and_then(|r| r.first()) {
        u.metadata
            .get_or_insert_with(ToolMetadata::default)
            .child_session_id = Some(child.to_string());
    }
    if let Some(s) = outcome {
        let states = raw_to_value(item.agents_states);
        let messages: Vec<String> = states
            .as_object()
            .map(|m| {
                m.values()
                    .filter_map(|s| s.get("message").and_then(Value::as_str))
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        let output = (!messages.is_empty()).then(|| Value::String(messages.join("\n")));
        simple_outcome(&mut u, s, output, "Subagent call failed");
        if let Some(e) = u.error.as_mut() {
            if let Some(m) = messages.first().and_then(|m| first_line(m)) {
                if e.code.is_none() {
                    e.message = m;
                }
            }
        }
    }
    u
}

/// The `kind` of a `subAgentActivity`, when it is a string.
pub(crate) fn activity_kind<'a>(item: &'a RawItem<'_>) -> Option<&'a str> {
    item.kind
        .and_then(|k| serde_json::from_str::<&str>(k.get()).ok())
}

/// A `subAgentActivity` item (multi-agent v2, codex 0.171.0): `started` is the `spawn_agent` call,
/// `interacted` a `send_message` / `followup_task`, `interrupted` an `interrupt_agent` (their item
/// id is the call id). `completed` is no call: the parent's notice that the subagent finished, with
/// an id of its own (`subagent-completed-<turn>`); it makes no part (None).
fn subagent_activity_update(
    id: &str,
    item: &RawItem<'_>,
    outcome: Option<Status>,
) -> Option<PartUpdate> {
    let kind = activity_kind(item).unwrap_or("");
    if kind == "completed" {
        return None;
    }
    let path = item.agent_path.as_deref().filter(|p| !p.trim().is_empty());
    // `/root/version_check` → `version_check`: the task name the model gave.
    let task = path.map(|p| p.trim_end_matches('/').rsplit('/').next().unwrap_or(p));
    let named_or = |verb: &str, fallback: &str| match task.filter(|t| !t.is_empty()) {
        Some(t) => titles::finish(&format!("{verb} {t}"), fallback),
        None => fallback.to_owned(),
    };
    let title = match kind {
        "started" => titles::subagent(None, task),
        "interacted" => named_or("Messaging subagent", "Messaging a subagent"),
        "interrupted" => named_or("Interrupting subagent", "Interrupting a subagent"),
        _ => named_or("Subagent", "Subagent activity"),
    };
    let mut u = named(id, ItemType::SubAgent.name(), ToolKind::Subagent);
    u.title = Some(title);
    let mut input = Map::new();
    if let Some(p) = path {
        input.insert("agentPath".to_owned(), Value::String(p.to_owned()));
    }
    if let Some(t) = &item.agent_thread_id {
        input.insert("agentThreadId".to_owned(), Value::String(t.to_string()));
    }
    if let Some(m) = &item.model {
        input.insert("model".to_owned(), Value::String(m.to_string()));
    }
    if let Some(r) = &item.reasoning_effort {
        input.insert("reasoningEffort".to_owned(), Value::String(r.to_string()));
    }
    u.input = Some(Value::Object(input));
    let meta = u.metadata.get_or_insert_with(ToolMetadata::default);
    if let Some(t) = &item.agent_thread_id {
        meta.child_session_id = Some(t.to_string());
    }
    if !kind.is_empty() {
        meta.extra
            .insert("activity".to_owned(), Value::String(kind.to_owned()));
    }
    if let Some(s) = outcome {
        simple_outcome(&mut u, s, None, "Subagent call failed");
    }
    Some(u)
}

/// A `request_user_input` call: the questions asked (`[{id, header, question, options, …}]`).
pub(crate) fn question_update(id: &str, name: &str, questions: Value) -> PartUpdate {
    let mut u = named(id, name, ToolKind::Question);
    u.title = Some(titles::questions(Some(&questions)));
    u.input = Some(json!({ "questions": questions }));
    u
}

/// Title of a todo / plan update from its steps (`update_plan`, `turn/plan/updated`).
pub(crate) fn plan_update(
    id: &str,
    name: &str,
    explanation: Option<&str>,
    steps: &Value,
) -> PartUpdate {
    let list = steps.as_array().map(Vec::as_slice).unwrap_or(&[]);
    let done = list
        .iter()
        .filter(|s| s.get("status").and_then(Value::as_str) == Some("completed"))
        .count();
    let mut u = named(id, name, ToolKind::Todo);
    u.title = Some(titles::todo(list.len(), done));
    let mut input = Map::new();
    if let Some(e) = explanation.filter(|e| !e.is_empty()) {
        input.insert("explanation".to_owned(), Value::String(e.to_owned()));
    }
    input.insert("plan".to_owned(), steps.clone());
    u.input = Some(Value::Object(input));
    u
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_id_keeps_the_first() {
        let raw = r#"{"id":"item_1","type":"web_search","id":"ws_1","query":"q","action":{"type":"search","query":"q"}}"#;
        let mut scratch = None;
        let item = parse_item(raw, &mut scratch).unwrap();
        assert_eq!(item.id.as_deref(), Some("item_1"));
        assert_eq!(item.query.as_deref(), Some("q"));
    }

    #[test]
    fn duration_shapes() {
        let r = |s: &str| duration_ms(&serde_json::from_str::<Box<RawValue>>(s).unwrap());
        assert_eq!(r(r#"{"secs":1,"nanos":500000000}"#), Some(1500));
        assert_eq!(r("42"), Some(42));
        assert_eq!(r(r#""1.5s""#), Some(1500));
        assert_eq!(r(r#""120ms""#), Some(120));
    }

    #[test]
    fn change_shapes() {
        let r = |s: &str| parse_changes(&serde_json::from_str::<Box<RawValue>>(s).unwrap());
        let app = r(
            r#"[{"path":"/w/a.txt","kind":{"type":"update","move_path":"/w/b.txt"},"diff":"@@"}]"#,
        );
        assert_eq!(app[0].kind, ChangeKind::Update);
        assert_eq!(app[0].move_path.as_deref(), Some("/w/b.txt"));
        assert_eq!(app[0].diff.as_deref(), Some("@@"));
        let exec = r(r#"[{"path":"/w/a.txt","kind":"add"}]"#);
        assert_eq!(exec[0].kind, ChangeKind::Add);
        let tagged = r(r#"{"/w/a":{"type":"add","content":"hi"}}"#);
        assert_eq!(tagged[0].diff.as_deref(), Some("hi"));
        let old = r(r#"{"/w/a":{"update":{"unified_diff":"@@ x","move_path":null}}}"#);
        assert_eq!(old[0].kind, ChangeKind::Update);
        assert_eq!(old[0].diff.as_deref(), Some("@@ x"));
    }

    #[test]
    fn patch_envelope_files() {
        let p = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** Update File: b.txt\n*** Move to: c.txt\n@@\n*** End Patch";
        let c = changes_from_patch(p);
        assert_eq!(c.len(), 2);
        assert_eq!(c[1].move_path.as_deref(), Some("c.txt"));
        assert_eq!(patch_kind_title(&c, None).1, "Editing a.txt, b.txt");
    }

    #[test]
    fn command_titles() {
        let cmd = |command: &str, actions: Vec<Action>| Command {
            command: Value::String(command.into()),
            cwd: Some("/w".into()),
            actions,
            extra: Map::new(),
        };
        let (k, t) = cmd(
            "/bin/bash -lc 'cat notes.txt'",
            vec![Action::Read {
                path: "/w/notes.txt".into(),
            }],
        )
        .kind_title(None);
        assert_eq!((k, t.as_str()), (ToolKind::FileRead, "Reading notes.txt"));
        let (k, t) = cmd("ls -1", vec![Action::List { path: None }]).kind_title(None);
        assert_eq!((k, t.as_str()), (ToolKind::FileRead, "Listing files"));
        let (k, t) = cmd(
            "rg x src",
            vec![Action::Search {
                query: Some("x".into()),
                path: Some("src".into()),
            }],
        )
        .kind_title(None);
        assert_eq!(
            (k, t.as_str()),
            (ToolKind::FileRead, "Searching for \"x\" in src")
        );
        let (k, t) = cmd(
            "sed -n '1,20p' src/a.js && grep -n version package.json",
            vec![
                Action::Read {
                    path: "/w/src/a.js".into(),
                },
                Action::Search {
                    query: Some("version".into()),
                    path: Some("package.json".into()),
                },
            ],
        )
        .kind_title(None);
        assert_eq!(
            (k, t.as_str()),
            (
                ToolKind::FileRead,
                "Reading src/a.js, searching for \"version\" in package.json"
            )
        );
        let (k, t) = cmd("/usr/bin/zsh -lc 'date -Is'", vec![Action::Unknown]).kind_title(None);
        assert_eq!((k, t.as_str()), (ToolKind::Bash, "Running date -Is"));
    }

    #[test]
    fn web_search_titles_follow_the_contract() {
        let t = |a: Value| web_search_title(Some(""), Some(&a));
        assert_eq!(
            t(json!({"type":"search","query":"Reuters top news"})),
            "Searching Reuters top news"
        );
        assert_eq!(
            t(json!({"type":"openPage","url":"https://apnews.com/hub/ap-top-news"})),
            "Opening apnews.com"
        );
        assert_eq!(
            t(
                json!({"type":"find_in_page","url":"https://apnews.com/hub/ap-top-news","pattern":"Updated"})
            ),
            "Finding \"Updated\" on apnews.com"
        );
        assert_eq!(t(json!({"type":"other"})), "Searching the web");
    }
}
