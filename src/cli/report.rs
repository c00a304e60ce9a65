//! `toolnorm report merge DIR...`: combine sharded runs' `report.json` into one set of reports, or several
//! implementations' reports into their compliance matrix.

use std::path::PathBuf;

use anyhow::Context;

use std::io::Write;

use crate::report::{self, compliance, terminal};
use crate::verify::merge::{Merged, merge_any};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: ReportCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum ReportCommand {
    /// Merge the reports of shards (`verify --shard K/N`) into one; reports of several
    /// implementations (`verify --impl`) into their compliance matrix.
    Merge(MergeArgs),
}

#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// Report folders (or their report.json files): shards, or several implementations' runs.
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Where the merged reports go.
    #[arg(long, default_value = "reports")]
    pub reports: PathBuf,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    match args.command {
        ReportCommand::Merge(m) => match merge_any(&m.dirs)? {
            Merged::One(merged) => {
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
            Merged::Many(c) => {
                // Each implementation's own reports (with its diffs) in its folder, the
                // compliance matrix beside them.
                for (r, folder) in c.reports.iter().zip(c.folders()) {
                    report::write_all(r, &m.reports.join(folder))?;
                }
                write_file(&m.reports.join("compliance.json"), |o| {
                    compliance::render_json(&c, o)
                })?;
                write_file(&m.reports.join("summary.md"), |o| {
                    compliance::render_markdown(&c, o)
                })?;
                write_file(&m.reports.join("index.html"), |o| {
                    compliance::render_html(&c, o)
                })?;
                let mut out = anstream::stdout().lock();
                compliance::render_terminal(&c, &mut out).context("failed to print the report")?;
                writeln!(
                    out,
                    "reports: {}/index.html, compliance.json, summary.md; one folder per implementation",
                    m.reports.display()
                )?;
                Ok(if c.fails_gate() {
                    super::exit::FAILURE
                } else {
                    super::exit::SUCCESS
                })
            }
        },
    }
}

fn write_file(
    path: &std::path::Path,
    render: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    use std::io::Write as _;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("failed to create {}", dir.display()))?;
    }
    let file = std::fs::File::create(path)
        .with_context(|| format!("failed to write {}", path.display()))?;
    let mut out = std::io::BufWriter::new(file);
    render(&mut out)
        .and_then(|()| out.flush())
        .with_context(|| format!("failed to write {}", path.display()))
}
