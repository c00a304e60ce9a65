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

/**
 * Make the WebAssembly module ready. In Node (and Deno, Bun) it is ready on import and this does
 * nothing; in a browser every other call must wait for it. `source`: where to fetch the module
 * from (default: `toolnorm_core_bg.wasm` next to the package's `browser.js`) — a URL, a `Response`,
 * its bytes or a compiled `WebAssembly.Module`.
 */
export function init(source?: string | object): Promise<void>;
