//! Benchmark of `toolnorm verify` as a user runs it — the release binary, as a process, writing
//! its reports — against its floor, measured in the same run.
//!
//! One command (the corpus goes under `TMPDIR`; a memory file system keeps the disk out of it):
//!
//! ```text
//! TMPDIR=/dev/shm cargo bench --bench verify
//! ```
//!
//! Knobs (environment):
//!
//! - `TOOLNORM_BENCH_CORPUS`: `real` (default) or `generated`.
//!   - `real`: real sessions. Every shipped fixture that was imported from a public session file
//!     (the corpus's third-party samples: every `corpus/*/*` not named `live-*`; `corpus/SOURCES.md`
//!     has their origin and MIT / Apache-2.0 licences) is printed back with `toolnorm cat` and
//!     written `TOOLNORM_BENCH_COPIES` times (default 90: 12 samples make 1,080 fixtures, 142 MB
//!     of raw lines, 82 MB of zstd), each copy a session file of its own name. `toolnorm import`
//!     brings them into the corpus, as a user brings in session files, and `toolnorm accept`
//!     writes their expected files. The copies are plain copies: each fixture is normalized,
//!     checked and compared on its own, with nothing carried from one fixture to the next, so ids
//!     shared between fixtures change none of the work, and the streams stay the real ones byte
//!     for byte.
//!   - `generated`: `TOOLNORM_BENCH_FIXTURES` fixtures (default 1000) of `TOOLNORM_BENCH_MB` raw
//!     megabytes in all (default 150), each the text of one fixture of `corpus/` (every provider
//!     and dialect) repeated up to a size drawn (deterministically) between 0.2 and 1.8 times the
//!     average, written as `record` writes fixtures. It measures the per-byte cost of every
//!     dialect on large fixtures, which the real sessions (all but one Claude) do not. Its
//!     `verify` exits 1 (repeated ids within a fixture break rules); the work is the same.
//! - `TOOLNORM_BENCH_RUNS`: timed runs of each side (default 11), alternating (floor, verify,
//!   verify, floor, …, so neither side always goes first), after one untimed run of each.
//! - `TOOLNORM_BENCH_JOBS`: the `--jobs` values to time, comma-separated (default `1`; `1,2` adds
//!   two jobs against the floor on two threads).
//! - `TOOLNORM_BENCH_DIR`: build the corpus there and keep it; a later run with the same corpus
//!   settings reuses it (the corpus and expected files are rebuilt when the settings differ).
//!   Without it the corpus goes to a temporary folder, removed at the end.
//! - `TOOLNORM_BENCH_PIN`: `0` lets the `--jobs 1` runs go to any CPU. By default every process
//!   of a `--jobs 1` comparison runs on one CPU (the last this bench may use): moved between
//!   CPUs while it runs, a process pays for it in CPU time by chance, and on a virtual machine
//!   that widened the spread of the runs (see docs/reference/performance.md).
//! - `TOOLNORM_BENCH_BASELINE`: the path of another `toolnorm` binary (a build of an earlier
//!   revision), timed as a third side in the same alternation, on the same corpus and expected
//!   files: before and after in one run, under the same load.
//! - `TOOLNORM_BENCH_PROFILES`: cargo profiles, comma-separated (`dist`: the shipped binaries'
//!   profile, fat LTO and one code generation unit). The bench builds `toolnorm` with each
//!   (`cargo build --profile P --locked --bin toolnorm`, into the same target folder) and times it
//!   as one more side in the same alternation, printed with its ratio to the floor and to
//!   `verify` (the `bench` profile, which is `release`): what the profile gains over `release`.
//!
//! The two sides:
//!
//! - **verify**: `toolnorm verify --jobs N` run in the corpus's folder (default `corpus`,
//!   `expected`, `reports`; no expectations file), with `CI` unset and stdout and stderr to
//!   `/dev/null`: listing, reading, normalizing, the rules, comparing, report.json, junit.xml,
//!   summary.md, index.html and the spool, from process start to exit.
//! - **the floor**: this bench's own binary, started again as a process, reads every fixture
//!   file from disk, decompresses it (a `zstd::Decoder` each, one thread per job) and parses
//!   every line of it into a `serde_json::Value`: the least any reader of the same zstd frames
//!   does. The floor uses the system allocator; `toolnorm` is built on mimalloc
//!   (`src/main.rs`).
//!
//! Each run's wall time is taken around the process, its user and system CPU time and peak RSS
//! from `wait4`. Printed per `--jobs`: the medians of each side (wall, user, system, CPU = user +
//! system) with the least and most CPU of its runs, the ratios to the floor (the goal is ≤ 1.0):
//! of the medians, and the median and quartiles of each round's own ratio (the two sides of a
//! round run back to back, so a load that drifts over the run moves it less), verify's peak RSS,
//! and the load average before and after (a busy machine makes wall times noisy: the CPU ratio
//! then says more). Then
//! the table of one more run of `verify --timings`: where its time went, phase by phase.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use rayon::prelude::*;
use toolnorm::corpus::format::new_header;
use toolnorm::corpus::redact::{RedactOptions, Redactor};
use toolnorm::corpus::{list_fixtures, load_stream, write_fixture};
use toolnorm::stream::Direction;

/// Set in the environment of this binary when it is started again as the floor:
/// `<jobs>:<corpus folder>`.
const FLOOR_ENV: &str = "TOOLNORM_BENCH_FLOOR_OF";

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_toolnorm")
}

/// Build `toolnorm` with the cargo profile `profile` (`TOOLNORM_BENCH_PROFILES`) into the target
/// folder this bench was built in; the binary's path.
fn build_profile(profile: &str) -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let status = Command::new(cargo)
        .args([
            "build",
            "--profile",
            profile,
            "--locked",
            "--bin",
            "toolnorm",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("run cargo build");
    assert!(status.success(), "cargo build --profile {profile} failed");
    // `target/release/toolnorm` -> `target/<profile>/toolnorm`.
    let release = Path::new(bin());
    let target = release
        .parent()
        .and_then(Path::parent)
        .expect("the bench's toolnorm lies in target/<profile>/");
    target.join(profile).join("toolnorm")
}

/// Run `toolnorm` to completion in `dir`, failing the bench if it cannot run or exits above 1.
fn toolnorm(dir: &Path, args: &[&str]) -> std::process::Output {
    let out = Command::new(bin())
        .args(args)
        .current_dir(dir)
        .env_remove("CI")
        .output()
        .expect("run toolnorm");
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "toolnorm {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The real-session corpus: every shipped fixture not named `live-*`, `copies` times, through
/// `toolnorm cat`, `toolnorm import` and `toolnorm accept`.
fn build_real(dir: &Path, copies: u64) {
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let samples: Vec<_> = list_fixtures(&shipped)
        .into_iter()
        .filter(|e| !e.name.starts_with("live-"))
        .collect();
    assert!(!samples.is_empty(), "no sample under {}", shipped.display());
    let raw = dir.join("sessions");
    fs::create_dir_all(&raw).expect("sessions folder");
    for e in &samples {
        let out = toolnorm(dir, &["cat", &e.path.to_string_lossy()]);
        for i in 1..=copies {
            fs::write(raw.join(format!("{}-{i:03}.jsonl", e.name)), &out.stdout)
                .expect("write a session file");
        }
    }
    let started = Instant::now();
    let out = toolnorm(dir, &["import", "--corpus", "corpus", "sessions"]);
    let said = String::from_utf8_lossy(&out.stdout);
    println!(
        "import: {} ({:.1?})",
        said.lines().last().unwrap_or(""),
        started.elapsed()
    );
    fs::remove_dir_all(&raw).expect("remove the session files");
}

/// One fixture of the shipped corpus: its provider folder and its lines with their directions.
struct Sample {
    provider: String,
    lines: Vec<(Direction, Vec<u8>)>,
    /// Bytes of the lines, one newline each.
    len: usize,
}

/// The generated corpus (see the top of the file).
fn build_generated(dir: &Path, count: u64, total: u64) {
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let samples: Vec<Sample> = list_fixtures(&shipped)
        .into_iter()
        .map(|e| {
            let stream = load_stream(&e.path).expect("read a corpus fixture");
            let lines: Vec<(Direction, Vec<u8>)> = stream
                .spans()
                .iter()
                .filter(|(start, end, _, _, _)| end > start)
                .map(|&(start, end, dir, _, _)| (dir, stream.bytes()[start..end].to_vec()))
                .collect();
            let len = lines.iter().map(|(_, l)| l.len() + 1).sum();
            Sample {
                provider: e.provider,
                lines,
                len,
            }
        })
        .collect();
    assert!(
        !samples.is_empty(),
        "no fixture under {}",
        shipped.display()
    );
    let redactor = Redactor::new(&RedactOptions::default()).expect("redactor");
    let corpus = dir.join("corpus");
    let avg = total / count.max(1);
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for i in 0..count {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let frac = (state >> 33) as f64 / (1u64 << 31) as f64;
        let target = (avg as f64 * (0.2 + 1.6 * frac)) as usize;
        let sample = &samples[i as usize % samples.len()];
        let copies = (target / sample.len).max(1);
        let name = format!("gen-{i:05}");
        let path = toolnorm::corpus::fixture_path(&corpus, &sample.provider, &name);
        // The real fixture format (header, line records, trailer), as `record` writes it.
        let lines = std::iter::repeat_n(&sample.lines, copies)
            .flatten()
            .enumerate()
            .map(|(t, (dir, l))| (t as u64, *dir, l.as_slice(), true));
        write_fixture(
            &path,
            new_header(&sample.provider, &name),
            lines,
            &redactor,
            true,
        )
        .expect("write a fixture");
    }
}

/// Every fixture file under `corpus/<provider>/`.
fn fixture_files(corpus: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for provider in fs::read_dir(corpus).expect("read the corpus") {
        let provider = provider.expect("corpus entry").path();
        if !provider.is_dir() {
            continue;
        }
        for f in fs::read_dir(&provider).expect("read a provider folder") {
            let f = f.expect("provider folder entry").path();
            if f.to_string_lossy().ends_with(".jsonl.zst") {
                files.push(f);
            }
        }
    }
    files
}

/// The floor, in its own process: read, decompress and parse every line of every fixture into a
/// `serde_json::Value`, on `jobs` threads.
fn floor_main(spec: &str) {
    let (jobs, corpus) = spec.split_once(':').expect("<jobs>:<corpus>");
    let jobs: usize = jobs.parse().expect("jobs");
    let files = fixture_files(Path::new(corpus));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .expect("thread pool");
    let values: usize = pool.install(|| {
        files
            .par_iter()
            .map(|f| {
                let mut bytes = Vec::new();
                zstd::Decoder::new(fs::File::open(f).expect("open a fixture"))
                    .expect("zstd decoder")
                    .read_to_end(&mut bytes)
                    .expect("decompress a fixture");
                bytes
                    .split(|b| *b == b'\n')
                    .filter(|l| !l.is_empty())
                    .filter(|l| serde_json::from_slice::<serde_json::Value>(l).is_ok())
                    .count()
            })
            .sum()
    });
    println!("{values}");
}

/// One process run: wall, user and system seconds, peak RSS in KiB, exit code.
struct Run {
    wall: f64,
    user: f64,
    sys: f64,
    peak_rss_kb: u64,
    exit: Option<i32>,
}

// The child is reaped by `wait4` (which also gives its CPU time and peak RSS), not `Child::wait`.
#[allow(clippy::zombie_processes)]
fn run(cmd: &mut Command) -> Run {
    let started = Instant::now();
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start a process");
    let mut status = 0;
    // SAFETY: wait4 fills the status and rusage it is given; the child is ours and reaped here
    // (the `Child` is never waited on afterwards).
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut ru) };
    let wall = started.elapsed().as_secs_f64();
    assert_eq!(pid, child.id() as libc::pid_t, "wait4 failed");
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Run {
        wall,
        user: tv(ru.ru_utime),
        sys: tv(ru.ru_stime),
        peak_rss_kb: ru.ru_maxrss as u64,
        exit: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
    }
}

/// Keep this process (and the processes it starts from now on) to the last CPU it may run on:
/// that CPU and the set it had before, or `None` when the set cannot be read or changed.
fn pin_to_one_cpu() -> Option<(usize, libc::cpu_set_t)> {
    // SAFETY: a zeroed `cpu_set_t` is an empty set; `sched_getaffinity` fills it for this
    // process and reads no more than the size it is given.
    let mut all: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let got = unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&all), &mut all) };
    if got != 0 {
        return None;
    }
    // SAFETY: `CPU_ISSET` reads the set, for a CPU number below its size.
    let cpu = (0..libc::CPU_SETSIZE as usize)
        .rev()
        .find(|&c| unsafe { libc::CPU_ISSET(c, &all) })?;
    // SAFETY: as above; `CPU_SET` adds a CPU number below the set's size.
    let mut one: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    unsafe { libc::CPU_SET(cpu, &mut one) };
    set_affinity(&one).then_some((cpu, all))
}

/// Run this process on the CPUs of `set` only; whether that was done.
fn set_affinity(set: &libc::cpu_set_t) -> bool {
    // SAFETY: `sched_setaffinity` reads the set it is given, of the size given.
    unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(set), set) == 0 }
}

fn load() -> String {
    fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_owned())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    if let Ok(spec) = std::env::var(FLOOR_ENV) {
        floor_main(&spec);
        return;
    }
    // `cargo bench` passes `--bench`; a filter argument that is not ours means another bench runs.
    if std::env::args()
        .skip(1)
        .any(|a| a != "--bench" && !a.starts_with('-') && a != "verify")
    {
        return;
    }
    let kind = std::env::var("TOOLNORM_BENCH_CORPUS").unwrap_or_else(|_| "real".to_owned());
    let settings = match kind.as_str() {
        "real" => format!("real {}", env_num("TOOLNORM_BENCH_COPIES", 90)),
        "generated" => format!(
            "generated {} {}",
            env_num("TOOLNORM_BENCH_FIXTURES", 1000),
            env_num("TOOLNORM_BENCH_MB", 150)
        ),
        other => panic!("TOOLNORM_BENCH_CORPUS is `real` or `generated`, not `{other}`"),
    };
    let (_tmp, dir) = match std::env::var_os("TOOLNORM_BENCH_DIR") {
        Some(d) => (None, PathBuf::from(d)),
        None => {
            let t = tempfile::tempdir().expect("temp dir");
            let p = t.path().to_owned();
            (Some(t), p)
        }
    };
    let stamp = dir.join("bench-corpus");
    if fs::read_to_string(&stamp).ok().as_deref() != Some(settings.as_str()) {
        for sub in ["corpus", "expected", "reports"] {
            let _ = fs::remove_dir_all(dir.join(sub));
        }
        fs::create_dir_all(&dir).expect("bench folder");
        let started = Instant::now();
        match kind.as_str() {
            "real" => build_real(&dir, env_num("TOOLNORM_BENCH_COPIES", 90)),
            _ => build_generated(
                &dir,
                env_num("TOOLNORM_BENCH_FIXTURES", 1000),
                env_num("TOOLNORM_BENCH_MB", 150) * 1_000_000,
            ),
        }
        let accept = toolnorm(&dir, &["accept"]);
        println!(
            "accept: {} ({:.1?} to build)",
            String::from_utf8_lossy(&accept.stdout)
                .lines()
                .last()
                .unwrap_or(""),
            started.elapsed()
        );
        fs::write(&stamp, &settings).expect("stamp");
    }
    let files = fixture_files(&dir.join("corpus"));
    let (mut raw, mut compressed) = (0u64, 0u64);
    for f in &files {
        compressed += fs::metadata(f).map(|m| m.len()).unwrap_or(0);
    }
    for f in &files {
        let mut d = zstd::Decoder::new(fs::File::open(f).expect("fixture")).expect("decoder");
        let mut bytes = Vec::new();
        d.read_to_end(&mut bytes).expect("decompress");
        raw += bytes.len() as u64;
    }
    println!(
        "corpus ({settings}): {} fixtures in {}, {:.1} MB of fixture records, {:.1} MB zstd",
        files.len(),
        dir.display(),
        raw as f64 / 1e6,
        compressed as f64 / 1e6
    );

    let runs = env_num("TOOLNORM_BENCH_RUNS", 11).max(1) as usize;
    let jobs_list: Vec<usize> = std::env::var("TOOLNORM_BENCH_JOBS")
        .unwrap_or_else(|_| "1".to_owned())
        .split(',')
        .map(|j| j.trim().parse().expect("TOOLNORM_BENCH_JOBS: numbers"))
        .collect();
    let me = std::env::current_exe().expect("this bench's binary");
    let profiles: Vec<(String, PathBuf)> = std::env::var("TOOLNORM_BENCH_PROFILES")
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| (p.to_owned(), build_profile(p)))
        .collect();
    for jobs in jobs_list {
        let corpus = dir.join("corpus");
        let floor_cmd = || {
            let mut c = Command::new(&me);
            c.env(FLOOR_ENV, format!("{jobs}:{}", corpus.display()));
            c
        };
        let toolnorm_cmd = |bin: &Path| {
            let mut c = Command::new(bin);
            c.args(["verify", "--jobs", &jobs.to_string()])
                .current_dir(&dir)
                .env_remove("CI");
            c
        };
        // The sides, in the order of an even round (an odd one runs them backwards, so no side
        // always goes first): the floor, this build's verify, and the baseline's when given.
        let mut sides: Vec<(String, Box<dyn Fn() -> Command + '_>)> = vec![
            ("floor".to_owned(), Box::new(floor_cmd)),
            (
                "verify".to_owned(),
                Box::new(|| toolnorm_cmd(Path::new(bin()))),
            ),
        ];
        if let Some(base) = std::env::var_os("TOOLNORM_BENCH_BASELINE") {
            let base = PathBuf::from(base);
            sides.push(("baseline".to_owned(), Box::new(move || toolnorm_cmd(&base))));
        }
        for (profile, built) in &profiles {
            sides.push((profile.clone(), Box::new(move || toolnorm_cmd(built))));
        }
        // `TOOLNORM_BENCH_PIN` (see the top of this file); children inherit the affinity.
        let pinned = (jobs == 1 && std::env::var("TOOLNORM_BENCH_PIN").as_deref() != Ok("0"))
            .then(pin_to_one_cpu)
            .flatten();
        let load_before = load();
        // One untimed run of each: the page cache and the binaries are warm for all timed runs.
        let exits: Vec<Option<i32>> = sides.iter().map(|(_, cmd)| run(&mut cmd()).exit).collect();
        let mut runs_of: Vec<Vec<Run>> = sides.iter().map(|_| Vec::new()).collect();
        for i in 0..runs {
            let mut order: Vec<usize> = (0..sides.len()).collect();
            if i % 2 == 1 {
                order.reverse();
            }
            for k in order {
                runs_of[k].push(run(&mut (sides[k].1)()));
            }
        }
        let stats = |v: &[Run]| {
            (
                median(v.iter().map(|r| r.wall).collect()),
                median(v.iter().map(|r| r.user).collect()),
                median(v.iter().map(|r| r.sys).collect()),
                median(v.iter().map(|r| r.user + r.sys).collect()),
            )
        };
        let (fw, _, _, fc) = stats(&runs_of[0]);
        let cpu_note = match &pinned {
            Some((cpu, _)) => format!(", all on CPU {cpu}"),
            None => String::new(),
        };
        println!(
            "--jobs {jobs}, medians of {runs} alternating runs{cpu_note} (load {load_before} before, {} after):",
            load()
        );
        let cpu = |r: &Run| r.user + r.sys;
        for (k, (name, _)) in sides.iter().enumerate() {
            let (w, u, s, c) = stats(&runs_of[k]);
            let (lo, hi) = runs_of[k]
                .iter()
                .map(cpu)
                .fold((f64::MAX, 0.0f64), |(lo, hi), c| (lo.min(c), hi.max(c)));
            print!(
                "  {name:8} {w:.3} s wall, {u:.3} s user, {s:.3} s sys, {c:.3} s CPU \
                 ({lo:.3}-{hi:.3})"
            );
            if k == 0 {
                println!();
                continue;
            }
            let peak = runs_of[k].iter().map(|r| r.peak_rss_kb).max().unwrap_or(0);
            // Each round ran both sides back to back: the ratio within a round is less moved by
            // the machine's load drifting over the run than the ratio of the two medians.
            let mut paired: Vec<f64> = runs_of[k]
                .iter()
                .zip(&runs_of[0])
                .map(|(r, f)| cpu(r) / cpu(f))
                .collect();
            paired.sort_by(f64::total_cmp);
            let quartile = |q: usize| paired[(paired.len() - 1) * q / 4];
            println!(
                ", peak RSS {:.1} MB, exit {:?}; / floor = {:.2} (wall), {:.2} (CPU), \
                 {:.2} (CPU, median of the rounds' ratios; quartiles {:.2}-{:.2})",
                peak as f64 / 1024.0,
                exits[k],
                w / fw,
                c / fc,
                quartile(2),
                quartile(1),
                quartile(3)
            );
            // A profile's side against `verify` (release), round by round: what it gains.
            if profiles.iter().any(|(p, _)| p == name) {
                let mut against: Vec<f64> = runs_of[k]
                    .iter()
                    .zip(&runs_of[1])
                    .map(|(r, v)| cpu(r) / cpu(v))
                    .collect();
                against.sort_by(f64::total_cmp);
                let q = |i: usize| against[(against.len() - 1) * i / 4];
                println!(
                    "  {name:8} / verify (release) = {:.3} (CPU, median of the rounds' ratios; \
                     quartiles {:.3}-{:.3})",
                    q(2),
                    q(1),
                    q(3)
                );
            }
        }
        if let Some((_, all)) = pinned {
            set_affinity(&all);
        }
        // Where verify's time goes: one more run, untimed by the bench, with `--timings`.
        let out = toolnorm_cmd(Path::new(bin()))
            .arg("--timings")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .output()
            .expect("run verify --timings");
        let table = String::from_utf8_lossy(&out.stderr);
        let table = table
            .lines()
            .skip_while(|l| !l.starts_with("timings:"))
            .collect::<Vec<_>>();
        assert!(!table.is_empty(), "verify --timings printed no table");
        println!("  where verify's time goes (one run with --timings):");
        for line in table {
            println!("  {line}");
        }
    }
}
