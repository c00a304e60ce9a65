//! `verify --timings`: where a run's time goes, phase by phase.
//!
//! Each phase's time is the wall time spent inside it, summed over every fixture (and, with
//! `--jobs` above one, over the jobs, so the phases can add up to more than the run's wall time).
//! When timings are off, nothing is measured: [`Timings::time`] only calls its closure.
//!
//! The counters are atomics so the jobs add to one set; the table is rendered by [`render`], with
//! the process's own CPU time (which the CLI reads from the system) beside it, so what no phase
//! covers (process start, argument parsing, thread start-up) shows as the difference.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A part of a verify run that is timed on its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Listing the corpus and expected folders, loading the expectations, picking the selection.
    Listing,
    /// Reading each fixture, decompressing it and unescaping its lines.
    Reading,
    /// The implementation's work: the built-in normalizer, or the exchange with `--impl`.
    Normalizing,
    /// Writing each output as canonical JSON.
    Canonical,
    /// The rules' own reading of each raw stream.
    RulesScan,
    /// Every rule checked against each output and its raw scan.
    RulesChecks,
    /// Reading each expected file.
    Expected,
    /// Comparing each output with its expected file.
    Comparing,
    /// Each result put on the report spool, in order, and read back for the report.
    Spooling,
    /// Writing report.json, junit.xml, summary.md and index.html.
    Reports,
}

impl Phase {
    /// Every phase, in the order of a run.
    pub const ALL: [Phase; 10] = [
        Phase::Listing,
        Phase::Reading,
        Phase::Normalizing,
        Phase::Canonical,
        Phase::RulesScan,
        Phase::RulesChecks,
        Phase::Expected,
        Phase::Comparing,
        Phase::Spooling,
        Phase::Reports,
    ];

    /// The phase's name in the table.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Listing => "listing",
            Phase::Reading => "reading",
            Phase::Normalizing => "normalizing",
            Phase::Canonical => "canonical",
            Phase::RulesScan => "rules-scan",
            Phase::RulesChecks => "rules-checks",
            Phase::Expected => "expected",
            Phase::Comparing => "comparing",
            Phase::Spooling => "spooling",
            Phase::Reports => "reports",
        }
    }

    /// What the phase covers, for the table.
    pub fn what(self) -> &'static str {
        match self {
            Phase::Listing => "list corpus and expected files, load expectations",
            Phase::Reading => "read fixtures, decompress, unescape lines",
            Phase::Normalizing => "the implementation normalizes each stream",
            Phase::Canonical => "write each output as canonical JSON",
            Phase::RulesScan => "the rules' own reading of each raw stream",
            Phase::RulesChecks => "check every rule on each output",
            Phase::Expected => "read each expected file",
            Phase::Comparing => "compare outputs with expected files",
            Phase::Spooling => "spool each result, read them back for the report",
            Phase::Reports => "write report.json, junit.xml, summary.md, index.html",
        }
    }
}

/// Time spent per [`Phase`] of one run; off (measuring nothing) unless made with `new(true)`.
#[derive(Debug)]
pub struct Timings {
    on: bool,
    nanos: [AtomicU64; Phase::ALL.len()],
}

/// Timings that are off, for callers that time nothing.
pub static OFF: Timings = Timings::new(false);

impl Default for Timings {
    fn default() -> Self {
        Timings::new(false)
    }
}

impl Timings {
    pub const fn new(on: bool) -> Self {
        Timings {
            on,
            nanos: [const { AtomicU64::new(0) }; Phase::ALL.len()],
        }
    }

    pub fn is_on(&self) -> bool {
        self.on
    }

    /// Run `f`, its wall time added to `phase` when timings are on.
    #[inline]
    pub fn time<T>(&self, phase: Phase, f: impl FnOnce() -> T) -> T {
        if !self.on {
            return f();
        }
        let started = Instant::now();
        let out = f();
        self.add(phase, started.elapsed());
        out
    }

    /// The start of a span of code [`Timings::end`] adds to a phase (for code that
    /// [`Timings::time`] cannot wrap: one that returns early, or uses `?`).
    #[inline]
    pub fn start(&self) -> Option<Instant> {
        self.on.then(Instant::now)
    }

    /// Add the time since `started` (from [`Timings::start`]) to `phase`.
    #[inline]
    pub fn end(&self, phase: Phase, started: Option<Instant>) {
        if let Some(s) = started {
            self.add(phase, s.elapsed());
        }
    }

    /// Add `d` to `phase` (when timings are on).
    pub fn add(&self, phase: Phase, d: Duration) {
        if self.on {
            let n = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
            self.nanos[phase as usize].fetch_add(n, Ordering::Relaxed);
        }
    }

    /// The time added to `phase` so far.
    pub fn get(&self, phase: Phase) -> Duration {
        Duration::from_nanos(self.nanos[phase as usize].load(Ordering::Relaxed))
    }

    /// The time added to every phase.
    pub fn total(&self) -> Duration {
        Phase::ALL.iter().map(|&p| self.get(p)).sum()
    }
}

/// The process's CPU time, as the system counts it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProcessCpu {
    pub user: Duration,
    pub system: Duration,
}

/// The table `verify --timings` prints: one row per phase (seconds, and share of the process's
/// CPU time when it is known), the phases' sum, and the process's CPU time.
pub fn render(t: &Timings, fixtures: usize, jobs: usize, cpu: Option<ProcessCpu>) -> String {
    use std::fmt::Write as _;
    let cpu_total = cpu.map(|c| c.user + c.system);
    let share = |d: Duration| match cpu_total {
        Some(c) if !c.is_zero() => format!("{:5.1}%", 100.0 * d.as_secs_f64() / c.as_secs_f64()),
        _ => String::new(),
    };
    let mut out = format!(
        "timings: {fixtures} fixture(s), --jobs {jobs}; wall time inside each phase{}\n",
        if jobs > 1 {
            ", summed over the jobs"
        } else {
            ""
        }
    );
    let width = Phase::ALL.iter().map(|p| p.what().len()).max().unwrap_or(0);
    let mut row = |name: &str, what: &str, d: Duration, tail: String| {
        let secs = d.as_secs_f64();
        let _ = writeln!(out, "  {name:<13}{what:<width$}  {secs:8.3} s {tail}");
    };
    for p in Phase::ALL {
        row(p.name(), p.what(), t.get(p), share(t.get(p)));
    }
    row("phases", "all of the above", t.total(), share(t.total()));
    if let Some(c) = cpu {
        row(
            "process",
            "CPU time of the whole process, start to here",
            c.user + c.system,
            format!(
                "(user {:.3} s, system {:.3} s)",
                c.user.as_secs_f64(),
                c.system.as_secs_f64()
            ),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_measures_nothing_and_still_runs_the_work() {
        let t = Timings::new(false);
        let mut ran = false;
        let v = t.time(Phase::Reading, || {
            ran = true;
            7
        });
        assert!(ran);
        assert_eq!(v, 7);
        t.add(Phase::Reports, Duration::from_secs(1));
        assert_eq!(t.total(), Duration::ZERO);
        assert!(!OFF.is_on());
    }

    #[test]
    fn on_adds_each_phase_on_its_own() {
        let t = Timings::new(true);
        t.time(Phase::Reading, || {
            std::thread::sleep(Duration::from_millis(3))
        });
        t.add(Phase::Reports, Duration::from_millis(5));
        t.add(Phase::Reports, Duration::from_millis(5));
        assert!(t.get(Phase::Reading) >= Duration::from_millis(3));
        assert_eq!(t.get(Phase::Reports), Duration::from_millis(10));
        assert_eq!(t.get(Phase::Listing), Duration::ZERO);
        assert_eq!(t.total(), t.get(Phase::Reading) + Duration::from_millis(10));
    }

    #[test]
    fn jobs_add_to_one_set() {
        let t = Timings::new(true);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..100 {
                        t.add(Phase::Normalizing, Duration::from_micros(1));
                    }
                });
            }
        });
        assert_eq!(t.get(Phase::Normalizing), Duration::from_micros(400));
    }

    #[test]
    fn the_table_has_a_row_per_phase_the_sum_and_the_process() {
        let t = Timings::new(true);
        t.add(Phase::Reading, Duration::from_millis(250));
        t.add(Phase::Normalizing, Duration::from_millis(125));
        let cpu = ProcessCpu {
            user: Duration::from_millis(400),
            system: Duration::from_millis(100),
        };
        let table = render(&t, 12, 1, Some(cpu));
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 1 + Phase::ALL.len() + 2, "{table}");
        assert!(lines[0].starts_with("timings: 12 fixture(s), --jobs 1;"));
        assert!(!lines[0].contains("summed over the jobs"));
        for (line, p) in lines[1..].iter().zip(Phase::ALL) {
            assert!(line.trim_start().starts_with(p.name()), "{line}");
            assert!(line.contains(p.what()), "{line}");
        }
        let row = |name: &str| {
            *lines
                .iter()
                .find(|l| l.trim_start().starts_with(&format!("{name} ")))
                .unwrap()
        };
        assert!(row("reading").contains("   0.250 s  50.0%"), "{table}");
        assert!(row("normalizing").contains("   0.125 s  25.0%"), "{table}");
        assert!(row("listing").contains("   0.000 s   0.0%"), "{table}");
        assert!(row("phases").contains("   0.375 s  75.0%"), "{table}");
        assert!(
            row("process").contains("   0.500 s (user 0.400 s, system 0.100 s)"),
            "{table}"
        );
        // Without the process's CPU time: no shares, no process row; several jobs say so.
        let table = render(&t, 12, 3, None);
        assert!(
            table
                .lines()
                .next()
                .unwrap()
                .ends_with("summed over the jobs")
        );
        assert!(!table.contains('%'));
        assert!(!table.contains("process"));
    }
}
