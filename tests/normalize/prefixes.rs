//! Prefixes of the corpus's streams, as a recording stopped early holds them: any cut normalizes
//! without panicking, and reading further never loses a part nor moves one back to an earlier
//! state. Checked at line boundaries of every fixture, and at random byte offsets (inside a line,
//! a JSON value or a multi-byte character) by a property test.

use std::collections::BTreeMap;

use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, TestRunner};
use toolnorm::{NormalizedDocument, ToolState};

use crate::normalize::samples::{Sample, load_all};

/// At most this many line-boundary cuts per fixture, spread over its length.
const CUTS_PER_FIXTURE: usize = 48;

/// Random cuts checked by the property test, over the whole corpus.
const RANDOM_CASES: u32 = 192;

fn states(doc: &NormalizedDocument) -> BTreeMap<&str, ToolState> {
    doc.parts.iter().map(|p| (p.id.as_str(), p.state)).collect()
}

/// Every part of `short` is in `long`, in the same or a later state; `None` when it holds.
fn regression(short: &NormalizedDocument, long: &NormalizedDocument) -> Option<String> {
    let long = states(long);
    for (id, s) in states(short) {
        match long.get(id) {
            None => return Some(format!("part {id} ({s:?}) vanished")),
            Some(l) if l.rank() < s.rank() => {
                return Some(format!("part {id} moved back from {s:?} to {l:?}"));
            }
            Some(_) => {}
        }
    }
    None
}

/// The line-boundary cuts of a sample: every one, or an even spread of them.
fn line_cuts(s: &Sample) -> Vec<usize> {
    let starts = s.line_starts();
    let step = starts.len().div_ceil(CUTS_PER_FIXTURE).max(1);
    let mut cuts: Vec<usize> = starts.into_iter().step_by(step).collect();
    cuts.push(s.len());
    cuts
}

#[test]
fn reading_further_never_loses_a_part_nor_moves_it_back() {
    let mut checked = 0;
    for s in load_all() {
        let mut before = s.normalize_prefix(0);
        assert!(before.parts.is_empty(), "{}: parts from nothing", s.name);
        for cut in line_cuts(s) {
            let after = s.normalize_prefix(cut);
            if let Some(why) = regression(&before, &after) {
                panic!("{}: after {cut} of {} bytes: {why}", s.name, s.len());
            }
            before = after;
            checked += 1;
        }
        assert_eq!(before, s.normalize(), "{}: the whole stream", s.name);
    }
    assert!(checked > 0);
}

#[test]
fn random_cuts_never_panic_nor_move_a_part_back() {
    let samples = load_all();
    let mut runner = TestRunner::new(Config {
        cases: RANDOM_CASES,
        // Failing cases are kept beside the other regressions and tried first on the next run.
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/normalize/prefixes.txt",
        ))),
        // Every case is valid: a rejection would mean the strategy is broken.
        max_global_rejects: 0,
        ..Config::default()
    });
    let strategy = (0..samples.len(), 0.0f64..=1.0, 0.0f64..=1.0);
    let result = runner.run(&strategy, |(which, a, b)| {
        let s = &samples[which];
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        let cut = |f: f64| (s.len() as f64 * f) as usize;
        let (short, long) = (s.normalize_prefix(cut(lo)), s.normalize_prefix(cut(hi)));
        if let Some(why) = regression(&short, &long) {
            return Err(TestCaseError::fail(format!(
                "{}: cuts at {} and {} of {} bytes: {why}",
                s.name,
                cut(lo),
                cut(hi),
                s.len()
            )));
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}
