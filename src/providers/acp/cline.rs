//! What `cline --acp` says of a call, read as Cline's own dialects read it: the ACP provider asks
//! Cline's tool table (`providers::cline::tools`), never the other way round.

use serde_json::Value;

use super::tools::{CallView, Derived};
use crate::model::{ToolKind, ToolState};
use crate::providers::cline::tools::{describe, outcome};

/// `cline --acp` titles a call `<tool>: <what>` (`run_commands: sh greet.sh`) and names it
/// nowhere else, reports a call whose entries failed as `completed`, and an MCP call by its
/// `<server>__<tool>` name: the part the ACP normalizer derived gets the name, kind, title and
/// outcome the native dialects give the same call.
pub(crate) fn refine_acp(d: &mut Derived, view: &CallView, cwd: Option<&str>) {
    let Some(title) = view.title.as_deref() else {
        return;
    };
    let tool = title.split_once(": ").map_or(title, |(t, _)| t).trim();
    let builtin = describe(tool, &Value::Null, None).kind != ToolKind::Unknown;
    if !builtin && !tool.contains("__") {
        return;
    }
    let input = match &view.raw_input {
        Some(v @ Value::Object(_)) => v.clone(),
        _ => Value::Object(Default::default()),
    };
    let described = describe(tool, &input, cwd);
    d.name = described.name;
    d.kind = described.kind;
    d.title = described.title;
    if described.mcp.is_some() {
        d.metadata.mcp = described.mcp;
    }
    let failed = d.state == ToolState::Error;
    if matches!(d.state, ToolState::Complete | ToolState::Error)
        && let Some(out) = view.raw_output.clone()
        && let Err(mut e) = outcome(out, None, failed)
    {
        if let Some(declined) = d.error.as_ref().and_then(|old| old.code.clone())
            && declined == "declined"
        {
            e.code = Some(declined);
        }
        d.state = ToolState::Error;
        d.output = None;
        d.error = Some(e);
    }
}
