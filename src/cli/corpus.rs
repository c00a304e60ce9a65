//! `toolnorm corpus …`: corpus-wide commands — `lint` (no secret may be committed) and `list`.

use std::path::PathBuf;

use crate::cli::exit;
use crate::corpus::lint::lint_corpus;
use crate::corpus::redact::{RedactOptions, Redactor};
use crate::corpus::scan_fixtures;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: CorpusCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum CorpusCommand {
    /// Scan every fixture for secrets; exit 1 naming file, line and kind of each.
    Lint {
        /// Corpus directory.
        #[arg(long, value_name = "DIR", default_value = "corpus")]
        corpus: PathBuf,
        /// An extra pattern to refuse (repeatable).
        #[arg(long = "redact", value_name = "REGEX")]
        redact: Vec<String>,
    },
    /// List the fixtures: provider, name, compressed size.
    List {
        #[arg(long, value_name = "DIR", default_value = "corpus")]
        corpus: PathBuf,
    },
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    match args.command {
        CorpusCommand::Lint { corpus, redact } => {
            // Secrets only: a path is not a secret, and the linting machine's home says nothing
            // about the recording machine's.
            let detector = Redactor::new(&RedactOptions {
                extra: redact,
                ..RedactOptions::default()
            })?;
            let report = lint_corpus(&corpus, &detector);
            for s in scan_fixtures(&corpus).skipped {
                eprintln!("warning: {}", s.message());
            }
            for (path, note) in &report.problems {
                eprintln!("warning: {}: {note}", path.display());
            }
            for f in &report.findings {
                let line = if f.line == 0 {
                    "header".to_owned()
                } else {
                    format!("line {}", f.line)
                };
                println!("{}: {line}: {}", f.path.display(), f.kind);
            }
            eprintln!(
                "{} fixtures scanned, {} secrets found",
                report.fixtures,
                report.findings.len()
            );
            Ok(if report.findings.is_empty() {
                exit::SUCCESS
            } else {
                exit::FAILURE
            })
        }
        CorpusCommand::List { corpus } => {
            let listing = scan_fixtures(&corpus);
            for s in &listing.skipped {
                eprintln!("warning: {}", s.message());
            }
            for e in listing.fixtures {
                println!("{}\t{}\t{}", e.provider, e.name, e.size);
            }
            Ok(exit::SUCCESS)
        }
    }
}
