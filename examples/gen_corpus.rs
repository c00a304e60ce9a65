//! Generate a large corpus for scale tests from the shipped fixtures: `N` fixtures with their
//! expected outputs, `K` of them failing. Never commit what it writes. Run it through
//! `scripts/gen-corpus.sh` (which builds it in release mode), or:
//!
//! ```text
//! cargo run --release --example gen_corpus -- --out /tmp/big --fixtures 10000 --mb 1300 --fail 100
//! toolnorm verify --corpus /tmp/big/corpus --expected /tmp/big/expected --reports /tmp/big/reports
//! ```
//!
//! Fixture `i` is shipped fixture `i mod S` (provider, dialect and working directory from its
//! header), its lines repeated up to a size drawn (deterministically, from `--seed`) between 0.2
//! and 1.8 times the average (`--mb` / `--fixtures`; a whole-document dialect such as
//! `opencode export` is never repeated). Every copy of the lines gets its own ids, so no two
//! fixtures, and no two copies in one fixture, share a tool-call id, session id or message id:
//!
//! - prefixed ids (`toolu_…`, `call_…`, `prt_…`, `ses_…`, `msg_…`, …) have a per-copy number added
//!   to their tail, read as a number in its own alphabet (hex, base 36 or base 62), the same
//!   length, so order between ids (which some normalizers sort by) is kept; a tail shorter than
//!   8 characters (`item_1`) gets the number after a `-` instead (`item_1-2s`);
//! - UUIDs have the number added to their last group;
//! - ISO timestamps move back by a multiple of 4 years (leap years line up: durations stay).
//!
//! One id is rewritten the same way on every line of its copy, so a fixture normalizes like its
//! sample, ids aside. The expected output of each fixture is what `toolnorm accept` writes (the
//! built-in normalizer's canonical JSON); for the `--fail` fixtures (spread evenly) the first
//! title of the expected output (or its dialect, when no part has a title) is changed, so
//! `verify` reports exactly those as failing with a diff.
//!
//! Memory: each of the `--jobs` workers holds one fixture at a time; nothing is collected.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use anyhow::{Context, bail};
use clap::Parser;
use rayon::prelude::*;
use regex::bytes::{Captures, Regex};
use toolnorm::corpus::format::Trailer;
use toolnorm::corpus::writer::{FixtureWriter, LEVEL};
use toolnorm::corpus::{FixtureEntry, list_fixtures, read_fixture};
use toolnorm::stream::Direction;
use toolnorm::verify::runner::normalize_fixture;

#[derive(Debug, Parser)]
struct Args {
    /// Output folder: `corpus/` and `expected/` are written under it (it must not hold them yet).
    #[arg(long)]
    out: PathBuf,
    /// How many fixtures.
    #[arg(long, default_value_t = 10_000)]
    fixtures: u64,
    /// Raw megabytes in all (the fixtures' JSONL, as `toolnorm cat` prints it).
    #[arg(long, default_value_t = 1_300)]
    mb: u64,
    /// How many fixtures get a wrong expected output.
    #[arg(long, default_value_t = 0)]
    fail: u64,
    /// The shipped corpus the samples come from.
    #[arg(long, default_value = "corpus")]
    samples: PathBuf,
    /// Worker threads (0: one per core).
    #[arg(long, short = 'j', default_value_t = 0)]
    jobs: usize,
    /// Seed of the size draw.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write only the fixtures (then run `toolnorm accept`).
    #[arg(long)]
    no_expected: bool,
}

/// One shipped fixture.
struct Sample {
    entry: FixtureEntry,
    header: toolnorm::corpus::Header,
    lines: Vec<toolnorm::corpus::Line>,
    /// Raw bytes of its lines, one newline each.
    len: usize,
    /// Its lines may be repeated (not a single JSON document).
    repeatable: bool,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    if args.fixtures == 0 {
        bail!("--fixtures must be at least 1");
    }
    if args.fail > args.fixtures {
        bail!(
            "--fail {} is more than --fixtures {}",
            args.fail,
            args.fixtures
        );
    }
    for sub in ["corpus", "expected"] {
        let dir = args.out.join(sub);
        if dir.exists() {
            bail!("{} exists: generate into a new folder", dir.display());
        }
    }
    let mut samples = samples(&args.samples)?;
    let rewriter = Rewriter::new();
    let probe = args.out.join(".probe");
    for s in samples.iter_mut().filter(|s| s.repeatable) {
        s.repeatable = repeats_cleanly(&probe, &rewriter, s);
    }
    let _ = fs::remove_dir_all(&probe);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs)
        .build()
        .context("thread pool")?;
    let avg = (args.mb * 1_000_000 / args.fixtures).max(1);
    let raw = AtomicU64::new(0);
    let compressed = AtomicU64::new(0);
    let largest = AtomicU64::new(0);
    let perturbed = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let started = Instant::now();
    pool.install(|| {
        (0..args.fixtures).into_par_iter().try_for_each(|i| {
            let sample = &samples[(i % samples.len() as u64) as usize];
            let fail = args.fail > 0 && is_failing(i, args.fixtures, args.fail);
            let made = generate(&args, &rewriter, sample, i, avg, fail)?;
            raw.fetch_add(made.raw, Ordering::Relaxed);
            compressed.fetch_add(made.compressed, Ordering::Relaxed);
            largest.fetch_max(made.raw, Ordering::Relaxed);
            perturbed.fetch_add(u64::from(made.perturbed), Ordering::Relaxed);
            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
            if n.is_multiple_of(10_000) {
                eprintln!("{n} fixtures ({:.0?})", started.elapsed());
            }
            anyhow::Ok(())
        })
    })?;
    let mut out = io::stdout().lock();
    writeln!(
        out,
        "{} fixtures from {} samples ({} repeated to size) in {:.1?}: {:.1} MB raw, {:.1} MB zstd, largest {:.1} MB raw; {} failing",
        args.fixtures,
        samples.len(),
        samples.iter().filter(|s| s.repeatable).count(),
        started.elapsed(),
        raw.into_inner() as f64 / 1e6,
        compressed.into_inner() as f64 / 1e6,
        largest.into_inner() as f64 / 1e6,
        perturbed.into_inner(),
    )?;
    Ok(())
}

/// `fail` fixtures spread evenly over `count`.
fn is_failing(i: u64, count: u64, fail: u64) -> bool {
    // i is the j-th failing one when i == floor(j * count / fail).
    let j = (i * fail).div_ceil(count);
    j < fail && j * count / fail == i
}

fn samples(root: &Path) -> anyhow::Result<Vec<Sample>> {
    let mut out = Vec::new();
    for entry in list_fixtures(root) {
        let fixture = read_fixture(&entry.path)
            .with_context(|| format!("reading {}", entry.path.display()))?;
        let dialect = fixture.dialect().map(str::to_owned);
        let mut header = fixture.header;
        header.dialect = dialect;
        header.redactions.clear();
        let lines: Vec<_> = fixture
            .lines
            .into_iter()
            .filter(|l| l.dir != Direction::Stderr)
            .collect();
        let len = lines.iter().map(|l| l.bytes.len() + 1).sum();
        let repeatable = header.dialect.as_deref() != Some("export") && lines.len() > 1;
        out.push(Sample {
            entry,
            header,
            lines,
            len,
            repeatable,
        });
    }
    if out.is_empty() {
        bail!("no fixture under {}", root.display());
    }
    Ok(out)
}

struct Made {
    raw: u64,
    compressed: u64,
    perturbed: bool,
}

fn generate(
    args: &Args,
    rewriter: &Rewriter,
    sample: &Sample,
    i: u64,
    avg: u64,
    fail: bool,
) -> anyhow::Result<Made> {
    let frac = {
        let mut s = (i ^ args.seed.rotate_left(32)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        s ^= s >> 29;
        s = s.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    let target = (avg as f64 * (0.2 + 1.6 * frac)) as usize;
    let copies = if sample.repeatable {
        (target / sample.len.max(1)).clamp(1, 1_000)
    } else {
        1
    };
    let name = format!("gen-{i:06}");
    let provider = &sample.entry.provider;
    let (path, raw) = write_copies(&args.out.join("corpus"), rewriter, sample, &name, i, copies)?;
    let compressed = fs::metadata(&path)?.len();
    let mut perturbed = false;
    if !args.no_expected {
        let entry = FixtureEntry {
            provider: provider.clone(),
            name: name.clone(),
            path: path.clone(),
            size: compressed,
            rel: format!("{provider}/{name}.jsonl.zst"),
        };
        let normalized = normalize_fixture(&entry, false)
            .map_err(|e| anyhow::anyhow!("normalizing {}: {e}", path.display()))?;
        let mut canonical = normalized.canonical;
        if fail {
            canonical = perturb(&canonical);
            perturbed = true;
        }
        let expected = args.out.join("expected").join(entry.output_rel());
        fs::create_dir_all(expected.parent().expect("a provider folder"))?;
        fs::write(&expected, canonical)
            .with_context(|| format!("writing {}", expected.display()))?;
    }
    Ok(Made {
        raw,
        compressed,
        perturbed,
    })
}

/// Write fixture `i` of `root` as `name`: `copies` copies of the sample's lines, each with its own
/// ids. Returns its path and raw size.
fn write_copies(
    root: &Path,
    rewriter: &Rewriter,
    sample: &Sample,
    name: &str,
    i: u64,
    copies: usize,
) -> anyhow::Result<(PathBuf, u64)> {
    let path = toolnorm::corpus::fixture_path(root, &sample.entry.provider, name);
    fs::create_dir_all(path.parent().expect("a provider folder"))?;
    let years_back = 4 * (i % 4) as u16;
    let mut header = sample.header.clone();
    header.name = name.to_owned();
    header.started_at =
        String::from_utf8_lossy(&rewriter.rewrite(header.started_at.as_bytes(), 0, years_back))
            .into_owned();
    let file = fs::File::create(&path).with_context(|| format!("creating {}", path.display()))?;
    let out = io::BufWriter::with_capacity(1 << 16, file);
    let mut w = FixtureWriter::with_level(out, &header, LEVEL)?;
    let span = sample.lines.last().map_or(0, |l| l.t) + 1;
    let mut raw = 0u64;
    for copy in 0..copies as u64 {
        // A number of its own for every copy of every fixture.
        let key = i * 1_000 + copy + 1;
        for line in &sample.lines {
            let bytes = rewriter.rewrite(&line.bytes, key, years_back);
            raw += bytes.len() as u64 + 1;
            w.push_line(line.t + copy * span, line.dir, &bytes, line.terminated)?;
        }
    }
    let trailer = Trailer {
        lines: w.lines(),
        ended_at: header.started_at.clone(),
        ..Trailer::default()
    };
    w.finish(trailer)?.flush()?;
    Ok((path, raw))
}

/// Whether two copies of `sample` in one stream normalize without a rule violation: a stream
/// that is not one session of events per id (a `codex exec` turn numbering its items from
/// `item_0` in a way the rewrite cannot follow, say) is never repeated.
fn repeats_cleanly(probe: &Path, rewriter: &Rewriter, sample: &Sample) -> bool {
    let Ok((path, _)) = write_copies(probe, rewriter, sample, "probe", 0, 2) else {
        return false;
    };
    let entry = FixtureEntry {
        provider: sample.entry.provider.clone(),
        name: "probe".to_owned(),
        size: 0,
        rel: format!("{}/probe.jsonl.zst", sample.entry.provider),
        path,
    };
    normalize_fixture(&entry, true).is_ok_and(|n| n.violations.is_empty())
}

/// The expected output with its first title (else its dialect) changed.
fn perturb(canonical: &str) -> String {
    for key in ["\"title\": \"", "\"dialect\": \""] {
        if let Some(at) = canonical.find(key) {
            let at = at + key.len();
            return format!("{}[perturbed] {}", &canonical[..at], &canonical[at..]);
        }
    }
    format!("{canonical} ")
}

/// Rewrites ids and timestamps of one copy (see the module's documentation).
struct Rewriter {
    re: Regex,
}

impl Rewriter {
    fn new() -> Self {
        let re = Regex::new(concat!(
            r"(?-u)(?P<uuid>\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-)(?P<last>[0-9a-f]{12})\b",
            r"|\b(?P<prefix>(?:toolu|srvtoolu|call|prt|ses|msg|fc|item|exec|ws|rs|req|resp|per|que|evt)_)(?P<tail>[0-9A-Za-z][0-9A-Za-z_]*)\b",
            r"|\b(?P<year>20[0-9]{2})(?P<date>-[01][0-9]-[0-3][0-9]T)",
        ))
        .expect("the rewrite pattern compiles");
        Rewriter { re }
    }

    fn rewrite<'a>(&self, line: &'a [u8], key: u64, years_back: u16) -> std::borrow::Cow<'a, [u8]> {
        self.re.replace_all(line, |c: &Captures<'_>| {
            let mut out = Vec::with_capacity(48);
            if let (Some(uuid), Some(last)) = (c.name("uuid"), c.name("last")) {
                out.extend_from_slice(uuid.as_bytes());
                out.extend_from_slice(&add(last.as_bytes(), key));
            } else if let (Some(prefix), Some(tail)) = (c.name("prefix"), c.name("tail")) {
                out.extend_from_slice(prefix.as_bytes());
                if tail.len() >= 8 {
                    out.extend_from_slice(&add(tail.as_bytes(), key));
                } else {
                    // Too short to carry the number: it goes after a `-`, which sorts before
                    // any digit or letter (`item_1-k` < `item_10-k`, as `item_1` < `item_10`).
                    out.extend_from_slice(tail.as_bytes());
                    out.push(b'-');
                    out.extend_from_slice(base36(key).as_bytes());
                }
            } else if let (Some(year), Some(date)) = (c.name("year"), c.name("date")) {
                let y: u16 = std::str::from_utf8(year.as_bytes())
                    .ok()
                    .and_then(|y| y.parse().ok())
                    .unwrap_or(2000);
                let y = if y >= 2000 + years_back {
                    y - years_back
                } else {
                    y
                };
                out.extend_from_slice(format!("{y:04}").as_bytes());
                out.extend_from_slice(date.as_bytes());
            }
            out
        })
    }
}

fn base36(mut n: u64) -> String {
    let mut out = Vec::new();
    loop {
        out.push(b"0123456789abcdefghijklmnopqrstuvwxyz"[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).expect("ASCII")
}

const DIGITS: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// `digits + key` in the digits' own alphabet (lowercase hex, digits and lowercase letters, or
/// base 62), as long as `digits`, wrapping at the top; other bytes (`_`) stay where they are.
/// Order-keeping, one-to-one for each key.
fn add(digits: &[u8], key: u64) -> Vec<u8> {
    let alnum = || digits.iter().filter(|b| b.is_ascii_alphanumeric());
    let alphabet: &[u8] = if alnum().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b)) {
        b"0123456789abcdef"
    } else if alnum().all(|b| b.is_ascii_digit() || b.is_ascii_lowercase()) {
        b"0123456789abcdefghijklmnopqrstuvwxyz"
    } else {
        DIGITS
    };
    let base = alphabet.len() as u64;
    let mut out = digits.to_vec();
    let mut carry = key;
    for b in out.iter_mut().rev() {
        if carry == 0 {
            break;
        }
        let Some(v) = alphabet.iter().position(|d| d == b) else {
            continue;
        };
        let v = v as u64 + carry;
        *b = alphabet[(v % base) as usize];
        carry = v / base;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_move_together_and_keep_their_order() {
        let r = Rewriter::new();
        let line = br#"{"id":"toolu_01ABCDzz","tool_use_id":"toolu_01ABCDzz","item":"item_1","s":"c0ffee00-1111-2222-3333-0123456789ab","at":"2025-03-01T10:00:00Z"}"#;
        let out = r.rewrite(line, 1, 4);
        let text = String::from_utf8_lossy(&out);
        assert!(
            text.contains(
                r#""id":"toolu_01ABCE00","tool_use_id":"toolu_01ABCE00","item":"item_1-1""#
            ),
            "{text}"
        );
        assert!(
            text.contains("c0ffee00-1111-2222-3333-0123456789ac"),
            "{text}"
        );
        assert!(text.contains("2021-03-01T10:00:00Z"), "{text}");
        assert!(add(b"abc1", 5) < add(b"abc2", 5));
        assert!(r.rewrite(b"item_1", 7, 0) < r.rewrite(b"item_10", 7, 0));
        assert_ne!(r.rewrite(line, 1, 0), r.rewrite(line, 2, 0));
    }

    #[test]
    fn failing_fixtures_are_spread_and_counted() {
        for (count, fail) in [(10, 3), (100_000, 1_000), (7, 7), (5, 1)] {
            let n = (0..count).filter(|&i| is_failing(i, count, fail)).count() as u64;
            assert_eq!(n, fail, "{count} {fail}");
        }
    }
}
