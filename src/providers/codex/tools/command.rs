//! Shell commands in any dialect: the [`Command`] (argv or string, cwd, parsed actions), its kind
//! and title (a pure read or search is a `file_read`, anything else `bash`), and its outcome.

use std::borrow::Cow;

use serde_json::{Map, Value, json};

use super::named;
use crate::model::{ToolError, ToolKind, ToolMetadata, ToolState};
use crate::providers::codex::wire::{ItemType, RawAction, RawItem, Status};
use crate::providers::{PartUpdate, first_line, raw_to_value, titles};
use serde_json::value::RawValue;

/// What a command action does, from `commandActions` / `parsed_cmd`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Action {
    Read {
        path: String,
    },
    List {
        path: Option<String>,
    },
    Search {
        query: Option<String>,
        path: Option<String>,
    },
    Unknown,
}

/// Actions of either spelling; an unreadable list means "unknown" rather than a lost item.
pub(crate) fn parse_actions(raw: Option<&RawValue>) -> Vec<Action> {
    let Some(raw) = raw else { return Vec::new() };
    let Ok(list) = serde_json::from_str::<Vec<RawAction<'_>>>(raw.get()) else {
        return vec![Action::Unknown];
    };
    list.into_iter()
        .map(|a| {
            let s = |c: Option<Cow<'_, str>>| c.map(|c| c.into_owned()).filter(|c| !c.is_empty());
            match a.ty.as_ref() {
                "read" => Action::Read {
                    path: s(a.path).or(s(a.name)).unwrap_or_default(),
                },
                "listFiles" | "list_files" => Action::List { path: s(a.path) },
                "search" => Action::Search {
                    query: s(a.query),
                    path: s(a.path),
                },
                _ => Action::Unknown,
            }
        })
        .collect()
}

/// A shell command in any dialect.
#[derive(Clone, Debug, Default)]
pub(crate) struct Command {
    /// The command as the provider gave it: a string or an argv array.
    pub command: Value,
    pub cwd: Option<String>,
    pub actions: Vec<Action>,
    /// Other provider args kept in the input (`timeout_ms`, ...).
    pub extra: Map<String, Value>,
}

impl Command {
    pub(crate) fn from_item(item: &RawItem<'_>) -> Command {
        Command {
            command: item.command.map_or(Value::Null, raw_to_value),
            cwd: item.cwd.as_deref().map(str::to_owned),
            actions: parse_actions(item.command_actions),
            extra: Map::new(),
        }
    }

    /// The command line a person reads (argv joined, shell wrapper left for `titles::shell`).
    pub(crate) fn line(&self) -> String {
        match &self.command {
            Value::String(s) => normalize_shell_path(s),
            Value::Array(argv) => titles::argv_command(argv),
            _ => String::new(),
        }
    }

    pub(crate) fn kind_title(&self, session_cwd: Option<&str>) -> (ToolKind, String) {
        let cwd = self.cwd.as_deref().or(session_cwd);
        let pure = !self.actions.is_empty() && self.actions.iter().all(|a| *a != Action::Unknown);
        let kind = if pure {
            ToolKind::FileRead
        } else {
            ToolKind::Bash
        };
        let title = match self.actions.as_slice() {
            [one] if pure => action_title(one, cwd),
            // Several reads/searches chained (`sed … && grep …`): the actions, in order.
            [first, rest @ ..] if pure => {
                let mut t = action_title(first, cwd);
                for a in rest {
                    let next = action_title(a, cwd);
                    let mut chars = next.chars();
                    t.push_str(", ");
                    t.extend(chars.next().into_iter().flat_map(char::to_lowercase));
                    t.push_str(chars.as_str());
                }
                titles::finish(&t, "Reading files")
            }
            _ => titles::shell(&self.line()),
        };
        (kind, title)
    }

    pub(crate) fn input(&self) -> Value {
        let mut m = Map::new();
        m.insert("command".to_owned(), self.command.clone());
        if let Some(cwd) = &self.cwd {
            m.insert("cwd".to_owned(), Value::String(cwd.clone()));
        }
        for (k, v) in &self.extra {
            m.insert(k.clone(), v.clone());
        }
        Value::Object(m)
    }

    /// The update naming, titling and describing the call (no outcome).
    pub(crate) fn update(&self, id: &str, session_cwd: Option<&str>) -> PartUpdate {
        let (kind, title) = self.kind_title(session_cwd);
        let mut u = named(id, ItemType::Command.name(), kind);
        u.title = Some(title);
        u.input = Some(self.input());
        if !self.actions.is_empty() {
            let meta = u.metadata.get_or_insert_with(ToolMetadata::default);
            meta.action = Some(Value::Array(
                self.actions.iter().map(action_value).collect(),
            ));
        }
        u
    }
}

fn action_value(a: &Action) -> Value {
    match a {
        Action::Read { path } => json!({ "type": "read", "path": path }),
        Action::List { path } => json!({ "type": "listFiles", "path": path }),
        Action::Search { query, path } => json!({ "type": "search", "query": query, "path": path }),
        Action::Unknown => json!({ "type": "unknown" }),
    }
}

fn action_title(a: &Action, cwd: Option<&str>) -> String {
    match a {
        Action::Read { path } => titles::read(&titles::display_path(path, cwd), None, None),
        Action::List { path: Some(p) } => titles::list(&titles::display_path(p, cwd)),
        Action::List { path: None } => titles::finish("", "Listing files"),
        Action::Search {
            query: Some(q),
            path,
        } => {
            let scope = path.as_deref().map(|p| titles::display_path(p, cwd));
            titles::grep(q, scope.as_deref())
        }
        Action::Search {
            query: None,
            path: Some(p),
        } => titles::finish(
            &format!("Searching {}", titles::display_path(p, cwd)),
            "Searching files",
        ),
        Action::Search {
            query: None,
            path: None,
        } => titles::finish("", "Searching files"),
        Action::Unknown => titles::finish("", "Running a shell command"),
    }
}

/// `titles::shell` strips well-known wrappers (`/bin/bash -lc …`); other install paths of the same
/// shells (`/usr/bin/zsh -lc …`) are brought to their bare name so the wrapper is stripped too.
fn normalize_shell_path(command: &str) -> String {
    let c = command.trim_start();
    let (program, rest) = c.split_once(' ').unwrap_or((c, ""));
    if let Some((_, base)) = program.rsplit_once('/')
        && matches!(base, "bash" | "zsh" | "sh")
        && (rest.starts_with("-lc ") || rest.starts_with("-c "))
    {
        return format!("{base} {rest}");
    }
    command.to_owned()
}

/// Settle a command: success only for a completed status with exit code 0 or none; a non-zero exit
/// is an error whatever the status said.
pub(crate) fn command_outcome(
    u: &mut PartUpdate,
    status: Status,
    exit_code: Option<i64>,
    output: String,
) {
    let meta = u.metadata.get_or_insert_with(ToolMetadata::default);
    meta.exit_code = exit_code;
    let failed_exit = exit_code.is_some_and(|c| c != 0);
    match status {
        Status::Running => {}
        Status::Completed if !failed_exit => {
            u.state = Some(ToolState::Complete);
            u.output = Some(Value::String(output));
        }
        Status::Completed | Status::Failed => {
            u.state = Some(ToolState::Error);
            let message = match exit_code {
                Some(c) => format!("Exit code {c}"),
                None => first_line(&output).unwrap_or_else(|| "Command failed".to_owned()),
            };
            u.error = Some(ToolError {
                message,
                code: exit_code.map(|c| c.to_string()),
                details: (!output.is_empty()).then_some(Value::String(output)),
            });
        }
        Status::Declined => {
            u.state = Some(ToolState::Error);
            u.error = Some(ToolError {
                message: "Command declined".to_owned(),
                code: Some("declined".to_owned()),
                details: (!output.is_empty()).then_some(Value::String(output)),
            });
        }
        Status::Interrupted => {
            u.state = Some(ToolState::Error);
            u.error = Some(ToolError {
                message: "Command interrupted".to_owned(),
                code: Some("interrupted".to_owned()),
                details: (!output.is_empty()).then_some(Value::String(output)),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_titles() {
        let cmd = |command: &str, actions: Vec<Action>| Command {
            command: Value::String(command.into()),
            cwd: Some("/w".into()),
            actions,
            extra: Map::new(),
        };
        let (k, t) = cmd(
            "/bin/bash -lc 'cat notes.txt'",
            vec![Action::Read {
                path: "/w/notes.txt".into(),
            }],
        )
        .kind_title(None);
        assert_eq!((k, t.as_str()), (ToolKind::FileRead, "Reading notes.txt"));
        let (k, t) = cmd("ls -1", vec![Action::List { path: None }]).kind_title(None);
        assert_eq!((k, t.as_str()), (ToolKind::FileRead, "Listing files"));
        let (k, t) = cmd(
            "rg x src",
            vec![Action::Search {
                query: Some("x".into()),
                path: Some("src".into()),
            }],
        )
        .kind_title(None);
        assert_eq!(
            (k, t.as_str()),
            (ToolKind::FileRead, "Searching for \"x\" in src")
        );
        let (k, t) = cmd(
            "sed -n '1,20p' src/a.js && grep -n version package.json",
            vec![
                Action::Read {
                    path: "/w/src/a.js".into(),
                },
                Action::Search {
                    query: Some("version".into()),
                    path: Some("package.json".into()),
                },
            ],
        )
        .kind_title(None);
        assert_eq!(
            (k, t.as_str()),
            (
                ToolKind::FileRead,
                "Reading src/a.js, searching for \"version\" in package.json"
            )
        );
        let (k, t) = cmd("/usr/bin/zsh -lc 'date -Is'", vec![Action::Unknown]).kind_title(None);
        assert_eq!((k, t.as_str()), (ToolKind::Bash, "Running date -Is"));
    }
}
