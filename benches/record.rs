//! Recorder benchmarks. Run with one command from the project root:
//!
//! ```text
//! cargo bench --bench record            # BENCH_MB=200 by default; needs bash and zstd on PATH
//! ```
//!
//! 1. Throughput and CPU time of `toolnorm record` (pipe mode) on a JSONL stream built from the
//!    corpus, against `tee >(zstd -3 > f)` on the same input (CPU = user + sys of the children).
//! 2. Added latency per line: a harness timestamps each line before it enters the recorder and when
//!    it comes out, at a live-like pace; the same harness through `cat` is the baseline.
//! 3. Compression per provider: fixture size vs `zstd -3` of each raw stream, and what a trained
//!    per-provider dictionary would save (`--features bench-dictionary`).
//! 4. Lag at a kill: the input piped as fast as it goes through `toolnorm record`, SIGKILLed
//!    mid-stream; lines passed through (read downstream) against lines in the fixture, and how
//!    long ago the first missing line was passed through; median and max over `BENCH_KILLS` runs
//!    (default 15).
//!
//! `BENCH_RUNS` (default 5) sets how many alternating runs part 1 takes the medians of;
//! `BENCH_PART=kill` runs only part 4; `TOOLNORM_BIN=path` measures another build of the binary.

use std::fs::{self, File};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_toolnorm");

fn bin() -> String {
    std::env::var("TOOLNORM_BIN").unwrap_or_else(|_| BIN.to_owned())
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().expect("temp dir");
    let mb: usize = std::env::var("BENCH_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let streams = corpus_streams(&root.join("corpus"));
    assert!(!streams.is_empty(), "the corpus is empty: seed it first");

    let input = tmp.path().join("input.jsonl");
    let size = build_input(&streams, &input, mb << 20);
    println!(
        "input: {:.1} MB of JSONL from {} corpus streams",
        size as f64 / 1e6,
        streams.len()
    );

    if std::env::var("BENCH_PART").as_deref() == Ok("kill") {
        kill_lag(&input, tmp.path());
        return;
    }
    throughput(&input, size, tmp.path());
    latency();
    compression(&streams);
    kill_lag(&input, tmp.path());
}

/// Part 4: see the module's documentation.
fn kill_lag(input: &Path, tmp: &Path) {
    let runs: usize = std::env::var("BENCH_KILLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(15);
    let mut missed = Vec::new();
    let mut late = Vec::new();
    let mut passed_total = Vec::new();
    for run in 0..runs {
        let corpus = tmp.join(format!("kill-{run}"));
        let mut child = Command::new(bin())
            .args(["record", "--provider", "claude", "--name", "k", "--corpus"])
            .arg(&corpus)
            .stdin(File::open(input).expect("input"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        let stdout = child.stdout.take().expect("stdout");
        let start = Instant::now();
        // When each line arrived downstream.
        let reader = std::thread::spawn(move || {
            let mut at = Vec::new();
            let mut r = BufReader::with_capacity(1 << 20, stdout);
            let mut line = Vec::new();
            while r
                .read_until(b'\n', &mut line)
                .map(|n| n > 0)
                .unwrap_or(false)
            {
                if line.ends_with(b"\n") {
                    at.push(start.elapsed());
                }
                line.clear();
            }
            at
        });
        // Somewhere in the first second of the stream: 100 ms to 1 s, spread over the runs.
        let wait = Duration::from_millis(100 + (900 * run as u64) / runs.max(1) as u64);
        std::thread::sleep(wait);
        let _ = child.kill();
        let killed = start.elapsed();
        let _ = child.wait();
        let at = reader.join().expect("reader");
        // Every line read downstream was passed through before the kill.
        let passed = at.len();
        let recorded = toolnorm::corpus::read_fixture(&corpus.join("claude/k.jsonl.zst"))
            .map(|f| f.lines.len())
            .unwrap_or(0);
        let miss = passed.saturating_sub(recorded);
        missed.push(miss);
        passed_total.push(passed);
        late.push(if miss > 0 {
            killed.saturating_sub(at[recorded]).as_millis()
        } else {
            0
        });
    }
    let med = |v: &mut Vec<usize>| {
        v.sort_unstable();
        v[v.len() / 2]
    };
    let worst = missed.iter().zip(&passed_total).max_by_key(|(m, _)| **m);
    let (wm, wp) = worst.map_or((0, 0), |(m, p)| (*m, *p));
    let mut late_sorted = late.clone();
    late_sorted.sort_unstable();
    println!("\n## lag at a SIGKILL ({runs} runs, killed 0.1-1 s into a fast stream)");
    println!(
        "lines passed through but not in the fixture: median {}, max {} (of {} passed, {:.0}%)",
        med(&mut missed.clone()),
        wm,
        wp,
        100.0 * wm as f64 / wp.max(1) as f64
    );
    println!(
        "age of the first missing line at the kill (from its arrival downstream): median {} ms, max {} ms",
        late_sorted[late_sorted.len() / 2],
        late_sorted[late_sorted.len() - 1]
    );
}

/// (provider, raw stream as `toolnorm cat` prints it, fixture size)
fn corpus_streams(corpus: &Path) -> Vec<(String, Vec<u8>, u64)> {
    toolnorm::corpus::list_fixtures(corpus)
        .into_iter()
        .filter_map(|e| {
            let fx = toolnorm::corpus::read_fixture(&e.path).ok()?;
            let mut raw = Vec::new();
            for l in &fx.lines {
                raw.extend_from_slice(&l.bytes);
                if l.terminated {
                    raw.push(b'\n');
                }
            }
            Some((e.provider, raw, e.size))
        })
        .collect()
}

/// The corpus lines, reshuffled for every pass (a fixed seed), until `target` bytes: a stream
/// with the corpus's redundancy but no period a compressor's window could lock onto.
fn build_input(streams: &[(String, Vec<u8>, u64)], path: &Path, target: usize) -> usize {
    let mut lines: Vec<&[u8]> = streams
        .iter()
        .flat_map(|(_, raw, _)| raw.split_inclusive(|b| *b == b'\n'))
        .filter(|l| l.ends_with(b"\n"))
        .collect();
    let mut out = std::io::BufWriter::new(File::create(path).expect("input file"));
    let mut written = 0;
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    while written < target {
        for i in (1..lines.len()).rev() {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            lines.swap(i, (seed % (i as u64 + 1)) as usize);
        }
        for line in &lines {
            out.write_all(line).expect("write input");
            written += line.len();
            if written >= target {
                break;
            }
        }
    }
    out.flush().expect("flush input");
    written
}

fn children_cpu() -> Duration {
    // SAFETY: getrusage fills the struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    let tv = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// Run a command to completion; (wall, cpu of it and its waited-for children).
fn measure(cmd: &mut Command) -> (Duration, Duration) {
    let cpu0 = children_cpu();
    let t0 = Instant::now();
    let status = cmd.status().expect("run");
    let wall = t0.elapsed();
    assert!(status.success(), "{cmd:?} failed");
    (wall, children_cpu() - cpu0)
}

fn throughput(input: &Path, size: usize, tmp: &Path) {
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5)
        .max(1);
    let (mut recs, mut tees) = (Vec::new(), Vec::new());
    let mut fixture_size = 0;
    let mut tee_size = 0;
    // Alternating, so both sides see the same page cache and the same neighbours.
    for _ in 0..runs {
        recs.push(measure(
            Command::new(bin())
                .args([
                    "record",
                    "--provider",
                    "claude",
                    "--name",
                    "bench",
                    "--force",
                    "--corpus",
                ])
                .arg(tmp.join("c"))
                .stdin(File::open(input).expect("input"))
                .stdout(File::create("/dev/null").expect("/dev/null")),
        ));
        fixture_size = fs::metadata(tmp.join("c/claude/bench.jsonl.zst"))
            .map(|m| m.len())
            .unwrap_or(0);
        tees.push(measure(
            Command::new("bash")
                .args([
                    "-c",
                    "tee >(zstd -3 -q -f -o \"$2\") < \"$1\" > /dev/null; wait $!",
                    "_",
                ])
                .arg(input)
                .arg(tmp.join("tee.zst")),
        ));
        tee_size = fs::metadata(tmp.join("tee.zst"))
            .map(|m| m.len())
            .unwrap_or(0);
    }
    // Median and least of each side's wall and CPU times, each taken on its own.
    let stat = |v: &[(Duration, Duration)], cpu: bool| {
        let mut t: Vec<f64> = v
            .iter()
            .map(|&(w, c)| if cpu { c } else { w }.as_secs_f64())
            .collect();
        t.sort_by(f64::total_cmp);
        (t[t.len() / 2], t[0])
    };
    let ((rec_wall, _), (rec_cpu, rec_cpu_min)) = (stat(&recs, false), stat(&recs, true));
    let ((tee_wall, _), (tee_cpu, tee_cpu_min)) = (stat(&tees, false), stat(&tees, true));
    let mbps = |wall: f64| size as f64 / 1e6 / wall;
    println!(
        "\n## throughput (median of {runs} alternating runs, {:.0} MB)",
        size as f64 / 1e6
    );
    println!(
        "toolnorm record  : wall {rec_wall:.2}s ({:.0} MB/s), cpu {rec_cpu:.2}s (least {rec_cpu_min:.2}s), output {:.1} MB",
        mbps(rec_wall),
        fixture_size as f64 / 1e6
    );
    println!(
        "tee >(zstd -3)   : wall {tee_wall:.2}s ({:.0} MB/s), cpu {tee_cpu:.2}s (least {tee_cpu_min:.2}s), output {:.1} MB",
        mbps(tee_wall),
        tee_size as f64 / 1e6
    );
    println!(
        "cpu ratio record / tee+zstd: {:.2}x (medians; {:.2}x between the least of each)",
        rec_cpu / tee_cpu,
        rec_cpu_min / tee_cpu_min
    );
}

/// Lines through `program args` at a live-like pace; per-line latency quantiles in µs.
fn line_latency(program: &str, args: &[&str], lines: usize) -> Vec<u128> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let start = Instant::now();
    let pad = "p".repeat(400);
    let writer = std::thread::spawn(move || {
        let mut sent = Vec::with_capacity(lines);
        for i in 0..lines {
            let line = format!("{{\"type\":\"assistant\",\"i\":{i},\"pad\":\"{pad}\"}}\n");
            sent.push(start.elapsed());
            stdin.write_all(line.as_bytes()).expect("write");
            stdin.flush().expect("flush");
            // ~5000 lines/s: far above a live agent, low enough not to measure queueing.
            std::thread::sleep(Duration::from_micros(200));
        }
        sent
    });
    let mut recv = Vec::with_capacity(lines);
    let mut reader = BufReader::new(stdout);
    let mut line = String::new();
    while recv.len() < lines {
        line.clear();
        if reader.read_line(&mut line).expect("read") == 0 {
            break;
        }
        recv.push(start.elapsed());
    }
    let sent = writer.join().expect("writer");
    let _ = child.wait();
    let mut lat: Vec<u128> = sent
        .iter()
        .zip(&recv)
        .map(|(s, r)| r.saturating_sub(*s).as_micros())
        .collect();
    lat.sort_unstable();
    lat
}

fn q(v: &[u128], p: f64) -> u128 {
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

fn latency() {
    let tmp = tempfile::tempdir().expect("tmp");
    let corpus = tmp.path().join("c");
    let n = 20_000;
    let base = line_latency("cat", &[], n);
    let rec = line_latency(
        &bin(),
        &[
            "record",
            "--provider",
            "claude",
            "--name",
            "lat",
            "--corpus",
            corpus.to_str().expect("utf-8 path"),
        ],
        n,
    );
    println!("\n## latency per line ({n} lines, 5000 lines/s)");
    println!(
        "cat              : p50 {}µs p99 {}µs max {}µs",
        q(&base, 0.5),
        q(&base, 0.99),
        q(&base, 1.0)
    );
    println!(
        "toolnorm record  : p50 {}µs p99 {}µs max {}µs",
        q(&rec, 0.5),
        q(&rec, 0.99),
        q(&rec, 1.0)
    );
    println!(
        "added p99: {}µs",
        q(&rec, 0.99) as i128 - q(&base, 0.99) as i128
    );
}

fn compression(streams: &[(String, Vec<u8>, u64)]) {
    println!("\n## compression per provider (sum over files)");
    println!(
        "provider | files | raw | zstd -3 per file | fixture | fixture/zstd | JSONL+dict (dict incl.) | JSONL no dict (one frame)"
    );
    let mut providers: Vec<&str> = streams.iter().map(|s| s.0.as_str()).collect();
    providers.sort_unstable();
    providers.dedup();
    for p in providers {
        let mine: Vec<&(String, Vec<u8>, u64)> = streams.iter().filter(|s| s.0 == p).collect();
        let raw: usize = mine.iter().map(|s| s.1.len()).sum();
        let z3: usize = mine
            .iter()
            .map(|s| zstd::bulk::compress(&s.1, 3).expect("zstd").len())
            .sum();
        let fixtures: u64 = mine.iter().map(|s| s.2).sum();
        // The dictionary question, asked of the fixture content itself (JSONL records).
        let jsonl: Vec<Vec<u8>> = mine
            .iter()
            .map(|s| {
                let mut w = toolnorm::corpus::writer::FixtureWriter::new(
                    Vec::new(),
                    &toolnorm::corpus::format::new_header(p, "x"),
                )
                .expect("writer");
                for line in s.1.split(|b| *b == b'\n') {
                    w.push_line(0, toolnorm::stream::Direction::Agent, line, true)
                        .expect("push");
                }
                zstd::stream::decode_all(&w.finish(Default::default()).expect("finish")[..])
                    .expect("decode")
            })
            .collect();
        let plain: usize = jsonl
            .iter()
            .map(|j| zstd::bulk::compress(j, 3).expect("zstd").len())
            .sum();
        let with_dict = with_dictionary(&jsonl);
        println!(
            "{p} | {} | {} | {} | {} | {:.2} | {} | {}",
            mine.len(),
            raw,
            z3,
            fixtures,
            fixtures as f64 / z3 as f64,
            if with_dict == 0 {
                "n/a".to_owned()
            } else {
                with_dict.to_string()
            },
            plain
        );
    }
}

/// The streams' size compressed at level 3 with a 16 KiB dictionary trained on them (the
/// dictionary counted), or 0 without the dictionary builder (`--features bench-dictionary`).
#[cfg(feature = "bench-dictionary")]
fn with_dictionary(jsonl: &[Vec<u8>]) -> usize {
    let dict = zstd::dict::from_samples(jsonl, 16 << 10).unwrap_or_default();
    if dict.is_empty() {
        return 0;
    }
    let mut c = zstd::bulk::Compressor::with_dictionary(3, &dict).expect("dict");
    jsonl
        .iter()
        .map(|j| c.compress(j).expect("compress").len())
        .sum::<usize>()
        + dict.len()
}

#[cfg(not(feature = "bench-dictionary"))]
fn with_dictionary(_: &[Vec<u8>]) -> usize {
    0
}
