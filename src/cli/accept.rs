//! `toolnorm accept`: write the selected fixtures' actual outputs over their expected files
//! (creating missing ones). Run it after reviewing the diffs.

use std::io::{self, Write};
use std::path::PathBuf;

use crate::cli::exit;
use crate::stream::Provider;
use crate::verify::Selection;
use crate::verify::accept::accept;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[arg(long, default_value = "corpus")]
    pub corpus: PathBuf,
    #[arg(long, default_value = "expected")]
    pub expected: PathBuf,
    /// Pending outputs of accepted fixtures are removed from here.
    #[arg(long, default_value = "reports")]
    pub reports: PathBuf,
    /// Only fixtures matching this glob over `provider/name` or the corpus path.
    #[arg(long, value_name = "GLOB")]
    pub filter: Option<String>,
    #[arg(long)]
    pub provider: Option<Provider>,
    /// Worker threads (0: one per core).
    #[arg(long, short = 'j', default_value_t = 0)]
    pub jobs: usize,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let selection = Selection {
        filter: args.filter,
        provider: args.provider,
        shard: None,
    };
    let done = accept(
        &args.corpus,
        &args.expected,
        Some(&args.reports),
        &selection,
        args.jobs,
    )?;
    let mut out = io::stdout().lock();
    for p in &done.created {
        writeln!(out, "created {p}")?;
    }
    for p in &done.updated {
        writeln!(out, "updated {p}")?;
    }
    writeln!(
        out,
        "accepted: {} created, {} updated, {} unchanged, {} not normalizable",
        done.created.len(),
        done.updated.len(),
        done.unchanged,
        done.errors.len()
    )?;
    let mut err = io::stderr().lock();
    for s in &done.skipped {
        writeln!(err, "warning: {}", s.message())?;
    }
    for (path, why) in &done.errors {
        writeln!(err, "error: {path}: {why} (expected file left alone)")?;
    }
    Ok(if done.errors.is_empty() {
        exit::SUCCESS
    } else {
        exit::FAILURE
    })
}
