//! Human titles, shared by every provider so the same action reads the same everywhere. Titles are
//! action text in the present participle ("Running npm test", "Reading src/app.rs (lines 6–9)"),
//! one line, at most [`MAX_TITLE`] characters, never raw JSON and never just the raw tool name.
//! The contract's title table is reproduced exactly (see the tests).

use serde_json::Value;

use crate::model::ToolKind;
use crate::text::clip;

/// Longest title, in characters, ellipsis included.
pub const MAX_TITLE: usize = 100;

/// `input[key]` when it is a string with something in it other than white space (as given, not
/// trimmed): the field a title is made from.
pub fn nonblank<'a>(input: &'a serde_json::Value, key: &str) -> Option<&'a str> {
    input
        .get(key)
        .and_then(serde_json::Value::as_str)
        .filter(|v| !v.trim().is_empty())
}

/// Finish a title: single line, bounded, never empty.
pub fn finish(title: &str, fallback: &str) -> String {
    let t = clip(title, MAX_TITLE);
    if t.is_empty() {
        clip(fallback, MAX_TITLE)
    } else {
        t
    }
}

/// `https://www.apnews.com/hub` → `apnews.com`. Anything that is not a URL comes back trimmed.
pub fn host(url: &str) -> String {
    let s = url.trim();
    let after_scheme = s.split_once("://").map_or(s, |(_, r)| r);
    let authority = after_scheme
        .split(['/', '?', '#'])
        .next()
        .unwrap_or(after_scheme);
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let h = authority.strip_prefix("www.").unwrap_or(authority);
    if h.is_empty() {
        s.to_owned()
    } else {
        h.to_owned()
    }
}

/// A path as a person wants to see it: relative to `cwd` when it lies inside it. Windows paths
/// (`C:\Users\dev\app\src\a.ts`, or with `/`) compare without regard to the drive letter's
/// case or the separator; the relative part keeps the path's own separators.
pub fn display_path(path: &str, cwd: Option<&str>) -> String {
    if let Some(cwd) = cwd {
        let cwd = cwd.trim_end_matches(['/', '\\']);
        if !cwd.is_empty()
            && let Some(rest) = strip_dir(path, cwd)
        {
            if let Some(rel) = rest.strip_prefix(['/', '\\'])
                && !rel.is_empty()
            {
                return rel.to_owned();
            }
            if rest.is_empty() {
                return ".".to_owned();
            }
        }
    }
    path.to_owned()
}

/// `path` without the leading `dir`, exactly, or, when either looks like a Windows path, with
/// `\\` and `/` equal and ASCII case ignored.
fn strip_dir<'p>(path: &'p str, dir: &str) -> Option<&'p str> {
    if let Some(rest) = path.strip_prefix(dir) {
        return Some(rest);
    }
    let windows = |p: &str| p.contains('\\') || p.as_bytes().get(1) == Some(&b':');
    if !(windows(path) || windows(dir))
        || path.len() < dir.len()
        || !path.is_char_boundary(dir.len())
    {
        return None;
    }
    let (head, rest) = path.split_at(dir.len());
    let same = head.bytes().zip(dir.bytes()).all(|(a, b)| {
        let fold = |c: u8| {
            if c == b'\\' {
                b'/'
            } else {
                c.to_ascii_lowercase()
            }
        };
        fold(a) == fold(b)
    });
    same.then_some(rest)
}

/// Strip a shell wrapper: `/bin/bash -lc 'ls -1'` → `ls -1`, `["bash","-lc","ls"]` → `ls`.
pub fn unwrap_shell(command: &str) -> String {
    let c = command.trim();
    for shell in [
        "/bin/bash",
        "/usr/bin/bash",
        "bash",
        "/bin/zsh",
        "zsh",
        "/bin/sh",
        "sh",
    ] {
        for flag in ["-lc", "-c"] {
            // `{shell} {flag} ` before the script.
            let rest = c
                .strip_prefix(shell)
                .and_then(|r| r.strip_prefix(' '))
                .and_then(|r| r.strip_prefix(flag))
                .and_then(|r| r.strip_prefix(' '));
            if let Some(rest) = rest {
                return unquote(rest.trim());
            }
        }
    }
    c.to_owned()
}

/// Shell argv (rollouts) as one command line, the wrapper removed.
pub fn argv_command(argv: &[Value]) -> String {
    let words: Vec<&str> = argv.iter().filter_map(Value::as_str).collect();
    if words.len() == 3 && matches!(words[1], "-lc" | "-c") {
        return words[2].to_owned();
    }
    words.join(" ")
}

fn unquote(s: &str) -> String {
    let b = s.as_bytes();
    if b.len() >= 2 && b[0] == b'\'' && b[b.len() - 1] == b'\'' {
        return s[1..s.len() - 1].replace("'\\''", "'");
    }
    if b.len() >= 2 && b[0] == b'"' && b[b.len() - 1] == b'"' {
        return s[1..s.len() - 1]
            .replace("\\\"", "\"")
            .replace("\\\\", "\\");
    }
    s.to_owned()
}

/// `getVisibleJiraProjects`, `browser_tabs_new`, `resolve-library-id` → lower-case words.
pub fn words(identifier: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for ch in identifier.chars() {
        if ch == '_' || ch == '-' || ch == '.' || ch.is_whitespace() {
            if !out.ends_with(' ') && !out.is_empty() {
                out.push(' ');
            }
            prev_lower = false;
            continue;
        }
        if ch.is_uppercase() && prev_lower && !out.ends_with(' ') {
            out.push(' ');
        }
        prev_lower = ch.is_lowercase() || ch.is_ascii_digit();
        out.extend(ch.to_lowercase());
    }
    out.trim().to_owned()
}

/// Whether `title` only restates the tool name `name` (in any case, or as its words:
/// `Browser navigate` for `browser_navigate`), so it says nothing the name did not.
pub fn restates(title: &str, name: &str) -> bool {
    let t = title.trim();
    t.eq_ignore_ascii_case(name.trim()) || words(t) == words(name)
}

/// First letter upper-cased.
pub fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

pub fn shell(command: &str) -> String {
    let cmd = unwrap_shell(command);
    let mut lines = cmd.lines().filter(|l| !l.trim().is_empty());
    let Some(first) = lines.next().map(str::trim) else {
        return "Running a shell command".to_owned();
    };
    // Another line that is not blank, however long the script.
    let more = lines.next().is_some();
    finish(
        &format!("Running {first}{}", if more { " …" } else { "" }),
        "Running a shell command",
    )
}

/// `offset` is the first line (1-based as the providers count), `limit` the number of lines.
pub fn read(path: &str, offset: Option<u64>, limit: Option<u64>) -> String {
    let range = match (offset, limit) {
        (Some(o), Some(l)) if l > 0 => format!(" (lines {}–{})", o.max(1), o.max(1) + l - 1),
        (Some(o), None) => format!(" (from line {})", o.max(1)),
        (None, Some(l)) if l > 0 => format!(" (lines 1–{l})"),
        _ => String::new(),
    };
    finish(&format!("Reading {path}{range}"), "Reading a file")
}

pub fn write(path: &str) -> String {
    finish(&format!("Writing {path}"), "Writing a file")
}

pub fn create(path: &str) -> String {
    finish(&format!("Creating {path}"), "Creating a file")
}

pub fn edit(path: &str) -> String {
    finish(&format!("Editing {path}"), "Editing a file")
}

pub fn delete(path: &str) -> String {
    finish(&format!("Deleting {path}"), "Deleting a file")
}

/// Several files changed by one patch.
pub fn edit_files(paths: &[String]) -> String {
    match paths {
        [] => "Editing files".to_owned(),
        [one] => edit(one),
        _ => finish(&format!("Editing {}", paths.join(", ")), "Editing files"),
    }
}

pub fn list(path: &str) -> String {
    finish(&format!("Listing {path}"), "Listing files")
}

pub fn glob(pattern: &str, scope: Option<&str>) -> String {
    match scope.filter(|s| !s.is_empty() && *s != ".") {
        Some(s) => finish(
            &format!("Finding files matching {pattern} in {s}"),
            "Finding files",
        ),
        None => finish(
            &format!("Finding files matching {pattern}"),
            "Finding files",
        ),
    }
}

pub fn grep(pattern: &str, scope: Option<&str>) -> String {
    match scope.filter(|s| !s.is_empty() && *s != ".") {
        Some(s) => finish(
            &format!("Searching for \"{pattern}\" in {s}"),
            "Searching files",
        ),
        None => finish(&format!("Searching for \"{pattern}\""), "Searching files"),
    }
}

/// Contract: `Searching Reuters top news`.
pub fn web_search(query: &str) -> String {
    if query.trim().is_empty() {
        return "Searching the web".to_owned();
    }
    finish(&format!("Searching {}", query.trim()), "Searching the web")
}

/// Contract: `Opening apnews.com`.
pub fn open_page(url: &str) -> String {
    if url.trim().is_empty() {
        return "Opening a web page".to_owned();
    }
    finish(&format!("Opening {}", host(url)), "Opening a web page")
}

/// Contract: `Finding "Updated" on apnews.com`.
pub fn find_in_page(pattern: &str, url: Option<&str>) -> String {
    match url.filter(|u| !u.trim().is_empty()) {
        Some(u) => finish(
            &format!("Finding \"{pattern}\" on {}", host(u)),
            "Finding in page",
        ),
        None => finish(&format!("Finding \"{pattern}\""), "Finding in page"),
    }
}

/// `Fetching docs.rs/serde/latest`: the host and the path (no query), so two fetches from one
/// site tell themselves apart.
pub fn fetch(url: &str) -> String {
    if url.trim().is_empty() {
        return "Fetching a web page".to_owned();
    }
    finish(
        &format!("Fetching {}{}", host(url), url_path(url)),
        "Fetching a web page",
    )
}

/// `https://a.org/docs/intro/?q=1#x` → `/docs/intro`; nothing for a bare host or a non-URL.
fn url_path(url: &str) -> &str {
    let Some((_, rest)) = url.trim().split_once("://") else {
        return "";
    };
    let rest = rest.split(['?', '#']).next().unwrap_or_default();
    rest.find('/')
        .map_or("", |i| &rest[i..])
        .trim_end_matches('/')
}

/// Contract: OpenCode `task` with description → the description itself.
pub fn subagent(description: Option<&str>, prompt: Option<&str>) -> String {
    if let Some(d) = description.filter(|d| !d.trim().is_empty()) {
        return finish(&capitalize(d.trim()), "Running a subagent");
    }
    if let Some(p) = prompt.filter(|p| !p.trim().is_empty()) {
        return finish(&format!("Subagent: {}", p.trim()), "Running a subagent");
    }
    "Running a subagent".to_owned()
}

pub fn todo(total: usize, done: usize) -> String {
    match total {
        0 => "Updating the todo list".to_owned(),
        1 => format!("Updating the todo list (1 item, {done} done)"),
        n => format!("Updating the todo list ({n} items, {done} done)"),
    }
}

/// A question tool's title from its `questions` list (`[{question, …}, …]`): Claude's
/// AskUserQuestion, OpenCode's question and Codex's request_user_input all ask this way.
pub fn questions(questions: Option<&Value>) -> String {
    let qs = questions.and_then(Value::as_array);
    let first = qs
        .and_then(|q| q.first())
        .and_then(|q| q.get("question"))
        .and_then(Value::as_str);
    question(first, qs.map_or(0, Vec::len))
}

pub fn question(first: Option<&str>, count: usize) -> String {
    match (first.filter(|q| !q.trim().is_empty()), count) {
        (Some(q), 0 | 1) => finish(&format!("Asking: {}", q.trim()), "Asking a question"),
        (Some(q), n) => finish(
            &format!("Asking {n} questions: {}", q.trim()),
            "Asking questions",
        ),
        (None, 0 | 1) => "Asking a question".to_owned(),
        (None, n) => format!("Asking {n} questions"),
    }
}

pub fn view_image(path: &str) -> String {
    finish(&format!("Viewing image {path}"), "Viewing an image")
}

/// An apply_patch text by its `*** Add File: a`, `*** Update File: b`, `*** Delete File: c`
/// headers (OpenCode's `apply_patch`, droid's `ApplyPatch`, Copilot's `apply_patch`).
pub fn patch(patch: Option<&str>, cwd: Option<&str>) -> String {
    let Some(patch) = patch else {
        return "Editing files".to_owned();
    };
    let mut paths = Vec::new();
    let mut ops = Vec::new();
    for line in patch.lines() {
        let line = line.trim();
        for (prefix, op) in [
            ("*** Add File:", 'A'),
            ("*** Update File:", 'M'),
            ("*** Delete File:", 'D'),
        ] {
            if let Some(p) = line.strip_prefix(prefix) {
                paths.push(display_path(p.trim(), cwd));
                ops.push(op);
            }
        }
    }
    match (paths.as_slice(), ops.as_slice()) {
        ([p], ['A']) => create(p),
        ([p], ['D']) => delete(p),
        _ => edit_files(&paths),
    }
}

/// A tool no table knows yet: a title from the call's own descriptive fields, tried in this order:
/// `description` (as it is), `command` (as a shell command), a path, a URL, a query, a pattern
/// (each after the tool's name in words: `Enter worktree: feature-x`). A call with none of them
/// shows its first short text argument the same way, and one with no text argument its name in
/// words marked as taking none. Never the raw name alone and never a bare "Using X": a tool a new
/// release adds reads right before anyone writes its row.
pub fn generic(name: &str, input: &Value, cwd: Option<&str>) -> String {
    let label = match capitalize(&words(name)) {
        l if l.is_empty() => "Tool call".to_owned(),
        l => l,
    };
    let labelled = |detail: &str| finish(&format!("{label}: {}", detail.trim()), &label);
    if let Some(d) = arg_str(input, &["description"]) {
        return finish(&capitalize(d.trim()), &label);
    }
    match input.get("command") {
        Some(Value::String(c)) if !c.trim().is_empty() => return shell(c),
        Some(Value::Array(argv)) if !argv.is_empty() => return shell(&argv_command(argv)),
        _ => {}
    }
    if let Some(p) = arg_str(input, &["path", "file_path", "filePath", "notebook_path"]) {
        return labelled(&display_path(p.trim(), cwd));
    }
    if let Some(u) = arg_str(input, &["url", "uri"]) {
        let shown = if u.contains("://") {
            format!("{}{}", host(u), url_path(u))
        } else {
            u.trim().to_owned()
        };
        return labelled(&shown);
    }
    if let Some(q) = arg_str(input, &["query"]) {
        return labelled(q);
    }
    if let Some(p) = arg_str(input, &["pattern"]) {
        return labelled(&format!("\"{}\"", p.trim()));
    }
    let first_text = input.as_object().and_then(|o| {
        o.values()
            .filter_map(Value::as_str)
            .map(str::trim)
            .find(|v| !v.is_empty() && !v.starts_with(['{', '[']))
    });
    match first_text {
        Some(t) => labelled(t),
        None => finish(&format!("{label} (no arguments)"), "Tool call"),
    }
}

/// Kind of an MCP tool: browser automation (`browser_*`) is `browser`, the rest `mcp`.
pub fn mcp_kind(_server: &str, tool: &str) -> ToolKind {
    if tool.starts_with("browser_") || tool.starts_with("browser-") {
        ToolKind::Browser
    } else {
        ToolKind::Mcp
    }
}

fn arg_str<'a>(args: &'a Value, keys: &[&str]) -> Option<&'a str> {
    keys.iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str))
        .filter(|s| !s.trim().is_empty())
}

/// MCP tools: the amalgm actions by name (contract table), other tools from their server and tool
/// words: `Jira: get visible jira projects`.
pub fn mcp(server: &str, tool: &str, args: &Value) -> String {
    match tool {
        "browser_snapshot" => return "Reading browser page".to_owned(),
        "browser_navigate" => return "Opening browser page".to_owned(),
        "browser_tabs_new" => return "Opening browser tab".to_owned(),
        "artifacts_register" => {
            return match arg_str(args, &["name", "title"]) {
                Some(n) => finish(
                    &format!("Registering artifact {}", n.trim()),
                    "Registering artifact",
                ),
                None => "Registering artifact".to_owned(),
            };
        }
        _ => {}
    }
    let server_words = capitalize(&words(server));
    let tool_words = words(tool);
    let detail = arg_str(
        args,
        &["url", "query", "path", "file_path", "name", "title"],
    );
    let base = if server_words.is_empty() {
        capitalize(&tool_words)
    } else {
        format!("{server_words}: {tool_words}")
    };
    match detail {
        Some(d) => finish(&format!("{base} {}", d.trim()), "Calling an MCP tool"),
        None => finish(&base, "Calling an MCP tool"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn contract_title_table() {
        assert_eq!(web_search("Reuters top news"), "Searching Reuters top news");
        assert_eq!(
            open_page("https://apnews.com/hub/ap-top-news"),
            "Opening apnews.com"
        );
        assert_eq!(
            find_in_page("Updated", Some("https://www.apnews.com/hub/ap-top-news")),
            "Finding \"Updated\" on apnews.com"
        );
        assert_eq!(
            mcp("amalgm", "browser_snapshot", &json!({})),
            "Reading browser page"
        );
        assert_eq!(
            mcp("amalgm", "browser_navigate", &json!({"url":"x"})),
            "Opening browser page"
        );
        assert_eq!(
            mcp(
                "amalgm",
                "artifacts_register",
                &json!({"name":"Spotify Clone"})
            ),
            "Registering artifact Spotify Clone"
        );
        assert_eq!(
            mcp("amalgm", "browser_tabs_new", &json!({})),
            "Opening browser tab"
        );
        assert_eq!(
            subagent(Some("Research Northern India politics"), None),
            "Research Northern India politics"
        );
    }

    #[test]
    fn fetch_titles_name_host_and_path() {
        assert_eq!(
            fetch("https://www.docs.rs/serde/latest/?search=x#top"),
            "Fetching docs.rs/serde/latest"
        );
        assert_eq!(fetch("https://example.com/"), "Fetching example.com");
        assert_eq!(fetch("https://example.com"), "Fetching example.com");
        assert_eq!(
            fetch("https://127.0.0.1:8443/status.html"),
            "Fetching 127.0.0.1:8443/status.html"
        );
        assert_eq!(fetch("not a url"), "Fetching not a url");
        assert_eq!(fetch("  "), "Fetching a web page");
    }

    #[test]
    fn finish_gives_one_bounded_line() {
        let t = finish(&"a ".repeat(200), "fallback");
        assert!(t.chars().count() <= MAX_TITLE);
        assert!(t.ends_with('…'));
        assert_eq!(finish("one\ntwo\t three", "x"), "one two three");
        assert_eq!(finish(" \n ", "Running a command"), "Running a command");
    }

    #[test]
    fn shell_unwraps_wrappers() {
        assert_eq!(shell("/bin/bash -lc 'ls -1'"), "Running ls -1");
        assert_eq!(
            shell("/bin/bash -lc \"sh -c 'exit 3'\""),
            "Running sh -c 'exit 3'"
        );
        assert_eq!(shell("cat <<EOF\nhi\nEOF"), "Running cat <<EOF …");
        // Each wrapper and flag; what is not one (a longer name, no script after the flag).
        assert_eq!(unwrap_shell("zsh -c  'pwd' "), "pwd");
        assert_eq!(unwrap_shell("/usr/bin/bash -lc \"a \\\"b\\\"\""), "a \"b\"");
        assert_eq!(unwrap_shell("bashx -c ls"), "bashx -c ls");
        assert_eq!(unwrap_shell("sh -lc"), "sh -lc");
        assert_eq!(unwrap_shell("sh -x ls"), "sh -x ls");
        // Blank lines around the first one do not make it more than one.
        assert_eq!(shell("\n  \nls -la\n\n \n"), "Running ls -la");
        assert_eq!(shell("\n ls\n\n pwd"), "Running ls …");
        assert_eq!(shell(" \n\t\n"), "Running a shell command");
    }

    #[test]
    fn words_split_identifiers() {
        assert_eq!(words("getVisibleJiraProjects"), "get visible jira projects");
        assert_eq!(words("resolve-library-id"), "resolve library id");
        assert_eq!(
            mcp("jira", "getVisibleJiraProjects", &json!({})),
            "Jira: get visible jira projects"
        );
    }

    #[test]
    fn generic_titles_come_from_the_calls_own_fields() {
        let g = |name: &str, input: Value| generic(name, &input, Some("/w"));
        assert_eq!(
            g(
                "Monitor",
                json!({"description": "watch the build", "command": "make"})
            ),
            "Watch the build"
        );
        assert_eq!(
            g("Monitor", json!({"command": "tail -f log"})),
            "Running tail -f log"
        );
        assert_eq!(
            g("run", json!({"command": ["bash", "-lc", "ls"]})),
            "Running ls"
        );
        assert_eq!(
            g(
                "EnterWorktree",
                json!({"path": "/w/trees/x", "url": "https://a.org"})
            ),
            "Enter worktree: trees/x"
        );
        assert_eq!(
            g("open_thing", json!({"url": "https://www.a.org/docs/?q=1"})),
            "Open thing: a.org/docs"
        );
        assert_eq!(
            g(
                "ToolSearch",
                json!({"query": "select:Read", "max_results": 5})
            ),
            "Tool search: select:Read"
        );
        assert_eq!(
            g("lookFor", json!({"pattern": "TODO"})),
            "Look for: \"TODO\""
        );
        assert_eq!(
            g(
                "CronCreate",
                json!({"cron": "*/5 * * * *", "prompt": "check"})
            ),
            "Cron create: */5 * * * *"
        );
        assert_eq!(g("CronList", json!({})), "Cron list (no arguments)");
        assert_eq!(g("", Value::Null), "Tool call (no arguments)");
        // An object argument is not dumped into the title.
        assert_eq!(g("x_y", json!({"a": "{\"k\":1}"})), "X y (no arguments)");
        // Empty descriptive fields are skipped, not shown.
        assert_eq!(
            g("Skillish", json!({"description": " ", "query": "q"})),
            "Skillish: q"
        );
        for t in [g("CronList", json!({})), g("Monitor", json!({}))] {
            assert!(!t.starts_with("Using"), "{t}");
            assert_ne!(t.to_lowercase().replace(' ', ""), "cronlist");
        }
    }

    #[test]
    fn paths_relative_to_cwd() {
        assert_eq!(display_path("/w/src/a.rs", Some("/w")), "src/a.rs");
        assert_eq!(display_path("/other/a.rs", Some("/w")), "/other/a.rs");
        assert_eq!(display_path("/wx/a.rs", Some("/w")), "/wx/a.rs");
        // Windows sessions (OpenCode on Windows): either separator, any drive-letter case.
        let win = Some("C:\\Users\\dev\\app");
        assert_eq!(
            display_path("C:\\Users\\dev\\app\\src\\a.ts", win),
            "src\\a.ts"
        );
        assert_eq!(display_path("c:/Users/dev/app/src/a.ts", win), "src/a.ts");
        assert_eq!(display_path("C:\\Users\\dev\\app", win), ".");
        assert_eq!(
            display_path("C:\\Users\\dev\\apps\\x", win),
            "C:\\Users\\dev\\apps\\x"
        );
        assert_eq!(display_path("D:\\x\\y", Some("D:\\x\\")), "y");
        assert_eq!(read("a.rs", Some(6), Some(4)), "Reading a.rs (lines 6–9)");
    }
}
