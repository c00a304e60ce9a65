//! The tools a CLI declares to the model, as its own requests list them: the scripted model
//! server logs every request, and each API names the offered tools in its own place (Anthropic
//! and Responses `tools[].name`, Chat Completions `tools[].function.name`, Gemini
//! `tools[].functionDeclarations[].name`). `scenario run --declared-tools DIR` keeps their union
//! per CLI release in `DIR/<cli>-<version>.json` (committed under `scenarios/tools/`), and a test
//! holds every declared built-in tool of Gemini CLI and Qwen Code to a specific title and a kind
//! other than `unknown`; `scenario drift` names a declared tool that has none, so a tool a new
//! release adds is seen the day it ships.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde_json::{Value, json};

use super::spec::Cli;
use crate::model::ToolKind;
use crate::providers::gemini::tools::{Family, builtin, split_mcp};

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
            if let Some(decls) = t.get("functionDeclarations").and_then(Value::as_array) {
                names.extend(
                    decls
                        .iter()
                        .filter_map(|d| d.get("name").and_then(Value::as_str))
                        .map(str::to_owned),
                );
            } else if let Some(n) = t
                .get("function")
                .and_then(|f| f.get("name"))
                .or_else(|| t.get("name"))
                .and_then(Value::as_str)
            {
                names.insert(n.to_owned());
            }
        }
    }
    names
}

/// The family of a CLI whose tool table this module knows.
fn family(cli: Cli) -> Option<Family> {
    match cli {
        Cli::Gemini => Some(Family::Gemini),
        Cli::Qwen => Some(Family::Qwen),
        _ => None,
    }
}

/// The declared built-in tools of `cli` (MCP tools left out) that have no specific title and
/// kind in its table; `None` for a CLI this check does not cover.
pub fn untitled(cli: Cli, names: &BTreeSet<String>) -> Option<Vec<String>> {
    let family = family(cli)?;
    Some(
        names
            .iter()
            .filter(|n| split_mcp(family, n).is_none())
            .filter(|n| {
                builtin(family, n, &Value::Object(Default::default()), None)
                    .is_none_or(|(kind, _)| kind == ToolKind::Unknown)
            })
            .cloned()
            .collect(),
    )
}

/// `DIR/<cli>-<version>.json`.
pub fn file(dir: &Path, cli: Cli, version: &str) -> PathBuf {
    dir.join(format!("{}-{version}.json", cli.bin()))
}

/// Add `names` to the list kept for `cli@version` under `dir` (created when missing).
pub fn merge(dir: &Path, cli: Cli, version: &str, names: &BTreeSet<String>) -> anyhow::Result<()> {
    let path = file(dir, cli, version);
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
    let doc = json!({"cli": cli.package(), "version": version, "tools": all});
    fs::write(&path, serde_json::to_string_pretty(&doc)? + "\n")
        .with_context(|| format!("failed to write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }

    #[test]
    fn a_tool_the_table_does_not_know_is_untitled() {
        let names: BTreeSet<String> =
            ["read_file", "mcp_amalgm_browser_snapshot", "brand_new_tool"]
                .into_iter()
                .map(str::to_owned)
                .collect();
        assert_eq!(
            untitled(Cli::Gemini, &names),
            Some(vec!["brand_new_tool".to_owned()])
        );
        assert_eq!(untitled(Cli::Claude, &names), None);
    }

    /// The tools a release lists in its own stream-json `init` line (Qwen Code names there the
    /// deferred tools too, which it declares to the model only once `tool_search` found them),
    /// from the live fixtures recorded with it.
    fn init_tools(cli: Cli, version: &str) -> BTreeSet<String> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("corpus")
            .join(cli.bin());
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

    /// Every built-in tool the pinned releases of Gemini CLI and Qwen Code declared to the model
    /// in their recorded sessions (`scenarios/tools/*.json`, written by `scenario run
    /// --declared-tools`), and every tool a release's `init` line lists, has a specific title and a kind other than `unknown`: a tool a later
    /// release adds fails here once its list is recorded.
    #[test]
    fn every_declared_built_in_tool_has_a_title_and_a_kind() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/tools");
        let mut checked = BTreeSet::new();
        for entry in fs::read_dir(&dir).expect("scenarios/tools exists") {
            let path = entry.unwrap().path();
            let doc: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
            let cli = Cli::parse(doc["cli"].as_str().unwrap()).expect("a known CLI");
            let version = doc["version"].as_str().unwrap();
            let mut names: BTreeSet<String> = doc["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_owned())
                .collect();
            names.extend(init_tools(cli, version));
            assert!(!names.is_empty(), "{}", path.display());
            let missing = untitled(cli, &names).expect("a CLI whose table is checked");
            assert!(
                missing.is_empty(),
                "{}: declared tools without a title and kind: {missing:?}",
                path.display()
            );
            // The titles are action text, never the bare name or "Using X".
            let family = family(cli).unwrap();
            for n in names.iter().filter(|n| split_mcp(family, n).is_none()) {
                let (_, title) =
                    builtin(family, n, &Value::Object(Default::default()), None).unwrap();
                assert!(
                    !title.starts_with("Using ") && title != *n && !title.is_empty(),
                    "{n}: {title:?}"
                );
            }
            checked.insert(cli.bin());
        }
        assert_eq!(checked.into_iter().collect::<Vec<_>>(), ["gemini", "qwen"]);
    }
}
