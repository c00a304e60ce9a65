//! Web searches: the title follows the search's action (a search, an opened page, a find in a
//! page), whatever the dialect's spelling of it.

use serde_json::{Map, Value};

use super::{named, simple_outcome};
use crate::model::{ToolKind, ToolMetadata};
use crate::providers::codex::wire::{ItemType, RawItem, Status};
use crate::providers::{PartUpdate, raw_to_value, titles};

/// The action's tag folded to the app-server spelling.
fn action_type(action: &Value) -> &str {
    match action
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("other")
    {
        "open_page" | "openPage" => "openPage",
        "find_in_page" | "findInPage" => "findInPage",
        "search" => "search",
        _ => "other",
    }
}

/// What an `other` action (Codex 0.150's spelling of an opened page or a find in a page) lost and
/// its `query` still says: a bare URL is a page opened, `'pattern' in URL` a find in that page.
/// `None` when the query holds no URL.
fn page_from_query(query: &str) -> Option<(Option<&str>, &str)> {
    let q = query.trim();
    let is_url = |s: &str| {
        let s = s.trim();
        (s.starts_with("http://") || s.starts_with("https://")) && !s.contains(char::is_whitespace)
    };
    if is_url(q) {
        return Some((None, q));
    }
    let (pattern, url) = q.rsplit_once(" in ")?;
    let pattern = pattern.trim();
    let pattern = pattern
        .strip_prefix('\'')
        .and_then(|p| p.strip_suffix('\''))
        .unwrap_or(pattern);
    (is_url(url) && !pattern.is_empty()).then(|| (Some(pattern), url.trim()))
}

/// An `other` action completed with the page it was about, taken from the query, so the title
/// and `metadata.action` keep the URL; the tag stays what the provider said.
fn fill_other_action(query: Option<&str>, action: Option<Value>) -> Option<Value> {
    let mut action = action?;
    if action_type(&action) != "other" || action.get("url").is_some() {
        return Some(action);
    }
    if let (Some((pattern, url)), Value::Object(a)) = (query.and_then(page_from_query), &mut action)
    {
        a.insert("url".to_owned(), Value::String(url.to_owned()));
        if let Some(p) = pattern {
            a.insert("pattern".to_owned(), Value::String(p.to_owned()));
        }
    }
    Some(action)
}

pub(crate) fn web_search_title(query: Option<&str>, action: Option<&Value>) -> String {
    let get = |k: &str| {
        action
            .and_then(|a| a.get(k))
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
    };
    let query = query.filter(|q| !q.trim().is_empty());
    match action.map(action_type).unwrap_or("other") {
        "search" => {
            let q = get("query")
                .or_else(|| {
                    action
                        .and_then(|a| a.get("queries"))
                        .and_then(Value::as_array)
                        .and_then(|qs| qs.first())
                        .and_then(Value::as_str)
                })
                .or(query)
                .unwrap_or("");
            titles::web_search(q)
        }
        "openPage" => titles::open_page(get("url").or(query).unwrap_or("")),
        "findInPage" => match get("pattern") {
            Some(p) => titles::find_in_page(p, get("url")),
            None => titles::open_page(get("url").unwrap_or("")),
        },
        _ => match (get("pattern"), get("url")) {
            (Some(p), Some(u)) => titles::find_in_page(p, Some(u)),
            (None, Some(u)) => titles::open_page(u),
            _ => titles::web_search(query.unwrap_or("")),
        },
    }
}

pub(crate) fn web_search_update(
    id: &str,
    query: Option<&str>,
    action: Option<Value>,
) -> PartUpdate {
    let action = fill_other_action(query, action);
    let mut u = named(id, ItemType::WebSearch.name(), ToolKind::WebSearch);
    u.title = Some(web_search_title(query, action.as_ref()));
    let mut input = Map::new();
    input.insert(
        "query".to_owned(),
        Value::String(query.unwrap_or("").to_owned()),
    );
    if let Some(Value::Object(a)) = &action {
        for (k, v) in a {
            if k != "type" && !v.is_null() {
                input.insert(k.clone(), v.clone());
            }
        }
    }
    u.input = Some(Value::Object(input));
    if let Some(a) = action {
        u.metadata.get_or_insert_with(ToolMetadata::default).action = Some(a);
    }
    u
}

/// A `webSearch` item.
pub(crate) fn web_search_item(id: &str, item: &RawItem<'_>, outcome: Option<Status>) -> PartUpdate {
    let action = item.action.map(raw_to_value).filter(|a| !a.is_null());
    let mut u = web_search_update(id, item.query.as_deref(), action);
    if let Some(s) = outcome {
        let output = item.results.map(raw_to_value).filter(|v| !v.is_null());
        simple_outcome(&mut u, s, output, "Web search failed");
    }
    u
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn web_search_titles_follow_the_contract() {
        let t = |a: Value| web_search_title(Some(""), Some(&a));
        assert_eq!(
            t(json!({"type":"search","query":"Reuters top news"})),
            "Searching Reuters top news"
        );
        assert_eq!(
            t(json!({"type":"openPage","url":"https://apnews.com/hub/ap-top-news"})),
            "Opening apnews.com"
        );
        assert_eq!(
            t(
                json!({"type":"find_in_page","url":"https://apnews.com/hub/ap-top-news","pattern":"Updated"})
            ),
            "Finding \"Updated\" on apnews.com"
        );
        assert_eq!(t(json!({"type":"other"})), "Searching the web");
    }

    #[test]
    fn an_other_action_keeps_the_url_its_query_holds() {
        // Codex 0.150 `exec --json`: opened pages and finds in a page come back as `other`.
        let u = web_search_update(
            "item_3",
            Some("https://apnews.com/hub/ap-top-news"),
            Some(json!({"type": "other"})),
        );
        assert_eq!(u.title.as_deref(), Some("Opening apnews.com"));
        let action = u.metadata.unwrap().action.unwrap();
        assert_eq!(
            action,
            json!({"type": "other", "url": "https://apnews.com/hub/ap-top-news"})
        );
        let u = web_search_update(
            "item_4",
            Some("'Updated' in https://apnews.com/x"),
            Some(json!({"type": "other"})),
        );
        assert_eq!(
            u.title.as_deref(),
            Some("Finding \"Updated\" on apnews.com")
        );
        assert_eq!(u.input.as_ref().unwrap()["url"], "https://apnews.com/x");
        assert_eq!(u.input.as_ref().unwrap()["pattern"], "Updated");
        // A plain query stays a search, and a started item with an empty query says nothing.
        let u = web_search_update(
            "i",
            Some("rust serde in 2026"),
            Some(json!({"type": "other"})),
        );
        assert_eq!(u.title.as_deref(), Some("Searching rust serde in 2026"));
        assert_eq!(
            u.metadata.unwrap().action.unwrap(),
            json!({"type": "other"})
        );
        let u = web_search_update("i", Some(""), Some(json!({"type": "other"})));
        assert_eq!(u.title.as_deref(), Some("Searching the web"));
    }
}
