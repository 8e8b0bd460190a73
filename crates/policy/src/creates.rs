//! What a command creates (SPEC §15.18, §15.20 "created names come from
//! the source"): the names a copy, move, link, extraction, patch or
//! checkout makes, read from the source itself — an archive's member list,
//! a source tree, a patch's file headers, a git index — bounded in size and
//! time. [`crate::protected::Protected::creates_protected`] judges them.
//!
//! [`plan`] reads the argv of the common creators (`ln mv cp install rsync
//! scp tar bsdtar unzip cpio 7z gunzip… patch`, `git apply|am|mv|checkout|
//! restore`) into [`Creation`]s; a program model that knows operand roles
//! can build them itself and call `creates_protected` directly.

use std::io::Read;
use std::time::{Duration, Instant};

use shellgate_shell::analyze::Invocation;
use shellgate_shell::paths;
use shellgate_shell::syntax::RedirTarget;

use crate::fs::{FileKind, Fs};
use crate::resolve::{self, Kernel};

/// Largest archive, patch or index read (bytes).
pub const MAX_SOURCE_BYTES: usize = 32 << 20;
/// Largest decompressed stream read from a compressed tar (bytes).
pub const MAX_UNPACKED_BYTES: u64 = 512 << 20;
/// Members or entries listed before giving up.
pub const MAX_ENTRIES: usize = 100_000;
/// Time spent listing one source before giving up.
pub const MAX_TIME: Duration = Duration::from_secs(2);

/// How a command creates names at a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CreateKind {
    /// The target name itself (`ln -s X target`, `mv a target`, `install`).
    Name,
    /// Every entry of the source directory, below the target (`cp -r`,
    /// `rsync -a`, `mv dir`, `scp -r`, `git mv`).
    Tree,
    /// Every member of the source archive, below the target directory
    /// (`tar -x`, `bsdtar -x`, `unzip`, `cpio -i`, `7z x`); absolute
    /// members are also taken as written.
    Archive,
    /// Every file a patch creates or modifies, below the target directory
    /// (`git apply`, `git am`, `patch`), with 0 and 1 leading components
    /// stripped.
    Patch,
    /// Every path of the git index (source: the index file) that lies
    /// within the target (a pathspec of `git checkout|restore`).
    GitIndex,
}

/// One creation: `kind` of `source` at `target` (absolute, lexical).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Creation {
    /// The source, absolute as written (`None`: unknown — standard input
    /// from a pipe, a remote host).
    pub source: Option<String>,
    pub target: String,
    pub kind: CreateKind,
    /// The source's text when the command carries it (a patch in a
    /// heredoc or here-string): judged instead of `source`.
    pub text: Option<String>,
}

/// The verdict on what a creation makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Nothing created lands on a protected path.
    Clear,
    /// This created path is protected (deny `protected_path`).
    Protected(String),
    /// This created path is one of git's code-bearing internals
    /// ([`crate::repo::is_git_internal`]): complex, never granted.
    GitInternal(String),
    /// What it creates cannot be known within the bounds (why).
    Unknown(String),
}

/// An entry of an archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The member name as stored.
    pub name: String,
    /// A symbolic (or hard) link member.
    pub link: bool,
}

// ----- sources ------------------------------------------------------------

fn read_source(fs: &dyn Fs, path: &str) -> Result<Vec<u8>, String> {
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
    let bad = || "unreadable git index".to_string();
    if d.get(..4) != Some(b"DIRC") {
        return Err(bad());
    }
    let be32 = |at: usize| -> Option<usize> {
        let b = d.get(at..at + 4)?;
        Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    let version = be32(4).ok_or_else(bad)?;
    let count = be32(8).ok_or_else(bad)?;
    if !(2..=4).contains(&version) {
        return Err(bad());
    }
    if count > MAX_ENTRIES {
        return Err("the index is larger than the gate lists".into());
    }
    let mut at = 12usize;
    let mut out: Vec<String> = Vec::with_capacity(count);
    let mut prev: Vec<u8> = Vec::new();
    for _ in 0..count {
        let start = at;
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
            let end = d[i.min(d.len())..]
                .iter()
                .position(|&b| b == 0)
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
        out.push(String::from_utf8_lossy(&name).into_owned());
        prev = name;
    }
    Ok(out)
}

// ----- argv ---------------------------------------------------------------

/// The words of an argv as the program sees them (dynamic ones lossily).
fn words(inv: &Invocation) -> Vec<String> {
    inv.argv
        .iter()
        .map(|w| w.literal().unwrap_or_else(|| w.lossy_value()))
        .collect()
}

/// Options and positionals of a GNU-style argv: `short` and `long` name the
/// options that take a value (a separate word, glued, or after `=`).
struct Parsed {
    positionals: Vec<String>,
    opts: Vec<(String, Option<String>)>,
}

impl Parsed {
    fn has(&self, names: &[&str]) -> bool {
        self.opts.iter().any(|(n, _)| names.contains(&n.as_str()))
    }

    fn value(&self, names: &[&str]) -> Option<&str> {
        self.opts
            .iter()
            .rev()
            .find(|(n, v)| names.contains(&n.as_str()) && v.is_some())
            .and_then(|(_, v)| v.as_deref())
    }
}

fn parse(args: &[String], short: &str, long: &[&str]) -> Parsed {
    let mut p = Parsed {
        positionals: Vec::new(),
        opts: Vec::new(),
    };
    let mut i = 0;
    let mut dashdash = false;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if dashdash || a == "-" || !a.starts_with('-') {
            p.positionals.push(a.clone());
            continue;
        }
        if a == "--" {
            dashdash = true;
            continue;
        }
        if let Some(l) = a.strip_prefix("--") {
            let (name, val) = match l.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (l, None),
            };
            // Unambiguous prefixes of a value-taking option count as it.
            let full = long
                .iter()
                .find(|o| **o == name)
                .or_else(|| {
                    let m: Vec<&&str> = long.iter().filter(|o| o.starts_with(name)).collect();
                    (m.len() == 1 && name.len() >= 3).then(|| m[0])
                })
                .map(|s| s.to_string());
            match (full, val) {
                (Some(f), Some(v)) => p.opts.push((format!("--{f}"), Some(v))),
                (Some(f), None) => {
                    let v = args.get(i).cloned();
                    i += 1;
                    p.opts.push((format!("--{f}"), v));
                }
                (None, v) => p.opts.push((format!("--{name}"), v)),
            }
            continue;
        }
        // A short cluster.
        let chars: Vec<char> = a[1..].chars().collect();
        let mut k = 0;
        while k < chars.len() {
            let c = chars[k];
            k += 1;
            if short.contains(c) {
                let glued: String = chars[k..].iter().collect();
                let v = if glued.is_empty() {
                    let v = args.get(i).cloned();
                    i += 1;
                    v
                } else {
                    Some(glued)
                };
                p.opts.push((format!("-{c}"), v));
                break;
            }
            p.opts.push((format!("-{c}"), None));
        }
    }
    p
}

fn abs(cwd: &str, w: &str) -> String {
    resolve::join_raw(cwd, w)
}

fn lex(cwd: &str, w: &str) -> String {
    paths::resolve(cwd, w)
}

/// A remote operand (`host:path`, `user@host:path`, `host::module`,
/// `rsync://…`): nothing local.
fn remote(w: &str) -> bool {
    if w.contains("://") {
        return true;
    }
    match (w.find(':'), w.find('/')) {
        (Some(c), Some(s)) => c > 0 && c < s,
        (Some(c), None) => c > 0,
        _ => false,
    }
}

fn is_dir(fs: &dyn Fs, path: &str) -> bool {
    matches!(
        resolve::kernel(fs, path, true).path().map(|k| fs.stat(k)),
        Some(Ok(FileKind::Dir))
    )
}

/// Standard input of the command, when it is a file redirect (`< f`).
fn stdin_file(inv: &Invocation, cwd: &str) -> Option<String> {
    inv.redirects.iter().rev().find_map(|r| {
        if r.kind.writes() {
            return None;
        }
        match &r.target {
            RedirTarget::File(w) => w.literal().map(|v| abs(cwd, &v)),
            _ => None,
        }
    })
}

/// The text standard input carries when it is a static heredoc or
/// here-string (a patch given inline).
fn stdin_text(inv: &Invocation) -> Option<String> {
    inv.redirects.iter().rev().find_map(|r| match &r.target {
        RedirTarget::HereDoc { body, expands } => {
            if *expands && body.is_dynamic() {
                None
            } else {
                Some(body.literal().unwrap_or_else(|| body.raw.clone()))
            }
        }
        RedirTarget::HereString(w) => w.literal(),
        _ => None,
    })
}

/// Copies, moves and links: created names and the trees they carry.
fn copy_like(
    fs: &dyn Fs,
    cwd: &str,
    p: &Parsed,
    recursive: bool,
    link: bool,
    out: &mut Vec<Creation>,
) {
    let srcs: Vec<&String>;
    let dest: String;
    let into: bool;
    if let Some(t) = p.value(&["-t", "--target-directory"]) {
        srcs = p.positionals.iter().collect();
        dest = lex(cwd, t);
        into = true;
    } else if p.positionals.len() == 1 && link {
        // `ln -s TARGET`: a link named like the target, here.
        srcs = p.positionals.iter().collect();
        dest = cwd.to_string();
        into = true;
    } else if p.positionals.len() >= 2 {
        let (last, rest) = match p.positionals.split_last() {
            Some(x) => x,
            None => return,
        };
        srcs = rest.iter().collect();
        dest = lex(cwd, last);
        let no_target_dir = p.has(&["-T", "--no-target-directory"]);
        into = !no_target_dir && (srcs.len() > 1 || is_dir(fs, &dest));
    } else {
        return;
    }
    for s in srcs {
        let base = paths::basename(s);
        let target = if into && base != "." && !base.is_empty() {
            paths::normalize(&format!("{dest}/{base}"))
        } else {
            dest.clone()
        };
        out.push(Creation {
            source: Some(abs(cwd, s)),
            target: target.clone(),
            kind: CreateKind::Name,
            text: None,
        });
        if recursive && !link {
            out.push(Creation {
                source: Some(abs(cwd, s)),
                target,
                kind: CreateKind::Tree,
                text: None,
            });
        }
    }
}

/// What the invocation creates, read from its argv (`cwd`: its effective
/// directory).
pub fn plan(fs: &dyn Fs, inv: &Invocation) -> Vec<Creation> {
    let Some(cwd) = inv.cwd.as_deref() else {
        return Vec::new();
    };
    const CREATORS: &[&str] = &[
        "ln",
        "link",
        "mv",
        "cp",
        "install",
        "rsync",
        "scp",
        "tar",
        "bsdtar",
        "gtar",
        "unzip",
        "cpio",
        "7z",
        "7za",
        "7zz",
        "7zr",
        "gunzip",
        "gzip",
        "bunzip2",
        "bzip2",
        "unxz",
        "xz",
        "unzstd",
        "zstd",
        "lz4",
        "uncompress",
        "unlzma",
        "lzma",
        "patch",
        "git",
    ];
    if !CREATORS.contains(&inv.base().as_str()) {
        return Vec::new();
    }
    let w = words(inv);
    let Some(first) = w.first() else {
        return Vec::new();
    };
    let base = paths::basename(first).to_ascii_lowercase();
    let args = &w[1..];
    let mut out = Vec::new();
    match base.as_str() {
        "ln" | "link" => {
            let p = parse(args, "tS", &["target-directory", "suffix"]);
            copy_like(fs, cwd, &p, false, true, &mut out);
        }
        "mv" => {
            let p = parse(args, "tS", &["target-directory", "suffix"]);
            copy_like(fs, cwd, &p, true, false, &mut out);
        }
        "cp" => {
            let p = parse(args, "tS", &["target-directory", "suffix"]);
            let r = p.has(&["-r", "-R", "-a", "--recursive", "--archive"]);
            copy_like(fs, cwd, &p, r, false, &mut out);
        }
        "install" => {
            let p = parse(
                args,
                "tSmogC",
                &[
                    "target-directory",
                    "suffix",
                    "mode",
                    "owner",
                    "group",
                    "strip-program",
                ],
            );
            if p.has(&["-d", "--directory"]) {
                for d in &p.positionals {
                    out.push(Creation {
                        source: None,
                        target: lex(cwd, d),
                        kind: CreateKind::Name,
                        text: None,
                    });
                }
            } else {
                copy_like(fs, cwd, &p, false, false, &mut out);
            }
        }
        "rsync" | "scp" => {
            let p = if base == "rsync" {
                parse(
                    args,
                    "efTBM",
                    &[
                        "rsh",
                        "rsync-path",
                        "filter",
                        "exclude",
                        "include",
                        "exclude-from",
                        "include-from",
                        "files-from",
                        "temp-dir",
                        "partial-dir",
                        "backup-dir",
                        "suffix",
                        "log-file",
                        "password-file",
                        "chmod",
                        "chown",
                        "usermap",
                        "groupmap",
                        "timeout",
                        "contimeout",
                        "port",
                        "bwlimit",
                        "max-size",
                        "min-size",
                        "compress-level",
                        "skip-compress",
                        "out-format",
                        "info",
                        "debug",
                        "modify-window",
                        "link-dest",
                        "copy-dest",
                        "compare-dest",
                        "remote-option",
                        "sockopts",
                        "max-delete",
                        "block-size",
                        "checksum-choice",
                        "compress-choice",
                        "log-file-format",
                        "write-batch",
                        "read-batch",
                        "only-write-batch",
                        "protocol",
                        "iconv",
                        "address",
                        "outbuf",
                        "stop-after",
                        "stop-at",
                        "mkpath",
                    ],
                )
            } else {
                parse(args, "cFiJloPSDX", &[])
            };
            let recursive = p.has(&["-r", "-a", "--recursive", "--archive"]);
            let Some((last, srcs)) = p.positionals.split_last() else {
                return out;
            };
            if srcs.is_empty() || remote(last) {
                return out;
            }
            let dest = lex(cwd, last);
            let dest_dir = is_dir(fs, &dest);
            for s in srcs {
                if remote(s) {
                    out.push(Creation {
                        source: None,
                        target: dest.clone(),
                        kind: CreateKind::Tree,
                        text: None,
                    });
                    continue;
                }
                let src = abs(cwd, s);
                let contents = s.ends_with('/') || s.ends_with("/.");
                let src_dir = is_dir(fs, &src);
                let target = if contents && src_dir {
                    dest.clone()
                } else if (src_dir && recursive) || dest_dir || srcs.len() > 1 {
                    paths::normalize(&format!("{dest}/{}", paths::basename(s)))
                } else {
                    dest.clone()
                };
                out.push(Creation {
                    source: Some(src.clone()),
                    target: target.clone(),
                    kind: CreateKind::Name,
                    text: None,
                });
                if recursive {
                    out.push(Creation {
                        source: Some(src),
                        target,
                        kind: CreateKind::Tree,
                        text: None,
                    });
                }
            }
        }
        "tar" | "bsdtar" | "gtar" => {
            // Old style: the first word is a bundle of letters (`xzf a.tgz`).
            let mut a: Vec<String> = args.to_vec();
            if let Some(f) = a.first_mut() {
                if !f.starts_with('-') && f.chars().all(|c| c.is_ascii_alphabetic()) {
                    *f = format!("-{f}");
                }
            }
            let p = parse(
                &a,
                "fCTXbFgKLNVHI",
                &[
                    "file",
                    "directory",
                    "files-from",
                    "exclude-from",
                    "exclude",
                    "use-compress-program",
                    "transform",
                    "xform",
                    "owner",
                    "group",
                    "mode",
                    "mtime",
                    "newer",
                    "after-date",
                    "label",
                    "format",
                    "blocking-factor",
                    "to-command",
                    "rsh-command",
                    "info-script",
                    "new-volume-script",
                    "suffix",
                    "strip-components",
                    "index-file",
                    "listed-incremental",
                ],
            );
            let extract = p.has(&["-x", "--extract", "--get"]);
            if !extract {
                return out;
            }
            // The analysis made `-C DIR` the effective directory, but tar
            // opens its archive from where it started: undo a plain
            // relative `-C`, give up on any other.
            let opened_from = match p.value(&["-C", "--directory"]) {
                None => Some(cwd.to_string()),
                Some(d) if d.starts_with('/') || d.split('/').any(|s| s == "..") => None,
                Some(d) => {
                    let rel = paths::normalize(&format!("/{d}"));
                    if rel == "/" {
                        Some(cwd.to_string())
                    } else {
                        cwd.strip_suffix(rel.as_str()).map(|o| {
                            if o.is_empty() {
                                "/".to_string()
                            } else {
                                o.to_string()
                            }
                        })
                    }
                }
            };
            let source = match p.value(&["-f", "--file"]) {
                // The shell opened the redirect where tar started, too.
                Some("-") | None => opened_from.as_deref().and_then(|o| stdin_file(inv, o)),
                Some(f) if remote(f) => None,
                Some(f) if f.starts_with('/') => Some(f.to_string()),
                Some(f) => opened_from.map(|o| abs(&o, f)),
            };
            let renamed = p.has(&["--transform", "--xform", "--strip-components"]);
            out.push(Creation {
                source: if renamed { None } else { source },
                target: cwd.to_string(),
                kind: CreateKind::Archive,
                text: None,
            });
        }
        "unzip" => {
            let p = parse(args, "dxPIO", &[]);
            if p.has(&["-l", "-v", "-t", "-Z", "-p", "-c", "-z"]) {
                return out;
            }
            let Some(archive) = p.positionals.first() else {
                return out;
            };
            let target = p.value(&["-d"]).map_or(cwd.to_string(), |d| lex(cwd, d));
            out.push(Creation {
                source: Some(abs(cwd, archive)),
                target,
                kind: CreateKind::Archive,
                text: None,
            });
        }
        "cpio" => {
            let p = parse(
                args,
                "FEHMORIDC",
                &["file", "pattern-file", "format", "directory", "owner"],
            );
            if !p.has(&["-i", "--extract"]) {
                return out;
            }
            let source = match p.value(&["-F", "-I", "--file"]) {
                Some(f) => Some(abs(cwd, f)),
                None => stdin_file(inv, cwd),
            };
            let target = p
                .value(&["-D", "--directory"])
                .map_or(cwd.to_string(), |d| lex(cwd, d));
            out.push(Creation {
                source,
                target,
                kind: CreateKind::Archive,
                text: None,
            });
        }
        "7z" | "7za" | "7zz" | "7zr" => {
            let mut it = args.iter().filter(|a| !a.starts_with('-'));
            let cmd = it.next().map(String::as_str);
            if !matches!(cmd, Some("x") | Some("e")) {
                return out;
            }
            let archive = it.next();
            let target = args
                .iter()
                .find_map(|a| a.strip_prefix("-o"))
                .map_or(cwd.to_string(), |d| lex(cwd, d));
            out.push(Creation {
                source: archive.map(|a| abs(cwd, a)),
                target,
                kind: CreateKind::Archive,
                text: None,
            });
        }
        "gunzip" | "gzip" | "bunzip2" | "bzip2" | "unxz" | "xz" | "unzstd" | "zstd" | "lz4"
        | "uncompress" | "unlzma" | "lzma" => {
            let p = parse(args, "bSTL", &["suffix", "threads", "memlimit"]);
            let decompress = base.starts_with("un")
                || base == "gunzip"
                || base == "bunzip2"
                || p.has(&["-d", "--decompress", "--uncompress"]);
            if !decompress || p.has(&["-c", "--stdout", "--to-stdout", "-t", "-l"]) {
                return out;
            }
            for f in &p.positionals {
                let l = lex(cwd, f);
                for suffix in [".gz", ".bz2", ".xz", ".zst", ".lz4", ".z", ".lzma", ".Z"] {
                    if let Some(stem) = l.strip_suffix(suffix) {
                        out.push(Creation {
                            source: None,
                            target: stem.to_string(),
                            kind: CreateKind::Name,
                            text: None,
                        });
                    }
                }
            }
        }
        "patch" => {
            let p = parse(
                args,
                "iodpBDFrVYzgx",
                &[
                    "input",
                    "output",
                    "directory",
                    "strip",
                    "prefix",
                    "basename-prefix",
                    "reject-file",
                    "suffix",
                    "fuzz",
                    "get",
                    "quoting-style",
                    "version-control",
                    "ifdef",
                    "debug",
                ],
            );
            let dir = p
                .value(&["-d", "--directory"])
                .map_or(cwd.to_string(), |d| lex(cwd, d));
            if let Some(o) = p.value(&["-o", "--output"]) {
                if o != "-" {
                    out.push(Creation {
                        source: None,
                        target: lex(&dir, o),
                        kind: CreateKind::Name,
                        text: None,
                    });
                }
            }
            let patchfile = p
                .value(&["-i", "--input"])
                .map(|f| abs(cwd, f))
                .or_else(|| p.positionals.get(1).map(|f| abs(cwd, f)))
                .or_else(|| stdin_file(inv, cwd));
            if let Some(orig) = p.positionals.first() {
                out.push(Creation {
                    source: None,
                    target: lex(&dir, orig),
                    kind: CreateKind::Name,
                    text: None,
                });
            } else {
                let text = if patchfile.is_none() {
                    stdin_text(inv)
                } else {
                    None
                };
                out.push(Creation {
                    source: patchfile,
                    target: dir,
                    kind: CreateKind::Patch,
                    text,
                });
            }
        }
        "git" => git_plan(fs, inv, cwd, &w, &mut out),
        _ => {}
    }
    out
}

fn git_plan(fs: &dyn Fs, inv: &Invocation, cwd: &str, w: &[String], out: &mut Vec<Creation>) {
    let skip = shellgate_shell::verbs::git_skip_globals(&inv.argv, 1);
    let Some(sub) = w.get(skip) else {
        return;
    };
    let args = &w[skip + 1..];
    match sub.as_str() {
        "apply" | "am" => {
            let p = parse(
                args,
                "pC",
                &[
                    "directory",
                    "exclude",
                    "include",
                    "whitespace",
                    "build-fake-ancestor",
                ],
            );
            if p.has(&["--check", "--stat", "--numstat", "--summary", "--cached"])
                && !p.has(&["--apply", "--index"])
            {
                return;
            }
            let dir = p
                .value(&["--directory"])
                .map_or(cwd.to_string(), |d| lex(cwd, d));
            let files: Vec<String> = if p.positionals.is_empty() {
                stdin_file(inv, cwd).into_iter().collect()
            } else {
                p.positionals.iter().map(|f| abs(cwd, f)).collect()
            };
            if files.is_empty() {
                out.push(Creation {
                    source: None,
                    target: dir.clone(),
                    kind: CreateKind::Patch,
                    text: stdin_text(inv),
                });
            }
            for f in files {
                out.push(Creation {
                    source: Some(f),
                    target: dir.clone(),
                    kind: CreateKind::Patch,
                    text: None,
                });
            }
        }
        "mv" => {
            let p = parse(args, "", &[]);
            copy_like(fs, cwd, &p, true, false, out);
        }
        "checkout" | "restore" => {
            let p = parse(
                args,
                "sbBU",
                &[
                    "source",
                    "conflict",
                    "pathspec-from-file",
                    "inter-hunk-context",
                ],
            );
            if sub == "restore" && p.has(&["--staged", "-S"]) && !p.has(&["--worktree", "-W"]) {
                return;
            }
            if p.has(&["--pathspec-from-file"]) {
                out.push(Creation {
                    source: None,
                    target: cwd.to_string(),
                    kind: CreateKind::GitIndex,
                    text: None,
                });
                return;
            }
            // Paths: after `--`, or (checkout) the words naming existing
            // paths; (restore) every positional.
            let dashdash = args.iter().position(|a| a == "--");
            let specs: Vec<&String> = match dashdash {
                Some(i) => args[i + 1..].iter().collect(),
                None if sub == "restore" => p.positionals.iter().collect(),
                None => p
                    .positionals
                    .iter()
                    .filter(|s| {
                        resolve::kernel(fs, &abs(cwd, s), false)
                            .path()
                            .is_some_and(|k| fs.lstat(k).is_ok())
                    })
                    .collect(),
            };
            let index = crate::repo::index_file(fs, cwd);
            for s in specs {
                out.push(Creation {
                    source: None,
                    target: lex(cwd, s),
                    kind: CreateKind::Name,
                    text: None,
                });
                out.push(Creation {
                    source: index.clone(),
                    target: lex(cwd, s),
                    kind: CreateKind::GitIndex,
                    text: None,
                });
            }
        }
        _ => {}
    }
}

/// The kernel path of `path` when it exists (links followed), for reading
/// a source.
pub fn existing(fs: &dyn Fs, path: &str) -> Option<String> {
    match resolve::kernel(fs, path, true) {
        Kernel::Path(k) if fs.stat(&k).is_ok() => Some(k),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
