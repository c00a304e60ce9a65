//! Normalization throughput on the largest real samples, against the floor of a plain
//! `serde_json::Value` parse of the same lines, measured in the same run.
//!
//! Run: `cargo bench --bench normalize` (one core). For each sample the two sides run in
//! alternating rounds (normalize, floor, floor, normalize, …, so neither always goes first), each
//! round timing enough iterations to last about `TOOLNORM_BENCH_ROUND_MS` (default 200 ms); printed
//! per side: the median throughput in MiB/s, and the median of the rounds' own ratios
//! normalize / floor (time) with its quartiles. `TOOLNORM_BENCH_ROUNDS` sets the rounds (default
//! 11). A filter argument keeps the samples whose name contains it.
//!
//! Samples come from the shipped corpus (`corpus/<provider>/<name>.jsonl.zst`); a missing one is an
//! error. The Claude samples also run with their dialect given (`given`), so the figure is
//! normalization alone (detection parses up to 64 lines once).

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use toolnorm::corpus::load_stream;
use toolnorm::{Dialect, Input, NormalizeOptions, normalize};

const SAMPLES: &[(&str, &str, Option<Dialect>)] = &[
    (
        "claude",
        "spotter_subagent",
        Some(Dialect::ClaudeTranscript),
    ),
    (
        "claude",
        "spotter_tool_heavy",
        Some(Dialect::ClaudeTranscript),
    ),
    (
        "claude",
        "ccagent_claude-session-with-image",
        Some(Dialect::ClaudeStreamJson),
    ),
    (
        "claude",
        "live-claude-2.1.197-coding-partial",
        Some(Dialect::ClaudeStreamJson),
    ),
    ("codex", "live-codex-0.171.0-appserver-tools", None),
    ("opencode", "live-opencode-1.18.33-serve-tools", None),
];

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Time `iters` calls of `f`.
fn time(iters: u64, f: &mut dyn FnMut() -> usize) -> Duration {
    let start = Instant::now();
    for _ in 0..iters {
        black_box(f());
    }
    start.elapsed()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Alternate the sides in rounds; print each side's median MiB/s and, for every side after the
/// first, the median and quartiles of its rounds' time ratio to the first side (the floor).
fn compare(label: &str, bytes: usize, sides: &mut [(&str, &mut dyn FnMut() -> usize)]) {
    let rounds = env_num("TOOLNORM_BENCH_ROUNDS", 11).max(1) as usize;
    let round = Duration::from_millis(env_num("TOOLNORM_BENCH_ROUND_MS", 200));
    // Iterations per round: as many as the slowest side fits in a round (after one warm-up call).
    let slowest = sides
        .iter_mut()
        .map(|(_, f)| time(1, *f))
        .max()
        .unwrap_or_default()
        .max(Duration::from_micros(1));
    let iters = (round.as_nanos() / slowest.as_nanos()).clamp(1, 1_000_000) as u64;
    let mut per_side: Vec<Vec<f64>> = vec![Vec::new(); sides.len()];
    for r in 0..rounds {
        let mut order: Vec<usize> = (0..sides.len()).collect();
        if r % 2 == 1 {
            order.reverse();
        }
        for k in order {
            per_side[k].push(time(iters, sides[k].1).as_secs_f64() / iters as f64);
        }
    }
    let mib = bytes as f64 / (1024.0 * 1024.0);
    println!("{label} ({mib:.2} MiB, {rounds} rounds of {iters} iterations):");
    for (k, (name, _)) in sides.iter().enumerate() {
        print!(
            "  {name:28} {:9.1} MiB/s",
            mib / median(per_side[k].clone())
        );
        if k > 0 {
            let mut ratios: Vec<f64> = per_side[k]
                .iter()
                .zip(&per_side[0])
                .map(|(s, f)| s / f)
                .collect();
            ratios.sort_by(f64::total_cmp);
            let q = |i: usize| ratios[(ratios.len() - 1) * i / 4];
            print!(
                "   time / floor = {:.2} (quartiles {:.2}-{:.2})",
                q(2),
                q(1),
                q(3)
            );
        }
        println!();
    }
}

fn main() {
    // `cargo bench` passes `--bench`; any other argument is a filter on the samples' names.
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    for &(provider, name, dialect) in SAMPLES {
        if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("corpus")
            .join(provider)
            .join(format!("{name}.jsonl.zst"));
        let bytes = load_stream(&path)
            .unwrap_or_else(|e| panic!("{provider}/{name}: not in the corpus: {e:#}"))
            .into_bytes();
        let mut floor = || {
            bytes
                .split(|b| *b == b'\n')
                .filter(|l| !l.is_empty())
                .filter_map(|l| serde_json::from_slice::<serde_json::Value>(l).ok())
                .filter(serde_json::Value::is_object)
                .count()
        };
        let run = |given: Option<Dialect>| {
            let input = Input::from_bytes(&bytes);
            let opts = NormalizeOptions {
                dialect: given,
                ..NormalizeOptions::default()
            };
            normalize(&input, opts).map_or(0, |d| d.parts.len())
        };
        let mut detected = || run(None);
        let mut given = || run(dialect);
        let mut sides: Vec<(&str, &mut dyn FnMut() -> usize)> = vec![
            ("serde_json::Value (floor)", &mut floor),
            ("toolnorm", &mut detected),
        ];
        if dialect.is_some() {
            sides.push(("toolnorm, dialect given", &mut given));
        }
        compare(&format!("{provider}/{name}"), bytes.len(), &mut sides);
    }
}
