//! Wrap and proxy modes: spawn the agent, pass its stdout on (and, in proxy mode, a given input to
//! its stdin), record what passes, forward SIGINT/SIGTERM when asked, and report its exit code.
//! The ends are the caller's: `toolnorm record` gives its own stdio, the scenario runner pipes in
//! memory ([`super::memory`]).

use std::io::{self, Read, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread;

use anyhow::Context;

use super::pipe::{CopyEnd, copy};
use super::{Outcome, Recorder, Tap};
use crate::stream::Direction;

/// How long to wait, after the agent exited, for the rest of its stderr (a loaded machine can take
/// seconds to schedule the reader; a grandchild holding the pipe open must not keep us forever).
const STDERR_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// Where the agent's standard streams come from and go to.
pub struct AgentEnds {
    pub stdin: StdinEnd,
    /// The agent's stdout is copied here (and recorded as `from agent`).
    pub stdout: Box<dyn Write + Send>,
    pub stderr: StderrEnd,
    /// Pass our SIGINT/SIGTERM/SIGHUP on to the agent (see `forward_signals`): for a recorder that
    /// stands between a user and the agent, not for one inside a larger program.
    pub forward_signals: bool,
}

/// The agent's stdin.
pub enum StdinEnd {
    /// Ours (wrap mode).
    Inherit,
    /// Nothing: the agent reads end of file.
    Null,
    /// Proxy mode: this input is copied to the agent and recorded as `to agent`. Its end of file
    /// closes the agent's stdin.
    Proxy(Box<dyn Read + Send>),
}

/// The agent's stderr.
pub enum StderrEnd {
    /// Not recorded: the agent writes straight to this (ours, a file, nothing).
    Direct(Stdio),
    /// Copied here and recorded as `stderr`.
    Recorded(Box<dyn Write + Send>),
}

/// A running agent whose stdout (and stdin, in proxy mode) passes through the recorder.
pub struct WrappedAgent {
    child: Child,
    input: Option<Box<dyn Read + Send>>,
    stdout: Box<dyn Write + Send>,
    stderr: Option<Box<dyn Write + Send>>,
    forward_signals: bool,
    tap: Tap,
    pub(super) recorder: Option<Recorder>,
}

/// How a wrapped agent ended.
#[derive(Debug)]
pub struct Exit {
    /// Its exit code (128 + signal number when a signal killed it).
    pub code: i32,
    /// The recording, when there was one.
    pub recording: Option<Outcome>,
}

impl WrappedAgent {
    /// Start the agent with its ends but no recording (the passthrough alone).
    pub fn unrecorded(cmd: Command, ends: AgentEnds) -> anyhow::Result<WrappedAgent> {
        Self::start(cmd, ends, Tap::none())
    }

    /// Start the agent. Errors (no such program) come before anything was passed through.
    pub(super) fn start(mut cmd: Command, ends: AgentEnds, tap: Tap) -> anyhow::Result<Self> {
        let (stdin, input) = match ends.stdin {
            StdinEnd::Inherit => (Stdio::inherit(), None),
            StdinEnd::Null => (Stdio::null(), None),
            StdinEnd::Proxy(r) => (Stdio::piped(), Some(r)),
        };
        let (stderr, stderr_to) = match ends.stderr {
            StderrEnd::Direct(s) => (s, None),
            StderrEnd::Recorded(w) => (Stdio::piped(), Some(w)),
        };
        cmd.stdin(stdin).stdout(Stdio::piped()).stderr(stderr);
        let child = cmd.spawn().with_context(|| {
            format!("failed to start `{}`", cmd.get_program().to_string_lossy())
        })?;
        Ok(WrappedAgent {
            child,
            input,
            stdout: ends.stdout,
            stderr: stderr_to,
            forward_signals: ends.forward_signals,
            tap,
            recorder: None,
        })
    }

    /// The agent's process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Run the passthrough until the agent's stdout closes, then wait for it and finish the
    /// recording with its exit code.
    pub fn run(mut self) -> anyhow::Result<Exit> {
        let code = self.passthrough()?;
        Ok(Exit {
            code,
            recording: self.recorder.take().map(|r| r.finish(Some(code))),
        })
    }

    fn passthrough(&mut self) -> anyhow::Result<i32> {
        let child = &mut self.child;
        let tap = &self.tap;
        let forwarder = if self.forward_signals {
            forward_signals(child.id())
        } else {
            None
        };
        let (stderr_done, stderr_wait) = crossbeam_channel::bounded::<()>(1);
        match (child.stderr.take(), self.stderr.take()) {
            (Some(err), Some(to)) => {
                let tap = tap.clone();
                thread::spawn(move || {
                    copy(err, to, &tap, Direction::Stderr);
                    let _ = stderr_done.send(());
                });
            }
            _ => drop(stderr_done),
        }
        if let (Some(stdin), Some(input)) = (child.stdin.take(), self.input.take()) {
            let tap = tap.clone();
            // Not joined: it may sit in a read of its input after the agent has gone.
            thread::spawn(move || copy(input, FlushingStdin(stdin), &tap, Direction::Client));
        }
        let out = child
            .stdout
            .take()
            .context("the agent's stdout was not captured")?;
        let end = copy(out, &mut self.stdout, tap, Direction::Agent);
        if let CopyEnd::OutputClosed(e) = &end {
            // Downstream went away: the agent sees a closed pipe at its next write, as it would
            // have without us.
            let _ = writeln!(
                io::stderr(),
                "warning: toolnorm record: stdout closed ({e}); the agent's output is no longer passed on"
            );
        }
        let status = child.wait().context("failed to wait for the agent")?;
        // The agent's last stderr lines are still in flight; a grandchild that keeps the pipe open
        // must not keep us waiting for long.
        let _ = stderr_wait.recv_timeout(STDERR_GRACE);
        if let Some(f) = forwarder {
            f.close();
        }
        Ok(exit_code(status))
    }
}

/// The shell's convention: the exit code, or 128 + the signal that killed the process.
pub fn exit_code(status: ExitStatus) -> i32 {
    if let Some(code) = status.code() {
        return code;
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return 128 + sig;
        }
    }
    1
}

/// The agent's stdin, flushed after every chunk so a JSON-RPC request is not held back.
struct FlushingStdin(std::process::ChildStdin);

impl Write for FlushingStdin {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// Closes the signal iterator so its thread ends.
pub struct Forwarder(signal_hook::iterator::Handle);

impl Forwarder {
    pub fn close(self) {
        self.0.close();
    }
}

/// Pass SIGINT/SIGTERM (and SIGHUP) on to the agent instead of dying first: the agent decides how
/// to end, and we exit with its code after recording its last words.
///
/// A signal the kernel raised for the terminal (Ctrl-C, a hangup) already went to the whole
/// foreground process group, the agent included: passing it on would deliver it twice, and
/// agents read a second Ctrl-C as "quit now".
#[cfg(unix)]
fn forward_signals(pid: u32) -> Option<Forwarder> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    use signal_hook::iterator::SignalsInfo;
    use signal_hook::iterator::exfiltrator::WithOrigin;
    let mut signals = SignalsInfo::<WithOrigin>::new([SIGINT, SIGTERM, SIGHUP]).ok()?;
    let handle = signals.handle();
    let pid = pid as libc::pid_t;
    thread::spawn(move || {
        for origin in signals.forever() {
            if !should_forward(&origin.cause, pid) {
                continue;
            }
            // SAFETY: kill(2) with a pid we spawned and a valid signal number has no memory effects.
            unsafe {
                libc::kill(pid, origin.signal);
            }
        }
    });
    Some(Forwarder(handle))
}

/// Whether a signal we received must be passed on to the agent `pid`.
#[cfg(unix)]
fn should_forward(cause: &signal_hook::low_level::siginfo::Cause, pid: libc::pid_t) -> bool {
    use signal_hook::low_level::siginfo::Cause;
    // SAFETY: getpgid(2) and getpgrp(2) only read process attributes.
    let same_group = unsafe { libc::getpgid(pid) == libc::getpgrp() };
    !(matches!(cause, Cause::Kernel) && same_group)
}

#[cfg(not(unix))]
fn forward_signals(_pid: u32) -> Option<Forwarder> {
    None
}
