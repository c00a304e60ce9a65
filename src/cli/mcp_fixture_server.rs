//! `toolnorm mcp-fixture-server`: the stdio MCP server the live scenarios give to agent CLIs (they
//! start it from [`crate::scenario::mcp_server::launch_command`]).

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

#[cfg(test)]
mod tests {
    use clap::Parser;

    use crate::cli::{Cli, Command};
    use crate::scenario::mcp_server::{SUBCOMMAND, launch_command};

    /// The command the scenarios give the agents names this subcommand.
    #[test]
    fn the_launch_command_names_this_subcommand() {
        let cmd = launch_command().unwrap();
        assert_eq!(cmd.args, [SUBCOMMAND]);
        let cli = Cli::try_parse_from(std::iter::once("toolnorm").chain([SUBCOMMAND])).unwrap();
        assert!(matches!(cli.command, Command::McpFixtureServer(_)));
    }
}
