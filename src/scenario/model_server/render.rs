//! The wire side of the scripted model: one scripted turn rendered as the streaming body of the
//! Anthropic Messages, OpenAI Responses or OpenAI Chat Completions API (SSE events with text and
//! tool-argument deltas, ids minted so that [`super::scripted_turn`] can read the turn back).
//! Gemini's own wire is in `gemini.rs`, which shares the ids and the streaming pieces from here.

use serde_json::{Value, json};

use crate::scenario::spec::{CallKind, ToolCall, Turn};

pub(super) fn call_id(prefix: &str, sid: &str, turn: usize, n: usize) -> String {
    format!("{prefix}_{sid}_tn{turn}c{n}")
}

/// Split text into streaming pieces on char boundaries.
pub(super) fn pieces(s: &str, size: usize) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    if chars.is_empty() {
        return vec![String::new()];
    }
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

/// Split tool arguments into streaming pieces, never inside an expanded placeholder value: a
/// scratch path cut across two deltas could not be redacted by the recorder.
pub(super) fn arg_pieces(s: &str, size: usize, protect: &[String]) -> Vec<String> {
    let mut ranges = Vec::new();
    for v in protect.iter().filter(|v| !v.is_empty()) {
        ranges.extend(s.match_indices(v.as_str()).map(|(i, m)| (i, i + m.len())));
    }
    let mut out = Vec::new();
    let mut start = 0;
    while start < s.len() {
        let mut end = (start + size).min(s.len());
        while !s.is_char_boundary(end) {
            end += 1;
        }
        while let Some(&(_, b)) = ranges.iter().find(|&&(a, b)| a < end && end < b) {
            end = b;
        }
        out.push(s[start..end].to_owned());
        start = end;
    }
    if out.is_empty() {
        out.push(String::new());
    }
    out
}

fn sse(out: &mut String, event: &str, data: &Value) {
    out.push_str("event: ");
    out.push_str(event);
    out.push_str("\ndata: ");
    out.push_str(&data.to_string());
    out.push_str("\n\n");
}

fn args_json(call: &ToolCall) -> String {
    match &call.input {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    }
}

const MODEL: &str = "scripted-model";

pub(super) fn anthropic(turn: &Turn, sid: &str, index: usize, protect: &[String]) -> String {
    let mut out = String::new();
    let msg_id = format!("msg_{sid}_turn{index}");
    sse(
        &mut out,
        "message_start",
        &json!({"type": "message_start", "message": {"id": msg_id, "type": "message", "role": "assistant",
            "model": MODEL, "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 100, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}}),
    );
    let mut block = 0;
    if let Some(text) = &turn.text {
        sse(
            &mut out,
            "content_block_start",
            &json!({"type": "content_block_start", "index": block, "content_block": {"type": "text", "text": ""}}),
        );
        for p in pieces(text, 24) {
            sse(
                &mut out,
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": block, "delta": {"type": "text_delta", "text": p}}),
            );
        }
        sse(
            &mut out,
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": block}),
        );
        block += 1;
    }
    for (n, call) in turn.tools.iter().enumerate() {
        let id = call_id("toolu", sid, index, n);
        sse(
            &mut out,
            "content_block_start",
            &json!({"type": "content_block_start", "index": block, "content_block": {"type": "tool_use", "id": id, "name": call.name, "input": {}}}),
        );
        for p in arg_pieces(&args_json(call), 40, protect) {
            sse(
                &mut out,
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": block, "delta": {"type": "input_json_delta", "partial_json": p}}),
            );
        }
        sse(
            &mut out,
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": block}),
        );
        block += 1;
    }
    let stop = if turn.tools.is_empty() {
        "end_turn"
    } else {
        "tool_use"
    };
    sse(
        &mut out,
        "message_delta",
        &json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 20}}),
    );
    sse(&mut out, "message_stop", &json!({"type": "message_stop"}));
    out
}

/// The answer to Claude Code's inner web-search request: a server tool use, its results, a summary.
pub(super) fn anthropic_web_search(query: &str) -> String {
    let mut out = String::new();
    sse(
        &mut out,
        "message_start",
        &json!({"type": "message_start", "message": {"id": "msg_web_search", "type": "message", "role": "assistant",
            "model": MODEL, "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 50, "output_tokens": 1}}}),
    );
    let input = json!({"query": query}).to_string();
    sse(
        &mut out,
        "content_block_start",
        &json!({"type": "content_block_start", "index": 0,
        "content_block": {"type": "server_tool_use", "id": "srvtoolu_scripted_1", "name": "web_search", "input": {}}}),
    );
    sse(
        &mut out,
        "content_block_delta",
        &json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": input}}),
    );
    sse(
        &mut out,
        "content_block_stop",
        &json!({"type": "content_block_stop", "index": 0}),
    );
    let results = json!([
        {"type": "web_search_result", "title": format!("{query} - Example News"), "url": "https://news.example.org/top", "encrypted_content": "c2NyaXB0ZWQ=", "page_age": "1 hour ago"},
        {"type": "web_search_result", "title": "Updated: world headlines", "url": "https://wire.example.com/world", "encrypted_content": "c2NyaXB0ZWQ=", "page_age": "2 hours ago"}
    ]);
    sse(
        &mut out,
        "content_block_start",
        &json!({"type": "content_block_start", "index": 1,
        "content_block": {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_scripted_1", "content": results}}),
    );
    sse(
        &mut out,
        "content_block_stop",
        &json!({"type": "content_block_stop", "index": 1}),
    );
    sse(
        &mut out,
        "content_block_start",
        &json!({"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": ""}}),
    );
    sse(
        &mut out,
        "content_block_delta",
        &json!({"type": "content_block_delta", "index": 2,
        "delta": {"type": "text_delta", "text": format!("Top results for {query}: Example News and a world headlines page.")}}),
    );
    sse(
        &mut out,
        "content_block_stop",
        &json!({"type": "content_block_stop", "index": 2}),
    );
    sse(
        &mut out,
        "message_delta",
        &json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null},
        "usage": {"output_tokens": 30, "server_tool_use": {"web_search_requests": 1}}}),
    );
    sse(&mut out, "message_stop", &json!({"type": "message_stop"}));
    out
}

/// A tool call whose payload (function arguments, custom tool input) the Responses API streams:
/// `output_item.added` with the payload field empty, the payload in deltas, its `.done` event, and
/// the completed item (returned).
struct Streamed {
    field: &'static str,
    delta: &'static str,
    done: &'static str,
}

impl Streamed {
    fn emit(
        &self,
        out: &mut String,
        ev: &mut impl FnMut(&mut String, &str, Value),
        oi: usize,
        added: Value,
        payload: String,
        protect: &[String],
    ) -> Value {
        let id = added["id"].clone();
        ev(
            out,
            "response.output_item.added",
            json!({"output_index": oi, "item": added.clone()}),
        );
        for p in arg_pieces(&payload, 40, protect) {
            ev(
                out,
                self.delta,
                json!({"output_index": oi, "item_id": id, "delta": p}),
            );
        }
        let mut done_event = json!({"output_index": oi, "item_id": id});
        done_event[self.field] = json!(payload);
        ev(out, self.done, done_event);
        let mut done = added;
        done[self.field] = json!(payload);
        done["status"] = json!("completed");
        done
    }
}

pub(super) fn responses(turn: &Turn, sid: &str, index: usize, protect: &[String]) -> String {
    let mut out = String::new();
    let resp_id = format!("resp_{sid}_turn{index}");
    let mut seq = 0u64;
    let mut ev = |out: &mut String, ty: &str, mut data: Value| {
        data["type"] = json!(ty);
        data["sequence_number"] = json!(seq);
        seq += 1;
        sse(out, ty, &data);
    };
    ev(
        &mut out,
        "response.created",
        json!({"response": {"id": resp_id, "object": "response", "status": "in_progress", "model": MODEL, "output": []}}),
    );
    let mut output = Vec::new();
    let mut oi = 0usize;
    if let Some(text) = &turn.text {
        let id = format!("msg_{sid}_turn{index}");
        ev(
            &mut out,
            "response.output_item.added",
            json!({"output_index": oi, "item": {"type": "message", "id": id, "role": "assistant", "status": "in_progress", "content": []}}),
        );
        ev(
            &mut out,
            "response.content_part.added",
            json!({"output_index": oi, "item_id": id, "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": []}}),
        );
        for p in pieces(text, 24) {
            ev(
                &mut out,
                "response.output_text.delta",
                json!({"output_index": oi, "item_id": id, "content_index": 0, "delta": p}),
            );
        }
        ev(
            &mut out,
            "response.output_text.done",
            json!({"output_index": oi, "item_id": id, "content_index": 0, "text": text}),
        );
        let item = json!({"type": "message", "id": id, "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": text, "annotations": []}]});
        ev(
            &mut out,
            "response.content_part.done",
            json!({"output_index": oi, "item_id": id, "content_index": 0, "part": item["content"][0].clone()}),
        );
        ev(
            &mut out,
            "response.output_item.done",
            json!({"output_index": oi, "item": item.clone()}),
        );
        output.push(item);
        oi += 1;
    }
    for (n, call) in turn.tools.iter().enumerate() {
        let cid = call_id("call", sid, index, n);
        let item = match call.kind {
            CallKind::Function => {
                let id = call_id("fc", sid, index, n);
                let mut added = json!({"type": "function_call", "id": id, "call_id": cid, "name": call.name, "arguments": "", "status": "in_progress"});
                if let Some(ns) = &call.namespace {
                    added["namespace"] = json!(ns);
                }
                let streamed = Streamed {
                    field: "arguments",
                    delta: "response.function_call_arguments.delta",
                    done: "response.function_call_arguments.done",
                };
                streamed.emit(&mut out, &mut ev, oi, added, args_json(call), protect)
            }
            CallKind::Custom => {
                let id = call_id("ctc", sid, index, n);
                let added = json!({"type": "custom_tool_call", "id": id, "call_id": cid, "name": call.name, "input": "", "status": "in_progress"});
                let streamed = Streamed {
                    field: "input",
                    delta: "response.custom_tool_call_input.delta",
                    done: "response.custom_tool_call_input.done",
                };
                streamed.emit(&mut out, &mut ev, oi, added, args_json(call), protect)
            }
            CallKind::WebSearch => {
                let id = call_id("ws", sid, index, n);
                ev(
                    &mut out,
                    "response.output_item.added",
                    json!({"output_index": oi, "item": {"type": "web_search_call", "id": id, "status": "in_progress"}}),
                );
                ev(
                    &mut out,
                    "response.web_search_call.in_progress",
                    json!({"output_index": oi, "item_id": id}),
                );
                ev(
                    &mut out,
                    "response.web_search_call.searching",
                    json!({"output_index": oi, "item_id": id}),
                );
                ev(
                    &mut out,
                    "response.web_search_call.completed",
                    json!({"output_index": oi, "item_id": id}),
                );
                json!({"type": "web_search_call", "id": id, "status": "completed", "action": call.input})
            }
        };
        ev(
            &mut out,
            "response.output_item.done",
            json!({"output_index": oi, "item": item.clone()}),
        );
        output.push(item);
        oi += 1;
    }
    ev(
        &mut out,
        "response.completed",
        json!({"response": {"id": resp_id, "object": "response", "status": "completed", "model": MODEL, "output": output,
            "usage": {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 20,
                "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 120}}}),
    );
    out
}

/// A scripted turn as one Chat Completions response (`stream` not asked for: OpenHands'
/// LiteLLM calls), with the same ids as the streamed body.
pub(super) fn chat_whole(turn: &Turn, sid: &str, index: usize) -> String {
    let calls: Vec<Value> = turn
        .tools
        .iter()
        .enumerate()
        .map(|(n, call)| {
            json!({"id": call_id("call", sid, index, n), "type": "function",
                "function": {"name": call.name, "arguments": args_json(call)}})
        })
        .collect();
    let mut message =
        json!({"role": "assistant", "content": turn.text.clone().unwrap_or_default()});
    if !calls.is_empty() {
        message["tool_calls"] = Value::Array(calls);
    }
    let finish = if turn.tools.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    json!({"id": format!("chatcmpl_{sid}_turn{index}"), "object": "chat.completion",
        "created": 1_700_000_000, "model": MODEL,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}})
    .to_string()
}

pub(super) fn chat(turn: &Turn, sid: &str, index: usize, protect: &[String]) -> String {
    let mut out = String::new();
    let id = format!("chatcmpl_{sid}_turn{index}");
    let chunk = |delta: Value, finish: Value| {
        json!({"id": id, "object": "chat.completion.chunk", "created": 1_700_000_000, "model": MODEL,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let data = |out: &mut String, v: &Value| {
        out.push_str("data: ");
        out.push_str(&v.to_string());
        out.push_str("\n\n");
    };
    data(
        &mut out,
        &chunk(json!({"role": "assistant", "content": ""}), Value::Null),
    );
    if let Some(text) = &turn.text {
        for p in pieces(text, 24) {
            data(&mut out, &chunk(json!({"content": p}), Value::Null));
        }
    }
    for (n, call) in turn.tools.iter().enumerate() {
        let cid = call_id("call", sid, index, n);
        data(
            &mut out,
            &chunk(
                json!({"tool_calls": [{"index": n, "id": cid, "type": "function", "function": {"name": call.name, "arguments": ""}}]}),
                Value::Null,
            ),
        );
        for p in arg_pieces(&args_json(call), 40, protect) {
            data(
                &mut out,
                &chunk(
                    json!({"tool_calls": [{"index": n, "function": {"arguments": p}}]}),
                    Value::Null,
                ),
            );
        }
    }
    let finish = if turn.tools.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    data(&mut out, &chunk(json!({}), json!(finish)));
    data(
        &mut out,
        &json!({"id": id, "object": "chat.completion.chunk", "created": 1_700_000_000, "model": MODEL, "choices": [],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}),
    );
    out.push_str("data: [DONE]\n\n");
    out
}
