//! Child processes with a deadline: every process a scenario starts is bounded in time.

use std::io::{self, Read};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

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
    let Ok(pgid) = libc::pid_t::try_from(child.id()) else {
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
        libc::killpg(pgid, libc::SIGKILL);
    }
}

/// Wait up to `limit` for `child` to exit, leaving it running when it does not.
pub fn wait_for(
    child: &mut Child,
    limit: Duration,
) -> io::Result<Option<std::process::ExitStatus>> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if Instant::now() >= deadline {
            return Ok(None);
        }
        thread::sleep(Duration::from_millis(50));
    }
}

/// Send SIGINT to `child` (`toolnorm record` forwards it to the agent it wraps), as a user
/// pressing Ctrl-C would.
pub fn interrupt(child: &Child) {
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
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

fn drain<R: Read + Send + 'static>(r: Option<R>) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(mut r) = r {
            let _ = r.read_to_end(&mut buf);
        }
        buf
    })
}
