//! The UI wires (`toolnorm normalize --emit ai-sdk | ag-ui`, docs/ui-wires.md) in Python: the
//! core's own emitters (`toolnorm::model::wire`), their frames handed out as dicts (what `--emit`
//! prints on a line) or as the wire's SSE text (`--sse`).

use std::sync::Mutex;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use toolnorm::model::wire::{
    SSE_DONE, Wire, WireEmitter as Emitter, WireFrame, document_frames, sse_event,
};
use toolnorm::stream::trim_line;
use toolnorm::{NormalizedDocument, Update};

use crate::{convert, document_of, normalize_error, text_bytes};

/// The wire `--emit` names `name`.
fn wire(name: &str) -> PyResult<Wire> {
    Wire::parse(name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "no wire {name:?}: the wires are \"ai-sdk\" and \"ag-ui\""
        ))
    })
}

/// The frames handed out by one call, as Python objects or as SSE text.
struct Out<'py> {
    py: Python<'py>,
    wire: Wire,
    sse: Option<String>,
    list: Bound<'py, PyList>,
}

impl<'py> Out<'py> {
    fn new(py: Python<'py>, wire: Wire, sse: bool) -> Out<'py> {
        Out {
            py,
            wire,
            sse: sse.then(String::new),
            list: PyList::empty(py),
        }
    }

    fn frames(&mut self, frames: &[WireFrame]) -> PyResult<()> {
        for f in frames {
            match &mut self.sse {
                Some(text) => {
                    let json = serde_json::to_string(f)
                        .map_err(|e| PyValueError::new_err(format!("could not write JSON: {e}")))?;
                    text.push_str(&sse_event(&json));
                }
                None => self.list.append(convert::to_python(self.py, f)?)?,
            }
        }
        Ok(())
    }

    fn updates(
        &mut self,
        emitter: &mut Emitter,
        updates: impl IntoIterator<Item = Update>,
    ) -> PyResult<()> {
        for u in updates {
            if let Some(part) = u.part() {
                self.frames(&emitter.part(part))?;
            }
        }
        Ok(())
    }

    /// The frames that close the stream (and the AI SDK's `[DONE]` line in SSE text).
    fn close(&mut self, emitter: &mut Emitter) -> PyResult<()> {
        self.frames(&emitter.finish())?;
        self.done();
        Ok(())
    }

    fn done(&mut self) {
        if let (Some(text), Wire::AiSdk) = (&mut self.sse, self.wire) {
            text.push_str(SSE_DONE);
        }
    }

    fn document(mut self, doc: &NormalizedDocument) -> PyResult<Bound<'py, PyAny>> {
        self.frames(&document_frames(self.wire, doc))?;
        self.done();
        Ok(self.into_python())
    }

    fn into_python(self) -> Bound<'py, PyAny> {
        match self.sse {
            Some(text) => PyString::new(self.py, &text).into_any(),
            None => self.list.into_any(),
        }
    }
}

/// A live stream's tool calls as a UI wire (`toolnorm normalize --follow --emit WIRE`): fed the
/// agent's lines one at a time, it returns the wire's frames each line caused.
///
/// `wire` is `"ai-sdk"` (the AI SDK UI message stream's chunks, for `useChat`) or `"ag-ui"`
/// (AG-UI 1.0 events, for an `HttpAgent`). Frames are dicts, exactly the lines `--emit` prints;
/// with `sse=True` each call returns the frames' SSE text instead (`--sse`: `data: <JSON>` and a
/// blank line each; the AI SDK's stream ends with `data: [DONE]`). `provider`, `dialect` and
/// `cwd` as `Normalizer` takes them. `end()` returns the frames that close the stream.
#[pyclass(module = "toolnorm")]
pub struct WireEmitter {
    // `Sync` for Python (see `Normalizer`): reached through `get_mut`, never locked.
    inner: Mutex<(Option<toolnorm::Normalizer>, Emitter)>,
    wire: Wire,
    sse: bool,
}

impl WireEmitter {
    fn parts(&mut self) -> &mut (Option<toolnorm::Normalizer>, Emitter) {
        self.inner
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[pymethods]
impl WireEmitter {
    #[new]
    #[pyo3(signature = (wire, provider=None, dialect=None, *, cwd=None, sse=false))]
    fn new(
        wire: &str,
        provider: Option<&str>,
        dialect: Option<&str>,
        cwd: Option<&str>,
        sse: bool,
    ) -> PyResult<Self> {
        let wire = self::wire(wire)?;
        let core = crate::normalizer::streaming_normalizer(provider, dialect, cwd)?;
        Ok(WireEmitter {
            inner: Mutex::new((Some(core), Emitter::new(wire))),
            wire,
            sse,
        })
    }

    /// Feed the next line of the agent's stream (`str` or `bytes`, with or without its `\n`):
    /// the frames it caused (none while the dialect is being detected).
    fn push_line<'py>(
        &mut self,
        py: Python<'py>,
        line: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let bytes = text_bytes(line)?;
        let bytes = trim_line(bytes.strip_suffix(b"\n").unwrap_or(bytes));
        let mut out = Out::new(py, self.wire, self.sse);
        let (core, emitter) = self.parts();
        let core = core
            .as_mut()
            .ok_or_else(|| PyValueError::new_err("push_line(): the stream has ended"))?;
        let updates = core
            .push_line(bytes)
            .map_err(normalize_error)?
            .collect::<Vec<Update>>();
        out.updates(emitter, updates)?;
        Ok(out.into_python())
    }

    /// The stream has ended: the frames its end decides and the ones that close the wire's
    /// stream. Later calls return none.
    fn end<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut out = Out::new(py, self.wire, self.sse);
        let (core, emitter) = self.parts();
        if let Some(core) = core.take() {
            let updates = core.finish().map_err(normalize_error)?;
            out.updates(emitter, updates)?;
            out.close(emitter)?;
        }
        Ok(out.into_python())
    }
}

/// Every frame of a whole stream (given as `normalize` takes it, or a document `normalize`
/// returned) on `wire`.
#[allow(clippy::too_many_arguments)]
fn to_wire<'py>(
    py: Python<'py>,
    wire: &str,
    stream: &Bound<'py, PyAny>,
    provider: Option<&str>,
    dialect: Option<&str>,
    cwd: Option<&str>,
    unterminated: bool,
    sse: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let wire = self::wire(wire)?;
    let doc: NormalizedDocument = if stream.is_instance_of::<PyDict>() {
        pythonize::depythonize(stream)
            .map_err(|e| PyValueError::new_err(format!("not a normalized document: {e}")))?
    } else {
        document_of(py, stream, provider, dialect, cwd, unterminated)?
    };
    Out::new(py, wire, sse).document(&doc)
}

/// The AI SDK UI message chunks of a whole stream, as `toolnorm normalize --emit ai-sdk` prints
/// them (a list of dicts; with `sse=True` their SSE text). `stream` as `normalize` takes it, or a
/// document `normalize` returned.
#[pyfunction]
#[pyo3(signature = (stream, provider=None, dialect=None, *, cwd=None, unterminated=false, sse=false))]
pub fn to_ai_sdk<'py>(
    py: Python<'py>,
    stream: &Bound<'py, PyAny>,
    provider: Option<&str>,
    dialect: Option<&str>,
    cwd: Option<&str>,
    unterminated: bool,
    sse: bool,
) -> PyResult<Bound<'py, PyAny>> {
    to_wire(
        py,
        "ai-sdk",
        stream,
        provider,
        dialect,
        cwd,
        unterminated,
        sse,
    )
}

/// The AG-UI events of a whole stream, as `toolnorm normalize --emit ag-ui` prints them (a list
/// of dicts; with `sse=True` their SSE text). `stream` as for `to_ai_sdk`.
#[pyfunction]
#[pyo3(signature = (stream, provider=None, dialect=None, *, cwd=None, unterminated=false, sse=false))]
pub fn to_ag_ui<'py>(
    py: Python<'py>,
    stream: &Bound<'py, PyAny>,
    provider: Option<&str>,
    dialect: Option<&str>,
    cwd: Option<&str>,
    unterminated: bool,
    sse: bool,
) -> PyResult<Bound<'py, PyAny>> {
    to_wire(
        py,
        "ag-ui",
        stream,
        provider,
        dialect,
        cwd,
        unterminated,
        sse,
    )
}
