//! An engine-shaped use of toolnorm: read an agent's stream as it arrives, one line at a time,
//! and act on every update at once (here: print it). Built against the library's core alone
//! (`default-features = false`).
//!
//! ```text
//! claude -p "…" --output-format stream-json --verbose | toolnorm-engine-example
//! toolnorm-engine-example --records --document < lines.jsonl
//! ```
//!
//! Options: `--dialect NAME` and `--provider NAME` skip detection, `--cwd DIR` names the agent's
//! working directory; `--records` reads `{"d":"a"|"c","l":TEXT,"n":BOOL}` line records (what an
//! engine that also writes to the agent's stdin logs: `c` lines are the ones it sent) instead of
//! the agent's raw lines; `--document` prints the whole normalized document at the end instead of
//! one line per update.

use std::io::{self, BufRead, Write};
use std::process::ExitCode;

use toolnorm::stream::{Direction, RawLine, trim_line};
use toolnorm::{Dialect, DocumentBuilder, NormalizeOptions, Normalizer, Provider, Update};

struct Args {
    provider: Option<Provider>,
    dialect: Option<String>,
    cwd: Option<String>,
    records: bool,
    document: bool,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        provider: None,
        dialect: None,
        cwd: None,
        records: false,
        document: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--provider" => a.provider = Some(value()?.parse()?),
            "--dialect" => a.dialect = Some(value()?),
            "--cwd" => a.cwd = Some(value()?),
            "--records" => a.records = true,
            "--document" => a.document = true,
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(a)
}

/// What the engine does with an update: here, one line of text.
fn show(update: &Update) -> String {
    match update {
        Update::Dialect(d) => format!("dialect {}/{}", d.provider(), d),
        Update::Part {
            event,
            part,
            created,
        } => format!(
            "line {}: {} {} {:?} {}",
            event.line,
            if *created { "new" } else { "upd" },
            part.id,
            part.state,
            part.title
        ),
        Update::Revised(part) => format!("revised {} {}", part.id, part.title),
        Update::Diagnostic(d) => format!("line {}: {:?}: {}", d.line, d.level, d.message),
        other => format!("{other:?}"),
    }
}

fn run() -> Result<(), String> {
    let a = args()?;
    let dialect = a
        .dialect
        .as_deref()
        .map(|d| Dialect::parse(d, a.provider))
        .transpose()?;
    let mut n = Normalizer::new(NormalizeOptions {
        provider: a.provider,
        dialect,
        cwd: a.cwd.as_deref(),
    })
    .map_err(|e| e.to_string())?;
    let mut doc = DocumentBuilder::new();
    let mut out = io::stdout().lock();
    let mut emit = |updates: &mut dyn Iterator<Item = Update>| -> Result<(), String> {
        for u in updates {
            if a.document {
                doc.apply(u);
            } else {
                writeln!(out, "{}", show(&u)).map_err(|e| e.to_string())?;
                out.flush().map_err(|e| e.to_string())?;
            }
        }
        Ok(())
    };
    let stdin = io::stdin();
    for (i, line) in stdin.lock().split(b'\n').enumerate() {
        let line = line.map_err(|e| format!("reading stdin: {e}"))?;
        let number = u32::try_from(i + 1).map_err(|_| "too many lines")?;
        let updates = if a.records {
            let record: serde_json::Value = serde_json::from_slice(&line)
                .map_err(|e| format!("line {number}: not a line record: {e}"))?;
            let direction = match record["d"].as_str() {
                Some("c") => Direction::Client,
                _ => Direction::Agent,
            };
            let text = record["l"].as_str().unwrap_or("");
            n.push(&RawLine {
                number,
                bytes: trim_line(text.as_bytes()),
                direction,
                unterminated: record["n"].as_bool().unwrap_or(false),
                text: None,
            })
        } else {
            n.push_line(&line)
        };
        emit(&mut updates.map_err(|e| e.to_string())?)?;
    }
    emit(&mut n.finish().map_err(|e| e.to_string())?.into_iter())?;
    if a.document {
        let doc = doc.finish().ok_or("no dialect")?;
        let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
        writeln!(io::stdout(), "{text}").map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("engine: {e}");
            ExitCode::FAILURE
        }
    }
}
