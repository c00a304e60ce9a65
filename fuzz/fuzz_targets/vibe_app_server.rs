//! The `vibe_app_server` dialect, forced, on arbitrary bytes: see `toolnorm_fuzz::dialect`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    toolnorm_fuzz::dialect(toolnorm::Dialect::VibeAppServer, data);
});
