//! `toolnorm verify`: the CI gate. Runs [`crate::verify::verify`], writes every report under
//! `--reports`, prints the terminal report and exits 0 (all conform) or 1 (failures).

use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::report::{self, terminal};
use crate::stream::Provider;
use crate::verify::implementation::{External, Implementation};
use crate::verify::shard::Shard;
use crate::verify::{Selection, VerifyOptions, strict_from_env, verify};
use std::sync::Arc;
use std::time::Duration;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The raw fixtures: `<provider>/<name>.jsonl.zst`.
    #[arg(long, default_value = "corpus")]
    pub corpus: PathBuf,
    /// The reviewed outputs: `<provider>/<name>.json`.
    #[arg(long, default_value = "expected")]
    pub expected: PathBuf,
    /// Where the reports (and pending outputs of failing fixtures) go.
    #[arg(long, default_value = "reports")]
    pub reports: PathBuf,
    /// Known failures [default: expectations.toml, if present].
    #[arg(long)]
    pub expectations: Option<PathBuf>,
    /// Worker threads (0: one per core).
    #[arg(long, short = 'j', default_value_t = 0)]
    pub jobs: usize,
    /// Check only shard K of N (stable, balanced by fixture size), e.g. `--shard 2/4`.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// Only fixtures matching this glob over `provider/name` or the corpus path (`claude/live-*`).
    #[arg(long, value_name = "GLOB")]
    pub filter: Option<String>,
    /// Only this provider's fixtures.
    #[arg(long)]
    pub provider: Option<Provider>,
    /// Stop starting new fixtures after the first failure.
    #[arg(long)]
    pub fail_fast: bool,
    /// Fail when a known failure now passes [default: on when CI is set].
    #[arg(long, overrides_with = "no_strict")]
    pub strict: bool,
    /// Report fixed known failures without failing.
    #[arg(long, overrides_with = "strict")]
    pub no_strict: bool,
    /// Judge an external implementation: a command (run through `sh -c`) speaking the protocol
    /// on stdio (docs/protocol.md), one worker process per job.
    #[arg(long = "impl", value_name = "CMD")]
    pub implementation: Option<String>,
    /// Name the implementation in reports [default: the name it gives in `hello`].
    #[arg(long, value_name = "NAME", requires = "implementation")]
    pub impl_name: Option<String>,
    /// Seconds an implementation has to answer one fixture (or `hello`).
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = 10.0,
        requires = "implementation"
    )]
    pub timeout: f64,
    /// Fail fixtures whose dialect the implementation does not claim (default: `unsupported`).
    #[arg(long)]
    pub require_all: bool,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let strict = if args.strict {
        true
    } else if args.no_strict {
        false
    } else {
        strict_from_env(std::env::var("CI").ok().as_deref())
    };
    let implementation = match &args.implementation {
        None => Implementation::BuiltIn,
        Some(cmd) => {
            if !(args.timeout.is_finite() && args.timeout > 0.0) {
                anyhow::bail!("--timeout must be a positive number of seconds");
            }
            let timeout = Duration::from_secs_f64(args.timeout);
            let ext = External::start(cmd, args.impl_name.clone(), timeout)
                .map_err(|e| anyhow::anyhow!("implementation `{cmd}`: {e}"))?;
            Implementation::External(ext)
        }
    };
    let implementation = Arc::new(implementation);
    let opts = VerifyOptions {
        implementation: Arc::clone(&implementation),
        require_all: args.require_all,
        corpus: args.corpus,
        expected: args.expected,
        reports: args.reports.clone(),
        expectations_required: args.expectations.is_some(),
        expectations: args
            .expectations
            .unwrap_or_else(|| PathBuf::from("expectations.toml")),
        jobs: args.jobs,
        selection: Selection {
            filter: args.filter,
            provider: args.provider,
            shard: args.shard,
        },
        fail_fast: args.fail_fast,
        strict,
        write_pending: true,
    };
    let bar = progress_bar();
    let report = verify(&opts, &|n| bar.set_length(n as u64), &|f| {
        bar.set_message(format!("{}/{}", f.provider, f.name));
        bar.inc(1);
    });
    implementation.finish();
    let report = report?;
    bar.finish_and_clear();
    report::write_all(&report, &args.reports)?;
    let mut out = anstream::stdout().lock();
    terminal::render(
        &report,
        &mut out,
        true,
        Some(&args.reports.display().to_string()),
    )
    .context("failed to print the report")?;
    Ok(gate_exit(&report))
}

/// A progress bar on stderr when a person is watching; hidden otherwise (CI logs stay clean).
pub fn progress_bar() -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("{spinner} [{bar:30}] {pos}/{len} {elapsed} {wide_msg}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// The exit code of a finished gate: 1 when the report's verdict fails the gate, else 0.
pub(crate) fn gate_exit(report: &crate::report::Report) -> u8 {
    if report.summary.fails_gate() {
        super::exit::FAILURE
    } else {
        super::exit::SUCCESS
    }
}
