//! `toolnorm review`: walk the pending outputs of failing fixtures, showing each diff, and accept,
//! reject or skip them. Interactive only: it needs a terminal on stdin. With `--serve`, the
//! report's page instead, with its tool-card previews and an accept button per fixture, served on
//! loopback (see `review_serve`).

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;

use anyhow::Context;

use crate::cli::exit;
use crate::verify::review::{list_pending, review};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The reports folder verify wrote (pending outputs are under `pending/`).
    #[arg(long, default_value = "reports")]
    pub reports: PathBuf,
    #[arg(long, default_value = "expected")]
    pub expected: PathBuf,
    /// With `--serve`: the corpus the report was verified from (what accepting re-normalizes).
    #[arg(long, default_value = "corpus")]
    pub corpus: PathBuf,
    /// Serve the report's page (the failing fixtures' tool cards, expected beside actual) on
    /// 127.0.0.1 with an accept button per fixture, at a URL with a one-time token, printed;
    /// until Ctrl-C or the page's Done button.
    #[arg(long)]
    pub serve: bool,
    /// With `--serve`: open the page in the browser ($BROWSER, else xdg-open / open).
    #[arg(long, requires = "serve")]
    pub open: bool,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    if args.serve {
        return crate::cli::review_serve::run(crate::cli::review_serve::Options {
            reports: args.reports,
            corpus: args.corpus,
            expected: args.expected,
            open: args.open,
        });
    }
    let (pending, skipped) = list_pending(&args.reports).with_context(|| {
        format!(
            "failed to list pending outputs under {}",
            args.reports.join("pending").display()
        )
    })?;
    for s in &skipped {
        writeln!(io::stderr(), "warning: {}", s.message())?;
    }
    if pending.is_empty() {
        writeln!(
            io::stdout(),
            "nothing to review: no pending outputs under {}",
            args.reports.join("pending").display()
        )?;
        return Ok(exit::SUCCESS);
    }
    if !io::stdin().is_terminal() {
        writeln!(
            io::stderr(),
            "error: toolnorm review is interactive and stdin is not a terminal; {} pending outputs wait under {} \
             (use toolnorm accept to accept outputs without prompting)",
            pending.len(),
            args.reports.join("pending").display()
        )?;
        return Ok(exit::ERROR);
    }
    let color =
        io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let tally = review(
        &pending,
        &args.expected,
        &mut io::stdin().lock(),
        &mut io::stdout().lock(),
        color,
    )
    .context("review failed")?;
    writeln!(
        io::stdout(),
        "accepted {}, rejected {}, skipped {}",
        tally.accepted,
        tally.rejected,
        tally.skipped
    )?;
    Ok(exit::SUCCESS)
}
