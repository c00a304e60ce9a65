//! The house (CONTRIBUTING.md): no circle between the files of `src/`, no import from a lower
//! floor to a higher one. `cargo test --test house -- --nocapture` reads the crate from
//! `src/lib.rs` down and prints every circle and every upward import it finds (and, with
//! `HOUSE_EDGES=1`, every file-to-file edge with the names it goes through; with
//! `HOUSE_SRC=DIR`, it reads another checkout's `src/`).
//!
//! What counts as one file naming another: each leaf of a `use` (written `crate::`, `super::`,
//! `self::` or from a child module) and each path in code that starts with `crate::`, `super::`,
//! `self::`, a child module or a name the file imported. A path is followed through re-exports to
//! the file that defines the item, so a re-export does not hide an import.
//!
//! Circles are looked for level by level: in each folder of modules, between its modules (a file
//! `x.rs`, or a module `x` with everything under `x/`). The folder's own file (`mod.rs`,
//! `lib.rs`) is left out of its level, so a module's file and its own submodules may name each
//! other (the parent holds what its children share and picks among them, as the registry of
//! agents does), but a loop that leaves the module is found one level up. Code under
//! `#[cfg(test)]` is left out: a dialect's unit tests drive it through the registry
//! (`dialects::normalize_text`), a rule's may read the corpus; nothing of them is in the library.
//!
//! A small lexer, not `syn`: the check needs only paths from formatted source, and `syn` with
//! `full` would be one more build of it (for the target, beside the proc-macros' one) in every
//! cold `cargo test`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

mod read;
use read::*;

/// The floors of CONTRIBUTING.md's house, from the ground up: a module imports only from its
/// own floor or the floors below.
const FLOORS: &[(&str, &[&str])] = &[
    ("base", &["stream", "model", "text", "hash", "timestamp"]),
    ("core", &["providers", "rules", "compare"]),
    ("registry", &["dialects", "normalizer"]),
    (
        "shells",
        &["corpus", "report", "verify", "scenario", "protocol"],
    ),
    ("top", &["cli"]),
];

/// Circles and upward imports still standing (`src/...` files, sorted). Each one removed is
/// removed here too: the test fails on one more and on one fewer.
const KNOWN_CIRCLES: &[&[&str]] = &[];
const KNOWN_UPWARD: &[(&str, &str)] = &[];

#[test]
fn no_circles_no_imports_up() {
    // `HOUSE_SRC=<other checkout>/src` reads another tree (to count before and after a change);
    // the lists below are this one's.
    let root = std::env::var_os("HOUSE_SRC")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    let house = House::read(&root).expect("src/ is readable");
    let circles = house.circles();
    let upward = house.upward();
    let report = house.describe(&circles, &upward);
    eprintln!("{report}");
    if std::env::var_os("HOUSE_EDGES").is_some() {
        for (a, tos) in &house.edges {
            for (b, names) in tos {
                eprintln!(
                    "edge {a} {b} {:?} {:?} {names:?}",
                    House::floor(a),
                    House::floor(b)
                );
            }
        }
    }
    assert!(
        house.files.len() > 100,
        "the crate was not read: {} files",
        house.files.len()
    );
    let found = circles.clone();
    let known: Vec<Vec<String>> = KNOWN_CIRCLES
        .iter()
        .map(|c| c.iter().map(|s| s.to_string()).collect())
        .collect();
    assert_eq!(found, known, "circles between files:\n{report}");
    let found: Vec<(String, String)> = upward.keys().cloned().collect();
    let known: Vec<(String, String)> = KNOWN_UPWARD
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(found, known, "imports up the floors:\n{report}");
}

/// The check fails on a planted circle (through a re-export and a `super::` path), on a path in
/// a function body that runs up a floor, and on neither in the same tree without them. A module's
/// file and its own submodules' files may name each other.
#[test]
fn the_check_finds_a_planted_circle_and_an_upward_path() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    let write = |p: &str, text: &str| {
        let path = src.join(p);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    };
    write(
        "lib.rs",
        "pub mod stream;\npub mod dialects;\npub mod cli;\n#[cfg(test)]\nmod tests;\n",
    );
    write(
        "stream/mod.rs",
        "mod line;\nmod raw;\npub use line::Input;\npub use raw::Raw;\npub struct Shared;\n",
    );
    write(
        "stream/raw.rs",
        "// use crate::cli::Nothing; (a comment)\nconst S: &str = \"crate::cli::x()\";\n\
         pub struct Raw(super::Input, super::Shared);\n",
    );
    write("stream/line.rs", "pub struct Input(pub super::Shared);\n");
    write(
        "dialects.rs",
        "use crate::stream::{self, Raw};\npub fn f(_: Raw, _: stream::Input) {}\n",
    );
    write(
        "cli/mod.rs",
        "pub fn run() { crate::dialects::f(todo!(), todo!()) }\n",
    );
    write("tests.rs", "use crate::cli::run;\n");
    let clean = House::read(src).unwrap();
    assert_eq!(clean.circles(), Vec::<Vec<String>>::new());
    assert!(clean.upward().is_empty(), "{:?}", clean.upward());
    assert!(clean.edges["src/dialects.rs"].contains_key("src/stream/raw.rs"));
    assert!(clean.edges["src/stream/raw.rs"].contains_key("src/stream/line.rs"));

    // line.rs names raw.rs's `Raw` through the re-export in mod.rs: a circle with raw.rs.
    write("stream/line.rs", "pub struct Input(pub super::Raw);\n");
    // A lower floor calling into the top, in a function body; the top's `run` (in cli/mod.rs)
    // calls its child run.rs, which calls the lower floor back: a circle of `cli` and
    // `dialects`, through a module's own file and its child.
    write(
        "dialects.rs",
        "use crate::stream::{self, Raw};\npub fn f(_: Raw, _: stream::Input) { crate::cli::run() }\n",
    );
    write("cli/mod.rs", "mod go;\npub fn run() { go::go() }\n");
    write(
        "cli/go.rs",
        "pub fn go() { crate::dialects::f(todo!(), todo!()) }\n",
    );
    let planted = House::read(src).unwrap();
    assert!(
        !planted.edges.contains_key("src/cli/mod.rs")
            || !planted.edges["src/cli/mod.rs"].contains_key("src/dialects.rs")
    );
    assert_eq!(
        planted.circles(),
        vec![
            vec!["src/cli".to_string(), "src/dialects".to_string()],
            vec!["src/stream/line".to_string(), "src/stream/raw".to_string()],
        ]
    );
    let up: Vec<_> = planted.upward().into_keys().collect();
    assert_eq!(
        up,
        vec![("src/dialects.rs".to_string(), "src/cli/mod.rs".to_string())]
    );
}

#[derive(Debug, Default)]
struct Module {
    file: String,
    names: HashMap<String, Vec<Def>>,
    /// `use x::*` (the scope it was written in, the path).
    globs: Vec<(Vec<String>, Vec<String>)>,
}

/// A path a file names: the module it is written in, the path as written, and whether it is a
/// `use` leaf (a module imported by name is named for the paths that go through it, not itself).
#[derive(Debug)]
struct Named {
    file: String,
    scope: Vec<String>,
    path: Vec<String>,
    leaf_of_use: bool,
}

struct House {
    modules: HashMap<Vec<String>, Module>,
    files: BTreeSet<String>,
    /// file -> file it names -> the names it uses there.
    edges: BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
}

impl House {
    fn read(src: &Path) -> std::io::Result<House> {
        let mut reader = Reader {
            src: src.to_path_buf(),
            modules: HashMap::new(),
            named: Vec::new(),
            files: BTreeSet::new(),
        };
        reader.file(&src.join("lib.rs"), Vec::new())?;
        let mut house = House {
            modules: reader.modules,
            files: reader.files,
            edges: BTreeMap::new(),
        };
        for n in &reader.named {
            let Some(abs) = house.absolute(&n.scope, &n.path) else {
                continue;
            };
            let Some((file, is_module)) = house.resolve(&abs, 0) else {
                continue;
            };
            if file == n.file || (n.leaf_of_use && is_module) {
                continue;
            }
            let name = n.path.last().cloned().unwrap_or_default();
            house
                .edges
                .entry(n.file.clone())
                .or_default()
                .entry(file)
                .or_default()
                .insert(name);
        }
        Ok(house)
    }

    /// `path` written in `scope`, from the crate root; None for another crate's path.
    fn absolute(&self, scope: &[String], path: &[String]) -> Option<Vec<String>> {
        let first = path.first()?;
        match first.as_str() {
            "crate" | "$crate" => Some(path[1..].to_vec()),
            "self" => Some([scope, &path[1..]].concat()),
            "super" => {
                let mut base = scope.to_vec();
                let mut rest = path;
                while rest.first().map(String::as_str) == Some("super") {
                    base.pop()?;
                    rest = &rest[1..];
                }
                Some([&base[..], rest].concat())
            }
            _ => {
                let m = self.modules.get(scope)?;
                m.names.contains_key(first).then(|| [scope, path].concat())
            }
        }
    }

    /// The file that defines what an absolute path names, and whether it is a module.
    fn resolve(&self, path: &[String], depth: usize) -> Option<(String, bool)> {
        if depth > 16 {
            return None;
        }
        let mut module: Vec<String> = Vec::new();
        for (i, seg) in path.iter().enumerate() {
            let m = self.modules.get(&module)?;
            let rest = &path[i + 1..];
            let defs = m.names.get(seg);
            let found = defs.and_then(|defs| {
                defs.iter().find_map(|d| match d {
                    Def::Item(file) => Some(Err((file.clone(), false))),
                    Def::Module(p) => Some(Ok(p.clone())),
                    Def::Import(scope, target) => {
                        let abs = self.absolute(scope, target)?;
                        let full = [&abs[..], rest].concat();
                        self.resolve(&full, depth + 1).map(Err)
                    }
                })
            });
            match found {
                Some(Ok(next)) => module = next,
                Some(Err(hit)) => return Some(hit),
                None => {
                    // Through a glob, or an item a macro defines in this module.
                    for (scope, glob) in &m.globs {
                        let Some(abs) = self.absolute(scope, glob) else {
                            continue;
                        };
                        if let Some(hit) = self.resolve(&[&abs[..], &path[i..]].concat(), depth + 1)
                        {
                            return Some(hit);
                        }
                    }
                    return Some((m.file.clone(), false));
                }
            }
        }
        self.modules.get(&module).map(|m| (m.file.clone(), true))
    }

    fn floor(file: &str) -> Option<usize> {
        let top = file.strip_prefix("src/")?;
        let top = top.split(['/', '.']).next()?;
        FLOORS.iter().position(|(_, mods)| mods.contains(&top))
    }

    /// Imports from a floor to a higher one: (from, to) -> the names.
    fn upward(&self) -> BTreeMap<(String, String), BTreeSet<String>> {
        let mut up = BTreeMap::new();
        for (from, tos) in &self.edges {
            for (to, names) in tos {
                if let (Some(a), Some(b)) = (House::floor(from), House::floor(to))
                    && a < b
                {
                    up.insert((from.clone(), to.clone()), names.clone());
                }
            }
        }
        up
    }

    /// The circles, level by level: in each folder of modules, its modules (a file `x.rs`, or a
    /// module `x` with everything under `x/`) with an edge between two when a file of one names a
    /// file of the other; the folder's own file (`mod.rs`, `lib.rs`) is left out, so a module and
    /// its own submodules may name each other, but a loop that runs through them and out is
    /// found one level up. Each circle is its modules' paths (`src/scenario/agents` for a
    /// folder), sorted, starting at the smallest.
    fn circles(&self) -> Vec<Vec<String>> {
        let mut levels: BTreeSet<String> = BTreeSet::new();
        for f in &self.files {
            let mut dir = f.as_str();
            while let Some((parent, _)) = dir.rsplit_once('/') {
                levels.insert(parent.to_string());
                dir = parent;
            }
        }
        let mut out = Vec::new();
        for level in &levels {
            let node = |f: &str| -> Option<String> {
                let rest = f.strip_prefix(level.as_str())?.strip_prefix('/')?;
                let first = rest.split('/').next()?;
                if rest == "mod.rs" || rest == "lib.rs" {
                    return None;
                }
                Some(format!("{level}/{}", first.trim_end_matches(".rs")))
            };
            let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
            for (a, tos) in &self.edges {
                let Some(na) = node(a) else { continue };
                for b in tos.keys() {
                    if let Some(nb) = node(b).filter(|nb| *nb != na) {
                        edges.entry(na.clone()).or_default().insert(nb);
                    }
                }
            }
            out.extend(strongly_connected(&edges));
        }
        for set in &mut out {
            let first = (0..set.len()).min_by_key(|&i| &set[i]).unwrap_or(0);
            set.rotate_left(first);
        }
        out.sort();
        out
    }

    /// The file edges between the modules of a circle (a module's path names its file and the
    /// files under it).
    fn edges_within(&self, set: &[String]) -> Vec<(String, String, Vec<String>)> {
        let of = |f: &str| {
            set.iter()
                .find(|m| f == format!("{m}.rs") || f.starts_with(&format!("{m}/")))
                .cloned()
        };
        let mut out = Vec::new();
        for (a, tos) in &self.edges {
            for (b, names) in tos {
                if let (Some(ma), Some(mb)) = (of(a), of(b))
                    && ma != mb
                {
                    out.push((a.clone(), b.clone(), names.iter().cloned().collect()));
                }
            }
        }
        out
    }

    fn describe(
        &self,
        circles: &[Vec<String>],
        upward: &BTreeMap<(String, String), BTreeSet<String>>,
    ) -> String {
        let mut s = format!(
            "{} files, {} circles, {} imports up\n",
            self.files.len(),
            circles.len(),
            upward.len()
        );
        for set in circles {
            s += &format!("circle: {}\n", set.join(", "));
            for (a, b, names) in self.edges_within(set) {
                s += &format!("  {a} -> {b}: {}\n", names.join(", "));
            }
        }
        for ((a, b), names) in upward {
            let names: Vec<_> = names.iter().map(String::as_str).collect();
            s += &format!("up: {a} -> {b}: {}\n", names.join(", "));
        }
        s
    }
}

/// The strongly connected sets of more than one node (Tarjan), each in the order found.
fn strongly_connected(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct T<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: HashMap<&'a str, usize>,
        low: HashMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    impl<'a> T<'a> {
        fn visit(&mut self, v: &'a str) {
            let i = self.index.len();
            self.index.insert(v, i);
            self.low.insert(v, i);
            self.stack.push(v);
            self.on.insert(v);
            if let Some(tos) = self.edges.get(v) {
                for w in tos {
                    let w = w.as_str();
                    if !self.index.contains_key(w) {
                        self.visit(w);
                        let l = self.low[w].min(self.low[v]);
                        self.low.insert(v, l);
                    } else if self.on.contains(w) {
                        let l = self.index[w].min(self.low[v]);
                        self.low.insert(v, l);
                    }
                }
            }
            if self.low[v] == self.index[v] {
                let mut set = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on.remove(w);
                    set.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if set.len() > 1 {
                    set.reverse();
                    self.out.push(set);
                }
            }
        }
    }
    let mut t = T {
        edges,
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    t.out
}
