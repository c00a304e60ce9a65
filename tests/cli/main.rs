//! End-to-end tests of the `toolnorm` binary: one integration binary, one module per area.

mod empty_gate;
mod hostile_input;
mod html_browser;
mod implementation;
mod import;
mod normalize;
mod record;
mod record_sse;
mod releases;
mod rules;
mod scenario;
mod symlinks;
mod util;
mod verify;
