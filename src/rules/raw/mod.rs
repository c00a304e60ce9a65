//! The rules' own reading of a raw stream: which tool calls it holds (id, first raw line, explicit
//! name, meaningful args), which of them it marks failed, and where it says a turn ended. One file
//! per provider, one function per dialect (`claude::stream_json`, `codex::exec`, ...), each a
//! `fn(&Input) -> RawScan` that the dialect's registry row names.
//!
//! This deliberately shares no code with the normalizers and imports nothing of them: the rules
//! that compare the normalized parts against this scan (lost calls, failures shown as complete,
//! ...) are only worth something if a normalizer bug cannot hide in code both sides use. It is
//! also deliberately shallow: it only reads ids, names, failure markers and a few argument keys.
//!
//! Speed: a line is only parsed when it contains one of the dialect's marker substrings, found in
//! one pass with `aho-corasick`, and then only into a tree of the parts the scans read, borrowed
//! from the line ([`pruned`]).

use super::support::{HashMap, HashSet};
use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, packed};
use memchr::memmem;
use serde_json::{Map, Value};

use crate::stream::{Input, RawLine};

pub(crate) mod acp;
pub(crate) mod ag_ui;
pub(crate) mod ai_sdk;
pub(crate) mod claude;
pub(crate) mod cline;
pub(crate) mod codex;
pub(crate) mod copilot;
pub(crate) mod droid;
pub(crate) mod gemini;
pub(crate) mod kimi;
pub(crate) mod opencode;
pub(crate) mod openhands;
mod pruned;
pub(crate) mod vibe;

use pruned::Node;

/// Argument keys that carry what a call is about (contract rule 5).
pub(crate) const MEANINGFUL_KEYS: &[&str] = &[
    "command",
    "cmd",
    "cwd",
    "workdir",
    "path",
    "file_path",
    "filePath",
    "notebook_path",
    "query",
    "url",
    "prompt",
    "pattern",
];

/// One tool call as the raw stream shows it.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct RawCall {
    pub id: String,
    /// 1-based raw line where the id first appears.
    pub line: u32,
    /// First raw line that marks the call failed (error flag, failed/declined status, non-zero
    /// exit code).
    pub failed_line: Option<u32>,
    /// The explicit tool name the provider gave, as written (`mcp__jira__search`, `bash`).
    pub name: Option<String>,
    /// The raw item or block type (`tool_use`, `commandExecution`, `function_call`, `tool`).
    pub item_type: Option<String>,
    /// MCP `(server, tool)` when the raw stream states it.
    pub mcp: Option<(String, String)>,
    /// Meaningful arguments (see [`MEANINGFUL_KEYS`]), the latest non-empty value of each.
    pub args: Map<String, Value>,
    /// MCP / dynamic tool arguments, every key meaningful.
    pub tool_args: Map<String, Value>,
    /// Thread or session the call belongs to, when the dialect says.
    pub scope: Option<String>,
    /// Codex web search: the raw stream carried a typed `action`.
    pub web_action: bool,
    /// OpenCode `task`: the child session id it spawned.
    pub child_session: Option<String>,
    /// Claude Code: the call's work went on as a background task (`task_started`
    /// `is_backgrounded`, or a launch notice as its result); only its task's end (a [`TurnEnd`] of the call's scope) ends it, not
    /// the turn that launched it.
    pub background: bool,
    /// Claude Code: the background task the call launched, and the line that first linked the
    /// two (the launch notice or `task_started`). A task notification may name only the task.
    pub task: Option<(String, u32)>,
}

/// A raw line saying the provider's turn is over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TurnEnd {
    pub line: u32,
    /// The thread / session whose turn ended; `None` ends every call's turn.
    pub scope: Option<String>,
}

impl TurnEnd {
    /// Whether this end of a turn ends a call in `scope` (`background`: the call's work goes on
    /// as a task of its own), `tasks` being the scan's [`RawScan::background_scopes`]. A
    /// background call ends only with its own task; an end in another scope, or in another
    /// call's background task, is not the call's end.
    pub(crate) fn ends(
        &self,
        scope: Option<&str>,
        background: bool,
        tasks: &HashSet<&str>,
    ) -> bool {
        let end_scope = self.scope.as_deref();
        if background && end_scope != scope {
            return false;
        }
        if let (Some(a), Some(b)) = (scope, end_scope)
            && a != b
        {
            return false;
        }
        !end_scope.is_some_and(|b| tasks.contains(b) && scope != Some(b))
    }
}

/// The rules' independent reading of a raw stream: every tool call it holds (in order of first
/// appearance), with what the raw lines say of it, and where turns end.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RawScan {
    pub(crate) calls: Vec<RawCall>,
    pub(crate) turn_ends: Vec<TurnEnd>,
    index: HashMap<String, usize>,
}

impl RawScan {
    pub(crate) fn get(&self, id: &str) -> Option<&RawCall> {
        self.index.get(id).map(|&i| &self.calls[i])
    }

    /// The scopes of background calls: an end in one of them is that task's end, no one else's.
    pub(crate) fn background_scopes(&self) -> HashSet<&str> {
        self.calls
            .iter()
            .filter(|c| c.background)
            .filter_map(|c| c.scope.as_deref())
            .collect()
    }

    /// The call for `id`, created at `line` the first time it is seen.
    fn call(&mut self, id: &str, line: u32) -> &mut RawCall {
        let i = match self.index.get(id) {
            Some(&i) => i,
            None => {
                self.calls.push(RawCall {
                    id: id.to_owned(),
                    line,
                    ..RawCall::default()
                });
                self.index.insert(id.to_owned(), self.calls.len() - 1);
                self.calls.len() - 1
            }
        };
        &mut self.calls[i]
    }

    /// Mark failed only if the call is already known (a result for an unknown call is not a call).
    fn fail_known(&mut self, id: &str, line: u32) {
        if let Some(&i) = self.index.get(id) {
            self.calls[i].failed_line.get_or_insert(line);
        }
    }
}

/// A dialect's marker substrings: a line is worth parsing only if it holds one. They are looked
/// for together, in one pass over the line, not one pass per word: with `aho-corasick`'s packed
/// (Teddy) searcher, made for a handful of short words, where the machine has it. Its general
/// searcher would pick a rare-byte prefilter here, and the bytes of these words (quotes,
/// lowercase letters) are not rare in JSON. The searcher is built once for the whole run.
pub(crate) struct Markers {
    words: &'static [&'static str],
    searcher: OnceLock<Searcher>,
}

enum Searcher {
    Packed(packed::Searcher),
    Automaton(AhoCorasick),
}

impl Markers {
    pub(crate) const fn new(words: &'static [&'static str]) -> Self {
        Markers {
            words,
            searcher: OnceLock::new(),
        }
    }

    /// Whether `line` holds one of the markers.
    pub(crate) fn in_line(&self, line: &[u8]) -> bool {
        let searcher = self
            .searcher
            .get_or_init(|| match packed::Searcher::new(self.words) {
                Some(s) => Searcher::Packed(s),
                None => Searcher::Automaton(
                    AhoCorasick::new(self.words).expect("a few short words always build"),
                ),
            });
        match searcher {
            Searcher::Packed(s) => s.find(line).is_some(),
            Searcher::Automaton(s) => s.is_match(line),
        }
    }
}

/// Parse (as JSON) only the lines holding a marker; OpenCode SSE `data:` prefixes are dropped.
fn for_marked_lines<'a>(input: &Input<'a>, markers: &Markers, mut f: impl FnMut(u32, Node<'a>)) {
    for_marked_raw_lines(input, markers, true, |raw, v| f(raw.number, v));
}

/// [`for_marked_lines`], each line handed on with its parse (its bytes hold what the pruned parse
/// drops: a result's text); with `sse`, a `data:` prefix is dropped before the parse.
fn for_marked_raw_lines<'a>(
    input: &Input<'a>,
    markers: &Markers,
    sse: bool,
    mut f: impl FnMut(&RawLine<'a>, Node<'a>),
) {
    for raw in input.lines.iter() {
        if !markers.in_line(raw.bytes) {
            continue;
        }
        if let Some(v) = pruned::parse_line(raw, sse) {
            f(raw, v);
        }
    }
}

/// The first raw line holding `"needle"` (a whole document's parts are found by their ids);
/// line 1 when none does.
pub(super) fn line_holding(input: &Input<'_>, needle: &str) -> u32 {
    let quoted = format!("\"{needle}\"");
    let finder = memmem::Finder::new(quoted.as_bytes());
    input
        .lines
        .iter()
        .find(|l| finder.find(l.bytes).is_some())
        .map_or(1, |l| l.number)
}

/// The calls of a chat-shaped assistant message, as Kimi CLI and Vibe's older loop save them:
/// `tool_calls[]` of `{id, function: {name, arguments}}`, the arguments the model's JSON text. An
/// assistant message with no `tool_calls` (the answer) ends the turn.
fn assistant_calls(s: &mut RawScan, line: u32, v: &Node<'_>) {
    let calls = v.get("tool_calls").and_then(Node::as_array).unwrap_or(&[]);
    if calls.is_empty() {
        s.turn_ends.push(TurnEnd { line, scope: None });
    }
    for call in calls {
        let Some(id) = str_of(call, "id").filter(|i| !i.is_empty()) else {
            continue;
        };
        let function = call.get("function");
        let c = s.call(id, line);
        c.item_type.get_or_insert_with(|| "function".to_owned());
        if let Some(name) = function.and_then(|f| str_of(f, "name")) {
            c.name.get_or_insert_with(|| name.to_owned());
        }
        let args = function
            .and_then(|f| str_of(f, "arguments"))
            .and_then(pruned::parse_whole);
        if let Some(args) = args {
            merge_args(&mut c.args, &args);
        }
    }
}

/// Whether a raw line holds a JSON string that opens with `prefix` (given with its opening
/// quote), found in the bytes: the texts the shared parse drops. Inside another string that
/// quote would be escaped.
fn opens_string(line: &[u8], prefix: &[u8]) -> bool {
    memmem::find_iter(line, prefix).any(|at| at == 0 || line[at - 1] != b'\\')
}

fn str_of<'v>(v: &'v Node<'_>, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Node::as_str)
}

/// Keep the meaningful keys of an argument object, the latest non-empty value winning.
fn merge_args(dst: &mut Map<String, Value>, src: &Node<'_>) {
    if src.is_object() {
        for key in MEANINGFUL_KEYS {
            set_arg(dst, key, src.get(key));
        }
    }
}

fn merge_all(dst: &mut Map<String, Value>, src: &Node<'_>) {
    for (k, v) in src.as_object().unwrap_or_default() {
        set_arg(dst, k, Some(v));
    }
}

/// The paths a file change names, as the `path` argument (none: left out).
fn set_paths(dst: &mut Map<String, Value>, paths: Vec<Value>) {
    if !paths.is_empty() {
        dst.insert("path".to_owned(), Value::Array(paths));
    }
}

fn set_arg(dst: &mut Map<String, Value>, key: &str, v: Option<&Node<'_>>) {
    if let Some(v) = v
        && !v.is_empty()
    {
        dst.insert(key.to_owned(), v.to_value());
    }
}
