//! The gate's memory does not grow with its passing fixtures: a run keeps in memory only the
//! results the reports show in detail, spools the rest under the reports folder, and the reports
//! it writes are, byte for byte, those of the same results held in memory.

use std::fs;
use std::path::Path;
use std::sync::Arc;

use super::implementation::Implementation;
use super::runner::normalize_fixture;
use super::*;
use crate::report::{self, Fixtures, Status};

/// A corpus of `copies` copies of every shipped Claude fixture, each with its expected output,
/// under `dir`: all pass.
fn corpus(dir: &Path, copies: usize) -> usize {
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    // Shipped fixtures that break no rule (no expectations file is given).
    let samples: Vec<(FixtureEntry, String)> = crate::corpus::list_fixtures(&shipped)
        .into_iter()
        .filter(|f| f.provider == "claude")
        .filter_map(|f| {
            let n = normalize_fixture(&f, true).ok()?;
            n.violations.is_empty().then_some((f, n.canonical))
        })
        .take(4)
        .collect();
    assert!(
        !samples.is_empty(),
        "the shipped corpus has clean Claude fixtures"
    );
    let mut n = 0;
    for (f, expected) in &samples {
        for k in 0..copies {
            let name = format!("{}-{k:03}", f.name);
            let fixture = dir.join("corpus/claude").join(format!("{name}.jsonl.zst"));
            fs::create_dir_all(fixture.parent().unwrap()).unwrap();
            fs::copy(&f.path, &fixture).unwrap();
            let out = dir.join("expected/claude").join(format!("{name}.json"));
            fs::create_dir_all(out.parent().unwrap()).unwrap();
            fs::write(out, expected).unwrap();
            n += 1;
        }
    }
    n
}

fn options(dir: &Path, jobs: usize) -> VerifyOptions {
    VerifyOptions {
        corpus: dir.join("corpus"),
        expected: dir.join("expected"),
        reports: dir.join("reports"),
        expectations: dir.join("expectations.toml"),
        expectations_required: false,
        jobs,
        selection: Selection::default(),
        fail_fast: false,
        strict: true,
        write_pending: true,
        compare: crate::compare::CompareMode::Exact,
        timings: None,
        implementation: Arc::new(Implementation::BuiltIn),
        require_all: false,
    }
}

/// Every report file and the terminal report of `r`.
fn rendered(r: &Report) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut buf = Vec::new();
    report::json::render(r, &mut buf).unwrap();
    out.push(std::mem::take(&mut buf));
    report::junit::render(r, &mut buf).unwrap();
    out.push(std::mem::take(&mut buf));
    report::markdown::render(r, &mut buf).unwrap();
    out.push(std::mem::take(&mut buf));
    report::html::render(r, &mut buf).unwrap();
    out.push(std::mem::take(&mut buf));
    report::terminal::render(r, &mut buf, false, None).unwrap();
    out.push(buf);
    out
}

#[test]
fn a_run_holds_only_what_the_reports_detail_and_reports_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let n = corpus(dir.path(), 12);
    // Two fail: one has no expected file, one a wrong one.
    let expected = dir.path().join("expected/claude");
    let mut names: Vec<_> = fs::read_dir(&expected)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    fs::remove_file(&names[3]).unwrap();
    fs::write(&names[7], "{}").unwrap();

    let (report, counts) = verify_counted(&options(dir.path(), 2), &|_| {}, &|_| {}).unwrap();
    assert_eq!(counts.checked, n);
    assert_eq!(report.fixtures.len(), n);
    assert!(report.fixtures.is_spooled());
    assert_eq!(
        report.fixtures.held(),
        2,
        "only the two failing results are held in memory"
    );
    assert_eq!(report.summary.failed, 2);
    assert_eq!(report.summary.passed as usize, n - 2);

    let all = report.fixtures.to_vec().unwrap();
    let mut sorted = all.clone();
    sorted.sort_by(|a, b| (&a.provider, &a.name).cmp(&(&b.provider, &b.name)));
    assert_eq!(all, sorted, "results in report order");
    let in_memory = Report {
        fixtures: Fixtures::from_vec(all),
        ..report.clone()
    };
    assert_eq!(rendered(&report), rendered(&in_memory));

    // The spool is no file of the reports folder (it is unlinked at once where the system allows).
    let leftovers = |dir: &Path| -> Vec<String> {
        fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".toolnorm-spool"))
            .collect()
    };
    if cfg!(unix) {
        assert_eq!(leftovers(&dir.path().join("reports")), Vec::<String>::new());
    }
    drop((report, in_memory));
    assert_eq!(leftovers(&dir.path().join("reports")), Vec::<String>::new());
}

#[test]
fn one_job_and_many_give_the_same_report() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path(), 5);
    let one = verify(&options(dir.path(), 1), &|_| {}, &|_| {}).unwrap();
    let many = verify(&options(dir.path(), 4), &|_| {}, &|_| {}).unwrap();
    let strip = |r: &Report| -> Vec<(String, Status)> {
        r.fixtures
            .all()
            .map(|f| {
                let f = f.unwrap();
                (f.path.clone(), f.status)
            })
            .collect()
    };
    assert_eq!(strip(&one), strip(&many));
    assert_eq!(one.fixtures.held(), 0);
}
