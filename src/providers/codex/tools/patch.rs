//! File changes in any dialect: the [`Change`]s of a patch (from an item's `changes`, or from an
//! `apply_patch` envelope), the patch's kind and title (only new files → `file_write`), and its
//! outcome. The input lists the files; the diffs are the output.

use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::named;
use crate::model::{ToolError, ToolKind, ToolState};
use crate::providers::codex::wire::{ItemType, Status};
use crate::providers::{PartUpdate, first_line, titles};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ChangeKind {
    Add,
    Delete,
    Update,
}

/// One file of a patch.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Change {
    pub path: String,
    pub kind: ChangeKind,
    pub move_path: Option<String>,
    /// Unified diff (update) or file content (add/delete), when the dialect carries it.
    pub diff: Option<String>,
}

fn change_kind(s: &str) -> Option<ChangeKind> {
    match s {
        "add" | "Add" | "create" => Some(ChangeKind::Add),
        "delete" | "Delete" | "remove" => Some(ChangeKind::Delete),
        "update" | "Update" | "modify" => Some(ChangeKind::Update),
        _ => None,
    }
}

/// `kind` as a string (exec), a tagged object (app-server `{type, move_path}`, rollout
/// `{type, unified_diff|content}`) or an externally tagged object (old `{"update":{…}}`).
fn change_from(path: String, body: &Value) -> Option<Change> {
    let kind_val = body.get("kind").unwrap_or(body);
    let (kind, detail): (ChangeKind, &Value) = match kind_val {
        Value::String(s) => (change_kind(s)?, body),
        Value::Object(m) => match m.get("type").and_then(Value::as_str) {
            Some(t) => (change_kind(t)?, kind_val),
            None => {
                let (k, inner) = m.iter().next()?;
                (change_kind(k)?, inner)
            }
        },
        _ => return None,
    };
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    let diff = text(body, "diff")
        .or_else(|| text(detail, "unified_diff"))
        .or_else(|| text(detail, "content"))
        .filter(|d| !d.is_empty());
    let move_path = text(detail, "move_path").or_else(|| text(detail, "movePath"));
    Some(Change {
        path,
        kind,
        move_path,
        diff,
    })
}

/// `changes` as an array of `{path, kind, diff?}` or a map `path → FileChange`.
pub(crate) fn parse_changes(raw: &RawValue) -> Vec<Change> {
    match serde_json::from_str::<Value>(raw.get()) {
        Ok(Value::Array(list)) => list
            .iter()
            .filter_map(|c| {
                let path = c.get("path").and_then(Value::as_str)?.to_owned();
                change_from(path, c)
            })
            .collect(),
        Ok(Value::Object(map)) => map
            .iter()
            .filter_map(|(p, body)| change_from(p.clone(), body))
            .collect(),
        _ => Vec::new(),
    }
}

/// The files an `apply_patch` envelope touches (`*** Add File: p`, `*** Update File: p`, ...).
pub(crate) fn changes_from_patch(patch: &str) -> Vec<Change> {
    let mut out: Vec<Change> = Vec::new();
    for line in patch.lines() {
        let line = line.trim_end();
        let (kind, path) = if let Some(p) = line.strip_prefix("*** Add File: ") {
            (ChangeKind::Add, p)
        } else if let Some(p) = line.strip_prefix("*** Delete File: ") {
            (ChangeKind::Delete, p)
        } else if let Some(p) = line.strip_prefix("*** Update File: ") {
            (ChangeKind::Update, p)
        } else {
            if let Some(m) = line.strip_prefix("*** Move to: ")
                && let Some(last) = out.last_mut()
            {
                last.move_path = Some(m.trim().to_owned());
            }
            continue;
        };
        out.push(Change {
            path: path.trim().to_owned(),
            kind,
            move_path: None,
            diff: None,
        });
    }
    out
}

pub(crate) fn joined_diffs(changes: &[Change]) -> String {
    let with_diff: Vec<&Change> = changes.iter().filter(|c| c.diff.is_some()).collect();
    match with_diff.as_slice() {
        [] => String::new(),
        [one] => one.diff.clone().unwrap_or_default(),
        many => many
            .iter()
            .map(|c| format!("--- {}\n{}", c.path, c.diff.as_deref().unwrap_or("")))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

fn kind_name(k: ChangeKind) -> &'static str {
    match k {
        ChangeKind::Add => "add",
        ChangeKind::Delete => "delete",
        ChangeKind::Update => "update",
    }
}

/// Kind and title of a patch: only new files → `file_write` "Creating …"; otherwise `file_edit`.
pub(crate) fn patch_kind_title(changes: &[Change], cwd: Option<&str>) -> (ToolKind, String) {
    let paths: Vec<String> = changes
        .iter()
        .map(|c| titles::display_path(&c.path, cwd))
        .collect();
    if !changes.is_empty() && changes.iter().all(|c| c.kind == ChangeKind::Add) {
        return (ToolKind::FileWrite, titles::create(&paths.join(", ")));
    }
    let title = match changes {
        [one] if one.kind == ChangeKind::Delete => titles::delete(&paths[0]),
        [one] => match &one.move_path {
            Some(m) => titles::edit(&format!("{} → {}", paths[0], titles::display_path(m, cwd))),
            None => titles::edit(&paths[0]),
        },
        _ => titles::edit_files(&paths),
    };
    (ToolKind::FileEdit, title)
}

/// The update describing a patch (no outcome). The input lists the files; the diffs go to output.
pub(crate) fn patch_update(id: &str, changes: &[Change], cwd: Option<&str>) -> PartUpdate {
    let (kind, title) = patch_kind_title(changes, cwd);
    let mut u = named(id, ItemType::FileChange.name(), kind);
    if !changes.is_empty() {
        u.title = Some(title);
        let list: Vec<Value> = changes
            .iter()
            .map(|c| {
                let mut m = Map::new();
                m.insert("path".to_owned(), Value::String(c.path.clone()));
                m.insert(
                    "kind".to_owned(),
                    Value::String(kind_name(c.kind).to_owned()),
                );
                if let Some(mp) = &c.move_path {
                    m.insert("movePath".to_owned(), Value::String(mp.clone()));
                }
                Value::Object(m)
            })
            .collect();
        u.input = Some(json!({ "changes": list }));
    } else {
        u.title = Some(titles::edit_files(&[]));
    }
    u
}

/// Settle a patch. `output` is the diff(s) or the apply_patch response; `failure` the error text.
pub(crate) fn patch_outcome(
    u: &mut PartUpdate,
    status: Status,
    output: Option<String>,
    failure: Option<String>,
) {
    match status {
        Status::Completed => {
            u.state = Some(ToolState::Complete);
            u.output = output.map(Value::String);
        }
        Status::Running => u.state = Some(ToolState::Running),
        Status::Failed | Status::Declined | Status::Interrupted => {
            u.state = Some(ToolState::Error);
            let details = failure.clone().filter(|f| !f.trim().is_empty());
            let (message, code) = match status {
                Status::Declined => ("Patch declined".to_owned(), Some("declined".to_owned())),
                Status::Interrupted => (
                    "Patch interrupted".to_owned(),
                    Some("interrupted".to_owned()),
                ),
                _ => (
                    details
                        .as_deref()
                        .and_then(first_line)
                        .unwrap_or_else(|| "Patch failed".to_owned()),
                    None,
                ),
            };
            u.error = Some(ToolError {
                message,
                code,
                details: details.map(Value::String),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn change_shapes() {
        let r = |s: &str| parse_changes(&serde_json::from_str::<Box<RawValue>>(s).unwrap());
        let app = r(
            r#"[{"path":"/w/a.txt","kind":{"type":"update","move_path":"/w/b.txt"},"diff":"@@"}]"#,
        );
        assert_eq!(app[0].kind, ChangeKind::Update);
        assert_eq!(app[0].move_path.as_deref(), Some("/w/b.txt"));
        assert_eq!(app[0].diff.as_deref(), Some("@@"));
        let exec = r(r#"[{"path":"/w/a.txt","kind":"add"}]"#);
        assert_eq!(exec[0].kind, ChangeKind::Add);
        let tagged = r(r#"{"/w/a":{"type":"add","content":"hi"}}"#);
        assert_eq!(tagged[0].diff.as_deref(), Some("hi"));
        let old = r(r#"{"/w/a":{"update":{"unified_diff":"@@ x","move_path":null}}}"#);
        assert_eq!(old[0].kind, ChangeKind::Update);
        assert_eq!(old[0].diff.as_deref(), Some("@@ x"));
    }
    #[test]
    fn patch_envelope_files() {
        let p = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** Update File: b.txt\n*** Move to: c.txt\n@@\n*** End Patch";
        let c = changes_from_patch(p);
        assert_eq!(c.len(), 2);
        assert_eq!(c[1].move_path.as_deref(), Some("c.txt"));
        assert_eq!(patch_kind_title(&c, None).1, "Editing a.txt, b.txt");
    }
}
