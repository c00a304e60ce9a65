// The wire API beyond the corpus (tests/cli/consumers.rs runs the corpus through it and the
// official consumers): its inputs, the TransformStreams' line cutting, the SSE framing, errors.

import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";

import * as esm from "@toolnorm/core";

const { AgUiEventStream, ToolnormError, UIMessageChunkStream, WireStream, normalize, toAgUiEvents, toUIMessageChunks } =
  esm;

const started = JSON.stringify({
  type: "item.started",
  item: { id: "i1", type: "command_execution", command: "ls", aggregated_output: "", exit_code: null, status: "in_progress" },
});
const completed = JSON.stringify({
  type: "item.completed",
  item: { id: "i1", type: "command_execution", command: "ls", aggregated_output: "a\n", exit_code: 0, status: "completed" },
});
const stream = `${started}\n${completed}\n`;

async function through(transform, chunks) {
  const source = new ReadableStream({
    start(c) {
      for (const x of chunks) c.enqueue(x);
      c.close();
    },
  });
  const out = [];
  for await (const x of source.pipeThrough(transform)) out.push(x);
  return out;
}

test("a whole stream, its lines and its document give the same frames", () => {
  const chunks = toUIMessageChunks(stream);
  assert.deepEqual(
    chunks.map((c) => c.type),
    ["start", "tool-input-start", "tool-input-available", "tool-output-available", "finish"],
  );
  assert.equal(chunks[1].toolCallId, "i1");
  assert.equal(chunks[1].title, "Running ls");
  assert.deepEqual(toUIMessageChunks(new TextEncoder().encode(stream)), chunks);
  assert.deepEqual(toUIMessageChunks([started, { text: completed, from: "agent" }]), chunks);
  assert.deepEqual(toUIMessageChunks(normalize(stream)), chunks);
  const events = toAgUiEvents(stream);
  assert.equal(events[0].type, "RUN_STARTED");
  assert.equal(events.at(-1).type, "RUN_FINISHED");
  assert.ok(events.some((e) => e.type === "TOOL_CALL_RESULT" && e.toolCallId === "i1"));
});

test("sse: the frames as data lines; the AI SDK's ends with [DONE], AG-UI's with its last event", () => {
  const frame = (f) => `data: ${JSON.stringify(f)}\n\n`;
  assert.equal(toUIMessageChunks(stream, { sse: true }), toUIMessageChunks(stream).map(frame).join("") + "data: [DONE]\n\n");
  assert.equal(toAgUiEvents(stream, { sse: true }), toAgUiEvents(stream).map(frame).join(""));
});

test("the TransformStreams cut lines anywhere, take text or bytes, and end with the stream", async () => {
  const bytes = new TextEncoder().encode(stream.slice(0, -1)); // the last line unterminated
  const pieces = [];
  for (let at = 0; at < bytes.length; at += 5) pieces.push(bytes.slice(at, at + 5));
  const live = await through(new UIMessageChunkStream(), pieces);
  assert.deepEqual(live.at(-1), { type: "finish" });
  assert.deepEqual(
    live.filter((c) => c.toolCallId === "i1").at(-1),
    toUIMessageChunks(stream).filter((c) => c.toolCallId === "i1").at(-1),
  );
  const text = await through(new AgUiEventStream(), [stream.slice(0, 7), stream.slice(7)]);
  assert.equal(text.at(-1).type, "RUN_FINISHED");
  const sse = await through(new WireStream("ag-ui", { sse: true }), [stream]);
  assert.ok(sse.every((b) => b instanceof Uint8Array));
  const body = sse.map((b) => new TextDecoder().decode(b)).join("");
  assert.ok(body.startsWith('data: {"type":"RUN_STARTED"'), body);
  assert.ok(body.endsWith("\n\n"));
});

test("errors: an unknown wire, a stream toolnorm cannot read, a chunk that is not text", async () => {
  assert.throws(() => toUIMessageChunks(stream, { sse: 1 }) && new WireStream("acp"), /a wire is "ai-sdk" or "ag-ui"/);
  assert.throws(() => toAgUiEvents(""), ToolnormError);
  assert.throws(() => toUIMessageChunks(42), TypeError);
  await assert.rejects(through(new UIMessageChunkStream(), []), ToolnormError, "nothing to read");
  await assert.rejects(through(new UIMessageChunkStream(), [{ line: 1 }]), TypeError);
});

test("the CommonJS entry has the same wire API", () => {
  const cjs = createRequire(import.meta.url)("@toolnorm/core");
  assert.deepEqual(cjs.toUIMessageChunks(stream), toUIMessageChunks(stream));
  assert.equal(typeof cjs.UIMessageChunkStream, "function");
});
