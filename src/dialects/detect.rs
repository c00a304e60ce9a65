//! Detection from content, a line at a time: the [`Sniffer`] the streaming normalizer feeds, the
//! batch [`detect`] over it, and the table of forks whose rows only their own provider may claim
//! ([`FORKS`]). It reads the registry's sniffers ([`DIALECTS`]); the registry re-exports it.

use super::{DIALECTS, DialectEntry, NormalizeError};
use crate::providers::Probe;
use crate::stream::{Dialect, Direction, Input, Provider, RawLine};

/// Dialects that are another dialect's format byte for byte, written by a CLI built on the other
/// one's (Kilo on OpenCode): (the fork's dialect, the dialect whose format it is). From content
/// alone their lines are the other's, so detection never names the fork unless its provider is
/// asked for (a fixture's folder, `--provider kilo`); then the fork's rows read lines with the
/// other's sniffers. Their rows' own sniffers are the same functions, kept for that case.
pub static FORKS: &[(Dialect, Dialect)] = &[
    (Dialect::KiloEvents, Dialect::OpencodeEvents),
    (Dialect::KiloRun, Dialect::OpencodeRun),
    (Dialect::KiloExport, Dialect::OpencodeExport),
];

/// Whether `e` is a fork's dialect ([`FORKS`]) that only its own provider may detect.
fn fork_hidden(e: &DialectEntry, provider: Option<Provider>) -> bool {
    provider != Some(e.dialect.provider()) && FORKS.iter().any(|(fork, _)| *fork == e.dialect)
}

/// Whether row `e` accepts the line, given the provider asked for.
fn sniffs(e: &DialectEntry, provider: Option<Provider>, probe: &Probe<'_>) -> bool {
    !fork_hidden(e, provider) && (e.sniff)(probe)
}

/// How many non-blank lines detection looks at, at most.
const SNIFF_LINES: usize = 64;
/// Detection stops early once this many lines agree and none disagrees.
const UNANIMOUS: usize = 8;

/// Detect the dialect from content, optionally only among one provider's dialects: a loop over
/// the incremental `Sniffer`.
pub fn detect(input: &Input<'_>, provider: Option<Provider>) -> Result<Dialect, NormalizeError> {
    let mut sniffer = Sniffer::new(provider);
    for line in &input.lines {
        if let Some(decided) = sniffer.push(line) {
            return decided;
        }
    }
    sniffer.finish()
}

/// A line kept while the dialect is not known yet, to be replayed once it is.
#[derive(Debug)]
pub(crate) struct HeldLine {
    pub number: u32,
    pub bytes: Vec<u8>,
    pub direction: Direction,
    pub unterminated: bool,
}

impl HeldLine {
    pub fn raw(&self) -> RawLine<'_> {
        RawLine {
            number: self.number,
            bytes: &self.bytes,
            direction: self.direction,
            unterminated: self.unterminated,
            text: None,
        }
    }
}

/// Could the stream read so far be one JSON document, an object or an array (what a
/// whole-document dialect is)? A scan
/// of its structure only: braces and brackets outside strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DocShape {
    /// Only white space so far.
    Nothing,
    /// Inside the first value, at this depth.
    Open {
        depth: u32,
        in_string: bool,
        escaped: bool,
    },
    /// The first value is complete and only white space has followed.
    Closed,
    /// Not one JSON object: it starts otherwise, or more follows the first value.
    No,
}

impl DocShape {
    fn feed(self, bytes: &[u8]) -> DocShape {
        let mut shape = self;
        for &b in bytes {
            shape = match shape {
                DocShape::No => return DocShape::No,
                DocShape::Nothing | DocShape::Closed if b.is_ascii_whitespace() => shape,
                DocShape::Nothing if b == b'{' || b == b'[' => DocShape::Open {
                    depth: 1,
                    in_string: false,
                    escaped: false,
                },
                DocShape::Nothing | DocShape::Closed => DocShape::No,
                DocShape::Open {
                    depth,
                    in_string: true,
                    escaped,
                } => match b {
                    // A raw line break never is inside a JSON string.
                    b'\n' => DocShape::No,
                    _ if escaped => DocShape::Open {
                        depth,
                        in_string: true,
                        escaped: false,
                    },
                    b'\\' => DocShape::Open {
                        depth,
                        in_string: true,
                        escaped: true,
                    },
                    b'"' => DocShape::Open {
                        depth,
                        in_string: false,
                        escaped: false,
                    },
                    _ => shape,
                },
                DocShape::Open { depth, .. } => match b {
                    b'"' => DocShape::Open {
                        depth,
                        in_string: true,
                        escaped: false,
                    },
                    b'{' | b'[' => DocShape::Open {
                        depth: depth + 1,
                        in_string: false,
                        escaped: false,
                    },
                    b'}' | b']' if depth == 1 => DocShape::Closed,
                    b'}' | b']' => DocShape::Open {
                        depth: depth - 1,
                        in_string: false,
                        escaped: false,
                    },
                    _ => shape,
                },
            };
        }
        shape
    }
}

/// Detection from content, a line at a time, with exactly the verdict of looking at the whole
/// stream:
///
/// - a whole-document dialect (`opencode export`) when the stream is one such JSON document;
/// - otherwise the dialect of the first line that only one dialect's sniffer accepts (among the
///   provider's, when one is asked for) — provided
///   every line before it that some sniffer accepted was accepted by that dialect too (foreign
///   lines, which no sniffer accepts, say nothing);
/// - failing that (every line so far was accepted by several dialects, or two lines contradict
///   each other), the dialect most of the first [`SNIFF_LINES`] non-blank lines look like (a line
///   counts for the first row, among the provider's, whose sniffer accepts it), decided as soon
///   as [`UNANIMOUS`] lines agree and none disagrees.
///
/// A fork's dialect that writes another's format byte for byte ([`FORKS`]: Kilo's, OpenCode's)
/// is never detected from content alone (its lines are the other's); when its provider is asked
/// for, its rows read lines with the other's sniffers.
///
/// So a stream is decided at its first line that names its dialect beyond doubt (Claude's
/// `system`/`init`, Codex's `thread.started`, OpenCode's `server.connected`), and only what is
/// truly ambiguous is held: lines several sniffers accept (an ACP `session/update` is also a
/// method with a `/`, a transcript's message line also reads as stream-json), blank and foreign
/// lines, and a stream that can still be one JSON document. It keeps the lines it has read (never
/// blank ones) until it decides: at most the sniff window, or a whole document while the stream
/// can still be one.
#[derive(Debug)]
pub(crate) struct Sniffer {
    provider: Option<Provider>,
    votes: Vec<(Dialect, usize)>,
    /// The dialects every line accepted so far was accepted by (among the provider's); empty once
    /// two lines contradicted each other.
    candidates: Vec<Dialect>,
    /// The first line only one dialect accepts, when it is still a candidate: the verdict.
    decisive: Option<Dialect>,
    /// Non-blank lines looked at (the window counts these).
    looked: usize,
    /// Lines seen, blank ones included.
    seen: u64,
    /// The window is over: the votes are final.
    voted: bool,
    shape: DocShape,
    /// The document sniffers' verdict on the closed first value (computed once).
    document: Option<Option<Dialect>>,
    held: Vec<HeldLine>,
}

impl Sniffer {
    pub fn new(provider: Option<Provider>) -> Self {
        let documents = DIALECTS
            .iter()
            .any(|e| e.sniff_document.is_some() && Self::allows(provider, e));
        Sniffer {
            provider,
            votes: Vec::new(),
            candidates: DIALECTS
                .iter()
                .filter(|e| Self::allows(provider, e) && !fork_hidden(e, provider))
                .map(|e| e.dialect)
                .collect(),
            decisive: None,
            looked: 0,
            seen: 0,
            voted: false,
            shape: if documents {
                DocShape::Nothing
            } else {
                DocShape::No
            },
            document: None,
            held: Vec::new(),
        }
    }

    fn allows(provider: Option<Provider>, e: &DialectEntry) -> bool {
        provider.is_none_or(|p| e.dialect.provider() == p)
    }

    /// Read one more line; `Some` once the dialect is decided (or known to be undetectable).
    /// The line is kept (see [`take_held`](Self::take_held)) unless it is blank.
    pub fn push(&mut self, line: &RawLine<'_>) -> Option<Result<Dialect, NormalizeError>> {
        self.seen += 1;
        if line.is_blank() {
            return self.decided();
        }
        if self.shape != DocShape::No {
            self.shape = self.shape.feed(line.bytes).feed(b"\n");
        }
        if !self.voted {
            self.vote(line);
        }
        self.held.push(HeldLine {
            number: line.number,
            bytes: line.bytes.to_vec(),
            direction: line.direction,
            unterminated: line.unterminated,
        });
        self.decided()
    }

    fn vote(&mut self, line: &RawLine<'_>) {
        self.looked += 1;
        let text = line.text();
        if let Some(probe) = Probe::parse(&text) {
            let provider = self.provider;
            let mut accepted = DIALECTS
                .iter()
                .filter(|e| Self::allows(provider, e) && sniffs(e, provider, &probe));
            if let Some(first) = accepted.next() {
                let others: Vec<&DialectEntry> = accepted.collect();
                match self.votes.iter_mut().find(|(x, _)| *x == first.dialect) {
                    Some((_, n)) => *n += 1,
                    None => self.votes.push((first.dialect, 1)),
                }
                self.narrow(first, &others);
            }
        }
        // A line that names the dialect, enough unanimous evidence, or the whole window: the
        // votes are final.
        let unanimous = matches!(self.votes.as_slice(), [(_, n)] if *n >= UNANIMOUS);
        self.voted = self.decisive.is_some() || unanimous || self.looked >= SNIFF_LINES;
    }

    /// Keep the candidates the line's sniffers (`first`, then `others`: the provider's, when
    /// one is asked for) accept; a line only one dialect accepts decides, if that dialect is
    /// still a candidate. A line only other providers' dialects accept never gets here: it says
    /// nothing, as a foreign line.
    fn narrow(&mut self, first: &DialectEntry, others: &[&DialectEntry]) {
        let accepts = |d: Dialect| first.dialect == d || others.iter().any(|e| e.dialect == d);
        self.candidates.retain(|&d| accepts(d));
        if others.is_empty() && self.candidates == [first.dialect] {
            self.decisive = Some(first.dialect);
        }
    }

    /// The verdict, when what is left of the stream can no longer change it.
    fn decided(&mut self) -> Option<Result<Dialect, NormalizeError>> {
        match self.shape {
            DocShape::Nothing | DocShape::Open { .. } => return None,
            // Still one document of a whole-document dialect: only the end of the stream can say.
            DocShape::Closed => {
                if self.document_dialect().is_some() {
                    return None;
                }
            }
            DocShape::No => {}
        }
        self.voted.then(|| self.by_votes())
    }

    /// The whole-document dialect the closed first value is, if any.
    fn document_dialect(&mut self) -> Option<Dialect> {
        if let Some(d) = self.document {
            return d;
        }
        let mut bytes = Vec::new();
        for l in &self.held {
            bytes.extend_from_slice(&l.bytes);
            bytes.push(b'\n');
        }
        let provider = self.provider;
        let d = DIALECTS
            .iter()
            .filter(|e| Self::allows(provider, e) && !fork_hidden(e, provider))
            .find(|e| e.sniff_document.is_some_and(|sniff| sniff(&bytes)))
            .map(|e| e.dialect);
        self.document = Some(d);
        d
    }

    fn by_votes(&self) -> Result<Dialect, NormalizeError> {
        if let Some(d) = self.decisive {
            return Ok(d);
        }
        // The most votes; on a tie, the dialect that was voted for first.
        let mut best: Option<(Dialect, usize)> = None;
        for &(d, n) in &self.votes {
            if best.is_none_or(|(_, b)| n > b) {
                best = Some((d, n));
            }
        }
        best.map(|(d, _)| d).ok_or_else(|| {
            NormalizeError::Undetectable(match self.provider {
                Some(p) => format!("no line looks like any {p} dialect"),
                None => "no line looks like the output of any known agent".to_owned(),
            })
        })
    }

    /// The stream has ended: the verdict on all of it.
    pub fn finish(&mut self) -> Result<Dialect, NormalizeError> {
        if self.shape == DocShape::Closed
            && let Some(d) = self.document_dialect()
        {
            return Ok(d);
        }
        if self.held.is_empty() {
            return Err(NormalizeError::Empty(if self.seen == 0 {
                "no lines"
            } else {
                "only blank lines"
            }));
        }
        self.by_votes()
    }

    /// The lines read so far, to replay into the dialect's normalizer.
    pub fn take_held(&mut self) -> Vec<HeldLine> {
        std::mem::take(&mut self.held)
    }
}

/// [`detect`] as the corpus shells take it (see [`crate::stream::Detector`]).
pub fn detector(input: &Input<'_>, provider: Option<Provider>) -> Result<Dialect, String> {
    detect(input, provider).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Push `lines` (numbered from 1) into a sniffer; the verdict and the line that gave it.
    fn sniff(provider: Option<Provider>, lines: &[&str]) -> Option<(u32, Dialect)> {
        let mut s = Sniffer::new(provider);
        for (i, text) in lines.iter().enumerate() {
            let line = RawLine::agent(i + 1, text);
            if let Some(verdict) = s.push(&line) {
                return Some((line.number, verdict.unwrap()));
            }
        }
        None
    }

    const ACP_UPDATE: &str = r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}"#;

    #[test]
    fn a_line_only_one_dialect_accepts_decides_at_once() {
        let first_lines = [
            (
                r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"s","tools":["Bash"]}"#,
                Dialect::ClaudeStreamJson,
            ),
            (
                r#"{"parentUuid":null,"isSidechain":false,"sessionId":"s","type":"user","message":{"role":"user","content":"hi"}}"#,
                Dialect::ClaudeTranscript,
            ),
            (
                r#"{"type":"thread.started","thread_id":"t"}"#,
                Dialect::CodexExec,
            ),
            (
                r#"{"jsonrpc":"2.0","method":"thread/started","params":{"thread":{"id":"t"}}}"#,
                Dialect::CodexAppServer,
            ),
            (
                r#"{"timestamp":"t","type":"session_meta","payload":{"id":"s","cwd":"/w"}}"#,
                Dialect::CodexRollout,
            ),
            (
                r#"{"id":"0","msg":{"type":"session_configured","session_id":"s"}}"#,
                Dialect::CodexLegacy,
            ),
            (
                r#"{"type":"server.connected","properties":{}}"#,
                Dialect::OpencodeEvents,
            ),
            (
                r#"{"type":"step_start","timestamp":1,"sessionID":"ses","part":{"type":"step-start"}}"#,
                Dialect::OpencodeRun,
            ),
            (
                r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}"#,
                Dialect::Acp,
            ),
        ];
        for (line, dialect) in first_lines {
            assert_eq!(sniff(None, &[line]), Some((1, dialect)), "{line}");
        }
    }

    #[test]
    fn blank_foreign_and_ambiguous_lines_are_held_until_a_line_names_the_dialect() {
        let item = r#"{"jsonrpc":"2.0","method":"item/started","params":{"item":{"id":"i","type":"commandExecution"}}}"#;
        // An ACP notification is also a method with a `/`, which Codex app-server's sniffer
        // takes: held, with the blank and foreign lines, until a line only one dialect accepts.
        let lines = ["", "not json", r#"{"model":"m"}"#, ACP_UPDATE, item];
        assert_eq!(sniff(None, &lines), Some((5, Dialect::CodexAppServer)));
        let init =
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}"#;
        assert_eq!(sniff(None, &[ACP_UPDATE, init]), Some((2, Dialect::Acp)));
        // Lines that contradict each other decide nothing early: the vote, at the end.
        let claude = r#"{"type":"system","subtype":"init","session_id":"s"}"#;
        assert_eq!(sniff(None, &[ACP_UPDATE, claude]), None);
        let mut s = Sniffer::new(None);
        for (i, text) in [ACP_UPDATE, claude].iter().enumerate() {
            assert!(s.push(&RawLine::agent(i + 1, text)).is_none());
        }
        assert_eq!(
            s.finish(),
            Ok(Dialect::Acp),
            "a tie goes to the first voted"
        );
    }

    #[test]
    fn a_provider_narrows_the_candidates() {
        let claude = r#"{"type":"system","subtype":"init","session_id":"s"}"#;
        let exec = r#"{"type":"turn.started"}"#;
        // Another provider's line says nothing, as a foreign one.
        assert_eq!(
            sniff(Some(Provider::Codex), &[claude, exec]),
            Some((2, Dialect::CodexExec))
        );
        assert_eq!(sniff(Some(Provider::Claude), &[exec]), None);
    }

    #[test]
    fn what_may_be_one_json_document_is_held() {
        // Its first line would name Codex exec, but the stream may be one `opencode export`.
        let export_like = r#"{"info":{},"messages":[],"type":"turn.started"}"#;
        assert_eq!(sniff(None, &[export_like]), None);
        assert_eq!(
            sniff(None, &[export_like, r#"{"type":"turn.started"}"#]),
            Some((2, Dialect::CodexExec))
        );
        // A document's first line.
        assert_eq!(sniff(None, &["{", r#""type":"turn.started","#]), None);
    }

    #[test]
    fn every_dialect_has_exactly_one_row() {
        for d in Dialect::ALL {
            assert_eq!(
                DIALECTS.iter().filter(|e| e.dialect == d).count(),
                1,
                "{d:?}"
            );
        }
        assert_eq!(DIALECTS.len(), Dialect::ALL.len());
    }
}
