//! Gemini CLI's and Qwen Code's dialects on bad input: a truncated last line, lines out of order,
//! lines of another agent or no JSON at all give diagnostics with their line and the rest of the
//! stream is normalized; and, over every fixture of the two providers in the corpus, random
//! damage (a line dropped, two lines swapped, a foreign line put in, the stream cut anywhere)
//! never panics, keeps every line number inside the input and never loses a call the damage did
//! not touch.

use std::collections::BTreeMap;

use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, TestRunner};
use toolnorm::model::DiagnosticLevel;
use toolnorm::{Dialect, Input, NormalizeOptions, NormalizedDocument, ToolState, normalize};

use crate::normalize::samples::{Sample, load_all};

fn run(dialect: Dialect, text: &str) -> NormalizedDocument {
    normalize(
        &Input::from_bytes(text.as_bytes()),
        NormalizeOptions {
            dialect: Some(dialect),
            ..NormalizeOptions::default()
        },
    )
    .expect("a forced dialect normalizes")
}

const GEMINI_USE: &str = r#"{"type":"tool_use","timestamp":"t1","tool_name":"glob","tool_id":"glob__c1","parameters":{"pattern":"*.md"}}"#;
const GEMINI_RESULT: &str = r#"{"type":"tool_result","timestamp":"t2","tool_id":"glob__c1","status":"success","output":"Found 1"}"#;
const QWEN_USE: &str = r#"{"type":"assistant","uuid":"a","session_id":"s","parent_tool_use_id":null,"message":{"content":[{"type":"tool_use","id":"c1","name":"glob","input":{"pattern":"*.md"}}]}}"#;
const QWEN_RESULT: &str = r#"{"type":"user","uuid":"b","session_id":"s","parent_tool_use_id":null,"message":{"content":[{"type":"tool_result","tool_use_id":"c1","is_error":false,"content":"Found 1"}]}}"#;
const CLAUDE_LINE: &str = r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]},"session_id":"s"}"#;

#[test]
fn a_truncated_last_line_is_an_error_at_its_line_and_the_rest_reads() {
    for (dialect, call, result) in [
        (Dialect::GeminiStreamJson, GEMINI_USE, GEMINI_RESULT),
        (Dialect::QwenStreamJson, QWEN_USE, QWEN_RESULT),
    ] {
        let text = format!("{call}\n{}", &result[..result.len() / 2]);
        let doc = run(dialect, &text);
        assert_eq!(doc.parts.len(), 1, "{dialect}");
        assert_eq!(doc.parts[0].state, ToolState::Running, "{dialect}");
        let d = &doc.diagnostics[0];
        assert_eq!(
            (d.line, d.level),
            (2, DiagnosticLevel::Error),
            "{dialect}: {d:?}"
        );
        assert!(d.message.contains("truncated"), "{dialect}: {}", d.message);
    }
}

#[test]
fn a_result_before_its_call_is_reported_at_its_line() {
    for (dialect, call, result) in [
        (Dialect::GeminiStreamJson, GEMINI_USE, GEMINI_RESULT),
        (Dialect::QwenStreamJson, QWEN_USE, QWEN_RESULT),
    ] {
        let doc = run(dialect, &format!("{result}\n{call}\n"));
        assert_eq!(doc.parts.len(), 1, "{dialect}");
        assert_eq!(doc.diagnostics.len(), 1, "{dialect}: {:?}", doc.diagnostics);
        assert_eq!(doc.diagnostics[0].line, 1, "{dialect}");
        assert!(doc.diagnostics[0].message.contains("c1"), "{dialect}");
    }
}

#[test]
fn foreign_and_broken_lines_are_diagnostics_and_the_calls_still_read() {
    for (dialect, call, result) in [
        (Dialect::GeminiStreamJson, GEMINI_USE, GEMINI_RESULT),
        (Dialect::QwenStreamJson, QWEN_USE, QWEN_RESULT),
        (Dialect::GeminiSession, GEMINI_USE, GEMINI_RESULT),
        (Dialect::QwenSession, QWEN_USE, QWEN_RESULT),
    ] {
        // Codex's line is another agent's; a Claude Code line would be Qwen Code's own shape.
        let text = format!(
            "not json at all\n[1,2]\n{call}\n\u{1}\n{result}\n{}\n",
            FOREIGN[1]
        );
        let doc = run(dialect, &text);
        let lines: Vec<u32> = doc.diagnostics.iter().map(|d| d.line).collect();
        assert!(
            lines.contains(&1) && lines.contains(&2) && lines.contains(&4),
            "{dialect}: {lines:?}"
        );
        if matches!(dialect, Dialect::GeminiStreamJson | Dialect::QwenStreamJson) {
            assert_eq!(doc.parts.len(), 1, "{dialect}");
            assert_eq!(doc.parts[0].state, ToolState::Complete, "{dialect}");
        }
    }
}

#[test]
fn a_whole_document_cut_short_says_where_it_ends() {
    let gemini = "{\n  \"session_id\": \"s\",\n  \"response\": \"x\",\n";
    let d = &run(Dialect::GeminiJson, gemini).diagnostics[0];
    assert_eq!((d.line, d.level), (3, DiagnosticLevel::Error), "{d:?}");
    let qwen = format!("[{QWEN_USE},{}", &QWEN_RESULT[..20]);
    let doc = run(Dialect::QwenJson, &qwen);
    assert!(doc.parts.is_empty());
    assert_eq!(doc.diagnostics[0].level, DiagnosticLevel::Error);
    let session = "{\n  \"sessionId\": \"s\",\n  \"messages\": [\n";
    let d = &run(Dialect::GeminiSession, session).diagnostics[0];
    assert_eq!(d.level, DiagnosticLevel::Error, "{d:?}");
}

/// How many cases the damage property tries (each one a whole normalization).
const CASES: u32 = 96;

/// Lines put into a stream as damage: another agent's, a broken one, none at all.
const FOREIGN: &[&str] = &[
    CLAUDE_LINE,
    r#"{"type":"item.completed","item":{"id":"i1","type":"command_execution","command":"ls"}}"#,
    r#"{"type":"tool_use","tool_name":"x""#,
    "\u{0}\u{1}garbage",
    "{}",
    "null",
];

/// The calls of a document with their state.
fn calls(doc: &NormalizedDocument) -> BTreeMap<String, ToolState> {
    doc.parts.iter().map(|p| (p.id.clone(), p.state)).collect()
}

/// Whether a dialect reads its stream as one document (a damaged document may lose everything).
fn whole_document(s: &Sample, text: &str) -> bool {
    matches!(s.dialect, Dialect::GeminiJson | Dialect::QwenJson)
        || (s.dialect == Dialect::GeminiSession && text.trim_start().starts_with("{\n"))
}

#[test]
fn damage_never_panics_and_spares_the_calls_it_does_not_touch() {
    let samples: Vec<&Sample> = load_all()
        .iter()
        .filter(|s| matches!(s.dialect.provider().as_str(), "gemini" | "qwen"))
        .collect();
    assert!(samples.len() >= 20, "{} fixtures", samples.len());
    let mut runner = TestRunner::new(Config {
        cases: CASES,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/normalize/gemini.txt",
        ))),
        max_global_rejects: 0,
        ..Config::default()
    });
    let strategy = (
        0..samples.len(),
        0u8..4,
        any::<prop::sample::Index>(),
        any::<prop::sample::Index>(),
        0..FOREIGN.len(),
    );
    let result = runner.run(&strategy, |(which, how, a, b, foreign)| {
        let s = &samples[which];
        let text = String::from_utf8_lossy(s.stream.bytes()).into_owned();
        let mut lines: Vec<&str> = text.lines().collect();
        if lines.is_empty() {
            return Ok(());
        }
        let (i, j) = (a.index(lines.len()), b.index(lines.len()));
        // The raw lines the damage touched (1-based), whose calls may change.
        let mut touched = vec![i + 1, j + 1];
        let damaged = match how {
            0 => {
                lines.remove(i);
                lines.join("\n")
            }
            1 => {
                lines.swap(i, j);
                lines.join("\n")
            }
            2 => {
                lines.insert(i, FOREIGN[foreign]);
                touched = (i + 1..=lines.len()).collect();
                lines.join("\n")
            }
            _ => {
                let cut = a.index(text.len() + 1);
                let cut = (0..=cut)
                    .rev()
                    .find(|c| text.is_char_boundary(*c))
                    .unwrap_or(0);
                touched = (text[..cut].lines().count().max(1)..=lines.len()).collect();
                text[..cut].to_owned()
            }
        };
        let doc = normalize(
            &Input::from_bytes(damaged.as_bytes()),
            NormalizeOptions {
                dialect: Some(s.dialect),
                provider: Some(s.provider),
                ..NormalizeOptions::default()
            },
        )
        .map_err(|e| TestCaseError::fail(format!("{}: {e}", s.name)))?;
        let end = damaged.lines().count() as u32 + 1;
        for d in &doc.diagnostics {
            prop_assert!(
                d.line <= end,
                "{}: diagnostic at {} of {end}",
                s.name,
                d.line
            );
        }
        for e in &doc.events {
            prop_assert!(
                e.line >= 1 && e.line < end,
                "{}: event at {}",
                s.name,
                e.line
            );
        }
        if whole_document(s, &text) {
            return Ok(());
        }
        // A call none of whose lines was touched reads as before (a swap may only move it).
        let before = s.normalize();
        let after = calls(&doc);
        for p in &before.parts {
            let lines_of: Vec<usize> = before
                .events
                .iter()
                .filter(|e| e.part_id == p.id)
                .map(|e| e.line as usize)
                .collect();
            if lines_of.iter().any(|l| touched.contains(l)) || how == 1 {
                continue;
            }
            prop_assert_eq!(
                after.get(&p.id),
                Some(&p.state),
                "{}: {} after damage {} at lines {:?}",
                &s.name,
                &p.id,
                how,
                &touched
            );
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}
