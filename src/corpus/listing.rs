//! The corpus listing held compactly: every fixture's name in one text arena with its size, sorted
//! by provider and name, so a fixture costs its name's bytes plus 24 (an offset, a length, a
//! size), never a path and several strings. A [`FixtureEntry`] is made on demand, when its
//! fixture is read. This is the one walker of the corpus: every command lists through it.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use super::{FixtureEntry, confined, format};

/// One fixture of a [`FixtureIndex`]: where its name sits in the arena, and its compressed size.
#[derive(Clone, Copy, Debug)]
struct Row {
    start: usize,
    len: usize,
    size: u64,
}

/// One provider folder of a [`FixtureIndex`]: its name and its rows.
#[derive(Debug)]
struct Folder {
    name: String,
    rows: std::ops::Range<usize>,
}

/// Every fixture under a corpus root (`<root>/<provider>/<name>.jsonl.zst`), sorted by provider,
/// then name, and the entries skipped. See the module doc for what a fixture costs.
#[derive(Debug, Default)]
pub struct FixtureIndex {
    root: PathBuf,
    folders: Vec<Folder>,
    /// Every fixture's name (file name without `.jsonl.zst`), one after another.
    names: String,
    rows: Vec<Row>,
    /// The exact paths of the fixtures whose file name is not UTF-8 (their listed name is lossy).
    exact: BTreeMap<usize, PathBuf>,
    /// Sorted by path.
    pub skipped: Vec<confined::Skipped>,
}

impl FixtureIndex {
    /// List the corpus under `root`: every provider folder, and in each every
    /// `<name>.jsonl.zst`. Skipped (and reported): a provider folder that is a symlink or cannot
    /// be read, a `<name>.jsonl.zst` that is a symlink, a directory, a FIFO or anything but a
    /// regular file. Nothing is followed: the types come from the directory entries (`lstat`),
    /// and the commands that read a fixture open it again through [`confined`]. Files at the root
    /// are not part of the corpus. With `skip_hidden`, provider folders named `.…` are left out
    /// entirely (their skipped entries too). A missing root yields nothing.
    pub fn scan(root: &Path, skip_hidden: bool) -> FixtureIndex {
        let mut out = FixtureIndex {
            root: root.to_owned(),
            ..FixtureIndex::default()
        };
        let Ok(entries) = fs::read_dir(root) else {
            return out;
        };
        let mut providers: Vec<(String, fs::DirEntry)> = entries
            .flatten()
            .map(|d| (d.file_name().to_string_lossy().into_owned(), d))
            .filter(|(name, _)| !(skip_hidden && name.starts_with('.')))
            .collect();
        providers.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then_with(|| a.1.file_name().cmp(&b.1.file_name()))
        });
        for (provider, dir) in providers {
            let skip = |what: String| confined::Skipped {
                path: dir.path(),
                what,
            };
            match dir.file_type() {
                Ok(t) if t.is_dir() => {}
                Ok(t) if t.is_symlink() => {
                    out.skipped.push(skip("a symlink".to_owned()));
                    continue;
                }
                Ok(_) => continue,
                Err(e) => {
                    out.skipped.push(skip(format!("unreadable: {e}")));
                    continue;
                }
            }
            match fs::read_dir(dir.path()) {
                Ok(files) => out.add_folder(provider, files),
                Err(e) => out.skipped.push(skip(format!("unreadable: {e}"))),
            }
        }
        out.skipped.sort();
        out
    }

    /// Add one provider folder's fixtures, sorted by name.
    fn add_folder(&mut self, provider: String, files: fs::ReadDir) {
        let first = self.rows.len();
        for file in files.flatten() {
            let os_name = file.file_name();
            let lossy = os_name.to_string_lossy();
            let Some(name) = lossy.strip_suffix(format::FIXTURE_SUFFIX) else {
                continue;
            };
            // `DirEntry::metadata` does not follow a link.
            let meta = match file.metadata() {
                Ok(m) => m,
                Err(e) => {
                    self.skipped.push(confined::Skipped {
                        path: file.path(),
                        what: format!("unreadable: {e}"),
                    });
                    continue;
                }
            };
            if !meta.is_file() {
                self.skipped.push(confined::Skipped {
                    path: file.path(),
                    what: confined::describe(meta.file_type()).to_owned(),
                });
                continue;
            }
            if os_name.to_str().is_none() {
                self.exact.insert(self.rows.len(), file.path());
            }
            self.rows.push(Row {
                start: self.names.len(),
                len: name.len(),
                size: meta.len(),
            });
            self.names.push_str(name);
        }
        let names = &self.names;
        let exact = &self.exact;
        // Rows of non-UTF-8 names carry their index in `exact`: sort (row, index) pairs so the
        // index moves with its row.
        let mut block: Vec<(Row, usize)> = self.rows[first..]
            .iter()
            .enumerate()
            .map(|(i, r)| (*r, first + i))
            .collect();
        block.sort_by(|a, b| {
            let (x, y) = (
                &names[a.0.start..][..a.0.len],
                &names[b.0.start..][..b.0.len],
            );
            x.cmp(y).then_with(|| exact.get(&a.1).cmp(&exact.get(&b.1)))
        });
        let mut moved = BTreeMap::new();
        for (k, (row, old)) in block.into_iter().enumerate() {
            self.rows[first + k] = row;
            if let Some(p) = self.exact.remove(&old) {
                moved.insert(first + k, p);
            }
        }
        self.exact.append(&mut moved);
        self.folders.push(Folder {
            name: provider,
            rows: first..self.rows.len(),
        });
    }

    /// How many fixtures.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The provider folder of fixture `i`.
    pub fn provider(&self, i: usize) -> &str {
        let k = self.folders.partition_point(|f| f.rows.end <= i);
        self.folders.get(k).map_or("", |f| f.name.as_str())
    }

    /// The name of fixture `i` (its file name without `.jsonl.zst`).
    pub fn name(&self, i: usize) -> &str {
        let r = self.rows[i];
        &self.names[r.start..][..r.len]
    }

    /// The compressed size of fixture `i`.
    pub fn size(&self, i: usize) -> u64 {
        self.rows[i].size
    }

    /// `<provider>/<name>.jsonl.zst`, relative to the corpus root.
    pub fn rel(&self, i: usize) -> String {
        format!(
            "{}/{}{}",
            self.provider(i),
            self.name(i),
            format::FIXTURE_SUFFIX
        )
    }

    /// Fixture `i` as an entry of its own.
    pub fn entry(&self, i: usize) -> FixtureEntry {
        let provider = self.provider(i);
        let name = self.name(i);
        let path = match self.exact.get(&i) {
            Some(p) => p.clone(),
            None => self
                .root
                .join(provider)
                .join(format!("{name}{}", format::FIXTURE_SUFFIX)),
        };
        FixtureEntry {
            provider: provider.to_owned(),
            name: name.to_owned(),
            path,
            size: self.size(i),
            rel: self.rel(i),
        }
    }

    /// Every fixture as an entry, in order.
    pub fn entries(&self) -> impl Iterator<Item = FixtureEntry> + '_ {
        (0..self.len()).map(|i| self.entry(i))
    }

    /// Whether the corpus holds the fixture `<provider>/<name>.jsonl.zst` (a binary search).
    pub fn contains(&self, provider: &str, name: &str) -> bool {
        let Ok(k) = self
            .folders
            .binary_search_by(|f| f.name.as_str().cmp(provider))
        else {
            return false;
        };
        let rows = &self.rows[self.folders[k].rows.clone()];
        rows.binary_search_by(|r| self.names[r.start..][..r.len].cmp(name))
            .is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_sorted_by_provider_then_name_and_finds_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (p, n) in [
            ("codex", "b"),
            ("claude", "a-b"),
            ("claude", "a"),
            ("claude", "a.b"),
            ("claude-x", "z"),
        ] {
            fs::create_dir_all(root.join(p)).unwrap();
            fs::write(root.join(p).join(format!("{n}.jsonl.zst")), n).unwrap();
        }
        fs::create_dir_all(root.join(".hidden")).unwrap();
        fs::write(root.join(".hidden/h.jsonl.zst"), "h").unwrap();
        fs::write(root.join("claude/notes.txt"), "x").unwrap();
        fs::create_dir(root.join("claude/dir.jsonl.zst")).unwrap();
        let index = FixtureIndex::scan(root, true);
        let listed: Vec<(String, String, u64)> = index
            .entries()
            .map(|e| (e.provider, e.name, e.size))
            .collect();
        let want = [
            ("claude", "a", 1),
            ("claude", "a-b", 3),
            ("claude", "a.b", 3),
            ("claude-x", "z", 1),
            ("codex", "b", 1),
        ];
        let want: Vec<(String, String, u64)> = want
            .iter()
            .map(|(p, n, s)| ((*p).to_owned(), (*n).to_owned(), *s))
            .collect();
        assert_eq!(listed, want);
        assert_eq!(index.entry(1).rel, "claude/a-b.jsonl.zst");
        assert_eq!(index.entry(1).path, root.join("claude/a-b.jsonl.zst"));
        assert!(index.contains("claude", "a.b"));
        assert!(!index.contains("claude", "c"));
        assert!(!index.contains("nobody", "a"));
        assert_eq!(index.skipped.len(), 1, "{:?}", index.skipped);
        assert_eq!(
            FixtureIndex::scan(root, false).len(),
            6,
            "hidden folders listed"
        );
    }
}
