//! A git index file as git reads it: its entries (path and mode) in
//! versions 2–4, and the extensions that change what the entries mean.
//!
//! Used where the gate needs to know what git will find without running
//! git: the paths a `git checkout`/`git restore` writes (`creates`), and the
//! submodules (gitlinks) that `git status` and `git diff` enter (`repo`).

/// The mode git records for a submodule (a gitlink).
pub const GITLINK: u32 = 0o160000;

/// One index entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Path relative to the work tree, as recorded (`/`-separated).
    pub path: String,
    /// The entry's mode (`0o100644`, `0o120000` for a link, [`GITLINK`]).
    pub mode: u32,
    /// Marked assume-unchanged or skip-worktree: `git status` and `git
    /// diff` do not look at the file, so a change to it is not shown.
    pub hidden: bool,
}

impl Entry {
    /// Whether the entry is a submodule.
    pub fn is_gitlink(&self) -> bool {
        self.mode & 0o170000 == GITLINK
    }
}

/// What the index holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Index {
    /// The entries, in index order.
    pub entries: Vec<Entry>,
    /// Signatures of *required* extensions, and of `EOIE`/`IEOT` (git's rule: a signature starting
    /// with a lower-case letter must be understood by the reader, such as
    /// `link` for a split index whose entries live in another file, or `sdir`
    /// for a sparse index whose directory entries stand for many paths).
    /// A reader that relies on the entry list must treat any of them as
    /// "the entries are not all here".
    pub required_extensions: Vec<String>,
}

/// Git's flag bits and mask in an entry's 16-bit flags word.
const CE_VALID: u16 = 0x8000;
const CE_EXTENDED: u16 = 0x4000;
const CE_NAMEMASK: usize = 0x0fff;
/// In the second (extended) flags word: skip-worktree.
const CE_SKIP_WORKTREE: u16 = 0x4000;

/// Size of the trailing checksum (SHA-1; a SHA-256 repository's 32 bytes
/// leave 12 bytes that read as an extension header and fail closed).
const HASH_LEN: usize = 20;

/// Parse an index held in memory, refusing more than `max_entries` entries.
///
/// Entries are walked the way git's reader walks them (`read-cache.c`): the
/// name's length comes from the flags word (its C string only when the
/// length is 0xFFF), the second flags word follows whenever the extended
/// flag is set, in any version, and a version-4 name is the previous name
/// cut by a varint and extended by the stored bytes. A name holding a NUL
/// (git would read a shorter one) is refused, and so are the extensions
/// that let git read entries from other offsets than the walk's
/// (`EOIE`/`IEOT`, threaded loading): any disagreement with git's reading
/// must end as "unreadable", never as fewer entries.
pub fn parse(d: &[u8], max_entries: usize) -> Result<Index, String> {
    let bad = || "unreadable git index".to_string();
    if d.get(..4) != Some(b"DIRC") {
        return Err(bad());
    }
    let be32 = |at: usize| -> Option<usize> {
        let b = d.get(at..at.checked_add(4)?)?;
        Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    let be16 = |at: usize| -> Option<u16> {
        let b = d.get(at..at.checked_add(2)?)?;
        Some(u16::from_be_bytes([b[0], b[1]]))
    };
    let version = be32(4).ok_or_else(bad)?;
    let count = be32(8).ok_or_else(bad)?;
    if !(2..=4).contains(&version) {
        return Err(bad());
    }
    if count > max_entries {
        return Err("the index is larger than the gate lists".into());
    }
    let mut at = 12usize;
    let mut entries: Vec<Entry> = Vec::with_capacity(count);
    let mut prev: Vec<u8> = Vec::new();
    for _ in 0..count {
        let start = at;
        let mode = be32(start + 24).ok_or_else(bad)? as u32;
        let flags_at = start + 60;
        let flags = be16(flags_at).ok_or_else(bad)?;
        let mut name_at = flags_at + 2;
        let mut hidden = flags & CE_VALID != 0;
        if flags & CE_EXTENDED != 0 {
            hidden |= be16(name_at).ok_or_else(bad)? & CE_SKIP_WORKTREE != 0;
            name_at += 2;
        }
        let stored_len = flags as usize & CE_NAMEMASK;
        let name: Vec<u8> = if version == 4 {
            // Varint: bytes to strip from the previous name.
            let mut strip: usize = 0;
            let mut i = name_at;
            loop {
                let b = *d.get(i).ok_or_else(bad)?;
                i += 1;
                strip = (strip << 7) | (b & 0x7f) as usize;
                if b & 0x80 == 0 {
                    break;
                }
                strip += 1;
                if strip > 1 << 20 {
                    return Err(bad());
                }
            }
            let keep = prev.len().checked_sub(strip).ok_or_else(bad)?;
            let rest = d.get(i..).ok_or_else(bad)?;
            let suffix_len = if stored_len == CE_NAMEMASK {
                rest.iter().position(|&b| b == 0).ok_or_else(bad)?
            } else {
                stored_len.checked_sub(keep).ok_or_else(bad)?
            };
            let suffix = rest.get(..suffix_len).ok_or_else(bad)?;
            if rest.get(suffix_len) != Some(&0) {
                return Err(bad());
            }
            let mut n = prev[..keep].to_vec();
            n.extend_from_slice(suffix);
            at = i + suffix_len + 1;
            n
        } else {
            let rest = d.get(name_at..).ok_or_else(bad)?;
            let len = if stored_len == CE_NAMEMASK {
                rest.iter().position(|&b| b == 0).ok_or_else(bad)?
            } else {
                stored_len
            };
            let n = rest.get(..len).ok_or_else(bad)?.to_vec();
            // Entries are padded with 1–8 NULs to a multiple of 8.
            at = start + (name_at - start + len + 8) / 8 * 8;
            if at > d.len() {
                return Err(bad());
            }
            n
        };
        if name.contains(&0) || name.is_empty() {
            return Err(bad());
        }
        let path = String::from_utf8(name.clone())
            .map_err(|_| "the index holds a path that is not UTF-8".to_string())?;
        entries.push(Entry { path, mode, hidden });
        prev = name;
    }
    // Extensions, as git reads them: a 4-byte signature and a 4-byte size
    // each, while 8 bytes remain before the trailing checksum.
    let mut required_extensions = Vec::new();
    while at + 8 + HASH_LEN <= d.len() {
        let sig = &d[at..at + 4];
        let size = be32(at + 4).ok_or_else(bad)?;
        if sig[0].is_ascii_lowercase() || sig == b"EOIE" || sig == b"IEOT" {
            required_extensions.push(String::from_utf8_lossy(sig).into_owned());
        }
        at = match (at + 8).checked_add(size) {
            Some(n) => n,
            None => break,
        };
    }
    Ok(Index {
        entries,
        required_extensions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &str, args: &[&str]) {
        let out = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    }

    #[test]
    fn modes_gitlinks_and_extensions() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().to_str().unwrap();
        git(d, &["init", "-q"]);
        std::fs::write(format!("{d}/a"), "x").unwrap();
        git(d, &["add", "a"]);
        git(
            d,
            &[
                "update-index",
                "--add",
                "--cacheinfo",
                "160000,0123456789012345678901234567890123456789,lib/sub",
            ],
        );
        for version in ["2", "3", "4"] {
            git(d, &["update-index", "--index-version", version]);
            let data = std::fs::read(format!("{d}/.git/index")).unwrap();
            let idx = parse(&data, 100).unwrap();
            let links: Vec<&str> = idx
                .entries
                .iter()
                .filter(|e| e.is_gitlink())
                .map(|e| e.path.as_str())
                .collect();
            assert_eq!(links, ["lib/sub"], "version {version}");
            assert_eq!(idx.entries[0].mode, 0o100644);
            assert!(idx.required_extensions.is_empty(), "{idx:?}");
        }
        // A split index keeps its entries in another file: `link`.
        git(d, &["update-index", "--split-index"]);
        let data = std::fs::read(format!("{d}/.git/index")).unwrap();
        // (its replacement entries may have empty names: unreadable is fine too)
        assert!(parse(&data, 100).map_or(true, |i| i.required_extensions == ["link"]));
        assert!(parse(b"DIRC\0\0\0\x02\0\0\0\x05", 10).is_err());
        assert!(parse(b"nope", 10).is_err());
    }

    #[test]
    fn hidden_entries_are_marked() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().to_str().unwrap();
        git(d, &["init", "-q"]);
        for f in ["a", "b", "c"] {
            std::fs::write(format!("{d}/{f}"), "x").unwrap();
        }
        git(d, &["add", "a", "b", "c"]);
        git(d, &["update-index", "--skip-worktree", "a"]);
        git(d, &["update-index", "--assume-unchanged", "b"]);
        for version in ["2", "3", "4"] {
            git(d, &["update-index", "--index-version", version]);
            let data = std::fs::read(format!("{d}/.git/index")).unwrap();
            let idx = parse(&data, 100).unwrap();
            let hidden: Vec<(&str, bool)> = idx
                .entries
                .iter()
                .map(|e| (e.path.as_str(), e.hidden))
                .collect();
            assert_eq!(
                hidden,
                [("a", true), ("b", true), ("c", false)],
                "version {version}"
            );
        }
    }
}
