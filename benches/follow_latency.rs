//! The latency `toolnorm normalize --follow` adds per line: real recordings are written into
//! the process through a pipe one line at a time, and each line that causes an update is timed
//! from its write to the arrival of its first update line. The baseline is the same lines through
//! `cat` in the same run (write → the line read back), so the figure is toolnorm's own cost on
//! top of two pipes and a process.
//!
//! Run: `cargo bench --bench follow_latency` (prints p50 / p99 for both and the difference).
//!
//! The UI wire: `normalize --follow --emit ai-sdk` on a live Claude, Codex and Gemini session,
//! each call's first tool line timed from its write to the arrival of the call's first chunk
//! (its `tool-input-start`), against the same lines through `cat`.
//! The dialect is given (`--dialect`), so detection's first-lines wait is not counted. The first
//! timed line of each process also pays for the process starting (loading a large binary):
//! those are reported apart, the steady state is the rest.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use toolnorm::corpus::load_stream;
use toolnorm::stream::Direction;
use toolnorm::{Dialect, NormalizeOptions, Provider, normalize};

const SAMPLES: &[(&str, &str)] = &[
    ("claude", "live-claude-2.1.197-coding-partial"),
    ("codex", "live-codex-0.171.0-appserver-tools"),
    ("opencode", "live-opencode-1.18.33-serve-tools"),
];
const ROUNDS: usize = 5;

/// Live sessions of Claude, Codex and Gemini for the AI SDK wire.
const WIRE_SAMPLES: &[(&str, &str)] = &[
    ("claude", "live-claude-2.1.197-coding-partial"),
    ("codex", "live-codex-0.171.0-exec-tools"),
    ("gemini", "live-gemini-files"),
];

struct Sample {
    args: Vec<String>,
    lines: Vec<Vec<u8>>,
    /// The lines (0-based) that cause at least one update.
    timed: Vec<usize>,
    /// The lines (0-based) where a call first appears, with the call's id.
    first_lines: Vec<(usize, String)>,
}

fn sample(provider: &str, name: &str) -> Sample {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(provider)
        .join(format!("{name}.jsonl.zst"));
    let stream = load_stream(&path).unwrap_or_else(|e| panic!("{name}: {e:#}"));
    let p: Provider = provider.parse().unwrap();
    let input = stream.input();
    let d = match stream.dialect.as_deref() {
        Some(d) => Dialect::parse(d, Some(p)).unwrap(),
        None => toolnorm::dialects::detect(&input, Some(p)).unwrap(),
    };
    // Agent lines only, as a pipe from the agent carries them; numbered as they will be.
    let agent: Vec<_> = input
        .lines
        .iter()
        .filter(|l| l.direction == Direction::Agent)
        .collect();
    let lines: Vec<Vec<u8>> = agent.iter().map(|l| l.bytes.to_vec()).collect();
    let text: Vec<u8> = lines
        .iter()
        .flat_map(|l| l.iter().copied().chain([b'\n']))
        .collect();
    let doc = normalize(
        &toolnorm::Input::from_bytes(&text),
        NormalizeOptions {
            provider: Some(p),
            dialect: Some(d),
            cwd: stream.cwd.as_deref(),
        },
    )
    .unwrap();
    let mut timed: Vec<usize> = doc
        .events
        .iter()
        .map(|e| e.line as usize - 1)
        .chain(doc.diagnostics.iter().map(|d| d.line as usize - 1))
        .collect();
    timed.sort();
    timed.dedup();
    let mut first_lines: Vec<(usize, String)> = Vec::new();
    for e in &doc.events {
        if !first_lines.iter().any(|(_, id)| *id == e.part_id) {
            first_lines.push((e.line as usize - 1, e.part_id.clone()));
        }
    }
    first_lines.sort();
    // One call per line: the first call a line opens is the one awaited.
    first_lines.dedup_by_key(|(line, _)| *line);
    let mut args = vec![
        "normalize".to_owned(),
        "--follow".to_owned(),
        "--provider".to_owned(),
        provider.to_owned(),
        "--dialect".to_owned(),
        d.as_str().to_owned(),
    ];
    if let Some(cwd) = &stream.cwd {
        args.extend(["--cwd".to_owned(), cwd.clone()]);
    }
    args.push("-".to_owned());
    Sample {
        args,
        lines,
        timed,
        first_lines,
    }
}

/// Write `lines` one at a time into `cmd`; for each timed line, wait for the first output line
/// `matches` says it caused. With `echo` (cat) every line's own output is awaited before the
/// next is written, so the output of a line never stands in for another's. The latencies of the
/// timed lines.
fn replay(
    mut cmd: Command,
    lines: &[Vec<u8>],
    timed: &[usize],
    echo: bool,
    matches: &dyn Fn(&str, usize) -> bool,
) -> Vec<Duration> {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the process starts");
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel::<(Instant, String)>();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let _ = tx.send((Instant::now(), line));
        }
    });
    let mut stdin = child.stdin.take().unwrap();
    let mut out = Vec::new();
    let mut next = timed.iter().peekable();
    for (i, line) in lines.iter().enumerate() {
        let sent = Instant::now();
        stdin.write_all(line).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
        let is_timed = next.peek() == Some(&&i);
        if is_timed {
            next.next();
        }
        if is_timed || echo {
            loop {
                let (at, text) = rx
                    .recv_timeout(Duration::from_secs(30))
                    .expect("an update for a line that causes one");
                if matches(&text, i) {
                    if is_timed {
                        out.push(at - sent);
                    }
                    break;
                }
            }
        }
    }
    drop(stdin);
    let _ = child.wait();
    let _ = reader.join();
    out
}

/// Write `lines` one at a time into `cmd`; for each line where a call first appears, wait for
/// that call's first chunk (`toolCallId`). The latencies of those lines.
fn replay_wire(cmd: Command, lines: &[Vec<u8>], first: &[(usize, String)]) -> Vec<Duration> {
    let timed: Vec<usize> = first.iter().map(|(l, _)| *l).collect();
    let first_chunk = |text: &str, i: usize| {
        let v: serde_json::Value = serde_json::from_str(text).unwrap();
        let id = first
            .iter()
            .find(|(l, _)| *l == i)
            .map(|(_, id)| id.as_str());
        v["toolCallId"].as_str() == id
    };
    replay(cmd, lines, &timed, false, &first_chunk)
}

fn toolnorm_line(text: &str, i: usize) -> bool {
    let v: serde_json::Value = serde_json::from_str(text).unwrap();
    let line = v["event"]["line"]
        .as_u64()
        .or(v["diagnostic"]["line"].as_u64());
    line == Some(i as u64 + 1)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn main() {
    let samples: Vec<Sample> = SAMPLES.iter().map(|(p, n)| sample(p, n)).collect();
    let (mut tool, mut base) = (Vec::new(), Vec::new());
    let (mut tool_first, mut base_first) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        for s in &samples {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_toolnorm"));
            cmd.args(&s.args);
            let t = replay(cmd, &s.lines, &s.timed, false, &toolnorm_line);
            // cat echoes every line: time the same lines.
            let b = replay(Command::new("cat"), &s.lines, &s.timed, true, &|_, _| true);
            tool_first.push(t[0]);
            base_first.push(b[0]);
            tool.extend(&t[1..]);
            base.extend(&b[1..]);
        }
    }
    tool_first.sort();
    base_first.sort();
    tool.sort();
    base.sort();
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    let (t50, t99) = (percentile(&tool, 0.5), percentile(&tool, 0.99));
    let (b50, b99) = (percentile(&base, 0.5), percentile(&base, 0.99));
    let (t90, b90) = (percentile(&tool, 0.9), percentile(&base, 0.9));
    println!(
        "follow latency per line: {} timed lines per command (steady state)",
        tool.len()
    );
    println!(
        "  toolnorm --follow   p50 {:8.1} µs   p99 {:8.1} µs",
        us(t50),
        us(t99)
    );
    println!(
        "  cat (baseline)      p50 {:8.1} µs   p99 {:8.1} µs",
        us(b50),
        us(b99)
    );
    println!(
        "  first line of a process (start-up included), median: toolnorm {:.1} µs, cat {:.1} µs",
        us(percentile(&tool_first, 0.5)),
        us(percentile(&base_first, 0.5))
    );
    println!("  p90: toolnorm {:.1} µs, cat {:.1} µs", us(t90), us(b90));
    println!(
        "  added by toolnorm   p50 {:8.1} µs   p99 {:8.1} µs   (ratio p50 {:.2}x, p99 {:.2}x)",
        us(t50) - us(b50),
        us(t99) - us(b99),
        us(t50) / us(b50),
        us(t99) / us(b99)
    );
    wire_latency();
}

/// `--follow --emit ai-sdk`: each call's first chunk after its first tool line, per session.
fn wire_latency() {
    println!("follow latency to a call's first AI SDK chunk (normalize --follow --emit ai-sdk):");
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    let (mut all_tool, mut all_base) = (Vec::new(), Vec::new());
    for (provider, name) in WIRE_SAMPLES {
        let s = sample(provider, name);
        let timed: Vec<usize> = s.first_lines.iter().map(|(l, _)| *l).collect();
        let (mut tool, mut base) = (Vec::new(), Vec::new());
        let (mut tool_first, mut base_first) = (Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_toolnorm"));
            cmd.args(&s.args[..s.args.len() - 1])
                .args(["--emit", "ai-sdk", "-"]);
            let t = replay_wire(cmd, &s.lines, &s.first_lines);
            let b = replay(Command::new("cat"), &s.lines, &timed, true, &|_, _| true);
            tool_first.push(t[0]);
            base_first.push(b[0]);
            tool.extend(&t[1..]);
            base.extend(&b[1..]);
        }
        for v in [&mut tool, &mut base, &mut tool_first, &mut base_first] {
            v.sort();
        }
        println!(
            "  {provider:8} {name}: {} calls; first call (start-up included) median toolnorm {:.1} µs, cat {:.1} µs",
            s.first_lines.len(),
            us(percentile(&tool_first, 0.5)),
            us(percentile(&base_first, 0.5))
        );
        if !tool.is_empty() {
            println!(
                "           later calls: toolnorm p50 {:8.1} µs p99 {:8.1} µs; cat p50 {:8.1} µs p99 {:8.1} µs",
                us(percentile(&tool, 0.5)),
                us(percentile(&tool, 0.99)),
                us(percentile(&base, 0.5)),
                us(percentile(&base, 0.99))
            );
        }
        all_tool.extend(tool);
        all_base.extend(base);
    }
    all_tool.sort();
    all_base.sort();
    let (t50, t99) = (percentile(&all_tool, 0.5), percentile(&all_tool, 0.99));
    let (b50, b99) = (percentile(&all_base, 0.5), percentile(&all_base, 0.99));
    println!(
        "  all later calls ({}): toolnorm --emit ai-sdk p50 {:8.1} µs p99 {:8.1} µs; cat p50 {:8.1} µs p99 {:8.1} µs; added p50 {:.1} µs p99 {:.1} µs",
        all_tool.len(),
        us(t50),
        us(t99),
        us(b50),
        us(b99),
        us(t50) - us(b50),
        us(t99) - us(b99)
    );
}
