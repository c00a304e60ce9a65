//! Wrap and proxy modes: spawn the agent, pass its stdout to ours (and, in proxy mode, our stdin to
//! its stdin), record what passes, forward SIGINT/SIGTERM, and report its exit code.

use std::io::{self, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread;

use anyhow::Context;

use super::Tap;
use super::pipe::{CopyEnd, RawStdout, copy};
use crate::stream::Direction;

/// How long to wait, after the agent exited, for the rest of its stderr (a loaded machine can take
/// seconds to schedule the reader; a grandchild holding the pipe open must not keep us forever).
const STDERR_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// How to run the agent.
pub struct WrapOptions<'a> {
    pub command: &'a [String],
    /// Record the agent's stderr too (it is always passed through).
    pub record_stderr: bool,
    /// Two-way: our stdin goes to the agent through us and is recorded as `to agent`.
    pub proxy: bool,
}

/// Start the agent. Errors (no such program) come before anything was passed through.
pub fn spawn(opts: &WrapOptions<'_>) -> anyhow::Result<Child> {
    let (program, args) = opts
        .command
        .split_first()
        .context("no command to run after `--`")?;
    let mut cmd = Command::new(program);
    cmd.args(args)
        .stdin(if opts.proxy {
            Stdio::piped()
        } else {
            Stdio::inherit()
        })
        .stdout(Stdio::piped())
        .stderr(if opts.record_stderr {
            Stdio::piped()
        } else {
            Stdio::inherit()
        });
    cmd.spawn()
        .with_context(|| format!("failed to start `{program}`"))
}

/// Run the passthrough until the agent's stdout closes, then wait for it. Returns its exit code
/// (128 + signal number when a signal killed it).
pub fn run(mut child: Child, tap: &Tap) -> anyhow::Result<i32> {
    let forwarder = forward_signals(child.id());
    let (stderr_done, stderr_wait) = crossbeam_channel::bounded::<()>(1);
    if let Some(err) = child.stderr.take() {
        let tap = tap.clone();
        thread::spawn(move || {
            copy(err, io::stderr(), &tap, Direction::Stderr);
            let _ = stderr_done.send(());
        });
    } else {
        drop(stderr_done);
    }
    if let Some(stdin) = child.stdin.take() {
        let tap = tap.clone();
        // Not joined: it may sit in a read of our stdin after the agent has gone.
        thread::spawn(move || {
            copy(
                io::stdin().lock(),
                FlushingStdin(stdin),
                &tap,
                Direction::Client,
            )
        });
    }
    let out = child
        .stdout
        .take()
        .context("the agent's stdout was not captured")?;
    let end = copy(out, RawStdout::new(), tap, Direction::Agent);
    if let CopyEnd::OutputClosed(e) = &end {
        // Downstream went away: the agent sees a closed pipe at its next write, as it would have
        // without us.
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
