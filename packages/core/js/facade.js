// The API of @toolnorm/core over the WebAssembly module, written once for every entry point
// (Node ESM and CommonJS, browsers): `bind` takes the module's generated bindings and returns the
// API. Updates and documents come out of the module as JSON text, written by toolnorm's own
// serializers, and are parsed here; nothing spells their shapes a second time.
//
// No import and no export other than `bind`: scripts/wasm-build.sh makes the CommonJS twin of this
// file by turning that one `export` into `module.exports`.

export function bind(wasm) {
  const { RawNormalizer, normalizeBytes, normalizeLines, legacyParts } = wasm;
  const { RawWireEmitter, wireOfBytes, wireOfLines, wireOfDocument } = wasm;
  // A whole stream's text goes over as its UTF-8 bytes: TextEncoder makes them faster than the
  // bindings' own copy of a string does.
  const utf8 = new TextEncoder();

  /** Why a stream or an argument could not be normalized (toolnorm's own message). */
  class ToolnormError extends Error {
    constructor(message, options) {
      super(message, options);
      this.name = "ToolnormError";
    }
  }

  // The module throws plain `Error`s with toolnorm's message; they become ToolnormErrors.
  function call(f) {
    try {
      return f();
    } catch (e) {
      if (e instanceof Error && !(e instanceof ToolnormError) && e.constructor === Error) {
        throw new ToolnormError(e.message, { cause: e });
      }
      throw e;
    }
  }

  function text(value, what) {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "string") throw new TypeError(`${what} must be a string`);
    return value;
  }

  function options(o) {
    if (o === undefined || o === null) return [undefined, undefined, undefined];
    if (typeof o !== "object") throw new TypeError("options must be an object");
    return [text(o.provider, "provider"), text(o.dialect, "dialect"), text(o.cwd, "cwd")];
  }

  /**
   * A streaming normalizer for one raw stream, fed a line at a time. Its updates have the shapes
   * `toolnorm normalize --follow --emit parts` prints; `finish()` gives the document `toolnorm
   * normalize` prints.
   */
  class Normalizer {
    #raw;
    #finished = false;

    constructor(opts) {
      const keep = opts?.document !== false;
      this.#raw = call(() => new RawNormalizer(...options(opts), keep));
    }

    #live() {
      if (this.#finished) throw new ToolnormError("the stream has ended: no call can follow finish()");
      return this.#raw;
    }

    /**
     * Feed the next raw line (without its newline; a trailing `\r` and a leading BOM are dropped)
     * and get the updates it caused. `from: "client"` marks a line the client wrote to the agent
     * (two-way proxy records); `unterminated` a last line the stream cut short.
     */
    pushLine(line, lineOptions) {
      const raw = this.#live();
      const client = lineOptions?.from === "client";
      const unterminated = lineOptions?.unterminated === true;
      let json;
      if (typeof line === "string") json = call(() => raw.pushLine(line, client, unterminated));
      else if (line instanceof Uint8Array) json = call(() => raw.pushBytes(line, client, unterminated));
      else throw new TypeError("a line is a string or a Uint8Array");
      return JSON.parse(json);
    }

    /** The stream has ended: the updates only its end decides (later calls give none). */
    end() {
      return JSON.parse(call(() => this.#live().end()));
    }

    /**
     * The document every update folds into, exactly what `normalize` gives for the same lines;
     * ends the stream first. The normalizer is done afterwards (its memory is freed). Not with
     * `document: false`, which keeps nothing for it.
     */
    finish() {
      const raw = this.#live();
      try {
        return JSON.parse(call(() => raw.document()));
      } finally {
        this.#finished = true;
        raw.free();
      }
    }

    /** `{provider, dialect}` once the dialect is known, else `undefined`. */
    get dialect() {
      if (this.#finished) return undefined;
      const d = this.#raw.dialect();
      if (d === undefined) return undefined;
      const slash = d.indexOf("/");
      return { provider: d.slice(0, slash), dialect: d.slice(slash + 1) };
    }

    /** How many lines were pushed: the number of the last one. */
    get lines() {
      return this.#finished ? 0 : this.#raw.lines();
    }

    /** Every part so far, as they are now. */
    parts() {
      return JSON.parse(call(() => this.#live().parts()));
    }

    /** Free the normalizer's memory without finishing (also done when it is garbage-collected). */
    free() {
      if (!this.#finished) {
        this.#finished = true;
        this.#raw.free();
      }
    }
  }
  // `using n = new Normalizer()` where the engine has explicit resource management.
  if (typeof Symbol.dispose === "symbol") {
    Normalizer.prototype[Symbol.dispose] = function dispose() {
      this.free();
    };
  }

  /**
   * Normalize a whole raw stream in one call: the document `toolnorm normalize` prints. The stream
   * is its text (or bytes), or its lines — each a string (the agent's) or `{text, from}` with
   * `from: "client"` for a line the client wrote (two-way proxy records); with lines,
   * `unterminated: true` says the last one was cut short.
   */
  function normalize(input, opts) {
    const [provider, dialect, cwd] = options(opts);
    const stream = streamOf(input, opts);
    if (stream === undefined) throw new TypeError("a stream is a string, a Uint8Array or an array of lines");
    const json = stream.bytes
      ? call(() => normalizeBytes(stream.bytes, provider, dialect, cwd))
      : call(() => normalizeLines(stream.lines, stream.clients, stream.unterminated, provider, dialect, cwd));
    return JSON.parse(json);
  }

  /**
   * A raw stream as the module takes it: `{bytes}` of its text or bytes, or `{lines, clients,
   * unterminated}` of its lines (each a string, the agent's, or `{text, from}`); `undefined` for
   * anything else.
   */
  function streamOf(input, opts) {
    if (typeof input === "string") return { bytes: utf8.encode(input) };
    if (input instanceof Uint8Array) return { bytes: input };
    if (!Array.isArray(input)) return undefined;
    const lines = new Array(input.length);
    const clients = new Uint8Array(input.length);
    input.forEach((line, i) => {
      if (typeof line === "string") lines[i] = line;
      else if (typeof line?.text === "string") {
        lines[i] = line.text;
        clients[i] = line.from === "client" ? 1 : 0;
      } else throw new TypeError(`line ${i + 1} is neither a string nor {text, from}`);
    });
    return { lines, clients, unterminated: opts?.unterminated === true };
  }

  /** The legacy UI parts of a list of parts (`toolnorm normalize --emit legacy`). */
  function toLegacy(parts) {
    if (!Array.isArray(parts)) throw new TypeError("toLegacy takes an array of parts");
    return JSON.parse(call(() => legacyParts(JSON.stringify(parts))));
  }

  // ---- the UI wires (docs/ui-wires.md) -----------------------------------------------------
  // The frames come out of the core's own emitters (the ones `toolnorm normalize --emit ai-sdk |
  // ag-ui` writes with) as JSON text, or as the wire's SSE text with `sse: true`.

  const WIRES = ["ai-sdk", "ag-ui"];

  function wireOptions(wire, o) {
    if (!WIRES.includes(wire)) throw new TypeError(`a wire is "ai-sdk" or "ag-ui", not ${JSON.stringify(wire)}`);
    const sse = o?.sse === true;
    return [...options(o), sse];
  }

  /** A JSON array of frames, or SSE text, as the call asked. */
  const frames = (out, sse) => (sse ? out : JSON.parse(out));

  function isDocument(input) {
    return typeof input === "object" && input !== null && !Array.isArray(input) && !(input instanceof Uint8Array);
  }

  /**
   * Every frame of a whole stream on `wire`: what `toolnorm normalize --emit WIRE` prints, one
   * frame per line (with `sse: true`: the SSE text `--sse` prints). `input` is a raw stream as
   * `normalize` takes it, or a document `normalize` gave.
   */
  function toWire(wire, input, opts) {
    const [provider, dialect, cwd, sse] = wireOptions(wire, opts);
    const stream = streamOf(input, opts);
    let out;
    if (stream?.bytes) out = call(() => wireOfBytes(wire, sse, stream.bytes, provider, dialect, cwd));
    else if (stream) {
      const { lines, clients, unterminated } = stream;
      out = call(() => wireOfLines(wire, sse, lines, clients, unterminated, provider, dialect, cwd));
    } else if (isDocument(input)) out = call(() => wireOfDocument(wire, sse, JSON.stringify(input)));
    else throw new TypeError("a stream is a string, a Uint8Array, an array of lines or a normalized document");
    return frames(out, sse);
  }

  /** The AI SDK UI message chunks of a whole stream (`toolnorm normalize --emit ai-sdk`). */
  function toUIMessageChunks(input, opts) {
    return toWire("ai-sdk", input, opts);
  }

  /** The AG-UI events of a whole stream (`toolnorm normalize --emit ag-ui`). */
  function toAgUiEvents(input, opts) {
    return toWire("ag-ui", input, opts);
  }

  const NEWLINE = 10;

  function concat(pieces) {
    if (pieces.length === 1) return pieces[0];
    const out = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of pieces) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }

  /**
   * A live stream's tool calls as a UI wire: a `TransformStream` whose writable side takes the
   * agent's raw output (text or bytes, in chunks of any size: it cuts the lines itself) and whose
   * readable side gives the wire's frames as they happen (objects; with `sse: true`, the SSE
   * text as UTF-8 bytes, ready for a response body). What `toolnorm normalize --follow --emit
   * WIRE` writes.
   */
  class WireStream extends TransformStream {
    constructor(wire, opts) {
      const [provider, dialect, cwd, sse] = wireOptions(wire, opts);
      const raw = call(() => new RawWireEmitter(wire, provider, dialect, cwd, sse));
      let pending = [];
      const emit = (out, controller) => {
        if (sse) {
          if (out.length > 0) controller.enqueue(utf8.encode(out));
        } else for (const f of JSON.parse(out)) controller.enqueue(f);
      };
      super({
        transform(chunk, controller) {
          let bytes;
          if (typeof chunk === "string") bytes = utf8.encode(chunk);
          else if (chunk instanceof Uint8Array) bytes = chunk;
          else throw new TypeError("a WireStream takes text or bytes (a string or a Uint8Array)");
          let start = 0;
          for (let nl = bytes.indexOf(NEWLINE); nl !== -1; nl = bytes.indexOf(NEWLINE, start)) {
            pending.push(bytes.subarray(start, nl));
            const line = concat(pending);
            pending = [];
            start = nl + 1;
            emit(call(() => raw.pushBytes(line, false, false)), controller);
          }
          // The rest is kept: the caller may reuse its buffer.
          if (start < bytes.length) pending.push(bytes.slice(start));
        },
        flush(controller) {
          try {
            if (pending.length > 0) emit(call(() => raw.pushBytes(concat(pending), false, true)), controller);
            pending = [];
            emit(call(() => raw.end()), controller);
          } finally {
            raw.free();
          }
        },
      });
    }
  }

  /**
   * The AI SDK UI message stream of a live agent: raw lines in, `UIMessageChunk`s out, for
   * `createUIMessageStreamResponse({ stream })` / `pipeUIMessageStreamToResponse`.
   */
  class UIMessageChunkStream extends WireStream {
    constructor(opts) {
      super("ai-sdk", opts);
    }
  }

  /** The AG-UI events of a live agent (for an `HttpAgent` endpoint: `sse: true`). */
  class AgUiEventStream extends WireStream {
    constructor(opts) {
      super("ag-ui", opts);
    }
  }

  return {
    Normalizer,
    normalize,
    toLegacy,
    ToolnormError,
    toUIMessageChunks,
    toAgUiEvents,
    WireStream,
    UIMessageChunkStream,
    AgUiEventStream,
  };
}
