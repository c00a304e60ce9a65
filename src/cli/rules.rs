//! `toolnorm rules [--explain CODE] [--json]`: list the conformance rules or print one's doc.

use std::io::{self, Write};

use anyhow::Context;
use serde_json::json;

use crate::cli::exit;
use crate::rules::{Rule, by_code, registry};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print the full documentation of one rule (by code, e.g. TN010).
    #[arg(long, value_name = "CODE")]
    pub explain: Option<String>,
    /// Machine-readable output: a JSON array of rules, or one rule object with --explain.
    #[arg(long)]
    pub json: bool,
}

fn rule_json(r: &dyn Rule, with_doc: bool) -> serde_json::Value {
    let mut v = json!({"code": r.code(), "name": r.name(), "summary": r.summary()});
    if with_doc {
        v["explain"] = json!(r.explain());
    }
    v
}

/// The aligned `code  name  summary` table.
pub(crate) fn table(rules: &[&dyn Rule]) -> String {
    let name_w = rules.iter().map(|r| r.name().len()).max().unwrap_or(0);
    let code_w = rules.iter().map(|r| r.code().len()).max().unwrap_or(0);
    let mut s = String::new();
    for r in rules {
        s.push_str(&format!(
            "{:<code_w$}  {:<name_w$}  {}\n",
            r.code(),
            r.name(),
            r.summary()
        ));
    }
    s
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let mut out = io::stdout().lock();
    match args.explain {
        Some(code) => {
            let Some(rule) = by_code(&code) else {
                let known: Vec<&str> = registry().iter().map(|r| r.code()).collect();
                writeln!(
                    io::stderr(),
                    "error: unknown rule code `{code}` (known: {}; see `toolnorm rules`)",
                    known.join(", ")
                )?;
                return Ok(exit::ERROR);
            };
            if args.json {
                serde_json::to_writer_pretty(&mut out, &rule_json(rule, true))
                    .context("failed to write JSON")?;
                writeln!(out)?;
            } else {
                writeln!(out, "{} {}: {}\n", rule.code(), rule.name(), rule.summary())?;
                write!(out, "{}", rule.explain())?;
            }
        }
        None if args.json => {
            let all: Vec<_> = registry().iter().map(|r| rule_json(*r, false)).collect();
            serde_json::to_writer_pretty(&mut out, &all).context("failed to write JSON")?;
            writeln!(out)?;
        }
        None => write!(out, "{}", table(registry()))?,
    }
    Ok(exit::SUCCESS)
}
