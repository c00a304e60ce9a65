// A coding agent's tool calls, served to `useChat` as the AI SDK UI message stream.
//
//   npm install && node server.mjs
//
// POST /api/chat (what `useChat`'s default transport sends) starts the agent with the last user
// message as its prompt, and streams its tool calls back as they happen: the agent's raw output
// goes through @toolnorm/core's UIMessageChunkStream (raw lines in, UI message chunks out) into
// the `ai` package's own stream and response writer (its SSE framing and headers). The agent is Claude Code
// in print mode; AGENT (a JSON array: the command and its arguments, "{prompt}" standing for the
// prompt) runs another one, e.g. AGENT='["codex", "exec", "--json", "{prompt}"]'. PORT (default
// 3000; 0 picks a free one) and HOST (default 127.0.0.1) say where it listens.

import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { Readable } from "node:stream";

import { UIMessageChunkStream } from "@toolnorm/core";
import { createUIMessageStream, pipeUIMessageStreamToResponse } from "ai";

const agent = process.env.AGENT
  ? JSON.parse(process.env.AGENT)
  : ["claude", "-p", "{prompt}", "--output-format", "stream-json", "--verbose"];

/** The text of the last user message of a `useChat` request body. */
function prompt(body) {
  const last = body?.messages?.findLast?.((m) => m.role === "user");
  return (last?.parts ?? [])
    .filter((p) => p.type === "text")
    .map((p) => p.text)
    .join("\n");
}

async function readBody(req) {
  let text = "";
  for await (const chunk of req) text += chunk;
  return text ? JSON.parse(text) : {};
}

const server = createServer(async (req, res) => {
  if (req.method !== "POST" || req.url !== "/api/chat") {
    res.writeHead(404).end();
    return;
  }
  let body;
  try {
    body = await readBody(req);
  } catch {
    res.writeHead(400).end("the body is not JSON");
    return;
  }
  const [command, ...args] = agent.map((a) => (a === "{prompt}" ? prompt(body) : a));
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "inherit"] });
  child.on("error", (e) => {
    if (!res.headersSent) res.writeHead(502).end(`the agent did not start: ${e.message}`);
  });
  // The client went away: so does the agent.
  res.on("close", () => {
    if (child.exitCode === null) child.kill();
  });
  const tools = Readable.toWeb(child.stdout).pipeThrough(new UIMessageChunkStream({ cwd: process.cwd() }));
  // A stream toolnorm cannot read (the agent wrote nothing, or nothing it knows) ends the answer
  // with the AI SDK's `error` chunk, which `useChat` shows as its error.
  const stream = createUIMessageStream({
    execute: ({ writer }) => writer.merge(tools),
    onError: (e) => `the agent's stream: ${e.message}`,
  });
  pipeUIMessageStreamToResponse({ response: res, stream });
});

server.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? "127.0.0.1", () => {
  const { address, port } = server.address();
  console.log(`listening on http://${address}:${port}/api/chat`);
});
