//! Thin: parse arguments, run the command, map the result to an exit code.

use std::process::ExitCode;

/// The command's allocator. The library sets none: an engine that embeds the core keeps its own.
/// mimalloc, because the gate makes and frees millions of short-lived strings, maps and buffers
/// (every line's fields, every part's metadata), where glibc's malloc and free were about 7% of
/// `verify`'s CPU on transcripts; `cargo bench --bench verify` shows the whole-process figure.
/// Built without its transparent huge pages (feature `no_thp`): with them, the peak RSS of a
/// verify doubled (2 MiB pages, part used) for no gain in time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    toolnorm::cli::main()
}
