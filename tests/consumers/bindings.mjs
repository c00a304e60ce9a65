// @toolnorm/core's wires (packages/core, built by scripts/wasm-build.sh) over a batch of fixtures,
// judged by the same official consumers as the command line's (check.mjs):
//
//   node tests/consumers/bindings.mjs BATCH.jsonl
//
// Each batch line is check.mjs's with the fixture's raw stream besides
// (`"stream": {"lines": [...], "cwd": ..., "unterminated": ..., "provider": ...}`, the lines as a
// `normalize` request of docs/protocol.md has them). For each fixture:
// - `toUIMessageChunks` / `toAgUiEvents` of the stream give exactly what `toolnorm normalize
//   --emit ai-sdk | ag-ui [--sse]` printed (the batch's frames and SSE text): one core, one output;
// - `UIMessageChunkStream` / `AgUiEventStream` (the `TransformStream`s), fed the raw stream as bytes
//   cut at arbitrary places, give frames the consumers accept and rebuild the fixture's parts from
//   (the JSON frames through check.mjs's AI SDK and AG-UI checks, the SSE bytes through its
//   `parseJsonEventStream` and `HttpAgent` ones). A stream where the client wrote lines too
//   (a two-way proxy record) cannot be fed as one byte stream: those go through the functions only.

import { isDeepStrictEqual } from "node:util";

import { batch, checkAgUi, checkAiSdk, counts, failures, report } from "./check.mjs";
import {
  AgUiEventStream,
  UIMessageChunkStream,
  WireStream,
  toAgUiEvents,
  toUIMessageChunks,
} from "../../packages/core/dist/index.js";

const utf8 = new TextEncoder();
const text = new TextDecoder();

function fail(fixture, where, reason) {
  const line = `${fixture}: ${where}: ${reason}`;
  failures.push(line);
  process.stderr.write(`REJECTED ${line}\n`);
}

/** A protocol line: its text or bytes, and who wrote it. */
function decode(line) {
  if (typeof line === "string") return { text: line, from: "agent" };
  const from = line.from === "client" ? "client" : "agent";
  if (typeof line.text === "string") return { text: line.text, from };
  return { bytes: Uint8Array.from(atob(line.base64), (c) => c.charCodeAt(0)), from };
}

/** The stream's bytes, as the agent wrote them. */
function bytesOf(lines, unterminated) {
  const parts = lines.map((l) => l.bytes ?? utf8.encode(l.text));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length + 1, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
    out[at++] = 0x0a;
  }
  return unterminated ? out.subarray(0, at - 1) : out;
}

/** Deterministic cut sizes: 1 to 4096 bytes, mostly small, so lines split everywhere. */
function* cuts(seed) {
  let x = seed || 1;
  for (;;) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    const r = (x >>> 0) % 100;
    yield r < 60 ? 1 + (r % 17) : r < 90 ? 64 + r * 7 : 4096;
  }
}

/** Feed `bytes` through `transform` in arbitrary cuts; everything its readable side gave. */
async function through(transform, bytes, seed) {
  const size = cuts(seed);
  const source = new ReadableStream({
    start(c) {
      let at = 0;
      while (at < bytes.length) {
        const n = size.next().value;
        c.enqueue(bytes.slice(at, at + n));
        at += n;
      }
      c.close();
    },
  });
  const out = [];
  for await (const x of source.pipeThrough(transform)) out.push(x);
  return out;
}

function firstDifference(a, b) {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) if (!isDeepStrictEqual(a[i], b[i])) return i;
  return -1;
}

let live = 0;
let liveParts = 0;
let twoWay = 0;

for await (const entry of batch(process.argv[2])) {
  const { fixture, parts, stream } = entry;
  counts.fixtures++;
  counts.parts += parts.length;
  const lines = stream.lines.map(decode);
  const opts = { cwd: stream.cwd ?? undefined, provider: stream.provider ?? undefined };
  const hasClient = lines.some((l) => l.from === "client");
  const input = hasClient ? lines : bytesOf(lines, stream.unterminated === true);
  const lineOpts = hasClient ? { ...opts, unterminated: stream.unterminated === true } : opts;

  // The functions: exactly the command line's output.
  for (const [wire, fn, want] of [
    ["ai-sdk", toUIMessageChunks, entry.aiSdk],
    ["ag-ui", toAgUiEvents, entry.agUi],
  ]) {
    const frames = fn(input, lineOpts);
    const i = firstDifference(frames, want.chunks ?? want.events);
    if (i >= 0) {
      fail(fixture, `${fn.name} frame #${i}`, `${JSON.stringify(frames[i])}, the command line printed ${JSON.stringify((want.chunks ?? want.events)[i])}`);
    }
    const sse = fn(input, { ...lineOpts, sse: true });
    if (sse !== want.sse) fail(fixture, `${fn.name} sse`, `not the text \`toolnorm normalize --emit ${wire} --sse\` printed`);
  }

  if (hasClient) {
    twoWay++;
    continue;
  }
  live++;
  liveParts += parts.length;
  const bytes = input;
  const seed = fixture.length * 7919 + parts.length;
  const chunks = await through(new UIMessageChunkStream(opts), bytes, seed);
  const aiSse = await through(new WireStream("ai-sdk", { ...opts, sse: true }), bytes, seed + 1);
  await checkAiSdk(`${fixture} (UIMessageChunkStream)`, parts, {
    chunks,
    sse: aiSse.map((b) => text.decode(b)).join(""),
  });
  const events = await through(new AgUiEventStream(opts), bytes, seed + 2);
  const agSse = await through(new AgUiEventStream({ ...opts, sse: true }), bytes, seed + 3);
  await checkAgUi(`${fixture} (AgUiEventStream)`, parts, {
    events,
    sse: agSse.map((b) => text.decode(b)).join(""),
  });
}
report({ live, liveParts, twoWay });
