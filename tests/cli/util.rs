//! Helpers of the end-to-end tests: the binary under test, its output, the project root, a temp dir.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The `toolnorm` binary built for this test run.
pub fn toolnorm() -> Command {
    Command::new(env!("CARGO_BIN_EXE_toolnorm"))
}

/// Run toolnorm with `args` in `dir`.
pub fn run_in(dir: &Path, args: &[&str]) -> Output {
    toolnorm()
        .args(args)
        .current_dir(dir)
        .env_remove("CI")
        .output()
        .expect("failed to run toolnorm")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The project root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `toolnorm cat [extra] fixture` in `dir`.
pub fn cat(dir: &Path, fixture: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["cat"];
    args.extend_from_slice(extra);
    args.push(fixture);
    toolnorm().args(&args).current_dir(dir).output().unwrap()
}

/// Send signal `sig` to process `pid` with kill(1).
pub fn unsafe_kill(pid: u32, sig: i32) {
    let ok = Command::new("kill")
        .arg(format!("-{sig}"))
        .arg(pid.to_string())
        .status()
        .unwrap();
    assert!(ok.success());
}

/// PATH with the folder of the binary under test first, so that `toolnorm` in a shell command is it.
pub fn path_with_toolnorm() -> std::ffi::OsString {
    let bin = Path::new(env!("CARGO_BIN_EXE_toolnorm")).parent().unwrap();
    std::env::join_paths(std::iter::once(bin.to_owned()).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap()
}

pub fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("failed to create a temp dir")
}

/// Assert that a command exited 0; its stdout and stderr are the message otherwise.
pub fn assert_ok(o: &Output, what: &str) {
    assert_eq!(
        o.status.code(),
        Some(0),
        "{what}:\n{}\n{}",
        stdout(o),
        stderr(o)
    );
}
