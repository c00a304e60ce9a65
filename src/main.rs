//! Thin: parse arguments, run the command, map the result to an exit code.

use std::process::ExitCode;

/// mimalloc: verify and record allocate and free many short-lived JSON values per line; the
/// system allocator spent about a quarter of verify's time on them.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    toolnorm::cli::main()
}
