//! JSON Schema validation for the tests that hold output to a schema (the ACP frames, the
//! update and document schemas), through `boon`: drafts 4 to 2020-12, checked against the
//! JSON-Schema-Test-Suite, and a fifth of the build of the validator these tests used before.

use boon::{Compiler, SchemaIndex, Schemas};
use serde_json::Value;

/// Where the schema under test is registered; it names no file.
const URL: &str = "http://toolnorm.invalid/schema.json";

pub struct Validator {
    schemas: Schemas,
    index: SchemaIndex,
}

impl Validator {
    /// A validator for `schema` itself.
    pub fn new(schema: &Value) -> Validator {
        Validator::at(schema, "")
    }

    /// A validator for the subschema of `schema` at the JSON pointer `pointer`
    /// (`/$defs/SessionNotification`); `""` is the whole schema.
    pub fn at(schema: &Value, pointer: &str) -> Validator {
        let mut compiler = Compiler::new();
        compiler
            .add_resource(URL, schema.clone())
            .expect("the schema is registered");
        let mut schemas = Schemas::new();
        let location = if pointer.is_empty() {
            URL.to_owned()
        } else {
            format!("{URL}#{pointer}")
        };
        let index = compiler
            .compile(&location, &mut schemas)
            .unwrap_or_else(|e| panic!("the schema compiles at {location:?}: {e}"));
        Validator { schemas, index }
    }

    /// Why `instance` is not valid (at most five reasons, each with where it is); empty when it is.
    pub fn errors(&self, instance: &Value) -> Vec<String> {
        match self.schemas.validate(instance, self.index) {
            Ok(()) => Vec::new(),
            Err(e) => {
                let mut out = Vec::new();
                leaves(&e, &mut out);
                out.truncate(5);
                out
            }
        }
    }
}

/// The innermost reasons of an error tree: where the instance is wrong, not which branch of an
/// `anyOf` was tried.
fn leaves(e: &boon::ValidationError<'_, '_>, out: &mut Vec<String>) {
    if e.causes.is_empty() {
        out.push(format!("{} at {}", e.kind, e.instance_location));
    }
    for c in &e.causes {
        leaves(c, out);
    }
}

#[test]
fn a_value_the_schema_refuses_has_reasons_and_one_it_admits_has_none() {
    let schema = serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": {"N": {"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}},
        "$ref": "#/$defs/N",
    });
    for v in [Validator::new(&schema), Validator::at(&schema, "/$defs/N")] {
        assert_eq!(v.errors(&serde_json::json!({"n": 1})), Vec::<String>::new());
        let errs = v.errors(&serde_json::json!({"n": "one"}));
        assert!(errs.iter().any(|e| e.contains("/n")), "{errs:?}");
        assert!(!v.errors(&serde_json::json!({})).is_empty());
    }
}
