//! The tools a CLI declares to the model, as its own requests list them: the scripted model
//! server logs every request, and each API names the offered tools in its own place (Anthropic
//! and Responses `tools[].name`, Chat Completions `tools[].function.name`, Gemini
//! `tools[].functionDeclarations[].name`; droid also names the tools it defers, loaded with
//! `ToolSearch`, under "Deferred tools:" in a system reminder). `scenario run --declared-tools
//! DIR` keeps their union per CLI release in `DIR/<cli>-<version>.json` (committed under
//! `scenarios/tools/`), and a test holds every declared built-in tool of Gemini CLI, Qwen Code,
//! Kilo, droid, Copilot CLI and Cline to a specific title and a kind other than `unknown`; `scenario
//! drift` names a declared tool that has none, so a tool a new release adds is seen the day it
//! ships.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde_json::{Value, json};

use super::package::{Cli, Declared};
use crate::model::ToolKind;
use crate::providers::NormalizeOptions;
use crate::providers::gemini::tools::{builtin, split_mcp};
use crate::stream::Input;

/// The fixture MCP server the scenarios give the agents: its tools are declared too, and are
/// not built-in.
const FIXTURE_MCP_SERVER: &str = "amalgm";

/// The tool names every request of a request log (one JSON line per request, `body` the request)
/// declared, as a set.
pub fn from_log(log: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for line in log.lines() {
        let Ok(entry) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let tools = entry
            .get("body")
            .and_then(|b| b.get("tools"))
            .and_then(Value::as_array);
        for t in tools.into_iter().flatten() {
            declared_tool(t, &mut names);
        }
        if let Some(body) = entry.get("body") {
            deferred(body, &mut names);
        }
    }
    names
}

/// The names one entry of a request's `tools` declares: Gemini's `functionDeclarations`, Chat
/// Completions' `function.name`, Anthropic's and Responses' `name`, the tools of a Responses
/// `namespace` (Codex's `collaboration` and MCP tools), and a Responses hosted tool that has no
/// name by its `type` (`web_search`, `image_generation`: the model calls it by that name). A tool
/// declared with `defer_loading` is left out: Claude Code declares one such placeholder, which
/// the model must never call, and names its deferred tools in the text.
fn declared_tool(t: &Value, names: &mut BTreeSet<String>) {
    if t.get("defer_loading").and_then(Value::as_bool) == Some(true) {
        return;
    }
    if let Some(decls) = t.get("functionDeclarations").and_then(Value::as_array) {
        names.extend(
            decls
                .iter()
                .filter_map(|d| d.get("name").and_then(Value::as_str))
                .map(str::to_owned),
        );
        return;
    }
    let kind = t.get("type").and_then(Value::as_str);
    if kind == Some("namespace") {
        for inner in t
            .get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            declared_tool(inner, names);
        }
        return;
    }
    let name = t
        .get("function")
        .and_then(|f| f.get("name"))
        .or_else(|| t.get("name"))
        .and_then(Value::as_str)
        .or(kind.filter(|k| !matches!(*k, "function" | "custom")));
    if let Some(n) = name {
        names.insert(n.to_owned());
    }
}

/// Where a request's text starts naming deferred tools, one a line: droid's "Deferred tools:"
/// in a system reminder, Claude Code's "The following deferred tools are now available via
/// ToolSearch. … before calling them:" (and its older `<available-deferred-tools>` block).
const DEFERRED_HEADINGS: &[(&str, &str)] = &[
    ("Deferred tools:\n", ""),
    (
        "The following deferred tools are now available via ToolSearch.",
        ":\n",
    ),
    ("<available-deferred-tools>\n", ""),
];

/// The tools named as deferred (one a line after a heading, up to a blank line or a tag) in any
/// text of a request.
fn deferred(v: &Value, names: &mut BTreeSet<String>) {
    match v {
        Value::String(text) => {
            for (heading, list_starts) in DEFERRED_HEADINGS {
                for block in text.split(heading).skip(1) {
                    let list = match block.find(list_starts) {
                        Some(i) if !list_starts.is_empty() => &block[i + list_starts.len()..],
                        Some(_) => block,
                        None => continue,
                    };
                    names.extend(
                        list.lines()
                            .take_while(|l| !l.trim().is_empty() && !l.contains('<'))
                            .map(|l| l.trim().to_owned()),
                    );
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|x| deferred(x, names)),
        Value::Object(o) => o.values().for_each(|x| deferred(x, names)),
        _ => {}
    }
}

/// How `cli`'s normalizer reads a call of `name` with empty input: its kind, its title and the
/// MCP server it names; `None` for a CLI this check does not cover. The CLI says how it is asked
/// ([`Cli::declared`]): Gemini CLI and Qwen Code their shared table directly, Kilo, droid,
/// Copilot CLI and Cline a one-line stream of their dialect that calls the tool.
fn probe(cli: &Cli, name: &str) -> Option<(ToolKind, String, Option<String>)> {
    match cli.declared? {
        Declared::Family(family) => {
            let server = split_mcp(family, name).map(|(server, _)| server.to_owned());
            let (kind, title) = builtin(family, name, &Value::Object(Default::default()), None)
                .unwrap_or((ToolKind::Unknown, String::new()));
            Some((kind, title, server))
        }
        Declared::Call(dialect, call) => {
            // An array is several lines (an ACP agent's `initialize` exchange, then the call).
            let line = match call(name) {
                Value::Array(lines) => lines
                    .iter()
                    .map(Value::to_string)
                    .collect::<Vec<_>>()
                    .join("\n"),
                one => one.to_string(),
            };
            let opts = NormalizeOptions {
                dialect: Some(dialect),
                ..NormalizeOptions::default()
            };
            let doc =
                crate::normalizer::normalize(&Input::from_bytes(line.as_bytes()), opts).ok()?;
            let part = doc.parts.into_iter().next()?;
            let server = part.metadata.and_then(|m| m.mcp).map(|m| m.server);
            Some((part.kind, part.title, server))
        }
    }
}

/// What a normalizer titles a tool no table knows: its name in words, "(no arguments)".
fn generic_title(tool: &str) -> String {
    let words = tool.replace(['_', '-'], " ");
    let mut chars = words.chars();
    let capitalized = match chars.next() {
        Some(c) => c.to_uppercase().collect::<String>() + chars.as_str(),
        None => String::new(),
    };
    format!("{capitalized} (no arguments)")
}

/// Whether `name` is one of the fixture MCP server's tools, bare.
fn fixture_tool(name: &str) -> bool {
    super::mcp_server::tools().as_array().is_some_and(|t| {
        t.iter()
            .any(|t| t.get("name").and_then(Value::as_str) == Some(name))
    })
}

/// The declared built-in tools of `cli` (the fixture MCP server's left out) that have no
/// specific title and kind: a kind `unknown`, an MCP identity (a name the table does not know,
/// read as some server's tool), or a title that is empty, the bare name, "Using X" or the
/// generic title of an unknown tool. `None` for a CLI this check does not cover.
pub fn untitled(cli: &Cli, names: &BTreeSet<String>) -> Option<Vec<String>> {
    cli.declared?;
    Some(
        names
            .iter()
            .filter(|n| match probe(cli, n) {
                Some((_, _, Some(server))) if server == FIXTURE_MCP_SERVER => false,
                // A CLI that declares MCP tools by their bare names (OpenHands) reads the fixture
                // server's as MCP tools of a server it cannot name.
                Some((_, _, Some(_))) if fixture_tool(n) => false,
                Some((kind, title, server)) => {
                    kind == ToolKind::Unknown
                        || server.is_some()
                        || title.is_empty()
                        || title == **n
                        || title.starts_with("Using ")
                        || title == generic_title(n)
                }
                None => true,
            })
            .cloned()
            .collect(),
    )
}

/// The scenarios that switch on every setting and feature that adds built-in tools end their
/// names so (`claude-all-tools`): what they declare is kept apart, as the release's
/// all-features list.
pub const ALL_FEATURES_SUFFIX: &str = "-all-tools";

/// Which of a release's two lists a scenario's declarations join.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Features {
    /// What the scenarios declare, each in the configuration its script needs.
    Default,
    /// What a release declares with every setting and feature that adds tools switched on.
    All,
}

impl Features {
    /// The list scenario `name`'s declarations join.
    pub fn of_scenario(name: &str) -> Features {
        if name.ends_with(ALL_FEATURES_SUFFIX) {
            Features::All
        } else {
            Features::Default
        }
    }
}

/// `DIR/<cli>-<version>.json`, or `DIR/<cli>-<version>.all.json` for the all-features list.
pub fn file(dir: &Path, cli: &Cli, version: &str, features: Features) -> PathBuf {
    let all = match features {
        Features::Default => "",
        Features::All => ".all",
    };
    dir.join(format!("{}-{version}{all}.json", cli.bin))
}

/// Add `names` to the list kept for `cli@version` under `dir` (created when missing).
pub fn merge(
    dir: &Path,
    cli: &Cli,
    version: &str,
    features: Features,
    names: &BTreeSet<String>,
) -> anyhow::Result<()> {
    let path = file(dir, cli, version, features);
    let mut all: BTreeSet<String> = match fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str::<Value>(&text)
            .with_context(|| format!("{} is not JSON", path.display()))?
            .get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeSet::new(),
        Err(e) => return Err(e).with_context(|| format!("failed to read {}", path.display())),
    };
    all.extend(names.iter().cloned());
    fs::create_dir_all(dir).with_context(|| format!("failed to create {}", dir.display()))?;
    let features = match features {
        Features::Default => "default",
        Features::All => "all",
    };
    let doc = json!({"cli": cli.package, "version": version, "features": features, "tools": all});
    fs::write(&path, serde_json::to_string_pretty(&doc)? + "\n")
        .with_context(|| format!("failed to write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::agents::cli_named;

    #[test]
    fn every_api_names_its_tools_in_its_own_place() {
        let log = [
            r#"{"body":{"tools":[{"functionDeclarations":[{"name":"read_file"},{"name":"glob"}]},{"googleSearch":{}}]}}"#,
            r#"{"body":{"tools":[{"type":"function","function":{"name":"edit"}}]}}"#,
            r#"{"body":{"tools":[{"name":"Bash","input_schema":{}}]}}"#,
            "not json",
        ]
        .join("\n");
        let names: Vec<String> = from_log(&log).into_iter().collect();
        assert_eq!(names, ["Bash", "edit", "glob", "read_file"]);
        // droid's deferred tools, named in a system reminder.
        let log = r#"{"body":{"messages":[{"role":"user","content":"<system-reminder>\nDeferred tools:\nWebSearch\nFetchUrl\n</system-reminder>"}],"tools":[{"type":"function","function":{"name":"Read"}}]}}"#;
        let names: Vec<String> = from_log(log).into_iter().collect();
        assert_eq!(names, ["FetchUrl", "Read", "WebSearch"]);
        // Claude Code's deferred tools, named after its ToolSearch note; the placeholder it
        // declares with `defer_loading` is no tool.
        let log = r#"{"body":{"system":[{"type":"text","text":"The following deferred tools are now available via ToolSearch. Use ToolSearch with query \"select:<name>\" before calling them:\nCronCreate\nMonitor\n\nAvailable agent types"}],"tools":[{"name":"ToolSearch","input_schema":{}},{"name":"DeferredToolPlaceholder","input_schema":{},"defer_loading":true}]}}"#;
        let names: Vec<String> = from_log(log).into_iter().collect();
        assert_eq!(names, ["CronCreate", "Monitor", "ToolSearch"]);
        // Codex: a Responses hosted tool by its type, a namespace's tools by their names.
        let log = r#"{"body":{"tools":[{"type":"web_search"},{"type":"function","name":"exec_command"},{"type":"namespace","name":"collaboration","tools":[{"type":"function","name":"spawn_agent"}]},{"type":"custom","name":"apply_patch"}]}}"#;
        let names: Vec<String> = from_log(log).into_iter().collect();
        assert_eq!(
            names,
            ["apply_patch", "exec_command", "spawn_agent", "web_search"]
        );
    }

    #[test]
    fn a_tool_the_table_does_not_know_is_untitled() {
        let set = |names: &[&str]| -> BTreeSet<String> {
            names.iter().map(|n| (*n).to_owned()).collect()
        };
        for (cli, known, fixture_mcp) in [
            (
                cli_named("gemini").unwrap(),
                "read_file",
                "mcp_amalgm_browser_snapshot",
            ),
            (
                cli_named("qwen").unwrap(),
                "read_file",
                "mcp__amalgm__browser_snapshot",
            ),
            (
                cli_named("kilo").unwrap(),
                "background_process",
                "amalgm_browser_snapshot",
            ),
            (
                cli_named("droid").unwrap(),
                "Execute",
                "amalgm___browser_snapshot",
            ),
            (
                cli_named("copilot").unwrap(),
                "bash",
                "amalgm-browser_snapshot",
            ),
            (
                cli_named("cline").unwrap(),
                "run_commands",
                "amalgm__browser_snapshot",
            ),
            (
                cli_named("claude").unwrap(),
                "Bash",
                "mcp__amalgm__browser_snapshot",
            ),
            (
                cli_named("codex").unwrap(),
                "exec_command",
                "mcp__amalgm__browser_snapshot",
            ),
            (
                cli_named("opencode").unwrap(),
                "bash",
                "amalgm_browser_snapshot",
            ),
        ] {
            // Kilo (OpenCode) reads an unknown `<a>_<b>` as some MCP server's tool, the others
            // as an unknown tool: both are untitled.
            assert_eq!(
                untitled(cli, &set(&[known, fixture_mcp, "brand_new_tool"])),
                Some(vec!["brand_new_tool".to_owned()]),
                "{}",
                cli.bin
            );
        }
        // An ACP adapter's tools are its agent's: it is not checked on its own.
        assert_eq!(
            untitled(cli_named("claude-agent-acp").unwrap(), &set(&["Bash"])),
            None
        );
    }

    /// The tools a release lists in its own stream-json `init` line (Qwen Code and droid name
    /// there the deferred tools too, which they declare to the model only once searched for),
    /// from the live fixtures recorded with it.
    fn init_tools(cli: &Cli, version: &str) -> BTreeSet<String> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("corpus")
            .join(cli.bin);
        let mut names = BTreeSet::new();
        for entry in fs::read_dir(dir).into_iter().flatten() {
            let path = entry.unwrap().path();
            let Ok(fx) = crate::corpus::read_fixture(&path) else {
                continue;
            };
            if fx.header.cli_version.as_deref() != Some(version) {
                continue;
            }
            for line in &fx.lines {
                let Ok(v) = serde_json::from_slice::<Value>(&line.bytes) else {
                    continue;
                };
                if v.get("subtype").and_then(Value::as_str) == Some("init") {
                    names.extend(
                        v.get("tools")
                            .and_then(Value::as_array)
                            .into_iter()
                            .flatten()
                            .filter_map(Value::as_str)
                            .map(str::to_owned),
                    );
                }
            }
        }
        names
    }

    /// Every built-in tool the pinned release of each supported agent declared to the model in its
    /// recorded sessions (`scenarios/tools/<cli>-<version>.json`, written by `scenario run
    /// --declared-tools`), with every setting and feature that adds tools switched on too
    /// (`<cli>-<version>.all.json`, the `*-all-tools` scenarios), and every tool a release's `init`
    /// line lists (Qwen Code's and droid's), has a specific title and a kind other than `unknown`:
    /// a tool a later release adds fails here once its list is recorded.
    #[test]
    fn every_declared_built_in_tool_has_a_title_and_a_kind() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/tools");
        let mut checked = BTreeSet::new();
        let mut failures = Vec::new();
        for entry in fs::read_dir(&dir).expect("scenarios/tools exists") {
            let path = entry.unwrap().path();
            let doc: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
            let cli = cli_named(doc["cli"].as_str().unwrap()).expect("a known CLI");
            let version = doc["version"].as_str().unwrap();
            let features = match doc["features"].as_str() {
                Some("default") => Features::Default,
                Some("all") => Features::All,
                other => panic!("{}: features {other:?}", path.display()),
            };
            assert_eq!(path, file(&dir, cli, version, features));
            let mut names: BTreeSet<String> = doc["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_owned())
                .collect();
            names.extend(init_tools(cli, version));
            assert!(names.len() >= 10, "{}: too few tools", path.display());
            let missing = untitled(cli, &names).expect("a CLI whose table is checked");
            if !missing.is_empty() {
                failures.push(format!("{}: {missing:?}", path.display()));
            }
            checked.insert((cli.bin, features == Features::All));
        }
        assert!(
            failures.is_empty(),
            "declared tools without a specific title and kind:\n{}",
            failures.join("\n")
        );
        let every = [
            "claude",
            "cline",
            "codex",
            "copilot",
            "droid",
            "gemini",
            "kilo",
            "kimi",
            "opencode",
            "openhands",
            "qwen",
            "vibe-acp",
        ];
        for all in [false, true] {
            let covered: Vec<&str> = checked
                .iter()
                .filter(|(_, a)| *a == all)
                .map(|(bin, _)| *bin)
                .collect();
            assert_eq!(covered, every, "all features: {all}");
        }
    }
}
