//! Throughput of the Claude normalizer on the largest real samples, next to a plain
//! `serde_json::Value` parse of the same lines (the reference the target is set against).
//! Samples are the plain text (as `toolnorm cat` prints it) of fixtures of the shipped corpus,
//! `corpus/claude/<name>.jsonl.zst`; a missing one is an error.

use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use toolnorm::corpus::load_stream;
use toolnorm::{Dialect, Input, NormalizeOptions, normalize};

/// Dialects are given, so the figure is normalization alone (detection parses up to 64 lines once).
const SAMPLES: [(&str, Dialect); 4] = [
    ("spotter_subagent", Dialect::ClaudeTranscript),
    ("spotter_tool_heavy", Dialect::ClaudeTranscript),
    (
        "ccagent_claude-session-with-image",
        Dialect::ClaudeStreamJson,
    ),
    (
        "live-claude-2.1.197-coding-partial",
        Dialect::ClaudeStreamJson,
    ),
];

fn bench(c: &mut Criterion) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus/claude");
    let mut group = c.benchmark_group("claude");
    for (name, dialect) in SAMPLES {
        let bytes = load_stream(&dir.join(format!("{name}.jsonl.zst")))
            .unwrap_or_else(|e| panic!("{name}: not in the corpus: {e:#}"))
            .into_bytes();
        // Benchmark ids keep the sample's file name, so figures compare with earlier runs.
        let name = format!("{name}.jsonl");
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function(format!("normalize/{name}"), |b| {
            b.iter(|| {
                let input = Input::from_bytes(&bytes);
                let opts = NormalizeOptions {
                    provider: None,
                    dialect: Some(dialect),
                    cwd: None,
                };
                normalize(&input, opts).map(|d| d.parts.len())
            })
        });
        group.bench_function(format!("value-parse/{name}"), |b| {
            b.iter(|| {
                bytes
                    .split(|b| *b == b'\n')
                    .filter(|l| !l.is_empty())
                    .filter_map(|l| serde_json::from_slice::<serde_json::Value>(l).ok())
                    .count()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
