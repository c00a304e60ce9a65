//! Properties of the normalizers over every fixture of the corpus. They freeze no output (that is
//! `expected/`, checked by `toolnorm verify`): detection agrees with the recorded dialect, the
//! output is deterministic and reads back as the model, a fixture and its plain text normalize
//! alike, the contract rules hold (the rules' own scan of the raw stream: every raw call is one
//! part, no failed call shown complete, states only move forward …) but for the known failures
//! of `expectations.toml`, and two recordings of one session agree.

use std::collections::BTreeMap;

use serde_json::Value;
use toolnorm::dialects::{detect, scan};
use toolnorm::model::{AcpFrame, LegacyToolPart, acp_frames, legacy_parts};
use toolnorm::rules::{RuleContext, check_all, registry, render};
use toolnorm::stream::Direction;
use toolnorm::verify::expectations::{Expectations, FixtureKey};
use toolnorm::{Input, NormalizedDocument, ToolKind, ToolState, normalize};

use crate::normalize::samples::{Sample, by_name, corpus_root, load_all};

#[test]
fn detection_agrees_with_the_recorded_dialect() {
    for s in load_all() {
        let detected = detect(&s.stream.input(), Some(s.provider))
            .unwrap_or_else(|e| panic!("{}: {e}", s.name));
        assert_eq!(
            detected, s.dialect,
            "{}: header and content disagree",
            s.name
        );
    }
}

/// A live recording folds its scratch workspace and the CLI cache whole, as `~/work` and
/// `~/.cache/toolnorm/clis`: a bare `/work/` is what a shorter fold cut into a longer path leaves
/// (the redactor before it read `\n/tmp/…/work/a.js`, a path after an escaped line break, as no
/// path), a path the CLI never printed, and a bare `/…/.cache/toolnorm/` is the recording
/// machine's home. Five fixtures recorded that way made `scenario drift` call an unchanged
/// release changed.
#[test]
fn live_recordings_fold_the_workspace_and_the_cache_whole() {
    let mut checked = 0;
    for s in load_all().iter().filter(|s| s.name.contains("/live-")) {
        checked += 1;
        let bytes = &s.stream.bytes();
        // (the folded path, whether a find of it after these bytes is a fold cut short)
        let checks: [(&[u8], CutShort); 2] = [
            (b"/work/", starts_a_path),
            (b"/.cache/toolnorm/", |before| !before.ends_with(b"~")),
        ];
        for (folded, cut_short) in checks {
            let cut: Vec<usize> = memchr::memmem::find_iter(bytes, folded)
                .filter(|&at| cut_short(&bytes[..at]))
                .collect();
            assert!(
                cut.is_empty(),
                "{}: {} folded in part at byte {:?}: {}",
                s.name,
                String::from_utf8_lossy(folded),
                cut,
                String::from_utf8_lossy(
                    &bytes[cut[0].saturating_sub(40)..(cut[0] + 40).min(bytes.len())]
                )
            );
        }
    }
    assert!(checked > 100, "only {checked} live fixtures");
}

/// No fixture header names a file of the machine that wrote it: an imported fixture's `source`
/// is relative (`qwen/live-qwen-session-shell.jsonl`) or folded (`~/.claude/…`), never absolute.
#[test]
fn fixture_headers_name_no_absolute_source() {
    let mut sources = 0;
    for e in toolnorm::corpus::list_fixtures(&corpus_root()) {
        let fixture = toolnorm::corpus::read_fixture(&e.path).expect("a readable fixture");
        if let Some(source) = fixture.header.source {
            sources += 1;
            assert!(
                !source.starts_with('/') && !source.contains(":\\"),
                "{}: the header names the source {source}",
                e.path.display()
            );
        }
    }
    assert!(sources > 20, "only {sources} headers name a source");
}

/// Whether a find of a folded path after these bytes is a fold cut short.
type CutShort = fn(&[u8]) -> bool;

/// Whether a path starts right after `before`: at the start, after a JSON escape (`\n`), or after
/// a byte that is no part of a name. After `~` it is the folded workspace; after a name byte it is
/// the tail of a longer path (Copilot shortens long paths in its titles to `...<tail>`, a tail
/// that no fold can match).
fn starts_a_path(before: &[u8]) -> bool {
    match before {
        [] => true,
        [.., b'\\', c] if c.is_ascii_alphabetic() => true,
        [.., c] => !(c.is_ascii_alphanumeric() || b"~-_.".contains(c)),
    }
}

/// From content alone, with no provider given, every fixture reads as its own dialect: a new
/// dialect never takes an existing fixture (Qwen Code's Claude-shaped stream-json and sessions, droid's
/// Claude-shaped init line among them). The one exception is by design: a CLI that writes
/// another's format byte for byte (Kilo writes OpenCode's) reads as that other provider's dialect
/// of the same name, and only its fixture header or `--provider` tells it apart.
#[test]
fn content_alone_detects_every_fixture_as_its_own_dialect() {
    use toolnorm::{Dialect, Provider};
    // (fork, the provider whose formats it writes byte for byte)
    const WRITES_THE_FORMATS_OF: &[(Provider, Provider)] = &[(Provider::Kilo, Provider::Opencode)];
    for s in load_all() {
        let detected =
            detect(&s.stream.input(), None).unwrap_or_else(|e| panic!("{}: {e}", s.name));
        let want = match WRITES_THE_FORMATS_OF
            .iter()
            .find(|(fork, _)| *fork == s.provider)
        {
            Some((_, base)) => Dialect::parse(s.dialect.as_str(), Some(*base))
                .unwrap_or_else(|e| panic!("{}: {e}", s.name)),
            None => s.dialect,
        };
        assert_eq!(
            detected,
            want,
            "{}: detected from content as {}/{}",
            s.name,
            detected.provider(),
            detected
        );
    }
}

#[test]
fn normalizing_is_deterministic_and_the_output_reads_back() {
    for s in load_all() {
        let doc = s.normalize();
        assert_eq!(s.normalize(), doc, "{}: a second run differs", s.name);
        assert_eq!(doc.provider, s.provider.as_str(), "{}", s.name);
        assert_eq!(doc.dialect, s.dialect.as_str(), "{}", s.name);

        let json = serde_json::to_string(&doc).unwrap();
        let back: NormalizedDocument = serde_json::from_str(&json)
            .unwrap_or_else(|e| panic!("{}: the output does not read back: {e}", s.name));
        assert_eq!(back, doc, "{}: the output changed on the way back", s.name);

        let acp = serde_json::to_string(&acp_frames(&doc.parts)).unwrap();
        let acp: Vec<AcpFrame> = serde_json::from_str(&acp)
            .unwrap_or_else(|e| panic!("{}: ACP frames do not read back: {e}", s.name));
        assert_eq!(acp, acp_frames(&doc.parts), "{}", s.name);
        let legacy = serde_json::to_string(&legacy_parts(&doc.parts)).unwrap();
        let legacy: Vec<LegacyToolPart> = serde_json::from_str(&legacy)
            .unwrap_or_else(|e| panic!("{}: legacy parts do not read back: {e}", s.name));
        assert_eq!(legacy, legacy_parts(&doc.parts), "{}", s.name);
    }
}

/// A fixture holding only the agent's lines normalizes as its `toolnorm cat` text does.
#[test]
fn a_fixture_and_its_plain_text_normalize_alike() {
    let samples = load_all();
    let plain: Vec<&Sample> = samples
        .iter()
        .filter(|s| s.stream.spans().iter().all(|l| l.2 == Direction::Agent))
        .collect();
    assert!(!plain.is_empty(), "no fixture holds only the agent's lines");
    for s in plain {
        // Its text as `toolnorm cat` prints it: the blank lines a loaded stream leaves out are
        // put back where they were, so every line keeps its number.
        let mut text = Vec::new();
        let mut at = 0;
        for l in &s.stream.input().lines {
            while at + 1 < l.number {
                text.push(b'\n');
                at += 1;
            }
            text.extend_from_slice(l.bytes);
            text.push(b'\n');
            at = l.number;
        }
        let text = normalize(&Input::from_bytes(&text), s.options())
            .unwrap_or_else(|e| panic!("{}: {e}", s.name));
        assert_eq!(text, s.normalize(), "{}", s.name);
    }
}

/// Every rule of the registry on every fixture, judged against the rules' own scan of the raw
/// stream; a violation passes only where `expectations.toml` lists it.
#[test]
fn the_rules_hold_on_every_fixture_but_the_known_failures() {
    let path = corpus_root().with_file_name("expectations.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let codes: Vec<&str> = registry().iter().map(|r| r.code()).collect();
    let known =
        Expectations::parse(&text, "expectations.toml", &codes).unwrap_or_else(|e| panic!("{e}"));
    assert!(!codes.is_empty(), "the rule registry is empty");
    let mut broken = Vec::new();
    for s in load_all() {
        let input = s.stream.input();
        let doc = s.normalize();
        let raw = scan(&input, s.dialect);
        let cx = RuleContext::new(s.dialect, &input, &doc, &raw);
        let (provider, name) = s.name.split_once('/').unwrap();
        let rel = format!("{}.jsonl.zst", s.name);
        let key = FixtureKey {
            provider,
            name,
            path: &rel,
        };
        for (rule, finding) in check_all(&cx) {
            if known.entries_for(key, rule.code()).is_empty() {
                broken.push(format!("{}: {}", s.name, render(rule, &finding)));
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// What a part shows, apart from timing and the events that led to it.
fn shown(p: &toolnorm::NormalizedToolPart) -> (String, ToolKind, String, Value, ToolState) {
    (
        p.name.clone(),
        p.kind,
        p.title.clone(),
        p.input.clone(),
        p.state,
    )
}

/// `--include-partial-messages` adds stream events to the same session: every call starts from
/// the streamed block, then runs, and ends as it does without them.
#[test]
fn partial_messages_change_no_part() {
    let samples = load_all();
    for (full, partial) in [(
        "claude/live-claude-2.1.197-coding",
        "claude/live-claude-2.1.197-coding-partial",
    )] {
        let full = by_name(samples, full).normalize();
        let partial = by_name(samples, partial).normalize();
        assert!(!full.parts.is_empty());
        let a: Vec<_> = full.parts.iter().map(shown).collect();
        let b: Vec<_> = partial.parts.iter().map(shown).collect();
        assert_eq!(a, b);
        let mut states: BTreeMap<&str, Vec<ToolState>> = BTreeMap::new();
        for e in &partial.events {
            states.entry(e.part_id.as_str()).or_default().push(e.state);
        }
        for p in &partial.parts {
            let s = &states[p.id.as_str()];
            assert_eq!(s.first(), Some(&ToolState::Started), "{}", p.id);
            assert!(s.contains(&ToolState::Running), "{}", p.id);
        }
    }
}
