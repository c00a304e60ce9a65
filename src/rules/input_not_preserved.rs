//! TN005: the raw call's meaningful arguments survive into `part.input`.

use serde_json::Value;

use super::support::{contains_entry, contains_value, string_leaves, value_text};
use super::{Finding, RuleContext, declare_rule};
use crate::text::one_line;

declare_rule! {
    /// ## What it checks
    /// The arguments that say what a call is about — `command`, `cmd`, `cwd`, `workdir`, `path`,
    /// `file_path`, `filePath`, `notebook_path`, `query`, `url`, `prompt`, `pattern` — and every
    /// MCP / dynamic tool argument, as the raw stream gives them (latest non-empty value), are
    /// present in the part's `input`. A key may be renamed; the value must be there. A shell
    /// command may be unwrapped (`/bin/bash -lc 'ls'` kept as `ls`); an argv array may be joined.
    ///
    /// ## Why
    /// Contract rule 5: `input` preserves meaningful args. The UI's detail view, re-run buttons
    /// and audits read them from `input`; a normalizer that keeps only the title text loses what
    /// actually ran.
    ///
    /// ## Example
    /// Raw: Codex `{"type":"commandExecution","command":"cargo test","cwd":"/w"}`.
    /// Violation: `input: {"command":"cargo test"}` (cwd lost).
    /// Conforming: `input: {"command":"cargo test","cwd":"/w"}`.
    pub(crate) struct InputNotPreserved {
        code: "TN005",
        summary: "input preserves the raw call's meaningful args (command, cwd, path, query, url, prompt, MCP args)",
        check: check,
    }
}

/// A raw string is present when some string in the input contains it, or is a substantial part
/// of it (an unwrapped shell command).
fn string_present(raw: &str, leaves: &[&str]) -> bool {
    let raw_len = raw.chars().count();
    leaves.iter().any(|s| {
        s.contains(raw) || (s.len() >= 2 && raw.contains(*s) && s.chars().count() * 3 >= raw_len)
    })
}

fn present(key: &str, raw: &Value, input: &Value, leaves: &[&str]) -> bool {
    match raw {
        Value::String(s) => string_present(s, leaves),
        Value::Array(items) if items.iter().all(Value::is_string) => {
            let strs: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
            let all = strs.iter().all(|s| string_present(s, leaves));
            // An argv (`["bash","-lc","ls"]`) may be kept as its script alone or joined.
            let argv = matches!(key, "command" | "cmd")
                && (strs.last().is_some_and(|s| string_present(s, leaves))
                    || string_present(&strs.join(" "), leaves));
            all || argv
        }
        other => contains_value(input, other),
    }
}

fn check(cx: &RuleContext<'_>) -> Vec<Finding> {
    let raw = cx.raw();
    let mut out = Vec::new();
    for part in &cx.doc.parts {
        let Some(call) = raw.get(&part.id) else {
            continue;
        };
        let mut leaves = Vec::new();
        string_leaves(&part.input, &mut leaves);
        let line = cx.first_event_line(&part.id).or(Some(call.line));
        for (key, value) in &call.args {
            if !present(key, value, &part.input, &leaves) {
                out.push(Finding::new(
                    line,
                    Some(&part.id),
                    format!("input lost `{key}` = {}", one_line(&value_text(value), 60)),
                ));
            }
        }
        for (key, value) in &call.tool_args {
            if call.args.contains_key(key) {
                continue;
            }
            if !contains_entry(&part.input, key, value) {
                out.push(Finding::new(
                    line,
                    Some(&part.id),
                    format!(
                        "input lost tool argument `{key}` = {}",
                        one_line(&value_text(value), 60)
                    ),
                ));
            }
        }
    }
    out
}
