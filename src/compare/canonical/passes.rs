//! A struct whose fields are not declared in key order, written one field per pass (see the
//! [parent module](super)): a first pass of its `serialize` learns its field names without
//! serializing any value, then one pass per field, in key order, writes only that field's value.

use serde::ser::{self, Serialize};
use serde_json::Error;

use super::Writer;

/// Write `v` at the writer's depth: a struct whose fields do not come in key order one field per
/// pass, anything else as it comes.
pub(super) fn write_value<T: Serialize + ?Sized>(w: &mut Writer, v: &T) -> Result<(), Error> {
    match v.serialize(Pass(FieldNames)) {
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
    for (i, key) in keys.iter().enumerate() {
        w.entry_head(i == 0, key);
        let found = v.serialize(Pass(OneField {
            w: &mut *w,
            key,
            found: false,
        }))?;
        if !found {
            return Err(ser::Error::custom(format!(
                "a struct gave no field `{key}` on a second pass"
            )));
        }
    }
    w.end_object();
    Ok(())
}

/// Most fields a struct written one field per pass may give (a struct with more is written by
/// moving its entries, as a map is).
pub(super) const MAX_PASS_FIELDS: usize = 32;

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

/// What the first pass answers for anything that is not a struct (or an option or newtype of
/// one).
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

/// What one pass does with the struct it meets: [`Pass`] opens it with [`StructPass::open`].
trait StructPass {
    type Struct: ser::SerializeStruct;
    fn open(self) -> Self::Struct;
}

/// The first pass: the field names, no value serialized.
struct FieldNames;

impl StructPass for FieldNames {
    type Struct = Fields;
    fn open(self) -> Fields {
        Fields {
            names: [""; MAX_PASS_FIELDS],
            len: 0,
        }
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

/// The pass for one field: writes that field's value and nothing else; answers whether the field
/// was there.
struct OneField<'a> {
    w: &'a mut Writer,
    key: &'static str,
    found: bool,
}

impl<'a> StructPass for OneField<'a> {
    type Struct = Self;
    fn open(self) -> Self {
        self
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
            self.w.nested(v)?;
            self.found = true;
        }
        Ok(())
    }
    fn end(self) -> Result<bool, Error> {
        Ok(self.found)
    }
}

/// The serializer of one pass over a struct: an option or newtype is looked through, the struct
/// is opened by `P`, anything else is refused at once (in the first pass, what is not a struct;
/// in a later one, a struct that has become something else).
struct Pass<P>(P);

/// What a pass refuses: all but a struct, an option and a newtype.
fn refused<E: ser::Error>() -> E {
    E::custom("a struct serialized as something else on a second pass")
}

/// Serializer methods that refuse what a struct's passes never meet.
macro_rules! refuse {
    ($($name:ident($($t:ty),*) -> $out:ident;)*) => {
        $(fn $name(self, $(_: $t),*) -> Result<Self::$out, Self::Error> {
            Err(refused())
        })*
    };
}

type Refused<P> = ser::Impossible<
    <<P as StructPass>::Struct as ser::SerializeStruct>::Ok,
    <<P as StructPass>::Struct as ser::SerializeStruct>::Error,
>;

impl<P: StructPass> ser::Serializer for Pass<P> {
    type Ok = <P::Struct as ser::SerializeStruct>::Ok;
    type Error = <P::Struct as ser::SerializeStruct>::Error;
    type SerializeSeq = Refused<P>;
    type SerializeTuple = Refused<P>;
    type SerializeTupleStruct = Refused<P>;
    type SerializeTupleVariant = Refused<P>;
    type SerializeMap = Refused<P>;
    type SerializeStruct = P::Struct;
    type SerializeStructVariant = Refused<P>;

    refuse! {
        serialize_bool(bool) -> Ok; serialize_i8(i8) -> Ok; serialize_i16(i16) -> Ok;
        serialize_i32(i32) -> Ok; serialize_i64(i64) -> Ok; serialize_i128(i128) -> Ok;
        serialize_u8(u8) -> Ok; serialize_u16(u16) -> Ok; serialize_u32(u32) -> Ok;
        serialize_u64(u64) -> Ok; serialize_u128(u128) -> Ok; serialize_f32(f32) -> Ok;
        serialize_f64(f64) -> Ok; serialize_char(char) -> Ok; serialize_str(&str) -> Ok;
        serialize_bytes(&[u8]) -> Ok; serialize_none() -> Ok; serialize_unit() -> Ok;
        serialize_unit_struct(&'static str) -> Ok;
        serialize_unit_variant(&'static str, u32, &'static str) -> Ok;
        serialize_seq(Option<usize>) -> SerializeSeq;
        serialize_tuple(usize) -> SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> SerializeTupleVariant;
        serialize_map(Option<usize>) -> SerializeMap;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> SerializeStructVariant;
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Self::Ok, Self::Error> {
        Err(refused())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<Self::Ok, Self::Error> {
        v.serialize(self)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<Self::Ok, Self::Error> {
        v.serialize(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<P::Struct, Self::Error> {
        Ok(self.0.open())
    }
}
