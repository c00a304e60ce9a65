// A coding agent's tool calls, served to AG-UI clients (`HttpAgent`, CopilotKit) as AG-UI 1.0
// events over SSE.
//
//   npm install && node server.mjs
//
// POST / with a `RunAgentInput` (what `HttpAgent` sends) starts the agent with the last user
// message as its prompt, and streams its run back as it happens: the agent's raw output goes
// through @toolnorm/core's AgUiEventStream with `sse: true` (raw lines in, the SSE body out:
// RUN_STARTED, TOOL_CALL_START / ARGS / END / RESULT per call, RUN_FINISHED). The agent is Claude
// Code in print mode; AGENT (a JSON array: the command and its arguments, "{prompt}" standing for
// the prompt) runs another one. PORT (default 3000; 0 picks a free one) and HOST (default
// 127.0.0.1) say where it listens.

import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { Readable } from "node:stream";

import { AgUiEventStream } from "@toolnorm/core";

const agent = process.env.AGENT
  ? JSON.parse(process.env.AGENT)
  : ["claude", "-p", "{prompt}", "--output-format", "stream-json", "--verbose"];

/** The text of the last user message of a `RunAgentInput`. */
function prompt(input) {
  const last = input?.messages?.findLast?.((m) => m.role === "user");
  if (typeof last?.content === "string") return last.content;
  return (last?.content ?? [])
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
  if (req.method !== "POST" || req.url !== "/") {
    res.writeHead(404).end();
    return;
  }
  let input;
  try {
    input = await readBody(req);
  } catch {
    res.writeHead(400).end("the body is not a RunAgentInput");
    return;
  }
  const [command, ...args] = agent.map((a) => (a === "{prompt}" ? prompt(input) : a));
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "inherit"] });
  res.on("close", () => {
    if (child.exitCode === null) child.kill();
  });
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const body = Readable.toWeb(child.stdout).pipeThrough(new AgUiEventStream({ cwd: process.cwd(), sse: true }));
  try {
    for await (const bytes of body) res.write(bytes);
  } catch (e) {
    // A stream toolnorm cannot read (the agent wrote nothing, or nothing it knows), or an agent
    // that did not start: the run's error, as AG-UI says it.
    const error = { type: "RUN_ERROR", message: `the agent's stream: ${e.message}` };
    res.write(`data: ${JSON.stringify(error)}\n\n`);
  }
  res.end();
});

server.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? "127.0.0.1", () => {
  const { address, port } = server.address();
  console.log(`listening on http://${address}:${port}/`);
});
