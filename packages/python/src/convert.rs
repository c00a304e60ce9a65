//! Rust values to Python objects: the core's serde output, written straight into dicts, lists,
//! strings and numbers by `pythonize` (no JSON text in between).

use pyo3::prelude::*;
use pyo3::types::PyList;
use serde::Serialize;

/// One value as Python objects, exactly as `serde_json` would write it (`json.loads` of the
/// core's JSON gives an equal object).
pub(crate) fn to_python<'py, T: Serialize + ?Sized>(
    py: Python<'py>,
    value: &T,
) -> PyResult<Bound<'py, PyAny>> {
    Ok(pythonize::pythonize(py, value)?)
}

/// A list of values, each as [`to_python`] makes it.
pub(crate) fn list<'py, T: Serialize>(
    py: Python<'py>,
    values: impl IntoIterator<Item = T>,
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for v in values {
        list.append(to_python(py, &v)?)?;
    }
    Ok(list)
}
