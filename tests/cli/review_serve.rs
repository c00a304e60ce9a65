//! `toolnorm review --serve` end to end: the binary serves the report's page on loopback behind
//! the token it prints; a request without it, with a wrong one, or naming another host is
//! refused; a post from elsewhere is refused; accepting one fixture from the page writes its
//! expected file and nothing else; a fixture name the page does not preview (a path that climbs
//! out, a glob) is refused; Done stops the server. This is what runs the `review --serve`
//! blocks of docs/view.md and docs/reviewing.md (a server that waits for Done cannot run as a
//! shell snippet): the same command, its printed URL read, the page driven.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Stdio};

use crate::cli::util::{root, run_in, stderr, tempdir, toolnorm};

/// A served review: the child (killed if the test fails first), its port and the page's path.
pub struct Served {
    pub child: Child,
    pub out: BufReader<ChildStdout>,
    pub port: u16,
    /// `/t/TOKEN/`.
    pub base: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Served {
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}{}", self.port, self.base)
    }

    pub fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

/// A corpus of three fixtures in `d`, verified: two new (no expected file), one whose expected
/// file has a changed title and state.
pub fn verified_corpus(d: &Path) {
    verified_corpus_titled(d, "Writing elsewhere");
}

/// [`verified_corpus`], the changed expected file's first part titled `title`.
pub fn verified_corpus_titled(d: &Path, title: &str) {
    for (agent, name) in [
        ("claude", "live-claude-2.1.123-write-edit"),
        ("claude", "live-claude-2.1.197-bash"),
        ("codex", "live-codex-exec-patch"),
    ] {
        std::fs::create_dir_all(d.join("corpus").join(agent)).unwrap();
        std::fs::copy(
            root().join(format!("corpus/{agent}/{name}.jsonl.zst")),
            d.join(format!("corpus/{agent}/{name}.jsonl.zst")),
        )
        .unwrap();
    }
    std::fs::create_dir_all(d.join("expected/claude")).unwrap();
    let text =
        std::fs::read_to_string(root().join("expected/claude/live-claude-2.1.123-write-edit.json"))
            .unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    doc["parts"][0]["title"] = title.into();
    std::fs::write(
        d.join("expected/claude/live-claude-2.1.123-write-edit.json"),
        serde_json::to_string_pretty(&doc).unwrap() + "\n",
    )
    .unwrap();
    let o = run_in(d, &["verify", "--expectations", "/dev/null"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

/// Start `toolnorm review --serve` in `d` and wait for the URL line it prints.
pub fn serve(d: &Path, extra: &[&str]) -> Served {
    let mut child = toolnorm()
        .args(["review", "--serve"])
        .args(extra)
        .current_dir(d)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start toolnorm review --serve");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    let url = loop {
        line.clear();
        let n = out.read_line(&mut line).unwrap();
        assert!(n > 0, "review --serve ended before printing its URL");
        if let Some(at) = line.find("http://127.0.0.1:") {
            break line[at..].trim().to_owned();
        }
    };
    let rest = url.strip_prefix("http://127.0.0.1:").unwrap();
    let (port, base) = rest.split_at(rest.find('/').unwrap());
    assert!(
        base.starts_with("/t/") && base.len() >= "/t/".len() + 32 && base.ends_with('/'),
        "{url}"
    );
    Served {
        child,
        out,
        port: port.parse().unwrap(),
        base: base.to_owned(),
    }
}

/// One HTTP/1.1 request over a fresh connection with exactly these headers; (status, body).
pub fn request(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    if method == "POST" {
        req.push_str(&format!(
            "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).unwrap();
    let mut resp = Vec::new();
    s.read_to_end(&mut resp).unwrap();
    let resp = String::from_utf8_lossy(&resp).into_owned();
    let status = resp
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no status in {resp:?}"));
    let body = resp
        .split_once("\r\n\r\n")
        .map(|x| x.1)
        .unwrap_or("")
        .to_owned();
    (status, body)
}

/// Every file under `dir` (relative paths) with its bytes.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for e in walk(dir) {
        out.push((
            e.strip_prefix(dir).unwrap().to_owned(),
            std::fs::read(&e).unwrap(),
        ));
    }
    out.sort();
    out
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn review_serve_guards_its_page_and_accepts_exactly_one_fixture() {
    let dir = tempdir();
    let d = dir.path();
    verified_corpus(d);
    let before = files(&d.join("expected"));
    let mut s = serve(d, &[]);
    let host = format!("127.0.0.1:{}", s.port);
    let h = [("Host", host.as_str())];

    // Without the token, with a wrong one, or one a character short: refused.
    let wrong = format!("/t/{}/", "0".repeat(32));
    let short = &s.base[..s.base.len() - 2];
    for path in ["/", "/t/", wrong.as_str(), short, "/t//accept"] {
        let (code, _) = request(s.port, "GET", path, &h, "");
        assert_eq!(code, 403, "GET {path}");
    }
    // The token, but another host (a DNS rebinding), or no Host at all: refused.
    for host in [
        "evil.example",
        "evil.example:80",
        "127.0.0.1",
        "127.0.0.2:1",
        "localhost.evil.example",
    ] {
        let (code, _) = request(s.port, "GET", &s.base, &[("Host", host)], "");
        assert_eq!(code, 403, "Host: {host}");
    }
    let (code, _) = request(s.port, "GET", &s.base, &[], "");
    assert_eq!(code, 403, "no Host");

    // The page: every failing fixture's cards, an accept button each, the Done button.
    let (code, page) = request(s.port, "GET", &s.base, &h, "");
    assert_eq!(code, 200);
    assert!(page.contains("<article class=\"tc "), "no cards");
    assert_eq!(page.matches("class=\"accept-form\"").count(), 3);
    assert!(page.contains("class=\"done-btn\""));
    assert!(
        page.contains("form-action 'self'"),
        "the page's forms could not post"
    );
    assert!(page.contains("1 card of 4 changed"), "no changed card");

    // Posts from anywhere but the page, and fixtures the page does not preview: refused.
    let bash = "provider=claude&name=live-claude-2.1.197-bash";
    let accept = format!("{}accept", s.base);
    let origin = s.origin();
    let other_port = format!("http://127.0.0.1:{}", s.port.wrapping_add(1));
    for (o, site) in [
        (None, None),
        (Some("http://evil.example"), None),
        (Some("http://evil.example"), Some("same-origin")),
        (Some(other_port.as_str()), Some("same-site")),
        (Some("null"), None),
        (Some("null"), Some("cross-site")),
        (Some("null"), Some("same-site")),
        (None, Some("none")),
    ] {
        let mut hs = vec![("Host", host.as_str())];
        hs.extend(o.map(|o| ("Origin", o)));
        hs.extend(site.map(|x| ("Sec-Fetch-Site", x)));
        assert_eq!(
            request(s.port, "POST", &accept, &hs, bash).0,
            403,
            "Origin {o:?}, Sec-Fetch-Site {site:?}"
        );
    }
    let hs = [("Host", host.as_str()), ("Origin", origin.as_str())];
    for body in [
        "provider=claude&name=..%2F..%2F..%2Fetc%2Fpasswd",
        "provider=..%2F..&name=live-claude-2.1.197-bash",
        "provider=claude&name=*",
        "provider=claude&name=live-claude-2.1.197-bash%00",
        "provider=claude",
        "name=live-claude-2.1.197-bash",
    ] {
        let (code, why) = request(s.port, "POST", &accept, &hs, body);
        assert!(code == 404 || code == 400, "{body}: {code} {why}");
    }
    assert_eq!(
        files(&d.join("expected")),
        before,
        "a refused post wrote something"
    );

    // Accept one fixture from the page: its expected file, exactly, and nothing else.
    let (code, _) = request(s.port, "POST", &accept, &hs, bash);
    assert_eq!(code, 303);
    let mut want = before.clone();
    let pending =
        std::fs::read(d.join("reports/pending/claude/live-claude-2.1.197-bash.json")).ok();
    let written = std::fs::read(d.join("expected/claude/live-claude-2.1.197-bash.json"))
        .expect("the accepted fixture's expected file");
    want.push((
        PathBuf::from("claude/live-claude-2.1.197-bash.json"),
        written.clone(),
    ));
    want.sort();
    assert_eq!(
        files(&d.join("expected")),
        want,
        "more than the one fixture was written"
    );
    assert!(pending.is_none(), "its pending output was not removed");
    // What the command line would have written.
    let cli = tempdir();
    for x in ["corpus", "reports"] {
        copy_dir(&d.join(x), &cli.path().join(x));
    }
    let o = run_in(
        cli.path(),
        &["accept", "--filter", "claude/live-claude-2.1.197-bash"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(
            cli.path()
                .join("expected/claude/live-claude-2.1.197-bash.json")
        )
        .unwrap(),
        written
    );

    // The page now says so, and offers the other two.
    let (_, page) = request(s.port, "GET", &s.base, &h, "");
    assert_eq!(page.matches("class=\"accept-form\"").count(), 2);
    assert!(
        page.contains("accepted: created "),
        "the page did not update"
    );

    // Done stops the server.
    let (code, body) = request(s.port, "POST", &format!("{}done", s.base), &hs, "");
    assert_eq!(code, 200, "{body}");
    let status = s.child.wait().unwrap();
    assert!(status.success());
    let mut rest = String::new();
    s.out.read_to_string(&mut rest).unwrap();
    assert!(
        rest.contains("accepted claude/live-claude-2.1.197-bash: created"),
        "{rest}"
    );
    assert!(
        rest.contains("review finished: 1 accepted from the page"),
        "{rest}"
    );
}

fn copy_dir(from: &Path, to: &Path) {
    for f in walk(from) {
        let dst = to.join(f.strip_prefix(from).unwrap());
        std::fs::create_dir_all(dst.parent().unwrap()).unwrap();
        std::fs::copy(&f, &dst).unwrap();
    }
}

#[test]
fn review_serve_stops_on_ctrl_c_and_needs_a_report() {
    let dir = tempdir();
    let d = dir.path();
    // No report yet: a clear error.
    let o = run_in(d, &["review", "--serve"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("run toolnorm verify"), "{}", stderr(&o));

    verified_corpus(d);
    let mut s = serve(d, &[]);
    crate::cli::util::unsafe_kill(s.child.id(), 2);
    let status = s.child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    let mut rest = String::new();
    s.out.read_to_string(&mut rest).unwrap();
    assert!(rest.contains("review stopped: 0 accepted"), "{rest}");
}
