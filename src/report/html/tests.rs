//! The HTML report's tests: escaping, anchors, the CSP, bounded diffs.

use super::*;
use crate::report::sample::{ONERROR_PAYLOAD, SCRIPT_PAYLOAD, sample_report};

fn rendered(report: &Report) -> String {
    let mut buf = Vec::new();
    render(report, &mut buf).expect("writing to a Vec cannot fail");
    String::from_utf8(buf).expect("html is UTF-8")
}

/// The only `<script` in the page is ours, and no payload's tag or handler survives raw.
fn assert_no_raw_payload(html: &str) {
    assert_eq!(
        html.matches("<script").count(),
        1,
        "exactly one script element: ours"
    );
    assert!(!html.contains(SCRIPT_PAYLOAD));
    assert!(!html.contains(ONERROR_PAYLOAD));
    assert!(
        !html.contains("<img"),
        "no image element from provider data"
    );
    assert!(!html.contains("<b>name</b>"));
    assert!(
        !html.contains("onerror=\""),
        "no raw event handler attribute"
    );
}

#[test]
fn escapes_payloads_everywhere() {
    let html = rendered(&sample_report());
    assert_no_raw_payload(&html);
    // The payload is there, as text.
    assert!(html.contains("&lt;script&gt;document.title=&#x27;PWNED&#x27;&lt;&#x2F;script&gt;"));
}

/// Put the payload in every string field of the report, one field at a time, so a field
/// rendered without escaping cannot hide behind another.
#[test]
fn escapes_every_provider_field() {
    let payload = format!("{SCRIPT_PAYLOAD}{ONERROR_PAYLOAD}\"'");
    type Mutation<'a> = Box<dyn Fn(&mut Report) + 'a>;
    let mutations: Vec<(&str, Mutation<'_>)> = vec![
        (
            "toolnorm_version",
            Box::new(|r: &mut Report| r.toolnorm_version = payload.clone()),
        ),
        (
            "shard",
            Box::new(|r: &mut Report| r.shard = Some(payload.clone())),
        ),
        (
            "rule code",
            Box::new(|r: &mut Report| {
                r.rules[0].code = payload.clone();
                r.matrix
                    .iter_mut()
                    .filter(|c| c.rule == "TN001")
                    .for_each(|c| c.rule = payload.clone());
                r.fixtures
                    .edit(|all| {
                        all.iter_mut()
                            .flat_map(|f| &mut f.violations)
                            .filter(|v| v.rule == "TN001")
                            .for_each(|v| v.rule = payload.clone())
                    })
                    .unwrap();
            }),
        ),
        (
            "rule name",
            Box::new(|r: &mut Report| r.rules[0].name = payload.clone()),
        ),
        (
            "rule summary",
            Box::new(|r: &mut Report| r.rules[0].summary = payload.clone()),
        ),
        (
            "provider",
            Box::new(|r: &mut Report| {
                r.fixtures
                    .edit(|all| {
                        all.iter_mut()
                            .filter(|f| f.provider == "codex")
                            .for_each(|f| {
                                f.provider = payload.clone();
                                f.violations
                                    .iter_mut()
                                    .for_each(|v| v.provider = payload.clone());
                            })
                    })
                    .unwrap();
                r.matrix
                    .iter_mut()
                    .filter(|c| c.provider == "codex")
                    .for_each(|c| c.provider = payload.clone());
            }),
        ),
        (
            "name+path+dialect+message",
            Box::new(|r: &mut Report| {
                r.fixtures
                    .edit(|all| {
                        let f = &mut all[0];
                        f.name = payload.clone();
                        f.path = payload.clone();
                        f.dialect = Some(payload.clone());
                        f.message = Some(payload.clone());
                        f.fixed = vec![payload.clone()];
                    })
                    .unwrap();
            }),
        ),
        (
            "violation fields",
            Box::new(|r: &mut Report| {
                r.fixtures
                    .edit(|all| {
                        let v = &mut all[1].violations[0];
                        v.rule_name = payload.clone();
                        v.fixture = payload.clone();
                        v.part_id = Some(payload.clone());
                        v.message = payload.clone();
                        v.known = true;
                        v.reason = Some(payload.clone());
                    })
                    .unwrap();
            }),
        ),
        (
            "raw line",
            Box::new(|r: &mut Report| {
                r.fixtures
                    .edit(|all| all[1].raw_lines.insert(7, payload.clone()))
                    .unwrap();
            }),
        ),
        (
            "diff",
            Box::new(|r: &mut Report| {
                r.fixtures
                    .edit(|all| {
                        let d = all[1].diff.as_mut().expect("the sample has a diff");
                        d.changed_paths = vec![payload.clone()];
                        d.invisible = vec![payload.clone()];
                        for row in d.rows.iter_mut().flatten() {
                            row.segments = vec![(true, payload.clone()), (false, payload.clone())];
                        }
                    })
                    .unwrap();
            }),
        ),
        (
            "orphans",
            Box::new(|r: &mut Report| {
                for o in &mut r.orphans {
                    o.subject = payload.clone();
                    o.message = payload.clone();
                }
            }),
        ),
    ];
    for (what, mutate) in mutations {
        let mut r = sample_report();
        mutate(&mut r);
        let html = rendered(&r);
        assert_eq!(
            html.matches("<script").count(),
            1,
            "{what}: exactly one script element"
        );
        assert!(!html.contains("<img"), "{what}: raw <img");
        assert!(!html.contains("onerror=\""), "{what}: raw event handler");
        assert!(
            !html.contains("\"'"),
            "{what}: raw quotes could break out of an attribute"
        );
    }
}

#[test]
fn csp_hashes_match_the_inline_elements() {
    let html = rendered(&sample_report());
    let style = html
        .split("<style>")
        .nth(1)
        .and_then(|s| s.split("</style>").next())
        .expect("a style element");
    let script = html
        .split("<script>")
        .nth(1)
        .and_then(|s| s.split("</script>").next())
        .expect("a script element");
    let csp = content_security_policy();
    assert!(csp.contains(&csp_hash(style)));
    assert!(csp.contains(&csp_hash(script)));
    assert!(csp.starts_with("default-src 'none';"));
    assert!(!csp.contains("unsafe"));
    assert!(
        !html.contains(" style=\""),
        "style attributes would be blocked by the policy"
    );
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "nothing from the network"
    );
}

#[test]
fn failing_fixtures_open_large_diffs_collapsed() {
    let html = rendered(&sample_report());
    assert!(html.contains("id=\"fixture-claude-hostile-output\""));
    let open = html
        .split("id=\"fixture-claude-hostile-output\"")
        .nth(1)
        .expect("present");
    assert!(open[..open.find('>').expect("tag end")].contains(" open"));
    let pass = html
        .split("id=\"fixture-claude-live-coding\"")
        .nth(1)
        .expect("present");
    assert!(!pass[..pass.find('>').expect("tag end")].contains(" open"));
    assert!(
        html.contains(
            "<details class=\"big\"><summary>600 changed lines \u{2014} <span class=\"closed\">show</span>"
        )
    );
    assert!(html.contains("href=\"#violations-claude-TN013\""));
    assert!(html.contains("id=\"violations-claude-TN013\""));
}

proptest::proptest! {
    /// Any text, escaped, holds no character that could open a tag or leave an attribute,
    /// and decodes back to itself.
    #[test]
    fn escaping_is_inert_and_lossless(s in "\\PC*") {
        let e = esc(&s);
        proptest::prop_assert!(!e.contains(['<', '>', '"', '\'']));
        proptest::prop_assert_eq!(html_escape::decode_html_entities(&e), s.as_str());
    }

    #[test]
    fn slugs_are_fragment_safe(s in "\\PC*") {
        proptest::prop_assert!(slug(&s).chars().all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c)));
    }
}

#[test]
fn helpers() {
    assert_eq!(thousands(1234567), "1,234,567");
    assert_eq!(thousands(12), "12");
    assert_eq!(slug("odd <b>name</b>"), "odd__b_name_/b_");
    assert_eq!(percent(99, 100), "99%");
    assert_eq!(percent(999, 1000), "99%");
    assert_eq!(
        esc_clip("abcdef", 3),
        "abc<span class=\"clip\">… 3 more characters</span>"
    );
}

/// Fixtures whose names differ only in characters the slug replaces (`dup a`, `dup_a`, `dup+a`),
/// and providers whose dash would shift the split (`a-b`/`c` against `a`/`b-c`), each get their
/// own id; every in-page link, from the violation lists, the stale list and the permalinks,
/// points at an id that exists.
#[test]
fn fixture_ids_are_unique_and_every_link_resolves() {
    let mut report = sample_report();
    let all = report.fixtures.to_vec().unwrap();
    let mut extra = Vec::new();
    for (provider, name) in [
        ("claude", "dup a"),
        ("claude", "dup_a"),
        ("claude", "dup+a"),
        ("a-b", "c"),
        ("a", "b-c"),
    ] {
        let mut f = all[0].clone();
        f.provider = provider.to_owned();
        f.name = name.to_owned();
        f.path = format!("{provider}/{name}.jsonl.zst");
        f.status = Status::Xpass;
        f.fixed = vec!["TN013".to_owned()];
        let mut v = all
            .iter()
            .flat_map(|f| &f.violations)
            .next()
            .expect("the sample has violations")
            .clone();
        v.provider = provider.to_owned();
        v.fixture = format!("{provider}/{name}");
        f.violations = vec![v];
        f.status = Status::Fail;
        extra.push(f);
    }
    report.fixtures.edit(|all| all.extend(extra)).unwrap();
    let html = rendered(&report);

    let ids: Vec<String> = html
        .split("id=\"")
        .skip(1)
        .map(|s| {
            html_escape::decode_html_entities(&s[..s.find('"').expect("attribute end")])
                .into_owned()
        })
        .collect();
    let unique: std::collections::BTreeSet<&str> = ids.iter().map(String::as_str).collect();
    assert_eq!(unique.len(), ids.len(), "duplicate ids in {ids:?}");
    let anchors: std::collections::BTreeSet<String> = [
        ("claude", "dup a"),
        ("claude", "dup_a"),
        ("claude", "dup+a"),
        ("a-b", "c"),
        ("a", "b-c"),
    ]
    .iter()
    .map(|(p, n)| fixture_anchor(p, n))
    .collect();
    assert_eq!(anchors.len(), 5, "{anchors:?}");
    for a in &anchors {
        assert!(unique.contains(a.as_str()), "no element with id {a}");
        assert!(html.contains(&format!("href=\"#{a}\"")), "no link to {a}");
    }
    // Names the slug keeps as they are keep their anchor (links into older reports still work).
    assert_eq!(
        fixture_anchor("claude", "live-coding"),
        "fixture-claude-live-coding"
    );
    for href in html.split("href=\"#").skip(1) {
        let target = &href[..href.find('"').expect("attribute end")];
        let target = html_escape::decode_html_entities(target);
        assert!(
            unique.contains(target.as_ref()),
            "href=\"#{target}\" points at no id"
        );
    }
}

/// The sample report grown past [`passing::COMPACT_FROM`] with passing fixtures, one of them
/// named with the payloads and one whose anchor is hashed.
fn large_report(extra: usize) -> Report {
    let mut report = sample_report();
    let all = report.fixtures.to_vec().unwrap();
    let pass = all
        .iter()
        .find(|f| f.status == Status::Pass)
        .expect("the sample has a passing fixture")
        .clone();
    for i in 0..extra {
        let mut f = pass.clone();
        f.name = match i {
            7 => format!("odd {SCRIPT_PAYLOAD}{ONERROR_PAYLOAD}"),
            _ => format!("bulk-{i:05}"),
        };
        f.path = format!("{}/{}.jsonl.zst", f.provider, f.name);
        report.fixtures.edit(|all| all.push(f)).unwrap();
    }
    report
}

#[test]
fn a_large_report_lists_passing_fixtures_as_inert_data_and_defers_diffs() {
    let report = large_report(passing::COMPACT_FROM);
    let html = rendered(&report);
    // One script runs (ours, by hash); the data block is JSON that nothing can close early.
    assert_eq!(html.matches("<script>").count(), 1);
    assert_eq!(html.matches("<script").count(), 2);
    let data = html
        .split("<script type=\"application/json\" id=\"passing-data\">")
        .nth(1)
        .and_then(|s| s.split("</script>").next())
        .expect("a data block");
    assert!(
        !data.contains(['<', '>', '&']),
        "raw markup characters in the data block"
    );
    let value: serde_json::Value = serde_json::from_str(data).expect("the data block is JSON");
    let rows = value["rows"].as_array().expect("rows");
    let all = report.fixtures.to_vec().unwrap();
    let passing: Vec<&FixtureResult> = all.iter().filter(|f| f.status == Status::Pass).collect();
    assert_eq!(rows.len(), passing.len());
    let providers = value["providers"].as_array().expect("providers");
    // Every element id of the page, found once (a search of the whole page per row took seconds).
    let ids: std::collections::HashSet<&str> = html
        .split("id=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect();
    assert!(ids.contains("fixture-claude-hostile-output"), "{ids:?}");
    // Each row names its fixture and gives its anchor, spelt out when it is not the plain one.
    for (row, f) in rows.iter().zip(&passing) {
        assert_eq!(
            providers[row[0].as_u64().unwrap() as usize],
            f.provider.as_str()
        );
        assert_eq!(row[1], f.name.as_str());
        let anchor = match row[6].as_str() {
            Some(a) => a.to_owned(),
            None => format!("fixture-{}-{}", f.provider, f.name),
        };
        assert_eq!(anchor, fixture_anchor(&f.provider, &f.name));
        assert!(
            !ids.contains(&*esc(&anchor)),
            "passing fixture {anchor} rendered as an element"
        );
    }
    assert!(
        rows.iter().any(|r| r[6].is_string()),
        "no hashed anchor tried"
    );
    assert_no_payload_element(&html);
    // The failures come first, closed, their diffs in templates.
    let first_fx = html
        .find("<details class=\"fx ")
        .expect("a fixture element");
    assert!(html[first_fx..].starts_with("<details class=\"fx st-fail\""));
    assert!(!html.contains("<details class=\"fx st-pass"));
    let failing = html
        .split("id=\"fixture-claude-hostile-output\"")
        .nth(1)
        .expect("present");
    assert!(!failing[..failing.find('>').expect("tag end")].contains(" open"));
    let body = &failing[..failing.find("</details>\n").expect("end")];
    assert!(body.contains("<template class=\"lazy\"><h4>Diff"));
}

/// A small report keeps every fixture in the page (it reads without JavaScript), failures first.
#[test]
fn a_small_report_renders_every_fixture_failures_first() {
    let report = large_report(passing::COMPACT_FROM - sample_report().fixtures.len());
    assert!(!passing::is_compact(&report));
    let html = rendered(&report);
    assert!(!html.contains("id=\"passing-data\"") && !html.contains("<template class="));
    assert_eq!(
        html.matches("<details class=\"fx ").count(),
        report.fixtures.len()
    );
    let first_pass = html.find("<details class=\"fx st-pass").expect("a pass");
    let last_fail = html.rfind("<details class=\"fx st-fail").expect("a fail");
    assert!(last_fail < first_pass, "a failure after a passing fixture");
}

/// No element, handler or script made of provider data: the payloads are text or JSON strings.
fn assert_no_payload_element(html: &str) {
    assert!(!html.contains(SCRIPT_PAYLOAD));
    assert!(!html.contains(ONERROR_PAYLOAD));
    assert!(!html.contains("<img"));
    assert!(!html.contains("onerror=\""));
}
