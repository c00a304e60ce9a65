//! The scripted fake model on 127.0.0.1: speaks the Anthropic Messages, OpenAI Responses, OpenAI
//! Chat Completions and Gemini (`gemini.rs`) streaming APIs, answering each request from a
//! scenario's turns.
//!
//! The server keeps no conversation state: the turn to play is derived from the request itself
//! (the scripted call ids already in its history, or else its count of assistant turns), so
//! retries, subagents and concurrent requests all get the right reply. Every request is logged as
//! one JSON line so a scenario can assert what the CLI sent.

mod gemini;
mod render;

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};

use serde_json::{Value, json};

use self::render::anthropic_web_search;
use super::spec::{Api, Page, Scenario, Subagent, Turn};

/// What the server plays: the main script, the subagent scripts and the pages it serves.
#[derive(Debug, Clone, Default)]
pub struct Script {
    pub turns: Vec<Turn>,
    pub subagents: Vec<Subagent>,
    pub pages: Vec<Page>,
    /// `{{key}}` placeholders replaced in tool inputs (`workspace`, and `base_url` set by the
    /// server itself), since ports and scratch paths are only known at run time.
    pub vars: Vec<(String, String)>,
}

impl Script {
    pub fn from_scenario(s: &Scenario) -> Script {
        Script {
            turns: s.turns.clone(),
            subagents: s.subagents.clone(),
            pages: s.pages.clone(),
            vars: Vec::new(),
        }
    }

    fn expand(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for (k, v) in &self.vars {
            out = out.replace(&format!("{{{{{k}}}}}"), v);
        }
        out
    }
}

/// Which script a request belongs to, which turn it gets, and the SSE body answering it.
#[derive(Debug, Clone)]
pub struct Reply {
    /// `main`, `subagent:<marker>`, `title` (a request without tools) or `web_search`.
    pub script: String,
    /// 0-based turn index played (None when not from a script).
    pub turn: Option<usize>,
    pub content_type: &'static str,
    pub body: String,
}

/// A running server. Dropping it stops it.
pub struct ModelServer {
    server: Arc<tiny_http::Server>,
    port: u16,
    accept: Option<JoinHandle<()>>,
}

struct Shared {
    script: Script,
    log: Option<Mutex<File>>,
    seq: Mutex<u64>,
}

impl ModelServer {
    /// Listen on a free loopback port; log requests as JSON lines to `log` when given.
    pub fn start(mut script: Script, log: Option<&Path>) -> io::Result<ModelServer> {
        let server = tiny_http::Server::http("127.0.0.1:0").map_err(io::Error::other)?;
        let port = server
            .server_addr()
            .to_ip()
            .map(|a| a.port())
            .ok_or_else(|| io::Error::other("no ip address"))?;
        script
            .vars
            .push(("base_url".to_owned(), format!("http://127.0.0.1:{port}")));
        let log = match log {
            Some(p) => Some(Mutex::new(File::create(p)?)),
            None => None,
        };
        let shared = Arc::new(Shared {
            script,
            log,
            seq: Mutex::new(0),
        });
        let server = Arc::new(server);
        let accept_server = Arc::clone(&server);
        let accept = thread::Builder::new()
            .name("model-server".into())
            .spawn(move || {
                for request in accept_server.incoming_requests() {
                    let shared = Arc::clone(&shared);
                    // One thread per request: a CLI may hold a stream open while its subagent asks.
                    let _ = thread::Builder::new()
                        .name("model-request".into())
                        .spawn(move || handle(&shared, request));
                }
            })?;
        Ok(ModelServer {
            server,
            port,
            accept: Some(accept),
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:PORT` (no trailing slash, no `/v1`).
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        self.server.unblock();
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        self.shutdown();
    }
}

fn handle(shared: &Shared, mut request: tiny_http::Request) {
    let method = request.method().as_str().to_owned();
    let url = request.url().to_owned();
    let path = url.split('?').next().unwrap_or_default().to_owned();
    let mut raw = Vec::new();
    let _ = request.as_reader().read_to_end(&mut raw);
    let body: Option<Value> = serde_json::from_slice(&raw).ok();

    let (status, content_type, text, reply_meta) =
        route(&shared.script, &method, &path, body.as_ref());
    super::trace::mark(
        "model",
        format_args!("{method} {path} -> {status} {reply_meta:?}"),
    );

    if let Some(log) = &shared.log {
        let seq = {
            let mut s = shared.seq.lock().unwrap_or_else(|e| e.into_inner());
            *s += 1;
            *s
        };
        let entry = json!({
            "seq": seq,
            "method": method,
            "url": url,
            "status": status,
            "script": reply_meta.as_ref().map(|r| r.0.clone()),
            "turn": reply_meta.as_ref().and_then(|r| r.1),
            "body": body.unwrap_or_else(|| Value::String(String::from_utf8_lossy(&raw).into_owned())),
        });
        let mut f = log.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(f, "{entry}");
        let _ = f.flush();
    }

    let mut response = tiny_http::Response::from_data(text.into_bytes()).with_status_code(status);
    if let Ok(h) = tiny_http::Header::from_bytes("Content-Type", content_type) {
        response.add_header(h);
    }
    if content_type.starts_with("text/event-stream")
        && let Ok(h) = tiny_http::Header::from_bytes("Cache-Control", "no-cache")
    {
        response.add_header(h);
    }
    let _ = request.respond(response);
}

type Routed = (u16, &'static str, String, Option<(String, Option<usize>)>);

/// One scripted turn as the streaming body of `api`.
fn render_turn(api: Api, turn: &Turn, sid: &str, index: usize, protect: &[String]) -> String {
    match api {
        Api::Anthropic => render::anthropic(turn, sid, index, protect),
        Api::Responses => render::responses(turn, sid, index, protect),
        Api::ChatCompletions => render::chat(turn, sid, index, protect),
        Api::Gemini => gemini::stream(turn, sid, index),
    }
}

fn route(script: &Script, method: &str, path: &str, body: Option<&Value>) -> Routed {
    if method == "GET" {
        if let Some(page) = script.pages.iter().find(|p| p.path == path) {
            return (200, page.mime(), page.body.clone(), None);
        }
        if path == "/v1/models" || path == "/models" {
            return (
                200,
                "application/json",
                json!({"object": "list", "data": []}).to_string(),
                None,
            );
        }
    }
    if method == "HEAD" {
        return (200, "text/plain", String::new(), None);
    }
    if method == "POST" {
        if let Some(m) = gemini::method(path) {
            let Some(body) = body else {
                let err = json!({"error": {"code": 400, "message": "request body is not JSON", "status": "INVALID_ARGUMENT"}});
                return (400, "application/json", err.to_string(), None);
            };
            if m == gemini::Method::CountTokens {
                return (
                    200,
                    "application/json",
                    json!({"totalTokens": 42}).to_string(),
                    None,
                );
            }
            let r = gemini::respond(body, script, m == gemini::Method::Stream);
            return (200, r.content_type, r.body, Some((r.script, r.turn)));
        }
        let api = match path {
            "/v1/messages" | "/messages" => Some(Api::Anthropic),
            "/v1/responses" | "/responses" => Some(Api::Responses),
            "/v1/chat/completions" | "/chat/completions" => Some(Api::ChatCompletions),
            "/v1/messages/count_tokens" => {
                return (
                    200,
                    "application/json",
                    json!({"input_tokens": 42}).to_string(),
                    None,
                );
            }
            _ => None,
        };
        if let Some(api) = api {
            let Some(body) = body else {
                let err = json!({"type": "error", "error": {"type": "invalid_request_error", "message": "request body is not JSON"}});
                return (400, "application/json", err.to_string(), None);
            };
            let r = respond(api, body, script);
            return (200, r.content_type, r.body, Some((r.script, r.turn)));
        }
    }
    let err =
        json!({"error": {"type": "not_found", "message": format!("no route for {method} {path}")}});
    (404, "application/json", err.to_string(), None)
}

/// Answer one model request (pure: the request body in, the SSE body out).
pub fn respond(api: Api, body: &Value, script: &Script) -> Reply {
    if api == Api::Gemini {
        return gemini::respond(body, script, true);
    }
    let req = Request::parse(api, body);
    if api == Api::Anthropic && req.web_search_server_tool {
        let query = req
            .user_text
            .rsplit("query:")
            .next()
            .map(|q| q.trim().trim_matches('"').to_owned())
            .unwrap_or_default();
        return Reply {
            script: "web_search".into(),
            turn: None,
            content_type: "text/event-stream",
            body: anthropic_web_search(&query),
        };
    }
    if !req.has_tools {
        // A fetch tool asking about a page it fetched gets the page's scripted summary; title
        // generation, other summaries and quota probes get plain text, never a tool call.
        let summary = script
            .pages
            .iter()
            .find(|p| p.summary.is_some() && p.quoted_in(&req.user_text));
        let (label, text) = match summary.and_then(|p| p.summary.clone()) {
            Some(s) => ("page_summary", s),
            None => ("title", "Scripted session".to_owned()),
        };
        let turn = Turn {
            text: Some(text),
            tools: vec![],
        };
        if unstreamed(api, body) {
            return Reply {
                script: label.into(),
                turn: None,
                content_type: "application/json",
                body: render::chat_whole(&turn, "x", 0),
            };
        }
        return Reply {
            script: label.into(),
            turn: None,
            content_type: "text/event-stream",
            body: render_turn(api, &turn, "x", 0, &[]),
        };
    }
    let (label, sid, turns) = match script
        .subagents
        .iter()
        .enumerate()
        .find(|(_, s)| req.user_text.contains(&s.marker))
    {
        Some((i, s)) => (format!("subagent:{}", s.marker), format!("a{i}"), &s.turns),
        None => ("main".to_owned(), "m".to_owned(), &script.turns),
    };
    let index = req.turns_done;
    let done = Turn {
        text: Some("Done.".into()),
        tools: vec![],
    };
    let mut turn = turns.get(index).unwrap_or(&done).clone();
    let protect: Vec<String> = script.vars.iter().map(|(_, v)| v.clone()).collect();
    let mut history = None;
    for call in &mut turn.tools {
        call.input = expand_value(script, &call.input);
        if call.input.to_string().contains("{{match:") {
            let text = history.get_or_insert_with(|| body.to_string());
            call.input = expand_matches(&call.input, text);
        }
    }
    if unstreamed(api, body) {
        return Reply {
            script: label,
            turn: (index < turns.len()).then_some(index),
            content_type: "application/json",
            body: render::chat_whole(&turn, &sid, index),
        };
    }
    Reply {
        script: label,
        turn: (index < turns.len()).then_some(index),
        content_type: "text/event-stream",
        body: render_turn(api, &turn, &sid, index, &protect),
    }
}

/// A Chat Completions request that does not ask for a stream (`stream` absent or false) gets
/// one JSON response; every other API here is asked for streams only.
fn unstreamed(api: Api, body: &Value) -> bool {
    api == Api::ChatCompletions && body.get("stream").and_then(Value::as_bool) != Some(true)
}

fn expand_value(script: &Script, v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(script.expand(s)),
        Value::Array(a) => Value::Array(a.iter().map(|x| expand_value(script, x)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), expand_value(script, x)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `{{match:REGEX}}` placeholders replaced by the last match of REGEX in the request (as JSON
/// text; its first group when it has one): an id the agent handed the model earlier, such as a background process's, which the
/// script cannot know in advance. A placeholder whose pattern matches nothing (or is not a
/// regular expression) is left as it is.
fn expand_matches(v: &Value, history: &str) -> Value {
    match v {
        Value::String(s) => {
            let mut out = s.clone();
            while let Some(start) = out.find("{{match:") {
                let Some(len) = out[start..].find("}}") else {
                    break;
                };
                let pattern = &out[start + "{{match:".len()..start + len];
                let found = regex::Regex::new(pattern).ok().and_then(|re| {
                    let c = re.captures_iter(history).last()?;
                    c.get(1).or_else(|| c.get(0)).map(|m| m.as_str().to_owned())
                });
                match found {
                    Some(m) => out.replace_range(start..start + len + 2, &m),
                    None => break,
                }
            }
            Value::String(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| expand_matches(x, history)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), expand_matches(x, history)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// What the server needs to know about a request.
struct Request {
    has_tools: bool,
    web_search_server_tool: bool,
    /// Text of the user messages before the first assistant turn (where a subagent's marker is).
    user_text: String,
    /// Assistant turns already in the history.
    turns_done: usize,
}

impl Request {
    fn parse(api: Api, body: &Value) -> Request {
        let tools = body.get("tools").and_then(Value::as_array);
        let has_tools = tools.is_some_and(|t| !t.is_empty());
        let web_search_server_tool = tools.is_some_and(|t| {
            t.iter().any(|x| {
                x.get("type")
                    .and_then(Value::as_str)
                    .is_some_and(|ty| ty.starts_with("web_search"))
            })
        });
        let history = match api {
            Api::Responses => body.get("input"),
            _ => body.get("messages"),
        };
        let items: &[Value] = history
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let mut user_text = String::new();
        let mut seen_assistant = false;
        // Assistant turns in the history: what a request without scripted ids has played, but for
        // the answers a CLI seeds its history with before the prompt ([`SEEDED_ANSWERS`]).
        let mut assistant_turns = 0usize;
        let mut prev_model = false;
        for item in items {
            let role = item.get("role").and_then(Value::as_str);
            let ty = item.get("type").and_then(Value::as_str);
            let is_model = match api {
                Api::Responses => {
                    role == Some("assistant")
                        || matches!(
                            ty,
                            Some(
                                "function_call"
                                    | "custom_tool_call"
                                    | "web_search_call"
                                    | "reasoning"
                                    | "local_shell_call"
                            )
                        )
                }
                _ => role == Some("assistant"),
            };
            if is_model {
                // Responses: one turn spans several consecutive model items.
                let seeded = item
                    .get("content")
                    .and_then(Value::as_str)
                    .is_some_and(|t| SEEDED_ANSWERS.contains(&t.trim()));
                if !(seeded || api == Api::Responses && prev_model) {
                    assistant_turns += 1;
                }
                seen_assistant = true;
            } else if !seen_assistant
                && (role == Some("user") || (api == Api::Responses && ty == Some("agent_message")))
            {
                // Codex multi-agent v2 hands a spawned agent its task as an `agent_message` item
                // (from its parent), not as a user message.
                collect_text(item.get("content"), &mut user_text);
            }
            prev_model = is_model;
        }
        // The scripted ids carry their turn number: the most reliable count when a CLI merges or
        // splits assistant messages in its history.
        let mut max_scripted = None::<usize>;
        scan_ids(history.unwrap_or(&Value::Null), &mut max_scripted);
        let turns_done = max_scripted.map_or(assistant_turns, |t| t + 1);
        Request {
            has_tools,
            web_search_server_tool,
            user_text,
            turns_done,
        }
    }
}

/// Answers a CLI writes into its own history, after the context it sends and before the prompt
/// (Gemini CLI's forks do, Qwen Code 0.15 among them): no turn of the script.
const SEEDED_ANSWERS: &[&str] = &["Got it. Thanks for the context!"];

fn collect_text(content: Option<&Value>, out: &mut String) {
    match content {
        Some(Value::String(s)) => {
            out.push_str(s);
            out.push('\n');
        }
        Some(Value::Array(blocks)) => {
            for b in blocks {
                let ty = b.get("type").and_then(Value::as_str).unwrap_or_default();
                let field = match ty {
                    "text" | "input_text" => "text",
                    // Codex inter-agent messages: the payload is "encrypted" for a real model, the
                    // plain text for us.
                    "encrypted_content" => "encrypted_content",
                    _ => continue,
                };
                if let Some(t) = b.get(field).and_then(Value::as_str) {
                    out.push_str(t);
                    out.push('\n');
                }
            }
        }
        _ => {}
    }
}

/// Find scripted ids (`…_t<turn>c<n>`) anywhere in the history and keep the highest turn.
fn scan_ids(v: &Value, max: &mut Option<usize>) {
    match v {
        Value::String(s) => {
            if let Some(t) = scripted_turn(s) {
                *max = Some(max.map_or(t, |m| m.max(t)));
            }
        }
        Value::Array(a) => a.iter().for_each(|x| scan_ids(x, max)),
        Value::Object(o) => {
            for (k, x) in o {
                // Only id fields count: a scripted id quoted in text must not advance the turn.
                let id_field = matches!(
                    k.as_str(),
                    "id" | "call_id" | "tool_use_id" | "tool_call_id" | "toolCallId"
                );
                if id_field || x.is_array() || x.is_object() {
                    scan_ids(x, max);
                }
            }
        }
        _ => {}
    }
}

/// Parse the turn number out of an id this server minted: a call's `<prefix>_<script>_tn<turn>c<n>`
/// or a text reply's `msg_<script>_turn<turn>` (which a Responses client sends back: a subagent
/// given a follow-up after a text-only turn has no newer call id in its history).
fn scripted_turn(id: &str) -> Option<usize> {
    if id.len() > 64 {
        return None;
    }
    if let Some(turn) = id
        .strip_prefix("msg_")
        .and_then(|rest| rest.rsplit_once("_turn"))
        .map(|(_, t)| t)
    {
        if !turn.is_empty() && turn.bytes().all(|b| b.is_ascii_digit()) {
            return turn.parse().ok();
        }
        return None;
    }
    if !id.contains("_tn") {
        return None;
    }
    let tail = id.rsplit("_tn").next()?;
    let (turn, n) = tail.split_once('c')?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    turn.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::render::{arg_pieces, call_id, pieces};
    use super::*;

    #[test]
    fn scripted_ids_round_trip() {
        assert_eq!(scripted_turn(&call_id("toolu", "m", 3, 1)), Some(3));
        assert_eq!(scripted_turn("toolu_01ABC"), None);
        assert_eq!(scripted_turn("call_m_tnxc1"), None);
        assert_eq!(scripted_turn("msg_a0_turn1"), Some(1));
        assert_eq!(scripted_turn("msg_01a237e4-0b41-7650"), None);
        assert_eq!(scripted_turn("msg_a0_turn"), None);
    }

    #[test]
    fn a_chat_request_without_stream_gets_one_json_completion() {
        let script = Script {
            turns: vec![Turn {
                text: Some("Listing.".into()),
                tools: vec![crate::scenario::spec::ToolCall {
                    name: "terminal".into(),
                    input: json!({"command": "ls"}),
                    kind: crate::scenario::spec::CallKind::Function,
                    namespace: None,
                }],
            }],
            ..Script::default()
        };
        let body = json!({"model": "m", "tools": [{"type": "function", "function": {"name": "terminal"}}],
            "messages": [{"role": "user", "content": "go"}]});
        let r = respond(Api::ChatCompletions, &body, &script);
        assert_eq!(r.content_type, "application/json");
        let v: Value = serde_json::from_str(&r.body).unwrap();
        let call = &v["choices"][0]["message"]["tool_calls"][0];
        assert_eq!(call["id"], "call_m_tn0c0");
        assert_eq!(call["function"]["arguments"], "{\"command\":\"ls\"}");
        assert_eq!(v["choices"][0]["finish_reason"], "tool_calls");
        let streamed =
            json!({"stream": true, "tools": body["tools"], "messages": body["messages"]});
        let r = respond(Api::ChatCompletions, &streamed, &script);
        assert_eq!(r.content_type, "text/event-stream");
    }

    #[test]
    fn arguments_never_split_a_placeholder_value() {
        let path = "/tmp/scratch-123/work".to_owned();
        let args = format!("{{\"file_path\":\"{path}/a.txt\",\"content\":\"x\"}}");
        for size in 1..12 {
            let p = arg_pieces(&args, size, std::slice::from_ref(&path));
            assert_eq!(p.concat(), args);
            assert!(p.iter().any(|x| x.contains(&path)), "size {size}: {p:?}");
        }
    }

    #[test]
    fn a_codex_agent_message_task_selects_the_subagent_script() {
        let script = Script {
            turns: vec![Turn {
                text: Some("main".into()),
                tools: vec![],
            }],
            subagents: vec![Subagent {
                marker: "SUB-MARK".into(),
                turns: vec![Turn {
                    text: Some("child".into()),
                    tools: vec![],
                }],
            }],
            ..Script::default()
        };
        // What codex 0.171.0 (multi_agent_v2) sends a spawned agent: its task as an agent_message.
        let body = json!({"tools": [{"type": "function", "name": "exec_command"}], "input": [
            {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "rules"}]},
            {"type": "agent_message", "author": "/root", "recipient": "/root/x", "content": [
                {"type": "input_text", "text": "Message Type: NEW_TASK\nPayload:\n"},
                {"type": "encrypted_content", "encrypted_content": "SUB-MARK: do it"}]}
        ]});
        let r = respond(Api::Responses, &body, &script);
        assert_eq!(r.script, "subagent:SUB-MARK");
        // The parent's own history later holds the child's answer as an agent_message: still main.
        let body = json!({"tools": [{"type": "function", "name": "exec_command"}], "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]},
            {"type": "function_call", "call_id": "call_m_tn0c0", "name": "spawn_agent", "arguments": "{}"},
            {"type": "agent_message", "content": [{"type": "input_text", "text": "SUB-MARK done"}]}
        ]});
        assert_eq!(respond(Api::Responses, &body, &script).script, "main");
    }

    #[test]
    fn a_fetch_tools_question_about_a_page_gets_its_summary() {
        let script = Script {
            pages: vec![Page {
                path: "/status.html".into(),
                content_type: "text/html".into(),
                body: "<html><h1>All systems normal</h1><p>Deploys are green.</p></html>".into(),
                summary: Some("Everything is up.".into()),
            }],
            ..Script::default()
        };
        // Claude Code's WebFetch: the page as markdown, no tools.
        let ask = |text: &str| {
            let body = json!({"messages": [{"role": "user", "content": [{"type": "text", "text": text}]}]});
            respond(Api::Anthropic, &body, &script)
        };
        let r = ask(
            "Web page content:\n---\n# All systems normal\n\nDeploys are green.\n---\nIs it up?",
        );
        assert_eq!(r.script, "page_summary");
        assert!(r.body.contains("Everything is up."), "{}", r.body);
        // Title generation and the like still get the plain answer.
        assert_eq!(ask("Write a title for: fix the tests").script, "title");
    }

    #[test]
    fn match_placeholders_take_the_last_id_the_agent_gave() {
        let history = r#"{"messages":[{"role":"tool","content":"id: bgp_111\nstatus: ready"},{"role":"tool","content":"id: bgp_222"}]}"#;
        let input = json!({"action": "stop", "id": "{{match:bgp_[0-9]+}}", "n": 3});
        assert_eq!(
            expand_matches(&input, history),
            json!({"action": "stop", "id": "bgp_222", "n": 3})
        );
        let input = json!({"id": "{{match:id: bgp_([0-9]+)}}"});
        assert_eq!(expand_matches(&input, history), json!({"id": "222"}));
        // Nothing matches, or no regular expression: left as written.
        for s in ["{{match:wku_[0-9]+}}", "{{match:(}}", "{{match:bgp_"] {
            assert_eq!(expand_matches(&json!(s), history), json!(s));
        }
    }

    #[test]
    fn an_answer_the_cli_seeded_before_the_prompt_is_no_scripted_turn() {
        let script = Script {
            turns: vec![
                Turn {
                    text: None,
                    tools: vec![super::super::spec::ToolCall {
                        name: "read_file".into(),
                        input: json!({}),
                        kind: Default::default(),
                        namespace: None,
                    }],
                },
                Turn {
                    text: Some("done".into()),
                    tools: vec![],
                },
            ],
            ..Script::default()
        };
        let body = json!({"tools": [{"type": "function", "function": {"name": "read_file"}}], "messages": [
            {"role": "system", "content": "rules"},
            {"role": "user", "content": "context"},
            {"role": "assistant", "content": "Got it. Thanks for the context!"},
            {"role": "user", "content": "the prompt"}
        ]});
        let r = respond(Api::ChatCompletions, &body, &script);
        assert_eq!(r.turn, Some(0));
    }

    #[test]
    fn pieces_respect_char_boundaries() {
        assert_eq!(pieces("héllo", 2), vec!["hé", "ll", "o"]);
        assert_eq!(pieces("", 4), vec![""]);
    }
}
