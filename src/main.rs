//! Thin: parse arguments, run the command, map the result to an exit code.

use std::process::ExitCode;

fn main() -> ExitCode {
    toolnorm::cli::main()
}
