// @toolnorm/core for Node (ESM; also what Deno and Bun load): the WebAssembly module is read from
// the package and compiled when this module is first imported, so the API is ready at once.

import { readFileSync } from "node:fs";
import * as wasm from "./web.js";
import { bind } from "./facade.js";

wasm.initSync({ module: readFileSync(new URL("./toolnorm_core_bg.wasm", import.meta.url)) });

export const {
  Normalizer,
  normalize,
  toLegacy,
  ToolnormError,
  toUIMessageChunks,
  toAgUiEvents,
  WireStream,
  UIMessageChunkStream,
  AgUiEventStream,
} = bind(wasm);

/** Nothing to wait for here (the module is ready); for code shared with the browser build. */
export async function init() {}
