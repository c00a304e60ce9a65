//! The integration tests, as one test binary: `cli`, the `toolnorm` command run end to end, and
//! `normalize`, the normalizers through the library. One binary is one link of the crate and its
//! dependencies rather than one per folder, and its tests share the test threads: the command
//! tests mostly wait on the processes they start, the normalizer tests mostly compute, so each
//! fills the other's idle time where two binaries would run one after the other
//! (docs/reference/performance.md). Run one area with `cargo test --test integration cli::` (or
//! `normalize::`, or any part of a test's name).

mod cli;
mod normalize;
