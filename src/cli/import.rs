//! `toolnorm import PATH...`: turn existing session files into corpus fixtures.

use std::io::{self, IsTerminal};
use std::path::PathBuf;

use crate::cli::exit;
use crate::cli::record::parse_map_paths;
use crate::corpus::import::{ImportOptions, Imported, collect_inputs, import_file};
use crate::corpus::redact::{Redactor, home_dir};
use crate::stream::Provider;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Session files or directories (walked recursively for *.jsonl and *.json).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Only accept this provider's dialects (default: detect).
    #[arg(long)]
    pub provider: Option<Provider>,
    /// Corpus directory; fixtures go to `DIR/<provider>/<name>.jsonl.zst`.
    #[arg(long, value_name = "DIR", default_value = "corpus")]
    pub corpus: PathBuf,
    /// Overwrite existing fixtures.
    #[arg(long)]
    pub force: bool,
    /// An extra pattern to redact (repeatable), recorded as kind `custom`.
    #[arg(long = "redact", value_name = "REGEX")]
    pub redact: Vec<String>,
    /// Replace a path prefix (repeatable): --map-path /tmp/x=/work.
    #[arg(long = "map-path", value_name = "FROM=TO")]
    pub map_path: Vec<String>,
}

/// Show a progress bar from this many files on.
const PROGRESS_FROM: usize = 20;

pub fn run(args: Args) -> anyhow::Result<u8> {
    let redactor = Redactor::for_user(parse_map_paths(&args.map_path)?, args.redact.clone())?;
    let (files, errors) = collect_inputs(&args.paths);
    for e in &errors {
        eprintln!("error: {e}");
    }
    let opts = ImportOptions {
        detect: crate::dialects::detector,
        corpus: &args.corpus,
        provider: args.provider,
        force: args.force,
        redactor: &redactor,
        home: home_dir(),
    };
    let bar = (files.len() >= PROGRESS_FROM && io::stderr().is_terminal()).then(|| {
        let pb = indicatif::ProgressBar::new(files.len() as u64);
        if let Ok(style) =
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {wide_msg}")
        {
            pb.set_style(style);
        }
        pb
    });
    let say = |msg: String| match &bar {
        Some(pb) => pb.suspend(|| eprintln!("{msg}")),
        None => eprintln!("{msg}"),
    };
    let (mut done, mut skipped, mut failed) = (0, 0, errors.len());
    for f in &files {
        if let Some(pb) = &bar {
            pb.set_message(f.display().to_string());
        }
        match import_file(f, &opts) {
            Imported::Done {
                source,
                fixture,
                dialect,
                lines,
                redactions,
                ..
            } => {
                done += 1;
                let red = if redactions > 0 {
                    format!(", {redactions} redactions")
                } else {
                    String::new()
                };
                say(format!(
                    "imported {} → {} ({dialect}, {lines} lines{red})",
                    source.display(),
                    fixture.display()
                ));
            }
            Imported::Skipped { source, reason } => {
                skipped += 1;
                say(format!("skipped {}: {reason}", source.display()));
            }
            Imported::Failed { source, error } => {
                failed += 1;
                say(format!("error: {}: {error}", source.display()));
            }
        }
        if let Some(pb) = &bar {
            pb.inc(1);
        }
    }
    if let Some(pb) = bar {
        pb.finish_and_clear();
    }
    eprintln!("{done} imported, {skipped} skipped, {failed} failed");
    Ok(if failed > 0 {
        exit::ERROR
    } else {
        exit::SUCCESS
    })
}
