//! The recorder: the passthrough hands raw chunks to a writer thread through a bounded queue and
//! never waits for it. The writer thread splits lines, redacts, and writes the fixture frame by
//! frame. If it falls behind or fails (full disk), it says so once on stderr and the passthrough
//! goes on.
//!
//! [`Recording`] is the typed entry point (`toolnorm record` and the scenario runner both call
//! it): what to record, then one of the modes with the caller's passthrough ends. One file per
//! mode: [`pipe`], [`wrap`] (and the two-way proxy), [`sse`]; [`memory`] has in-memory ends.

pub mod memory;
pub mod pipe;
mod recording;
pub mod sse;
pub mod wrap;

pub use recording::Recording;
pub use sse::{SseEnd, SseOptions, Subscription};
pub use wrap::{AgentEnds, Exit, StderrEnd, StdinEnd, WrappedAgent};

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender, TryRecvError, TrySendError};

use super::format::{Header, Trailer, now_rfc3339};
use super::redact::{RedactState, Redactor};
use super::writer::FixtureWriter;
use crate::stream::{Detector, Direction, Input, Provider};

/// Chunks in flight between the passthrough and the writer thread…
const QUEUE_CHUNKS: usize = 65536;
/// …and bytes in flight. Past either the recording is dropped, never the passthrough.
pub const DEFAULT_MAX_LAG_BYTES: usize = 256 << 20;
/// Lines the writer keeps to detect the dialect and learn the CLI version.
const SNIFF_LINES: usize = 64;
/// How often a quiet writer wakes to flush a line that has waited `writer::FLUSH_INTERVAL`.
const WAKE: std::time::Duration = std::time::Duration::from_millis(20);

enum Msg {
    Chunk {
        t: u64,
        dir: Direction,
        data: Vec<u8>,
    },
    Finish {
        exit_code: Option<i32>,
    },
}

struct Shared {
    failed: AtomicBool,
    warned: AtomicBool,
    in_flight: AtomicUsize,
    max_lag: usize,
    path: PathBuf,
}

impl Shared {
    /// Stop recording and say so, once.
    fn fail(&self, why: &str) {
        self.failed.store(true, Ordering::SeqCst);
        if !self.warned.swap(true, Ordering::SeqCst) {
            let _ = writeln!(
                io::stderr(),
                "warning: toolnorm record: {why}; recording to {} stopped, the session goes on",
                self.path.display()
            );
        }
    }
}

/// The passthrough's handle on the recorder. Cheap to clone; never blocks.
#[derive(Clone)]
pub struct Tap {
    tx: Option<Sender<Msg>>,
    shared: Arc<Shared>,
    start: Instant,
}

impl Tap {
    /// A tap that records nothing (a passthrough without a recording).
    pub fn none() -> Tap {
        Tap {
            tx: None,
            shared: Arc::new(Shared {
                failed: AtomicBool::new(false),
                warned: AtomicBool::new(false),
                in_flight: AtomicUsize::new(0),
                max_lag: usize::MAX,
                path: PathBuf::new(),
            }),
            start: Instant::now(),
        }
    }

    /// Record a chunk received in direction `dir` (any size, any boundaries).
    pub fn record(&self, dir: Direction, data: &[u8]) {
        let Some(tx) = &self.tx else { return };
        if data.is_empty() || self.shared.failed.load(Ordering::Relaxed) {
            return;
        }
        let lag = self
            .shared
            .in_flight
            .fetch_add(data.len(), Ordering::Relaxed)
            + data.len();
        if lag > self.shared.max_lag {
            self.shared.fail("the recorder fell behind");
            return;
        }
        let t = self.start.elapsed().as_millis() as u64;
        match tx.try_send(Msg::Chunk {
            t,
            dir,
            data: data.to_vec(),
        }) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => self.shared.fail("the recorder fell behind"),
            // The recording already ended (a straggling proxy thread): nothing to do.
            Err(TrySendError::Disconnected(_)) => {}
        }
    }
}

/// What the recorder needs to start.
pub struct RecorderConfig {
    pub path: PathBuf,
    pub header: Header,
    pub force: bool,
    pub redactor: Redactor,
    pub max_lag_bytes: usize,
    /// Tells the dialect when the header does not name it, for the trailer.
    pub detect: Option<Detector>,
}

/// A running recording.
pub struct Recorder {
    tap: Tap,
    handle: Option<JoinHandle<u64>>,
}

/// How a recording ended.
#[derive(Debug)]
pub struct Outcome {
    pub path: PathBuf,
    /// False when nothing could be recorded or recording stopped early.
    pub complete: bool,
    pub lines: u64,
}

impl Recorder {
    /// Open the fixture and start the writer thread. An existing fixture without `force` is an
    /// error (nothing has been passed through yet); a directory that cannot be created or written
    /// is not: the recorder warns and the session runs unrecorded.
    pub fn start(cfg: RecorderConfig) -> anyhow::Result<Recorder> {
        let shared = Arc::new(Shared {
            failed: AtomicBool::new(false),
            warned: AtomicBool::new(false),
            in_flight: AtomicUsize::new(0),
            max_lag: cfg.max_lag_bytes,
            path: cfg.path.clone(),
        });
        let start = Instant::now();
        let file = match open(&cfg.path, cfg.force) {
            Ok(f) => f,
            Err(OpenError::Exists(e)) => return Err(e),
            Err(OpenError::Io(e)) => {
                shared.fail(&format!("{e:#}"));
                return Ok(Recorder {
                    tap: Tap {
                        tx: None,
                        shared,
                        start,
                    },
                    handle: None,
                });
            }
        };
        let writer =
            match FixtureWriter::new(BufWriter::with_capacity(256 << 10, file), &cfg.header) {
                Ok(w) => w,
                Err(e) => {
                    shared.fail(&format!("failed to write {}: {e}", cfg.path.display()));
                    return Ok(Recorder {
                        tap: Tap {
                            tx: None,
                            shared,
                            start,
                        },
                        handle: None,
                    });
                }
            };
        let (tx, rx) = crossbeam_channel::bounded(QUEUE_CHUNKS);
        let thread_shared = shared.clone();
        let provider = cfg.header.provider.parse::<Provider>().ok();
        let known_dialect = cfg.header.dialect.is_some();
        let known_cli = cfg.header.cli_version.is_some();
        let redactor = cfg.redactor;
        let detect = cfg.detect;
        let handle = std::thread::Builder::new()
            .name("toolnorm-recorder".into())
            .spawn(move || {
                lower_priority();
                let mut w = WriterLoop {
                    writer: Some(writer),
                    redactor,
                    state: RedactState::default(),
                    partial: [Vec::new(), Vec::new(), Vec::new()],
                    last_t: 0,
                    sniff: Vec::new(),
                    cli_version: None,
                    want_sniff: !known_dialect && detect.is_some(),
                    detect,
                    want_cli: !known_cli,
                    provider,
                    shared: thread_shared,
                };
                w.state = w.redactor.state();
                w.run(rx)
            })?;
        Ok(Recorder {
            tap: Tap {
                tx: Some(tx),
                shared,
                start,
            },
            handle: Some(handle),
        })
    }

    pub fn tap(&self) -> Tap {
        self.tap.clone()
    }

    /// End the recording: flush the last partial lines and write the trailer. Waits for the writer.
    pub fn finish(mut self, exit_code: Option<i32>) -> Outcome {
        let path = self.tap.shared.path.clone();
        let mut lines = 0;
        if let (Some(tx), Some(handle)) = (self.tap.tx.take(), self.handle.take()) {
            let _ = tx.send(Msg::Finish { exit_code });
            drop(tx);
            lines = handle.join().unwrap_or(0);
        }
        Outcome {
            path,
            complete: !self.tap.shared.failed.load(Ordering::SeqCst),
            lines,
        }
    }

    /// Give up before anything was passed through (the agent could not be started): remove the
    /// fixture so a retry with the same name works.
    pub fn abort(mut self) {
        let path = self.tap.shared.path.clone();
        if let (Some(tx), Some(handle)) = (self.tap.tx.take(), self.handle.take()) {
            drop(tx);
            let _ = handle.join();
            let _ = std::fs::remove_file(path);
        }
    }
}

enum OpenError {
    Exists(anyhow::Error),
    Io(anyhow::Error),
}

fn open(path: &Path, force: bool) -> Result<File, OpenError> {
    if let Some(dir) = path.parent() {
        if let Err(e) = std::fs::create_dir_all(dir) {
            return Err(OpenError::Io(
                anyhow::Error::new(e).context(format!("failed to create {}", dir.display())),
            ));
        }
    }
    super::create_output(path, force).map_err(|e| {
        if e.to_string().contains("already exists") {
            OpenError::Exists(e)
        } else {
            OpenError::Io(e)
        }
    })
}

struct WriterLoop {
    writer: Option<FixtureWriter<BufWriter<File>>>,
    redactor: Redactor,
    state: RedactState,
    /// The unfinished last line of each direction.
    partial: [Vec<u8>; 3],
    last_t: u64,
    sniff: Vec<Vec<u8>>,
    cli_version: Option<String>,
    want_sniff: bool,
    detect: Option<Detector>,
    want_cli: bool,
    provider: Option<Provider>,
    shared: Arc<Shared>,
}

impl WriterLoop {
    /// Runs until told to finish; returns the number of lines written. The thread drains the
    /// queue, then sleeps: it is never parked on the channel, so the passthrough's `try_send`
    /// never has to wake it (no syscall, no context switch per line on the live path).
    fn run(&mut self, rx: Receiver<Msg>) -> u64 {
        loop {
            loop {
                match rx.try_recv() {
                    Ok(Msg::Chunk { t, dir, data }) => {
                        self.shared
                            .in_flight
                            .fetch_sub(data.len(), Ordering::Relaxed);
                        self.chunk(t, dir, &data);
                    }
                    Ok(Msg::Finish { exit_code }) => return self.finish(exit_code),
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => return self.finish(None),
                }
            }
            if let Some(w) = &mut self.writer {
                if let Err(e) = w.tick() {
                    self.io_failed(&e);
                }
            }
            std::thread::sleep(WAKE);
        }
    }

    fn chunk(&mut self, t: u64, dir: Direction, data: &[u8]) {
        if self.writer.is_none() {
            return;
        }
        // Two proxy threads stamp their chunks independently; keep times non-decreasing.
        let t = t.max(self.last_t);
        self.last_t = t;
        let slot = dir as usize;
        let mut rest = data;
        while let Some(i) = memchr::memchr(b'\n', rest) {
            if self.partial[slot].is_empty() {
                self.line(t, dir, &rest[..i], true);
            } else {
                let mut line = std::mem::take(&mut self.partial[slot]);
                line.extend_from_slice(&rest[..i]);
                self.line(t, dir, &line, true);
            }
            rest = &rest[i + 1..];
        }
        self.partial[slot].extend_from_slice(rest);
    }

    fn line(&mut self, t: u64, dir: Direction, raw: &[u8], terminated: bool) {
        let Some(w) = &mut self.writer else { return };
        let line = self.redactor.redact(raw, &mut self.state);
        if dir == Direction::Agent {
            if self.want_cli && self.cli_version.is_none() && w.lines() < 200 {
                self.cli_version = super::learn_cli_version(&line);
            }
            if self.want_sniff && self.sniff.len() < SNIFF_LINES && !line.trim_ascii().is_empty() {
                self.sniff.push(line.to_vec());
            }
        }
        if let Err(e) = w.push_line(t, dir, &line, terminated) {
            self.io_failed(&e);
        }
    }

    fn io_failed(&mut self, e: &io::Error) {
        self.writer = None;
        self.shared.fail(&format!(
            "failed to write {}: {e}",
            self.shared.path.display()
        ));
    }

    fn finish(&mut self, exit_code: Option<i32>) -> u64 {
        let failed = self.shared.failed.load(Ordering::SeqCst);
        if !failed {
            // The stream ended without a newline: keep what came, flagged as unterminated.
            for dir in [Direction::Agent, Direction::Client, Direction::Stderr] {
                let rest = std::mem::take(&mut self.partial[dir as usize]);
                if !rest.is_empty() {
                    self.line(self.last_t, dir, &rest, false);
                }
            }
        }
        let Some(w) = self.writer.take() else {
            return 0;
        };
        let lines = w.lines();
        let dialect = self.detect();
        let trailer = Trailer {
            redactions: self.redactor.summary(&self.state),
            ended_at: now_rfc3339(),
            cli_version: self.cli_version.take(),
            dialect,
            recording_failed: failed
                .then(|| "the recorder fell behind; later lines are missing".to_owned()),
            exit_code,
            ..Trailer::default()
        };
        match w.finish(trailer) {
            Ok(mut out) => {
                if let Err(e) = out.flush() {
                    self.io_failed(&e);
                }
            }
            Err(e) => self.io_failed(&e),
        }
        lines
    }

    fn detect(&self) -> Option<String> {
        let detect = self
            .detect
            .filter(|_| self.want_sniff && !self.sniff.is_empty())?;
        let mut bytes = Vec::new();
        for l in &self.sniff {
            bytes.extend_from_slice(l);
            bytes.push(b'\n');
        }
        detect(&Input::from_bytes(&bytes), self.provider)
            .ok()
            .map(|d| d.as_str().to_owned())
    }
}

/// The live session comes first: on a busy machine the writer thread yields the CPU to the
/// passthrough (a nice value applies per thread on Linux).
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority on our own thread id only changes its scheduling weight.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, tid, 10);
    }
}
