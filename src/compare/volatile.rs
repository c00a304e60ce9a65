//! What two recordings of one scripted session may differ in while nothing changed, left out of
//! the comparison in this one place. `scenario drift` (through verify's
//! [`CompareMode::Stable`](super::CompareMode::Stable)) and `scenario matrix` both compare through
//! [`stable_pair`], so they say the same of the same recordings.
//!
//! A document's stable form ([`stable_view`]) is the document with:
//!
//! - no `timing` on any part (wall-clock values);
//! - no `events`: each part carries its `lifecycle` instead, the states its events gave it in
//!   order, each once (the raw line numbers and the number of updates a part got are the run's);
//! - diagnostics without their raw line numbers;
//! - the values a CLI draws anew on every run masked: UUIDs (`<uuid>`), the values of `taskId`,
//!   `agentId`, `childSessionId` and `sessionId` (`<run-specific>`) wherever the document quotes
//!   them (and an `agentId: …` in text), the values of keys naming a time or a duration
//!   (`started_at_ms`, `createdAt`, `timestamp`, `duration_ms`, … → `<time>`; a `duration`
//!   written `{"secs": …, "nanos": …}` whole) or a process id
//!   (`pid`, `process_id` → `<pid>`) wherever they are, durations quoted in text
//!   (`duration_ms: 877`), the names of the files
//!   Claude spills long outputs into, Claude's scheduled-job ids and the name it gives the session
//!   for peer messages (and the one Qwen Code draws, `This session is named "work-e4"`), when a
//!   scheduled job runs next (`next run Dec 4 3:25am`), OpenCode
//!   session ids inside text (`ses_…`), Kilo's background process and wakeup ids (`bgp_…`,
//!   `wku_…`), wall-clock times and process ids quoted in text (ISO-8601, epoch milliseconds,
//!   `pid: 14771`, an `ls -l` listing's times), a time taken quoted in text with its fraction
//!   (Qwen Code's `from 127.0.0.1 in 0.2s`, `took 1.25 ms`; Copilot CLI's `elapsed: 0s` in a
//!   subagent's report, whole seconds that tick over on a loaded machine), and the suggestions a CLI gives for
//!   an unknown tool name (`Did you mean one of: "web_fetch", "grep_search", …?`: Qwen Code ranks
//!   them by distance and breaks ties in the order its tools registered, which varies by run);
//! - JSON objects quoted inside text written with their keys sorted (Claude quotes an MCP tool's
//!   input schema in a failed call's result with its keys in the order of the run).
//!
//! Then the parts are matched by what they are, not by their ids nor by their order, since a CLI
//! numbers items as they start (`codex exec`'s `item_N`) or draws ids at random (a plan's UUID),
//! and parallel calls start and finish in any order ([`stable_pair`]): each expected part takes
//! the first actual part not yet taken that is the same call in every respect but its id; then,
//! among the rest, the same tool with the same input (a call whose result changed); then the same
//! tool (a call whose input changed). Repeated calls pair in the order they came, which for a
//! scripted model is the order of its turns. The actual parts are put in the expected order (the
//! ones nothing matched after them), and each takes the id of the part it matched, references to
//! that id elsewhere in the parts (`metadata.parentToolUseId`) following it.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};

use super::{
    Comparison, FixtureDiff, Headers, canonical_json, changed_pointers, compare, formatting,
    line_diff,
};

/// The headers of a diff of two stable forms.
const STABLE_HEADERS: Headers = (
    "expected (volatile fields left out)",
    "actual (volatile fields left out)",
);

/// The key under which a part's stable form carries its lifecycle.
pub const LIFECYCLE: &str = "lifecycle";

/// Metadata keys whose values are ids drawn per run (Cline's team tools answer with the run's
/// `teamId` and `teamName`).
const RUN_SPECIFIC_KEYS: &[&str] = &[
    "taskId",
    "agentId",
    "childSessionId",
    "sessionId",
    "teamId",
    "teamName",
];

/// What a part's id becomes in a fingerprint, wherever it appears.
const ANY_PART: &str = "<part>";

/// Values every run makes up anew, found in text.
struct Masks {
    uuid: Regex,
    /// The files Claude spills long outputs into (`tool-results/b33xylmw8.txt`).
    spill_file: Regex,
    /// Claude's scheduled-job ids (`Scheduled recurring job 9c0c2af7`, `9c0c2af7 — Every day`).
    cron_job: Regex,
    /// The name a CLI gives the session: Claude's for peer messages (`This session is work-ea
    /// [dfea2f]`), the one Qwen Code draws (`This session is named "work-e4"`, its quotes kept).
    peer_name: Regex,
    /// A time taken quoted in text with its fraction (`in 0.2s`, `took 1.25 ms`), or named
    /// `elapsed:` (Copilot CLI's `read_agent`: `elapsed: 0s`, `1s` on a loaded machine).
    elapsed: Regex,
    /// The suggestions for an unknown tool name (`Did you mean one of: "a", "b", "c"?`).
    suggestions: Regex,
    /// OpenCode session ids inside text (a `task`'s `<task id="ses_…">`).
    opencode_session: Regex,
    /// Kilo's background process and wakeup ids inside text (`bgp_…`, `wku_…`).
    kilo_id: Regex,
    /// The plan file Kimi CLI names per session (`~/.kimi/plans/blade-wasp-jessica-cruz.md`).
    kimi_plan: Regex,
    /// Wall-clock times written into outputs: ISO-8601 (`due 2026-12-05T09:26:00.117Z`) and epoch
    /// milliseconds (`"observedAt":1796458961666`).
    clock: Regex,
    millis: Regex,
    /// A process id quoted in text (`pid: 14771`, `(PID: 11329)`).
    pid_in_text: Regex,
    /// The modification times of an `ls -l` listing (`Dec  5 09:08`).
    ls_time: Regex,
    /// An id drawn per run, named in text (`agentId: aeb5fbb2929d67da2`).
    id_in_text: Regex,
    /// A duration quoted in text (Claude's `<usage>… duration_ms: 877</usage>`).
    duration: Regex,
    /// When a scheduled job runs next: the day of the recording, and a time Claude jitters
    /// (`Next run: Dec 4 3:30am`).
    next_run: Regex,
}

static MASKS: LazyLock<Masks> = LazyLock::new(|| {
    let re = |p: &str| Regex::new(p).expect("a valid pattern");
    Masks {
        uuid: re(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
        spill_file: re(r"tool-results/[A-Za-z0-9_-]+\.txt"),
        cron_job: re(r"(?m)(job |^)[0-9a-f]{8}( \(| —)"),
        peer_name: re(r#"This session is (?:\S+ \[[0-9a-f]{6}\]|(named )"[^"]*")"#),
        elapsed: re(r"\b(?:(in|took) \d+\.\d+|(elapsed:) \d+(?:\.\d+)?) ?(?:s|ms)\b"),
        suggestions: re(r#"(Did you mean(?: one of)?:) "[^"]*"(?:, "[^"]*")*"#),
        opencode_session: re(r"\bses_[0-9A-Za-z]{20,}"),
        kilo_id: re(r"\b(bgp|wku)_[0-9A-Za-z]{20,}"),
        kimi_plan: re(r"(\.kimi/plans/)[a-z]+(?:-[a-z]+)*\.md"),
        clock: re(r"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z"),
        millis: re(r"\b1[6-9]\d{11}\b"),
        pid_in_text: re(r"(?i)\b(pid):? \d+"),
        ls_time: re(r"\b[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}\b"),
        id_in_text: re(
            r#"\b(agentId|agent_id|taskId|task_id)(\\?["']?\s*[:=]\s*\\?["']?)([A-Za-z0-9_-]{6,})"#,
        ),
        duration: re(
            r#"\b(duration_ms|durationMs|elapsed_ms|elapsedMs)(\\?["']?\s*[:=]\s*)[0-9]+"#,
        ),
        next_run: re(
            r"(?i)\b(next run:? )(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{1,2}(?: \d{1,2}:\d{2}(?:am|pm)?)?",
        ),
    }
});

/// Mask the values drawn per run in `v`, wherever they are (see the module's list).
pub fn mask_run_specific(v: &mut Value) {
    let drawn = run_drawn_ids(v);
    mask(v, &drawn);
}

/// The ids drawn per run that `v` names: the values of the run-specific keys, and the ids text
/// names (`agentId: …`), longest first (an id that holds another is masked whole).
fn run_drawn_ids(v: &Value) -> Vec<String> {
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => {
                for c in MASKS.id_in_text.captures_iter(s) {
                    out.push(c[3].to_owned());
                }
            }
            Value::Array(items) => items.iter().for_each(|x| walk(x, out)),
            Value::Object(o) => {
                for (k, x) in o {
                    match x {
                        Value::String(id) if RUN_SPECIFIC_KEYS.contains(&k.as_str()) => {
                            out.push(id.clone());
                        }
                        _ => walk(x, out),
                    }
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, &mut out);
    // Only what looks drawn: long enough, and a digit in it or too long for a word (Claude's
    // task lists number their tasks 1, 2, …, which text quotes in other senses).
    out.retain(|id| id.len() >= 6 && (id.len() >= 12 || id.bytes().any(|b| b.is_ascii_digit())));
    out.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    out.dedup();
    out
}

fn mask(v: &mut Value, drawn: &[String]) {
    let m = &*MASKS;
    match v {
        Value::String(s) => {
            let mut text = std::borrow::Cow::Borrowed(s.as_str());
            for id in drawn {
                if text.contains(id.as_str()) {
                    text = text.replace(id.as_str(), "<run-specific>").into();
                }
            }
            let masked = m.uuid.replace_all(&text, "<uuid>");
            let masked = m.spill_file.replace_all(&masked, "tool-results/<file>.txt");
            let masked = m.cron_job.replace_all(&masked, "${1}<job>${2}");
            let masked = m
                .peer_name
                .replace_all(&masked, |c: &regex::Captures| match c.get(1) {
                    Some(_) => "This session is named \"<peer-name>\"",
                    None => "This session is <peer-name>",
                });
            let masked = m.elapsed.replace_all(&masked, "${1}${2} <elapsed>");
            let masked = m.suggestions.replace_all(&masked, "$1 <suggestions>");
            let masked = m.opencode_session.replace_all(&masked, "<session>");
            let masked = m.kilo_id.replace_all(&masked, "<$1>");
            let masked = m.kimi_plan.replace_all(&masked, "${1}<plan>.md");
            let masked = m.clock.replace_all(&masked, "<time>");
            let masked = m.millis.replace_all(&masked, "<millis>");
            let masked = m.pid_in_text.replace_all(&masked, "$1: <pid>");
            let masked = m.ls_time.replace_all(&masked, "<mtime>");
            let masked = m.duration.replace_all(&masked, "${1}${2}<ms>");
            let masked = m.next_run.replace_all(&masked, "${1}<time>");
            let masked = sort_quoted_json(&masked);
            if masked != s.as_str() {
                *s = masked.into_owned();
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|x| mask(x, drawn)),
        Value::Object(o) => {
            for (k, x) in o.iter_mut() {
                let leaf = x.is_string() || x.is_number();
                if RUN_SPECIFIC_KEYS.contains(&k.as_str()) && x.is_string() {
                    *x = Value::String("<run-specific>".to_owned());
                } else if let Some(what) = volatile_key(k).filter(|_| leaf) {
                    *x = Value::String(what.to_owned());
                } else if is_measured_duration(k, x) {
                    *x = Value::String("<time>".to_owned());
                } else {
                    mask(x, drawn);
                }
            }
        }
        _ => {}
    }
}

/// What the value of key `k` is when it is the run's own: a time (`started_at_ms`, `createdAt`,
/// `timestamp`, `duration_ms`, …) or a process id (`pid`, `process_id`).
fn volatile_key(k: &str) -> Option<&'static str> {
    const TIME_SUFFIXES: &[&str] = &["_at", "_at_ms", "At", "AtMs"];
    const TIMES: &[&str] = &[
        "timestamp",
        "time",
        "duration_ms",
        "durationMs",
        "elapsed_ms",
        "elapsedMs",
        "wall_time",
        // Mistral Vibe's `wait`: when the wait ends, in epoch milliseconds.
        "deadline_unix_ms",
    ];
    if TIMES.contains(&k)
        || TIME_SUFFIXES
            .iter()
            .any(|s| k.ends_with(s) && k.len() > s.len())
    {
        Some("<time>")
    } else if matches!(k, "pid" | "process_id" | "processId") {
        Some("<pid>")
    } else {
        None
    }
}

/// A `duration` measured by the run, written as Rust writes a `Duration`: `{"secs": 0,
/// "nanos": 18936}` (the Codex ACP adapter's command results). How long a command took is the
/// machine's and the moment's; it cannot be pinned.
fn is_measured_duration(k: &str, v: &Value) -> bool {
    k == "duration"
        && v.as_object().is_some_and(|o| {
            !o.is_empty()
                && o.iter()
                    .all(|(k, v)| matches!(k.as_str(), "secs" | "nanos") && v.is_number())
        })
}

/// `text` with every JSON object quoted in it (`{"…`) written compactly with its keys sorted.
fn sort_quoted_json(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("{\"") {
        return text.into();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("{\"") {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let mut values = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        match values.next() {
            Some(Ok(v @ Value::Object(_))) => {
                let end = values.byte_offset();
                out.push_str(&sorted(v).to_string());
                rest = &rest[end..];
            }
            _ => {
                out.push('{');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out.into()
}

/// `v` with every object's keys in sorted order (whatever order the map type keeps).
fn sorted(v: Value) -> Value {
    match v {
        Value::Object(o) => {
            let mut entries: Vec<(String, Value)> = o.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

/// A normalized document's stable form (see the module's list); anything that is not a document
/// object is returned as it is.
pub fn stable_view(doc: &Value) -> Value {
    view_masking(doc, &drawn_in(doc))
}

/// The ids drawn per run that a document's parts name.
fn drawn_in(doc: &Value) -> Vec<String> {
    doc.get("parts").map(run_drawn_ids).unwrap_or_default()
}

/// [`stable_view`], masking the ids in `drawn` wherever the document quotes them.
fn view_masking(doc: &Value, drawn: &[String]) -> Value {
    let Some(obj) = doc.as_object() else {
        return doc.clone();
    };
    let mut lifecycles: HashMap<&str, Vec<Value>> = HashMap::new();
    for e in obj
        .get("events")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let (Some(id), Some(state)) = (e.get("partId").and_then(Value::as_str), e.get("state"))
        else {
            continue;
        };
        let states = lifecycles.entry(id).or_default();
        if states.last() != Some(state) {
            states.push(state.clone());
        }
    }
    let mut out = Map::new();
    for (key, value) in obj {
        let stable = match (key.as_str(), value) {
            ("events", _) => continue,
            ("parts", Value::Array(parts)) => Value::Array(
                parts
                    .iter()
                    .map(|p| {
                        let id = p.get("id").and_then(Value::as_str).unwrap_or_default();
                        stable_part(p, lifecycles.remove(id), drawn)
                    })
                    .collect(),
            ),
            ("diagnostics", Value::Array(diagnostics)) => Value::Array(
                diagnostics
                    .iter()
                    .map(|d| {
                        let mut d = d.clone();
                        if let Some(o) = d.as_object_mut() {
                            o.remove("line");
                        }
                        mask(&mut d, drawn);
                        d
                    })
                    .collect(),
            ),
            _ => value.clone(),
        };
        out.insert(key.clone(), stable);
    }
    Value::Object(out)
}

fn stable_part(part: &Value, lifecycle: Option<Vec<Value>>, drawn: &[String]) -> Value {
    let mut p = part.clone();
    if let Some(o) = p.as_object_mut() {
        o.remove("timing");
        if let Some(states) = lifecycle {
            o.insert(LIFECYCLE.to_owned(), Value::Array(states));
        }
    }
    mask(&mut p, drawn);
    p
}

/// The stable forms of an expected and an actual document, the actual parts matched to the
/// expected ones and put in their order, with their ids (see the module's doc). The two are
/// equal exactly when nothing but volatile fields differ.
pub fn stable_pair(expected: &Value, actual: &Value) -> (Value, Value) {
    // An id either side names is masked on both: a part that one side lacks still masks the
    // ids the other side's text quotes from it.
    let mut drawn = drawn_in(expected);
    drawn.extend(drawn_in(actual));
    drawn.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    drawn.dedup();
    let old = view_masking(expected, &drawn);
    let mut new = view_masking(actual, &drawn);
    align(&old, &mut new);
    (old, new)
}

/// The diff of two documents' stable forms (expected → actual); `None` when they are the same.
pub fn diff_stable(expected: &Value, actual: &Value) -> Option<FixtureDiff> {
    let (old, new) = stable_pair(expected, actual);
    if old == new {
        return None;
    }
    let (old_text, new_text) = (canonical_json(&old), canonical_json(&new));
    let lines = line_diff(&old_text, &new_text, STABLE_HEADERS);
    let mut changed_paths = Vec::new();
    changed_pointers(&old, &new, &mut String::new(), &mut changed_paths);
    Some(FixtureDiff {
        unified: lines.unified,
        changed_paths,
        invisible: Vec::new(),
        rows: lines.rows,
        added: lines.added,
        removed: lines.removed,
        expected_bytes: old_text.len() as u64,
        actual_bytes: new_text.len() as u64,
    })
}

/// [`compare`] of the two documents' stable forms: the same stable form is
/// [`Comparison::Same`], however the files are written; a different one is the diff of the
/// stable forms. An expected file or output that is not one JSON document is compared as it is.
pub fn compare_stable(expected: &[u8], actual: &str) -> Comparison {
    let visible = formatting::visible(expected);
    let old = if visible.utf8 {
        serde_json::from_str::<Value>(&visible.text).ok()
    } else {
        None
    };
    let (Some(old), Ok(new)) = (old, serde_json::from_str::<Value>(actual)) else {
        return compare(expected, actual);
    };
    match diff_stable(&old, &new) {
        None => Comparison::Same,
        Some(mut d) => {
            d.expected_bytes = expected.len() as u64;
            d.actual_bytes = actual.len() as u64;
            Comparison::Differs(d)
        }
    }
}

/// How closely two parts must agree to be matched, in the order the passes try.
#[derive(Clone, Copy)]
enum Likeness {
    /// The same in every respect but the ids.
    Same,
    /// The same tool with the same input.
    Call,
    /// The same tool.
    Tool,
}

impl Likeness {
    fn key(self, part: &Value, ids: &HashSet<String>) -> String {
        match self {
            Likeness::Same => {
                let mut p = part.clone();
                if let Some(o) = p.as_object_mut() {
                    o.remove("id");
                }
                canonical_json(&without_ids(p, ids))
            }
            Likeness::Call => {
                let call = Value::Array(vec![
                    part.get("name").cloned().unwrap_or(Value::Null),
                    part.get("input").cloned().unwrap_or(Value::Null),
                ]);
                canonical_json(&without_ids(call, ids))
            }
            Likeness::Tool => canonical_json(part.get("name").unwrap_or(&Value::Null)),
        }
    }
}

fn id_of(part: &Value) -> Option<&str> {
    part.get("id").and_then(Value::as_str)
}

/// `v` with every string that is one of `ids` replaced by [`ANY_PART`].
fn without_ids(mut v: Value, ids: &HashSet<String>) -> Value {
    fn walk(v: &mut Value, ids: &HashSet<String>) {
        match v {
            Value::String(s) if ids.contains(s.as_str()) => *s = ANY_PART.to_owned(),
            Value::Array(items) => items.iter_mut().for_each(|x| walk(x, ids)),
            Value::Object(o) => o.values_mut().for_each(|x| walk(x, ids)),
            _ => {}
        }
    }
    walk(&mut v, ids);
    v
}

/// Every string of `v` that `renamed` maps, replaced by what it maps to.
fn rename(v: &mut Value, renamed: &HashMap<String, String>) {
    match v {
        Value::String(s) => {
            if let Some(to) = renamed.get(s.as_str()) {
                *s = to.clone();
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|x| rename(x, renamed)),
        Value::Object(o) => o.values_mut().for_each(|x| rename(x, renamed)),
        _ => {}
    }
}

/// Match `new`'s parts to `old`'s (see the module's doc), put them in `old`'s order and give
/// them the ids of the parts they match.
fn align(old: &Value, new: &mut Value) {
    let Some(old_parts) = old.get("parts").and_then(Value::as_array) else {
        return;
    };
    let Some(slot) = new.get_mut("parts").and_then(Value::as_array_mut) else {
        return;
    };
    let new_parts = std::mem::take(slot);
    let ids = |parts: &[Value]| -> HashSet<String> {
        parts.iter().filter_map(id_of).map(str::to_owned).collect()
    };
    let (old_ids, new_ids) = (ids(old_parts), ids(&new_parts));
    let mut match_of_old: Vec<Option<usize>> = vec![None; old_parts.len()];
    let mut matched_new = vec![false; new_parts.len()];
    for likeness in [Likeness::Same, Likeness::Call, Likeness::Tool] {
        let mut waiting: HashMap<String, VecDeque<usize>> = HashMap::new();
        for (j, p) in new_parts
            .iter()
            .enumerate()
            .filter(|(j, _)| !matched_new[*j])
        {
            waiting
                .entry(likeness.key(p, &new_ids))
                .or_default()
                .push_back(j);
        }
        for (i, p) in old_parts.iter().enumerate() {
            if match_of_old[i].is_some() {
                continue;
            }
            let key = likeness.key(p, &old_ids);
            if let Some(j) = waiting.get_mut(&key).and_then(VecDeque::pop_front) {
                match_of_old[i] = Some(j);
                matched_new[j] = true;
            }
        }
    }
    let mut renamed: HashMap<String, String> = HashMap::new();
    for (i, j) in match_of_old.iter().enumerate() {
        if let (Some(j), Some(to)) = (j, id_of(&old_parts[i]))
            && let Some(from) = id_of(&new_parts[*j]).filter(|from| *from != to)
        {
            renamed.insert(from.to_owned(), to.to_owned());
        }
    }
    let mut slots: Vec<Option<Value>> = new_parts.into_iter().map(Some).collect();
    let mut aligned: Vec<Value> = match_of_old
        .iter()
        .flatten()
        .filter_map(|&j| slots[j].take())
        .collect();
    aligned.extend(slots.into_iter().flatten());
    if !renamed.is_empty() {
        aligned.iter_mut().for_each(|p| rename(p, &renamed));
    }
    *slot = aligned;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_measured_duration_is_masked_whole_and_other_durations_kept() {
        let mut v = json!({"output": {"duration": {"secs": 0, "nanos": 18936}, "exit_code": 0},
            "config": {"duration": {"secs": 5, "unit": "s"}}, "other": {"duration": "5m"}});
        mask_run_specific(&mut v);
        assert_eq!(
            v,
            json!({"output": {"duration": "<time>", "exit_code": 0},
                "config": {"duration": {"secs": 5, "unit": "s"}}, "other": {"duration": "5m"}})
        );
    }

    #[test]
    fn kimis_plan_file_is_masked() {
        let mut v =
            json!("Plan mode activated.\nPlan file: ~/.kimi/plans/blade-wasp-jessica-cruz.md\n");
        mask_run_specific(&mut v);
        assert_eq!(
            v,
            json!("Plan mode activated.\nPlan file: ~/.kimi/plans/<plan>.md\n")
        );
    }

    #[test]
    fn run_drawn_ids_are_masked_and_the_rest_is_kept() {
        let mut v = json!([{
            "metadata": {"taskId": "b564ksn9j", "agentId": "a0fa21e9ab968d5ea", "exitCode": 1},
            "input": {"timeout_ms": 1000, "deadline_unix_ms": 1796638265972_u64},
            "output": "saved to: ~/.claude/projects/-work/2c11d583-be27-4965-86bd-9ab02abedd40/tool-results/b33xylmw8.txt\nline 2",
            "title": "Running seq 1 60000",
            "more": ["Scheduled recurring job 9c0c2af7 (Every day at 3:00 AM).",
                "9c0c2af7 — Every day at 3:00 AM", "This session is work-ea [dfea2f] — the name",
                "commit 9c0c2af7 is fine", "<task id=\"ses_dc18213f7ffeFKObezShcJblcV\" state",
                "Next run: Dec 4 3:30am", "next run Nov 30 3:30am: check",
                "id: bgp_2454f02ca0018zOHg1qPV1DQeT\npid: 14771", "due 2026-12-05T09:26:00.117Z (in 60m)",
                "Background process started (PID: 11329)",
                "drwxr-xr-x 2 root root 4096 Dec  5 09:08 .",
                // The scratch folder is the same path on every machine (the scenario sandbox):
                // a title that cuts it short is no volatile field.
                "Viewing ...rm-scenario/copilot-acp-files/work/CHANGELOG.md",
                "This session is named \"work-e4\".", "Received 91 bytes (200 OK) from 127.0.0.1 in 0.2s",
                "took 12.5 ms; in 3 steps; in 2s",
                "status: idle, description: Count, elapsed: 1s, total_turns: 2",
                "Tool \"web_search\" not found in registry. Did you mean one of: \"web_fetch\", \"grep_search\", \"tool_search\"?",
                "{\"observedAt\":1796458961666,\"n\":1234567}",
                "schema: {\"type\":\"object\",\"properties\":{\"url\":{\"type\":\"string\"}}} and {\"x\" not JSON {\"b\":1,\"a\":[{\"d\":1,\"c\":2}]}"]
        }]);
        mask_run_specific(&mut v);
        assert_eq!(
            v,
            json!([{
                "metadata": {"taskId": "<run-specific>", "agentId": "<run-specific>", "exitCode": 1},
                "input": {"timeout_ms": 1000, "deadline_unix_ms": "<time>"},
                "output": "saved to: ~/.claude/projects/-work/<uuid>/tool-results/<file>.txt\nline 2",
                "title": "Running seq 1 60000",
                "more": ["Scheduled recurring job <job> (Every day at 3:00 AM).",
                    "<job> — Every day at 3:00 AM", "This session is <peer-name> — the name",
                    "commit 9c0c2af7 is fine", "<task id=\"<session>\" state",
                    "Next run: <time>", "next run <time>: check",
                    "id: <bgp>\npid: <pid>", "due <time> (in 60m)",
                    "Background process started (PID: <pid>)",
                    "drwxr-xr-x 2 root root 4096 <mtime> .",
                    "Viewing ...rm-scenario/copilot-acp-files/work/CHANGELOG.md",
                    "This session is named \"<peer-name>\".", "Received 91 bytes (200 OK) from 127.0.0.1 in <elapsed>",
                    "took <elapsed>; in 3 steps; in 2s",
                    "status: idle, description: Count, elapsed: <elapsed>, total_turns: 2",
                    "Tool \"web_search\" not found in registry. Did you mean one of: <suggestions>?",
                    "{\"observedAt\":<millis>,\"n\":1234567}",
                    "schema: {\"properties\":{\"url\":{\"type\":\"string\"}},\"type\":\"object\"} and {\"x\" not JSON {\"a\":[{\"c\":2,\"d\":1}],\"b\":1}"]
            }])
        );
    }

    fn part(id: &str, command: &str, output: &str) -> Value {
        json!({"id": id, "name": "commandExecution", "kind": "bash", "state": "complete",
            "title": format!("Running {command}"), "input": {"command": command},
            "output": output, "timing": {"startedAt": 17, "elapsedMs": 3}})
    }

    fn doc(parts: Vec<Value>) -> Value {
        let events: Vec<Value> = parts
            .iter()
            .enumerate()
            .flat_map(|(i, p)| {
                let id = p["id"].clone();
                [
                    json!({"line": 2 * i + 1, "partId": id, "state": "running"}),
                    json!({"line": 2 * i + 2, "partId": id, "state": "running"}),
                    json!({"line": 2 * i + 3, "partId": id, "state": "complete"}),
                ]
            })
            .collect();
        json!({"schemaVersion": 1, "provider": "codex", "dialect": "exec", "parts": parts,
            "events": events, "diagnostics": [{"line": 9, "level": "warning", "message": "m"}]})
    }

    #[test]
    fn ids_numbered_as_calls_start_and_their_order_are_not_differences() {
        // `codex exec` numbers items as they start; parallel commands start in any order.
        let committed = doc(vec![
            part("item_1", "cat a", "A"),
            part("item_2", "node --version", "v20"),
            part("item_3", "grep name package.json", "x"),
        ]);
        let again = doc(vec![
            part("item_1", "cat a", "A"),
            part("item_2", "grep name package.json", "x"),
            part("item_3", "node --version", "v20"),
        ]);
        assert_eq!(diff_stable(&committed, &again), None);
        let (old, new) = stable_pair(&committed, &again);
        assert_eq!(old, new);
        // Timing, events and lines are out; each part has its lifecycle, each state once.
        assert_eq!(old["parts"][1]["lifecycle"], json!(["running", "complete"]));
        assert!(old["parts"][1].get("timing").is_none() && old.get("events").is_none());
        assert_eq!(
            old["diagnostics"],
            json!([{"level": "warning", "message": "m"}])
        );
    }

    #[test]
    fn references_follow_the_ids_they_name() {
        let agent = |id: &str| json!({"id": id, "name": "Agent", "input": {"prompt": "p"}});
        let child = |id: &str, parent: &str| {
            json!({"id": id, "name": "Bash", "input": {"command": "ls"},
                "metadata": {"parentToolUseId": parent}})
        };
        let committed = doc(vec![agent("a1"), child("c1", "a1")]);
        // The same calls under other ids, the child first.
        let again = doc(vec![child("x9", "x8"), agent("x8")]);
        assert_eq!(diff_stable(&committed, &again), None);
        // A child now under no agent is a change, shown against the committed ids.
        let orphaned = doc(vec![agent("x8"), child("x9", "elsewhere")]);
        let d = diff_stable(&committed, &orphaned).expect("a change");
        assert_eq!(d.changed_paths, ["/parts/1/metadata/parentToolUseId"]);
        assert!(
            d.unified.contains("-        \"parentToolUseId\": \"a1\""),
            "{}",
            d.unified
        );
    }

    #[test]
    fn a_changed_call_is_shown_in_place_and_an_extra_one_at_the_end() {
        let committed = doc(vec![part("i1", "ls", "a"), part("i2", "pwd", "/w")]);
        // The second call's output changed, the first call's input, and a call was added.
        let changed = doc(vec![
            part("j1", "ls -l", "a"),
            part("j2", "pwd", "/x"),
            part("j3", "date", "now"),
        ]);
        let d = diff_stable(&committed, &changed).expect("a change");
        assert_eq!(
            d.changed_paths,
            [
                "/parts/0/input/command",
                "/parts/0/title",
                "/parts/1/output",
                "/parts/2"
            ]
        );
        assert!(d.unified.starts_with(
            "--- expected (volatile fields left out)\n+++ actual (volatile fields left out)\n"
        ));
        // The committed ids name the parts that were matched.
        let (_, new) = stable_pair(&committed, &changed);
        assert_eq!(new["parts"][0]["id"], "i1");
        assert_eq!(new["parts"][1]["id"], "i2");
        assert_eq!(new["parts"][2]["id"], "j3");
    }

    #[test]
    fn a_lost_call_and_a_new_lifecycle_are_changes() {
        let committed = doc(vec![part("i1", "ls", "a"), part("i2", "pwd", "/w")]);
        let lost = doc(vec![part("i1", "ls", "a")]);
        assert_eq!(
            diff_stable(&committed, &lost).unwrap().changed_paths,
            ["/parts/1"]
        );
        let mut quicker = committed.clone();
        quicker["events"] = json!([
            {"line": 1, "partId": "i1", "state": "complete"},
            {"line": 2, "partId": "i2", "state": "running"},
            {"line": 3, "partId": "i2", "state": "complete"}
        ]);
        assert_eq!(
            diff_stable(&committed, &quicker).unwrap().changed_paths,
            ["/parts/0/lifecycle/0", "/parts/0/lifecycle/1"]
        );
    }

    #[test]
    fn expected_files_compare_by_their_stable_form() {
        let committed = doc(vec![part("item_1", "ls", "a"), part("item_2", "pwd", "/w")]);
        let again = doc(vec![part("item_1", "pwd", "/w"), part("item_2", "ls", "a")]);
        let written = serde_json::to_string(&committed).unwrap();
        assert_eq!(
            compare_stable(written.as_bytes(), &canonical_json(&again)),
            Comparison::Same
        );
        let mut changed = again.clone();
        changed["parts"][0]["output"] = json!("/elsewhere");
        match compare_stable(written.as_bytes(), &canonical_json(&changed)) {
            Comparison::Differs(d) => assert_eq!(d.changed_paths, ["/parts/1/output"]),
            other => panic!("{other:?}"),
        }
        // Not JSON: compared as it is.
        assert!(matches!(
            compare_stable(b"{", &canonical_json(&again)),
            Comparison::Differs(_)
        ));
    }
}
