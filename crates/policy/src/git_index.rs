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
    /// Signatures of *required* extensions (git's rule: a signature starting
    /// with a lower-case letter must be understood by the reader, such as
    /// `link` for a split index whose entries live in another file, or `sdir`
    /// for a sparse index whose directory entries stand for many paths).
    /// A reader that relies on the entry list must treat any of them as
    /// "the entries are not all here".
    pub required_extensions: Vec<String>,
}

/// Parse an index held in memory, refusing more than `max_entries` entries.
pub fn parse(d: &[u8], max_entries: usize) -> Result<Index, String> {
    let bad = || "unreadable git index".to_string();
    if d.get(..4) != Some(b"DIRC") {
        return Err(bad());
    }
    let be32 = |at: usize| -> Option<usize> {
        let b = d.get(at..at.checked_add(4)?)?;
        Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
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
        let flags = d
            .get(flags_at..flags_at + 2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]))
            .ok_or_else(bad)?;
        let mut name_at = flags_at + 2;
        if version >= 3 && flags & 0x4000 != 0 {
            name_at += 2;
        }
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
            let end = d
                .get(i..)
                .and_then(|r| r.iter().position(|&b| b == 0))
                .ok_or_else(bad)?;
            let keep = prev.len().checked_sub(strip).ok_or_else(bad)?;
            let mut n = prev[..keep].to_vec();
            n.extend_from_slice(&d[i..i + end]);
            at = i + end + 1;
            n
        } else {
            let end = d
                .get(name_at..)
                .and_then(|r| r.iter().position(|&b| b == 0))
                .ok_or_else(bad)?;
            let n = d[name_at..name_at + end].to_vec();
            // Entries are padded with 1–8 NULs to a multiple of 8.
            let len = name_at + end - start;
            at = start + (len + 8) / 8 * 8;
            n
        };
        entries.push(Entry {
            path: String::from_utf8_lossy(&name).into_owned(),
            mode,
        });
        prev = name;
    }
    // Extensions: a 4-byte signature and a 4-byte size each, up to the
    // trailing checksum (20 bytes for SHA-1, 32 for SHA-256; a size that
    // runs into it ends the list).
    let mut required_extensions = Vec::new();
    while let (Some(sig), Some(size)) = (d.get(at..at + 4), be32(at + 4)) {
        let Some(end) = (at + 8).checked_add(size) else {
            break;
        };
        if end + 20 > d.len() {
            break;
        }
        if sig[0].is_ascii_lowercase() {
            required_extensions.push(String::from_utf8_lossy(sig).into_owned());
        }
        at = end;
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
        let idx = parse(&data, 100).unwrap();
        assert_eq!(idx.required_extensions, ["link"]);
        assert!(parse(&data, 0).is_err());
        assert!(parse(b"DIRC\0\0\0\x02\0\0\0\x05", 10).is_err());
        assert!(parse(b"nope", 10).is_err());
    }
}
