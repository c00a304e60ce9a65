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
        let depth = self.w.depth;
        self.w.indent(depth + 1);
        self.w.depth = depth + 1;
        let r = write_value(self.w, v);
        self.w.depth = depth;
        r
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
        if self.w.entries.len() == self.base {
            self.w.out.extend_from_slice(b"{\n");
            self.start = self.w.out.len();
        } else {
            self.w.out.extend_from_slice(b",\n");
        }
        let from = self.w.out.len();
        let depth = self.w.depth;
        self.w.indent(depth + 1);
        write_str(&mut self.w.out, &key);
        self.w.out.extend_from_slice(b": ");
        self.w.depth = depth + 1;
        let r = write_value(self.w, v);
        self.w.depth = depth;
        r?;
        if self.w.entries.len() > self.base {
            if let Some((last, _)) = self.w.entries.last() {
                self.ordered &= *last < key;
            }
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
        w.out.push(b'\n');
        w.indent(w.depth);
        w.out.push(b'}');
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

/// Write `v` at the writer's depth: a struct whose fields do not come in key order one field per
/// pass (see the module's documentation), anything else as it comes.
fn write_value<T: Serialize + ?Sized>(w: &mut Writer, v: &T) -> Result<(), Error> {
    match v.serialize(FieldNames) {
        Ok(fields) if !fields.in_order() => {
            let mut keys = fields.names;
            let keys = &mut keys[..fields.len];
            keys.sort_unstable();
            if keys.windows(2).any(|k| k[0] == k[1]) {
                // A name given twice: the moving writer keeps the last value, as a map does.
                return v.serialize(w);
            }
            write_in_passes(w, v, keys)
        }
        _ => v.serialize(w),
    }
}

/// Write the struct `v` as an object of the fields `keys` (sorted), one pass of its `serialize`
/// per field.
fn write_in_passes<T: Serialize + ?Sized>(
    w: &mut Writer,
    v: &T,
    keys: &[&'static str],
) -> Result<(), Error> {
    w.out.extend_from_slice(b"{\n");
    let depth = w.depth;
    for (i, key) in keys.iter().enumerate() {
        if i > 0 {
            w.out.extend_from_slice(b",\n");
        }
        w.indent(depth + 1);
        write_str(&mut w.out, key);
        w.out.extend_from_slice(b": ");
        w.depth = depth + 1;
        let found = v.serialize(OneField {
            w: &mut *w,
            key,
            found: false,
        });
        w.depth = depth;
        if !found? {
            return Err(ser::Error::custom(format!(
                "a struct gave no field `{key}` on a second pass"
            )));
        }
    }
    w.out.push(b'\n');
    w.indent(depth);
    w.out.push(b'}');
    Ok(())
}

/// Most fields a struct written one field per pass may give (a struct with more is written by
/// moving its entries, as a map is).
const MAX_PASS_FIELDS: usize = 32;

/// The names of the fields a struct gives (not those it skips), in the order it gives them.
struct Fields {
    names: [&'static str; MAX_PASS_FIELDS],
    len: usize,
}

impl Fields {
    fn in_order(&self) -> bool {
        self.names[..self.len].windows(2).all(|k| k[0] < k[1])
    }
}

/// What [`FieldNames`] answers for anything that is not a struct (or an option or newtype of one).
#[derive(Debug)]
struct NotAStruct;

impl std::fmt::Display for NotAStruct {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not a struct")
    }
}

impl std::error::Error for NotAStruct {}

impl ser::Error for NotAStruct {
    fn custom<M: std::fmt::Display>(_: M) -> Self {
        NotAStruct
    }
}

/// The serializer of a struct's first pass: its field names, no value serialized. Anything but a
/// struct is refused at once.
struct FieldNames;

/// The serializer of a struct's pass for one field: writes that field's value and nothing else;
/// answers whether the field was there.
struct OneField<'a> {
    w: &'a mut Writer,
    key: &'static str,
    found: bool,
}

/// Serializer methods that refuse what a struct's passes never meet.
macro_rules! not_a_struct {
    ($err:expr; $($name:ident($($t:ty),*);)*) => {
        $(fn $name(self, $(_: $t),*) -> Result<Self::Ok, Self::Error> {
            Err($err)
        })*
    };
}

/// The compound types of a pass serializer that meets only a struct.
macro_rules! struct_only {
    ($ok:ty, $err:ty, $st:ty) => {
        type Ok = $ok;
        type Error = $err;
        type SerializeSeq = ser::Impossible<$ok, $err>;
        type SerializeTuple = ser::Impossible<$ok, $err>;
        type SerializeTupleStruct = ser::Impossible<$ok, $err>;
        type SerializeTupleVariant = ser::Impossible<$ok, $err>;
        type SerializeMap = ser::Impossible<$ok, $err>;
        type SerializeStruct = $st;
        type SerializeStructVariant = ser::Impossible<$ok, $err>;
    };
}

/// The methods of a pass serializer for everything but a struct, an option and a newtype.
macro_rules! refuse_all_but_structs {
    ($err:expr) => {
        not_a_struct! { $err;
            serialize_bool(bool); serialize_i8(i8); serialize_i16(i16); serialize_i32(i32);
            serialize_i64(i64); serialize_i128(i128); serialize_u8(u8); serialize_u16(u16);
            serialize_u32(u32); serialize_u64(u64); serialize_u128(u128); serialize_f32(f32);
            serialize_f64(f64); serialize_char(char); serialize_str(&str);
            serialize_bytes(&[u8]); serialize_none(); serialize_unit();
            serialize_unit_struct(&'static str);
            serialize_unit_variant(&'static str, u32, &'static str);
        }
        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<Self::Ok, Self::Error> {
            Err($err)
        }
        fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Self::Error> {
            Err($err)
        }
        fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Self::Error> {
            Err($err)
        }
        fn serialize_tuple_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleStruct, Self::Error> {
            Err($err)
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant, Self::Error> {
            Err($err)
        }
        fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Self::Error> {
            Err($err)
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStructVariant, Self::Error> {
            Err($err)
        }
    };
}

impl ser::Serializer for FieldNames {
    struct_only!(Fields, NotAStruct, Fields);
    refuse_all_but_structs!(NotAStruct);

    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<Fields, NotAStruct> {
        v.serialize(self)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<Fields, NotAStruct> {
        v.serialize(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Fields, NotAStruct> {
        Ok(Fields {
            names: [""; MAX_PASS_FIELDS],
            len: 0,
        })
    }
}

impl ser::SerializeStruct for Fields {
    type Ok = Fields;
    type Error = NotAStruct;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        _: &T,
    ) -> Result<(), NotAStruct> {
        *self.names.get_mut(self.len).ok_or(NotAStruct)? = key;
        self.len += 1;
        Ok(())
    }
    fn end(self) -> Result<Fields, NotAStruct> {
        Ok(self)
    }
}

/// What a struct's pass for one field meets that is not that struct.
fn changed_between_passes() -> Error {
    ser::Error::custom("a struct serialized as something else on a second pass")
}

impl<'a> ser::Serializer for OneField<'a> {
    struct_only!(bool, Error, OneField<'a>);
    refuse_all_but_structs!(changed_between_passes());

    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<bool, Error> {
        v.serialize(self)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<bool, Error> {
        v.serialize(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, Error> {
        Ok(self)
    }
}

impl ser::SerializeStruct for OneField<'_> {
    type Ok = bool;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        if !self.found && key == self.key {
            write_value(self.w, v)?;
            self.found = true;
        }
        Ok(())
    }
    fn end(self) -> Result<bool, Error> {
        Ok(self.found)
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
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;
    use serde::Serialize;
    use serde_json::{Value, json};

    use super::canonical_of;

    /// The oracle: keys put in order in a fresh `Value` (whose map keeps insertion order in this
    /// build), printed by serde_json's pretty printer.
    fn oracle(v: &Value) -> String {
        fn sorted(v: &Value) -> Value {
            match v {
                Value::Object(m) => {
                    let mut keys: Vec<&String> = m.keys().collect();
                    keys.sort();
                    Value::Object(
                        keys.into_iter()
                            .map(|k| (k.clone(), sorted(&m[k])))
                            .collect(),
                    )
                }
                Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
                other => other.clone(),
            }
        }
        serde_json::to_string_pretty(&sorted(v)).unwrap() + "\n"
    }

    /// Through a `Value` (what `verify` did before) and straight, the same bytes.
    fn same_both_ways<T: Serialize>(x: &T) {
        let via_value = oracle(&serde_json::to_value(x).unwrap());
        assert_eq!(canonical_of(x).unwrap(), via_value);
    }

    fn value() -> impl Strategy<Value = Value> {
        super::json_leaf().prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                proptest::collection::vec(("[a-dA-D_\\-é]{0,3}", inner), 0..6)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn any_value_is_written_as_the_oracle_writes_it(v in value()) {
            prop_assert_eq!(canonical_of(&v).unwrap(), oracle(&v));
        }
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Part {
        // Fields out of key order, an optional one skipped, a flattened map whose keys mix with
        // them (one of them also a field's: the map's comes last, so it wins, as in a `Value`).
        zulu: u8,
        #[serde(skip_serializing_if = "Option::is_none")]
        gone: Option<u8>,
        alpha_beta: Option<String>,
        kind: Kind,
        #[serde(flatten)]
        extra: BTreeMap<String, Value>,
    }

    #[derive(Serialize)]
    enum Kind {
        Unit,
        Newtype(f32),
        Tuple(u8, String),
        Struct { b: bool, a: Vec<u8> },
    }

    #[test]
    fn structs_enums_flattened_maps_and_odd_scalars_are_written_as_through_a_value() {
        for kind in [
            Kind::Unit,
            Kind::Newtype(0.1),
            Kind::Newtype(f32::NAN),
            Kind::Tuple(7, "x".into()),
            Kind::Struct { b: true, a: vec![] },
        ] {
            same_both_ways(&Part {
                zulu: 1,
                gone: None,
                alpha_beta: None,
                kind,
                extra: BTreeMap::from([
                    ("m".to_owned(), json!({"y": [1.5, -2, f64::MAX], "x": {}})),
                    ("zulu".to_owned(), json!("last wins")),
                ]),
            });
        }
        // Keys that are not strings, as serde_json spells them; bytes; chars; a u128.
        same_both_ways(&BTreeMap::from([(3u32, 'c'), (12, '"')]));
        same_both_ways(&BTreeMap::from([
            (true, 1u128),
            (false, u128::from(u64::MAX)),
        ]));
        same_both_ways(&(b"ab".as_slice(), (), Some(-1i8), [0.0f64; 2]));
        // A non-string key serde_json refuses is refused too.
        assert!(canonical_of(&BTreeMap::from([(vec![1u8], 1)])).is_err());
        assert!(serde_json::to_value(BTreeMap::from([(vec![1u8], 1)])).is_err());
    }

    #[derive(Serialize)]
    struct Newtype(Part);

    #[derive(Serialize)]
    struct Outer {
        // Out of order, each holding a struct written one field per pass in its own turn.
        zed: Option<Inner>,
        inner: Inner,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        many: Vec<Inner>,
        wrapped: Newtype,
        none: Option<Inner>,
        empty: Empty,
        #[serde(rename = "")]
        blank: u8,
    }

    #[derive(Serialize)]
    struct Inner {
        y: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        x: Option<u8>,
        b: [u8; 2],
    }

    #[derive(Serialize)]
    struct Empty {}

    #[test]
    fn structs_out_of_key_order_written_one_field_per_pass_are_written_as_through_a_value() {
        let inner = |x| Inner {
            y: "why \"quoted\"\n",
            x,
            b: [1, 2],
        };
        let part = || Part {
            zulu: 2,
            gone: Some(1),
            alpha_beta: Some("ab".into()),
            kind: Kind::Struct {
                b: false,
                a: vec![3],
            },
            extra: BTreeMap::new(),
        };
        for many in [vec![], vec![inner(None), inner(Some(4))]] {
            same_both_ways(&Outer {
                zed: Some(inner(Some(9))),
                inner: inner(None),
                many,
                wrapped: Newtype(Part {
                    extra: BTreeMap::from([("k".to_owned(), json!({"b": 1, "a": 2}))]),
                    ..part()
                }),
                none: None,
                empty: Empty {},
                blank: 0,
            });
        }
        same_both_ways(&vec![Some(inner(None)), None]);
        same_both_ways(&Some(Newtype(Part {
            zulu: 0,
            gone: None,
            alpha_beta: None,
            kind: Kind::Unit,
            extra: BTreeMap::new(),
        })));
    }

    /// A struct of 40 fields, named backwards: more than one pass per field may take.
    #[test]
    fn a_struct_of_many_fields_is_written_by_moving_its_entries() {
        struct Wide;
        impl Serialize for Wide {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeStruct;
                const NAMES: [&str; 40] = [
                    "f39", "f38", "f37", "f36", "f35", "f34", "f33", "f32", "f31", "f30", "f29",
                    "f28", "f27", "f26", "f25", "f24", "f23", "f22", "f21", "f20", "f19", "f18",
                    "f17", "f16", "f15", "f14", "f13", "f12", "f11", "f10", "f09", "f08", "f07",
                    "f06", "f05", "f04", "f03", "f02", "f01", "f00",
                ];
                let mut st = s.serialize_struct("Wide", NAMES.len())?;
                for (i, name) in NAMES.iter().enumerate() {
                    st.serialize_field(name, &i)?;
                }
                st.end()
            }
        }
        const { assert!(40 > super::MAX_PASS_FIELDS) };
        same_both_ways(&Wide);
    }

    /// A struct whose `serialize` gives a field twice, or other fields on a later call: the first
    /// is written as a map would be (the last value wins); the second is an error, never a
    /// document with a field missing.
    #[test]
    fn a_struct_that_repeats_or_changes_its_fields_is_never_written_wrong() {
        struct Twice;
        impl Serialize for Twice {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeStruct;
                let mut st = s.serialize_struct("Twice", 3)?;
                st.serialize_field("b", &1)?;
                st.serialize_field("a", &2)?;
                st.serialize_field("b", &3)?;
                st.end()
            }
        }
        same_both_ways(&Twice);
        assert!(canonical_of(&Twice).unwrap().contains("\"b\": 3"));

        struct Fickle(std::cell::Cell<u32>);
        impl Serialize for Fickle {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeStruct;
                let calls = self.0.get();
                self.0.set(calls + 1);
                let mut st = s.serialize_struct("Fickle", 2)?;
                st.serialize_field("b", &1)?;
                st.serialize_field(if calls == 0 { "a" } else { "c" }, &2)?;
                st.end()
            }
        }
        let e = canonical_of(&Fickle(std::cell::Cell::new(0))).unwrap_err();
        assert!(
            e.to_string().contains("no field `a` on a second pass"),
            "{e}"
        );

        struct Shifty(std::cell::Cell<u32>);
        impl Serialize for Shifty {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeStruct;
                let calls = self.0.get();
                self.0.set(calls + 1);
                if calls > 0 {
                    return s.serialize_str("no longer a struct");
                }
                let mut st = s.serialize_struct("Shifty", 2)?;
                st.serialize_field("b", &1)?;
                st.serialize_field("a", &2)?;
                st.end()
            }
        }
        let e = canonical_of(&Shifty(std::cell::Cell::new(0))).unwrap_err();
        assert!(
            e.to_string().contains("as something else on a second pass"),
            "{e}"
        );
    }
}
