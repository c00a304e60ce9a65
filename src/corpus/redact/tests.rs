//! The redactor's unit tests: every kind, the literal gate, path folds, and idempotence.

use super::*;

fn redactor() -> Redactor {
    Redactor::new(&RedactOptions {
        home: Some("/home/alice".into()),
        prefixes: vec![("/tmp/scratch-1".into(), "/work".into())],
        extra: vec![r"corp-[0-9]{6}".into()],
    })
    .unwrap()
}

/// The redactor of the `redactor` fuzz target: a home and one prefix.
fn fuzz_redactor() -> Redactor {
    Redactor::new(&RedactOptions {
        home: Some("/home/fuzz".into()),
        prefixes: vec![("/tmp/scratch".into(), "/work".into())],
        extra: vec![],
    })
    .unwrap()
}

fn red(line: &str) -> (String, BTreeMap<String, u64>) {
    let r = redactor();
    let mut st = r.state();
    let out = String::from_utf8(r.redact(line.as_bytes(), &mut st).into_owned()).unwrap();
    (out, r.summary(&st))
}

#[test]
fn every_kind_is_redacted_and_named() {
    let cases = [
        ("anthropic-key", "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv"),
        ("openai-key", "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx"),
        ("openai-key", "sk-AbCdEfGhIjKlMnOpQrStUvWx1234"),
        ("github-token", "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"),
        ("github-token", "gho_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"),
        (
            "github-token",
            "github_pat_11AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
        ),
        ("aws-key", "AKIAIOSFODNN7EXAMPLE"),
        ("google-key", "AIzaSyA-1234567890abcdefghijklmnopqrstu"),
        ("slack-token", "xoxb-1234567890-abcdefghij"),
        ("npm-token", "npm_abcdefghijklmnopqrstuvwxyz0123456789"),
        ("stripe-key", "sk_live_abcdefghijklmnop1234"),
        (
            "jwt",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
        ),
        ("custom", "corp-123456"),
    ];
    for (kind, secret) in cases {
        let line = format!("{{\"text\":\"use {secret} now\"}}");
        let (out, counts) = red(&line);
        assert!(!out.contains(secret), "{kind}: {out}");
        assert!(out.contains(&format!("[REDACTED:{kind}]")), "{kind}: {out}");
        assert_eq!(counts.get(kind), Some(&1), "{kind}");
        serde_json::from_str::<serde_json::Value>(&out).unwrap();
    }
}

#[test]
fn the_literal_gate_lets_every_builtin_kind_through() {
    // Without --redact patterns the gate is on; every kind must still be found.
    let r = Redactor::new(&RedactOptions {
        home: Some("/home/alice".into()),
        ..Default::default()
    })
    .unwrap();
    for line in [
        "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv",
        "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx",
        "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
        "AKIAIOSFODNN7EXAMPLE",
        "AIzaSyA-1234567890abcdefghijklmnopqrstu",
        "xoxb-1234567890-abcdefghij",
        "npm_abcdefghijklmnopqrstuvwxyz0123456789",
        "sk_live_abcdefghijklmnop1234",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVPmB92K27uhbUJU1p1r",
        "Authorization: Bearer abc123def456ghi789jkl",
        "Authorization: Basic dXNlcjpodW50ZXIy",
        "GITHUB_TOKEN=abcd1234",
        "{\"token\":\"abcd\"}",
        r#"{"apiKey":"abcd1234"}"#,
        r#"{"input":"{\"client_secret\": \"abcd1234\"}"}"#,
        "-----BEGIN PRIVATE KEY-----",
        "/home/alice/x",
    ] {
        let mut st = r.state();
        assert!(
            r.redact(line.as_bytes(), &mut st).as_ref() != line.as_bytes(),
            "{line}"
        );
    }
}

#[test]
fn values_after_names_are_redacted() {
    let (out, _) = red(r#"{"headers":{"Authorization":"Bearer abc123def456ghi789jkl"}}"#);
    assert_eq!(
        out,
        r#"{"headers":{"Authorization":"Bearer [REDACTED:bearer]"}}"#
    );
    let (out, _) = red(r#"{"h":"Basic dXNlcjpodW50ZXIy"}"#);
    assert_eq!(out, r#"{"h":"Basic [REDACTED:basic-auth]"}"#);
    let (out, _) = red(r#"{"cmd":"OPENAI_API_KEY=abcd1234 run; DB_PASSWORD=\"hunter22\""}"#);
    assert_eq!(
        out,
        r#"{"cmd":"OPENAI_API_KEY=[REDACTED:secret-env] run; DB_PASSWORD=\"[REDACTED:secret-env]\""}"#
    );
    let (out, _) = red(r#"{"client_secret":"s3cr3t-value","apiKey":"xyz12345","max_tokens":100}"#);
    assert_eq!(
        out,
        r#"{"client_secret":"[REDACTED:secret-field]","apiKey":"[REDACTED:secret-field]","max_tokens":100}"#
    );
    let (out, _) = red(r#"{"input":"{\"auth_token\": \"abcdef12\"}"}"#);
    assert_eq!(
        out,
        r#"{"input":"{\"auth_token\": \"[REDACTED:secret-field]\"}"}"#
    );
}

#[test]
fn prose_and_references_are_left_alone() {
    for line in [
        r#"{"text":"Basic authentication and bearer tokens are explained in the task-abcdefghijklmnopqrstuvwxyz doc"}"#,
        r#"{"cmd":"export API_KEY=$API_KEY"}"#,
        r#"{"apiKeySource":"none","input_tokens":12}"#,
        r#"{"cwd":"/home/alicex/app"}"#,
    ] {
        assert_eq!(red(line).0, line);
    }
}

#[test]
fn paths_become_tilde_and_scratch() {
    let (out, counts) =
        red(r#"{"cwd":"/home/alice/app","tmp":"/tmp/scratch-1/x","home":"/home/alice"}"#);
    assert_eq!(out, r#"{"cwd":"~/app","tmp":"/work/x","home":"~"}"#);
    assert_eq!(counts.get("home-path"), Some(&2));
    assert_eq!(counts.get("path"), Some(&1));
}

#[test]
fn pem_blocks_in_json_and_over_raw_lines() {
    let (out, _) = red(
        r#"{"content":"-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc==\n-----END RSA PRIVATE KEY-----\n"}"#,
    );
    assert_eq!(out, r#"{"content":"[REDACTED:private-key]\n"}"#);
    let r = redactor();
    let mut st = r.state();
    let lines = [
        "-----BEGIN PRIVATE KEY-----",
        "MIIEvQIBADANBg",
        "-----END PRIVATE KEY-----",
        "after",
    ];
    let out: Vec<String> = lines
        .iter()
        .map(|l| String::from_utf8(r.redact(l.as_bytes(), &mut st).into_owned()).unwrap())
        .collect();
    assert!(out.iter().all(|l| !l.contains("MIIE")), "{out:?}");
    assert_eq!(out[3], "after");
}

#[test]
fn a_custom_pattern_never_breaks_json() {
    let r = Redactor::new(&RedactOptions {
        extra: vec![r#"x":"y"#.into()],
        ..Default::default()
    })
    .unwrap();
    let mut st = r.state();
    let out = r.redact(br#"{"x":"y"}"#, &mut st);
    serde_json::from_slice::<serde_json::Value>(&out).unwrap();
}

/// A candidate turned away (a Basic value that is no `user:pass`, a Bearer value without a digit,
/// a placeholder) does not hide a secret of another kind inside its value, from `redact` or from
/// `find` (what `corpus lint` reports).
#[test]
fn a_secret_inside_a_rejected_candidate_is_still_redacted_and_found() {
    let cases = [
        (
            r#"{"h":"Basic AKIAABCDEFGHIJKLMNOP"}"#,
            r#"{"h":"Basic [REDACTED:aws-key]"}"#,
            "aws-key",
            "AKIA",
        ),
        (
            r#"{"h":"bearer github_pat_abcdefghijklmnopqrstuvwxyzABCDEF"}"#,
            r#"{"h":"bearer [REDACTED:github-token]"}"#,
            "github-token",
            "github_pat_",
        ),
        (
            r#"{"cmd":"export OPENAI_KEY=<sk-abcdefghijklmnopqrstuvwxyz>"}"#,
            r#"{"cmd":"export OPENAI_KEY=<[REDACTED:openai-key]>"}"#,
            "openai-key",
            "sk-",
        ),
    ];
    for (line, redacted, kind, secret) in cases {
        assert_eq!(red(line).0, redacted, "{line}");
        let found = redactor().find(line.as_bytes());
        assert_eq!(
            found,
            vec![Finding {
                kind: kind.into(),
                offset: line.find(secret).unwrap()
            }],
            "{line}"
        );
        assert_eq!(red(redacted).0, redacted, "a second pass changes nothing");
    }
}

#[test]
fn find_reports_kind_and_offset() {
    let f = redactor().find(b"key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv /home/alice");
    assert_eq!(
        f,
        vec![Finding {
            kind: "anthropic-key".into(),
            offset: 4
        }]
    );
}

proptest::proptest! {
    #[test]
    fn json_stays_json(s in "\\PC{0,80}") {
        let line = serde_json::to_string(&serde_json::json!({"text": s, "k": format!("sk-ant-{s}")})).unwrap();
        let r = redactor();
        let mut st = r.state();
        let out = r.redact(line.as_bytes(), &mut st);
        proptest::prop_assert!(serde_json::from_slice::<serde_json::Value>(&out).is_ok(), "{}", String::from_utf8_lossy(&out));
    }
}

/// Found by fuzzing (the `redactor` target): `/home/fuzz.p` is a folder of its own, not the
/// home `/home/fuzz` (it became `~.p`), and a second redaction then folded the `/tmp/scratch`
/// inside it. A home folded to `~` starts a path, so what follows it never folds again.
#[test]
fn a_prefix_followed_by_a_dotted_name_stays_and_redacting_twice_changes_nothing() {
    let r = fuzz_redactor();
    let fold = |line: &str| {
        let mut st = r.state();
        String::from_utf8(r.redact(line.as_bytes(), &mut st).into_owned()).unwrap()
    };
    let line = "AKIAIOSFODNN7EXAMPLE /home/fuzz.p/tmp/scratch/x and /home/fuzz/tmp/scratch/y, see /home/fuzz.";
    let once = fold(line);
    assert_eq!(
        once,
        "[REDACTED:aws-key] /home/fuzz.p/tmp/scratch/x and ~/tmp/scratch/y, see ~."
    );
    assert_eq!(fold(&once), once);
    assert_eq!(
        fold("~/tmp/scratch/z /tmp/scratch/z"),
        "~/tmp/scratch/z /work/z"
    );
    assert_eq!(
        fold("/home/fuzz..x /home/fuzz.d/"),
        "/home/fuzz..x /home/fuzz.d/"
    );
    // A secret right after a prefix: the name went on, so neither pass folds it.
    let pem = r#"{"path":"/home/fuzz-----BEGIN RSA PRIVATE KEY-----MIIE"}"#;
    let once = fold(pem);
    assert_eq!(once, r#"{"path":"/home/fuzz[REDACTED:private-key]"}"#);
    assert_eq!(fold(&once), once);
}

proptest::proptest! {
    /// The fuzz target's property on lines built from the pieces redaction turns on: paths
    /// and their folds, secrets and their tokens, separators, and bytes that are not UTF-8.
    #[test]
    fn redacting_twice_changes_nothing(pieces in proptest::collection::vec(0..PIECES.len(), 0..24)) {
        static R: std::sync::LazyLock<Redactor> = std::sync::LazyLock::new(|| {
            fuzz_redactor()
        });
        let r = &*R;
        let line: Vec<u8> = pieces.iter().flat_map(|&i| PIECES[i].iter().copied()).collect();
        let once = r.redact(&line, &mut r.state()).into_owned();
        proptest::prop_assert!(r.find(&once).is_empty());
        let twice = r.redact(&once, &mut r.state()).into_owned();
        proptest::prop_assert_eq!(String::from_utf8_lossy(&twice), String::from_utf8_lossy(&once));
    }
}

const PIECES: &[&[u8]] = &[
    b"/home/fuzz",
    b"/tmp/scratch",
    b"~",
    b"/",
    b"\\",
    b".",
    b"..",
    b"x",
    b"-",
    b"_",
    b" ",
    b"\"",
    b"\xbb",
    b"[REDACTED:aws-key]",
    b"AKIAIOSFODNN7EXAMPLE",
    b"sk-ant-api03-AbCd1234",
    b"AIzaSyA-1234567890abcdefghijklmnopqrstu",
    b"-----BEGIN PRIVATE KEY-----",
    b"MIIE/x+",
    b"-----END PRIVATE KEY-----",
    b"Bearer ",
    b"abcdefghijklmnop1",
    b"TOKEN=",
    b"\"key\":\"",
    b"file://",
    b"-I",
];

/// Found by fuzzing (the `redactor` target): a home glued to a word (`question/home/fuzz`)
/// folds to `question~`, and the path it starts went on with the home again
/// (`…/home/fuzz/`), left alone as inside a path; a second redaction took `question~` for a
/// word and folded it. Where a path starts is judged on the text as written, where a folded
/// `~` starts a path wherever it stands, and a redaction token stands for the name it hid.
#[test]
fn a_fold_after_a_glued_home_and_after_a_token_is_decided_the_same_twice() {
    let r = fuzz_redactor();
    let fold = |line: &[u8]| {
        let mut st = r.state();
        r.redact(line, &mut st).into_owned()
    };
    for (line, want) in [
        (
            &b"the question/home/fuzz/home/fuzz/\xbb/tmp/scratchs."[..],
            &b"the question~/home/fuzz/\xbb/tmp/scratchs."[..],
        ),
        (b"-I/home/fuzz/tmp/scratch/x", b"-I~/tmp/scratch/x"),
        (
            b"/d/AKIAIOSFODNN7EXAMPLE/home/fuzz/x",
            b"/d/[REDACTED:aws-key]/home/fuzz/x",
        ),
        (
            b"/home/fuzz.sk-ant-api03-AbCdEfGhIjKl /tmp/scratch.AIzaSyA-1234567890abcdefghijklmnopqrstu",
            b"/home/fuzz.[REDACTED:anthropic-key] /tmp/scratch.[REDACTED:google-key]",
        ),
        (b"x~/tmp/scratch/y ~/x", b"x~/tmp/scratch/y ~/x"),
        // The AWS key ends at a word boundary only once the Google key after it is a token.
        (
            b"AKIAIOSFODNN7EXAMPLEAIzaSyA-1234567890abcdefghijklmnopqrstu",
            b"[REDACTED:aws-key][REDACTED:google-key]",
        ),
    ] {
        let once = fold(line);
        assert_eq!(
            String::from_utf8_lossy(&once),
            String::from_utf8_lossy(want),
            "{}",
            String::from_utf8_lossy(line)
        );
        assert_eq!(
            String::from_utf8_lossy(&fold(&once)),
            String::from_utf8_lossy(&once)
        );
    }
}

/// A fold applies where a path starts, never inside one: with the toolnorm binary in the
/// temporary folder (`/tmp` → `~/toolnorm-bin`), the scratch folder's own `tmp` subfolder
/// used to become `~/scratch~/toolnorm-bin/claude-0/…`.
#[test]
fn a_fold_never_applies_inside_a_path_and_the_longest_that_fits_wins() {
    let r = Redactor::new(&RedactOptions {
        home: Some("/home/alice".into()),
        prefixes: vec![
            ("/tmp/toolnorm-scenario-1".into(), "~/scratch".into()),
            ("/tmp/toolnorm-scenario-1/work".into(), "~/work".into()),
            ("/tmp".into(), "~/toolnorm-bin".into()),
        ],
        extra: vec![],
    })
    .unwrap();
    let fold = |line: &str| {
        let mut st = r.state();
        String::from_utf8(r.redact(line.as_bytes(), &mut st).into_owned()).unwrap()
    };
    assert_eq!(
        fold(r#"{"p":"/tmp/toolnorm-scenario-1/tmp/claude-0/x","q":"/home/alice/tmp/y"}"#),
        r#"{"p":"~/scratch/tmp/claude-0/x","q":"~/tmp/y"}"#
    );
    // The longest prefix that ends at a separator: `…/workspace` is not `…/work`.
    assert_eq!(
        fold("cd /tmp/toolnorm-scenario-1/workspace /tmp/toolnorm-scenario-1/work/a"),
        "cd ~/scratch/workspace ~/work/a"
    );
    // A path after an escaped line break in JSON text (`Found 2 matches\n/tmp/…`, OpenCode's
    // grep output) starts a path: the `\n` is no Windows folder. An escaped backslash is one.
    assert_eq!(
        fold(
            r#"{"o":"Found 2 matches\n/tmp/toolnorm-scenario-1/work/a.js:\n\n/tmp/toolnorm-scenario-1/work/b.js"}"#
        ),
        r#"{"o":"Found 2 matches\n~/work/a.js:\n\n~/work/b.js"}"#
    );
    assert_eq!(fold(r#"{"p":"C:\\n\\tmp/x"}"#), r#"{"p":"C:\\n\\tmp/x"}"#);
    // A name that is not the prefix is left alone, and a path begins after `//` or a flag.
    assert_eq!(
        fold("/tmpfoo file:///tmp/a -I/home/alice/inc"),
        "/tmpfoo file://~/toolnorm-bin/a -I~/inc"
    );
}

proptest::proptest! {
    /// The gate only turns away lines the pattern would leave alone: with and without it, the
    /// same output. Pieces hold every literal, in places where its kind matches and where not.
    #[test]
    fn the_gate_never_turns_away_a_line_the_pattern_redacts(
        pieces in proptest::collection::vec(0..GATE_PIECES.len(), 0..12)
    ) {
        static R: std::sync::LazyLock<(Redactor, Redactor)> = std::sync::LazyLock::new(|| {
            let r = Redactor::new(&RedactOptions {
                home: Some("/home/alice".into()),
                prefixes: vec![("/tmp/scratch-1".into(), "/work".into())],
                extra: vec![],
            })
            .unwrap();
            let mut ungated = r.clone();
            ungated.gate = None;
            (r, ungated)
        });
        let (gated, ungated) = &*R;
        assert!(gated.gate.is_some());
        let line: Vec<u8> = pieces.iter().flat_map(|&i| GATE_PIECES[i].bytes()).collect();
        let with = gated.redact(&line, &mut gated.state()).into_owned();
        let without = ungated.redact(&line, &mut ungated.state()).into_owned();
        proptest::prop_assert_eq!(String::from_utf8_lossy(&with), String::from_utf8_lossy(&without));
        proptest::prop_assert_eq!(gated.find(&line), ungated.find(&line));
    }
}

const GATE_PIECES: &[&str] = &[
    "task-",
    "sk-",
    "ant-api03-AbCdEfGh",
    "proj-AbCdEfGhIjKlMnOpQrStUvWx",
    "sk_live_abcdefghijklmnop1234",
    "rk_live_",
    "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "github_pat_11AbCdEfGhIjKlMnOpQrStUvWxYz0123",
    "AKIAIOSFODNN7EXAMPLE",
    "ASIA",
    "AIzaSyA-1234567890abcdefghijklmnopqrstu",
    "xoxb-1234567890-abcdefghij",
    "npm_abcdefghijklmnopqrstuvwxyz0123456789",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVPmB92K27uhbUJU1p1r",
    "Bearer",
    "bearer",
    "Authorization: Bearer abc123def456ghi789jkl",
    "basic dXNlcjpodW50ZXIy",
    "{\"apiKey\": \"abcd1234\"}",
    "{\\\"client_secret\\\":\\\"abcd1234\\\"}",
    "GITHUB_TOKEN=abcd1234",
    "{\"token\":\"abcd\"}",
    "BASIC",
    "Basic",
    " ",
    "\t",
    "abc123def456ghi789jkl",
    "dXNlcjpodW50ZXIy",
    "OPENAI_API_KEY=",
    "KEY=",
    "TOKEN=",
    "DB_PASSWORD=",
    "hunter22",
    "\"",
    "\\\"",
    ":",
    " : ",
    "\"apiKey",
    "\"client_secret",
    "\"ANTHROPIC_API_KEY\"",
    "Token",
    "passwd",
    "-----BEGIN RSA PRIVATE KEY-----",
    "MIIEow",
    "/home/alice",
    "/tmp/scratch-1",
    "/",
    "x",
    "_",
    ".",
];
