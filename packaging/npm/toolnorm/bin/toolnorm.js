#!/usr/bin/env node
// The `toolnorm` command of the npm package: finds the native binary in the platform package
// npm installed from `optionalDependencies` (one package per operating system, CPU and, on Linux,
// C library; npm skips those whose `os`, `cpu` and `libc` do not match), runs it with the same
// arguments and standard streams, forwards the signals it receives, and exits as it exits: with
// its exit code, or killed by the same signal. TOOLNORM_BINARY names another binary to run.
"use strict";

const { spawn } = require("node:child_process");
const path = require("node:path");

/** `process.platform-process.arch[-musl]` → the package holding the binary. */
const PACKAGES = {
  "linux-x64": "@toolnorm/cli-linux-x64",
  "linux-arm64": "@toolnorm/cli-linux-arm64",
  "linux-x64-musl": "@toolnorm/cli-linux-x64-musl",
  "linux-arm64-musl": "@toolnorm/cli-linux-arm64-musl",
  "darwin-x64": "@toolnorm/cli-darwin-x64",
  "darwin-arm64": "@toolnorm/cli-darwin-arm64",
};

/** Linux with musl libc (Alpine): Node's own report names the glibc it runs on, if any. */
function isMusl() {
  if (process.platform !== "linux") return false;
  try {
    let report = process.report.getReport();
    if (typeof report === "string") report = JSON.parse(report);
    return !report.header.glibcVersionRuntime;
  } catch {
    return false;
  }
}

function platformKey() {
  const base = `${process.platform}-${process.arch}`;
  return isMusl() ? `${base}-musl` : base;
}

function binaryPath() {
  if (process.env.TOOLNORM_BINARY) return process.env.TOOLNORM_BINARY;
  const key = platformKey();
  const pkg = PACKAGES[key];
  if (!pkg) {
    fail(
      `toolnorm has no prebuilt binary for ${key} (there are: ${Object.keys(PACKAGES).join(", ")}); ` +
        "build it with `cargo install --git <toolnorm repository URL> toolnorm` and set TOOLNORM_BINARY"
    );
  }
  try {
    return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "toolnorm");
  } catch {
    fail(
      `the package ${pkg} that holds toolnorm's binary for ${key} is not installed: ` +
        "reinstall toolnorm without --no-optional / --omit=optional (npm installs it from toolnorm's optionalDependencies)"
    );
  }
}

function fail(message) {
  process.stderr.write(`error: ${message}\n`);
  // toolnorm's own "toolnorm itself failed" code.
  process.exit(2);
}

const FORWARDED = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGWINCH"];

function main() {
  const binary = binaryPath();
  // The handlers go in before the binary starts: a signal that comes while it is being started
  // is held and passed on once it runs, never left to kill this launcher alone (which would
  // leave the binary running without it).
  let child = null;
  const pending = [];
  const pass = (signal) => {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  };
  const handlers = new Map();
  for (const signal of FORWARDED) {
    const handler = () => (child ? pass(signal) : pending.push(signal));
    handlers.set(signal, handler);
    process.on(signal, handler);
  }
  child = spawn(binary, process.argv.slice(2), { stdio: "inherit" });
  for (const signal of pending) pass(signal);
  child.on("error", (e) => fail(`failed to run ${binary}: ${e.message}`));
  child.on("exit", (code, signal) => {
    for (const [s, h] of handlers) process.removeListener(s, h);
    if (signal) {
      // Die of the same signal, so whoever ran us sees what happened to toolnorm.
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code === null ? 2 : code);
  });
}

main();
