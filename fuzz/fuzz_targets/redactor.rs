//! The redactor on arbitrary lines: see `toolnorm_fuzz::redactor`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    toolnorm_fuzz::redactor(data);
});
