//! Codex's wire types: the thread item that app-server (camelCase), exec (snake_case) and rollout
//! `item_completed` (PascalCase types, snake_case fields) items all parse into ([`RawItem`]), the
//! spellings of item types and statuses folded across dialects, command actions, and the small
//! value shapes (durations, error objects) items carry. Each dialect file keeps only its envelope.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

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
    pub(crate) fn name(self) -> &'static str {
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

/// One entry of `commandActions` / `parsed_cmd`, in either spelling.
#[derive(Deserialize)]
pub(crate) struct RawAction<'a> {
    #[serde(rename = "type", borrow)]
    pub ty: Cow<'a, str>,
    #[serde(borrow, default)]
    pub name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub path: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub query: Option<Cow<'a, str>>,
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
pub(crate) fn error_message(raw: &RawValue) -> Option<String> {
    match serde_json::from_str::<Value>(raw.get()).ok()? {
        Value::String(s) => Some(s),
        Value::Object(m) => m.get("message").and_then(Value::as_str).map(str::to_owned),
        _ => None,
    }
}

/// The `kind` of a `subAgentActivity`, when it is a string.
pub(crate) fn activity_kind<'a>(item: &'a RawItem<'_>) -> Option<&'a str> {
    item.kind
        .and_then(|k| serde_json::from_str::<&str>(k.get()).ok())
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
}
