// An AG-UI client of the server: `HttpAgent` runs the agent once with one user message, applies
// the events as every AG-UI frontend does, and this prints the tool calls it ends up with (one
// JSON line each: id, name, arguments, and the result's content when the call has one).
//
//   node client.mjs http://127.0.0.1:3000/ "List the files"

import { HttpAgent } from "@ag-ui/client";

const [url = "http://127.0.0.1:3000/", text = "List the files"] = process.argv.slice(2);

const agent = new HttpAgent({ url });
agent.addMessage({ id: "u1", role: "user", content: text });
try {
  await agent.runAgent();
} catch (e) {
  console.error(`the run failed: ${e.message}`);
  process.exit(1);
}
const results = new Map(agent.messages.filter((m) => m.role === "tool").map((m) => [m.toolCallId, m.content]));
for (const m of agent.messages) {
  for (const call of m.role === "assistant" ? (m.toolCalls ?? []) : []) {
    const line = { toolCallId: call.id, toolCallName: call.function.name, args: JSON.parse(call.function.arguments) };
    if (results.has(call.id)) line.result = results.get(call.id);
    console.log(JSON.stringify(line));
  }
}
