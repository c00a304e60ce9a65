//! The guide's `sh` blocks, each run in a sandbox of its own: what the guide's commands expect
//! to find in a repository that toolnorm checks, with `toolnorm` on the PATH (tests/cli/docs.rs
//! finds the blocks and checks every other kind).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::cli::docs::{Block, all_blocks};
use crate::cli::util::{root, stderr, stdout, tempdir};

/// Copy the repository's `dirs` into `to`.
fn copy_dirs(dirs: &[&str], to: &Path) {
    for d in dirs {
        let o = Command::new("cp")
            .arg("-R")
            .arg(root().join(d))
            .arg(to)
            .output()
            .unwrap();
        assert!(o.status.success(), "cp -R {d}: {}", stderr(&o));
    }
}

/// Whether a block's commands may write into the corpus or the expected outputs (accepting,
/// formatting, importing, recording, starting a project, reviewing, running scenarios). Told
/// from the words, erring on writing: a block that wrote where it was thought only to read is
/// caught once all have run (`Roots::unchanged`).
fn writes_roots(code: &str) -> bool {
    code.lines().any(|l| {
        let words: Vec<&str> = l.split_whitespace().collect();
        words.iter().any(|w| {
            [
                "accept", "--accept", "import", "record", "init", "review", "scenario", "redact",
                "--update",
            ]
            .contains(w)
        }) || (words.contains(&"fmt") && !words.contains(&"--check"))
    })
}

/// One copy of the corpus and the expected outputs for every block that only reads them (linked
/// into its sandbox): copying a thousand files for each block was most of the blocks' time.
pub(crate) struct Roots {
    dir: tempfile::TempDir,
    files: Vec<(PathBuf, u64, std::time::SystemTime)>,
}

impl Roots {
    fn new() -> Roots {
        let dir = tempdir();
        copy_dirs(&["corpus", "expected"], dir.path());
        let files = Roots::list(dir.path());
        Roots { dir, files }
    }

    fn list(dir: &Path) -> Vec<(PathBuf, u64, std::time::SystemTime)> {
        let mut files: Vec<_> = walkdir::WalkDir::new(dir)
            .into_iter()
            .map(|e| {
                let e = e.unwrap();
                let m = e.metadata().unwrap();
                (e.into_path(), m.len(), m.modified().unwrap())
            })
            .collect();
        files.sort();
        files
    }

    /// The shared copy is as it was made: no block wrote into it.
    fn unchanged(&self) -> bool {
        Roots::list(self.dir.path()) == self.files
    }
}

/// A sandbox for the `sh` blocks: what the guide's commands expect to find in a repository that
/// toolnorm checks (the corpus and expected outputs linked to `shared` for a block that only
/// reads them, the scenarios only for a block that runs them), and a HOME with one Claude Code
/// session file.
pub(crate) fn sandbox(code: &str, shared: Option<&Roots>) -> tempfile::TempDir {
    let dir = tempdir();
    let root = root();
    match shared {
        Some(shared) if !writes_roots(code) => {
            for d in ["corpus", "expected"] {
                std::os::unix::fs::symlink(shared.dir.path().join(d), dir.path().join(d)).unwrap();
            }
        }
        _ => copy_dirs(&["corpus", "expected"], dir.path()),
    }
    if code.contains("scenario") {
        copy_dirs(&["scenarios"], dir.path());
    }
    fs::copy(
        root.join("expectations.toml"),
        dir.path().join("expectations.toml"),
    )
    .unwrap();
    // `session.jsonl`: an agent's raw stream (Claude Code's stream-json), for `toolnorm normalize
    // session.jsonl` and the like; a Claude Code transcript where Claude Code keeps it, for
    // `toolnorm import ~/.claude/projects/`.
    let home_session =
        "home/.claude/projects/-home-me-app/0b1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d.jsonl";
    for (fixture, to) in [
        ("corpus/claude/live-claude-bash.jsonl.zst", "session.jsonl"),
        ("corpus/claude/spotter_short.jsonl.zst", home_session),
    ] {
        let o = crate::cli::util::cat(dir.path(), fixture, &[]);
        assert!(o.status.success(), "{fixture}: {}", stderr(&o));
        let to = dir.path().join(to);
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        fs::write(to, &o.stdout).unwrap();
    }
    dir
}

/// Run one `sh` block in a fresh sandbox, returned with the output.
fn run_sh(block: &Block, shared: &Roots) -> (Output, tempfile::TempDir) {
    let dir = sandbox(&block.code, Some(shared));
    let o = Command::new("sh")
        .args(["-e", "-c", &block.code])
        .current_dir(dir.path())
        .env("PATH", crate::cli::util::path_with_toolnorm())
        .env("HOME", dir.path().join("home"))
        .env("NO_COLOR", "1")
        .env_remove("CI")
        .env_remove("TOOLNORM_BINARY")
        .output()
        .unwrap();
    (o, dir)
}

#[test]
fn every_sh_block_runs() {
    let blocks: Vec<Block> = all_blocks()
        .into_iter()
        .filter(|b| b.info == "sh" && b.mark.is_none())
        .collect();
    assert!(blocks.len() >= 10, "only {} sh blocks run", blocks.len());
    // Each block has a sandbox of its own, so they run four at a time (most of a block's time is
    // copying the corpus and waiting on the command); failures are listed in the guide's order.
    // The sandboxes are removed once all blocks have run: on ext4, making files among as many
    // just deleted ones (the last block's sandbox) is slow enough to double the copies' time.
    let sandboxes = std::sync::Mutex::new(Vec::new());
    let shared = Roots::new();
    let failure = |b: &Block| -> Option<String> {
        if !b.code.split_whitespace().any(|w| w == "toolnorm") {
            return Some(format!(
                "{}: a sh block run here should run toolnorm; mark it otherwise",
                b.at()
            ));
        }
        let (o, dir) = run_sh(b, &shared);
        sandboxes.lock().unwrap().push(dir);
        (!o.status.success()).then(|| {
            format!(
                "{}: exit {:?}\n{}--- stdout\n{}--- stderr\n{}",
                b.at(),
                o.status.code(),
                b.code,
                tail(&stdout(&o)),
                tail(&stderr(&o))
            )
        })
    };
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut failures: Vec<(usize, String)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..4)
            .map(|_| {
                s.spawn(|| {
                    let mut found = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(b) = blocks.get(i) else { break found };
                        found.extend(failure(b).map(|f| (i, f)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    failures.sort();
    let failures: Vec<String> = failures.into_iter().map(|(_, f)| f).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(
        shared.unchanged(),
        "a block run on the shared corpus and expected outputs wrote into them: `writes_roots` should have given it a copy"
    );
}

/// The last lines of a long output.
fn tail(s: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    let from = lines.len().saturating_sub(30);
    lines[from..].iter().map(|l| format!("{l}\n")).collect()
}
