//! `report merge`: combine the `report.json` of several shards into one report, recomputing the
//! matrix and the summary exactly as an unsharded run would.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::report::compliance::Compliance;
use crate::report::{ImplementationInfo, REPORT_VERSION, Report, RuleInfo};

#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error("failed to read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: not a toolnorm report.json: {source}", path.display())]
    Parse {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("{}: report version {found}, this toolnorm reads versions 1 to {REPORT_VERSION}", path.display())]
    Version { path: PathBuf, found: u32 },
    #[error("fixture {fixture} is in both {} and {}: were the shards run with the same --shard N?", first.display(), second.display())]
    Duplicate {
        fixture: String,
        first: PathBuf,
        second: PathBuf,
    },
    #[error("nothing to merge: name at least one report folder")]
    Empty,
}

/// `DIR/report.json`, or the file itself when a file is named.
pub fn report_path(dir: &Path) -> PathBuf {
    if dir.is_file() {
        dir.to_owned()
    } else {
        dir.join("report.json")
    }
}

pub fn read_report(path: &Path) -> Result<Report, MergeError> {
    let text = fs::read_to_string(path).map_err(|source| MergeError::Read {
        path: path.to_owned(),
        source,
    })?;
    // Check the version before the shape, so an old report says why it does not parse.
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(&text)
        && let Some(found) = v.get("reportVersion").and_then(serde_json::Value::as_u64)
        && (found == 0 || found > u64::from(REPORT_VERSION))
    {
        return Err(MergeError::Version {
            path: path.to_owned(),
            found: found as u32,
        });
    }
    serde_json::from_str(&text).map_err(|source| MergeError::Parse {
        path: path.to_owned(),
        source,
    })
}

/// Merge shard reports (read from `dirs`) into one.
pub fn merge(dirs: &[PathBuf]) -> Result<Report, MergeError> {
    let reports = read_all(dirs)?;
    merge_shards(reports)
}

/// What `report merge` made: one implementation's report (its shards merged), or the compliance
/// matrix of several implementations, each with its own merged report.
pub enum Merged {
    One(Box<Report>),
    Many(Compliance),
}

/// Merge the reports of `dirs`: shards of one implementation into one report, reports of several
/// implementations (told apart by `implementation`; reports before version 3 are the built-in
/// normalizer's) into a compliance matrix.
pub fn merge_any(dirs: &[PathBuf]) -> Result<Merged, MergeError> {
    let reports = read_all(dirs)?;
    let mut groups: Vec<(ImplementationInfo, Vec<(PathBuf, Report)>)> = Vec::new();
    for (path, report) in reports {
        let key = report
            .implementation
            .clone()
            .unwrap_or_else(ImplementationInfo::built_in);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, g)) => g.push((path, report)),
            None => groups.push((key, vec![(path, report)])),
        }
    }
    if groups.len() == 1 {
        let (_, g) = groups.remove(0);
        return merge_shards(g).map(|r| Merged::One(Box::new(r)));
    }
    let mut merged = Vec::new();
    for (_, g) in groups {
        merged.push(merge_shards(g)?);
    }
    Ok(Merged::Many(Compliance::build(merged)))
}

fn read_all(dirs: &[PathBuf]) -> Result<Vec<(PathBuf, Report)>, MergeError> {
    if dirs.is_empty() {
        return Err(MergeError::Empty);
    }
    dirs.iter()
        .map(|dir| {
            let path = report_path(dir);
            read_report(&path).map(|r| (path, r))
        })
        .collect()
}

/// Merge the shards of one implementation's run.
fn merge_shards(reports: Vec<(PathBuf, Report)>) -> Result<Report, MergeError> {
    let mut rules: Vec<RuleInfo> = Vec::new();
    let mut fixtures = Vec::new();
    let mut seen: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut orphans = Vec::new();
    let mut skipped = Vec::new();
    let mut strict = false;
    let mut require_all = false;
    // A filter that matches nothing empties every shard: the merged run selected nothing only if
    // each shard says so.
    let mut nothing_selected = true;
    let mut duration_ms = 0;
    let mut implementation = None;
    for (path, report) in reports {
        for rule in report.rules {
            if !rules.iter().any(|r| r.code == rule.code) {
                rules.push(rule);
            }
        }
        // Read back from report.json: held in memory.
        let read = report
            .fixtures
            .to_vec()
            .map_err(|source| MergeError::Read {
                path: path.clone(),
                source,
            })?;
        for f in read {
            if let Some(first) = seen.insert(f.path.clone(), path.clone()) {
                return Err(MergeError::Duplicate {
                    fixture: f.path,
                    first,
                    second: path,
                });
            }
            fixtures.push(f);
        }
        orphans.extend(report.orphans);
        skipped.extend(report.skipped);
        strict |= report.summary.strict;
        require_all |= report.summary.require_all;
        nothing_selected &= report.summary.nothing_selected;
        implementation = implementation.or(report.implementation);
        // Shards run side by side: the merged run took as long as the slowest.
        duration_ms = duration_ms.max(report.summary.duration_ms);
    }
    rules.sort_by(|a, b| a.code.cmp(&b.code));
    let mut report =
        crate::report::Report::build(rules, fixtures, orphans, strict, None).with_skipped(skipped);
    report.summary.require_all = require_all;
    report.summary.nothing_selected = nothing_selected;
    report.implementation = implementation;
    report.summary.duration_ms = duration_ms;
    Ok(report)
}
