//! Child processes with a deadline: every process a scenario starts is bounded in time, the agent
//! recorded in-process ([`RunningAgent`]) as well as the helpers run to completion.

use std::io::{self, Read};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use crate::corpus::record::{Exit, WrappedAgent};

/// How a bounded run ended.
#[derive(Debug)]
pub enum Finished {
    /// `output` is stdout followed by stderr.
    Exited {
        success: bool,
        code: Option<i32>,
        output: Vec<u8>,
    },
    TimedOut,
}

/// Run `cmd` to completion, killing it after `limit`.
pub fn run_with_timeout(mut cmd: Command, limit: Duration) -> io::Result<Finished> {
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = spawn_group(&mut cmd)?;
    let out = drain(child.stdout.take());
    let err = drain(child.stderr.take());
    match wait_until(&mut child, limit)? {
        Some(status) => {
            let mut output = out.join().unwrap_or_default();
            output.extend(err.join().unwrap_or_default());
            Ok(Finished::Exited {
                success: status.success(),
                code: status.code(),
                output,
            })
        }
        None => Ok(Finished::TimedOut),
    }
}

/// Start `cmd` as the leader of a new process group, so everything it starts (MCP servers,
/// shells, ripgrep) can be ended together and no grandchild keeps our pipes open.
pub fn spawn_group(cmd: &mut Command) -> io::Result<Child> {
    cmd.process_group(0);
    cmd.spawn()
}

/// Kill every process left in `child`'s group (the child was started with [`spawn_group`]).
pub fn kill_group(child: &Child) {
    kill_group_of(child.id());
}

/// Kill every process left in the group led by `leader` (started in a group of its own).
fn kill_group_of(leader: u32) {
    signal_group(leader, libc::SIGKILL);
}

/// Send `signal` to the group led by `leader` (started in a group of its own).
fn signal_group(leader: u32, signal: libc::c_int) {
    let Ok(pgid) = libc::pid_t::try_from(leader) else {
        return;
    };
    // SAFETY: getpgrp has no preconditions.
    let ours = unsafe { libc::getpgrp() };
    // Never signal our own group (or the special groups 0 and 1).
    if pgid <= 1 || pgid == ours {
        return;
    }
    // SAFETY: killpg with a group id we created and a valid signal has no memory effects.
    unsafe {
        libc::killpg(pgid, signal);
    }
}

/// Send SIGINT to the process `pid` we started, as a user pressing Ctrl-C would.
pub fn interrupt(pid: u32) {
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        // SAFETY: kill(2) on a child we spawned, with a valid signal; no memory effects.
        unsafe {
            libc::kill(pid, libc::SIGINT);
        }
    }
}

/// Wait for `child` until `limit`; on timeout kill its process group (and reap it) and return
/// `None`. Either way, what the child left running in its group is ended.
pub fn wait_until(
    child: &mut Child,
    limit: Duration,
) -> io::Result<Option<std::process::ExitStatus>> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait()? {
            kill_group(child);
            return Ok(Some(status));
        }
        if Instant::now() >= deadline {
            kill_group(child);
            let _ = child.kill();
            let _ = child.wait();
            return Ok(None);
        }
        thread::sleep(Duration::from_millis(50));
    }
}

/// How long a killed agent's passthrough may take to see the end of its output.
const KILLED_GRACE: Duration = Duration::from_secs(30);

/// An agent under the recorder, its passthrough running on a thread of its own while the caller
/// drives it. The agent leads a process group of its own (see `run::Launch::command`), so
/// what it starts can be ended with it.
pub struct RunningAgent {
    pid: u32,
    done: mpsc::Receiver<anyhow::Result<Exit>>,
}

impl RunningAgent {
    /// Run `agent`'s passthrough ([`WrappedAgent::run`]) on a new thread.
    pub fn start(agent: WrappedAgent) -> RunningAgent {
        let pid = agent.id();
        let (tx, done) = mpsc::channel();
        thread::spawn(move || {
            let _ = tx.send(agent.run());
        });
        RunningAgent { pid, done }
    }

    /// Send the agent SIGINT.
    pub fn interrupt(&self) {
        interrupt(self.pid);
    }

    /// Send SIGTERM to the agent's group: an agent that does not exit at the end of its input
    /// ends at once, and its passthrough sees its output close.
    pub fn terminate(&self) {
        signal_group(self.pid, libc::SIGTERM);
    }

    /// Wait up to `limit` for the agent to exit (and its recording to finish), leaving it running
    /// when it does not.
    pub fn wait_for(&mut self, limit: Duration) -> anyhow::Result<Option<Exit>> {
        match self.done.recv_timeout(limit) {
            Ok(r) => r.map(Some),
            Err(mpsc::RecvTimeoutError::Timeout) => Ok(None),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                anyhow::bail!("the agent's passthrough ended without a result")
            }
        }
    }

    /// Wait up to `limit`; on timeout kill the agent's group, let the passthrough end, and return
    /// `None`. Either way, what the agent left running in its group is ended.
    pub fn wait_until(&mut self, limit: Duration) -> anyhow::Result<Option<Exit>> {
        let exit = self.wait_for(limit);
        kill_group_of(self.pid);
        match exit {
            Ok(None) => {
                // Its output closes with it; the recording is finished with the signal's code.
                let _ = self.done.recv_timeout(KILLED_GRACE);
                Ok(None)
            }
            other => other,
        }
    }
}

fn drain<R: Read + Send + 'static>(r: Option<R>) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(mut r) = r {
            let _ = r.read_to_end(&mut buf);
        }
        buf
    })
}

#[cfg(test)]
mod tests {
    use std::os::unix::process::ExitStatusExt;

    use super::*;

    /// SIGTERM reaches the agent's whole group, so an agent that reads on after the end of its
    /// input (codex-acp) and what it started end at once, without waiting for a time limit.
    #[test]
    fn terminate_ends_the_group_at_once() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "sleep 60 & wait"]).stdin(Stdio::null());
        let mut child = spawn_group(&mut cmd).unwrap();
        let started = Instant::now();
        signal_group(child.id(), libc::SIGTERM);
        let status = wait_until(&mut child, Duration::from_secs(20))
            .unwrap()
            .expect("the group ends on SIGTERM");
        assert_eq!(status.signal(), Some(libc::SIGTERM));
        assert!(started.elapsed() < Duration::from_secs(10));
    }
}
