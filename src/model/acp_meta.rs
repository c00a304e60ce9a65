//! What ACP frames carry for toolnorm beyond ACP's own fields: the `_meta.toolnorm` object (the
//! contract's `name`, `kind`, `error`, `metadata`, `timing`, and the fields an update unsets) and
//! the mapping between ACP's `kind` / `status` names and the contract's. Plain JSON, no ACP crate:
//! the `acp` dialect reads recorded traffic with it whether or not the `acp` feature is on.

use serde_json::{Map, Value};

use super::{NormalizedToolPart, ToolError, ToolKind, ToolState};

/// The key under `_meta` that carries what ACP has no field for.
pub const META_KEY: &str = "toolnorm";

/// The contract state of an ACP status name (`pending`, `in_progress`, `completed`, `failed`);
/// `None` for a name ACP does not define.
pub fn state_of_status(status: &str) -> Option<ToolState> {
    match status {
        "pending" => Some(ToolState::Started),
        "in_progress" => Some(ToolState::Running),
        "completed" => Some(ToolState::Complete),
        "failed" => Some(ToolState::Error),
        _ => None,
    }
}

/// The contract kind an ACP kind name suggests when nothing better is known: `read` and `search`
/// (finding files, searching their content) a file read, `edit` / `delete` / `move` a file edit,
/// `execute` a shell command, `fetch` a web search or fetch, `think` a subagent or plan, the rest
/// (`switch_mode`, `other`) unknown.
pub fn kind_of_acp_kind(kind: &str) -> ToolKind {
    match kind {
        "read" | "search" => ToolKind::FileRead,
        "edit" | "delete" | "move" => ToolKind::FileEdit,
        "execute" => ToolKind::Bash,
        "fetch" => ToolKind::WebSearch,
        "think" => ToolKind::Subagent,
        _ => ToolKind::Unknown,
    }
}

/// Why `_meta.toolnorm` could not be applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadMeta {
    pub field: &'static str,
    pub reason: String,
}

fn read<T: serde::de::DeserializeOwned>(field: &'static str, v: &Value) -> Result<T, BadMeta> {
    serde_json::from_value(v.clone()).map_err(|e| BadMeta {
        field,
        reason: e.to_string(),
    })
}

/// Apply one frame's `_meta.toolnorm` object to a part: the fields it sets, `outputNull` (the
/// output is a JSON `null`, which `rawOutput` cannot say) and the fields `unset` names.
pub fn apply_toolnorm_meta(
    part: &mut NormalizedToolPart,
    ours: &Map<String, Value>,
) -> Result<(), BadMeta> {
    if let Some(v) = ours.get("name") {
        part.name = read("name", v)?;
    }
    if let Some(v) = ours.get("kind") {
        part.kind = read("kind", v)?;
    }
    if let Some(v) = ours.get("error") {
        part.error = Some(read::<ToolError>("error", v)?);
    }
    if let Some(v) = ours.get("metadata") {
        part.metadata = Some(read("metadata", v)?);
    }
    if let Some(v) = ours.get("timing") {
        part.timing = Some(read("timing", v)?);
    }
    if ours.get("outputNull") == Some(&Value::Bool(true)) {
        part.output = Some(Value::Null);
    }
    if let Some(unset) = ours.get("unset") {
        for key in read::<Vec<String>>("unset", unset)? {
            match key.as_str() {
                "error" => part.error = None,
                "metadata" => part.metadata = None,
                "timing" => part.timing = None,
                "output" => part.output = None,
                "input" => part.input = Value::Null,
                _ => {}
            }
        }
    }
    Ok(())
}

/// The `_meta.toolnorm` object of a `_meta` value, when it has one.
pub fn toolnorm_meta(meta: Option<&Value>) -> Option<&Map<String, Value>> {
    meta?.get(META_KEY)?.as_object()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn statuses_and_kinds_read_from_their_acp_names() {
        assert_eq!(state_of_status("in_progress"), Some(ToolState::Running));
        assert_eq!(state_of_status("output-available"), None);
        assert_eq!(kind_of_acp_kind("execute"), ToolKind::Bash);
        assert_eq!(kind_of_acp_kind("switch_mode"), ToolKind::Unknown);
    }

    #[test]
    fn meta_sets_and_unsets_fields() {
        let mut p = NormalizedToolPart {
            id: "1".into(),
            name: "x".into(),
            kind: ToolKind::Unknown,
            title: "x".into(),
            input: json!({}),
            output: Some(json!("o")),
            error: None,
            state: ToolState::Error,
            timing: None,
            metadata: None,
        };
        let ours = json!({"name": "Bash", "kind": "bash", "error": {"message": "m"},
            "unset": ["output"]});
        apply_toolnorm_meta(&mut p, ours.as_object().unwrap()).unwrap();
        assert_eq!((p.name.as_str(), p.kind), ("Bash", ToolKind::Bash));
        assert_eq!(p.error.as_ref().unwrap().message, "m");
        assert_eq!(p.output, None);
        let bad = json!({"timing": {"elapsedMs": "soon"}});
        let err = apply_toolnorm_meta(&mut p, bad.as_object().unwrap()).unwrap_err();
        assert_eq!(err.field, "timing");
    }
}
