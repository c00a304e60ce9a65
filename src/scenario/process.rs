//! Child processes with a deadline: every process a scenario starts is bounded in time.

use std::io::{self, Read};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// How a bounded run ended.
#[derive(Debug)]
pub enum Finished {
    /// `output` is stdout followed by stderr.
    Exited { success: bool, code: Option<i32>, output: Vec<u8> },
    TimedOut,
}

/// Run `cmd` to completion, killing it after `limit`.
pub fn run_with_timeout(mut cmd: Command, limit: Duration) -> io::Result<Finished> {
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn()?;
    let out = drain(child.stdout.take());
    let err = drain(child.stderr.take());
    match wait_until(&mut child, limit)? {
        Some(status) => {
            let mut output = out.join().unwrap_or_default();
            output.extend(err.join().unwrap_or_default());
            Ok(Finished::Exited { success: status.success(), code: status.code(), output })
        }
        None => Ok(Finished::TimedOut),
    }
}

/// Wait for `child` until `limit`; on timeout kill it (and reap it) and return `None`.
pub fn wait_until(child: &mut Child, limit: Duration) -> io::Result<Option<std::process::ExitStatus>> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if Instant::now() >= deadline {
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
