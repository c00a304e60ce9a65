//! `scenario matrix`: record one CLI's scenarios with each of several published versions and
//! say, version × scenario, whether the normalized parts are the same as the committed
//! fixture's, changed (with the drift's diff), failed to run, or hit a tool the version does not
//! have. The versions are given, or picked from the registry's publish times (`--since`,
//! `--last`). The comparison is the drift's, through the one place that says what a
//! re-recording may change without anything having changed ([`crate::compare::volatile`]); the
//! writers are in [`super::matrix_render`].

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail};
use serde::Serialize;
use serde_json::{Map, Value};

use super::agents;
use super::drift;
use super::launch::RunOptions;
use super::package::{Cli, Registry};
use super::run::run_scenario;
use super::spec::Scenario;
use crate::compare::volatile;

/// What one scenario did with one version.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "verdict", rename_all = "camelCase")]
pub enum Cell {
    /// The normalized parts are those of the committed fixture (timing and run ids aside).
    Same,
    /// They differ: the drift's unified diff.
    Changed { diff: String },
    /// The version could not run the scenario (install, start, timeout, no normalizable output).
    Failed { reason: String },
    /// The scenario calls tools this version does not offer.
    ToolAbsent { tools: Vec<String>, diff: String },
}

impl Cell {
    pub fn label(&self) -> &'static str {
        match self {
            Cell::Same => "same",
            Cell::Changed { .. } => "changed",
            Cell::Failed { .. } => "failed",
            Cell::ToolAbsent { .. } => "tool absent",
        }
    }
}

/// One version's row.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Row {
    pub version: String,
    /// The registry's publish time, when the versions came from it.
    pub published: Option<String>,
    pub seconds: f64,
    pub cells: Vec<Cell>,
}

/// The compatibility table of one CLI.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Matrix {
    pub cli: String,
    pub scenarios: Vec<String>,
    pub rows: Vec<Row>,
    pub seconds: f64,
}

/// A version to try, with its publish time when known.
#[derive(Clone, Debug, PartialEq)]
pub struct Version {
    pub version: String,
    pub published: Option<String>,
}

/// `codex@0.150.0,0.160.0` → the CLI and the versions; `codex` alone → no version (pick them
/// from the registry).
pub fn parse_matrix_cli(spec: &str) -> anyhow::Result<(&'static Cli, Vec<String>)> {
    let (name, versions) = match spec.split_once('@') {
        Some((n, v)) => (n, v),
        None => (spec, ""),
    };
    let cli = agents::cli_named(name).with_context(|| {
        format!(
            "--cli {spec:?}: unknown CLI {name:?} ({})",
            agents::cli_names()
        )
    })?;
    let versions: Vec<String> = versions
        .split(',')
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_owned)
        .collect();
    Ok((cli, versions))
}

/// Versions from `npm view <package> time --json` or PyPI (version → publish time): releases only (no
/// `-` pre-release), published on or after `since` (`YYYY-MM-DD`, compared as text, which ISO
/// times allow), in order of publication, the last `last` of them.
pub fn pick_versions(
    times: &Map<String, Value>,
    since: Option<&str>,
    last: Option<usize>,
) -> Vec<Version> {
    let mut all: Vec<Version> = times
        .iter()
        .filter(|(v, _)| !matches!(v.as_str(), "created" | "modified") && !v.contains('-'))
        .filter(|(v, _)| v.split('.').all(|n| n.parse::<u64>().is_ok()))
        .filter_map(|(v, t)| {
            let t = t.as_str()?;
            since.is_none_or(|s| t >= s).then(|| Version {
                version: v.clone(),
                published: Some(t.to_owned()),
            })
        })
        .collect();
    all.sort_by(|a, b| {
        a.published
            .cmp(&b.published)
            .then_with(|| a.version.cmp(&b.version))
    });
    if let Some(n) = last {
        let skip = all.len().saturating_sub(n);
        all.drain(..skip);
    }
    all
}

/// Ask the registry for a package's publish times (`npm view PACKAGE time --json`, or PyPI's
/// JSON API for a PyPI package).
pub fn registry_times(cli: &'static Cli) -> anyhow::Result<Map<String, Value>> {
    if let Registry::Pypi { .. } = cli.registry {
        return super::pypi::release_times(cli);
    }
    let out = std::process::Command::new("npm")
        .args(["view", cli.package, "time", "--json"])
        .output()
        .context("failed to run npm (needed to list published versions)")?;
    if !out.status.success() {
        bail!(
            "npm view {} time failed: {}",
            cli.package,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    match serde_json::from_slice(&out.stdout) {
        Ok(Value::Object(m)) => Ok(m),
        _ => bail!(
            "npm view {} time --json did not give an object",
            cli.package
        ),
    }
}

#[derive(Debug, Clone)]
pub struct MatrixOptions {
    pub cli: &'static Cli,
    pub versions: Vec<Version>,
    pub names: Vec<String>,
    /// The committed corpus the recordings are compared with.
    pub corpus: PathBuf,
    /// Where `matrix.md`, `matrix.html` and `matrix.json` go.
    pub reports: PathBuf,
    /// Keep each version's recordings in `<keep>/<version>/` (default: a temporary folder).
    pub keep: Option<PathBuf>,
}

/// Record every chosen scenario with every version and build the table.
pub fn run(all: &[Scenario], opts: &MatrixOptions) -> anyhow::Result<Matrix> {
    let chosen = drift::choose(all, opts.cli, &opts.names)?;
    if opts.versions.is_empty() {
        bail!("no version of {} to try", opts.cli.display);
    }
    // A program the agent needs from the machine is missing: no cell would say anything.
    super::sandbox::check_programs(opts.cli)?;
    let started = Instant::now();
    let temp = std::env::temp_dir().join(format!("toolnorm-matrix-{}", std::process::id()));
    let root = opts.keep.clone().unwrap_or_else(|| temp.clone());
    let mut rows = Vec::new();
    for v in &opts.versions {
        let t0 = Instant::now();
        let run_opts = RunOptions {
            corpus: root.join(&v.version),
            force: true,
            keep_scratch: false,
            request_logs: None,
            version_override: Some(v.version.clone()),
            raw: false,
        };
        let mut cells = Vec::new();
        for s in &chosen {
            eprintln!("{}@{}: {}", opts.cli.display, v.version, s.name);
            let committed = opts
                .corpus
                .join(agents::of(s)?.provider.as_str())
                .join(format!("{}.jsonl.zst", s.fixture_name()));
            let cell = match run_scenario(s, &run_opts) {
                Ok(o) => judge(&committed, &o.fixture),
                Err(e) => Cell::Failed {
                    reason: format!("{e:#}"),
                },
            };
            eprintln!("  {}", cell.label());
            cells.push(cell);
        }
        rows.push(Row {
            version: v.version.clone(),
            published: v.published.clone(),
            seconds: t0.elapsed().as_secs_f64(),
            cells,
        });
    }
    if opts.keep.is_none() {
        let _ = std::fs::remove_dir_all(&temp);
    }
    Ok(Matrix {
        cli: opts.cli.display.to_owned(),
        scenarios: chosen.iter().map(|s| s.name.clone()).collect(),
        rows,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Compare one new recording with the committed fixture, in their stable forms.
fn judge(committed: &Path, new: &Path) -> Cell {
    let new = match normalized(new) {
        Ok(v) => v,
        Err(e) => {
            return Cell::Failed {
                reason: format!("the recording does not normalize: {e:#}"),
            };
        }
    };
    let old = match normalized(committed) {
        Ok(v) => v,
        Err(e) => {
            return Cell::Changed {
                diff: format!("no committed fixture to compare: {e:#}\n"),
            };
        }
    };
    let Some(diff) = volatile::diff_stable(&old, &new) else {
        return Cell::Same;
    };
    let (old, new) = volatile::stable_pair(&old, &new);
    let parts = |v: &Value| v.get("parts").and_then(Value::as_array).cloned();
    let absent = absent_tools(
        &parts(&old).unwrap_or_default(),
        &parts(&new).unwrap_or_default(),
    );
    let diff = format!("```diff\n{}```\n", diff.unified);
    if absent.is_empty() {
        Cell::Changed { diff }
    } else {
        Cell::ToolAbsent {
            tools: absent,
            diff,
        }
    }
}

/// A fixture's normalized document as JSON (provider and dialect from its header, as verify).
fn normalized(path: &Path) -> anyhow::Result<Value> {
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
    let doc = crate::normalizer::normalize(&stream.input(), opts)
        .with_context(|| format!("{}", path.display()))?;
    Ok(serde_json::to_value(doc)?)
}

/// How each CLI answers a call to a tool it does not have.
const ABSENT_MARKERS: &[&str] = &[
    "No such tool available",
    "unsupported call",
    "Model tried to call unavailable tool",
    "is not a valid tool",
    // Gemini CLI (0.24 and before) and Qwen Code.
    "not found in registry",
    "Tools must use the exact names provided",
];

fn says_absent(part: &Value) -> bool {
    let error = part.get("error");
    let text = |k: &str| {
        error
            .and_then(|e| e.get(k))
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
            .unwrap_or_default()
    };
    let (message, details) = (text("message"), text("details"));
    ABSENT_MARKERS
        .iter()
        .any(|m| message.contains(m) || details.contains(m))
}

/// The tools the new recording's calls found missing where the committed recording's same call
/// (same tool, same input) did not: the version lacks them.
pub fn absent_tools(old: &[Value], new: &[Value]) -> Vec<String> {
    let key = |p: &Value| (p.get("name").cloned(), p.get("input").cloned());
    let mut out: Vec<String> = Vec::new();
    for p in new.iter().filter(|p| says_absent(p)) {
        let was_absent = old.iter().any(|o| key(o) == key(p) && says_absent(o));
        let name = p
            .get("input")
            .and_then(|i| i.get("tool"))
            .and_then(Value::as_str)
            .or_else(|| p.get("name").and_then(Value::as_str))
            .unwrap_or("?")
            .to_owned();
        if !was_absent && !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn times() -> Map<String, Value> {
        json!({
            "created": "2025-01-01T00:00:00Z",
            "modified": "2026-11-20T00:00:00Z",
            "0.150.0": "2026-09-16T10:00:00Z",
            "0.150.1": "2026-08-28T10:00:00Z",
            "0.160.0": "2026-10-01T10:00:00Z",
            "0.171.0": "2026-11-20T10:00:00Z",
            "0.172.0-alpha.1": "2026-11-21T10:00:00Z",
            "0.1.2505172129": "2026-04-07T10:00:00Z",
            "0.44.0": "2026-03-30T10:00:00Z"
        })
        .as_object()
        .unwrap()
        .clone()
    }

    #[test]
    fn versions_are_picked_by_publish_time() {
        let v = |list: Vec<Version>| list.into_iter().map(|v| v.version).collect::<Vec<_>>();
        // In order of publication, pre-releases out.
        assert_eq!(
            v(pick_versions(&times(), None, None)),
            [
                "0.44.0",
                "0.1.2505172129",
                "0.150.1",
                "0.150.0",
                "0.160.0",
                "0.171.0"
            ]
        );
        assert_eq!(
            v(pick_versions(&times(), Some("2026-09-01"), None)),
            ["0.150.0", "0.160.0", "0.171.0"]
        );
        assert_eq!(
            v(pick_versions(&times(), None, Some(2))),
            ["0.160.0", "0.171.0"]
        );
        assert_eq!(
            v(pick_versions(&times(), Some("2026-08-01"), Some(10))),
            ["0.150.1", "0.150.0", "0.160.0", "0.171.0"]
        );
        assert!(pick_versions(&times(), Some("2027-01-01"), None).is_empty());
        assert_eq!(
            pick_versions(&times(), None, Some(1))[0]
                .published
                .as_deref(),
            Some("2026-11-20T10:00:00Z")
        );
    }

    #[test]
    fn cli_specs_list_versions() {
        let (cli, v) = parse_matrix_cli("codex@0.150.0, 0.160.0,0.171.0").unwrap();
        assert_eq!(cli.bin, "codex");
        assert_eq!(v, ["0.150.0", "0.160.0", "0.171.0"]);
        let (cli, v) = parse_matrix_cli("opencode").unwrap();
        assert_eq!(cli.package, "opencode-ai");
        assert!(v.is_empty());
        assert!(parse_matrix_cli("emacs@30").is_err());
    }

    #[test]
    fn a_tool_the_version_lacks_is_told_apart_from_a_change() {
        let call = |err: Option<&str>| {
            let mut p = json!({"name": "TodoWrite", "input": {"todos": []}});
            if let Some(e) = err {
                p["error"] = json!({"message": e});
            } else {
                p["output"] = json!("ok");
            }
            p
        };
        let absent = "Error: No such tool available: TodoWrite. TodoWrite is disabled.";
        assert_eq!(
            absent_tools(&[call(None)], &[call(Some(absent))]),
            ["TodoWrite"]
        );
        // Already absent in the committed recording: not news.
        assert!(absent_tools(&[call(Some(absent))], &[call(Some(absent))]).is_empty());
        // Another error is a change, not an absence.
        assert!(absent_tools(&[call(None)], &[call(Some("Exit code 1"))]).is_empty());
        // OpenCode names the missing tool in the `invalid` call's input.
        let invalid = json!({"name": "invalid", "input": {"tool": "list"},
            "error": {"message": "Model tried to call unavailable tool 'list'"}});
        assert_eq!(absent_tools(&[], &[invalid]), ["list"]);
    }
}
