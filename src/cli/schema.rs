//! `toolnorm schema [--ts] [--protocol]`: the normalized output document's JSON Schema, or
//! TypeScript; the implementation protocol's reference, or its TypeScript alone.

use std::io::{self, Write};

use crate::cli::exit;
use crate::model::NormalizedDocument;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print TypeScript declarations instead of JSON Schema.
    #[arg(long)]
    pub ts: bool,
    /// Print the implementation protocol's reference (a JSON Schema per message and TypeScript
    /// declarations), as at the end of docs/protocol.md; with `--ts`, its TypeScript declarations
    /// alone (the part types they name are `--ts`'s).
    #[arg(long)]
    pub protocol: bool,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let mut out = io::stdout().lock();
    if args.protocol && args.ts {
        out.write_all(crate::protocol::docs::typescript().as_bytes())?;
        return Ok(exit::SUCCESS);
    }
    if args.protocol {
        out.write_all(crate::protocol::docs::reference().as_bytes())?;
        return Ok(exit::SUCCESS);
    }
    if args.ts {
        out.write_all(crate::model::typescript_declarations().as_bytes())?;
        writeln!(out, "{}\n", crate::normalizer::typescript_declaration())?;
        return Ok(exit::SUCCESS);
    }
    let schema = schemars::schema_for!(NormalizedDocument);
    serde_json::to_writer_pretty(&mut out, &schema)?;
    writeln!(out)?;
    Ok(exit::SUCCESS)
}
