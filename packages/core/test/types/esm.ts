// The package's declarations as an ES module consumer sees them, with no DOM or Node types: every
// line must type-check (and the `@ts-expect-error` lines must not).
import {
  AgUiEventStream,
  init,
  Normalizer,
  normalize,
  toLegacy,
  ToolnormError,
  type LegacyToolPart,
  type NormalizedDocument,
  type NormalizedToolPart,
  type ToolState,
  type Update,
  toAgUiEvents,
  toUIMessageChunks,
  UIMessageChunkStream,
  WireStream,
  type AgUiEvent,
  type UIMessageChunk,
} from "@toolnorm/core";
import { PROTOCOL_VERSION, serveProtocol, type ProtocolRequest } from "@toolnorm/core/protocol";

await init();
const n = new Normalizer({ provider: "claude", cwd: "/w" });
const updates: Update[] = n.pushLine("{}", { from: "client", unterminated: false });
for (const u of updates) {
  if (u.type === "part") {
    const part: NormalizedToolPart = u.part;
    const state: ToolState = u.event.state;
    const created: boolean = u.created;
    void [part, state, created];
  } else if (u.type === "dialect") {
    const name: string = `${u.provider}/${u.dialect}`;
    void name;
  } else if (u.type === "diagnostic") {
    const line: number = u.diagnostic.line;
    void line;
  }
}
const dialect: string | undefined = n.dialect?.dialect;
const doc: NormalizedDocument = n.finish();
const legacy: LegacyToolPart[] = toLegacy(doc.parts);
normalize([{ text: "x", from: "client" }, "y"], { unterminated: true });
normalize(new Uint8Array(0), { dialect: "exec" });
// @ts-expect-error a number is not a stream
normalize(42);
// @ts-expect-error lines come from the agent or the client
n.pushLine("x", { from: "server" });
const error: Error = new ToolnormError("x");
const version: 1 = PROTOCOL_VERSION;
await serveProtocol(
  (req: ProtocolRequest) => {
    const first: string = req.lines[0].text;
    const cwd: string | undefined = req.cwd;
    void cwd;
    return normalize(first);
  },
  { name: "engine", dialects: ["*"] },
);
void [dialect, legacy, error, version];

// The wires.
const chunks: UIMessageChunk[] = toUIMessageChunks("{}", { cwd: "/w" });
const sseText: string = toUIMessageChunks(doc, { sse: true });
const events: AgUiEvent[] = toAgUiEvents([{ text: "{}", from: "client" }], { unterminated: true });
for (const c of chunks) {
  if (c.type === "tool-input-start") {
    const title: string | undefined = c.title;
    void title;
  }
}
const live: ReadableStream<UIMessageChunk> = new UIMessageChunkStream({ provider: "claude" }).readable;
const body: ReadableStream<Uint8Array> = new AgUiEventStream<Uint8Array>({ sse: true }).readable;
const input: WritableStream<string | Uint8Array> = new WireStream("ag-ui").writable;
// @ts-expect-error the wires are ai-sdk and ag-ui
new WireStream("acp");
void [sseText, events, live, body, input];
