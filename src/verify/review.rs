//! `review`: walk the pending outputs verify wrote under `<reports>/pending/`, show each one's diff
//! against its expected file, and accept (move it over the expected file), reject (delete it) or
//! skip it. The loop reads answers from any `BufRead`, so tests drive it without a terminal.

use std::fs;
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};

use owo_colors::OwoColorize;

use crate::compare::{Comparison, compare};
use crate::corpus::confined::{self, Skipped, describe};

/// One pending output: `<reports>/pending/<provider>/<name>.json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pending {
    /// `provider/name.json`, relative to both the pending folder and the expected folder.
    pub rel: String,
    pub path: PathBuf,
    /// The reports folder it is under: it is read through no link below it.
    pub reports: PathBuf,
}

impl Pending {
    /// `pending/provider/name.json`, relative to the reports folder.
    fn rel_in_reports(&self) -> PathBuf {
        Path::new("pending").join(&self.rel)
    }

    /// Its text, read through no link below the reports folder.
    fn read(&self) -> io::Result<Vec<u8>> {
        confined::read(&self.reports, &self.rel_in_reports())
    }
}

/// Every pending output under `reports`, sorted, and the entries skipped: links (never
/// followed, at any depth) and `.json` entries that are not regular files.
pub fn list_pending(reports: &Path) -> io::Result<(Vec<Pending>, Vec<Skipped>)> {
    let root = reports.join("pending");
    let mut skipped = Vec::new();
    match fs::symlink_metadata(&root) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((Vec::new(), skipped)),
        Ok(m) if !m.is_dir() => {
            skipped.push(Skipped {
                path: root,
                what: describe(m.file_type()).to_owned(),
            });
            return Ok((Vec::new(), skipped));
        }
        _ => {}
    }
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(&root)
        .min_depth(1)
        .sort_by_file_name()
    {
        let entry = entry.map_err(io::Error::from)?;
        let t = entry.file_type();
        let json = entry.path().extension().is_some_and(|e| e == "json");
        if t.is_symlink() || (json && !t.is_file() && entry.depth() > 1) {
            skipped.push(Skipped {
                path: entry.path().to_owned(),
                what: describe(t).to_owned(),
            });
            continue;
        }
        if entry.depth() < 2 || !t.is_file() || !json {
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
            reports: reports.to_owned(),
        });
    }
    Ok((out, skipped))
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

/// Accept: the pending output becomes the expected file. Reject: it is deleted. Both read and
/// write through no link: a link in `expected/` or under `pending/` is refused, never followed.
pub fn decide(p: &Pending, expected: &Path, decision: Decision) -> io::Result<()> {
    match decision {
        Decision::Accept => {
            let bytes = p.read()?;
            confined::write(expected, Path::new(&p.rel), &bytes)?;
            confined::remove(&p.reports, &p.rel_in_reports())
        }
        Decision::Reject => confined::remove(&p.reports, &p.rel_in_reports()),
        Decision::Skip => Ok(()),
    }
}

/// Print what a pending output changes.
pub fn show(p: &Pending, expected: &Path, out: &mut impl Write, color: bool) -> io::Result<()> {
    let actual = String::from_utf8_lossy(&p.read()?).into_owned();
    let header = format!("── {} ──", p.rel);
    if color {
        writeln!(out, "{}", header.bold())?;
    } else {
        writeln!(out, "{header}")?;
    }
    let old = match confined::read(expected, Path::new(&p.rel)) {
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
    let diff = match compare(&old, &actual) {
        Comparison::Same => {
            return writeln!(
                out,
                "no change: the pending output equals the expected file"
            );
        }
        Comparison::Formatting(notes) => {
            return writeln!(
                out,
                "no change of value: the expected file differs only in formatting ({}): toolnorm fmt rewrites it",
                notes.join("; ")
            );
        }
        Comparison::Differs(d) => d,
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
        let (pending, _) = list_pending(&reports).unwrap();
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
        // The expected file is not canonical: its canonical form is what the diff shows.
        assert!(text.contains("-  \"n\": \"old\""), "{text}");
        assert_eq!(
            fs::read_to_string(expected.join("claude/a.json")).unwrap(),
            "{\"n\": \"a\"}\n"
        );
        assert_eq!(
            fs::read_to_string(expected.join("claude/b.json")).unwrap(),
            "{\"n\": \"old\"}\n"
        );
        assert!(expected.join("claude/d.json").exists());
        assert!(list_pending(&reports).unwrap().0.is_empty());
    }

    #[test]
    fn end_of_input_skips_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("pending/codex/x.json");
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, "{}\n").unwrap();
        let (pending, _) = list_pending(dir.path()).unwrap();
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

    #[test]
    fn links_are_listed_as_skipped_and_never_written_through() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let reports = dir.path().join("reports");
        let expected = dir.path().join("expected");
        let secret = dir.path().join("secret");
        fs::write(&secret, "secret").unwrap();
        fs::create_dir_all(reports.join("pending/claude")).unwrap();
        fs::create_dir_all(expected.join("claude")).unwrap();
        fs::write(reports.join("pending/claude/a.json"), "{}\n").unwrap();
        symlink(&secret, reports.join("pending/claude/link.json")).unwrap();
        symlink(&secret, expected.join("claude/a.json")).unwrap();
        let (pending, skipped) = list_pending(&reports).unwrap();
        assert_eq!(pending.len(), 1);
        assert_eq!(skipped.len(), 1);
        assert_eq!(skipped[0].path, reports.join("pending/claude/link.json"));
        let mut out = Vec::new();
        show(&pending[0], &expected, &mut out, false).unwrap_err();
        let e = decide(&pending[0], &expected, Decision::Accept).unwrap_err();
        assert!(confined::refused(&e).is_some(), "{e}");
        assert_eq!(fs::read_to_string(&secret).unwrap(), "secret");
        assert!(
            reports.join("pending/claude/a.json").exists(),
            "kept for later"
        );
    }
}
