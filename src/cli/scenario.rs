//! `toolnorm scenario list|run|drift|matrix|compare`: the live scenarios of the real agent CLIs,
//! their version matrix, and the ACP adapters' scorecard.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, bail};
use clap::Subcommand;

use crate::cli::exit;
use crate::scenario::agents;
use crate::scenario::declared::{self, Features};
use crate::scenario::drift::{self, DriftOptions};
use crate::scenario::launch::RunOptions;
use crate::scenario::matrix::{self, MatrixOptions, Version};
use crate::scenario::matrix_render;
use crate::scenario::run::run_scenario;
use crate::scenario::spec::Scenario;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The folder of scenario files.
    #[arg(long, global = true, default_value = "scenarios")]
    pub scenarios: PathBuf,
    #[command(subcommand)]
    pub action: Action,
}

#[derive(Debug, Subcommand)]
pub enum Action {
    /// List the scenarios: name, agent, pinned CLI version, description.
    List,
    /// Record scenarios (all when no NAME is given) into the corpus.
    Run(RunArgs),
    /// Re-record one CLI's scenarios with another version and verify them against the expected files.
    Drift(DriftArgs),
    /// Record one CLI's scenarios with several versions and print the compatibility table.
    Matrix(MatrixArgs),
    /// The ACP adapters' scorecard: each adapter scenario's normalized output beside the native
    /// normalization of the scenario it mirrors, per part and per field (markdown on stdout).
    Compare(CompareArgs),
}

#[derive(Debug, clap::Args)]
pub struct MatrixArgs {
    /// The CLI and its versions, `codex@0.150.0,0.160.0,0.171.0`; the CLI alone (`codex`) with
    /// `--since` or `--last` picks published versions from the registry.
    #[arg(long)]
    pub cli: String,
    /// Versions published on or after this date (YYYY-MM-DD), from the registry.
    #[arg(long)]
    pub since: Option<String>,
    /// The last N versions published (after `--since`, if given), from the registry.
    #[arg(long)]
    pub last: Option<usize>,
    /// Scenario names (default: every scenario of that CLI).
    pub names: Vec<String>,
    /// The committed corpus the recordings are compared with.
    #[arg(long, default_value = "corpus")]
    pub corpus: PathBuf,
    /// Where matrix.md, matrix.html and matrix.json are written.
    #[arg(long, default_value = "reports/matrix")]
    pub reports: PathBuf,
    /// Keep each version's recordings in `DIR/<version>/` (a fixture per format era to commit).
    #[arg(long)]
    pub keep: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// Adapter scenario names (default: every scenario that `mirrors` another).
    pub names: Vec<String>,
    #[arg(long, default_value = "corpus")]
    pub corpus: PathBuf,
    /// Also write the scorecard as an HTML page here.
    #[arg(long)]
    pub html: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Scenario names (default: all).
    pub names: Vec<String>,
    #[arg(long, default_value = "corpus")]
    pub corpus: PathBuf,
    /// Overwrite fixtures that exist.
    #[arg(long)]
    pub force: bool,
    /// Keep each scratch HOME/workspace and print where it is.
    #[arg(long)]
    pub keep_scratch: bool,
    /// Write each scenario's model request log (JSONL) into this folder.
    #[arg(long)]
    pub request_logs: Option<PathBuf>,
    /// Write the agent's raw stream as plain `.jsonl`, without the recorder (exploration).
    #[arg(long)]
    pub raw: bool,
    /// Add the tools each CLI declared to the model to `DIR/<cli>-<version>.json`.
    #[arg(long, value_name = "DIR")]
    pub declared_tools: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct DriftArgs {
    /// The CLI and the version to try, e.g. `claude@2.1.198`, `codex@0.172.0`, `opencode@1.18.34`.
    #[arg(long)]
    pub cli: String,
    /// Scenario names (default: every scenario of that CLI).
    pub names: Vec<String>,
    /// The expected outputs to compare against.
    #[arg(long, default_value = "expected")]
    pub expected: PathBuf,
    /// Where verify writes its reports.
    #[arg(long, default_value = "reports/drift")]
    pub reports: PathBuf,
    /// Keep the temporary corpus of new recordings here instead of a temp folder.
    #[arg(long)]
    pub corpus: Option<PathBuf>,
    /// Scenarios recorded at once (0: one per CPU core). Each scenario has a scratch folder and a
    /// lock of its own, and its own model and MCP servers; a scenario interrupted at a fixed time
    /// (`interrupt_after_secs` without `interrupt_when_running`) is recorded afterwards, alone,
    /// since a slowed agent might not have printed anything by then.
    #[arg(long, default_value_t = 0)]
    pub jobs: usize,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let loaded = agents::load_dir(&args.scenarios)
        .with_context(|| format!("failed to list {}", args.scenarios.display()))?;
    let mut scenarios = Vec::new();
    let mut bad = 0;
    for r in loaded {
        match r {
            Ok(s) => scenarios.push(s),
            Err(e) => {
                eprintln!("error: {e}");
                bad += 1;
            }
        }
    }
    match args.action {
        Action::List => {
            for s in &scenarios {
                println!(
                    "{:<34} {:<17} {:<9} {}",
                    s.name,
                    s.agent.as_str(),
                    s.cli_version,
                    s.description
                );
            }
            Ok(if bad > 0 { exit::ERROR } else { exit::SUCCESS })
        }
        Action::Run(a) => {
            let chosen = select(&scenarios, &a.names)?;
            let opts = RunOptions {
                corpus: a.corpus,
                force: a.force,
                keep_scratch: a.keep_scratch,
                request_logs: a.request_logs,
                version_override: None,
                raw: a.raw,
            };
            let total = Instant::now();
            let mut failed = 0;
            let count = chosen.len();
            for s in chosen {
                eprintln!(
                    "recording {} ({} {})",
                    s.name,
                    s.agent.as_str(),
                    s.cli_version
                );
                match run_scenario(s, &opts) {
                    Ok(o) => {
                        eprintln!(
                            "  {} in {:.1}s, {} model requests",
                            o.fixture.display(),
                            o.elapsed.as_secs_f64(),
                            o.requests
                        );
                        if let Some(t) = &o.transcript {
                            eprintln!("  {} (its session transcript)", t.display());
                        }
                        for p in &o.problems {
                            eprintln!("  problem: {p}");
                        }
                        if !o.problems.is_empty() {
                            failed += 1;
                        }
                        if let Some(dir) = &a.declared_tools {
                            declared::merge(
                                dir,
                                agents::of(s)?.cli,
                                &o.cli_version,
                                Features::of_scenario(&s.name),
                                &o.declared,
                            )?;
                        }
                    }
                    Err(e) => {
                        eprintln!("  error: {}: {e:#}", s.name);
                        failed += 1;
                    }
                }
            }
            eprintln!(
                "{count} scenario(s), {failed} failed, {:.1}s in all",
                total.elapsed().as_secs_f64()
            );
            Ok(if failed > 0 || bad > 0 {
                exit::FAILURE
            } else {
                exit::SUCCESS
            })
        }
        Action::Matrix(a) => {
            let (cli, listed) = matrix::parse_matrix_cli(&a.cli)?;
            let versions: Vec<Version> = if a.since.is_some() || a.last.is_some() {
                if !listed.is_empty() {
                    bail!("--cli {}: give versions or --since/--last, not both", a.cli);
                }
                if let Some(s) = &a.since {
                    let ok = s.len() == 10
                        && s.bytes().enumerate().all(|(i, b)| {
                            if i == 4 || i == 7 {
                                b == b'-'
                            } else {
                                b.is_ascii_digit()
                            }
                        });
                    if !ok {
                        bail!("--since {s:?}: expected a date, YYYY-MM-DD");
                    }
                }
                let times = matrix::registry_times(cli)?;
                matrix::pick_versions(&times, a.since.as_deref(), a.last)
            } else {
                listed
                    .into_iter()
                    .map(|version| Version {
                        version,
                        published: None,
                    })
                    .collect()
            };
            if versions.is_empty() {
                bail!(
                    "--cli {}: no version to try (name some, or use --since / --last)",
                    a.cli
                );
            }
            let opts = MatrixOptions {
                cli,
                versions,
                names: a.names,
                corpus: a.corpus,
                reports: a.reports.clone(),
                keep: a.keep,
            };
            let m = matrix::run(&scenarios, &opts)?;
            print!("{}", matrix_render::terminal(&m));
            let files = matrix_render::write_all(&m, &a.reports)?;
            for f in files {
                eprintln!("wrote {}", f.display());
            }
            let all_same = m
                .rows
                .iter()
                .all(|r| r.cells.iter().all(|c| *c == matrix::Cell::Same));
            Ok(if all_same {
                exit::SUCCESS
            } else {
                exit::FAILURE
            })
        }
        Action::Compare(a) => compare(&scenarios, a),
        Action::Drift(a) => {
            let opts = DriftOptions {
                cli: a.cli,
                names: a.names,
                expected: a.expected,
                reports: a.reports,
                corpus: a.corpus,
                strict: crate::verify::strict_from_env(std::env::var("CI").ok().as_deref()),
                jobs: a.jobs,
            };
            let outcome = drift::run(&scenarios, &opts)?;
            let mut out = anstream::stdout().lock();
            crate::report::terminal::render(
                &outcome.report,
                &mut out,
                true,
                Some(&opts.reports.display().to_string()),
            )
            .context("failed to print the report")?;
            drop(out);
            let unsteady = match outcome.unsteady {
                0 => String::new(),
                n => format!(
                    " ({n} more changed in a first recording but not in a second: the CLI's own unsteadiness)"
                ),
            };
            eprintln!(
                "drift of {}: {} of {} scenario(s) changed{unsteady}; {}",
                opts.cli,
                outcome.changed,
                outcome.scenarios,
                outcome.drift_md.display()
            );
            // One verdict: the report's, which every file under --reports states too.
            Ok(super::verify::gate_exit(&outcome.report))
        }
    }
}

/// Normalize a fixture of the corpus as `verify` does: provider from its folder, dialect from its
/// header, its recorded working directory.
fn normalize_fixture(path: &std::path::Path) -> anyhow::Result<crate::model::NormalizedDocument> {
    use crate::providers::NormalizeOptions;
    use crate::stream::{Dialect, Provider};
    let stream = crate::corpus::load_stream(path)?;
    let provider: Option<Provider> = stream.provider.as_deref().and_then(|p| p.parse().ok());
    let dialect = stream
        .dialect
        .as_deref()
        .and_then(|d| Dialect::parse(d, provider).ok());
    let opts = NormalizeOptions {
        provider,
        dialect,
        cwd: stream.cwd.as_deref(),
    };
    crate::normalizer::normalize(&stream.input(), opts).with_context(|| path.display().to_string())
}

fn compare(scenarios: &[Scenario], a: CompareArgs) -> anyhow::Result<u8> {
    use crate::scenario::scorecard;
    let chosen: Vec<&Scenario> = select(scenarios, &a.names)?
        .into_iter()
        .filter(|s| s.mirrors.is_some())
        .collect();
    if chosen.is_empty() {
        bail!("no scenario mirrors another (set `mirrors` in an adapter's scenario)");
    }
    let fixture = |s: &Scenario| -> anyhow::Result<PathBuf> {
        Ok(a.corpus
            .join(agents::of(s)?.provider.as_str())
            .join(format!("{}.jsonl.zst", s.fixture_name())))
    };
    let mut cards = Vec::new();
    let mut missing = 0;
    for s in chosen {
        let Some(native) = s
            .mirrors
            .as_deref()
            .and_then(|m| scenarios.iter().find(|n| n.name == m))
        else {
            eprintln!(
                "error: {}: mirrors {:?}, which is no scenario",
                s.name, s.mirrors
            );
            missing += 1;
            continue;
        };
        let (acp_path, native_path) = (fixture(s)?, fixture(native)?);
        if !acp_path.exists() || !native_path.exists() {
            eprintln!(
                "skipped {}: {} or {} is not recorded",
                s.name,
                acp_path.display(),
                native_path.display()
            );
            missing += 1;
            continue;
        }
        let acp = normalize_fixture(&acp_path)?;
        let nat = normalize_fixture(&native_path)?;
        cards.push(scorecard::card(
            s.agent.as_str(),
            &s.name,
            &native.name,
            &nat,
            &acp,
        ));
    }
    print!("{}", scorecard::markdown(&cards));
    if let Some(path) = &a.html {
        std::fs::write(path, scorecard::html_page(&cards))
            .with_context(|| format!("failed to write {}", path.display()))?;
    }
    Ok(if missing > 0 {
        exit::FAILURE
    } else {
        exit::SUCCESS
    })
}

/// The scenarios named, or every one but the all-tools ones (`*-all-tools`: they are run by
/// name, for what their release declares, and make no corpus fixture of their own).
fn select<'a>(all: &'a [Scenario], names: &[String]) -> anyhow::Result<Vec<&'a Scenario>> {
    if names.is_empty() {
        return Ok(all
            .iter()
            .filter(|s| Features::of_scenario(&s.name) != Features::All)
            .collect());
    }
    let mut out = Vec::new();
    for n in names {
        let n = n.strip_prefix("live-").unwrap_or(n);
        match all.iter().find(|s| s.name == n) {
            Some(s) => out.push(s),
            None => bail!("no scenario named {n:?} (see `toolnorm scenario list`)"),
        }
    }
    Ok(out)
}
