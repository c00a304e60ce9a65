//! Invariants every provider's normalized output must hold, shared by the normalizer test files.

use toolnorm::{NormalizedDocument, ToolState};

/// Output and error never both; error exactly when the state is `error`; a title on one line, at
/// most 100 characters, not the raw tool name and not JSON; metadata under 4 KiB.
pub fn assert_part_invariants(name: &str, doc: &NormalizedDocument) {
    for p in &doc.parts {
        assert!(
            p.output.is_none() || p.error.is_none(),
            "{name}: {} has output and error",
            p.id
        );
        assert_eq!(
            p.error.is_some(),
            p.state == ToolState::Error,
            "{name}: {} error iff state error",
            p.id
        );
        assert!(
            p.title.chars().count() <= 100 && !p.title.contains('\n'),
            "{name}: title {:?}",
            p.title
        );
        assert_ne!(p.title, p.name, "{name}: title is the raw tool name");
        assert!(
            !p.title.trim_start().starts_with('{'),
            "{name}: raw JSON title {:?}",
            p.title
        );
        let meta = serde_json::to_string(&p.metadata).unwrap();
        assert!(
            meta.len() < 4096,
            "{name}: metadata of {} is {} bytes",
            p.id,
            meta.len()
        );
    }
}
