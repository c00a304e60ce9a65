//! The per-session state of an OpenCode stream: [`Tracker`] turns every `ToolPart` snapshot, from
//! whichever dialect, into a [`PartUpdate`] (one part per `callID || id`), and closes the open
//! parts of an aborted session or message.

use crate::hash::HashMap;

use serde_json::Value;

use super::tools::{self, Fork};
use super::wire::{MetaWire, PartMetaWire, PartWire, StateWire};
use crate::model::{Attachment, TimeValue, Timing, ToolError, ToolMetadata, ToolState};
use crate::providers::{PartStore, PartUpdate, raw_to_value};
use crate::stream::{find_byte, find_bytes};

/// Tells whether a stream names more than one `sessionID` (a task's child session, or several
/// sessions on `/global/event`); only then do parts carry `metadata.sessionId`. Fed line by line
/// (or a whole document at once). A byte scan: much cheaper than a second parse, and a key can
/// never match inside a JSON string, where its quotes would be escaped. Each line is scanned on
/// its own: a key and its value split over two lines (never the case in JSON Lines) are not seen.
#[derive(Debug, Default)]
pub(super) struct SessionScan {
    first: Option<Vec<u8>>,
    mixed: bool,
}

impl SessionScan {
    /// Scan more of the stream; true when this is where a second session first shows.
    pub fn feed(&mut self, bytes: &[u8]) -> bool {
        const KEY: &[u8] = b"\"sessionID\"";
        if self.mixed {
            return false;
        }
        let mut from = 0;
        while let Some(i) = find_bytes(&bytes[from..], KEY) {
            let at = from + i;
            from = at + KEY.len();
            let mut rest = &bytes[at + KEY.len()..];
            rest = rest.trim_ascii_start();
            let Some(r) = rest.strip_prefix(b":") else {
                continue;
            };
            let r = r.trim_ascii_start();
            let Some(r) = r.strip_prefix(b"\"") else {
                continue;
            };
            let Some(end) = find_byte(b'"', r) else {
                continue;
            };
            let value = &r[..end];
            match &self.first {
                None => self.first = Some(value.to_vec()),
                Some(f) if f != value => {
                    self.mixed = true;
                    return true;
                }
                Some(_) => {}
            }
        }
        false
    }
}

#[cfg(test)]
fn mixes_sessions(bytes: &[u8]) -> bool {
    SessionScan::default().feed(bytes)
}

/// Where a part lives, to close the right parts when a session or message is aborted.
struct Owner {
    session: Option<String>,
    message: Option<String>,
    /// The last session a snapshot of the part named: its `metadata.sessionId` once the stream
    /// turns out to mix sessions.
    named_session: Option<String>,
}

/// Applies tool part snapshots to the store: one part per `callID || id`, whatever the dialect.
pub(super) struct Tracker {
    /// Whose tools these are: OpenCode's, or a fork's (Kilo's) on top of them.
    fork: &'static Fork,
    sessions: SessionScan,
    /// The session's working directory, for paths in titles.
    pub cwd: Option<String>,
    /// `callID` → the `part.id` that first used it, to tell a resent snapshot from a second call
    /// that reuses a callID in another message.
    call_owner: HashMap<String, String>,
    /// `part.id` → the store id chosen for it.
    ids: HashMap<String, String>,
    owners: HashMap<String, Owner>,
    /// An info diagnostic about `session.next.tool.*` events was given.
    pub noted_next_tool: bool,
}

impl Tracker {
    /// The tracker of one stream. `cwd` is the working directory known before reading it (a
    /// fixture's header, for `run --format json`); dialects that carry their own set it as they go.
    pub fn new(cwd: Option<&str>, fork: &'static Fork) -> Self {
        Tracker {
            fork,
            sessions: SessionScan::default(),
            cwd: cwd.map(str::to_owned),
            call_owner: HashMap::default(),
            ids: HashMap::default(),
            owners: HashMap::default(),
            noted_next_tool: false,
        }
    }

    /// Look at raw bytes of the stream before handing over what they say (each line, or a whole
    /// document): when they show a second session, every part seen so far gets the session its
    /// snapshots named, as if the stream had been known to mix sessions from the start. That
    /// revision is no event of its own (the parts' events stay those of their snapshots). The one
    /// case it cannot redo: a part whose snapshots first named no session and then one, before
    /// the second session showed, got no event for that alone where a stream known to mix
    /// sessions would have had one (OpenCode parts always name their session).
    pub fn scan_sessions(&mut self, bytes: &[u8], store: &mut PartStore) {
        if !self.sessions.feed(bytes) {
            return;
        }
        let mut named: Vec<(&String, &String)> = self
            .owners
            .iter()
            .filter_map(|(id, o)| o.named_session.as_ref().map(|s| (id, s)))
            .collect();
        named.sort();
        for (id, session) in named {
            store.revise(id, |part| {
                if let Some(m) = part.metadata.as_mut() {
                    m.session_id = Some(session.clone());
                }
            });
        }
    }

    /// The store id of a part: `callID`, or `part.id` when there is no callID or another part
    /// already owns that callID.
    fn store_id(
        &mut self,
        line: u32,
        part: &PartWire<'_>,
        store: &mut PartStore,
    ) -> Option<String> {
        let part_id = part.id.as_deref().filter(|s| !s.is_empty());
        if let Some(pid) = part_id
            && let Some(known) = self.ids.get(pid)
        {
            return Some(known.clone());
        }
        let call_id = part.call_id.as_deref().filter(|s| !s.is_empty());
        let chosen = match (call_id, part_id) {
            (Some(call), Some(pid)) => {
                match self.call_owner.get(call) {
                    Some(owner) if owner != pid => {
                        store.info(
                        line,
                        format!("callID {call} reused by part {pid}; that call is keyed by its part id"),
                    );
                        pid.to_owned()
                    }
                    Some(_) => call.to_owned(),
                    None => {
                        self.call_owner.insert(call.to_owned(), pid.to_owned());
                        call.to_owned()
                    }
                }
            }
            (Some(call), None) => call.to_owned(),
            (None, Some(pid)) => pid.to_owned(),
            (None, None) => return None,
        };
        if let Some(pid) = part_id {
            self.ids.insert(pid.to_owned(), chosen.clone());
        }
        Some(chosen)
    }

    /// Apply one snapshot of a part.
    pub fn apply(&mut self, line: u32, part: &PartWire<'_>, store: &mut PartStore) {
        if part.ty.as_deref() != Some("tool") {
            return;
        }
        let Some(tool) = part.tool.as_deref() else {
            store.warn(line, "tool part without a `tool` name");
            return;
        };
        let Some(id) = self.store_id(line, part, store) else {
            store.warn(line, format!("{tool} part without callID or id"));
            return;
        };
        let no_state = StateWire::default();
        let state = part.state.as_ref().unwrap_or(&no_state);
        let no_meta = MetaWire::default();
        let meta = state.metadata.as_ref().unwrap_or(&no_meta);
        let input: Value = match state.input.map(|i| serde_json::from_str::<Value>(i.get())) {
            Some(Ok(v)) if v.is_object() => v,
            Some(Ok(Value::Null)) | None => Value::Object(Default::default()),
            Some(Ok(other)) => other,
            Some(Err(_)) => Value::Object(Default::default()),
        };
        let class = tools::classify(self.fork, tool, &input);
        let title = tools::title(&tools::TitleCtx {
            fork: self.fork,
            tool,
            class: &class,
            input: &input,
            provider_title: state.title.as_deref(),
            meta,
            cwd: self.cwd.as_deref(),
        });

        let mut update = PartUpdate::new(id.clone());
        update.name = Some(class.name.clone());
        update.kind = Some(class.kind);
        update.title = Some(title);
        // A pending part's input is always `{}` and says nothing; keep whatever is known.
        if state.status.as_deref() != Some("pending")
            || state.input.is_some_and(|i| i.get() != "{}")
        {
            update.input = Some(input.clone());
        }

        let mut metadata = ToolMetadata {
            provider_type: Some("tool".to_owned()),
            mcp: class.mcp.clone(),
            ..ToolMetadata::default()
        };
        if let Some(req) = class.requested_tool.as_deref() {
            metadata
                .extra
                .insert("requestedTool".into(), Value::from(req));
        }
        if self.sessions.mixed {
            metadata.session_id = part.session_id.as_deref().map(str::to_owned);
        }
        if tool == "task" {
            metadata.child_session_id = meta.session_id.as_deref().map(str::to_owned);
        }
        if tool == "question" {
            // The answers as data; the output only has them inside a sentence for the model.
            if let Some(answers) = meta.answers.map(raw_to_value).filter(Value::is_array) {
                metadata.extra.insert("answers".into(), answers);
            }
        }
        if meta.truncated.as_ref().and_then(Value::as_bool) == Some(true) {
            metadata.truncated = Some(true);
        }
        if let Some(p) = meta.output_path.as_deref() {
            metadata.extra.insert("outputPath".into(), Value::from(p));
        }
        if tool == "bash" {
            metadata.exit_code = meta.exit_code();
        }
        if meta.interrupted() {
            metadata
                .extra
                .insert("interrupted".into(), Value::Bool(true));
        }
        if let Some(t) = state.time.and_then(|t| t.compacted) {
            metadata
                .extra
                .insert("compactedAt".into(), Value::from(t as i64));
        }
        if let Some(pm) = part
            .metadata
            .and_then(|m| serde_json::from_str::<PartMetaWire>(m.get()).ok())
            && pm.provider_executed.as_ref().and_then(Value::as_bool) == Some(true)
        {
            metadata
                .extra
                .insert("providerExecuted".into(), Value::Bool(true));
        }
        if let Some(atts) = state.attachments.as_ref().filter(|a| !a.is_empty()) {
            metadata.attachments = Some(
                atts.iter()
                    .map(|a| Attachment {
                        media_type: a.mime.as_deref().map(str::to_owned),
                        // The data URL's length as it appeared in the stream, quotes excluded.
                        size: a.url.map(|u| u.get().len().saturating_sub(2) as u64),
                        filename: a.filename.as_deref().map(str::to_owned),
                    })
                    .collect(),
            );
        }

        match state.status.as_deref() {
            Some("pending") => update.state = Some(ToolState::Started),
            Some("running") => update.state = Some(ToolState::Running),
            Some("completed") => {
                let output = state
                    .output
                    .map(raw_to_value)
                    .unwrap_or(Value::String(String::new()));
                match meta.exit_code().filter(|c| *c != 0 && tool == "bash") {
                    // The model called a tool that does not exist (or with arguments that do not
                    // parse): OpenCode completes the `invalid` part with the reason for the
                    // model, but no tool ran. A failed call.
                    _ if tool == "invalid" => {
                        update.state = Some(ToolState::Error);
                        update.error = Some(tools::invalid_call_error(&output, &input));
                    }
                    Some(code) => {
                        update.state = Some(ToolState::Error);
                        update.error = Some(ToolError {
                            message: format!("Exit code {code}"),
                            code: Some(code.to_string()),
                            details: Some(output),
                        });
                    }
                    None => {
                        update.state = Some(ToolState::Complete);
                        update.output = Some(output);
                    }
                }
            }
            Some("error") => {
                update.state = Some(ToolState::Error);
                update.error = Some(tools::tool_error(state.error, meta));
            }
            Some(other) => {
                store.info(line, format!("{tool} part {id}: unknown status `{other}`"));
            }
            None => {}
        }

        if let Some(t) = state.time {
            let start = t.start.map(|s| s as i64);
            let end = t.end.map(|e| e as i64);
            update.timing = Some(Timing {
                started_at: start.map(TimeValue::Millis),
                completed_at: end.map(TimeValue::Millis),
                elapsed_ms: match (start, end) {
                    (Some(s), Some(e)) if e >= s => Some((e - s) as u64),
                    _ => None,
                },
            });
        }
        update.metadata = Some(metadata);

        let session = part.session_id.as_deref().map(str::to_owned);
        let named_session = session.clone().or_else(|| {
            self.owners
                .get_mut(&id)
                .and_then(|o| o.named_session.take())
        });
        self.owners.insert(
            id,
            Owner {
                session,
                message: part.message_id.as_deref().map(str::to_owned),
                named_session,
            },
        );
        store.upsert(line, update);
    }

    /// The provider said a session (or one of its messages) was aborted: its parts still open
    /// become errors. `None` matches every part.
    pub fn abort(
        &mut self,
        line: u32,
        session: Option<&str>,
        message: Option<&str>,
        reason: &str,
        store: &mut PartStore,
    ) {
        let mut open: Vec<&String> = self
            .owners
            .iter()
            .filter(|(id, o)| {
                store.get(id).is_some_and(|p| !p.state.is_terminal())
                    && session.is_none_or(|s| o.session.as_deref() == Some(s))
                    && message.is_none_or(|m| o.message.as_deref() == Some(m))
            })
            .map(|(id, _)| id)
            .collect();
        // Store order, so events come out in the order the parts appeared.
        open.sort_by_key(|id| store.parts().iter().position(|p| &p.id == *id));
        let open: Vec<String> = open.into_iter().cloned().collect();
        for id in open {
            let mut u = PartUpdate::new(id);
            u.state = Some(ToolState::Error);
            u.error = Some(ToolError {
                message: reason.to_owned(),
                code: Some("aborted".to_owned()),
                details: None,
            });
            store.upsert(line, u);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_mix_is_found_by_key() {
        assert!(!mixes_sessions(br#"{"sessionID":"a"} {"sessionID": "a"}"#));
        assert!(mixes_sessions(br#"{"sessionID":"a"} {"sessionID": "b"}"#));
        // Escaped inside a string: not a key.
        assert!(!mixes_sessions(
            br#"{"sessionID":"a","t":"{\"sessionID\":\"b\"}"}"#
        ));
    }

    fn events(lines: &[serde_json::Value]) -> crate::model::NormalizedDocument {
        let text: String = lines
            .iter()
            .map(|v| {
                format!("{{\"type\":\"message.part.updated\",\"properties\":{{\"part\":{v}}}}}\n")
            })
            .collect();
        crate::dialects::normalize_text(&text, crate::stream::Dialect::OpencodeEvents)
    }

    fn part(call: &str, tool: &str, state: serde_json::Value) -> serde_json::Value {
        serde_json::json!({"id": format!("prt_{call}"), "sessionID": "ses_a", "messageID": "msg_a",
            "type": "tool", "callID": call, "tool": tool, "state": state})
    }

    /// OpenCode 1.18.33 `run`: the model called `list`, which is not a tool. The `invalid` part
    /// completes with the reason for the model; no tool ran, so the call failed.
    #[test]
    fn an_invalid_part_is_a_failed_call() {
        use crate::model::ToolState;
        use serde_json::json;
        let input = json!({"tool": "list", "error": "Model tried to call unavailable tool 'list'. Available tools: bash, edit, glob, grep, invalid, read."});
        let doc = events(&[
            part(
                "c1",
                "invalid",
                json!({"status": "running", "input": input, "time": {"start": 1}}),
            ),
            part(
                "c1",
                "invalid",
                json!({"status": "completed", "input": input,
                "output": "The arguments provided to the tool are invalid: Model tried to call unavailable tool 'list'. Available tools: bash, edit, glob, grep, invalid, read.",
                "metadata": {"truncated": false}, "title": "Invalid Tool", "time": {"start": 1, "end": 4}}),
            ),
            // Without output, the input's own reason.
            part(
                "c2",
                "invalid",
                json!({"status": "completed", "input": {"tool": "ls", "error": "bad args"}, "time": {"start": 5, "end": 6}}),
            ),
        ]);
        let c1 = &doc.parts[0];
        assert_eq!(c1.state, ToolState::Error);
        assert_eq!(c1.title, "Calling unavailable tool list");
        assert!(c1.output.is_none());
        let e = c1.error.as_ref().unwrap();
        assert_eq!(e.message, "Model tried to call unavailable tool 'list'");
        assert_eq!(e.code.as_deref(), Some("invalid_tool"));
        assert!(
            e.details
                .as_ref()
                .unwrap()
                .as_str()
                .unwrap()
                .contains("Available tools")
        );
        let c2 = &doc.parts[1];
        assert_eq!(c2.state, ToolState::Error);
        assert_eq!(c2.error.as_ref().unwrap().message, "bad args");
    }

    /// A session on Windows (`/global/event` names its directory): paths in titles are relative
    /// to it, whichever separator the tool was given.
    #[test]
    fn windows_paths_are_relative_to_the_session_directory() {
        use serde_json::json;
        let line = |part: serde_json::Value| {
            json!({"directory": "C:\\Users\\dev\\app", "payload": {"type": "message.part.updated",
                "properties": {"part": part}}})
            .to_string()
        };
        let text = [
            line(part(
                "r1",
                "read",
                json!({"status": "completed",
                "input": {"filePath": "C:\\Users\\dev\\app\\src\\a.ts"}, "output": "x",
                "time": {"start": 1, "end": 2}}),
            )),
            line(part(
                "e1",
                "edit",
                json!({"status": "completed",
                "input": {"filePath": "c:/Users/dev/app/src/b.ts"}, "output": "",
                "time": {"start": 3, "end": 4}}),
            )),
        ]
        .join("\n");
        let doc = crate::dialects::normalize_text(&text, crate::stream::Dialect::OpencodeEvents);
        assert_eq!(doc.parts[0].title, "Reading src\\a.ts");
        assert_eq!(doc.parts[1].title, "Editing src/b.ts");
    }

    /// `opencode serve` 1.18.33: a question answered, one dismissed, and a web search whose
    /// backend is unreachable (shapes from the live recordings).
    #[test]
    fn questions_and_web_search_failures() {
        use crate::model::{ToolKind, ToolState};
        use serde_json::json;
        let input = json!({"questions": [{"question": "Which chart should the report use?", "header": "Chart",
            "options": [{"label": "Bar", "description": "d"}, {"label": "Line", "description": "d"}]}]});
        let doc = events(&[
            part(
                "q1",
                "question",
                json!({"status": "pending", "input": {}, "raw": ""}),
            ),
            part(
                "q1",
                "question",
                json!({"status": "running", "input": input, "time": {"start": 1}}),
            ),
            part(
                "q1",
                "question",
                json!({"status": "completed", "input": input,
                "output": "User has answered your questions: \"Which chart should the report use?\"=\"Line\". You can now continue with the user's answers in mind.",
                "metadata": {"answers": [["Line"]], "truncated": false}, "title": "Asked 1 question",
                "time": {"start": 1, "end": 5}}),
            ),
            part(
                "q2",
                "question",
                json!({"status": "error", "input": input,
                "error": "The user dismissed this question", "time": {"start": 6, "end": 9}}),
            ),
            // Answers that are not a list are left out, not guessed at.
            part(
                "q3",
                "question",
                json!({"status": "completed", "input": input, "output": "x",
                "metadata": {"answers": "Line"}, "time": {"start": 6, "end": 9}}),
            ),
            part(
                "w1",
                "websearch",
                json!({"status": "running", "input": {"query": "latest Rust release", "numResults": 3},
                "title": "Exa Web Search \"latest Rust release\"", "metadata": {"provider": "exa"}, "time": {"start": 10}}),
            ),
            part(
                "w1",
                "websearch",
                json!({"status": "error", "input": {"query": "latest Rust release", "numResults": 3},
                "error": "Transport error (POST https://mcp.exa.ai/mcp)", "metadata": {"provider": "exa"},
                "time": {"start": 10, "end": 12}}),
            ),
        ]);
        assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
        let by = |id: &str| doc.parts.iter().find(|p| p.id == id).unwrap();

        let q1 = by("q1");
        assert_eq!(q1.kind, ToolKind::Question);
        assert_eq!(q1.title, "Asking: Which chart should the report use?");
        assert_eq!(q1.state, ToolState::Complete);
        assert_eq!(q1.input, input);
        assert!(
            q1.output
                .as_ref()
                .unwrap()
                .as_str()
                .unwrap()
                .contains("=\"Line\"")
        );
        assert!(q1.error.is_none());
        let meta = q1.metadata.as_ref().unwrap();
        assert_eq!(meta.extra.get("answers"), Some(&json!([["Line"]])));

        let q2 = by("q2");
        assert_eq!(q2.state, ToolState::Error);
        assert!(q2.output.is_none());
        let e = q2.error.as_ref().unwrap();
        assert_eq!(e.message, "The user dismissed this question");
        assert_eq!(e.code.as_deref(), Some("declined"));
        assert!(!q2.metadata.as_ref().unwrap().extra.contains_key("answers"));
        assert!(
            !by("q3")
                .metadata
                .as_ref()
                .unwrap()
                .extra
                .contains_key("answers")
        );

        let w1 = by("w1");
        assert_eq!(w1.kind, ToolKind::WebSearch);
        assert_eq!(w1.title, "Searching latest Rust release");
        assert_eq!(w1.state, ToolState::Error);
        let e = w1.error.as_ref().unwrap();
        assert_eq!(e.message, "Transport error (POST https://mcp.exa.ai/mcp)");
        assert_eq!(e.code, None);
        assert!(w1.output.is_none());
    }
}
