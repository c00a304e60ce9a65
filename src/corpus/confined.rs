//! Files under a root (the corpus, the expected outputs, the reports' pending outputs), read and
//! written without ever following a symlink below the root: nothing outside the root is read or
//! written, whatever the tree holds. The root itself is followed (it is what the user named).
//!
//! Every directory below the root is opened with `openat(O_DIRECTORY | O_NOFOLLOW)` from its
//! parent's descriptor, and the file itself with `O_NOFOLLOW | O_NONBLOCK` (a FIFO never blocks),
//! then checked with `fstat` on the open descriptor. Checking `symlink_metadata` before a plain
//! open would leave a window in which a component could be swapped for a link; walking by
//! descriptor leaves none: what is checked is what is read or written.

use std::ffi::{CString, OsStr};
use std::fs::{self, File};
use std::io::{self, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

/// An entry under a root that a command left alone, and why. Commands report every one.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Skipped {
    pub path: PathBuf,
    /// What the entry is (`a symlink`, `a directory`, `a FIFO`, `unreadable: …`).
    pub what: String,
}

impl Skipped {
    /// One line: `<path> is <what>: skipped (…)`.
    pub fn message(&self) -> String {
        format!(
            "{} is {}: skipped (toolnorm never reads or writes through a link, nor anything but regular files)",
            self.path.display(),
            self.what
        )
    }
}

/// An entry refused on use: a symlink, or not a regular file (directory) where one was needed.
#[derive(Debug, thiserror::Error)]
#[error("{} is {what}: refused (toolnorm never reads or writes through a link, nor anything but regular files)", path.display())]
pub struct Refused {
    pub path: PathBuf,
    pub what: String,
}

/// The refusal inside an I/O error from this module, if that is what it is.
pub fn refused(e: &io::Error) -> Option<&Refused> {
    e.get_ref()?.downcast_ref::<Refused>()
}

fn refuse(path: PathBuf, what: impl Into<String>) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        Refused {
            path,
            what: what.into(),
        },
    )
}

/// What a file type is, in words.
pub fn describe(t: fs::FileType) -> &'static str {
    if t.is_symlink() {
        "a symlink"
    } else if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_block_device() || t.is_char_device() {
        "a device"
    } else if t.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

fn c_name(name: &OsStr) -> io::Result<CString> {
    CString::new(name.as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a path holds NUL"))
}

fn openat(
    dir: &OwnedFd,
    name: &OsStr,
    flags: libc::c_int,
    mode: libc::mode_t,
) -> io::Result<OwnedFd> {
    let c = c_name(name)?;
    // SAFETY: `dir` is an open descriptor and `c` a NUL-terminated string, both alive for the call.
    let fd = unsafe {
        libc::openat(
            dir.as_raw_fd(),
            c.as_ptr(),
            flags | libc::O_CLOEXEC,
            libc::c_uint::from(mode),
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Open `root`/`dirs…` as a directory, each component below the root without following a link;
/// with `create`, missing directories are made. `Ok(None)`: a component is missing.
fn open_dirs(root: &Path, dirs: &[&OsStr], create: bool) -> io::Result<Option<OwnedFd>> {
    if create {
        fs::create_dir_all(root)?;
    }
    let mut fd: OwnedFd = match File::open(root) {
        Ok(f) => f.into(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut path = root.to_owned();
    for name in dirs {
        path.push(name);
        let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW;
        let next = match openat(&fd, name, flags, 0) {
            Err(e) if e.raw_os_error() == Some(libc::ENOENT) && create => {
                let c = c_name(name)?;
                // SAFETY: as in `openat`.
                if unsafe { libc::mkdirat(fd.as_raw_fd(), c.as_ptr(), 0o777) } != 0 {
                    let e = io::Error::last_os_error();
                    if e.raw_os_error() != Some(libc::EEXIST) {
                        return Err(e);
                    }
                }
                openat(&fd, name, flags, 0)
            }
            other => other,
        };
        fd = match next {
            Ok(fd) => fd,
            Err(e) if e.raw_os_error() == Some(libc::ENOENT) => return Ok(None),
            Err(e) if matches!(e.raw_os_error(), Some(libc::ELOOP | libc::ENOTDIR)) => {
                let what = fs::symlink_metadata(&path)
                    .map(|m| describe(m.file_type()))
                    .unwrap_or("not a directory");
                return Err(refuse(path, what));
            }
            Err(e) => return Err(e),
        };
    }
    Ok(Some(fd))
}

/// Split `rel` (`claude/x.json`) into its directories and its file name.
fn split(rel: &Path) -> io::Result<(Vec<&OsStr>, &OsStr)> {
    let mut parts: Vec<&OsStr> = Vec::new();
    for c in rel.components() {
        match c {
            std::path::Component::Normal(n) => parts.push(n),
            _ => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{} is not a plain relative path", rel.display()),
                ));
            }
        }
    }
    let name = parts
        .pop()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "an empty path"))?;
    Ok((parts, name))
}

fn not_found(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::NotFound,
        format!("{} does not exist", path.display()),
    )
}

/// Open the regular file `root/rel` for reading, through no link, with its length. A missing
/// file is `NotFound`; a link or anything but a regular file is [`Refused`].
pub fn open(root: &Path, rel: &Path) -> io::Result<(File, u64)> {
    let (dirs, name) = split(rel)?;
    let path = root.join(rel);
    let Some(dir) = open_dirs(root, &dirs, false)? else {
        return Err(not_found(&path));
    };
    open_in(&dir, name, path)
}

/// Open the regular file `name` in the folder `dir` (`path` names it in errors), through no
/// link; with its length.
fn open_in(dir: &OwnedFd, name: &OsStr, path: PathBuf) -> io::Result<(File, u64)> {
    let fd = match openat(
        dir,
        name,
        libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK,
        0,
    ) {
        Ok(fd) => fd,
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => return Err(not_found(&path)),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err(refuse(path, "a symlink")),
        Err(e) => return Err(e),
    };
    let file = File::from(fd);
    let meta = file.metadata()?;
    let t = meta.file_type();
    if !t.is_file() {
        return Err(refuse(path, describe(t)));
    }
    Ok((file, meta.len()))
}

/// Read the regular file `root/rel`, through no link (see [`open`]).
pub fn read(root: &Path, rel: &Path) -> io::Result<Vec<u8>> {
    let (dirs, name) = split(rel)?;
    let path = root.join(rel);
    let Some(dir) = open_dirs(root, &dirs, false)? else {
        return Err(not_found(&path));
    };
    let (file, len) = open_in(&dir, name, path)?;
    read_open(file, len)
}

/// The rest of an open file, `len` its length when it was opened (see [`read_rest`]).
fn read_open(file: File, len: u64) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    read_rest(&file, Some(len), &mut out)?;
    Ok(out)
}

/// Append the rest of `file` to `out`. `len`, for a regular file, is how much of it was left to
/// read when it was opened (a hint: it is read to its end whatever its length now); `None` for
/// any other file. The room is reserved up front and read into as it is, so a regular file that
/// has not changed costs one call (see [`read_some`]). std's `read_to_end` asks the system for
/// the length and position again, or, without them, reads in doubling steps from 8 KiB.
pub fn read_rest(file: &File, len: Option<u64>, out: &mut Vec<u8>) -> io::Result<()> {
    out.reserve(len.unwrap_or(0).min(READ_HINT_CAP) as usize + 1);
    while !read_some(file, out, usize::MAX, len.is_some())? {}
    Ok(())
}

/// One read of at most `max` bytes (at least one) of `file`, appended to `out`, which grows
/// first if it is full; whether the file has ended. It has when the read gives nothing, or, for
/// a `regular` file, fewer bytes than it asked for (POSIX: only a signal could cut such a read
/// short otherwise, and Linux lets none but a fatal one); any other file is read until a read
/// gives nothing.
pub fn read_some(file: &File, out: &mut Vec<u8>, max: usize, regular: bool) -> io::Result<bool> {
    if out.len() == out.capacity() {
        // At least 8 KiB more; the vector's own growth doubles it past that.
        out.reserve(8 << 10);
    }
    let spare = out.spare_capacity_mut();
    let (at, room) = (spare.as_mut_ptr(), spare.len().min(max).max(1));
    loop {
        // SAFETY: `at` is `room` bytes that `out` owns and does not hold yet; read(2) writes at
        // most that many.
        let n = unsafe { libc::read(file.as_raw_fd(), at.cast(), room) };
        if let Ok(n) = usize::try_from(n) {
            // SAFETY: read(2) wrote the first `n` of those bytes.
            unsafe { out.set_len(out.len() + n) };
            return Ok(n == 0 || (regular && n < room));
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Past this length, a file's buffer grows as it is read rather than all at once.
const READ_HINT_CAP: u64 = 64 << 20;

/// Files read in the folders below one root, each folder opened once (through no link, as
/// [`open`] opens it) and kept open for the files read in it after: a run that reads thousands
/// of files in a few folders walks each folder's path once. What is read is what [`open`] and
/// [`read`] would read, but for a folder swapped for another while the run lasts, in which the
/// folder first opened is read on. A folder that could not be opened is not kept: the next file
/// in it tries again, and says why it cannot.
#[derive(Debug)]
pub struct Dirs {
    root: PathBuf,
    open: std::sync::Mutex<Vec<(PathBuf, std::sync::Arc<OwnedFd>)>>,
}

impl Dirs {
    pub fn new(root: &Path) -> Self {
        Dirs {
            root: root.to_owned(),
            open: std::sync::Mutex::new(Vec::new()),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// [`open`] of `root/rel`, with its length.
    pub fn open(&self, rel: &Path) -> io::Result<(File, u64)> {
        let (dirs, name) = split(rel)?;
        let path = self.root.join(rel);
        let folder = rel.parent().unwrap_or(Path::new(""));
        let kept = self.open.lock().ok().and_then(|open| {
            open.iter()
                .find(|(p, _)| p == folder)
                .map(|(_, fd)| fd.clone())
        });
        let dir = match kept {
            Some(fd) => fd,
            None => {
                let Some(fd) = open_dirs(&self.root, &dirs, false)? else {
                    return Err(not_found(&path));
                };
                let fd = std::sync::Arc::new(fd);
                if let Ok(mut open) = self.open.lock() {
                    open.push((folder.to_owned(), fd.clone()));
                }
                fd
            }
        };
        open_in(&dir, name, path)
    }

    /// [`read`] of `root/rel`.
    pub fn read(&self, rel: &Path) -> io::Result<Vec<u8>> {
        let (file, len) = self.open(rel)?;
        read_open(file, len)
    }
}

/// Write `bytes` to `root/rel` (created or replaced), creating its folders, through no link: a
/// link or anything but a regular file at that path is [`Refused`] and left as it is.
pub fn write(root: &Path, rel: &Path, bytes: &[u8]) -> io::Result<()> {
    let (dirs, name) = split(rel)?;
    let path = root.join(rel);
    let Some(dir) = open_dirs(root, &dirs, true)? else {
        return Err(not_found(&path));
    };
    let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_NOFOLLOW | libc::O_NONBLOCK;
    let fd = match openat(&dir, name, flags, 0o666) {
        Ok(fd) => fd,
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err(refuse(path, "a symlink")),
        Err(e) if matches!(e.raw_os_error(), Some(libc::EISDIR | libc::ENXIO)) => {
            let what = fs::symlink_metadata(&path)
                .map(|m| describe(m.file_type()))
                .unwrap_or("not a regular file");
            return Err(refuse(path, what));
        }
        Err(e) => return Err(e),
    };
    let mut file = File::from(fd);
    let t = file.metadata()?.file_type();
    if !t.is_file() {
        return Err(refuse(path, describe(t)));
    }
    // Truncated only once it is known to be a regular file of the tree.
    file.set_len(0)?;
    file.write_all(bytes)?;
    file.flush()
}

/// Remove `root/rel` if it exists, through no link (a link itself is removed, never its target).
pub fn remove(root: &Path, rel: &Path) -> io::Result<()> {
    let (dirs, name) = split(rel)?;
    let Some(dir) = open_dirs(root, &dirs, false)? else {
        return Ok(());
    };
    let c = c_name(name)?;
    // SAFETY: as in `openat`.
    if unsafe { libc::unlinkat(dir.as_raw_fd(), c.as_ptr(), 0) } != 0 {
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::ENOENT) {
            return Err(e);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;

    use super::*;

    #[test]
    fn reads_and_writes_nothing_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        let outside = dir.path().join("outside");
        fs::create_dir_all(root.join("a")).unwrap();
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("secret"), "secret").unwrap();
        fs::write(root.join("a/ok"), "ok").unwrap();
        symlink(outside.join("secret"), root.join("a/link")).unwrap();
        symlink(&outside, root.join("b")).unwrap();

        assert_eq!(read(&root, Path::new("a/ok")).unwrap(), b"ok");
        for rel in ["a/link", "b/secret"] {
            let e = read(&root, Path::new(rel)).unwrap_err();
            let r = refused(&e).unwrap_or_else(|| panic!("{rel}: {e}"));
            assert_eq!(r.what, "a symlink", "{rel}");
            let e = write(&root, Path::new(rel), b"x").unwrap_err();
            assert!(refused(&e).is_some(), "{rel}: {e}");
        }
        assert_eq!(
            fs::read_to_string(outside.join("secret")).unwrap(),
            "secret"
        );
        let e = read(&root, Path::new("a")).unwrap_err();
        assert_eq!(refused(&e).map(|r| r.what.as_str()), Some("a directory"));
        assert_eq!(
            read(&root, Path::new("a/none")).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
        assert_eq!(
            read(&root, Path::new("c/none")).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );

        write(&root, Path::new("c/d/new"), b"new").unwrap();
        assert_eq!(fs::read_to_string(root.join("c/d/new")).unwrap(), "new");
        write(&root, Path::new("c/d/new"), b"n").unwrap();
        assert_eq!(fs::read_to_string(root.join("c/d/new")).unwrap(), "n");
        remove(&root, Path::new("a/link")).unwrap();
        assert!(fs::symlink_metadata(root.join("a/link")).is_err());
        assert!(outside.join("secret").exists(), "the target stays");
        remove(&root, Path::new("b/secret")).unwrap_err();
        assert!(outside.join("secret").exists());
        remove(&root, Path::new("x/y")).unwrap();
    }

    #[test]
    fn kept_folders_read_what_a_fresh_walk_reads() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        let outside = dir.path().join("outside");
        fs::create_dir_all(root.join("a")).unwrap();
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("secret"), "secret").unwrap();
        symlink(outside.join("secret"), root.join("a/link")).unwrap();
        symlink(&outside, root.join("b")).unwrap();
        let big: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        fs::write(root.join("a/big"), &big).unwrap();
        fs::write(root.join("a/empty"), "").unwrap();
        let dirs = Dirs::new(&root);
        for _ in 0..2 {
            assert_eq!(dirs.read(Path::new("a/big")).unwrap(), big);
            assert_eq!(dirs.read(Path::new("a/empty")).unwrap(), b"");
            assert_eq!(dirs.open(Path::new("a/big")).unwrap().1, big.len() as u64);
            for rel in ["a/link", "b/secret"] {
                let e = dirs.read(Path::new(rel)).unwrap_err();
                assert_eq!(
                    refused(&e).map(|r| r.what.as_str()),
                    Some("a symlink"),
                    "{rel}"
                );
            }
            let e = dirs.read(Path::new("a")).unwrap_err();
            assert_eq!(refused(&e).map(|r| r.what.as_str()), Some("a directory"));
            for rel in ["a/none", "c/none"] {
                let e = dirs.read(Path::new(rel)).unwrap_err();
                assert_eq!(e.kind(), io::ErrorKind::NotFound, "{rel}");
            }
        }
        // A folder made after a first miss is found.
        fs::create_dir_all(root.join("c")).unwrap();
        fs::write(root.join("c/none"), "now").unwrap();
        assert_eq!(dirs.read(Path::new("c/none")).unwrap(), b"now");
        // A file grown since it was opened is read to its end.
        let (file, len) = dirs.open(Path::new("a/empty")).unwrap();
        fs::write(root.join("a/empty"), "grown").unwrap();
        assert_eq!(read_open(file, len).unwrap(), b"grown");
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("f");
        let c = CString::new(fifo.as_os_str().as_bytes()).unwrap();
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        let e = read(dir.path(), Path::new("f")).unwrap_err();
        assert_eq!(refused(&e).map(|r| r.what.as_str()), Some("a FIFO"));
        let e = write(dir.path(), Path::new("f"), b"x").unwrap_err();
        assert!(refused(&e).is_some(), "{e}");
    }
}
