//! The Rust side of `@toolnorm/core`: toolnorm's core (the `default-features = false` crate)
//! behind a small `wasm-bindgen` surface that the hand-kept JavaScript facade (`js/`) wraps.
//!
//! Everything crosses the boundary as text: lines go in as strings (or bytes), updates and
//! documents come out as JSON written by the core's own `Serialize` impls — the same lines
//! `toolnorm normalize --follow --emit parts` prints and the same document `toolnorm normalize`
//! prints — and the facade parses them with `JSON.parse`. So no shape is spelt twice, and one
//! `JSON.parse` of a string is cheaper in JavaScript engines than building objects field by
//! field across the boundary.

use toolnorm::model::wire::{Wire, WireEmitter};
use toolnorm::stream::{Direction, Input, RawLine, trim_line};
use toolnorm::{Dialect, DocumentBuilder, NormalizeOptions, NormalizedDocument, Provider, Update};
use wasm_bindgen::prelude::*;
use wires::{WireWriter, wire};

mod wires;

/// `provider` and `dialect` as the command line takes them (`--provider`, `--dialect`).
fn parse_options(
    provider: Option<String>,
    dialect: Option<String>,
) -> Result<(Option<Provider>, Option<Dialect>), JsError> {
    let provider = provider
        .map(|p| p.parse::<Provider>())
        .transpose()
        .map_err(|e| JsError::new(&e))?;
    let dialect = dialect
        .map(|d| Dialect::parse(&d, provider))
        .transpose()
        .map_err(|e| JsError::new(&e))?;
    Ok((provider, dialect))
}

fn json_error(e: serde_json::Error) -> JsError {
    JsError::new(&format!("could not write JSON: {e}"))
}

/// A streaming normalizer for one raw stream, fed a line at a time (`Normalizer` in the facade).
#[wasm_bindgen(js_name = RawNormalizer)]
pub struct RawNormalizer {
    inner: Option<toolnorm::Normalizer>,
    /// Every update handed out, folded: the document `document` returns (none kept when the
    /// normalizer was made without it, for a stream with no end).
    doc: Option<DocumentBuilder>,
    /// What the stream was, once it has ended.
    ended: Option<(Option<Dialect>, u32)>,
}

#[wasm_bindgen(js_class = RawNormalizer)]
impl RawNormalizer {
    /// A normalizer; `provider`, `dialect` (names as `--provider` / `--dialect` take them) and
    /// `cwd` (the agent's working directory, for streams that do not say it) are optional.
    /// `document`: keep what [`document`](Self::document) needs (every event and diagnostic
    /// handed out); without it the normalizer keeps only what the core keeps.
    #[wasm_bindgen(constructor)]
    pub fn new(
        provider: Option<String>,
        dialect: Option<String>,
        cwd: Option<String>,
        document: bool,
    ) -> Result<RawNormalizer, JsError> {
        let inner = streaming_normalizer(provider, dialect, cwd)?;
        Ok(RawNormalizer {
            inner: Some(inner),
            doc: document.then(DocumentBuilder::new),
            ended: None,
        })
    }

    /// Feed one line (without its `\n`; a trailing `\r` and a leading BOM are dropped). `client`:
    /// the client wrote it to the agent (two-way proxy records); `unterminated`: the stream was
    /// cut short inside it. Returns the updates it caused, as a JSON array.
    #[wasm_bindgen(js_name = pushLine)]
    pub fn push_line(
        &mut self,
        line: &str,
        client: bool,
        unterminated: bool,
    ) -> Result<String, JsError> {
        self.push(line.as_bytes(), client, unterminated)
    }

    /// [`push_line`](Self::push_line) of raw bytes (a line that need not be UTF-8).
    #[wasm_bindgen(js_name = pushBytes)]
    pub fn push_bytes(
        &mut self,
        line: &[u8],
        client: bool,
        unterminated: bool,
    ) -> Result<String, JsError> {
        self.push(line, client, unterminated)
    }

    fn push(&mut self, line: &[u8], client: bool, unterminated: bool) -> Result<String, JsError> {
        let n = self
            .inner
            .as_mut()
            .ok_or_else(|| JsError::new("the stream has ended: no line can follow `finish`"))?;
        let updates = push_raw(n, line, client, unterminated)?;
        fold(self.doc.as_mut(), updates)
    }

    /// The stream has ended: the updates only its end decides, as a JSON array. Later calls
    /// return `[]`.
    pub fn end(&mut self) -> Result<String, JsError> {
        match self.inner.take() {
            Some(n) => {
                self.ended = Some((n.dialect(), n.lines()));
                let updates = n.finish().map_err(|e| JsError::new(&e.to_string()))?;
                fold(self.doc.as_mut(), updates)
            }
            None => Ok("[]".to_owned()),
        }
    }

    /// The document every update handed out folds into (`toolnorm normalize`'s), as JSON; ends
    /// the stream first if it has not ended. Once only: it hands the document over.
    pub fn document(&mut self) -> Result<String, JsError> {
        if self.doc.is_none() {
            return Err(JsError::new(
                "no document: this normalizer keeps none (`document: false`), or handed it over",
            ));
        }
        self.end()?;
        let doc = self
            .doc
            .take()
            .and_then(DocumentBuilder::finish)
            .ok_or_else(|| JsError::new("no document: the dialect was never known"))?;
        serde_json::to_string(&doc).map_err(json_error)
    }

    /// `provider/dialect`, once known.
    pub fn dialect(&self) -> Option<String> {
        let d = match (&self.inner, self.ended) {
            (Some(n), _) => n.dialect(),
            (None, Some((d, _))) => d,
            (None, None) => None,
        }?;
        Some(format!("{}/{}", d.provider(), d))
    }

    /// How many lines were pushed.
    pub fn lines(&self) -> u32 {
        match (&self.inner, self.ended) {
            (Some(n), _) => n.lines(),
            (None, Some((_, lines))) => lines,
            (None, None) => 0,
        }
    }

    /// Every part so far, as they are now, as a JSON array.
    pub fn parts(&self) -> Result<String, JsError> {
        match &self.inner {
            Some(n) => serde_json::to_string(n.parts()).map_err(json_error),
            None => Ok("[]".to_owned()),
        }
    }
}

/// The core's streaming normalizer, its options as the facade names them.
fn streaming_normalizer(
    provider: Option<String>,
    dialect: Option<String>,
    cwd: Option<String>,
) -> Result<toolnorm::Normalizer, JsError> {
    let (provider, dialect) = parse_options(provider, dialect)?;
    toolnorm::Normalizer::new(NormalizeOptions {
        provider,
        dialect,
        cwd: cwd.as_deref(),
    })
    .map_err(|e| JsError::new(&e.to_string()))
}

/// Feed `n` the next line (without its `\n`; a trailing `\r` and a leading BOM are dropped),
/// numbered after the last: the updates it caused.
fn push_raw<'n>(
    n: &'n mut toolnorm::Normalizer,
    line: &[u8],
    client: bool,
    unterminated: bool,
) -> Result<toolnorm::Updates<'n>, JsError> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let raw = RawLine {
        number: n.lines().saturating_add(1),
        bytes: trim_line(line),
        direction: if client {
            Direction::Client
        } else {
            Direction::Agent
        },
        unterminated,
        text: None,
    };
    n.push(&raw).map_err(|e| JsError::new(&e.to_string()))
}

/// Write `updates` as one JSON array, folding each into `doc` (when kept) once written.
fn fold(
    mut doc: Option<&mut DocumentBuilder>,
    updates: impl IntoIterator<Item = Update>,
) -> Result<String, JsError> {
    let mut out = Vec::with_capacity(256);
    out.push(b'[');
    for (i, u) in updates.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        serde_json::to_writer(&mut out, &u).map_err(json_error)?;
        if let Some(doc) = doc.as_deref_mut() {
            doc.apply(u);
        }
    }
    out.push(b']');
    // serde_json writes UTF-8 only.
    String::from_utf8(out).map_err(|e| JsError::new(&e.to_string()))
}

/// The document of a whole stream given as its bytes (the batch path, `toolnorm normalize`).
fn document_of_bytes(
    bytes: &[u8],
    provider: Option<String>,
    dialect: Option<String>,
    cwd: Option<String>,
) -> Result<NormalizedDocument, JsError> {
    let (provider, dialect) = parse_options(provider, dialect)?;
    toolnorm::normalize(
        &Input::from_bytes(bytes),
        NormalizeOptions {
            provider,
            dialect,
            cwd: cwd.as_deref(),
        },
    )
    .map_err(|e| JsError::new(&e.to_string()))
}

/// The document of a whole stream given as its lines: `clients[i]` is 1 where line `i` is one the
/// client wrote to the agent (two-way proxy records), and `unterminated` says the last line was
/// cut short.
fn document_of_lines(
    lines: Vec<String>,
    clients: &[u8],
    unterminated: bool,
    provider: Option<String>,
    dialect: Option<String>,
    cwd: Option<String>,
) -> Result<NormalizedDocument, JsError> {
    let (provider, dialect) = parse_options(provider, dialect)?;
    let mut bytes = Vec::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
    let mut spans = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        let line = trim_line(line.as_bytes());
        spans.push((
            bytes.len(),
            bytes.len() + line.len(),
            clients.get(i) == Some(&1),
        ));
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
    }
    let last = spans.len().saturating_sub(1);
    let raw = spans
        .iter()
        .enumerate()
        .map(|(i, &(start, end, client))| RawLine {
            number: u32::try_from(i + 1).unwrap_or(u32::MAX),
            bytes: &bytes[start..end],
            direction: if client {
                Direction::Client
            } else {
                Direction::Agent
            },
            unterminated: unterminated && i == last,
            text: None,
        })
        .collect();
    toolnorm::normalize(
        &Input::from_lines(&bytes, raw),
        NormalizeOptions {
            provider,
            dialect,
            cwd: cwd.as_deref(),
        },
    )
    .map_err(|e| JsError::new(&e.to_string()))
}

/// Normalize a whole stream in one call (the batch path, `toolnorm normalize`): the document as
/// JSON. (The facade hands a string over as its UTF-8 bytes: `TextEncoder` makes them faster than
/// the bindings' own string copy does.)
#[wasm_bindgen(js_name = normalizeBytes)]
pub fn normalize_bytes(
    bytes: &[u8],
    provider: Option<String>,
    dialect: Option<String>,
    cwd: Option<String>,
) -> Result<String, JsError> {
    let doc = document_of_bytes(bytes, provider, dialect, cwd)?;
    serde_json::to_string(&doc).map_err(json_error)
}

/// [`normalize_bytes`] of a stream given as its lines (see [`document_of_lines`]).
#[wasm_bindgen(js_name = normalizeLines)]
pub fn normalize_lines(
    lines: Vec<String>,
    clients: &[u8],
    unterminated: bool,
    provider: Option<String>,
    dialect: Option<String>,
    cwd: Option<String>,
) -> Result<String, JsError> {
    let doc = document_of_lines(lines, clients, unterminated, provider, dialect, cwd)?;
    serde_json::to_string(&doc).map_err(json_error)
}

/// The legacy UI parts of a document's parts (`toolnorm normalize --emit legacy`), as JSON.
#[wasm_bindgen(js_name = legacyParts)]
pub fn legacy_parts(parts: &str) -> Result<String, JsError> {
    let parts: Vec<toolnorm::NormalizedToolPart> =
        serde_json::from_str(parts).map_err(|e| JsError::new(&format!("not parts: {e}")))?;
    serde_json::to_string(&toolnorm::model::legacy_parts(&parts)).map_err(json_error)
}

/// A stream's tool calls as a UI wire, live (`toolnorm normalize --follow --emit ai-sdk | ag-ui`):
/// raw lines in, the wire's frames out (`WireStream`, `UIMessageChunkStream` and
/// `AgUiEventStream` in the facade). Each call returns its frames as a JSON array, or as the
/// wire's SSE text when made with `sse`.
#[wasm_bindgen(js_name = RawWireEmitter)]
pub struct RawWireEmitter {
    inner: Option<toolnorm::Normalizer>,
    wire: Wire,
    emitter: WireEmitter,
    sse: bool,
}

#[wasm_bindgen(js_class = RawWireEmitter)]
impl RawWireEmitter {
    /// `wire`: `ai-sdk` or `ag-ui`; the rest as [`RawNormalizer::new`] takes them.
    #[wasm_bindgen(constructor)]
    pub fn new(
        wire: &str,
        provider: Option<String>,
        dialect: Option<String>,
        cwd: Option<String>,
        sse: bool,
    ) -> Result<RawWireEmitter, JsError> {
        let wire = self::wire(wire)?;
        let inner = streaming_normalizer(provider, dialect, cwd)?;
        Ok(RawWireEmitter {
            inner: Some(inner),
            wire,
            emitter: WireEmitter::new(wire),
            sse,
        })
    }

    /// Feed one line (as [`RawNormalizer::push_bytes`]): the frames it caused.
    #[wasm_bindgen(js_name = pushBytes)]
    pub fn push_bytes(
        &mut self,
        line: &[u8],
        client: bool,
        unterminated: bool,
    ) -> Result<String, JsError> {
        let n = self
            .inner
            .as_mut()
            .ok_or_else(|| JsError::new("the stream has ended: no line can follow `end`"))?;
        let updates = push_raw(n, line, client, unterminated)?;
        let mut out = WireWriter::new(self.wire, self.sse);
        out.updates(&mut self.emitter, updates)?;
        Ok(out.finish())
    }

    /// The stream has ended: the frames its end decides and the ones that close the wire's
    /// stream. Later calls return none.
    pub fn end(&mut self) -> Result<String, JsError> {
        let mut out = WireWriter::new(self.wire, self.sse);
        if let Some(n) = self.inner.take() {
            let updates = n.finish().map_err(|e| JsError::new(&e.to_string()))?;
            out.updates(&mut self.emitter, updates)?;
            out.close(&mut self.emitter)?;
        }
        Ok(out.finish())
    }
}

/// Every frame of a whole stream, given as its bytes, on `wire` (`toolnorm normalize --emit
/// WIRE [--sse]`): a JSON array, or the SSE text.
#[wasm_bindgen(js_name = wireOfBytes)]
pub fn wire_of_bytes(
    wire: &str,
    sse: bool,
    bytes: &[u8],
    provider: Option<String>,
    dialect: Option<String>,
    cwd: Option<String>,
) -> Result<String, JsError> {
    let wire = self::wire(wire)?;
    WireWriter::new(wire, sse).document(&document_of_bytes(bytes, provider, dialect, cwd)?)
}

/// [`wire_of_bytes`] of a stream given as its lines (as [`normalize_lines`] takes them).
#[wasm_bindgen(js_name = wireOfLines)]
#[allow(clippy::too_many_arguments)]
pub fn wire_of_lines(
    wire: &str,
    sse: bool,
    lines: Vec<String>,
    clients: &[u8],
    unterminated: bool,
    provider: Option<String>,
    dialect: Option<String>,
    cwd: Option<String>,
) -> Result<String, JsError> {
    let wire = self::wire(wire)?;
    let doc = document_of_lines(lines, clients, unterminated, provider, dialect, cwd)?;
    WireWriter::new(wire, sse).document(&doc)
}

/// [`wire_of_bytes`] of a document already normalized (its JSON).
#[wasm_bindgen(js_name = wireOfDocument)]
pub fn wire_of_document(wire: &str, sse: bool, document: &str) -> Result<String, JsError> {
    let wire = self::wire(wire)?;
    let doc: NormalizedDocument = serde_json::from_str(document)
        .map_err(|e| JsError::new(&format!("not a normalized document: {e}")))?;
    WireWriter::new(wire, sse).document(&doc)
}
