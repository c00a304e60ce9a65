//! toolnorm's streaming normalizer as a Python extension module, `toolnorm._toolnorm` (re-exported
//! by the `toolnorm` package): [`Normalizer`] takes an agent's stream a line at a time and hands
//! out the updates each line causes, `normalize` takes a whole stream. Both are the library's core
//! (`default-features = false`); every value handed to Python is what the core's serde writes —
//! an update is the line `toolnorm normalize --follow --emit parts` prints, a document what
//! `toolnorm normalize` prints — made into plain dicts and lists by `pythonize`, never a second
//! description of the shapes.

mod convert;
mod normalizer;
mod wires;

use pyo3::create_exception;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString, PyTuple};
use toolnorm::stream::{Direction, RawLine, trim_line};
use toolnorm::{Dialect, Input, NormalizeOptions, Provider};

create_exception!(
    toolnorm,
    NormalizeError,
    PyValueError,
    "The stream cannot be normalized: its dialect cannot be detected (no line in the first 64 looks like any dialect), it is empty, or the dialect given belongs to another provider than the one given. The message says which."
);

/// The core's error as the Python exception, its message the reason.
pub(crate) fn normalize_error(e: toolnorm::dialects::NormalizeError) -> PyErr {
    NormalizeError::new_err(e.to_string())
}

/// The bytes of a line or stream given as `str` (its UTF-8) or `bytes` (as they are), borrowed
/// from the Python object.
pub(crate) fn text_bytes<'a>(text: &'a Bound<'_, PyAny>) -> PyResult<&'a [u8]> {
    if let Ok(s) = text.cast::<PyString>() {
        Ok(s.to_str()?.as_bytes())
    } else if let Ok(b) = text.cast::<PyBytes>() {
        Ok(b.as_bytes())
    } else {
        Err(PyTypeError::new_err(format!(
            "expected str or bytes, got {}",
            type_name(text)
        )))
    }
}

/// The provider and dialect named by their Python arguments.
pub(crate) fn parse_options(
    provider: Option<&str>,
    dialect: Option<&str>,
) -> PyResult<(Option<Provider>, Option<Dialect>)> {
    let provider = provider
        .map(str::parse::<Provider>)
        .transpose()
        .map_err(PyValueError::new_err)?;
    let dialect = dialect
        .map(|d| Dialect::parse(d, provider))
        .transpose()
        .map_err(PyValueError::new_err)?;
    Ok((provider, dialect))
}

/// Normalize a whole stream into the document `toolnorm normalize` prints. `stream` is the text
/// (`str` or `bytes`, its lines separated by `\n`), or its lines (an iterable of `str` or `bytes`
/// lines from the agent, or `(direction, line)` pairs, `direction` being `"agent"` or
/// `"client"`, as a two-way proxy records them; `unterminated=True`: the last line was cut
/// short). A trailing `\r` and a leading BOM on a line are dropped. The dialect is detected
/// unless given (`dialect`, among `provider`'s when given); `cwd` is the agent's working
/// directory for streams that do not say it. Lines that cannot be normalized are the document's
/// diagnostics; a stream whose dialect cannot be told raises `NormalizeError`.
#[pyfunction]
#[pyo3(signature = (stream, provider=None, dialect=None, *, cwd=None, unterminated=false))]
fn normalize<'py>(
    py: Python<'py>,
    stream: &Bound<'py, PyAny>,
    provider: Option<&str>,
    dialect: Option<&str>,
    cwd: Option<&str>,
    unterminated: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let doc = document_of(py, stream, provider, dialect, cwd, unterminated)?;
    convert::to_python(py, &doc)
}

/// The document of a whole stream given as `normalize` takes it.
pub(crate) fn document_of<'py>(
    py: Python<'py>,
    stream: &Bound<'py, PyAny>,
    provider: Option<&str>,
    dialect: Option<&str>,
    cwd: Option<&str>,
    unterminated: bool,
) -> PyResult<toolnorm::NormalizedDocument> {
    let (provider, dialect) = parse_options(provider, dialect)?;
    let opts = NormalizeOptions {
        provider,
        dialect,
        cwd,
    };
    // The lines borrow from the Python objects, which `items` keeps alive.
    let items: Vec<(Direction, Bound<'py, PyAny>)>;
    let input = if stream.is_instance_of::<PyString>() || stream.is_instance_of::<PyBytes>() {
        if unterminated {
            return Err(PyValueError::new_err(
                "unterminated= is for a stream given as lines: a text says itself whether its last line ends with a newline",
            ));
        }
        Input::from_bytes(text_bytes(stream)?)
    } else {
        items = stream
            .try_iter()
            .map_err(|_| {
                PyTypeError::new_err(format!(
                    "expected str, bytes or an iterable of lines, got {}",
                    type_name(stream)
                ))
            })?
            .map(|item| line_item(&item?))
            .collect::<PyResult<_>>()?;
        let last = items.len();
        let lines = items
            .iter()
            .enumerate()
            .map(|(i, (direction, line))| {
                let bytes = text_bytes(line)?;
                Ok(RawLine {
                    number: u32::try_from(i + 1)
                        .map_err(|_| PyValueError::new_err("more lines than a stream may have"))?,
                    bytes: trim_line(bytes.strip_suffix(b"\n").unwrap_or(bytes)),
                    direction: *direction,
                    unterminated: unterminated && i + 1 == last,
                    text: None,
                })
            })
            .collect::<PyResult<Vec<_>>>()?;
        Input::from_lines(&[], lines)
    };
    // The whole stream is normalized without holding the interpreter: other threads run meanwhile.
    py.detach(|| toolnorm::normalize(&input, opts))
        .map_err(normalize_error)
}

/// One item of a stream given as lines: a line from the agent, or a `(direction, line)` pair.
fn line_item<'py>(item: &Bound<'py, PyAny>) -> PyResult<(Direction, Bound<'py, PyAny>)> {
    if let Ok(pair) = item.cast::<PyTuple>() {
        if pair.len() != 2 {
            return Err(PyValueError::new_err(format!(
                "a line given as a tuple is (direction, line), not {} items",
                pair.len()
            )));
        }
        let direction = direction(pair.get_item(0)?.extract::<&str>()?)?;
        return Ok((direction, pair.get_item(1)?));
    }
    Ok((Direction::Agent, item.clone()))
}

/// A line's direction named in Python: `"agent"` or `"client"`.
pub(crate) fn direction(name: &str) -> PyResult<Direction> {
    match name {
        "agent" => Ok(Direction::Agent),
        "client" => Ok(Direction::Client),
        other => Err(PyValueError::new_err(format!(
            "direction must be \"agent\" or \"client\", not {other:?}"
        ))),
    }
}

fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map_or_else(|_| "an object".to_owned(), |n| n.to_string())
}

#[pymodule]
mod _toolnorm {
    #[pymodule_export]
    use super::NormalizeError;
    #[pymodule_export]
    use super::normalize;
    #[pymodule_export]
    use crate::normalizer::Normalizer;
    #[pymodule_export]
    use crate::wires::{WireEmitter, to_ag_ui, to_ai_sdk};

    use pyo3::prelude::*;

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("__version__", env!("CARGO_PKG_VERSION"))
    }
}
