// The implementation protocol of `toolnorm verify --impl` (version 1, docs/protocol.md) on stdio:
// `serveProtocol(normalize)` answers toolnorm's `hello`, hands each `normalize` request to
// `normalize` with its lines decoded, and sends back what it returns, so an engine written in
// JavaScript or TypeScript goes under toolnorm's gate in a few lines:
//
//   serveProtocol((req) => myEngine(req.lines), { name: "my-engine", dialects: ["claude/*"] });
//
// Plain JavaScript with no import (it needs no WebAssembly): scripts/wasm-build.sh makes its
// CommonJS twin by turning its `export`s into `module.exports`.

/** The protocol version spoken. */
export const PROTOCOL_VERSION = 1;

/**
 * Serve the protocol until toolnorm says `bye` or closes the input. `normalize(request)` gets
 * `{seq, fixture, provider, dialect, cwd?, lines, unterminated}` — each line `{text, from}` (with
 * `bytes` too when the line is not UTF-8) — and returns (or resolves to) a document or
 * `{parts, events?, diagnostics?, legacy?}`, or just the array of parts; what it throws is sent as
 * the fixture's `error`. Options: `name`, `version`, `dialects` (the `provider/dialect` names it
 * claims, `"*"` for all: the default), `input` and `output` (default stdin and stdout).
 */
export async function serveProtocol(normalize, options = {}) {
  if (typeof normalize !== "function") throw new TypeError("serveProtocol takes a function");
  const name = options.name ?? "toolnorm-js-engine";
  const version = options.version ?? "0.0.0";
  const dialects = options.dialects ?? ["*"];
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;

  const send = (message) => {
    const written = output.write(JSON.stringify(message) + "\n");
    if (written === false && typeof output.once === "function") {
      return new Promise((resolve) => output.once("drain", resolve));
    }
    return undefined;
  };
  const warn = (text) => {
    if (typeof process !== "undefined" && process.stderr) process.stderr.write(`${name}: ${text}\n`);
  };

  // One message; false once the conversation is over.
  const handle = async (text) => {
    if (text.trim() === "") return true;
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      warn(`not JSON: ${text.slice(0, 200)}`);
      return true;
    }
    switch (message?.type) {
      case "hello":
        await send({ type: "hello", protocol: PROTOCOL_VERSION, name, version, dialects });
        return true;
      case "normalize":
        await send(await answer(normalize, message));
        return true;
      case "bye":
        return false;
      default:
        // Messages of later protocol extensions: not for this version.
        return true;
    }
  };

  if (typeof input.setEncoding === "function") input.setEncoding("utf8");
  const decoder = new TextDecoder();
  let pending = [];
  for await (const chunk of input) {
    const text = typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
    let start = 0;
    let newline;
    while ((newline = text.indexOf("\n", start)) >= 0) {
      pending.push(text.slice(start, newline));
      start = newline + 1;
      const line = pending.join("");
      pending = [];
      if (!(await handle(line))) return;
    }
    if (start < text.length) pending.push(text.slice(start));
  }
  pending.push(decoder.decode());
  await handle(pending.join(""));
}

// The `result` for one `normalize` request.
async function answer(normalize, message) {
  const seq = message.seq;
  try {
    const request = {
      seq,
      fixture: message.fixture,
      provider: message.provider,
      dialect: message.dialect,
      lines: (Array.isArray(message.lines) ? message.lines : []).map(decodeLine),
      unterminated: message.unterminated === true,
    };
    if (typeof message.cwd === "string") request.cwd = message.cwd;
    const result = await normalize(request);
    const parts = Array.isArray(result) ? result : result?.parts;
    if (!Array.isArray(parts)) throw new Error("normalize returned no `parts` array");
    const reply = { type: "result", seq, parts };
    if (!Array.isArray(result)) {
      for (const key of ["events", "diagnostics", "legacy"]) {
        if (Array.isArray(result[key])) reply[key] = result[key];
      }
    }
    return reply;
  } catch (e) {
    return { type: "result", seq, error: e instanceof Error ? (e.stack ?? e.message) : String(e) };
  }
}

// A raw line as the protocol sends it: a string (the agent's), or `{from?, text}` /
// `{from?, base64}`.
function decodeLine(line, index) {
  if (typeof line === "string") return { text: line, from: "agent" };
  const from = line?.from === "client" ? "client" : "agent";
  if (typeof line?.text === "string") return { text: line.text, from };
  if (typeof line?.base64 === "string") {
    const bytes = Uint8Array.from(atob(line.base64), (c) => c.charCodeAt(0));
    return { text: new TextDecoder().decode(bytes), bytes, from };
  }
  throw new Error(`line ${index + 1}: neither \`text\` nor \`base64\``);
}
