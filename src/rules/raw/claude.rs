//! The rules' scan of Claude Code streams: `tool_use` blocks (in assistant messages, partial
//! `content_block_start` events and a transcript's `agent_progress`), `tool_result` errors, and
//! the `result` line that ends a turn. Stream-json and transcripts share these shapes.
//!
//! A call whose work goes on in the background (`system` `task_started` with `is_backgrounded`,
//! or a launch notice as its `tool_result`: "Command running in background with ID: X", "Async
//! agent launched successfully … agentId: X", "Monitor started (task X") ends with its task's
//! notification, not with the turn: a `system` `task_notification`, or a `<task-notification>`
//! block wherever a transcript writes one — a `queue-operation` enqueue's `content`, a
//! `queued_command` attachment's `prompt`, a user message's text. A block names the call
//! (`<tool-use-id>`) or only the task, linked to the call by the task id its launch named. A
//! `failed`, `killed` or `stopped` status, or a summary's non-zero `(exit code N)`, marks the call
//! failed.

use super::{Markers, Node, RawScan, TurnEnd, for_marked_lines, merge_all, merge_args, str_of};
use crate::rules::support::HashMap;
use crate::stream::Input;

/// Lines worth parsing.
static MARKERS: Markers = Markers::new(&[
    "\"tool_use\"",
    "\"tool_result\"",
    "\"result\"",
    "\"task_started\"",
    "\"task_notification\"",
    // A `<task-notification>` block (its brackets escaped or not) in any carrier.
    "task-notification",
]);

/// `claude -p --output-format stream-json --verbose`.
pub(crate) fn stream_json(input: &Input<'_>) -> RawScan {
    scan(input)
}

/// `~/.claude/projects/**.jsonl` session transcripts.
pub(crate) fn transcript(input: &Input<'_>) -> RawScan {
    scan(input)
}

fn scan(input: &Input<'_>) -> RawScan {
    let mut s = Scan::default();
    for_marked_lines(input, &MARKERS, |line, v| s.line(line, &v, true));
    s.raw
}

/// Notifications kept waiting for their task's launch at most.
const MAX_WAITING: usize = 4096;

/// The scan's state: what it found, and how background tasks link to calls.
#[derive(Default)]
struct Scan {
    raw: RawScan,
    /// Task id → the call that launched it.
    tasks: HashMap<String, String>,
    /// Final notifications whose call is not known to run in the background yet, by task (or
    /// call) id: applied once a launch links them.
    waiting: HashMap<String, Vec<(u32, Ended)>>,
    waiting_count: usize,
}

/// What a task's final notification says.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Ended {
    /// `failed`, `killed`, `stopped`, or `completed` with a non-zero exit code.
    failed: bool,
}

/// `mcp__<server>__<tool>`: split on the first `__` after the prefix (tools may hold `__`? no,
/// but server names never do).
fn split_mcp(name: &str) -> Option<(String, String)> {
    let rest = name.strip_prefix("mcp__")?;
    let (server, tool) = rest.split_once("__")?;
    (!server.is_empty() && !tool.is_empty()).then(|| (server.to_owned(), tool.to_owned()))
}

impl Scan {
    fn line(&mut self, line: u32, v: &Node<'_>, top_level: bool) {
        match str_of(v, "type") {
            Some("result") if top_level => self.raw.turn_ends.push(TurnEnd { line, scope: None }),
            Some("system") => self.system(line, v),
            Some(ty @ ("assistant" | "user")) => {
                if let Some(msg) = v.get("message") {
                    self.message(line, msg, ty == "user");
                }
            }
            Some("stream_event") => {
                let ev = v.get("event");
                if ev.and_then(|e| str_of(e, "type")) == Some("content_block_start")
                    && let Some(block) = ev.and_then(|e| e.get("content_block"))
                {
                    self.block(line, block);
                }
            }
            Some("progress") => {
                // Transcript `agent_progress` embeds the subagent's messages; their tool_use ids
                // are real calls (and repeat the ones the subagent file has).
                if let Some(inner) = v.get("data").and_then(|d| d.get("message")) {
                    if inner.get("type").is_some() {
                        self.line(line, inner, false);
                    } else {
                        self.message(line, inner, false);
                    }
                }
            }
            // Queued for the model while it worked (transcripts).
            Some("queue-operation") if str_of(v, "operation") == Some("enqueue") => {
                if let Some(text) = str_of(v, "content") {
                    self.notices(line, text);
                }
            }
            Some("attachment") => {
                let Some(a) = v.get("attachment") else { return };
                if str_of(a, "type") == Some("queued_command")
                    && let Some(prompt) = a.get("prompt")
                {
                    self.texts(line, prompt);
                }
            }
            _ => {}
        }
    }

    fn system(&mut self, line: u32, v: &Node<'_>) {
        let Some(id) = str_of(v, "tool_use_id") else {
            return;
        };
        let task = str_of(v, "task_id");
        match str_of(v, "subtype") {
            Some("task_started") if self.raw.get(id).is_some() => {
                if v.get("is_backgrounded").and_then(Node::as_bool) == Some(true) {
                    self.background(id, line);
                }
                if let Some(task) = task {
                    self.link(task, id, line);
                }
            }
            Some("task_notification") => {
                if let Some(task) = task {
                    self.link(task, id, line);
                }
                if let Some(ended) = ended(str_of(v, "status"), str_of(v, "summary"))
                    && self.raw.get(id).is_some_and(|c| c.background)
                {
                    self.end(id, line, ended);
                }
            }
            _ => {}
        }
    }

    fn message(&mut self, line: u32, msg: &Node<'_>, user: bool) {
        let content = msg.get("content");
        if let Some(blocks) = content.and_then(Node::as_array) {
            for block in blocks {
                self.block(line, block);
            }
        }
        // A user message's own text (never a tool_result's) may hand a notification over.
        if user && let Some(content) = content {
            self.texts(line, content);
        }
    }

    fn block(&mut self, line: u32, block: &Node<'_>) {
        match str_of(block, "type") {
            Some("tool_use") => {
                let Some(id) = str_of(block, "id") else {
                    return;
                };
                let call = self.raw.call(id, line);
                call.item_type.get_or_insert_with(|| "tool_use".to_owned());
                if let Some(name) = str_of(block, "name") {
                    call.name = Some(name.to_owned());
                    if let Some(mcp) = split_mcp(name) {
                        call.mcp = Some(mcp);
                        if let Some(input) = block.get("input") {
                            merge_all(&mut call.tool_args, input);
                        }
                    }
                }
                if let Some(input) = block.get("input") {
                    merge_args(&mut call.args, input);
                }
            }
            Some("tool_result") => {
                let Some(id) = str_of(block, "tool_use_id") else {
                    return;
                };
                if block.get("is_error").and_then(Node::as_bool) == Some(true) {
                    self.raw.fail_known(id, line);
                    return;
                }
                if self.raw.get(id).is_none() {
                    return;
                }
                let launched = match block.get("content") {
                    Some(Node::String(text)) => launched_task(text),
                    Some(Node::Array(blocks)) => blocks
                        .iter()
                        .filter_map(|b| str_of(b, "text"))
                        .find_map(launched_task),
                    _ => None,
                };
                if let Some(task) = launched {
                    self.background(id, line);
                    self.link(&task, id, line);
                }
            }
            _ => {}
        }
    }

    /// A string, or the `text` blocks of a list, that may carry notifications.
    fn texts(&mut self, line: u32, v: &Node<'_>) {
        match v {
            Node::String(text) => self.notices(line, text),
            Node::Array(blocks) => {
                for b in blocks {
                    if str_of(b, "type") == Some("text")
                        && let Some(text) = str_of(b, "text")
                    {
                        self.notices(line, text);
                    }
                }
            }
            _ => {}
        }
    }

    /// The call's work goes on in the background: only its task's end ends it.
    fn background(&mut self, id: &str, line: u32) {
        let call = self.raw.call(id, line);
        call.background = true;
        call.scope = Some(format!("task:{id}"));
    }

    /// Task `task` belongs to call `id`; notifications that waited for the link apply now.
    fn link(&mut self, task: &str, id: &str, line: u32) {
        if task.is_empty() || self.raw.get(id).is_none() {
            return;
        }
        self.tasks
            .entry(task.to_owned())
            .or_insert_with(|| id.to_owned());
        let call = self.raw.call(id, line);
        call.task.get_or_insert_with(|| (task.to_owned(), line));
        if !call.background {
            return;
        }
        for key in [task, id] {
            for (at, ended) in self.waiting.remove(key).unwrap_or_default() {
                self.waiting_count -= 1;
                self.end(id, at, ended);
            }
        }
    }

    /// The `<task-notification>` blocks a text carries (it must open with one).
    fn notices(&mut self, line: u32, text: &str) {
        for n in blocks(text) {
            let Some(ended) = ended(n.status, n.summary) else {
                continue;
            };
            let call = n
                .tool_use_id
                .filter(|id| self.raw.get(id).is_some())
                .or_else(|| {
                    n.task_id
                        .and_then(|t| self.tasks.get(t))
                        .map(String::as_str)
                })
                .filter(|id| self.raw.get(id).is_some_and(|c| c.background))
                .map(str::to_owned);
            match call {
                Some(id) => self.end(&id, line, ended),
                None => {
                    let Some(key) = n.task_id.or(n.tool_use_id) else {
                        continue;
                    };
                    if self.waiting_count < MAX_WAITING {
                        self.waiting_count += 1;
                        self.waiting
                            .entry(key.to_owned())
                            .or_default()
                            .push((line, ended));
                    }
                }
            }
        }
    }

    /// Background call `id`'s task ended on `line`.
    fn end(&mut self, id: &str, line: u32, ended: Ended) {
        self.raw.turn_ends.push(TurnEnd {
            line,
            scope: Some(format!("task:{id}")),
        });
        if ended.failed {
            self.raw.fail_known(id, line);
        }
    }
}

/// What a final status (and a command's summary) says; `None` for an interim event or a status
/// that is not a known final one.
fn ended(status: Option<&str>, summary: Option<&str>) -> Option<Ended> {
    let failed = match status? {
        "failed" | "killed" | "stopped" => true,
        "completed" => summary.and_then(exit_code).is_some_and(|code| code != 0),
        _ => return None,
    };
    Some(Ended { failed })
}

/// `… completed (exit code 2)` → 2.
fn exit_code(summary: &str) -> Option<i64> {
    let (_, rest) = summary.rsplit_once("(exit code ")?;
    rest.split(')').next()?.trim().parse().ok()
}

/// The task a launch notice names.
fn launched_task(text: &str) -> Option<String> {
    let t = text.trim_start();
    let id_after = |within: &str, marker: &str| {
        let (_, rest) = within.split_once(marker)?;
        let id = rest
            .split(|c: char| c.is_whitespace() || matches!(c, ',' | ')' | '('))
            .next()?
            .trim_end_matches('.');
        (!id.is_empty()).then(|| id.to_owned())
    };
    if t.starts_with("Async agent launched successfully") {
        return id_after(t, "agentId: ");
    }
    if t.starts_with("Monitor started (task ") {
        return id_after(t, "(task ");
    }
    // A command's notice opens the text, or, moved to the background once it had printed
    // something, is its last line.
    let first = t.lines().next().unwrap_or("");
    let last = t.lines().last().unwrap_or("");
    for line in [first, last] {
        if !line.starts_with("Command ") {
            continue;
        }
        for marker in [
            "running in background with ID: ",
            "backgrounded by user with ID: ",
            "moved to the background (ID: ",
        ] {
            if let Some(id) = id_after(line, marker) {
                return Some(id);
            }
        }
    }
    None
}

/// One `<task-notification>` block's fields, as this scan reads them.
struct Block<'t> {
    task_id: Option<&'t str>,
    tool_use_id: Option<&'t str>,
    status: Option<&'t str>,
    summary: Option<&'t str>,
}

/// The blocks of a text that opens with one; a block cut short reads up to the text's end.
fn blocks(text: &str) -> Vec<Block<'_>> {
    const OPEN: &str = "<task-notification>";
    const CLOSE: &str = "</task-notification>";
    let mut out = Vec::new();
    if !text.trim_start().starts_with(OPEN) {
        return out;
    }
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        let body = &rest[at + OPEN.len()..];
        let (block, next) = match body.find(CLOSE) {
            Some(end) => (&body[..end], &body[end + CLOSE.len()..]),
            None => (body, ""),
        };
        let field = |tag: &str| {
            let open = format!("<{tag}>");
            let close = format!("</{tag}>");
            let (_, after) = block.split_once(open.as_str())?;
            let (value, _) = after.split_once(close.as_str())?;
            Some(value.trim()).filter(|v| !v.is_empty())
        };
        out.push(Block {
            task_id: field("task-id"),
            tool_use_id: field("tool-use-id"),
            status: field("status"),
            summary: field("summary"),
        });
        rest = next;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_tool_use_result_error_and_turn_end() {
        let s = stream_json(&Input::from_bytes(
            concat!(
                r#"{"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t1","name":"Bash","input":{}}}}"#,
                "\n",
                r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}},{"type":"tool_use","id":"t2","name":"mcp__jira__get-issue","input":{"key":"A-1"}}]}}"#,
                "\n",
                r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":"no"}]}}"#,
                "\n",
                r#"{"type":"result","subtype":"success"}"#,
                "\n"
            )
            .as_bytes(),
        ));
        assert_eq!(s.calls.len(), 2);
        let t1 = s.get("t1").unwrap();
        assert_eq!((t1.line, t1.failed_line), (1, None));
        assert_eq!(t1.args.get("command"), Some(&serde_json::Value::from("ls")));
        let t2 = s.get("t2").unwrap();
        assert_eq!(t2.failed_line, Some(3));
        assert_eq!(t2.mcp, Some(("jira".into(), "get-issue".into())));
        assert_eq!(
            s.turn_ends,
            vec![TurnEnd {
                line: 4,
                scope: None
            }]
        );
    }

    #[test]
    fn a_background_call_ends_with_its_task() {
        let s = stream_json(&Input::from_bytes(
            concat!(
                r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"a1","name":"Agent","input":{"prompt":"p"}}]}}"#,
                "\n",
                r#"{"type":"system","subtype":"task_started","task_id":"k","tool_use_id":"a1","is_backgrounded":true}"#,
                "\n",
                r#"{"type":"result","subtype":"success"}"#,
                "\n",
                r#"{"type":"system","subtype":"task_notification","task_id":"k","tool_use_id":"a1","status":"failed"}"#,
                "\n",
                // A foreground task's lines change nothing.
                r#"{"type":"system","subtype":"task_started","task_id":"j","tool_use_id":"zz","is_backgrounded":true}"#,
                "\n"
            )
            .as_bytes(),
        ));
        let a1 = s.get("a1").unwrap();
        assert!(a1.background);
        assert_eq!(a1.scope.as_deref(), Some("task:a1"));
        assert_eq!(a1.failed_line, Some(4));
        assert_eq!(s.calls.len(), 1);
        assert_eq!(
            s.turn_ends,
            vec![
                TurnEnd {
                    line: 3,
                    scope: None
                },
                TurnEnd {
                    line: 4,
                    scope: Some("task:a1".into())
                }
            ]
        );
    }

    #[test]
    fn task_notifications_in_every_transcript_carrier() {
        let call = |id: &str| {
            format!(
                r#"{{"type":"assistant","message":{{"content":[{{"type":"tool_use","id":"{id}","name":"Bash","input":{{"command":"make","run_in_background":true}}}}]}}}}"#
            )
        };
        let launch = |id: &str, task: &str| {
            format!(
                r#"{{"type":"user","message":{{"content":[{{"type":"tool_result","tool_use_id":"{id}","content":"Command running in background with ID: {task}. Output is being written to: /t/{task}.output"}}]}}}}"#
            )
        };
        let block = |task: &str, status: &str| {
            format!(
                r#"<task-notification>\n<task-id>{task}</task-id>\n<status>{status}</status>\n<summary>Background command \"make\" completed (exit code 0)</summary>\n</task-notification>"#
            )
        };
        let lines = [
            call("a1"),
            launch("a1", "ka"),
            // 1. a queued command, naming only the task
            format!(
                r#"{{"type":"queue-operation","operation":"enqueue","content":"{}"}}"#,
                block("ka", "killed")
            ),
            call("a2"),
            launch("a2", "kb"),
            // 2. a queued_command attachment
            format!(
                r#"{{"type":"attachment","attachment":{{"type":"queued_command","prompt":"{}"}}}}"#,
                block("kb", "completed")
            ),
            call("a3"),
            // 3. a user message's text, before the launch that names its task
            format!(
                r#"{{"type":"user","message":{{"content":"{}"}}}}"#,
                block("kc", "failed")
            ),
            launch("a3", "kc"),
            // 4. quoted in a tool's output, and a `remove` of the queue: neither is a carrier
            call("a4"),
            launch("a4", "kd"),
            format!(
                r#"{{"type":"user","message":{{"content":[{{"type":"tool_result","tool_use_id":"a9","content":"{}"}}]}}}}"#,
                block("kd", "killed")
            ),
            format!(
                r#"{{"type":"queue-operation","operation":"remove","content":"{}"}}"#,
                block("kd", "killed")
            ),
        ];
        let text = lines.join("\n") + "\n";
        let s = transcript(&Input::from_bytes(text.as_bytes()));
        let ended = |id: &str| {
            let c = s.get(id).unwrap();
            let scope = c.scope.clone();
            let ends: Vec<u32> = s
                .turn_ends
                .iter()
                .filter(|e| e.scope == scope)
                .map(|e| e.line)
                .collect();
            (c.background, c.failed_line, ends, c.task.clone())
        };
        assert_eq!(
            ended("a1"),
            (true, Some(3), vec![3], Some(("ka".into(), 2)))
        );
        assert_eq!(ended("a2"), (true, None, vec![6], Some(("kb".into(), 5))));
        // Waited for the launch on line 9; the end keeps its own line.
        assert_eq!(
            ended("a3"),
            (true, Some(8), vec![8], Some(("kc".into(), 9)))
        );
        assert_eq!(ended("a4"), (true, None, vec![], Some(("kd".into(), 11))));
    }
}
