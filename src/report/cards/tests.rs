//! The card renderer, the nesting of subagent calls, previews and the view page, on hand-built
//! documents (the binary's tests run them on the corpus).

use std::collections::BTreeMap;

use serde_json::json;

use crate::model::TimeValue;

use super::page::{self, PageOptions, ViewSession};
use super::preview::{self, Folders, Preview};
use super::*;
use crate::model::{McpRef, PartEvent, Timing, ToolError, ToolMetadata, ToolState};
use crate::report::result::{FixtureResult, Status};

const HOSTILE: &str =
    "<script>document.title='PWNED'</script>\"><img src=x onerror=alert(1)>'</pre></details><!--";

fn part(id: &str, kind: ToolKind, state: ToolState, title: &str) -> NormalizedToolPart {
    NormalizedToolPart {
        id: id.to_owned(),
        name: "Bash".to_owned(),
        kind,
        title: title.to_owned(),
        input: json!({"command": "ls"}),
        output: (state == ToolState::Complete).then(|| json!("a\nb\n")),
        error: (state == ToolState::Error).then(|| ToolError {
            message: "exit 1".to_owned(),
            code: Some("1".to_owned()),
            details: None,
        }),
        state,
        timing: Some(Timing {
            elapsed_ms: Some(1500),
            ..Timing::default()
        }),
        metadata: None,
    }
}

fn doc(parts: Vec<NormalizedToolPart>) -> NormalizedDocument {
    let events = parts
        .iter()
        .enumerate()
        .flat_map(|(i, p)| {
            [
                PartEvent {
                    line: 2 * i as u32 + 1,
                    part_id: p.id.clone(),
                    state: ToolState::Started,
                },
                PartEvent {
                    line: 2 * i as u32 + 2,
                    part_id: p.id.clone(),
                    state: p.state,
                },
            ]
        })
        .collect();
    NormalizedDocument {
        schema_version: 1,
        provider: "claude".to_owned(),
        dialect: "stream-json".to_owned(),
        parts,
        events,
        diagnostics: Vec::new(),
    }
}

fn raw_of(d: &NormalizedDocument) -> RawLines<'static> {
    d.events
        .iter()
        .map(|e| {
            (
                e.line,
                Cow::Owned(json!({"line": e.line, "id": e.part_id}).to_string()),
            )
        })
        .collect()
}

fn finding(part: &str, line: u32, message: &str) -> Violation {
    Violation {
        rule: "TN004".to_owned(),
        rule_name: "OutputOnError".to_owned(),
        provider: "claude".to_owned(),
        fixture: "claude/x".to_owned(),
        line: Some(line),
        part_id: Some(part.to_owned()),
        message: message.to_owned(),
        known: false,
        reason: None,
    }
}

fn drawn(s: &Session<'_>, i: usize) -> String {
    let mut out = Vec::new();
    let tree = Tree::of(&s.doc.parts);
    card(s, i, Some(&tree), CardOptions::default(), &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn a_card_shows_what_a_ui_shows_and_links_its_raw_lines() {
    let mut p = part("t1", ToolKind::Mcp, ToolState::Error, "Calling search");
    p.metadata = Some(ToolMetadata {
        mcp: Some(McpRef {
            server: "amalgm".to_owned(),
            tool: "search".to_owned(),
        }),
        ..ToolMetadata::default()
    });
    let d = doc(vec![p]);
    let raw = raw_of(&d);
    let findings = [finding("t1", 2, "output on an error")];
    let s = Session {
        doc: &d,
        raw: &raw,
        findings: &findings,
    };
    let html = drawn(&s, 0);
    for want in [
        "<article class=\"tc st-error k-mcp\" id=\"c0\" data-part=\"t1\"",
        "<span class=\"tt\">Calling search</span>",
        "<span class=\"sb st-error\">error</span><span class=\"lg\" title=\"legacy state name\">output-error</span>",
        "<span class=\"el\" title=\"elapsed\">1.5 s</span>",
        "MCP <b>amalgm</b> \u{203a} <b>search</b>",
        "<span class=\"code\">TN004</span> <b>OutputOnError</b>",
        "<a class=\"rawlink\" href=\"#r0\">raw lines 1\u{2013}2 (2)</a>",
        "<details class=\"tc-raw\" id=\"r0\">",
        "<div class=\"rl-h\">line 2 \u{b7} error</div>",
        "<div class=\"errmsg\">exit 1</div>",
        "<summary>error <code>1</code></summary>",
    ] {
        assert!(html.contains(want), "missing {want} in\n{html}");
    }
    // The raw line is pretty-printed.
    assert!(html.contains("\"line\": 2,\n"), "{html}");
}

#[test]
fn hostile_strings_stay_text_everywhere() {
    let mut p = part(HOSTILE, ToolKind::Bash, ToolState::Complete, HOSTILE);
    p.name = HOSTILE.to_owned();
    p.input = json!({ HOSTILE: HOSTILE, "old_string": HOSTILE, "new_string": "x" });
    p.output = Some(json!(HOSTILE));
    p.kind = ToolKind::FileEdit;
    let d = doc(vec![p]);
    let raw: RawLines<'_> = [(1, Cow::Borrowed(HOSTILE)), (2, Cow::Borrowed(HOSTILE))]
        .into_iter()
        .collect();
    let findings = [finding(HOSTILE, 1, HOSTILE)];
    let s = Session {
        doc: &d,
        raw: &raw,
        findings: &findings,
    };
    let html = drawn(&s, 0);
    for bad in ["<script", "<img", "<!--", "'</pre>"] {
        assert!(!html.contains(bad), "{bad} unescaped in\n{html}");
    }
    assert!(html.contains("&lt;script&gt;document.title=&#x27;PWNED&#x27;&lt;&#x2F;script&gt;"));
    // On the page, past the first cards, inside an inert block too.
    let parts: Vec<_> = (0..page::FIRST_CARDS + 3)
        .map(|i| {
            let mut p = part(
                &format!("{HOSTILE}{i}"),
                ToolKind::Bash,
                ToolState::Complete,
                HOSTILE,
            );
            p.output = Some(json!(HOSTILE));
            p
        })
        .collect();
    let d = doc(parts);
    let raw: RawLines<'_> = d
        .events
        .iter()
        .map(|e| (e.line, Cow::Borrowed(HOSTILE)))
        .collect();
    let html = view_page(&d, &raw, &[]);
    assert_eq!(
        html.matches("<script").count(),
        2,
        "one script, one inert block"
    );
    assert!(!html.contains("<img") && !html.contains("<!--"));
    assert!(html.contains("<title>toolnorm view: x.jsonl</title>"));
}

fn view_page(d: &NormalizedDocument, raw: &RawLines<'_>, findings: &[Violation]) -> String {
    let sessions = [ViewSession {
        label: "x.jsonl".to_owned(),
        session: Session {
            doc: d,
            raw,
            findings,
        },
        raw_bytes: 100,
        lines: 10,
    }];
    let mut out = Vec::new();
    page::render(&sessions, PageOptions::default(), &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn the_page_draws_the_first_cards_and_keeps_the_rest_inert() {
    let n = page::FIRST_CARDS + page::CHUNK + 5;
    let d = doc((0..n)
        .map(|i| {
            part(
                &format!("t{i}"),
                ToolKind::Bash,
                ToolState::Complete,
                &format!("call {i}"),
            )
        })
        .collect());
    let raw = raw_of(&d);
    let html = view_page(&d, &raw, &[]);
    let first = html.find("<script type=\"text/x-toolnorm-cards\"").unwrap();
    assert_eq!(
        html[..first].matches("<article ").count(),
        page::FIRST_CARDS
    );
    assert_eq!(html.matches("<article ").count(), n, "every part is a card");
    assert_eq!(html.matches("class=\"chunk\"").count(), 2);
    // Every card's raw link has its target.
    for i in 0..n {
        assert!(html.contains(&format!("href=\"#s0-r{i}\"")));
        assert!(html.contains(&format!("id=\"s0-r{i}\"")));
    }
    // The policy names the page's own stylesheet and script.
    let css = html
        .split("<style>")
        .nth(1)
        .unwrap()
        .split("</style>")
        .next()
        .unwrap();
    let js = html
        .split("<script>")
        .nth(1)
        .unwrap()
        .split("</script>")
        .next()
        .unwrap();
    let policy = page::content_security_policy();
    assert!(policy.contains(&crate::report::escape::csp_hash(css)));
    assert!(policy.contains(&crate::report::escape::csp_hash(js)));
}

#[test]
fn subagent_calls_nest_under_their_parent_and_cycles_are_cut() {
    let meta = |parent: Option<&str>, session: Option<&str>, child: Option<&str>| {
        Some(ToolMetadata {
            parent_tool_use_id: parent.map(str::to_owned),
            session_id: session.map(str::to_owned),
            child_session_id: child.map(str::to_owned),
            ..ToolMetadata::default()
        })
    };
    let mut parts: Vec<_> = (0..6)
        .map(|i| part(&format!("p{i}"), ToolKind::Bash, ToolState::Complete, "t"))
        .collect();
    parts[0].kind = ToolKind::Subagent;
    parts[1].metadata = meta(Some("p0"), None, None);
    parts[2].metadata = meta(None, None, Some("child"));
    parts[3].metadata = meta(None, Some("child"), None);
    // A cycle: 4 names 5, 5 names 4.
    parts[4].metadata = meta(Some("p5"), None, None);
    parts[5].metadata = meta(Some("p4"), None, None);
    let t = Tree::of(&parts);
    assert_eq!(t.children[0], [1]);
    assert_eq!(t.children[2], [3]);
    assert_eq!(t.roots, [0, 2, 4, 5]);
    let d = doc(parts);
    let raw = raw_of(&d);
    let s = Session {
        doc: &d,
        raw: &raw,
        findings: &[],
    };
    let html = drawn(&s, 0);
    assert!(html.contains("<div class=\"kids\"><div class=\"kids-h\">1 call by this call</div><article class=\"tc st-complete k-bash\" id=\"c1\""));
}

#[test]
fn elapsed_time_comes_from_the_source_only() {
    let mut p = part("a", ToolKind::Bash, ToolState::Complete, "t");
    assert_eq!(elapsed_ms(&p), Some(1500));
    p.timing = Some(Timing {
        started_at: Some(TimeValue::Text("2026-01-01T00:00:00Z".into())),
        completed_at: Some(TimeValue::Text("2026-01-01T00:01:05.5Z".into())),
        elapsed_ms: None,
    });
    assert_eq!(elapsed_ms(&p), Some(65_500));
    assert_eq!(elapsed(65_500), "1m 05s");
    p.timing = Some(Timing {
        started_at: Some(TimeValue::Millis(10)),
        completed_at: None,
        elapsed_ms: None,
    });
    assert_eq!(elapsed_ms(&p), None);
}

fn result(violations: Vec<Violation>) -> FixtureResult {
    FixtureResult {
        provider: "claude".to_owned(),
        name: "x".to_owned(),
        path: "claude/x.jsonl.zst".to_owned(),
        dialect: Some("stream-json".to_owned()),
        status: Status::Fail,
        diff: None,
        legacy_diff: None,
        violations,
        message: None,
        raw_lines: BTreeMap::new(),
        fixed: Vec::new(),
        formatting: Vec::new(),
        wire: None,
        parts: 3,
        raw_bytes: 10,
        duration_ms: 1,
    }
}

#[test]
fn a_preview_pairs_cards_by_id_and_names_the_changed_fields() {
    let expected = doc(vec![
        part("a", ToolKind::Bash, ToolState::Complete, "Running ls"),
        part("b", ToolKind::Bash, ToolState::Complete, "Running pwd"),
        part("gone", ToolKind::Bash, ToolState::Complete, "Gone"),
    ]);
    let actual = doc(vec![
        part("a", ToolKind::Bash, ToolState::Complete, "Running ls"),
        part("b", ToolKind::Bash, ToolState::Error, "Ran pwd"),
        part("new", ToolKind::Bash, ToolState::Complete, "New"),
    ]);
    let raw = raw_of(&actual);
    let p = Preview {
        expected: Some(expected),
        actual,
        raw,
        accept: "toolnorm accept --filter claude/x".to_owned(),
    };
    let mut out = Vec::new();
    preview::render(&p, &result(vec![]), "f0-", None, &mut out).unwrap();
    let html = String::from_utf8(out).unwrap();
    assert!(html.contains("3 cards of 4 changed"), "{html}");
    assert!(html.contains("changed: title, state, output, error"));
    assert!(html.contains("<span class=\"tt chg\">Ran pwd</span>"));
    assert!(
        html.contains("not in the expected output") && html.contains("not in the actual output")
    );
    assert!(html.contains("<summary>1 card unchanged</summary>"));
    assert!(html.contains("<code class=\"cmd\">toolnorm accept --filter claude&#x2F;x</code>"));
    // A new fixture: its whole list, with its findings.
    let p = Preview {
        expected: None,
        ..p
    };
    let mut out = Vec::new();
    preview::render(
        &p,
        &result(vec![finding("b", 4, "an error with output")]),
        "f1-",
        None,
        &mut out,
    )
    .unwrap();
    let html = String::from_utf8(out).unwrap();
    assert!(html.contains(
        "New fixture (no expected file): 3 cards as the normalizer draws them, with 1 finding."
    ));
    assert_eq!(html.matches("<article ").count(), 3);
    assert!(html.contains("an error with output"));
}

#[test]
fn the_accept_command_selects_exactly_its_fixture() {
    let names = [
        "plain",
        "with space",
        "st*ar",
        "q?",
        "br[ack]et",
        "cu{r,ly}",
        "back\\slash",
        "it's",
        "!bang",
    ];
    for name in names {
        let cmd = preview::accept_command("claude", name, &Folders::default());
        let glob_arg = cmd.strip_prefix("toolnorm accept --filter ").unwrap();
        // Undo the shell's quoting as sh would.
        let glob = if let Some(q) = glob_arg.strip_prefix('\'') {
            q.strip_suffix('\'').unwrap().replace("'\\''", "'")
        } else {
            glob_arg.to_owned()
        };
        let m = crate::verify::expectations::fixture_glob(&glob).unwrap();
        assert!(m.is_match(format!("claude/{name}")), "{name}: {glob}");
        for other in names.iter().filter(|o| **o != name) {
            assert!(
                !m.is_match(format!("claude/{other}")),
                "{name} also selects {other}"
            );
        }
        assert!(!m.is_match(format!("claude/{name}x")));
    }
    let cmd = preview::accept_command(
        "codex",
        "a",
        &Folders {
            corpus: "my corpus".into(),
            ..Folders::default()
        },
    );
    assert_eq!(cmd, "toolnorm accept --filter codex/a --corpus 'my corpus'");
}
