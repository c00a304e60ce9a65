//! The expectations file parser on arbitrary text: see `toolnorm_fuzz::expectations`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    toolnorm_fuzz::expectations(data);
});
