#!/usr/bin/env node
// A toolnorm protocol (v1) implementation of Claude Code's stream-json only, in plain Node: the
// kind of normalizer a UI team writes in its own language, put under the gate by the protocol
// helper of @toolnorm/core (`serveProtocol`, plain JavaScript: no WebAssembly, no build). It claims
// `claude/stream-json`, so every other dialect is `unsupported` in toolnorm's reports.
//
//   toolnorm verify --impl 'node examples/js-claude/normalize.mjs'
//
// It reads the raw stream-json lines (`claude -p --output-format stream-json --verbose`, with or
// without `--include-partial-messages`) and answers NormalizedToolParts. It sends no `events`
// (toolnorm derives one per part) and an empty `diagnostics` list.

import { serveProtocol } from "../../packages/core/js/protocol.js";

const MAX_TITLE = 100;

// ---- titles -------------------------------------------------------------------------------

function clip(text, max) {
  const words = String(text).split(/\s+/).filter((w) => w.length > 0);
  const chars = Array.from(words.join(" "));
  if (chars.length <= max) return chars.join("");
  return chars.slice(0, max - 1).join("").trimEnd() + "…";
}

function finish(title, fallback) {
  const t = clip(title, MAX_TITLE);
  return t.length > 0 ? t : clip(fallback, MAX_TITLE);
}

function host(url) {
  const s = url.trim();
  const i = s.indexOf("://");
  const afterScheme = i >= 0 ? s.slice(i + 3) : s;
  let authority = afterScheme.split(/[/?#]/)[0];
  const at = authority.lastIndexOf("@");
  if (at >= 0) authority = authority.slice(at + 1);
  const h = authority.startsWith("www.") ? authority.slice(4) : authority;
  return h.length > 0 ? h : s;
}

function urlPath(url) {
  const s = url.trim();
  const i = s.indexOf("://");
  if (i < 0) return "";
  const rest = s.slice(i + 3).split(/[?#]/)[0];
  const slash = rest.indexOf("/");
  return slash < 0 ? "" : rest.slice(slash).replace(/\/+$/, "");
}

function displayPath(path, cwd) {
  if (cwd) {
    const c = cwd.replace(/\/+$/, "");
    if (c.length > 0 && path.startsWith(c)) {
      const rest = path.slice(c.length);
      if (rest.startsWith("/") && rest.length > 1) return rest.slice(1);
      if (rest.length === 0) return ".";
    }
  }
  return path;
}

function capitalize(s) {
  return s.length === 0 ? s : s[0].toUpperCase() + s.slice(1);
}

function words(identifier) {
  return identifier
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[_\-\s]+/)
    .filter((w) => w.length > 0)
    .map((w) => w.toLowerCase())
    .join(" ");
}

function unwrapShell(command) {
  const c = command.trim();
  for (const shell of ["/bin/bash", "/usr/bin/bash", "bash", "/bin/zsh", "zsh", "/bin/sh", "sh"]) {
    for (const flag of ["-lc", "-c"]) {
      const prefix = `${shell} ${flag} `;
      if (c.startsWith(prefix)) {
        const rest = c.slice(prefix.length).trim();
        const q = rest[0];
        if ((q === "'" || q === '"') && rest.length > 1 && rest.endsWith(q)) return rest.slice(1, -1);
        return rest;
      }
    }
  }
  return c;
}

function shellTitle(command) {
  const lines = unwrapShell(command).split("\n").filter((l) => l.trim().length > 0);
  if (lines.length === 0) return "Running a shell command";
  return finish(`Running ${lines[0].trim()}${lines.length > 1 ? " …" : ""}`, "Running a shell command");
}

const str = (input, key) => (typeof input?.[key] === "string" ? input[key] : undefined);
const num = (input, key) => (typeof input?.[key] === "number" ? input[key] : undefined);

function withDetail(action, detail) {
  return detail === undefined ? action : finish(`${action} ${detail}`, action);
}

function readTitle(path, offset, limit) {
  let range = "";
  if (offset !== undefined && limit !== undefined && limit > 0) {
    const o = Math.max(offset, 1);
    range = ` (lines ${o}–${o + limit - 1})`;
  } else if (offset !== undefined && limit === undefined) {
    range = ` (from line ${Math.max(offset, 1)})`;
  } else if (offset === undefined && limit !== undefined && limit > 0) {
    range = ` (lines 1–${limit})`;
  }
  return finish(`Reading ${path}${range}`, "Reading a file");
}

function questionsTitle(qs) {
  const list = Array.isArray(qs) ? qs : [];
  const first = typeof list[0]?.question === "string" && list[0].question.trim() ? list[0].question : undefined;
  if (first !== undefined && list.length <= 1) return finish(`Asking: ${first.trim()}`, "Asking a question");
  if (first !== undefined) return finish(`Asking ${list.length} questions: ${first.trim()}`, "Asking questions");
  return list.length <= 1 ? "Asking a question" : `Asking ${list.length} questions`;
}

function mcpTitle(server, tool, args) {
  if (tool === "browser_snapshot") return "Reading browser page";
  if (tool === "browser_navigate") return "Opening browser page";
  if (tool === "browser_tabs_new") return "Opening browser tab";
  const arg = (keys) => keys.map((k) => args?.[k]).find((v) => typeof v === "string" && v.trim());
  if (tool === "artifacts_register") {
    const n = arg(["name", "title"]);
    return n ? finish(`Registering artifact ${n.trim()}`, "Registering artifact") : "Registering artifact";
  }
  const base = server ? `${capitalize(words(server))}: ${words(tool)}` : capitalize(words(tool));
  const d = arg(["url", "query", "path", "file_path", "name", "title"]);
  return d ? finish(`${base} ${d.trim()}`, "Calling an MCP tool") : finish(base, "Calling an MCP tool");
}

// The part's name, kind and title from the tool's name and input.
function describe(name, input, cwd) {
  if (name.startsWith("mcp__")) {
    const rest = name.slice(5);
    const sep = rest.indexOf("__");
    if (sep > 0) {
      const server = rest.slice(0, sep);
      const tool = rest.slice(sep + 2);
      const kind = tool.startsWith("browser_") || tool.startsWith("browser-") ? "browser" : "mcp";
      return { name: tool, kind, title: mcpTitle(server, tool, input), mcp: { server, tool } };
    }
  }
  const path = (key) => {
    const p = str(input, key);
    if (p === undefined) return undefined;
    const rel = displayPath(p, cwd);
    return rel === "." ? p : rel;
  };
  // Search scopes equal to the working directory are left out of titles.
  const scope = (key) => {
    const p = str(input, key);
    const rel = p === undefined ? undefined : displayPath(p, cwd);
    return rel === "." ? undefined : rel;
  };
  const d = (kind, title) => ({ name, kind, title });
  switch (name) {
    case "Bash":
      return d("bash", shellTitle(str(input, "command") ?? ""));
    case "BashOutput":
    case "TaskOutput":
      return d("bash", withDetail("Reading output of background task", str(input, "task_id") ?? str(input, "bash_id") ?? str(input, "shell_id")));
    case "KillShell":
    case "KillBash":
    case "TaskStop":
      return d("bash", withDetail("Stopping background task", str(input, "task_id") ?? str(input, "shell_id") ?? str(input, "bash_id")));
    case "Read": {
      const p = path("file_path");
      return d("file_read", p === undefined ? "Reading a file" : readTitle(p, num(input, "offset"), num(input, "limit")));
    }
    case "NotebookRead": {
      const p = path("notebook_path");
      return d("file_read", p === undefined ? "Reading a notebook" : readTitle(p));
    }
    case "Write": {
      const p = path("file_path");
      return d("file_write", p === undefined ? "Writing a file" : finish(`Writing ${p}`, "Writing a file"));
    }
    case "Edit":
    case "MultiEdit": {
      const p = path("file_path");
      return d("file_edit", p === undefined ? "Editing a file" : finish(`Editing ${p}`, "Editing a file"));
    }
    case "NotebookEdit": {
      const p = path("notebook_path");
      return d("file_edit", p === undefined ? "Editing a notebook" : finish(`Editing ${p}`, "Editing a file"));
    }
    case "Glob": {
      const pat = str(input, "pattern");
      if (pat === undefined) return d("file_read", "Finding files");
      const s = scope("path");
      return d("file_read", s ? finish(`Finding files matching ${pat} in ${s}`, "Finding files") : finish(`Finding files matching ${pat}`, "Finding files"));
    }
    case "Grep": {
      const pat = str(input, "pattern");
      if (pat === undefined) return d("file_read", "Searching files");
      const s = scope("path") ?? str(input, "glob");
      return d("file_read", s ? finish(`Searching for "${pat}" in ${s}`, "Searching files") : finish(`Searching for "${pat}"`, "Searching files"));
    }
    case "LS": {
      const p = path("path");
      return d("file_read", p === undefined ? "Listing files" : finish(`Listing ${p}`, "Listing files"));
    }
    case "WebFetch":
    case "web_fetch": {
      const url = str(input, "url") ?? "";
      return d("browser", url.trim() ? finish(`Fetching ${host(url)}${urlPath(url)}`, "Fetching a web page") : "Fetching a web page");
    }
    case "WebSearch":
    case "web_search": {
      const q = (str(input, "query") ?? "").trim();
      return d("web_search", q ? finish(`Searching ${q}`, "Searching the web") : "Searching the web");
    }
    case "Agent":
    case "Task": {
      const desc = str(input, "description");
      const prompt = str(input, "prompt");
      if (desc && desc.trim()) return d("subagent", finish(capitalize(desc.trim()), "Running a subagent"));
      if (prompt && prompt.trim()) return d("subagent", finish(`Subagent: ${prompt.trim()}`, "Running a subagent"));
      return d("subagent", "Running a subagent");
    }
    case "TodoWrite": {
      const todos = Array.isArray(input?.todos) ? input.todos : [];
      const done = todos.filter((t) => t?.status === "completed").length;
      const title =
        todos.length === 0
          ? "Updating the todo list"
          : `Updating the todo list (${todos.length} ${todos.length === 1 ? "item" : "items"}, ${done} done)`;
      return d("todo", title);
    }
    case "TodoRead":
      return d("todo", "Reading the todo list");
    case "TaskCreate":
      return d("todo", withDetail("Creating task", str(input, "subject")));
    case "TaskGet":
      return d("todo", withDetail("Reading task", str(input, "taskId")));
    case "TaskUpdate": {
      const what = str(input, "subject") ?? str(input, "taskId");
      const status = str(input, "status");
      return d("todo", what !== undefined && status !== undefined ? finish(`Updating task ${what} (${status})`, "Updating a task") : withDetail("Updating task", what));
    }
    case "TaskList":
      return d("todo", "Listing tasks");
    case "EnterPlanMode":
      return d("todo", "Entering plan mode");
    case "AskUserQuestion":
      return d("question", questionsTitle(input?.questions));
    case "Skill":
      return d("unknown", withDetail("Using skill", str(input, "skill") ?? str(input, "command")));
    default: {
      const w = words(name);
      return d("unknown", w ? finish(`Using ${w}`, "Using a tool") : "Using a tool");
    }
  }
}

// ---- results --------------------------------------------------------------------------------

function firstLine(text) {
  const lines = text
    .split("\n")
    .map((l) => l.trim().replace(/^#+/, "").trim())
    .filter((l) => l.length > 0);
  const first = lines[0] ?? "";
  const line = ["error", "error:", "errors"].includes(first.toLowerCase()) ? lines[1] ?? first : first;
  return clip(line, 200);
}

function plainError(t) {
  if (t.length === 0) return { message: "The tool call failed" };
  const message = firstLine(t);
  return message !== t ? { message, details: t } : { message };
}

function classifyError(kind, text, structuredText) {
  const t = text.trim();
  if (t.startsWith("[Request interrupted by user")) return { message: "Interrupted by the user", code: "interrupted" };
  if (t.startsWith("Permission prompt was aborted")) return { message: "The permission prompt was aborted", code: "aborted" };
  if (
    structuredText === "User rejected tool use" ||
    t === "User rejected tool use" ||
    t.startsWith("The user doesn't want to proceed with this tool use") ||
    t.startsWith("The user doesn't want to take this action")
  ) {
    return { message: "Rejected by the user", code: "declined" };
  }
  if (t.startsWith("Claude requested permissions to ") || t.includes("haven't granted it yet")) {
    return { message: firstLine(t), code: "permission_denied" };
  }
  if (t.startsWith("<tool_use_error>")) {
    let inner = t.slice("<tool_use_error>".length).trimEnd();
    if (inner.endsWith("</tool_use_error>")) inner = inner.slice(0, -"</tool_use_error>".length);
    return plainError(inner.trim());
  }
  if (kind === "bash") {
    const body = t.startsWith("Error: ") ? t.slice(7) : t;
    if (body.startsWith("Exit code ")) {
      const rest = body.slice(10);
      const nl = rest.indexOf("\n");
      const code = (nl < 0 ? rest : rest.slice(0, nl)).trim();
      const output = nl < 0 ? "" : rest.slice(nl + 1);
      if (/^-?\d+$/.test(code)) {
        const e = { message: `Exit code ${Number(code)}`, code: String(Number(code)) };
        if (output.length > 0) e.details = output;
        return e;
      }
    }
  }
  if (t.startsWith("{")) {
    try {
      const v = JSON.parse(t);
      const msg = typeof v?.message === "string" ? v.message : typeof v?.error === "string" ? v.error : undefined;
      if (v && typeof v === "object" && !Array.isArray(v) && msg !== undefined) return { message: firstLine(msg), details: v };
    } catch {
      // not JSON: a plain error
    }
  }
  return plainError(t);
}

function stripSystemReminder(text) {
  const i = text.lastIndexOf("<system-reminder>");
  return i >= 0 && text.trimEnd().endsWith("</system-reminder>") ? text.slice(0, i).trimEnd() : text;
}

function isTruncated(text) {
  return (
    (text.includes(" lines truncated] ...") && text.includes("... [")) ||
    text.includes("(Results are truncated. Consider using a more specific path or pattern.)")
  );
}

// `…\nagentId: abc (use SendMessage …)\n<usage>…duration_ms: 151</usage>` at the end of an Agent result.
function splitAgentTrailer(text) {
  let start;
  if (text.startsWith("agentId: ")) start = 0;
  else {
    const i = text.lastIndexOf("\nagentId: ");
    if (i < 0) return undefined;
    start = i + 1;
  }
  const trailer = text.slice(start);
  const agentId = trailer.slice(9).split(/[\s(]/)[0] || undefined;
  const ms = /duration_ms:\s*(\d+)/.exec(trailer);
  return { body: text.slice(0, start).trimEnd(), agentId, durationMs: ms ? Number(ms[1]) : undefined };
}

function millis(v) {
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? Math.round(v) : undefined;
}

// ---- the session ----------------------------------------------------------------------------

const TERMINAL = new Set(["complete", "error"]);

class Session {
  constructor(cwd) {
    this.cwd = cwd;
    this.parts = new Map();
    this.tasks = new Map();
  }

  upsert(id, update) {
    const part = this.parts.get(id);
    if (!part) return;
    for (const [k, v] of Object.entries(update)) {
      if (v === undefined) continue;
      if (k === "metadata" || k === "timing") part[k] = { ...(part[k] ?? {}), ...v };
      else if (k === "state") {
        if (!(TERMINAL.has(part.state) && !TERMINAL.has(v))) part.state = v;
      } else part[k] = v;
    }
  }

  toolUse(block, parent, streamed) {
    const id = block.id;
    if (typeof id !== "string") return;
    const input = block.input && typeof block.input === "object" && !Array.isArray(block.input) ? block.input : {};
    const known = this.parts.get(id);
    const d = describe(block.name ?? "", input, this.cwd);
    if (known) {
      if (!streamed && Object.keys(input).length > 0) this.upsert(id, { input, title: d.title });
      return;
    }
    const metadata = { providerType: block.type === "server_tool_use" ? "server_tool_use" : "tool_use" };
    if (d.mcp) metadata.mcp = d.mcp;
    if (parent) metadata.parentToolUseId = parent;
    if (d.kind === "subagent" && typeof input.subagent_type === "string") metadata.subagentType = input.subagent_type;
    this.parts.set(id, { id, name: d.name, kind: d.kind, title: d.title, input, state: streamed ? "started" : "running", metadata });
  }

  toolResult(block, structured, timestamp) {
    const id = block.tool_use_id;
    const part = this.parts.get(id);
    if (!part) return;
    let text = "";
    const attachments = [];
    let objectContent = false;
    if (typeof block.content === "string") text = block.content;
    else if (Array.isArray(block.content)) {
      for (const b of block.content) {
        if (b?.type === "text" && typeof b.text === "string") text = text.length > 0 ? `${text}\n${b.text}` : b.text;
        else if (b?.type === "image" || b?.type === "document") {
          const a = {};
          if (typeof b.source?.media_type === "string") a.mediaType = b.source.media_type;
          if (typeof b.source?.data === "string") a.size = b.source.data.length;
          attachments.push(a);
        }
      }
    } else if (block.content !== undefined && block.content !== null) objectContent = true;

    const kind = part.kind;
    const wantsStructured = ["bash", "subagent", "web_search", "browser", "question"].includes(kind) || ["Glob", "Grep"].includes(part.name);
    const fields = wantsStructured && structured && typeof structured === "object" && !Array.isArray(structured) ? structured : {};
    const structuredText = typeof structured === "string" ? structured : undefined;

    const metadata = {};
    const timing = {};
    if (!part.timing?.completedAt && timestamp) timing.completedAt = timestamp;
    const elapsed =
      millis(fields.totalDurationMs) ?? millis(fields.durationMs) ?? (typeof fields.durationSeconds === "number" ? millis(fields.durationSeconds * 1000) : undefined);
    if (elapsed !== undefined) timing.elapsedMs = elapsed;
    if (attachments.length > 0) metadata.attachments = attachments;
    if (typeof fields.agentId === "string" && fields.agentId) metadata.agentId = fields.agentId;
    if (typeof fields.backgroundTaskId === "string" && fields.backgroundTaskId) metadata.taskId = fields.backgroundTaskId;
    if (fields.answers && typeof fields.answers === "object") {
      const qs = Array.isArray(part.input?.questions) ? part.input.questions : [];
      metadata.answers = qs.map((q) => {
        const answer = fields.answers[q?.question ?? ""];
        if (typeof answer !== "string") return [];
        const labels = (Array.isArray(q.options) ? q.options : []).map((o) => o?.label).filter((l) => typeof l === "string");
        const pieces = answer.split(", ");
        return pieces.every((p) => labels.includes(p)) ? pieces : [answer];
      });
    }
    if (kind === "subagent") {
      const split = splitAgentTrailer(text);
      if (split) {
        if (split.agentId && metadata.agentId === undefined && part.metadata?.agentId === undefined) metadata.agentId = split.agentId;
        if (timing.elapsedMs === undefined && split.durationMs !== undefined) timing.elapsedMs = split.durationMs;
        text = split.body;
      }
    }
    if (fields.truncated === true || isTruncated(text)) metadata.truncated = true;

    const update = { metadata, timing: Object.keys(timing).length > 0 ? timing : undefined };
    if (block.is_error === true || objectContent) {
      const error = classifyError(kind, text, structuredText);
      if (error.code !== undefined && /^-?\d+$/.test(error.code)) metadata.exitCode = Number(error.code);
      update.state = "error";
      update.error = error;
    } else if (kind === "bash" && fields.interrupted === true) {
      update.state = "error";
      update.error = { message: "The command was interrupted", code: "interrupted" };
      if (text.length > 0) update.error.details = text;
    } else {
      update.state = "complete";
      const shown = kind === "file_read" ? stripSystemReminder(text) : text;
      if (shown.length > 0 || attachments.length === 0) update.output = shown;
    }
    this.upsert(id, update);
  }

  task(msg) {
    const taskId = typeof msg.task_id === "string" ? msg.task_id : undefined;
    const toolUseId = typeof msg.tool_use_id === "string" ? msg.tool_use_id : undefined;
    if (taskId && toolUseId && !this.tasks.has(taskId)) this.tasks.set(taskId, toolUseId);
    const id = toolUseId ?? (taskId ? this.tasks.get(taskId) : undefined);
    if (!id || !this.parts.has(id)) return;
    const update = {};
    if (taskId) update.metadata = { taskId };
    const ms = millis(msg.usage?.duration_ms ?? msg.duration_ms);
    if (ms !== undefined) update.timing = { elapsedMs: ms };
    const status = typeof msg.status === "string" ? msg.status : undefined;
    if (msg.subtype === "task_started" || msg.subtype === "task_progress") update.state = "running";
    else if (status === "failed") {
      const why = typeof msg.error === "string" ? msg.error : typeof msg.summary === "string" ? msg.summary : undefined;
      update.state = "error";
      update.error = { message: why ? firstLine(why) : "The task failed", code: "failed" };
    } else if (status === "stopped" || status === "killed") {
      update.state = "error";
      update.error = { message: "The task was stopped", code: "interrupted" };
    }
    this.upsert(id, update);
  }

  permissionDenied(denial) {
    const id = denial?.tool_use_id;
    if (typeof id !== "string") return;
    if (!this.parts.has(id)) {
      if (typeof denial.tool_name !== "string") return;
      const input = denial.tool_input && typeof denial.tool_input === "object" ? denial.tool_input : {};
      const d = describe(denial.tool_name, input, this.cwd);
      const metadata = { providerType: "permission_denial" };
      if (d.mcp) metadata.mcp = d.mcp;
      this.parts.set(id, { id, name: d.name, kind: d.kind, title: d.title, input, state: "started", metadata });
    }
    const message = this.parts.get(id).error?.message ?? `Permission to use ${denial.tool_name ?? "the tool"} was denied`;
    this.upsert(id, { state: "error", error: { message, code: "permission_denied" } });
  }

  line(msg) {
    if (!msg || typeof msg !== "object") return;
    const parent = typeof msg.parent_tool_use_id === "string" ? msg.parent_tool_use_id : undefined;
    switch (msg.type) {
      case "system":
        if (msg.subtype === "init" && typeof msg.cwd === "string") this.cwd = msg.cwd;
        else if (typeof msg.subtype === "string" && msg.subtype.startsWith("task_")) this.task(msg);
        break;
      case "assistant":
        for (const b of Array.isArray(msg.message?.content) ? msg.message.content : []) {
          if (typeof b?.type === "string" && b.type.endsWith("tool_use")) this.toolUse(b, parent, false);
        }
        break;
      case "stream_event": {
        const e = msg.event;
        if (e?.type === "content_block_start" && typeof e.content_block?.type === "string" && e.content_block.type.endsWith("tool_use")) {
          this.toolUse(e.content_block, parent, true);
        }
        break;
      }
      case "user":
        for (const b of Array.isArray(msg.message?.content) ? msg.message.content : []) {
          if (b?.type === "tool_result") this.toolResult(b, msg.tool_use_result, typeof msg.timestamp === "string" ? msg.timestamp : undefined);
        }
        break;
      case "result":
        for (const d of Array.isArray(msg.permission_denials) ? msg.permission_denials : []) this.permissionDenied(d);
        break;
      default:
        break;
    }
  }

  finish() {
    return [...this.parts.values()].map((p) => {
      const out = { ...p };
      if (out.metadata && Object.keys(out.metadata).length === 0) delete out.metadata;
      return out;
    });
  }
}

function normalize(req) {
  const session = new Session(req.cwd);
  for (const line of req.lines) {
    if (line.from !== "agent" || line.bytes) continue; // client lines and undecodable bytes say nothing here
    let msg;
    try {
      msg = JSON.parse(line.text);
    } catch {
      continue;
    }
    session.line(msg);
  }
  return session.finish();
}

// ---- the protocol: the helper of @toolnorm/core (plain JavaScript, no WebAssembly) ----------

await serveProtocol((req) => ({ parts: normalize(req), diagnostics: [] }), {
  name: "js-claude",
  version: "0.1.0",
  dialects: ["claude/stream-json"],
});
