//! The scenario sandbox holds a recording to the release, not to the machine: one short scenario of
//! each agent, recorded in two deliberately different environments (another HOME, TMPDIR and
//! current folder, the temporary folder inside a git repository, a ripgrep of the user's own first
//! on PATH, another locale, time zone, terminal and width), normalizes to the same output, volatile fields aside
//! (`toolnorm::compare::volatile`, the one place that says what two recordings of a session may
//! differ in). This is what lets `scenario drift` give its verdict on a machine that did not
//! record the corpus.
//!
//! It runs the real agent CLIs (installed from npm into the CLI cache, `$XDG_CACHE_HOME/toolnorm/clis`
//! or `~/.cache/toolnorm/clis`, on the first run) and needs node, npm and ripgrep: ignored by a
//! plain `cargo test`; `.ci/run` runs it after `scripts/install-test-deps.sh`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::cli::util::{root, stderr, tempdir};

/// The toolnorm under test: this build's, or the one `TOOLNORM_SANDBOX_TEST_BIN` names (to see
/// what another build's sandbox does, e.g. one from before the sandbox was pinned).
fn toolnorm() -> Command {
    match std::env::var_os("TOOLNORM_SANDBOX_TEST_BIN") {
        Some(bin) => Command::new(bin),
        None => crate::cli::util::toolnorm(),
    }
}

/// One short scenario per agent CLI, the ones whose output depends most on the machine: the
/// search tools (ripgrep, the workspace path in titles) and a served or ACP session.
const SCENARIOS: &[(&str, &str)] = &[
    ("claude", "claude-glob-grep"),
    ("codex", "codex-exec-shell"),
    ("opencode", "opencode-serve-search"),
    ("gemini", "gemini-acp-search"),
    ("qwen", "qwen-acp-search"),
    ("kilo", "kilo-run-search"),
    ("droid", "droid-exec-search"),
    ("copilot", "copilot-acp-files"),
];

/// The CLI cache both environments share (as a real user's runs would): the test's own.
fn cli_cache() -> PathBuf {
    match std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
        Some(x) => PathBuf::from(x),
        None => PathBuf::from(std::env::var_os("HOME").expect("HOME is set")).join(".cache"),
    }
}

/// One environment to record in: toolnorm's HOME, TMPDIR and current folder, and more variables.
struct Env {
    home: PathBuf,
    tmp: PathBuf,
    cwd: PathBuf,
    vars: Vec<(&'static str, &'static str)>,
    /// A folder put first on PATH.
    path_first: Option<PathBuf>,
}

impl Env {
    fn at(base: &Path, name: &str, vars: Vec<(&'static str, &'static str)>) -> Env {
        let env = Env {
            home: base.join(name).join("home"),
            tmp: base.join(name).join("tmp"),
            cwd: base.join(name).join("cwd"),
            vars,
            path_first: None,
        };
        for d in [&env.home, &env.tmp, &env.cwd] {
            std::fs::create_dir_all(d).unwrap();
        }
        env
    }

    fn path(&self) -> std::ffi::OsString {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let folders = self
            .path_first
            .iter()
            .cloned()
            .chain(std::env::split_paths(&path));
        std::env::join_paths(folders).unwrap()
    }

    /// Record `names` into `corpus`.
    fn record(&self, corpus: &Path, names: &[&str]) {
        let mut cmd = toolnorm();
        cmd.args(["scenario", "run", "--force", "--scenarios"])
            .arg(root().join("scenarios"))
            .arg("--corpus")
            .arg(corpus)
            .args(names)
            .current_dir(&self.cwd)
            .env_clear()
            .env("PATH", self.path())
            .env("HOME", &self.home)
            .env("TMPDIR", &self.tmp)
            .env("XDG_CACHE_HOME", cli_cache());
        for (k, v) in &self.vars {
            cmd.env(k, v);
        }
        let out = cmd.output().expect("failed to run toolnorm scenario run");
        assert!(
            out.status.success(),
            "scenario run failed in {}:\n{}",
            self.home.display(),
            stderr(&out)
        );
    }
}

/// The normalized document of scenario `name`'s fixture in `corpus`.
fn normalized(corpus: &Path, name: &str) -> Value {
    let fixture = std::fs::read_dir(corpus)
        .unwrap()
        .map(|d| d.unwrap().path().join(format!("live-{name}.jsonl.zst")))
        .find(|p| p.exists())
        .unwrap_or_else(|| panic!("no fixture of {name} in {}", corpus.display()));
    let out = toolnorm().arg("normalize").arg(&fixture).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).expect("normalize prints JSON")
}

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t.invalid")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t.invalid")
        .status()
        .expect("git runs");
    assert!(ok.success(), "git {args:?}");
}

#[test]
#[ignore = "runs the real agent CLIs (npm, node, ripgrep): run scripts/install-test-deps.sh, then cargo test -- --ignored"]
fn one_scenario_of_each_agent_records_the_same_in_two_environments() {
    let base = tempdir();
    let a = Env::at(base.path(), "a", vec![("LANG", "C.UTF-8")]);
    // Everything toolnorm's caller may hold differently: a long temporary folder inside a git
    // repository with a commit, another locale, time zone, terminal and width.
    let b = Env::at(
        base.path(),
        "another-machine-with-a-much-longer-folder-name/user/checkout",
        vec![
            ("LANG", "en_US.ISO-8859-1"),
            ("LC_ALL", "POSIX"),
            ("TZ", "Pacific/Chatham"),
            ("TERM", "dumb"),
            ("COLUMNS", "37"),
            ("LINES", "9"),
        ],
    );
    git(&b.cwd, &["init", "-q"]);
    git(
        &b.cwd,
        &["commit", "-q", "--allow-empty", "-m", "a repository"],
    );
    let b = Env {
        tmp: b.cwd.join("a-temporary-folder-inside-the-repository"),
        ..b
    };
    std::fs::create_dir_all(&b.tmp).unwrap();
    // And a ripgrep of its own first on PATH, as `cargo install ripgrep` leaves one in
    // `~/.cargo/bin`: Gemini CLI runs an `rg` only from a system folder.
    let bin = base.path().join("b-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let system_rg = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join("rg"))
        .find(|p| p.is_file())
        .expect("ripgrep is installed (scripts/install-test-deps.sh)");
    std::fs::copy(&system_rg, bin.join("rg")).unwrap();
    let b = Env {
        path_first: Some(bin),
        ..b
    };

    let (corpus_a, corpus_b) = (base.path().join("corpus-a"), base.path().join("corpus-b"));
    let all: Vec<&'static str> = SCENARIOS.iter().map(|(_, s)| *s).collect();
    a.record(&corpus_a, &all);
    b.record(&corpus_b, &all);
    let changed = |names: &[&'static str]| -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        for name in names {
            let (x, y) = (normalized(&corpus_a, name), normalized(&corpus_b, name));
            if let Some(d) = toolnorm::compare::volatile::diff_stable(&x, &y) {
                out.push((*name, format!("{:?}\n{}", d.changed_paths, d.unified)));
            }
        }
        out
    };
    // A scenario that differs is recorded once more in both environments, as `scenario drift`
    // does: a CLI that races with itself (Qwen Code now and then loses a call on a loaded
    // machine) differs once, the environment every time.
    let first = changed(&all);
    let again: Vec<&'static str> = first.iter().map(|(n, _)| *n).collect();
    if !again.is_empty() {
        a.record(&corpus_a, &again);
        b.record(&corpus_b, &again);
    }
    let second = changed(&again);
    let report: Vec<String> = second
        .iter()
        .map(|(name, diff)| format!("{name} changed with the environment, twice: {diff}"))
        .collect();
    assert!(report.is_empty(), "{}", report.join("\n"));
}
