//! Canonical JSON written straight from any `Serialize` value, without building a
//! `serde_json::Value` first: the same bytes as `canonical_json(&serde_json::to_value(x)?)`, for a
//! fraction of the allocations (a normalized document's output strings are written, not copied
//! into a tree and freed again).
//!
//! A struct whose fields are not declared in key order (a document, a part) is written one field
//! per pass, in key order: a first pass learns its field names without serializing any value,
//! then each pass writes only its own field's value, so every byte is written once, where it
//! stays. Any other object (a map kept in insertion order, a struct with a flattened map) is
//! written as its entries come and put in order once it is complete, by moving its entries' bytes,
//! which a nested object's move never has to repeat for its parent's sake more than once per
//! level. A key given twice keeps its last value, as a `Value` map does.

use std::borrow::Cow;

use serde::ser::{self, Serialize};
use serde_json::{Error, Value};

use passes::write_value;

mod passes;

/// The canonical form of `value`: keys sorted, two-space pretty printing, a trailing newline
/// (see [`super::canonical_json`]).
pub fn canonical_of<T: Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    let mut w = Writer {
        out: Vec::with_capacity(4096),
        depth: 0,
        entries: Vec::new(),
        scratch: Vec::new(),
    };
    write_value(&mut w, value)?;
    w.out.push(b'\n');
    // Only serde_json's (UTF-8) output, valid UTF-8 keys and ASCII punctuation went in; checked
    // all the same, by simdutf8 (many bytes at a time, where std's check is a word at a time).
    if simdutf8::basic::from_utf8(&w.out).is_err() {
        return Ok(String::from_utf8_lossy(&w.out).into_owned());
    }
    // SAFETY: the bytes were just checked to be UTF-8.
    Ok(unsafe { String::from_utf8_unchecked(w.out) })
}

struct Writer {
    out: Vec<u8>,
    depth: usize,
    /// The entries of the objects being written, innermost last (see [`Map`]).
    entries: Vec<(Key, std::ops::Range<usize>)>,
    /// An object's bytes while its entries are put in order.
    scratch: Vec<u8>,
}

/// An object's key: a struct's field names are static, a map's keys are made.
type Key = Cow<'static, str>;

impl Writer {
    fn indent(&mut self, depth: usize) {
        indent(&mut self.out, depth);
    }

    /// An object entry's start, up to its value: `{` before the first, `,` before any other,
    /// then `indent "key": `.
    fn entry_head(&mut self, first: bool, key: &str) {
        self.out
            .extend_from_slice(if first { b"{\n" } else { b",\n" });
        self.indent(self.depth + 1);
        write_str(&mut self.out, key);
        self.out.extend_from_slice(b": ");
    }

    /// Write `v` one level deeper than the writer stands.
    fn nested<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        let depth = self.depth;
        self.depth = depth + 1;
        let r = write_value(self, v);
        self.depth = depth;
        r
    }

    /// An object's end, after its last entry.
    fn end_object(&mut self) {
        self.out.push(b'\n');
        self.indent(self.depth);
        self.out.push(b'}');
    }
}

/// Scalar methods that write the value exactly as a `Value` made of it prints: serde_json's own
/// conversion decides (a float that is not finite is `null`, an `f32` is widened as it widens
/// it, a 128-bit number it cannot hold is refused).
macro_rules! as_value {
    ($($name:ident($t:ty);)*) => {
        $(fn $name(self, v: $t) -> Result<(), Error> {
            let v = ser::Serializer::$name(serde_json::value::Serializer, v)?;
            write_scalar(&mut self.out, &v);
            Ok(())
        })*
    };
}

/// An array being written: `[` goes out with the first element, `[]` when there is none.
pub struct Seq<'a> {
    w: &'a mut Writer,
    empty: bool,
}

impl Seq<'_> {
    fn element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        self.w
            .out
            .extend_from_slice(if self.empty { b"[\n" } else { b",\n" });
        self.empty = false;
        self.w.indent(self.w.depth + 1);
        self.w.nested(v)
    }

    fn close(self) {
        if self.empty {
            self.w.out.extend_from_slice(b"[]");
        } else {
            self.w.out.push(b'\n');
            self.w.indent(self.w.depth);
            self.w.out.push(b']');
        }
    }
}

/// An object being written: its entries as they came (key, and the bytes of `indent "key": value`
/// in the output, on the writer's stack of entries), put in order at the end if they did not come
/// in order.
pub struct Map<'a> {
    w: &'a mut Writer,
    /// Where the first entry starts (after `{\n`).
    start: usize,
    /// Where this object's entries start on `w.entries` (a nested object's come and go above).
    base: usize,
    /// Keys came strictly increasing so far: nothing to move.
    ordered: bool,
    /// A map's key, given before its value.
    key: Option<Key>,
}

impl<'a> Map<'a> {
    fn new(w: &'a mut Writer) -> Self {
        Map {
            start: 0,
            base: w.entries.len(),
            w,
            ordered: true,
            key: None,
        }
    }

    fn entry<T: Serialize + ?Sized>(&mut self, key: Key, v: &T) -> Result<(), Error> {
        let first = self.w.entries.len() == self.base;
        // The entry's bytes start after its separator: `{` for the first, `,` for any other.
        let from = self.w.out.len() + 2;
        if first {
            self.start = from;
        }
        self.w.entry_head(first, &key);
        self.w.nested(v)?;
        if self.w.entries.len() > self.base
            && let Some((last, _)) = self.w.entries.last()
        {
            self.ordered &= *last < key;
        }
        let to = self.w.out.len();
        self.w.entries.push((key, from..to));
        Ok(())
    }

    fn close(self) {
        let Map {
            w,
            start,
            base,
            ordered,
            ..
        } = self;
        if w.entries.len() == base {
            w.out.extend_from_slice(b"{}");
            return;
        }
        if !ordered {
            let entries = &mut w.entries[base..];
            // Stable: of a key given twice, the last one is kept.
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            w.scratch.clear();
            w.scratch.extend_from_slice(&w.out[start..]);
            w.out.truncate(start);
            let mut first = true;
            for (i, (key, range)) in entries.iter().enumerate() {
                if entries.get(i + 1).is_some_and(|(next, _)| next == key) {
                    continue;
                }
                if !first {
                    w.out.extend_from_slice(b",\n");
                }
                first = false;
                w.out
                    .extend_from_slice(&w.scratch[range.start - start..range.end - start]);
            }
        }
        w.entries.truncate(base);
        w.end_object();
    }
}

impl<'a> ser::Serializer for &'a mut Writer {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Seq<'a>;
    type SerializeTuple = Seq<'a>;
    type SerializeTupleStruct = Seq<'a>;
    type SerializeTupleVariant =
        Variant<'a, <serde_json::value::Serializer as ser::Serializer>::SerializeTupleVariant>;
    type SerializeMap = Map<'a>;
    type SerializeStruct = Map<'a>;
    type SerializeStructVariant =
        Variant<'a, <serde_json::value::Serializer as ser::Serializer>::SerializeStructVariant>;

    as_value! {
        serialize_bool(bool);
        serialize_i8(i8);
        serialize_i16(i16);
        serialize_i32(i32);
        serialize_i64(i64);
        serialize_i128(i128);
        serialize_u8(u8);
        serialize_u16(u16);
        serialize_u32(u32);
        serialize_u64(u64);
        serialize_u128(u128);
        serialize_f32(f32);
        serialize_f64(f64);
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        let mut buf = [0u8; 4];
        write_str(&mut self.out, v.encode_utf8(&mut buf));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        write_str(&mut self.out, v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        let mut seq = Seq {
            w: self,
            empty: true,
        };
        for b in v {
            seq.element(b)?;
        }
        seq.close();
        Ok(())
    }
    fn serialize_none(self) -> Result<(), Error> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), Error> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
        self.serialize_none()
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        let mut map = Map::new(self);
        map.entry(Cow::Borrowed(variant), v)?;
        map.close();
        Ok(())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Seq<'a>, Error> {
        Ok(Seq {
            w: self,
            empty: true,
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq<'a>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Seq<'a>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Ok(Variant {
            w: self,
            inner: serde_json::value::Serializer
                .serialize_tuple_variant(name, index, variant, len)?,
        })
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Map<'a>, Error> {
        Ok(Map::new(self))
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Map<'a>, Error> {
        Ok(Map::new(self))
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Ok(Variant {
            w: self,
            inner: serde_json::value::Serializer
                .serialize_struct_variant(name, index, variant, len)?,
        })
    }
}

/// The three kinds of sequence serde has, all written as an array.
macro_rules! seq_impl {
    ($($trait:ident::$method:ident),*) => {
        $(impl ser::$trait for Seq<'_> {
            type Ok = ();
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
                self.element(v)
            }
            fn end(self) -> Result<(), Error> {
                self.close();
                Ok(())
            }
        })*
    };
}

seq_impl!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field
);

impl ser::SerializeMap for Map<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.key = Some(Cow::Owned(map_key(key)?));
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        let key = self
            .key
            .take()
            .ok_or_else(|| ser::Error::custom("a map value without its key"))?;
        self.entry(key, v)
    }
    fn end(self) -> Result<(), Error> {
        self.close();
        Ok(())
    }
}

impl ser::SerializeStruct for Map<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        self.entry(Cow::Borrowed(key), v)
    }
    fn end(self) -> Result<(), Error> {
        self.close();
        Ok(())
    }
}

/// The rare enum variants with several fields: built as a `Value` by serde_json, then written.
pub struct Variant<'a, S> {
    w: &'a mut Writer,
    inner: S,
}

impl<S: ser::SerializeTupleVariant<Ok = Value, Error = Error>> ser::SerializeTupleVariant
    for Variant<'_, S>
{
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        self.inner.serialize_field(v)
    }
    fn end(self) -> Result<(), Error> {
        self.inner.end()?.serialize(self.w)
    }
}

impl<S: ser::SerializeStructVariant<Ok = Value, Error = Error>> ser::SerializeStructVariant
    for Variant<'_, S>
{
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        self.inner.serialize_field(key, v)
    }
    fn end(self) -> Result<(), Error> {
        self.inner.end()?.serialize(self.w)
    }
}

/// A map key as the text a `Value` map would hold it under, or serde_json's error for a key it
/// refuses. A key that serde_json makes a string (nearly every one) is taken as it is; any other
/// is spelt by serde_json's own map-key rules, as the key of a one-entry `Value` map.
pub(crate) fn map_key<T: Serialize + ?Sized>(key: &T) -> Result<String, Error> {
    if let Value::String(k) = key.serialize(serde_json::value::Serializer)? {
        return Ok(k);
    }
    let mut m = ser::Serializer::serialize_map(serde_json::value::Serializer, Some(1))?;
    ser::SerializeMap::serialize_entry(&mut m, key, &())?;
    match ser::SerializeMap::end(m)? {
        Value::Object(obj) => obj
            .into_iter()
            .next()
            .map(|(k, _)| k)
            .ok_or_else(key_must_be_a_string),
        _ => Err(key_must_be_a_string()),
    }
}

fn key_must_be_a_string() -> Error {
    ser::Error::custom("key must be a string")
}

/// serde_json's own escaping, straight into the buffer (writing to a `Vec` cannot fail).
fn write_scalar(out: &mut Vec<u8>, v: &(impl serde::Serialize + ?Sized)) {
    let _ = serde_json::to_writer(&mut *out, v);
}

/// A string as serde_json writes it, escaped sixteen bytes at a time (most of an output's bytes
/// are in its strings: commands, file contents, tool outputs).
fn write_str(out: &mut Vec<u8>, v: &str) {
    let (end, _) = crate::stream::json_escape::escape_json_string_at(out, out.len(), v.as_bytes());
    out.truncate(end);
}

fn indent(out: &mut Vec<u8>, depth: usize) {
    for _ in 0..depth {
        out.extend_from_slice(b"  ");
    }
}

/// Any JSON scalar, strings with escapes and control characters among them: the leaves of the
/// property tests that hold a JSON writer or reader to serde_json.
#[cfg(test)]
pub(crate) fn json_leaf() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        "(?s)\\PC{0,12}|[\"\\\\\\x00-\\x1f]{0,4}".prop_map(Value::from),
    ]
}

#[cfg(test)]
mod tests;
