//! End-to-end test of the npm packages: scripts/npm-build.sh packages the binary, `npm pack` makes
//! the tarballs, they install offline (no registry) into a scratch Node project, and
//! `npx toolnorm verify` runs the gate there; the launcher passes exit codes and signals through.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::cli::util::{root, stderr, stdout, tempdir};

fn sh(dir: &Path, program: &str, args: &[&str]) -> Output {
    Command::new(program)
        .args(args)
        .current_dir(dir)
        .env_remove("CI")
        .env("npm_config_update_notifier", "false")
        .output()
        .unwrap_or_else(|e| panic!("failed to run {program}: {e}"))
}

fn ok(o: &Output, what: &str) {
    assert_eq!(
        o.status.code(),
        Some(0),
        "{what}: {}{}",
        stdout(o),
        stderr(o)
    );
}

/// The platform key npm-build.sh gives this machine (linux-x64, ...).
fn platform(out: &Path) -> String {
    let dirs: Vec<String> = fs::read_dir(out)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("cli-"))
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    dirs[0].trim_start_matches("cli-").to_owned()
}

/// Build, pack and install the packages offline into `project`; the tarballs' paths.
fn install(work: &Path, project: &Path) -> Vec<PathBuf> {
    let out = work.join("npm");
    let o = sh(
        &root(),
        "bash",
        &[
            "scripts/npm-build.sh",
            "--binary",
            env!("CARGO_BIN_EXE_toolnorm"),
            "--out",
            out.to_str().unwrap(),
        ],
    );
    ok(&o, "npm-build.sh");
    let plat = platform(&out);
    let packs = work.join("packs");
    fs::create_dir_all(&packs).unwrap();
    let dest = packs.to_str().unwrap();
    for pkg in [format!("cli-{plat}"), "toolnorm".to_owned()] {
        let o = sh(&out.join(pkg), "npm", &["pack", "--pack-destination", dest]);
        ok(&o, "npm pack");
    }
    let version = env!("CARGO_PKG_VERSION");
    let tarballs = vec![
        packs.join(format!("toolnorm-cli-{plat}-{version}.tgz")),
        packs.join(format!("toolnorm-{version}.tgz")),
    ];
    for t in &tarballs {
        assert!(t.is_file(), "{} missing", t.display());
    }
    fs::create_dir_all(project).unwrap();
    fs::write(
        project.join("package.json"),
        "{\"name\": \"scratch\", \"version\": \"1.0.0\", \"private\": true}\n",
    )
    .unwrap();
    let mut args = vec!["install", "--offline", "--no-audit", "--no-fund"];
    args.extend(tarballs.iter().map(|t| t.to_str().unwrap()));
    ok(&sh(project, "npm", &args), "npm install --offline");
    tarballs
}

fn copy(from: &str, to: &Path) {
    let to = to.join(from);
    fs::create_dir_all(to.parent().unwrap()).unwrap();
    fs::copy(root().join(from), to).unwrap();
}

#[test]
#[ignore = "needs npm (and node): scripts/install-test-deps.sh"]
fn the_npm_tarballs_install_offline_and_run_the_gate() {
    let dir = tempdir();
    let work = dir.path();
    let project = work.join("scratch");
    install(work, &project);
    assert!(project.join("node_modules/.bin/toolnorm").exists());

    let o = sh(&project, "npx", &["--offline", "toolnorm", "--version"]);
    ok(&o, "toolnorm --version");
    assert!(
        stdout(&o).contains(env!("CARGO_PKG_VERSION")),
        "{}",
        stdout(&o)
    );

    for f in [
        "corpus/claude/live-claude-bash.jsonl.zst",
        "expected/claude/live-claude-bash.json",
        "corpus/codex/live-codex-exec-patch.jsonl.zst",
        "expected/codex/live-codex-exec-patch.json",
    ] {
        copy(f, &project);
    }
    let o = sh(&project, "npx", &["--offline", "toolnorm", "verify"]);
    ok(&o, "npx toolnorm verify");
    assert!(stdout(&o).contains("2 passed"), "{}", stdout(&o));

    // A broken expected file: the gate fails, and npx says so with toolnorm's exit code.
    let path = project.join("expected/codex/live-codex-exec-patch.json");
    let mut v: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    v["parts"][0]["title"] = "not what the normalizer says".into();
    fs::write(&path, toolnorm::compare::canonical_json(&v)).unwrap();
    let o = sh(&project, "npx", &["--offline", "toolnorm", "verify"]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("/parts/0/title"), "{}", stdout(&o));

    // Usage errors keep toolnorm's own code.
    let o = sh(
        &project,
        "npx",
        &["--offline", "toolnorm", "verify", "--no-such-flag"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
#[ignore = "needs node: scripts/install-test-deps.sh"]
fn the_launcher_forwards_signals_and_dies_of_the_binarys_signal() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempdir();
    let d = dir.path();
    let launcher = root().join("packaging/npm/toolnorm/bin/toolnorm.js");
    // A stand-in binary: says it is ready, then exits 7 on SIGTERM (or is killed by SIGKILL).
    let fake = d.join("fake");
    fs::write(
        &fake,
        "#!/bin/sh\ntrap 'echo \"$@\" > \"$DIR/got-term\"; exit 7' TERM\n: > \"$DIR/ready\"\n\
         if [ \"$1\" = die ]; then kill -9 $$; fi\nwhile :; do sleep 0.05; done\n",
    )
    .unwrap();
    fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut child = Command::new("node")
        .arg(&launcher)
        .args(["wait", "two words"])
        .env("TOOLNORM_BINARY", &fake)
        .env("DIR", d)
        .spawn()
        .expect("node runs");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !d.join("ready").exists() {
        assert!(Instant::now() < deadline, "the fake binary never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    crate::cli::util::unsafe_kill(child.id(), 15);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(7), "{status:?}");
    assert_eq!(
        fs::read_to_string(d.join("got-term")).unwrap(),
        "wait two words\n",
        "arguments passed through"
    );

    let status = Command::new("node")
        .arg(&launcher)
        .arg("die")
        .env("TOOLNORM_BINARY", &fake)
        .env("DIR", d)
        .status()
        .unwrap();
    assert_eq!(status.signal(), Some(9), "{status:?}");
}

/// What users download on every install: the platform package of the release build, gzipped.
const PLATFORM_PACKAGE_BUDGET: u64 = 8_000_000;

/// The binary as a release packages it: `cargo build --profile dist` with the npm features,
/// then npm-build.sh. The
/// platform package holds the binary stripped, within its size budget, and it still runs; its
/// debug info lies beside the packages, named by the binary's debug link.
#[test]
#[ignore = "needs npm and a release build: scripts/install-test-deps.sh"]
fn the_platform_package_ships_a_stripped_binary_within_its_size_budget() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    ok(
        &sh(
            &root(),
            &cargo,
            &[
                "build",
                "--profile",
                "dist",
                "--locked",
                "--no-default-features",
                "--features",
                "cli",
                "--bin",
                "toolnorm",
            ],
        ),
        "cargo build --profile dist, as npm-build.sh builds it",
    );
    let release = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| root().join("target"), std::path::PathBuf::from)
        .join("dist/toolnorm");
    let dir = tempdir();
    let out = dir.path().join("npm");
    ok(
        &sh(
            &root(),
            "bash",
            &[
                "scripts/npm-build.sh",
                "--binary",
                release.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ],
        ),
        "npm-build.sh",
    );
    let plat = platform(&out);
    let packaged = out.join(format!("cli-{plat}/toolnorm"));
    let o = sh(dir.path(), packaged.to_str().unwrap(), &["--version"]);
    ok(&o, "the packaged binary");
    assert!(
        stdout(&o).contains(env!("CARGO_PKG_VERSION")),
        "{}",
        stdout(&o)
    );
    let raw = fs::metadata(&release).unwrap().len();
    let stripped = fs::metadata(&packaged).unwrap().len();
    assert!(stripped < raw, "{stripped} bytes packaged, {raw} built");

    let o = sh(
        &out.join(format!("cli-{plat}")),
        "npm",
        &["pack", "--pack-destination", dir.path().to_str().unwrap()],
    );
    ok(&o, "npm pack");
    let tarball = dir.path().join(format!(
        "toolnorm-cli-{plat}-{}.tgz",
        env!("CARGO_PKG_VERSION")
    ));
    let size = fs::metadata(&tarball).unwrap().len();
    assert!(
        size <= PLATFORM_PACKAGE_BUDGET,
        "@toolnorm/cli-{plat} is {size} bytes gzipped, over its budget of {PLATFORM_PACKAGE_BUDGET}"
    );

    if plat.starts_with("linux") {
        let sections = |file: &Path| {
            let o = sh(dir.path(), "readelf", &["-S", "-W", file.to_str().unwrap()]);
            ok(&o, "readelf -S");
            stdout(&o)
        };
        let packaged_sections = sections(&packaged);
        assert!(
            !packaged_sections.contains(".debug_line") && !packaged_sections.contains(".symtab"),
            "the packaged binary is not stripped:\n{packaged_sections}"
        );
        assert!(
            packaged_sections.contains(".gnu_debuglink"),
            "{packaged_sections}"
        );
        let debug = out.join(format!("debug-{plat}/toolnorm.debug"));
        assert!(
            sections(&debug).contains(".debug_line"),
            "{}",
            debug.display()
        );
    }
}
