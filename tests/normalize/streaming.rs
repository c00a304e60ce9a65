//! The streaming API against the batch path on every fixture of the corpus: fed a line at a time,
//! [`toolnorm::Normalizer`] hands out updates that fold into exactly the batch document — with
//! the fixture's dialect given, and detected from the lines as they come.

use toolnorm::{
    DocumentBuilder, NormalizeOptions, NormalizedDocument, Normalizer, Update, normalize,
};

use crate::normalize::samples::{Sample, load_all};

/// Feed every line of the fixture (numbered and directed as recorded) and fold the updates.
fn streamed(s: &Sample, opts: NormalizeOptions<'_>) -> (NormalizedDocument, Vec<Update>) {
    let input = s.stream.input();
    let mut n = Normalizer::new(opts).unwrap_or_else(|e| panic!("{}: {e}", s.name));
    let mut all = Vec::new();
    for line in &input.lines {
        all.extend(n.push(line).unwrap_or_else(|e| panic!("{}: {e}", s.name)));
    }
    all.extend(n.finish().unwrap_or_else(|e| panic!("{}: {e}", s.name)));
    let mut doc = DocumentBuilder::new();
    doc.extend(all.iter().cloned());
    let doc = doc
        .finish()
        .unwrap_or_else(|| panic!("{}: no dialect update", s.name));
    (doc, all)
}

#[test]
fn every_fixture_streams_to_the_batch_document() {
    let samples = load_all();
    for s in samples {
        let batch = s.normalize();
        let (doc, updates) = streamed(s, s.options());
        assert_eq!(doc, batch, "{}: streamed document differs", s.name);
        assert_eq!(
            updates.first(),
            Some(&Update::Dialect(s.dialect)),
            "{}: the dialect comes first",
            s.name
        );
        // Every event is handed out once, with the part as that line left it.
        let parts = updates
            .iter()
            .filter(|u| matches!(u, Update::Part { .. }))
            .count();
        assert_eq!(parts, batch.events.len(), "{}", s.name);
    }
}

#[test]
fn detection_line_by_line_agrees_with_the_batch_path() {
    // A whole-document dialect (an export) is read at the end of its document, by design.
    let samples = load_all();
    for s in samples.iter().filter(|s| {
        toolnorm::dialects::entry(s.dialect)
            .sniff_document
            .is_none()
    }) {
        let opts = NormalizeOptions {
            provider: None,
            dialect: None,
            cwd: s.stream.cwd.as_deref(),
        };
        let batch = normalize(&s.stream.input(), opts);
        let batch = batch.unwrap_or_else(|e| panic!("{}: {e}", s.name));
        let (doc, _) = streamed(s, opts);
        assert_eq!(doc, batch, "{}: detected stream differs", s.name);
    }
}

#[test]
fn updates_arrive_before_the_stream_ends() {
    // A long recording with tool calls: its first part comes well before its last line.
    let samples = load_all();
    let s = samples
        .iter()
        .filter(|s| s.stream.spans().len() > 100)
        .max_by_key(|s| s.normalize().parts.len())
        .expect("a long fixture with parts");
    let input = s.stream.input();
    let mut n = Normalizer::new(s.options()).unwrap();
    let mut first_part_at = None;
    for (i, line) in input.lines.iter().enumerate() {
        let got = n
            .push(line)
            .unwrap()
            .any(|u| matches!(u, Update::Part { .. }));
        if got && first_part_at.is_none() {
            first_part_at = Some(i);
        }
    }
    let at = first_part_at.expect("some part");
    assert!(
        at + 1 < input.lines.len(),
        "{}: first part only at the end",
        s.name
    );
}

#[test]
fn detection_holds_no_tool_line_of_the_corpus() {
    // Every fixture, its dialect detected from the lines as they come: each line's part updates
    // are handed out by the push of that very line. The dialect is named by a line before the
    // first tool call (a `system`/`init`, a `thread.started`, a `server.connected`, …); only
    // blank, foreign and ambiguous lines are ever held.
    // A whole-document dialect (an export) is read at the end of its document, by design.
    let samples = load_all();
    for s in samples.iter().filter(|s| {
        toolnorm::dialects::entry(s.dialect)
            .sniff_document
            .is_none()
    }) {
        let opts = NormalizeOptions {
            provider: None,
            dialect: None,
            cwd: s.stream.cwd.as_deref(),
        };
        let input = s.stream.input();
        let mut n = Normalizer::new(opts).unwrap();
        let mut decided = false;
        for line in &input.lines {
            for u in n.push(line).unwrap_or_else(|e| panic!("{}: {e}", s.name)) {
                match u {
                    Update::Dialect(_) => decided = true,
                    Update::Part { event, .. } => assert_eq!(
                        event.line, line.number,
                        "{}: the update of line {} came at line {}",
                        s.name, event.line, line.number
                    ),
                    _ => {}
                }
            }
        }
        let has_parts = !s.normalize().parts.is_empty();
        // A stream that is one JSON document (Qwen Code's json array, an older Gemini CLI
        // session) is known only once it is whole.
        let document = input
            .lines
            .iter()
            .find(|l| !l.bytes.trim_ascii().is_empty())
            .is_some_and(|l| {
                toolnorm::dialects::entry(s.dialect)
                    .sniff_document
                    .is_some()
                    && (l.bytes.trim_ascii() == b"{" || l.bytes.starts_with(b"["))
            });
        assert!(
            decided || !has_parts || document,
            "{}: the dialect was decided only at the end",
            s.name
        );
    }
}
