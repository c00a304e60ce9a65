//! The examples a team copies to serve an agent's tool calls to a UI (examples/ai-sdk-server,
//! examples/ag-ui-server), end to end: each server runs on loopback with a recorded session of the
//! corpus replayed as its "live agent" (`toolnorm cat FIXTURE`), and its client (the `ai`
//! package's chat transport and `readUIMessageStream`; `@ag-ui/client`'s `HttpAgent`) rebuilds
//! every tool call of the fixture's expected document. Also the snippets of
//! docs/ui-wires-examples.md, run as they are written. Ignored by a plain `cargo test`: they need
//! node, npm and the WebAssembly toolchain (`scripts/install-test-deps.sh`).

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, PoisonError};

use serde_json::{Value, json};
use toolnorm::NormalizedDocument;
use toolnorm::model::wire::ai_sdk::ui_state;

use crate::cli::util::{assert_ok as ok, root, stdout};

/// An example's directory with its dependencies installed (`npm ci`: the lock file's `ai` or
/// `@ag-ui/client`, and @toolnorm/core from packages/core, built first), once per test run: the
/// tests of one example share its `node_modules`, which `npm ci` would remove under them.
fn example(name: &str) -> PathBuf {
    crate::cli::wasm::package();
    static INSTALLED: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let mut installed = INSTALLED.lock().unwrap_or_else(PoisonError::into_inner);
    let dir = root().join("examples").join(name);
    if installed.iter().any(|n| n == name) {
        return dir;
    }
    let o = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
        .current_dir(&dir)
        .env("npm_config_update_notifier", "false")
        .output()
        .expect("failed to run npm");
    ok(&o, &format!("npm ci in examples/{name}"));
    installed.push(name.to_owned());
    dir
}

/// A server of an example, killed when dropped.
struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Start `dir/server.mjs` on a free loopback port, its agent `toolnorm cat FIXTURE`; its URL is
/// the first line it prints.
fn serve(dir: &Path, fixture: &str) -> Server {
    let agent = json!([env!("CARGO_BIN_EXE_toolnorm"), "cat", root().join(fixture)]);
    let mut child = Command::new("node")
        .arg("server.mjs")
        .current_dir(dir)
        .env("PORT", "0")
        .env("HOST", "127.0.0.1")
        .env("AGENT", agent.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("failed to run node");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("the server said {line:?}"))
        .to_owned();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    Server { child, url }
}

fn client(dir: &Path, url: &str) -> Vec<Value> {
    let o = Command::new("node")
        .args(["client.mjs", url, "Run the checks"])
        .current_dir(dir)
        .output()
        .expect("failed to run node");
    ok(&o, "node client.mjs");
    stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

fn expected(fixture: &str) -> NormalizedDocument {
    let rel = fixture
        .strip_prefix("corpus/")
        .and_then(|f| f.strip_suffix(".jsonl.zst"))
        .unwrap();
    serde_json::from_slice(&fs::read(root().join(format!("expected/{rel}.json"))).unwrap()).unwrap()
}

/// Recorded sessions of three agents, each with calls that worked and calls that failed, one with
/// a call the user refused.
const SESSIONS: [&str; 4] = [
    "corpus/claude/live-claude-bash.jsonl.zst",
    "corpus/claude/live-claude-ask-user.jsonl.zst",
    "corpus/codex/live-codex-0.118.0-app-shell.jsonl.zst",
    "corpus/gemini/live-gemini-files.jsonl.zst",
];

#[test]
#[ignore = "needs node, npm and the WebAssembly toolchain: scripts/install-test-deps.sh"]
fn the_ai_sdk_server_serves_a_replayed_agent_to_the_chat_transport() {
    let dir = example("ai-sdk-server");
    for fixture in SESSIONS {
        let server = serve(&dir, fixture);
        let parts = client(&dir, &server.url);
        let want: Vec<Value> = expected(fixture)
            .parts
            .iter()
            .map(|p| {
                json!({
                    "toolCallId": p.id,
                    "toolName": p.name,
                    "title": p.title,
                    "state": ui_state(p),
                    "input": p.input,
                })
            })
            .collect();
        assert!(!want.is_empty(), "{fixture}");
        assert_eq!(parts, want, "{fixture}");
    }
}

#[test]
#[ignore = "needs node, npm and the WebAssembly toolchain: scripts/install-test-deps.sh"]
fn the_ag_ui_server_serves_a_replayed_agent_to_http_agent() {
    let dir = example("ag-ui-server");
    for fixture in SESSIONS {
        let server = serve(&dir, fixture);
        let calls = client(&dir, &server.url);
        let doc = expected(fixture);
        assert_eq!(calls.len(), doc.parts.len(), "{fixture}: {calls:#?}");
        for (call, part) in calls.iter().zip(&doc.parts) {
            assert_eq!(call["toolCallId"], part.id.as_str(), "{fixture}");
            assert_eq!(call["toolCallName"], part.name.as_str(), "{fixture}");
            assert_eq!(call["args"], part.input, "{fixture}");
            // A finished call has its result; one still open has none.
            let finished = !matches!(
                part.state,
                toolnorm::ToolState::Started | toolnorm::ToolState::Running
            );
            assert_eq!(call.get("result").is_some(), finished, "{fixture}: {call}");
        }
    }
}

/// A directory on PATH whose `claude` replays `fixture` (a recorded session standing in for the
/// agent the snippets start).
fn fake_claude(dir: &Path, fixture: &str) -> String {
    let bin = dir.join("bin");
    fs::create_dir_all(&bin).unwrap();
    let script = bin.join("claude");
    fs::write(
        &script,
        format!(
            "#!/bin/sh\nexec '{}' cat '{}'\n",
            env!("CARGO_BIN_EXE_toolnorm"),
            root().join(fixture).display()
        ),
    )
    .unwrap();
    let mut perms = fs::metadata(&script).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    fs::set_permissions(&script, perms).unwrap();
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// Run a route snippet (`export async function POST(req)`) as the example's server would be
/// reached: the example's own client, its `fetch` answered by the route.
fn run_route(example_dir: &Path, route: &str, fixture: &str) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        example_dir.join("node_modules"),
        dir.path().join("node_modules"),
    )
    .unwrap();
    fs::write(dir.path().join("route.mjs"), route).unwrap();
    let driver = "\
const [route, client] = process.argv.slice(2);
const { POST } = await import(route);
globalThis.fetch = async (url, init) => POST(new Request(url, init));
process.argv = [process.argv[0], client, \"http://127.0.0.1/route\", \"Run the checks\"];
await import(client);
";
    fs::write(dir.path().join("driver.mjs"), driver).unwrap();
    let o = Command::new("node")
        .arg("driver.mjs")
        .arg(dir.path().join("route.mjs"))
        .arg(example_dir.join("client.mjs"))
        .current_dir(dir.path())
        .env("PATH", fake_claude(dir.path(), fixture))
        .output()
        .expect("failed to run node");
    ok(&o, &format!("the route snippet:\n{route}"));
    stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

#[test]
#[ignore = "needs node, npm and the WebAssembly toolchain: scripts/install-test-deps.sh"]
fn the_docs_route_snippets_serve_a_replayed_agent() {
    let blocks = crate::cli::docs::section_blocks(
        "docs/ui-wires-examples.md",
        "From JavaScript: `@toolnorm/core`",
    );
    let route = |file: &str| {
        blocks
            .iter()
            .find(|(info, code)| info == "js" && code.starts_with(&format!("// {file}\n")))
            .map(|(_, code)| code.clone())
            .unwrap_or_else(|| panic!("docs/ui-wires-examples.md: no js block for {file}"))
    };
    let fixture = SESSIONS[0];
    let doc = expected(fixture);

    let parts = run_route(
        &example("ai-sdk-server"),
        &route("app/api/chat/route.js"),
        fixture,
    );
    let ids: Vec<&str> = parts
        .iter()
        .map(|p| p["toolCallId"].as_str().unwrap())
        .collect();
    let want: Vec<&str> = doc.parts.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, want);
    for (got, part) in parts.iter().zip(&doc.parts) {
        assert_eq!(got["title"], part.title.as_str());
        assert_eq!(got["state"], ui_state(part));
    }

    let calls = run_route(
        &example("ag-ui-server"),
        &route("app/api/agent/route.js"),
        fixture,
    );
    let ids: Vec<&str> = calls
        .iter()
        .map(|c| c["toolCallId"].as_str().unwrap())
        .collect();
    assert_eq!(ids, want);
    for (call, part) in calls.iter().zip(&doc.parts) {
        assert_eq!(call["args"], part.input);
        assert!(call.get("result").is_some(), "{call}");
    }
}
