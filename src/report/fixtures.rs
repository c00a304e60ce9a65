//! A report's fixture results, in report order. A report read back or built in memory holds them
//! all; a verify run holds in memory only what the reports show in detail (every fixture but
//! the plain passes: failures, errors, known failures, fixed ones, formatting notes) and spools
//! every result, one JSON line each, to a file under the reports folder that the writers read
//! back in order. So the run's memory does not grow with the number of passing fixtures: a
//! plain pass costs a count per provider.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fs;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::result::{FixtureResult, Status};

/// A fixture the reports list and count but show nothing more of: it passed, with nothing to
/// say (no diff, violation, message, fixed entry or formatting note).
pub fn is_plain_pass(f: &FixtureResult) -> bool {
    f.status == Status::Pass
        && f.diff.is_none()
        && f.legacy_diff.is_none()
        && f.violations.is_empty()
        && f.message.is_none()
        && f.raw_lines.is_empty()
        && f.fixed.is_empty()
        && f.formatting.is_empty()
}

/// Every fixture of a report, in report order (provider, then name).
#[derive(Clone, Debug, Default)]
pub struct Fixtures {
    store: Store,
    /// The position among all fixtures of each one that is not a plain pass, in order.
    detailed: Vec<usize>,
    /// Plain passes per provider.
    plain: BTreeMap<String, u32>,
    len: usize,
}

#[derive(Clone, Debug)]
enum Store {
    /// Every fixture in memory.
    Memory(Vec<FixtureResult>),
    /// Every fixture in a spool file; the detailed ones (`held[k]` at `detailed[k]`) in memory too.
    Spool {
        file: Arc<SpoolFile>,
        held: Vec<FixtureResult>,
    },
}

impl Default for Store {
    fn default() -> Self {
        Store::Memory(Vec::new())
    }
}

impl Fixtures {
    /// Fixtures already in report order, held in memory.
    pub fn from_vec(all: Vec<FixtureResult>) -> Fixtures {
        let mut out = Fixtures {
            len: all.len(),
            ..Fixtures::default()
        };
        for (i, f) in all.iter().enumerate() {
            out.tally(i, f);
        }
        out.store = Store::Memory(all);
        out
    }

    fn tally(&mut self, i: usize, f: &FixtureResult) {
        if is_plain_pass(f) {
            *self.plain.entry(f.provider.clone()).or_default() += 1;
        } else {
            self.detailed.push(i);
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every fixture, in order. A spooled list is read back from its file, which can fail.
    pub fn all(&self) -> Box<dyn Iterator<Item = io::Result<Cow<'_, FixtureResult>>> + '_> {
        match &self.store {
            Store::Memory(v) => Box::new(v.iter().map(|f| Ok(Cow::Borrowed(f)))),
            Store::Spool { file, .. } => Box::new(file.read().map(|r| r.map(Cow::Owned))),
        }
    }

    /// The fixtures that are not plain passes, in order, each with its position among all.
    pub fn detailed(&self) -> impl Iterator<Item = (usize, &FixtureResult)> + '_ {
        let held: Box<dyn Iterator<Item = &FixtureResult>> = match &self.store {
            Store::Memory(v) => Box::new(self.detailed.iter().map(move |&i| &v[i])),
            Store::Spool { held, .. } => Box::new(held.iter()),
        };
        self.detailed.iter().copied().zip(held)
    }

    /// The fixtures that are not plain passes, in order.
    pub fn shown(&self) -> impl Iterator<Item = &FixtureResult> + '_ {
        self.detailed().map(|(_, f)| f)
    }

    /// The providers with fixtures, sorted, each once.
    pub fn providers(&self) -> Vec<&str> {
        let mut out: Vec<&str> = self
            .plain
            .keys()
            .map(String::as_str)
            .chain(self.shown().map(|f| f.provider.as_str()))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Plain passes of `provider`.
    pub fn plain_passes(&self, provider: &str) -> u32 {
        self.plain.get(provider).copied().unwrap_or(0)
    }

    /// Plain passes in all.
    pub fn plain_total(&self) -> u32 {
        self.plain.values().sum()
    }

    /// How many fixtures have `status`.
    pub fn count(&self, status: Status) -> usize {
        let plain = if status == Status::Pass {
            self.plain_total() as usize
        } else {
            0
        };
        plain + self.shown().filter(|f| f.status == status).count()
    }

    /// `provider`'s fixtures: (not failing the gate, all).
    pub fn provider_counts(&self, provider: &str, strict: bool) -> (u32, u32) {
        let plain = self.plain_passes(provider);
        let (mut ok, mut all) = (plain, plain);
        for f in self.shown().filter(|f| f.provider == provider) {
            all += 1;
            if !f.status.fails_gate(strict) {
                ok += 1;
            }
        }
        (ok, all)
    }

    /// Every fixture in memory (a spooled list is read back), to take or change.
    pub fn to_vec(&self) -> io::Result<Vec<FixtureResult>> {
        self.all().map(|f| f.map(Cow::into_owned)).collect()
    }

    /// Change the list in memory (tests, merges): the counts follow.
    pub fn edit<R>(&mut self, change: impl FnOnce(&mut Vec<FixtureResult>) -> R) -> io::Result<R> {
        let mut all = match std::mem::take(&mut self.store) {
            Store::Memory(v) => v,
            spooled => {
                self.store = spooled;
                self.to_vec()?
            }
        };
        let r = change(&mut all);
        *self = Fixtures::from_vec(all);
        Ok(r)
    }

    /// Every fixture, when all are held in memory (a report built in memory or read back from
    /// `report.json`); `None` for a run's spooled list (read it with [`Fixtures::all`]).
    pub fn as_slice(&self) -> Option<&[FixtureResult]> {
        match &self.store {
            Store::Memory(v) => Some(v),
            Store::Spool { .. } => None,
        }
    }

    /// How many results are held in memory: all of a list built in memory, only the detailed
    /// ones of a spooled list.
    pub fn held(&self) -> usize {
        match &self.store {
            Store::Memory(v) => v.len(),
            Store::Spool { held, .. } => held.len(),
        }
    }

    /// Whether the results are in a spool file.
    pub fn is_spooled(&self) -> bool {
        matches!(self.store, Store::Spool { .. })
    }
}

impl From<Vec<FixtureResult>> for Fixtures {
    fn from(all: Vec<FixtureResult>) -> Self {
        Fixtures::from_vec(all)
    }
}

impl PartialEq for Fixtures {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len
            && self.all().zip(other.all()).all(|(a, b)| match (a, b) {
                (Ok(a), Ok(b)) => a == b,
                _ => false,
            })
    }
}

impl Serialize for Fixtures {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeSeq};
        let mut seq = s.serialize_seq(Some(self.len))?;
        for f in self.all() {
            seq.serialize_element(f.map_err(S::Error::custom)?.as_ref())?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for Fixtures {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<FixtureResult>::deserialize(d).map(Fixtures::from_vec)
    }
}

/// Builds a spooled [`Fixtures`]: results are pushed in report order.
pub struct Spooler {
    out: BufWriter<fs::File>,
    file: SpoolFile,
    fixtures: Fixtures,
    held: Vec<FixtureResult>,
    /// The last result pushed (provider, name, path), to refuse one out of order.
    last: Option<(String, String, String)>,
}

impl Spooler {
    /// A spool in `dir` (which must exist): a file named `.toolnorm-spool-…`, unlinked at once
    /// where the system allows (it is gone when the process ends, however it ends), else when
    /// the list is dropped.
    pub fn create(dir: &Path) -> io::Result<Spooler> {
        let file = SpoolFile::create(dir)?;
        let out = BufWriter::with_capacity(1 << 16, file.file.try_clone()?);
        Ok(Spooler {
            out,
            file,
            fixtures: Fixtures::default(),
            held: Vec::new(),
            last: None,
        })
    }

    /// Append the next fixture (after every one pushed so far in report order). What is held
    /// (a fixture that is not a plain pass) is a copy made here, on the caller's thread.
    pub fn push(&mut self, f: &FixtureResult) -> io::Result<()> {
        let key = (f.provider.clone(), f.name.clone(), f.path.clone());
        if self.last.as_ref().is_some_and(|last| *last >= key) {
            return Err(io::Error::other(format!(
                "fixture {} reached the report out of order",
                f.path
            )));
        }
        self.last = Some(key);
        serde_json::to_writer(&mut self.out, f).map_err(io::Error::other)?;
        self.out.write_all(b"\n")?;
        let i = self.fixtures.len;
        self.fixtures.len += 1;
        self.fixtures.tally(i, f);
        if !is_plain_pass(f) {
            self.held.push(f.clone());
        }
        Ok(())
    }

    /// The list, read back from the spool from now on.
    pub fn finish(mut self) -> io::Result<Fixtures> {
        self.out.flush()?;
        drop(self.out);
        self.fixtures.store = Store::Spool {
            file: Arc::new(self.file),
            held: self.held,
        };
        Ok(self.fixtures)
    }
}

/// The spool file. Reads are positional, so readers never share a cursor.
#[derive(Debug)]
struct SpoolFile {
    file: fs::File,
    /// Still to remove on drop (where an open file cannot be unlinked).
    path: Option<PathBuf>,
}

impl SpoolFile {
    fn create(dir: &Path) -> io::Result<SpoolFile> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!(".toolnorm-spool-{}-{n}", std::process::id()));
        let file = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)?;
        let path = if cfg!(unix) {
            fs::remove_file(&path)?;
            None
        } else {
            Some(path)
        };
        Ok(SpoolFile { file, path })
    }

    /// Every result, in order.
    fn read(&self) -> impl Iterator<Item = io::Result<FixtureResult>> + '_ {
        let mut r = BufReader::with_capacity(
            1 << 16,
            At {
                file: &self.file,
                pos: 0,
            },
        );
        let mut line = Vec::new();
        std::iter::from_fn(move || {
            line.clear();
            match r.read_until(b'\n', &mut line) {
                Ok(0) => None,
                Ok(_) => Some(serde_json::from_slice(&line).map_err(io::Error::other)),
                Err(e) => Some(Err(e)),
            }
        })
    }
}

impl Drop for SpoolFile {
    fn drop(&mut self) {
        if let Some(p) = &self.path {
            let _ = fs::remove_file(p);
        }
    }
}

/// A reader of a file from a position of its own.
struct At<'f> {
    file: &'f fs::File,
    pos: u64,
}

impl Read for At<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        #[cfg(unix)]
        let n = std::os::unix::fs::FileExt::read_at(self.file, buf, self.pos)?;
        #[cfg(windows)]
        let n = std::os::windows::fs::FileExt::seek_read(self.file, buf, self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::sample::sample_report;

    /// The sample report's fixtures in report order.
    fn sorted_sample() -> Vec<FixtureResult> {
        let mut all = sample_report().fixtures.to_vec().unwrap();
        all.sort_by(|a, b| (&a.provider, &a.name, &a.path).cmp(&(&b.provider, &b.name, &b.path)));
        all
    }

    #[test]
    fn a_spooled_list_reads_back_what_was_pushed_and_holds_only_the_detailed() {
        let all = sorted_sample();
        let dir = tempfile::tempdir().unwrap();
        let mut spool = Spooler::create(dir.path()).unwrap();
        for f in all.clone() {
            spool.push(&f).unwrap();
        }
        let spooled = spool.finish().unwrap();
        assert!(spooled.is_spooled());
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            0,
            "the spool leaves no file behind"
        );
        let memory = Fixtures::from_vec(all.clone());
        assert_eq!(spooled, memory);
        assert_eq!(spooled.to_vec().unwrap(), all);
        let Store::Spool { held, .. } = &spooled.store else {
            unreachable!()
        };
        let plain = all.iter().filter(|f| is_plain_pass(f)).count();
        assert!(plain > 0, "the sample has plain passes");
        assert_eq!(held.len(), all.len() - plain, "plain passes are not held");
        let d: Vec<(usize, &str)> = spooled
            .detailed()
            .map(|(i, f)| (i, f.name.as_str()))
            .collect();
        let m: Vec<(usize, &str)> = memory
            .detailed()
            .map(|(i, f)| (i, f.name.as_str()))
            .collect();
        assert_eq!(d, m);
        assert_eq!(spooled.providers(), memory.providers());
        assert_eq!(
            serde_json::to_string(&spooled).unwrap(),
            serde_json::to_string(&all).unwrap()
        );
    }

    #[test]
    fn a_result_out_of_order_is_refused() {
        let mut all = sorted_sample();
        all.swap(0, 1);
        let dir = tempfile::tempdir().unwrap();
        let mut spool = Spooler::create(dir.path()).unwrap();
        spool.push(&all[0]).unwrap();
        let err = spool.push(&all[1]).unwrap_err();
        assert!(err.to_string().contains("out of order"), "{err}");
    }
}
