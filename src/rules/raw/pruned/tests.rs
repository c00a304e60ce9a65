use super::*;

#[test]
fn keeps_what_scans_read_and_drops_the_rest() {
    let v = parse(
        br#"{"type":"user","toolUseResult":{"stdout":"big"},"message":{"content":[{"type":"tool_result","tool_use_id":"t","is_error":true,"content":"long output"},{"type":"tool_use","id":"u","input":{"any key":{"deep":[1,"x"]}}}]}}"#,
    )
    .unwrap();
    assert_eq!(
        v.to_value(),
        serde_json::json!({"type":"user","message":{"content":[
            {"type":"tool_result","tool_use_id":"t","is_error":true,"content":null},
            {"type":"tool_use","id":"u","input":{"any key":{"deep":[1,"x"]}}}
        ]}})
    );
}

#[test]
fn notices_are_kept_and_other_strings_dropped() {
    let v = parse(
        br#"{"type":"queue-operation","content":"<task-notification>\n<task-id>b1</task-id>\n</task-notification>","message":{"content":[{"type":"text","text":"Command running in background with ID: b1."},{"type":"text","text":"narration"},{"type":"tool_result","content":"long output\nCommand was manually backgrounded by user with ID: b2. Output is being written to: /t"}]},"attachment":{"type":"queued_command","prompt":"x"}}"#,
    )
    .unwrap();
    assert_eq!(
        v.to_value(),
        serde_json::json!({"type":"queue-operation",
            "content":"<task-notification>\n<task-id>b1</task-id>\n</task-notification>",
            "message":{"content":[
                {"type":"text","text":"Command running in background with ID: b1."},
                {"type":"text"},
                {"type":"tool_result","content":"long output\nCommand was manually backgrounded by user with ID: b2. Output is being written to: /t"}
            ]},
            "attachment":{"type":"queued_command","prompt":"x"}})
    );
    // A string that only quotes a notice in its middle is dropped.
    let v = parse(br#"{"content":"see <task-notification> here"}"#).unwrap();
    assert_eq!(v.to_value(), serde_json::json!({"content": null}));
    // Escaped white space before the block, and escaped brackets.
    assert!(is_notice(br#""\n <task-notification>""#));
    assert!(is_notice(br#""\u003ctask-notification\u003e""#));
    assert!(!is_notice(b"\"x\""));
}

#[test]
fn nested_content_lists_end_at_a_fixed_depth() {
    // 100,000 `content` lists one inside another: no stack overflow, the line still reads,
    // with what lies deeper than MAX_HOPS dropped.
    let depth = 100_000;
    let mut line = "{\"content\":[".repeat(depth);
    line.push_str(&"]}".repeat(depth));
    let v = parse(line.as_bytes()).expect("the line reads");
    let mut at = &v;
    let mut hops = 0;
    while let Some(inner) = at
        .get("content")
        .and_then(Node::as_array)
        .and_then(|c| c.first())
    {
        at = inner;
        hops += 1;
    }
    assert_eq!(hops, usize::from(MAX_HOPS));
    let shallow = parse(br#"{"content":[{"content":[{"type":"tool_result","tool_use_id":"t"}]}]}"#);
    assert_eq!(
        shallow.map(|v| v.to_value()),
        Some(
            serde_json::json!({"content":[{"content":[{"type":"tool_result","tool_use_id":"t"}]}]})
        )
    );
}

#[test]
fn refuses_what_is_not_one_json_value() {
    assert!(parse(b"{\"type\":").is_none());
    assert!(parse(b"{\"a\":1} {\"b\":2}").is_none());
    assert!(parse(b"{\"skipped\":[1,}").is_none());
    assert_eq!(parse(b" 3 ").map(|v| v.to_value()), Some(Value::from(3)));
    assert_eq!(parse(b"1.5").map(|v| v.to_value()), Some(Value::from(1.5)));
}

#[test]
fn nesting_is_limited_where_serde_json_limits_it() {
    let kept = |depth: usize| format!("{{\"input\":{}{}}}", "[".repeat(depth), "]".repeat(depth));
    for depth in 125..=129 {
        let line = kept(depth);
        assert_eq!(
            parse(line.as_bytes()),
            oracle::parse(line.as_bytes()),
            "{depth}"
        );
    }
    assert!(parse(kept(126).as_bytes()).is_some());
    assert!(parse(kept(127).as_bytes()).is_none());
    // What is skipped is not built, and may go as deep as it likes.
    let skipped = format!(
        "{{\"skipped\":{}1{}}}",
        "[{\"a\":".repeat(100_000),
        "}]".repeat(100_000)
    );
    assert!(parse(skipped.as_bytes()).is_some());
    assert_eq!(parse(skipped.as_bytes()), oracle::parse(skipped.as_bytes()));
}

#[test]
fn numbers_at_the_edges_read_as_serde_json_reads_them() {
    for n in [
        "0",
        "-0",
        "7",
        "-7",
        "1234567890123456789",
        "9999999999999999999",
        "18446744073709551615",
        "18446744073709551616",
        "99999999999999999999",
        "-9223372036854775808",
        "-9223372036854775809",
        "1.5",
        "-0.0",
        "1e308",
        "1e309",
        "1E-400",
        "2.5e+3",
        "01",
        "1.",
        "-",
        "1e",
        ".5",
    ] {
        let line = format!("{{\"input\":[{n}],\"skipped\":{n}}}");
        let ours = parse(line.as_bytes());
        assert_eq!(ours, oracle::parse(line.as_bytes()), "{n}");
        if let Some(v) = ours {
            let theirs: Value = serde_json::from_str(&line).unwrap();
            assert_eq!(v.get("input").unwrap().to_value(), theirs["input"], "{n}");
        }
    }
}

/// Every line of the shipped corpus reads as serde_json reads it.
#[test]
fn the_shipped_corpus_reads_as_serde_json_reads_it() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut lines = 0;
    for f in crate::corpus::list_fixtures(&root) {
        let stream = crate::corpus::load_stream(&f.path).unwrap();
        for line in stream.input().lines.iter() {
            let bytes = line.bytes.strip_prefix(b"data:").unwrap_or(line.bytes);
            assert_eq!(
                parse(bytes),
                oracle::parse(bytes),
                "{}:{}",
                f.rel,
                line.number
            );
            // And read from the line's known text, as the scans read it.
            assert_eq!(
                parse_line(line, true),
                parse(bytes),
                "{}:{}",
                f.rel,
                line.number
            );
            lines += 1;
        }
    }
    assert!(lines > 1000, "{lines} lines");
}

/// A server-sent event's `data:` prefix is dropped only when asked, from the known text as from
/// the bytes.
#[test]
fn a_line_s_sse_prefix_is_dropped_only_when_asked() {
    let json = r#"{"type":"tool_use","id":"a"}"#;
    let event = format!("data:{json}");
    let known = crate::stream::RawLine {
        number: 1,
        bytes: event.as_bytes(),
        direction: crate::stream::Direction::Agent,
        unterminated: false,
        text: Some(&event),
    };
    let unknown = crate::stream::RawLine {
        text: None,
        ..known
    };
    for line in [&known, &unknown] {
        assert_eq!(parse_line(line, true), parse(json.as_bytes()));
        assert!(parse_line(line, true).is_some());
        assert_eq!(parse_line(line, false), None);
    }
}

/// What a `serde_json::Value` of the line holds under `input` (a key kept whole).
fn as_value_does(line: &str) -> (Value, Value) {
    let ours = parse(line.as_bytes()).unwrap();
    let theirs: Value = serde_json::from_str(line).unwrap();
    (
        ours.get("input").unwrap().to_value(),
        theirs["input"].clone(),
    )
}

#[test]
fn a_repeated_key_keeps_its_first_place_and_last_value() {
    let small = r#"{"input":{"a":1,"b":2,"a":3}}"#;
    let (ours, theirs) = as_value_does(small);
    assert_eq!(ours, theirs);
    assert_eq!(serde_json::to_string(&ours).unwrap(), r#"{"a":3,"b":2}"#);
    // Past the pairwise check: twelve keys, one of them three times.
    let keys: Vec<String> = (0..12).map(|i| format!("\"k{i}\":{i}")).collect();
    let large = format!(
        r#"{{"input":{{{},"k3":"x","k0":[],"k3":null}}}}"#,
        keys.join(",")
    );
    let (ours, theirs) = as_value_does(&large);
    assert_eq!(
        serde_json::to_string(&ours).unwrap(),
        serde_json::to_string(&theirs).unwrap()
    );
    // Lookups see the last value too, in a pruned object as in a whole one.
    let v = parse(br#"{"id":"first","id":"last"}"#).unwrap();
    assert_eq!(v.get("id").and_then(Node::as_str), Some("last"));
}

#[test]
fn strings_with_escapes_and_every_number_read_as_a_value_does() {
    let (ours, theirs) = as_value_does(
        r#"{"input":{"s":"a\"b\u00e9\n","i":-3,"u":18446744073709551615,"f":1.5e300,"z":-0.0}}"#,
    );
    assert_eq!(ours, theirs);
}

fn json() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    crate::compare::canonical::json_leaf().prop_recursive(4, 40, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec(("[a-c\"\\\\]{0,2}", inner), 0..12).prop_map(|kv| {
                // Written by hand below, so keys may repeat.
                Value::Array(
                    kv.into_iter()
                        .map(|(k, v)| Value::Array(vec![Value::from(k), v]))
                        .collect(),
                )
            }),
        ]
    })
}

/// JSON text of `v`, where an array of `[key, value]` pairs is written as an object (keys may
/// repeat, as they may on a raw line).
fn text(v: &Value, out: &mut String) {
    match v {
        Value::Array(items)
            if !items.is_empty()
                && items.iter().all(|p| {
                    p.as_array()
                        .is_some_and(|p| p.len() == 2 && p[0].is_string())
                }) =>
        {
            out.push('{');
            for (i, p) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&p[0].to_string());
                out.push(':');
                text(&p[1], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                text(x, out);
            }
            out.push(']');
        }
        Value::String(t) if t.starts_with(RAW) => out.push_str(&t[RAW.len()..]),
        other => out.push_str(&other.to_string()),
    }
}

/// The node holds the value's entries, in its order, and nothing else (checked entry by
/// entry, not through [`Node::to_value`], whose map would hide a repeated key).
fn same(node: &Node<'_>, value: &Value) -> bool {
    match (node, value) {
        (Node::Object(entries), Value::Object(map)) => {
            entries.len() == map.len()
                && entries
                    .iter()
                    .zip(map)
                    .all(|((k, v), (mk, mv))| k == mk && same(v, mv))
        }
        (Node::Array(items), Value::Array(values)) => {
            items.len() == values.len() && items.iter().zip(values).all(|(n, v)| same(n, v))
        }
        (Node::Object(_) | Node::Array(_), _) => false,
        (scalar, value) => scalar.to_value() == *value,
    }
}

/// Keys the scans keep in every way ([`keep`]), and keys they skip.
fn key() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    prop_oneof![
        Just("content".to_owned()),
        Just("text".to_owned()),
        Just("input".to_owned()),
        Just("arguments".to_owned()),
        Just("type".to_owned()),
        Just("id".to_owned()),
        Just("message".to_owned()),
        Just("toolUseResult".to_owned()),
        "[a-c\"\\\\\u{e9}]{0,2}",
    ]
}

/// Values whose objects (arrays of `[key, value]` pairs, see [`text`]) use [`key`].
fn keyed_json() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let notices: &[&str] = &[
        "<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n</task-notification>",
        " \n<task-notification><task-id>b1",
        "Command running in background with ID: b1. Output is being written to: /t/b1.output",
        "out\nCommand was manually backgrounded by user with ID: b1. Output",
        "see <task-notification>",
    ];
    let leaf = prop_oneof![
        3 => crate::compare::canonical::json_leaf(),
        1 => string_text(false).prop_map(|t| {
            Value::from(format!("{RAW}{}", String::from_utf8_lossy(&t)))
        }),
        1 => proptest::sample::select(notices).prop_map(Value::from),
    ];
    leaf.prop_recursive(5, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            proptest::collection::vec((key(), inner), 1..6).prop_map(|kv| {
                Value::Array(
                    kv.into_iter()
                        .map(|(k, v)| Value::Array(vec![Value::from(k), v]))
                        .collect(),
                )
            }),
        ]
    })
}

/// Bytes that JSON text goes wrong with, or that the parse must read exactly.
fn fragment() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    use proptest::prelude::*;
    let words: &[&[u8]] = &[
        b"{",
        b"}",
        b"[",
        b"]",
        b",",
        b":",
        b"\"",
        b"\\",
        b" ",
        b"\n",
        b"\t",
        b"\x0c",
        b"\\u00e9",
        b"\\ud83d\\ude00",
        b"\\ud800",
        b"\\udc00x",
        b"\\u12g4",
        b"\\x",
        b"\\/",
        b"\x00",
        b"\x1f",
        b"\x7f",
        b"\xc3\xa9",
        b"\xff",
        b"\xe2\x82",
        b"0",
        b"-0",
        b"01",
        b"1.",
        b"1.5",
        b"1e400",
        b"-1E-5",
        b"1e+",
        b"-",
        b"18446744073709551616",
        b"99999999999999999999",
        b"true",
        b"nul",
        b"null",
        b"\"content\":",
        b"\"input\":",
        b"\"type\":\"x\"",
        b"data:",
    ];
    prop_oneof![
        proptest::sample::select(words).prop_map(<[u8]>::to_vec),
        any::<u8>().prop_map(|b| vec![b]),
        string_text(true),
    ]
}

/// Escapes serde_json reads, and bytes that need none (text past ASCII, DEL).
const ESCAPES: &[&[u8]] = &[
    br#"\""#,
    br"\\",
    br"\/",
    br"\b",
    br"\f",
    br"\n",
    br"\r",
    br"\t",
    br"\u00e9",
    br"\uD83D\uDE00",
    br"\ud800",
    br"\udc00",
    b"\xc3\xa9",
    b"\x7f",
];

/// What serde_json refuses in a string: escapes of no kind, a `\u` short of hex digits, a
/// lone backslash (escaping whatever follows it, or nothing), control bytes.
const WRONG: &[&[u8]] = &[br"\u12g4", br"\u12", br"\x", br"\", b"\x00", b"\x1f"];

/// A string's text, quotes included, of plain runs and every kind of escape, right and
/// wrong, and (with `bytes`) bytes that are not UTF-8.
fn string_text(bytes: bool) -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    use proptest::prelude::*;
    let escapes: Vec<&[u8]> = [ESCAPES, WRONG].concat();
    let not_utf8: &[&[u8]] = if bytes { &[b"\xff", b"\xc3"] } else { &[b"e"] };
    let piece = prop_oneof![
        "[a-z ]{1,24}".prop_map(String::into_bytes),
        proptest::sample::select(escapes).prop_map(<[u8]>::to_vec),
        proptest::sample::select(not_utf8).prop_map(<[u8]>::to_vec),
    ];
    proptest::collection::vec(piece, 0..8).prop_map(|pieces| {
        let mut out = b"\"".to_vec();
        out.extend(pieces.concat());
        out.push(b'"');
        out
    })
}

/// The bytes of the plain runs in [`long_string_body`]: letters, space and JSON punctuation.
const PLAIN: &[u8] = b"abcdefghijklmnopqrstuvwxyz {}:,";

/// The body of a long JSON string (no quotes around it), mostly right: plain runs of every
/// length up to past a 64-byte block, escaped quotes, runs of backslashes of every length (an
/// odd one escapes what follows it), escapes of every kind, and now and then a wrong one, a
/// bare quote (which ends the string early) or a control byte.
fn long_string_body() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    use proptest::prelude::*;
    let piece = prop_oneof![
        // Plain runs drawn byte by byte (a regex strategy here was most of the test's time).
        8 => proptest::collection::vec(proptest::sample::select(PLAIN), 0..=70),
        6 => proptest::sample::select(ESCAPES).prop_map(<[u8]>::to_vec),
        3 => (1usize..7).prop_map(|n| vec![b'\\'; n]),
        1 => proptest::sample::select([WRONG, &[b"\""]].concat()).prop_map(<[u8]>::to_vec),
    ];
    proptest::collection::vec(piece, 0..60).prop_map(|pieces| pieces.concat())
}

/// A string of [`keyed_json`] that starts with this is written as the text after it, not
/// as a JSON string.
const RAW: &str = "\u{0}raw:";

/// JSON text of `v` (see [`text`]) with a few bytes changed: a fragment put in, a run taken
/// out, a byte replaced. Most of it is still nearly JSON, so both parses go deep before
/// they refuse (or read) it.
fn mutated() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    use proptest::prelude::*;
    (
        keyed_json(),
        proptest::collection::vec((any::<usize>(), 0..3u8, fragment()), 0..4),
    )
        .prop_map(|(v, edits)| {
            let mut line = String::new();
            text(&v, &mut line);
            let mut bytes = line.into_bytes();
            for (at, how, frag) in edits {
                let at = at % (bytes.len() + 1);
                match how {
                    0 => {
                        bytes.splice(at..at, frag);
                    }
                    1 => {
                        let end = (at + frag.len()).min(bytes.len());
                        bytes.drain(at..end);
                    }
                    _ => {
                        if let Some(b) = bytes.get_mut(at) {
                            *b = frag[0];
                        }
                    }
                }
            }
            bytes
        })
}

proptest::proptest! {
    // Each case is cheap, and a wrong escape or number takes a few thousand to turn up.
    #![proptest_config(proptest::test_runner::Config::with_cases(2000))]

    /// A value kept whole reads exactly as serde_json reads it, repeated keys included.
    #[test]
    fn a_whole_value_is_what_serde_json_reads(v in json()) {
        let mut line = String::from("{\"input\":");
        text(&v, &mut line);
        line.push('}');
        let ours = parse(line.as_bytes()).unwrap();
        let theirs: Value = serde_json::from_str(&line).unwrap();
        proptest::prop_assert!(same(ours.get("input").unwrap(), &theirs["input"]));
    }

    /// The hand-written parse refuses what serde_json refuses and reads what it reads, on
    /// JSON with keys the scans keep, skip and re-parse, and on that JSON a few bytes
    /// wrong.
    #[test]
    fn the_parse_is_serde_json_s(bytes in mutated()) {
        proptest::prop_assert_eq!(parse(&bytes), oracle::parse(&bytes));
        if let Ok(text) = std::str::from_utf8(&bytes) {
            proptest::prop_assert_eq!(parse_whole(text), oracle::parse_whole(text));
        }
    }

    /// And on long strings, skipped (`text`, `output`) and built (`tool_use_id`, a notice's
    /// `content`), whose quotes, runs of backslashes, escapes right and wrong and control
    /// bytes fall on every place of a 64-byte block, with keys after them that count.
    #[test]
    fn long_strings_end_where_serde_json_ends_them(
        bodies in proptest::collection::vec(long_string_body(), 1..4),
        key in proptest::sample::select(&["text", "output", "tool_use_id", "content"][..]),
    ) {
        let mut line = b"{\"type\":\"tool_result\"".to_vec();
        for body in &bodies {
            line.extend_from_slice(b",\"");
            line.extend_from_slice(key.as_bytes());
            line.extend_from_slice(b"\":\"");
            line.extend_from_slice(body);
            line.push(b'"');
        }
        line.extend_from_slice(b",\"is_error\":true}");
        let want = oracle::parse(&line);
        proptest::prop_assert_eq!(&parse(&line), &want);
        proptest::prop_assert_eq!(&crate::stream::json_text::narrow_only(|| parse(&line)), &want);
    }

    /// And on any run of the bytes JSON goes wrong with.
    #[test]
    fn the_parse_is_serde_json_s_on_fragments(
        frags in proptest::collection::vec(fragment(), 0..24)
    ) {
        let bytes = frags.concat();
        let want = oracle::parse(&bytes);
        proptest::prop_assert_eq!(&parse(&bytes), &want);
        proptest::prop_assert_eq!(&crate::stream::json_text::narrow_only(|| parse(&bytes)), &want);
    }
}
