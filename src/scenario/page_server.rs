//! The scenario's pages over HTTPS, for fetch tools that only fetch `https://` (Claude Code's
//! WebFetch upgrades `http` to `https`). A throwaway certificate authority is made per run; the
//! agent trusts it through `NODE_EXTRA_CA_CERTS`, nothing else does.
//!
//! The server is deliberately small: `GET` of the scenario's pages, one request per connection.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

use super::spec::Page;

/// The longest request head read before giving up on a connection.
const MAX_HEAD: usize = 64 * 1024;

/// A running HTTPS page server. Dropping it stops it.
pub struct TlsPageServer {
    port: u16,
    ca_pem: String,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl TlsPageServer {
    /// Make a certificate authority and a certificate for `127.0.0.1`/`localhost`, and serve
    /// `pages` on a free loopback port.
    pub fn start(pages: Vec<Page>) -> io::Result<TlsPageServer> {
        let (config, ca_pem) = tls_config().map_err(io::Error::other)?;
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let port = listener.local_addr()?.port();
        let stop = Arc::new(AtomicBool::new(false));
        let accept_stop = Arc::clone(&stop);
        let pages = Arc::new(pages);
        let accept = thread::Builder::new()
            .name("page-server".into())
            .spawn(move || {
                for conn in listener.incoming() {
                    if accept_stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(conn) = conn else { continue };
                    let config = Arc::clone(&config);
                    let pages = Arc::clone(&pages);
                    let _ = thread::Builder::new()
                        .name("page-request".into())
                        .spawn(move || {
                            let _ = serve(conn, config, &pages);
                        });
                }
            })?;
        Ok(TlsPageServer {
            port,
            ca_pem,
            stop,
            accept: Some(accept),
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `https://127.0.0.1:PORT` (no trailing slash).
    pub fn base_url(&self) -> String {
        format!("https://127.0.0.1:{}", self.port)
    }

    /// The certificate authority the agent must trust (PEM).
    pub fn ca_pem(&self) -> &str {
        &self.ca_pem
    }

    fn shutdown(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
    }
}

impl Drop for TlsPageServer {
    fn drop(&mut self) {
        self.shutdown();
    }
}

type Config = Arc<rustls::ServerConfig>;

/// A CA, a server certificate it signed, and the rustls config presenting both.
fn tls_config() -> Result<(Config, String), Box<dyn std::error::Error + Send + Sync>> {
    let mut ca_params = CertificateParams::new(Vec::<String>::new())?;
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "toolnorm scenario CA");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate()?)?;
    let leaf_key = KeyPair::generate()?;
    let mut leaf_params =
        CertificateParams::new(vec!["127.0.0.1".to_owned(), "localhost".to_owned()])?;
    leaf_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "127.0.0.1");
    let leaf = leaf_params.signed_by(&leaf_key, &ca)?;
    let chain: Vec<CertificateDer<'static>> = vec![leaf.der().clone(), ca.der().clone()];
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der()));
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(chain, key)?;
    Ok((Arc::new(config), ca.pem()))
}

/// One connection: TLS, one request head, one response, close.
fn serve(tcp: TcpStream, config: Config, pages: &[Page]) -> io::Result<()> {
    tcp.set_read_timeout(Some(Duration::from_secs(10)))?;
    tcp.set_write_timeout(Some(Duration::from_secs(10)))?;
    let conn = rustls::ServerConnection::new(config).map_err(io::Error::other)?;
    let mut tls = rustls::StreamOwned::new(conn, tcp);
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    let (status, content_type, body) = loop {
        let n = tls.read(&mut buf)?;
        if n == 0 {
            return Ok(());
        }
        head.extend_from_slice(&buf[..n]);
        let mut headers = [httparse::EMPTY_HEADER; 64];
        let mut req = httparse::Request::new(&mut headers);
        match req.parse(&head) {
            Ok(httparse::Status::Complete(_)) => {
                break route(pages, req.method.unwrap_or(""), req.path.unwrap_or(""));
            }
            Ok(httparse::Status::Partial) if head.len() < MAX_HEAD => continue,
            _ => break (400, "text/plain; charset=utf-8", "bad request\n".to_owned()),
        }
    };
    let reason = match status {
        200 => "OK",
        404 => "Not Found",
        405 => "Method Not Allowed",
        _ => "Bad Request",
    };
    write!(
        tls,
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    tls.flush()?;
    tls.conn.send_close_notify();
    let _ = tls.conn.complete_io(&mut tls.sock);
    let _ = tls.sock.shutdown(Shutdown::Both);
    Ok(())
}

/// The response for a request line: a page, or 404 / 405.
fn route(pages: &[Page], method: &str, target: &str) -> (u16, &'static str, String) {
    if method != "GET" && method != "HEAD" {
        return (405, "text/plain; charset=utf-8", "only GET\n".to_owned());
    }
    let path = target.split(['?', '#']).next().unwrap_or_default();
    match pages.iter().find(|p| p.path == path) {
        Some(p) => (200, p.mime(), p.body.clone()),
        None => (
            404,
            "text/plain; charset=utf-8",
            format!("no page {path}\n"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(path: &str, body: &str) -> Page {
        Page {
            path: path.into(),
            content_type: "text/html; charset=utf-8".into(),
            body: body.into(),
            summary: None,
        }
    }

    #[test]
    fn routes_pages_and_refuses_the_rest() {
        let pages = [page("/status.html", "<p>green</p>")];
        assert_eq!(
            route(&pages, "GET", "/status.html?x=1"),
            (200, "text/html; charset=utf-8", "<p>green</p>".to_owned())
        );
        assert_eq!(route(&pages, "GET", "/nope").0, 404);
        assert_eq!(route(&pages, "POST", "/status.html").0, 405);
    }

    #[test]
    fn serves_a_page_over_tls_to_a_client_trusting_the_ca() {
        let server = TlsPageServer::start(vec![page("/status.html", "<p>green</p>")]).unwrap();
        assert!(server.ca_pem().starts_with("-----BEGIN CERTIFICATE-----"));
        // A client that trusts only this run's CA.
        let mut roots = rustls::RootCertStore::empty();
        let ca = rustls::pki_types::pem::PemObject::from_pem_slice(server.ca_pem().as_bytes())
            .map(CertificateDer::into_owned)
            .unwrap();
        roots.add(ca).unwrap();
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
        let name = rustls::pki_types::ServerName::try_from("127.0.0.1").unwrap();
        let conn = rustls::ClientConnection::new(Arc::new(config), name).unwrap();
        let tcp = TcpStream::connect(("127.0.0.1", server.port())).unwrap();
        let mut tls = rustls::StreamOwned::new(conn, tcp);
        tls.write_all(b"GET /status.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            .unwrap();
        let mut response = String::new();
        let _ = tls.read_to_string(&mut response);
        assert!(response.starts_with("HTTP/1.1 200 OK\r\n"), "{response}");
        assert!(response.ends_with("\r\n\r\n<p>green</p>"), "{response}");
    }

    #[test]
    fn garbage_instead_of_tls_does_not_stop_the_server() {
        let server = TlsPageServer::start(vec![page("/a", "a")]).unwrap();
        let mut tcp = TcpStream::connect(("127.0.0.1", server.port())).unwrap();
        let _ = tcp.write_all(b"GET /a HTTP/1.1\r\n\r\n");
        let mut sink = Vec::new();
        let _ = tcp.read_to_end(&mut sink);
        // Still accepting.
        assert!(TcpStream::connect(("127.0.0.1", server.port())).is_ok());
    }
}
