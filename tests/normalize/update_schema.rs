//! The JSON Schemas the packages' type declarations are generated from hold the real output:
//! every update of every fixture of the corpus (the `--follow --emit parts` line) is valid
//! against `schema_for!(Update)`, and every document against `schema_for!(NormalizedDocument)`.

#![cfg(feature = "schema")]

use toolnorm::{Dialect, NormalizeOptions, NormalizedDocument, Normalizer, Update};

use crate::normalize::samples::load_all;
use crate::normalize::schema_check::Validator;

fn validator(schema: schemars::schema::RootSchema) -> Validator {
    Validator::new(&serde_json::to_value(schema).unwrap())
}

#[test]
fn every_update_and_document_of_the_corpus_is_valid_against_its_schema() {
    let update = validator(schemars::schema_for!(Update));
    let document = validator(schemars::schema_for!(NormalizedDocument));
    let mut kinds = std::collections::BTreeSet::new();
    for s in load_all() {
        let mut n = Normalizer::new(s.options()).unwrap();
        let mut updates: Vec<Update> = Vec::new();
        for line in &s.stream.input().lines {
            updates.extend(n.push(line).unwrap());
        }
        updates.extend(n.finish().unwrap());
        for u in &updates {
            let v = serde_json::to_value(u).unwrap();
            let errs = update.errors(&v);
            assert!(errs.is_empty(), "{}: {errs:?}\n{v}", s.name);
            kinds.insert(v["type"].as_str().unwrap().to_owned());
        }
        let doc = serde_json::to_value(s.normalize()).unwrap();
        let errs = document.errors(&doc);
        assert!(errs.is_empty(), "{}: {errs:?}", s.name);
    }
    // The corpus is clean: a stream with lines that are not the dialect's gives diagnostics.
    let opts = NormalizeOptions {
        dialect: Some(Dialect::CodexExec),
        ..Default::default()
    };
    let mut n = Normalizer::new(opts).unwrap();
    let mut updates: Vec<Update> = n.push_line(b"not json").unwrap().collect();
    updates.extend(n.push_line(b"[1]").unwrap());
    updates.extend(n.finish().unwrap());
    for u in &updates {
        let v = serde_json::to_value(u).unwrap();
        assert!(update.errors(&v).is_empty(), "{v}");
        kinds.insert(v["type"].as_str().unwrap().to_owned());
    }
    assert_eq!(
        kinds.into_iter().collect::<Vec<_>>(),
        ["diagnostic", "dialect", "part", "revised"],
        "every kind of update was checked"
    );
}

#[test]
fn the_update_schema_rejects_what_is_not_an_update() {
    let update = validator(schemars::schema_for!(Update));
    for bad in [
        serde_json::json!({"type": "dialect", "provider": "claude"}),
        serde_json::json!({"type": "part", "created": true, "part": {}}),
        serde_json::json!({"type": "unknown"}),
        serde_json::json!({"provider": "claude", "dialect": "stream-json"}),
    ] {
        assert!(!update.errors(&bad).is_empty(), "{bad} was accepted");
    }
    let good = serde_json::to_value(Update::Dialect(Dialect::CodexExec)).unwrap();
    assert!(update.errors(&good).is_empty());
}
