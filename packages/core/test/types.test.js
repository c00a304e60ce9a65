// The type declarations check: the package's own, and a consumer's use of them in ES module and
// CommonJS form, with TypeScript (a dev dependency) in strict mode and no DOM or Node types.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

test("the declarations type-check as a consumer uses them", () => {
  const tsc = fileURLToPath(new URL("../node_modules/.bin/tsc", import.meta.url));
  const project = fileURLToPath(new URL("./types/tsconfig.json", import.meta.url));
  const run = spawnSync(tsc, ["-p", project], { encoding: "utf8" });
  assert.equal(run.error, undefined, `tsc did not run (scripts/wasm-build.sh installs it): ${run.error}`);
  assert.equal(run.status, 0, run.stdout + run.stderr);
});
