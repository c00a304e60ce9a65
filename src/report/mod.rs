//! Report writers: one renderer per format over a finished [`Report`]. Renderers compute nothing.

pub mod cards;
pub mod compliance;
pub(crate) mod escape;
pub mod fixtures;
pub mod html;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod model;
pub mod result;
#[doc(hidden)]
pub mod sample;
pub mod terminal;

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

pub use fixtures::Fixtures;
pub use model::*;
pub use result::{FixtureResult, Status, Violation};

/// The files every verify run (and `report merge`) writes under `--reports`.
pub const REPORT_FILES: [&str; 4] = ["report.json", "junit.xml", "summary.md", "index.html"];

#[derive(Debug, thiserror::Error)]
#[error("failed to write {}: {source}", path.display())]
pub struct WriteError {
    pub path: PathBuf,
    #[source]
    pub source: io::Error,
}

/// Write every report file into `dir` (created if needed). Returns the files written.
pub fn write_all(report: &Report, dir: &Path) -> Result<Vec<PathBuf>, WriteError> {
    write_all_with(report, &cards::preview::Previews::default(), dir)
}

/// [`write_all`], `index.html` with the failing fixtures' previews (see [`cards::preview`]).
pub fn write_all_with(
    report: &Report,
    previews: &cards::preview::Previews,
    dir: &Path,
) -> Result<Vec<PathBuf>, WriteError> {
    fs::create_dir_all(dir).map_err(|source| WriteError {
        path: dir.to_owned(),
        source,
    })?;
    let mut written = Vec::new();
    write_one(dir, "report.json", &mut written, |out| {
        json::render(report, out)
    })?;
    write_one(dir, "junit.xml", &mut written, |out| {
        junit::render(report, out)
    })?;
    write_one(dir, "summary.md", &mut written, |out| {
        markdown::render(report, out)
    })?;
    write_one(dir, "index.html", &mut written, |out| {
        html::render_with(report, previews, out)
    })?;
    Ok(written)
}

fn write_one(
    dir: &Path,
    name: &str,
    written: &mut Vec<PathBuf>,
    render: impl FnOnce(&mut BufWriter<fs::File>) -> io::Result<()>,
) -> Result<(), WriteError> {
    let path = dir.join(name);
    let fail = |source| WriteError {
        path: path.clone(),
        source,
    };
    let file = fs::File::create(&path).map_err(fail)?;
    let mut out = BufWriter::new(file);
    render(&mut out).map_err(fail)?;
    out.flush().map_err(fail)?;
    written.push(path);
    Ok(())
}
