//! `toolnorm report merge DIR...`: combine sharded runs' `report.json` into one set of reports.

use std::path::PathBuf;

use anyhow::Context;

use crate::report::{self, terminal};
use crate::verify::merge::merge;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: ReportCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum ReportCommand {
    /// Merge the reports of shards (`verify --shard K/N`) into one.
    Merge(MergeArgs),
}

#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// Shard report folders (or their report.json files).
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Where the merged reports go.
    #[arg(long, default_value = "reports")]
    pub reports: PathBuf,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    match args.command {
        ReportCommand::Merge(m) => {
            let merged = merge(&m.dirs)?;
            report::write_all(&merged, &m.reports)?;
            let mut out = anstream::stdout().lock();
            terminal::render(
                &merged,
                &mut out,
                true,
                Some(&m.reports.display().to_string()),
            )
            .context("failed to print the report")?;
            Ok(super::verify::gate_exit(&merged))
        }
    }
}
