//! Canonical JSON written straight from any `Serialize` value, without building a
//! `serde_json::Value` first: the same bytes as `canonical_json(&serde_json::to_value(x)?)`, for a
//! fraction of the allocations (a normalized document's output strings are written, not copied
//! into a tree and freed again).
//!
//! Objects are written as their entries come; an object whose keys did not come in order (a
//! struct's fields, a map kept in insertion order) is put in order once it is complete, by moving
//! its entries' bytes, which a nested object's move never has to repeat for its parent's sake
//! more than once per level. A key given twice keeps its last value, as a `Value` map does.

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
    value.serialize(&mut w)?;
    w.out.push(b'\n');
    // Only serde_json's (UTF-8) output, valid UTF-8 keys and ASCII punctuation went in.
    Ok(String::from_utf8(w.out)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
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
        let r = v.serialize(&mut *self.w);
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
        let r = v.serialize(&mut *self.w);
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
}
