//! The recorder: the passthrough hands raw chunks to a writer thread through a queue. The writer
//! thread splits lines, redacts, and writes the fixture frame by frame. The lag is bounded: a
//! chunk is passed on only while at most [`MAX_LAG_LINES`] lines, none older than
//! [`MAX_LAG_TIME`], are passed through but not yet on disk; past that the passthrough waits for
//! the writer, at most [`MAX_WAIT`]. A writer that still has not caught up by then (a stuck disk),
//! or that fails (full disk), stops recording: it says so once on stderr, the passthrough goes on,
//! and the trailer counts the lines dropped.
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

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, TryRecvError, TrySendError};

use super::format::{Header, Trailer};
use super::redact::{RedactState, Redactor};
use super::writer::FixtureWriter;
use crate::stream::{Detector, Direction, Input, Provider};
use crate::timestamp::now_rfc3339;

/// Chunks in flight between the passthrough and the writer thread…
const QUEUE_CHUNKS: usize = 65536;
/// …and bytes in flight. Past either the recording is dropped, never the passthrough.
pub const DEFAULT_MAX_LAG_BYTES: usize = 256 << 20;
/// Lines the writer keeps to detect the dialect and learn the CLI version.
const SNIFF_LINES: usize = 64;
/// How often a quiet writer wakes to flush a line that has waited `writer::FLUSH_INTERVAL`.
const WAKE: Duration = Duration::from_millis(20);
/// At most this many lines are passed through and not yet on disk (readable after a SIGKILL)…
pub const MAX_LAG_LINES: u64 = 1024;
/// …and none of them was passed through longer ago than this…
pub const MAX_LAG_TIME: Duration = Duration::from_millis(500);
/// …else the passthrough waits for the writer, at most this long before the recording is
/// given up (lines dropped, counted in the trailer) so that the session goes on.
pub const MAX_WAIT: Duration = Duration::from_secs(1);
/// The passthrough hands on a chunk in pieces of at most this many lines, so that a chunk of
/// short lines never takes the lag past [`MAX_LAG_LINES`].
pub const PIECE_LINES: usize = 256;

enum Msg {
    Chunk {
        t: u64,
        dir: Direction,
        /// The passthrough's read buffer, shared (no copy), and the piece of it to record.
        data: Arc<Vec<u8>>,
        range: std::ops::Range<usize>,
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
    lag: Mutex<Lag>,
    /// Signalled by the writer when lines reach the disk.
    on_disk: Condvar,
    /// The writer thread, woken by a passthrough that waits for it.
    writer: OnceLock<std::thread::Thread>,
}

/// Lines passed through against lines on disk.
#[derive(Default)]
struct Lag {
    /// Lines (newlines) the passthrough was given, recorded or not.
    sent: u64,
    /// Line records the writer has made decodable on disk.
    on_disk: u64,
    /// For chunks whose lines are not all on disk: `sent` after the chunk, and when it came.
    marks: VecDeque<(u64, Instant)>,
    /// Lines passed through unrecorded after the recording stopped.
    dropped: u64,
    /// Per direction: the last chunk ended inside a line.
    open: [bool; 3],
}

impl Shared {
    fn new(max_lag: usize, path: PathBuf) -> Shared {
        Shared {
            failed: AtomicBool::new(false),
            warned: AtomicBool::new(false),
            in_flight: AtomicUsize::new(0),
            max_lag,
            path,
            lag: Mutex::new(Lag::default()),
            on_disk: Condvar::new(),
            writer: OnceLock::new(),
        }
    }

    fn lag(&self) -> MutexGuard<'_, Lag> {
        self.lag.lock().unwrap_or_else(|e| e.into_inner())
    }

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
            shared: Arc::new(Shared::new(usize::MAX, PathBuf::new())),
            start: Instant::now(),
        }
    }

    /// Record a chunk received in direction `dir` (any size, any boundaries), before it is passed
    /// on. Waits while the recording lags too far behind (see the module's documentation).
    pub fn record(&self, dir: Direction, data: &[u8]) {
        if self.tx.is_some() && !data.is_empty() {
            let len = data.len();
            self.record_shared(dir, &Arc::new(data.to_vec()), 0..len);
        }
    }

    /// [`record`](Self::record) `buf[range]` without copying it: the writer thread holds on to
    /// `buf` until it has written the piece (the passthrough reuses a buffer once it is the only
    /// holder again).
    pub fn record_shared(&self, dir: Direction, buf: &Arc<Vec<u8>>, range: std::ops::Range<usize>) {
        let Some(tx) = &self.tx else { return };
        let Some(data) = buf.get(range.clone()) else {
            return;
        };
        if data.is_empty() {
            return;
        }
        let lines = memchr::memchr_iter(b'\n', data).count() as u64;
        let shared = &*self.shared;
        let mut lag = shared.lag();
        lag.open[dir as usize] = data.last() != Some(&b'\n');
        if !shared.failed.load(Ordering::Relaxed) {
            lag = self.wait_for_room(lag, lines, data.len());
        }
        lag.sent += lines;
        if shared.failed.load(Ordering::Relaxed) {
            lag.dropped += lines;
            return;
        }
        shared.in_flight.fetch_add(data.len(), Ordering::Relaxed);
        let now = Instant::now();
        let t = now.duration_since(self.start).as_millis() as u64;
        // Sent under the lock, so that the queue and the marks keep one order.
        match tx.try_send(Msg::Chunk {
            t,
            dir,
            data: Arc::clone(buf),
            range,
        }) {
            Ok(()) => {
                let sent = lag.sent;
                if lines > 0 {
                    lag.marks.push_back((sent, now));
                }
            }
            Err(TrySendError::Full(_)) => {
                lag.dropped += lines;
                drop(lag);
                shared.fail("the recorder fell behind");
            }
            // The recording already ended (a straggling proxy thread): nothing to do.
            Err(TrySendError::Disconnected(_)) => {}
        }
    }

    /// Wait until `lines` more lines (`bytes` bytes) keep the lag within its bounds, at most
    /// [`MAX_WAIT`]; past that the recording stops.
    fn wait_for_room<'a>(
        &'a self,
        mut lag: MutexGuard<'a, Lag>,
        lines: u64,
        bytes: usize,
    ) -> MutexGuard<'a, Lag> {
        let shared = &*self.shared;
        let mut deadline = None;
        loop {
            let behind = lag.sent - lag.on_disk;
            let in_flight = shared.in_flight.load(Ordering::Relaxed);
            let over = (behind > 0 && behind + lines > MAX_LAG_LINES)
                || lag
                    .marks
                    .front()
                    .is_some_and(|(_, at)| at.elapsed() >= MAX_LAG_TIME)
                || (in_flight > 0 && in_flight + bytes > shared.max_lag);
            if !over || shared.failed.load(Ordering::Relaxed) {
                return lag;
            }
            let now = Instant::now();
            let until = *deadline.get_or_insert(now + MAX_WAIT);
            if now >= until {
                drop(lag);
                shared.fail("the recorder fell behind");
                return shared.lag();
            }
            if let Some(w) = shared.writer.get() {
                w.unpark();
            }
            lag = shared
                .on_disk
                .wait_timeout(lag, (until - now).min(WAKE))
                .map_or_else(|e| e.into_inner().0, |r| r.0);
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
        Self::start_on(cfg, |f| Box::new(f))
    }

    /// [`start`](Self::start), writing the fixture's bytes through `sink` (tests inject
    /// failures there).
    fn start_on(
        cfg: RecorderConfig,
        sink: impl FnOnce(File) -> Box<dyn Write + Send>,
    ) -> anyhow::Result<Recorder> {
        let shared = Arc::new(Shared::new(cfg.max_lag_bytes, cfg.path.clone()));
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
        let writer = match FixtureWriter::new(
            BufWriter::with_capacity(256 << 10, sink(file)),
            &cfg.header,
        ) {
            Ok(w) => w,
            Err(e) => {
                // Not even the header is on disk (a full disk): leave no fixture, so that
                // the next recording under this name is not refused.
                let _ = std::fs::remove_file(&cfg.path);
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
                let _ = thread_shared.writer.set(std::thread::current());
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
                    on_disk: 0,
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
    if let Some(dir) = path.parent()
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        return Err(OpenError::Io(
            anyhow::Error::new(e).context(format!("failed to create {}", dir.display())),
        ));
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
    writer: Option<FixtureWriter<BufWriter<Box<dyn Write + Send>>>>,
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
    /// Lines on disk, as last published.
    on_disk: u64,
}

impl WriterLoop {
    /// Runs until told to finish; returns the number of lines written. The thread drains the
    /// queue, then sleeps: it is never parked on the channel, so the passthrough's `try_send`
    /// never has to wake it (no syscall, no context switch per line on the live path).
    fn run(&mut self, rx: Receiver<Msg>) -> u64 {
        loop {
            loop {
                match rx.try_recv() {
                    Ok(Msg::Chunk {
                        t,
                        dir,
                        data,
                        range,
                    }) => {
                        let piece = data.get(range).unwrap_or_default();
                        self.shared
                            .in_flight
                            .fetch_sub(piece.len(), Ordering::Relaxed);
                        self.chunk(t, dir, piece);
                        drop(data);
                        // A stream that never pauses still reaches the disk within
                        // FLUSH_INTERVAL.
                        self.tick();
                        self.publish();
                    }
                    Ok(Msg::Finish { exit_code }) => return self.finish(exit_code),
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => return self.finish(None),
                }
            }
            self.tick();
            self.publish();
            std::thread::park_timeout(WAKE);
        }
    }

    /// Flush the fixture if its oldest unflushed line has waited long enough.
    fn tick(&mut self) {
        if let Some(w) = &mut self.writer
            && let Err(e) = w.tick()
        {
            self.io_failed(&e);
        }
    }

    /// Tell a waiting passthrough how many lines are on disk.
    fn publish(&mut self) {
        let Some(on_disk) = self.writer.as_ref().map(FixtureWriter::flushed_lines) else {
            return;
        };
        if on_disk == self.on_disk {
            return;
        }
        self.on_disk = on_disk;
        let mut lag = self.shared.lag();
        // Lines written count against lines sent; lines dropped before the writer are not written.
        lag.on_disk = on_disk.min(lag.sent);
        while lag.marks.front().is_some_and(|(sent, _)| *sent <= on_disk) {
            lag.marks.pop_front();
        }
        drop(lag);
        self.shared.on_disk.notify_all();
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
        // A fixture without a single line on disk is worth nothing and would refuse the next
        // recording under its name.
        if self.writer.take().is_some_and(|w| w.flushed_lines() == 0) {
            let _ = std::fs::remove_file(&self.shared.path);
        }
        self.shared.fail(&format!(
            "failed to write {}: {e}",
            self.shared.path.display()
        ));
    }

    fn finish(&mut self, exit_code: Option<i32>) -> u64 {
        let failed = self.shared.failed.load(Ordering::SeqCst);
        let terminated = self.writer.as_ref().map_or(0, FixtureWriter::lines);
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
        // Lines passed through and not in the fixture: lines sent and never written, and the
        // unfinished last line of a direction when the recording had stopped.
        let dropped = {
            let lag = self.shared.lag();
            let open = if failed {
                lag.open.iter().filter(|o| **o).count() as u64
            } else {
                0
            };
            lag.sent.saturating_sub(terminated) + open
        };
        let trailer = Trailer {
            redactions: self.redactor.summary(&self.state),
            ended_at: now_rfc3339(),
            cli_version: self.cli_version.take(),
            dialect,
            recording_failed: failed
                .then(|| "the recorder fell behind; later lines are missing".to_owned()),
            dropped_lines: (dropped > 0).then_some(dropped),
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

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    use super::*;
    use crate::corpus::format::new_header;
    use crate::corpus::read_fixture;

    fn config(dir: &Path) -> RecorderConfig {
        RecorderConfig {
            path: dir.join("claude/full.jsonl.zst"),
            header: new_header("claude", "full"),
            force: false,
            redactor: Redactor::for_user(Vec::new(), Vec::new()).unwrap(),
            max_lag_bytes: DEFAULT_MAX_LAG_BYTES,
            detect: None,
        }
    }

    /// A disk that takes `room` writes, then is full.
    struct Full {
        file: File,
        room: usize,
    }

    impl Write for Full {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.room == 0 {
                return Err(io::Error::from_raw_os_error(libc::ENOSPC));
            }
            self.room -= 1;
            self.file.write(buf)
        }
        fn flush(&mut self) -> io::Result<()> {
            self.file.flush()
        }
    }

    #[test]
    fn a_full_disk_leaves_no_fixture_to_refuse_the_next_recording() {
        let dir = tempfile::tempdir().unwrap();
        // No room at all (not even the header), then room for the header only.
        for room in [0, 1] {
            let rec = Recorder::start_on(config(dir.path()), move |file| {
                Box::new(Full { file, room })
            })
            .unwrap();
            let tap = rec.tap();
            for i in 0..2000 {
                tap.record(Direction::Agent, format!("{{\"i\":{i}}}\n").as_bytes());
            }
            let outcome = rec.finish(None);
            assert!(!outcome.complete);
            assert!(
                !outcome.path.exists(),
                "room {room}: a fixture of {} bytes is left",
                std::fs::metadata(&outcome.path).map_or(0, |m| m.len())
            );
        }
        let rec = Recorder::start(config(dir.path())).unwrap();
        rec.tap().record(Direction::Agent, b"{\"again\":1}\n");
        assert!(rec.finish(None).complete);
    }

    /// A disk that hangs after the header until told to go on.
    struct Stuck {
        file: File,
        writes: usize,
        go: mpsc::Receiver<()>,
    }

    impl Write for Stuck {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.writes += 1;
            if self.writes == 2 {
                let _ = self.go.recv();
            }
            self.file.write(buf)
        }
        fn flush(&mut self) -> io::Result<()> {
            self.file.flush()
        }
    }

    #[test]
    fn a_stuck_disk_stops_the_recording_after_a_bounded_wait_and_the_trailer_counts_the_lines_dropped()
     {
        let dir = tempfile::tempdir().unwrap();
        let (go, wait) = mpsc::channel();
        let rec = Recorder::start_on(config(dir.path()), move |file| {
            Box::new(Stuck {
                file,
                writes: 0,
                go: wait,
            })
        })
        .unwrap();
        let tap = rec.tap();
        let started = Instant::now();
        let total = 5000;
        for i in 0..total {
            tap.record(Direction::Agent, format!("{{\"i\":{i}}}\n").as_bytes());
        }
        let waited = started.elapsed();
        assert!(waited >= MAX_WAIT, "the passthrough waited {waited:?}");
        assert!(waited < MAX_WAIT * 5, "the passthrough waited {waited:?}");
        go.send(()).unwrap();
        let outcome = rec.finish(None);
        assert!(!outcome.complete);
        let fx = read_fixture(&outcome.path).unwrap();
        let trailer = fx.trailer.expect("a trailer");
        let recorded = fx.lines.len() as u64;
        assert!(recorded <= MAX_LAG_LINES, "{recorded} lines recorded");
        assert_eq!(trailer.dropped_lines, Some(total - recorded));
        assert!(trailer.recording_failed.is_some());
    }
}
