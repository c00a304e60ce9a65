//! What a struct looks like once serialized, without serializing it: the keys it writes at its
//! top level, in order, and for each whether its value is `null`, a string (blank or not) or
//! anything else. A rule that asks which keys a frame carries needs no `serde_json::Value` built
//! of the frame, nor the bytes of its payloads.

use std::borrow::Cow;
use std::fmt;

use serde::ser::{self, Impossible, Serialize, SerializeStruct, Serializer};

/// A top-level key: a struct's field names are static, a map's keys are made.
pub(crate) type Key = Cow<'static, str>;

/// A top-level value's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    Null,
    /// A string; `true` when it is empty or only whitespace.
    Str {
        blank: bool,
    },
    /// A number, a boolean, an array or an object.
    Other,
}

/// The keys `value` writes at its top level with the shape of each, or `None` when it does not
/// serialize as a struct (or a map of string keys).
pub(crate) fn top_level<T: Serialize + ?Sized>(value: &T) -> Option<Vec<(Key, Shape)>> {
    value.serialize(Fields).ok()
}

/// Why the probe stopped: not an error of the value, only the end of what it looks at.
#[derive(Debug)]
pub(crate) struct Stop;

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not looked at")
    }
}

impl std::error::Error for Stop {}

impl ser::Error for Stop {
    fn custom<M: fmt::Display>(_: M) -> Self {
        Stop
    }
}

/// The top level: a struct (or map) whose fields are collected.
struct Fields;

/// A field's value, reduced to its [`Shape`]: scalars answer at once, and anything with elements
/// is [`Shape::Other`] without a look inside (the probe stops there, see [`Collect`]).
struct Classify;

/// The fields collected so far, and the key of a map entry waiting for its value.
pub(crate) struct Collect {
    fields: Vec<(Key, Shape)>,
    key: Option<Key>,
}

impl Collect {
    fn push<T: Serialize + ?Sized>(&mut self, key: Key, value: &T) {
        // A value with elements stops `Classify` at its first method: anything else.
        let shape = value.serialize(Classify).unwrap_or(Shape::Other);
        self.fields.push((key, shape));
    }
}

impl SerializeStruct for Collect {
    type Ok = Vec<(Key, Shape)>;
    type Error = Stop;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        self.push(Cow::Borrowed(key), value);
        Ok(())
    }

    fn end(self) -> Result<Self::Ok, Stop> {
        Ok(self.fields)
    }
}

impl ser::SerializeMap for Collect {
    type Ok = Vec<(Key, Shape)>;
    type Error = Stop;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Stop> {
        self.key = Some(Cow::Owned(crate::compare::map_key(key).map_err(|_| Stop)?));
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        let key = self.key.take().ok_or(Stop)?;
        self.push(key, value);
        Ok(())
    }

    fn end(self) -> Result<Self::Ok, Stop> {
        Ok(self.fields)
    }
}

/// Defines the methods of a serializer that stop the probe (`Err(Stop)`).
macro_rules! stop {
    ($($name:ident($($arg:ty),*) -> $ret:ty;)*) => {
        $(fn $name(self, $(_: $arg),*) -> Result<$ret, Stop> {
            Err(Stop)
        })*
    };
}

/// Defines scalar methods answering `$shape`.
macro_rules! answer {
    ($shape:expr; $($name:ident($arg:ty);)*) => {
        $(fn $name(self, _: $arg) -> Result<Shape, Stop> {
            Ok($shape)
        })*
    };
}

impl Serializer for Fields {
    type Ok = Vec<(Key, Shape)>;
    type Error = Stop;
    type SerializeSeq = Impossible<Self::Ok, Stop>;
    type SerializeTuple = Impossible<Self::Ok, Stop>;
    type SerializeTupleStruct = Impossible<Self::Ok, Stop>;
    type SerializeTupleVariant = Impossible<Self::Ok, Stop>;
    type SerializeMap = Collect;
    type SerializeStruct = Collect;
    type SerializeStructVariant = Impossible<Self::Ok, Stop>;

    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Collect, Stop> {
        Ok(Collect {
            fields: Vec::with_capacity(len),
            key: None,
        })
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Collect, Stop> {
        Ok(Collect {
            fields: Vec::with_capacity(len.unwrap_or(0)),
            key: None,
        })
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<Self::Ok, Stop> {
        value.serialize(self)
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Self::Ok, Stop> {
        value.serialize(self)
    }

    stop! {
        serialize_bool(bool) -> Self::Ok;
        serialize_i8(i8) -> Self::Ok;
        serialize_i16(i16) -> Self::Ok;
        serialize_i32(i32) -> Self::Ok;
        serialize_i64(i64) -> Self::Ok;
        serialize_u8(u8) -> Self::Ok;
        serialize_u16(u16) -> Self::Ok;
        serialize_u32(u32) -> Self::Ok;
        serialize_u64(u64) -> Self::Ok;
        serialize_f32(f32) -> Self::Ok;
        serialize_f64(f64) -> Self::Ok;
        serialize_char(char) -> Self::Ok;
        serialize_str(&str) -> Self::Ok;
        serialize_bytes(&[u8]) -> Self::Ok;
        serialize_none() -> Self::Ok;
        serialize_unit() -> Self::Ok;
        serialize_unit_struct(&'static str) -> Self::Ok;
        serialize_unit_variant(&'static str, u32, &'static str) -> Self::Ok;
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Self::Ok, Stop> {
        Err(Stop)
    }
}

impl Serializer for Classify {
    type Ok = Shape;
    type Error = Stop;
    type SerializeSeq = Impossible<Shape, Stop>;
    type SerializeTuple = Impossible<Shape, Stop>;
    type SerializeTupleStruct = Impossible<Shape, Stop>;
    type SerializeTupleVariant = Impossible<Shape, Stop>;
    type SerializeMap = Impossible<Shape, Stop>;
    type SerializeStruct = Impossible<Shape, Stop>;
    type SerializeStructVariant = Impossible<Shape, Stop>;

    fn serialize_str(self, v: &str) -> Result<Shape, Stop> {
        Ok(Shape::Str {
            blank: v.trim().is_empty(),
        })
    }

    fn serialize_char(self, v: char) -> Result<Shape, Stop> {
        Ok(Shape::Str {
            blank: v.is_whitespace(),
        })
    }

    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Shape, Stop> {
        self.serialize_str(variant)
    }

    fn serialize_none(self) -> Result<Shape, Stop> {
        Ok(Shape::Null)
    }

    fn serialize_unit(self) -> Result<Shape, Stop> {
        Ok(Shape::Null)
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result<Shape, Stop> {
        Ok(Shape::Null)
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Shape, Stop> {
        value.serialize(self)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<Shape, Stop> {
        value.serialize(self)
    }

    fn serialize_f32(self, v: f32) -> Result<Shape, Stop> {
        // serde_json writes a float that is not finite as `null`.
        Ok(if v.is_finite() {
            Shape::Other
        } else {
            Shape::Null
        })
    }

    fn serialize_f64(self, v: f64) -> Result<Shape, Stop> {
        Ok(if v.is_finite() {
            Shape::Other
        } else {
            Shape::Null
        })
    }

    answer! { Shape::Other;
        serialize_bool(bool);
        serialize_i8(i8);
        serialize_i16(i16);
        serialize_i32(i32);
        serialize_i64(i64);
        serialize_u8(u8);
        serialize_u16(u16);
        serialize_u32(u32);
        serialize_u64(u64);
        serialize_bytes(&[u8]);
    }

    stop! {
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct(&'static str, usize) -> Self::SerializeStruct;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Shape, Stop> {
        Err(Stop)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{Key, Shape, top_level};

    /// The oracle: the same value through `serde_json::to_value`.
    fn via_value(v: &impl serde::Serialize) -> Option<Vec<(Key, Shape)>> {
        let Value::Object(m) = serde_json::to_value(v).ok()? else {
            return None;
        };
        Some(
            m.into_iter()
                .map(|(k, v)| {
                    let shape = match v {
                        Value::Null => Shape::Null,
                        Value::String(s) => Shape::Str {
                            blank: s.trim().is_empty(),
                        },
                        _ => Shape::Other,
                    };
                    (Key::Owned(k), shape)
                })
                .collect(),
        )
    }

    #[test]
    fn the_shapes_are_what_serde_json_writes() {
        use crate::model::{AcpFrame, NormalizedToolPart, ToolError, ToolKind, ToolState};
        let mut part = NormalizedToolPart {
            id: "t1".into(),
            name: " ".into(),
            kind: ToolKind::Bash,
            title: "ls".into(),
            state: ToolState::Error,
            input: json!({"command": "ls"}),
            output: None,
            error: Some(ToolError {
                message: "exit 1".into(),
                code: None,
                details: None,
            }),
            timing: None,
            metadata: None,
        };
        for _ in 0..2 {
            let frame = AcpFrame::from(&part);
            assert_eq!(top_level(&frame), via_value(&frame));
            part.input = Value::Null;
            part.error = None;
            part.output = Some(json!("out"));
        }
        for v in [
            json!({"a": null, "b": "", "c": " x ", "d": [1], "e": {"f": 1}, "g": 1.5, "h": true}),
            json!({}),
        ] {
            assert_eq!(top_level(&v), via_value(&v));
        }
        // Not an object at the top: no fields.
        assert_eq!(top_level(&json!([1, 2])), None);
        assert_eq!(top_level(&json!("s")), None);
        assert_eq!(top_level(&f64::NAN), None);
    }
}
