//! The fixture reader on arbitrary bytes: see `toolnorm_fuzz::fixture_reader`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    toolnorm_fuzz::fixture_reader(data);
});
