//! Benchmark of the protocol's overhead: `verify` of the shipped corpus with the built-in
//! normalizer in process against the same normalizer run through the protocol (`toolnorm
//! serve-protocol` as `--impl`), measured in the same run, on one worker (`--jobs 1`) so the
//! figure is per fixture and not hidden by parallelism.
//!
//! Run: `cargo bench --bench protocol` (from the project root). `TOOLNORM_BENCH_ROUNDS` (default
//! 5) sets how many times each side runs; rounds alternate, and the best round of each is kept.
//! It prints both per-fixture times, the overhead per fixture and the ratio protocol / built-in.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use toolnorm::verify::implementation::{External, Implementation};
use toolnorm::verify::{Selection, VerifyOptions, verify};

fn options(implementation: Arc<Implementation>) -> VerifyOptions {
    VerifyOptions {
        corpus: PathBuf::from("corpus"),
        expected: PathBuf::from("expected"),
        reports: std::env::temp_dir().join("toolnorm-bench-protocol"),
        expectations: PathBuf::from("expectations.toml"),
        expectations_required: false,
        jobs: 1,
        selection: Selection::default(),
        fail_fast: false,
        strict: false,
        write_pending: false,
        compare: toolnorm::compare::CompareMode::Exact,
        timings: None,
        implementation,
        require_all: false,
    }
}

/// One verify run: (wall time, fixtures, verdicts as `path status`).
fn run(implementation: &Arc<Implementation>) -> (Duration, usize, Vec<String>) {
    let started = Instant::now();
    let report = verify(&options(Arc::clone(implementation)), &|_| {}, &|_| {}).expect("verify");
    let verdicts = report
        .fixtures
        .all()
        .map(|f| {
            let f = f.expect("read the spooled results");
            format!("{} {}", f.path, f.status.as_str())
        })
        .collect();
    (started.elapsed(), report.fixtures.len(), verdicts)
}

fn main() {
    let rounds: usize = std::env::var("TOOLNORM_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let exe = env!("CARGO_BIN_EXE_toolnorm");
    let command = format!("{exe} serve-protocol");
    let builtin = Arc::new(Implementation::BuiltIn);
    let external = Arc::new(Implementation::External(
        External::start(&command, None, Duration::from_secs(30)).expect("start serve-protocol"),
    ));
    let (mut best_b, mut best_p) = (Duration::MAX, Duration::MAX);
    let mut fixtures = 0;
    for _ in 0..rounds.max(1) {
        let (tb, n, vb) = run(&builtin);
        let (tp, _, vp) = run(&external);
        assert_eq!(vb, vp, "the protocol run gives the built-in verdicts");
        fixtures = n;
        best_b = best_b.min(tb);
        best_p = best_p.min(tp);
    }
    external.finish();
    let per = |d: Duration| d.as_secs_f64() * 1e3 / fixtures.max(1) as f64;
    println!(
        "protocol overhead on the shipped corpus ({fixtures} fixtures, --jobs 1, best of {rounds} rounds)"
    );
    println!(
        "  built-in in process:   {:8.1} ms total, {:6.3} ms per fixture",
        best_b.as_secs_f64() * 1e3,
        per(best_b)
    );
    println!(
        "  through the protocol:  {:8.1} ms total, {:6.3} ms per fixture",
        best_p.as_secs_f64() * 1e3,
        per(best_p)
    );
    println!(
        "  overhead per fixture:  {:6.3} ms",
        per(best_p) - per(best_b)
    );
    println!(
        "  ratio protocol / built-in: {:.2}",
        best_p.as_secs_f64() / best_b.as_secs_f64()
    );
}
