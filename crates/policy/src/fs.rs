//! Facts about the file system the policy needs — whether a directory
//! exists, whether a path segment is a symbolic link, where links lead —
//! behind a small trait, so the decision can run over a real disk
//! ([`OsFs`]) or anything else that answers the same questions.
//!
//! The symlink-segment rule of SPEC §5.4 ([`contains`]) lives here too: it
//! is the one containment test that needs the file system.

use std::io;
use std::path::PathBuf;

use shellgate_shell::paths::is_within;

/// The kind of a file system entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A directory.
    Dir,
    /// A regular file.
    File,
    /// A symbolic link (only reported by [`Fs::lstat`]).
    Symlink,
    /// Anything else (device, socket, fifo …).
    Other,
}

/// The file-system questions the policy asks. Paths are absolute,
/// `/`-separated strings.
pub trait Fs {
    /// The kind of `path` itself; a final symbolic link is not followed.
    fn lstat(&self, path: &str) -> io::Result<FileKind>;
    /// The kind of what `path` leads to (links followed).
    fn stat(&self, path: &str) -> io::Result<FileKind>;
    /// The target of the symbolic link `path`, as stored in the link.
    fn read_link(&self, path: &str) -> io::Result<PathBuf>;
    /// The names of the entries of the directory `path`.
    fn read_dir(&self, path: &str) -> io::Result<Vec<String>>;

    /// The entries of the directory `path` with their kinds (a symbolic
    /// link is reported as [`FileKind::Symlink`], not followed). The
    /// provided implementation asks [`Fs::lstat`] for each name; [`OsFs`]
    /// reads the kinds from the directory itself.
    fn read_dir_kinds(&self, path: &str) -> io::Result<Vec<(String, FileKind)>> {
        let names = self.read_dir(path)?;
        let base = path.trim_end_matches('/');
        Ok(names
            .into_iter()
            .map(|n| {
                let kind = self
                    .lstat(&format!("{base}/{n}"))
                    .unwrap_or(FileKind::Other);
                (n, kind)
            })
            .collect())
    }

    /// The first bytes of the regular file `path` (links followed): at most
    /// `max + 1` bytes, so a result longer than `max` means the file is
    /// larger than the caller wants. Anything that is not a regular file
    /// (a directory, a fifo, a device) is an error: reading it could block
    /// or never end. The provided implementation cannot read files.
    fn read_file(&self, path: &str, max: usize) -> io::Result<Vec<u8>> {
        let _ = (path, max);
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "this file system cannot read files",
        ))
    }

    /// `len` bytes of the regular file `path` from `offset` (fewer at its
    /// end): a piece of a file too large to read whole (a pack of git
    /// objects). The provided implementation cannot read files.
    fn read_range(&self, path: &str, offset: u64, len: usize) -> io::Result<Vec<u8>> {
        let _ = (path, offset, len);
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "this file system cannot read files",
        ))
    }

    /// Where [`crate::resolve::kernel`] keeps its answers for this file
    /// system (`follow_last` selects the table), when its answers never
    /// change ([`crate::resolve::CachingFs`], one evaluation): the walk is
    /// a function of the answers, so a path is walked once.
    fn kernel_memo(&self, follow_last: bool) -> Option<&crate::resolve::KernelMemo> {
        let _ = follow_last;
        None
    }

    /// `path` with every symbolic link resolved and `.`/`..` removed; an
    /// error when some part does not exist (`realpath` semantics). The
    /// provided implementation walks `path` with [`Fs::lstat`] and
    /// [`Fs::read_link`]; [`OsFs`] asks the operating system.
    fn canonicalize(&self, path: &str) -> io::Result<PathBuf> {
        if !path.starts_with('/') {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "canonicalize needs an absolute path",
            ));
        }
        let mut out = String::new();
        // Segments still to resolve, next one last.
        let mut pending: Vec<String> = path.rsplit('/').map(str::to_string).collect();
        let mut links = 0;
        while let Some(seg) = pending.pop() {
            match seg.as_str() {
                "" | "." => continue,
                ".." => {
                    if let Some(i) = out.rfind('/') {
                        out.truncate(i);
                    }
                    continue;
                }
                _ => {}
            }
            let candidate = format!("{out}/{seg}");
            if self.lstat(&candidate)? == FileKind::Symlink {
                links += 1;
                if links > MAX_LINKS {
                    return Err(io::Error::other("too many levels of symbolic links"));
                }
                let target = self.read_link(&candidate)?;
                let target = target.to_string_lossy();
                if target.starts_with('/') {
                    out.clear();
                }
                pending.extend(target.rsplit('/').map(str::to_string));
            } else {
                out = candidate;
            }
        }
        if out.is_empty() {
            out.push('/');
        }
        Ok(PathBuf::from(out))
    }
}

/// Links followed by the provided [`Fs::canonicalize`] before it gives up
/// (Linux's limit).
const MAX_LINKS: usize = 40;

impl std::fmt::Debug for dyn Fs + '_ {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("dyn Fs")
    }
}

/// The real file system (`std::fs`).
#[derive(Debug, Clone, Copy, Default)]
pub struct OsFs;

fn kind(t: std::fs::FileType) -> FileKind {
    if t.is_symlink() {
        FileKind::Symlink
    } else if t.is_dir() {
        FileKind::Dir
    } else if t.is_file() {
        FileKind::File
    } else {
        FileKind::Other
    }
}

impl Fs for OsFs {
    fn lstat(&self, path: &str) -> io::Result<FileKind> {
        std::fs::symlink_metadata(path).map(|m| kind(m.file_type()))
    }

    fn stat(&self, path: &str) -> io::Result<FileKind> {
        std::fs::metadata(path).map(|m| kind(m.file_type()))
    }

    fn read_link(&self, path: &str) -> io::Result<PathBuf> {
        std::fs::read_link(path)
    }

    fn read_dir(&self, path: &str) -> io::Result<Vec<String>> {
        std::fs::read_dir(path)?
            .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
            .collect()
    }

    fn read_dir_kinds(&self, path: &str) -> io::Result<Vec<(String, FileKind)>> {
        std::fs::read_dir(path)?
            .map(|e| {
                e.map(|e| {
                    let k = e.file_type().map(kind).unwrap_or(FileKind::Other);
                    (e.file_name().to_string_lossy().into_owned(), k)
                })
            })
            .collect()
    }

    fn read_range(&self, path: &str, offset: u64, len: usize) -> io::Result<Vec<u8>> {
        use std::io::{Read, Seek, SeekFrom};
        let mut f = std::fs::File::open(path)?;
        if !f.metadata()?.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a regular file",
            ));
        }
        f.seek(SeekFrom::Start(offset))?;
        let mut out = Vec::with_capacity(len);
        f.take(len as u64).read_to_end(&mut out)?;
        Ok(out)
    }

    fn read_file(&self, path: &str, max: usize) -> io::Result<Vec<u8>> {
        use std::io::Read;
        let meta = std::fs::metadata(path)?;
        if !meta.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a regular file",
            ));
        }
        let f = std::fs::File::open(path)?;
        // Room for the whole file as it was and one byte more: one read
        // fills it and the next sees its end (an empty buffer grows from 32
        // bytes, one read per doubling). The bound is `take`'s, as before.
        let size = usize::try_from(meta.len()).unwrap_or(usize::MAX);
        let mut out = Vec::with_capacity(size.min(max).saturating_add(1));
        f.take(max as u64 + 1).read_to_end(&mut out)?;
        Ok(out)
    }

    fn canonicalize(&self, path: &str) -> io::Result<PathBuf> {
        std::fs::canonicalize(path)
    }
}

/// True when some existing segment strictly below `root` down to and
/// including `child` is a symbolic link, or cannot be inspected. Segments
/// that do not exist end the walk (nothing below them exists either).
/// `child` must be within `root`.
pub fn symlink_between(fs: &dyn Fs, root: &str, child: &str) -> bool {
    if child == root {
        return false;
    }
    let rest = if root == "/" {
        &child[1..]
    } else {
        match child.get(root.len() + 1..) {
            Some(r) => r,
            None => return false,
        }
    };
    let mut current = if root == "/" {
        String::new()
    } else {
        root.to_string()
    };
    for seg in rest.split('/').filter(|s| !s.is_empty()) {
        current.push('/');
        current.push_str(seg);
        match fs.lstat(&current) {
            Ok(FileKind::Symlink) => return true,
            Ok(_) => {}
            Err(err) if err.kind() == io::ErrorKind::NotFound => return false,
            Err(_) => return true,
        }
    }
    false
}

/// Containment for grants, safe spaces, zones and roots (SPEC §5.4):
/// lexically within and no symlink segment between.
pub fn contains(fs: &dyn Fs, root: &str, child: &str) -> bool {
    is_within(child, root) && !symlink_between(fs, root, child)
}

/// Whether an existing path is a directory (following links). Anything that
/// cannot be inspected counts as "not a directory".
pub fn is_dir(fs: &dyn Fs, path: &str) -> bool {
    matches!(fs.stat(path), Ok(FileKind::Dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symlink_segments_break_containment() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().to_str().unwrap().to_string();
        std::fs::create_dir(t.path().join("real")).unwrap();
        std::os::unix::fs::symlink(t.path().join("real"), t.path().join("link")).unwrap();
        assert!(contains(&OsFs, &root, &format!("{root}/real/x")));
        assert!(!contains(&OsFs, &root, &format!("{root}/link")));
        assert!(!contains(&OsFs, &root, &format!("{root}/link/deeper")));
        assert!(contains(&OsFs, &root, &format!("{root}/missing/deeper")));
    }

    /// The provided canonicalize agrees with the operating system's on
    /// absolute, relative, chained and `..`-carrying links, and fails where
    /// it fails.
    #[test]
    fn provided_canonicalize_matches_the_os() {
        struct Walked;
        impl Fs for Walked {
            fn lstat(&self, path: &str) -> io::Result<FileKind> {
                OsFs.lstat(path)
            }
            fn stat(&self, path: &str) -> io::Result<FileKind> {
                OsFs.stat(path)
            }
            fn read_link(&self, path: &str) -> io::Result<PathBuf> {
                OsFs.read_link(path)
            }
            fn read_dir(&self, path: &str) -> io::Result<Vec<String>> {
                OsFs.read_dir(path)
            }
        }
        let t = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(t.path()).unwrap();
        let root = root.to_str().unwrap();
        std::fs::create_dir_all(format!("{root}/a/b/c")).unwrap();
        std::fs::write(format!("{root}/a/b/c/f"), "x").unwrap();
        let link = |target: &str, at: &str| {
            std::os::unix::fs::symlink(target, format!("{root}/{at}")).unwrap()
        };
        link(&format!("{root}/a/b"), "abs");
        link("a/b/c", "rel");
        link("rel", "chain");
        link("../..", "a/b/c/up");
        link("loop2", "loop1");
        link("loop1", "loop2");
        for p in [
            "abs",
            "abs/c/f",
            "rel/f",
            "chain/f",
            "a/b/c/up/b",
            "a/./b/../b/c",
            "chain/up/b/c/up",
            "missing",
            "rel/f/x",
            "loop1",
        ] {
            let path = format!("{root}/{p}");
            let os = std::fs::canonicalize(&path).ok();
            let walked = Walked.canonicalize(&path).ok();
            assert_eq!(walked, os, "{p}");
        }
        assert_eq!(Walked.canonicalize("/").unwrap(), PathBuf::from("/"));
        let mut names = OsFs.read_dir(root).unwrap();
        names.sort();
        assert_eq!(names, ["a", "abs", "chain", "loop1", "loop2", "rel"]);
        assert_eq!(
            OsFs.lstat(&format!("{root}/abs")).unwrap(),
            FileKind::Symlink
        );
        assert_eq!(OsFs.stat(&format!("{root}/abs")).unwrap(), FileKind::Dir);
        assert_eq!(
            OsFs.stat(&format!("{root}/a/b/c/f")).unwrap(),
            FileKind::File
        );
    }
}
