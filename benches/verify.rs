//! Benchmark of `toolnorm verify` on a large corpus built from the shipped corpus's fixtures.
//!
//! Run: `cargo bench --bench verify`.
//! Size it with `TOOLNORM_BENCH_FIXTURES` (default 2000) and `TOOLNORM_BENCH_MB` (raw megabytes,
//! default 500). The corpus is generated into a temp dir and deleted afterwards, never committed:
//! each fixture is the text of one fixture of `corpus/` (as `toolnorm cat` prints it) repeated up to a size drawn (deterministically) between 0.2 and
//! 1.8 times the average, zstd-compressed like `record` writes it.
//!
//! It prints, for `--jobs 1` and `--jobs 2`: wall time, raw MB/s per core, peak RSS (from
//! `/usr/bin/time -v`), and the floor — zstd-decompressing and `serde_json::Value`-parsing every
//! line of the same corpus on the same number of threads, measured in the same run — with verify's
//! time as a ratio to it (the goal is <= 1.0). Expected files are accepted first, so verify does
//! the full compare. Both sides use the system allocator (the binary sets none), so the ratio
//! compares work, not allocators. Each side is timed `TOOLNORM_BENCH_RUNS`
//! times (default 3), alternating, and the medians are compared; verify's CPU time (user + sys,
//! from `/usr/bin/time`) is printed too, as the wall time of a busy machine is noisy.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use toolnorm::corpus::format::new_header;
use toolnorm::corpus::redact::{RedactOptions, Redactor};
use toolnorm::corpus::{list_fixtures, load_stream, write_fixture};
use toolnorm::stream::Direction;

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One fixture of the shipped corpus: its provider folder and its lines with their directions.
struct Sample {
    provider: String,
    lines: Vec<(Direction, Vec<u8>)>,
    /// Bytes of the lines, one newline each.
    len: usize,
}

/// Every fixture of the corpus at `root`, as recorded (stderr lines are left out).
fn samples(root: &Path) -> Vec<Sample> {
    list_fixtures(root)
        .into_iter()
        .map(|e| {
            let stream = load_stream(&e.path).expect("read a corpus fixture");
            let lines: Vec<(Direction, Vec<u8>)> = stream
                .spans
                .iter()
                .filter(|(start, end, _, _, _)| end > start)
                .map(|&(start, end, dir, _, _)| (dir, stream.bytes[start..end].to_vec()))
                .collect();
            let len = lines.iter().map(|(_, l)| l.len() + 1).sum();
            Sample {
                provider: e.provider,
                lines,
                len,
            }
        })
        .collect()
}

/// Build the corpus; returns (fixture files, raw bytes).
fn build_corpus(
    corpus: &Path,
    samples: &[Sample],
    count: u64,
    total: u64,
    redactor: &Redactor,
) -> (Vec<PathBuf>, u64) {
    let avg = total / count.max(1);
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut files = Vec::new();
    let mut raw = 0u64;
    for i in 0..count {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let frac = (state >> 33) as f64 / (1u64 << 31) as f64;
        let target = (avg as f64 * (0.2 + 1.6 * frac)) as usize;
        let sample = &samples[i as usize % samples.len()];
        let copies = (target / sample.len).max(1);
        raw += (sample.len * copies) as u64;
        let name = format!("gen-{i:05}");
        let path = toolnorm::corpus::fixture_path(corpus, &sample.provider, &name);
        // The real fixture format (header, line records, trailer), as `record` and `import` write it.
        let lines = std::iter::repeat_n(&sample.lines, copies)
            .flatten()
            .enumerate()
            .map(|(t, (dir, l))| (t as u64, *dir, l.as_slice(), true));
        write_fixture(
            &path,
            new_header(&sample.provider, &name),
            lines,
            redactor,
            true,
        )
        .unwrap();
        files.push(path);
    }
    (files, raw)
}

/// The floor: decompress and parse every line as a `serde_json::Value`, on `jobs` threads.
fn floor(files: &[PathBuf], jobs: usize) -> Duration {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .unwrap();
    let started = Instant::now();
    let lines: usize = pool.install(|| {
        files
            .par_iter()
            .map(|f| {
                let mut bytes = Vec::new();
                zstd::Decoder::new(fs::File::open(f).unwrap())
                    .unwrap()
                    .read_to_end(&mut bytes)
                    .unwrap();
                // Every record of the fixture, and the raw provider line it carries: the least
                // any normalizer has to do with it.
                bytes
                    .split(|b| *b == b'\n')
                    .filter(|l| !l.is_empty())
                    .filter_map(|l| serde_json::from_slice::<serde_json::Value>(l).ok())
                    .filter(|rec| {
                        rec.get("l")
                            .and_then(serde_json::Value::as_str)
                            .is_none_or(|raw| {
                                serde_json::from_str::<serde_json::Value>(raw).is_ok()
                            })
                    })
                    .count()
            })
            .sum()
    });
    std::hint::black_box(lines);
    started.elapsed()
}

struct Run {
    wall: Duration,
    /// User + system CPU seconds.
    cpu: Option<f64>,
    peak_rss_kb: Option<u64>,
    exit: Option<i32>,
}

fn toolnorm(dir: &Path, args: &[&str]) -> Run {
    let bin = env!("CARGO_BIN_EXE_toolnorm");
    let time = Path::new("/usr/bin/time");
    let mut cmd = if time.exists() {
        let mut c = Command::new(time);
        c.arg("-v").arg(bin);
        c
    } else {
        Command::new(bin)
    };
    let started = Instant::now();
    let out = cmd
        .args(args)
        .current_dir(dir)
        .env_remove("CI")
        .output()
        .expect("run toolnorm");
    let wall = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let field = |name: &str| {
        stderr
            .lines()
            .find_map(|l| l.trim().strip_prefix(name))
            .and_then(|v| v.trim().parse::<f64>().ok())
    };
    let peak_rss_kb = field("Maximum resident set size (kbytes):").map(|kb| kb as u64);
    let cpu = field("User time (seconds):")
        .zip(field("System time (seconds):"))
        .map(|(u, s)| u + s);
    Run {
        wall,
        cpu,
        peak_rss_kb,
        exit: out.status.code(),
    }
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument that is not ours means another bench runs.
    if std::env::args()
        .skip(1)
        .any(|a| a != "--bench" && !a.starts_with('-') && a != "verify")
    {
        return;
    }
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let samples = samples(&shipped);
    assert!(
        !samples.is_empty(),
        "no fixture under {}",
        shipped.display()
    );
    let count = env_num("TOOLNORM_BENCH_FIXTURES", 2000);
    let total = env_num("TOOLNORM_BENCH_MB", 500) * 1_000_000;
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    let started = Instant::now();
    let (files, raw) = build_corpus(
        &dir.join("corpus"),
        &samples,
        count,
        total,
        &Redactor::new(&RedactOptions::default()).expect("redactor"),
    );
    let compressed: u64 = files
        .iter()
        .map(|f| fs::metadata(f).map(|m| m.len()).unwrap_or(0))
        .sum();
    let largest = files
        .iter()
        .map(|f| fs::metadata(f).map(|m| m.len()).unwrap_or(0))
        .max()
        .unwrap_or(0);
    println!(
        "corpus: {} fixtures from {} samples, {:.1} MB raw, {:.1} MB zstd, largest file {:.1} MB zstd (built in {:.1?})",
        files.len(),
        samples.len(),
        raw as f64 / 1e6,
        compressed as f64 / 1e6,
        largest as f64 / 1e6,
        started.elapsed()
    );
    let accept = toolnorm(dir, &["accept", "--jobs", "2"]);
    println!(
        "accept --jobs 2: {:.2?} (exit {:?})",
        accept.wall, accept.exit
    );

    let mb = raw as f64 / 1e6;
    let runs = env_num("TOOLNORM_BENCH_RUNS", 3).max(1) as usize;
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let mut times = Vec::new();
    for jobs in [1usize, 2] {
        let (mut floors, mut walls, mut cpus) = (Vec::new(), Vec::new(), Vec::new());
        let mut last = None;
        for _ in 0..runs {
            // Alternating, so both sides see the same page cache and the same neighbours.
            floors.push(floor(&files, jobs).as_secs_f64());
            let run = toolnorm(
                dir,
                &[
                    "verify",
                    "--jobs",
                    &jobs.to_string(),
                    "--reports",
                    "reports",
                ],
            );
            walls.push(run.wall.as_secs_f64());
            cpus.extend(run.cpu);
            last = Some(run);
        }
        let run = last.expect("at least one run");
        let (floor_s, secs) = (median(floors), median(walls));
        println!(
            "verify --jobs {jobs}: {secs:.2} s median of {runs} (exit {:?}), CPU {}, {:.1} MB/s per core, peak RSS {}; floor {floor_s:.2} s ({:.1} MB/s per core); verify/floor = {:.2}",
            run.exit,
            if cpus.is_empty() {
                "unknown".to_owned()
            } else {
                format!("{:.2} s", median(cpus))
            },
            mb / secs / jobs as f64,
            run.peak_rss_kb.map_or_else(
                || "unknown".to_owned(),
                |kb| format!("{:.1} MB", kb as f64 / 1024.0)
            ),
            mb / floor_s / jobs as f64,
            secs / floor_s,
        );
        times.push(secs);
    }
    println!("speedup with 2 jobs: {:.2}x", times[0] / times[1]);
}
