//! The sources of what a command creates: archive members (tar, zip,
//! cpio), a directory tree, a patch's file names, a git index's paths —
//! each read bounded in size, entries and time.

use std::io::Read;
use std::time::Instant;

use super::{Member, MAX_ENTRIES, MAX_SOURCE_BYTES, MAX_TIME, MAX_UNPACKED_BYTES};
use crate::fs::{FileKind, Fs};
use crate::resolve;

pub(super) fn read_source(fs: &dyn Fs, path: &str) -> Result<Vec<u8>, String> {
    let data = fs
        .read_file(path, MAX_SOURCE_BYTES)
        .map_err(|e| format!("cannot read {path}: {e}"))?;
    if data.len() > MAX_SOURCE_BYTES {
        return Err(format!("{path} is larger than the gate reads"));
    }
    Ok(data)
}

/// The members of the archive at `path` (tar, gzip-compressed tar, zip,
/// cpio), recognized by content. Errors name why it cannot be listed.
pub fn list_archive(fs: &dyn Fs, path: &str) -> Result<Vec<Member>, String> {
    let data = read_source(fs, path)?;
    archive_members(&data)
}

/// The members of an archive held in memory.
pub fn archive_members(data: &[u8]) -> Result<Vec<Member>, String> {
    if data.starts_with(&[0x1f, 0x8b]) {
        let gz = flate2::read::MultiGzDecoder::new(data);
        return tar_members(gz.take(MAX_UNPACKED_BYTES));
    }
    if data.starts_with(b"PK\x03\x04") || data.starts_with(b"PK\x05\x06") {
        return zip_members(data);
    }
    if data.starts_with(b"070701") || data.starts_with(b"070702") || data.starts_with(b"070707") {
        return cpio_members(data);
    }
    if data.get(257..262) == Some(b"ustar") || looks_like_v7_tar(data) {
        return tar_members(data);
    }
    Err("unknown or compressed archive format".into())
}

fn looks_like_v7_tar(data: &[u8]) -> bool {
    // A v7 header: a name, then octal fields; the checksum verifies.
    let Some(h) = data.get(..512) else {
        return false;
    };
    let Some(stored) = octal(&h[148..156]) else {
        return false;
    };
    let sum: u64 = h
        .iter()
        .enumerate()
        .map(|(i, &b)| {
            if (148..156).contains(&i) {
                32
            } else {
                b as u64
            }
        })
        .sum();
    h[0] != 0 && sum == stored
}

fn octal(field: &[u8]) -> Option<u64> {
    let s: String = field
        .iter()
        .take_while(|&&b| b != 0)
        .map(|&b| b as char)
        .collect();
    let s = s.trim();
    if s.is_empty() {
        return None;
    }
    u64::from_str_radix(s, 8).ok()
}

fn tar_members(r: impl Read) -> Result<Vec<Member>, String> {
    let started = Instant::now();
    let mut archive = tar::Archive::new(r);
    let entries = archive
        .entries()
        .map_err(|e| format!("unreadable tar archive: {e}"))?;
    let mut out = Vec::new();
    for e in entries {
        if out.len() >= MAX_ENTRIES || started.elapsed() > MAX_TIME {
            return Err("the archive is larger than the gate lists".into());
        }
        let e = e.map_err(|e| format!("unreadable tar archive: {e}"))?;
        let name = String::from_utf8_lossy(&e.path_bytes()).into_owned();
        let t = e.header().entry_type();
        out.push(Member {
            name,
            link: t.is_symlink() || t.is_hard_link(),
        });
    }
    Ok(out)
}

fn le16(d: &[u8], at: usize) -> Option<usize> {
    let b = d.get(at..at + 2)?;
    Some(u16::from_le_bytes([b[0], b[1]]) as usize)
}

fn le32(d: &[u8], at: usize) -> Option<usize> {
    let b = d.get(at..at + 4)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
}

/// Names from a zip's central directory (what `unzip` extracts).
fn zip_members(d: &[u8]) -> Result<Vec<Member>, String> {
    let bad = || "unreadable zip archive".to_string();
    // End of central directory: within the last 64 KiB + 22 bytes.
    let from = d.len().saturating_sub(22 + 65_535);
    let eocd = (from..d.len().saturating_sub(21))
        .rev()
        .find(|&i| d.get(i..i + 4) == Some(b"PK\x05\x06"))
        .ok_or_else(bad)?;
    let count = le16(d, eocd + 10).ok_or_else(bad)?;
    let mut at = le32(d, eocd + 16).ok_or_else(bad)?;
    if count == 0xFFFF || at == 0xFFFF_FFFF {
        return Err("zip64 archives are not listed".into());
    }
    let mut out = Vec::new();
    for _ in 0..count {
        if out.len() >= MAX_ENTRIES {
            return Err("the archive is larger than the gate lists".into());
        }
        if d.get(at..at + 4) != Some(b"PK\x01\x02") {
            return Err(bad());
        }
        let made_by = le16(d, at + 4).ok_or_else(bad)?;
        let name_len = le16(d, at + 28).ok_or_else(bad)?;
        let extra_len = le16(d, at + 30).ok_or_else(bad)?;
        let comment_len = le16(d, at + 32).ok_or_else(bad)?;
        let ext_attr = le32(d, at + 38).ok_or_else(bad)?;
        let name = d.get(at + 46..at + 46 + name_len).ok_or_else(bad)?;
        // Unix mode in the high half of the external attributes.
        let unix = made_by >> 8 == 3;
        let link = unix && (ext_attr >> 16) & 0o170000 == 0o120000;
        out.push(Member {
            name: String::from_utf8_lossy(name).into_owned(),
            link,
        });
        at += 46 + name_len + extra_len + comment_len;
    }
    Ok(out)
}

/// Names of a cpio archive (newc, crc, odc).
fn cpio_members(d: &[u8]) -> Result<Vec<Member>, String> {
    let bad = || "unreadable cpio archive".to_string();
    let mut at = 0usize;
    let mut out = Vec::new();
    loop {
        if out.len() >= MAX_ENTRIES {
            return Err("the archive is larger than the gate lists".into());
        }
        let magic = d.get(at..at + 6).ok_or_else(bad)?;
        let (mode, namesize, filesize, header, align) = if magic == b"070707" {
            let f = |o: usize, n: usize| -> Option<usize> {
                let s = std::str::from_utf8(d.get(at + o..at + o + n)?).ok()?;
                usize::from_str_radix(s, 8).ok()
            };
            (
                f(18, 6).ok_or_else(bad)?,
                f(59, 6).ok_or_else(bad)?,
                f(65, 11).ok_or_else(bad)?,
                76,
                1,
            )
        } else if magic == b"070701" || magic == b"070702" {
            let f = |o: usize| -> Option<usize> {
                let s = std::str::from_utf8(d.get(at + o..at + o + 8)?).ok()?;
                usize::from_str_radix(s, 16).ok()
            };
            (
                f(14).ok_or_else(bad)?,
                f(94).ok_or_else(bad)?,
                f(54).ok_or_else(bad)?,
                110,
                4,
            )
        } else {
            return Err(bad());
        };
        let name_start = at + header;
        let raw = d
            .get(name_start..name_start + namesize.saturating_sub(1))
            .ok_or_else(bad)?;
        let name = String::from_utf8_lossy(raw).into_owned();
        if name == "TRAILER!!!" {
            return Ok(out);
        }
        out.push(Member {
            name,
            link: mode & 0o170000 == 0o120000,
        });
        let pad = |x: usize| x.div_ceil(align) * align;
        at = pad(name_start + namesize);
        at = pad(at.checked_add(filesize).ok_or_else(bad)?);
    }
}

/// The entries below the directory `dir` (relative, `/`-separated), not
/// following links, bounded by [`MAX_ENTRIES`] and [`MAX_TIME`].
pub fn list_tree(fs: &dyn Fs, dir: &str) -> Result<Vec<String>, String> {
    let started = Instant::now();
    let mut out = Vec::new();
    let mut queue = vec![String::new()];
    while let Some(rel) = queue.pop() {
        let here = if rel.is_empty() {
            dir.to_string()
        } else {
            resolve::join_raw(dir, &rel)
        };
        let entries = fs
            .read_dir_kinds(&here)
            .map_err(|e| format!("cannot list {here}: {e}"))?;
        for (name, kind) in entries {
            if out.len() >= MAX_ENTRIES || started.elapsed() > MAX_TIME {
                return Err(format!("{dir} holds more than the gate lists"));
            }
            let r = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            if kind == FileKind::Dir {
                queue.push(r.clone());
            }
            out.push(r);
        }
    }
    Ok(out)
}

/// The paths a patch creates or changes (`diff --git a/X b/Y`, `--- X`,
/// `+++ Y`, `rename to`, `copy to`), as written in the patch.
pub fn patch_paths(fs: &dyn Fs, path: &str) -> Result<Vec<String>, String> {
    let data = read_source(fs, path)?;
    Ok(patch_paths_of(&String::from_utf8_lossy(&data)))
}

/// [`patch_paths`] of a patch held in memory.
pub fn patch_paths_of(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let clean = |s: &str| -> String {
        let s = s.split('\t').next().unwrap_or(s).trim();
        let s = s.trim_matches('"');
        s.to_string()
    };
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("diff --git ") {
            for part in rest.split(' ') {
                out.push(clean(part));
            }
        } else if let Some(rest) = line
            .strip_prefix("+++ ")
            .or_else(|| line.strip_prefix("--- "))
            .or_else(|| line.strip_prefix("rename to "))
            .or_else(|| line.strip_prefix("copy to "))
            .or_else(|| line.strip_prefix("*** "))
            .or_else(|| line.strip_prefix("Index: "))
        {
            out.push(clean(rest));
        }
    }
    out.retain(|p| !p.is_empty() && p != "/dev/null");
    out.sort();
    out.dedup();
    out
}

/// The paths of a git index file (versions 2–4).
pub fn index_paths(fs: &dyn Fs, index: &str) -> Result<Vec<String>, String> {
    let data = read_source(fs, index)?;
    index_paths_of(&data)
}

/// [`index_paths`] of an index held in memory.
pub fn index_paths_of(d: &[u8]) -> Result<Vec<String>, String> {
    Ok(shellgate_gitfmt::index::parse(d, MAX_ENTRIES)?
        .entries
        .into_iter()
        .map(|e| e.path)
        .collect())
}
