//! Redaction of secrets and personal paths, applied to every line before it reaches the disk (never
//! to the passthrough). Pure: a literal gate (the `gate` module) lets through only lines that may hold a
//! match; those take one pass of one combined regex (again on a line it changed, until nothing
//! changes, so redaction is idempotent). `toolnorm corpus lint` uses the same detector, so what
//! the recorder would redact is exactly what lint refuses.
//!
//! Replacements name the kind (`[REDACTED:anthropic-key]`) and contain no quote or backslash, and
//! every pattern stops at a quote or backslash, so a JSON line stays valid JSON. Patterns a user adds
//! with `--redact` may cross those; a line they would break is replaced as a whole by a JSON string.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Range;

use base64::Engine as _;
use regex::bytes::Regex;

/// Built-in kinds: name and pattern. A group named `v` marks the part replaced (the secret value),
/// otherwise the whole match is. Order matters where two patterns start at the same place: the
/// first one listed wins.
const KINDS: &[(&str, &str)] = &[
    (
        "private-key",
        r#"-----BEGIN[A-Z ]{0,40}PRIVATE KEY-----(?:(?:[^"\\]|\\[^"])*?-----END[A-Z ]{0,40}PRIVATE KEY-----|(?:[A-Za-z0-9+/=: \t\r-]|\\[nrt])*)"#,
    ),
    ("anthropic-key", r"(?-u:\b)sk-ant-[A-Za-z0-9_-]{8,}"),
    (
        "openai-key",
        r"(?-u:\b)sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
    ),
    ("stripe-key", r"(?-u:\b)[sr]k_live_[A-Za-z0-9]{16,}"),
    (
        "github-token",
        r"(?-u:\b)(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})",
    ),
    ("aws-key", r"(?-u:\b)(?:AKIA|ASIA)[0-9A-Z]{16}(?-u:\b)"),
    ("google-key", r"AIza[0-9A-Za-z_-]{35}"),
    ("slack-token", r"(?-u:\b)xox[abposr]-[A-Za-z0-9-]{10,}"),
    ("npm-token", r"(?-u:\b)npm_[A-Za-z0-9]{36}"),
    (
        "jwt",
        r"(?-u:\b)eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}",
    ),
    (
        "bearer",
        r"(?-u:\b)(?i:bearer)[ \t]+(?P<v>[A-Za-z0-9._~+/-]{16,}=*)",
    ),
    (
        "basic-auth",
        r"(?-u:\b)(?i:basic)[ \t]+(?P<v>[A-Za-z0-9+/]{8,}={0,2})",
    ),
    (
        "secret-env",
        r#"(?-u:\b)[A-Z][A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD)=(?:\\?["'])?(?P<v>[^\s"'\\$`]{4,})"#,
    ),
    (
        "secret-field",
        r#""[A-Za-z0-9_.-]*(?i:key|token|secret|password|passwd)\\?"[ \t]*:[ \t]*\\?"(?P<v>[^"\\]{4,})"#,
    ),
];

/// What the redactor is told beyond the built-in kinds.
#[derive(Clone, Debug, Default)]
pub struct RedactOptions {
    /// The user's home directory, replaced by `~`.
    pub home: Option<String>,
    /// Other path prefixes and their replacements (a scenario's scratch directory → `/work`).
    pub prefixes: Vec<(String, String)>,
    /// Extra patterns (`--redact REGEX`), kind `custom`.
    pub extra: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
#[error("bad --redact pattern `{pattern}`: {source}")]
pub struct PatternError {
    pub pattern: String,
    #[source]
    pub source: Box<regex::Error>,
}

#[derive(Clone, Debug)]
enum Replace {
    /// `[REDACTED:<kind>]`
    Token,
    /// A path prefix: replaced by `to` where a path starts with it (see [`Redactor::fold_at`]).
    Path {
        to: String,
        /// The prefix as it may be spelt: as is, and JSON-escaped when that differs.
        spellings: Vec<Vec<u8>>,
    },
}

#[derive(Clone, Debug)]
struct Kind {
    name: String,
    /// Capture group of the whole alternative and of its value part.
    whole: usize,
    value: Option<usize>,
    replace: Replace,
    custom: bool,
}

/// The compiled detector.
#[derive(Clone, Debug)]
pub struct Redactor {
    /// Literal pre-check (see [`gate`]); `None` with `--redact` patterns, which have no known
    /// literal.
    gate: Option<gate::Gate>,
    combined: Regex,
    kinds: Vec<Kind>,
    pem_end: Regex,
}

/// Per-stream state: counts by kind and whether a multi-line PEM block is open.
#[derive(Clone, Debug, Default)]
pub struct RedactState {
    counts: Vec<u64>,
    in_pem: bool,
}

/// A secret found by [`Redactor::find`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub kind: String,
    /// Byte offset in the line.
    pub offset: usize,
}

impl Redactor {
    pub fn new(opts: &RedactOptions) -> Result<Self, PatternError> {
        let mut alternatives = Vec::new();
        let mut specs: Vec<(String, Option<()>, Replace, bool)> = Vec::new();
        for (name, pat) in KINDS {
            alternatives.push(pat.replace("(?P<v>", &format!("(?P<v{}>", specs.len())));
            specs.push((
                (*name).to_owned(),
                pat.contains("(?P<v>").then_some(()),
                Replace::Token,
                false,
            ));
        }
        let mut paths: Vec<(String, String, &str)> = Vec::new();
        if let Some(home) = opts.home.as_deref().filter(|h| h.len() > 1) {
            paths.push((home.to_owned(), "~".to_owned(), "home-path"));
        }
        for (from, to) in &opts.prefixes {
            paths.push((from.clone(), to.clone(), "path"));
        }
        // Longest first, so a scratch dir inside the home wins over the home itself.
        paths.sort_by_key(|p| std::cmp::Reverse(p.0.len()));
        for (from, to, kind) in paths {
            let from = from.trim_end_matches(['/', '\\']).to_owned();
            if from.is_empty() {
                continue;
            }
            // The JSON-escaped spelling too (Windows paths have backslashes).
            let escaped = from.replace('\\', "\\\\");
            let (pat, spellings) = if escaped == from {
                (regex::escape(&from), vec![from.into_bytes()])
            } else {
                (
                    format!("{}|{}", regex::escape(&escaped), regex::escape(&from)),
                    vec![escaped.into_bytes(), from.into_bytes()],
                )
            };
            alternatives.push(format!("(?:{pat})"));
            specs.push((
                kind.to_owned(),
                None,
                Replace::Path { to, spellings },
                false,
            ));
        }
        for pat in &opts.extra {
            regex::bytes::Regex::new(pat).map_err(|e| PatternError {
                pattern: pat.clone(),
                source: Box::new(e),
            })?;
            alternatives.push(format!("(?:{pat})"));
            specs.push(("custom".to_owned(), None, Replace::Token, true));
        }
        let combined_src = alternatives
            .iter()
            .enumerate()
            .map(|(i, a)| format!("(?P<k{i}>{a})"))
            .collect::<Vec<_>>()
            .join("|");
        let combined = regex::bytes::RegexBuilder::new(&combined_src)
            .size_limit(64 << 20)
            .dfa_size_limit(64 << 20)
            .build()
            .map_err(|e| PatternError {
                pattern: "(built-in patterns)".to_owned(),
                source: Box::new(e),
            })?;
        let kinds: Vec<Kind> = specs
            .into_iter()
            .enumerate()
            .map(|(i, (name, has_value, replace, custom))| Kind {
                name,
                whole: group_index(&combined, &format!("k{i}")),
                value: has_value.map(|()| group_index(&combined, &format!("v{i}"))),
                replace,
                custom,
            })
            .collect();
        let pem_end =
            Regex::new(r"-----END[A-Z ]{0,40}PRIVATE KEY-----").map_err(|e| PatternError {
                pattern: "(built-in patterns)".to_owned(),
                source: Box::new(e),
            })?;
        let gate = if opts.extra.is_empty() {
            gate::Gate::new(kinds.iter().flat_map(|k: &Kind| match &k.replace {
                Replace::Path { spellings, .. } => spellings.iter().map(Vec::as_slice).collect(),
                Replace::Token => Vec::new(),
            }))
        } else {
            None
        };
        Ok(Redactor {
            gate,
            combined,
            kinds,
            pem_end,
        })
    }

    /// A redactor for this user: the built-in kinds and `$HOME`.
    pub fn for_user(
        prefixes: Vec<(String, String)>,
        extra: Vec<String>,
    ) -> Result<Self, PatternError> {
        Self::new(&RedactOptions {
            home: home_dir(),
            prefixes,
            extra,
        })
    }

    fn may_match(&self, line: &[u8]) -> bool {
        self.gate.as_ref().is_none_or(|g| g.may_match(line))
    }

    pub fn state(&self) -> RedactState {
        RedactState {
            counts: vec![0; self.kinds.len()],
            in_pem: false,
        }
    }

    /// Redactions applied so far, by kind.
    pub fn summary(&self, state: &RedactState) -> BTreeMap<String, u64> {
        let mut out = BTreeMap::new();
        for (k, n) in self.kinds.iter().zip(&state.counts) {
            if *n > 0 {
                *out.entry(k.name.clone()).or_default() += n;
            }
        }
        out
    }

    /// Redact one line (without its `\n`).
    pub fn redact<'a>(&self, line: &'a [u8], state: &mut RedactState) -> Cow<'a, [u8]> {
        if state.counts.len() != self.kinds.len() {
            state.counts.resize(self.kinds.len(), 0);
        }
        let mut line: Cow<'a, [u8]> = Cow::Borrowed(line);
        if state.in_pem {
            // Inside a PEM block written over several raw lines: everything up to its END goes.
            match self.pem_end.find(&line) {
                Some(m) => {
                    state.in_pem = false;
                    let mut out = b"[REDACTED:private-key]".to_vec();
                    out.extend_from_slice(&line[m.end()..]);
                    line = Cow::Owned(out);
                }
                None => return Cow::Borrowed(b"[REDACTED:private-key]"),
            }
        }
        // A token can make a match that was not one before it (`…EXAMPLE` + `AIza…` is one
        // word until the Google key becomes `[REDACTED:google-key]`, then the AWS key before it
        // ends at a word boundary): redact again until nothing changes, so that redacting the
        // result changes nothing. A round that changes something replaces a secret or folds a
        // path; the bound only stops a fold whose replacement holds its own prefix.
        let mut custom_hit = false;
        let mut text = Cow::Borrowed(line.as_ref());
        for _ in 0..ROUNDS {
            match self.round(&text, state, &mut custom_hit) {
                Some(out) => text = Cow::Owned(out),
                None => break,
            }
        }
        let Cow::Owned(out) = text else {
            return line;
        };
        if custom_hit
            && serde_json::from_slice::<serde::de::IgnoredAny>(&line).is_ok()
            && serde_json::from_slice::<serde::de::IgnoredAny>(&out).is_err()
        {
            return Cow::Borrowed(b"\"[REDACTED:custom]\"");
        }
        Cow::Owned(out)
    }

    /// Each match of the combined pattern in `line`, from the left: `visit` is given the index of
    /// its kind, the whole match and the part to replace (its value group, or the whole), and
    /// says where the search goes on (`None`: after the match, or one byte on after an empty
    /// one).
    fn each_candidate(
        &self,
        line: &[u8],
        mut visit: impl FnMut(usize, Range<usize>, Range<usize>) -> Option<usize>,
    ) {
        let mut pos = 0;
        let mut locs = self.combined.capture_locations();
        while pos <= line.len() {
            let Some(m) = self.combined.captures_read_at(&mut locs, line, pos) else {
                break;
            };
            let after = if m.end() > m.start() {
                m.end()
            } else {
                m.end() + 1
            };
            let Some((ki, kind)) = self
                .kinds
                .iter()
                .enumerate()
                .find(|(_, k)| locs.get(k.whole).is_some())
            else {
                pos = after;
                continue;
            };
            let whole = locs.get(kind.whole).map_or(0..0, |(a, b)| a..b);
            let target = kind
                .value
                .and_then(|v| locs.get(v))
                .map_or(whole.clone(), |(a, b)| a..b);
            pos = visit(ki, whole, target).unwrap_or(after);
        }
    }

    /// One pass of the combined pattern over `line`: what it redacts, or `None` if nothing.
    fn round(
        &self,
        line: &[u8],
        state: &mut RedactState,
        custom_hit: &mut bool,
    ) -> Option<Vec<u8>> {
        if !self.may_match(line) {
            return None;
        }
        let mut out = Vec::with_capacity(line.len());
        let mut last = 0;
        let mut changed = false;
        self.each_candidate(line, |mut ki, mut whole, mut target| {
            let mut resume = None;
            let replacement: Cow<'_, [u8]> = match &self.kinds[ki].replace {
                Replace::Path { .. } => {
                    // Whether a path starts here is judged on the text as written so far (folds
                    // and tokens included), which is what a second redaction would see.
                    out.extend_from_slice(&line[last..whole.start]);
                    last = whole.start;
                    // The longest prefix that folds here, or none: then look again from the next
                    // byte, so a shorter match inside this one is not lost.
                    let Some((k, len)) = self.fold_at(&out, &line[whole.start..]) else {
                        return Some(whole.start + 1);
                    };
                    ki = k;
                    let end = whole.start + len;
                    whole = whole.start..end;
                    target = whole.clone();
                    resume = Some(end);
                    match &self.kinds[k].replace {
                        Replace::Path { to, .. } => Cow::Owned(to.as_bytes().to_vec()),
                        Replace::Token => return resume,
                    }
                }
                Replace::Token => {
                    let kind = &self.kinds[ki];
                    if !accept(&kind.name, &line[target.clone()]) {
                        return Some(resume_after_rejected(&whole, &target));
                    }
                    Cow::Owned(format!("[REDACTED:{}]", kind.name).into_bytes())
                }
            };
            let kind = &self.kinds[ki];
            if kind.name == "private-key"
                && !self.pem_end.is_match(&line[whole.clone()])
                && whole.end == line.len()
            {
                state.in_pem = true;
            }
            *custom_hit |= kind.custom;
            state.counts[ki] += 1;
            changed = true;
            out.extend_from_slice(&line[last..target.start]);
            out.extend_from_slice(&replacement);
            last = target.end;
            resume
        });
        if !changed {
            return None;
        }
        out.extend_from_slice(&line[last..]);
        Some(out)
    }

    /// Secrets present in a line (path prefixes are not secrets and are not reported).
    pub fn find(&self, line: &[u8]) -> Vec<Finding> {
        if !self.may_match(line) {
            return Vec::new();
        }
        let mut found = Vec::new();
        self.each_candidate(line, |ki, whole, target| {
            let kind = &self.kinds[ki];
            if matches!(kind.replace, Replace::Path { .. }) {
                return None;
            }
            if !accept(&kind.name, &line[target.clone()]) {
                return Some(resume_after_rejected(&whole, &target));
            }
            found.push(Finding {
                kind: kind.name.clone(),
                offset: whole.start,
            });
            None
        });
        found
    }
}

impl Redactor {
    /// The path prefix that `rest` starts with and that folds there, longest first, and its
    /// length. A prefix folds only where a path starts with it: a path separator (or the end of
    /// the name) must follow, and it must not continue a path already begun in `written`, the text
    /// as written before it (`/home/alice/tmp` never folds a `/tmp` prefix, and a folded scratch
    /// folder's `…/tmp` subfolder stays itself), so a fold never makes a path that did not exist.
    fn fold_at(&self, written: &[u8], rest: &[u8]) -> Option<(usize, usize)> {
        if continues_a_path(written) {
            return None;
        }
        self.kinds.iter().enumerate().find_map(|(i, k)| {
            let Replace::Path { spellings, .. } = &k.replace else {
                return None;
            };
            spellings.iter().find_map(|sp| {
                (rest.starts_with(sp) && !name_goes_on(&rest[sp.len()..])).then_some((i, sp.len()))
            })
        })
    }
}

/// A byte that can be part of a file name (after a prefix, it means the name goes on).
fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

const TOKEN: &[u8] = b"[REDACTED:";

/// Most rounds of redaction of one line (see [`Redactor::redact`]); two in practice.
const ROUNDS: usize = 8;

/// Whether `after` a prefix its last name goes on: a name byte (`/home/alice2`), or a dot with
/// a name byte after it (`/home/alice.bak`, a folder of its own). A dot that ends a sentence
/// (`see /home/alice.`) does not. Nor does a redaction token right after it or after its dot: it
/// stands for a secret that went on from the name (`/home/alice-----BEGIN…`,
/// `/home/alice.sk-ant-…`), which did not fold either.
fn name_goes_on(after: &[u8]) -> bool {
    match after {
        _ if after.starts_with(TOKEN) => true,
        [b, ..] if is_name_byte(*b) => true,
        [b'.', rest @ ..] => {
            rest.first().is_some_and(|b| is_name_byte(*b) || *b == b'.') || rest.starts_with(TOKEN)
        }
        _ => false,
    }
}

/// True when `before` ends inside a path: a name (letters, digits, `._~-`, and redaction tokens,
/// which stand for the name they hid) right after a path separator, as in `/home/alice` before
/// `/tmp`, or one holding a `~` (`~`, `~alice`, and a home folded where it was glued to a word,
/// `see~`: a folded home is a path too, so `~/tmp` never folds a `/tmp` prefix and redacting
/// twice changes nothing). A separator alone (`file://` before `/home`) or a word without one
/// (`-I` before `/home`) does not count.
fn continues_a_path(before: &[u8]) -> bool {
    let mut rest = before;
    let mut named = false;
    loop {
        let name = rest
            .iter()
            .rev()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'~' | b'-'))
            .count();
        let (head, run) = rest.split_at(rest.len() - name);
        if run.contains(&b'~') {
            return true;
        }
        named |= name > 0;
        rest = head;
        match token_before(rest) {
            Some(start) => {
                named = true;
                rest = &rest[..start];
            }
            None => break,
        }
    }
    named && ends_in_separator(rest)
}

/// Whether `text` ends with a path separator: `/`, or a backslash that is not a JSON escape. In
/// JSON text (what a recorded line is) a backslash in a path is written `\\`; a lone `\` before a
/// name starts an escape (`\n` before `/tmp/…` is a line break before a path, not a Windows
/// folder called `n`), so only an even run of backslashes is a separator.
fn ends_in_separator(text: &[u8]) -> bool {
    match text.last() {
        Some(b'/') => true,
        Some(b'\\') => {
            let run = text.iter().rev().take_while(|b| **b == b'\\').count();
            run % 2 == 0
        }
        _ => false,
    }
}

/// Where a redaction token (`[REDACTED:kind]`) that `text` ends with starts.
fn token_before(text: &[u8]) -> Option<usize> {
    let body = text.strip_suffix(b"]")?;
    let kind = body
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_lowercase() || **b == b'-')
        .count();
    body[..body.len() - kind]
        .strip_suffix(TOKEN)
        .map(|head| head.len())
}

fn group_index(re: &Regex, name: &str) -> usize {
    re.capture_names()
        .position(|n| n == Some(name))
        .unwrap_or(0)
}

/// Where the search goes on after a candidate that [`accept`] turned away: at its value, so that
/// a secret of another kind inside it (`Basic AKIA…`, whose value is no `user:pass`) is still
/// found; one byte on for a candidate that is all value.
fn resume_after_rejected(whole: &Range<usize>, target: &Range<usize>) -> usize {
    if target.start > whole.start {
        target.start
    } else {
        whole.start + 1
    }
}

/// Second look at a candidate, to keep prose and placeholders out.
fn accept(kind: &str, value: &[u8]) -> bool {
    if value.starts_with(b"[REDACTED") || value.starts_with(b"<") || value.starts_with(b"${") {
        return false;
    }
    match kind {
        // "Basic authentication": a real value decodes to `user:password`.
        "basic-auth" => base64::engine::general_purpose::STANDARD
            .decode(value)
            .is_ok_and(|d| d.contains(&b':')),
        // "Bearer tokens are…": a real token has a digit somewhere.
        "bearer" => value.iter().any(u8::is_ascii_digit),
        _ => true,
    }
}

/// `$HOME` (or `%USERPROFILE%`), when it is a real directory path and not `/`.
pub fn home_dir() -> Option<String> {
    std::env::var("HOME")
        .ok()
        .or_else(|| std::env::var("USERPROFILE").ok())
        .map(|h| h.trim_end_matches(['/', '\\']).to_owned())
        .filter(|h| h.len() > 1)
}

mod gate;
#[cfg(test)]
mod tests;
