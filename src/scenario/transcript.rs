//! A Claude scenario's session transcript (`transcript = true`). Claude Code keeps every session
//! in `~/.claude/projects/<project>/<session>.jsonl`, a dialect of its own with carriers the
//! stream a host reads does not have (queued `<task-notification>` blocks among them). After the
//! run, the one transcript the CLI wrote under the scratch HOME becomes a fixture beside the
//! recording, `live-<name>-transcript`, imported as `toolnorm import` imports a file, folded and
//! redacted with the recording's own redactor ([`Launch::redactor`]), its header naming the
//! scenario and the CLI. Subagent files (`<session>/subagents/`) are not kept.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use super::launch::Launch;
use crate::corpus::import::{ImportOptions, Imported, import_as};
use crate::stream::Provider;

/// The session transcript under `home`: the one `*.jsonl` directly inside a project folder of
/// `~/.claude/projects`.
pub(super) fn find(home: &Path) -> anyhow::Result<PathBuf> {
    let projects = home.join(".claude/projects");
    let mut found = Vec::new();
    let entries = fs::read_dir(&projects).with_context(|| {
        format!(
            "Claude Code wrote no session transcript: {} cannot be read",
            projects.display()
        )
    })?;
    for project in entries.flatten() {
        if !project.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let Ok(files) = fs::read_dir(project.path()) else {
            continue;
        };
        for f in files.flatten() {
            let p = f.path();
            if f.file_type().is_ok_and(|t| t.is_file())
                && p.extension().is_some_and(|e| e == "jsonl")
            {
                found.push(p);
            }
        }
    }
    found.sort();
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => bail!(
            "Claude Code wrote no session transcript under {}",
            projects.display()
        ),
        n => bail!(
            "Claude Code wrote {n} session transcripts under {} (one was expected): {}",
            projects.display(),
            found
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Keep the run's session transcript as the fixture `live-<name>-transcript` (a plain folded
/// `.jsonl` in raw mode); the path written.
pub(super) fn keep(launch: &Launch<'_>) -> anyhow::Result<PathBuf> {
    let s = launch.scenario;
    let source = find(&launch.scratch.home)?;
    let redactor = launch.redactor()?;
    let name = s.transcript_fixture_name();
    let corpus = &launch.opts.corpus;
    if launch.opts.raw {
        let out = corpus
            .join(launch.provider.as_str())
            .join(format!("{name}.jsonl"));
        let bytes =
            fs::read(&source).with_context(|| format!("failed to read {}", source.display()))?;
        let mut state = redactor.state();
        let mut text = Vec::with_capacity(bytes.len());
        for line in bytes.split_inclusive(|b| *b == b'\n') {
            let (body, end) = match line.strip_suffix(b"\n") {
                Some(body) => (body, &b"\n"[..]),
                None => (line, &b""[..]),
            };
            text.extend_from_slice(&redactor.redact(body, &mut state));
            text.extend_from_slice(end);
        }
        fs::write(&out, text).with_context(|| format!("failed to write {}", out.display()))?;
        return Ok(out);
    }
    // The source as the lines name paths: the scratch HOME as `~`, the project folder folded.
    let label = {
        let path = source.display().to_string();
        let mut state = redactor.state();
        String::from_utf8_lossy(&redactor.redact(path.as_bytes(), &mut state)).into_owned()
    };
    let opts = ImportOptions {
        corpus,
        provider: Some(Provider::Claude),
        force: launch.opts.force,
        redactor: &redactor,
        home: None,
        detect: crate::dialects::detector,
    };
    let imported = import_as(&source, &name, &opts, |h| {
        h.source = Some(label);
        h.scenario = Some(s.name.clone());
        h.cli = Some(launch.cli.display.to_owned());
        h.cli_version = Some(launch.version.to_owned());
    });
    match imported {
        Imported::Done {
            fixture, dialect, ..
        } if dialect == "transcript" => Ok(fixture),
        Imported::Done {
            fixture, dialect, ..
        } => {
            let _ = fs::remove_file(&fixture);
            bail!(
                "{} reads as Claude {dialect}, not as a transcript",
                source.display()
            )
        }
        Imported::Skipped { reason, .. } => {
            bail!("the session transcript was not kept: {reason}")
        }
        Imported::Failed { error, .. } => {
            bail!("the session transcript was not kept: {error}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_one_session_file_is_found_and_anything_else_is_said() {
        let root = std::env::temp_dir().join(format!(
            "toolnorm-transcript-find-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = fs::remove_dir_all(&root);
        let project = root.join(".claude/projects/-work");
        fs::create_dir_all(project.join("s1/subagents")).unwrap();
        let err = find(&root).unwrap_err().to_string();
        assert!(err.contains("no session transcript"), "{err}");
        // A subagent file and the memory folder are not the session.
        fs::write(project.join("s1/subagents/agent-a.jsonl"), "{}\n").unwrap();
        fs::create_dir_all(project.join("memory")).unwrap();
        fs::write(project.join("s1.jsonl"), "{}\n").unwrap();
        assert_eq!(find(&root).unwrap(), project.join("s1.jsonl"));
        fs::write(project.join("s2.jsonl"), "{}\n").unwrap();
        let err = find(&root).unwrap_err().to_string();
        assert!(err.contains("2 session transcripts"), "{err}");
        fs::remove_dir_all(&root).unwrap();
        assert!(find(&root).is_err());
    }
}
