//! The model-facing tool names of a rollout's `function_call` items (`exec_command`,
//! `apply_patch`, `update_plan`, `mcp__server__tool`, …) mapped onto the tool builders every
//! dialect shares.

use serde_json::{Map, Value};

use super::agents::collab_title;
use super::mcp::split_mcp_name;
use super::{
    Command, changes_from_patch, image_view_update, mcp_update, named, patch_update, plan_update,
    question_update, simple_tool, web_search_update,
};
use crate::model::ToolKind;
use crate::providers::{PartUpdate, titles};

/// A `function_call` by tool name. The explicit name is kept (`exec_command`, `update_plan`), MCP
/// tools lose their `mcp__server__` prefix.
pub(crate) fn function_call(
    id: &str,
    name: &str,
    namespace: Option<&str>,
    args: Value,
    session_cwd: Option<&str>,
) -> PartUpdate {
    let s = |k: &str| args.get(k).and_then(Value::as_str);
    // Codex's own tools titled from their arguments, top-level or in the `collaboration`
    // namespace (an MCP server's tool of the same name is its server's).
    if matches!(namespace, None | Some("" | "collaboration"))
        && let Some((kind, title)) = simple_tool(name, &args)
    {
        let mut u = named(id, name, kind);
        u.title = Some(title);
        u.input = Some(args);
        return u;
    }
    match name {
        "shell" | "container.exec" | "shell_command" | "exec_command" | "local_shell" => {
            let command = args
                .get("command")
                .or_else(|| args.get("cmd"))
                .cloned()
                .unwrap_or(Value::Null);
            let cwd = s("workdir")
                .or_else(|| s("working_directory"))
                .or_else(|| s("cwd"))
                .map(str::to_owned);
            let extra: Map<String, Value> = args
                .as_object()
                .map(|m| {
                    m.iter()
                        .filter(|(k, _)| {
                            !matches!(
                                k.as_str(),
                                "command" | "cmd" | "workdir" | "working_directory" | "cwd"
                            )
                        })
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect()
                })
                .unwrap_or_default();
            let cmd = Command {
                command,
                cwd,
                actions: Vec::new(),
                extra,
            };
            let mut u = cmd.update(id, session_cwd);
            u.name = Some(name.to_owned());
            u
        }
        "apply_patch" => {
            let patch = s("input")
                .or_else(|| s("patch"))
                .or_else(|| args.as_str())
                .unwrap_or("");
            let mut u = patch_update(id, &changes_from_patch(patch), session_cwd);
            u.name = Some(name.to_owned());
            u.input = Some(args.clone());
            u
        }
        "update_plan" => {
            let steps = args
                .get("plan")
                .cloned()
                .unwrap_or(Value::Array(Vec::new()));
            plan_update(id, name, s("explanation"), &steps)
        }
        "request_user_input" => question_update(
            id,
            name,
            args.get("questions")
                .cloned()
                .unwrap_or(Value::Array(Vec::new())),
        ),
        "view_image" => {
            let mut u = image_view_update(id, name, s("path").unwrap_or(""), session_cwd);
            u.input = Some(args.clone());
            u
        }
        "web_search" => {
            let mut u = web_search_update(id, s("query"), None);
            u.name = Some(name.to_owned());
            u
        }
        "spawn_agent" | "send_input" | "send_message" | "followup_task" | "wait" | "wait_agent"
        | "resume_agent" | "close_agent" | "interrupt_agent" | "list_agents" => {
            let mut u = named(id, name, ToolKind::Subagent);
            let prompt = s("message").or_else(|| s("prompt")).or_else(|| s("task"));
            u.title = Some(collab_title(name, prompt));
            u.input = Some(args.clone());
            u
        }
        _ => {
            let mcp = match (split_mcp_name(name), namespace) {
                (Some((server, tool)), _) => Some((server.to_owned(), tool.to_owned())),
                (None, Some(ns)) if !ns.is_empty() => {
                    let server = ns.strip_prefix("mcp__").unwrap_or(ns).trim_end_matches('_');
                    Some((server.to_owned(), name.to_owned()))
                }
                _ => None,
            };
            match mcp {
                Some((server, tool)) => mcp_update(id, &server, &tool, args),
                None => {
                    let mut u = named(id, name, ToolKind::Unknown);
                    u.title = Some(titles::generic(name, &args, session_cwd));
                    u.input = Some(args);
                    u
                }
            }
        }
    }
}
