//! Installing an agent CLI published on PyPI (Kimi CLI, Mistral Vibe): a virtualenv of its own in
//! toolnorm's cache folder (`.../clis/pypi+<pkg>@<version>`, see [`super::npm::install_dir`]),
//! made with the first Python of at least the version the CLI needs, the package `pip install`ed
//! into it. The CLI's executable is the virtualenv's `bin/<bin>`, whose `#!` line names the
//! virtualenv's Python: it runs in the scenario sandbox without anything on PATH. Its releases
//! and their publish times (for `scenario matrix --since/--last`) come from PyPI's JSON API,
//! fetched by that same Python.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{Context, bail};
use serde_json::{Map, Value};

use super::package::{Cli, Registry};
use super::process::{Finished, run_with_timeout};

/// Why a PyPI CLI could not be installed.
#[derive(Debug, thiserror::Error)]
pub enum PypiError {
    #[error(
        "{package} needs Python {python} or later (its Requires-Python) and none was found \
         (python3.N on PATH, or a pyenv version under {pyenv}); install one with \
         `apt-get install python3 python3-venv` if your system's Python is {python} or later, \
         or `pyenv install {python}`"
    )]
    NoPython {
        package: String,
        python: String,
        pyenv: String,
    },
    #[error(
        "{python} -m venv {dir} failed (on Debian the venv module is a package of its own: \
         `apt-get install python3-venv`, or python3.N-venv for that version):\n{log}"
    )]
    Venv {
        python: PathBuf,
        dir: PathBuf,
        log: String,
    },
    #[error("pip install {spec} failed (is PyPI reachable?):\n{log}")]
    Pip { spec: String, log: String },
    #[error("{tool} for {spec} timed out after {secs}s (is PyPI reachable?)")]
    Timeout {
        tool: &'static str,
        spec: String,
        secs: u64,
    },
    #[error("failed to run {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The highest minor version of Python 3 looked for.
const LAST_MINOR: u32 = 20;

/// `"3.12"` → `(3, 12)`.
fn parse_version(v: &str) -> Option<(u32, u32)> {
    let (major, minor) = v.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// pyenv's folder: `$PYENV_ROOT`, else `~/.pyenv`.
fn pyenv_root() -> Option<PathBuf> {
    if let Some(r) = std::env::var_os("PYENV_ROOT").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(r));
    }
    std::env::var_os("HOME")
        .filter(|v| !v.is_empty())
        .map(|h| PathBuf::from(h).join(".pyenv"))
}

fn executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The first Python of at least `min` (`MAJOR.MINOR`): for each minor version from `min` up,
/// `python3.N` in a folder of `path` (a PATH value; pyenv's shims are passed over, as they run
/// only the version pyenv has selected), then pyenv's newest `3.N.*` under `pyenv`.
pub fn find_python(min: &str, path: &str, pyenv: Option<&Path>) -> Option<PathBuf> {
    let (major, first) = parse_version(min)?;
    if major != 3 {
        return None;
    }
    for minor in first..=LAST_MINOR {
        let name = format!("python3.{minor}");
        let on_path = path
            .split(':')
            .filter(|d| !d.is_empty() && !d.ends_with("/shims"))
            .map(|d| Path::new(d).join(&name))
            .find(|p| executable(p));
        if on_path.is_some() {
            return on_path;
        }
        let Some(versions) = pyenv.and_then(|r| std::fs::read_dir(r.join("versions")).ok()) else {
            continue;
        };
        let prefix = format!("3.{minor}.");
        let mut found: Vec<(u32, PathBuf)> = versions
            .filter_map(Result::ok)
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                let patch: u32 = name.strip_prefix(&prefix)?.parse().ok()?;
                let python = e.path().join("bin/python");
                executable(&python).then_some((patch, python))
            })
            .collect();
        found.sort();
        if let Some((_, python)) = found.pop() {
            return Some(python);
        }
    }
    None
}

/// The Python `min` asks for on this machine, or the error naming how to install one.
fn python_for(package: &str, min: &str) -> Result<PathBuf, PypiError> {
    let pyenv = pyenv_root();
    let path = std::env::var("PATH").unwrap_or_default();
    find_python(min, &path, pyenv.as_deref()).ok_or_else(|| PypiError::NoPython {
        package: package.to_owned(),
        python: min.to_owned(),
        pyenv: pyenv.map_or_else(|| "~/.pyenv".to_owned(), |p| p.display().to_string()),
    })
}

/// Make the virtualenv `dir` (unless made) and `pip install spec` into it.
pub(super) fn install(
    package: &str,
    python: &str,
    dir: &Path,
    spec: &str,
) -> Result<(), PypiError> {
    let venv_python = dir.join("bin/python");
    // A virtualenv is whole once pip is in it (the last thing `venv` installs): one an
    // interrupted install left without it is made again (`--clear`).
    if !executable(&dir.join("bin/pip")) {
        let base = python_for(package, python)?;
        if let Some(parent) = dir.parent() {
            std::fs::create_dir_all(parent).map_err(|source| PypiError::Io {
                path: parent.to_owned(),
                source,
            })?;
        }
        let mut cmd = Command::new(&base);
        cmd.args(["-m", "venv", "--clear"])
            .arg(dir)
            .stdin(Stdio::null());
        match run_with_timeout(cmd, Duration::from_secs(120)) {
            Err(source) => return Err(PypiError::Io { path: base, source }),
            Ok(Finished::Exited { success: true, .. }) => {}
            Ok(Finished::Exited { output, .. }) => {
                return Err(PypiError::Venv {
                    python: base,
                    dir: dir.to_owned(),
                    log: last_lines(&output),
                });
            }
            Ok(Finished::TimedOut) => {
                return Err(PypiError::Timeout {
                    tool: "python -m venv",
                    spec: spec.to_owned(),
                    secs: 120,
                });
            }
        }
    }
    let mut cmd = Command::new(&venv_python);
    cmd.args([
        "-m",
        "pip",
        "install",
        "--disable-pip-version-check",
        "--no-input",
        "--quiet",
        spec,
    ])
    .stdin(Stdio::null());
    let secs = 900;
    match run_with_timeout(cmd, Duration::from_secs(secs)) {
        Err(source) => Err(PypiError::Io {
            path: venv_python,
            source,
        }),
        Ok(Finished::Exited { success: true, .. }) => Ok(()),
        Ok(Finished::Exited { output, .. }) => Err(PypiError::Pip {
            spec: spec.to_owned(),
            log: last_lines(&output),
        }),
        Ok(Finished::TimedOut) => Err(PypiError::Timeout {
            tool: "pip",
            spec: spec.to_owned(),
            secs,
        }),
    }
}

/// The last 15 lines of an installer's output, for its error.
pub fn last_lines(output: &[u8]) -> String {
    let text = String::from_utf8_lossy(output);
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(15)..].join("\n")
}

/// What the Python below prints: `{version: first upload time}` of a PyPI package's releases
/// (yanked files left out), the shape `npm view PACKAGE time --json` gives.
const RELEASE_TIMES: &str = r#"
import json, sys, urllib.request
with urllib.request.urlopen("https://pypi.org/pypi/%s/json" % sys.argv[1], timeout=60) as r:
    doc = json.load(r)
times = {}
for version, files in doc.get("releases", {}).items():
    up = sorted(f["upload_time_iso_8601"] for f in files if not f.get("yanked"))
    if up:
        times[version] = up[0]
print(json.dumps(times))
"#;

/// A PyPI package's releases and their publish times, asked of PyPI's JSON API.
pub fn release_times(cli: &Cli) -> anyhow::Result<Map<String, Value>> {
    let Registry::Pypi { python } = cli.registry else {
        bail!("{} is not a PyPI package", cli.package);
    };
    let python = python_for(cli.package, python)?;
    let out = Command::new(&python)
        .args(["-c", RELEASE_TIMES, cli.package])
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("failed to run {}", python.display()))?;
    if !out.status.success() {
        bail!(
            "asking PyPI for the releases of {} failed (is pypi.org reachable?): {}",
            cli.package,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    match serde_json::from_slice(&out.stdout) {
        Ok(Value::Object(m)) => Ok(m),
        _ => bail!(
            "PyPI's answer for {} did not give its releases",
            cli.package
        ),
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn exe(path: &Path) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// The lowest minor version at least the minimum wins, PATH before pyenv for one version;
    /// pyenv's newest patch release; shims and too-old versions are passed over.
    #[test]
    fn the_first_python_new_enough_is_found() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        exe(&root.join("usr/bin/python3.11"));
        exe(&root.join("usr/bin/python3.13"));
        exe(&root.join("shims/python3.12"));
        exe(&root.join("pyenv/versions/3.12.1/bin/python"));
        exe(&root.join("pyenv/versions/3.12.10/bin/python"));
        exe(&root.join("pyenv/versions/3.11.7/bin/python"));
        let path = format!(
            "{}:{}",
            root.join("shims").display(),
            root.join("usr/bin").display()
        );
        let pyenv = root.join("pyenv");
        assert_eq!(
            find_python("3.12", &path, Some(&pyenv)),
            Some(pyenv.join("versions/3.12.10/bin/python"))
        );
        assert_eq!(
            find_python("3.13", &path, Some(&pyenv)),
            Some(root.join("usr/bin/python3.13"))
        );
        assert_eq!(
            find_python("3.11", &path, None),
            Some(root.join("usr/bin/python3.11"))
        );
        assert_eq!(find_python("3.14", &path, Some(&pyenv)), None);
        assert_eq!(find_python("3.12", "", None), None);
        assert_eq!(find_python("three", &path, None), None);
    }

    /// Without a Python new enough, the error names the version and both ways to install one.
    #[test]
    fn a_missing_python_names_its_install_command() {
        let e = PypiError::NoPython {
            package: "kimi-cli".into(),
            python: "3.12".into(),
            pyenv: "/nonexistent/.pyenv".into(),
        }
        .to_string();
        assert!(e.starts_with("kimi-cli needs Python 3.12 or later"), "{e}");
        assert!(e.contains("`pyenv install 3.12`"), "{e}");
        assert!(e.contains("`apt-get install python3 python3-venv`"), "{e}");
    }
}
