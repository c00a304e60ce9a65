//! End-to-end tests of expected files compared as JSON values: every shipped expected file
//! rewritten by another JSON formatter is reported as formatting (not as diffs), fails the gate
//! only under `--strict`, and `toolnorm fmt` restores every file byte for byte.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::cli::util::{root, stderr, stdout, tempdir, toolnorm};

/// Copy the folder `from` into `to`, recursively (regular files only).
pub fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let t = entry.file_type().unwrap();
        if t.is_dir() {
            copy_tree(&entry.path(), &to.join(entry.file_name()));
        } else if t.is_file() {
            fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

/// Every file under `dir` by path relative to it, with its bytes.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_owned();
                out.insert(rel, fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// Another JSON formatter: four-space indentation, keys in reverse order, every non-ASCII
/// character and `/` escaped, no trailing newline.
fn other_format(v: &Value) -> String {
    let mut out = String::new();
    write_other(&mut out, v, 0);
    out
}

fn write_other(out: &mut String, v: &Value, depth: usize) {
    let pad = |n: usize| "    ".repeat(n);
    match v {
        Value::Object(map) if !map.is_empty() => {
            out.push_str("{\n");
            let entries: Vec<_> = map.iter().rev().collect();
            for (i, (k, v)) in entries.iter().enumerate() {
                out.push_str(&pad(depth + 1));
                write_string(out, k);
                out.push_str(" : ");
                write_other(out, v, depth + 1);
                out.push_str(if i + 1 < entries.len() { ",\n" } else { "\n" });
            }
            out.push_str(&pad(depth));
            out.push('}');
        }
        Value::Array(items) if !items.is_empty() => {
            out.push_str("[\n");
            for (i, v) in items.iter().enumerate() {
                out.push_str(&pad(depth + 1));
                write_other(out, v, depth + 1);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            out.push_str(&pad(depth));
            out.push(']');
        }
        Value::String(s) => write_string(out, s),
        other => out.push_str(&other.to_string()),
    }
}

fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '/' => out.push_str("\\/"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 || !c.is_ascii() => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A copy of the shipped corpus and expected outputs.
fn project() -> tempfile::TempDir {
    let dir = tempdir();
    copy_tree(&root().join("corpus"), &dir.path().join("corpus"));
    copy_tree(&root().join("expected"), &dir.path().join("expected"));
    fs::copy(
        root().join("expectations.toml"),
        dir.path().join("expectations.toml"),
    )
    .unwrap();
    dir
}

fn run(dir: &Path, args: &[&str], ci: bool) -> std::process::Output {
    let mut cmd = toolnorm();
    cmd.args(args).current_dir(dir).env_remove("CI");
    if ci {
        cmd.env("CI", "true");
    }
    cmd.output().expect("failed to run toolnorm")
}

fn report(dir: &Path) -> Value {
    serde_json::from_slice(&fs::read(dir.join("reports/report.json")).unwrap()).unwrap()
}

/// Rewrite every expected file with [`other_format`] (after `change`, which may alter the value).
fn reformat_all(expected: &Path, change: impl Fn(&Path, &mut Value)) -> usize {
    let originals = files(expected);
    for (rel, bytes) in &originals {
        let mut v: Value = serde_json::from_slice(bytes).unwrap();
        change(rel, &mut v);
        let text = other_format(&v);
        assert_ne!(
            text.as_bytes(),
            &bytes[..],
            "{} was not reformatted",
            rel.display()
        );
        fs::write(expected.join(rel), text).unwrap();
    }
    originals.len()
}

#[test]
fn another_formatter_is_formatting_not_diffs_and_fmt_restores_every_byte() {
    let dir = project();
    let d = dir.path();
    let expected = d.join("expected");
    let originals = files(&expected);
    let n = reformat_all(&expected, |_, _| {});
    assert!(n > 50, "the shipped corpus has {n} expected files");

    // Not strict: the gate passes, and every file is reported as formatting, none as a diff.
    let o = run(d, &["verify"], false);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let r = report(d);
    assert_eq!(r["reportVersion"], 6);
    assert_eq!(r["summary"]["formatting"], n, "{}", r["summary"]);
    assert_eq!(r["summary"]["failed"], 0);
    let fixtures = r["fixtures"].as_array().unwrap();
    assert_eq!(fixtures.len(), n);
    for f in fixtures {
        assert!(f.get("diff").is_none(), "{}: a diff", f["path"]);
        // Known failures (expectations.toml) stay known failures: formatting changes no verdict.
        assert!(
            f["status"] == "pass" || f["status"] == "xfail",
            "{}: {}",
            f["path"],
            f["status"]
        );
        let notes = f["formatting"].as_array().expect("formatting notes");
        let notes: Vec<&str> = notes.iter().filter_map(Value::as_str).collect();
        assert!(
            notes.iter().any(|n| n.contains("4 spaces"))
                && notes.iter().any(|n| n.contains("trailing newline")),
            "{}: {notes:?}",
            f["path"]
        );
    }
    assert!(
        !d.join("reports/pending").exists() || files(&d.join("reports/pending")).is_empty(),
        "no pending output for formatting"
    );
    let out = stdout(&o);
    assert!(out.contains("run toolnorm fmt"), "{out}");
    assert!(out.contains("fail the gate under --strict"), "{out}");
    assert!(
        out.lines().count() < 120,
        "one line per file at most:\n{out}"
    );
    let summary = fs::read_to_string(d.join("reports/summary.md")).unwrap();
    assert!(summary.contains("### Formatting"), "{summary}");
    assert!(!summary.contains("Failing fixtures"), "{summary}");
    let junit = fs::read_to_string(d.join("reports/junit.xml")).unwrap();
    assert!(!junit.contains("<failure"), "not strict: no failure");
    let html = fs::read_to_string(d.join("reports/index.html")).unwrap();
    assert!(html.contains("id=\"formatting\""));

    // Strict (and CI, which implies strict): the same files fail the gate, as formatting.
    for (args, ci) in [
        (&["verify", "--strict"][..], false),
        (&["verify"][..], true),
    ] {
        let o = run(d, args, ci);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stdout(&o));
        assert!(stdout(&o).contains("toolnorm fmt"), "{}", stdout(&o));
        let r = report(d);
        assert_eq!(r["summary"]["failed"], 0);
        assert_eq!(r["summary"]["strict"], true);
        let junit = fs::read_to_string(d.join("reports/junit.xml")).unwrap();
        assert_eq!(junit.matches("type=\"formatting\"").count(), n);
    }

    // fmt --check lists them all and fails; fmt restores every file byte for byte.
    let o = run(d, &["fmt", "--check"], false);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(stdout(&o).matches("would reformat").count(), n + 1);
    assert_eq!(files(&expected).len(), n);
    let o = run(d, &["fmt"], false);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(
        files(&expected) == originals,
        "fmt did not restore the files byte for byte"
    );
    let o = run(d, &["fmt", "--check"], false);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let o = run(d, &["verify"], true);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(report(d)["summary"].get("formatting").is_none());
}

#[test]
fn a_real_change_in_a_reformatted_file_is_still_a_diff() {
    let dir = project();
    let d = dir.path();
    let expected = d.join("expected");
    let target = Path::new("claude/live-claude-bash.json");
    assert!(expected.join(target).is_file());
    reformat_all(&expected, |rel, v| {
        if rel == target {
            v["parts"][0]["title"] = Value::from("a title nobody wrote");
        }
    });
    let o = run(d, &["verify"], false);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let r = report(d);
    assert_eq!(r["summary"]["failed"], 1, "{}", r["summary"]);
    let f = r["fixtures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "live-claude-bash")
        .unwrap();
    assert_eq!(f["status"], "fail");
    let diff = &f["diff"];
    assert_eq!(diff["changedPaths"], serde_json::json!(["/parts/0/title"]));
    // The diff is of the value, not of the layout: one line each way.
    assert_eq!(
        (diff["added"].as_u64(), diff["removed"].as_u64()),
        (Some(1), Some(1))
    );
    assert!(
        diff["invisible"].to_string().contains("toolnorm fmt"),
        "{}",
        diff["invisible"]
    );
    // Every other file is formatting only.
    assert_eq!(r["summary"]["formatting"], r["summary"]["fixtures"]);
    assert!(
        d.join("reports/pending/claude/live-claude-bash.json")
            .is_file()
    );
}

#[test]
fn fmt_refuses_links_and_bad_json_and_writes_nothing_through_them() {
    let dir = tempdir();
    let d = dir.path();
    fs::create_dir_all(d.join("expected/claude")).unwrap();
    fs::write(d.join("outside.json"), "{\"b\":1,\"a\":2}").unwrap();
    std::os::unix::fs::symlink(d.join("outside.json"), d.join("expected/claude/x.json")).unwrap();
    fs::write(d.join("expected/claude/bad.json"), "{\"a\": ").unwrap();
    fs::write(d.join("expected/claude/ok.json"), "{\"b\":1,\"a\":2}").unwrap();
    let o = run(d, &["fmt"], false);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let err = stderr(&o);
    assert!(err.contains("is a symlink"), "{err}");
    assert!(err.contains("bad.json: not valid JSON"), "{err}");
    assert_eq!(
        fs::read_to_string(d.join("outside.json")).unwrap(),
        "{\"b\":1,\"a\":2}"
    );
    assert_eq!(
        fs::read_to_string(d.join("expected/claude/ok.json")).unwrap(),
        "{\n  \"a\": 2,\n  \"b\": 1\n}\n"
    );
    let o = run(d, &["fmt", "--expected", "missing"], false);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn shards_merge_their_formatting_and_version_4_reports_still_merge() {
    let dir = project();
    let d = dir.path();
    let n = reformat_all(&d.join("expected"), |_, _| {});
    for k in ["1/2", "2/2"] {
        let dest = format!("shard-{}", &k[..1]);
        let o = run(d, &["verify", "--shard", k, "--reports", &dest], false);
        assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    }
    let o = run(
        d,
        &[
            "report",
            "merge",
            "shard-1",
            "shard-2",
            "--reports",
            "merged",
        ],
        true,
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let merged: Value =
        serde_json::from_slice(&fs::read(d.join("merged/report.json")).unwrap()).unwrap();
    assert_eq!(merged["summary"]["formatting"], n);

    // A shard written by a toolnorm before version 5 knows nothing of formatting.
    let path = d.join("shard-1/report.json");
    let mut old: Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    old["reportVersion"] = 4.into();
    old["summary"].as_object_mut().unwrap().remove("formatting");
    let shard1 = old["fixtures"].as_array_mut().unwrap();
    let in_shard1 = shard1.len();
    for f in shard1 {
        f.as_object_mut().unwrap().remove("formatting");
    }
    fs::write(&path, serde_json::to_vec(&old).unwrap()).unwrap();
    let o = run(
        d,
        &[
            "report",
            "merge",
            "shard-1",
            "shard-2",
            "--reports",
            "merged",
        ],
        false,
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let merged: Value =
        serde_json::from_slice(&fs::read(d.join("merged/report.json")).unwrap()).unwrap();
    assert_eq!(merged["reportVersion"], 6);
    assert_eq!(merged["summary"]["formatting"], n - in_shard1);
    assert_eq!(merged["summary"]["fixtures"], n);
}
