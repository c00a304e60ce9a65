//! `toolnorm mcp-fixture-server`: the stdio MCP server the live scenarios give to agent CLIs.

use std::io;

use anyhow::Context;

use crate::cli::exit;

#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<u8> {
    let stdin = io::stdin();
    crate::scenario::mcp_server::serve(stdin.lock(), io::stdout().lock())
        .context("failed to serve MCP on stdio")?;
    Ok(exit::SUCCESS)
}
