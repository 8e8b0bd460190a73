//! Whether an abbreviated object id names commits only, in the repository
//! git opens in a directory — what decides whether `git show 4c1e9a2`
//! prints a commit (its message and patch, like `git show HEAD`) or a
//! file's whole content (a blob: a secret's, if one was ever committed;
//! `git log --raw` prints the ids).
//!
//! Read as git resolves the id: refs first (a branch or tag named
//! `4c1e9a2`, or a file `.git/4c1e9a2`, is what git takes), then every
//! object whose id starts with it, loose and packed (a delta's type is its
//! base's). The answer is "commits only" when at least one object matches,
//! all of them are commits, no ref has the name, and nothing can swap the
//! object for another: no replace refs, no alternate object stores, no
//! partial clone (git would fetch what is missing), no SHA-256 or reftable
//! repository (formats not read here). Anything unread or unclear answers
//! "no", and the call asks as before. Where git finds no repository at all
//! it reads nothing: "commits only" holds vacuously.

use std::collections::BTreeMap;

use shellgate_gitfmt::objects::{self as obj, Entry, Kind};

use crate::fs::{FileKind, Fs};
use crate::repo;

/// At most this many bytes of a pack index's name table are read for one
/// leading byte (about 200,000 objects sharing it: 51 million in the pack).
const NAME_RANGE_MAX: u64 = 4 << 20;
/// Hops along a chain of deltas (git's own limit is 4095).
const DELTA_HOPS_MAX: usize = 5000;
/// A configuration file larger than this is not read.
const CONFIG_MAX: usize = 256 << 10;

/// Whether `id` (4 to 40 hex digits) names commits only in the repository
/// git opens in `cwd`.
pub fn names_only_commits(fs: &dyn Fs, cwd: &str, id: &str) -> bool {
    let Some(prefix) = obj::id_prefix(id) else {
        return false;
    };
    let Some(gitdir) = repo::git_dir(fs, cwd) else {
        // No repository: git stops before reading anything.
        return repo::no_repository(fs, cwd);
    };
    let common = common_dir(fs, &gitdir);
    let Some(common) = common else {
        return false;
    };
    if !plain_store(fs, &common) || names_a_ref(fs, &gitdir, &common, id) {
        return false;
    }
    let Some(found) = matches(fs, &format!("{common}/objects"), &prefix) else {
        return false;
    };
    !found.is_empty() && found.values().all(|k| *k == Some(Kind::Commit))
}

/// Whether the repository git opens in `cwd` is a partial clone (or its
/// config cannot be read): git fetches a missing file's content from the
/// remote when a read needs it (rt17 F8: `git show HEAD~2`, `git log -p`
/// opened connections).
pub fn partial_clone(fs: &dyn Fs, cwd: &str) -> bool {
    // The git directory whose index git reads (a `.git` the gate is not
    // sure git takes included: its config is the one to look at).
    let gitdir = repo::git_dir(fs, cwd).or_else(|| {
        repo::index_file(fs, cwd).and_then(|i| i.strip_suffix("/index").map(str::to_string))
    });
    let Some(gitdir) = gitdir else {
        return !repo::no_repository(fs, cwd);
    };
    let Some(common) = common_dir(fs, &gitdir) else {
        return true;
    };
    config_mentions(fs, &common, &["partialclone", "promisor"])
}

/// The common git directory (a linked worktree's `commondir`).
fn common_dir(fs: &dyn Fs, gitdir: &str) -> Option<String> {
    let file = format!("{gitdir}/commondir");
    match fs.lstat(&file) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(gitdir.to_string()),
        Ok(FileKind::File) => {
            let raw = fs.read_file(&file, 4096).ok()?;
            let text = std::str::from_utf8(&raw)
                .ok()?
                .trim_end_matches(['\n', '\r']);
            if text.is_empty() || text.contains('\n') {
                return None;
            }
            Some(if text.starts_with('/') {
                text.to_string()
            } else {
                format!("{gitdir}/{text}")
            })
        }
        _ => None,
    }
}

/// Whether `path` is known to be absent (an unreadable one is not).
fn absent(fs: &dyn Fs, path: &str) -> bool {
    matches!(fs.lstat(path), Err(e) if e.kind() == std::io::ErrorKind::NotFound)
}

/// Whether the repository's config files (the common `config` and a
/// worktree's own `config.worktree`, which may not set extensions but is
/// read all the same) mention any of `words` (lower case) anywhere, or
/// cannot be read: a plain text search, so a key in any section or a
/// comment counts (fail closed).
fn config_mentions(fs: &dyn Fs, common: &str, words: &[&str]) -> bool {
    ["config", "config.worktree"].iter().any(|file| {
        let path = format!("{common}/{file}");
        if absent(fs, &path) {
            return false;
        }
        match fs.read_file(&path, CONFIG_MAX) {
            Ok(raw) if raw.len() <= CONFIG_MAX => {
                let text = String::from_utf8_lossy(&raw).to_ascii_lowercase();
                words.iter().any(|w| text.contains(w))
            }
            _ => true,
        }
    })
}

/// No replace refs, alternates, partial clone, or formats not read here.
fn plain_store(fs: &dyn Fs, common: &str) -> bool {
    if !absent(fs, &format!("{common}/objects/info/alternates")) {
        return false;
    }
    match fs.read_dir(&format!("{common}/refs/replace")) {
        Ok(names) if names.is_empty() => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        _ => return false,
    }
    if config_mentions(
        fs,
        common,
        &["objectformat", "refstorage", "partialclone", "promisor"],
    ) {
        return false;
    }
    match packed_refs(fs, common) {
        Some(refs) => !refs.iter().any(|r| r.starts_with("refs/replace/")),
        None => false,
    }
}

/// The names in `packed-refs` (empty when there is none; `None`: unread).
fn packed_refs(fs: &dyn Fs, common: &str) -> Option<Vec<String>> {
    let path = format!("{common}/packed-refs");
    if absent(fs, &path) {
        return Some(Vec::new());
    }
    let raw = fs.read_file(&path, 64 << 20).ok()?;
    if raw.len() > 64 << 20 {
        return None;
    }
    let text = String::from_utf8_lossy(&raw);
    Some(
        text.lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with('^'))
            .filter_map(|l| l.split_once(' ').map(|(_, name)| name.trim().to_string()))
            .collect(),
    )
}

/// Whether git would read `id` as a ref before an object id (its rules:
/// `X`, `refs/X`, `refs/tags/X`, `refs/heads/X`, `refs/remotes/X`,
/// `refs/remotes/X/HEAD`).
fn names_a_ref(fs: &dyn Fs, gitdir: &str, common: &str, id: &str) -> bool {
    let names = [
        format!("refs/{id}"),
        format!("refs/tags/{id}"),
        format!("refs/heads/{id}"),
        format!("refs/remotes/{id}"),
        format!("refs/remotes/{id}/HEAD"),
    ];
    let dirs = [gitdir, common];
    let loose = dirs
        .iter()
        .map(|d| format!("{d}/{id}"))
        .chain(names.iter().map(|n| format!("{common}/{n}")));
    for path in loose {
        if !absent(fs, &path) {
            return true;
        }
    }
    match packed_refs(fs, common) {
        Some(refs) => refs.iter().any(|r| names.contains(r)),
        None => true,
    }
}

/// Every object whose id starts with `prefix`, with its type (`None`: not
/// understood). `None`: the store could not be read.
fn matches(fs: &dyn Fs, objects: &str, prefix: &str) -> Option<BTreeMap<String, Option<Kind>>> {
    let mut out = BTreeMap::new();
    // Loose objects: `objects/4c/1e9a2…`.
    let (dir, rest) = prefix.split_at(2);
    match fs.read_dir(&format!("{objects}/{dir}")) {
        Ok(names) => {
            for name in names.into_iter().filter(|n| n.starts_with(rest)) {
                if name.len() != 38 || !name.bytes().all(|b| b.is_ascii_hexdigit()) {
                    continue;
                }
                let kind = loose_kind(fs, &format!("{objects}/{dir}/{name}"));
                out.insert(format!("{dir}{name}"), kind);
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(_) => return None,
    }
    let pack_dir = format!("{objects}/pack");
    let names = match fs.read_dir(&pack_dir) {
        Ok(n) => n,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(_) => return None,
    };
    for idx in names.iter().filter(|n| n.ends_with(".idx")) {
        let stem = &idx[..idx.len() - 4];
        let pack = Pack {
            fs,
            idx: format!("{pack_dir}/{idx}"),
            pack: format!("{pack_dir}/{stem}.pack"),
        };
        for (id, kind) in pack.lookup(prefix)? {
            // The same object in two places is one object; a type not
            // understood in either wins.
            let e = out.entry(id).or_insert(kind);
            if kind.is_none() {
                *e = None;
            }
        }
    }
    Some(out)
}

/// The type in a loose object's header (its first bytes inflated).
fn loose_kind(fs: &dyn Fs, path: &str) -> Option<Kind> {
    let raw = fs.read_file(path, 256).ok()?;
    let mut z = flate2::Decompress::new(true);
    let mut head = [0u8; 64];
    z.decompress(&raw, &mut head, flate2::FlushDecompress::None)
        .ok()?;
    let n = usize::try_from(z.total_out()).ok()?;
    obj::loose_kind(&head[..n.min(head.len())])
}

/// One pack and its index (version 2).
struct Pack<'a> {
    fs: &'a dyn Fs,
    idx: String,
    pack: String,
}

impl Pack<'_> {
    fn read(&self, path: &str, at: u64, len: usize) -> Option<Vec<u8>> {
        let b = self.fs.read_range(path, at, len).ok()?;
        (b.len() == len).then_some(b)
    }

    /// The objects of this pack whose ids start with `prefix`, with their
    /// types. `None`: the index could not be read.
    fn lookup(&self, prefix: &str) -> Option<Vec<(String, Option<Kind>)>> {
        let head = self.read(&self.idx, 0, obj::IDX_HEAD)?;
        let fan = obj::idx_fanout(&head)?;
        let n = *fan.last()?;
        let first = u8::from_str_radix(&prefix[..2], 16).ok()?;
        let (lo, hi) = obj::idx_range(&fan, first);
        let span = u64::from(hi - lo) * obj::ID_LEN as u64;
        if span > NAME_RANGE_MAX {
            return None;
        }
        let names = self.read(&self.idx, obj::idx_name_at(lo), usize::try_from(span).ok()?)?;
        let mut out = Vec::new();
        for (k, id) in names.chunks_exact(obj::ID_LEN).enumerate() {
            if obj::id_matches(id, prefix) {
                let i = lo + u32::try_from(k).ok()?;
                out.push((obj::to_hex(id), self.kind_of(n, &fan, i)));
            }
        }
        Some(out)
    }

    /// The pack offset of index entry `i`.
    fn offset(&self, n: u32, i: u32) -> Option<u64> {
        let field = self.read(&self.idx, obj::idx_offset_at(n, i), 4)?;
        match obj::idx_offset(&field)? {
            obj::Offset::Pack(o) => Some(o),
            obj::Offset::Large(k) => {
                obj::be64(&self.read(&self.idx, obj::idx_large_at(n, k), 8)?)
            }
        }
    }

    /// The index entry of the whole id `id`, if this pack holds it.
    fn find(&self, fan: &[u32], id: &[u8]) -> Option<u32> {
        let (mut lo, mut hi) = obj::idx_range(fan, *id.first()?);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let name = self.read(&self.idx, obj::idx_name_at(mid), obj::ID_LEN)?;
            match name.as_slice().cmp(id) {
                std::cmp::Ordering::Equal => return Some(mid),
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
            }
        }
        None
    }

    /// The type of index entry `i`: a delta's is its base's, followed
    /// inside this pack.
    fn kind_of(&self, n: u32, fan: &[u32], i: u32) -> Option<Kind> {
        let mut at = self.offset(n, i)?;
        for _ in 0..DELTA_HOPS_MAX {
            let head = self.fs.read_range(&self.pack, at, obj::ENTRY_HEAD).ok()?;
            match obj::pack_entry(&head, at)? {
                Entry::Object(k) => return Some(k),
                Entry::OfsDelta(base) => at = base,
                Entry::RefDelta(id) => at = self.offset(n, self.find(fan, &id)?)?,
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::OsFs;
    use std::process::Command;

    fn git(dir: &std::path::Path, args: &[&str]) -> String {
        let out = Command::new("git")
            .args(["-c", "user.email=a@b", "-c", "user.name=a"])
            .args(args)
            .current_dir(dir)
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    }

    /// A repository with a commit, a blob whose id is known, and a tag.
    fn repo() -> (tempfile::TempDir, String, String, String) {
        let t = tempfile::tempdir().unwrap();
        let d = std::fs::canonicalize(t.path()).unwrap();
        git(&d, &["init", "-q", "."]);
        std::fs::write(d.join(".env"), "TOKEN=SECRET\n").unwrap();
        git(&d, &["add", ".env"]);
        git(&d, &["commit", "-qm", "one"]);
        let commit = git(&d, &["rev-parse", "HEAD"]);
        let blob = git(&d, &["rev-parse", "HEAD:.env"]);
        let tree = git(&d, &["rev-parse", "HEAD^{tree}"]);
        (
            t,
            d.to_str().unwrap().to_string(),
            commit,
            format!("{blob} {tree}"),
        )
    }

    #[test]
    fn loose_and_packed_objects_by_type() {
        if Command::new("git").arg("--version").output().is_err() {
            return;
        }
        let (_t, d, commit, others) = repo();
        let (blob, tree) = others.split_once(' ').unwrap();
        let fs = OsFs;
        for packed in [false, true] {
            if packed {
                git(std::path::Path::new(&d), &["gc", "-q", "--aggressive"]);
                assert!(std::fs::read_dir(format!("{d}/.git/objects/pack"))
                    .unwrap()
                    .any(|e| e.unwrap().file_name().to_string_lossy().ends_with(".idx")));
            }
            assert!(names_only_commits(&fs, &d, &commit[..7]), "packed {packed}");
            assert!(names_only_commits(&fs, &d, &commit), "packed {packed}");
            assert!(names_only_commits(&fs, &d, &commit[..7].to_uppercase()));
            assert!(!names_only_commits(&fs, &d, &blob[..7]), "packed {packed}");
            assert!(!names_only_commits(&fs, &d, &tree[..7]), "packed {packed}");
            // An id no object has.
            let none = if commit.starts_with("ffff") {
                "eeeeeee"
            } else {
                "ffffff0"
            };
            assert!(!names_only_commits(&fs, &d, none));
        }
    }

    /// Every object of a packed history with deltas (ofs- and ref-deltas)
    /// gets the type `git cat-file` reports.
    #[test]
    fn types_agree_with_git_through_deltas() {
        if Command::new("git").arg("--version").output().is_err() {
            return;
        }
        let (_t, d, _, _) = repo();
        let dir = std::path::Path::new(&d);
        let mut text = String::new();
        for i in 0..30 {
            text.push_str(&format!(
                "line {i} of a file that changes a little each time\n"
            ));
            std::fs::write(dir.join("big.txt"), text.repeat(20)).unwrap();
            git(dir, &["add", "big.txt"]);
            git(dir, &["commit", "-qm", &format!("c{i}")]);
        }
        // Offset deltas (git's default), then reference deltas.
        for ofs in ["true", "false"] {
            let setting = format!("repack.useDeltaBaseOffset={ofs}");
            git(dir, &["-c", &setting, "repack", "-adfq", "--depth=50"]);
            let listing = git(
                dir,
                &[
                    "cat-file",
                    "--batch-all-objects",
                    "--batch-check=%(objectname) %(objecttype)",
                ],
            );
            let fs = OsFs;
            let mut seen = 0;
            for line in listing.lines() {
                let (id, ty) = line.split_once(' ').unwrap();
                let want = match ty {
                    "commit" => Kind::Commit,
                    "tree" => Kind::Tree,
                    "blob" => Kind::Blob,
                    "tag" => Kind::Tag,
                    other => panic!("{other}"),
                };
                let found = matches(&fs, &format!("{d}/.git/objects"), id).unwrap();
                assert_eq!(found.get(id), Some(&Some(want)), "{line} ({setting})");
                seen += 1;
            }
            assert!(seen > 60, "{seen} objects");
            let idx = std::fs::read_dir(format!("{d}/.git/objects/pack"))
                .unwrap()
                .map(|e| e.unwrap().path())
                .find(|p| p.extension().is_some_and(|x| x == "idx"))
                .unwrap();
            let stats = git(dir, &["verify-pack", "-v", idx.to_str().unwrap()]);
            assert!(stats.contains("chain length"), "the pack holds deltas");
        }
    }

    #[test]
    fn refs_replace_and_alternates_refuse() {
        if Command::new("git").arg("--version").output().is_err() {
            return;
        }
        let (_t, d, commit, others) = repo();
        let (blob, _) = others.split_once(' ').unwrap();
        let dir = std::path::Path::new(&d);
        let fs = OsFs;
        let short = &commit[..8];
        assert!(names_only_commits(&fs, &d, short));
        // A tag named like the id points where it wants (here: the blob).
        git(dir, &["tag", short, blob]);
        assert!(!names_only_commits(&fs, &d, short));
        git(dir, &["tag", "-d", short]);
        assert!(names_only_commits(&fs, &d, short));
        git(dir, &["pack-refs", "--all"]);
        git(dir, &["branch", short]);
        git(dir, &["pack-refs", "--all"]);
        assert!(!names_only_commits(&fs, &d, short));
        git(dir, &["branch", "-D", short]);
        assert!(names_only_commits(&fs, &d, short));
        // A replace ref swaps the commit for the blob.
        git(dir, &["replace", "-f", &commit, blob]);
        assert!(!names_only_commits(&fs, &d, short));
        git(dir, &["replace", "-d", &commit]);
        assert!(names_only_commits(&fs, &d, short));
        std::fs::write(format!("{d}/.git/objects/info/alternates"), "/elsewhere\n").unwrap();
        assert!(!names_only_commits(&fs, &d, short));
    }
}
