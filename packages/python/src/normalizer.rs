//! `toolnorm.Normalizer`: the core's streaming normalizer behind a Python class, which also folds
//! the updates it hands out into the document `finish()` returns.

use std::sync::Mutex;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;
use toolnorm::stream::{RawLine, trim_line};
use toolnorm::{Dialect, DocumentBuilder, NormalizeOptions, Update};

use crate::{convert, normalize_error, parse_options, text_bytes};

/// The core's streaming normalizer, its options as Python names them.
pub(crate) fn streaming_normalizer(
    provider: Option<&str>,
    dialect: Option<&str>,
    cwd: Option<&str>,
) -> PyResult<toolnorm::Normalizer> {
    let (provider, dialect) = parse_options(provider, dialect)?;
    toolnorm::Normalizer::new(NormalizeOptions {
        provider,
        dialect,
        cwd,
    })
    .map_err(normalize_error)
}

/// The normalizer of one stream, and what it has folded so far.
struct Stream {
    /// `None` once the stream has ended.
    core: Option<toolnorm::Normalizer>,
    /// The document the updates fold into; `None` with `document=False`, or once `finish()`
    /// took it.
    doc: Option<DocumentBuilder>,
    /// The document was asked for (the normalizer was made with `document=True`).
    keeps_document: bool,
    /// Known once the core said so; kept after the stream ended.
    dialect: Option<Dialect>,
    /// The number of the last line pushed; kept after the stream ended.
    lines: u32,
}

impl Stream {
    fn core(&mut self, call: &str) -> PyResult<&mut toolnorm::Normalizer> {
        self.core
            .as_mut()
            .ok_or_else(|| PyValueError::new_err(format!("{call}: the stream has ended")))
    }

    /// Note what the updates say and fold them in; the updates as a Python list.
    fn hand_out<'py>(
        &mut self,
        py: Python<'py>,
        updates: impl IntoIterator<Item = Update>,
    ) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for u in updates {
            list.append(convert::to_python(py, &u)?)?;
            if let Update::Dialect(d) = u {
                self.dialect = Some(d);
            }
            if let Some(doc) = &mut self.doc {
                doc.apply(u);
            }
        }
        Ok(list)
    }

    /// End the stream: the updates only its end decides.
    fn end<'py>(&mut self, py: Python<'py>, call: &str) -> PyResult<Bound<'py, PyList>> {
        self.core(call)?;
        let core = self.core.take().expect("checked above");
        let updates = core.finish().map_err(normalize_error)?;
        self.hand_out(py, updates)
    }
}

/// toolnorm's streaming normalizer for one agent stream, fed a line at a time.
///
/// Each call returns the updates the line caused, as plain dicts (the lines
/// `toolnorm normalize --follow --emit parts` prints): `{"type": "dialect", ...}` first, then
/// `{"type": "part", "created", "event", "part"}` for each change of a tool call,
/// `{"type": "revised", "part"}` and `{"type": "diagnostic", "diagnostic"}`. While the dialect
/// is being detected lines are held and handed out once it is known. `finish()` ends the stream
/// and returns the whole document, as `normalize()` gives it for the same lines.
///
/// `provider` and `dialect` skip detection (`dialect`: `stream-json`, `exec`, `events`, ...);
/// `cwd` is the agent's working directory for streams that do not say it. With
/// `document=False` the updates are not kept for `finish()` (an endless stream then holds
/// only its parts); end such a stream with `end()`.
#[pyclass(module = "toolnorm")]
pub struct Normalizer {
    // Python objects are shared between threads, so a class must be `Sync`; the core normalizer is
    // `Send` only. Every method takes `&mut self` (PyO3 hands out one mutable borrow at a time), so
    // the mutex is reached through `get_mut` and never locked.
    stream: Mutex<Stream>,
}

impl Normalizer {
    fn stream(&mut self) -> &mut Stream {
        self.stream
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[pymethods]
impl Normalizer {
    #[new]
    #[pyo3(signature = (provider=None, dialect=None, *, cwd=None, document=true))]
    fn new(
        provider: Option<&str>,
        dialect: Option<&str>,
        cwd: Option<&str>,
        document: bool,
    ) -> PyResult<Self> {
        let core = streaming_normalizer(provider, dialect, cwd)?;
        Ok(Normalizer {
            stream: Mutex::new(Stream {
                dialect: core.dialect(),
                core: Some(core),
                doc: document.then(DocumentBuilder::new),
                keeps_document: document,
                lines: 0,
            }),
        })
    }

    /// Feed the next line of the stream (`str` or `bytes`, without or with its `\n`; a trailing
    /// `\r` and a leading BOM are dropped). Lines are numbered from 1 in the order they come,
    /// blank ones included. Returns the updates the line caused: none while the dialect is
    /// being detected, then every held line's at once. Raises `NormalizeError` when the
    /// dialect cannot be detected, then on every later call.
    fn push_line<'py>(
        &mut self,
        py: Python<'py>,
        line: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let bytes = text_bytes(line)?;
        let stream = self.stream();
        let core = stream.core("push_line()")?;
        let updates = core
            .push_line(bytes)
            .map_err(normalize_error)?
            .collect::<Vec<Update>>();
        stream.lines = core.lines();
        stream.hand_out(py, updates)
    }

    /// Feed a line with its direction, as a two-way proxy records it: `direction="client"` for
    /// what the client wrote to the agent (ACP requests and answers), `"agent"` for what the
    /// agent wrote. `number` is the line's own number (default: the last one's plus 1; later
    /// lines number on from it); `terminated=False` marks a last line cut short, without its
    /// newline. Otherwise as `push_line`.
    #[pyo3(signature = (line, *, direction="agent", number=None, terminated=true))]
    fn push<'py>(
        &mut self,
        py: Python<'py>,
        line: &Bound<'py, PyAny>,
        direction: &str,
        number: Option<u32>,
        terminated: bool,
    ) -> PyResult<Bound<'py, PyList>> {
        let direction = crate::direction(direction)?;
        let bytes = text_bytes(line)?;
        let bytes = trim_line(bytes.strip_suffix(b"\n").unwrap_or(bytes));
        let stream = self.stream();
        let core = stream.core("push()")?;
        let number = number.unwrap_or_else(|| core.lines().saturating_add(1));
        if number == 0 {
            return Err(PyValueError::new_err("line numbers start at 1"));
        }
        let updates = core
            .push(&RawLine {
                number,
                bytes,
                direction,
                unterminated: !terminated,
                text: None,
            })
            .map_err(normalize_error)?
            .collect::<Vec<Update>>();
        stream.lines = number;
        stream.hand_out(py, updates)
    }

    /// The stream has ended: returns the updates only its end decides (the dialect, when it
    /// was still being detected; calls that never got their result; a whole document's parts;
    /// summaries of the diagnostics left out). No line can be pushed after it. Raises
    /// `NormalizeError` when the dialect cannot be told (an empty stream, or nothing like any
    /// dialect).
    fn end<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.stream().end(py, "end()")
    }

    /// Ends the stream (unless `end()` did) and returns the whole document: `schemaVersion`,
    /// `provider`, `dialect`, `parts`, `events` and `diagnostics`, exactly as `normalize()` and
    /// `toolnorm normalize` give it for the same lines. Can be called once.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let stream = self.stream();
        if !stream.keeps_document {
            return Err(PyValueError::new_err(
                "finish(): this normalizer keeps no document (document=False); end the stream with end()",
            ));
        }
        if stream.core.is_some() {
            stream.end(py, "finish()")?;
        }
        let Some(doc) = stream.doc.take() else {
            return Err(PyValueError::new_err(
                "finish(): the document was already handed out",
            ));
        };
        let doc = doc
            .finish()
            .ok_or_else(|| PyValueError::new_err("finish(): the stream has no dialect"))?;
        convert::to_python(py, &doc)
    }

    /// The stream's provider (`claude`, `codex`, `opencode`, `acp`), once its dialect is known.
    #[getter]
    fn provider(&mut self) -> Option<&'static str> {
        self.stream().dialect.map(|d| d.provider().as_str())
    }

    /// The stream's dialect (`stream-json`, `exec`, ...), once known.
    #[getter]
    fn dialect(&mut self) -> Option<&'static str> {
        self.stream().dialect.map(Dialect::as_str)
    }

    /// How many lines were pushed: the number of the last one.
    #[getter]
    fn lines(&mut self) -> u32 {
        self.stream().lines
    }

    /// Every part so far, in the order they appeared, as they are now. Raises `ValueError`
    /// once the stream has ended (the document has them).
    #[getter]
    fn parts<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        convert::list(py, self.stream().core("parts")?.parts())
    }

    fn __repr__(&mut self) -> String {
        let stream = self.stream();
        let dialect = match stream.dialect {
            Some(d) => format!("{}/{}", d.provider(), d),
            None => "detecting".to_owned(),
        };
        match &stream.core {
            Some(core) => format!(
                "<toolnorm.Normalizer {dialect}, {} lines, {} parts>",
                stream.lines,
                core.parts().len()
            ),
            None => format!(
                "<toolnorm.Normalizer {dialect}, {} lines, ended>",
                stream.lines
            ),
        }
    }
}
