//! `fmt`: rewrite expected files in their canonical form (sorted keys, two-space indentation,
//! serde_json's escapes, one trailing newline, no BOM, LF line endings), the form `accept` writes
//! and `verify` compares by. Only the layout changes, never a value: a file that is not one JSON
//! document is left alone and reported. Every read and write goes through no link.

use std::io;
use std::path::Path;

use super::VerifyError;
use super::expectations::{FixtureKey, fixture_glob, glob_selects};
use super::runner::{list_expected, write_file};
use crate::compare::canonical_file;
use crate::corpus::confined::{self, Skipped};

/// What `fmt` did (or, with `check`, would do) to the selected expected files.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Formatted {
    /// Expected files rewritten (with `check`: that would be), `provider/name.json`, sorted.
    pub changed: Vec<String>,
    pub unchanged: usize,
    /// Files left alone because they are not one JSON document, or a link in their place:
    /// (`provider/name.json`, why).
    pub errors: Vec<(String, String)>,
    /// Entries of the expected folder left alone (a linked provider folder, a link named like an
    /// expected file).
    pub skipped: Vec<Skipped>,
}

/// Rewrite every expected file under `root` selected by `filter` (a glob over `provider/name` or
/// the fixture path `provider/name.jsonl.zst`) canonically; with `check`, write nothing.
pub fn fmt(root: &Path, filter: Option<&str>, check: bool) -> Result<Formatted, VerifyError> {
    let glob = filter.map(fixture_glob).transpose()?;
    if !root.is_dir() {
        return Err(VerifyError::Expected {
            path: root.to_owned(),
            source: io::Error::new(io::ErrorKind::NotFound, "no such folder"),
        });
    }
    let (files, skipped) = list_expected(root)?;
    let mut out = Formatted {
        skipped,
        ..Formatted::default()
    };
    for (provider, name, rel) in files {
        let fixture_path = format!("{provider}/{name}.jsonl.zst");
        let key = FixtureKey {
            provider: &provider,
            name: &name,
            path: &fixture_path,
        };
        if glob.as_ref().is_some_and(|g| !glob_selects(g, key)) {
            continue;
        }
        let bytes = match confined::read(root, Path::new(&rel)) {
            Ok(b) => b,
            Err(e) if confined::refused(&e).is_some() => {
                out.errors.push((rel, e.to_string()));
                continue;
            }
            Err(source) => {
                return Err(VerifyError::Expected {
                    path: root.join(&rel),
                    source,
                });
            }
        };
        let canonical = match canonical_file(&bytes) {
            Ok(c) => c,
            Err(why) => {
                out.errors.push((rel, format!("{why}: left as it is")));
                continue;
            }
        };
        if canonical.as_bytes() == bytes {
            out.unchanged += 1;
            continue;
        }
        if !check {
            match write_file(root, Path::new(&rel), canonical.as_bytes()) {
                Err(VerifyError::Write { source, .. }) if confined::refused(&source).is_some() => {
                    out.errors.push((rel, source.to_string()));
                    continue;
                }
                other => other?,
            }
        }
        out.changed.push(rel);
    }
    out.changed.sort();
    out.errors.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    #[test]
    fn rewrites_only_what_is_not_canonical_and_leaves_bad_json_alone() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("claude")).unwrap();
        fs::create_dir_all(root.join("codex")).unwrap();
        fs::write(root.join("claude/a.json"), "{\n  \"a\": 1\n}\n").unwrap();
        fs::write(root.join("claude/b.json"), "{\"b\":1,\"a\":\"\\u00e9\"}").unwrap();
        fs::write(root.join("codex/c.json"), "{\"c\": ").unwrap();
        let check = fmt(root, None, true).unwrap();
        assert_eq!(check.changed, vec!["claude/b.json"]);
        assert_eq!(check.unchanged, 1);
        assert_eq!(check.errors.len(), 1);
        assert_eq!(check.errors[0].0, "codex/c.json");
        assert!(
            check.errors[0].1.contains("not valid JSON"),
            "{:?}",
            check.errors
        );
        assert_eq!(
            fs::read_to_string(root.join("claude/b.json")).unwrap(),
            "{\"b\":1,\"a\":\"\\u00e9\"}",
            "--check writes nothing"
        );

        let done = fmt(root, Some("claude/*"), false).unwrap();
        assert_eq!(done.changed, vec!["claude/b.json"]);
        assert!(done.errors.is_empty(), "the filter leaves codex out");
        assert_eq!(
            fs::read_to_string(root.join("claude/b.json")).unwrap(),
            "{\n  \"a\": \"é\",\n  \"b\": 1\n}\n"
        );
        assert_eq!(fmt(root, Some("claude/*"), true).unwrap().changed.len(), 0);
    }

    #[test]
    fn links_are_refused_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("expected");
        fs::create_dir_all(root.join("claude")).unwrap();
        let outside = dir.path().join("outside.json");
        fs::write(&outside, "{\"b\":1,\"a\":2}").unwrap();
        std::os::unix::fs::symlink(&outside, root.join("claude/x.json")).unwrap();
        let done = fmt(&root, None, false).unwrap();
        assert!(done.changed.is_empty());
        assert_eq!(done.skipped.len(), 1, "{done:?}");
        assert_eq!(fs::read_to_string(&outside).unwrap(), "{\"b\":1,\"a\":2}");
    }
}
