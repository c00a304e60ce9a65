//! The Gemini API side of the scripted model (`models/<m>:streamGenerateContent?alt=sse`,
//! `:generateContent`, `:countTokens`), as Gemini CLI calls it through `GOOGLE_GEMINI_BASE_URL`.
//!
//! A request's history is `contents` (`role: "user" | "model"`, each with `parts`); the tools are
//! `tools[].functionDeclarations`. Gemini CLI's own side requests carry other tools or none: its
//! `google_web_search` asks the model with `tools: [{googleSearch: {}}]` and reads the answer's
//! `groundingMetadata`, its `web_fetch` with `tools: [{urlContext: {}}]` (a loopback URL is fetched
//! by the CLI itself and handed to the model without tools), and its utility calls (next speaker,
//! loop detection, routing) ask for JSON against a `responseJsonSchema`.

use serde_json::{Value, json};

use super::render::call_id;
use super::{Reply, Script, expand_value, scan_ids};
use crate::scenario::spec::Turn;

/// Answer one Gemini request (pure: the request body in, the body out; SSE when `streamed`).
pub(super) fn respond(body: &Value, script: &Script, streamed: bool) -> Reply {
    let content_type = if streamed {
        "text/event-stream"
    } else {
        "application/json"
    };
    let reply = |label: &str, turn: Option<usize>, body: String| Reply {
        script: label.to_owned(),
        turn,
        content_type,
        body,
    };
    if grounding(body) == Some(Grounding::GoogleSearch) {
        let query = last_user_text(body);
        return reply("web_search", None, google_search(query.trim(), streamed));
    }
    if grounding(body) == Some(Grounding::UrlContext) {
        // `web_fetch`: the model fetches the page (the CLI fetches only when this answer is
        // empty): a scripted page named in the prompt answers with its summary.
        let asked = last_user_text(body);
        let summary = script
            .pages
            .iter()
            .find(|p| p.summary.is_some() && asked.contains(&p.path))
            .and_then(|p| p.summary.clone())
            .unwrap_or_else(|| "The page could not be summarized.".to_owned());
        return reply("page_summary", None, text(&summary, streamed));
    }
    if !has_functions(body) {
        if let Some(answer) = schema_answer(body) {
            return reply("utility", None, text(&answer, streamed));
        }
        let asked = last_user_text(body);
        let summary = script
            .pages
            .iter()
            .find(|p| p.summary.is_some() && p.quoted_in(&asked))
            .and_then(|p| p.summary.clone());
        return match summary {
            Some(s) => reply("page_summary", None, text(&s, streamed)),
            None => reply("title", None, text("Scripted session", streamed)),
        };
    }
    let (user_text, model_turns) = history(body);
    let (label, sid, turns) = match script
        .subagents
        .iter()
        .enumerate()
        .find(|(_, s)| user_text.contains(&s.marker))
    {
        Some((i, s)) => (format!("subagent:{}", s.marker), format!("a{i}"), &s.turns),
        None => ("main".to_owned(), "m".to_owned(), &script.turns),
    };
    let mut max_scripted = None::<usize>;
    scan_ids(
        body.get("contents").unwrap_or(&Value::Null),
        &mut max_scripted,
    );
    let index = max_scripted.map_or(model_turns, |t| t + 1);
    let done = Turn {
        text: Some("Done.".into()),
        tools: vec![],
    };
    let mut turn = turns.get(index).unwrap_or(&done).clone();
    for call in &mut turn.tools {
        call.input = expand_value(script, &call.input);
    }
    let out = if streamed {
        stream(&turn, &sid, index)
    } else {
        whole(&turn, &sid, index)
    };
    reply(&label, (index < turns.len()).then_some(index), out)
}

/// Which Gemini method a path names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Method {
    Stream,
    Generate,
    CountTokens,
}

/// `/v1beta/models/<model>:<method>` (any API version).
pub(super) fn method(path: &str) -> Option<Method> {
    let (head, method) = path.rsplit_once(':')?;
    if !head.contains("/models/") {
        return None;
    }
    match method {
        "streamGenerateContent" => Some(Method::Stream),
        "generateContent" => Some(Method::Generate),
        "countTokens" => Some(Method::CountTokens),
        _ => None,
    }
}

/// Which built-in Gemini tool a request without function declarations offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Grounding {
    GoogleSearch,
    UrlContext,
}

pub(super) fn grounding(body: &Value) -> Option<Grounding> {
    let tools = body.get("tools").and_then(Value::as_array)?;
    tools.iter().find_map(|t| {
        if t.get("googleSearch").is_some() || t.get("google_search").is_some() {
            Some(Grounding::GoogleSearch)
        } else if t.get("urlContext").is_some() || t.get("url_context").is_some() {
            Some(Grounding::UrlContext)
        } else {
            None
        }
    })
}

/// Whether a request declares functions the model may call.
pub(super) fn has_functions(body: &Value) -> bool {
    body.get("tools")
        .and_then(Value::as_array)
        .is_some_and(|t| {
            t.iter().any(|x| {
                x.get("functionDeclarations")
                    .and_then(Value::as_array)
                    .is_some_and(|d| !d.is_empty())
            })
        })
}

/// The JSON schema a utility request asks the answer to follow, if any.
fn response_schema(body: &Value) -> Option<&Value> {
    let cfg = body.get("generationConfig")?;
    cfg.get("responseJsonSchema")
        .or_else(|| cfg.get("responseSchema"))
}

/// The answer to a utility request that asks for JSON: the next speaker is the user, the router
/// keeps the model it has, no loop is found; otherwise an object with each required property
/// given an empty value of its type.
pub(super) fn schema_answer(body: &Value) -> Option<String> {
    let schema = response_schema(body)?;
    let props = schema.get("properties").and_then(Value::as_object);
    let mut out = serde_json::Map::new();
    for (k, p) in props.into_iter().flatten() {
        let v = match k.as_str() {
            "next_speaker" => json!("user"),
            "reasoning" => json!("The scripted model has finished its turn."),
            "model_choice" => json!("flash"),
            "complexity_score" => json!(10),
            "unproductive_state_confidence" => json!(0.0),
            "unproductive_state_analysis" => json!("No loop."),
            _ => match p.get("type").and_then(Value::as_str).map(str::to_lowercase) {
                Some(t) if t == "string" => json!(""),
                Some(t) if t == "number" || t == "integer" => json!(0),
                Some(t) if t == "boolean" => json!(false),
                Some(t) if t == "array" => json!([]),
                _ => json!({}),
            },
        };
        out.insert(k.clone(), v);
    }
    Some(Value::Object(out).to_string())
}

fn usage() -> Value {
    json!({"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 120})
}

const MODEL: &str = "scripted-model";

/// One response chunk holding `parts`, the last one with its finish reason and usage.
fn chunk(sid: &str, index: usize, parts: Vec<Value>, last: bool) -> Value {
    let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
    let mut c = json!({"candidates": [], "modelVersion": MODEL, "responseId": format!("resp_{sid}_turn{index}")});
    if last {
        candidate["finishReason"] = json!("STOP");
        c["usageMetadata"] = usage();
    }
    c["candidates"] = json!([candidate]);
    c
}

/// The parts of one scripted turn: its text in pieces, then one `functionCall` per call with a
/// minted id (Gemini CLI takes a call's `id` as its call id and sends it back in the
/// `functionResponse`).
fn turn_parts(turn: &Turn, sid: &str, index: usize) -> Vec<Vec<Value>> {
    let mut chunks = Vec::new();
    if let Some(text) = &turn.text {
        for p in super::render::pieces(text, 24) {
            chunks.push(vec![json!({"text": p})]);
        }
    }
    for (n, call) in turn.tools.iter().enumerate() {
        chunks.push(vec![json!({"functionCall": {
            "id": call_id("call", sid, index, n),
            "name": call.name,
            "args": call.input,
        }})]);
    }
    if chunks.is_empty() {
        chunks.push(vec![json!({"text": ""})]);
    }
    chunks
}

/// A scripted turn as the `streamGenerateContent?alt=sse` body.
pub(super) fn stream(turn: &Turn, sid: &str, index: usize) -> String {
    let chunks = turn_parts(turn, sid, index);
    let last = chunks.len() - 1;
    let mut out = String::new();
    for (i, parts) in chunks.into_iter().enumerate() {
        out.push_str("data: ");
        out.push_str(&chunk(sid, index, parts, i == last).to_string());
        out.push_str("\r\n\r\n");
    }
    out
}

/// A scripted turn as one `generateContent` response.
pub(super) fn whole(turn: &Turn, sid: &str, index: usize) -> String {
    let mut parts = Vec::new();
    if let Some(text) = &turn.text {
        parts.push(json!({"text": text}));
    }
    for chunk in turn_parts(
        &Turn {
            text: None,
            tools: turn.tools.clone(),
        },
        sid,
        index,
    ) {
        parts.extend(
            chunk
                .into_iter()
                .filter(|p| p.get("functionCall").is_some()),
        );
    }
    if parts.is_empty() {
        parts.push(json!({"text": ""}));
    }
    chunk(sid, index, parts, true).to_string()
}

/// The answer to `google_web_search`'s grounded request: a short text with two sources, cited
/// through `groundingSupports`.
pub(super) fn google_search(query: &str, streamed: bool) -> String {
    let text = format!("Top results for {query}: Example News and a world headlines page.");
    let end = text.len();
    let mut c = chunk("web_search", 0, vec![json!({"text": text})], true);
    c["candidates"][0]["groundingMetadata"] = json!({
        "webSearchQueries": [query],
        "groundingChunks": [
            {"web": {"uri": "https://news.example.org/top", "title": "news.example.org"}},
            {"web": {"uri": "https://wire.example.com/world", "title": "wire.example.com"}}
        ],
        "groundingSupports": [
            {"segment": {"startIndex": 0, "endIndex": end, "text": text}, "groundingChunkIndices": [0, 1]}
        ]
    });
    if streamed {
        format!("data: {c}\r\n\r\n")
    } else {
        c.to_string()
    }
}

/// A plain-text answer (a page summary, a title, a JSON utility answer).
pub(super) fn text(text: &str, streamed: bool) -> String {
    let turn = Turn {
        text: Some(text.to_owned()),
        tools: vec![],
    };
    if streamed {
        stream(&turn, "x", 0)
    } else {
        whole(&turn, "x", 0)
    }
}

/// The user text of a `contents` history before the first model turn, and the count of model
/// turns but for answers the CLI seeded itself: what a request without scripted ids has played.
pub(super) fn history(body: &Value) -> (String, usize) {
    let mut user_text = String::new();
    let mut model_turns = 0;
    let mut played = 0;
    for c in body
        .get("contents")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let parts = c.get("parts").and_then(Value::as_array);
        if c.get("role").and_then(Value::as_str) == Some("model") {
            model_turns += 1;
            let seeded = parts.is_some_and(|p| {
                p.iter().any(|x| {
                    x.get("text")
                        .and_then(Value::as_str)
                        .is_some_and(|t| super::SEEDED_ANSWERS.contains(&t.trim()))
                })
            });
            if !seeded {
                played += 1;
            }
            continue;
        }
        if model_turns == 0 {
            for p in c
                .get("parts")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(t) = p.get("text").and_then(Value::as_str) {
                    user_text.push_str(t);
                    user_text.push('\n');
                }
            }
        }
    }
    (user_text, played)
}

/// The text of the last user content (a grounded request's query).
pub(super) fn last_user_text(body: &Value) -> String {
    body.get("contents")
        .and_then(Value::as_array)
        .and_then(|c| {
            c.iter()
                .rev()
                .find(|c| c.get("role").and_then(Value::as_str) != Some("model"))
        })
        .and_then(|c| c.get("parts").and_then(Value::as_array))
        .map(|parts| {
            parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::spec::ToolCall;

    #[test]
    fn paths_name_their_method() {
        assert_eq!(
            method("/v1beta/models/gemini-2.5-flash:streamGenerateContent"),
            Some(Method::Stream)
        );
        assert_eq!(
            method("/v1/models/x:generateContent"),
            Some(Method::Generate)
        );
        assert_eq!(
            method("/v1beta/models/x:countTokens"),
            Some(Method::CountTokens)
        );
        assert_eq!(method("/v1/chat/completions"), None);
        assert_eq!(method("/v1beta/files:upload"), None);
    }

    #[test]
    fn a_turn_streams_text_then_calls_and_ends_with_stop() {
        let turn = Turn {
            text: Some("Listing.".into()),
            tools: vec![ToolCall {
                name: "list_directory".into(),
                input: json!({"dir_path": "."}),
                kind: Default::default(),
                namespace: None,
            }],
        };
        let body = stream(&turn, "m", 2);
        let chunks: Vec<Value> = body
            .split("\r\n\r\n")
            .filter_map(|c| c.strip_prefix("data: "))
            .map(|c| serde_json::from_str(c).unwrap())
            .collect();
        assert_eq!(chunks.len(), 2);
        assert_eq!(
            chunks[0]["candidates"][0]["content"]["parts"][0]["text"],
            "Listing."
        );
        let call = &chunks[1]["candidates"][0]["content"]["parts"][0]["functionCall"];
        assert_eq!(call["id"], "call_m_tn2c0");
        assert_eq!(call["args"]["dir_path"], ".");
        assert_eq!(chunks[1]["candidates"][0]["finishReason"], "STOP");
        assert!(chunks[0]["candidates"][0].get("finishReason").is_none());
        let one: Value = serde_json::from_str(&whole(&turn, "m", 2)).unwrap();
        assert_eq!(
            one["candidates"][0]["content"]["parts"][1]["functionCall"]["name"],
            "list_directory"
        );
    }

    #[test]
    fn utility_requests_get_json_of_their_schema() {
        let body = json!({"generationConfig": {"responseMimeType": "application/json", "responseJsonSchema": {
            "type": "object", "properties": {"reasoning": {"type": "string"}, "next_speaker": {"type": "string"}, "n": {"type": "integer"}}}}});
        let v: Value = serde_json::from_str(&schema_answer(&body).unwrap()).unwrap();
        assert_eq!(v["next_speaker"], "user");
        assert_eq!(v["n"], 0);
        assert_eq!(schema_answer(&json!({"contents": []})), None);
    }

    #[test]
    fn a_history_counts_model_turns_and_keeps_the_first_user_text() {
        let body = json!({"contents": [
            {"role": "user", "parts": [{"text": "SUB-MARK: look"}]},
            {"role": "model", "parts": [{"functionCall": {"id": "call_a0_tn0c0", "name": "ls", "args": {}}}]},
            {"role": "user", "parts": [{"functionResponse": {"id": "call_a0_tn0c0", "name": "ls", "response": {}}}]}
        ]});
        let (text, turns) = history(&body);
        assert_eq!(turns, 1);
        assert!(text.contains("SUB-MARK"));
        assert!(
            grounding(&json!({"tools": [{"googleSearch": {}}]})) == Some(Grounding::GoogleSearch)
        );
        assert!(!has_functions(&json!({"tools": [{"googleSearch": {}}]})));
    }
}
