//! OpenCode tool ids → name, kind and title, and a failed tool's error. Built-ins are known by id
//! (a fork's own built-ins first: [`Fork`]); an unknown id with a `_` is an MCP tool
//! `<server>_<tool>` (OpenCode joins the sanitized server and tool names with `_`); anything else
//! is a plugin or custom tool. Wording comes from the shared [`titles`].

use serde_json::Value;
use serde_json::value::RawValue;

use super::wire::MetaWire;
use crate::model::{McpRef, ToolError, ToolKind};
use crate::providers::raw_to_value;
use crate::providers::titles;

/// What a CLI built on OpenCode adds to its tools: its own built-ins, known before OpenCode's table
/// and before the `<server>_<tool>` MCP split (which would take a built-in id with a `_`, such as
/// Kilo's `background_process`, for an MCP tool). Everything else is OpenCode's.
pub(crate) struct Fork {
    /// The fork's own built-in tools and their kinds.
    pub kind: fn(tool: &str) -> Option<ToolKind>,
    /// The title of a call to one of them.
    pub title: fn(tool: &str, input: &Value, cwd: Option<&str>) -> String,
}

/// OpenCode itself: no tools of its own beyond its table.
pub(crate) static OPENCODE: Fork = Fork {
    kind: |_| None,
    title: |tool, input, cwd| titles::generic(tool, input, cwd),
};

/// What the tool id says about a call.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Class {
    pub name: String,
    pub kind: ToolKind,
    pub mcp: Option<McpRef>,
    /// `invalid`: the tool the model asked for.
    pub requested_tool: Option<String>,
}

fn builtin_kind(tool: &str) -> Option<ToolKind> {
    Some(match tool {
        "bash" => ToolKind::Bash,
        "read" | "list" | "glob" | "grep" | "lsp" | "skill" => ToolKind::FileRead,
        "write" => ToolKind::FileWrite,
        "edit" | "multiedit" | "patch" | "apply_patch" => ToolKind::FileEdit,
        "webfetch" => ToolKind::Browser,
        "websearch" | "codesearch" => ToolKind::WebSearch,
        "task" => ToolKind::Subagent,
        "todowrite" | "todoread" | "plan_exit" | "plan_enter" => ToolKind::Todo,
        "question" => ToolKind::Question,
        // Code mode's script (`OPENCODE_EXPERIMENTAL_CODE_MODE`), which calls the MCP tools.
        "execute" => ToolKind::Mcp,
        "invalid" => ToolKind::Unknown,
        // Resolved from its inner calls in `classify`.
        "batch" => ToolKind::Unknown,
        _ => return None,
    })
}

pub(super) fn classify(fork: &Fork, tool: &str, input: &Value) -> Class {
    if let Some(kind) = (fork.kind)(tool) {
        return Class {
            name: tool.to_owned(),
            kind,
            mcp: None,
            requested_tool: None,
        };
    }
    if let Some(kind) = builtin_kind(tool) {
        let kind = if tool == "batch" {
            batch_kind(input)
        } else {
            kind
        };
        let requested_tool = (tool == "invalid")
            .then(|| str_arg(input, &["tool"]).map(str::to_owned))
            .flatten();
        return Class {
            name: tool.to_owned(),
            kind,
            mcp: None,
            requested_tool,
        };
    }
    if let Some((server, name)) = tool.split_once('_')
        && !server.is_empty()
        && !name.is_empty()
    {
        return Class {
            name: name.to_owned(),
            kind: titles::mcp_kind(server, name),
            mcp: Some(McpRef {
                server: server.to_owned(),
                tool: name.to_owned(),
            }),
            requested_tool: None,
        };
    }
    Class {
        name: tool.to_owned(),
        kind: ToolKind::Unknown,
        mcp: None,
        requested_tool: None,
    }
}

/// OpenCode's name for an MCP server in its tool ids: every character other than an ASCII letter,
/// digit, `_` or `-` becomes `_` (`my.server` → `my_server`).
pub(crate) fn sanitized_server(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// An MCP tool id `<server>_<tool>` split against the MCP servers the client declared (their
/// names as declared), never on a guess: `tool` must start with a declared server's
/// [`sanitized_server`] name and `_`, followed by a tool name as OpenCode writes one (ASCII
/// letters, digits, `_`, `-`). The longest declared name wins (`my_server_x` with `my` and
/// `my_server` declared is `my_server`'s `x`). Returns (the declared server, the tool).
pub(crate) fn split_declared_mcp<'s, 't>(
    tool: &'t str,
    servers: impl IntoIterator<Item = &'s str>,
) -> Option<(&'s str, &'t str)> {
    let is_tool = |t: &str| {
        !t.is_empty()
            && t.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    };
    servers
        .into_iter()
        .filter(|s| !s.is_empty())
        .filter_map(|s| {
            let rest = tool.strip_prefix(sanitized_server(s).as_str())?;
            let rest = rest.strip_prefix('_')?;
            is_tool(rest).then_some((s, rest))
        })
        .min_by_key(|(_, rest)| rest.len())
}

/// `batch` runs several tools: their kind when they all share one.
fn batch_kind(input: &Value) -> ToolKind {
    let mut kinds = batch_tools(input).map(|t| builtin_kind(t).unwrap_or(ToolKind::Unknown));
    match kinds.next() {
        Some(first) if kinds.all(|k| k == first) => first,
        _ => ToolKind::Unknown,
    }
}

fn batch_tools(input: &Value) -> impl Iterator<Item = &str> {
    input
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| c.get("tool").and_then(Value::as_str))
}

pub(crate) fn str_arg<'a>(input: &'a Value, keys: &[&str]) -> Option<&'a str> {
    keys.iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
        .filter(|s| !s.trim().is_empty())
}

pub(crate) fn num_arg(input: &Value, key: &str) -> Option<u64> {
    input.get(key).and_then(|v| {
        v.as_u64()
            .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
    })
}

pub(super) struct TitleCtx<'a> {
    pub fork: &'a Fork,
    pub tool: &'a str,
    pub class: &'a Class,
    pub input: &'a Value,
    /// `state.title`.
    pub provider_title: Option<&'a str>,
    pub meta: &'a MetaWire<'a>,
    pub cwd: Option<&'a str>,
}

/// Titles OpenCode uses that name no action.
const GENERIC_TITLES: &[&str] = &["invalid tool", "tool", "mcp", "untitled"];

/// A provider title worth showing: not empty, not the tool's own name, not a generic.
fn specific<'a>(title: Option<&'a str>, ctx: &TitleCtx<'_>) -> Option<&'a str> {
    let t = title?.trim();
    let lower = t.to_ascii_lowercase();
    let same_as_name = titles::restates(t, ctx.tool) || titles::restates(t, &ctx.class.name);
    (!t.is_empty() && !same_as_name && !GENERIC_TITLES.contains(&lower.as_str())).then_some(t)
}

/// `metadata.actionDescriptor`: a string, or an object with a text field.
fn action_descriptor(meta: &MetaWire<'_>) -> Option<String> {
    let raw = meta.action_descriptor?;
    match serde_json::from_str::<Value>(raw.get()).ok()? {
        Value::String(s) => Some(s),
        Value::Object(o) => ["title", "label", "text", "description", "summary"]
            .iter()
            .find_map(|k| o.get(*k).and_then(Value::as_str))
            .map(str::to_owned),
        _ => None,
    }
}

pub(super) fn title(ctx: &TitleCtx<'_>) -> String {
    if let Some(d) = action_descriptor(ctx.meta)
        && let Some(d) = specific(Some(&d), ctx)
    {
        return titles::finish(d, "Using a tool");
    }
    let input = ctx.input;
    if (ctx.fork.kind)(ctx.tool).is_some() {
        return (ctx.fork.title)(ctx.tool, input, ctx.cwd);
    }
    // A search scope equal to the session directory is left out (`.`, which the helpers drop).
    let scope = |keys: &[&str]| str_arg(input, keys).map(|p| titles::display_path(p, ctx.cwd));
    // The session directory itself reads better in words than as `.`.
    let path = |keys: &[&str]| {
        str_arg(input, keys).map(|p| match titles::display_path(p, ctx.cwd) {
            d if d == "." => "the working directory".to_owned(),
            d => d,
        })
    };
    match ctx.tool {
        "bash" => match str_arg(input, &["command"]) {
            Some(cmd) => titles::shell(cmd),
            // Pending: no command yet. A description (≤ v1.17.9) is better than nothing.
            None => match specific(ctx.provider_title, ctx).or(ctx.meta.description.as_deref()) {
                Some(d) => titles::finish(&format!("Running: {d}"), "Running a shell command"),
                None => "Running a shell command".to_owned(),
            },
        },
        "read" => match path(&["filePath", "path"]) {
            Some(p) => titles::read(&p, num_arg(input, "offset"), num_arg(input, "limit")),
            None => "Reading a file".to_owned(),
        },
        "write" => {
            path(&["filePath"]).map_or_else(|| "Writing a file".to_owned(), |p| titles::write(&p))
        }
        "edit" | "multiedit" => {
            path(&["filePath"]).map_or_else(|| "Editing a file".to_owned(), |p| titles::edit(&p))
        }
        "patch" | "apply_patch" => {
            titles::patch(str_arg(input, &["patchText", "patch", "input"]), ctx.cwd)
        }
        "list" => path(&["path"]).map_or_else(|| "Listing files".to_owned(), |p| titles::list(&p)),
        "glob" => match str_arg(input, &["pattern"]) {
            Some(p) => titles::glob(p, scope(&["path"]).as_deref()),
            None => "Finding files".to_owned(),
        },
        "grep" => match str_arg(input, &["pattern"]) {
            Some(p) => {
                let scope = match (scope(&["path"]), str_arg(input, &["include"])) {
                    (Some(dir), Some(inc)) => Some(format!("{dir} ({inc})")),
                    (Some(dir), None) => Some(dir),
                    (None, Some(inc)) => Some(inc.to_owned()),
                    (None, None) => None,
                };
                titles::grep(p, scope.as_deref())
            }
            None => "Searching files".to_owned(),
        },
        "webfetch" => titles::fetch(str_arg(input, &["url"]).unwrap_or("")),
        "websearch" => titles::web_search(str_arg(input, &["query"]).unwrap_or("")),
        "codesearch" => match str_arg(input, &["query"]) {
            Some(q) => titles::finish(
                &format!("Searching code for {}", q.trim()),
                "Searching code",
            ),
            None => "Searching code".to_owned(),
        },
        "task" => titles::subagent(
            str_arg(input, &["description"]).or(specific(ctx.provider_title, ctx)),
            str_arg(input, &["prompt"]),
        ),
        "todowrite" => {
            let todos = input.get("todos").and_then(Value::as_array);
            let total = todos.map_or(0, Vec::len);
            let done = todos.map_or(0, |t| {
                t.iter()
                    .filter(|x| x.get("status").and_then(Value::as_str) == Some("completed"))
                    .count()
            });
            titles::todo(total, done)
        }
        "todoread" => "Reading the todo list".to_owned(),
        "plan_exit" => "Switching to build agent".to_owned(),
        "plan_enter" => "Switching to plan agent".to_owned(),
        "question" => titles::questions(input.get("questions")),
        "skill" => match str_arg(input, &["name"]) {
            Some(n) => titles::finish(&format!("Loading skill {}", n.trim()), "Loading a skill"),
            None => "Loading a skill".to_owned(),
        },
        "lsp" => {
            let op = str_arg(input, &["operation"]).map(titles::words);
            let at = path(&["filePath"]).map(|p| match num_arg(input, "line") {
                Some(l) => format!("{p}:{l}"),
                None => p,
            });
            match (op, at) {
                (Some(op), Some(at)) => titles::finish(
                    &format!("Looking up {op} in {at}"),
                    "Querying the language server",
                ),
                (Some(op), None) => {
                    titles::finish(&format!("Looking up {op}"), "Querying the language server")
                }
                (None, Some(at)) => titles::finish(
                    &format!("Querying the language server on {at}"),
                    "Querying the language server",
                ),
                (None, None) => "Querying the language server".to_owned(),
            }
        }
        "execute" => match str_arg(input, &["code"]).map(|c| c.lines().count()) {
            Some(n) if n > 1 => format!("Running a tool script ({n} lines)"),
            _ => "Running a tool script".to_owned(),
        },
        "batch" => {
            let names: Vec<&str> = batch_tools(input).collect();
            match names.len() {
                0 => "Running several tools".to_owned(),
                n => titles::finish(
                    &format!("Running {n} tools: {}", names.join(", ")),
                    "Running several tools",
                ),
            }
        }
        "invalid" => match ctx.class.requested_tool.as_deref() {
            Some(t) => titles::finish(
                &format!("Calling unavailable tool {t}"),
                "Calling an unavailable tool",
            ),
            None => "Calling an unavailable tool".to_owned(),
        },
        _ => match (&ctx.class.mcp, specific(ctx.provider_title, ctx)) {
            (_, Some(t)) => titles::finish(t, "Using a tool"),
            (Some(m), None) => titles::mcp(&m.server, &m.tool, input),
            (None, None) => titles::generic(ctx.tool, input, ctx.cwd),
        },
    }
}

/// The error of an `invalid` part: OpenCode's sentence for the model (`The arguments provided to
/// the tool are invalid: …`) or, without output, the input's own `error`; code `invalid_tool`.
pub(super) fn invalid_call_error(output: &Value, input: &Value) -> ToolError {
    let text = match output {
        Value::String(s) if !s.trim().is_empty() => s.trim().to_owned(),
        _ => str_arg(input, &["error"]).unwrap_or("").trim().to_owned(),
    };
    let requested = str_arg(input, &["tool"]);
    // The reason without OpenCode's preamble and without the list of tools it offers.
    let reason = first_meaningful_line(&text).map(|line| {
        let line = line
            .strip_prefix("The arguments provided to the tool are invalid:")
            .map_or(line, str::trim);
        line.split_once(". Available tools:")
            .map_or(line, |(head, _)| head)
            .trim_end_matches('.')
    });
    let message = match (reason.filter(|r| !r.is_empty()), requested) {
        (Some(line), _) => crate::text::clip(line, 300),
        (None, Some(t)) => format!("Unknown tool {t}"),
        (None, None) => "The model called a tool that does not exist".to_owned(),
    };
    let details = (!text.is_empty() && text != message).then(|| Value::String(text.clone()));
    ToolError {
        message,
        code: Some("invalid_tool".to_owned()),
        details,
    }
}

/// `state.error` (a string; old versions prefix `Error: `) as the contract's error.
pub(super) fn tool_error(raw: Option<&RawValue>, meta: &MetaWire<'_>) -> ToolError {
    let text = match raw.map(raw_to_value) {
        Some(Value::String(s)) => s,
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    };
    let trimmed = text.trim();
    let stripped = trimmed.strip_prefix("Error: ").unwrap_or(trimmed);
    let message = first_meaningful_line(stripped).unwrap_or("the tool call failed");
    // A deny rule's refusal quotes the rules as JSON after its sentence: the sentence is the
    // message, the whole text the details.
    let message = message
        .split_once(" Here are some of the relevant rules")
        .map_or(message, |(sentence, _)| sentence);
    let lower = stripped.to_ascii_lowercase();
    let code = if meta.interrupted() {
        Some("interrupted")
    } else if stripped == "Tool execution aborted" || lower.contains("aborted") {
        Some("aborted")
    } else if lower.contains("rejected permission") || lower.contains("prevents you from using") {
        Some("permission_denied")
    } else if lower.contains("dismissed this question") {
        Some("declined")
    } else {
        None
    };
    let message = crate::text::clip(message, 300);
    let details = (stripped.trim() != message).then(|| Value::String(stripped.to_owned()));
    ToolError {
        message,
        code: code.map(str::to_owned),
        details,
    }
}

/// The first line that says something: markdown headings that only say "Error" are skipped
/// (MCP servers answer `### Error\nCould not …`).
fn first_meaningful_line(text: &str) -> Option<&str> {
    text.lines().map(str::trim).find(|l| {
        let bare = l.trim_start_matches('#').trim().trim_end_matches(':');
        !bare.is_empty() && !bare.eq_ignore_ascii_case("error")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn t(tool: &str, input: Value, provider_title: Option<&str>) -> (Class, String) {
        let class = classify(&OPENCODE, tool, &input);
        let meta = MetaWire::default();
        let title = title(&TitleCtx {
            fork: &OPENCODE,
            tool,
            class: &class,
            input: &input,
            provider_title,
            meta: &meta,
            cwd: Some("/w"),
        });
        (class, title)
    }

    #[test]
    fn contract_rows() {
        let (c, title) = t(
            "amalgm_browser_tabs_new",
            json!({"url":"http://x"}),
            Some(""),
        );
        assert_eq!(title, "Opening browser tab");
        assert_eq!(c.name, "browser_tabs_new");
        assert_eq!(c.kind, ToolKind::Browser);
        assert_eq!(
            c.mcp,
            Some(McpRef {
                server: "amalgm".into(),
                tool: "browser_tabs_new".into()
            })
        );
        let (c, title) = t(
            "task",
            json!({"description":"Research Northern India politics","prompt":"p","subagent_type":"general"}),
            Some("Research Northern India politics"),
        );
        assert_eq!(title, "Research Northern India politics");
        assert_eq!(c.kind, ToolKind::Subagent);
    }

    #[test]
    fn every_builtin_has_a_kind_and_a_specific_title() {
        let rows: Vec<(&str, Value, ToolKind, &str)> = vec![
            (
                "bash",
                json!({"command":"npm test","description":"Run tests"}),
                ToolKind::Bash,
                "Running npm test",
            ),
            (
                "read",
                json!({"filePath":"/w/src/a.rs","offset":6,"limit":4}),
                ToolKind::FileRead,
                "Reading src/a.rs (lines 6–9)",
            ),
            (
                "write",
                json!({"filePath":"/w/b.md","content":"x"}),
                ToolKind::FileWrite,
                "Writing b.md",
            ),
            (
                "edit",
                json!({"filePath":"/w/c.rs","oldString":"a","newString":"b"}),
                ToolKind::FileEdit,
                "Editing c.rs",
            ),
            (
                "multiedit",
                json!({"filePath":"/w/c.rs","edits":[]}),
                ToolKind::FileEdit,
                "Editing c.rs",
            ),
            (
                "patch",
                json!({"patchText":"*** Begin Patch\n*** Add File: /w/n.txt\n+hi\n*** End Patch"}),
                ToolKind::FileEdit,
                "Creating n.txt",
            ),
            (
                "apply_patch",
                json!({"patchText":"*** Begin Patch\n*** Update File: a.js\n*** Delete File: b.js\n*** End Patch"}),
                ToolKind::FileEdit,
                "Editing a.js, b.js",
            ),
            (
                "glob",
                json!({"pattern":"**/*.md","path":"/w/docs"}),
                ToolKind::FileRead,
                "Finding files matching **/*.md in docs",
            ),
            (
                "grep",
                json!({"pattern":"TODO","path":"/w/src","include":"*.js"}),
                ToolKind::FileRead,
                "Searching for \"TODO\" in src (*.js)",
            ),
            (
                "list",
                json!({"path":"/w/src"}),
                ToolKind::FileRead,
                "Listing src",
            ),
            (
                "list",
                json!({"path":"/w"}),
                ToolKind::FileRead,
                "Listing the working directory",
            ),
            (
                "webfetch",
                json!({"url":"https://www.example.com/a","format":"markdown"}),
                ToolKind::Browser,
                "Fetching example.com/a",
            ),
            (
                "websearch",
                json!({"query":"Reuters top news"}),
                ToolKind::WebSearch,
                "Searching Reuters top news",
            ),
            (
                "codesearch",
                json!({"query":"tokio select"}),
                ToolKind::WebSearch,
                "Searching code for tokio select",
            ),
            (
                "todowrite",
                json!({"todos":[{"content":"a","status":"completed"},{"content":"b","status":"pending"}]}),
                ToolKind::Todo,
                "Updating the todo list (2 items, 1 done)",
            ),
            (
                "todoread",
                json!({}),
                ToolKind::Todo,
                "Reading the todo list",
            ),
            (
                "question",
                json!({"questions":[{"question":"Which db?","header":"DB","options":[]}]}),
                ToolKind::Question,
                "Asking: Which db?",
            ),
            (
                "skill",
                json!({"name":"pdf"}),
                ToolKind::FileRead,
                "Loading skill pdf",
            ),
            (
                "lsp",
                json!({"operation":"goToDefinition","filePath":"/w/a.ts","line":3,"character":1}),
                ToolKind::FileRead,
                "Looking up go to definition in a.ts:3",
            ),
            (
                "batch",
                json!({"tool_calls":[{"tool":"read","parameters":{}},{"tool":"grep","parameters":{}}]}),
                ToolKind::FileRead,
                "Running 2 tools: read, grep",
            ),
            (
                "execute",
                json!({"code": "const a = await tools.x();\nreturn a;"}),
                ToolKind::Mcp,
                "Running a tool script (2 lines)",
            ),
            (
                "plan_exit",
                json!({}),
                ToolKind::Todo,
                "Switching to build agent",
            ),
            (
                "plan_enter",
                json!({}),
                ToolKind::Todo,
                "Switching to plan agent",
            ),
            (
                "invalid",
                json!({"tool":"list","error":"Model tried to call unavailable tool 'list'."}),
                ToolKind::Unknown,
                "Calling unavailable tool list",
            ),
        ];
        for (tool, input, kind, want) in rows {
            let (c, title) = t(tool, input, Some(tool));
            assert_eq!(c.kind, kind, "{tool}");
            assert_eq!(c.name, tool);
            assert!(c.mcp.is_none(), "{tool}");
            assert_eq!(title, want, "{tool}");
        }
    }

    #[test]
    fn pending_inputs_give_generic_titles() {
        for tool in [
            "bash",
            "read",
            "write",
            "edit",
            "glob",
            "grep",
            "list",
            "webfetch",
            "websearch",
            "task",
        ] {
            let (_, title) = t(tool, json!({}), None);
            assert!(!title.is_empty() && title != tool, "{tool}: {title}");
        }
    }

    #[test]
    fn mcp_and_custom_tools() {
        let (c, title) = t("jira_getVisibleJiraProjects", json!({}), Some(""));
        assert_eq!(c.kind, ToolKind::Mcp);
        assert_eq!(c.name, "getVisibleJiraProjects");
        assert_eq!(title, "Jira: get visible jira projects");
        let (_, title) = t(
            "amalgm_artifacts_register",
            json!({"name":"Spotify Clone"}),
            Some(""),
        );
        assert_eq!(title, "Registering artifact Spotify Clone");
        // A provider title that says something wins for MCP and plugin tools.
        let (_, title) = t("github_create_issue", json!({}), Some("Opened issue #12"));
        assert_eq!(title, "Opened issue #12");
        let (c, title) = t("deploy", json!({}), Some("deploy"));
        assert_eq!(
            (c.kind, c.mcp, title.as_str()),
            (ToolKind::Unknown, None, "Deploy (no arguments)")
        );
        let (_, title) = t("deploy", json!({"description": "ship to staging"}), None);
        assert_eq!(title, "Ship to staging");
        // Split on the first `_` only.
        let (c, _) = t("my_server_do_thing", json!({}), None);
        assert_eq!(
            c.mcp,
            Some(McpRef {
                server: "my".into(),
                tool: "server_do_thing".into()
            })
        );
    }

    #[test]
    fn mcp_ids_split_only_against_declared_servers() {
        let declared = ["amalgm", "my", "my_server", "docs.site"];
        let split = |t| split_declared_mcp(t, declared);
        assert_eq!(
            split("amalgm_browser_navigate"),
            Some(("amalgm", "browser_navigate"))
        );
        // The longest declared server wins; a name is matched in OpenCode's sanitized spelling.
        assert_eq!(split("my_server_do_thing"), Some(("my_server", "do_thing")));
        assert_eq!(split("my_do_thing"), Some(("my", "do_thing")));
        assert_eq!(split("docs_site_search"), Some(("docs.site", "search")));
        // An undeclared prefix, a bare server, a title that is no tool id: no split.
        for t in [
            "github_create_issue",
            "amalgm",
            "amalgm_",
            "amalgmx_browser_navigate",
            "amalgm_open page.html",
            "Amalgm_browser_navigate",
            "read",
        ] {
            assert_eq!(split(t), None, "{t}");
        }
        assert_eq!(split_declared_mcp("amalgm_browser_navigate", []), None);
        assert_eq!(split_declared_mcp("_x", [""]), None);
    }

    #[test]
    fn action_descriptor_is_preferred() {
        let class = classify(&OPENCODE, "amalgm_browser_navigate", &json!({}));
        let meta: MetaWire<'_> =
            serde_json::from_str(r#"{"actionDescriptor":"Opening the pricing page"}"#).unwrap();
        let title = title(&TitleCtx {
            fork: &OPENCODE,
            tool: "amalgm_browser_navigate",
            class: &class,
            input: &json!({}),
            provider_title: None,
            meta: &meta,
            cwd: None,
        });
        assert_eq!(title, "Opening the pricing page");
    }

    #[test]
    fn error_text_is_cleaned() {
        let meta = MetaWire::default();
        let raw = RawValue::from_string("\"Error: boom\\nat x\"".into()).unwrap();
        let e = tool_error(Some(&raw), &meta);
        assert_eq!(e.message, "boom");
        assert_eq!(e.details, Some(Value::from("boom\nat x")));
        let raw = RawValue::from_string("\"### Error\\nCould not register\"".into()).unwrap();
        assert_eq!(tool_error(Some(&raw), &meta).message, "Could not register");
        // Kilo 7.7 (and OpenCode) refusing by a deny rule: the sentence, the rules in details.
        let raw = RawValue::from_string(
            r#""The user has specified a rule which prevents you from using this specific tool call. Here are some of the relevant rules {\"permission\":\"bash\",\"pattern\":\"git push*\",\"action\":\"deny\"}""#
                .into(),
        )
        .unwrap();
        let e = tool_error(Some(&raw), &meta);
        assert_eq!(
            e.message,
            "The user has specified a rule which prevents you from using this specific tool call."
        );
        assert_eq!(e.code.as_deref(), Some("permission_denied"));
        assert!(e.details.unwrap().as_str().unwrap().contains("git push*"));
        let raw = RawValue::from_string("\"Tool execution aborted\"".into()).unwrap();
        let e = tool_error(Some(&raw), &meta);
        assert_eq!(e.code.as_deref(), Some("aborted"));
        assert!(e.details.is_none());
    }
}
