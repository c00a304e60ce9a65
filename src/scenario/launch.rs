//! What a run hands its launcher: the run's options, the scratch folders, the agent's command under
//! construction ([`AgentCommand`]), and [`Launch`] — how to start the configured agent with a clean
//! environment and record it through the typed recording API. The runner ([`super::run`]) builds
//! these; the launchers ([`super::agents`]) use them.

use std::fs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::Context;

use super::mcp_server::ServerCommand;
use super::npm;
use super::package::Cli;
use super::sandbox;
use super::spec::Scenario;
use crate::corpus::record::{AgentEnds, Recording, SseOptions, Subscription, WrappedAgent};
use crate::corpus::redact::{RedactOptions, Redactor};
use crate::stream::Provider;

/// How `scenario run` records.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The corpus root (`corpus/`); fixtures land in `<corpus>/<provider>/live-<name>.jsonl.zst`.
    pub corpus: PathBuf,
    /// Overwrite existing fixtures.
    pub force: bool,
    /// Keep the scratch folder (printed) for inspection.
    pub keep_scratch: bool,
    /// Copy each scenario's model request log here as `<name>.requests.jsonl`.
    pub request_logs: Option<PathBuf>,
    /// Use this CLI version instead of the scenario's pin (drift).
    pub version_override: Option<String>,
    /// Do not record: write the agent's raw stream to `<corpus>/<provider>/live-<name>.jsonl`
    /// (for exploring a new CLI version).
    pub raw: bool,
}

/// The scratch folders of one run: [`sandbox::ROOT`]`/<scenario>`, the same path on every
/// machine, held for the run (see [`sandbox::claim`]).
pub struct Scratch {
    pub root: PathBuf,
    pub home: PathBuf,
    pub work: PathBuf,
    /// The agent's PATH folder of links to the programs it needs ([`sandbox::provide`]).
    pub bin: PathBuf,
    _claim: sandbox::Claim,
}

impl Scratch {
    pub(super) fn create(name: &str) -> anyhow::Result<Scratch> {
        Scratch::create_in(Path::new(sandbox::ROOT), name)
    }

    /// The scratch folders of `name` under `base`: tests use a temporary folder, so they never
    /// wait for a live run's scratch folder nor empty one a run kept.
    pub(super) fn create_in(base: &Path, name: &str) -> anyhow::Result<Scratch> {
        let claim = sandbox::claim(base, name)?;
        // Canonical paths: the CLIs print resolved paths, and redaction must match them.
        let root = claim
            .root
            .canonicalize()
            .context("failed to resolve the scratch folder")?;
        Ok(Scratch {
            home: root.join("home"),
            work: root.join("work"),
            bin: root.join("bin"),
            root,
            _claim: claim,
        })
    }

    /// Fold the scratch folders out of `text` (for files written beside the recorder's).
    pub fn redact_paths(&self, text: &str) -> String {
        text.replace(&self.work.display().to_string(), "~/work")
            .replace(&self.home.display().to_string(), "~")
            .replace(&self.root.display().to_string(), "~/scratch")
    }
}

/// What a launcher needs to configure the agent and build its command line.
pub struct Setup<'a> {
    pub scenario: &'a Scenario,
    pub scratch: &'a Scratch,
    /// The scripted model server, `http://127.0.0.1:<port>`.
    pub model_url: String,
    /// How the agent starts the fixture MCP server (when the scenario gives it one).
    pub mcp: &'a ServerCommand,
}

/// The agent command under construction: program, arguments, environment.
pub struct AgentCommand {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
}

impl AgentCommand {
    pub(super) fn new(bin: &Path) -> AgentCommand {
        AgentCommand {
            program: bin.to_owned(),
            args: Vec::new(),
            env: Vec::new(),
        }
    }

    pub fn arg(&mut self, a: impl Into<String>) -> &mut Self {
        self.args.push(a.into());
        self
    }

    pub fn env(&mut self, k: &str, v: impl Into<String>) -> &mut Self {
        self.env.push((k.to_owned(), v.into()));
        self
    }
}

/// A scratch folder for `s` under `base`, and the command `launcher` configures and builds in it
/// (the model server at a closed port, the MCP server as `mcp` spells it): what a launcher does
/// before the agent starts, for the tests that check it.
#[cfg(test)]
pub(crate) fn configured(
    launcher: &dyn super::agents::Launcher,
    s: &Scenario,
    base: &Path,
    mcp: &ServerCommand,
) -> (Scratch, AgentCommand) {
    let scratch = Scratch::create_in(base, &s.name).unwrap();
    let setup = Setup {
        scenario: s,
        scratch: &scratch,
        model_url: "http://127.0.0.1:1".to_owned(),
        mcp,
    };
    let mut cmd = AgentCommand::new(Path::new("agent"));
    launcher.configure(&setup, &mut cmd).unwrap();
    launcher.command(&setup, &mut cmd);
    (scratch, cmd)
}

/// Write `text` to `path`, creating its folder.
pub fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)
            .with_context(|| format!("failed to create {}", parent.display()))?;
    }
    fs::write(path, text).with_context(|| format!("failed to write {}", path.display()))
}

/// `over` merged into `base` key by key: objects merge, anything else replaces.
pub fn merge_json(base: &mut serde_json::Value, over: &serde_json::Value) {
    match (base, over) {
        (serde_json::Value::Object(b), serde_json::Value::Object(o)) => {
            for (k, v) in o {
                merge_json(b.entry(k.clone()).or_insert(serde_json::Value::Null), v);
            }
        }
        (b, o) => *b = o.clone(),
    }
}

/// The scenario's `config` overrides as JSON (none: an empty object).
pub fn config_overrides(s: &Scenario) -> anyhow::Result<serde_json::Value> {
    Ok(match &s.config {
        Some(t) => serde_json::to_value(t).context("the scenario's config is not JSON")?,
        None => serde_json::Value::Object(Default::default()),
    })
}

/// A TOML configuration file's text: `base` with the scenario's `config` merged over it key by
/// key (for the agents whose own configuration is TOML: Kimi CLI, Mistral Vibe).
pub fn merged_toml(base: &str, s: &Scenario) -> anyhow::Result<String> {
    let table: toml::Table =
        toml::from_str(base).context("the agent's configuration is not TOML")?;
    let mut merged =
        serde_json::to_value(table).context("the agent's configuration is not JSON")?;
    merge_json(&mut merged, &config_overrides(s)?);
    let table: toml::Table =
        serde_json::from_value(merged).context("the merged configuration is not TOML")?;
    toml::to_string(&table).context("the merged configuration does not serialize as TOML")
}

/// The API key the agents are given for the scripted model.
pub const API_KEY: &str = "sk-scripted-model-key";

/// The port written in fixtures in place of the model server's real (free, random) one.
const STABLE_PORT: u16 = 8080;

/// Likewise for the HTTPS page server's port.
const STABLE_HTTPS_PORT: u16 = 8443;

/// What a launcher needs to start, record and drive the configured agent.
pub struct Launch<'a> {
    pub scenario: &'a Scenario,
    pub agent: &'a AgentCommand,
    pub scratch: &'a Scratch,
    /// The fixture to write (`.jsonl` in raw mode).
    pub fixture: &'a Path,
    pub opts: &'a RunOptions,
    /// The scenario's time limit for the whole session.
    pub limit: Duration,
    pub(super) cli: &'a Cli,
    /// The corpus provider folder the fixture goes to.
    pub(super) provider: Provider,
    pub(super) version: &'a str,
    /// How the agent starts the fixture MCP server (as [`Setup::mcp`]).
    pub mcp: &'a ServerCommand,
    /// The dialect, when the launcher names it (see `Launcher::dialect`).
    pub(super) dialect: Option<crate::stream::Dialect>,
    /// The model server's port (also the page server's), folded to a fixed one in fixtures so
    /// titles built from URLs do not change from run to run.
    pub(super) model_port: u16,
    /// The HTTPS page server's port, folded to 8443 likewise.
    pub(super) https_port: Option<u16>,
}

impl Launch<'_> {
    /// A `Command` for the agent with an environment made from nothing (nothing of the machine's
    /// or the real user's reaches the CLI: the pinned sandbox of [`sandbox::environment`] and
    /// what the launcher set), in the workspace, leading a process group of its own so that
    /// everything it starts (MCP servers, shells, ripgrep) can be ended together.
    /// When to interrupt the agent (an interrupted turn), counted from now.
    pub fn interrupt(&self) -> Option<super::interrupt::Interrupt> {
        super::interrupt::Interrupt::of(self.scenario, &self.scratch.root)
    }

    pub fn command(&self) -> Command {
        let mut c = Command::new(&self.agent.program);
        c.args(&self.agent.args).env_clear();
        for (k, v) in &self.agent.env {
            c.env(k, v);
        }
        c.current_dir(&self.scratch.work).process_group(0);
        c
    }

    /// Start the agent `cmd` with `ends`, recorded (or not, in raw mode).
    pub fn spawn(&self, cmd: Command, ends: AgentEnds) -> anyhow::Result<WrappedAgent> {
        match self.recording(&cmd)? {
            Some(r) => r.spawn(cmd, ends),
            None => WrappedAgent::unrecorded(cmd, ends),
        }
    }

    /// Subscribe to the event stream of the agent `cmd` started, recorded (or not, in raw mode).
    pub fn subscribe(&self, cmd: &Command, sse: SseOptions) -> anyhow::Result<Subscription> {
        match self.recording(cmd)? {
            Some(r) => r.subscribe(sse),
            None => Subscription::unrecorded(sse),
        }
    }

    /// Raw mode: write what the agent printed as the fixture, the scratch folders folded.
    pub fn write_raw(&self, text: &str) -> anyhow::Result<()> {
        fs::write(self.fixture, self.scratch.redact_paths(text))
            .with_context(|| format!("failed to write {}", self.fixture.display()))
    }

    /// The recording of this scenario (None in raw mode). The header takes the allow-listed part
    /// of the environment `cmd` runs in; redaction folds what differs from run to run.
    fn recording(&self, cmd: &Command) -> anyhow::Result<Option<Recording>> {
        if self.opts.raw {
            return Ok(None);
        }
        let s = self.scenario;
        let redactor = self.redactor()?;
        let env = cmd
            .get_envs()
            .filter_map(|(k, v)| Some((k.to_str()?, v?.to_str()?)));
        Ok(Some(Recording {
            cli: Some(self.cli.display.to_owned()),
            cli_version: Some(self.version.to_owned()),
            scenario: Some(s.name.clone()),
            dialect: self.dialect,
            env: Some(Recording::allowed_env(env)),
            force: self.opts.force,
            detect: Some(crate::dialects::detector),
            ..Recording::new(
                &self.opts.corpus,
                self.provider,
                &s.fixture_name(),
                redactor,
            )?
        }))
    }

    /// The redaction of this scenario's fixtures: secrets, the scratch HOME as `~`, and the
    /// path prefixes of [`folds`](Self::folds).
    pub(super) fn redactor(&self) -> anyhow::Result<Redactor> {
        Ok(Redactor::new(&RedactOptions {
            // The agent's home is the scratch one.
            home: Some(self.scratch.home.display().to_string()),
            prefixes: self.folds(),
            extra: Vec::new(),
        })?)
    }

    /// The path prefixes folded in fixtures, and what they become.
    fn folds(&self) -> Vec<(String, String)> {
        let scratch = self.scratch;
        let work = scratch.work.display().to_string();
        // Scratch paths fold like home paths; the most specific prefix first.
        let mut maps = vec![
            (work.clone(), "~/work".to_owned()),
            (scratch.home.display().to_string(), "~".to_owned()),
            (scratch.root.display().to_string(), "~/scratch".to_owned()),
        ];
        // Claude Code names per-project folders after the workspace path with every other
        // character turned into `-` (`~/.claude/projects/-tmp-…-work`): fold that spelling too.
        let slug: String = work
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        maps.push((slug, "-work".to_owned()));
        // OpenCode's session `path` is the workspace without its leading `/`.
        maps.push((work.trim_start_matches('/').to_owned(), "work".to_owned()));
        // The CLI cache and the toolnorm binary live under the real user's folders: fold them too.
        if let Ok(cache) = npm::cache_root() {
            maps.push((
                cache.display().to_string(),
                "~/.cache/toolnorm/clis".to_owned(),
            ));
        }
        if let Ok(exe) = std::env::current_exe() {
            maps.extend(exe_fold(&exe, &[&scratch.root, &std::env::temp_dir()]));
        }
        maps.push((
            format!("127.0.0.1:{}", self.model_port),
            format!("127.0.0.1:{STABLE_PORT}"),
        ));
        if let Some(port) = self.https_port {
            maps.push((
                format!("127.0.0.1:{port}"),
                format!("127.0.0.1:{STABLE_HTTPS_PORT}"),
            ));
        }
        maps
    }
}

/// How the toolnorm binary's path folds (`~/toolnorm-bin/…`): its folder, unless that folder
/// holds one of `shared` (the scratch folder, the system's temporary folder), where folding it
/// would rename paths that are not the binary's; then only the binary itself.
fn exe_fold(exe: &Path, shared: &[&Path]) -> Option<(String, String)> {
    let dir = exe.parent()?;
    if shared.iter().any(|s| s.starts_with(dir)) {
        let name = exe.file_name()?.to_string_lossy();
        return Some((exe.display().to_string(), format!("~/toolnorm-bin/{name}")));
    }
    Some((dir.display().to_string(), "~/toolnorm-bin".to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_merge_key_by_key() {
        let mut base =
            serde_json::json!({"permission": {"bash": "allow", "edit": "allow"}, "model": "a"});
        merge_json(
            &mut base,
            &serde_json::json!({"permission": {"bash": {"rm *": "deny"}}, "small_model": "b"}),
        );
        assert_eq!(
            base,
            serde_json::json!({"permission": {"bash": {"rm *": "deny"}, "edit": "allow"}, "model": "a", "small_model": "b"})
        );
    }

    #[test]
    fn a_toml_configuration_takes_the_scenarios_config() {
        let scenario: Scenario = toml::from_str(
            "name = \"s\"\ndescription = \"\"\nagent = \"kimi\"\ncli_version = \"1\"\n\
             prompt = \"p\"\nturns = []\n\
             config = { services = { search = { url = \"u\" } }, models = { m = { caps = [\"image_in\"] } } }\n",
        )
        .unwrap();
        let base = "default_model = \"m\"\n[models.m]\nprovider = \"p\"\nmax = 128\n";
        let merged: toml::Table = toml::from_str(&merged_toml(base, &scenario).unwrap()).unwrap();
        let expected: toml::Table = toml::from_str(
            "default_model = \"m\"\n[models.m]\nprovider = \"p\"\nmax = 128\ncaps = [\"image_in\"]\n\
             [services.search]\nurl = \"u\"\n",
        )
        .unwrap();
        assert_eq!(merged, expected);
        // No `config`: the base, unchanged.
        let mut plain = scenario;
        plain.config = None;
        let same: toml::Table = toml::from_str(&merged_toml(base, &plain).unwrap()).unwrap();
        assert_eq!(same, toml::from_str::<toml::Table>(base).unwrap());
        assert!(merged_toml("not = toml = at all", &plain).is_err());
    }

    #[test]
    fn the_binary_in_the_temporary_folder_folds_alone() {
        let (tmp, scratch) = (Path::new("/tmp"), Path::new("/tmp/toolnorm-scenario-1"));
        assert_eq!(
            exe_fold(Path::new("/tmp/toolnorm"), &[scratch, tmp]),
            Some(("/tmp/toolnorm".into(), "~/toolnorm-bin/toolnorm".into()))
        );
        assert_eq!(
            exe_fold(Path::new("/tmpx/bin/toolnorm"), &[scratch, tmp]),
            Some(("/tmpx/bin".into(), "~/toolnorm-bin".into()))
        );
    }
}
