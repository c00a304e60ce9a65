//! `toolnorm corpus lint`: every fixture, decompressed, through the redactor's detector. Anything
//! the recorder would have redacted is a finding naming the file, line and kind.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::list_fixtures;
use super::reader::read_fixture;
use super::redact::Redactor;

/// One secret in the corpus.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LintFinding {
    pub path: PathBuf,
    /// Stream line number as `toolnorm cat` prints it (stderr lines count after them); 0 is the header.
    pub line: u64,
    pub kind: String,
}

#[derive(Debug, Default)]
pub struct LintReport {
    pub fixtures: usize,
    pub findings: Vec<LintFinding>,
    /// Fixtures that could not be read, or were cut short.
    pub problems: Vec<(PathBuf, String)>,
}

/// The findings and problems of one fixture.
type Scanned = (Vec<LintFinding>, Vec<(PathBuf, String)>);

/// Scan every fixture under `root`.
pub fn lint_corpus(root: &Path, detector: &Redactor) -> LintReport {
    let entries = list_fixtures(root);
    let results: Vec<Scanned> = entries
        .par_iter()
        .map(|e| {
            let mut findings = Vec::new();
            let mut problems = Vec::new();
            match read_fixture(&e.path) {
                Ok(fx) => {
                    let header = serde_json::to_vec(&fx.header).unwrap_or_default();
                    for f in detector.find(&header) {
                        findings.push(LintFinding {
                            path: e.path.clone(),
                            line: 0,
                            kind: f.kind,
                        });
                    }
                    for (i, line) in fx.lines.iter().enumerate() {
                        for f in detector.find(&line.bytes) {
                            findings.push(LintFinding {
                                path: e.path.clone(),
                                line: i as u64 + 1,
                                kind: f.kind,
                            });
                        }
                    }
                    problems.extend(fx.notes.into_iter().map(|n| (e.path.clone(), n)));
                }
                Err(err) => {
                    problems.push((e.path.clone(), format!("{:#}", anyhow::Error::new(err))))
                }
            }
            (findings, problems)
        })
        .collect();
    let mut report = LintReport {
        fixtures: entries.len(),
        ..LintReport::default()
    };
    for (f, p) in results {
        report.findings.extend(f);
        report.problems.extend(p);
    }
    report.findings.sort();
    report.problems.sort();
    report
}
