// @toolnorm/core in a browser (or any ES module host without Node's `fs`): the WebAssembly module
// is fetched and compiled by `await init()`, which every other call must wait for.

import initWasm, * as wasm from "./web.js";
import { bind } from "./facade.js";

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

/**
 * Fetch and compile the module: from `toolnorm_core_bg.wasm` next to this file, or from `source`
 * (a URL, a `Response`, bytes or a `WebAssembly.Module`). Calling it again does nothing.
 */
export async function init(source) {
  await initWasm(source === undefined ? undefined : { module_or_path: source });
}
