//! End-to-end tests of the `toolnorm` binary: one integration binary, one module per area.

mod cdp;
mod consumers;
mod docs;
mod empty_gate;
mod fmt;
mod follow;
mod hostile_input;
mod html_browser;
mod implementation;
mod import;
mod init;
mod normalize;
mod npm;
mod record;
mod record_sse;
mod releases;
mod review_serve;
mod rules;
mod scenario;
mod scenario_env;
mod symlinks;
mod util;
mod verify;
mod view;
mod wasm;
mod wire_examples;
