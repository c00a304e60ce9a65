//! `toolnorm view FILE…`: any session file or stream of a supported agent (a raw `.jsonl` /
//! `.json`, a fixture `.jsonl.zst`, or `-` for stdin) as one self-contained HTML page of tool
//! cards, with raw lines, diagnostics and the rules' findings. `--open` opens it in the browser;
//! `--follow` rewrites it as the files grow, and the page reloads itself meanwhile.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};

use anyhow::Context;

use crate::cli::exit;
use crate::cli::normalize::load_normalized;
use crate::corpus::LoadedStream;
use crate::model::NormalizedDocument;
use crate::report::Violation;
use crate::report::cards::page::{self, PageOptions, ViewSession};
use crate::report::cards::preview::kept_line;
use crate::report::cards::{RawLines, Session};
use crate::stream::{Dialect, Provider};

/// How often a live page reloads itself, and how often `--follow` looks at the files.
const FOLLOW_MS: u32 = 1_500;
const POLL: Duration = Duration::from_millis(250);

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Session files or streams: raw `.jsonl` / `.json`, fixtures (`.jsonl.zst`), or `-` (stdin).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The page to write.
    #[arg(long, value_name = "PAGE", default_value = "toolnorm-view.html")]
    pub out: PathBuf,
    /// Open the page in the browser when written ($BROWSER, else xdg-open / open).
    #[arg(long)]
    pub open: bool,
    /// Keep the page live: rewrite it whenever a file grows (the page reloads itself meanwhile),
    /// until nothing was added for `--idle-timeout` seconds or Ctrl-C; then write it once more,
    /// no longer live. Regular files only.
    #[arg(long)]
    pub follow: bool,
    /// With `--follow`: stop once no file grew for this many seconds.
    #[arg(long, default_value_t = 600.0, value_name = "SECONDS")]
    pub idle_timeout: f64,
    /// Force the provider instead of detecting it (every file).
    #[arg(long)]
    pub provider: Option<Provider>,
    /// Force the dialect (every file).
    #[arg(long)]
    pub dialect: Option<String>,
    /// The agent's working directory, for streams that do not say it.
    #[arg(long)]
    pub cwd: Option<String>,
}

/// One file read, normalized and checked.
struct Loaded {
    label: String,
    stream: LoadedStream,
    doc: NormalizedDocument,
    findings: Vec<Violation>,
}

/// Read, normalize and check one file: the rules run as in `verify` (no expectations: every
/// finding is shown).
fn load(path: &Path, args: &Args, dialect: Option<Dialect>) -> anyhow::Result<Loaded> {
    let (stream, doc) = load_normalized(path, args.provider, dialect, args.cwd.as_deref())?;
    let label = path.display().to_string();
    let mut findings = Vec::new();
    if let Ok(provider) = doc.provider.parse::<Provider>()
        && let Ok(d) = Dialect::parse(&doc.dialect, Some(provider))
    {
        let input = stream.input();
        let raw = crate::dialects::scan(&input, d);
        let cx = crate::rules::RuleContext::new(d, &input, &doc, &raw);
        for (rule, finding) in crate::rules::check_all(&cx) {
            findings.push(Violation::of(rule, finding, &doc.provider, label.clone()));
        }
    }
    Ok(Loaded {
        label,
        stream,
        doc,
        findings,
    })
}

/// The raw lines a session's cards name, borrowed from its stream (long ones clipped).
fn raw_lines<'a>(l: &'a Loaded) -> RawLines<'a> {
    let wanted = Session::wanted_lines(&l.doc, &l.findings);
    l.stream
        .input()
        .lines
        .iter()
        .filter(|x| wanted.contains(&x.number))
        .map(|x| {
            let text = x.text();
            let kept = if text.len() > crate::report::cards::preview::MAX_KEPT_LINE {
                kept_line(&text).into()
            } else {
                text
            };
            (x.number, kept)
        })
        .collect()
}

/// Write the page for `loaded` to `out` (through a temporary file renamed over it, so a browser
/// reloading it never reads half a page).
fn write_page(loaded: &[Loaded], out: &Path, o: PageOptions) -> anyhow::Result<u64> {
    let raws: Vec<RawLines<'_>> = loaded.iter().map(raw_lines).collect();
    let sessions: Vec<ViewSession<'_>> = loaded
        .iter()
        .zip(&raws)
        .map(|(l, raw)| ViewSession {
            label: l.label.clone(),
            session: Session {
                doc: &l.doc,
                raw,
                findings: &l.findings,
            },
            raw_bytes: l
                .stream
                .input()
                .lines
                .iter()
                .map(|x| x.bytes.len() as u64 + 1)
                .sum(),
            lines: l.stream.input().lines.len(),
        })
        .collect();
    // Beside the page, named after it, so the rename stays on one file system.
    let mut tmp_name = out.file_name().unwrap_or_default().to_owned();
    tmp_name.push(".tmp");
    let tmp = out.with_file_name(tmp_name);
    let fail =
        |e: io::Error| anyhow::Error::new(e).context(format!("failed to write {}", out.display()));
    let file = fs::File::create(&tmp).map_err(fail)?;
    let mut w = io::BufWriter::new(file);
    page::render(&sessions, o, &mut w).map_err(fail)?;
    let file = w.into_inner().map_err(|e| fail(e.into_error()))?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    drop(file);
    fs::rename(&tmp, out).map_err(fail)?;
    Ok(size)
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let dialect = match &args.dialect {
        Some(d) => Some(Dialect::parse(d, args.provider).map_err(anyhow::Error::msg)?),
        None => None,
    };
    if args.files.iter().filter(|f| f.as_os_str() == "-").count() > 1 {
        anyhow::bail!("`-` (stdin) can be named once");
    }
    if args.follow && args.files.iter().any(|f| f.as_os_str() == "-") {
        anyhow::bail!(
            "--follow watches regular files; a stream on stdin is read to its end (drop --follow)"
        );
    }
    let idle = Duration::try_from_secs_f64(args.idle_timeout.max(0.0))
        .map_err(|e| anyhow::anyhow!("--idle-timeout: {e}"))?;
    let mut failed = false;
    let mut err = io::stderr().lock();
    let mut loaded = Vec::new();
    for f in &args.files {
        match load(f, &args, dialect) {
            Ok(l) => loaded.push(l),
            Err(e) => {
                failed = true;
                writeln!(err, "error: {}", crate::cli::error_chain(&e))?;
            }
        }
    }
    drop(err);
    if loaded.is_empty() {
        return Ok(exit::ERROR);
    }
    let mut o = PageOptions {
        follow_ms: args.follow.then_some(FOLLOW_MS),
    };
    let size = write_page(&loaded, &args.out, o)?;
    let calls: usize = loaded.iter().map(|l| l.doc.parts.len()).sum();
    writeln!(
        io::stdout(),
        "{} ({} calls, {})",
        args.out.display(),
        crate::text::thousands(calls as u64),
        crate::report::escape::bytes(size)
    )?;
    if args.open {
        let page = fs::canonicalize(&args.out).unwrap_or_else(|_| args.out.clone());
        open_in_browser(page.as_os_str());
    }
    if args.follow {
        follow(&args, dialect, idle, &mut loaded)?;
        o.follow_ms = None;
        write_page(&loaded, &args.out, o)?;
        writeln!(io::stdout(), "{}: no longer live", args.out.display())?;
    }
    Ok(if failed { exit::ERROR } else { exit::SUCCESS })
}

/// A file's size and time of change: what `--follow` compares.
fn stamp(path: &Path) -> Option<(u64, SystemTime)> {
    let m = fs::metadata(path).ok()?;
    Some((m.len(), m.modified().ok()?))
}

/// Rewrite the page whenever a file changes, until idle for `idle` or interrupted.
fn follow(
    args: &Args,
    dialect: Option<Dialect>,
    idle: Duration,
    loaded: &mut Vec<Loaded>,
) -> anyhow::Result<()> {
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, Arc::clone(&stop)).context("failed to watch Ctrl-C")?;
    }
    let mut stamps: Vec<_> = args.files.iter().map(|f| stamp(f)).collect();
    let mut last_change = Instant::now();
    while !stop.load(Ordering::Relaxed) && last_change.elapsed() < idle {
        std::thread::sleep(POLL);
        let now: Vec<_> = args.files.iter().map(|f| stamp(f)).collect();
        if now == stamps {
            continue;
        }
        stamps = now;
        last_change = Instant::now();
        let mut fresh = Vec::new();
        for f in &args.files {
            match load(f, args, dialect) {
                Ok(l) => fresh.push(l),
                // A file caught mid-write may not parse yet: keep the last page, try again.
                Err(e) => {
                    writeln!(io::stderr(), "warning: {}", crate::cli::error_chain(&e))?;
                }
            }
        }
        if !fresh.is_empty() {
            *loaded = fresh;
            write_page(
                loaded,
                &args.out,
                PageOptions {
                    follow_ms: Some(FOLLOW_MS),
                },
            )?;
        }
    }
    Ok(())
}

/// Hand a page (a path or a URL) to `$BROWSER`, else the desktop's opener; a failure is a
/// warning.
pub(crate) fn open_in_browser(page: &std::ffi::OsStr) {
    let opener = std::env::var_os("BROWSER")
        .filter(|b| !b.is_empty())
        .unwrap_or_else(|| {
            if cfg!(target_os = "macos") {
                "open".into()
            } else {
                "xdg-open".into()
            }
        });
    if let Err(e) = std::process::Command::new(&opener)
        .arg(page)
        .stdin(std::process::Stdio::null())
        .spawn()
    {
        let _ = writeln!(
            io::stderr(),
            "warning: could not open {} with {}: {e}",
            page.to_string_lossy(),
            opener.to_string_lossy()
        );
    }
}
