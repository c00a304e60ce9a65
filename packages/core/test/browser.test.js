// The package in a browser page: headless Chromium loads the browser build from a local server
// (ES modules and a fetched WebAssembly module, as a page would), normalizes a recorded Claude
// session line by line and in one call, and posts both documents back; each must be the fixture's
// expected file. Chromium: TOOLNORM_CHROMIUM, else the first chromium on PATH
// (scripts/install-test-deps.sh installs it); without one the test fails.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { delimiter, extname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const root = fileURLToPath(new URL("../../../", import.meta.url));
const FIXTURE = ["claude", "live-claude-bash"];

function chromium() {
  if (process.env.TOOLNORM_CHROMIUM) return process.env.TOOLNORM_CHROMIUM;
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    for (const name of ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]) {
      if (existsSync(join(dir, name))) return join(dir, name);
    }
  }
  assert.fail("no chromium on PATH (run scripts/install-test-deps.sh, or set TOOLNORM_CHROMIUM)");
}

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>@toolnorm/core</title>
<script type="module">
  import { init, Normalizer, normalize } from "/pkg/browser.js";
  const post = (body) => fetch("/result", { method: "POST", body: JSON.stringify(body) });
  try {
    await init();
    const { text, cwd } = await (await fetch("/stream")).json();
    const n = new Normalizer({ cwd });
    let updates = 0;
    for (const line of text.split("\\n").slice(0, -1)) updates += n.pushLine(line).length;
    await post({ lineByLine: n.finish(), oneCall: normalize(text, { cwd }), updates });
  } catch (e) {
    await post({ error: String(e?.stack ?? e) });
  }
</script>
`;

const TYPES = { ".js": "text/javascript", ".wasm": "application/wasm", ".html": "text/html" };

test("the browser build normalizes a recorded session in headless Chromium", async (t) => {
  const requests = process.env.TOOLNORM_REQUESTS;
  assert.ok(requests, "TOOLNORM_REQUESTS names the exported corpus (run through tests/cli/wasm.rs)");
  const req = JSON.parse(readFileSync(join(requests, FIXTURE[0], `${FIXTURE[1]}.json`), "utf8"));
  assert.ok(req.lines.every((l) => typeof l === "string"), "a stream of the agent's lines");
  const stream = { text: req.lines.join("\n") + "\n", cwd: req.cwd };
  const expected = JSON.parse(readFileSync(join(root, "expected", FIXTURE[0], `${FIXTURE[1]}.json`), "utf8"));

  let settle;
  const result = new Promise((resolve) => {
    settle = resolve;
  });
  const server = createServer((request, response) => {
    const url = new URL(request.url, "http://localhost");
    if (request.method === "POST" && url.pathname === "/result") {
      let body = "";
      request.on("data", (c) => (body += c));
      request.on("end", () => {
        response.end();
        settle(JSON.parse(body));
      });
      return;
    }
    let body;
    let type = "application/json";
    if (url.pathname === "/") [body, type] = [PAGE, TYPES[".html"]];
    else if (url.pathname === "/stream") body = JSON.stringify(stream);
    else if (url.pathname.startsWith("/pkg/") && !url.pathname.includes("..")) {
      const file = join(dist, url.pathname.slice("/pkg/".length));
      if (existsSync(file)) [body, type] = [readFileSync(file), TYPES[extname(file)] ?? "application/octet-stream"];
    }
    if (body === undefined) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { "content-type": type }).end(body);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const profile = mkdtempSync(join(tmpdir(), "toolnorm-chromium-"));
  const browser = spawn(
    chromium(),
    [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-extensions",
      `--user-data-dir=${profile}`,
      `http://127.0.0.1:${server.address().port}/`,
    ],
    // Its own process group: its renderer and helper processes end with it.
    { stdio: ["ignore", "ignore", "pipe"], detached: true },
  );
  let stderr = "";
  browser.stderr.on("data", (c) => (stderr += c));
  const exited = new Promise((resolve) => browser.on("exit", resolve));
  t.after(async () => {
    try {
      process.kill(-browser.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
    await exited;
    server.close();
    // A helper process may still be writing as the group goes down.
    rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });

  // A guard against a browser that never posts, not a pause: the test ends with the post.
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no result from the page within 60 s\n${stderr}`)), 60_000);
  });
  const gone = exited.then((code) => {
    throw new Error(`chromium exited (${code}) before the page posted\n${stderr}`);
  });
  const got = await Promise.race([result, timeout, gone]);
  clearTimeout(timer);
  assert.equal(got.error, undefined, got.error);
  assert.deepStrictEqual(got.lineByLine, expected, "line by line");
  assert.deepStrictEqual(got.oneCall, expected, "in one call");
  assert.ok(got.updates > expected.parts.length);
});
