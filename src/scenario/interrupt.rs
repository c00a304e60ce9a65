//! When an interrupted turn is interrupted. A fixed delay (`interrupt_after_secs`) interrupts
//! the agent at a different point of its turn on a busy machine than on an idle one: before the
//! long command started, the recording is another session. With `interrupt_when_running`, the
//! interrupt comes once the command it names is under way, whatever the machine's speed: the
//! agent has printed the call (its output shows the command) and a process with that command line
//! runs in the scenario's scratch folder. `interrupt_after_secs` is then only the latest it comes.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::spec::Scenario;
use super::trace;

/// How often the process table is read while waiting for the command.
const POLL: Duration = Duration::from_millis(50);

/// When a scenario's interrupt is due.
#[derive(Debug, Clone)]
pub struct Interrupt {
    /// The latest it comes.
    deadline: Instant,
    /// It comes as soon as this command runs in this folder...
    running: Option<(PathBuf, String)>,
    /// ... and the agent's output shows this.
    printed: String,
    /// For the trace.
    scenario: String,
}

impl Interrupt {
    /// The interrupt of `s`, counted from now (the agent's start, or when the driver says), its
    /// command looked for under `scratch`; `None` for a scenario that is not interrupted.
    pub fn of(s: &Scenario, scratch: &Path) -> Option<Interrupt> {
        let after = Duration::from_secs(s.interrupt_after_secs?);
        Some(Interrupt {
            deadline: Instant::now() + after,
            running: s
                .interrupt_when_running
                .clone()
                .map(|command| (scratch.to_owned(), command)),
            printed: s
                .interrupt_when_printed
                .clone()
                .or_else(|| s.interrupt_when_running.clone())
                .unwrap_or_default(),
            scenario: s.name.clone(),
        })
    }

    /// Whether the interrupt is due now: the agent has shown its command (`shown` is asked
    /// whether its output so far holds the text given: `interrupt_when_printed`, or else the
    /// command) and the command runs, or the deadline has passed.
    pub fn due(&self, shown: impl FnOnce(&str) -> bool) -> bool {
        if let Some((dir, command)) = &self.running
            && shown(&self.printed)
            && runs_in(dir, command)
        {
            trace::mark(
                &self.scenario,
                format_args!("`{command}` runs: interrupting"),
            );
            return true;
        }
        let late = Instant::now() >= self.deadline;
        if late {
            match &self.running {
                Some((_, command)) => trace::mark(
                    &self.scenario,
                    format_args!("`{command}` never ran: interrupting at the deadline"),
                ),
                None => trace::mark(&self.scenario, "interrupting"),
            }
        }
        late
    }

    /// When to ask [`due`](Self::due) next: at the deadline, or soon when a command is awaited.
    pub fn next_check(&self) -> Instant {
        match self.running {
            Some(_) => (Instant::now() + POLL).min(self.deadline),
            None => self.deadline,
        }
    }

    /// Wait until the interrupt is due (`shown` as for [`due`](Self::due)) or `done` says the
    /// agent no longer needs one (it exited): `true` when it is due.
    pub fn wait(
        &self,
        shown: impl Fn(&str) -> bool,
        mut done: impl FnMut(Duration) -> anyhow::Result<bool>,
    ) -> anyhow::Result<bool> {
        loop {
            if self.due(&shown) {
                return Ok(true);
            }
            let wait = self.next_check().saturating_duration_since(Instant::now());
            if done(wait)? {
                return Ok(false);
            }
        }
    }
}

/// Whether a process whose command line (its arguments joined by spaces) is `command` runs
/// with its working folder in `dir`. Linux's process table; elsewhere never (the deadline rules).
pub fn runs_in(dir: &Path, command: &str) -> bool {
    let Ok(procs) = fs::read_dir("/proc") else {
        return false;
    };
    procs.flatten().any(|p| {
        let path = p.path();
        let is_pid = p
            .file_name()
            .to_str()
            .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()));
        is_pid
            && fs::read(path.join("cmdline")).is_ok_and(|line| command_line(&line) == command)
            && fs::read_link(path.join("cwd")).is_ok_and(|cwd| cwd.starts_with(dir))
    })
}

/// A `/proc/<pid>/cmdline` (arguments ended by NULs) as one line.
fn command_line(raw: &[u8]) -> String {
    raw.split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .map(String::from_utf8_lossy)
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use std::process::{Command, Stdio};

    use super::*;

    #[test]
    fn a_command_line_is_its_arguments_joined() {
        assert_eq!(command_line(b"sleep\x0060\x00"), "sleep 60");
        assert_eq!(command_line(b""), "");
    }

    /// The command is seen only while it runs, and only in its own folder.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_running_command_is_seen_in_its_folder_only() {
        let dir = tempfile::tempdir().unwrap();
        let other = tempfile::tempdir().unwrap();
        let dir = dir.path().canonicalize().unwrap();
        let command = "sleep 31.4159";
        assert!(!runs_in(&dir, command));
        let mut child = Command::new("sleep")
            .arg("31.4159")
            .current_dir(&dir)
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let seen = (0..200).any(|_| {
            runs_in(&dir, command) || {
                std::thread::sleep(Duration::from_millis(10));
                false
            }
        });
        let elsewhere = runs_in(other.path(), command);
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(seen, "the running command is seen");
        assert!(!elsewhere, "not in another folder");
        assert!(!runs_in(&dir, command), "not once it ended");
    }

    #[test]
    fn without_a_command_the_deadline_rules() {
        let mut s: Scenario = toml::from_str(
            "name = \"x\"\ndescription = \"\"\nagent = \"claude\"\ncli_version = \"1\"\nprompt = \"p\"\ninterrupt_after_secs = 0\n[[turns]]\ntext = \"t\"\n",
        )
        .unwrap();
        let i = Interrupt::of(&s, Path::new("/nonexistent")).unwrap();
        assert!(i.due(|_| false));
        s.interrupt_after_secs = Some(3600);
        s.interrupt_when_running = Some("sleep 3600".into());
        let i = Interrupt::of(&s, Path::new("/nonexistent")).unwrap();
        assert!(!i.due(|_| true), "neither running nor late");
        assert!(i.next_check() <= Instant::now() + POLL);
        s.interrupt_after_secs = None;
        assert!(Interrupt::of(&s, Path::new("/")).is_none());
    }
}
