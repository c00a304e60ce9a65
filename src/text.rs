//! Shortening text for people: one place for the few ways toolnorm cuts a string (titles and
//! messages, report cells, raw lines quoted in findings). Pure, and below every other module.

/// Collapse all white space (newlines included) to single spaces and cut to `max` characters,
/// ellipsis included.
///
/// ```
/// assert_eq!(toolnorm::text::clip("one\ntwo\t three", 100), "one two three");
/// assert_eq!(toolnorm::text::clip("abcdef", 4), "abc…");
/// ```
pub fn clip(text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut count = 0usize;
    for word in text.split_whitespace() {
        if count > 0 {
            out.push(' ');
            count += 1;
        }
        // A word at a time, up to the character that takes the count past `max` (never the
        // rest of a long word).
        let room = (max + 1).saturating_sub(count);
        let (end, n) = word
            .char_indices()
            .nth(room)
            .map_or_else(|| (word.len(), word.chars().count()), |(i, _)| (i, room));
        out.push_str(&word[..end]);
        count += n;
        if count > max {
            let cut = cut_at(&out, max.saturating_sub(1)).unwrap_or(out.len());
            out.truncate(cut);
            out.truncate(out.trim_end().len());
            out.push('…');
            return out;
        }
    }
    out
}

/// The byte index where the `max`-th character starts, if `s` is longer than `max` characters.
fn cut_at(s: &str, max: usize) -> Option<usize> {
    s.char_indices().nth(max).map(|(i, _)| i)
}

/// At most `max` characters of `s` as they are (white space kept), with `…` when cut.
///
/// ```
/// assert_eq!(toolnorm::text::truncate("a  b", 10), "a  b");
/// assert_eq!(toolnorm::text::truncate("abcdef", 3), "abc…");
/// ```
pub fn truncate(s: &str, max: usize) -> String {
    match cut_at(s, max) {
        None => s.to_owned(),
        Some(i) => format!("{}…", &s[..i]),
    }
}

/// At most `max` characters of `s` as they are, saying how many bytes were cut.
///
/// ```
/// assert_eq!(toolnorm::text::truncate_counted("abcdef", 2), "ab… (4 more bytes)");
/// ```
pub fn truncate_counted(s: &str, max: usize) -> String {
    match cut_at(s, max) {
        None => s.to_owned(),
        Some(i) => format!("{}… ({} more bytes)", &s[..i], s.len() - i),
    }
}

/// `s` on one line (each newline and carriage return made a space, other white space kept), cut
/// to at most `max` characters, ellipsis included.
///
/// ```
/// assert_eq!(toolnorm::text::one_line("a\n b\r\n", 10), "a  b  ");
/// assert_eq!(toolnorm::text::one_line("abcdef", 6), "abcdef");
/// assert_eq!(toolnorm::text::one_line("abcdef", 4), "abc…");
/// assert_eq!(toolnorm::text::one_line("ééé", 2), "é…");
/// ```
pub fn one_line(s: &str, max: usize) -> String {
    let flat = s.replace(['\n', '\r'], " ");
    if cut_at(&flat, max).is_none() {
        return flat;
    }
    let end = cut_at(&flat, max.saturating_sub(1)).unwrap_or(flat.len());
    format!("{}…", &flat[..end])
}

/// A count with thousands separators, as people read it in messages and reports.
///
/// ```
/// assert_eq!(toolnorm::text::thousands(1_234_567), "1,234,567");
/// assert_eq!(toolnorm::text::thousands(999), "999");
/// ```
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `clip` as it was first written, a character at a time: the oracle.
    fn clip_by_chars(text: &str, max: usize) -> String {
        let mut out = String::new();
        let mut count = 0usize;
        for word in text.split_whitespace() {
            if count > 0 {
                out.push(' ');
                count += 1;
            }
            for ch in word.chars() {
                out.push(ch);
                count += 1;
                if count > max {
                    let cut: String = out.chars().take(max.saturating_sub(1)).collect();
                    return format!("{}…", cut.trim_end());
                }
            }
        }
        out
    }

    proptest! {
        #[test]
        fn clip_is_the_character_at_a_time_clip(text in "[a é\t\n…\u{3000}]{0,40}", max in 0usize..30) {
            prop_assert_eq!(clip(&text, max), clip_by_chars(&text, max));
        }
    }

    #[test]
    fn clip_bounds_and_single_line() {
        let long = "a ".repeat(200);
        let c = clip(&long, 100);
        assert!(c.chars().count() <= 100);
        assert!(c.ends_with('…'));
        assert_eq!(clip("", 5), "");
        assert_eq!(clip("é".repeat(10).as_str(), 3), "éé…");
    }

    #[test]
    fn truncation_counts_what_it_cut_on_char_boundaries() {
        assert_eq!(truncate("ééé", 2), "éé…");
        assert_eq!(truncate_counted("ééé", 1), "é… (4 more bytes)");
        assert_eq!(truncate_counted("short", 10), "short");
    }
}
