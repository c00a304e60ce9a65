//! The reader's fast path for the line records `record` and `import` write: `{"t":N,"d":"a",
//! "l":"…"}` (with `,"n":true` before the brace for a line without a newline). Most of a
//! fixture's bytes are the escaped text of its lines; unescaping it with a vectorised search for
//! the next `\` or `"` is several times cheaper than a general JSON parser's string path.
//!
//! Anything else — other key orders, extra whitespace, base64 `b` lines, a surrogate escape, a
//! control character, bytes that are not UTF-8 — gives `None`, and the caller reads the record
//! with serde_json as before: the fast path accepts a subset of what that accepts and decodes it
//! to the same bytes (a property test holds the two to that).

use std::mem::MaybeUninit;

use crate::stream::Direction;

/// A line record read the fast way: (time, direction, had a newline), the line's bytes decoded
/// onto the end of `out` (on `None`, `out` is as it was).
pub(super) fn line_record(line: &[u8], out: &mut Vec<u8>) -> Option<(u64, Direction, bool)> {
    let rest = line.strip_prefix(b"{\"t\":")?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 20 || (digits > 1 && rest[0] == b'0') {
        return None;
    }
    let t: u64 = std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()?;
    let rest = rest[digits..].strip_prefix(b",\"d\":\"")?;
    let dir = match rest.first()? {
        b'a' => Direction::Agent,
        b'c' => Direction::Client,
        b'e' => Direction::Stderr,
        _ => return None,
    };
    let rest = rest[1..].strip_prefix(b"\",\"l\":\"")?;
    let base = out.len();
    let rest = unescape(rest, out)?;
    let terminated = match rest {
        b"}" => true,
        b",\"n\":true}" => false,
        _ => {
            out.truncate(base);
            return None;
        }
    };
    Some((t, dir, terminated))
}

/// The body of a JSON string up to its closing quote, unescaped onto the end of `out`, and what
/// follows the quote. Escapes come every few bytes in a recorded JSON line (each of its own quotes
/// is one), so the text is looked at sixteen bytes at a time: each block is copied whole, up to
/// its first special byte, and the escape there decoded inline; a long plain stretch is copied in
/// one piece. `None` when the line is not for the fast path, including when it is not UTF-8: that
/// is checked here, and only for lines with a byte past ASCII. On `None`, `out` is as it was.
///
/// The text is decoded straight into the room `out` has past its end, which is never zeroed
/// first (a line of a megabyte costs one pass over it, not two).
///
/// Where the CPU has SSSE3 (nearly every x86_64 one), the escapes of quotes, backslashes and
/// slashes in a block (nearly all a recorded line has) drop their backslashes by two byte
/// shuffles, whatever their number; where it has AVX-512 VBMI2 (Intel from Ice Lake, AMD from
/// Zen 4), blocks are sixty-four bytes and one compress drops them; elsewhere, and for the other
/// escapes, each is decoded on its own.
fn unescape<'s>(s: &'s [u8], out: &mut Vec<u8>) -> Option<&'s [u8]> {
    let base = out.len();
    // Room for all of `s` and a block more: its text unescaped is never longer, and never runs
    // ahead of it (an escape of two bytes gives one, of six at most three), so a block copied
    // whole to where the output stands always fits, and so does a shuffled one (written
    // sixteen bytes at a time, eight past the block at most).
    out.reserve(s.len() + 16);
    let room = &mut out.spare_capacity_mut()[..s.len() + 16];
    let (rest, written, beyond_ascii) = decode(s, room)?;
    // SAFETY: `decode` wrote every byte of `room[..written]` (see there), and `room` is the
    // spare capacity just past `base`.
    unsafe { out.set_len(base + written) };
    if beyond_ascii && crate::stream::utf8(&out[base..]).is_none() {
        out.truncate(base);
        return None;
    }
    Some(rest)
}

/// [`unescape`]'s decoding: (what follows the closing quote, bytes written to `out`, whether a
/// byte past ASCII was seen). Every byte of `out[..written]` is written; `out` holds
/// `s.len() + 16` bytes.
fn decode<'s>(s: &'s [u8], out: &mut [MaybeUninit<u8>]) -> Option<(&'s [u8], usize, bool)> {
    #[cfg(target_arch = "x86_64")]
    if crate::stream::json_text::has_compress() {
        // SAFETY: the CPU has AVX-512 (F, BW, VBMI2), SSSE3 and POPCNT, checked just above.
        return unsafe { decode_avx512(s, out) };
    }
    #[cfg(target_arch = "x86_64")]
    if crate::stream::json_text::has_shuffles() {
        // SAFETY: the CPU has SSSE3 and POPCNT, checked just above.
        return unsafe { decode_ssse3(s, out) };
    }
    decode_with::<false, false>(s, out)
}

/// [`decode`] compiled for a CPU with AVX-512 VBMI2: sixty-four bytes at a time, each block's
/// plain escapes dropped by one compress.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,ssse3,popcnt")]
unsafe fn decode_avx512<'s>(
    s: &'s [u8],
    out: &mut [MaybeUninit<u8>],
) -> Option<(&'s [u8], usize, bool)> {
    decode_with::<true, true>(s, out)
}

/// Sixty-four bytes of a string body unescaped to the start of `out` where its escapes are all
/// plain, up to the first byte that ends that (as in [`plain_escapes`]: a quote not escaped, an
/// escape of another kind or one that goes on past the block, or a control byte). Returns (bytes
/// of the block taken, bytes written, a byte past ASCII seen, whether the next block may be taken
/// the same way: all 64 were, or all but a plain escape's backslash, which starts the next).
/// `out` must hold 64 bytes: all of them are written. Only for a caller compiled with AVX-512 F,
/// BW and VBMI2.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn wide_block(block: &[u8; 64], out: &mut [MaybeUninit<u8>]) -> (usize, usize, bool, bool) {
    use crate::stream::json_text::{
        compress_store, escape_starts, low_bits, wide_bytes_of, wide_masks,
    };
    let m = wide_masks(block);
    if m.backslash | m.quote | m.controls == 0 {
        put(out, 0, block);
        return (64, 64, m.high != 0, true);
    }
    let starts = escape_starts(m.backslash);
    let escaped = starts << 1;
    let stray = m.quote & !escaped;
    // A start at bit 63 is of an escape that goes on past the block, whose second byte the
    // plain ones are not looked for in.
    let past = starts & 1 << 63;
    let plain = escaped & (m.quote | m.backslash | wide_bytes_of(block, b"/"));
    let other = starts & !past & !(plain >> 1);
    let stop = u128::from(stray | other | m.controls);
    let end = (stop | u128::from(past) | 1 << 64).trailing_zeros() as usize;
    let taken = low_bits(end);
    let keep = !starts & taken;
    compress_store(out, block, keep);
    let more = stop >> end == 0;
    (end, keep.count_ones() as usize, m.high & taken != 0, more)
}

/// [`decode`] compiled for a CPU with SSSE3, which its shuffles need (and POPCNT, which counts
/// a block's escapes in one instruction).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3,popcnt")]
unsafe fn decode_ssse3<'s>(
    s: &'s [u8],
    out: &mut [MaybeUninit<u8>],
) -> Option<(&'s [u8], usize, bool)> {
    decode_with::<true, false>(s, out)
}

/// `bytes` written at `at` of `out` (bounds checked).
#[inline(always)]
fn put(out: &mut [MaybeUninit<u8>], at: usize, bytes: &[u8]) {
    let to = &mut out[at..at + bytes.len()];
    // SAFETY: `to` and `bytes` have the same length; `to` is spare room of a vector, which no
    // input slice overlaps.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), to.as_mut_ptr().cast::<u8>(), bytes.len())
    }
}

/// [`decode`]; with `SHUFFLE` (only where the CPU has SSSE3), a block's plain escapes are
/// undone by [`pack_by_shuffle`](crate::stream::json_text::pack_by_shuffle).
#[inline(always)]
fn decode_with<'s, const SHUFFLE: bool, const WIDE: bool>(
    s: &'s [u8],
    out: &mut [MaybeUninit<u8>],
) -> Option<(&'s [u8], usize, bool)> {
    let (mut i, mut w) = (0, 0);
    // Some byte past ASCII was seen: the text is checked as UTF-8 at the end. The bytes of a
    // block after its first special byte count too, so the check may run when it need not,
    // never the other way.
    let mut beyond_ascii = false;
    'outer: loop {
        #[cfg(target_arch = "x86_64")]
        if WIDE {
            while let Some(block) = s.get(i..i + 64) {
                let (taken, written, high, more) =
                    wide_block(block.try_into().ok()?, &mut out[w..]);
                beyond_ascii |= high;
                i += taken;
                w += written;
                if !more {
                    break;
                }
            }
        }
        while let Some(block) = s.get(i..i + 16) {
            let block: &[u8; 16] = block.try_into().ok()?;
            let b = crate::stream::json_text::block(block);
            beyond_ascii |= b.high;
            let specials = b.specials();
            #[cfg(target_arch = "x86_64")]
            if SHUFFLE && specials != 0 && b.controls == 0 {
                let (end, drop) = plain_escapes(block, b.quotes);
                if end > 0 {
                    // The bytes from `end` on are the shuffle's too (dropped here, and written
                    // after, from where the input stands).
                    let drop = drop | (0xffff << end & 0xffff);
                    w += crate::stream::json_text::pack_by_shuffle(&mut out[w..], block, drop);
                    i += end;
                    if end == 16 {
                        if WIDE {
                            continue 'outer;
                        }
                        continue;
                    }
                }
                // A quote, or an escape of another kind: decoded below.
                break;
            }
            put(out, w, block);
            if specials == 0 {
                i += 16;
                w += 16;
                // A plain block: what follows is likely plain for a while too, and is copied
                // as it is looked at (`w` never runs ahead of `i`, so it fits).
                let (run, high) = crate::stream::json_text::copy_plain_run(&s[i..], &mut out[w..]);
                beyond_ascii |= high;
                i += run;
                w += run;
                if WIDE {
                    continue 'outer;
                }
            } else {
                let k = specials.trailing_zeros() as usize;
                i += k;
                w += k;
                break;
            }
        }
        let b = *s.get(i)?;
        match b {
            b'"' => return Some((&s[i + 1..], w, beyond_ascii)),
            b'\\' => {}
            0..0x20 => return None,
            _ => {
                // The tail, shorter than a block.
                beyond_ascii |= !b.is_ascii();
                put(out, w, &[b]);
                i += 1;
                w += 1;
                continue;
            }
        }
        let c = match *s.get(i + 1)? {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                let hex = s.get(i + 2..i + 6)?;
                if !hex.iter().all(u8::is_ascii_hexdigit) {
                    return None;
                }
                let code = u32::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?;
                // Surrogate pairs and lone surrogates: the general parser's business.
                let ch = char::from_u32(code)?;
                let mut buf = [0; 4];
                let text = ch.encode_utf8(&mut buf);
                put(out, w, text.as_bytes());
                w += text.len();
                i += 6;
                continue;
            }
            _ => return None,
        };
        put(out, w, &[c]);
        i += 2;
        w += 1;
    }
}

/// The plain escapes (`\"`, `\\`, `\/`) of `block` (whose quotes and backslashes `quotes`
/// flags, from the block scan), a block that starts outside any escape, up
/// to its first byte that ends them: a quote not escaped, an escape of another kind, or an
/// escape whose second byte lies past the block. Returns (bytes of the block before that byte,
/// the escapes' backslashes there as flags).
///
/// Which backslashes start an escape is found for the whole block at once, as simdjson does: in a
/// run of backslashes every other one does, from the first, which the carry of a subtraction
/// tells.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn plain_escapes(block: &[u8; 16], quotes: u32) -> (usize, u32) {
    use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8};
    // SAFETY: SSE2 is part of every x86_64 target; the load reads the sixteen bytes of `block`.
    let (backslash, slash) = unsafe {
        let v = _mm_loadu_si128(block.as_ptr().cast());
        let mask = |b: u8| _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8))) as u32;
        (mask(b'\\'), mask(b'/'))
    };
    // The block scan's `quotes` flags quotes and backslashes alike.
    let quote = quotes & !backslash;
    const ODD: u32 = 0xaaaa_aaaa;
    // Bit set: a backslash that starts an escape, or the byte an escape ends with.
    let code = (((backslash << 1) | ODD).wrapping_sub(backslash) ^ ODD) & 0xffff;
    let starts = code & backslash;
    let escaped = starts << 1;
    // Where the plain run ends: a quote not escaped; an escape of another kind, from its
    // backslash (an escape that goes on past the block is one: its second byte, bit 16, is none
    // of the three).
    let stray = quote & !escaped;
    let other = (escaped & !(quote | backslash | slash)) >> 1;
    let end = (stray | other | 1 << 16).trailing_zeros() as usize;
    (end, starts & ((1 << end) - 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn line_record(line: &[u8]) -> Option<(u64, Direction, Vec<u8>, bool)> {
        // What `out` held stays, and the line comes after it.
        let mut out = b"left over".to_vec();
        let (t, dir, terminated) = super::line_record(line, &mut out)?;
        assert_eq!(&out[..9], b"left over");
        Some((t, dir, out[9..].to_vec(), terminated))
    }

    /// What serde_json makes of the same record (the reader's general path).
    fn general(line: &[u8]) -> Option<(u64, Direction, Vec<u8>, bool)> {
        #[derive(serde::Deserialize)]
        struct R {
            t: u64,
            d: Direction,
            l: String,
            #[serde(default)]
            n: bool,
        }
        let r: R = serde_json::from_slice(line).ok()?;
        Some((r.t, r.d, r.l.into_bytes(), !r.n))
    }

    fn record(t: u64, d: &str, text: &str, n: bool) -> Vec<u8> {
        let mut out = format!("{{\"t\":{t},\"d\":\"{d}\",\"l\":").into_bytes();
        serde_json::to_writer(&mut out, text).unwrap();
        if n {
            out.extend_from_slice(b",\"n\":true");
        }
        out.push(b'}');
        out
    }

    #[test]
    fn reads_what_the_writer_writes() {
        let line = record(
            12,
            "c",
            "{\"a\":\"tab\\there \u{e9} \u{1F600}\"}\u{7}",
            true,
        );
        assert_eq!(
            line_record(&line),
            Some((
                12,
                Direction::Client,
                "{\"a\":\"tab\\there \u{e9} \u{1F600}\"}\u{7}"
                    .as_bytes()
                    .to_vec(),
                false
            ))
        );
    }

    #[test]
    fn leaves_the_unusual_to_the_general_parser() {
        for line in [
            &b"{\"d\":\"a\",\"t\":1,\"l\":\"x\"}"[..],
            b"{\"t\":1, \"d\":\"a\",\"l\":\"x\"}",
            b"{\"t\":01,\"d\":\"a\",\"l\":\"x\"}",
            b"{\"t\":99999999999999999999,\"d\":\"a\",\"l\":\"x\"}",
            b"{\"t\":1,\"d\":\"a\",\"l\":\"\\ud83d\\ude00\"}",
            b"{\"t\":1,\"d\":\"a\",\"l\":\"\\ud800\"}",
            b"{\"t\":1,\"d\":\"a\",\"l\":\"raw\ttab\"}",
            b"{\"t\":1,\"d\":\"a\",\"l\":\"\xff\"}",
            b"{\"t\":1,\"d\":\"a\",\"l\":\"x\",\"n\":false}",
            b"{\"t\":1,\"d\":\"a\",\"l\":\"x\"} ",
            b"{\"t\":1,\"d\":\"a\",\"l\":\"x\\q\"}",
            b"{\"t\":1,\"d\":\"a\",\"l\":\"x",
            b"{\"t\":1,\"d\":\"a\",\"l\":\"\\u12\"}",
            b"{\"t\":1,\"d\":\"a\",\"l\":\"\\u+123\"}",
            b"{\"t\":1,\"d\":\"x\",\"l\":\"x\"}",
        ] {
            assert_eq!(line_record(line), None, "{}", String::from_utf8_lossy(line));
        }
    }

    proptest! {
        /// Every record the writer makes is read the fast way, to the line it holds.
        #[test]
        fn round_trips_any_text(t in any::<u64>(), text in any::<String>(), n in any::<bool>()) {
            let line = record(t, "a", &text, n);
            prop_assert_eq!(line_record(&line), Some((t, Direction::Agent, text.into_bytes(), !n)));
        }

        /// Text as dense in quotes and backslashes as a recorded JSON line, with runs of
        /// backslashes across block edges and the odd control byte, comes back exactly.
        #[test]
        fn round_trips_text_dense_in_escapes(text in "[\"\\\\/a-z\n\u{e9}]{0,100}") {
            let line = record(1, "a", &text, false);
            prop_assert_eq!(line_record(&line), Some((1, Direction::Agent, text.into_bytes(), true)));
        }

        /// The unescape as the reader runs it (sixty-four bytes at a time with AVX-512, sixteen
        /// with the shuffles, on a CPU that has them; and with the 64-byte path off) and byte by
        /// byte agree on any string body: what they decline and what they decode.
        #[test]
        fn the_shuffled_unescape_agrees_with_the_bytewise_one(body in proptest::collection::vec(
            prop_oneof![
                Just(b'\\'), Just(b'\\'), Just(b'"'), Just(b'"'), Just(b'/'), Just(b'n'),
                Just(b'u'), Just(b'a'), Just(0x1f), Just(0xc3), Just(0xa9), any::<u8>()
            ], 0..300)) {
            let mut plain = b"over".to_vec();
            let mut room = vec![MaybeUninit::new(0); body.len() + 16];
            let want = decode_with::<false, false>(&body, &mut room).map(|(rest, w, _)| {
                // SAFETY: `decode_with` wrote every byte of `room[..w]` (and all of `room` was
                // initialized to begin with).
                plain.extend(room[..w].iter().map(|b| unsafe { b.assume_init() }));
                rest
            });
            let want = want.filter(|_| std::str::from_utf8(&plain[4..]).is_ok());
            for narrow in [false, true] {
                let mut fast = b"left".to_vec();
                let got = if narrow {
                    crate::stream::json_text::narrow_only(|| unescape(&body, &mut fast))
                } else {
                    unescape(&body, &mut fast)
                };
                prop_assert_eq!(got, want, "narrow: {}", narrow);
                if got.is_some() {
                    prop_assert_eq!(&fast[4..], &plain[4..]);
                } else {
                    prop_assert_eq!(&fast[..], b"left");
                }
            }
        }

        /// On any bytes after the record's start, the fast path either declines or agrees with
        /// serde_json.
        #[test]
        fn never_disagrees_with_serde_json(body in proptest::collection::vec(
            prop_oneof![
                Just(b'\\'), Just(b'"'), Just(b'u'), Just(b'n'), Just(b'}'), Just(b'0'),
                Just(b'd'), Just(0x1f), Just(0xc3), Just(0xa9), any::<u8>()
            ], 0..40)) {
            let mut line = b"{\"t\":7,\"d\":\"e\",\"l\":\"".to_vec();
            line.extend_from_slice(&body);
            if let Some(fast) = line_record(&line) {
                prop_assert_eq!(Some(fast), general(&line));
            }
        }
    }
}
