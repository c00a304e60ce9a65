//! `toolnorm normalize PATH`: print the normalized document (or its ACP / legacy views); with
//! `--follow`, one JSON line per update as a live stream arrives (`follow`).

mod follow;

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::cli::exit;
use crate::corpus::{LoadedStream, load_stream};
use crate::model::wire::{SSE_DONE, Wire, WireFrame, document_frames, sse_event};
use crate::model::{Diagnostic, DiagnosticLevel, NormalizedDocument, acp_frames, legacy_parts};
use crate::normalizer::normalize;
use crate::providers::NormalizeOptions;
use crate::stream::{Dialect, Provider};

#[derive(Debug, Clone, Copy, clap::ValueEnum, Default)]
pub enum Emit {
    /// The normalized document: parts, events, diagnostics.
    #[default]
    Parts,
    /// The ACP `session/update` notifications an agent sends for the tool calls, one JSON-RPC
    /// message per line (ACP's stdio framing); see docs/acp.md.
    #[cfg(feature = "acp")]
    Acp,
    /// The flat ACP-style frames of the compatibility path, one per part (the legacy view).
    AcpLegacy,
    /// The UI's legacy tool parts (calling / output-available / output-error).
    Legacy,
    /// The AI SDK UI message stream (`ai` 7.x): one chunk per line, from `start` to `finish`;
    /// see docs/ui-wires.md.
    AiSdk,
    /// AG-UI 1.0 events: one per line, from `RUN_STARTED` to `RUN_FINISHED`; see
    /// docs/ui-wires.md.
    AgUi,
}

impl Emit {
    /// The UI wire this emits, if it is one.
    pub(crate) fn wire(self) -> Option<Wire> {
        match self {
            Emit::AiSdk => Some(Wire::AiSdk),
            Emit::AgUi => Some(Wire::AgUi),
            _ => None,
        }
    }
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A raw `.jsonl` / `.json` file, a corpus fixture (`.jsonl.zst`), or `-` for stdin.
    pub path: PathBuf,
    /// Force the provider (claude, codex, opencode, acp) instead of detecting it.
    #[arg(long)]
    pub provider: Option<Provider>,
    /// Force the dialect (stream-json, transcript, app-server, exec, rollout, legacy, events, run, export,
    /// acp).
    #[arg(long)]
    pub dialect: Option<String>,
    /// What to print.
    #[arg(long, value_enum, default_value_t)]
    pub emit: Emit,
    /// Normalize a live stream as it arrives: one JSON line per update (a part created or
    /// changed, a diagnostic), flushed at once. Reads stdin or a pipe until it ends, a regular
    /// file as it grows until `--idle-timeout`. With `--emit acp` or `legacy` only the frames go
    /// to stdout; the dialect and the diagnostics go to stderr as JSON lines.
    #[arg(long)]
    pub follow: bool,
    /// With `--follow` on a regular file: stop once nothing was added for this many seconds.
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    pub idle_timeout: f64,
    /// With `--emit ai-sdk` or `ag-ui`: write the wire's Server-Sent Events framing
    /// (`data: FRAME` and a blank line per frame; the AI SDK stream ends with `data: [DONE]`)
    /// instead of JSON Lines. The HTTP headers are the server's (docs/ui-wires.md).
    #[arg(long)]
    pub sse: bool,
    /// Print compact JSON on one line.
    #[arg(long)]
    pub compact: bool,
    /// The agent's working directory, for streams that do not say it (`codex exec --json`,
    /// `opencode run --format json`): titles show paths relative to it. Default: a fixture's
    /// recorded one.
    #[arg(long)]
    pub cwd: Option<String>,
}

/// Load a raw stream, a fixture or stdin (`-`) and normalize it as `toolnorm normalize` does: a
/// fixture's header names its provider, dialect and working directory unless the arguments do;
/// the container's problems lead the diagnostics.
pub(crate) fn load_normalized(
    path: &Path,
    provider: Option<Provider>,
    dialect: Option<Dialect>,
    cwd: Option<&str>,
) -> anyhow::Result<(LoadedStream, NormalizedDocument)> {
    let stream = load_stream(path)?;
    let mut opts = NormalizeOptions {
        provider,
        dialect,
        cwd: cwd.or(stream.cwd.as_deref()),
    };
    if opts.dialect.is_none()
        && let (Some(p), Some(d)) = (&stream.provider, &stream.dialect)
    {
        let p: Provider = p.parse().map_err(anyhow::Error::msg)?;
        opts.provider.get_or_insert(p);
        opts.dialect = Dialect::parse(d, Some(p)).ok();
    }
    let input = stream.input();
    let mut doc = normalize(&input, opts).with_context(|| format!("{}", path.display()))?;
    for note in &stream.notes {
        doc.diagnostics.insert(
            0,
            Diagnostic {
                line: 0,
                level: DiagnosticLevel::Error,
                message: note.clone(),
            },
        );
    }
    drop(input);
    Ok((stream, doc))
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let dialect = match &args.dialect {
        Some(d) => Some(Dialect::parse(d, args.provider).map_err(anyhow::Error::msg)?),
        None => None,
    };
    if args.sse && args.emit.wire().is_none() {
        anyhow::bail!("--sse goes with --emit ai-sdk or --emit ag-ui");
    }
    if args.follow {
        let opts = NormalizeOptions {
            provider: args.provider,
            dialect,
            cwd: args.cwd.as_deref(),
        };
        let idle = std::time::Duration::try_from_secs_f64(args.idle_timeout.max(0.0))
            .map_err(|e| anyhow::anyhow!("--idle-timeout: {e}"))?;
        return follow::run(&args.path, opts, args.emit, args.sse, idle);
    }
    let (_, doc) = load_normalized(&args.path, args.provider, dialect, args.cwd.as_deref())?;
    let mut out = io::stdout().lock();
    let value = match args.emit {
        Emit::Parts => serde_json::to_value(&doc)?,
        #[cfg(feature = "acp")]
        Emit::Acp => {
            for frame in crate::model::acp::document_frames(&doc) {
                serde_json::to_writer(&mut out, &frame)?;
                writeln!(out)?;
            }
            return Ok(exit::SUCCESS);
        }
        Emit::AcpLegacy => serde_json::to_value(acp_frames(&doc.parts))?,
        Emit::Legacy => serde_json::to_value(legacy_parts(&doc.parts))?,
        Emit::AiSdk | Emit::AgUi => {
            let wire = if matches!(args.emit, Emit::AiSdk) {
                Wire::AiSdk
            } else {
                Wire::AgUi
            };
            write_frames(&mut out, wire, &document_frames(wire, &doc), args.sse, true)?;
            return Ok(exit::SUCCESS);
        }
    };
    if args.compact {
        serde_json::to_writer(&mut out, &value)?;
    } else {
        serde_json::to_writer_pretty(&mut out, &value)?;
    }
    writeln!(out)?;
    Ok(exit::SUCCESS)
}

/// Write a wire's frames: a JSON line each, or with `sse` a Server-Sent Event each and, at the
/// `end` of an AI SDK stream, its `data: [DONE]`.
pub(crate) fn write_frames(
    out: &mut impl Write,
    wire: Wire,
    frames: &[WireFrame],
    sse: bool,
    end: bool,
) -> io::Result<()> {
    for f in frames {
        let json = serde_json::to_string(f)?;
        if sse {
            out.write_all(sse_event(&json).as_bytes())?;
        } else {
            out.write_all(json.as_bytes())?;
            out.write_all(b"\n")?;
        }
    }
    if sse && end && wire == Wire::AiSdk {
        out.write_all(SSE_DONE.as_bytes())?;
    }
    Ok(())
}
