//! A small Chrome DevTools Protocol client for the browser tests that need real input (key
//! presses, clicks): headless Chromium driven over `--remote-debugging-pipe` (its fd 3 reads our
//! commands, fd 4 carries its answers and events, each message JSON ended by a NUL byte), as
//! scripts/html-paint.py does. No network, no crate beyond the ones the project has.

use std::io::{BufRead, BufReader, Write};
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long one command or awaited condition may take.
const LIMIT: Duration = Duration::from_secs(60);

pub struct Browser {
    child: Child,
    cmd: std::io::PipeWriter,
    rx: Receiver<Value>,
    next: u64,
    events: Vec<Value>,
    /// Chromium's stderr (its console messages, with `--enable-logging=stderr`).
    pub log: tempfile::NamedTempFile,
    _profile: tempfile::TempDir,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Browser {
    /// Start headless Chromium (`bin`) in a fresh profile, window `w`×`h`.
    pub fn launch(bin: &std::path::Path, w: u32, h: u32) -> Browser {
        let profile = tempfile::tempdir().unwrap();
        let log = tempfile::NamedTempFile::new().unwrap();
        let (cmd_r, cmd_w) = std::io::pipe().unwrap();
        let (ev_r, ev_w) = std::io::pipe().unwrap();
        let (a, b) = (cmd_r.as_raw_fd(), ev_w.as_raw_fd());
        let mut c = Command::new(bin);
        c.args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--enable-logging=stderr",
            "--v=0",
            "--remote-debugging-pipe",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--window-size={w},{h}"))
        .arg("about:blank")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log.reopen().unwrap());
        // SAFETY: between fork and exec, only fcntl and dup2 (async-signal-safe): the two pipe
        // ends go to fds 3 and 4, through fds above 9 so neither dup2 clobbers the other's
        // source; the copies made by dup2 are not close-on-exec.
        unsafe {
            c.pre_exec(move || {
                let a2 = libc::fcntl(a, libc::F_DUPFD, 10);
                let b2 = libc::fcntl(b, libc::F_DUPFD, 10);
                if a2 < 0 || b2 < 0 || libc::dup2(a2, 3) < 0 || libc::dup2(b2, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = c.spawn().expect("failed to start chromium");
        drop(cmd_r);
        drop(ev_w);
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(ev_r);
            let mut buf = Vec::new();
            while r.read_until(0, &mut buf).is_ok_and(|n| n > 0) {
                if buf.last() == Some(&0) {
                    buf.pop();
                }
                if let Ok(v) = serde_json::from_slice::<Value>(&buf)
                    && tx.send(v).is_err()
                {
                    break;
                }
                buf.clear();
            }
        });
        Browser {
            child,
            cmd: cmd_w,
            rx,
            next: 0,
            events: Vec::new(),
            log,
            _profile: profile,
        }
    }

    fn recv(&mut self, deadline: Instant, what: &str) -> Value {
        match self
            .rx
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            Ok(v) => v,
            Err(RecvTimeoutError::Timeout) => panic!("chromium did not answer {what} in time"),
            Err(RecvTimeoutError::Disconnected) => panic!(
                "chromium closed the pipe waiting for {what}:\n{}",
                std::fs::read_to_string(self.log.path()).unwrap_or_default()
            ),
        }
    }

    /// Send `method` (to `session`, when given) and wait for its result.
    pub fn send(&mut self, method: &str, params: Value, session: Option<&str>) -> Value {
        self.next += 1;
        let mut msg = json!({"id": self.next, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = s.into();
        }
        let mut bytes = serde_json::to_vec(&msg).unwrap();
        bytes.push(0);
        self.cmd.write_all(&bytes).unwrap();
        let deadline = Instant::now() + LIMIT;
        loop {
            let m = self.recv(deadline, method);
            if m["id"] == self.next {
                assert!(m.get("error").is_none(), "{method}: {}", m["error"]);
                return m["result"].clone();
            }
            self.events.push(m);
        }
    }

    /// Wait for event `method` of `session`.
    pub fn wait_event(&mut self, method: &str, session: &str) -> Value {
        if let Some(i) = self
            .events
            .iter()
            .position(|m| m["method"] == method && m["sessionId"] == session)
        {
            return self.events.remove(i);
        }
        let deadline = Instant::now() + LIMIT;
        loop {
            let m = self.recv(deadline, method);
            if m["method"] == method && m["sessionId"] == session {
                return m;
            }
            self.events.push(m);
        }
    }

    /// A new tab, attached.
    pub fn tab(&mut self) -> Tab<'_> {
        let target =
            self.send("Target.createTarget", json!({"url": "about:blank"}), None)["targetId"]
                .as_str()
                .unwrap()
                .to_owned();
        let session = self.send(
            "Target.attachToTarget",
            json!({"targetId": target, "flatten": true}),
            None,
        )["sessionId"]
            .as_str()
            .unwrap()
            .to_owned();
        let mut t = Tab { b: self, session };
        t.send("Page.enable", json!({}));
        t.send("Runtime.enable", json!({}));
        t
    }

    /// Console messages and uncaught errors Chromium logged.
    pub fn console(&self) -> Vec<String> {
        let mut out: Vec<String> = std::fs::read_to_string(self.log.path())
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains(":CONSOLE"))
            .map(str::to_owned)
            .collect();
        for e in &self.events {
            if e["method"] == "Runtime.exceptionThrown"
                || (e["method"] == "Runtime.consoleAPICalled"
                    && matches!(e["params"]["type"].as_str(), Some("error" | "warning")))
            {
                out.push(e["params"].to_string());
            }
        }
        out
    }
}

pub struct Tab<'a> {
    pub b: &'a mut Browser,
    pub session: String,
}

impl Tab<'_> {
    pub fn send(&mut self, method: &str, params: Value) -> Value {
        let s = self.session.clone();
        self.b.send(method, params, Some(&s))
    }

    /// Load `url` and wait for its load event.
    pub fn navigate(&mut self, url: &str) {
        self.send("Page.navigate", json!({"url": url}));
        let s = self.session.clone();
        self.b.wait_event("Page.loadEventFired", &s);
    }

    /// The value of a JavaScript expression (JSON-serializable).
    pub fn eval(&mut self, expr: &str) -> Value {
        let r = self.send(
            "Runtime.evaluate",
            json!({"expression": expr, "returnByValue": true, "awaitPromise": true}),
        );
        assert!(
            r.get("exceptionDetails").is_none(),
            "{expr}: {}",
            r["exceptionDetails"]
        );
        r["result"]["value"].clone()
    }

    /// Wait until `expr` is true (checked after each animation frame).
    pub fn wait_for(&mut self, expr: &str) {
        let deadline = Instant::now() + LIMIT;
        while self.eval(&format!(
            "new Promise(r => requestAnimationFrame(() => r(!!({expr}))))"
        )) != json!(true)
        {
            assert!(Instant::now() < deadline, "timed out waiting for {expr}");
        }
    }

    /// Press and release a key, as the keyboard does: `Tab`, `Enter`, `Space`, `ArrowDown`, or a
    /// letter; `shift` held for Shift+Tab.
    pub fn key(&mut self, name: &str, shift: bool) {
        let (key, code, vk, text) = match name {
            "Tab" => ("Tab".to_owned(), "Tab".to_owned(), 9, ""),
            "Enter" => ("Enter".to_owned(), "Enter".to_owned(), 13, "\r"),
            "Space" => (" ".to_owned(), "Space".to_owned(), 32, " "),
            "ArrowDown" => ("ArrowDown".to_owned(), "ArrowDown".to_owned(), 40, ""),
            "ArrowUp" => ("ArrowUp".to_owned(), "ArrowUp".to_owned(), 38, ""),
            l if l.len() == 1 && l.as_bytes()[0].is_ascii_lowercase() => {
                let up = l.to_ascii_uppercase();
                (
                    l.to_owned(),
                    format!("Key{up}"),
                    i64::from(up.as_bytes()[0]),
                    l,
                )
            }
            other => panic!("no key {other}"),
        };
        let modifiers = if shift { 8 } else { 0 };
        let mut down = json!({"type": if text.is_empty() { "rawKeyDown" } else { "keyDown" },
            "key": key, "code": code, "windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk,
            "modifiers": modifiers});
        if !text.is_empty() {
            down["text"] = text.into();
            down["unmodifiedText"] = text.into();
        }
        self.send("Input.dispatchKeyEvent", down);
        self.send(
            "Input.dispatchKeyEvent",
            json!({"type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": vk,
                "nativeVirtualKeyCode": vk, "modifiers": modifiers}),
        );
    }

    /// Click the middle of the first element `selector` matches (scrolled into view first).
    pub fn click(&mut self, selector: &str) {
        let at = self.eval(&format!(
            "(() => {{ const e = document.querySelector({sel}); if (!e) return null; \
             e.scrollIntoView({{block: 'center'}}); const r = e.getBoundingClientRect(); \
             return [r.left + r.width / 2, r.top + r.height / 2]; }})()",
            sel = serde_json::to_string(selector).unwrap()
        ));
        let (x, y) = (
            at[0]
                .as_f64()
                .unwrap_or_else(|| panic!("nothing matches {selector}")),
            at[1].as_f64().unwrap(),
        );
        for t in ["mousePressed", "mouseReleased"] {
            self.send(
                "Input.dispatchMouseEvent",
                json!({"type": t, "x": x, "y": y, "button": "left", "clickCount": 1}),
            );
        }
    }
}
