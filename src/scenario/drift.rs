//! `scenario drift`: re-record one CLI's scenarios with another version into a temporary corpus
//! and verify them against the current expected outputs, so the report shows exactly what the new
//! version changed.
//!
//! Two recordings of one scenario always differ in wall-clock values (a tool's `timing`), so beside
//! verify's full report drift writes `drift.md`: per scenario, the diff of the normalized parts of
//! the committed fixture and of the new one with `timing` left out and the ids each run draws anew
//! masked — only what the release changed.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde_json::Value;

use super::launch::RunOptions;
use super::run::run_scenario;
use super::spec::{Cli, Scenario};
use crate::report::{self, Report};
use crate::verify::{Selection, VerifyOptions, verify};

#[derive(Debug, Clone)]
pub struct DriftOptions {
    /// `NAME@VERSION`.
    pub cli: String,
    pub names: Vec<String>,
    pub expected: PathBuf,
    pub reports: PathBuf,
    /// Keep the new recordings here (default: a temporary folder, removed afterwards).
    pub corpus: Option<PathBuf>,
    /// Verify strictly (see `toolnorm verify --strict`).
    pub strict: bool,
}

/// What a drift check found: how many scenarios the release changed, and verify's report of the
/// new recordings (written under the reports folder with `drift.md`).
#[derive(Debug)]
pub struct DriftOutcome {
    pub scenarios: usize,
    pub changed: usize,
    pub report: Report,
}

/// Split `claude@2.1.198` into the CLI and the version.
pub fn parse_cli_spec(spec: &str) -> anyhow::Result<(Cli, String)> {
    let (name, version) = spec.rsplit_once('@').filter(|(n, v)| !n.is_empty() && !v.is_empty()).with_context(|| {
        format!("--cli {spec:?}: expected NAME@VERSION, e.g. claude@2.1.198, codex@0.172.0, opencode@1.18.34")
    })?;
    let cli = Cli::parse(name).with_context(|| {
        format!("--cli {spec:?}: unknown CLI {name:?} (claude, codex, opencode, claude-agent-acp or codex-acp)")
    })?;
    Ok((cli, version.to_owned()))
}

/// The scenarios of `cli` named in `names` (`live-` prefix allowed), or all of its scenarios when
/// none is named; none at all is an error.
pub(crate) fn choose<'a>(
    all: &'a [Scenario],
    cli: Cli,
    names: &[String],
) -> anyhow::Result<Vec<&'a Scenario>> {
    let chosen: Vec<&Scenario> = all
        .iter()
        .filter(|s| s.agent.cli() == cli)
        .filter(|s| {
            names.is_empty()
                || names
                    .iter()
                    .any(|n| n.strip_prefix("live-").unwrap_or(n) == s.name)
        })
        .collect();
    if chosen.is_empty() {
        bail!("no scenario of {} matches", cli.display());
    }
    Ok(chosen)
}

/// Run the drift check.
pub fn run(all: &[Scenario], opts: &DriftOptions) -> anyhow::Result<DriftOutcome> {
    let (cli, version) = parse_cli_spec(&opts.cli)?;
    let chosen = choose(all, cli, &opts.names)?;
    let temp = std::env::temp_dir().join(format!("toolnorm-drift-{}", std::process::id()));
    let corpus = opts.corpus.clone().unwrap_or_else(|| temp.join("corpus"));
    let expected = temp.join("expected");
    fs::create_dir_all(&expected)
        .with_context(|| format!("failed to create {}", expected.display()))?;

    let run_opts = RunOptions {
        corpus: corpus.clone(),
        force: true,
        keep_scratch: false,
        request_logs: Some(opts.reports.join("requests")),
        version_override: Some(version.clone()),
        raw: false,
    };
    let mut recorded = 0;
    let mut summary = String::new();
    let mut changed = 0usize;
    for s in &chosen {
        eprintln!("re-recording {} with {}@{version}", s.name, cli.display());
        match run_scenario(s, &run_opts) {
            Ok(o) => {
                for p in &o.problems {
                    eprintln!("  problem: {p}");
                }
                // Verify compares only what was re-recorded: copy just these expected files.
                let rel = Path::new(s.agent.provider()).join(format!("{}.json", s.fixture_name()));
                let from = opts.expected.join(&rel);
                if from.exists() {
                    let to = expected.join(&rel);
                    if let Some(p) = to.parent() {
                        fs::create_dir_all(p)
                            .with_context(|| format!("failed to create {}", p.display()))?;
                    }
                    fs::copy(&from, &to)
                        .with_context(|| format!("failed to copy {}", from.display()))?;
                } else {
                    eprintln!(
                        "  note: no expected output {} yet; verify reports it as new",
                        from.display()
                    );
                }
                recorded += 1;
                let old = Path::new("corpus")
                    .join(s.agent.provider())
                    .join(format!("{}.jsonl.zst", s.fixture_name()));
                let section = compare(&old, &o.fixture, &s.name);
                if section.changed {
                    changed += 1;
                }
                eprintln!(
                    "  {}",
                    if section.changed {
                        "changed"
                    } else {
                        "unchanged"
                    }
                );
                summary.push_str(&section.text);
            }
            Err(e) => {
                summary.push_str(&format!("## {}\n\nnot re-recorded: {e:#}\n\n", s.name));
                changed += 1;
                eprintln!("  error: {}: {e:#}", s.name);
            }
        }
    }
    if recorded == 0 {
        bail!(
            "no scenario could be re-recorded with {}@{version}",
            cli.display()
        );
    }
    fs::create_dir_all(&opts.reports)
        .with_context(|| format!("failed to create {}", opts.reports.display()))?;
    let head = format!(
        "# Drift: {} {version}\n\n{} scenario(s), {changed} changed. Normalized parts of the committed fixture (`-`) against the new recording (`+`), `timing` left out.\n\n",
        cli.display(),
        chosen.len()
    );
    let drift_md = opts.reports.join("drift.md");
    fs::write(&drift_md, format!("{head}{summary}"))
        .with_context(|| format!("failed to write {}", drift_md.display()))?;
    println!("{head}{summary}");
    let verified = verify(
        &VerifyOptions {
            implementation: std::sync::Arc::new(
                crate::verify::implementation::Implementation::BuiltIn,
            ),
            require_all: false,
            corpus: corpus.clone(),
            expected: expected.clone(),
            reports: opts.reports.clone(),
            expectations: PathBuf::from("expectations.toml"),
            expectations_required: false,
            jobs: 0,
            selection: Selection::default(),
            fail_fast: false,
            strict: opts.strict,
            write_pending: true,
        },
        &|_| {},
        &|_| {},
    );
    if opts.corpus.is_none() {
        let _ = fs::remove_dir_all(&temp);
    } else {
        let _ = fs::remove_dir_all(&expected);
    }
    let report = verified.context("failed to verify the new recordings")?;
    report::write_all(&report, &opts.reports)?;
    eprintln!(
        "drift of {}@{version}: {changed} of {} scenario(s) changed; {} (verify's full report, rules included: index.html)",
        cli.display(),
        chosen.len(),
        drift_md.display(),
    );
    Ok(DriftOutcome {
        scenarios: chosen.len(),
        changed,
        report,
    })
}

/// One scenario's section of `drift.md`.
pub(crate) struct Section {
    pub(crate) changed: bool,
    pub(crate) text: String,
}

/// Diff the normalized parts (without `timing`) of the committed and the new fixture.
pub(crate) fn compare(old: &Path, new: &Path, name: &str) -> Section {
    let (a, b) = match (parts_of(old), parts_of(new)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) => {
            let text = format!("## {name}\n\nno committed fixture to compare: {e:#}\n\n");
            return Section {
                changed: true,
                text,
            };
        }
        (_, Err(e)) => {
            let text = format!("## {name}\n\nthe new recording does not normalize: {e:#}\n\n");
            return Section {
                changed: true,
                text,
            };
        }
    };
    let (b, reordered) = align(&a, b);
    let order_note = if reordered {
        "The same calls appear in another order (parallel calls finish in any order); the new parts are shown in the committed order.\n\n"
    } else {
        ""
    };
    let (a, b) = (pretty(&a), pretty(&b));
    if a == b {
        return Section {
            changed: false,
            text: format!("## {name}\n\nunchanged\n\n{order_note}"),
        };
    }
    let diff = similar::TextDiff::from_lines(&a, &b);
    let body = diff
        .unified_diff()
        .context_radius(3)
        .header("committed", "new")
        .to_string();
    Section {
        changed: true,
        text: format!("## {name}\n\n{order_note}```diff\n{body}```\n\n"),
    }
}

/// What identifies one call across two runs: the tool and the input the scripted model gave it
/// (ids may be numbered in order of appearance, so they are not part of it).
fn call_key(part: &Value) -> (Option<&Value>, Option<&Value>) {
    (part.get("name"), part.get("input"))
}

/// Put the new parts in the committed order: each committed part takes the first unused new part
/// of the same call, the new parts nobody took follow in their own order. Returns the parts and
/// whether that changed their order.
fn align(old: &[Value], new: Vec<Value>) -> (Vec<Value>, bool) {
    let mut slots: Vec<Option<Value>> = new.into_iter().map(Some).collect();
    let mut aligned = Vec::with_capacity(slots.len());
    // The order changed as soon as some part lands at another position than it had.
    let mut reordered = false;
    for part in old {
        let key = call_key(part);
        let found = slots
            .iter()
            .position(|s| s.as_ref().is_some_and(|p| call_key(p) == key));
        if let Some(i) = found {
            reordered |= i != aligned.len();
            aligned.extend(slots[i].take());
        }
    }
    for (i, part) in slots.into_iter().enumerate() {
        if let Some(part) = part {
            reordered |= i != aligned.len();
            aligned.push(part);
        }
    }
    (aligned, reordered)
}

fn pretty(parts: &[Value]) -> String {
    serde_json::to_string_pretty(parts).unwrap_or_default() + "\n"
}

/// The normalized parts of a fixture, wall-clock `timing` removed and run-drawn ids masked.
pub(crate) fn parts_of(path: &Path) -> anyhow::Result<Vec<Value>> {
    use crate::dialects::normalize;
    use crate::providers::NormalizeOptions;
    use crate::stream::{Dialect, Provider};
    let stream = crate::corpus::load_stream(path)?;
    let mut opts = NormalizeOptions {
        cwd: stream.cwd.as_deref(),
        ..NormalizeOptions::default()
    };
    if let (Some(p), Some(d)) = (&stream.provider, &stream.dialect) {
        let p: Provider = p.parse().map_err(anyhow::Error::msg)?;
        opts.provider = Some(p);
        opts.dialect = Dialect::parse(d, Some(p)).ok();
    }
    let input = stream.input();
    let doc = normalize(&input, opts).with_context(|| format!("{}", path.display()))?;
    let re = RunSpecific::new();
    let mut parts = Vec::with_capacity(doc.parts.len());
    for p in &doc.parts {
        let mut v = serde_json::to_value(p)?;
        if let Some(o) = v.as_object_mut() {
            o.remove("timing");
        }
        mask_run_specific(&mut v, &re);
        parts.push(v);
    }
    Ok(parts)
}

/// Values every run makes up anew: ids of background tasks, subagents and child sessions, session
/// UUIDs and the names of files a CLI spills long outputs into. Masked on both sides so the drift
/// diff shows what the release changed, not what the run happened to draw.
struct RunSpecific {
    uuid: regex::Regex,
    spill_file: regex::Regex,
    /// Claude's scheduled-job ids (`Scheduled recurring job 9c0c2af7`, `9c0c2af7 — Every day`).
    cron_job: regex::Regex,
    /// The name Claude gives the session for peer messages (`This session is work-ea [dfea2f]`).
    peer_name: regex::Regex,
    /// OpenCode session ids inside text (a `task`'s `<task id="ses_…">`), and Kilo's background
    /// process and wakeup ids (`bgp_…`, `wku_…`).
    opencode_session: regex::Regex,
    /// Wall-clock times written into outputs: ISO-8601 (`due 2026-12-05T09:26:00.117Z`) and epoch
    /// milliseconds (`"observedAt":1796458961666`), and process ids (`pid: 14771`).
    clock: regex::Regex,
    millis: regex::Regex,
    pid: regex::Regex,
    /// The modification times of an `ls -l` listing (`Dec  5 09:08`).
    ls_time: regex::Regex,
    /// A scratch folder's name cut short by an agent's own title (`...lot-acp-files-19916-645878938/`,
    /// too mangled to fold): its run-drawn process id and nanoseconds.
    scratch_tail: regex::Regex,
}

/// Metadata keys whose values are ids drawn per run.
const RUN_SPECIFIC_KEYS: &[&str] = &["taskId", "agentId", "childSessionId", "sessionId"];

impl RunSpecific {
    fn new() -> Self {
        RunSpecific {
            uuid: regex::Regex::new(
                r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
            )
            .expect("a valid pattern"),
            spill_file: regex::Regex::new(r"tool-results/[A-Za-z0-9_-]+\.txt")
                .expect("a valid pattern"),
            cron_job: regex::Regex::new(r"(?m)(job |^)[0-9a-f]{8}( \(| —)")
                .expect("a valid pattern"),
            peer_name: regex::Regex::new(r"This session is \S+ \[[0-9a-f]{6}\]")
                .expect("a valid pattern"),
            opencode_session: regex::Regex::new(r"\b(ses|bgp|wku)_[0-9A-Za-z]{20,}")
                .expect("a valid pattern"),
            clock: regex::Regex::new(r"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z")
                .expect("a valid pattern"),
            millis: regex::Regex::new(r"\b1[6-9]\d{11}\b").expect("a valid pattern"),
            pid: regex::Regex::new(r"(?i)\b(pid):? \d+").expect("a valid pattern"),
            ls_time: regex::Regex::new(r"\b[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}\b")
                .expect("a valid pattern"),
            scratch_tail: regex::Regex::new(r"\.\.\.[A-Za-z0-9._-]*-\d+-\d{5,}/")
                .expect("a valid pattern"),
        }
    }
}

fn mask_run_specific(v: &mut Value, re: &RunSpecific) {
    match v {
        Value::String(s) => {
            let masked = re.uuid.replace_all(s, "<uuid>");
            let masked = re
                .spill_file
                .replace_all(&masked, "tool-results/<file>.txt");
            let masked = re.cron_job.replace_all(&masked, "${1}<job>${2}");
            let masked = re
                .peer_name
                .replace_all(&masked, "This session is <peer-name>");
            let masked = re.opencode_session.replace_all(&masked, "<$1>");
            let masked = re.clock.replace_all(&masked, "<time>");
            let masked = re.millis.replace_all(&masked, "<millis>");
            let masked = re.pid.replace_all(&masked, "$1: <pid>");
            let masked = re.ls_time.replace_all(&masked, "<mtime>");
            let masked = re.scratch_tail.replace_all(&masked, ".../<scratch>/");
            if masked != s.as_str() {
                *s = masked.into_owned();
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|x| mask_run_specific(x, re)),
        Value::Object(o) => {
            for (k, x) in o.iter_mut() {
                if RUN_SPECIFIC_KEYS.contains(&k.as_str()) && x.is_string() {
                    *x = Value::String("<run-specific>".to_owned());
                } else {
                    mask_run_specific(x, re);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn run_drawn_ids_are_masked_and_the_rest_is_kept() {
        let mut v = json!([{
            "metadata": {"taskId": "b564ksn9j", "agentId": "a0fa21e9ab968d5ea", "exitCode": 1},
            "output": "saved to: ~/.claude/projects/-work/2c11d583-be27-4965-86bd-9ab02abedd40/tool-results/b33xylmw8.txt\nline 2",
            "title": "Running seq 1 60000",
            "more": ["Scheduled recurring job 9c0c2af7 (Every day at 3:00 AM).",
                "9c0c2af7 — Every day at 3:00 AM", "This session is work-ea [dfea2f] — the name",
                "commit 9c0c2af7 is fine", "<task id=\"ses_dc18213f7ffeFKObezShcJblcV\" state",
                "id: bgp_2454f02ca0018zOHg1qPV1DQeT\npid: 14771", "due 2026-12-05T09:26:00.117Z (in 60m)",
                "Background process started (PID: 11329)",
                "drwxr-xr-x 2 root root 4096 Dec  5 09:08 .",
                "Viewing ...lot-acp-files-19916-645878938/work/CHANGELOG.md",
                "{\"observedAt\":1796458961666,\"n\":1234567}"]
        }]);
        mask_run_specific(&mut v, &RunSpecific::new());
        assert_eq!(
            v,
            json!([{
                "metadata": {"taskId": "<run-specific>", "agentId": "<run-specific>", "exitCode": 1},
                "output": "saved to: ~/.claude/projects/-work/<uuid>/tool-results/<file>.txt\nline 2",
                "title": "Running seq 1 60000",
                "more": ["Scheduled recurring job <job> (Every day at 3:00 AM).",
                    "<job> — Every day at 3:00 AM", "This session is <peer-name> — the name",
                    "commit 9c0c2af7 is fine", "<task id=\"<ses>\" state",
                    "id: <bgp>\npid: <pid>", "due <time> (in 60m)",
                    "Background process started (PID: <pid>)",
                    "drwxr-xr-x 2 root root 4096 <mtime> .",
                    "Viewing .../<scratch>/work/CHANGELOG.md",
                    "{\"observedAt\":<millis>,\"n\":1234567}"]
            }])
        );
    }

    #[test]
    fn parallel_calls_in_another_order_are_aligned_not_reported() {
        let a = json!({"id": "item_1", "name": "bash", "input": {"command": "ls"}});
        let b = json!({"id": "item_2", "name": "bash", "input": {"command": "pwd"}});
        let c = json!({"id": "item_3", "name": "read", "input": {"path": "x"}});
        let (aligned, reordered) = align(
            &[a.clone(), b.clone(), c.clone()],
            vec![b.clone(), c.clone(), a.clone()],
        );
        assert!(reordered);
        assert_eq!(aligned, vec![a.clone(), b.clone(), c.clone()]);

        let (aligned, reordered) = align(&[a.clone(), b.clone()], vec![a.clone(), b.clone()]);
        assert!(!reordered);
        assert_eq!(aligned, vec![a.clone(), b.clone()]);

        // A call the committed run did not make stays, after the matched ones; a repeated call
        // pairs with its occurrences in turn.
        let new = json!({"id": "item_9", "name": "glob", "input": {"pattern": "*"}});
        let (aligned, reordered) = align(
            &[a.clone(), a.clone()],
            vec![new.clone(), a.clone(), a.clone()],
        );
        assert!(reordered);
        assert_eq!(aligned, vec![a.clone(), a.clone(), new]);
    }
}
