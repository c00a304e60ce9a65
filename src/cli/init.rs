//! `toolnorm init [DIR]`: scaffold a repository that toolnorm checks: `corpus/` (with one starter
//! fixture), `expected/` (its reviewed output), `expectations.toml`, `corpus/README.md` and the
//! GitHub Actions gate `.github/workflows/toolnorm.yml`. Existing files are never overwritten
//! without `--force`, and nothing is written through a link even then.
//!
//! The starter fixture is one of the shipped corpus's own recordings, embedded in the binary with
//! its expected output: `verify` refuses a gate that checks nothing, and a real fixture proves the
//! whole chain (record format, normalizer, expected file, CI) works from the first commit, where
//! `--allow-empty` in the workflow would keep passing silently if the corpus were never filled.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::cli::exit;
use crate::corpus::confined;

/// The starter fixture: `claude/live-claude-bash`, a Claude Code session running two shell
/// commands (one succeeds, one fails), recorded by this project.
const STARTER_FIXTURE: &[u8] = include_bytes!("../../corpus/claude/live-claude-bash.jsonl.zst");
const STARTER_EXPECTED: &[u8] = include_bytes!("../../expected/claude/live-claude-bash.json");
const WORKFLOW: &str = include_str!("init/toolnorm.yml");
const EXPECTATIONS: &str = include_str!("init/expectations.toml");
const README: &str = include_str!("init/README.md");
const REPORTS_GITIGNORE: &str = include_str!("init/gitignore");

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The repository to scaffold (created if missing).
    #[arg(default_value = ".")]
    pub dir: PathBuf,
    /// Overwrite files that exist (never through a link).
    #[arg(long)]
    pub force: bool,
}

/// The files `init` writes: (path relative to DIR, content).
fn scaffold() -> Vec<(&'static str, Vec<u8>)> {
    let workflow = WORKFLOW.replace("{version}", env!("CARGO_PKG_VERSION"));
    vec![
        (
            "corpus/claude/live-claude-bash.jsonl.zst",
            STARTER_FIXTURE.to_vec(),
        ),
        ("corpus/README.md", README.as_bytes().to_vec()),
        (
            "expected/claude/live-claude-bash.json",
            STARTER_EXPECTED.to_vec(),
        ),
        ("expectations.toml", EXPECTATIONS.as_bytes().to_vec()),
        (".github/workflows/toolnorm.yml", workflow.into_bytes()),
        ("reports/.gitignore", REPORTS_GITIGNORE.as_bytes().to_vec()),
    ]
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let dir = &args.dir;
    fs::create_dir_all(dir).with_context(|| format!("failed to create {}", dir.display()))?;
    let files = scaffold();
    let existing: Vec<&str> = files
        .iter()
        .map(|(rel, _)| *rel)
        .filter(|rel| fs::symlink_metadata(dir.join(rel)).is_ok())
        .collect();
    if !existing.is_empty() && !args.force {
        let mut err = io::stderr().lock();
        for rel in &existing {
            writeln!(err, "error: {} exists", dir.join(rel).display())?;
        }
        writeln!(
            err,
            "error: toolnorm init overwrites nothing: nothing was written (--force overwrites them)"
        )?;
        return Ok(exit::FAILURE);
    }
    let mut out = io::stdout().lock();
    for (rel, bytes) in &files {
        confined::write(dir, Path::new(rel), bytes)
            .with_context(|| format!("failed to write {}", dir.join(rel).display()))?;
        let verb = if existing.contains(rel) {
            "overwrote"
        } else {
            "created"
        };
        writeln!(out, "{verb} {}", dir.join(rel).display())?;
    }
    writeln!(
        out,
        "\nnext: `toolnorm verify` checks the starter fixture; record your own with `toolnorm record`,\n\
         accept them with `toolnorm accept`, then delete the starter (corpus/claude/live-claude-bash.jsonl.zst\n\
         and expected/claude/live-claude-bash.json). Commit .github/workflows/toolnorm.yml for the CI gate."
    )?;
    Ok(exit::SUCCESS)
}
