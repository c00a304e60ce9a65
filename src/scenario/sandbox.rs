//! The scenario sandbox: everything an agent CLI could read from the machine that changes what
//! it writes, pinned to the same value on every machine (`docs/scenario-environment.md` lists what
//! each agent reads and how it is pinned here).
//!
//! - The scratch folders sit at a fixed path, [`ROOT`]`/<scenario>/{home,work,tmp,bin}`, the same
//!   string on every machine whatever its `TMPDIR`, HOME or current folder: agents shorten long
//!   paths in titles, hash the workspace path into folder names and walk up from it looking for a
//!   repository. Two runs of one scenario at once take turns ([`claim`] holds a lock for the
//!   run); runs of different scenarios go on side by side.
//! - The environment is made from nothing ([`environment`]): HOME, TMPDIR and the XDG folders in
//!   the scratch folder, `C.UTF-8`, UTC, `TERM=xterm`, no `COLUMNS`, git without system or user
//!   configuration, never looking above the scratch folder, and fixed author and dates; `PATH` is
//!   the scratch `bin` (links to the programs the agent needs, found once in the caller's PATH)
//!   before the system folders alone.
//! - The workspace files get fixed modification times, in the order the agent lists search
//!   results in ([`set_file_time`]).
//! - The programs an agent runs from the machine ([`needs`]) are checked before anything runs
//!   ([`provide`]): a missing one is an error naming it and its install command, never a
//!   recording that differs.

use std::fs::{self, File};
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::package::Cli;

/// Where every scenario's scratch folder is made: a fixed path, not the system's temporary folder.
pub const ROOT: &str = "/tmp/toolnorm-scenario";

/// The system folders on the agent's PATH, after the scratch `bin`.
const SYSTEM_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// The folders a system program lives in. Gemini CLI 0.61.0 runs an `rg` only from one of these
/// (its `isTrustedSystemPath`); elsewhere (`~/.cargo/bin`) it falls back to another grep tool
/// whose titles differ.
const SYSTEM_DIRS: &[&str] = &[
    "/usr/bin",
    "/bin",
    "/usr/local/bin",
    "/usr/sbin",
    "/sbin",
    "/opt/homebrew/bin",
    "/opt/homebrew/Cellar",
    "/usr/local/Cellar",
];

/// A program an agent runs from the machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Program {
    pub name: &'static str,
    /// The Debian package that installs it.
    pub package: &'static str,
    /// Why the agent needs it (for the error).
    pub why: &'static str,
    /// It must live in a system folder (`SYSTEM_DIRS`).
    pub system: bool,
}

const NODE: Program = Program {
    name: "node",
    package: "nodejs",
    why: "the CLI's launcher is a Node.js script",
    system: false,
};
const BASH: Program = Program {
    name: "bash",
    package: "bash",
    why: "the agent's shell tool runs commands in bash",
    system: false,
};
const RIPGREP: Program = Program {
    name: "rg",
    package: "ripgrep",
    why: "its grep and glob tools run the system's ripgrep (without it they fail, or fall back to \
          another tool with other titles)",
    system: true,
};

/// The programs `cli` runs from the machine: bash always, node for a CLI that is a Node.js
/// script, ripgrep for one whose tools run the machine's ([`Cli::node`], [`Cli::ripgrep`]).
/// Claude Code, the Claude ACP adapter, Codex, droid and Copilot CLI bring their own ripgrep;
/// OpenCode and Kilo call `rg` from PATH; Gemini CLI uses `rg` from a system folder, and Qwen
/// Code's bundled one is not executable once installed from npm (mode 644), so it uses PATH's.
pub fn needs(cli: &Cli) -> Vec<Program> {
    let mut programs = vec![BASH];
    if cli.node {
        programs.push(NODE);
    }
    if cli.ripgrep {
        programs.push(RIPGREP);
    }
    programs
}

/// Find each of `cli`'s programs in `path` (a PATH value), or say which is missing and how to
/// install it.
pub fn find_programs(cli: &Cli, path: &str) -> anyhow::Result<Vec<(Program, PathBuf)>> {
    let mut found = Vec::new();
    let mut missing = Vec::new();
    for p in needs(cli) {
        let mut candidates = locate(p.name, path);
        // A program that must be the system's: the first one in a system folder, passing over
        // others earlier on PATH (a `~/.cargo/bin/rg`).
        let first = candidates.next();
        let chosen = match first {
            Some(at) if p.system && !in_system_dir(&at) => {
                Some(candidates.find(|c| in_system_dir(c)).unwrap_or(at))
            }
            other => other,
        };
        match chosen {
            Some(at) if p.system && !in_system_dir(&at) => missing.push(format!(
                "`{}` ({}) is at {}, not in a system folder ({}): {}; install it with \
                 `apt-get install {}` (or your system's package manager)",
                p.name,
                p.package,
                at.display(),
                SYSTEM_DIRS.join(", "),
                p.why,
                p.package
            )),
            Some(at) => found.push((p, at)),
            None => missing.push(format!(
                "`{}` is not on PATH: {}; install it with `apt-get install {}` (or your \
                 system's package manager)",
                p.name, p.why, p.package
            )),
        }
    }
    if !missing.is_empty() {
        anyhow::bail!(
            "{} needs a program this machine lacks; nothing was recorded:\n  {}",
            cli.display,
            missing.join("\n  ")
        );
    }
    Ok(found)
}

/// Check `cli`'s programs in the caller's PATH (before a run starts anything).
pub fn check_programs(cli: &Cli) -> anyhow::Result<()> {
    find_programs(cli, &caller_path()).map(drop)
}

fn caller_path() -> String {
    std::env::var("PATH").unwrap_or_default()
}

/// The executable files `name` in the folders of `path`, in PATH's order.
fn locate<'a>(name: &'a str, path: &'a str) -> impl Iterator<Item = PathBuf> + 'a {
    use std::os::unix::fs::PermissionsExt;
    path.split(':')
        .filter(|d| !d.is_empty())
        .map(move |d| Path::new(d).join(name))
        .filter(|p| {
            p.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// `at`, links resolved, is in one of [`SYSTEM_DIRS`].
fn in_system_dir(at: &Path) -> bool {
    let real = at.canonicalize().unwrap_or_else(|_| at.to_owned());
    SYSTEM_DIRS.iter().any(|d| real.starts_with(d))
}

/// One run's hold on a scenario's scratch folder: [`ROOT`]`/<name>`, emptied, with `home`,
/// `work`, `tmp` and `bin` made in it. Another run of the same scenario waits until this one is
/// dropped.
pub struct Claim {
    pub root: PathBuf,
    _lock: File,
}

/// Claim the scratch folder of scenario `name` under `base` ([`ROOT`] but in tests).
pub fn claim(base: &Path, name: &str) -> anyhow::Result<Claim> {
    if name.is_empty() || name.contains(['/', '\0']) || name.starts_with('.') {
        anyhow::bail!("{name:?} cannot name a scratch folder");
    }
    fs::create_dir_all(base).with_context(|| {
        format!(
            "failed to create {} (the scenarios' scratch folders live there, the same path on \
             every machine)",
            base.display()
        )
    })?;
    let lock_path = base.join(format!("{name}.lock"));
    let lock = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .with_context(|| format!("failed to open {}", lock_path.display()))?;
    if lock.try_lock().is_err() {
        eprintln!(
            "waiting for another run of {name} to leave {}",
            base.join(name).display()
        );
        lock.lock()
            .with_context(|| format!("failed to lock {}", lock_path.display()))?;
    }
    let root = base.join(name);
    if root.exists() {
        fs::remove_dir_all(&root).with_context(|| format!("failed to empty {}", root.display()))?;
    }
    for d in ["home", "work", "tmp", "bin"] {
        let d = root.join(d);
        fs::create_dir_all(&d).with_context(|| format!("failed to create {}", d.display()))?;
    }
    Ok(Claim { root, _lock: lock })
}

/// Link `cli`'s programs (found in the caller's PATH) into the scratch `bin`, and give the
/// agent's PATH: that folder, then the system folders.
pub fn provide(cli: &Cli, bin: &Path) -> anyhow::Result<String> {
    for (p, at) in find_programs(cli, &caller_path())? {
        let link = bin.join(p.name);
        let target = at.canonicalize().unwrap_or(at);
        std::os::unix::fs::symlink(&target, &link)
            .with_context(|| format!("failed to link {}", link.display()))?;
    }
    Ok(format!("{}:{SYSTEM_PATH}", bin.display()))
}

/// 2026-01-01T00:00:00Z, in seconds since the epoch.
const FILE_EPOCH: u64 = 1_767_225_600;

/// The order of a scenario's workspace files in time, for [`set_file_time`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileOrder {
    /// The first file is the newest: OpenCode and Kilo list `grep` and `glob` results newest
    /// first.
    NewestFirst,
    /// The first file is the oldest: Claude Code's Glob lists the oldest first.
    OldestFirst,
}

/// How `cli` lists search results in time ([`Cli::newest_first`]), so that the scenario's order
/// is the one it shows.
pub fn file_order(cli: &Cli) -> FileOrder {
    if cli.newest_first {
        FileOrder::NewestFirst
    } else {
        FileOrder::OldestFirst
    }
}

/// Give the `index`th of a scenario's `count` workspace files its fixed modification time, a
/// second apart in `order`. Files written in one clock tick share a time, and agents that sort
/// search results by time break ties in ripgrep's order, which varies from run to run; the corpus
/// lists them in the scenario's order.
pub fn set_file_time(
    path: &Path,
    index: usize,
    count: usize,
    order: FileOrder,
) -> anyhow::Result<()> {
    let step = match order {
        FileOrder::NewestFirst => index,
        FileOrder::OldestFirst => count.saturating_sub(index + 1),
    };
    let back = u64::try_from(step).unwrap_or(u64::MAX).min(FILE_EPOCH);
    let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs(FILE_EPOCH - back);
    File::options()
        .write(true)
        .open(path)
        .and_then(|f| f.set_modified(when))
        .with_context(|| format!("failed to set the time of {}", path.display()))
}

/// The date every git commit an agent makes carries.
const GIT_DATE: &str = "2026-01-01T00:00:00Z";

/// The agent's whole environment but what its launcher adds: the scratch folders (`root`, with
/// `home` and `tmp` in it) and the PATH [`provide`] gave.
pub fn environment(root: &Path, path: &str) -> Vec<(&'static str, String)> {
    let home = root.join("home");
    let at = |p: &str| home.join(p).display().to_string();
    let mut env = vec![
        ("HOME", home.display().to_string()),
        ("TMPDIR", root.join("tmp").display().to_string()),
        ("XDG_CONFIG_HOME", at(".config")),
        ("XDG_DATA_HOME", at(".local/share")),
        ("XDG_CACHE_HOME", at(".cache")),
        ("XDG_STATE_HOME", at(".local/state")),
        ("PATH", path.to_owned()),
        ("LANG", "C.UTF-8".to_owned()),
        ("LC_ALL", "C.UTF-8".to_owned()),
        ("TZ", "UTC".to_owned()),
        ("TERM", "xterm".to_owned()),
        ("NO_COLOR", "1".to_owned()),
        // The workspace is no repository, wherever its parent is: git stops at the scratch
        // folder, reads no system or user configuration, and dates what it writes.
        ("GIT_CEILING_DIRECTORIES", root.display().to_string()),
        ("GIT_CONFIG_NOSYSTEM", "1".to_owned()),
        ("GIT_CONFIG_GLOBAL", "/dev/null".to_owned()),
    ];
    for who in ["AUTHOR", "COMMITTER"] {
        let (name, email, date) = match who {
            "AUTHOR" => ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE"),
            _ => (
                "GIT_COMMITTER_NAME",
                "GIT_COMMITTER_EMAIL",
                "GIT_COMMITTER_DATE",
            ),
        };
        env.push((name, "toolnorm scenario".to_owned()));
        env.push((email, "scenario@toolnorm.invalid".to_owned()));
        env.push((date, GIT_DATE.to_owned()));
    }
    env
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;
    use crate::scenario::agents::cli_named;

    fn executable(dir: &Path, name: &str) -> PathBuf {
        let p = dir.join(name);
        fs::write(&p, "#!/bin/sh\n").unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    #[test]
    fn a_missing_program_is_named_with_its_install_command() {
        let dir = tempfile::tempdir().unwrap();
        executable(dir.path(), "bash");
        executable(dir.path(), "node");
        let path = dir.path().display().to_string();
        let err = find_programs(cli_named("opencode").unwrap(), &path)
            .unwrap_err()
            .to_string();
        assert!(err.contains("`rg` is not on PATH"), "{err}");
        assert!(err.contains("apt-get install ripgrep"), "{err}");
        assert!(err.contains("nothing was recorded"), "{err}");
        // A CLI that brings its own ripgrep does not need it.
        assert!(find_programs(cli_named("codex").unwrap(), &path).is_ok());
        // Nor is a file that cannot be run a program.
        fs::write(dir.path().join("rg"), "").unwrap();
        assert!(find_programs(cli_named("opencode").unwrap(), &path).is_err());
    }

    /// The error `docs/scenario-environment.md` shows is the one a machine without ripgrep gets.
    #[test]
    fn the_documented_error_is_the_real_one() {
        let dir = tempfile::tempdir().unwrap();
        executable(dir.path(), "bash");
        executable(dir.path(), "node");
        let err = find_programs(
            cli_named("qwen").unwrap(),
            &dir.path().display().to_string(),
        )
        .unwrap_err();
        let doc = include_str!("../../docs/scenario-environment.md");
        let shown = doc
            .split("```text\n")
            .nth(1)
            .and_then(|rest| rest.split("```").next())
            .unwrap();
        assert_eq!(shown, format!("error: {err:#}\n"));
    }

    #[test]
    fn ripgrep_outside_the_system_folders_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        for p in ["bash", "node", "rg"] {
            executable(dir.path(), p);
        }
        let path = dir.path().display().to_string();
        let err = find_programs(cli_named("gemini").unwrap(), &path)
            .unwrap_err()
            .to_string();
        assert!(err.contains("not in a system folder"), "{err}");
        assert!(err.contains("apt-get install ripgrep"), "{err}");
        // One in a system folder later on PATH is taken instead.
        let system = Path::new("/usr/bin");
        if system.join("rg").exists() {
            let found =
                find_programs(cli_named("gemini").unwrap(), &format!("{path}:/usr/bin")).unwrap();
            let rg = found.iter().find(|(p, _)| p.name == "rg").unwrap();
            assert_eq!(rg.1, system.join("rg"));
        }
    }

    #[test]
    fn a_claim_empties_the_folder_and_waits_for_the_other_run() {
        let base = tempfile::tempdir().unwrap();
        let first = claim(base.path(), "s").unwrap();
        fs::write(first.root.join("work/left.txt"), "x").unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let b = base.path().to_owned();
        let second = std::thread::spawn(move || {
            let c = claim(&b, "s").unwrap();
            tx.send(()).unwrap();
            c
        });
        // The second run waits while the first holds the folder.
        assert!(
            rx.recv_timeout(std::time::Duration::from_millis(300))
                .is_err()
        );
        drop(first);
        rx.recv_timeout(std::time::Duration::from_secs(10)).unwrap();
        let second = second.join().unwrap();
        assert_eq!(second.root, base.path().join("s"));
        assert!(!second.root.join("work/left.txt").exists());
        assert!(second.root.join("home").is_dir() && second.root.join("bin").is_dir());
        assert!(claim(base.path(), "../x").is_err());
    }

    #[test]
    fn workspace_files_get_fixed_times_in_the_agents_order() {
        let dir = tempfile::tempdir().unwrap();
        let time = |i: usize, order| {
            let p = dir.path().join(format!("f{i}"));
            fs::write(&p, "x").unwrap();
            set_file_time(&p, i, 2, order).unwrap();
            p.metadata().unwrap().modified().unwrap()
        };
        let newest = std::time::UNIX_EPOCH + std::time::Duration::from_secs(FILE_EPOCH);
        let (first, second) = (
            time(0, FileOrder::NewestFirst),
            time(1, FileOrder::NewestFirst),
        );
        assert_eq!(first, newest);
        assert!(first > second);
        let (first, second) = (
            time(0, FileOrder::OldestFirst),
            time(1, FileOrder::OldestFirst),
        );
        assert_eq!(second, newest);
        assert!(first < second);
        assert_eq!(
            file_order(cli_named("kilo").unwrap()),
            FileOrder::NewestFirst
        );
        assert_eq!(
            file_order(cli_named("claude").unwrap()),
            FileOrder::OldestFirst
        );
        assert!(set_file_time(&dir.path().join("missing"), 0, 1, FileOrder::OldestFirst).is_err());
    }

    #[test]
    fn the_environment_depends_on_the_scratch_folder_alone() {
        let env = environment(Path::new("/tmp/toolnorm-scenario/s"), "/p");
        let get = |k: &str| env.iter().find(|(n, _)| *n == k).map(|(_, v)| v.as_str());
        assert_eq!(get("HOME"), Some("/tmp/toolnorm-scenario/s/home"));
        assert_eq!(get("TMPDIR"), Some("/tmp/toolnorm-scenario/s/tmp"));
        assert_eq!(
            get("XDG_CONFIG_HOME"),
            Some("/tmp/toolnorm-scenario/s/home/.config")
        );
        assert_eq!(get("TZ"), Some("UTC"));
        assert_eq!(get("GIT_AUTHOR_DATE"), Some(GIT_DATE));
        assert_eq!(get("COLUMNS"), None);
    }
}
