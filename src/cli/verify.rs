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
use crate::verify::timings::{self, Phase, ProcessCpu, Timings};
use crate::verify::{Selected, Selection, VerifyOptions, strict_from_env, verify_counted};
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
    /// Where the reports (and pending outputs of failing fixtures) go; while the run lasts, it
    /// also holds the spool of its results (an unlinked file where the system allows).
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
    /// Pass when the corpus, `--filter` or `--provider` select no fixture at all (by default that
    /// fails: a typo in a CI filter must not turn the gate off). An empty `--shard` of a
    /// selection that is not empty always passes: the other shards check its fixtures.
    #[arg(long)]
    pub allow_empty: bool,
    /// Print where the run's time went, phase by phase (listing, reading, normalizing, rules,
    /// comparing, reports), with the process's CPU time, on stderr after the report.
    #[arg(long)]
    pub timings: bool,
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
    let timings = args.timings.then(|| Arc::new(Timings::new(true)));
    let jobs = if args.jobs == 0 {
        rayon::current_num_threads()
    } else {
        args.jobs
    };
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
        compare: crate::compare::CompareMode::Exact,
        timings: timings.clone(),
    };
    let folders = crate::report::cards::preview::Folders {
        corpus: opts.corpus.clone(),
        expected: opts.expected.clone(),
        reports: opts.reports.clone(),
    };
    let corpus = opts.corpus.display().to_string();
    let selection = opts.selection.clone();
    let bar = progress_bar();
    let report = verify_counted(&opts, &|n| bar.set_length(n as u64), &|f| {
        bar.set_message(format!("{}/{}", f.provider, f.name));
        bar.inc(1);
    });
    implementation.finish();
    let (mut report, counts) = report?;
    bar.finish_and_clear();
    let empty = empty_selection(&selection, counts, &corpus, args.allow_empty);
    // The verdict lives in the report, so report.json, JUnit and the job summary say what the exit
    // code says.
    report.summary.nothing_selected = matches!(empty, Some(Empty::Fails(_)));
    timings
        .as_deref()
        .unwrap_or(&timings::OFF)
        .time(Phase::Reports, || {
            // The failing fixtures' previews: their cards, read back from what the run wrote.
            let previews = crate::report::cards::preview::build(&report, &folders);
            report::write_all_with(&report, &previews, &args.reports)
        })?;
    let mut out = anstream::stdout().lock();
    terminal::render(
        &report,
        &mut out,
        true,
        Some(&args.reports.display().to_string()),
    )
    .context("failed to print the report")?;
    drop(out);
    match empty {
        Some(Empty::Fails(why)) => eprintln!("error: {why}"),
        Some(Empty::Note(why)) => eprintln!("note: {why}"),
        None => {}
    }
    if let Some(t) = &timings {
        eprint!(
            "{}",
            timings::render(t, counts.checked, jobs, process_cpu())
        );
    }
    Ok(gate_exit(&report))
}

/// The CPU time this process has used so far, user and system, as the system counts it.
#[cfg(unix)]
fn process_cpu() -> Option<ProcessCpu> {
    // SAFETY: getrusage fills the struct it is given; a zeroed rusage is a valid value of it.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return None;
    }
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64)
    };
    Some(ProcessCpu {
        user: time(ru.ru_utime),
        system: time(ru.ru_stime),
    })
}

#[cfg(not(unix))]
fn process_cpu() -> Option<ProcessCpu> {
    None
}

/// What to say about a run that checked no fixture.
#[derive(Debug, PartialEq, Eq)]
enum Empty {
    /// Nothing was selected and `--allow-empty` was not given: the gate fails.
    Fails(String),
    /// Nothing was checked, and that is fine (allowed, or an empty shard of a selection).
    Note(String),
}

/// A gate that checked nothing says nothing: it fails unless `allow_empty`. Emptiness is judged
/// before `--shard`: a CI matrix of N shards over a corpus of fewer than N fixtures has empty
/// shards by design (the other shards check every fixture), while a filter that matches nothing
/// empties every shard, and fails each of them.
fn empty_selection(
    selection: &Selection,
    counts: Selected,
    corpus: &str,
    allow_empty: bool,
) -> Option<Empty> {
    if counts.checked > 0 {
        return None;
    }
    if counts.matching > 0 {
        let shard = selection.shard.map(|s| s.to_string()).unwrap_or_default();
        return Some(Empty::Note(format!(
            "shard {shard} holds none of the {} selected fixtures: the other shards check them",
            counts.matching
        )));
    }
    let mut by = Vec::new();
    if let Some(f) = &selection.filter {
        by.push(format!("--filter '{f}'"));
    }
    if let Some(p) = selection.provider {
        by.push(format!("--provider {p}"));
    }
    let what = if counts.corpus == 0 {
        format!("the corpus {corpus} holds no fixture (<provider>/<name>.jsonl.zst)")
    } else {
        format!(
            "{} selects none of the {} fixtures in {corpus}",
            by.join(" "),
            counts.corpus
        )
    };
    let shard = selection
        .shard
        .map(|s| format!(" (so shard {s} is empty too)"))
        .unwrap_or_default();
    Some(if allow_empty {
        Empty::Note(format!("no fixture checked: {what}{shard}"))
    } else {
        Empty::Fails(format!(
            "no fixture checked: {what}{shard}; a gate that checks nothing fails (pass --allow-empty if that is intended)"
        ))
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(corpus: usize, matching: usize, checked: usize) -> Selected {
        Selected {
            corpus,
            matching,
            checked,
        }
    }

    #[test]
    fn a_selection_of_nothing_fails_unless_allowed() {
        let typo = Selection {
            filter: Some("claude/typo-*".to_owned()),
            provider: Some(Provider::Claude),
            shard: None,
        };
        let Some(Empty::Fails(why)) = empty_selection(&typo, counts(3, 0, 0), "corpus", false)
        else {
            panic!("an empty selection must fail")
        };
        assert!(
            why.contains("--filter 'claude/typo-*' --provider claude selects none of the 3 fixtures in corpus"),
            "{why}"
        );
        assert!(why.contains("--allow-empty"), "{why}");
        assert!(matches!(
            empty_selection(&typo, counts(3, 0, 0), "corpus", true),
            Some(Empty::Note(_))
        ));
        let all = Selection::default();
        let Some(Empty::Fails(why)) = empty_selection(&all, counts(0, 0, 0), "c", false) else {
            panic!("an empty corpus must fail")
        };
        assert!(why.contains("the corpus c holds no fixture"), "{why}");
        assert_eq!(empty_selection(&all, counts(3, 3, 3), "c", false), None);
    }

    #[test]
    fn an_empty_shard_of_a_selection_passes_and_of_nothing_fails() {
        let shard = Selection {
            shard: Some("5/5".parse().expect("a shard")),
            ..Selection::default()
        };
        let Some(Empty::Note(why)) = empty_selection(&shard, counts(3, 3, 0), "c", false) else {
            panic!("an empty shard of 3 fixtures is a note")
        };
        assert!(
            why.contains("shard 5/5 holds none of the 3 selected fixtures"),
            "{why}"
        );
        let Some(Empty::Fails(why)) = empty_selection(&shard, counts(0, 0, 0), "c", false) else {
            panic!("an empty shard of nothing fails")
        };
        assert!(why.contains("(so shard 5/5 is empty too)"), "{why}");
    }
}
