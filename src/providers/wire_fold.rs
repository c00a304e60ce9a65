//! The normalizer of a UI wire's recorded traffic (the `ai-sdk` and `ag-ui` dialects): each line
//! (JSON, or an SSE `data:` line) is read as a frame of the wire, folded with the wire's own fold
//! (`crate::model::wire`), and the call it is about goes into the store as the fold has it. What
//! the wire's schema or its consumer rejects is a warning naming the line; the rest goes on.

use serde_json::Value;

use crate::model::wire::WireFold;
use crate::providers::{LineNormalizer, PartStore, PartUpdate, line_text, sse_payload};
use crate::stream::RawLine;

/// The per-line normalizer of a wire whose fold is `F`.
#[derive(Default)]
pub(crate) struct WireNormalizer<F: WireFold> {
    fold: F,
}

impl<F: WireFold> LineNormalizer for WireNormalizer<F> {
    fn line(&mut self, line: &RawLine<'_>, store: &mut PartStore) {
        let n = line.number;
        let Some(text) = line_text(line, store) else {
            return;
        };
        let Some(json) = sse_payload(&text) else {
            return;
        };
        let json = json.trim();
        if json.is_empty() || json == "[DONE]" {
            return;
        }
        let value: Value = match serde_json::from_str(json) {
            Ok(v) => v,
            Err(e) => {
                store.warn(n, format!("not JSON: {e}"));
                return;
            }
        };
        let frame = match F::read(&value) {
            Ok(Some(f)) => f,
            Ok(None) => return,
            Err(e) => {
                store.warn(n, format!("rejected by the wire's schema: {e}"));
                return;
            }
        };
        if let Err(e) = self.fold.fold(&frame) {
            store.warn(n, e);
            return;
        }
        let Some(p) = F::call_of(&frame).and_then(|id| self.fold.part(id)) else {
            return;
        };
        store.upsert(
            n,
            PartUpdate {
                id: p.id.clone(),
                name: Some(p.name.clone()),
                kind: Some(p.kind),
                title: Some(p.title.clone()),
                input: Some(p.input.clone()),
                output: p.output.clone(),
                error: p.error.clone(),
                state: Some(p.state),
                timing: p.timing.clone(),
                metadata: p.metadata.clone(),
            },
        );
    }

    fn finish(&mut self, _: &mut PartStore) {}
}
