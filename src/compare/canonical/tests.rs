//! The canonical writer held to serde_json's `Value` and its canonical form.

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
                "f39", "f38", "f37", "f36", "f35", "f34", "f33", "f32", "f31", "f30", "f29", "f28",
                "f27", "f26", "f25", "f24", "f23", "f22", "f21", "f20", "f19", "f18", "f17", "f16",
                "f15", "f14", "f13", "f12", "f11", "f10", "f09", "f08", "f07", "f06", "f05", "f04",
                "f03", "f02", "f01", "f00",
            ];
            let mut st = s.serialize_struct("Wide", NAMES.len())?;
            for (i, name) in NAMES.iter().enumerate() {
                st.serialize_field(name, &i)?;
            }
            st.end()
        }
    }
    const { assert!(40 > super::passes::MAX_PASS_FIELDS) };
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
