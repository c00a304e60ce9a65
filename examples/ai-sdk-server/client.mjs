// What `useChat` does with the server's answer, without React: send one user message with the AI
// SDK's own chat transport, read the UI message stream with `readUIMessageStream`, print the
// assistant message's tool parts as they end up (one JSON line each).
//
//   node client.mjs http://127.0.0.1:3000/api/chat "List the files"

import { DefaultChatTransport, getToolName, isToolUIPart, readUIMessageStream } from "ai";

const [url = "http://127.0.0.1:3000/api/chat", text = "List the files"] = process.argv.slice(2);

const transport = new DefaultChatTransport({ api: url });
const stream = await transport.sendMessages({
  chatId: "example",
  messages: [{ id: "u1", role: "user", parts: [{ type: "text", text }] }],
  trigger: "submit-message",
  messageId: undefined,
  abortSignal: undefined,
});

// One message per `start` chunk's id; each snapshot replaces the last.
const messages = new Map();
try {
  for await (const message of readUIMessageStream({ stream, terminateOnError: true })) {
    messages.set(message.id, message);
  }
} catch (e) {
  console.error(`the stream failed: ${e.message}`);
  process.exit(1);
}
for (const message of messages.values()) {
  for (const part of message.parts.filter(isToolUIPart)) {
    const { toolCallId, title, state, input } = part;
    console.log(JSON.stringify({ toolCallId, toolName: getToolName(part), title, state, input }));
  }
}
