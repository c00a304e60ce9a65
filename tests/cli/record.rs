//! `toolnorm record` end to end, with real processes: byte-identical passthrough in every mode,
//! exit codes, SIGKILL then `cat`, an unwritable corpus, redaction, names, proxy order, Ctrl-C at a
//! terminal. Recording an SSE stream is in `record_sse`.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use toolnorm::corpus::read_fixture;
use toolnorm::stream::Direction;

use crate::cli::util::{cat, run_in, stderr, stdout, tempdir, toolnorm, unsafe_kill};

/// Run `toolnorm args` feeding `input` on stdin; returns (exit code, stdout, stderr).
fn run_with_input(dir: &Path, args: &[&str], input: Vec<u8>) -> (Option<i32>, Vec<u8>, String) {
    let mut child = toolnorm()
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("failed to start toolnorm");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    (
        out.status.code(),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn tricky_stream() -> Vec<u8> {
    let mut s = Vec::new();
    s.extend_from_slice(
        b"{\"type\":\"system\",\"subtype\":\"init\",\"claude_code_version\":\"2.1.197\"}\n",
    );
    s.extend_from_slice(b"{\"bad\":\"\xff\xfe utf8\"}\n");
    s.extend_from_slice(b"{\"crlf\":true}\r\n");
    s.extend_from_slice(b"\n");
    let mut big = b"{\"big\":\"".to_vec();
    big.extend(std::iter::repeat_n(b'x', 10 << 20));
    big.extend_from_slice(b"\"}\n");
    s.extend_from_slice(&big);
    s.extend_from_slice(b"{\"last\":\"no newline\"}");
    s
}

#[test]
fn pipe_passes_every_byte_and_cat_gives_them_back() {
    let dir = tempdir();
    let input = tricky_stream();
    let (code, out, err) = run_with_input(
        dir.path(),
        &["record", "--provider", "claude", "--name", "t"],
        input.clone(),
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(out == input, "passthrough differs");
    let c = cat(dir.path(), "corpus/claude/t.jsonl.zst", &[]);
    assert!(c.status.success(), "{}", stderr(&c));
    assert!(c.stdout == input, "cat differs from the input");
    assert!(stderr(&c).is_empty(), "{}", stderr(&c));
    let h = cat(dir.path(), "corpus/claude/t.jsonl.zst", &["--header"]);
    let v: serde_json::Value = serde_json::from_slice(&h.stdout).unwrap();
    assert_eq!(v["format"], 1);
    assert_eq!(v["provider"], "claude");
    assert_eq!(v["mode"], "pipe");
    assert_eq!(v["cliVersion"], "2.1.197");
    assert_eq!(v["lines"], 6);
    assert_eq!(v["complete"], true);
    // Readable with zstd alone: a JSON object per line.
    let raw = zstd::stream::decode_all(
        &std::fs::read(dir.path().join("corpus/claude/t.jsonl.zst")).unwrap()[..],
    )
    .unwrap();
    for line in raw.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        serde_json::from_slice::<serde_json::Value>(line).unwrap();
    }
    // The reader sees the CR inside the line and the missing last newline.
    let fx = read_fixture(&dir.path().join("corpus/claude/t.jsonl.zst")).unwrap();
    assert_eq!(fx.lines[2].bytes, b"{\"crlf\":true}\r");
    assert!(!fx.lines[5].terminated);
}

#[test]
fn wrap_propagates_exit_codes_and_signals() {
    let dir = tempdir();
    let o = run_in(
        dir.path(),
        &[
            "record",
            "--provider",
            "codex",
            "--name",
            "w",
            "--",
            "sh",
            "-c",
            "printf 'a\\nb'; exit 7",
        ],
    );
    assert_eq!(o.status.code(), Some(7), "{}", stderr(&o));
    assert_eq!(stdout(&o), "a\nb");
    assert_eq!(
        stdout(&cat(dir.path(), "corpus/codex/w.jsonl.zst", &[])),
        "a\nb"
    );
    let h: serde_json::Value =
        serde_json::from_slice(&cat(dir.path(), "corpus/codex/w.jsonl.zst", &["--header"]).stdout)
            .unwrap();
    assert_eq!(h["exitCode"], 7);
    assert_eq!(
        h["command"],
        serde_json::json!(["sh", "-c", "printf 'a\\nb'; exit 7"])
    );

    let o = run_in(
        dir.path(),
        &[
            "record",
            "--provider",
            "codex",
            "--name",
            "k",
            "--",
            "sh",
            "-c",
            "echo hi; kill -9 $$",
        ],
    );
    assert_eq!(o.status.code(), Some(137));
    assert_eq!(stdout(&o), "hi\n");
}

#[test]
fn wrap_forwards_sigterm_to_the_agent() {
    let dir = tempdir();
    let mut child = toolnorm()
        .args([
            "record",
            "--provider",
            "claude",
            "--name",
            "sig",
            "--",
            "sh",
            "-c",
            "trap 'echo got-term; exit 3' TERM; echo ready; while true; do sleep 0.05; done",
        ])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut buf = [0u8; 6];
    out.read_exact(&mut buf).unwrap();
    assert_eq!(&buf, b"ready\n");
    unsafe_kill(child.id(), 15);
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(rest, "got-term\n");
    assert_eq!(status.code(), Some(3));
    assert_eq!(
        stdout(&cat(dir.path(), "corpus/claude/sig.jsonl.zst", &[])),
        "ready\ngot-term\n"
    );
}

#[test]
fn wrap_records_stderr_only_when_asked() {
    let dir = tempdir();
    let o = run_in(
        dir.path(),
        &[
            "record",
            "--provider",
            "claude",
            "--name",
            "e",
            "--stderr",
            "--",
            "sh",
            "-c",
            "echo out; echo err >&2",
        ],
    );
    assert!(o.status.success());
    assert_eq!(stdout(&o), "out\n");
    assert_eq!(stderr(&o), "err\n");
    assert_eq!(
        stdout(&cat(dir.path(), "corpus/claude/e.jsonl.zst", &[])),
        "out\n"
    );
    assert_eq!(
        stdout(&cat(dir.path(), "corpus/claude/e.jsonl.zst", &["--stderr"])),
        "err\n"
    );
    let o = run_in(
        dir.path(),
        &[
            "record",
            "--provider",
            "claude",
            "--name",
            "f",
            "--",
            "sh",
            "-c",
            "echo out; echo err >&2",
        ],
    );
    assert_eq!(stderr(&o), "err\n");
    assert_eq!(
        stdout(&cat(dir.path(), "corpus/claude/f.jsonl.zst", &["--stderr"])),
        ""
    );
}

#[test]
fn a_missing_agent_is_an_error_and_leaves_no_fixture() {
    let dir = tempdir();
    let o = run_in(
        dir.path(),
        &[
            "record",
            "--provider",
            "claude",
            "--name",
            "m",
            "--",
            "no-such-agent-binary-xyz",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("failed to start"), "{}", stderr(&o));
    assert!(!dir.path().join("corpus/claude/m.jsonl.zst").exists());
}

/// Wait until the fixture at `path` (being recorded) holds `lines` line records on disk.
fn wait_for_lines(path: &Path, lines: usize, limit: Duration) {
    let start = std::time::Instant::now();
    let mut seen = 0;
    while start.elapsed() < limit {
        if let Ok(fx) = read_fixture(path) {
            seen = fx.lines.len();
            if seen >= lines {
                return;
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!(
        "{} held {seen} of {lines} lines after {limit:?}",
        path.display()
    );
}

#[test]
fn sigkill_leaves_a_fixture_readable_up_to_its_last_complete_line() {
    let dir = tempdir();
    let mut child = toolnorm()
        .args(["record", "--provider", "claude", "--name", "killed"])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut sent = Vec::new();
    for i in 0..2000 {
        let line = format!(
            "{{\"type\":\"assistant\",\"n\":{i},\"pad\":\"{}\"}}\n",
            "y".repeat(i % 300)
        );
        stdin.write_all(line.as_bytes()).unwrap();
        sent.extend_from_slice(line.as_bytes());
    }
    // A line cut in the middle; then wait until every complete line is on disk (the recorder
    // flushes within 250 ms of a line; a loaded machine may take longer), never a fixed time.
    stdin.write_all(b"{\"partial\":").unwrap();
    let path = dir.path().join("corpus/claude/killed.jsonl.zst");
    wait_for_lines(&path, 2000, Duration::from_secs(60));
    child.kill().unwrap();
    child.wait().unwrap();
    let c = cat(dir.path(), "corpus/claude/killed.jsonl.zst", &[]);
    assert!(c.status.success());
    assert!(
        stderr(&c).contains("fixture was cut short after line 2000"),
        "{}",
        stderr(&c)
    );
    assert!(
        c.stdout == sent,
        "got {} of {} bytes",
        c.stdout.len(),
        sent.len()
    );
    let h: serde_json::Value = serde_json::from_slice(
        &cat(dir.path(), "corpus/claude/killed.jsonl.zst", &["--header"]).stdout,
    )
    .unwrap();
    assert_eq!(h["complete"], false);
    // normalize sees the same: a note, not an error.
    let stream =
        toolnorm::corpus::load_stream(&dir.path().join("corpus/claude/killed.jsonl.zst")).unwrap();
    assert!(
        stream
            .notes
            .iter()
            .any(|n| n.contains("cut short after line 2000")),
        "{:?}",
        stream.notes
    );
}

/// A fast stream, SIGKILLed mid-stream: the fixture holds every line passed through but the last
/// 1,024 (the recorder's lag bound, plus the 256-line block being written at the kill). It used
/// to miss up to 45% of the stream, left queued behind the passthrough.
#[test]
fn a_killed_recording_of_a_fast_stream_lags_the_passthrough_by_a_bounded_number_of_lines() {
    use std::io::BufRead;
    let dir = tempdir();
    let mut child = toolnorm()
        .args(["record", "--provider", "claude", "--name", "fast"])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let pump = std::thread::spawn(move || {
        let mut block = Vec::new();
        for i in 0..1_000_000u64 {
            block.clear();
            let pad = "q".repeat((i % 7 * 37) as usize);
            writeln!(
                block,
                "{{\"type\":\"assistant\",\"i\":{i},\"pad\":\"{pad}\"}}"
            )
            .unwrap();
            if stdin.write_all(&block).is_err() {
                return;
            }
        }
    });
    let mut out = std::io::BufReader::new(stdout);
    let mut line = String::new();
    let mut received = 0u64;
    while received < 60_000 {
        line.clear();
        assert!(
            out.read_line(&mut line).unwrap() > 0,
            "the passthrough ended early"
        );
        received += 1;
    }
    child.kill().unwrap();
    child.wait().unwrap();
    drop(out);
    pump.join().unwrap();
    let fx = read_fixture(&dir.path().join("corpus/claude/fast.jsonl.zst")).unwrap();
    let recorded = fx.lines.len() as u64;
    assert!(
        received.saturating_sub(recorded) <= 1024 + 256,
        "{received} lines passed through, {recorded} in the fixture"
    );
}

#[test]
fn an_unwritable_corpus_never_breaks_the_passthrough() {
    let dir = tempdir();
    std::fs::write(dir.path().join("blocker"), b"a file, not a directory").unwrap();
    let input = b"{\"a\":1}\n{\"b\":2}\n".to_vec();
    let (code, out, err) = run_with_input(
        dir.path(),
        &[
            "record",
            "--provider",
            "claude",
            "--name",
            "x",
            "--corpus",
            "blocker/corpus",
        ],
        input.clone(),
    );
    assert_eq!(code, Some(0));
    assert_eq!(out, input);
    assert_eq!(err.matches("warning:").count(), 1, "{err}");
    assert!(err.contains("session goes on"), "{err}");
    // Same in wrap mode, with the agent's exit code.
    let o = run_in(
        dir.path(),
        &[
            "record",
            "--provider",
            "claude",
            "--name",
            "x",
            "--corpus",
            "blocker/c",
            "--",
            "sh",
            "-c",
            "echo hi; exit 4",
        ],
    );
    assert_eq!(o.status.code(), Some(4));
    assert_eq!(stdout(&o), "hi\n");
}

#[test]
fn a_recorder_that_falls_behind_warns_once_and_passes_everything() {
    let dir = tempdir();
    let line = format!("{{\"pad\":\"{}\"}}\n", "z".repeat(1000));
    let input: Vec<u8> = line.repeat(20_000).into_bytes();
    let (code, out, err) = run_with_input(
        dir.path(),
        &[
            "record",
            "--provider",
            "claude",
            "--name",
            "lag",
            "--max-lag-mib",
            "1",
        ],
        input.clone(),
    );
    assert_eq!(code, Some(0));
    assert!(out == input);
    if err.contains("fell behind") {
        assert_eq!(err.matches("warning:").count(), 1, "{err}");
        let h: serde_json::Value = serde_json::from_slice(
            &cat(dir.path(), "corpus/claude/lag.jsonl.zst", &["--header"]).stdout,
        )
        .unwrap();
        assert!(h["recordingFailed"].is_string(), "{h}");
    }
}

#[test]
fn every_secret_kind_is_redacted_on_disk_and_intact_in_the_passthrough() {
    let dir = tempdir();
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
    let secrets = [
        (
            "anthropic-key",
            "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv".to_owned(),
        ),
        ("openai-key", "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx".to_owned()),
        (
            "github-token",
            "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789".to_owned(),
        ),
        (
            "github-token",
            "github_pat_11AbCdEfGhIjKlMnOpQrStUvWxYz0123456789".to_owned(),
        ),
        ("aws-key", "AKIAIOSFODNN7EXAMPLE".to_owned()),
        (
            "google-key",
            "AIzaSyA-1234567890abcdefghijklmnopqrstu".to_owned(),
        ),
        ("slack-token", "xoxb-1234567890-abcdefghij".to_owned()),
        (
            "npm-token",
            "npm_abcdefghijklmnopqrstuvwxyz0123456789".to_owned(),
        ),
        ("stripe-key", "sk_live_abcdefghijklmnop1234".to_owned()),
        (
            "jwt",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVPmB92K27uhbUJU1p1r".to_owned(),
        ),
        ("bearer", "abc123def456ghi789jkl".to_owned()),
        ("basic-auth", "dXNlcjpodW50ZXIy".to_owned()),
        ("secret-env", "hunter2hunter2".to_owned()),
        ("secret-field", "s3cr3t-field-value".to_owned()),
        ("private-key", "MIIEowIBAAKCAQEA0Z3".to_owned()),
        ("custom", "ACME-998877".to_owned()),
    ];
    let lines = [
        format!("{{\"k\":\"{}\"}}", secrets[0].1),
        format!("{{\"k\":\"{}\"}}", secrets[1].1),
        format!("{{\"k\":\"{}\"}}", secrets[2].1),
        format!("{{\"k\":\"{}\"}}", secrets[3].1),
        format!("{{\"k\":\"{}\"}}", secrets[4].1),
        format!("{{\"k\":\"{}\"}}", secrets[5].1),
        format!("{{\"k\":\"{}\"}}", secrets[6].1),
        format!("{{\"k\":\"{}\"}}", secrets[7].1),
        format!("{{\"k\":\"{}\"}}", secrets[8].1),
        format!("{{\"k\":\"{}\"}}", secrets[9].1),
        format!("{{\"h\":\"Authorization: Bearer {}\"}}", secrets[10].1),
        format!("{{\"h\":\"Authorization: Basic {}\"}}", secrets[11].1),
        format!("{{\"cmd\":\"DB_PASSWORD={} ./run\"}}", secrets[12].1),
        format!("{{\"client_secret\":\"{}\"}}", secrets[13].1),
        format!(
            "{{\"c\":\"-----BEGIN RSA PRIVATE KEY-----\\n{}\\n-----END RSA PRIVATE KEY-----\"}}",
            secrets[14].1
        ),
        format!("{{\"t\":\"{}\"}}", secrets[15].1),
        format!("{{\"cwd\":\"{home}/project\"}}"),
    ];
    let input = (lines.join("\n") + "\n").into_bytes();
    let (code, out, err) = run_with_input(
        dir.path(),
        &[
            "record",
            "--provider",
            "claude",
            "--name",
            "s",
            "--redact",
            "ACME-[0-9]{6}",
        ],
        input.clone(),
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(out == input, "the passthrough must not be redacted");
    let recorded = stdout(&cat(dir.path(), "corpus/claude/s.jsonl.zst", &[]));
    for (kind, secret) in &secrets {
        assert!(
            !recorded.contains(secret.as_str()),
            "{kind} leaked: {recorded}"
        );
        assert!(
            recorded.contains(&format!("[REDACTED:{kind}]")),
            "{kind}: {recorded}"
        );
    }
    assert!(recorded.contains("\"cwd\":\"~/project\""), "{recorded}");
    for line in recorded.lines() {
        serde_json::from_str::<serde_json::Value>(line).unwrap_or_else(|e| panic!("{line}: {e}"));
    }
    let h: serde_json::Value =
        serde_json::from_slice(&cat(dir.path(), "corpus/claude/s.jsonl.zst", &["--header"]).stdout)
            .unwrap();
    assert_eq!(h["redactions"]["github-token"], 2);
    assert_eq!(h["redactions"]["home-path"], 1);
    // The raw file holds none of them either (nothing escapes through the header or trailer).
    let raw = zstd::stream::decode_all(
        &std::fs::read(dir.path().join("corpus/claude/s.jsonl.zst")).unwrap()[..],
    )
    .unwrap();
    let raw = String::from_utf8(raw).unwrap();
    for (kind, secret) in &secrets {
        assert!(!raw.contains(secret.as_str()), "{kind} in the raw fixture");
    }
    // And lint agrees the fixture is clean.
    let lint = run_in(dir.path(), &["corpus", "lint", "--corpus", "corpus"]);
    assert!(lint.status.success(), "{}{}", stdout(&lint), stderr(&lint));
}

#[test]
fn names_are_validated_and_fixtures_never_overwritten_without_force() {
    let dir = tempdir();
    for bad in ["a/b", "..", "../up", "", "x\\y", ".hidden"] {
        let (code, _, err) = run_with_input(
            dir.path(),
            &["record", "--provider", "claude", "--name", bad],
            b"{}\n".to_vec(),
        );
        assert_eq!(code, Some(2), "name {bad:?}: {err}");
        assert!(err.contains("fixture name"), "{err}");
    }
    let (code, _, _) = run_with_input(
        dir.path(),
        &["record", "--provider", "claude", "--name", "dup"],
        b"{\"n\":1}\n".to_vec(),
    );
    assert_eq!(code, Some(0));
    let (code, _, err) = run_with_input(
        dir.path(),
        &["record", "--provider", "claude", "--name", "dup"],
        b"{\"n\":2}\n".to_vec(),
    );
    assert_eq!(code, Some(2));
    assert!(err.contains("already exists"), "{err}");
    assert_eq!(
        stdout(&cat(dir.path(), "corpus/claude/dup.jsonl.zst", &[])),
        "{\"n\":1}\n"
    );
    let (code, _, _) = run_with_input(
        dir.path(),
        &["record", "--provider", "claude", "--name", "dup", "--force"],
        b"{\"n\":3}\n".to_vec(),
    );
    assert_eq!(code, Some(0));
    assert_eq!(
        stdout(&cat(dir.path(), "corpus/claude/dup.jsonl.zst", &[])),
        "{\"n\":3}\n"
    );
}

#[test]
fn proxy_records_both_directions_in_order() {
    let dir = tempdir();
    let mut child = toolnorm()
        .args([
            "record",
            "--provider",
            "codex",
            "--name",
            "rpc",
            "--proxy",
            "--",
            "sh",
            "-c",
            "while IFS= read -r l; do echo \"{\\\"reply\\\":$l}\"; done",
        ])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut expected = Vec::new();
    for i in 1..=5 {
        let req = format!("{{\"id\":{i}}}");
        writeln!(stdin, "{req}").unwrap();
        stdin.flush().unwrap();
        let mut reply = String::new();
        std::io::BufRead::read_line(&mut out, &mut reply).unwrap();
        assert_eq!(reply, format!("{{\"reply\":{req}}}\n"));
        expected.push((Direction::Client, req.clone()));
        expected.push((Direction::Agent, format!("{{\"reply\":{req}}}")));
    }
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success());
    let fx = read_fixture(&dir.path().join("corpus/codex/rpc.jsonl.zst")).unwrap();
    let got: Vec<(Direction, String)> = fx
        .lines
        .iter()
        .map(|l| (l.dir, String::from_utf8(l.bytes.clone()).unwrap()))
        .collect();
    assert_eq!(got, expected);
    assert!(fx.lines.windows(2).all(|w| w[0].t <= w[1].t));
    assert_eq!(fx.header.mode.as_deref(), Some("proxy"));
    // Where the agent ran, for dialects whose stream does not say it.
    let cwd = dir.path().canonicalize().unwrap();
    assert_eq!(fx.header.cwd.as_deref(), cwd.to_str());
}

/// Ctrl-C at a terminal: the kernel sends SIGINT to the whole foreground process group, the
/// wrapped agent included. The recorder must not pass it on a second time (agents read a second
/// Ctrl-C as "quit now"); a SIGINT sent to the recorder alone is still passed on. The agent is a
/// perl one-liner, so the test needs perl.
#[cfg(target_os = "linux")]
#[test]
#[ignore = "needs perl: run scripts/install-test-deps.sh, then cargo test -- --ignored"]
fn terminal_ctrl_c_reaches_the_agent_once() {
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::os::unix::process::CommandExt;

    let dir = tempdir();
    let log = dir.path().join("ints");
    // The agent counts every SIGINT delivered to it (perl counts deliveries, where a shell's trap
    // would fold two close ones into one): it waits up to 60 s for the first, so a loaded machine
    // cannot make it give up early, then a second more for a duplicate, and writes the count.
    assert!(
        Command::new("perl").arg("-v").output().is_ok(),
        "perl is not installed (it counts the agent's signals): run scripts/install-test-deps.sh"
    );
    let counter = r#"$| = 1; my $n = 0; $SIG{INT} = sub { $n++ };
        print qq({"ready":1}\n);
        my $t = time; while (!$n && time - $t < 60) { select(undef, undef, undef, 0.05) }
        select(undef, undef, undef, 0.05) for 1 .. 20;
        open(my $f, ">>", $ARGV[0]) or die; print $f "INT\n" x $n;"#;
    let (mut master, mut slave) = (-1, -1);
    // SAFETY: openpty(3) fills two fds; null termios/winsize mean defaults (ISIG on).
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(rc, 0, "openpty failed");
    // SAFETY: both fds were just opened by openpty and are owned here.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let mut cmd = toolnorm();
    cmd.args([
        "record",
        "--corpus",
        "c",
        "--provider",
        "codex",
        "--name",
        "tty",
        "--",
        "perl",
        "-e",
        counter,
    ])
    .arg(&log)
    .current_dir(dir.path())
    .stdin(Stdio::from(slave.try_clone().unwrap()))
    .stdout(Stdio::from(slave.try_clone().unwrap()))
    .stderr(Stdio::from(slave.try_clone().unwrap()));
    // SAFETY: only async-signal-safe calls between fork and exec: a new session whose
    // controlling terminal is the pty on fd 0.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().unwrap();
    drop(slave);
    // Read the terminal until the agent is ready, then type Ctrl-C.
    let mut term = std::fs::File::from(master.try_clone().unwrap());
    let (tx, rx) = std::sync::mpsc::channel::<Vec<u8>>();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = term.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let mut seen = Vec::new();
    while !String::from_utf8_lossy(&seen).contains("ready") {
        let chunk = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("the agent never said it was ready");
        seen.extend(chunk);
    }
    std::thread::sleep(Duration::from_millis(200));
    // SAFETY: write(2) of one byte to the pty master we own.
    let wrote = unsafe { libc::write(master.as_raw_fd(), b"\x03".as_ptr().cast(), 1) };
    assert_eq!(wrote, 1);
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
    let ints = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(ints.lines().count(), 1, "SIGINTs the agent got: {ints:?}");
    let fx = read_fixture(&dir.path().join("c/codex/tty.jsonl.zst")).unwrap();
    assert!(fx.is_complete(), "{:?}", fx.notes);
}
