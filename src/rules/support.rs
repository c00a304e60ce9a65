//! Small helpers the rules share: where a part's events point in the raw stream, identifier
//! comparison that ignores case and separators, and walking JSON values.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use serde_json::Value;

use crate::model::{NormalizedDocument, PartEvent, ToolState};

/// Positions of each part's events, by part id.
type EventIndex = HashMap<String, Vec<usize>>;

thread_local! {
    /// Positions of each part's events in the document [`check_all`](super::check_all) is
    /// checking on this thread, keyed by the document's address: most rules look up every part's
    /// events, and a scan of all events per part is quadratic on large fixtures.
    static EVENT_INDEX: RefCell<Option<(usize, Rc<EventIndex>)>> =
        const { RefCell::new(None) };
}

/// Index the events of `doc` for the rules run on it next (cleared by [`clear_event_index`]).
pub(crate) fn index_events(doc: &NormalizedDocument) {
    let mut index = EventIndex::new();
    for (i, e) in doc.events.iter().enumerate() {
        index.entry(e.part_id.clone()).or_default().push(i);
    }
    let key = std::ptr::from_ref(doc) as usize;
    EVENT_INDEX.with(|c| *c.borrow_mut() = Some((key, Rc::new(index))));
}

pub(crate) fn clear_event_index() {
    EVENT_INDEX.with(|c| c.borrow_mut().take());
}

/// The events of one part, in stream order.
pub(crate) fn events_of<'d>(
    doc: &'d NormalizedDocument,
    id: &'d str,
) -> impl Iterator<Item = &'d PartEvent> {
    let key = std::ptr::from_ref(doc) as usize;
    let indexed: Option<Vec<usize>> = EVENT_INDEX.with(|c| match &*c.borrow() {
        Some((k, index)) if *k == key => Some(index.get(id).cloned().unwrap_or_default()),
        _ => None,
    });
    let (all, some) = match indexed {
        Some(positions) => (None, Some(positions.into_iter().map(|i| &doc.events[i]))),
        None => (
            Some(doc.events.iter().filter(move |e| e.part_id == id)),
            None,
        ),
    };
    all.into_iter().flatten().chain(some.into_iter().flatten())
}

/// The raw line where the part first appeared.
pub(crate) fn first_line(doc: &NormalizedDocument, id: &str) -> Option<u32> {
    events_of(doc, id).map(|e| e.line).next()
}

/// The raw line where the part first reached a state matching `pred` (where it got that value),
/// falling back to its first line.
pub(crate) fn line_of_state(
    doc: &NormalizedDocument,
    id: &str,
    pred: impl Fn(ToolState) -> bool,
) -> Option<u32> {
    events_of(doc, id)
        .find(|e| pred(e.state))
        .map(|e| e.line)
        .or_else(|| first_line(doc, id))
}

/// An identifier reduced to lowercase alphanumerics, so `web_search`, `webSearch` and `WebSearch`
/// compare equal.
pub(crate) fn ident(s: &str) -> String {
    s.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Every string inside a JSON value (object keys excluded).
pub(crate) fn string_leaves<'v>(v: &'v Value, out: &mut Vec<&'v str>) {
    match v {
        Value::String(s) => out.push(s),
        Value::Array(a) => a.iter().for_each(|x| string_leaves(x, out)),
        Value::Object(m) => m.values().for_each(|x| string_leaves(x, out)),
        _ => {}
    }
}

/// True when `needle` is `hay` or occurs anywhere inside it.
pub(crate) fn contains_value(hay: &Value, needle: &Value) -> bool {
    if hay == needle {
        return true;
    }
    match hay {
        Value::Array(a) => a.iter().any(|x| contains_value(x, needle)),
        Value::Object(m) => m.values().any(|x| contains_value(x, needle)),
        _ => false,
    }
}

/// True when some object inside `hay` has `key` with a value equal to `needle`.
pub(crate) fn contains_entry(hay: &Value, key: &str, needle: &Value) -> bool {
    match hay {
        Value::Object(m) => {
            m.get(key) == Some(needle) || m.values().any(|x| contains_entry(x, key, needle))
        }
        Value::Array(a) => a.iter().any(|x| contains_entry(x, key, needle)),
        _ => false,
    }
}

/// A value shortened for a message: compact JSON, one line, at most `max` characters.
pub(crate) fn clip(v: &Value, max: usize) -> String {
    let text = match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let one_line = text.replace(['\n', '\r'], " ");
    if one_line.chars().count() <= max {
        one_line
    } else {
        let cut: String = one_line.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}
