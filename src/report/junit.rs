//! `junit.xml` in nextest's JUnit shape (via `quick-junit`): one `<testsuite>` per provider, one
//! `<testcase>` per fixture (`classname` the provider, `name` the fixture), plus an `orphans` suite.
//!
//! How statuses map, so CI dashboards count what the gate counts:
//!
//! - `pass` → success.
//! - `fail` → `<failure type="conformance">`: the message names what failed (and why, e.g. no
//!   expected file); the text carries the changed JSON pointers, invisible differences, the
//!   violations and the unified diff.
//! - `error` → `<error type="error">` with the reason (the fixture could not be read or normalized).
//! - `xfail` → `<skipped type="xfail">` with the expectations' reasons. Like pytest's JUnit output:
//!   a known failure is neither a pass (it still fails) nor a failure (it does not fail the gate),
//!   and "skipped" keeps it visible in every JUnit viewer.
//! - `xpass` → under `--strict`, `<failure type="xpass">` ("fixed: remove the entry"), because it
//!   fails the gate; otherwise success with the note in `system-out` (pytest does the same).
//! - Every orphan is a failed testcase in the `orphans` suite, since orphans fail the gate.
//! - Every skipped entry (a symlink, a FIFO in the corpus…) is a testcase of the `skipped-entries`
//!   suite: `<failure type="skipped-entry">` under `--strict` (it fails the gate), else
//!   `<skipped type="skipped-entry">`.
//!
//! quick-junit strips characters XML cannot hold (ANSI escapes, control characters) and escapes
//! the rest, so provider data cannot break the document.

use std::io::{self, Write};
use std::time::Duration;

use quick_junit::{NonSuccessKind, Property, TestCase, TestCaseStatus, TestSuite};

use super::model::*;
use super::result::*;

/// Write `junit.xml` for `report`, streaming its testcases: the document quick-junit would write
/// for the whole report, without holding every testcase at once. The frame (every suite with its
/// counts and properties, the orphans and skipped entries) is written by quick-junit, and each
/// fixture's `<testcase>` is cut from a one-case document quick-junit writes for it, then set in
/// its suite: the same bytes, in the same place.
pub fn render(report: &Report, out: &mut impl Write) -> io::Result<()> {
    let strict = report.summary.strict;
    let providers = report.providers();
    let mut suites: Vec<TestSuite> = providers.iter().map(|p| suite(report, p)).collect();
    let mut times = vec![0u64; providers.len()];
    // First pass: each suite's counts (as quick-junit counts a case of that status; the case's
    // name and properties are made in the second pass only) and time.
    for f in report.fixtures.all() {
        let f = f?;
        let Ok(k) = providers.binary_search(&f.provider.as_str()) else {
            continue;
        };
        suites[k].add_test_case(TestCase::new("", status(&f, strict)));
        suites[k].test_cases.clear();
        times[k] += f.duration_ms;
    }
    let mut junit = quick_junit::Report::new("toolnorm-verify");
    junit.set_time(Duration::from_millis(report.summary.duration_ms));
    for (mut suite, ms) in suites.into_iter().zip(times) {
        suite.set_time(Duration::from_millis(ms));
        junit.add_test_suite(suite);
    }
    add_orphans(report, &mut junit);
    add_skipped(report, &mut junit);
    let mut frame = Vec::new();
    junit.serialize(&mut frame).map_err(io::Error::other)?;
    // Second pass: the testcases, each before the end of its provider's suite, written by
    // quick-junit a batch at a time (one document per batch, not per case).
    let ends = suite_ends(&frame, providers.len())?;
    let mut written = 0;
    let mut batch = Vec::with_capacity(BATCH);
    for f in report.fixtures.all() {
        let f = f?;
        let Ok(at) = providers.binary_search(&f.provider.as_str()) else {
            continue;
        };
        if written < ends[at] {
            out.write_all(&cases_xml(std::mem::take(&mut batch))?)?;
            out.write_all(&frame[written..ends[at]])?;
            written = ends[at];
        }
        if let Some(xml) = plain_pass(&f) {
            out.write_all(&cases_xml(std::mem::take(&mut batch))?)?;
            out.write_all(xml.as_bytes())?;
            continue;
        }
        batch.push(test_case(&f, strict));
        if batch.len() == BATCH {
            out.write_all(&cases_xml(std::mem::take(&mut batch))?)?;
        }
    }
    out.write_all(&cases_xml(batch)?)?;
    out.write_all(&frame[written..])
}

/// The `<testcase>` of a passing fixture whose name, provider, path and dialect are plain (printable
/// ASCII that XML needs no escape for), written as quick-junit writes it: quick-junit takes every
/// string through an ANSI-escape parser and a copy, which such a string comes out of as it went
/// in, and that was most of what `junit.xml` cost. Anything else (`None`) is quick-junit's to
/// write; the byte-for-byte test holds the two to the same document.
fn plain_pass(f: &FixtureResult) -> Option<String> {
    if f.status != Status::Pass || f.is_formatting_only() {
        return None;
    }
    let plain = |s: &str| {
        s.bytes()
            .all(|b| matches!(b, 0x20..=0x7e) && !matches!(b, b'<' | b'>' | b'&' | b'\'' | b'"'))
    };
    let dialect = f.dialect.as_deref();
    if !(plain(&f.name) && plain(&f.provider) && plain(&f.path) && dialect.is_none_or(plain)) {
        return None;
    }
    let time = Duration::from_millis(f.duration_ms).as_secs_f64();
    let mut xml = format!(
        "\n        <testcase name=\"{}\" classname=\"{}\" time=\"{time:.3}\">\n            <properties>\n                <property name=\"path\" value=\"{}\"/>",
        f.name, f.provider, f.path
    );
    if let Some(d) = dialect {
        xml.push_str(&format!(
            "\n                <property name=\"dialect\" value=\"{d}\"/>"
        ));
    }
    xml.push_str("\n            </properties>\n        </testcase>");
    Some(xml)
}

/// Testcases written by quick-junit in one document (at most this many held at once).
const BATCH: usize = 128;

/// A provider's suite, without its testcases.
fn suite(report: &Report, provider: &str) -> TestSuite {
    let mut suite = TestSuite::new(provider);
    suite.add_property(Property::new(
        "toolnorm-version",
        report.toolnorm_version.as_str(),
    ));
    suite.add_property(Property::new("strict", report.summary.strict.to_string()));
    if let Some(shard) = &report.shard {
        suite.add_property(Property::new("shard", shard.as_str()));
    }
    if let Some(i) = report
        .implementation
        .as_ref()
        .filter(|i| i.command.is_some())
    {
        suite.add_property(Property::new("implementation", i.label()));
        suite.add_property(Property::new("wire", i.answers_in()));
    }
    suite
}

/// Where each of the first `n` suites of a serialized document ends (the line ending its
/// `</testsuite>`): escaped text holds no `<`, so the tag is found only where it is one.
fn suite_ends(doc: &[u8], n: usize) -> io::Result<Vec<usize>> {
    let end = SUITE_END.as_bytes();
    let found: Vec<usize> = memchr::memmem::find_iter(doc, end).take(n).collect();
    if found.len() < n {
        return Err(io::Error::other("junit: a suite without its end tag"));
    }
    Ok(found)
}

const SUITE_END: &str = "\n    </testsuite>";

/// Testcases as quick-junit writes them inside a suite, one after another: cut from a document
/// holding only them (nothing for none).
fn cases_xml(cases: Vec<TestCase>) -> io::Result<Vec<u8>> {
    if cases.is_empty() {
        return Ok(Vec::new());
    }
    let mut suite = TestSuite::new("cases");
    suite.add_test_cases(cases);
    let mut doc = quick_junit::Report::new("cases");
    doc.add_test_suite(suite);
    let mut buf = Vec::new();
    doc.serialize(&mut buf).map_err(io::Error::other)?;
    let start = memchr::memmem::find(&buf, b"\n        <testcase");
    let end = memchr::memmem::rfind(&buf, SUITE_END.as_bytes());
    match (start, end) {
        (Some(s), Some(e)) if s <= e => {
            buf.truncate(e);
            buf.drain(..s);
            Ok(buf)
        }
        _ => Err(io::Error::other(
            "junit: a testcase not where it is expected",
        )),
    }
}

fn add_orphans(report: &Report, junit: &mut quick_junit::Report) {
    if report.orphans.is_empty() {
        return;
    }
    let mut suite = TestSuite::new("orphans");
    for o in &report.orphans {
        let (kind, what) = match o.kind {
            OrphanKind::MissingExpected => ("missing-expected", "fixture without expected output"),
            OrphanKind::MissingFixture => ("missing-fixture", "expected file without fixture"),
            OrphanKind::UnusedExpectation => {
                ("unused-expectation", "expectation that matches nothing")
            }
        };
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
        status
            .set_type(kind)
            .set_message(format!("{what}: {}", o.message));
        let mut case = TestCase::new(o.subject.as_str(), status);
        case.set_classname("orphans");
        suite.add_test_case(case);
    }
    junit.add_test_suite(suite);
}

fn add_skipped(report: &Report, junit: &mut quick_junit::Report) {
    if report.skipped.is_empty() {
        return;
    }
    let mut suite = TestSuite::new("skipped-entries");
    for e in &report.skipped {
        // An error under --strict (it fails the gate), a skipped test case otherwise.
        let status = if report.summary.strict {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
            s.set_type("skipped-entry").set_message(e.message.as_str());
            s
        } else {
            let mut s = TestCaseStatus::skipped();
            s.set_type("skipped-entry").set_message(e.message.as_str());
            s
        };
        let mut case = TestCase::new(e.path.as_str(), status);
        case.set_classname("skipped-entries");
        suite.add_test_case(case);
    }
    junit.add_test_suite(suite);
}

fn test_case(f: &FixtureResult, strict: bool) -> TestCase {
    let format_only = f.is_formatting_only();
    let mut case = TestCase::new(f.name.as_str(), status(f, strict));
    case.set_classname(f.provider.as_str());
    case.set_time(Duration::from_millis(f.duration_ms));
    case.add_property(Property::new("path", f.path.as_str()));
    if let Some(d) = &f.dialect {
        case.add_property(Property::new("dialect", d.as_str()));
    }
    if f.status == Status::Xpass && !strict {
        case.set_system_out(xpass_message(f));
    } else if format_only && !strict {
        case.set_system_out(formatting_message(f));
    }
    case
}

/// What a fixture's testcase says: success, failure, error or skipped, with its message.
fn status(f: &FixtureResult, strict: bool) -> TestCaseStatus {
    let format_only = f.is_formatting_only();
    match f.status {
        // The right values, formatted otherwise: a failure only under --strict.
        Status::Pass | Status::Xfail | Status::Xpass if format_only && strict => {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
            s.set_type("formatting").set_message(formatting_message(f));
            s
        }
        Status::Pass => TestCaseStatus::success(),
        Status::Fail => {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
            s.set_type("conformance").set_message(fail_message(f));
            describe(&mut s, f);
            s
        }
        Status::Error => {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
            s.set_type("error").set_message(
                f.message
                    .as_deref()
                    .unwrap_or("the fixture could not be normalized"),
            );
            describe(&mut s, f);
            s
        }
        Status::Xfail => {
            let mut s = TestCaseStatus::skipped();
            let reasons: Vec<String> = f
                .violations
                .iter()
                .filter(|v| v.known)
                .map(|v| {
                    format!(
                        "{} {}: {}",
                        v.rule,
                        v.rule_name,
                        v.reason.as_deref().unwrap_or("no reason given")
                    )
                })
                .collect();
            s.set_type("xfail")
                .set_message(format!("known failure: {}", reasons.join("; ")));
            describe(&mut s, f);
            s
        }
        Status::Xpass if strict => {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
            s.set_type("xpass").set_message(xpass_message(f));
            s
        }
        Status::Xpass => TestCaseStatus::success(),
        Status::Unsupported => {
            let mut s = TestCaseStatus::skipped();
            s.set_type("unsupported").set_message(
                f.message
                    .as_deref()
                    .unwrap_or("the implementation does not claim this dialect"),
            );
            s
        }
    }
}

fn formatting_message(f: &FixtureResult) -> String {
    format!(
        "the expected file holds the right values, formatted otherwise ({}): run toolnorm fmt",
        f.formatting.join("; ")
    )
}

fn xpass_message(f: &FixtureResult) -> String {
    if f.fixed.is_empty() {
        "listed known failure no longer fails: fixed, remove the entry from expectations.toml"
            .to_string()
    } else {
        format!(
            "known failure {} no longer fails: fixed, remove the entry from expectations.toml",
            f.fixed.join(", ")
        )
    }
}

/// One line: what failed.
fn fail_message(f: &FixtureResult) -> String {
    let mut parts = Vec::new();
    if let Some(d) = &f.diff {
        parts.push(format!(
            "expected output differs (+{} -{} lines)",
            d.added, d.removed
        ));
    }
    let unexpected = f.violations.iter().filter(|v| !v.known).count();
    if unexpected > 0 {
        let mut codes: Vec<&str> = f
            .violations
            .iter()
            .filter(|v| !v.known)
            .map(|v| v.rule.as_str())
            .collect();
        codes.dedup();
        parts.push(format!(
            "{unexpected} unexpected violation(s): {}",
            codes.join(", ")
        ));
    }
    if let Some(m) = &f.message {
        parts.push(m.clone());
    }
    if parts.is_empty() {
        parts.push("fixture failed".to_string());
    }
    parts.join("; ")
}

/// The failure's text: changed pointers, invisible differences, violations, then the diff.
fn details(f: &FixtureResult) -> String {
    let mut s = String::new();
    if let Some(d) = &f.diff {
        if !d.changed_paths.is_empty() {
            s.push_str("changed:\n");
            for p in &d.changed_paths {
                s.push_str(&format!("  {p}\n"));
            }
        }
        for inv in &d.invisible {
            s.push_str(&format!("invisible: {inv}\n"));
        }
    }
    if !f.violations.is_empty() {
        s.push_str("violations:\n");
        for v in &f.violations {
            s.push_str(&format!("  {} {}", v.rule, v.rule_name));
            if let Some(l) = v.line {
                s.push_str(&format!(" line {l}"));
            }
            if let Some(p) = &v.part_id {
                s.push_str(&format!(" part {p}"));
            }
            s.push_str(&format!(": {}", v.message));
            if v.known {
                s.push_str(&format!(
                    " (known: {})",
                    v.reason.as_deref().unwrap_or("no reason given")
                ));
            }
            s.push('\n');
        }
    }
    if let Some(d) = &f.diff
        && !d.unified.is_empty()
    {
        s.push('\n');
        s.push_str(&d.unified);
    }
    s
}

/// Set the failure text only when there is one: an empty element says nothing.
fn describe(status: &mut TestCaseStatus, f: &FixtureResult) {
    let text = details(f);
    if !text.trim().is_empty() {
        status.set_description(text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Fixtures;
    use crate::report::sample::sample_report;

    fn rendered(report: &Report) -> String {
        let mut buf = Vec::new();
        render(report, &mut buf).expect("writing to a Vec cannot fail");
        String::from_utf8(buf).expect("junit is UTF-8")
    }

    /// The document quick-junit writes for the whole report at once: what the streamed one must
    /// be, byte for byte.
    fn whole(report: &Report) -> String {
        let mut junit = quick_junit::Report::new("toolnorm-verify");
        junit.set_time(Duration::from_millis(report.summary.duration_ms));
        for provider in report.providers() {
            let mut suite = suite(report, provider);
            let all = report.fixtures.to_vec().unwrap();
            let fixtures: Vec<_> = all.iter().filter(|f| f.provider == provider).collect();
            suite.set_time(Duration::from_millis(
                fixtures.iter().map(|f| f.duration_ms).sum(),
            ));
            for f in fixtures {
                suite.add_test_case(test_case(f, report.summary.strict));
            }
            junit.add_test_suite(suite);
        }
        add_orphans(report, &mut junit);
        add_skipped(report, &mut junit);
        junit.to_string().unwrap()
    }

    #[test]
    fn streamed_junit_is_the_whole_document_byte_for_byte() {
        let mut r = sample_report();
        assert_eq!(rendered(&r), whole(&r));
        r.summary.strict = false;
        r.shard = Some("2/3".to_owned());
        r = r.with_skipped(vec![SkippedEntry {
            path: "corpus/x".to_owned(),
            message: "a symlink".to_owned(),
        }]);
        assert_eq!(rendered(&r), whole(&r));
        let mut only_orphans = sample_report();
        only_orphans.fixtures = Fixtures::default();
        assert_eq!(rendered(&only_orphans), whole(&only_orphans));
        // More testcases than a batch holds, in every suite.
        let mut many = sample_report();
        many.fixtures
            .edit(|v| {
                // Every suite's fixtures but the 300-part diff, which would only make the
                // comparison slow.
                let first: Vec<_> = v.iter().filter(|f| f.parts < 300).cloned().collect();
                for i in 0..2 * BATCH + 3 {
                    v.extend(first.iter().cloned().map(|mut f| {
                        f.name = format!("{}-{i}", f.name);
                        f
                    }));
                }
                v.sort_by(|a, b| (&a.provider, &a.name).cmp(&(&b.provider, &b.name)));
            })
            .unwrap();
        assert!(many.fixtures.to_vec().unwrap().len() > 2 * BATCH);
        assert_eq!(rendered(&many), whole(&many));
        // Passing fixtures written here (plain strings) between ones quick-junit writes (strings
        // it escapes or strips), a passing one without a dialect, and a long time.
        let mut mixed = sample_report();
        mixed
            .fixtures
            .edit(|v| {
                let pass = v.iter().find(|f| f.status == Status::Pass).unwrap().clone();
                let odd = [
                    "a&b",
                    "quote\"d",
                    "it's",
                    "\u{1b}[31mred\u{1b}[0m",
                    "tab\there",
                    "caf\u{e9}",
                    "<x>",
                    "plain-after",
                ];
                for (i, name) in odd.iter().enumerate() {
                    let mut f = pass.clone();
                    f.name = format!("{name}-{i}");
                    f.path = format!("{}/{name}.jsonl.zst", f.provider);
                    f.duration_ms = 1_234_567 * i as u64;
                    if i % 2 == 1 {
                        f.dialect = None;
                    }
                    v.push(f);
                }
                v.sort_by(|a, b| (&a.provider, &a.name).cmp(&(&b.provider, &b.name)));
            })
            .unwrap();
        // Which of them this file writes itself.
        let written_here: Vec<String> = mixed
            .fixtures
            .to_vec()
            .unwrap()
            .iter()
            .filter(|f| plain_pass(f).is_some())
            .map(|f| f.name.clone())
            .collect();
        assert!(written_here.contains(&"plain-after-7".to_owned()));
        assert!(written_here.contains(&"live-coding".to_owned()));
        assert!(
            !written_here
                .iter()
                .any(|n| n.contains(['&', '"', '\'', '\u{1b}', '\t', '<']) || !n.is_ascii())
        );
        let doc = rendered(&mixed);
        assert_eq!(doc, whole(&mixed));
        assert!(doc.contains("name=\"plain-after-7\""), "{doc}");
        assert!(doc.contains("a&amp;b-0"), "{doc}");
    }

    #[test]
    fn junit_of_the_sample_report() {
        let mut r = sample_report();
        // Keep the snapshot readable: the large diff is covered by the HTML tests.
        r.fixtures
            .edit(|v| v.retain(|f| f.name != "long-session"))
            .unwrap();
        insta::assert_snapshot!(rendered(&r));
    }

    #[test]
    fn round_trips_through_a_junit_parser() {
        let xml = rendered(&sample_report());
        let parsed = quick_junit::Report::deserialize_from_str(&xml).expect("valid JUnit XML");
        let names: Vec<&str> = parsed.test_suites.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["claude", "codex", "opencode", "orphans"]);
        let claude = &parsed.test_suites[0];
        assert_eq!(claude.test_cases.len(), 4);
        assert!(!xml.contains("<script>"), "markup must be escaped");
        let hostile = claude
            .test_cases
            .iter()
            .find(|c| c.name.as_str() == "hostile-output")
            .expect("present");
        match &hostile.status {
            TestCaseStatus::NonSuccess {
                kind: NonSuccessKind::Failure,
                description: Some(d),
                ..
            } => {
                assert!(d.contains("/parts/0/title"));
                assert!(
                    d.contains("<script>document.title='PWNED'</script>"),
                    "text survives escaping"
                );
            }
            other => panic!("expected a failure, got {other:?}"),
        }
    }

    #[test]
    fn xpass_fails_only_when_strict() {
        let mut r = sample_report();
        r.summary.strict = false;
        let xml = rendered(&r);
        assert!(!xml.contains("type=\"xpass\""));
        assert!(xml.contains("no longer fails"));
    }
}
