// The official consumers of the two UI wires, run over a batch of fixtures in one process:
//
//   node tests/consumers/check.mjs BATCH.jsonl
//
// BATCH.jsonl has one line per fixture:
//   {"fixture": "claude/live-claude-bash", "parts": [NormalizedToolPart...],
//    "aiSdk": {"chunks": [...], "sse": "data: ...\n\n..."},   (toolnorm normalize --emit ai-sdk [--sse])
//    "agUi": {"events": [...], "sse": "data: ...\n\n..."}}     (toolnorm normalize --emit ag-ui [--sse])
//
// AI SDK (`ai`): every chunk passes `uiMessageChunkSchema`; the SSE text, read as the chat
// transport reads a response (`parseJsonEventStream` with that schema), gives the same chunks;
// `readUIMessageStream` rebuilds one tool part per toolnorm part with its toolCallId, toolName,
// title, input and the mapped state.
// AG-UI (`@ag-ui/core`, `@ag-ui/client`): every event passes `EventSchemas`; `verifyEvents`
// accepts the stream; the SSE text, run through `HttpAgent` (its fetch answering with the text),
// rebuilds one tool call per toolnorm part with its id, name and arguments, and a tool message
// for every finished part.
//
// Every rejection is one line on stderr naming the fixture, the wire and the chunk or event
// (its index in the stream and its type); stdout gets one JSON summary. Exit 1 when anything
// was rejected, 2 on a bad batch.

import { createReadStream } from "node:fs";
import { pathToFileURL } from "node:url";
import { createInterface } from "node:readline";
import { isDeepStrictEqual } from "node:util";

import { getToolName, isToolUIPart, parseJsonEventStream, readUIMessageStream, uiMessageChunkSchema } from "ai";
import { EventSchemas } from "@ag-ui/core/schemas";
import { HttpAgent, verifyEvents } from "@ag-ui/client";
import { from, tap } from "rxjs";

// The consumers warn on stderr about what they bridge; the verdicts here are what count.
process.env.SUPPRESS_TRANSFORMATION_WARNINGS = "true";

export const failures = [];
export const counts = { fixtures: 0, parts: 0, aiSdkChunks: 0, aiSdkToolParts: 0, agUiEvents: 0, agUiToolCalls: 0 };

function fail(fixture, wire, where, reason) {
  const line = `${fixture}: ${wire}${where ? ` ${where}` : ""}: ${reason}`;
  failures.push(line);
  process.stderr.write(`REJECTED ${line}\n`);
}

const short = (v) => {
  const s = JSON.stringify(v);
  return s === undefined ? "undefined" : s.length > 160 ? `${s.slice(0, 157)}...` : s;
};

/**
 * A zod error's issues, one line: of a union (a chunk's or an event's type), only the members
 * that have the value's type, which say what it lacks.
 */
function issues(error) {
  const list = error?.issues;
  if (!Array.isArray(list)) return String(error?.message ?? error);
  const flat = list.flatMap((issue) => {
    if (issue.code !== "invalid_union" || !Array.isArray(issue.errors)) return [issue];
    const members = issue.errors.filter((m) => !m.some((i) => i.path?.length === 1 && i.path[0] === "type"));
    return members.length > 0 ? members.flat() : [issue];
  });
  return flat.map((i) => `${i.path?.length ? i.path.join(".") : "(value)"}: ${i.message}`).join("; ");
}

const asJson = (v) => (v === undefined ? v : JSON.parse(JSON.stringify(v)));

const at = (items, i) => `#${i} (${items[i]?.type ?? "?"})`;

// ---------------------------------------------------------------------------------------------
// The mapping the rebuilt parts are held to (docs/ui-wires.md): a part's contract state as the
// AI SDK's tool part state.

/** Error codes of a call the user or a policy refused: shown as `output-denied`. */
const DENIED = new Set(["permission_denied", "declined"]);

function aiSdkState(part) {
  switch (part.state) {
    case "started":
      return "input-streaming";
    case "running":
      // Output streaming in (preliminary), the agent asking permission, or the call running.
      if (part.output !== undefined) return "output-available";
      if (part.metadata?.approvalRequested === true) return "approval-requested";
      return "input-available";
    case "complete":
      return "output-available";
    case "error":
      return DENIED.has(part.error?.code) ? "output-denied" : "output-error";
    default:
      return `(unknown contract state ${part.state})`;
  }
}

// ---------------------------------------------------------------------------------------------
// AI SDK

const chunkSchema = uiMessageChunkSchema();

function streamOf(items) {
  return new ReadableStream({
    start(c) {
      for (const x of items) c.enqueue(x);
      c.close();
    },
  });
}

/** `readUIMessageStream` over the chunks: the last snapshot of each message, and its first error. */
async function rebuildMessages(chunks) {
  const errors = [];
  const messages = new Map();
  try {
    for await (const m of readUIMessageStream({
      stream: streamOf(chunks),
      terminateOnError: true,
      onError: (e) => errors.push(e),
    })) {
      messages.set(m.id, m);
    }
  } catch (e) {
    errors.push(e);
  }
  return { messages: [...messages.values()], error: errors[0] };
}

/** The first chunk whose arrival makes `readUIMessageStream` fail (the stream up to it fails). */
async function firstFailingChunk(chunks) {
  let lo = 1;
  let hi = chunks.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((await rebuildMessages(chunks.slice(0, mid))).error) hi = mid;
    else lo = mid + 1;
  }
  return lo - 1;
}

export async function checkAiSdk(fixture, parts, wire) {
  const W = "ai-sdk";
  const chunks = wire.chunks;
  if (!Array.isArray(chunks)) return fail(fixture, W, "", "no chunks in the batch");
  counts.aiSdkChunks += chunks.length;
  for (const [i, chunk] of chunks.entries()) {
    const r = await chunkSchema.validate(chunk);
    if (!r.success) fail(fixture, W, `chunk ${at(chunks, i)}`, `uiMessageChunkSchema: ${issues(r.error.cause ?? r.error)}`);
  }

  if (typeof wire.sse === "string") {
    const body = new Response(wire.sse).body;
    const read = [];
    for await (const r of parseJsonEventStream({ stream: body, schema: uiMessageChunkSchema })) read.push(r);
    // Compared as JSON: the schema's parse adds the keys it reads as undefined (`output`).
    const bad = read.findIndex((r, i) => !r.success || !isDeepStrictEqual(asJson(r.value), chunks[i]));
    if (bad >= 0) {
      const r = read[bad];
      const why = r.success
        ? `reads as ${short(r.value)}, not ${short(chunks[bad])}`
        : `parseJsonEventStream: ${issues(r.error.cause ?? r.error)}`;
      fail(fixture, `${W} --sse`, `chunk ${at(chunks, bad)}`, why);
    } else if (read.length !== chunks.length) {
      fail(fixture, `${W} --sse`, "", `${read.length} chunks, not ${chunks.length}`);
    }
    if (!/(^|\n)data: \[DONE\]\n\n$/.test(wire.sse)) fail(fixture, `${W} --sse`, "", "does not end with `data: [DONE]`");
  }

  const { messages, error } = await rebuildMessages(chunks);
  if (error) {
    const i = await firstFailingChunk(chunks);
    return fail(fixture, W, `chunk ${at(chunks, i)}`, `readUIMessageStream: ${error.message ?? error}`);
  }
  const rebuilt = new Map();
  for (const m of messages) {
    for (const p of m.parts.filter(isToolUIPart)) {
      if (rebuilt.has(p.toolCallId)) fail(fixture, W, `tool part ${p.toolCallId}`, "rebuilt twice");
      rebuilt.set(p.toolCallId, p);
    }
  }
  counts.aiSdkToolParts += rebuilt.size;
  for (const part of parts) {
    const p = rebuilt.get(part.id);
    if (!p) {
      fail(fixture, W, `part ${part.id}`, "readUIMessageStream rebuilt no tool part for it");
      continue;
    }
    rebuilt.delete(part.id);
    const got = { toolName: getToolName(p), title: p.title, input: p.input, state: p.state };
    const want = { toolName: part.name, title: part.title, input: part.input, state: aiSdkState(part) };
    for (const k of Object.keys(want)) {
      if (!isDeepStrictEqual(got[k], want[k])) {
        fail(fixture, W, `part ${part.id}`, `rebuilt ${k} ${short(got[k])}, the part's is ${short(want[k])}`);
      }
    }
  }
  for (const id of rebuilt.keys()) fail(fixture, W, `tool part ${id}`, "rebuilt, but toolnorm has no such part");
}

// ---------------------------------------------------------------------------------------------
// AG-UI

/** `verifyEvents` over the events: the index of the event it rejected and why, or undefined. */
function verify(events) {
  let last = -1;
  let rejected;
  from(events)
    .pipe(
      tap(() => last++),
      verifyEvents(),
    )
    .subscribe({ error: (e) => (rejected = { index: last, message: e.message ?? String(e) }) });
  return rejected;
}

/** `HttpAgent` reading the SSE text as its endpoint's answer: the messages it rebuilds. */
async function runHttpAgent(sse, runStarted) {
  const agent = new HttpAgent({
    url: "http://127.0.0.1/replay",
    threadId: runStarted?.threadId,
    fetch: async () => new Response(sse, { headers: { "content-type": "text/event-stream" } }),
  });
  const seen = [];
  const quiet = console.error;
  console.error = () => {}; // its "Agent execution failed" log; the error itself is reported
  try {
    await agent.runAgent({ runId: runStarted?.runId }, { onEvent: ({ event }) => void seen.push(event) });
    return { messages: agent.messages, seen };
  } catch (e) {
    return { error: e, seen };
  } finally {
    console.error = quiet;
  }
}

export async function checkAgUi(fixture, parts, wire) {
  const W = "ag-ui";
  const events = wire.events;
  if (!Array.isArray(events)) return fail(fixture, W, "", "no events in the batch");
  counts.agUiEvents += events.length;
  events.forEach((event, i) => {
    const r = EventSchemas.safeParse(event);
    if (!r.success) {
      fail(fixture, W, `event ${at(events, i)}`, `EventSchemas: ${issues(r.error)}`);
    }
  });
  const rejected = verify(events);
  if (rejected) fail(fixture, W, `event ${at(events, rejected.index)}`, `verifyEvents: ${rejected.message}`);

  if (typeof wire.sse !== "string") return;
  const runStarted = events.find((e) => e.type === "RUN_STARTED");
  const { messages, error, seen } = await runHttpAgent(wire.sse, runStarted);
  if (error) {
    return fail(fixture, `${W} --sse`, `after event ${at(seen, seen.length - 1)}`, `HttpAgent: ${error.message ?? error}`);
  }
  const other = seen.findIndex((e, i) => e.type !== events[i]?.type);
  if (other >= 0) {
    fail(fixture, `${W} --sse`, `event ${at(seen, other)}`, `HttpAgent read it where the events have ${events[other]?.type}`);
  } else if (seen.length !== events.length) {
    fail(fixture, `${W} --sse`, "", `HttpAgent read ${seen.length} events, not ${events.length}`);
  }

  const calls = new Map();
  const results = new Set();
  for (const m of messages) {
    for (const call of m.role === "assistant" ? (m.toolCalls ?? []) : []) {
      if (calls.has(call.id)) fail(fixture, W, `tool call ${call.id}`, "rebuilt twice");
      calls.set(call.id, call);
    }
    if (m.role === "tool") results.add(m.toolCallId);
  }
  counts.agUiToolCalls += calls.size;
  for (const part of parts) {
    const call = calls.get(part.id);
    if (!call) {
      fail(fixture, W, `part ${part.id}`, "HttpAgent rebuilt no tool call for it");
      continue;
    }
    calls.delete(part.id);
    if (call.function.name !== part.name) {
      fail(fixture, W, `part ${part.id}`, `rebuilt name ${short(call.function.name)}, the part's is ${short(part.name)}`);
    }
    let args;
    try {
      args = JSON.parse(call.function.arguments);
    } catch (e) {
      fail(fixture, W, `part ${part.id}`, `its arguments are not JSON: ${e.message}`);
      continue;
    }
    if (!isDeepStrictEqual(args, part.input)) {
      fail(fixture, W, `part ${part.id}`, `rebuilt arguments ${short(args)}, the part's input is ${short(part.input)}`);
    }
    const finished = part.state === "complete" || part.state === "error";
    if (finished && !results.has(part.id)) fail(fixture, W, `part ${part.id}`, `${part.state}, but no tool message was rebuilt`);
    if (!finished && results.has(part.id)) fail(fixture, W, `part ${part.id}`, `${part.state}, but a tool message was rebuilt`);
  }
  for (const id of calls.keys()) fail(fixture, W, `tool call ${id}`, "rebuilt, but toolnorm has no such part");
}

// ---------------------------------------------------------------------------------------------

/** Every line of a batch file: `{fixture, parts, ...}` (exits 2 on a bad line). */
export async function* batch(path) {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  let n = 0;
  for await (const line of lines) {
    n++;
    if (!line.trim()) continue;
    let entry;
    try {
      entry = JSON.parse(line);
    } catch (e) {
      process.stderr.write(`${path}:${n}: not JSON: ${e.message}\n`);
      process.exit(2);
    }
    if (typeof entry.fixture !== "string" || !Array.isArray(entry.parts)) {
      process.stderr.write(`${path}:${n}: no "fixture" or "parts"\n`);
      process.exit(2);
    }
    yield entry;
  }
}

/** The summary on stdout, and the exit code: 1 when anything was rejected. */
export function report(extra = {}) {
  process.stdout.write(`${JSON.stringify({ ...counts, ...extra, rejected: failures.length })}\n`);
  process.exit(failures.length === 0 ? 0 : 1);
}

async function main() {
  const [path] = process.argv.slice(2);
  if (!path) {
    process.stderr.write("usage: node check.mjs BATCH.jsonl\n");
    process.exit(2);
  }
  for await (const entry of batch(path)) {
    const { fixture, parts } = entry;
    counts.fixtures++;
    counts.parts += parts.length;
    if (entry.aiSdk) await checkAiSdk(fixture, parts, entry.aiSdk);
    if (entry.agUi) await checkAgUi(fixture, parts, entry.agUi);
  }
  report();
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await main();
