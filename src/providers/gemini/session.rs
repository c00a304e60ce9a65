//! Gemini CLI's saved sessions (`~/.gemini/tmp/<project>/chats/session-<time>-<id>.jsonl`, what
//! `--resume` reads). Each line is one record: the header (`sessionId`, `projectHash`,
//! `startTime`, `kind`), a message (`id`, `timestamp`, `type` `user` | `gemini` | `info` |
//! `warning` | `error`, `content`), or an update `{"$set": {…}}` of the header's fields or of the
//! whole `messages` list. A `gemini` message is written when the model answers and again, under
//! the same id, with its `toolCalls` once they ran: `[{id, name, args, result: [{functionResponse:
//! {id, name, response: {output} | {error}}}], status, timestamp, resultDisplay, displayName,
//! description}]`. The output is the display text when it is text (what stream-json shows),
//! else the `functionResponse`'s `output`; a shell call's `Exit Code: N` becomes
//! `metadata.exitCode` (the CLI marks a command that exits non-zero as a success).
//! Releases before the JSONL files (0.24.x and the lines before it) wrote one pretty-printed JSON
//! document per session (`~/.gemini/tmp/<project hash>/chats/session-<time>-<id>.json`,
//! `{sessionId, projectHash, startTime, lastUpdated, messages: […]}`): a stream whose first line
//! opens an object and closes nothing is read as that document, kept until the end (bounded), its
//! calls pointed at the line where each id appears.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::tools::Family;
use super::tracker::{Outcome, Tracker, exit_code};
use crate::model::{ToolMetadata, ToolState};
use crate::providers::{
    LineNormalizer, NormalizeOptions, PartStore, PartUpdate, line_text, report_bad_json,
};
use crate::stream::RawLine;

#[derive(Deserialize)]
struct Record<'a> {
    #[serde(rename = "type", borrow, default)]
    ty: Option<Cow<'a, str>>,
    #[serde(rename = "$set", borrow, default)]
    set: Option<Set<'a>>,
    #[serde(borrow, default)]
    messages: Option<Vec<Message<'a>>>,
    #[serde(rename = "toolCalls", borrow, default)]
    tool_calls: Option<Vec<ToolCall<'a>>>,
}

#[derive(Deserialize)]
struct Set<'a> {
    #[serde(borrow, default)]
    messages: Option<Vec<Message<'a>>>,
}

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(rename = "toolCalls", borrow, default)]
    tool_calls: Option<Vec<ToolCall<'a>>>,
}

#[derive(Deserialize)]
pub(super) struct ToolCall<'a> {
    #[serde(borrow, default)]
    pub id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub args: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub status: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub timestamp: Option<Cow<'a, str>>,
    #[serde(rename = "resultDisplay", borrow, default)]
    pub result_display: Option<&'a RawValue>,
}

/// Normalizes a Gemini CLI session file.
pub(crate) struct Normalizer {
    tracker: Tracker,
    /// The first non-blank line was seen.
    started: bool,
    /// A whole-document session: its bytes and where each line starts.
    document: Option<Document>,
}

#[derive(Default)]
struct Document {
    bytes: Vec<u8>,
    starts: Vec<(usize, u32)>,
    over: bool,
}

/// Longest whole-document session kept, in bytes.
const MAX_DOCUMENT: usize = 64 << 20;

pub(crate) fn new(opts: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(Normalizer {
        tracker: Tracker::new(Family::Gemini, opts.cwd),
        started: false,
        document: None,
    })
}

/// Whether a first line opens a JSON document rather than holding a record: an object it does
/// not close.
fn opens_document(line: &[u8]) -> bool {
    let t = line.trim_ascii();
    t.first() == Some(&b'{') && serde_json::from_slice::<serde::de::IgnoredAny>(t).is_err()
}

/// The `functionResponse.response` of a recorded result (the first part that has one).
fn response(result: Option<&RawValue>) -> Option<Value> {
    let parts: Value = serde_json::from_str(result?.get()).ok()?;
    let parts = match parts {
        Value::Array(a) => a,
        one => vec![one],
    };
    parts
        .into_iter()
        .find_map(|p| p.get("functionResponse")?.get("response").cloned())
}

/// One recorded call: the part, then its outcome unless it is still to run.
pub(super) fn apply_call(
    tracker: &Tracker,
    line: u32,
    call: &ToolCall<'_>,
    provider_type: &str,
    store: &mut PartStore,
) {
    let (Some(id), Some(name)) = (call.id.as_deref(), call.name.as_deref()) else {
        store.warn(line, "a recorded tool call without id or name; skipped");
        return;
    };
    let input = call
        .args
        .and_then(|a| serde_json::from_str(a.get()).ok())
        .unwrap_or_else(|| Value::Object(Default::default()));
    let ts = call.timestamp.as_deref();
    tracker.call(
        line,
        id,
        name,
        input,
        ToolState::Running,
        provider_type,
        None,
        store,
    );
    let response = response(call.result);
    let display = call
        .result_display
        .and_then(|d| serde_json::from_str::<Value>(d.get()).ok())
        .and_then(|d| d.as_str().map(str::to_owned));
    let llm_output = response
        .as_ref()
        .and_then(|r| r.get("output"))
        .and_then(Value::as_str);
    let outcome = match call.status.as_deref() {
        Some("success") => Outcome::Done {
            output: display
                .or_else(|| llm_output.map(str::to_owned))
                .map(Value::String),
        },
        Some("error" | "cancelled") => {
            let cancelled = call.status.as_deref() == Some("cancelled");
            let message = response
                .as_ref()
                .and_then(|r| r.get("error"))
                .and_then(Value::as_str)
                .map(str::to_owned)
                .or(display);
            match (message, cancelled) {
                (Some(m), false) => tracker.failure(id, m, store),
                (None, false) => Outcome::Failed {
                    message: "the tool call failed".to_owned(),
                    code: None,
                    details: None,
                },
                (m, true) => Outcome::Failed {
                    message: m.unwrap_or_else(|| "The call was cancelled".to_owned()),
                    code: Some("cancelled".to_owned()),
                    details: None,
                },
            }
        }
        // Still scheduled, validating, awaiting approval or executing when the file was written.
        _ => return,
    };
    tracker.result(line, id, outcome, ts, store);
    if name == "run_shell_command"
        && let Some(code) = llm_output.and_then(exit_code)
    {
        store.upsert(
            line,
            PartUpdate {
                metadata: Some(ToolMetadata {
                    exit_code: Some(code),
                    ..ToolMetadata::default()
                }),
                ..PartUpdate::new(id)
            },
        );
    }
}

impl Normalizer {
    fn keep(&mut self, line: &RawLine<'_>, store: &mut PartStore) {
        let Some(doc) = self.document.as_mut() else {
            return;
        };
        if doc.over {
            return;
        }
        if doc.bytes.len() + line.bytes.len() > MAX_DOCUMENT {
            doc.over = true;
            store.warn(
                line.number,
                "the session document is larger than 64 MiB; the rest is not read",
            );
            return;
        }
        doc.starts.push((doc.bytes.len(), line.number));
        doc.bytes.extend_from_slice(line.bytes);
        if !line.unterminated {
            doc.bytes.push(b'\n');
        }
    }

    /// Read a whole-document session once the stream has ended.
    fn read_document(&mut self, doc: Document, store: &mut PartStore) {
        #[derive(Deserialize)]
        struct Whole<'a> {
            #[serde(borrow, default)]
            messages: Vec<Message<'a>>,
        }
        let whole: Whole<'_> = match serde_json::from_slice(&doc.bytes) {
            Ok(w) => w,
            Err(e) => {
                let line = doc
                    .starts
                    .get(e.line().saturating_sub(1))
                    .map_or(1, |(_, n)| *n);
                let level = if e.is_eof() {
                    crate::model::DiagnosticLevel::Error
                } else {
                    crate::model::DiagnosticLevel::Warning
                };
                store.diagnostic(
                    line,
                    level,
                    format!("not a Gemini CLI session document: {e}"),
                );
                return;
            }
        };
        let mut cursor = 0;
        for call in whole
            .messages
            .iter()
            .flat_map(|m| m.tool_calls.iter().flatten())
        {
            let line = call.id.as_deref().map_or(1, |id| {
                let needle = format!("\"{id}\"");
                let at = crate::stream::find_bytes(&doc.bytes[cursor..], needle.as_bytes())
                    .map(|i| i + cursor);
                if let Some(at) = at {
                    cursor = at + needle.len();
                }
                match at.map(|at| doc.starts.partition_point(|(s, _)| *s <= at)) {
                    Some(i) if i > 0 => doc.starts[i - 1].1,
                    _ => 1,
                }
            });
            apply_call(&self.tracker, line, call, "toolCall", store);
        }
    }
}

impl LineNormalizer for Normalizer {
    fn line(&mut self, line: &RawLine<'_>, store: &mut PartStore) {
        if !self.started && !line.is_blank() {
            self.started = true;
            if opens_document(line.bytes) {
                self.document = Some(Document::default());
            }
        }
        if self.document.is_some() {
            self.keep(line, store);
            return;
        }
        let Some(text) = line_text(line, store) else {
            return;
        };
        let r: Record<'_> = match serde_json::from_str(&text) {
            Ok(r) => r,
            Err(err) if err.is_data() => {
                store.warn(
                    line.number,
                    format!("not a Gemini CLI session record: {err}"),
                );
                return;
            }
            Err(err) => {
                report_bad_json(line, &err, store);
                return;
            }
        };
        let calls = r.tool_calls.iter().flatten().chain(
            r.set
                .iter()
                .flat_map(|s| s.messages.iter().flatten())
                .chain(r.messages.iter().flatten())
                .flat_map(|m| m.tool_calls.iter().flatten()),
        );
        for call in calls {
            apply_call(&self.tracker, line.number, call, "toolCall", store);
        }
        let _ = r.ty;
    }

    fn finish(&mut self, store: &mut PartStore) {
        if let Some(doc) = self.document.take() {
            self.read_document(doc, store);
        }
    }
}

/// Recognises a whole-document session: an object with `sessionId` and a `messages` list.
pub(crate) fn sniff_document(bytes: &[u8]) -> bool {
    let bytes = bytes
        .strip_prefix(b"\xEF\xBB\xBF")
        .unwrap_or(bytes)
        .trim_ascii();
    bytes.first() == Some(&b'{')
        && serde_json::from_slice::<Value>(bytes).is_ok_and(|v| {
            v.get("sessionId").is_some() && v.get("messages").is_some_and(Value::is_array)
        })
}

/// Recognises a session record: the header, a `$set` update, or a message of the recorder's
/// types.
pub(crate) fn sniff(p: &crate::providers::Probe<'_>) -> bool {
    if p.has("$set") || p.has("$rewindTo") {
        return true;
    }
    if p.has("sessionId") && p.has("projectHash") {
        return true;
    }
    matches!(
        p.ty().as_ref(),
        "user" | "gemini" | "info" | "warning" | "error"
    ) && p.has("id")
        && p.has("timestamp")
        && p.has("content")
        && !p.has("session_id")
        && !p.has("message")
}

#[cfg(test)]
mod tests {
    use crate::model::{ToolKind, ToolState};
    use crate::stream::Dialect;

    #[test]
    fn recorded_calls_are_parts_once_however_often_the_message_is_written() {
        let doc = crate::dialects::normalize_text(
            concat!(
                r#"{"sessionId":"s","projectHash":"h","startTime":"t","lastUpdated":"t","kind":"main"}"#,
                "\n",
                r#"{"id":"m1","timestamp":"t","type":"gemini","content":"","model":"x"}"#,
                "\n",
                r#"{"id":"m1","timestamp":"t","type":"gemini","content":"","toolCalls":[{"id":"run_shell_command__c1","name":"run_shell_command","args":{"command":"node t.js"},"result":[{"functionResponse":{"id":"run_shell_command__c1","name":"run_shell_command","response":{"output":"Output: boom\nExit Code: 1"}}}],"status":"success","timestamp":"t2","resultDisplay":"boom"},{"id":"read_file__c2","name":"read_file","args":{"file_path":"x"},"result":[{"functionResponse":{"response":{"error":"File not found: /w/x"}}}],"status":"error","timestamp":"t2","resultDisplay":"File not found."}]}"#,
                "\n",
                r#"{"$set":{"lastUpdated":"t3"}}"#,
                "\n",
            ),
            Dialect::GeminiSession,
        );
        assert_eq!(doc.parts.len(), 2);
        let sh = &doc.parts[0];
        assert_eq!((sh.kind, sh.state), (ToolKind::Bash, ToolState::Complete));
        assert_eq!(sh.output, Some(serde_json::json!("boom")));
        assert_eq!(sh.metadata.as_ref().unwrap().exit_code, Some(1));
        let read = &doc.parts[1];
        assert_eq!(read.state, ToolState::Error);
        assert_eq!(read.error.as_ref().unwrap().message, "File not found: /w/x");
        assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
    }

    #[test]
    fn an_older_release_s_whole_document_session_reads_the_same() {
        let text = concat!(
            "{\n",
            "  \"sessionId\": \"s\",\n",
            "  \"messages\": [\n",
            "    {\"id\": \"m\", \"type\": \"gemini\", \"toolCalls\": [\n",
            "      {\"id\": \"c1\", \"name\": \"glob\", \"args\": {\"pattern\": \"*.md\"}, \"status\": \"success\", \"resultDisplay\": \"Found 1\"}\n",
            "    ]}\n",
            "  ]\n",
            "}\n"
        );
        assert!(super::sniff_document(text.as_bytes()));
        let doc = crate::dialects::normalize_text(text, Dialect::GeminiSession);
        assert_eq!(doc.parts.len(), 1);
        assert_eq!(doc.parts[0].title, "Finding files matching *.md");
        assert_eq!(doc.events[0].line, 5);
        let cut = crate::dialects::normalize_text(&text[..60], Dialect::GeminiSession);
        assert!(cut.parts.is_empty());
        assert_eq!(cut.diagnostics.len(), 1, "{:?}", cut.diagnostics);
    }
}
