//! Installing a pinned agent CLI version into toolnorm's cache folder, never globally, reused when
//! present: from the npm registry into `$XDG_CACHE_HOME/toolnorm/clis/<pkg>@<version>`, or from
//! PyPI into a virtualenv of its own, `.../clis/pypi+<pkg>@<version>` ([`super::pypi`]).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use super::package::{Cli, Registry};
use super::process::{Finished, run_with_timeout};
use super::pypi;

/// Why a CLI could not be installed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("npm was not found on PATH; install Node.js and npm to run live scenarios")]
    NoNpm,
    #[error("no cache folder: set XDG_CACHE_HOME or HOME")]
    NoCache,
    #[error("failed to prepare {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("npm install {spec} failed (is the npm registry reachable?):\n{log}")]
    Npm { spec: String, log: String },
    #[error(transparent)]
    Pypi(#[from] pypi::PypiError),
    #[error("{tool} install {spec} timed out after {secs}s (is the registry reachable?)")]
    Timeout {
        tool: &'static str,
        spec: String,
        secs: u64,
    },
    #[error("installing {spec} gave no {bin} in {dir}")]
    NoBinary {
        spec: String,
        bin: String,
        dir: PathBuf,
    },
}

/// The root of toolnorm's CLI cache.
pub fn cache_root() -> Result<PathBuf, InstallError> {
    if let Some(x) = std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(x).join("toolnorm/clis"));
    }
    let home = std::env::var_os("HOME")
        .filter(|v| !v.is_empty())
        .ok_or(InstallError::NoCache)?;
    Ok(PathBuf::from(home).join(".cache/toolnorm/clis"))
}

/// The folder one CLI version installs into (`/` of a scoped package becomes `+`; a PyPI
/// package's folder starts `pypi+`, apart from an npm package of the same name).
pub fn install_dir(root: &Path, cli: &Cli, version: &str) -> PathBuf {
    let registry = match cli.registry {
        Registry::Npm => "",
        Registry::Pypi { .. } => "pypi+",
    };
    root.join(format!(
        "{registry}{}@{}",
        cli.package.replace('/', "+"),
        version
    ))
}

/// The executable of an installed CLI.
pub fn bin_path(dir: &Path, cli: &Cli) -> PathBuf {
    match cli.registry {
        Registry::Npm => dir.join("node_modules/.bin").join(cli.bin),
        Registry::Pypi { .. } => dir.join("bin").join(cli.bin),
    }
}

/// How `--cli NAME@VERSION`'s package is written for its registry's installer
/// (`cline@3.0.65`, `kimi-cli==1.52.0`).
pub fn install_spec(cli: &Cli, version: &str) -> String {
    match cli.registry {
        Registry::Npm => format!("{}@{}", cli.package, version),
        Registry::Pypi { .. } => format!("{}=={}", cli.package, version),
    }
}

/// Install `cli@version` unless already cached; return the path of its executable.
pub fn ensure(cli: &Cli, version: &str) -> Result<PathBuf, InstallError> {
    let dir = install_dir(&cache_root()?, cli, version);
    let bin = bin_path(&dir, cli);
    if bin.exists() {
        return Ok(bin);
    }
    // Scenarios recorded at once ask for the same CLI at once: one installs it, the others wait
    // for it and find it installed. Two installers in one folder break each other (a second
    // `pip` would find the first's virtualenv made but pip not yet in it).
    let _installing = lock_install(&dir)?;
    if bin.exists() {
        return Ok(bin);
    }
    let spec = install_spec(cli, version);
    if let Registry::Pypi { python } = cli.registry {
        pypi::install(cli.package, python, &dir, &spec)?;
        return if bin.exists() {
            Ok(bin)
        } else {
            Err(InstallError::NoBinary {
                spec,
                bin: cli.bin.to_owned(),
                dir,
            })
        };
    }
    fs::create_dir_all(&dir).map_err(io(&dir))?;
    // A package.json makes `--prefix` install here instead of walking up to a parent project.
    let manifest = dir.join("package.json");
    if !manifest.exists() {
        fs::write(&manifest, "{\"private\": true}\n").map_err(io(&manifest))?;
    }
    let mut cmd = Command::new("npm");
    cmd.args(["install", "--prefix"])
        .arg(&dir)
        .args([
            "--no-audit",
            "--no-fund",
            "--no-save",
            "--loglevel",
            "error",
            &spec,
        ])
        .stdin(Stdio::null());
    let secs = 600;
    match run_with_timeout(cmd, Duration::from_secs(secs)) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(InstallError::NoNpm),
        Err(source) => return Err(InstallError::Io { path: dir, source }),
        Ok(Finished::TimedOut) => {
            return Err(InstallError::Timeout {
                tool: "npm",
                spec,
                secs,
            });
        }
        Ok(Finished::Exited {
            success: false,
            output,
            ..
        }) => {
            return Err(InstallError::Npm {
                spec,
                log: pypi::last_lines(&output),
            });
        }
        Ok(Finished::Exited { success: true, .. }) => {}
    }
    if !bin.exists() {
        return Err(InstallError::NoBinary {
            spec,
            bin: cli.bin.to_owned(),
            dir,
        });
    }
    Ok(bin)
}

/// Hold the lock of the install folder `dir` (a `<folder>.lock` file beside it) until the
/// returned file is dropped; wait while another process or thread holds it.
fn lock_install(dir: &Path) -> Result<fs::File, InstallError> {
    let parent = dir.parent().unwrap_or(dir);
    fs::create_dir_all(parent).map_err(io(parent))?;
    let mut name = dir.file_name().unwrap_or_default().to_owned();
    name.push(".lock");
    let path = parent.join(name);
    let file = fs::File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(io(&path))?;
    file.lock().map_err(io(&path))?;
    Ok(file)
}

/// An [`InstallError::Io`] for `path`.
fn io(path: &Path) -> impl FnOnce(std::io::Error) -> InstallError {
    let path = path.to_owned();
    move |source| InstallError::Io { path, source }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cli(package: &'static str, bin: &'static str, registry: Registry) -> Cli {
        Cli {
            package,
            registry,
            bin,
            display: bin,
            aliases: &[],
            node: false,
            ripgrep: false,
            newest_first: false,
            declared: None,
        }
    }

    /// One install of a folder at a time: a second installer waits until the first is done
    /// (scenarios recorded at once all ask for their CLI). The lock is a file beside the folder.
    #[test]
    fn a_second_installer_waits_for_the_first() {
        let base = tempfile::tempdir().unwrap();
        let dir = base.path().join("clis").join("pypi+kimi-cli@1.51.0");
        let first = lock_install(&dir).unwrap();
        assert!(base.path().join("clis/pypi+kimi-cli@1.51.0.lock").is_file());
        let (tx, rx) = std::sync::mpsc::channel();
        let waiting = dir.clone();
        let second = std::thread::spawn(move || {
            let held = lock_install(&waiting).unwrap();
            tx.send(()).unwrap();
            drop(held);
        });
        assert!(
            rx.recv_timeout(std::time::Duration::from_millis(300))
                .is_err(),
            "the second installer went ahead while the first held the lock"
        );
        drop(first);
        rx.recv().unwrap();
        second.join().unwrap();
    }

    /// An npm package installs under its name, its executable in `node_modules/.bin`; a PyPI
    /// package into a virtualenv of its own (`pypi+`), its executable in `bin`, pinned with `==`.
    #[test]
    fn each_registry_has_its_folder_executable_and_spec() {
        let root = Path::new("/c");
        let npm = cli("@openai/codex", "codex", Registry::Npm);
        let dir = install_dir(root, &npm, "0.160.0");
        assert_eq!(dir, Path::new("/c/@openai+codex@0.160.0"));
        assert_eq!(
            bin_path(&dir, &npm),
            Path::new("/c/@openai+codex@0.160.0/node_modules/.bin/codex")
        );
        assert_eq!(install_spec(&npm, "0.160.0"), "@openai/codex@0.160.0");
        let pypi = cli("kimi-cli", "kimi", Registry::Pypi { python: "3.12" });
        let dir = install_dir(root, &pypi, "1.52.0");
        assert_eq!(dir, Path::new("/c/pypi+kimi-cli@1.52.0"));
        assert_eq!(
            bin_path(&dir, &pypi),
            Path::new("/c/pypi+kimi-cli@1.52.0/bin/kimi")
        );
        assert_eq!(install_spec(&pypi, "1.52.0"), "kimi-cli==1.52.0");
    }
}
