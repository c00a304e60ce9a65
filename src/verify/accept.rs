//! `accept`: write fixtures' actual outputs over their expected files (creating missing ones), after
//! a person reviewed the diff.

use std::fs;
use std::io;
use std::path::Path;

use rayon::prelude::*;

use super::runner::{list_fixtures, normalize_fixture, write_file};
use super::{Selection, VerifyError};
use crate::corpus::FixtureEntry;

/// What `accept` did to each selected fixture.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Accepted {
    /// Expected files created (`provider/name.json`).
    pub created: Vec<String>,
    /// Expected files overwritten with a different output.
    pub updated: Vec<String>,
    pub unchanged: usize,
    /// Fixtures that could not be normalized: (path, why). Their expected files are left alone.
    pub errors: Vec<(String, String)>,
}

enum One {
    Created(String),
    Updated(String),
    Unchanged,
    Error(String, String),
}

/// Accept the selected fixtures of `corpus` into `expected`; a pending output of an accepted
/// fixture under `reports` is removed, since it is now the expected one.
pub fn accept(
    corpus: &Path,
    expected: &Path,
    reports: Option<&Path>,
    selection: &Selection,
    jobs: usize,
) -> Result<Accepted, VerifyError> {
    let fixtures = selection.apply(&list_fixtures(corpus)?)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| VerifyError::Pool(e.to_string()))?;
    let results: Result<Vec<One>, VerifyError> = pool.install(|| {
        fixtures
            .par_iter()
            .map(|f| accept_one(f, expected, reports))
            .collect()
    });
    let mut out = Accepted::default();
    for r in results? {
        match r {
            One::Created(p) => out.created.push(p),
            One::Updated(p) => out.updated.push(p),
            One::Unchanged => out.unchanged += 1,
            One::Error(p, m) => out.errors.push((p, m)),
        }
    }
    out.created.sort();
    out.updated.sort();
    out.errors.sort();
    Ok(out)
}

fn accept_one(
    f: &FixtureEntry,
    expected: &Path,
    reports: Option<&Path>,
) -> Result<One, VerifyError> {
    let n = match normalize_fixture(f, false) {
        Ok(n) => n,
        Err(m) => return Ok(One::Error(f.rel.clone(), m)),
    };
    let path = f.expected_path(expected);
    let label = format!("{}/{}.json", f.provider, f.name);
    let outcome = match fs::read(&path) {
        Ok(old) if old == n.canonical.as_bytes() => One::Unchanged,
        Ok(_) => One::Updated(label),
        Err(e) if e.kind() == io::ErrorKind::NotFound => One::Created(label),
        Err(source) => return Err(VerifyError::Expected { path, source }),
    };
    if !matches!(outcome, One::Unchanged) {
        write_file(&path, n.canonical.as_bytes())?;
    }
    if let Some(reports) = reports {
        let pending = f.pending_path(reports);
        match fs::remove_file(&pending) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(source) => {
                return Err(VerifyError::Write {
                    path: pending,
                    source,
                });
            }
        }
    }
    Ok(outcome)
}
