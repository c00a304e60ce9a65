//! End-to-end tests of the `toolnorm` binary: one integration binary, one module per area.

mod normalize;
mod rules;
mod util;
mod import;
mod record;
mod html_browser;
mod verify;
mod scenario;
