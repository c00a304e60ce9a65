// The facade's behaviour beyond the corpus: detection at the first line that names the dialect,
// two-way records, bytes, errors, the end of a stream, the legacy view, and the CommonJS entry
// giving the same API over the same module.

import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";

import * as esm from "@toolnorm/core";

const { Normalizer, normalize, toLegacy, ToolnormError } = esm;

const started = JSON.stringify({
  type: "item.started",
  item: { id: "i1", type: "command_execution", command: "ls", aggregated_output: "", exit_code: null, status: "in_progress" },
});
const completed = JSON.stringify({
  type: "item.completed",
  item: { id: "i1", type: "command_execution", command: "ls", aggregated_output: "a\n", exit_code: 1, status: "failed" },
});

test("a line only one dialect accepts decides at once: the part comes with its own line", () => {
  const n = new Normalizer();
  assert.deepEqual(n.pushLine(""), [], "a blank line is held");
  assert.deepEqual(n.pushLine("not json"), [], "a foreign line is held");
  const updates = n.pushLine(started);
  assert.deepEqual(updates[0], { type: "dialect", provider: "codex", dialect: "exec" });
  assert.equal(updates[1].type, "diagnostic", "the held foreign line, replayed");
  assert.equal(updates[1].diagnostic.line, 2);
  assert.deepEqual(
    { type: updates[2].type, created: updates[2].created, event: updates[2].event },
    { type: "part", created: true, event: { line: 3, partId: "i1", state: "running" } },
  );
  assert.deepEqual(n.dialect, { provider: "codex", dialect: "exec" });
  assert.equal(n.lines, 3);
  const [done] = n.pushLine(completed + "\n");
  assert.equal(done.part.state, "error");
  assert.equal(n.parts()[0].title, "Running ls");
  assert.deepEqual(n.end(), []);
  assert.deepEqual(n.end(), [], "later ends give nothing");
  const doc = n.finish();
  assert.equal(doc.events.length, 2);
  assert.deepEqual(doc, normalize(`\nnot json\n${started}\n${completed}\n`));
  assert.throws(() => n.pushLine(started), ToolnormError, "nothing follows finish()");
  assert.equal(n.dialect, undefined);
});

test("document: false keeps nothing for finish(); the updates are the whole story", () => {
  const n = new Normalizer({ document: false });
  assert.equal(n.pushLine(started).length, 2);
  assert.equal(n.pushLine(completed)[0].part.state, "error");
  assert.deepEqual(n.end(), []);
  assert.deepEqual(n.dialect, { provider: "codex", dialect: "exec" }, "still known after the end");
  assert.equal(n.lines, 2);
  assert.throws(() => n.finish(), /keeps none/);
});

test("objects keep the agent's key order, as the command line prints them", () => {
  const line = JSON.stringify({
    type: "assistant",
    session_id: "s",
    message: { content: [{ type: "tool_use", id: "t1", name: "mcp__srv__do", input: { zeta: 1, alpha: 2, mid: { z: 0, a: 0 } } }] },
  });
  const [part] = normalize(line + "\n").parts;
  assert.deepEqual(Object.keys(part.input), ["zeta", "alpha", "mid"]);
  assert.deepEqual(Object.keys(part.input.mid), ["z", "a"]);
});

test("lines several dialects accept are held, and the end decides", () => {
  const acp = JSON.stringify({
    jsonrpc: "2.0",
    method: "session/update",
    params: { sessionId: "s", update: { sessionUpdate: "tool_call", toolCallId: "c", title: "ls", kind: "execute", status: "pending" } },
  });
  const n = new Normalizer();
  assert.deepEqual(n.pushLine(acp), []);
  assert.equal(n.dialect, undefined);
  const end = n.end();
  assert.deepEqual(end[0], { type: "dialect", provider: "acp", dialect: "acp" });
  assert.equal(end[1].part.id, "c");
});

test("a client's lines are told apart, in pushLine and in one call", () => {
  const lines = [
    { text: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1 } }), from: "client" },
    JSON.stringify({ jsonrpc: "2.0", id: 0, result: { protocolVersion: 1 } }),
    {
      text: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/w", mcpServers: [] } }),
      from: "client",
    },
  ];
  const n = new Normalizer();
  const updates = lines.flatMap((l) => (typeof l === "string" ? n.pushLine(l) : n.pushLine(l.text, { from: l.from })));
  assert.deepEqual(updates[0], { type: "dialect", provider: "acp", dialect: "acp" });
  assert.deepEqual(n.finish(), normalize(lines));
});

test("bytes are streams too, BOMs and CRLF included", () => {
  const text = `\ufeff${started}\r\n${completed}\r\n`;
  const bytes = new TextEncoder().encode(text);
  assert.deepEqual(normalize(bytes), normalize(text));
  const n = new Normalizer({ dialect: "exec" });
  for (const line of text.split("\n").slice(0, -1)) n.pushLine(new TextEncoder().encode(line));
  assert.deepEqual(n.finish(), normalize(text));
  // Not UTF-8: a diagnostic, and the stream goes on.
  const doc = normalize(Uint8Array.from([0xff, 0xfe, 0x0a, ...new TextEncoder().encode(started)]), { dialect: "exec" });
  assert.equal(doc.parts.length, 1);
  assert.equal(doc.diagnostics[0].line, 1);
});

test("options and streams that cannot be normalized are ToolnormErrors with toolnorm's message", () => {
  assert.throws(() => new Normalizer({ provider: "nobody" }), (e) => e instanceof ToolnormError && /unknown provider `nobody`/.test(e.message));
  assert.throws(() => normalize(started, { provider: "claude", dialect: "exec" }), /unknown dialect `exec`/);
  assert.throws(() => normalize(""), /empty input: no lines/);
  assert.throws(() => normalize("[1]\n"), /could not detect the dialect/);
  const n = new Normalizer();
  n.pushLine("[1]");
  assert.throws(() => n.finish(), ToolnormError);
  assert.throws(() => normalize(42), TypeError);
  assert.throws(() => new Normalizer({ cwd: 7 }), TypeError);
  assert.throws(() => new Normalizer().pushLine({}), TypeError);
});

test("the legacy view is toolnorm's", () => {
  const doc = normalize(`${started}\n${completed}\n`);
  assert.deepEqual(toLegacy(doc.parts), [
    {
      toolCallId: "i1",
      toolName: doc.parts[0].name,
      title: "Running ls",
      state: "output-error",
      input: doc.parts[0].input,
      errorText: doc.parts[0].error.message,
    },
  ]);
  assert.throws(() => toLegacy([{ id: "x" }]), /not parts/);
});

test("require() gives the same API over the same module", async () => {
  const cjs = createRequire(import.meta.url)("@toolnorm/core");
  assert.deepEqual(Object.keys(cjs).sort(), Object.keys(esm).sort());
  const text = `${started}\n${completed}\n`;
  assert.deepEqual(cjs.normalize(text), normalize(text));
  const n = new cjs.Normalizer({ provider: "codex" });
  assert.equal(n.pushLine(started)[0].type, "dialect");
  n.free();
  await cjs.init();
  await esm.init();
});
