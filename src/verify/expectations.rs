//! Known failures listed in `expectations.toml`: which rule violations of which fixtures do not
//! fail the gate, and why. Pure: parsing and matching only; the caller reads the file.
//!
//! ```toml
//! [[known]]
//! fixture = "claude/spotter_*"   # glob over `provider/name` or the corpus-relative path
//! rule = "TN004"
//! reason = "transcripts lose tool timing"
//! provider = "claude"            # optional
//! issue = "https://example.org/issues/12"  # optional
//! ```

use globset::{GlobBuilder, GlobMatcher};
use serde::Deserialize;

use crate::report::{Orphan, OrphanKind, Violation};

#[derive(Debug, thiserror::Error)]
pub enum ExpectationsError {
    #[error("{origin}: {message}")]
    Syntax { origin: String, message: String },
    #[error("{origin}: entry {index} (`{fixture}`): {message}")]
    Entry {
        origin: String,
        index: usize,
        fixture: String,
        message: String,
    },
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    known: Vec<Entry>,
}

/// One `[[known]]` entry as written.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub fixture: String,
    pub rule: String,
    pub reason: String,
    #[serde(default)]
    pub provider: Option<String>,
    #[serde(default)]
    pub issue: Option<String>,
}

impl Entry {
    /// How reports name the entry: `claude/spotter_* TN004`.
    pub fn subject(&self) -> String {
        format!("{} {}", self.fixture, self.rule)
    }
}

#[derive(Debug)]
struct Compiled {
    entry: Entry,
    glob: GlobMatcher,
}

/// The parsed expectations file.
#[derive(Debug, Default)]
pub struct Expectations {
    entries: Vec<Compiled>,
}

/// The fixture an expectation is matched against.
#[derive(Clone, Copy, Debug)]
pub struct FixtureKey<'a> {
    pub provider: &'a str,
    /// Name without extension, relative to the provider folder.
    pub name: &'a str,
    /// Path relative to the corpus root, `/`-separated.
    pub path: &'a str,
}

/// A fixture glob as the filter and expectations use it: `*` stays within a folder, `**` crosses
/// folders. It matches `provider/name` or the corpus-relative path.
pub fn fixture_glob(pattern: &str) -> Result<GlobMatcher, globset::Error> {
    Ok(GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()?
        .compile_matcher())
}

/// Does `glob` select this fixture?
pub fn glob_selects(glob: &GlobMatcher, key: FixtureKey<'_>) -> bool {
    glob.is_match(format!("{}/{}", key.provider, key.name)) || glob.is_match(key.path)
}

impl Expectations {
    /// Parse `text`; `origin` names the file in errors. `known_rules` validates rule codes when the
    /// registry has any.
    pub fn parse(
        text: &str,
        origin: &str,
        known_rules: &[&str],
    ) -> Result<Self, ExpectationsError> {
        let file: File = toml::from_str(text).map_err(|e| ExpectationsError::Syntax {
            origin: origin.to_owned(),
            message: e.to_string(),
        })?;
        let mut entries = Vec::with_capacity(file.known.len());
        for (i, entry) in file.known.into_iter().enumerate() {
            let fail = |message: String| ExpectationsError::Entry {
                origin: origin.to_owned(),
                index: i + 1,
                fixture: entry.fixture.clone(),
                message,
            };
            let glob =
                fixture_glob(&entry.fixture).map_err(|e| fail(format!("bad fixture glob: {e}")))?;
            if entry.reason.trim().is_empty() {
                return Err(fail(
                    "`reason` is empty: say why the failure is expected".to_owned(),
                ));
            }
            if !known_rules.is_empty()
                && !known_rules
                    .iter()
                    .any(|r| r.eq_ignore_ascii_case(&entry.rule))
            {
                return Err(fail(format!(
                    "unknown rule `{}` (see toolnorm rules)",
                    entry.rule
                )));
            }
            if let Some(p) = &entry.provider {
                p.parse::<crate::stream::Provider>().map_err(fail)?;
            }
            if let Some(url) = &entry.issue
                && !(url.starts_with("https://") || url.starts_with("http://"))
            {
                return Err(fail(format!("`issue` must be a URL, got `{url}`")));
            }
            entries.push(Compiled { entry, glob });
        }
        Ok(Expectations { entries })
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn selects(c: &Compiled, key: FixtureKey<'_>) -> bool {
        c.entry
            .provider
            .as_deref()
            .is_none_or(|p| p.eq_ignore_ascii_case(key.provider))
            && glob_selects(&c.glob, key)
    }

    /// Mark the violations this fixture's entries list as known (with the reason), and return the
    /// rule codes listed for this fixture that it no longer violates: fixed, the entry can go.
    pub fn apply(&self, key: FixtureKey<'_>, violations: &mut [Violation]) -> Vec<String> {
        let mine: Vec<&Compiled> = self
            .entries
            .iter()
            .filter(|c| Self::selects(c, key))
            .collect();
        if mine.is_empty() {
            return Vec::new();
        }
        for v in violations.iter_mut() {
            if let Some(c) = mine
                .iter()
                .find(|c| c.entry.rule.eq_ignore_ascii_case(&v.rule))
            {
                v.known = true;
                v.reason = Some(c.entry.reason.clone());
            }
        }
        let mut fixed: Vec<String> = mine
            .iter()
            .filter(|c| {
                !violations
                    .iter()
                    .any(|v| v.rule.eq_ignore_ascii_case(&c.entry.rule))
            })
            .map(|c| c.entry.rule.to_ascii_uppercase())
            .collect();
        fixed.sort();
        fixed.dedup();
        fixed
    }

    /// The entries for this fixture and rule (to name them in "fixed" messages).
    pub fn entries_for(&self, key: FixtureKey<'_>, rule: &str) -> Vec<&Entry> {
        self.entries
            .iter()
            .filter(|c| c.entry.rule.eq_ignore_ascii_case(rule) && Self::selects(c, key))
            .map(|c| &c.entry)
            .collect()
    }

    /// Entries that select no fixture of the whole corpus: orphans.
    pub fn unused<'k>(&self, all: impl Iterator<Item = FixtureKey<'k>>) -> Vec<Orphan> {
        let mut tally = self.usage();
        all.for_each(|k| tally.see(k));
        tally.unused()
    }

    /// A tally of the entries that select some fixture, fed one key at a time (a corpus too
    /// large to hold as keys is listed once): [`Usage::unused`] gives what
    /// [`Expectations::unused`] gives.
    pub fn usage(&self) -> Usage<'_> {
        Usage {
            expectations: self,
            used: vec![false; self.entries.len()],
        }
    }
}

/// See [`Expectations::usage`].
pub struct Usage<'e> {
    expectations: &'e Expectations,
    used: Vec<bool>,
}

impl Usage<'_> {
    /// Count one fixture of the corpus.
    pub fn see(&mut self, key: FixtureKey<'_>) {
        for (c, used) in self.expectations.entries.iter().zip(&mut self.used) {
            if !*used && Expectations::selects(c, key) {
                *used = true;
            }
        }
    }

    /// The entries no fixture seen selects, in file order.
    pub fn unused(&self) -> Vec<Orphan> {
        self.unused_where(|_| true)
    }

    /// [`Usage::unused`], of the entries `judged` keeps: a run over part of the corpus judges
    /// only the entries about that part (see [`Selection::owns_entry`](super::Selection::owns_entry)).
    pub fn unused_where(&self, judged: impl Fn(&Entry) -> bool) -> Vec<Orphan> {
        self.expectations
            .entries
            .iter()
            .zip(&self.used)
            .filter(|(c, used)| !**used && judged(&c.entry))
            .map(|(c, _)| Orphan {
                kind: OrphanKind::UnusedExpectation,
                subject: c.entry.subject(),
                message: format!(
                    "expectations.toml entry `{}` for {} matches no fixture: remove it",
                    c.entry.fixture, c.entry.rule
                ),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn violation(rule: &str) -> Violation {
        Violation {
            rule: rule.to_owned(),
            rule_name: "X".to_owned(),
            provider: "claude".to_owned(),
            fixture: "claude/a".to_owned(),
            line: Some(1),
            part_id: None,
            message: "m".to_owned(),
            known: false,
            reason: None,
        }
    }

    const KEY: FixtureKey<'static> = FixtureKey {
        provider: "claude",
        name: "spotter_a",
        path: "claude/spotter_a.jsonl.zst",
    };

    #[test]
    fn listed_violations_become_known_with_their_reason() {
        let e = Expectations::parse(
            "[[known]]\nfixture = \"claude/spotter_*\"\nrule = \"TN004\"\nreason = \"no timing\"\n",
            "expectations.toml",
            &[],
        )
        .unwrap();
        let mut vs = vec![violation("TN004"), violation("TN001")];
        let fixed = e.apply(KEY, &mut vs);
        assert!(fixed.is_empty());
        assert!(vs[0].known && vs[0].reason.as_deref() == Some("no timing"));
        assert!(!vs[1].known);
    }

    #[test]
    fn a_listed_rule_that_no_longer_fails_is_fixed() {
        let e = Expectations::parse(
            "[[known]]\nfixture = \"claude/spotter_a.jsonl.zst\"\nrule = \"tn004\"\nreason = \"r\"\n",
            "x",
            &[],
        )
        .unwrap();
        let mut vs = vec![violation("TN001")];
        assert_eq!(e.apply(KEY, &mut vs), vec!["TN004"]);
    }

    #[test]
    fn provider_restricts_and_star_stays_in_its_folder() {
        let e = Expectations::parse(
            "[[known]]\nfixture = \"*\"\nrule = \"TN004\"\nreason = \"r\"\n[[known]]\nfixture = \"**\"\nrule = \"TN005\"\nreason = \"r\"\nprovider = \"codex\"\n",
            "x",
            &[],
        )
        .unwrap();
        let mut vs = vec![violation("TN004"), violation("TN005")];
        e.apply(KEY, &mut vs);
        assert!(!vs[0].known && !vs[1].known);
        let unused = e.unused([KEY].into_iter());
        assert_eq!(unused.len(), 2);
        assert_eq!(unused[0].subject, "* TN004");
    }

    #[test]
    fn bad_entries_name_the_file_and_entry() {
        let err = Expectations::parse(
            "[[known]]\nfixture = \"a\"\nrule = \"TN1\"\nreason = \" \"\n",
            "exp.toml",
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(err.starts_with("exp.toml: entry 1 (`a`)"), "{err}");
        let err = Expectations::parse("[[known]]\nfixture = \"a\"\n", "exp.toml", &[])
            .unwrap_err()
            .to_string();
        assert!(err.contains("exp.toml") && err.contains("rule"), "{err}");
        let err = Expectations::parse(
            "[[known]]\nfixture = \"a\"\nrule = \"TN9\"\nreason = \"r\"\nissue = \"12\"\n",
            "e",
            &["TN001"],
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("unknown rule"), "{err}");
    }
}
