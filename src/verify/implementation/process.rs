//! One worker process of an external implementation: started through `sh -c` in its own process
//! group, fed by a writer thread, read by a reader thread (stdout lines) and a stderr thread (a
//! bounded tail for the report). Every wait has a deadline, so a hung or silent implementation
//! costs one timeout, never a hung toolnorm; a worker that failed once is killed, never reused.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, bounded, unbounded};

use crate::protocol::{self, Bye, Hello, HelloReply, Normalize, NormalizeResult};

/// The least time a new process has to answer `hello` (interpreters take a while to start on a
/// loaded machine); the per-fixture timeout applies when it is longer.
const MIN_HELLO_TIMEOUT: Duration = Duration::from_secs(10);

/// The stderr kept for the report, in bytes.
const STDERR_TAIL: usize = 2_000;

/// A running implementation process speaking the protocol.
pub struct Worker {
    child: Child,
    to_stdin: Option<Sender<String>>,
    lines: Receiver<Vec<u8>>,
    stderr: Arc<Mutex<VecDeque<u8>>>,
    next_seq: u64,
}

impl Worker {
    /// Start `command` and exchange `hello`, within `timeout` (at least `MIN_HELLO_TIMEOUT`).
    pub fn start(command: &str, timeout: Duration) -> Result<(Worker, HelloReply), String> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(|e| format!("failed to start `{command}` through sh: {e}"))?;
        let (Some(mut stdin), Some(stdout), Some(mut stderr_pipe)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err("failed to open the implementation's pipes".to_owned());
        };
        let (to_stdin, from_harness) = unbounded::<String>();
        thread::spawn(move || {
            for line in from_harness {
                if stdin.write_all(line.as_bytes()).is_err() || stdin.flush().is_err() {
                    break;
                }
            }
        });
        let (line_tx, lines) = bounded::<Vec<u8>>(16);
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut buf = Vec::new();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if line_tx.send(buf).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let stderr = Arc::new(Mutex::new(VecDeque::with_capacity(STDERR_TAIL)));
        let tail = Arc::clone(&stderr);
        thread::spawn(move || {
            let mut chunk = [0u8; 4096];
            while let Ok(n) = stderr_pipe.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                if let Ok(mut t) = tail.lock() {
                    t.extend(&chunk[..n]);
                    let excess = t.len().saturating_sub(STDERR_TAIL);
                    t.drain(..excess);
                }
            }
        });
        let mut worker = Worker {
            child,
            to_stdin: Some(to_stdin),
            lines,
            stderr,
            next_seq: 1,
        };
        let hello = serde_json::to_string(&Hello::current()).unwrap_or_default();
        let reply = worker
            .send(hello)
            .and_then(|()| worker.receive(timeout.max(MIN_HELLO_TIMEOUT), "hello"))
            .and_then(|line| protocol::parse_hello_reply(&line));
        match reply {
            Ok(reply) => Ok((worker, reply)),
            Err(e) => Err(worker.fail(e)),
        }
    }

    fn send(&mut self, mut line: String) -> Result<(), String> {
        line.push('\n');
        match &self.to_stdin {
            Some(tx) if tx.send(line).is_ok() => Ok(()),
            _ => Err("the implementation's stdin is closed".to_owned()),
        }
    }

    /// The next stdout line before `deadline`, or why there is none.
    fn receive(&mut self, timeout: Duration, what: &str) -> Result<String, String> {
        match self.lines.recv_timeout(timeout) {
            Ok(bytes) => String::from_utf8(bytes)
                .map_err(|_| format!("answered a line that is not UTF-8 to {what}")),
            Err(RecvTimeoutError::Timeout) => Err(format!(
                "no answer to {what} within {} s (timeout)",
                timeout.as_secs_f64()
            )),
            Err(RecvTimeoutError::Disconnected) => {
                // Give the exit status a moment to be known.
                let end = Instant::now() + Duration::from_millis(200);
                let status = loop {
                    match self.child.try_wait() {
                        Ok(Some(s)) => break Some(s),
                        Ok(None) if Instant::now() < end => thread::sleep(Duration::from_millis(5)),
                        _ => break None,
                    }
                };
                Err(match status {
                    Some(s) => format!("the implementation exited ({s}) before answering {what}"),
                    None => format!("the implementation closed its stdout before answering {what}"),
                })
            }
        }
    }

    /// Normalize one fixture: the answer, or why there is none (the worker is then unusable).
    pub fn normalize(
        &mut self,
        mut req: Normalize,
        timeout: Duration,
    ) -> Result<NormalizeResult, String> {
        let seq = self.next_seq;
        self.next_seq += 1;
        req.seq = seq;
        let what = format!("normalize seq {seq}");
        let line = serde_json::to_string(&req).map_err(|e| format!("encoding the request: {e}"))?;
        drop(req);
        self.send(line)?;
        let answer = self.receive(timeout, &what)?;
        let result = protocol::parse_result(&answer)?;
        if result.seq != seq {
            return Err(format!(
                "answered seq {} to {what} (out of order)",
                result.seq
            ));
        }
        Ok(result)
    }

    /// The last of the implementation's stderr, for the report.
    pub fn stderr_tail(&self) -> String {
        let bytes: Vec<u8> = match self.stderr.lock() {
            Ok(t) => t.iter().copied().collect(),
            Err(_) => Vec::new(),
        };
        String::from_utf8_lossy(&bytes).trim().to_owned()
    }

    /// Kill the worker and return `reason` with its stderr tail.
    pub fn fail(mut self, reason: String) -> String {
        self.kill();
        // The stderr thread may still hold the last bytes; they arrive once the pipe closes.
        thread::sleep(Duration::from_millis(20));
        let tail = self.stderr_tail();
        if tail.is_empty() {
            reason
        } else {
            format!("{reason}; stderr: {tail}")
        }
    }

    fn kill(&mut self) {
        self.to_stdin = None;
        if let Ok(None) = self.child.try_wait() {
            // The whole group: `sh -c` may have started the implementation as its child.
            let pid = self.child.id() as libc::pid_t;
            // SAFETY: kill(2) on a process group toolnorm created; no memory is involved.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        let _ = self.child.wait();
    }

    /// Say `bye` and give the process `grace` to exit before killing it.
    pub fn finish(mut self, grace: Duration) {
        let bye = serde_json::to_string(&Bye::default()).unwrap_or_default();
        let _ = self.send(bye);
        self.to_stdin = None;
        let end = Instant::now() + grace;
        while Instant::now() < end {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(5));
        }
        self.kill();
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.kill();
        }
    }
}
