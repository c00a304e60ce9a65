// The WebAssembly side of `cargo bench --bench wasm` (benches/wasm.rs), which writes the streams,
// runs this, and sets it against the native normalizer measured in the same run.
//
//   node packages/core/bench/bench.mjs DIR ROUNDS REPEATS
//
// DIR holds one raw stream per file. Prints one JSON object: the bytes normalized and the seconds
// `normalize(text)` took over ROUNDS rounds of every stream (after one round of warm-up; the best
// of REPEATS such repetitions), and the latency of each `pushLine` over one round, line by line
// (p50, p99, in microseconds).

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

import { Normalizer, normalize } from "../dist/index.js";

const [dir, roundsArg, repeatsArg] = process.argv.slice(2);
const rounds = Number(roundsArg);
const repeats = Number(repeatsArg);
const streams = readdirSync(dir)
  .sort()
  .map((f) => readFileSync(join(dir, f), "utf8"));
const bytes = streams.reduce((sum, s) => sum + Buffer.byteLength(s), 0);

let parts = 0;
for (const s of streams) parts += normalize(s).parts.length;
let seconds = Infinity;
for (let k = 0; k < repeats; k++) {
  const start = process.hrtime.bigint();
  for (let r = 0; r < rounds; r++) {
    for (const s of streams) normalize(s);
  }
  seconds = Math.min(seconds, Number(process.hrtime.bigint() - start) / 1e9);
}

const latencies = [];
for (const s of streams) {
  const n = new Normalizer();
  const lines = s.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  for (const line of lines) {
    const t = process.hrtime.bigint();
    n.pushLine(line);
    latencies.push(Number(process.hrtime.bigint() - t) / 1e3);
  }
  n.finish();
}
latencies.sort((a, b) => a - b);
const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];

console.log(JSON.stringify({ bytes: bytes * rounds, seconds, parts, lines: latencies.length, p50: at(0.5), p99: at(0.99) }));
