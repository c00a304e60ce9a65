//! The scans' JSON parse: a tree of [`Node`]s holding only what some scan reads. Every object key
//! the scans look up is kept (its value pruned the same way); the argument containers are kept
//! whole (their keys are the tool's own); everything else is skipped without being built (tool
//! outputs, file contents, usage blocks, the duplicated `toolUseResult` of a transcript). A
//! `content` string is dropped too (the scans read `content` as a list of blocks), and so is a
//! block's `text`, unless the string is a notice the scans read ([`is_notice`]: Claude Code's
//! background-task notices), which only its two ends decide.
//!
//! Skipping costs a scan of the bytes, building costs an allocation per array and object (and
//! per string that holds an escape): on recorded streams most bytes are in the skipped parts. The
//! tree borrows its keys and plain strings from the line, and an object is a list of its entries
//! (a pruned object has a handful), so nothing is hashed; what a scan keeps of it becomes a
//! `serde_json::Value` only then ([`Node::to_value`]). A line that is not JSON is still refused
//! as a whole.
//!
//! The parser ([`parser`]) is written here rather than driven through serde_json's deserializer,
//! for speed: a skipped string costs one look per sixteen bytes and per escape, not a call per
//! escape. It refuses and reads exactly what serde_json does: it hands serde_json what is rare and
//! subtle (escaped strings it keeps, numbers that are not small whole ones), and property tests
//! hold it to the serde_json-driven parse it replaced (`oracle.rs`, compiled for the tests only).
//!
//! When a scan starts reading a new key, add it to [`keep`] (as whole if its keys are not known
//! in advance): the scans' tests run through this parse, so a missing key fails them.

use std::borrow::Cow;
use std::fmt;

use serde_json::{Map, Number, Value};

use super::MEANINGFUL_KEYS;
use crate::stream::RawLine;

#[cfg(test)]
mod oracle;
mod parser;
#[cfg(test)]
mod tests;

/// A JSON value as the scans read it, borrowing from the line it was parsed from. An object's
/// entries keep their first position and last value, as in a `serde_json::Value` of the same
/// text, so a key given twice reads the same either way.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Node<'a> {
    Null,
    Bool(bool),
    Number(Number),
    String(Cow<'a, str>),
    Array(Vec<Node<'a>>),
    Object(Vec<(Cow<'a, str>, Node<'a>)>),
}

impl<'a> Node<'a> {
    /// The value under `key` of an object.
    pub(crate) fn get(&self, key: &str) -> Option<&Node<'a>> {
        self.as_object()?
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Node::String(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn as_bool(&self) -> Option<bool> {
        match self {
            Node::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub(crate) fn as_i64(&self) -> Option<i64> {
        match self {
            Node::Number(n) => n.as_i64(),
            _ => None,
        }
    }

    pub(crate) fn as_array(&self) -> Option<&[Node<'a>]> {
        match self {
            Node::Array(a) => Some(a),
            _ => None,
        }
    }

    pub(crate) fn as_object(&self) -> Option<&[(Cow<'a, str>, Node<'a>)]> {
        match self {
            Node::Object(o) => Some(o),
            _ => None,
        }
    }

    pub(crate) fn is_object(&self) -> bool {
        matches!(self, Node::Object(_))
    }

    /// True for values that say nothing: null, "", {}, [].
    pub(crate) fn is_empty(&self) -> bool {
        match self {
            Node::Null => true,
            Node::String(s) => s.is_empty(),
            Node::Object(o) => o.is_empty(),
            Node::Array(a) => a.is_empty(),
            Node::Bool(_) | Node::Number(_) => false,
        }
    }

    /// The same value as a `serde_json::Value` (what a scan keeps of a call's arguments).
    pub(crate) fn to_value(&self) -> Value {
        match self {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Bool(*b),
            Node::Number(n) => Value::Number(n.clone()),
            Node::String(s) => Value::String(s.as_ref().to_owned()),
            Node::Array(a) => Value::Array(a.iter().map(Node::to_value).collect()),
            Node::Object(o) => Value::Object(
                o.iter()
                    .map(|(k, v)| (k.as_ref().to_owned(), v.to_value()))
                    .collect::<Map<String, Value>>(),
            ),
        }
    }
}

/// JSON text, as a `serde_json::Value` of the same value prints (a request id as a map key).
impl fmt::Display for Node<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.to_value(), f)
    }
}

/// What to do with the value under a key.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Keep {
    /// Build it, pruning the objects inside it.
    Pruned,
    /// Build it whole.
    Whole,
    /// Build it pruned, but drop it if it is a string that is not a notice ([`is_notice`]).
    NoString,
    /// Build it if it is a string that is a notice ([`is_notice`]); else leave it out.
    Notice,
    /// Do not build it.
    Skip,
}

fn keep(key: &str) -> Keep {
    // A match on the key compiles to a switch on its length, then a comparison or two.
    match key {
        "content" => Keep::NoString,
        "text" => Keep::Notice,
        "Err" | "Ok" | "action" | "attachment" | "callID" | "call_id" | "content_block"
        | "data" | "error" | "event" | "exit" | "exitCode" | "exit_code" | "id" | "isError"
        | "is_backgrounded" | "is_error" | "item" | "itemId" | "kind" | "message" | "messages"
        | "metadata" | "method" | "msg" | "name" | "namespace" | "operation" | "optionId"
        | "options" | "outcome" | "output" | "params" | "part" | "parts" | "payload"
        | "properties" | "reason" | "result" | "server" | "sessionID" | "sessionId"
        | "sessionUpdate" | "state" | "status" | "stopReason" | "subtype" | "success"
        | "threadId" | "tool" | "toolCall" | "toolCallId" | "toolName" | "tool_use_id"
        | "turnId" | "type" | "update" | "working_directory" => Keep::Pruned,
        // ACP: the MCP servers a client declares, a call's title (OpenCode names an MCP call in
        // it), and the agent an `initialize` response names (OpenHands' permission requests).
        "mcpServers" | "title" | "agentInfo" => Keep::Pruned,
        // The UI wires (AI SDK chunks, AG-UI events and the `toolnorm` slot of their metadata).
        "toolCallName" | "toolnorm" | "value" => Keep::Pruned,
        // Gemini CLI and Qwen Code.
        "$set" | "functionCall" | "functionResponse" | "response" | "toolCallResult"
        | "toolCalls" | "tool_id" | "tool_name" => Keep::Pruned,
        // Cline.
        "contentType" => Keep::Pruned,
        // OpenHands.
        "observation" | "source" | "tool_call" | "tool_call_id" => Keep::Pruned,
        // Kimi CLI.
        "role" | "tool_calls" | "function" => Keep::Pruned,
        // Kimi CLI's wire.
        "return_value"
        | "agent_id"
        | "parent_tool_call_id"
        | "task_tool_call_id"
        | "arguments_part" => Keep::Pruned,
        // Copilot CLI and droid.
        "agentId" | "mcpServerName" | "mcpToolName" | "shellExecution" | "toolId"
        | "toolRequests" => Keep::Pruned,
        // Mistral Vibe (an effect's `detail` and `state.display.success`; the journal's
        // projection ops and snapshots).
        "detail" | "display" | "delta" | "entry" | "entries" | "snapshot" | "history"
        | "structured_content" | "returncode" | "tool_result" | "cancelled" | "presentation" => {
            Keep::Pruned
        }
        // Vibe's app server: a history entry's patch (`op`, `path`, `value`).
        "entryId" | "patch" | "op" => Keep::Pruned,
        "_meta" | "arguments" | "args" | "changes" | "input" | "invocation" | "parameters"
        | "rawInput" => Keep::Whole,
        k if MEANINGFUL_KEYS.contains(&k) => Keep::Pruned,
        _ => Keep::Skip,
    }
}

/// What opens a notice the scans read: a `<task-notification>` block (its `<` and `>` also as
/// JSON escapes), a background command's, agent's or monitor's launch notice.
const NOTICE_OPENINGS: &[&[u8]] = &[
    b"<task-notification>",
    b"\\u003ctask-notification\\u003e",
    b"\\u003Ctask-notification\\u003E",
    b"Command running in background with ID: ",
    b"Command was manually backgrounded by user with ID: ",
    b"Command did not complete within its ",
    b"Command was moved to the background (ID: ",
    b"Async agent launched successfully",
    b"Monitor started (task ",
];

/// What ends a command moved to the background once it had printed something (each holds
/// `background`).
const NOTICE_ENDINGS: &[&[u8]] = &[
    b"backgrounded by user with ID: ",
    b"moved to the background (ID: ",
];

/// How much of a string's end is looked at for [`NOTICE_ENDINGS`].
const NOTICE_TAIL: usize = 512;

/// Whether the JSON string `raw` (quotes included) is a notice the scans read: it opens, past
/// white space, with one of [`NOTICE_OPENINGS`], or its last [`NOTICE_TAIL`] bytes hold one of
/// [`NOTICE_ENDINGS`]. Only the two ends are looked at: a long tool output costs no more.
pub(super) fn is_notice(raw: &[u8]) -> bool {
    let Some(mut body) = raw.strip_prefix(b"\"") else {
        return false;
    };
    loop {
        match body {
            [b' ' | b'\n' | b'\t' | b'\r', rest @ ..] => body = rest,
            [b'\\', b'n' | b't' | b'r', rest @ ..] => body = rest,
            _ => break,
        }
    }
    if NOTICE_OPENINGS.iter().any(|o| body.starts_with(o)) {
        return true;
    }
    // One look for what every ending holds, the endings themselves only where it is.
    let tail = &raw[raw.len().saturating_sub(NOTICE_TAIL)..];
    memchr::memmem::find(tail, b"background").is_some()
        && NOTICE_ENDINGS
            .iter()
            .any(|e| memchr::memmem::find(tail, e).is_some())
}

/// Parse `bytes` as JSON, keeping only what the scans read (see the module's documentation).
pub(crate) fn parse(bytes: &[u8]) -> Option<Node<'_>> {
    parser::parse(bytes, crate::stream::utf8(bytes), false)
}

/// [`parse`] of a stream's line, from its text when the line says it is known UTF-8 (no second
/// look at every byte), else checked here. With `sse`, a server-sent event's `data:` prefix is
/// not part of the JSON and is dropped first.
pub(crate) fn parse_line<'a>(line: &RawLine<'a>, sse: bool) -> Option<Node<'a>> {
    let bytes = match line.bytes.strip_prefix(b"data:") {
        Some(rest) if sse => rest,
        _ => line.bytes,
    };
    // The known text, cut where the bytes are (past an ASCII prefix: a character boundary).
    let text = line.as_text().and_then(|t| t.get(t.len() - bytes.len()..));
    parser::parse(bytes, text, false)
}

/// Parse `text` as JSON, keeping all of it (a call's arguments given as a JSON string).
pub(crate) fn parse_whole(text: &str) -> Option<Node<'_>> {
    parser::parse(text.as_bytes(), Some(text), true)
}

/// How many `content` values, one inside another, are parsed on their own. Each such parse has
/// the nesting limit afresh, so without a cap a line of nested `content` lists nests parses until
/// the stack overflows. Real streams nest two; deeper ones are dropped.
const MAX_HOPS: u8 = 8;

/// How many arrays and objects a parse builds one inside another, as serde_json counts them
/// (127: a 128th is refused). Values that are skipped are not built and not counted.
const DEPTH: u8 = 128;

/// Give a key that came more than once its first position and its last value, as a
/// `serde_json::Value` map does. Checked pairwise in a small object, by sorting in a large one
/// (never quadratic); rebuilt only when a key did repeat.
fn dedupe<'a>(entries: &mut Vec<(Cow<'a, str>, Node<'a>)>) {
    let n = entries.len();
    let repeats = if n <= 8 {
        (1..n).any(|i| entries[..i].iter().any(|(k, _)| *k == entries[i].0))
    } else {
        let mut keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_ref()).collect();
        keys.sort_unstable();
        keys.windows(2).any(|w| w[0] == w[1])
    };
    if !repeats {
        return;
    }
    let mut at: crate::rules::support::HashMap<String, usize> = Default::default();
    let mut out: Vec<(Cow<'a, str>, Node<'a>)> = Vec::with_capacity(n);
    for (k, v) in entries.drain(..) {
        match at.get(k.as_ref()) {
            Some(&i) => out[i].1 = v,
            None => {
                at.insert(k.as_ref().to_owned(), out.len());
                out.push((k, v));
            }
        }
    }
    *entries = out;
}
