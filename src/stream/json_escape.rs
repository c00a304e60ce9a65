//! JSON strings written as `serde_json` writes them, sixteen bytes at a time: the fixture
//! writer's escape of every recorded line, and the canonical writer's of every string of an
//! expected output.

use super::json_text::block;
#[cfg(target_arch = "x86_64")]
use super::json_text::{has_shuffles, named_controls, spread_by_shuffle, spread_named_by_shuffle};

/// Write `text` as a JSON string, quotes included, at the start of `buf`, escaped exactly as
/// `serde_json` escapes it (for valid UTF-8; the caller checks that, and need not when every byte
/// was ASCII); returns the length written and whether every byte was ASCII. Most bytes of a JSON
/// line need no escape, and most escapes are of quotes and backslashes: the text is looked at and
/// copied sixteen bytes at a time into room made once for the whole line (two bytes for each of
/// `text`'s, more only when a control byte needs six), and all the quotes and backslashes of a
/// block are escaped in one go. `buf` is grown when it is too short, never shrunk: what lies past
/// the length returned is left over, so a caller that keeps `buf` never pays for clearing it.
///
/// Where the CPU has SSSE3 (nearly every x86_64 one), a block's backslashes go in by two byte
/// shuffles, whatever their number; elsewhere each run between them is copied on its own.
pub(crate) fn escape_json_string(buf: &mut Vec<u8>, text: &[u8]) -> (usize, bool) {
    escape_json_string_at(buf, 0, text)
}

/// [`escape_json_string`] from `buf[from]` on (what lies before is left as it is); returns
/// where the string ends in `buf` and whether every byte was ASCII.
pub(crate) fn escape_json_string_at(buf: &mut Vec<u8>, from: usize, text: &[u8]) -> (usize, bool) {
    #[cfg(target_arch = "x86_64")]
    if has_shuffles() {
        // SAFETY: the CPU has SSSE3 and POPCNT, checked just above.
        return unsafe { escape_ssse3(buf, from, text) };
    }
    escape_with::<false>(buf, from, text)
}

/// [`escape_json_string`] compiled for a CPU with SSSE3, which its shuffles need (and POPCNT,
/// which counts a block's flags in one instruction).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3,popcnt")]
unsafe fn escape_ssse3(buf: &mut Vec<u8>, from: usize, text: &[u8]) -> (usize, bool) {
    escape_with::<true>(buf, from, text)
}

/// [`escape_json_string`]; with `SHUFFLE` (only where the CPU has SSSE3), a block of quotes and
/// backslashes is spread by [`spread_by_shuffle`].
#[inline(always)]
fn escape_with<const SHUFFLE: bool>(buf: &mut Vec<u8>, from: usize, text: &[u8]) -> (usize, bool) {
    /// Room after `at` for the rest of the input (`left` bytes) at two bytes each, an escape of
    /// six, and slack: a block's runs and backslashes write up to 47 bytes past where it starts
    /// in the output, while 16 bytes of input are still to come.
    fn room(buf: &mut Vec<u8>, at: usize, left: usize) {
        let need = at + 2 * left + 40;
        if buf.len() < need {
            buf.resize(need, 0);
        }
    }
    /// Write the escape of `b` (a byte that needs one) at `at`; where the output goes on.
    fn escape(buf: &mut Vec<u8>, at: usize, b: u8, left: usize) -> usize {
        let short = match b {
            // A quote or a backslash (most escapes): a backslash before it.
            0x20.. => b,
            b'\n' => b'n',
            b'\r' => b'r',
            b'\t' => b't',
            0x08 => b'b',
            0x0c => b'f',
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                room(buf, at + 6, left);
                buf[at..at + 6].copy_from_slice(&[
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[usize::from(b >> 4)],
                    HEX[usize::from(b & 0xf)],
                ]);
                return at + 6;
            }
        };
        buf[at..at + 2].copy_from_slice(&[b'\\', short]);
        at + 2
    }
    let n = text.len();
    room(buf, from + 1, n);
    buf[from] = b'"';
    let mut at = from + 1;
    let mut i = 0;
    let mut ascii = true;
    while let Some(bytes) = text.get(i..i + 16) {
        let bytes: [u8; 16] = bytes.try_into().unwrap_or_default();
        let b = block(&bytes);
        ascii &= !b.high;
        if b.specials() == 0 {
            buf[at..at + 16].copy_from_slice(&bytes);
            at += 16;
            i += 16;
            continue;
        }
        #[cfg(target_arch = "x86_64")]
        // Line breaks and tabs (text's usual control bytes) are escaped by the shuffle too when
        // they are all the block's control bytes.
        if SHUFFLE
            && (b.controls == 0 || named_controls(&bytes) == b.controls)
            && let Some(dst) = buf.get_mut(at..at + 32)
        {
            at += if b.controls == 0 {
                spread_by_shuffle(dst, &bytes, b.quotes)
            } else {
                spread_named_by_shuffle(dst, &bytes, b.quotes | b.controls)
            };
            i += 16;
            continue;
        }
        if b.controls == 0 {
            // Quotes and backslashes only, as in most blocks of a JSON line that need an
            // escape: the runs between them are copied sixteen bytes at a time from the input
            // (read ahead past the block; what lands past a run is overwritten by the next), a
            // backslash before each. Near the end of the input the reads ahead come from a
            // padded copy.
            let padded;
            let src: &[u8] = match text.get(i..i + 32) {
                Some(ahead) => ahead,
                None => {
                    let mut p = [0u8; 32];
                    p[..n - i].copy_from_slice(&text[i..]);
                    padded = p;
                    &padded
                }
            };
            let mut left = b.quotes;
            let mut from = 0;
            while left != 0 {
                let k = left.trailing_zeros() as usize;
                buf[at..at + 16].copy_from_slice(&src[from..from + 16]);
                at += k - from;
                buf[at] = b'\\';
                at += 1;
                from = k;
                left &= left - 1;
            }
            buf[at..at + 16].copy_from_slice(&src[from..from + 16]);
            at += 16 - from;
            i += 16;
            continue;
        }
        // A control byte: the block up to the first special byte, then its escape.
        buf[at..at + 16].copy_from_slice(&bytes);
        let k = b.specials().trailing_zeros() as usize;
        at += k;
        i += k + 1;
        at = escape(buf, at, bytes[k], n - i);
    }
    for &b in &text[i..] {
        ascii &= b.is_ascii();
        i += 1;
        if matches!(b, b'"' | b'\\' | 0..0x20) {
            at = escape(buf, at, b, n - i);
        } else {
            buf[at] = b;
            at += 1;
        }
    }
    buf[at] = b'"';
    (at + 1, ascii)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The escape as the writer runs it (with the shuffles, on a CPU that has them) and with
    /// copies only.
    const ESCAPES: [Escape; 2] = [escape_json_string, |buf, text| {
        escape_with::<false>(buf, 0, text)
    }];
    type Escape = fn(&mut Vec<u8>, &[u8]) -> (usize, bool);

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn every_flag_pattern_of_a_block_is_spread_by_its_shuffle() {
        if !has_shuffles() {
            eprintln!("skipped: no SSSE3 and POPCNT on this CPU, so the writer does not shuffle");
            return;
        }
        let mut buf = Vec::new();
        for flags in 0..1u32 << 16 {
            let text: Vec<u8> = (0..16)
                .map(|j| if flags >> j & 1 == 1 { b'"' } else { b'a' + j })
                .collect();
            let (len, _) = escape_json_string(&mut buf, &text);
            let want = serde_json::to_string(std::str::from_utf8(&text).unwrap()).unwrap();
            assert_eq!(&buf[..len], want.as_bytes(), "flags {flags:#06x}");
        }
        // Line breaks, tabs and carriage returns among them (shuffled too), and with another
        // control byte beside them (escaped one by one).
        for flags in 0..1u32 << 16 {
            for odd in [None, Some(0x01u8)] {
                let mut text: Vec<u8> = (0..16)
                    .map(|j| match (flags >> j & 1, j % 5) {
                        (0, _) => b'a' + j as u8,
                        (_, 0) => b'\n',
                        (_, 1) => b'"',
                        (_, 2) => b'\t',
                        (_, 3) => b'\\',
                        _ => b'\r',
                    })
                    .collect();
                if let Some(b) = odd {
                    text[(flags % 16) as usize] = b;
                }
                let (len, _) = escape_json_string(&mut buf, &text);
                let want = serde_json::to_string(std::str::from_utf8(&text).unwrap()).unwrap();
                assert_eq!(&buf[..len], want.as_bytes(), "flags {flags:#06x} {odd:?}");
            }
        }
    }

    proptest::proptest! {
        /// Escaped as `serde_json` escapes: every control byte, quotes, backslashes (dense, as in
        /// JSON text, with no control byte in the block), long text as dense in escapes as a
        /// tool's output or a file's (many blocks, the odd control byte escaped by its code), any
        /// text.
        #[test]
        fn a_line_is_escaped_as_serde_json_escapes_it(
            text in "(?s)[\\x00-\\x20\"\\\\a-z\u{7f}\u{e9}\u{1F600}]{0,40}|[\"\\\\a-z\u{e9}]{0,64}|[\\n\\t\\r\\x08\\x0c\\x01\\x1f\"\\\\a-z \u{e9}]{0,300}|\\PC{0,40}"
        ) {
            for escape in ESCAPES {
                // Left over from a longer string: must not show through.
                let mut buf = vec![b'#'; 200];
                let (len, ascii) = escape(&mut buf, text.as_bytes());
                buf.truncate(len);
                proptest::prop_assert_eq!(ascii, text.is_ascii());
                proptest::prop_assert_eq!(
                    String::from_utf8(buf).unwrap(),
                    serde_json::to_string(&text).unwrap()
                );
            }
        }
    }

    #[test]
    fn every_byte_below_0x80_is_escaped_as_serde_json_escapes_it_at_every_offset() {
        for b in 0u8..0x80 {
            for at in 0..17 {
                let mut text = "x".repeat(at);
                text.push(char::from(b));
                text.push_str("yz");
                for escape in ESCAPES {
                    let mut buf = Vec::new();
                    let (len, ascii) = escape(&mut buf, text.as_bytes());
                    assert!(ascii);
                    buf.truncate(len);
                    assert_eq!(
                        String::from_utf8(buf).unwrap(),
                        serde_json::to_string(&text).unwrap(),
                        "byte {b:#x} at {at}"
                    );
                }
            }
        }
    }

    /// Written after what `buf` holds, which stays: the canonical writer's use.
    #[test]
    fn a_string_is_written_where_it_is_asked_for() {
        for escape_at in [
            escape_json_string_at,
            |buf: &mut Vec<u8>, from, text: &[u8]| escape_with::<false>(buf, from, text),
        ] {
            let mut buf = b"{\"k\": ".to_vec();
            let from = buf.len();
            let text = "a \"quoted\" \\ line\nwith \u{1} and \u{e9}, longer than one block";
            let (end, ascii) = escape_at(&mut buf, from, text.as_bytes());
            assert!(!ascii);
            buf.truncate(end);
            assert_eq!(
                String::from_utf8(buf).unwrap(),
                format!("{{\"k\": {}", serde_json::to_string(text).unwrap())
            );
        }
    }
}
