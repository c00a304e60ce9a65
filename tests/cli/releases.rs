//! Every release in use: `scenario matrix` (its arguments, and a run whose CLI cannot be
//! installed, which fills the table with `failed`) and the script that drifts new releases.

use crate::cli::util::{root, run_in, stderr, stdout, tempdir, toolnorm};

#[test]
fn matrix_arguments_are_checked_before_anything_runs() {
    let out = run_in(&root(), &["scenario", "matrix", "--cli", "emacs@29"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("unknown CLI"), "{}", stderr(&out));
    let out = run_in(&root(), &["scenario", "matrix", "--cli", "codex"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no version to try"),
        "{}",
        stderr(&out)
    );
    let out = run_in(
        &root(),
        &[
            "scenario",
            "matrix",
            "--cli",
            "codex",
            "--since",
            "last week",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("YYYY-MM-DD"), "{}", stderr(&out));
    let out = run_in(
        &root(),
        &[
            "scenario",
            "matrix",
            "--cli",
            "codex@0.150.0",
            "--last",
            "3",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("not both"), "{}", stderr(&out));
}

#[test]
fn a_version_that_cannot_run_is_a_failed_cell_in_every_format() {
    let cache = tempdir();
    let reports = tempdir();
    // The programs the agent needs (bash, node) are there, npm is not: the install of each version
    // fails, after the check of the programs passed.
    let no_npm = tempdir();
    for program in ["bash", "node"] {
        let found = std::env::var_os("PATH")
            .iter()
            .flat_map(std::env::split_paths)
            .map(|d| d.join(program))
            .find(|p| p.is_file())
            .unwrap_or_else(|| panic!("{program} is not on PATH"));
        std::os::unix::fs::symlink(found, no_npm.path().join(program)).unwrap();
    }
    let out = toolnorm()
        .args([
            "scenario",
            "matrix",
            "--cli",
            "codex@0.150.0,0.160.0",
            "codex-exec-shell",
            "--reports",
        ])
        .arg(reports.path())
        .current_dir(root())
        .env("XDG_CACHE_HOME", cache.path())
        .env("PATH", no_npm.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let table = stdout(&out);
    assert!(
        table.contains("codex-cli: 2 version(s) × 1 scenario(s)"),
        "{table}"
    );
    for v in ["0.150.0", "0.160.0"] {
        let row = table.lines().find(|l| l.starts_with(v)).expect(v);
        assert!(
            row.contains("failed") && row.contains("(1 failed;"),
            "{row}"
        );
    }
    let md = std::fs::read_to_string(reports.path().join("matrix.md")).unwrap();
    assert!(
        md.contains("| version | published | codex-exec-shell | summary |"),
        "{md}"
    );
    assert!(md.contains("npm was not found on PATH"), "{md}");
    let html = std::fs::read_to_string(reports.path().join("matrix.html")).unwrap();
    assert!(html.contains("<td class=\"failed\">"), "{html}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(reports.path().join("matrix.json")).unwrap())
            .unwrap();
    assert_eq!(json["rows"][1]["version"], "0.160.0");
    assert_eq!(json["rows"][1]["cells"][0]["verdict"], "failed");
}

/// The CI script asks the registry (here a stand-in `npm`) for releases newer than the pinned
/// ones and plans one drift per release, the newest MAX_PER_CLI of each CLI.
#[cfg(unix)]
#[test]
fn the_drift_script_plans_one_drift_per_newer_release() {
    use std::os::unix::fs::PermissionsExt;
    let bin = tempdir();
    let npm = bin.path().join("npm");
    std::fs::write(
        &npm,
        "#!/bin/sh\ncase \"$2\" in\n  @openai/codex) echo '[\"0.170.0\",\"0.171.0\",\"0.172.0-alpha.1\",\"0.172.0\",\"0.173.0\",\"0.175.0\"]' ;;\n  opencode-ai) echo '[\"1.18.32\",\"1.18.33\"]' ;;\n  @google/gemini-cli) echo '[\"0.60.0\",\"0.61.0\",\"0.62.0-preview.1\",\"0.62.0\"]' ;;\n  @qwen-code/qwen-code) echo '[\"0.24.4\"]' ;;\n  @kilocode/cli) echo '[\"7.7.7\",\"7.8.1\"]' ;;\n  droid) echo '[\"0.117.0\",\"0.215.0\"]' ;;\n  @github/copilot) echo '[\"1.0.102\",\"1.0.103\"]' ;;\n  *) echo '[\"2.1.9\",\"2.1.332\",\"2.1.1000\"]' ;;\nesac\n",
    )
    .unwrap();
    std::fs::set_permissions(&npm, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = std::process::Command::new("sh")
        .arg("scripts/drift-new-releases.sh")
        .arg("--dry-run")
        .current_dir(root())
        .env("PATH", &path)
        .env("TOOLNORM", "toolnorm")
        .env("MAX_PER_CLI", "2")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let planned: Vec<String> = stdout(&out).lines().map(str::to_owned).collect();
    assert_eq!(
        planned,
        [
            "toolnorm scenario drift --cli claude@2.1.1000 --reports reports/drift/claude-2.1.1000",
            "toolnorm scenario drift --cli codex@0.173.0 --reports reports/drift/codex-0.173.0",
            "toolnorm scenario drift --cli codex@0.175.0 --reports reports/drift/codex-0.175.0",
            "opencode: no release newer than 1.18.33",
            "toolnorm scenario drift --cli gemini@0.62.0 --reports reports/drift/gemini-0.62.0",
            "qwen: no release newer than 0.24.4",
            "toolnorm scenario drift --cli kilo@7.8.1 --reports reports/drift/kilo-7.8.1",
            "droid: no release newer than 0.215.0",
            "toolnorm scenario drift --cli copilot@1.0.103 --reports reports/drift/copilot-1.0.103",
        ]
    );
}

/// The repeat script fails when runs of one drift disagree on any scenario, and passes when they
/// agree, whatever they found (here a stand-in toolnorm that writes each run's drift.md from a
/// list of verdicts).
#[cfg(unix)]
#[test]
fn the_repeat_script_fails_when_runs_of_a_drift_disagree() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempdir();
    let fake = dir.path().join("fake-toolnorm");
    // Run k (counted in a file) says what line k of $SAID says of scenario `b`.
    std::fs::write(
        &fake,
        "#!/bin/sh\nout=$6\nn=$(($(cat \"$COUNT\" 2>/dev/null || echo 0) + 1)); echo $n > \"$COUNT\"\n\
         b=$(sed -n \"${n}p\" \"$SAID\")\nmkdir -p \"$out\"\n\
         printf '# Drift: x 1\\n\\n**PASS**: 2 scenario(s)\\n\\n## a: unchanged\\n\\n## b: %s\\n' \"$b\" > \"$out/drift.md\"\n\
         [ \"$b\" = unchanged ]\n",
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let run = |said: &str| {
        let case = tempdir();
        std::fs::write(case.path().join("said"), said).unwrap();
        let out = std::process::Command::new("sh")
            .args(["scripts/drift-repeat.sh", "3", "codex@0.171.0"])
            .current_dir(root())
            .env("TOOLNORM", &fake)
            .env("REPORTS", case.path().join("reports"))
            .env("COUNT", case.path().join("count"))
            .env("SAID", case.path().join("said"))
            .env_remove("GITHUB_STEP_SUMMARY")
            .output()
            .unwrap();
        (out.status.code(), stdout(&out))
    };
    let (code, out) = run("unchanged\nunchanged\nunchanged\n");
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("3 runs of the drift of codex@0.171.0 agree"),
        "{out}"
    );
    let (code, out) = run("changed\nchanged\nchanged\n");
    assert_eq!(code, Some(0), "the runs agree that b changed: {out}");
    let (code, out) = run("unchanged\nchanged\nunchanged\n");
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("run 2 disagrees with run 1") && out.contains("> ## b: changed"),
        "{out}"
    );
}
