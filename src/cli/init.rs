//! `toolnorm init [DIR]`: scaffold a repository that toolnorm checks: `corpus/` (with one starter
//! fixture), `expected/` (its reviewed output), `expectations.toml`, `corpus/README.md` and the
//! GitHub Actions gate `.github/workflows/toolnorm.yml`. Existing files are never overwritten
//! without `--force`, and nothing is written through a link even then.
//!
//! The starter fixture is one of the shipped corpus's own recordings, embedded in the binary with
//! its expected output (Claude Code's unless `--agent` names another agent): `verify` refuses a
//! gate that checks nothing, and a real fixture proves the whole chain (record format,
//! normalizer, expected file, CI) works from the first commit, where `--allow-empty` in the
//! workflow would keep passing silently if the corpus were never filled.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::cli::exit;
use crate::corpus::confined;

/// A starter fixture: one of this project's recordings of an agent running shell commands (one
/// succeeds, one fails), with its reviewed output.
struct Starter {
    agent: Agent,
    /// `provider/name`.
    fixture: &'static str,
    about: &'static str,
    /// How a user records their own session of that agent.
    command: &'static str,
    bytes: &'static [u8],
    expected: &'static [u8],
}

macro_rules! starter {
    ($agent:ident, $fixture:literal, $about:literal, $command:literal) => {
        Starter {
            agent: Agent::$agent,
            fixture: $fixture,
            about: $about,
            command: $command,
            bytes: include_bytes!(concat!("../../corpus/", $fixture, ".jsonl.zst")),
            expected: include_bytes!(concat!("../../expected/", $fixture, ".json")),
        }
    };
}

/// The agent whose starter fixture `init` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Agent {
    Claude,
    Codex,
    Opencode,
    Gemini,
    Qwen,
    Kilo,
    Droid,
    Copilot,
    Cline,
    Openhands,
    Kimi,
    Vibe,
}

static STARTERS: &[Starter] = &[
    starter!(
        Claude,
        "claude/live-claude-bash",
        "a Claude Code session running two shell commands",
        "claude -p \"…\" --output-format stream-json --verbose"
    ),
    starter!(
        Codex,
        "codex/live-codex-exec-shell",
        "a `codex exec --json` session running shell commands",
        "codex exec --json \"…\""
    ),
    starter!(
        Opencode,
        "opencode/live-opencode-run-bash",
        "an `opencode run --format json` session running shell commands",
        "opencode run --format json \"…\""
    ),
    starter!(
        Gemini,
        "gemini/live-gemini-shell",
        "a Gemini CLI session running three shell commands",
        "gemini -p \"…\" --output-format stream-json"
    ),
    starter!(
        Qwen,
        "qwen/live-qwen-shell",
        "a Qwen Code session running three shell commands",
        "qwen -p \"…\" --output-format stream-json"
    ),
    starter!(
        Kilo,
        "kilo/live-kilo-run-bash",
        "a `kilo run --format json` session running two shell commands",
        "kilo run --format json \"…\""
    ),
    starter!(
        Droid,
        "droid/live-droid-exec-bash",
        "a `droid exec --output-format stream-json` session running two shell commands",
        "droid exec --output-format stream-json \"…\""
    ),
    starter!(
        Copilot,
        "copilot/live-copilot-bash",
        "a GitHub Copilot CLI session running two shell commands",
        "copilot -p \"…\" --output-format json"
    ),
    starter!(
        Cline,
        "cline/live-cline-bash",
        "a Cline CLI session running two shell commands",
        "cline --json \"…\""
    ),
    starter!(
        Openhands,
        "openhands/live-openhands-bash",
        "an OpenHands CLI session running two shell commands",
        "openhands --headless --json -t \"…\""
    ),
    starter!(
        Kimi,
        "kimi/live-kimi-bash",
        "a Kimi CLI print-mode session running two shell commands",
        "kimi --print --output-format stream-json -p \"…\""
    ),
    starter!(
        Vibe,
        "vibe/live-vibe-bash",
        "a Mistral Vibe headless session running two shell commands",
        "vibe -p \"…\" --output streaming"
    ),
];

fn starter(agent: Agent) -> &'static Starter {
    STARTERS
        .iter()
        .find(|s| s.agent == agent)
        .expect("every agent has a starter")
}
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
    /// The agent whose recording is the starter fixture.
    #[arg(long, value_enum, default_value = "claude")]
    pub agent: Agent,
}

/// What follows `toolnorm record --provider P --name N` to record the agent: `-- COMMAND`, or
/// for an ACP agent (its starter is in `acp/`) `--proxy -- COMMAND`, the editor's side of the
/// conversation recorded too.
fn record_args(s: &Starter) -> String {
    if s.fixture.starts_with("acp/") {
        format!("--proxy -- {}", s.command)
    } else {
        format!("-- {}", s.command)
    }
}

/// The files `init` writes: (path relative to DIR, content).
fn scaffold(agent: Agent) -> Vec<(String, Vec<u8>)> {
    let workflow = WORKFLOW.replace("{version}", env!("CARGO_PKG_VERSION"));
    let s = starter(agent);
    let provider = s.fixture.split('/').next().unwrap_or_default();
    let readme = README
        .replace("{starter}", s.fixture)
        .replace("{about}", s.about)
        .replace("{provider}", provider)
        .replace("{command}", &record_args(s));
    let files: Vec<(&str, Vec<u8>)> = vec![
        ("corpus/README.md", readme.into_bytes()),
        ("expectations.toml", EXPECTATIONS.as_bytes().to_vec()),
        (".github/workflows/toolnorm.yml", workflow.into_bytes()),
        ("reports/.gitignore", REPORTS_GITIGNORE.as_bytes().to_vec()),
    ];
    let mut out = vec![
        (format!("corpus/{}.jsonl.zst", s.fixture), s.bytes.to_vec()),
        (format!("expected/{}.json", s.fixture), s.expected.to_vec()),
    ];
    out.extend(files.into_iter().map(|(p, b)| (p.to_owned(), b)));
    out
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let dir = &args.dir;
    fs::create_dir_all(dir).with_context(|| format!("failed to create {}", dir.display()))?;
    let files = scaffold(args.agent);
    let existing: Vec<&str> = files
        .iter()
        .map(|(rel, _)| rel.as_str())
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
        let verb = if existing.contains(&rel.as_str()) {
            "overwrote"
        } else {
            "created"
        };
        writeln!(out, "{verb} {}", dir.join(rel).display())?;
    }
    let fixture = starter(args.agent).fixture;
    writeln!(
        out,
        "\nnext: `toolnorm verify` checks the starter fixture; record your own with `toolnorm record`,\n\
         accept them with `toolnorm accept`, then delete the starter (corpus/{fixture}.jsonl.zst\n\
         and expected/{fixture}.json). Commit .github/workflows/toolnorm.yml for the CI gate."
    )?;
    Ok(exit::SUCCESS)
}
