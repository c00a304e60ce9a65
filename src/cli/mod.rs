//! Command-line definitions (clap) and one file per command. Errors are reported here, once, as
//! `error: <context>: <cause>`. Exit codes are decided here and nowhere else ([`exit`]): the
//! library returns values (a report, an outcome) and each command maps them to a code.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub mod accept;
pub mod cat;
pub mod corpus;
pub mod fmt;
pub mod import;
pub mod init;
pub mod mcp_fixture_server;
pub mod normalize;
pub mod record;
pub mod report;
pub mod review;
pub mod review_serve;
pub mod rules;
pub mod scenario;
pub mod schema;
pub mod serve_protocol;
pub mod verify;
pub mod view;

/// Process exit codes.
pub mod exit {
    /// Everything conforms.
    pub const SUCCESS: u8 = 0;
    /// A conformance failure: a diff, an unexpected violation, an orphan, a stale known failure.
    pub const FAILURE: u8 = 1;
    /// toolnorm itself failed: bad usage, unreadable input, an internal error.
    pub const ERROR: u8 = 2;
}

#[derive(Debug, Parser)]
#[command(
    name = "toolnorm",
    version,
    about = "Fixture recorder and conformance harness for tool-call normalization across coding agents",
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Normalize one raw stream or fixture and print the normalized document.
    Normalize(normalize::Args),
    /// Print the JSON Schema (or TypeScript declarations) of the normalized output.
    Schema(schema::Args),
    /// Record a live provider stream into the corpus while passing it through.
    Record(record::Args),
    /// Import existing session files (transcripts, rollouts, exports) into the corpus.
    Import(import::Args),
    /// Print a fixture's recorded stream (or its header).
    Cat(cat::Args),
    /// Corpus-wide commands: lint for secrets, list fixtures.
    Corpus(corpus::Args),
    /// List the conformance rules, or explain one (`--explain TN010`).
    Rules(rules::Args),
    /// The CI gate: normalize every fixture, diff against expected outputs, check every rule.
    Verify(verify::Args),
    /// Write fixtures' actual outputs over their expected files (after review).
    Accept(accept::Args),
    /// Scaffold a repository checked by toolnorm: corpus, expected outputs, CI workflow.
    Init(init::Args),
    /// Rewrite expected files canonically (`--check`: list those that are not, exit 1).
    Fmt(fmt::Args),
    /// Walk pending outputs of failing fixtures: accept, reject or skip each.
    Review(review::Args),
    /// Draw session files of any agent as tool cards in one HTML page (`--follow`: live).
    View(view::Args),
    /// Work with verify reports (merge shards).
    Report(report::Args),
    /// Run, list or drift-check the live scenarios of the real agent CLIs.
    Scenario(scenario::Args),
    /// Serve the fixture `amalgm` MCP server on stdio (used by live scenarios).
    #[command(name = crate::scenario::mcp_server::SUBCOMMAND)]
    McpFixtureServer(mcp_fixture_server::Args),
    /// Speak the implementation protocol on stdio with the built-in normalizer (for `verify --impl`).
    #[command(name = "serve-protocol")]
    ServeProtocol(serve_protocol::Args),
}

/// Parse, run, print errors, return the exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() {
                exit::ERROR
            } else {
                exit::SUCCESS
            };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let result = match cli.command {
        Command::Normalize(a) => normalize::run(a),
        Command::Schema(a) => schema::run(a),
        Command::Record(a) => record::run(a),
        Command::Import(a) => import::run(a),
        Command::Cat(a) => cat::run(a),
        Command::Corpus(a) => corpus::run(a),
        Command::Rules(a) => rules::run(a),
        Command::Verify(a) => verify::run(a),
        Command::Accept(a) => accept::run(a),
        Command::Fmt(a) => fmt::run(a),
        Command::Init(a) => init::run(a),
        Command::Review(a) => review::run(a),
        Command::View(a) => view::run(a),
        Command::Report(a) => report::run(a),
        Command::Scenario(a) => scenario::run(a),
        Command::McpFixtureServer(a) => mcp_fixture_server::run(a),
        Command::ServeProtocol(a) => serve_protocol::run(a),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            if is_broken_pipe(&e) {
                return ExitCode::from(exit::SUCCESS);
            }
            let _ = writeln!(io::stderr(), "error: {}", error_chain(&e));
            ExitCode::from(exit::ERROR)
        }
    }
}

/// An error and its causes as `context: cause: …`, each said once: a cause whose text its
/// context already quotes (`failed to read X: {source}` with `source` also the cause) is not
/// repeated.
pub fn error_chain(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if out.is_empty() {
            out = text;
        } else if !out.ends_with(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
    }
    out
}

/// A closed stdout (`toolnorm … | head`) is not an error.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .map(io::Error::kind)
            .or_else(|| {
                // `serde_json::to_writer` wraps the output's error in its own.
                c.downcast_ref::<serde_json::Error>()
                    .and_then(serde_json::Error::io_error_kind)
            })
            == Some(io::ErrorKind::BrokenPipe)
    })
}
