//! An agent CLI as its registry publishes it (npm or PyPI): the package, the executable it
//! installs, the name fixture headers give it, and how the tools it declares are probed. Each agent file
//! (`agents/<cli>.rs`) declares its CLI as a `static`; the rows of the agent registry
//! (`agents/mod.rs`) point at it, several rows (`codex-exec`, `codex-app-server`) at one CLI.

use serde_json::Value;

use crate::providers::gemini::tools::Family;
use crate::stream::Dialect;

/// One installable agent CLI.
#[derive(Debug)]
pub struct Cli {
    /// The package it is published as (`@openai/codex` on npm, `kimi-cli` on PyPI).
    pub package: &'static str,
    /// The registry it is published in, and so how it is installed.
    pub registry: Registry,
    /// The executable the package installs (into `node_modules/.bin` from npm, the virtualenv's
    /// `bin` from PyPI): `codex`, `kimi`.
    pub bin: &'static str,
    /// Its name in fixture headers (`codex-cli`).
    pub display: &'static str,
    /// Other names `--cli NAME@VERSION` takes for it, beside the package, the executable and the
    /// display name.
    pub aliases: &'static [&'static str],
    /// Its executable is a Node.js script: `node` must be on the agent's PATH (Claude Code,
    /// OpenCode and droid ship native binaries).
    pub node: bool,
    /// Its grep and glob tools run the machine's ripgrep (`rg`) rather than a bundled one.
    pub ripgrep: bool,
    /// Its search tools list files newest first (OpenCode, Kilo); the scenario sandbox then
    /// dates a scenario's first file the newest, otherwise the oldest.
    pub newest_first: bool,
    /// How `scenario drift` holds the tools it declares to a specific title and kind; `None` for
    /// a CLI that check does not cover.
    pub(crate) declared: Option<Declared>,
}

/// Where a CLI is published, and so how `scenario run` installs a version of it into toolnorm's
/// cache folder (`scenario::npm`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Registry {
    /// npm: `npm install PACKAGE@VERSION` into a folder of its own.
    Npm,
    /// PyPI: a virtualenv of its own made with a Python of at least this version (`"3.12"`, the
    /// package's `Requires-Python`), `pip install PACKAGE==VERSION` into it.
    Pypi {
        /// The lowest Python version the package runs on, `MAJOR.MINOR`.
        python: &'static str,
    },
}

/// How a CLI's normalizer is asked what it makes of a tool with empty input.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Declared {
    /// The Gemini CLI family's shared table, asked directly.
    Family(Family),
    /// A one-line stream of the dialect that calls the tool (named by the argument) with empty
    /// input, normalized; an array is a stream of several lines (an ACP agent's `initialize`
    /// exchange naming the agent, then the call).
    Call(Dialect, fn(&str) -> Value),
}

impl Cli {
    /// Whether `--cli NAME` names this CLI.
    pub fn is_named(&self, name: &str) -> bool {
        name == self.package
            || name == self.bin
            || name == self.display
            || self.aliases.contains(&name)
    }
}

impl PartialEq for Cli {
    fn eq(&self, other: &Cli) -> bool {
        self.package == other.package
    }
}

impl Eq for Cli {}
