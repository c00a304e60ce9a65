// The API of @toolnorm/core. The contract's types (`NormalizedToolPart`, `NormalizedDocument`,
// `Update`, `LegacyToolPart`, ...) are generated from toolnorm's own types by `toolnorm schema
// --ts` into ./types.d.ts; only the facade's signatures are written here.

import type { LegacyToolPart, NormalizedDocument, NormalizedToolPart, Update } from "./types.js";

export type * from "./types.js";

/** Provider names as `toolnorm normalize --provider` takes them. */
export type ProviderName = "claude" | "codex" | "opencode" | "acp";

export interface NormalizerOptions {
  /** Detect only among this provider's dialects. */
  provider?: ProviderName | string;
  /** The dialect (`stream-json`, `exec`, `app-server`, `events`, ...): skips detection. */
  dialect?: string;
  /** The agent's working directory, for streams that do not say it (titles show paths relative to it). */
  cwd?: string;
}

export interface StreamingOptions extends NormalizerOptions {
  /**
   * `false`: keep nothing for `finish()` (every event and diagnostic handed out), for a stream with
   * no end; the updates are the whole story, `end()` the last of them. Default `true`.
   */
  document?: boolean;
}

export interface LineOptions {
  /** Who wrote the line: the agent (default), or the client driving it (two-way proxy records). */
  from?: "agent" | "client";
  /** The stream was cut short inside this (last) line. */
  unterminated?: boolean;
}

/** Why a stream or an argument could not be normalized, with toolnorm's message. */
export class ToolnormError extends Error {}

/**
 * A streaming normalizer for one raw stream, fed a line at a time. Its updates have the shapes
 * `toolnorm normalize --follow --emit parts` prints; folded in order they give the document
 * `finish()` returns, which is the one `normalize` gives for the same lines.
 */
export class Normalizer {
  constructor(options?: StreamingOptions);
  /** Feed the next raw line (without its newline): the updates it caused. */
  pushLine(line: string | Uint8Array, options?: LineOptions): Update[];
  /** The stream has ended: the updates only its end decides. */
  end(): Update[];
  /** The document of the whole stream (ends it first); the normalizer is done afterwards. Throws with `document: false`. */
  finish(): NormalizedDocument;
  /** The dialect, once known. */
  readonly dialect: { provider: string; dialect: string } | undefined;
  /** How many lines were pushed. */
  readonly lines: number;
  /** Every part so far, as they are now. */
  parts(): NormalizedToolPart[];
  /** Free its memory without finishing (also done when it is garbage-collected). */
  free(): void;
}

/** One raw line of a stream given as lines: the agent's, or `{text, from}`. */
export type StreamLine = string | { text: string; from?: "agent" | "client" };

/**
 * Normalize a whole raw stream in one call: the document `toolnorm normalize` prints. The stream is
 * its text (or bytes), or its lines (two-way proxy records name the client's); with lines,
 * `unterminated: true` says the last one was cut short.
 */
export function normalize(
  stream: string | Uint8Array | StreamLine[],
  options?: NormalizerOptions & { unterminated?: boolean },
): NormalizedDocument;

/** The legacy UI parts of a list of parts (`toolnorm normalize --emit legacy`). */
export function toLegacy(parts: NormalizedToolPart[]): LegacyToolPart[];

// ---- The UI wires (docs/ui-wires.md) ------------------------------------------------------------

/** A JSON object (the AI SDK's `toolMetadata`, AG-UI's `metadata`). */
export type JsonObject = { [key: string]: unknown };

/**
 * A chunk of the AI SDK UI message stream as toolnorm writes it: the members of the `ai` package's
 * `UIMessageChunk` a tool call's life uses, and the message's `start` and `finish`. Assignable to
 * `UIMessageChunk`, so a stream of them goes to `createUIMessageStreamResponse` as it is.
 */
export type UIMessageChunk =
  | { type: "start"; messageId?: string }
  | { type: "finish" }
  | {
      type: "tool-input-start";
      toolCallId: string;
      toolName: string;
      title?: string;
      dynamic?: boolean;
      providerExecuted?: boolean;
      toolMetadata?: JsonObject;
    }
  | { type: "tool-input-delta"; toolCallId: string; inputTextDelta: string }
  | {
      type: "tool-input-available";
      toolCallId: string;
      toolName: string;
      input: unknown;
      title?: string;
      dynamic?: boolean;
      providerExecuted?: boolean;
      toolMetadata?: JsonObject;
    }
  | { type: "tool-approval-request"; approvalId: string; toolCallId: string; reason?: string }
  | {
      type: "tool-output-available";
      toolCallId: string;
      output: unknown;
      preliminary?: boolean;
      dynamic?: boolean;
      providerExecuted?: boolean;
      toolMetadata?: JsonObject;
    }
  | {
      type: "tool-output-error";
      toolCallId: string;
      errorText: string;
      dynamic?: boolean;
      providerExecuted?: boolean;
      toolMetadata?: JsonObject;
    }
  | { type: "tool-output-denied"; toolCallId: string };

/**
 * An AG-UI 1.0 event as toolnorm writes it (`@ag-ui/core`'s `BaseEvent` members a run of tool calls
 * uses). What AG-UI has no field for (a call's title, kind, state, error, timing, metadata) is in
 * `metadata.toolnorm`.
 */
export type AgUiEvent =
  | { type: "RUN_STARTED"; threadId: string; runId: string }
  | { type: "RUN_FINISHED"; threadId: string; runId: string }
  | { type: "RUN_ERROR"; message: string; code?: string }
  | {
      type: "TOOL_CALL_START";
      toolCallId: string;
      toolCallName: string;
      parentMessageId?: string;
      subagentRunId?: string;
      metadata?: JsonObject;
    }
  | { type: "TOOL_CALL_ARGS"; toolCallId: string; delta: string; subagentRunId?: string }
  | { type: "TOOL_CALL_END"; toolCallId: string; subagentRunId?: string; metadata?: JsonObject }
  | {
      type: "TOOL_CALL_RESULT";
      messageId: string;
      toolCallId: string;
      content: string | JsonObject[];
      role?: "tool";
      subagentRunId?: string;
      metadata?: JsonObject;
    }
  | { type: "CUSTOM"; name: string; value: unknown; subagentRunId?: string; metadata?: JsonObject }
  | {
      type: "SUBAGENT_STARTED";
      subagentRunId: string;
      name: string;
      description?: string;
      parentSubagentRunId?: string;
      parentToolCallId?: string;
    }
  | { type: "SUBAGENT_FINISHED"; subagentRunId: string }
  | { type: "SUBAGENT_ERROR"; subagentRunId: string; message: string; code?: string };

/** The wires toolnorm writes, as `toolnorm normalize --emit` names them. */
export type WireName = "ai-sdk" | "ag-ui";

export interface WireOptions extends NormalizerOptions {
  /** Write the wire's SSE text (`--sse`; the AI SDK's ends with `data: [DONE]`) instead of its frames. */
  sse?: boolean;
  /** With a stream given as lines: the last one was cut short. */
  unterminated?: boolean;
}

/** A whole stream: as `normalize` takes it, or the document `normalize` gave. */
export type WireInput = string | Uint8Array | StreamLine[] | NormalizedDocument;

/**
 * The AI SDK UI message chunks of a whole stream (`toolnorm normalize --emit ai-sdk`); with
 * `sse: true` their SSE text (`--sse`).
 */
export function toUIMessageChunks(input: WireInput, options?: WireOptions & { sse?: false }): UIMessageChunk[];
export function toUIMessageChunks(input: WireInput, options: WireOptions & { sse: true }): string;

/** The AG-UI events of a whole stream (`toolnorm normalize --emit ag-ui`); with `sse: true` their SSE text. */
export function toAgUiEvents(input: WireInput, options?: WireOptions & { sse?: false }): AgUiEvent[];
export function toAgUiEvents(input: WireInput, options: WireOptions & { sse: true }): string;

declare global {
  // The web streams' names, for a host whose types have none (no DOM or Node types): where they
  // exist these merge with them and add nothing.
  interface ReadableStream<R = any> {}
  interface WritableStream<W = any> {}
}

/**
 * A live agent's tool calls as a UI wire (`toolnorm normalize --follow --emit WIRE`), a
 * `TransformStream`: the agent's raw output in (text or bytes, in chunks of any size), the wire's
 * frames out as they happen (with `sse: true`: the SSE text as UTF-8 bytes, for a response body).
 */
export class WireStream<O = UIMessageChunk | AgUiEvent | Uint8Array> {
  constructor(wire: WireName, options?: Omit<WireOptions, "unterminated">);
  readonly readable: ReadableStream<O>;
  readonly writable: WritableStream<string | Uint8Array>;
}

/**
 * The AI SDK UI message stream of a live agent: raw lines in, `UIMessageChunk`s out; hand
 * `agentOutput.pipeThrough(new UIMessageChunkStream())` to `createUIMessageStreamResponse({ stream })`.
 */
export class UIMessageChunkStream extends WireStream<UIMessageChunk> {
  constructor(options?: Omit<WireOptions, "unterminated" | "sse">);
}

/**
 * The AG-UI events of a live agent: raw lines in, events out; with `sse: true` the SSE body an
 * `HttpAgent` reads, as UTF-8 bytes (`new AgUiEventStream<Uint8Array>({ sse: true })`).
 */
export class AgUiEventStream<O extends AgUiEvent | Uint8Array = AgUiEvent> extends WireStream<O> {
  constructor(options?: Omit<WireOptions, "unterminated">);
}

/**
 * Make the WebAssembly module ready. In Node (and Deno, Bun) it is ready on import and this does
 * nothing; in a browser every other call must wait for it. `source`: where to fetch the module
 * from (default: `toolnorm_core_bg.wasm` next to the package's `browser.js`) — a URL, a `Response`,
 * its bytes or a compiled `WebAssembly.Module`.
 */
export function init(source?: string | object): Promise<void>;
