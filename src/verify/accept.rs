//! `accept`: write fixtures' actual outputs over their expected files (creating missing ones), after
//! a person reviewed the diff.

use std::io;
use std::path::Path;

use rayon::prelude::*;

use super::runner::{list_fixtures, normalize_fixture, remove_pending, write_file};
use super::{Selection, VerifyError};
use crate::corpus::FixtureEntry;
use crate::corpus::confined::{self, Skipped};

/// What `accept` did to each selected fixture.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Accepted {
    /// Expected files created (`provider/name.json`).
    pub created: Vec<String>,
    /// Expected files overwritten with a different output.
    pub updated: Vec<String>,
    pub unchanged: usize,
    /// Fixtures that could not be normalized, or whose expected file is a link or not a regular
    /// file: (path, why). Their expected files are left alone.
    pub errors: Vec<(String, String)>,
    /// Corpus entries skipped (a symlink, a directory named like a fixture, a FIFO).
    pub skipped: Vec<Skipped>,
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
    let (all, skipped) = list_fixtures(corpus)?;
    let fixtures = selection.apply(&all)?;
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
    let mut out = Accepted {
        skipped,
        ..Accepted::default()
    };
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
    let label = format!("{}/{}.json", f.provider, f.name);
    let rel = f.output_rel();
    // Read and written through no link: a link in expected/ is never followed out of it.
    let outcome = match confined::read(expected, &rel) {
        Ok(old) if old == n.canonical.as_bytes() => One::Unchanged,
        Ok(_) => One::Updated(label),
        Err(e) if e.kind() == io::ErrorKind::NotFound => One::Created(label),
        Err(e) if confined::refused(&e).is_some() => {
            return Ok(One::Error(f.rel.clone(), e.to_string()));
        }
        Err(source) => {
            return Err(VerifyError::Expected {
                path: expected.join(&rel),
                source,
            });
        }
    };
    if !matches!(outcome, One::Unchanged) {
        match write_file(expected, &rel, n.canonical.as_bytes()) {
            Err(VerifyError::Write { source, .. }) if confined::refused(&source).is_some() => {
                return Ok(One::Error(f.rel.clone(), source.to_string()));
            }
            other => other?,
        }
    }
    if let Some(reports) = reports {
        // A linked folder in the way is reported by the next verify; accept's work is done.
        let _ = remove_pending(f, reports)?;
    }
    Ok(outcome)
}
