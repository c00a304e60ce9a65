//! Installing a pinned agent CLI version from the npm registry into toolnorm's cache folder
//! (`$XDG_CACHE_HOME/toolnorm/clis/<pkg>@<version>`), never globally, reused when present.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use super::package::Cli;
use super::process::{Finished, run_with_timeout};

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
    #[error("npm install {spec} timed out after {secs}s (is the npm registry reachable?)")]
    Timeout { spec: String, secs: u64 },
    #[error("npm installed {spec} but {bin} is missing from {dir}")]
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

/// The folder one CLI version installs into (`/` of a scoped package becomes `+`).
pub fn install_dir(root: &Path, cli: &Cli, version: &str) -> PathBuf {
    root.join(format!("{}@{}", cli.package.replace('/', "+"), version))
}

/// The executable of an installed CLI.
pub fn bin_path(dir: &Path, cli: &Cli) -> PathBuf {
    dir.join("node_modules/.bin").join(cli.bin)
}

/// Install `cli@version` unless already cached; return the path of its executable.
pub fn ensure(cli: &Cli, version: &str) -> Result<PathBuf, InstallError> {
    let dir = install_dir(&cache_root()?, cli, version);
    let bin = bin_path(&dir, cli);
    if bin.exists() {
        return Ok(bin);
    }
    let spec = format!("{}@{}", cli.package, version);
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| InstallError::Io { path, source }
    };
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
        Ok(Finished::TimedOut) => return Err(InstallError::Timeout { spec, secs }),
        Ok(Finished::Exited {
            success: false,
            output,
            ..
        }) => {
            let log = String::from_utf8_lossy(&output)
                .lines()
                .rev()
                .take(15)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect::<Vec<_>>()
                .join("\n");
            return Err(InstallError::Npm { spec, log });
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
