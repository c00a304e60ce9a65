//! The `toolnorm` object a wire's extension slot carries (AG-UI's `metadata.toolnorm`): the
//! contract fields a frame changed that the wire has no field for, and the ones it unset. Built as
//! a diff between what the consumer was shown and the part now; applied in the fold.

use serde_json::{Map, Value};

use crate::model::NormalizedToolPart;

/// The key of the object under a wire's extension slot.
pub const EXT_KEY: &str = "toolnorm";

/// A contract field, as its key in the `toolnorm` object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Field {
    Name,
    Title,
    Kind,
    State,
    Input,
    Output,
    Error,
    Metadata,
    Timing,
}

impl Field {
    fn key(self) -> &'static str {
        match self {
            Field::Name => "name",
            Field::Title => "title",
            Field::Kind => "kind",
            Field::State => "state",
            Field::Input => "input",
            Field::Output => "output",
            Field::Error => "error",
            Field::Metadata => "metadata",
            Field::Timing => "timing",
        }
    }

    /// The field's value on `p`; `None` when the part has none (an absent output, error, ...).
    fn of(self, p: &NormalizedToolPart) -> Option<Value> {
        match self {
            Field::Name => Some(Value::String(p.name.clone())),
            Field::Title => Some(Value::String(p.title.clone())),
            Field::Kind => Some(v(&p.kind)),
            Field::State => Some(v(&p.state)),
            Field::Input => Some(p.input.clone()),
            Field::Output => p.output.clone(),
            Field::Error => p.error.as_ref().map(v),
            Field::Metadata => p.metadata.as_ref().map(v),
            Field::Timing => p.timing.as_ref().map(v),
        }
    }
}

/// A serializable value as JSON (a value that cannot be written is `null`).
pub(crate) fn v<T: serde::Serialize>(x: &T) -> Value {
    serde_json::to_value(x).unwrap_or(Value::Null)
}

/// The `toolnorm` object for `fields` of `after`: those that differ from `before` (all that are
/// present when `before` is `None`), and `unset` naming the ones `after` no longer has.
pub(crate) fn diff(
    before: Option<&NormalizedToolPart>,
    after: &NormalizedToolPart,
    fields: &[Field],
) -> Map<String, Value> {
    let mut out = Map::new();
    let mut unset = Vec::new();
    for &f in fields {
        let now = f.of(after);
        let was = before.and_then(|b| f.of(b));
        match (now, was) {
            (Some(n), Some(w)) if n == w => {}
            (Some(n), _) => {
                out.insert(f.key().to_owned(), n);
            }
            (None, Some(_)) => unset.push(Value::String(f.key().to_owned())),
            (None, None) => {}
        }
    }
    if !unset.is_empty() {
        out.insert("unset".to_owned(), Value::Array(unset));
    }
    out
}

/// Why a `toolnorm` object could not be applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtError {
    pub field: &'static str,
    pub reason: String,
}

impl std::fmt::Display for ExtError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{EXT_KEY}.{}` does not read as the contract's: {}",
            self.field, self.reason
        )
    }
}

fn read<T: serde::de::DeserializeOwned>(field: &'static str, v: &Value) -> Result<T, ExtError> {
    T::deserialize(v).map_err(|e| ExtError {
        field,
        reason: e.to_string(),
    })
}

/// Apply a `toolnorm` object to a part: the fields it sets, then the ones `unset` names. Keys it
/// does not know are left alone (a later version may add some).
pub(crate) fn apply(
    part: &mut NormalizedToolPart,
    ext: &Map<String, Value>,
) -> Result<(), ExtError> {
    for (key, v) in ext {
        match key.as_str() {
            "name" => part.name = read("name", v)?,
            "title" => part.title = read("title", v)?,
            "kind" => part.kind = read("kind", v)?,
            "state" => part.state = read("state", v)?,
            "input" => part.input = v.clone(),
            "output" => part.output = Some(v.clone()),
            "error" => part.error = Some(read("error", v)?),
            "metadata" => part.metadata = Some(read("metadata", v)?),
            "timing" => part.timing = Some(read("timing", v)?),
            _ => {}
        }
    }
    if let Some(unset) = ext.get("unset") {
        for key in read::<Vec<String>>("unset", unset)? {
            match key.as_str() {
                "output" => part.output = None,
                "error" => part.error = None,
                "metadata" => part.metadata = None,
                "timing" => part.timing = None,
                _ => {}
            }
        }
    }
    Ok(())
}
