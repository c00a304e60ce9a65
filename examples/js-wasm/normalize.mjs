#!/usr/bin/env node
// toolnorm's own normalizer, compiled to WebAssembly (@toolnorm/core), judged through the
// implementation protocol like any other engine: the package gated by the same corpus, expected
// outputs and rules as the native build. Build the package first (scripts/wasm-build.sh), then
//
//   toolnorm verify --impl 'node examples/js-wasm/normalize.mjs'

import { readFileSync } from "node:fs";
import { Normalizer, toLegacy } from "../../packages/core/dist/index.js";
import { serveProtocol } from "../../packages/core/dist/protocol.js";

const { version } = JSON.parse(readFileSync(new URL("../../packages/core/package.json", import.meta.url)));

await serveProtocol(
  (req) => {
    const n = new Normalizer({ provider: req.provider, dialect: req.dialect, cwd: req.cwd });
    req.lines.forEach((line, i) => {
      const last = i === req.lines.length - 1;
      n.pushLine(line.bytes ?? line.text, { from: line.from, unterminated: last && req.unterminated });
    });
    const doc = n.finish();
    return { ...doc, legacy: toLegacy(doc.parts) };
  },
  { name: "toolnorm-wasm", version },
);
