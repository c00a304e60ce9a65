//! `toolnorm serve-protocol`: the built-in normalizer as an implementation speaking the protocol
//! on stdin and stdout, so `toolnorm verify --impl 'toolnorm serve-protocol'` judges it like any
//! other; with `--wire`, it answers in that wire's frames, so the same judges a wire. A line it
//! cannot read is answered with an error naming the line (never a panic).

use std::io::{self, BufRead, Write};

use crate::cli::exit;
use crate::protocol::{self, AnswerWire, Request, builtin};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Answer every fixture in this wire's frames instead of parts (protocol 2): `acp`, `ai-sdk`
    /// or `ag-ui`, the frames `normalize --emit` writes.
    #[arg(long, value_name = "WIRE", value_parser = parse_wire)]
    pub wire: Option<AnswerWire>,
}

fn parse_wire(s: &str) -> Result<AnswerWire, String> {
    AnswerWire::parse(s).ok_or_else(|| format!("unknown wire `{s}` (acp, ai-sdk or ag-ui)"))
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let stdin = io::stdin().lock();
    let mut out = io::BufWriter::new(io::stdout().lock());
    for (i, line) in stdin.split(b'\n').enumerate() {
        let line = line?;
        let n = i + 1;
        let text = String::from_utf8_lossy(&line);
        if text.trim().is_empty() {
            continue;
        }
        let answer = match protocol::parse_request(&text) {
            Ok(Request::Hello(_)) => serde_json::to_string(&builtin::hello_reply())?,
            Ok(Request::Normalize(req)) => {
                serde_json::to_string(&builtin::answer_in(&req, args.wire))?
            }
            Ok(Request::Bye) => break,
            Err(e) => match request_seq(&text) {
                // A request toolnorm can still answer: say what is wrong with it.
                Some(seq) => serde_json::to_string(&serde_json::json!({
                    "type": "result",
                    "seq": seq,
                    "error": format!("stdin line {n}: {e}"),
                }))?,
                // Without a seq there is nothing to answer; say why on stderr and go on.
                None => {
                    writeln!(io::stderr(), "toolnorm serve-protocol: stdin line {n}: {e}")?;
                    continue;
                }
            },
        };
        out.write_all(answer.as_bytes())?;
        out.write_all(b"\n")?;
        out.flush()?;
    }
    Ok(exit::SUCCESS)
}

/// The `seq` of a `normalize` request that did not parse, if it has one.
fn request_seq(line: &str) -> Option<u64> {
    let v: serde_json::Value = serde_json::from_str(line).ok()?;
    (v.get("type")?.as_str()? == "normalize")
        .then(|| v.get("seq")?.as_u64())
        .flatten()
}
