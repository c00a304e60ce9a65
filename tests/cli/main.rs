//! End-to-end tests of the `toolnorm` binary: one integration binary, one module per area.

mod util;
mod import;
mod record;
