//! The redactor's literal gate: a line goes to the combined pattern only if it holds a path
//! prefix, or a literal that every match of some secret kind contains, at a place where that kind
//! can match (checked on the few bytes around it). Most lines hold neither, and the few literals
//! that do turn up in ordinary text (`task-` holds `sk-`, `"ANTHROPIC_API_KEY"` holds `KEY"` as a
//! value, prose says "basic") are ruled out there, without running the pattern on the line.

use aho_corasick::{AhoCorasick, Input, MatchKind};

/// What must hold around a literal for its kind to match there. Each is implied by the kind's
/// pattern (see [`super::KINDS`]), so the gate never turns away a line that holds a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Around {
    /// Nothing more.
    Anything,
    /// The pattern starts with a word boundary (`(?-u:\b)xox…`): no word byte before.
    WordStart,
    /// A word boundary before, and at least `min` bytes of `class` after (`(?-u:\b)npm_` then
    /// `[A-Za-z0-9]{36}`).
    Token { class: Class, min: usize },
    /// `AIza` then 35 bytes of `[0-9A-Za-z_-]`, with no boundary before.
    Google,
    /// `(?-u:\b)eyJ[A-Za-z0-9_-]{5,}\.eyJ`: a JSON Web Token's first two parts.
    Jwt,
    /// A word boundary before and a blank after (`(?-u:\b)(?i:bearer)[ \t]+…`).
    WordThenBlank,
    /// `[A-Z][A-Z0-9_]*KEY=`: an upper-case name goes on before it.
    EnvName,
    /// `"…key\"?[ \t]*:[ \t]*\"?` then four bytes of value: a JSON field holding a string.
    FieldName,
}

/// Bytes a secret goes on with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// `[A-Za-z0-9]`
    Alnum,
    /// `[A-Za-z0-9_]`
    Word,
    /// `[A-Za-z0-9_-]`
    WordDash,
    /// `[0-9A-Z]`
    Upper,
}

impl Class {
    fn has(self, b: u8) -> bool {
        match self {
            Class::Alnum => b.is_ascii_alphanumeric(),
            Class::Word => is_word(b),
            Class::WordDash => is_word(b) || b == b'-',
            Class::Upper => b.is_ascii_uppercase() || b.is_ascii_digit(),
        }
    }

    /// How many bytes of this class `text` starts with, counting at most `max`.
    fn run(self, text: &[u8], max: usize) -> usize {
        text.iter().take(max).take_while(|b| self.has(**b)).count()
    }
}

const fn token(class: Class, min: usize) -> Around {
    Around::Token { class, min }
}

/// Literals of the secret kinds and what must hold around them. Secret names are looked for in
/// lower, Capitalized and UPPER case (`apiKey`, `client_secret`, `X_TOKEN`); odder casings are
/// not.
const SECRETS: &[(&str, Around)] = &[
    ("PRIVATE KEY-----", Around::Anything),
    // `sk-ant-` then 8, or `sk-` then 20 (`proj-` and the like among them).
    ("sk-", token(Class::WordDash, 12)),
    ("sk_live_", token(Class::Alnum, 16)),
    ("rk_live_", token(Class::Alnum, 16)),
    ("ghp_", token(Class::Alnum, 30)),
    ("gho_", token(Class::Alnum, 30)),
    ("ghu_", token(Class::Alnum, 30)),
    ("ghs_", token(Class::Alnum, 30)),
    ("ghr_", token(Class::Alnum, 30)),
    ("github_pat_", token(Class::Word, 30)),
    ("AKIA", token(Class::Upper, 16)),
    ("ASIA", token(Class::Upper, 16)),
    ("AIza", Around::Google),
    ("xox", Around::WordStart),
    ("npm_", token(Class::Alnum, 36)),
    ("eyJ", Around::Jwt),
    ("bearer", Around::WordThenBlank),
    ("Bearer", Around::WordThenBlank),
    ("BEARER", Around::WordThenBlank),
    ("basic", Around::WordThenBlank),
    ("Basic", Around::WordThenBlank),
    ("BASIC", Around::WordThenBlank),
    ("KEY=", Around::EnvName),
    ("TOKEN=", Around::EnvName),
    ("SECRET=", Around::EnvName),
    ("PASSWORD=", Around::EnvName),
    ("PASSWD=", Around::EnvName),
];

/// Names of secret fields (`"client_secret": "…"`), each in three casings.
const FIELD_NAMES: &[&str] = &["key", "token", "secret", "password", "passwd"];

#[derive(Clone, Debug)]
pub(super) struct Gate {
    /// The path prefixes' spellings first (found anywhere, they let the line through), then the
    /// secrets' literals, in one search.
    literals: AhoCorasick,
    around: Vec<Around>,
}

impl Gate {
    /// The gate for these path prefixes (each spelling), or `None` if the literal search cannot
    /// be built (then every line goes to the pattern).
    pub(super) fn new<'a>(paths: impl IntoIterator<Item = &'a [u8]>) -> Option<Gate> {
        let mut literals: Vec<Vec<u8>> = Vec::new();
        let mut around = Vec::new();
        // First, so that a path prefix is never hidden by a secret's literal starting at the
        // same byte (the first listed wins there).
        for path in paths.into_iter().filter(|p| !p.is_empty()) {
            literals.push(path.to_vec());
            around.push(Around::Anything);
        }
        for (lit, a) in SECRETS {
            literals.push(lit.as_bytes().to_vec());
            around.push(*a);
        }
        for name in FIELD_NAMES {
            let capitalized = name[..1].to_uppercase() + &name[1..];
            for spelt in [(*name).to_owned(), capitalized, name.to_uppercase()] {
                for quote in ["\"", "\\\""] {
                    literals.push(format!("{spelt}{quote}").into_bytes());
                    around.push(Around::FieldName);
                }
            }
        }
        let literals = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostFirst)
            .build(&literals)
            .ok()?;
        Some(Gate { literals, around })
    }

    /// Whether `line` may hold a match: a path prefix anywhere, or a secret's literal where its
    /// kind can match.
    pub(super) fn may_match(&self, line: &[u8]) -> bool {
        let mut at = 0;
        while let Some(m) = self.literals.find(Input::new(line).span(at..line.len())) {
            if holds(
                self.around[m.pattern().as_usize()],
                line,
                m.start(),
                m.end(),
            ) {
                return true;
            }
            // Look again from the next byte: a literal starting inside this one is not lost.
            at = m.start() + 1;
        }
        false
    }
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whether what `around` asks holds for the literal at `start..end` of `line`.
fn holds(around: Around, line: &[u8], start: usize, end: usize) -> bool {
    let word_start = start == 0 || !is_word(line[start - 1]);
    match around {
        Around::Anything => true,
        Around::WordStart => word_start,
        Around::Token { class, min } => word_start && class.run(&line[end..], min) >= min,
        Around::Google => Class::WordDash.run(&line[end..], 35) == 35,
        Around::Jwt => {
            let run = Class::WordDash.run(&line[end..], usize::MAX);
            word_start && run >= 5 && line[end + run..].starts_with(b".eyJ")
        }
        Around::WordThenBlank => word_start && matches!(line.get(end), Some(b' ' | b'\t')),
        Around::EnvName => start > 0 && matches!(line[start - 1], b'A'..=b'Z' | b'0'..=b'9' | b'_'),
        Around::FieldName => {
            let mut rest = skip_blanks(&line[end..]);
            let Some(after) = rest.strip_prefix(b":") else {
                return false;
            };
            rest = skip_blanks(after);
            rest = rest.strip_prefix(b"\\").unwrap_or(rest);
            rest.strip_prefix(b"\"").is_some_and(|value| {
                value.len() >= 4 && !value[..4].iter().any(|b| matches!(b, b'"' | b'\\'))
            })
        }
    }
}

fn skip_blanks(text: &[u8]) -> &[u8] {
    let n = text
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t'))
        .count();
    &text[n..]
}
