// serveProtocol over in-memory streams: the conversation of docs/protocol.md — hello, normalize
// requests with their lines decoded, answers in order, errors as answers, bye — in ES module and
// CommonJS form.

import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { PassThrough } from "node:stream";
import { test } from "node:test";

import { PROTOCOL_VERSION, serveProtocol } from "@toolnorm/core/protocol";

/** Run `serveProtocol(normalize, options)` on `messages` (written in chunks that split lines). */
async function converse(normalize, messages, options = {}, serve = serveProtocol) {
  const input = new PassThrough();
  const output = new PassThrough();
  let written = "";
  output.on("data", (chunk) => {
    written += chunk;
  });
  const served = serve(normalize, { ...options, input, output });
  const text = messages.map((m) => (typeof m === "string" ? m : JSON.stringify(m)) + "\n").join("");
  // Split across chunks, inside a line and inside a multi-byte character.
  const bytes = Buffer.from(text);
  const cut = [0, 5, bytes.indexOf(0xc3) + 1, Math.floor(bytes.length / 2), bytes.length].filter((c) => c > 0).sort((a, b) => a - b);
  let from = 0;
  for (const c of cut) {
    if (c > from) input.write(bytes.subarray(from, c));
    from = c;
  }
  input.end();
  await served;
  return written
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l));
}

const request = (seq, lines, extra = {}) => ({
  type: "normalize",
  seq,
  fixture: "claude/x",
  provider: "claude",
  dialect: "stream-json",
  lines,
  ...extra,
});

test("hello, normalize and bye, with lines decoded", async () => {
  const seen = [];
  const answers = await converse(
    (req) => {
      seen.push(req);
      return { parts: [], events: [], diagnostics: [], legacy: [], provider: "claude", ignored: 1 };
    },
    [
      { type: "hello", protocol: 1, toolnorm: "0.1.0" },
      request(1, ["é agent", { from: "client", text: "client" }, { base64: "/w==" }], { cwd: "/w", unterminated: true }),
      { type: "something-later" },
      "not json",
      { type: "bye" },
      request(2, []),
    ],
    { name: "t", version: "9", dialects: ["claude/*"] },
  );
  assert.equal(PROTOCOL_VERSION, 1);
  assert.deepEqual(answers, [
    { type: "hello", protocol: 1, name: "t", version: "9", dialects: ["claude/*"] },
    { type: "result", seq: 1, parts: [], events: [], diagnostics: [], legacy: [] },
  ]);
  assert.equal(seen.length, 1, "nothing after bye");
  const [req] = seen;
  assert.deepEqual(
    { ...req, lines: req.lines.map(({ text, from, bytes }) => ({ text, from, bytes: bytes && [...bytes] })) },
    {
      seq: 1,
      fixture: "claude/x",
      provider: "claude",
      dialect: "stream-json",
      cwd: "/w",
      unterminated: true,
      lines: [
        { text: "é agent", from: "agent", bytes: undefined },
        { text: "client", from: "client", bytes: undefined },
        { text: "\ufffd", from: "agent", bytes: [0xff] },
      ],
    },
  );
});

test("answers keep the order of requests, async or not; throws and bad answers are errors", async () => {
  const answers = await converse(
    async (req) => {
      if (req.seq === 1) await new Promise((r) => setTimeout(r, 20));
      if (req.seq === 2) throw new Error("boom");
      if (req.seq === 3) return { nothing: true };
      if (req.seq === 4) return [{ id: "a" }];
      return { parts: [] };
    },
    [1, 2, 3, 4, 5].map((seq) => request(seq, [])).concat([request(6, [{ from: "client" }])]),
  );
  assert.deepEqual(
    answers.map((a) => a.seq),
    [1, 2, 3, 4, 5, 6],
  );
  assert.match(answers[1].error, /boom/);
  assert.match(answers[2].error, /no `parts` array/);
  assert.deepEqual(answers[3], { type: "result", seq: 4, parts: [{ id: "a" }] });
  assert.match(answers[5].error, /line 1: neither `text` nor `base64`/);
});

test("the CommonJS twin serves the same conversation", async () => {
  const cjs = createRequire(import.meta.url)("@toolnorm/core/protocol");
  assert.equal(cjs.PROTOCOL_VERSION, 1);
  const answers = await converse((req) => ({ parts: [{ n: req.lines.length }] }), [request(1, ["a", "b"])], {}, cjs.serveProtocol);
  assert.deepEqual(answers, [{ type: "result", seq: 1, parts: [{ n: 2 }] }]);
  await assert.rejects(() => cjs.serveProtocol("not a function"), TypeError);
});
