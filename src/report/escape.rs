//! Text made safe for the HTML pages (the report's and the tool cards'): escaping, clipping,
//! sizes in words, and the hashes a page's Content-Security-Policy names its inline code by.

use std::borrow::Cow;

use base64::Engine;
use sha2::{Digest, Sha256};

use crate::text::thousands;

/// `sha256-<base64>` over the exact bytes of an inline element's content.
pub(crate) fn csp_hash(content: &str) -> String {
    let digest = Sha256::digest(content.as_bytes());
    format!(
        "sha256-{}",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// Escape untrusted text for HTML text and (quoted) attribute values alike.
pub(crate) fn esc(s: &str) -> Cow<'_, str> {
    html_escape::encode_safe(s)
}

/// Escape, clipping to `max` characters with the number left out said in words.
pub(crate) fn esc_clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => esc(s).into_owned(),
        Some((i, _)) => {
            let rest = s[i..].chars().count();
            format!(
                "{}<span class=\"clip\">… {} more characters</span>",
                esc(&s[..i]),
                thousands(rest as u64)
            )
        }
    }
}

pub(crate) fn bytes(n: u64) -> String {
    match n {
        n if n < 1024 => format!("{n} B"),
        n if n < 1024 * 1024 => format!("{:.1} KiB", n as f64 / 1024.0),
        n => format!("{:.1} MiB", n as f64 / (1024.0 * 1024.0)),
    }
}
