//! `review`: walk the pending outputs verify wrote under `<reports>/pending/`, show each one's diff
//! against its expected file, and accept (move it over the expected file), reject (delete it) or
//! skip it. The loop reads answers from any `BufRead`, so tests drive it without a terminal.

use std::fs;
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};

use owo_colors::OwoColorize;

use crate::compare::compare;

/// One pending output: `<reports>/pending/<provider>/<name>.json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pending {
    /// `provider/name.json`, relative to both the pending folder and the expected folder.
    pub rel: String,
    pub path: PathBuf,
}

/// Every pending output under `reports`, sorted.
pub fn list_pending(reports: &Path) -> io::Result<Vec<Pending>> {
    let root = reports.join("pending");
    if !root.exists() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(&root)
        .min_depth(2)
        .sort_by_file_name()
    {
        let entry = entry.map_err(io::Error::from)?;
        if !entry.file_type().is_file() || entry.path().extension().is_none_or(|e| e != "json") {
            continue;
        }
        let rel = entry.path().strip_prefix(&root).unwrap_or(entry.path());
        let rel: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        out.push(Pending {
            rel: rel.join("/"),
            path: entry.path().to_owned(),
        });
    }
    Ok(out)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    Accept,
    Reject,
    Skip,
}

/// Counts of what the review did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub accepted: usize,
    pub rejected: usize,
    pub skipped: usize,
}

/// Accept: the pending output becomes the expected file. Reject: it is deleted.
pub fn decide(p: &Pending, expected: &Path, decision: Decision) -> io::Result<()> {
    match decision {
        Decision::Accept => {
            let target = expected.join(&p.rel);
            if let Some(dir) = target.parent() {
                fs::create_dir_all(dir)?;
            }
            fs::copy(&p.path, &target)?;
            fs::remove_file(&p.path)
        }
        Decision::Reject => fs::remove_file(&p.path),
        Decision::Skip => Ok(()),
    }
}

/// Print what a pending output changes.
pub fn show(p: &Pending, expected: &Path, out: &mut impl Write, color: bool) -> io::Result<()> {
    let actual = fs::read_to_string(&p.path)?;
    let header = format!("── {} ──", p.rel);
    if color {
        writeln!(out, "{}", header.bold())?;
    } else {
        writeln!(out, "{header}")?;
    }
    let old = match fs::read(expected.join(&p.rel)) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            writeln!(
                out,
                "new expected file ({} bytes, {} lines):",
                actual.len(),
                actual.lines().count()
            )?;
            for line in actual.lines().take(40) {
                writeln!(out, "+{line}")?;
            }
            if actual.lines().count() > 40 {
                writeln!(out, "… {} more lines", actual.lines().count() - 40)?;
            }
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    let Some(diff) = compare(&old, &actual) else {
        return writeln!(
            out,
            "no change: the pending output equals the expected file"
        );
    };
    for note in &diff.invisible {
        writeln!(out, "note: {note}")?;
    }
    if !diff.changed_paths.is_empty() {
        writeln!(out, "changed: {}", diff.changed_paths.join(", "))?;
    }
    for line in diff.unified.lines() {
        match line.as_bytes().first() {
            Some(b'+') if color && !line.starts_with("+++") => writeln!(out, "{}", line.green())?,
            Some(b'-') if color && !line.starts_with("---") => writeln!(out, "{}", line.red())?,
            Some(b'@') if color => writeln!(out, "{}", line.cyan())?,
            _ => writeln!(out, "{line}")?,
        }
    }
    Ok(())
}

/// The interactive loop: for each pending output, show it and ask. `a`/`r`/`s` decide this one,
/// `A`/`R`/`S` this one and all the rest, `q` stops. End of input stops too (skipping the rest).
pub fn review(
    pending: &[Pending],
    expected: &Path,
    input: &mut impl BufRead,
    out: &mut impl Write,
    color: bool,
) -> io::Result<Tally> {
    let mut tally = Tally::default();
    let mut all: Option<Decision> = None;
    for (i, p) in pending.iter().enumerate() {
        let decision = match all {
            Some(d) => d,
            None => {
                show(p, expected, out, color)?;
                loop {
                    write!(
                        out,
                        "[{}/{}] {}: [a]ccept [r]eject [s]kip, A/R/S for all the rest, [q]uit: ",
                        i + 1,
                        pending.len(),
                        p.rel
                    )?;
                    out.flush()?;
                    let mut line = String::new();
                    if input.read_line(&mut line)? == 0 {
                        writeln!(out)?;
                        tally.skipped += pending.len() - i;
                        return Ok(tally);
                    }
                    match line.trim() {
                        "a" => break Decision::Accept,
                        "r" => break Decision::Reject,
                        "s" | "" => break Decision::Skip,
                        "A" => {
                            all = Some(Decision::Accept);
                            break Decision::Accept;
                        }
                        "R" => {
                            all = Some(Decision::Reject);
                            break Decision::Reject;
                        }
                        "S" => {
                            all = Some(Decision::Skip);
                            break Decision::Skip;
                        }
                        "q" => {
                            tally.skipped += pending.len() - i;
                            return Ok(tally);
                        }
                        other => writeln!(out, "unknown answer `{other}`")?,
                    }
                }
            }
        };
        decide(p, expected, decision)?;
        match decision {
            Decision::Accept => tally.accepted += 1,
            Decision::Reject => tally.rejected += 1,
            Decision::Skip => tally.skipped += 1,
        }
    }
    Ok(tally)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_accept_reject_and_all_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let reports = dir.path().join("reports");
        let expected = dir.path().join("expected");
        for name in ["a", "b", "c", "d"] {
            let p = reports.join("pending/claude").join(format!("{name}.json"));
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(&p, format!("{{\"n\": \"{name}\"}}\n")).unwrap();
        }
        fs::create_dir_all(expected.join("claude")).unwrap();
        fs::write(expected.join("claude/b.json"), "{\"n\": \"old\"}\n").unwrap();
        let pending = list_pending(&reports).unwrap();
        assert_eq!(pending.len(), 4);
        let mut out = Vec::new();
        let tally = review(
            &pending,
            &expected,
            &mut "a\nx\nr\nA\n".as_bytes(),
            &mut out,
            false,
        )
        .unwrap();
        assert_eq!(
            tally,
            Tally {
                accepted: 3,
                rejected: 1,
                skipped: 0
            }
        );
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("new expected file"), "{text}");
        assert!(text.contains("unknown answer `x`"), "{text}");
        assert!(text.contains("-{\"n\": \"old\"}"), "{text}");
        assert_eq!(
            fs::read_to_string(expected.join("claude/a.json")).unwrap(),
            "{\"n\": \"a\"}\n"
        );
        assert_eq!(
            fs::read_to_string(expected.join("claude/b.json")).unwrap(),
            "{\"n\": \"old\"}\n"
        );
        assert!(expected.join("claude/d.json").exists());
        assert!(list_pending(&reports).unwrap().is_empty());
    }

    #[test]
    fn end_of_input_skips_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("pending/codex/x.json");
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, "{}\n").unwrap();
        let pending = list_pending(dir.path()).unwrap();
        let tally = review(
            &pending,
            &dir.path().join("e"),
            &mut "".as_bytes(),
            &mut Vec::new(),
            false,
        )
        .unwrap();
        assert_eq!(tally.skipped, 1);
        assert!(p.exists());
    }
}
