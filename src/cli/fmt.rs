//! `toolnorm fmt`: rewrite expected files canonically (`--check`: list them and exit 1). What
//! `verify` reports as formatting, this fixes; values are never changed.

use std::io::{self, Write};
use std::path::PathBuf;

use crate::cli::exit;
use crate::verify::fmt::fmt;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The reviewed outputs: `<provider>/<name>.json`.
    #[arg(long, default_value = "expected")]
    pub expected: PathBuf,
    /// Write nothing: list the files that are not canonical and exit 1 if there are any.
    #[arg(long)]
    pub check: bool,
    /// Only expected files matching this glob over `provider/name` or the fixture path.
    #[arg(long, value_name = "GLOB")]
    pub filter: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let done = fmt(&args.expected, args.filter.as_deref(), args.check)?;
    let root = args.expected.display();
    let mut out = io::stdout().lock();
    let verb = if args.check {
        "would reformat"
    } else {
        "reformatted"
    };
    for p in &done.changed {
        writeln!(out, "{verb} {root}/{p}")?;
    }
    writeln!(
        out,
        "fmt: {} {verb}, {} already canonical, {} left alone",
        done.changed.len(),
        done.unchanged,
        done.errors.len() + done.skipped.len()
    )?;
    drop(out);
    let mut err = io::stderr().lock();
    for s in &done.skipped {
        writeln!(err, "error: {}", s.message())?;
    }
    for (path, why) in &done.errors {
        writeln!(err, "error: {root}/{path}: {why}")?;
    }
    let failed = !done.errors.is_empty()
        || !done.skipped.is_empty()
        || (args.check && !done.changed.is_empty());
    Ok(if failed { exit::FAILURE } else { exit::SUCCESS })
}
