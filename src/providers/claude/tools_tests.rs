//! Tests of Claude Code's tool table: names, kinds, titles and error texts.

use super::*;
use serde_json::json;

fn d(name: &str, input: Value) -> Described {
    describe(name, &input, Some("/home/dev/app"))
}

#[test]
fn truncation_notes_are_found_wherever_the_word_first_comes() {
    let grep =
        "a.rs\nb.rs\n(Results are truncated. Consider using a more specific path or pattern.)";
    assert!(is_truncated(grep));
    let read = "1\tfn main() {}\n... [120 lines truncated] ...";
    assert!(is_truncated(read));
    // The word before the note, a character past ASCII just before the note.
    assert!(is_truncated(&format!("truncated é{read}")));
    assert!(is_truncated(&format!("ééééé{grep}")));
    assert!(!is_truncated("nothing was truncated here"));
    assert!(!is_truncated("[120 lines truncated] ... with no opening"));
    assert!(!is_truncated(""));
}

#[test]
fn system_reminder_is_cut_only_at_the_end() {
    let text = "line\n<system-reminder>x</system-reminder>\n";
    assert_eq!(strip_system_reminder(text), "line");
    let inner = "<system-reminder>x</system-reminder> then more";
    assert_eq!(strip_system_reminder(inner), inner);
    assert_eq!(
        strip_system_reminder("no tag</system-reminder>"),
        "no tag</system-reminder>"
    );
}

#[test]
fn contract_rows() {
    let a = d(
        "mcp__amalgm__artifacts_register",
        json!({"name": "Spotify Clone"}),
    );
    assert_eq!(a.title, "Registering artifact Spotify Clone");
    assert_eq!(a.name, "artifacts_register");
    assert_eq!(a.kind, ToolKind::Mcp);
    assert_eq!(
        a.mcp,
        Some(McpRef {
            server: "amalgm".into(),
            tool: "artifacts_register".into()
        })
    );
    let t = d(
        "Agent",
        json!({"description": "Research Northern India politics", "prompt": "x"}),
    );
    assert_eq!(
        (t.kind, t.title.as_str()),
        (ToolKind::Subagent, "Research Northern India politics")
    );
    let b = d(
        "mcp__amalgm__browser_navigate",
        json!({"url": "https://x.test"}),
    );
    assert_eq!(
        (b.kind, b.title.as_str()),
        (ToolKind::Browser, "Opening browser page")
    );
    assert_eq!(
        d("mcp__amalgm__browser_snapshot", json!({})).title,
        "Reading browser page"
    );
    assert_eq!(
        d("mcp__amalgm__browser_tabs_new", json!({})).title,
        "Opening browser tab"
    );
}

#[test]
fn mcp_split_on_first_separator() {
    assert_eq!(
        split_mcp("mcp__context7__resolve-library-id"),
        Some(("context7", "resolve-library-id"))
    );
    assert_eq!(split_mcp("mcp__srv__a__b"), Some(("srv", "a__b")));
    assert_eq!(
        split_mcp("mcp__plugin_documents_docs__doc_export"),
        Some(("plugin_documents_docs", "doc_export"))
    );
    assert_eq!(split_mcp("mcp__broken"), None);
    let j = d("mcp__jira__getVisibleJiraProjects", json!({"cloudId": "x"}));
    assert_eq!(
        (j.kind, j.title.as_str()),
        (ToolKind::Mcp, "Jira: get visible jira projects")
    );
}

#[test]
fn every_builtin_has_a_specific_title_and_kind() {
    let cases: Vec<(&str, Value, ToolKind, &str)> = vec![
        (
            "Bash",
            json!({"command": "python3 -m unittest -q", "description": "Run tests"}),
            ToolKind::Bash,
            "Running python3 -m unittest -q",
        ),
        (
            "PowerShell",
            json!({"command": "Get-ChildItem src"}),
            ToolKind::Bash,
            "Running Get-ChildItem src",
        ),
        (
            "SendUserMessage",
            json!({"message": "\nThe build is green.\nDetails follow."}),
            ToolKind::Todo,
            "Telling the user: The build is green.",
        ),
        (
            "ReadMcpResourceTool",
            json!({"server": "docs", "uri": "docs://guide"}),
            ToolKind::Mcp,
            "Reading MCP resource docs://guide",
        ),
        (
            "BashOutput",
            json!({"bash_id": "b1"}),
            ToolKind::Bash,
            "Reading output of background task b1",
        ),
        (
            "TaskOutput",
            json!({"task_id": "t9", "block": true}),
            ToolKind::Bash,
            "Reading output of background task t9",
        ),
        (
            "KillShell",
            json!({"shell_id": "b1"}),
            ToolKind::Bash,
            "Stopping background task b1",
        ),
        (
            "KillBash",
            json!({"shell_id": "b2"}),
            ToolKind::Bash,
            "Stopping background task b2",
        ),
        (
            "TaskStop",
            json!({"task_id": "t9"}),
            ToolKind::Bash,
            "Stopping background task t9",
        ),
        (
            "Read",
            json!({"file_path": "/home/dev/app/money.py", "offset": 6, "limit": 4}),
            ToolKind::FileRead,
            "Reading money.py (lines 6–9)",
        ),
        (
            "Read",
            json!({"file_path": "/etc/hosts"}),
            ToolKind::FileRead,
            "Reading /etc/hosts",
        ),
        (
            "NotebookRead",
            json!({"notebook_path": "/home/dev/app/a.ipynb"}),
            ToolKind::FileRead,
            "Reading a.ipynb",
        ),
        (
            "Write",
            json!({"file_path": "/home/dev/app/money.py", "content": "x"}),
            ToolKind::FileWrite,
            "Writing money.py",
        ),
        (
            "Edit",
            json!({"file_path": "/home/dev/app/money.py", "old_string": "a", "new_string": "b"}),
            ToolKind::FileEdit,
            "Editing money.py",
        ),
        (
            "MultiEdit",
            json!({"file_path": "/home/dev/app/m.py", "edits": []}),
            ToolKind::FileEdit,
            "Editing m.py",
        ),
        (
            "NotebookEdit",
            json!({"notebook_path": "/home/dev/app/a.ipynb", "new_source": "x"}),
            ToolKind::FileEdit,
            "Editing a.ipynb",
        ),
        (
            "Glob",
            json!({"pattern": "**/*.py"}),
            ToolKind::FileRead,
            "Finding files matching **/*.py",
        ),
        (
            "Glob",
            json!({"pattern": "mix.exs", "path": "/home/dev/app/lib"}),
            ToolKind::FileRead,
            "Finding files matching mix.exs in lib",
        ),
        (
            "Grep",
            json!({"pattern": "def ", "path": "/home/dev/app/src", "output_mode": "content"}),
            ToolKind::FileRead,
            "Searching for \"def\" in src",
        ),
        (
            "Grep",
            json!({"pattern": "TODO", "glob": "*.rs"}),
            ToolKind::FileRead,
            "Searching for \"TODO\" in *.rs",
        ),
        (
            "LS",
            json!({"path": "/home/dev/app/src"}),
            ToolKind::FileRead,
            "Listing src",
        ),
        (
            "LS",
            json!({"path": "/home/dev/app"}),
            ToolKind::FileRead,
            "Listing /home/dev/app",
        ),
        (
            "WebFetch",
            json!({"url": "https://www.example.com/a", "prompt": "x"}),
            ToolKind::Browser,
            "Fetching example.com/a",
        ),
        (
            "WebSearch",
            json!({"query": "Reuters top news"}),
            ToolKind::WebSearch,
            "Searching Reuters top news",
        ),
        (
            "Task",
            json!({"description": "Search recent AI news", "prompt": "p"}),
            ToolKind::Subagent,
            "Search recent AI news",
        ),
        (
            "TodoWrite",
            json!({"todos": [{"content": "a", "status": "completed"}, {"content": "b", "status": "pending"}]}),
            ToolKind::Todo,
            "Updating the todo list (2 items, 1 done)",
        ),
        (
            "TodoRead",
            json!({}),
            ToolKind::Todo,
            "Reading the todo list",
        ),
        (
            "TaskCreate",
            json!({"subject": "Fix login", "description": "d"}),
            ToolKind::Todo,
            "Creating task Fix login",
        ),
        (
            "TaskGet",
            json!({"taskId": "3"}),
            ToolKind::Todo,
            "Reading task 3",
        ),
        (
            "TaskUpdate",
            json!({"taskId": "3", "status": "completed"}),
            ToolKind::Todo,
            "Updating task 3 (completed)",
        ),
        ("TaskList", json!({}), ToolKind::Todo, "Listing tasks"),
        (
            "ExitPlanMode",
            json!({"plan": "# Add retries\n1. x"}),
            ToolKind::Todo,
            "Presenting plan: Add retries",
        ),
        (
            "ExitPlanMode",
            json!({}),
            ToolKind::Todo,
            "Presenting a plan",
        ),
        (
            "EnterPlanMode",
            json!({}),
            ToolKind::Todo,
            "Entering plan mode",
        ),
        (
            "AskUserQuestion",
            json!({"questions": [{"question": "Which rig?", "header": "Rig", "options": []}]}),
            ToolKind::Question,
            "Asking: Which rig?",
        ),
        (
            "Skill",
            json!({"skill": "pdf"}),
            ToolKind::FileRead,
            "Loading skill pdf",
        ),
        (
            "SlashCommand",
            json!({"command": "/review"}),
            ToolKind::Unknown,
            "Running slash command /review",
        ),
        (
            "ListMcpResources",
            json!({"server": "docs"}),
            ToolKind::Mcp,
            "Listing MCP resources of docs",
        ),
        (
            "ReadMcpResource",
            json!({"server": "docs", "uri": "docs://a"}),
            ToolKind::Mcp,
            "Reading MCP resource docs://a",
        ),
        (
            "FrobnicateRepo",
            json!({}),
            ToolKind::Unknown,
            "Frobnicate repo (no arguments)",
        ),
        (
            "FrobnicateRepo",
            json!({"description": "tidy the repo", "path": "/w/x"}),
            ToolKind::Unknown,
            "Tidy the repo",
        ),
        (
            "FrobnicateRepo",
            json!({"path": "/home/dev/app/src"}),
            ToolKind::Unknown,
            "Frobnicate repo: src",
        ),
    ];
    for (name, input, kind, title) in cases {
        let got = d(name, input);
        assert_eq!((got.kind, got.title.as_str()), (kind, title), "{name}");
        assert_eq!(got.name, name);
        assert!(got.mcp.is_none());
    }
}

#[test]
fn empty_input_still_gives_action_text() {
    for name in [
        "Bash",
        "Read",
        "Write",
        "Edit",
        "Glob",
        "Grep",
        "WebFetch",
        "WebSearch",
        "Agent",
        "TodoWrite",
        "TaskGet",
        "Skill",
    ] {
        let t = d(name, json!({})).title;
        assert_ne!(t, name);
        assert!(!t.is_empty() && !t.contains('{'), "{name}: {t}");
    }
}

#[test]
fn bash_exit_code_becomes_code_and_details() {
    let e = classify_error(ToolKind::Bash, "Exit code 1\nF\nFAIL: test_x", None);
    assert_eq!(e.message, "Exit code 1");
    assert_eq!(e.code.as_deref(), Some("1"));
    assert_eq!(e.details, Some(Value::String("F\nFAIL: test_x".into())));
}

#[test]
fn known_error_texts_get_codes() {
    let code = |t: &str, s: Option<&str>| classify_error(ToolKind::FileWrite, t, s).code;
    assert_eq!(
        code("[Request interrupted by user for tool use]", None).as_deref(),
        Some("interrupted")
    );
    assert_eq!(
        code("Permission prompt was aborted.", None).as_deref(),
        Some("aborted")
    );
    assert_eq!(
        code(
            "The user doesn't want to proceed with this tool use.",
            Some("User rejected tool use")
        )
        .as_deref(),
        Some("declined")
    );
    // A host's interrupt (2.1.332 driven as the Agent SDK): the rejection's text corrects
    // itself, the call was stopped while it ran.
    assert_eq!(
        code(
            "The user doesn't want to proceed with this tool use. The tool use was rejected. Correction to the text above: this call was stopped while running, not refused before it ran.",
            Some("User rejected tool use")
        )
        .as_deref(),
        Some("interrupted")
    );
    assert_eq!(
        code(
            "Claude requested permissions to use Bash, but you haven't granted it yet.",
            None
        )
        .as_deref(),
        Some("permission_denied")
    );
    let e = classify_error(
        ToolKind::FileRead,
        "<tool_use_error>File does not exist.</tool_use_error>",
        None,
    );
    assert_eq!(e.message, "File does not exist.");
    assert!(e.code.is_none() && e.details.is_none());
}

#[test]
fn heading_only_first_lines_are_skipped() {
    let e = classify_error(
        ToolKind::Browser,
        "### Error\nError: page.goto: net::ERR_NAME_NOT_RESOLVED\nCall log:",
        None,
    );
    assert_eq!(e.message, "Error: page.goto: net::ERR_NAME_NOT_RESOLVED");
    assert!(e.details.is_some());
}

#[test]
fn json_error_objects_are_read() {
    let e = classify_error(
        ToolKind::Mcp,
        r#"{"error":true,"message":"Failed to create issue"}"#,
        None,
    );
    assert_eq!(e.message, "Failed to create issue");
    assert!(e.details.is_some());
}

#[test]
fn agent_trailer_is_split_off() {
    let (body, t) = split_agent_trailer(
        "Answer.\nagentId: abc123 (use SendMessage)\n<usage>tool_uses: 2\nduration_ms: 151</usage>",
    )
    .unwrap();
    assert_eq!(body, "Answer.");
    assert_eq!(t.agent_id.as_deref(), Some("abc123"));
    assert_eq!(t.duration_ms, Some(151));
    assert!(split_agent_trailer("no trailer").is_none());
}

#[test]
fn reminder_is_stripped() {
    assert_eq!(
        strip_system_reminder("1\tx\n\n<system-reminder>\nbe careful\n</system-reminder>\n"),
        "1\tx"
    );
    assert_eq!(strip_system_reminder("plain"), "plain");
}
