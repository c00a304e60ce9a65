//! The JSON Patch operations Vibe's app server sends on a history entry
//! (`history/entryUpdated`'s `patch`, `JsonPatchOperation` in `vibe/app_server/models.py`):
//! RFC 6902's `add`, `replace`, `remove` and `test` on a JSON Pointer (RFC 6901) `path`, and
//! Vibe's own `append` (a string's continuation: the text at `path` followed by `value`,
//! `vibe/app_server/_patch.py`). The server expands `move` and `copy` into `remove` and `add`
//! before it sends a patch, so they are not read. A patch applies whole or not at all: the first
//! operation that does not apply is the error, and the value is left as it was.

use serde_json::Value;

/// Apply `ops` (a patch: a list of operations) to `doc`; `Err` says which operation did not
/// apply and why, `doc` then unchanged.
pub(crate) fn apply(doc: &mut Value, ops: &[Value]) -> Result<(), String> {
    let mut patched = doc.clone();
    for (i, op) in ops.iter().enumerate() {
        one(&mut patched, op).map_err(|why| format!("operation {i}: {why}"))?;
    }
    *doc = patched;
    Ok(())
}

/// An array index token: digits, no leading zero.
fn index(token: &str) -> Option<usize> {
    let canonical = token == "0" || !token.starts_with('0');
    (canonical && !token.is_empty() && token.bytes().all(|b| b.is_ascii_digit()))
        .then(|| token.parse().ok())
        .flatten()
}

/// The value the JSON Pointer `path` names under `doc` (serde_json reads the pointer).
fn at_mut<'a>(doc: &'a mut Value, path: &str) -> Result<&'a mut Value, String> {
    doc.pointer_mut(path).ok_or_else(|| names_nothing(path))
}

/// The error of an operation whose `path` names nothing.
fn names_nothing(path: &str) -> String {
    format!("the path `{path}` names nothing")
}

/// Apply one operation.
fn one(doc: &mut Value, op: &Value) -> Result<(), String> {
    let name = op
        .get("op")
        .and_then(Value::as_str)
        .ok_or("an operation without an `op`")?;
    let path = op
        .get("path")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("`{name}` without a path"))?;
    if !path.is_empty() && !path.starts_with('/') {
        return Err(format!("the path `{path}` does not start with `/`"));
    }
    // `value` may be left out (Vibe's model defaults it to null).
    let value = || op.get("value").cloned().unwrap_or(Value::Null);
    match name {
        "replace" => {
            *at_mut(doc, path)? = value();
            Ok(())
        }
        "test" => {
            if *at_mut(doc, path)? == value() {
                Ok(())
            } else {
                Err(format!("`test` of `{path}` failed"))
            }
        }
        "append" => {
            let target = at_mut(doc, path)?;
            match (target, op.get("value")) {
                (Value::String(s), Some(Value::String(more))) => {
                    s.push_str(more);
                    Ok(())
                }
                _ => Err(format!("`append` to `{path}` needs two strings")),
            }
        }
        "add" | "remove" => {
            let Some((parent, last)) = path.rsplit_once('/') else {
                // The whole document.
                return if name == "add" {
                    *doc = value();
                    Ok(())
                } else {
                    Err("`remove` of the whole document".to_owned())
                };
            };
            let last = last.replace("~1", "/").replace("~0", "~");
            match doc.pointer_mut(parent).ok_or_else(|| names_nothing(path))? {
                Value::Object(map) if name == "add" => {
                    map.insert(last, value());
                    Ok(())
                }
                Value::Object(map) => map
                    .remove(&last)
                    .map(drop)
                    .ok_or_else(|| names_nothing(path)),
                Value::Array(items) if name == "add" => {
                    let i = if last == "-" {
                        items.len()
                    } else {
                        index(&last)
                            .filter(|i| *i <= items.len())
                            .ok_or_else(|| format!("the path `{path}` is past the array"))?
                    };
                    items.insert(i, value());
                    Ok(())
                }
                Value::Array(items) => match index(&last).filter(|i| *i < items.len()) {
                    Some(i) => {
                        items.remove(i);
                        Ok(())
                    }
                    None => Err(names_nothing(path)),
                },
                _ => Err(format!(
                    "the path `{path}` is under a value that holds none"
                )),
            }
        }
        other => Err(format!("the operation `{other}` is not one Vibe sends")),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn patched(doc: Value, ops: Value) -> Result<Value, String> {
        let mut doc = doc;
        apply(&mut doc, ops.as_array().unwrap()).map(|()| doc)
    }

    #[test]
    fn the_operations_vibe_sends_apply() {
        let doc = json!({"state": {"status": "running"}, "list": [1, 2], "text": "ab"});
        let got = patched(
            doc,
            json!([
                {"op": "replace", "path": "/state", "value": {"status": "completed", "output": {"a~b/c": 1}}},
                {"op": "test", "path": "/state/output/a~0b~1c", "value": 1},
                {"op": "add", "path": "/list/-", "value": 3},
                {"op": "add", "path": "/list/0", "value": 0},
                {"op": "remove", "path": "/list/1"},
                {"op": "append", "path": "/text", "value": "cd"},
                {"op": "add", "path": "/updatedAt", "value": 5},
                {"op": "remove", "path": "/updatedAt"}
            ]),
        )
        .unwrap();
        assert_eq!(
            got,
            json!({"state": {"status": "completed", "output": {"a~b/c": 1}}, "list": [0, 2, 3], "text": "abcd"})
        );
        assert_eq!(
            patched(json!({}), json!([{"op": "add", "path": "", "value": [1]}])).unwrap(),
            json!([1])
        );
    }

    #[test]
    fn a_patch_that_does_not_apply_leaves_the_value_as_it_was() {
        let doc = json!({"state": {"status": "running"}, "list": [1], "n": 1});
        for (ops, why) in [
            (
                json!([{"op": "replace", "path": "/missing", "value": 1}]),
                "names nothing",
            ),
            (
                json!([{"op": "remove", "path": "/list/5"}]),
                "names nothing",
            ),
            (
                json!([{"op": "add", "path": "/list/7", "value": 1}]),
                "past the array",
            ),
            (
                json!([{"op": "add", "path": "/list/01", "value": 1}]),
                "past the array",
            ),
            (
                json!([{"op": "add", "path": "/n/x", "value": 1}]),
                "holds none",
            ),
            (
                json!([{"op": "append", "path": "/n", "value": "x"}]),
                "two strings",
            ),
            (json!([{"op": "test", "path": "/n", "value": 2}]), "failed"),
            (
                json!([{"op": "move", "path": "/n", "from": "/list"}]),
                "not one Vibe sends",
            ),
            (
                json!([{"op": "replace", "path": "n", "value": 1}]),
                "does not start",
            ),
            (json!([{"path": "/n"}]), "without an `op`"),
            (json!([{"op": "add"}]), "without a path"),
            (json!([{"op": "remove", "path": ""}]), "whole document"),
        ] {
            // The first operation applies; the second does not: neither is kept.
            let mut all = vec![json!({"op": "replace", "path": "/n", "value": 9})];
            all.extend(ops.as_array().unwrap().iter().cloned());
            let mut got = doc.clone();
            let err = apply(&mut got, &all).unwrap_err();
            assert!(err.contains(why) && err.starts_with("operation 1"), "{err}");
            assert_eq!(got, doc);
        }
    }
}
