// Every fixture of the shipped corpus through the package: fed line by line to a Normalizer, and
// in one call to normalize(), each gives exactly its reviewed expected file (compared as JSON
// values), with the dialect detected from the lines; line by line, each part update comes with
// the line that caused it. The fixtures are zstd-compressed, which Node
// cannot read: the test that runs this suite (tests/cli/wasm.rs) writes each fixture's stream as
// the `normalize` request `toolnorm verify --impl` would send (docs/protocol.md) under
// TOOLNORM_REQUESTS/<provider>/<name>.json.

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { Normalizer, normalize } from "@toolnorm/core";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const requests = process.env.TOOLNORM_REQUESTS;

/** A protocol line: its text or bytes, and who wrote it. */
function decode(line) {
  if (typeof line === "string") return { text: line, from: "agent" };
  const from = line.from === "client" ? "client" : "agent";
  if (typeof line.text === "string") return { text: line.text, from };
  return { bytes: Uint8Array.from(atob(line.base64), (c) => c.charCodeAt(0)), from };
}

/** Fold updates as a UI would: the parts by id in order of appearance, every event and diagnostic. */
function fold(updates) {
  const doc = { schemaVersion: 1, parts: [], events: [], diagnostics: [] };
  const index = new Map();
  for (const u of updates) {
    if (u.type === "dialect") Object.assign(doc, { provider: u.provider, dialect: u.dialect });
    else if (u.type === "part" || u.type === "revised") {
      if (u.type === "part") doc.events.push(u.event);
      if (index.has(u.part.id)) doc.parts[index.get(u.part.id)] = u.part;
      else {
        index.set(u.part.id, doc.parts.length);
        doc.parts.push(u.part);
      }
    } else if (u.type === "diagnostic") doc.diagnostics.push(u.diagnostic);
    else throw new Error(`unknown update type ${u.type}`);
  }
  return doc;
}

function fixtures() {
  assert.ok(requests, "TOOLNORM_REQUESTS names the exported corpus (run through tests/cli/wasm.rs)");
  const all = [];
  for (const provider of readdirSync(requests).sort()) {
    for (const file of readdirSync(join(requests, provider)).sort()) {
      all.push({ provider, name: file.replace(/\.json$/, ""), path: join(requests, provider, file) });
    }
  }
  return all;
}

const all = fixtures();

// The CLIs that write another's formats byte for byte (Kilo writes OpenCode's): content alone
// reads their fixtures as that other CLI's, by design, so their provider is named.
const FORKS = new Set(["kilo"]);

test("the exported corpus is all there", () => {
  const expected = readdirSync(join(root, "expected")).flatMap((p) =>
    readdirSync(join(root, "expected", p)).map((f) => `${p}/${f.replace(/\.json$/, "")}`),
  );
  assert.deepEqual(all.map((f) => `${f.provider}/${f.name}`).sort(), expected.sort());
  assert.ok(all.length >= 100, `${all.length} fixtures`);
});

for (const f of all) {
  test(`${f.provider}/${f.name}`, () => {
    const req = JSON.parse(readFileSync(f.path, "utf8"));
    const expected = JSON.parse(readFileSync(join(root, "expected", f.provider, `${f.name}.json`), "utf8"));
    const lines = req.lines.map(decode);
    const cwd = req.cwd;
    const provider = FORKS.has(f.provider) ? f.provider : undefined;

    // Line by line, the dialect detected: the updates fold into the document finish() returns.
    const n = new Normalizer({ cwd, provider });
    const updates = [];
    lines.forEach((l, i) => {
      const unterminated = req.unterminated === true && i === lines.length - 1;
      const caused = n.pushLine(l.text ?? l.bytes, { from: l.from, unterminated });
      // Detection holds no tool line: a line's part updates come with that line.
      for (const u of caused) {
        if (u.type === "part") assert.equal(u.event.line, i + 1, `the update of line ${u.event.line} came at line ${i + 1}`);
      }
      updates.push(...caused);
    });
    updates.push(...n.end());
    const streamed = n.finish();
    assert.deepStrictEqual(streamed, expected, "line by line");
    assert.deepStrictEqual(fold(updates), expected, "the updates, folded");

    // In one call: the stream's text (or bytes), or its lines where the client wrote some.
    let batch;
    if (lines.some((l) => l.from === "client")) {
      assert.ok(lines.every((l) => l.text !== undefined), "client lines are text");
      batch = normalize(lines, { cwd, provider, unterminated: req.unterminated === true });
    } else if (lines.every((l) => l.text !== undefined)) {
      batch = normalize(lines.map((l) => l.text).join("\n") + (req.unterminated ? "" : "\n"), { cwd, provider });
    } else {
      const parts = lines.map((l) => l.bytes ?? new TextEncoder().encode(l.text));
      const bytes = new Uint8Array(parts.reduce((sum, p) => sum + p.length + 1, 0));
      let at = 0;
      for (const p of parts) {
        bytes.set(p, at);
        at += p.length;
        bytes[at++] = 0x0a;
      }
      batch = normalize(req.unterminated ? bytes.subarray(0, at - 1) : bytes, { cwd, provider });
    }
    assert.deepStrictEqual(batch, expected, "in one call");
  });
}
