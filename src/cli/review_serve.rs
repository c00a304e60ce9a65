//! `toolnorm review --serve`: the report's page, previews and all, served on loopback with an
//! accept button per fixture and a "done" button.
//!
//! Safety: the server listens on 127.0.0.1 only, on a port the system picks, and answers only
//! requests whose path starts with `/t/TOKEN/`, the one-time token drawn from the system's
//! random source at start and printed in the URL (compared in constant time). Every request
//! must name the loopback host and that port in `Host` (a page of another site that a DNS
//! rebinding points at 127.0.0.1 cannot read or post to it); a POST must also come from the
//! page itself (`Origin` the server's own origin, or the browser's `Sec-Fetch-Site:
//! same-origin`, see `same_origin`). An accept names a fixture by provider and
//! name, and only a fixture the page previews is accepted; it does what the fixture's copyable
//! `toolnorm accept` command does (re-normalize it, write its expected file under the expected
//! folder, through no link, and remove its pending output). The pages are sent with
//! `no-store`, no referrer, and may not be framed.

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Context;

use crate::cli::exit;
use crate::report::Report;
use crate::report::cards::preview::{self, Folders, Previews, Served};
use crate::report::html;
use crate::verify::Selection;
use crate::verify::accept::accept;

/// The largest request body read (a form with a provider and a fixture name).
const MAX_BODY: u64 = 16 * 1024;
/// How often the request loop looks at the Ctrl-C flag.
const TICK: Duration = Duration::from_millis(200);

/// What the command line gives the server.
pub struct Options {
    pub reports: PathBuf,
    pub corpus: PathBuf,
    pub expected: PathBuf,
    pub open: bool,
}

/// A one-time token: 16 bytes from the system's random source, as hex.
fn token() -> io::Result<String> {
    let mut b = [0u8; 16];
    random_bytes(&mut b)?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

#[cfg(unix)]
fn random_bytes(b: &mut [u8]) -> io::Result<()> {
    std::fs::File::open("/dev/urandom")?.read_exact(b)
}

/// Elsewhere: std's hasher keys, which it draws from the system's random source, through
/// SipHash (a keyed pseudo-random function) over a counter.
#[cfg(not(unix))]
fn random_bytes(b: &mut [u8]) -> io::Result<()> {
    use std::hash::{BuildHasher, Hasher};
    let keys = std::collections::hash_map::RandomState::new();
    for (i, chunk) in b.chunks_mut(8).enumerate() {
        let mut h = keys.build_hasher();
        h.write_usize(i);
        let v = h.finish().to_le_bytes();
        chunk.copy_from_slice(&v[..chunk.len()]);
    }
    Ok(())
}

/// Whether `a` and `b` are equal, in a time that depends on their lengths only.
pub fn same_secret(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
}

/// Whether a `Host` header names this server on loopback: `127.0.0.1:PORT` or
/// `localhost:PORT`, the port its own.
pub fn loopback_host(host: &str, port: u16) -> bool {
    let Some((name, p)) = host.rsplit_once(':') else {
        return false;
    };
    p == port.to_string() && (name == "127.0.0.1" || name.eq_ignore_ascii_case("localhost"))
}

/// Whether an `Origin` header is this server's own origin.
pub fn own_origin(origin: &str, port: u16) -> bool {
    origin
        .strip_prefix("http://")
        .is_some_and(|host| loopback_host(host, port))
}

/// Whether a request comes from this server's own page: its `Origin` is the server's origin;
/// or, since the page sends no referrer (and so a browser sends `Origin: null` on its form
/// posts), `Origin` is `null` or absent and the browser's `Sec-Fetch-Site` says same-origin (a
/// page of another port on 127.0.0.1 is same-site, not same-origin).
fn same_origin(h: &Headers, port: u16) -> bool {
    match h.origin.as_deref() {
        Some(o) if own_origin(o, port) => true,
        None | Some("null") => h.fetch_site.as_deref() == Some("same-origin"),
        Some(_) => false,
    }
}

/// The fields of an `application/x-www-form-urlencoded` body (`+` a space, `%XX` a byte); a
/// field whose bytes are not UTF-8 is left out.
pub fn form_fields(body: &[u8]) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for pair in body.split(|&b| b == b'&') {
        let mut kv = pair.splitn(2, |&b| b == b'=');
        let (Some(k), v) = (kv.next(), kv.next()) else {
            continue;
        };
        if let (Some(k), Some(v)) = (url_decode(k), url_decode(v.unwrap_or_default())) {
            out.insert(k, v);
        }
    }
    out
}

fn url_decode(s: &[u8]) -> Option<String> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < s.len() => {
                let hex = std::str::from_utf8(&s[i + 1..i + 3]).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 2;
            }
            b'%' => return None,
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).ok()
}

/// What one request gets.
enum Answer {
    Page,
    Status(u16, String),
    Redirect(String),
    Done,
}

/// The server's state: the report, its previews (with what was accepted), the folders.
struct State {
    report: Report,
    previews: Previews,
    folders: Folders,
    token: String,
    port: u16,
}

impl State {
    fn base(&self) -> String {
        format!("/t/{}/", self.token)
    }

    /// Decide what `method path` with these headers and body gets.
    fn answer(&mut self, method: &str, url: &str, headers: &Headers, body: &[u8]) -> Answer {
        if !headers
            .host
            .as_deref()
            .is_some_and(|h| loopback_host(h, self.port))
        {
            return Answer::Status(
                403,
                "forbidden: the Host header must name this server on 127.0.0.1".into(),
            );
        }
        let path = url.split(['?', '#']).next().unwrap_or_default();
        let rest = path.strip_prefix("/t/").unwrap_or_default();
        let (given, rest) = rest.split_once('/').unwrap_or((rest, ""));
        if !same_secret(given.as_bytes(), self.token.as_bytes()) {
            return Answer::Status(
                403,
                "forbidden: this page needs the URL toolnorm review printed".into(),
            );
        }
        match (method, rest) {
            ("GET" | "HEAD", "") => Answer::Page,
            ("POST", "accept" | "done") if !same_origin(headers, self.port) => Answer::Status(
                403,
                "forbidden: a post must come from the review page".into(),
            ),
            ("POST", "accept") => self.accept(&form_fields(body)),
            ("POST", "done") => Answer::Done,
            (_, "" | "accept" | "done") => Answer::Status(405, "method not allowed".into()),
            _ => Answer::Status(404, "not found".into()),
        }
    }

    /// Accept the fixture the form names, if the page previews it.
    fn accept(&mut self, form: &HashMap<String, String>) -> Answer {
        let (Some(provider), Some(name)) = (form.get("provider"), form.get("name")) else {
            return Answer::Status(400, "bad request: name a provider and a fixture".into());
        };
        if self.previews.get(provider, name).is_none() {
            return Answer::Status(
                404,
                format!("no fixture {provider}/{name} on this page: nothing accepted"),
            );
        }
        let selection = Selection {
            filter: Some(preview::glob_literal(&format!("{provider}/{name}"))),
            provider: None,
            shard: None,
        };
        let f = &self.folders;
        let said = match accept(&f.corpus, &f.expected, Some(&f.reports), &selection, 1) {
            Ok(done) if !done.errors.is_empty() => {
                let why: Vec<String> = done
                    .errors
                    .iter()
                    .map(|(p, m)| format!("{p}: {m}"))
                    .collect();
                return Answer::Status(500, format!("not accepted: {}", why.join("; ")));
            }
            Ok(done) => match (done.created.first(), done.updated.first()) {
                (Some(p), _) => format!("created {}", f.expected.join(p).display()),
                (_, Some(p)) => format!("updated {}", f.expected.join(p).display()),
                _ if done.unchanged > 0 => "expected file already the same".to_owned(),
                _ => {
                    return Answer::Status(
                        404,
                        format!("{provider}/{name} is no longer in the corpus"),
                    );
                }
            },
            Err(e) => return Answer::Status(500, format!("not accepted: {e}")),
        };
        let _ = writeln!(io::stdout(), "accepted {provider}/{name}: {said}");
        if let Some(s) = self.previews.served.as_mut() {
            s.accepted.insert((provider.clone(), name.clone()), said);
        }
        Answer::Redirect(format!(
            "{}#{}",
            self.base(),
            html::fixture_anchor(provider, name)
        ))
    }
}

/// The headers a request is judged on.
#[derive(Default)]
struct Headers {
    host: Option<String>,
    origin: Option<String>,
    fetch_site: Option<String>,
}

fn headers_of(r: &tiny_http::Request) -> Headers {
    let mut h = Headers::default();
    for x in r.headers() {
        if x.field.equiv("Host") {
            h.host = Some(x.value.as_str().to_owned());
        } else if x.field.equiv("Origin") {
            h.origin = Some(x.value.as_str().to_owned());
        } else if x.field.equiv("Sec-Fetch-Site") {
            h.fetch_site = Some(x.value.as_str().to_owned());
        }
    }
    h
}

fn header(k: &str, v: &str) -> tiny_http::Header {
    tiny_http::Header::from_bytes(k, v).expect("a valid header")
}

/// Headers on every answer: nothing cached, no referrer, never framed.
fn guarded<R: Read>(r: tiny_http::Response<R>) -> tiny_http::Response<R> {
    r.with_header(header("Cache-Control", "no-store"))
        .with_header(header("Referrer-Policy", "no-referrer"))
        .with_header(header("X-Frame-Options", "DENY"))
        .with_header(header("Content-Security-Policy", "frame-ancestors 'none'"))
        .with_header(header("X-Content-Type-Options", "nosniff"))
}

fn text(status: u16, body: String) -> tiny_http::Response<io::Cursor<Vec<u8>>> {
    guarded(
        tiny_http::Response::from_data(format!("{body}\n").into_bytes())
            .with_status_code(status)
            .with_header(header("Content-Type", "text/plain; charset=utf-8")),
    )
}

/// Serve the page until Ctrl-C or "done".
pub fn run(o: Options) -> anyhow::Result<u8> {
    let path = crate::verify::merge::report_path(&o.reports);
    let report = crate::verify::merge::read_report(&path).with_context(|| {
        format!(
            "toolnorm review --serve shows the last verify's report: run toolnorm verify --reports {} first",
            o.reports.display()
        )
    })?;
    let folders = Folders {
        corpus: o.corpus,
        expected: o.expected,
        reports: o.reports,
    };
    let mut previews = preview::build(&report, &folders);
    let server = tiny_http::Server::http("127.0.0.1:0")
        .map_err(|e| anyhow::anyhow!("failed to listen on 127.0.0.1: {e}"))?;
    let port = server
        .server_addr()
        .to_ip()
        .map(|a| a.port())
        .context("the server has no IP address")?;
    let token = token().context("failed to draw a token from the system's random source")?;
    previews.served = Some(Served {
        base: format!("/t/{token}/"),
        accepted: HashMap::new(),
    });
    let mut state = State {
        report,
        previews,
        folders,
        token,
        port,
    };
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, Arc::clone(&stop)).context("failed to watch Ctrl-C")?;
    }
    let url = format!("http://127.0.0.1:{port}{}", state.base());
    {
        let mut out = io::stdout().lock();
        writeln!(
            out,
            "{} failing fixtures previewed; review page (this URL is the key to it): {url}",
            state.previews.len()
        )?;
        writeln!(out, "press Done on the page, or Ctrl-C here, to stop")?;
        out.flush()?;
    }
    if o.open {
        crate::cli::view::open_in_browser(std::ffi::OsStr::new(&url));
    }
    let mut finished = false;
    while !stop.load(Ordering::Relaxed) && !finished {
        let Some(mut req) = server.recv_timeout(TICK).context("the server failed")? else {
            continue;
        };
        let headers = headers_of(&req);
        let method = req.method().as_str().to_ascii_uppercase();
        let mut body = Vec::new();
        if method == "POST" {
            let _ = req.as_reader().take(MAX_BODY).read_to_end(&mut body);
        }
        let url = req.url().to_owned();
        let answer = state.answer(&method, &url, &headers, &body);
        let sent = match answer {
            Answer::Page => {
                let mut page = Vec::new();
                html::render_with(&state.report, &state.previews, &mut page)?;
                req.respond(guarded(
                    tiny_http::Response::from_data(page)
                        .with_header(header("Content-Type", "text/html; charset=utf-8")),
                ))
            }
            Answer::Status(code, why) => req.respond(text(code, why)),
            Answer::Redirect(to) => req.respond(guarded(
                tiny_http::Response::from_data(Vec::new())
                    .with_status_code(303)
                    .with_header(header("Location", &to)),
            )),
            Answer::Done => {
                finished = true;
                let n = state
                    .previews
                    .served
                    .as_ref()
                    .map_or(0, |s| s.accepted.len());
                req.respond(text(
                    200,
                    format!("Review finished: {n} accepted. The server has stopped; you can close this tab."),
                ))
            }
        };
        if let Err(e) = sent {
            writeln!(io::stderr(), "warning: failed to answer {url}: {e}")?;
        }
    }
    let n = state
        .previews
        .served
        .as_ref()
        .map_or(0, |s| s.accepted.len());
    writeln!(
        io::stdout(),
        "review {}: {n} accepted from the page",
        if finished { "finished" } else { "stopped" }
    )?;
    Ok(exit::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_hosts_origins_and_forms() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abc", b"abd"));
        assert!(!same_secret(b"abc", b"ab"));
        assert!(!same_secret(b"", b"a"));
        assert!(loopback_host("127.0.0.1:8080", 8080));
        assert!(loopback_host("LOCALHOST:8080", 8080));
        for h in [
            "127.0.0.1:8081",
            "127.0.0.1",
            "evil.example:8080",
            "127.0.0.1.evil.example:8080",
            "[::1]:8080",
            ":8080",
        ] {
            assert!(!loopback_host(h, 8080), "{h}");
        }
        assert!(own_origin("http://127.0.0.1:9", 9));
        assert!(!own_origin("https://127.0.0.1:9", 9));
        assert!(!own_origin("null", 9));
        let f = form_fields(b"provider=claude&name=a+b%2Fc%3D&x&bad=%zz&cut=%4");
        assert_eq!(f["provider"], "claude");
        assert_eq!(f["name"], "a b/c=");
        assert_eq!(f["x"], "");
        assert!(!f.contains_key("bad") && !f.contains_key("cut"));
        assert!(!form_fields(b"name=%ff").contains_key("name"), "not UTF-8");
        let t = token().unwrap();
        assert_eq!(t.len(), 32);
        assert_ne!(t, token().unwrap());
    }
}
