//! `@toolnorm/core` (the core compiled to WebAssembly, in Node) against the native normalizer on
//! the same streams, measured in the same run: throughput of a whole stream normalized in one call
//! over every fixture of the corpus, the latency of each line pushed into a streaming normalizer
//! (p50 / p99), and the size of the package as npm packs it (a gzipped tarball).
//!
//! Run: `scripts/wasm-build.sh && cargo bench --bench wasm` (needs node and npm; one core each).
//!
//! Both sides do the same work per call: the native one `toolnorm::normalize` and the document
//! written as JSON text (what `toolnorm normalize` prints), the package its `normalize(text)`,
//! which is that plus handing the JSON across the boundary and `JSON.parse`; per line, the native
//! `Normalizer::push_line` with each update written as JSON and folded into the document, the
//! package its `pushLine`, which is that plus the boundary and `JSON.parse`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use toolnorm::corpus::{list_fixtures, load_stream};
use toolnorm::{DocumentBuilder, Input, NormalizeOptions, Normalizer, normalize};

/// Rounds over every stream in one timed repetition; the best of `REPEATS` repetitions counts, on
/// both sides (the least disturbed by other work on the machine).
const ROUNDS: usize = 4;
const REPEATS: usize = 7;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every fixture's raw stream (agent and client lines, as `toolnorm cat` gives them).
fn streams() -> Vec<Vec<u8>> {
    list_fixtures(&root().join("corpus"))
        .iter()
        .map(|e| {
            let s = load_stream(&e.path).unwrap_or_else(|err| panic!("{}: {err:#}", e.rel));
            let mut text = Vec::new();
            for l in &s.input().lines {
                text.extend_from_slice(l.bytes);
                text.push(b'\n');
            }
            text
        })
        .collect()
}

fn percentile(sorted: &[Duration], q: f64) -> f64 {
    let i = ((q * sorted.len() as f64) as usize).min(sorted.len() - 1);
    sorted[i].as_secs_f64() * 1e6
}

struct Native {
    mb_per_s: f64,
    p50_us: f64,
    p99_us: f64,
}

fn native(streams: &[Vec<u8>]) -> Native {
    let run = |s: &[u8]| {
        let doc = normalize(&Input::from_bytes(s), NormalizeOptions::default()).unwrap();
        serde_json::to_string(&doc).unwrap()
    };
    for s in streams {
        run(s);
    }
    let bytes: usize = streams.iter().map(Vec::len).sum::<usize>() * ROUNDS;
    let mut secs = f64::INFINITY;
    for _ in 0..REPEATS {
        let start = Instant::now();
        for _ in 0..ROUNDS {
            for s in streams {
                std::hint::black_box(run(s));
            }
        }
        secs = secs.min(start.elapsed().as_secs_f64());
    }

    let mut latencies = Vec::new();
    for s in streams {
        let mut n = Normalizer::new(NormalizeOptions::default()).unwrap();
        let mut doc = DocumentBuilder::new();
        for line in s.strip_suffix(b"\n").unwrap_or(s).split(|&b| b == b'\n') {
            let t = Instant::now();
            for u in n.push_line(line).unwrap() {
                std::hint::black_box(serde_json::to_string(&u).unwrap());
                doc.apply(u);
            }
            latencies.push(t.elapsed());
        }
        doc.extend(n.finish().unwrap());
    }
    latencies.sort();
    Native {
        mb_per_s: bytes as f64 / secs / 1e6,
        p50_us: percentile(&latencies, 0.5),
        p99_us: percentile(&latencies, 0.99),
    }
}

/// The package's tarball as `npm pack` makes it: its size in bytes (gzipped) and unpacked.
fn packed_size(pkg: &Path) -> (u64, u64) {
    let out = Command::new("npm")
        .args(["pack", "--dry-run", "--json"])
        .current_dir(pkg)
        .output()
        .expect("npm runs");
    assert!(out.status.success(), "npm pack --dry-run failed");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    (
        v[0]["size"].as_u64().unwrap(),
        v[0]["unpackedSize"].as_u64().unwrap(),
    )
}

fn main() {
    let pkg = root().join("packages/core");
    assert!(
        pkg.join("dist/index.js").is_file(),
        "build the package first: scripts/wasm-build.sh"
    );
    let streams = streams();
    let dir = tempfile::tempdir().unwrap();
    for (i, s) in streams.iter().enumerate() {
        std::fs::write(dir.path().join(format!("{i:04}.jsonl")), s).unwrap();
    }
    let total: usize = streams.iter().map(Vec::len).sum();
    let lines: usize = streams
        .iter()
        .map(|s| s.iter().filter(|&&b| b == b'\n').count())
        .sum();
    println!(
        "{} streams, {:.1} MB, {lines} lines; best of {REPEATS} times {ROUNDS} rounds over them, one core",
        streams.len(),
        total as f64 / 1e6
    );

    let native = native(&streams);
    let out = Command::new("node")
        .arg(pkg.join("bench/bench.mjs"))
        .arg(dir.path())
        .arg(ROUNDS.to_string())
        .arg(REPEATS.to_string())
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "bench.mjs: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let wasm: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let wasm_mb_per_s = wasm["bytes"].as_f64().unwrap() / wasm["seconds"].as_f64().unwrap() / 1e6;
    let (size, unpacked) = packed_size(&pkg);

    println!();
    println!("| | native | @toolnorm/core (Node {}) |", node_version());
    println!("| --- | --- | --- |");
    println!(
        "| normalize, whole streams | {:.1} MB/s | {:.1} MB/s ({:.2}× native) |",
        native.mb_per_s,
        wasm_mb_per_s,
        wasm_mb_per_s / native.mb_per_s
    );
    println!(
        "| per line, p50 | {:.1} µs | {:.1} µs |",
        native.p50_us,
        wasm["p50"].as_f64().unwrap()
    );
    println!(
        "| per line, p99 | {:.1} µs | {:.1} µs |",
        native.p99_us,
        wasm["p99"].as_f64().unwrap()
    );
    println!(
        "| package (npm pack) | | {:.0} KB gzipped ({:.0} KB unpacked) |",
        size as f64 / 1e3,
        unpacked as f64 / 1e3
    );
}

fn node_version() -> String {
    Command::new("node")
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default()
}
