//! The report's previews: for each failing fixture, what a UI would show. A changed fixture gets
//! its expected and actual cards side by side (pairs matched by part id), the changed cards first
//! with the changed fields named; a new fixture (no expected file) its whole card list; a fixture
//! failing on rules alone its cards with their findings. Each with the command that accepts
//! exactly that fixture.
//!
//! [`build`] is the shell's half: it reads the actual output (the pending output verify wrote,
//! else the built-in normalizer's), the expected file and the fixture's raw lines, never through a
//! link. [`render`] only draws.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::super::escape::esc;
use super::super::model::Report;
use super::super::result::{FixtureResult, Status, Violation};
use super::{CardOptions, Session, Tree, card, plural};
use crate::model::{NormalizedDocument, NormalizedToolPart};
use crate::text::thousands;

/// Fixtures previewed at most per report (the first ones in report order).
pub const MAX_PREVIEWS: usize = 200;
/// Cards drawn at most per side of one preview (the rest counted).
pub const MAX_PREVIEW_CARDS: usize = 400;
/// A raw line longer than this is kept clipped (and so shown as it is, not pretty-printed).
pub const MAX_KEPT_LINE: usize = 64 * 1024;

/// Where the previews are read from: the folders verify used.
#[derive(Clone, Debug)]
pub struct Folders {
    pub corpus: PathBuf,
    pub expected: PathBuf,
    pub reports: PathBuf,
}

impl Default for Folders {
    fn default() -> Self {
        Folders {
            corpus: "corpus".into(),
            expected: "expected".into(),
            reports: "reports".into(),
        }
    }
}

/// One fixture's preview.
pub struct Preview {
    /// The expected output; `None` for a new fixture.
    pub expected: Option<NormalizedDocument>,
    pub actual: NormalizedDocument,
    /// The raw lines either document's events or the findings name.
    pub raw: BTreeMap<u32, Cow<'static, str>>,
    /// The command that accepts exactly this fixture.
    pub accept: String,
}

/// The previews of a report, by `(provider, name)`.
#[derive(Default)]
pub struct Previews {
    map: HashMap<(String, String), Preview>,
    /// Fixtures that could not be previewed, with why (shown on their fixture).
    missing: HashMap<(String, String), String>,
    /// Set when the page is served by `toolnorm review --serve`: each preview gets an accept
    /// button, and the page a "done" one.
    pub served: Option<Served>,
}

/// A review page served on loopback (`toolnorm review --serve`): where its forms post, and the
/// fixtures accepted from it so far.
#[derive(Clone, Debug, Default)]
pub struct Served {
    /// The page's path on the server, ending in `/` (`/t/TOKEN/`); the forms post to `accept`
    /// and `done` below it. Only URL-safe characters.
    pub base: String,
    /// Fixtures accepted from the page, by `(provider, name)`, with what accept did.
    pub accepted: HashMap<(String, String), String>,
}

impl Previews {
    pub fn get(&self, provider: &str, name: &str) -> Option<&Preview> {
        self.map.get(&(provider.to_owned(), name.to_owned()))
    }

    pub fn why_not(&self, provider: &str, name: &str) -> Option<&str> {
        self.missing
            .get(&(provider.to_owned(), name.to_owned()))
            .map(String::as_str)
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The `(provider, name)` of every previewed fixture.
    pub fn keys(&self) -> impl Iterator<Item = &(String, String)> {
        self.map.keys()
    }
}

/// Whether a fixture gets a preview: it failed with an output to show (a diff, no expected file,
/// or rule findings).
pub fn wants_preview(f: &FixtureResult) -> bool {
    f.status == Status::Fail
}

/// Read the previews of `report`'s failing fixtures (at most [`MAX_PREVIEWS`]).
pub fn build(report: &Report, folders: &Folders) -> Previews {
    let mut previews = Previews::default();
    for (_, f) in report.fixtures.detailed() {
        if !wants_preview(f) {
            continue;
        }
        let key = (f.provider.clone(), f.name.clone());
        if previews.map.len() >= MAX_PREVIEWS {
            previews.missing.insert(
                key,
                format!("only the first {MAX_PREVIEWS} failing fixtures are previewed"),
            );
            continue;
        }
        match one(f, folders) {
            Ok(p) => {
                previews.map.insert(key, p);
            }
            Err(why) => {
                previews.missing.insert(key, why);
            }
        }
    }
    previews
}

/// A regular file's bytes, never through a link.
fn read_regular(path: &Path) -> Result<Option<Vec<u8>>, String> {
    match fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", path.display())),
        Ok(m) if !m.is_file() => Err(format!(
            "{}: not a regular file (left alone)",
            path.display()
        )),
        Ok(_) => fs::read(path)
            .map(Some)
            .map_err(|e| format!("{}: {e}", path.display())),
    }
}

fn parse_doc(bytes: &[u8], path: &Path) -> Result<NormalizedDocument, String> {
    serde_json::from_slice(bytes).map_err(|e| format!("{}: {e}", path.display()))
}

fn one(f: &FixtureResult, folders: &Folders) -> Result<Preview, String> {
    let rel = Path::new(&f.provider).join(format!("{}.json", f.name));
    let fixture = folders.corpus.join(&f.path);
    if !fs::symlink_metadata(&fixture).is_ok_and(|m| m.is_file()) {
        return Err(format!("{}: not a regular file", fixture.display()));
    }
    let stream = crate::corpus::load_stream(&fixture).map_err(|e| format!("{e:#}"))?;
    let input = stream.input();
    let pending = folders.reports.join("pending").join(&rel);
    let actual = match read_regular(&pending)? {
        Some(bytes) => parse_doc(&bytes, &pending)?,
        None => {
            // No pending output: the fixture failed on rules alone, and the built-in
            // normalizer's output is what was checked.
            let provider = f.provider.parse().ok();
            let dialect = f
                .dialect
                .as_deref()
                .and_then(|d| crate::stream::Dialect::parse(d, provider).ok());
            crate::normalizer::normalize(
                &input,
                crate::providers::NormalizeOptions {
                    provider,
                    dialect,
                    cwd: stream.cwd.as_deref(),
                },
            )
            .map_err(|e| format!("{}: {e}", fixture.display()))?
        }
    };
    let expected_path = folders.expected.join(&rel);
    let expected = match read_regular(&expected_path)? {
        Some(bytes) => Some(parse_doc(&bytes, &expected_path)?),
        None => None,
    };
    let mut wanted = Session::wanted_lines(&actual, &f.violations);
    if let Some(e) = &expected {
        wanted.extend(Session::wanted_lines(e, &[]));
    }
    let raw = input
        .lines
        .iter()
        .filter(|l| wanted.contains(&l.number))
        .map(|l| (l.number, Cow::Owned(kept_line(&l.text()))))
        .collect();
    Ok(Preview {
        expected,
        actual,
        raw,
        accept: accept_command(&f.provider, &f.name, folders),
    })
}

/// A raw line as kept for a card: clipped past [`MAX_KEPT_LINE`] bytes, at a character boundary.
pub fn kept_line(text: &str) -> String {
    if text.len() <= MAX_KEPT_LINE {
        return text.to_owned();
    }
    let mut end = MAX_KEPT_LINE;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\u{2026}", &text[..end])
}

/// `toolnorm accept --filter 'provider/name'` (with the folders when they are not the
/// defaults): the glob's metacharacters escaped so it selects exactly this fixture, and every
/// argument quoted for a POSIX shell.
pub fn accept_command(provider: &str, name: &str, folders: &Folders) -> String {
    let mut cmd = format!(
        "toolnorm accept --filter {}",
        shell_quote(&glob_literal(&format!("{provider}/{name}")))
    );
    let defaults = Folders::default();
    for (flag, dir, default) in [
        ("--corpus", &folders.corpus, &defaults.corpus),
        ("--expected", &folders.expected, &defaults.expected),
        ("--reports", &folders.reports, &defaults.reports),
    ] {
        if dir != default {
            cmd.push_str(&format!(
                " {flag} {}",
                shell_quote(&dir.display().to_string())
            ));
        }
    }
    cmd
}

/// A glob that matches `s` literally: each metacharacter behind a backslash.
pub fn glob_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '\\' | '*' | '?' | '[' | ']' | '{' | '}' | '!' | ',') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `s` in single quotes for a POSIX shell (a `'` as `'\''`); plain words as they are.
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:@".contains(&b))
    {
        return s.to_owned();
    }
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// The fields of a part that differ between two versions of it.
pub fn changed_fields(a: &NormalizedToolPart, b: &NormalizedToolPart) -> Vec<&'static str> {
    let mut out = Vec::new();
    macro_rules! cmp {
        ($($f:ident => $name:literal),*) => {
            $(if a.$f != b.$f { out.push($name); })*
        };
    }
    cmp!(title => "title", state => "state", kind => "kind", name => "name", input => "input",
         output => "output", error => "error", timing => "timing", metadata => "metadata");
    out
}

/// One row of a side-by-side preview: the expected part, the actual part (by index), the fields
/// that differ.
struct Pair {
    expected: Option<usize>,
    actual: Option<usize>,
    changed: Vec<&'static str>,
}

/// Pair expected and actual parts by id, in actual order (a repeated id pairs in order); the
/// expected parts left over come last.
fn pairs(expected: &[NormalizedToolPart], actual: &[NormalizedToolPart]) -> Vec<Pair> {
    let mut by_id: HashMap<&str, VecDeque<usize>> = HashMap::new();
    for (i, p) in expected.iter().enumerate() {
        by_id.entry(p.id.as_str()).or_default().push_back(i);
    }
    let mut out = Vec::new();
    let mut used = vec![false; expected.len()];
    for (i, p) in actual.iter().enumerate() {
        let e = by_id.get_mut(p.id.as_str()).and_then(VecDeque::pop_front);
        if let Some(e) = e {
            used[e] = true;
        }
        let changed = match e {
            Some(e) => changed_fields(&expected[e], p),
            None => vec!["added"],
        };
        out.push(Pair {
            expected: e,
            actual: Some(i),
            changed,
        });
    }
    for (e, _) in used.iter().enumerate().filter(|(_, u)| !**u) {
        out.push(Pair {
            expected: Some(e),
            actual: None,
            changed: vec!["removed"],
        });
    }
    out
}

/// Draw `p`, the preview of fixture `f`; `prefix` makes its element ids unique on the page. On a
/// served page (`served`), an accept button beside the command, or what accepting did.
pub fn render(
    p: &Preview,
    f: &FixtureResult,
    prefix: &str,
    served: Option<&Served>,
    w: &mut impl Write,
) -> io::Result<()> {
    let none: [Violation; 0] = [];
    let actual = Session {
        doc: &p.actual,
        raw: &p.raw,
        findings: &f.violations,
    };
    write!(
        w,
        "<div class=\"preview\"><h4>Preview <span class=\"muted\">the tool calls as a UI draws them</span></h4>\
         <div class=\"accept\"><span class=\"muted\">accept this fixture:</span> <code class=\"cmd\">{}</code>\
         <button type=\"button\" class=\"copy\" hidden>copy</button>",
        esc(&p.accept)
    )?;
    if let Some(s) = served {
        match s.accepted.get(&(f.provider.clone(), f.name.clone())) {
            Some(done) => write!(
                w,
                "<span class=\"accepted\" role=\"status\">accepted: {}</span>",
                esc(done)
            )?,
            None => write!(
                w,
                "<form class=\"accept-form\" method=\"post\" action=\"{}accept\">\
                 <input type=\"hidden\" name=\"provider\" value=\"{}\"><input type=\"hidden\" name=\"name\" value=\"{}\">\
                 <button type=\"submit\" class=\"accept-btn\">Accept this fixture</button></form>",
                esc(&s.base),
                esc(&f.provider),
                esc(&f.name)
            )?,
        }
    }
    w.write_all(b"</div>")?;
    match &p.expected {
        None => {
            write!(
                w,
                "<p class=\"pv-note\">New fixture (no expected file): {} as the normalizer draws them{}. Review them, then accept.</p>",
                plural(p.actual.parts.len(), "card", "cards"),
                if f.violations.is_empty() {
                    String::new()
                } else {
                    format!(
                        ", with {}",
                        plural(f.violations.len(), "finding", "findings")
                    )
                }
            )?;
            list(&actual, &format!("{prefix}a-"), w)?;
        }
        Some(expected) => {
            let exp = Session {
                doc: expected,
                raw: &p.raw,
                findings: &none,
            };
            let rows = pairs(&expected.parts, &p.actual.parts);
            let (changed, same): (Vec<&Pair>, Vec<&Pair>) =
                rows.iter().partition(|r| !r.changed.is_empty());
            if changed.is_empty() {
                w.write_all(b"<p class=\"pv-note\">Every card is the same on both sides: the difference is elsewhere (events, diagnostics: see the diff).</p>")?;
            } else {
                write!(
                    w,
                    "<p class=\"pv-note\">{} of {} changed, expected on the left, actual on the right.</p>",
                    plural(changed.len(), "card", "cards"),
                    thousands(rows.len() as u64)
                )?;
            }
            w.write_all(b"<div class=\"pairs\"><div class=\"pv-cols\"><div>expected</div><div>actual</div></div>")?;
            for r in changed.iter().take(MAX_PREVIEW_CARDS) {
                pair(&exp, &actual, r, prefix, w)?;
            }
            w.write_all(b"</div>")?;
            if changed.len() > MAX_PREVIEW_CARDS {
                write!(
                    w,
                    "<p class=\"clip\">\u{2026} {} more changed cards: see the diff</p>",
                    thousands((changed.len() - MAX_PREVIEW_CARDS) as u64)
                )?;
            }
            if !same.is_empty() {
                write!(
                    w,
                    "<details class=\"same\"><summary>{} unchanged</summary>",
                    plural(same.len(), "card", "cards")
                )?;
                for r in same.iter().take(MAX_PREVIEW_CARDS) {
                    if let Some(a) = r.actual {
                        card(
                            &actual,
                            a,
                            None,
                            CardOptions {
                                prefix: &format!("{prefix}a-"),
                                ..CardOptions::default()
                            },
                            w,
                        )?;
                    }
                }
                w.write_all(b"</details>")?;
            }
        }
    }
    w.write_all(b"</div>")
}

fn pair(
    exp: &Session<'_>,
    act: &Session<'_>,
    r: &Pair,
    prefix: &str,
    w: &mut impl Write,
) -> io::Result<()> {
    w.write_all(b"<div class=\"pair\"><div class=\"pv-l\">")?;
    let (ep, ap) = (format!("{prefix}e-"), format!("{prefix}a-"));
    match r.expected {
        Some(e) => card(
            exp,
            e,
            None,
            CardOptions {
                prefix: &ep,
                changed: &r.changed,
                side: Some("expected"),
            },
            w,
        )?,
        None => w.write_all(b"<div class=\"gone\">not in the expected output</div>")?,
    }
    w.write_all(b"</div><div class=\"pv-r\">")?;
    match r.actual {
        Some(a) => card(
            act,
            a,
            None,
            CardOptions {
                prefix: &ap,
                changed: &r.changed,
                side: Some("actual"),
            },
            w,
        )?,
        None => w.write_all(b"<div class=\"gone\">not in the actual output</div>")?,
    }
    w.write_all(b"</div></div>\n")
}

/// A whole card list, subagent calls nested (bounded by [`MAX_PREVIEW_CARDS`] top-level cards).
fn list(s: &Session<'_>, prefix: &str, w: &mut impl Write) -> io::Result<()> {
    let tree = Tree::of(&s.doc.parts);
    let o = CardOptions {
        prefix,
        ..CardOptions::default()
    };
    let loose = s.loose_findings();
    if !loose.is_empty() {
        w.write_all(b"<ul class=\"fd\">")?;
        for f in loose {
            super::finding(f, prefix, w)?;
        }
        w.write_all(b"</ul>")?;
    }
    w.write_all(b"<div class=\"cards\">")?;
    for &i in tree.roots.iter().take(MAX_PREVIEW_CARDS) {
        card(s, i, Some(&tree), o, w)?;
    }
    if tree.roots.len() > MAX_PREVIEW_CARDS {
        write!(
            w,
            "<p class=\"clip\">\u{2026} {} more calls: <code>toolnorm view</code> shows them all</p>",
            thousands((tree.roots.len() - MAX_PREVIEW_CARDS) as u64)
        )?;
    }
    w.write_all(b"</div>")
}
