//! `scenario drift` held to what a re-recording does, without the live CLIs: every live fixture
//! of the corpus has its volatile values re-drawn the ways a new recording of the same session
//! draws them — timestamps, the ids a CLI draws at random or numbers as items start, the ids of
//! tasks, sessions and messages, the order of the calls that ran at once — several times over,
//! and the drift's comparison with the fixture's expected file (`compare::volatile`) must say
//! "same" every time, while a change planted in the same re-drawn output is found and named every
//! time. Then the drift's judging half writes every report from re-drawn recordings: all green,
//! and all red, naming the scenario and the change, once a change is planted.

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use regex::Regex;
use serde_json::{Value, json};
use toolnorm::Input;
use toolnorm::compare::volatile::compare_stable;
use toolnorm::compare::{Comparison, canonical_json};
use toolnorm::corpus::format::new_header;
use toolnorm::corpus::redact::{RedactOptions, Redactor};
use toolnorm::corpus::write_fixture;
use toolnorm::report::FixtureResult;
use toolnorm::report::terminal::summary_line;
use toolnorm::scenario::drift::{Judge, judge};
use toolnorm::stream::{Direction, RawLine};

use crate::normalize::samples::{Sample, by_name, load_all};

/// Re-recordings drawn per fixture (each draws every volatile value afresh, and the corpus has
/// some 250 live fixtures: two rounds already re-draw every kind of value hundreds of times).
const ROUNDS: u64 = 2;

/// SplitMix64: the same draws on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// `len` characters drawn from `alphabet`.
    fn token(&mut self, alphabet: &[u8], len: usize) -> String {
        (0..len)
            .map(|_| alphabet[self.below(alphabet.len())] as char)
            .collect()
    }
}

const ALNUM: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
const HEX: &[u8] = b"0123456789abcdef";

fn live(samples: &[Sample]) -> Vec<&Sample> {
    let live: Vec<&Sample> = samples
        .iter()
        .filter(|s| {
            s.name
                .split('/')
                .nth(1)
                .is_some_and(|n| n.starts_with("live-"))
        })
        .collect();
    assert!(live.len() > 100, "only {} live fixtures", live.len());
    live
}

/// What a re-recording draws anew, found in the raw text.
struct Volatile {
    uuid: Regex,
    /// Ids with a prefix that a CLI or the scripted model draws: OpenCode's `ses_`, `msg_`,
    /// `prt_`, Claude's `toolu_`, the `call_` ids (only with a digit: `call_id` is a key).
    prefixed: Regex,
    /// `codex exec` items, numbered as they start.
    item: Regex,
    /// Claude's background task and agent ids, named by a key somewhere in the stream.
    task_key: Regex,
    iso_time: Regex,
    /// Epoch milliseconds or seconds as JSON numbers.
    epoch: Regex,
    /// A duration quoted in text (`duration_ms: 877`).
    duration: Regex,
}

impl Volatile {
    fn new() -> Volatile {
        let re = |p: &str| Regex::new(p).unwrap();
        Volatile {
            uuid: re(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
            prefixed: re(r"\b(ses|msg|prt|toolu|call)_([A-Za-z0-9_]*[0-9][A-Za-z0-9_]*)"),
            item: re(r"\bitem_([0-9]+)\b"),
            task_key: re(
                r#"(?:task_id|taskId|agent_id|agentId)\\?"\s*:\s*\\?"([a-z0-9]{6,24})\\?""#,
            ),
            iso_time: re(
                r"\b20[0-9]{2}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9](\.[0-9]+)?Z",
            ),
            epoch: re(r"([:\[,]\s*)(1[78][0-9]{8}(?:[0-9]{3})?)\b"),
            duration: re(r"(duration_ms: )[0-9]+"),
        }
    }
}

/// The lines of `s` as a new recording of the same session could hold them: every id drawn per
/// run replaced consistently (the same id → the same new id), items renumbered in another order,
/// every timestamp another.
fn redraw_lines(s: &Sample, v: &Volatile, rng: &mut Rng) -> Vec<(Direction, String)> {
    let input = s.stream.input();
    let texts: Vec<String> = input.lines.iter().map(|l| l.text().into_owned()).collect();
    let all = texts.join("\n");
    let offset_ms = 86_400_000 * (1 + rng.below(300) as i64) + rng.below(86_400_000) as i64;
    let mut ids: HashMap<String, String> = HashMap::new();
    for m in v.uuid.find_iter(&all) {
        let id = m.as_str().to_owned();
        ids.entry(id)
            .or_insert_with(|| [8, 4, 4, 4, 12].map(|n| rng.token(HEX, n)).join("-"));
    }
    for c in v.prefixed.captures_iter(&all) {
        let suffix = &c[2];
        let fresh = format!("{}_{}", &c[1], rng.token(ALNUM, suffix.len()));
        ids.entry(c[0].to_owned()).or_insert(fresh);
    }
    for c in v.task_key.captures_iter(&all) {
        let id = c[1].to_owned();
        let alphabet = if id.bytes().all(|b| HEX.contains(&b)) {
            HEX
        } else {
            LOWER
        };
        let fresh = rng.token(alphabet, id.len());
        ids.entry(id).or_insert(fresh);
    }
    let mut numbers: Vec<u64> = v
        .item
        .captures_iter(&all)
        .filter_map(|c| c[1].parse().ok())
        .collect();
    numbers.sort_unstable();
    numbers.dedup();
    let mut shuffled = numbers.clone();
    for i in (1..shuffled.len()).rev() {
        shuffled.swap(i, rng.below(i + 1));
    }
    for (a, b) in numbers.iter().zip(&shuffled) {
        ids.insert(format!("item_{a}"), format!("item_{b}"));
    }
    let token = Regex::new(&format!(
        r"\b(?:{})\b",
        ids.keys()
            .map(|k| regex::escape(k))
            .collect::<Vec<_>>()
            .join("|")
    ))
    .unwrap();
    input
        .lines
        .iter()
        .zip(texts)
        .map(|(line, text)| {
            let text = if ids.is_empty() {
                text
            } else {
                token
                    .replace_all(&text, |c: &regex::Captures<'_>| ids[&c[0]].clone())
                    .into_owned()
            };
            // The session ran at another time: every timestamp moves by the same amount.
            let text = v
                .iso_time
                .replace_all(&text, |c: &regex::Captures<'_>| shifted(&c[0], offset_ms))
                .into_owned();
            let text = v
                .epoch
                .replace_all(&text, |c: &regex::Captures<'_>| {
                    let n: i64 = c[2].parse().unwrap_or_default();
                    let by = if c[2].len() == 13 {
                        offset_ms
                    } else {
                        offset_ms / 1000
                    };
                    format!("{}{}", &c[1], n + by)
                })
                .into_owned();
            // Durations quoted in text are the run's.
            let text = v
                .duration
                .replace_all(&text, |c: &regex::Captures<'_>| {
                    format!("{}{}", &c[1], rng.below(5000))
                })
                .into_owned();
            (line.direction, text)
        })
        .collect()
}

/// An RFC 3339 UTC time `ms` milliseconds later, written with as many fraction digits.
fn shifted(at: &str, ms: i64) -> String {
    let t = chrono::DateTime::parse_from_rfc3339(at)
        .unwrap()
        .with_timezone(&chrono::Utc)
        + chrono::TimeDelta::milliseconds(ms);
    let digits = at.split_once('.').map_or(0, |(_, f)| f.len() - 1);
    let fraction = if digits == 0 {
        String::new()
    } else {
        format!(".{:09}", t.timestamp_subsec_nanos())[..digits + 1].to_owned()
    };
    format!("{}{fraction}Z", t.format("%Y-%m-%dT%H:%M:%S"))
}

/// Normalize re-drawn lines as `verify` normalizes the fixture.
fn normalize_lines(s: &Sample, lines: &[(Direction, String)]) -> Value {
    let mut bytes = Vec::new();
    let mut spans = Vec::new();
    for (d, text) in lines {
        let start = bytes.len();
        bytes.extend_from_slice(text.as_bytes());
        spans.push((start, bytes.len(), *d));
        bytes.push(b'\n');
    }
    // Each line keeps the number it has in the fixture: a loaded stream keeps no blank lines, and
    // a diagnostic names the lines after one by where they were.
    let numbers: Vec<u32> = s.stream.input().lines.iter().map(|l| l.number).collect();
    let raw: Vec<RawLine<'_>> = spans
        .iter()
        .enumerate()
        .map(|(i, &(a, b, direction))| RawLine {
            number: numbers.get(i).copied().unwrap_or(i as u32 + 1),
            bytes: &bytes[a..b],
            direction,
            unterminated: false,
            text: None,
        })
        .collect();
    let doc = toolnorm::normalize(&Input::from_lines(&bytes, raw), s.options())
        .unwrap_or_else(|e| panic!("{}: a re-drawn stream does not normalize: {e}", s.name));
    serde_json::to_value(doc).unwrap()
}

/// Put the parts that ran at once (their events overlap) in another order, as a re-recording
/// may start and finish them.
fn reorder_concurrent(doc: &mut Value, rng: &mut Rng) -> bool {
    let mut span: HashMap<String, (u64, u64)> = HashMap::new();
    for e in doc["events"].as_array().into_iter().flatten() {
        let (Some(id), Some(line)) = (e["partId"].as_str(), e["line"].as_u64()) else {
            continue;
        };
        let s = span.entry(id.to_owned()).or_insert((line, line));
        s.0 = s.0.min(line);
        s.1 = s.1.max(line);
    }
    let Some(parts) = doc["parts"].as_array_mut() else {
        return false;
    };
    let of = |p: &Value| span.get(p["id"].as_str().unwrap_or_default()).copied();
    let mut moved = false;
    let mut start = 0;
    while start < parts.len() {
        let mut end = start + 1;
        let mut last = of(&parts[start]).map_or(0, |s| s.1);
        while end < parts.len() && of(&parts[end]).is_some_and(|s| s.0 < last) {
            last = last.max(of(&parts[end]).map_or(0, |s| s.1));
            end += 1;
        }
        for i in (start + 1..end).rev() {
            let j = start + rng.below(i - start + 1);
            moved |= i != j;
            parts.swap(i, j);
        }
        start = end;
    }
    moved
}

/// A re-recording of `s`: re-drawn lines, normalized, concurrent parts reordered.
fn rerecorded(s: &Sample, v: &Volatile, rng: &mut Rng) -> (Value, bool) {
    let mut doc = normalize_lines(s, &redraw_lines(s, v, rng));
    let moved = reorder_concurrent(&mut doc, rng);
    (doc, moved)
}

fn expected_of(s: &Sample) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("expected")
        .join(format!("{}.json", s.name));
    fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_re_recording_of_every_live_fixture_compares_the_same() {
    let samples = load_all();
    let v = Volatile::new();
    let (mut redrawn, mut reordered) = (0, 0);
    for s in live(samples) {
        let expected = expected_of(s);
        let original = canonical_json(&serde_json::to_value(s.normalize()).unwrap());
        for round in 0..ROUNDS {
            let mut rng = Rng(round * 7919 + s.name.len() as u64);
            let (doc, moved) = rerecorded(s, &v, &mut rng);
            let actual = canonical_json(&doc);
            redrawn += usize::from(actual != original);
            reordered += usize::from(moved);
            if let Comparison::Differs(d) = compare_stable(&expected, &actual) {
                panic!(
                    "{} (round {round}): a re-recording that changed only volatile values reads as changed:\n{}",
                    s.name, d.unified
                );
            }
        }
    }
    // The draws did change the outputs: the property is not held vacuously.
    let live = live(samples).len() * ROUNDS as usize;
    assert!(redrawn * 10 >= live * 9, "{redrawn} of {live} re-drawn");
    assert!(reordered >= 20, "only {reordered} re-recordings reordered");
}

/// Plant one change in a part of the re-recording: its title, its outcome, or the part itself.
fn plant(doc: &mut Value, rng: &mut Rng, kind: u64) -> String {
    let parts = doc["parts"].as_array_mut().unwrap();
    let k = rng.below(parts.len());
    match kind % 3 {
        0 => {
            let title = format!(
                "{} (planted)",
                parts[k]["title"].as_str().unwrap_or_default()
            );
            parts[k]["title"] = json!(title);
            "(planted)".to_owned()
        }
        1 => {
            let p = parts[k].as_object_mut().unwrap();
            p.remove("output");
            p.insert("state".into(), json!("error"));
            p.insert("error".into(), json!({"message": "a planted failure"}));
            "a planted failure".to_owned()
        }
        _ => {
            // Its title may quote a masked id; its tool's name never does.
            let gone = parts.remove(k);
            format!(
                "\"name\": {}",
                serde_json::to_string(&gone["name"]).unwrap()
            )
        }
    }
}

#[test]
fn a_change_planted_in_any_re_recording_is_found_and_named() {
    let samples = load_all();
    let v = Volatile::new();
    for s in live(samples) {
        let expected = expected_of(s);
        for round in 0..ROUNDS {
            let mut rng = Rng(round * 104_729 + 3 * s.name.len() as u64);
            let (mut doc, _) = rerecorded(s, &v, &mut rng);
            if doc["parts"].as_array().is_none_or(Vec::is_empty) {
                continue;
            }
            let mark = plant(&mut doc, &mut rng, round + s.name.len() as u64);
            match compare_stable(&expected, &canonical_json(&doc)) {
                Comparison::Differs(d) => assert!(
                    d.unified
                        .lines()
                        .any(|l| (l.starts_with('+') || l.starts_with('-')) && l.contains(&mark)),
                    "{} (round {round}): the diff does not name {mark}:\n{}",
                    s.name,
                    d.unified
                ),
                other => panic!("{} (round {round}): planted {mark}, got {other:?}", s.name),
            }
        }
    }
}

/// Write `lines` as fixture `provider/name` under `corpus`, with `s`'s header facts.
fn write_recording(corpus: &Path, s: &Sample, lines: &[(Direction, String)]) {
    let (provider, name) = s.name.split_once('/').unwrap();
    let mut header = new_header(provider, name);
    header.dialect = Some(s.dialect.as_str().to_owned());
    header.cwd = s.stream.cwd.clone();
    let redactor = Redactor::new(&RedactOptions::default()).unwrap();
    write_fixture(
        &corpus.join(provider).join(format!("{name}.jsonl.zst")),
        header,
        lines.iter().map(|(d, t)| (0, *d, t.as_bytes(), true)),
        &redactor,
        true,
    )
    .unwrap();
}

/// The drift's judging half over re-drawn recordings of a few scenarios (one per CLI, the
/// parallel ones among them): with nothing planted every report passes; with one changed output
/// every report fails and names the scenario and the change.
#[test]
fn every_drift_report_says_the_same_green_or_red() {
    let samples = load_all();
    let v = Volatile::new();
    let chosen = [
        "codex/live-codex-exec-parallel",
        "codex/live-codex-app-parallel",
        "claude/live-claude-parallel",
        "opencode/live-opencode-run-bash",
    ];
    let dir = tempfile::tempdir().unwrap();
    let (corpus, expected) = (dir.path().join("corpus"), dir.path().join("expected"));
    let mut rng = Rng(42);
    for name in chosen {
        let s = by_name(samples, name);
        write_recording(&corpus, s, &redraw_lines(s, &v, &mut rng));
        let to = expected.join(format!("{name}.json"));
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        fs::write(&to, expected_of(s)).unwrap();
    }
    let judge_after = |reports: &Path, earlier: Vec<FixtureResult>| {
        judge(Judge {
            title: "test-cli 1.0.0".to_owned(),
            corpus: corpus.clone(),
            expected: expected.clone(),
            expectations: Path::new(env!("CARGO_MANIFEST_DIR")).join("expectations.toml"),
            fixtures: chosen.iter().map(|s| (*s).to_owned()).collect(),
            trouble: Vec::new(),
            earlier,
            reports: reports.to_owned(),
            strict: true,
        })
        .unwrap()
    };
    let run = |reports: &Path| judge_after(reports, Vec::new());
    let read = |reports: &Path, file: &str| fs::read_to_string(reports.join(file)).unwrap();

    let green = dir.path().join("green");
    let outcome = run(&green);
    assert!(
        !outcome.report.summary.fails_gate(),
        "{:?}",
        outcome.report.summary
    );
    assert_eq!((outcome.scenarios, outcome.changed), (4, 0));
    let terminal = summary_line(&outcome.report);
    assert!(
        terminal.starts_with("PASS: 4 fixtures: 4 passed, 0 failed"),
        "{terminal}"
    );
    let json: Value = serde_json::from_str(&read(&green, "report.json")).unwrap();
    assert_eq!(json["summary"]["passed"], 4, "{}", json["summary"]);
    assert_eq!(json["summary"]["orphans"], 0, "{}", json["summary"]);
    let junit = read(&green, "junit.xml");
    assert!(
        junit.contains("failures=\"0\"") && !junit.contains("<failure"),
        "{junit}"
    );
    assert!(read(&green, "summary.md").contains("passed"));
    let md = read(&green, "drift.md");
    assert!(
        md.contains("**PASS**: 4 scenario(s), 0 changed, 4 unchanged."),
        "{md}"
    );
    assert!(md.contains("`PASS: 4 fixtures: 4 passed"), "{md}");
    let html = read(&green, "index.html");
    assert!(!html.contains("live-codex-exec-parallel.jsonl.zst</code> <span class=\"fail"));

    // One command's output changed in the new release.
    let s = by_name(samples, "codex/live-codex-exec-parallel");
    let lines: Vec<(Direction, String)> = redraw_lines(s, &v, &mut rng)
        .into_iter()
        .map(|(d, t)| (d, t.replace("v20.20.2", "v22.1.0")))
        .collect();
    write_recording(&corpus, s, &lines);
    let red = dir.path().join("red");
    let outcome = run(&red);
    assert!(outcome.report.summary.fails_gate());
    assert_eq!((outcome.scenarios, outcome.changed), (4, 1));
    let terminal = summary_line(&outcome.report);
    assert!(
        terminal.starts_with("FAIL: 4 fixtures: 3 passed, 1 failed"),
        "{terminal}"
    );
    let json: Value = serde_json::from_str(&read(&red, "report.json")).unwrap();
    assert_eq!(json["summary"]["failed"], 1, "{}", json["summary"]);
    let failed: Vec<&Value> = json["fixtures"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["status"] == "fail")
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["name"], "live-codex-exec-parallel");
    assert!(
        failed[0]["diff"]["unified"]
            .as_str()
            .unwrap()
            .contains("+      \"output\": \"v22.1.0\\n\"")
    );
    let junit = read(&red, "junit.xml");
    assert!(
        junit.contains("<failure") && junit.contains("v22.1.0"),
        "{junit}"
    );
    let summary = read(&red, "summary.md");
    assert!(
        summary.contains("failed") && summary.contains("live-codex-exec-parallel"),
        "{summary}"
    );
    let md = read(&red, "drift.md");
    assert!(
        md.contains("**FAIL**: 4 scenario(s), 1 changed, 3 unchanged."),
        "{md}"
    );
    assert!(md.contains("`FAIL: 4 fixtures: 3 passed, 1 failed"), "{md}");
    assert!(
        md.contains("## codex-exec-parallel: changed") && md.contains("v22.1.0"),
        "{md}"
    );
    let html = read(&red, "index.html");
    assert!(html.contains("live-codex-exec-parallel") && html.contains("v22.1.0"));

    // A changed scenario is recorded once more (`drift::run`) and judged on that recording, with
    // the first one's result beside it. Changed again: a change of the release.
    let first: Vec<FixtureResult> = outcome
        .report
        .fixtures
        .to_vec()
        .unwrap()
        .into_iter()
        .filter(|f| f.status.fails_gate(true))
        .collect();
    let again = dir.path().join("again");
    let outcome = judge_after(&again, first.clone());
    assert!(outcome.report.summary.fails_gate());
    assert_eq!((outcome.changed, outcome.unsteady), (1, 0));
    let md = read(&again, "drift.md");
    assert!(
        md.contains("**FAIL**: 4 scenario(s), 1 changed, 3 unchanged.")
            && md.contains("## codex-exec-parallel: changed in two recordings")
            && !md.contains("The first recording:"),
        "{md}"
    );
    // Unchanged in the second recording: the CLI's own unsteadiness. Every report passes, and
    // drift.md shows what the first recording changed.
    write_recording(&corpus, s, &redraw_lines(s, &v, &mut rng));
    let steady = dir.path().join("steady");
    let outcome = judge_after(&steady, first);
    assert!(!outcome.report.summary.fails_gate());
    assert_eq!((outcome.changed, outcome.unsteady), (0, 1));
    assert!(summary_line(&outcome.report).starts_with("PASS: 4 fixtures: 4 passed, 0 failed"));
    let json: Value = serde_json::from_str(&read(&steady, "report.json")).unwrap();
    assert_eq!(json["summary"]["passed"], 4, "{}", json["summary"]);
    assert!(!read(&steady, "junit.xml").contains("<failure"));
    let md = read(&steady, "drift.md");
    assert!(
        md.contains("**PASS**: 4 scenario(s), 0 changed, 4 unchanged.")
            && md.contains(
                "## codex-exec-parallel: unchanged in a second recording; the first changed"
            )
            && md.contains("The first recording:")
            && md.contains("v22.1.0"),
        "{md}"
    );
}
