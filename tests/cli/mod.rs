//! End-to-end tests of the `toolnorm` binary, one module per area (in the integration test
//! binary, `tests/integration.rs`).

mod cdp;
mod consumers;
mod docs;
mod docs_sh;
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
