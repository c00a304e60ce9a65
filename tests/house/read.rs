//! Reading the crate: a small lexer over formatted source, and the reader that follows each
//! module's `use` leaves and paths to the files that define what they name.

use super::*;

// ---------------------------------------------------------------------------------------------
// Tokens

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    Ident(String),
    /// `::`
    Sep,
    Punct(char),
    Lit,
}

pub(super) fn lex(text: &str) -> Vec<Tok> {
    let c: Vec<char> = text.chars().collect();
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if let Some(end) = string_end(&c, i) {
            out.push(Tok::Lit);
            i = end;
        } else if ch == '\'' {
            // A char literal or a lifetime.
            if at(i + 1) == '\\' {
                i += 2;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
                out.push(Tok::Lit);
            } else if at(i + 2) == '\'' {
                i += 3;
                out.push(Tok::Lit);
            } else {
                i += 1;
                while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                    i += 1;
                }
            }
        } else if ch == 'r' && at(i + 1) == '#' && (at(i + 2).is_alphabetic() || at(i + 2) == '_') {
            i += 2;
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            out.push(Tok::Ident(c[start..i].iter().collect()));
        } else if ch.is_alphabetic() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            out.push(Tok::Ident(c[start..i].iter().collect()));
        } else if ch.is_ascii_digit() {
            while i < c.len()
                && (c[i].is_alphanumeric()
                    || c[i] == '_'
                    || (c[i] == '.' && at(i + 1).is_ascii_digit()))
            {
                i += 1;
            }
            out.push(Tok::Lit);
        } else if ch == ':' && at(i + 1) == ':' {
            out.push(Tok::Sep);
            i += 2;
        } else {
            out.push(Tok::Punct(ch));
            i += 1;
        }
    }
    out
}

/// Where a string literal starting at `i` ends (`"..."`, `r#"..."#`, `b"..."`, `br"..."`,
/// `c"..."`, `b'x'`), or None when none starts there.
pub(super) fn string_end(c: &[char], i: usize) -> Option<usize> {
    let at = |j: usize| c.get(j).copied().unwrap_or('\0');
    let mut j = i;
    if (c[j] == 'b' || c[j] == 'c') && (at(j + 1) == '"' || at(j + 1) == 'r' || at(j + 1) == '\'') {
        if at(j + 1) == '\'' {
            j += 2;
            if at(j) == '\\' {
                j += 1;
            }
            while j < c.len() && c[j] != '\'' {
                j += 1;
            }
            return Some(j + 1);
        }
        j += 1;
    }
    if at(j) == 'r' && (at(j + 1) == '"' || at(j + 1) == '#') {
        j += 1;
        let mut hashes = 0;
        while at(j) == '#' {
            hashes += 1;
            j += 1;
        }
        if at(j) != '"' {
            return None;
        }
        j += 1;
        while j < c.len() {
            if c[j] == '"' && (1..=hashes).all(|h| at(j + h) == '#') {
                return Some(j + 1 + hashes);
            }
            j += 1;
        }
        return Some(j);
    }
    if at(j) != '"' {
        return None;
    }
    j += 1;
    while j < c.len() {
        match c[j] {
            '\\' => j += 2,
            '"' => return Some(j + 1),
            _ => j += 1,
        }
    }
    Some(j)
}

// ---------------------------------------------------------------------------------------------
// Modules, items and the paths each file names

/// What a name in a module stands for.
#[derive(Debug, Clone)]
pub(super) enum Def {
    /// An item defined in this file.
    Item(String),
    /// A module (its path from the crate root).
    Module(Vec<String>),
    /// An import of an absolute path (or of a path relative to the module, resolved later).
    Import(Vec<String>, Vec<String>),
}

pub(super) struct Reader {
    pub(super) src: PathBuf,
    pub(super) modules: HashMap<Vec<String>, Module>,
    pub(super) named: Vec<Named>,
    pub(super) files: BTreeSet<String>,
}

impl Reader {
    pub(super) fn file(&mut self, path: &Path, module: Vec<String>) -> std::io::Result<()> {
        let text = fs::read_to_string(path)?;
        let rel = path.strip_prefix(&self.src).unwrap_or(path);
        let name = format!("src/{}", rel.to_string_lossy().replace('\\', "/"));
        self.files.insert(name.clone());
        self.modules.entry(module.clone()).or_default().file = name.clone();
        let toks = lex(&text);
        let mut i = 0;
        let mut children = Vec::new();
        self.items(&toks, &mut i, &name, &module, false, &mut children);
        // A module's own folder: `a.rs` has its children in `a/`, `a/mod.rs` beside it.
        let dir = if path
            .file_name()
            .is_some_and(|n| n == "mod.rs" || n == "lib.rs")
        {
            path.parent().unwrap_or(&self.src).to_path_buf()
        } else {
            path.with_extension("")
        };
        for child in children {
            let mut m = module.clone();
            m.push(child.clone());
            let flat = dir.join(format!("{child}.rs"));
            let nested = dir.join(&child).join("mod.rs");
            let file = if flat.exists() { flat } else { nested };
            self.file(&file, m)?;
        }
        Ok(())
    }

    fn define(&mut self, module: &[String], name: &str, def: Def) {
        self.modules
            .entry(module.to_vec())
            .or_default()
            .names
            .entry(name.to_string())
            .or_default()
            .push(def);
    }

    /// The items of one module's body, up to its closing brace when `inner`. Child modules in
    /// their own files go to `children`.
    fn items(
        &mut self,
        toks: &[Tok],
        i: &mut usize,
        file: &str,
        module: &[String],
        inner: bool,
        children: &mut Vec<String>,
    ) {
        while *i < toks.len() {
            let mut test_only = false;
            while toks.get(*i) == Some(&Tok::Punct('#')) {
                *i += 1;
                if toks.get(*i) == Some(&Tok::Punct('!')) {
                    *i += 1;
                }
                let start = *i;
                skip_group(toks, i);
                let attr = &toks[start..*i];
                test_only |= attr
                    == [
                        Tok::Punct('['),
                        ident("cfg"),
                        Tok::Punct('('),
                        ident("test"),
                        Tok::Punct(')'),
                        Tok::Punct(']'),
                    ];
            }
            match toks.get(*i) {
                None => return,
                Some(Tok::Punct('}')) if inner => {
                    *i += 1;
                    return;
                }
                Some(Tok::Punct(';')) => {
                    *i += 1;
                    continue;
                }
                _ => {}
            }
            if test_only {
                self.skip_item(toks, i, file, module, false);
                continue;
            }
            if toks.get(*i) == Some(&ident("pub")) {
                *i += 1;
                if toks.get(*i) == Some(&Tok::Punct('(')) {
                    skip_group(toks, i);
                }
            }
            while matches!(toks.get(*i), Some(Tok::Ident(k)) if ["unsafe", "async", "default", "extern"].contains(&k.as_str()))
                || (toks.get(*i) == Some(&ident("const"))
                    && matches!(toks.get(*i + 1), Some(Tok::Ident(k)) if ["fn", "unsafe", "async", "extern"].contains(&k.as_str())))
            {
                *i += 1;
                if toks.get(*i) == Some(&Tok::Lit) {
                    *i += 1;
                }
            }
            let Some(Tok::Ident(kw)) = toks.get(*i) else {
                self.skip_item(toks, i, file, module, true);
                continue;
            };
            match kw.as_str() {
                "use" => {
                    *i += 1;
                    self.use_tree(toks, i, file, module);
                }
                "mod" => {
                    let Some(Tok::Ident(name)) = toks.get(*i + 1) else {
                        *i += 1;
                        continue;
                    };
                    let name = name.clone();
                    *i += 2;
                    let mut m = module.to_vec();
                    m.push(name.clone());
                    self.define(module, &name, Def::Module(m.clone()));
                    if toks.get(*i) == Some(&Tok::Punct('{')) {
                        *i += 1;
                        self.modules.entry(m.clone()).or_default().file = file.to_string();
                        // Files declared in an inline module are not read (none are).
                        self.items(toks, i, file, &m, true, &mut Vec::new());
                    } else {
                        children.push(name);
                    }
                }
                "crate" if toks.get(*i + 1) != Some(&Tok::Sep) => {
                    // `extern crate x;`
                    self.skip_item(toks, i, file, module, false);
                }
                "fn" | "struct" | "enum" | "union" | "trait" | "type" | "const" | "static"
                | "macro_rules" => {
                    let mut j = *i + 1;
                    if toks.get(j) == Some(&Tok::Punct('!')) {
                        j += 1;
                    }
                    if toks.get(j) == Some(&ident("mut")) {
                        j += 1;
                    }
                    if let Some(Tok::Ident(name)) = toks.get(j) {
                        let name = name.clone();
                        self.define(module, &name, Def::Item(file.to_string()));
                    }
                    self.skip_item(toks, i, file, module, true);
                }
                _ => self.skip_item(toks, i, file, module, true),
            }
        }
    }

    /// Past one item (to its `;` or its closing brace), noting the paths in it.
    fn skip_item(
        &mut self,
        toks: &[Tok],
        i: &mut usize,
        file: &str,
        module: &[String],
        note: bool,
    ) {
        let mut depth = 0usize;
        while *i < toks.len() {
            match &toks[*i] {
                Tok::Punct('(' | '[' | '{') => depth += 1,
                Tok::Punct(')' | ']') => depth = depth.saturating_sub(1),
                Tok::Punct('}') => {
                    if depth <= 1 {
                        *i += 1;
                        return;
                    }
                    depth -= 1;
                }
                Tok::Punct(';') if depth == 0 => {
                    *i += 1;
                    return;
                }
                Tok::Ident(k)
                    if note
                        && k == "use"
                        && matches!(toks.get(*i + 1), Some(Tok::Ident(_)) | Some(Tok::Sep)) =>
                {
                    // A `use` in a function body.
                    *i += 1;
                    self.use_tree(toks, i, file, module);
                    continue;
                }
                Tok::Ident(first) if note => {
                    let after_dot = *i > 0 && matches!(toks[*i - 1], Tok::Punct('.') | Tok::Sep);
                    if !after_dot && toks.get(*i + 1) == Some(&Tok::Sep) {
                        let mut path = vec![first.clone()];
                        if *i > 0 && toks[*i - 1] == Tok::Punct('$') && first == "crate" {
                            path[0] = "$crate".into();
                        }
                        let mut j = *i + 1;
                        while toks.get(j) == Some(&Tok::Sep) {
                            match toks.get(j + 1) {
                                Some(Tok::Ident(s)) => {
                                    path.push(s.clone());
                                    j += 2;
                                }
                                _ => break,
                            }
                        }
                        self.named.push(Named {
                            file: file.to_string(),
                            scope: module.to_vec(),
                            path,
                            leaf_of_use: false,
                        });
                        *i = j;
                        continue;
                    }
                }
                _ => {}
            }
            *i += 1;
        }
    }

    /// A `use` tree up to its `;`: each leaf is a name in `module` and a path the file names.
    fn use_tree(&mut self, toks: &[Tok], i: &mut usize, file: &str, module: &[String]) {
        let mut leaves = Vec::new();
        if toks.get(*i) == Some(&Tok::Sep) {
            *i += 1;
        }
        tree(toks, i, Vec::new(), &mut leaves);
        while *i < toks.len() && toks[*i] != Tok::Punct(';') {
            *i += 1;
        }
        *i += 1;
        for (path, bind) in leaves {
            match bind {
                None => self
                    .modules
                    .entry(module.to_vec())
                    .or_default()
                    .globs
                    .push((module.to_vec(), path.clone())),
                Some(name) if name != "_" => {
                    self.define(module, &name, Def::Import(module.to_vec(), path.clone()))
                }
                Some(_) => {}
            }
            self.named.push(Named {
                file: file.to_string(),
                scope: module.to_vec(),
                path,
                leaf_of_use: true,
            });
        }
    }
}

pub(super) fn ident(s: &str) -> Tok {
    Tok::Ident(s.to_string())
}

/// Past a bracketed group starting at `i`.
pub(super) fn skip_group(toks: &[Tok], i: &mut usize) {
    let mut depth = 0usize;
    while *i < toks.len() {
        match toks[*i] {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    *i += 1;
                    return;
                }
            }
            _ => {}
        }
        *i += 1;
    }
}

/// One use tree: its leaves as (path, the name it binds; None for a glob).
pub(super) fn tree(
    toks: &[Tok],
    i: &mut usize,
    prefix: Vec<String>,
    leaves: &mut Vec<(Vec<String>, Option<String>)>,
) {
    let mut path = prefix;
    loop {
        match toks.get(*i) {
            Some(Tok::Punct('{')) => {
                *i += 1;
                loop {
                    match toks.get(*i) {
                        Some(Tok::Punct('}')) => {
                            *i += 1;
                            return;
                        }
                        Some(Tok::Punct(',')) => *i += 1,
                        None => return,
                        _ => tree(toks, i, path.clone(), leaves),
                    }
                }
            }
            Some(Tok::Punct('*')) => {
                *i += 1;
                leaves.push((path, None));
                return;
            }
            Some(Tok::Ident(s)) => {
                *i += 1;
                if s == "self" && !path.is_empty() {
                    // `a::b::{self}`
                } else {
                    path.push(s.clone());
                }
                if toks.get(*i) == Some(&Tok::Sep) {
                    *i += 1;
                    continue;
                }
                let mut bind = path.last().cloned();
                if toks.get(*i) == Some(&ident("as")) {
                    if let Some(Tok::Ident(a)) = toks.get(*i + 1) {
                        bind = Some(a.clone());
                    }
                    *i += 2;
                }
                leaves.push((path, bind));
                return;
            }
            _ => return,
        }
    }
}
