//! JSON text sixteen bytes at a time: where the quotes, backslashes and control bytes of a
//! string body are, and whether any byte is past ASCII. One scan serves the fixture writer's
//! escape, the reader's unescape and the rules' parse of raw lines.

use std::mem::MaybeUninit;

/// What sixteen bytes of a JSON string body hold that matters to the fixture writer
/// and reader and to the rules' parse: bit `j` of a mask stands for byte `j`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Block {
    /// The quotes and backslashes, exactly.
    pub quotes: u32,
    /// The bytes below 0x20. Zero exactly when there is none; past the first, bytes that are
    /// not may be flagged too (without SSE2: the `haszero` trick's borrow runs on), so only the
    /// lowest bit of `quotes | controls` is sure to be the first special byte.
    pub controls: u32,
    /// Some byte is past ASCII.
    pub high: bool,
}

impl Block {
    /// Bytes that need an escape (`"`, `\\`, below 0x20): only the lowest set bit is exact.
    pub fn specials(self) -> u32 {
        self.quotes | self.controls
    }
}

/// The [`Block`] of `bytes`: with SSE2, part of every x86_64 target.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn block(bytes: &[u8; 16]) -> Block {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    // SAFETY: SSE2 is part of every x86_64 target; the load reads the sixteen bytes of `bytes`.
    unsafe {
        let v = _mm_loadu_si128(bytes.as_ptr().cast());
        let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
        // Below 0x20 exactly when the larger of it and 0x1f is 0x1f.
        let low = _mm_set1_epi8(0x1f);
        let control = _mm_cmpeq_epi8(_mm_max_epu8(v, low), low);
        Block {
            quotes: _mm_movemask_epi8(_mm_or_si128(quote, backslash)) as u32,
            controls: _mm_movemask_epi8(control) as u32,
            high: _mm_movemask_epi8(v) != 0,
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
pub(crate) use block_by_words as block;

/// How many of the bytes of `s` from its start lie in whole 64-byte runs that hold no quote,
/// backslash or control byte, and whether any of those is past ASCII: where a string body is
/// long and plain (a file's text between its escapes, an image's base64), it is passed over four
/// blocks at a time with one test, and the caller takes up the block-by-block look after it.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn plain_run(s: &[u8]) -> (usize, bool) {
    scan_plain::<false>(s, &mut [])
}

/// [`plain_run`], copying the run to the start of `out` as it is looked at, so that a long plain
/// stretch is read once, not once to find its end and again to copy it (the reader's unescape;
/// where there is no SSE2, the run is found, then copied). Only as much of `s` as `out` holds
/// is looked at.
#[inline(always)]
pub(crate) fn copy_plain_run(s: &[u8], out: &mut [MaybeUninit<u8>]) -> (usize, bool) {
    let s = &s[..s.len().min(out.len())];
    #[cfg(target_arch = "x86_64")]
    return scan_plain::<true>(s, out);
    #[cfg(not(target_arch = "x86_64"))]
    {
        let (run, high) = plain_run(s);
        for (o, &b) in out.iter_mut().zip(&s[..run]) {
            o.write(b);
        }
        (run, high)
    }
}

/// [`plain_run`], and with `COPY` [`copy_plain_run`] (then `out` holds at least `s.len()`
/// bytes).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn scan_plain<const COPY: bool>(s: &[u8], out: &mut [MaybeUninit<u8>]) -> (usize, bool) {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8, _mm_setzero_si128, _mm_storeu_si128,
    };
    debug_assert!(!COPY || out.len() >= s.len());
    let mut i = 0;
    // SAFETY: SSE2 is part of every x86_64 target; each load reads sixteen bytes of a 64-byte
    // chunk of `s`, which `chunks_exact` bounds, and with `COPY` each store writes the same
    // sixteen bytes of `out`, which is at least as long as `s`.
    unsafe {
        let (quote, backslash, low) = (
            _mm_set1_epi8(b'"' as i8),
            _mm_set1_epi8(b'\\' as i8),
            _mm_set1_epi8(0x1f),
        );
        let special = |v: __m128i| {
            _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                _mm_cmpeq_epi8(_mm_max_epu8(v, low), low),
            )
        };
        let mut high = _mm_setzero_si128();
        for chunk in s.chunks_exact(64) {
            let p = chunk.as_ptr();
            let (a, b, c, d) = (
                _mm_loadu_si128(p.cast()),
                _mm_loadu_si128(p.add(16).cast()),
                _mm_loadu_si128(p.add(32).cast()),
                _mm_loadu_si128(p.add(48).cast()),
            );
            let any = _mm_or_si128(
                _mm_or_si128(special(a), special(b)),
                _mm_or_si128(special(c), special(d)),
            );
            if _mm_movemask_epi8(any) != 0 {
                break;
            }
            if COPY {
                let o = out.as_mut_ptr().add(i).cast::<__m128i>();
                _mm_storeu_si128(o, a);
                _mm_storeu_si128(o.add(1), b);
                _mm_storeu_si128(o.add(2), c);
                _mm_storeu_si128(o.add(3), d);
            }
            high = _mm_or_si128(high, _mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d)));
            i += 64;
        }
        (i, _mm_movemask_epi8(high) != 0)
    }
}

/// [`plain_run`] a word at a time, where there is no SSE2 (and in the tests, against it).
#[cfg(any(test, not(target_arch = "x86_64")))]
#[cfg_attr(not(target_arch = "x86_64"), inline(always))]
pub(crate) fn plain_run_by_words(s: &[u8]) -> (usize, bool) {
    let mut i = 0;
    let mut high = false;
    for chunk in s.chunks_exact(64) {
        let blocks = chunk
            .chunks_exact(16)
            .map(|b| block_by_words(b.try_into().unwrap_or(&[0; 16])));
        let mut plain_high = false;
        for b in blocks {
            if b.specials() != 0 {
                return (i, high);
            }
            plain_high |= b.high;
        }
        high |= plain_high;
        i += 64;
    }
    (i, high)
}

#[cfg(not(target_arch = "x86_64"))]
pub(crate) use plain_run_by_words as plain_run;

/// The CPU compares sixty-four bytes at a time into a mask (AVX-512 F and BW): the scans of
/// string bodies then take a block of 64 bytes per look. Checked once per line by the callers,
/// which then run code compiled with both.
#[cfg(target_arch = "x86_64")]
pub(crate) fn has_wide_masks() -> bool {
    #[cfg(test)]
    if NARROW_ONLY.get() {
        return false;
    }
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
}

/// [`has_wide_masks`], and the CPU can also pack bytes by a mask (AVX-512 VBMI2's `vpcompressb`):
/// the reader's unescape then drops a block's escapes in one instruction.
#[cfg(target_arch = "x86_64")]
pub(crate) fn has_compress() -> bool {
    has_wide_masks() && std::arch::is_x86_feature_detected!("avx512vbmi2") && has_shuffles()
}

#[cfg(test)]
thread_local! {
    /// Set by [`narrow_only`]: the wide paths are off on this thread.
    static NARROW_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// `f` run with the 64-byte paths off, so that tests hold the narrow ones to the same results on
/// a CPU that has AVX-512 too.
#[cfg(test)]
pub(crate) fn narrow_only<T>(f: impl FnOnce() -> T) -> T {
    NARROW_ONLY.set(true);
    let out = f();
    NARROW_ONLY.set(false);
    out
}

/// What [`wide_masks`] finds in 64 bytes, one bit per byte.
#[cfg(target_arch = "x86_64")]
pub(crate) struct WideMasks {
    pub(crate) backslash: u64,
    pub(crate) quote: u64,
    /// Bytes below 0x20.
    pub(crate) controls: u64,
    /// Bytes past ASCII.
    pub(crate) high: u64,
}

/// The backslashes, quotes, control bytes and bytes past ASCII of 64 bytes. Only for a caller
/// compiled with AVX-512 F and BW (it is inlined there).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn wide_masks(bytes: &[u8; 64]) -> WideMasks {
    use std::arch::x86_64::{
        _mm512_cmpeq_epi8_mask, _mm512_cmplt_epu8_mask, _mm512_loadu_si512, _mm512_movepi8_mask,
        _mm512_set1_epi8,
    };
    // SAFETY: the caller runs with AVX-512 F and BW; the load reads the 64 bytes of `bytes`.
    unsafe {
        let v = _mm512_loadu_si512(bytes.as_ptr().cast());
        WideMasks {
            backslash: _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'\\' as i8)),
            quote: _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'"' as i8)),
            controls: _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(0x20)),
            high: _mm512_movepi8_mask(v),
        }
    }
}

/// The bytes of 64 that are one of `set`, one bit per byte. Only for a caller compiled with
/// AVX-512 F and BW.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn wide_bytes_of(bytes: &[u8; 64], set: &[u8]) -> u64 {
    use std::arch::x86_64::{_mm512_cmpeq_epi8_mask, _mm512_loadu_si512, _mm512_set1_epi8};
    // SAFETY: as in `wide_masks`.
    unsafe {
        let v = _mm512_loadu_si512(bytes.as_ptr().cast());
        set.iter().fold(0, |m, &b| {
            m | _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b as i8))
        })
    }
}

/// Which of the backslashes flagged in `backslash` (64 bytes that start outside any escape)
/// start an escape: in a run of backslashes every other one does, from the first, which the
/// carry of a subtraction tells (as simdjson finds them). Bit 63 may be one, whose escape goes
/// on past the block.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn escape_starts(backslash: u64) -> u64 {
    const ODD: u128 = 0xaaaa_aaaa_aaaa_aaaa_aaaa_aaaa_aaaa_aaaa;
    let bs = u128::from(backslash);
    ((((bs << 1) | ODD).wrapping_sub(bs) ^ ODD) & bs) as u64
}

/// The flags of the first `n` bytes of a 64-byte block (`n` at most 64).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn low_bits(n: usize) -> u64 {
    u64::MAX.checked_shr(64 - n as u32).unwrap_or(0)
}

/// The bytes of `bytes` flagged in `keep`, packed at the start of `dst` (64 bytes are written).
/// Only for a caller compiled with AVX-512 F, BW and VBMI2.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn compress_store(dst: &mut [MaybeUninit<u8>], bytes: &[u8; 64], keep: u64) {
    use std::arch::x86_64::{_mm512_loadu_si512, _mm512_maskz_compress_epi8, _mm512_storeu_si512};
    assert!(dst.len() >= 64);
    // SAFETY: the caller runs with AVX-512 F, BW and VBMI2; the load reads the 64 bytes of
    // `bytes`, the store writes the first 64 of `dst` (asserted).
    unsafe {
        let v = _mm512_loadu_si512(bytes.as_ptr().cast());
        _mm512_storeu_si512(dst.as_mut_ptr().cast(), _mm512_maskz_compress_epi8(keep, v));
    }
}

/// Whether this CPU has what the shuffles below need: SSSE3, and POPCNT to count a block's flags
/// in one instruction. Checked once per string by the callers, which then run code compiled
/// with both.
#[cfg(target_arch = "x86_64")]
pub(crate) fn has_shuffles() -> bool {
    std::arch::is_x86_feature_detected!("ssse3") && std::arch::is_x86_feature_detected!("popcnt")
}

/// The shuffles of eight bytes, one for each flag pattern: lane by lane, which byte goes there.
/// `SPREAD` puts lane 8 (a backslash) before each flagged byte; `PACK` leaves the flagged bytes
/// out. The lanes past what is written are zero.
#[cfg(target_arch = "x86_64")]
const fn shuffles(spread: bool) -> [[u8; 16]; 256] {
    let mut table = [[0x80u8; 16]; 256];
    let mut flags = 0;
    while flags < 256 {
        let (mut i, mut lane) = (0, 0);
        while i < 8 {
            let flagged = flags >> i & 1 == 1;
            if flagged && spread {
                table[flags][lane] = 8;
                lane += 1;
            }
            if !flagged || spread {
                table[flags][lane] = i as u8;
                lane += 1;
            }
            i += 1;
        }
        flags += 1;
    }
    table
}

#[cfg(target_arch = "x86_64")]
static SPREAD: [[u8; 16]; 256] = shuffles(true);
#[cfg(target_arch = "x86_64")]
static PACK: [[u8; 16]; 256] = shuffles(false);

/// Write `bytes` at the start of `dst` with a backslash before each byte flagged in `quotes`
/// (its quotes and backslashes); the length written (16 and one for each flag). Only for a
/// caller compiled with SSSE3: the fixture writer's escape.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn spread_by_shuffle(dst: &mut [u8], bytes: &[u8; 16], quotes: u32) -> usize {
    spread::<false>(dst, bytes, quotes)
}

/// [`spread_by_shuffle`] for a block whose control bytes are all newlines, tabs and carriage
/// returns (flagged in `flags` with its quotes and backslashes): each of those comes out as the
/// letter of its escape (`\n`, `\t`, `\r`) after its backslash. Only for a caller compiled with
/// SSSE3: the canonical writer's escape of a tool's output, a line break every few bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn spread_named_by_shuffle(dst: &mut [u8], bytes: &[u8; 16], flags: u32) -> usize {
    spread::<true>(dst, bytes, flags)
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn spread<const NAMED: bool>(dst: &mut [u8], bytes: &[u8; 16], flags: u32) -> usize {
    let (lo, hi) = (flags & 0xff, flags >> 8 & 0xff);
    let lo_len = 8 + lo.count_ones() as usize;
    assert!(dst.len() >= 32);
    // SAFETY: the same memory seen as bytes that may be uninitialized, into which only
    // initialized bytes are written: it stays initialized.
    let dst = unsafe { &mut *(dst as *mut [u8] as *mut [MaybeUninit<u8>]) };
    shuffle_halves::<NAMED>(dst, bytes, b'\\', &SPREAD, flags, lo_len);
    lo_len + 8 + hi.count_ones() as usize
}

/// The newlines, tabs and carriage returns of `bytes` (bit `j` for byte `j`): the control bytes
/// JSON escapes by a letter, nearly the only ones in text.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn named_controls(bytes: &[u8; 16]) -> u32 {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };
    // SAFETY: SSE2 is part of every x86_64 target; the load reads the sixteen bytes of `bytes`.
    unsafe {
        let v = _mm_loadu_si128(bytes.as_ptr().cast());
        let is = |b: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8));
        _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(is(b'\n'), is(b'\t')), is(b'\r'))) as u32
    }
}

/// Write the bytes of `bytes` not flagged in `drop` at the start of `dst`, in order; the length
/// written. Only for a caller compiled with SSSE3: the fixture reader's unescape.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn pack_by_shuffle(dst: &mut [MaybeUninit<u8>], bytes: &[u8; 16], drop: u32) -> usize {
    let (lo, hi) = (drop & 0xff, drop >> 8 & 0xff);
    let lo_len = 8 - lo.count_ones() as usize;
    assert!(dst.len() >= 24);
    shuffle_halves::<false>(dst, bytes, 0, &PACK, drop, lo_len);
    lo_len + 8 - hi.count_ones() as usize
}

/// Each half of `bytes`, with eight bytes of `fill` after it, shuffled by the row of `table` for
/// its eight flags in `flags`; the first half's output written at the start of `dst`, the
/// second's `lo_len` bytes on (sixteen bytes each). The caller runs with SSSE3 (it is inlined
/// there, and so are the shuffles) and makes sure `dst` holds `lo_len + 16` bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn shuffle_halves<const NAMED: bool>(
    dst: &mut [MaybeUninit<u8>],
    bytes: &[u8; 16],
    fill: u8,
    table: &[[u8; 16]; 256],
    flags: u32,
    lo_len: usize,
) {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_andnot_si128, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_or_si128,
        _mm_set1_epi8, _mm_shuffle_epi8, _mm_storeu_si128, _mm_unpackhi_epi64, _mm_unpacklo_epi64,
    };
    let (lo, hi) = (flags as usize & 0xff, flags as usize >> 8 & 0xff);
    assert!(lo_len <= 16 && dst.len() >= lo_len + 16);
    // SAFETY: the callers (`escape_ssse3` and `unescape_ssse3`, through the two above) run with
    // SSSE3; the loads read `bytes` and a row of `table`, sixteen bytes each; the stores write
    // sixteen bytes at 0 and at `lo_len` of `dst`, which holds `lo_len + 16` (asserted).
    unsafe {
        let v = _mm_loadu_si128(bytes.as_ptr().cast());
        let fill = _mm_set1_epi8(fill as i8);
        let mut lo_out = _mm_shuffle_epi8(
            _mm_unpacklo_epi64(v, fill),
            _mm_loadu_si128(table[lo].as_ptr().cast()),
        );
        let mut hi_out = _mm_shuffle_epi8(
            _mm_unpackhi_epi64(v, fill),
            _mm_loadu_si128(table[hi].as_ptr().cast()),
        );
        if NAMED {
            // Every newline, tab and carriage return is flagged, so each one in the output
            // follows its backslash: it becomes its letter.
            let named = |out: __m128i| {
                let swap = |out: __m128i, from: u8, to: u8| {
                    let m = _mm_cmpeq_epi8(out, _mm_set1_epi8(from as i8));
                    _mm_or_si128(
                        _mm_andnot_si128(m, out),
                        _mm_and_si128(m, _mm_set1_epi8(to as i8)),
                    )
                };
                swap(swap(swap(out, b'\n', b'n'), b'\t', b't'), b'\r', b'r')
            };
            lo_out = named(lo_out);
            hi_out = named(hi_out);
        }
        _mm_storeu_si128(dst.as_mut_ptr().cast(), lo_out);
        _mm_storeu_si128(dst.as_mut_ptr().add(lo_len).cast(), hi_out);
    }
}

/// [`block`] a word at a time, where there is no SSE2 (and in the tests, against it).
#[cfg(any(test, not(target_arch = "x86_64")))]
#[cfg_attr(not(target_arch = "x86_64"), inline(always))]
pub(crate) fn block_by_words(bytes: &[u8; 16]) -> Block {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const LOW: u64 = !HIGH;
    // The high bit of each byte of a word, gathered into its low eight bits.
    let gather = |m: u64| ((m >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32;
    // The high bit of every zero byte, exactly.
    let zero = |x: u64| !(((x & LOW).wrapping_add(LOW)) | x | LOW);
    let mut b = Block {
        quotes: 0,
        controls: 0,
        high: false,
    };
    for (n, word) in bytes.chunks_exact(8).enumerate() {
        let w = u64::from_le_bytes(word.try_into().unwrap_or_default());
        let quotes = zero(w ^ (ONES * u64::from(b'"'))) | zero(w ^ (ONES * u64::from(b'\\')));
        let controls = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
        b.quotes |= gather(quotes) << (8 * n);
        b.controls |= gather(controls) << (8 * n);
        b.high |= w & HIGH != 0;
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest::proptest! {
        /// The two ways of reading a block agree: exactly on the quotes and on whether there
        /// is a control byte or a byte past ASCII, and on the first control byte.
        #[test]
        fn block_reads_agree(bytes in proptest::array::uniform16(proptest::prop_oneof![
            Just(b'\\'), Just(b'"'), Just(0x1f), Just(0x20), Just(0x7f), Just(0x80), any::<u8>()
        ])) {
            use proptest::prop_assert_eq;
            let mask = |f: fn(u8) -> bool| {
                bytes.iter().enumerate().fold(0u32, |m, (j, b)| m | (u32::from(f(*b)) << j))
            };
            let quotes = mask(|b| matches!(b, b'"' | b'\\'));
            let controls = mask(|b| b < 0x20);
            let high = bytes.iter().any(|b| !b.is_ascii());
            prop_assert_eq!(block(&bytes), Block { quotes, controls, high });
            let words = block_by_words(&bytes);
            prop_assert_eq!(
                (words.quotes, words.controls.trailing_zeros(), words.high),
                (quotes, controls.trailing_zeros(), high)
            );
        }

        /// A plain run ends at the 64-byte chunk that holds the first special byte (or the
        /// last whole chunk), and says whether a byte past ASCII lies before it; both ways of
        /// looking agree with that, and so with each other.
        #[test]
        fn plain_runs_stop_at_the_chunk_of_the_first_special_byte(
            bytes in proptest::collection::vec(proptest::prop_oneof![
                20 => 0x20u8..0x7f, 1 => Just(b'"'), 1 => Just(b'\\'), 1 => Just(0x1f),
                1 => Just(0x80), 1 => any::<u8>()
            ], 0..400),
            plain_prefix in 0usize..300,
        ) {
            use proptest::prop_assert_eq;
            // Most strings start with a long plain stretch, as a real body does.
            let mut s = vec![b'a'; plain_prefix];
            s.extend_from_slice(&bytes);
            let first = s.iter().position(|&b| matches!(b, b'"' | b'\\' | 0..=0x1f)).unwrap_or(s.len());
            let run = (first / 64 * 64).min(s.len() / 64 * 64);
            let high = s[..run].iter().any(|b| !b.is_ascii());
            prop_assert_eq!(plain_run(&s), (run, high));
            prop_assert_eq!(plain_run_by_words(&s), (run, high));
            // Copied as it is looked at: the run, and not a byte past it.
            let mut out = vec![MaybeUninit::new(0xee); s.len() + 1];
            prop_assert_eq!(copy_plain_run(&s, &mut out), (run, high));
            // SAFETY: every byte of `out` was written (with 0xee first).
            let out: Vec<u8> = out.iter().map(|b| unsafe { b.assume_init() }).collect();
            prop_assert_eq!(&out[..run], &s[..run]);
            prop_assert!(out[run..].iter().all(|&b| b == 0xee));
            // Only as much of `s` as `out` holds is looked at.
            let short = s.len() / 2;
            let mut out = vec![MaybeUninit::new(0); short];
            let want = (first / 64 * 64).min(short / 64 * 64);
            prop_assert_eq!(copy_plain_run(&s, &mut out).0, want);
        }
    }
}
