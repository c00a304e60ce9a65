//! `toolnorm cat FIXTURE`: print the recorded stream back exactly as received (after redaction);
//! `--header` prints the header with the trailer's end-of-recording facts merged in.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use anyhow::Context;

use crate::cli::exit;
use crate::corpus::format::merged_header;
use crate::corpus::reader::{FixtureError, Record, for_each_record};
use crate::stream::Direction;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A corpus fixture (`.jsonl.zst`).
    pub fixture: PathBuf,
    /// Print the header (JSON) instead of the stream.
    #[arg(long)]
    pub header: bool,
    /// Print the recorded stderr of the agent instead of the stream.
    #[arg(long, conflicts_with = "header")]
    pub stderr: bool,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let path = &args.fixture;
    let bytes = fs::read(path).with_context(|| format!("failed to read {}", path.display()))?;
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(256 << 10, stdout.lock());
    let mut header = None;
    let mut trailer = None;
    let mut lines = 0u64;
    let mut write_err: Option<io::Error> = None;
    let mut bad = Vec::new();
    let end = for_each_record(&bytes, |rec| match rec {
        Record::Header(h) => header = Some(h),
        Record::Trailer(t) => trailer = Some(t),
        Record::Bad { record, message } => bad.push(format!("fixture record {record}: {message}")),
        Record::Line(l) => {
            let wanted = if args.stderr {
                l.dir == Direction::Stderr
            } else {
                l.dir != Direction::Stderr
            };
            if !wanted {
                return;
            }
            lines += 1;
            if args.header || write_err.is_some() {
                return;
            }
            let r = out.write_all(l.bytes).and_then(|()| {
                if l.terminated {
                    out.write_all(b"\n")
                } else {
                    Ok(())
                }
            });
            if let Err(e) = r {
                write_err = Some(e);
            }
        }
    })
    .map_err(|kind| FixtureError {
        path: path.clone(),
        kind,
    })?;
    if let Some(e) = write_err {
        return Err(anyhow::Error::new(e).context("failed to write stdout"));
    }
    if args.header
        && let Some(h) = &header
    {
        let v = merged_header(h, trailer.as_ref());
        serde_json::to_writer_pretty(&mut out, &v)?;
        out.write_all(b"\n")?;
    }
    out.flush().context("failed to write stdout")?;
    for b in bad {
        eprintln!("warning: {}: {b}", path.display());
    }
    if let Some(why) = end.damage {
        eprintln!(
            "warning: {}: fixture was cut short after line {lines} ({why})",
            path.display()
        );
    } else if trailer.is_none() {
        eprintln!(
            "warning: {}: fixture was cut short after line {lines} (no trailer: the recording did not finish)",
            path.display()
        );
    }
    Ok(exit::SUCCESS)
}
