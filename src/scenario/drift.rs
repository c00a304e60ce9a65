//! `scenario drift`: re-record one CLI's scenarios with another version into a temporary corpus
//! and run `toolnorm verify` on them against the current expected outputs, so the report shows
//! exactly what the new version changed.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

use super::run::{RunOptions, run_scenario};
use super::spec::{Cli, Scenario};
use crate::exit;

#[derive(Debug, Clone)]
pub struct DriftOptions {
    /// `NAME@VERSION`.
    pub cli: String,
    pub names: Vec<String>,
    pub expected: PathBuf,
    pub reports: PathBuf,
    /// Keep the new recordings here (default: a temporary folder, removed afterwards).
    pub corpus: Option<PathBuf>,
}

/// Split `claude@2.1.198` into the CLI and the version.
pub fn parse_cli_spec(spec: &str) -> anyhow::Result<(Cli, String)> {
    let (name, version) = spec.rsplit_once('@').filter(|(n, v)| !n.is_empty() && !v.is_empty()).with_context(|| {
        format!("--cli {spec:?}: expected NAME@VERSION, e.g. claude@2.1.198, codex@0.172.0, opencode@1.18.34")
    })?;
    let cli = Cli::parse(name).with_context(|| {
        format!("--cli {spec:?}: unknown CLI {name:?} (claude, codex or opencode)")
    })?;
    Ok((cli, version.to_owned()))
}

/// Run the drift check; the exit code is verify's.
pub fn run(all: &[Scenario], opts: &DriftOptions) -> anyhow::Result<u8> {
    let (cli, version) = parse_cli_spec(&opts.cli)?;
    let chosen: Vec<&Scenario> = all
        .iter()
        .filter(|s| s.agent.cli() == cli)
        .filter(|s| {
            opts.names.is_empty()
                || opts
                    .names
                    .iter()
                    .any(|n| n.strip_prefix("live-").unwrap_or(n) == s.name)
        })
        .collect();
    if chosen.is_empty() {
        bail!("no scenario of {} matches", cli.display());
    }
    let temp = std::env::temp_dir().join(format!("toolnorm-drift-{}", std::process::id()));
    let corpus = opts.corpus.clone().unwrap_or_else(|| temp.join("corpus"));
    let expected = temp.join("expected");
    fs::create_dir_all(&expected)
        .with_context(|| format!("failed to create {}", expected.display()))?;

    let run_opts = RunOptions {
        corpus: corpus.clone(),
        force: true,
        keep_scratch: false,
        request_logs: Some(opts.reports.join("requests")),
        version_override: Some(version.clone()),
        raw: false,
    };
    let mut recorded = 0;
    for s in &chosen {
        eprintln!("re-recording {} with {}@{version}", s.name, cli.display());
        match run_scenario(s, &run_opts) {
            Ok(o) => {
                for p in &o.problems {
                    eprintln!("  problem: {p}");
                }
                // Verify compares only what was re-recorded: copy just these expected files.
                let rel = Path::new(s.agent.provider()).join(format!("{}.json", s.fixture_name()));
                let from = opts.expected.join(&rel);
                if from.exists() {
                    let to = expected.join(&rel);
                    if let Some(p) = to.parent() {
                        fs::create_dir_all(p)
                            .with_context(|| format!("failed to create {}", p.display()))?;
                    }
                    fs::copy(&from, &to)
                        .with_context(|| format!("failed to copy {}", from.display()))?;
                } else {
                    eprintln!(
                        "  note: no expected output {} yet; verify reports it as new",
                        from.display()
                    );
                }
                recorded += 1;
            }
            Err(e) => eprintln!("  error: {}: {e:#}", s.name),
        }
    }
    if recorded == 0 {
        bail!(
            "no scenario could be re-recorded with {}@{version}",
            cli.display()
        );
    }
    let exe = std::env::current_exe().context("failed to locate the toolnorm executable")?;
    let status = Command::new(exe)
        .arg("verify")
        .arg("--corpus")
        .arg(&corpus)
        .arg("--expected")
        .arg(&expected)
        .arg("--reports")
        .arg(&opts.reports)
        .status()
        .context("failed to run toolnorm verify")?;
    if opts.corpus.is_none() {
        let _ = fs::remove_dir_all(&temp);
    } else {
        let _ = fs::remove_dir_all(&expected);
    }
    eprintln!(
        "drift report for {}@{version}: {}",
        cli.display(),
        opts.reports.display()
    );
    Ok(match status.code() {
        Some(0) => exit::SUCCESS,
        Some(1) => exit::FAILURE,
        _ => exit::ERROR,
    })
}
