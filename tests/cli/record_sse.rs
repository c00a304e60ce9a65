//! `toolnorm record --sse` end to end, against small SSE servers on 127.0.0.1: each event recorded
//! until the given type, a clean end on interrupt and on close, a refused connection, and a
//! dropped stream subscribed to again with `Last-Event-ID`.

use std::io::{Read, Write};
use std::process::Stdio;
use std::time::Duration;

use toolnorm::corpus::read_fixture;
use toolnorm::stream::Direction;

use crate::cli::util::{cat, run_in, stderr, stdout, tempdir, toolnorm, unsafe_kill};

/// A one-shot SSE server on 127.0.0.1: `body`, then an open connection if `hold`, else a close.
/// The request line and headers a client sent, byte by byte up to the blank line.
fn request_head(conn: &mut impl Read) -> Vec<u8> {
    let mut req = Vec::new();
    let mut byte = [0u8; 1];
    while !req.ends_with(b"\r\n\r\n") && conn.read(&mut byte).unwrap_or(0) == 1 {
        req.push(byte[0]);
    }
    req
}

/// Plain TCP, so every byte is on the wire at once (no chunk buffering in between).
fn sse_server(body: &'static str, hold: bool) -> (String, std::thread::JoinHandle<()>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/event", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        let Ok((mut conn, _)) = listener.accept() else {
            return;
        };
        let req = request_head(&mut conn);
        assert!(
            req.starts_with(b"GET /event "),
            "{}",
            String::from_utf8_lossy(&req)
        );
        let _ = conn.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n",
        );
        let _ = conn.write_all(body.as_bytes());
        let _ = conn.flush();
        if hold {
            std::thread::sleep(Duration::from_secs(30));
        }
    });
    (url, handle)
}

const EVENTS: &str = "event: message\r\ndata: {\"type\":\"server.connected\",\"properties\":{}}\r\n\r\n\
    : keep-alive comment\n\n\
    data: {\"type\":\"session.updated\",\"properties\":{\"info\":{\"version\":\"1.18.33\"}}}\n\n\
    data: {\"type\":\"message.part.updated\",\n\
    data: \"properties\":{}}\n\n\
    data: {\"type\":\"session.idle\",\"properties\":{\"sessionID\":\"s\"}}\n\n\
    data: {\"type\":\"after.idle\",\"properties\":{}}\n\n";

#[test]
fn sse_records_each_event_until_the_given_type() {
    let dir = tempdir();
    let (url, server) = sse_server(EVENTS, true);
    let o = run_in(
        dir.path(),
        &[
            "record",
            "--provider",
            "opencode",
            "--name",
            "ev",
            "--sse",
            &url,
            "--until",
            "session.idle",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let expected = "{\"type\":\"server.connected\",\"properties\":{}}\n\
        {\"type\":\"session.updated\",\"properties\":{\"info\":{\"version\":\"1.18.33\"}}}\n\
        {\"type\":\"message.part.updated\",\n\"properties\":{}}\n\
        {\"type\":\"session.idle\",\"properties\":{\"sessionID\":\"s\"}}\n";
    assert_eq!(stdout(&o), expected);
    assert_eq!(
        stdout(&cat(dir.path(), "corpus/opencode/ev.jsonl.zst", &[])),
        expected
    );
    let h: serde_json::Value = serde_json::from_slice(
        &cat(dir.path(), "corpus/opencode/ev.jsonl.zst", &["--header"]).stdout,
    )
    .unwrap();
    assert_eq!(h["mode"], "sse");
    assert_eq!(h["cliVersion"], "1.18.33");
    assert_eq!(h["dialect"], "events");
    drop(server);
}

#[test]
fn sse_ends_cleanly_on_interrupt_and_on_close() {
    let dir = tempdir();
    let (url, _server) = sse_server(
        "data: {\"type\":\"server.connected\",\"properties\":{}}\n\n",
        true,
    );
    let mut child = toolnorm()
        .args([
            "record",
            "--provider",
            "opencode",
            "--name",
            "int",
            "--sse",
            &url,
        ])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut first = [0u8; 10];
    out.read_exact(&mut first).unwrap();
    unsafe_kill(child.id(), 2);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    let h: serde_json::Value = serde_json::from_slice(
        &cat(dir.path(), "corpus/opencode/int.jsonl.zst", &["--header"]).stdout,
    )
    .unwrap();
    assert_eq!(h["complete"], true);
    assert_eq!(h["lines"], 1);

    let (url, _server) = sse_server(
        "data: {\"type\":\"a.b\"}\n\ndata: {\"type\":\"c.d\"}",
        false,
    );
    let o = run_in(
        dir.path(),
        &[
            "record",
            "--provider",
            "opencode",
            "--name",
            "closed",
            "--sse",
            &url,
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "{\"type\":\"a.b\"}\n{\"type\":\"c.d\"}\n");

    let o = run_in(
        dir.path(),
        &[
            "record",
            "--provider",
            "opencode",
            "--name",
            "refused",
            "--sse",
            "http://127.0.0.1:9/event",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        !dir.path()
            .join("corpus/opencode/refused.jsonl.zst")
            .exists()
    );
}

/// An SSE server that serves `bodies` to successive connections (each closed after its body),
/// then stops listening; returns the request heads it got.
fn sse_server_seq(bodies: Vec<&'static str>) -> (String, std::thread::JoinHandle<Vec<String>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/event", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        let mut heads = Vec::new();
        for body in bodies {
            let Ok((mut conn, _)) = listener.accept() else {
                break;
            };
            let req = request_head(&mut conn);
            heads.push(String::from_utf8_lossy(&req).into_owned());
            let _ = conn.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n",
            );
            let _ = conn.write_all(body.as_bytes());
        }
        heads
    });
    (url, handle)
}

#[test]
fn sse_subscribes_again_when_the_stream_drops() {
    let dir = tempdir();
    let (url, server) = sse_server_seq(vec![
        "id: 7\ndata: {\"type\":\"a.b\"}\n\n",
        "data: {\"type\":\"c.d\"}\n\n",
    ]);
    let o = run_in(
        dir.path(),
        &[
            "record",
            "--provider",
            "opencode",
            "--name",
            "drop",
            "--sse",
            &url,
            "--reconnect",
            "1",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "{\"type\":\"a.b\"}\n{\"type\":\"c.d\"}\n");
    assert_eq!(
        stderr(&o).matches("subscribed again").count(),
        1,
        "{}",
        stderr(&o)
    );
    let heads = server.join().unwrap();
    assert_eq!(heads.len(), 2);
    assert!(
        heads[1].to_ascii_lowercase().contains("last-event-id: 7"),
        "{}",
        heads[1]
    );
    let fx = read_fixture(&dir.path().join("corpus/opencode/drop.jsonl.zst")).unwrap();
    let dirs: Vec<Direction> = fx.lines.iter().map(|l| l.dir).collect();
    assert_eq!(
        dirs,
        [Direction::Agent, Direction::Stderr, Direction::Agent]
    );
    assert!(fx.is_complete(), "{:?}", fx.notes);
}

/// An engine's AI SDK UI message stream endpoint, recorded through `--sse` until its `finish`: the
/// fixture is the `ai-sdk` dialect and normalizes back into the engine's tool parts.
#[test]
fn sse_records_an_engine_s_ai_sdk_stream_as_a_fixture() {
    const BODY: &str = "data: {\"type\":\"start\",\"messageId\":\"m\"}\n\n\
        data: {\"type\":\"tool-input-start\",\"toolCallId\":\"c1\",\"toolName\":\"Bash\",\"title\":\"Running ls\",\"dynamic\":true}\n\n\
        data: {\"type\":\"tool-input-available\",\"toolCallId\":\"c1\",\"toolName\":\"Bash\",\"input\":{\"command\":\"ls\"},\"dynamic\":true,\"toolMetadata\":{\"kind\":\"bash\"}}\n\n\
        data: {\"type\":\"tool-output-error\",\"toolCallId\":\"c1\",\"errorText\":\"exit 2\"}\n\n\
        data: {\"type\":\"finish\"}\n\n\
        data: [DONE]\n\n";
    let dir = tempdir();
    let (url, server) = sse_server(BODY, true);
    let o = run_in(
        dir.path(),
        &[
            "record",
            "--provider",
            "ai-sdk",
            "--name",
            "engine",
            "--sse",
            &url,
            "--until",
            "finish",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    drop(server);
    let fixture = dir.path().join("corpus/ai-sdk/engine.jsonl.zst");
    let o = run_in(
        dir.path(),
        &["normalize", fixture.to_str().unwrap(), "--compact"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(doc["dialect"], "ai-sdk");
    let p = &doc["parts"][0];
    assert_eq!(
        (&p["id"], &p["name"], &p["title"], &p["kind"], &p["state"]),
        (
            &"c1".into(),
            &"Bash".into(),
            &"Running ls".into(),
            &"bash".into(),
            &"error".into()
        )
    );
    assert_eq!(p["error"]["message"], "exit 2");
    assert_eq!(p["input"]["command"], "ls");
    // And judged: accepted, then under the gate like any fixture.
    let o = run_in(dir.path(), &["accept"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run_in(dir.path(), &["verify", "--reports", "r"]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("1 passed"), "{}", stdout(&o));
}
