//! TN010 in the dialects of Kilo, droid and Copilot CLI: their raw scans see a call wherever the
//! dialect's lines hold it (an OpenCode part, a droid `tool_call` line or a session's
//! Anthropic-style `tool_use` block, a Copilot tool request or start), so a normalizer that drops
//! one is caught.

use std::path::Path;

use super::{RuleContext, by_code, scan};
use crate::stream::{Dialect, Provider};

/// Every live fixture of the three providers, normalized, then stripped of its parts: TN010
/// reports each call the fixture makes as lost, and none while the parts are there.
#[test]
fn every_call_of_the_new_dialects_is_seen_by_the_raw_scan() {
    let rule = by_code("TN010").expect("TN010 is registered");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut seen = std::collections::BTreeSet::new();
    for provider in [Provider::Kilo, Provider::Droid, Provider::Copilot] {
        let dir = root.join(provider.as_str());
        for entry in std::fs::read_dir(&dir).expect("the provider's corpus folder") {
            let path = entry.unwrap().path();
            let stream = crate::corpus::load_stream(&path).unwrap();
            let dialect = Dialect::parse(stream.dialect.as_deref().unwrap(), Some(provider))
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let input = stream.input();
            let opts = crate::providers::NormalizeOptions {
                dialect: Some(dialect),
                cwd: stream.cwd.as_deref(),
                ..Default::default()
            };
            let mut doc = crate::normalizer::normalize(&input, opts).unwrap();
            let raw = scan(&input, dialect);
            let name = path.display();
            let clean = rule.check(&RuleContext::new(dialect, &input, &doc, &raw));
            assert!(clean.is_empty(), "{name}: {clean:?}");
            let calls = doc.parts.len();
            if calls == 0 {
                continue;
            }
            doc.parts.clear();
            doc.events.clear();
            let lost = rule.check(&RuleContext::new(dialect, &input, &doc, &raw));
            assert_eq!(lost.len(), calls, "{name}: {lost:?}");
            assert!(lost.iter().all(|f| f.line.is_some()), "{name}: {lost:?}");
            seen.insert(dialect.as_str().to_owned() + "/" + provider.as_str());
        }
    }
    let seen: Vec<String> = seen.into_iter().collect();
    assert_eq!(
        seen,
        [
            "events/kilo",
            "export/kilo",
            "json/copilot",
            "run/kilo",
            "session/copilot",
            "session/droid",
            "stream-json/droid"
        ]
    );
}
