//! Normalization throughput on the largest real samples, against the floor of a plain
//! `serde_json::Value` parse of the same lines.
//!
//! Run: `cargo bench --bench normalize` (criterion prints MiB/s per sample; one core).
//! Samples come from the shipped corpus (`corpus/<provider>/<name>.jsonl.zst`); a missing one is an
//! error.

use std::path::PathBuf;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use toolnorm::corpus::load_stream;
use toolnorm::{NormalizeOptions, normalize};

const SAMPLES: &[(&str, &str)] = &[
    ("claude", "spotter_subagent"),
    ("claude", "spotter_tool_heavy"),
    ("claude", "ccagent_claude-session-with-image"),
    ("claude", "live-claude-2.1.197-coding-partial"),
    ("codex", "live-codex-0.171.0-appserver-tools"),
    ("opencode", "live-opencode-1.18.33-serve-tools"),
];

fn sample_path(provider: &str, name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(provider)
        .join(format!("{name}.jsonl.zst"))
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("normalize");
    for &(provider, name) in SAMPLES {
        let path = sample_path(provider, name);
        let stream = load_stream(&path)
            .unwrap_or_else(|e| panic!("{provider}/{name}: not in the corpus: {e:#}"));
        group.throughput(Throughput::Bytes(stream.bytes().len() as u64));
        group.bench_with_input(BenchmarkId::new("toolnorm", name), &stream, |b, s| {
            b.iter(|| {
                let input = s.input();
                normalize(&input, NormalizeOptions::default()).expect("sample normalizes")
            })
        });
        group.bench_with_input(
            BenchmarkId::new("serde_json-value-floor", name),
            &stream,
            |b, s| {
                b.iter(|| {
                    let input = s.input();
                    let mut n = 0usize;
                    for line in &input.lines {
                        if let Ok(v) = serde_json::from_slice::<serde_json::Value>(line.bytes) {
                            n += v.is_object() as usize;
                        }
                    }
                    n
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
