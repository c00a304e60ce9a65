//! TN009: metadata stays small: no raw blobs, no copy of the output.

use serde_json::Value;

use super::{Finding, RuleContext, declare_rule};

/// Serialized metadata must stay under this many bytes.
const MAX_METADATA_BYTES: usize = 4096;
/// Outputs shorter than this may legitimately repeat in metadata (an exit code, "ok").
const MIN_COPY_BYTES: usize = 32;
/// Keys that only ever hold a whole provider event or item.
const RAW_BLOB_KEYS: &[&str] = &[
    "raw", "rawEvent", "rawItem", "rawPart", "event", "item", "part", "payload", "message",
    "block", "state",
];

declare_rule! {
    /// ## What it checks
    /// A part's `metadata` serializes to less than 4 KiB, no metadata value is a copy of the
    /// part's `output` (or error details), and no metadata key holds a raw provider event or item
    /// (`raw`, `event`, `item`, `part`, `payload`, `message`, `block`, `state` objects).
    ///
    /// ## Why
    /// Contract rule 9: avoid persisting giant raw provider blobs in metadata; raw fixtures live
    /// in the recorder. Parts are stored and sent to the UI on every update, so a copied output
    /// doubles the size of every long command, and a raw item couples the UI to provider shapes
    /// the contract exists to hide.
    ///
    /// ## Example
    /// Violation: `metadata: {"item": {"type":"commandExecution", ...whole item...}}` or
    /// `metadata: {"stdout": "<same 20 KB as output>"}`.
    /// Conforming: `metadata: {"providerType":"commandExecution","exitCode":0}`.
    pub(crate) struct OversizedMetadata {
        code: "TN009",
        summary: "metadata is under 4 KiB, holds no raw event blobs and no copy of the output",
        check: check,
    }
}

/// `serde_json::to_string(v).len() >= n`, without writing more than `n` bytes anywhere: a whole
/// command output is not serialized only to be measured.
fn serializes_to_at_least(v: &Value, n: usize) -> bool {
    struct Count(usize, usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            if self.0 >= self.1 {
                // Stop the serializer: the answer is known.
                return Err(std::io::Error::other("long enough"));
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0, n);
    serde_json::to_writer(&mut count, v).is_err() || count.0 >= n
}

fn copies(v: &Value, payload: &Value) -> bool {
    v == payload || v.as_str().is_some_and(|s| payload.as_str() == Some(s))
}

fn check(cx: &RuleContext<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for part in &cx.doc.parts {
        let Some(meta) = &part.metadata else { continue };
        let Ok(Value::Object(map)) = serde_json::to_value(meta) else {
            continue;
        };
        let line = cx.first_event_line(&part.id);
        let size = serde_json::to_string(&map).map_or(0, |s| s.len());
        if size >= MAX_METADATA_BYTES {
            out.push(Finding::new(
                line,
                Some(&part.id),
                format!("metadata is {size} bytes serialized (limit {MAX_METADATA_BYTES})"),
            ));
        }
        let payloads: Vec<&Value> = part
            .output
            .iter()
            .chain(part.error.as_ref().and_then(|e| e.details.as_ref()))
            .filter(|p| serializes_to_at_least(p, MIN_COPY_BYTES))
            .collect();
        // Keys in sorted order, whether or not serde_json keeps insertion order.
        let mut keys: Vec<(&String, &Value)> = map.iter().collect();
        keys.sort_by_key(|(k, _)| *k);
        for (key, value) in keys {
            if payloads.iter().any(|p| copies(value, p)) {
                out.push(Finding::new(
                    line,
                    Some(&part.id),
                    format!("metadata.{key} is a copy of the output"),
                ));
            } else if value.is_object() && RAW_BLOB_KEYS.contains(&key.as_str()) {
                out.push(Finding::new(
                    line,
                    Some(&part.id),
                    format!("metadata.{key} holds a raw provider object"),
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn measures_against_the_serialized_length() {
        for v in [
            json!("x".repeat(29)),
            json!("x".repeat(30)),
            json!("x".repeat(31)),
            json!({"a": [1, 2, "xyzzy"], "b": null}),
            json!(12345),
        ] {
            let len = v.to_string().len();
            for n in [0, 1, len - 1, len, len + 1, 32] {
                assert_eq!(serializes_to_at_least(&v, n), len >= n, "{v} against {n}");
            }
        }
    }
}
