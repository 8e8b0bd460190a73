//! Paths as the kernel resolves them (SPEC §15.2, §15.11).
//!
//! A path is walked **as written**, component by component from the
//! directory it is relative to: a symbolic link is followed where it
//! stands, so a `..` after a link climbs from the link's *target*
//! (`dep/../.ssh` with `dep -> ~/cache` is `~/.ssh`). Collapsing `..`
//! lexically first (what [`shellgate_shell::paths::normalize`] does, and
//! what a human reads) loses the link. Every containment test is therefore
//! made twice ([`contained`]): the lexical path under the lexical root, and
//! the kernel path under the kernel root; both must hold. A path that
//! cannot be resolved (a loop, no permission) is outside everything. A path
//! that does not exist yet resolves through its deepest existing ancestor.
//!
//! Globs are expanded the way bash expands them ([`expand`], bounded), and
//! compared with other patterns ([`patterns_intersect`]) when a directory
//! cannot be listed.
//!
//! [`CachingFs`] answers each file-system question once per evaluation:
//! the decision wraps its [`Fs`] in one, so every layer shares the probes.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::io::{self, ErrorKind};
use std::path::PathBuf;

use crate::fs::{FileKind, Fs};

/// Links followed in one resolution before giving up (Linux's limit).
pub const MAX_LINKS: usize = 40;

/// Entries of one directory listing considered before a glob or tree walk
/// gives up (the answer is then "unknown").
pub const MAX_LISTING: usize = 10_000;

/// Matches of one glob considered before its expansion gives up.
pub const MAX_MATCHES: usize = 4_096;

/// Entries visited by a tree walk ([`tree_stays_within`]) before it gives up.
pub const MAX_TREE_ENTRIES: usize = 20_000;

/// What the kernel would find at a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kernel {
    /// The physical path (no links, no `.`/`..`); components that do not
    /// exist yet are appended as written.
    Path(String),
    /// A loop, a permission error, a relative input, anything that could not
    /// be inspected: outside every root.
    Unresolvable,
    /// Through the opening process's own view in `/proc` — its working
    /// directory (`/proc/self/cwd`) or a file descriptor (`/dev/fd/3`,
    /// `/proc/self/fd/3/x`): the kernel resolves it in the command's process,
    /// which the gate cannot look into (rt28b F1). Outside every root, and
    /// an unknown target for protected paths.
    ProcView,
}

impl Kernel {
    /// The physical path, if resolvable.
    pub fn path(&self) -> Option<&str> {
        match self {
            Kernel::Path(p) => Some(p),
            Kernel::Unresolvable | Kernel::ProcView => None,
        }
    }
}

/// Whether the walked path `out` (physical so far) names a part of a
/// process's `/proc` entry that the kernel resolves per process: `cwd`,
/// and `fd/N` below it or other than standard input, output and error
/// (`last`: `out` is the whole path). `task/T/…` the same.
fn proc_view(out: &str, last: bool) -> bool {
    let Some(rest) = out.strip_prefix("/proc/") else {
        return false;
    };
    let mut segs = rest.split('/');
    let _pid = segs.next();
    let mut next = segs.next();
    if next == Some("task") {
        let _tid = segs.next();
        next = segs.next();
    }
    match next {
        Some("cwd") => true,
        // A descriptor itself (`tee /dev/fd/3`) is what a redirect of the
        // same command opened, and that redirect is checked; a path below
        // one (`/dev/fd/3/settings.json`: a directory descriptor) is not.
        Some("fd" | "fdinfo") => match segs.next() {
            Some(n) if n.bytes().all(|b| b.is_ascii_digit()) => !last || segs.next().is_some(),
            // The target of a standard stream's link (`pipe:[…]`,
            // `socket:[…]`): what the gate's own output is.
            _ => false,
        },
        _ => false,
    }
}

/// Resolve the absolute path `path` as the kernel does. `follow_last`:
/// whether a link in the last component is followed (opening a file
/// follows it; `lstat`, `rm`, `mv` of the name itself do not). A trailing
/// `/` always follows. Components after one that does not exist are taken
/// as written (`..` among them collapses lexically).
pub fn kernel(fs: &dyn Fs, path: &str, follow_last: bool) -> Kernel {
    if !path.starts_with('/') {
        return Kernel::Unresolvable;
    }
    let Some(memo) = fs.kernel_memo(follow_last) else {
        return walk(fs, path, follow_last);
    };
    if let Some(k) = memo.borrow().get(path) {
        return k.clone();
    }
    let k = walk(fs, path, follow_last);
    memo.borrow_mut().insert(path.to_string(), k.clone());
    k
}

/// Answers of [`kernel`] kept by a file system whose answers never change.
pub type KernelMemo = RefCell<HashMap<String, Kernel, FastHash>>;

/// [`kernel`]'s walk.
fn walk(fs: &dyn Fs, path: &str, follow_last: bool) -> Kernel {
    let follow_last = follow_last || path.ends_with('/') || path.ends_with("/.");
    // Components still to walk, next one last (borrowed from the input or
    // from link targets read on the way).
    let mut targets: Vec<String> = Vec::new();
    let mut pending: Vec<(usize, usize, usize)> = Vec::new();
    push_components(&mut pending, usize::MAX, path);
    // The walked path, and where each of its components starts.
    let mut out = String::with_capacity(path.len() + 16);
    let mut starts: Vec<usize> = Vec::new();
    let mut links = 0;
    let mut missing = false;
    while let Some((src, from, to)) = pending.pop() {
        let comp: &str = if src == usize::MAX {
            &path[from..to]
        } else {
            &targets[src][from..to]
        };
        match comp {
            "." => continue,
            ".." => {
                if let Some(s) = starts.pop() {
                    out.truncate(s);
                }
                continue;
            }
            _ => {}
        }
        let start = out.len();
        out.push('/');
        out.push_str(comp);
        starts.push(start);
        if missing {
            continue;
        }
        let last = pending.iter().all(|&(s, f, t)| {
            let c = if s == usize::MAX {
                &path[f..t]
            } else {
                &targets[s][f..t]
            };
            c == "."
        });
        if out.starts_with("/proc/") && proc_view(&out, last) {
            return Kernel::ProcView;
        }
        match fs.lstat(&out) {
            Ok(FileKind::Symlink) if !last || follow_last => {
                links += 1;
                if links > MAX_LINKS {
                    return Kernel::Unresolvable;
                }
                let target = match fs.read_link(&out) {
                    Ok(t) => t,
                    Err(_) => return Kernel::Unresolvable,
                };
                let Some(target) = target.to_str() else {
                    return Kernel::Unresolvable;
                };
                if target.is_empty() {
                    return Kernel::Unresolvable;
                }
                // The link itself is not part of the path: its target
                // replaces it, from its directory (or from the root).
                starts.pop();
                out.truncate(start);
                if target.starts_with('/') {
                    out.clear();
                    starts.clear();
                }
                targets.push(target.to_string());
                let idx = targets.len() - 1;
                push_components(&mut pending, idx, &targets[idx]);
            }
            Ok(_) => {}
            // A missing component, or a file used as a directory (ENOTDIR):
            // nothing exists below it; the rest is taken as written.
            Err(e) if e.kind() == ErrorKind::NotFound || e.kind() == ErrorKind::NotADirectory => {
                missing = true;
            }
            Err(_) => return Kernel::Unresolvable,
        }
    }
    if out.is_empty() {
        out.push('/');
    }
    Kernel::Path(out)
}

/// Push the components of `text` (index `src` in the walk's targets, or
/// the input) onto `pending`, next one last.
fn push_components(pending: &mut Vec<(usize, usize, usize)>, src: usize, text: &str) {
    let at = pending.len();
    let mut from = 0;
    for (i, c) in text.char_indices() {
        if c == '/' {
            if i > from {
                pending.push((src, from, i));
            }
            from = i + 1;
        }
    }
    if text.len() > from {
        pending.push((src, from, text.len()));
    }
    pending[at..].reverse();
}

/// Join `rel` to the absolute directory `base` **as written** (no `..`
/// collapsing: that is the kernel's job). An absolute `rel` ignores `base`.
pub fn join_raw(base: &str, rel: &str) -> String {
    if rel.starts_with('/') {
        return rel.to_string();
    }
    if base.ends_with('/') {
        format!("{base}{rel}")
    } else {
        format!("{base}/{rel}")
    }
}

/// Lexical containment on a separator boundary; `ci` compares
/// case-insensitively (macOS and Windows semantics).
pub fn within(child: &str, root: &str, ci: bool) -> bool {
    if ci {
        let (c, r) = (child.to_lowercase(), root.to_lowercase());
        return shellgate_shell::paths::is_within(&c, &r);
    }
    shellgate_shell::paths::is_within(child, root)
}

/// Containment made twice (§15.11): `lexical` (normalized) lies within
/// `root` lexically, **and** the kernel resolution of `raw` (the same path
/// as written, `..` kept) lies within the kernel resolution of `root`. An
/// unresolvable side is outside. `follow`: whether a final link is
/// followed.
pub fn contained(
    fs: &dyn Fs,
    root: &str,
    lexical: &str,
    raw: &str,
    follow: bool,
    ci: bool,
) -> bool {
    if !within(lexical, root, ci) {
        return false;
    }
    match (kernel(fs, raw, follow), kernel(fs, root, true)) {
        (Kernel::Path(c), Kernel::Path(r)) => within(&c, &r, ci),
        _ => false,
    }
}

/// §5.4: some existing segment strictly below `root` down to and including
/// `child` is a symbolic link, or cannot be inspected. `child` must lie
/// within `root` (lexically, normalized); otherwise false.
pub fn link_between(fs: &dyn Fs, root: &str, child: &str) -> bool {
    crate::fs::symlink_between(fs, root, child)
}

// ----- caching ------------------------------------------------------------

type Answer<T> = Result<T, ErrorKind>;
/// Cached answers by question.
type Answers<K, T> = RefCell<HashMap<K, Answer<T>, FastHash>>;

/// A fast hasher for the per-evaluation caches (keys are paths from one
/// call, bounded in number: flooding is not a concern there).
#[derive(Default, Clone, Copy)]
pub struct Fx(u64);

impl std::hash::Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ b as u64).wrapping_mul(K);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// [`Fx`] as a `BuildHasher`.
pub type FastHash = std::hash::BuildHasherDefault<Fx>;

fn answer<T: Clone>(r: &io::Result<T>) -> Answer<T> {
    match r {
        Ok(v) => Ok(v.clone()),
        Err(e) => Err(e.kind()),
    }
}

fn replay<T: Clone>(a: &Answer<T>) -> io::Result<T> {
    match a {
        Ok(v) => Ok(v.clone()),
        Err(k) => Err(io::Error::from(*k)),
    }
}

/// An [`Fs`] that asks the one it wraps each distinct question once. Made
/// for one evaluation (the answers are never refreshed).
pub struct CachingFs<'f> {
    inner: &'f dyn Fs,
    lstat: Answers<String, FileKind>,
    stat: Answers<String, FileKind>,
    links: Answers<String, PathBuf>,
    dirs: Answers<String, Vec<(String, FileKind)>>,
    files: Answers<(String, usize), Vec<u8>>,
    /// [`kernel`] walks, following the last link and not.
    walks: [KernelMemo; 2],
}

impl<'f> CachingFs<'f> {
    /// Wrap `inner`.
    pub fn new(inner: &'f dyn Fs) -> CachingFs<'f> {
        CachingFs {
            inner,
            lstat: RefCell::default(),
            stat: RefCell::default(),
            links: RefCell::default(),
            dirs: RefCell::default(),
            files: RefCell::default(),
            walks: Default::default(),
        }
    }
}

impl std::fmt::Debug for CachingFs<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CachingFs")
    }
}

fn cached<T: Clone>(
    map: &Answers<String, T>,
    key: &str,
    ask: impl FnOnce() -> io::Result<T>,
) -> io::Result<T> {
    if let Some(a) = map.borrow().get(key) {
        return replay(a);
    }
    let r = ask();
    map.borrow_mut().insert(key.to_string(), answer(&r));
    r
}

impl Fs for CachingFs<'_> {
    fn kernel_memo(&self, follow_last: bool) -> Option<&KernelMemo> {
        Some(&self.walks[usize::from(follow_last)])
    }

    fn lstat(&self, path: &str) -> io::Result<FileKind> {
        cached(&self.lstat, path, || self.inner.lstat(path))
    }

    fn stat(&self, path: &str) -> io::Result<FileKind> {
        // A path whose `lstat` is not a link has the same `stat`, and one
        // `lstat` cannot reach fails the same way for `stat` (the same
        // lookups, before any last link is followed): only a link is asked
        // again. Most paths are asked both questions: each costs one probe.
        match self.lstat(path) {
            Ok(FileKind::Symlink) => cached(&self.stat, path, || self.inner.stat(path)),
            other => other,
        }
    }

    fn read_link(&self, path: &str) -> io::Result<PathBuf> {
        cached(&self.links, path, || self.inner.read_link(path))
    }

    fn read_dir(&self, path: &str) -> io::Result<Vec<String>> {
        Ok(self
            .read_dir_kinds(path)?
            .into_iter()
            .map(|(n, _)| n)
            .collect())
    }

    fn read_dir_kinds(&self, path: &str) -> io::Result<Vec<(String, FileKind)>> {
        cached(&self.dirs, path, || self.inner.read_dir_kinds(path))
    }

    fn read_range(&self, path: &str, offset: u64, len: usize) -> io::Result<Vec<u8>> {
        self.inner.read_range(path, offset, len)
    }

    fn read_file(&self, path: &str, max: usize) -> io::Result<Vec<u8>> {
        let key = (path.to_string(), max);
        if let Some(a) = self.files.borrow().get(&key) {
            return replay(a);
        }
        let r = self.inner.read_file(path, max);
        self.files.borrow_mut().insert(key, answer(&r));
        r
    }
}

// ----- globs --------------------------------------------------------------

/// One element of a glob segment.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Lit(char),
    Any,
    Star,
    Class {
        neg: bool,
        ranges: Vec<(char, char)>,
        named: Vec<String>,
    },
}

/// Whether a pattern segment holds an (unescaped) glob character that
/// starts a glob: `*`, `?`, or a `[` with a closing `]`.
pub fn has_glob(seg: &str) -> bool {
    tokens(seg).iter().any(|t| !matches!(t, Tok::Lit(_)))
}

/// Parse one segment of a glob pattern (backslash escapes the next
/// character; a `[` without a closing `]` is literal).
fn tokens(seg: &str) -> Vec<Tok> {
    let chars: Vec<char> = seg.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                if let Some(&n) = chars.get(i + 1) {
                    out.push(Tok::Lit(n));
                    i += 2;
                } else {
                    out.push(Tok::Lit('\\'));
                    i += 1;
                }
            }
            '*' => {
                if out.last() != Some(&Tok::Star) {
                    out.push(Tok::Star);
                }
                i += 1;
            }
            '?' => {
                out.push(Tok::Any);
                i += 1;
            }
            '[' => match class(&chars, i) {
                Some((tok, next)) => {
                    out.push(tok);
                    i = next;
                }
                None => {
                    out.push(Tok::Lit('['));
                    i += 1;
                }
            },
            _ => {
                out.push(Tok::Lit(c));
                i += 1;
            }
        }
    }
    out
}

/// A bracket expression starting at `chars[start] == '['`: the token and
/// the index after its `]`, or `None` when it does not close.
fn class(chars: &[char], start: usize) -> Option<(Tok, usize)> {
    let mut i = start + 1;
    let mut neg = false;
    if matches!(chars.get(i), Some('!') | Some('^')) {
        neg = true;
        i += 1;
    }
    let mut ranges = Vec::new();
    let mut named = Vec::new();
    let mut first = true;
    loop {
        let c = *chars.get(i)?;
        if c == ']' && !first {
            return Some((Tok::Class { neg, ranges, named }, i + 1));
        }
        first = false;
        if c == '[' && chars.get(i + 1) == Some(&':') {
            // [:alpha:]
            let rest: String = chars[i + 2..].iter().collect();
            if let Some(end) = rest.find(":]") {
                named.push(rest[..end].to_string());
                i += 2 + rest[..end].chars().count() + 2;
                continue;
            }
        }
        let lo = if c == '\\' {
            i += 1;
            *chars.get(i)?
        } else {
            c
        };
        i += 1;
        if chars.get(i) == Some(&'-') && chars.get(i + 1).is_some_and(|&n| n != ']') {
            let mut hi = *chars.get(i + 1)?;
            i += 2;
            if hi == '\\' {
                hi = *chars.get(i)?;
                i += 1;
            }
            ranges.push((lo, hi));
        } else {
            ranges.push((lo, lo));
        }
    }
}

fn named_class(name: &str, c: char) -> bool {
    match name {
        "alpha" => c.is_alphabetic(),
        "digit" => c.is_ascii_digit(),
        "alnum" => c.is_alphanumeric(),
        "upper" => c.is_uppercase(),
        "lower" => c.is_lowercase(),
        "space" | "blank" => c.is_whitespace(),
        "punct" => c.is_ascii_punctuation(),
        "xdigit" => c.is_ascii_hexdigit(),
        "word" => c.is_alphanumeric() || c == '_',
        "cntrl" => c.is_control(),
        "print" | "graph" => !c.is_control(),
        // Unknown class names: could match anything.
        _ => true,
    }
}

fn accepts(t: &Tok, c: char) -> bool {
    match t {
        Tok::Lit(l) => *l == c,
        Tok::Any | Tok::Star => true,
        Tok::Class { neg, ranges, named } => {
            let hit = ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi)
                || named.iter().any(|n| named_class(n, c));
            hit != *neg
        }
    }
}

fn lower_tokens(ts: Vec<Tok>) -> Vec<Tok> {
    ts.into_iter()
        .map(|t| match t {
            Tok::Lit(c) => Tok::Lit(c.to_lowercase().next().unwrap_or(c)),
            Tok::Class { neg, ranges, named } => {
                let mut r = ranges.clone();
                for &(lo, hi) in &ranges {
                    let (l, h) = (
                        lo.to_lowercase().next().unwrap_or(lo),
                        hi.to_lowercase().next().unwrap_or(hi),
                    );
                    if l <= h {
                        r.push((l, h));
                    }
                }
                Tok::Class {
                    neg,
                    ranges: r,
                    named,
                }
            }
            t => t,
        })
        .collect()
}

/// Whether the glob segment `pattern` matches the file name `name` as
/// bash's pathname expansion does (dotglob off: a leading `.` must be
/// matched by a literal `.`). `ci`: case-insensitive.
pub fn glob_match(pattern: &str, name: &str, ci: bool) -> bool {
    let mut toks = tokens(pattern);
    let (name, toks) = if ci {
        toks = lower_tokens(toks);
        (name.to_lowercase(), toks)
    } else {
        (name.to_string(), toks)
    };
    let chars: Vec<char> = name.chars().collect();
    if chars.first() == Some(&'.') && toks.first() != Some(&Tok::Lit('.')) {
        return false;
    }
    match_toks(&toks, &chars)
}

/// A glob segment parsed once, for matching many names.
#[derive(Debug, Clone)]
pub struct Pattern(Vec<Tok>);

impl Pattern {
    /// Parse a glob segment (see [`glob_match`] for the syntax).
    pub fn new(seg: &str) -> Pattern {
        Pattern(tokens(seg))
    }

    /// Match `name` without the leading-dot rule, case-sensitively.
    pub fn matches(&self, name: &str) -> bool {
        let chars: Vec<char> = name.chars().collect();
        match_toks(&self.0, &chars)
    }

    /// [`Pattern::matches`] on a name already split into characters.
    pub fn matches_chars(&self, name: &[char]) -> bool {
        match_toks(&self.0, name)
    }

    /// Whether the pattern ends with `*` (its last element).
    pub fn ends_with_star(&self) -> bool {
        self.0.last() == Some(&Tok::Star)
    }

    /// Whether some name matches both patterns (see
    /// [`patterns_intersect`]; case-sensitive).
    pub fn intersects(&self, other: &Pattern, dot_rule: bool) -> bool {
        if dot_rule
            && (self.0.first() == Some(&Tok::Lit('.'))) != (other.0.first() == Some(&Tok::Lit('.')))
        {
            return false;
        }
        intersect(&self.0, &other.0)
    }
}

/// Match without the leading-dot rule (git pathspecs, search filters).
pub fn glob_match_any(pattern: &str, name: &str, ci: bool) -> bool {
    let mut toks = tokens(pattern);
    if ci {
        toks = lower_tokens(toks);
        let chars: Vec<char> = name.to_lowercase().chars().collect();
        return match_toks(&toks, &chars);
    }
    let chars: Vec<char> = name.chars().collect();
    match_toks(&toks, &chars)
}

fn match_toks(toks: &[Tok], chars: &[char]) -> bool {
    // Classic backtracking on the last star (linear in practice).
    let (mut t, mut c) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while c < chars.len() {
        match toks.get(t) {
            Some(Tok::Star) => {
                star = Some((t, c));
                t += 1;
            }
            Some(tok) if accepts(tok, chars[c]) => {
                t += 1;
                c += 1;
            }
            _ => match star {
                Some((st, sc)) => {
                    t = st + 1;
                    c = sc + 1;
                    star = Some((st, sc + 1));
                }
                None => return false,
            },
        }
    }
    toks[t.min(toks.len())..].iter().all(|x| *x == Tok::Star)
}

/// Whether some name matches both glob segments `a` and `b`. `dot_rule`:
/// names starting with `.` need a literal leading `.` in both (bash's
/// pathname expansion). `ci`: case-insensitive.
pub fn patterns_intersect(a: &str, b: &str, dot_rule: bool, ci: bool) -> bool {
    let (mut ta, mut tb) = (tokens(a), tokens(b));
    if ci {
        ta = lower_tokens(ta);
        tb = lower_tokens(tb);
    }
    if dot_rule {
        // A name starting with `.` must be matched by a literal `.` in each;
        // a name not starting with `.` must not start with a literal `.`.
        let da = ta.first() == Some(&Tok::Lit('.'));
        let db = tb.first() == Some(&Tok::Lit('.'));
        if da != db {
            // One pattern only matches dot-names, the other never does
            // (unless it starts with a literal other than `.`, which
            // already excludes dot-names).
            return false;
        }
    }
    intersect(&ta, &tb)
}

fn sample_chars(t: &Tok, out: &mut Vec<char>) {
    match t {
        Tok::Lit(c) => out.push(*c),
        Tok::Class { ranges, named, .. } => {
            for &(lo, hi) in ranges {
                out.push(lo);
                out.push(hi);
            }
            if !named.is_empty() {
                out.extend(['a', 'A', '0', '_', '.', '-', ' ']);
            }
        }
        _ => {}
    }
}

fn intersect(a: &[Tok], b: &[Tok]) -> bool {
    // Search over (position in a, position in b).
    let width = b.len() + 1;
    let mut seen = vec![false; (a.len() + 1) * width];
    let mut queue = vec![(0usize, 0usize)];
    while let Some((i, j)) = queue.pop() {
        let Some(slot) = seen.get_mut(i * width + j) else {
            continue;
        };
        if *slot {
            continue;
        }
        *slot = true;
        if i == a.len() && j == b.len() {
            return true;
        }
        // Epsilon moves: a star may match nothing.
        if a.get(i) == Some(&Tok::Star) {
            queue.push((i + 1, j));
        }
        if b.get(j) == Some(&Tok::Star) {
            queue.push((i, j + 1));
        }
        let (Some(ta), Some(tb)) = (a.get(i), b.get(j)) else {
            continue;
        };
        let mut samples = Vec::new();
        sample_chars(ta, &mut samples);
        sample_chars(tb, &mut samples);
        samples.push('\u{E000}');
        samples.push('x');
        if samples.iter().any(|&c| accepts(ta, c) && accepts(tb, c)) {
            let ni = if *ta == Tok::Star { i } else { i + 1 };
            let nj = if *tb == Tok::Star { j } else { j + 1 };
            queue.push((ni, nj));
            if *ta == Tok::Star && *tb == Tok::Star {
                queue.push((i + 1, j + 1));
            }
        }
    }
    false
}

/// Remove the backslash escapes of a glob segment (its literal text).
pub fn unescape(seg: &str) -> String {
    let mut out = String::with_capacity(seg.len());
    let mut chars = seg.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some(n) => out.push(n),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Escape the glob metacharacters of a literal text.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A glob segment followed (anywhere later) by a `..` segment: the
/// operand's scope is unknown (`*/../x`, `src/*/../../y`).
pub fn glob_then_dotdot(pattern: &str) -> bool {
    let mut globbed = false;
    for seg in pattern.split('/') {
        if seg == ".." && globbed {
            return true;
        }
        if has_glob(seg) {
            globbed = true;
        }
    }
    false
}

/// The static directory of a glob pattern (absolute, escapes removed): the
/// segments before the first one that holds a glob.
pub fn static_dir(pattern: &str) -> String {
    let mut out = String::new();
    for seg in pattern.split('/').filter(|s| !s.is_empty()) {
        if has_glob(seg) {
            break;
        }
        out.push('/');
        out.push_str(&unescape(seg));
    }
    if out.is_empty() {
        out.push('/');
    }
    out
}

/// What a glob expands to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expansion {
    /// Matching paths, absolute and as written (`..` kept), with the kind
    /// of their last component as listed (a link is `Symlink`).
    pub matches: Vec<(String, FileKind)>,
    /// Every directory the pattern needed was listed within the bounds
    /// (`**` is taken at any depth, as zsh and bash's globstar do).
    pub complete: bool,
    /// Directories that could not be listed (absolute, as written).
    pub unlisted: Vec<String>,
}

/// Expand the absolute glob pattern `pattern` (quoted metacharacters
/// escaped with `\`) as bash would, within [`MAX_LISTING`] and
/// [`MAX_MATCHES`]. Static segments after a glob are appended without
/// probing (the result may hold paths that do not exist: every check here
/// is conservative in that direction).
pub fn expand(fs: &dyn Fs, pattern: &str, ci: bool) -> Expansion {
    let mut out = Expansion {
        complete: true,
        ..Expansion::default()
    };
    if !pattern.starts_with('/') {
        out.complete = false;
        return out;
    }
    let segs: Vec<&str> = pattern.split('/').filter(|s| !s.is_empty()).collect();
    let mut prefixes: Vec<(String, FileKind)> = vec![(String::new(), FileKind::Dir)];
    for (n, seg) in segs.iter().enumerate() {
        let last = n + 1 == segs.len();
        let mut next: Vec<(String, FileKind)> = Vec::new();
        if *seg == "**" {
            // bash (no globstar): like `*`; zsh and globstar: any depth.
            // Both: every non-dot entry at any depth (and, before another
            // segment, the directory itself).
            for (p, kind) in &prefixes {
                if !last {
                    next.push((p.clone(), *kind));
                }
                let mut queue = vec![p.clone()];
                while let Some(d) = queue.pop() {
                    let dir = if d.is_empty() {
                        "/".to_string()
                    } else {
                        d.clone()
                    };
                    match fs.read_dir_kinds(&dir) {
                        Ok(entries) => {
                            for (name, kind) in entries {
                                if name.starts_with('.') {
                                    continue;
                                }
                                let path = format!("{d}/{name}");
                                if kind == FileKind::Dir {
                                    queue.push(path.clone());
                                }
                                if last || matches!(kind, FileKind::Dir | FileKind::Symlink) {
                                    next.push((path, kind));
                                }
                                if next.len() > MAX_MATCHES {
                                    break;
                                }
                            }
                        }
                        Err(e)
                            if matches!(
                                e.kind(),
                                ErrorKind::NotFound | ErrorKind::NotADirectory
                            ) => {}
                        Err(_) => out.unlisted.push(dir),
                    }
                    if next.len() > MAX_MATCHES {
                        break;
                    }
                }
                if next.len() > MAX_MATCHES {
                    out.complete = false;
                    next.truncate(MAX_MATCHES);
                    break;
                }
            }
        } else if !has_glob(seg) {
            let lit = unescape(seg);
            for (p, _) in &prefixes {
                next.push((format!("{p}/{lit}"), FileKind::Other));
            }
        } else {
            for (p, _) in &prefixes {
                let dir = if p.is_empty() { "/" } else { p.as_str() };
                match fs.read_dir_kinds(dir) {
                    Ok(entries) => {
                        if entries.len() > MAX_LISTING {
                            out.complete = false;
                        }
                        for (name, kind) in entries.into_iter().take(MAX_LISTING) {
                            if !glob_match(seg, &name, ci) {
                                continue;
                            }
                            // A later segment needs a directory (or a link
                            // that may lead to one).
                            if !last && !matches!(kind, FileKind::Dir | FileKind::Symlink) {
                                continue;
                            }
                            next.push((format!("{p}/{name}"), kind));
                        }
                    }
                    // A file (or a link to one) where a directory was needed: no
                    // match through it, as bash finds none.
                    Err(e)
                        if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {}
                    Err(_) => out.unlisted.push(dir.to_string()),
                }
                if next.len() > MAX_MATCHES {
                    out.complete = false;
                    next.truncate(MAX_MATCHES);
                    break;
                }
            }
        }
        prefixes = next;
    }
    if !out.unlisted.is_empty() {
        out.complete = false;
    }
    out.matches = prefixes;
    out
}

/// Whether bash could expand the unquoted glob word `pattern` (relative
/// to the directory `dir`, quoted metacharacters escaped) to a word that
/// begins with `-` — an option the program would parse (§15.12: a file
/// named `--pre=sh` turns `rg TODO *` into `rg TODO --pre=sh …`). The
/// directory is listed (bounded); when it cannot be listed, true when the
/// pattern could match a name starting with `-`.
pub fn glob_may_inject_option(fs: &dyn Fs, pattern: &str, dir: &str) -> bool {
    if pattern.starts_with('/') {
        return false;
    }
    let mut segs = pattern.split('/');
    let first = segs.next().unwrap_or("");
    let more = segs.next().is_some();
    if !has_glob(first) {
        // A literal start: the word begins with it, as written.
        return false;
    }
    match fs.read_dir_kinds(dir) {
        Ok(entries) => {
            entries.iter().take(MAX_LISTING).any(|(n, k)| {
                n.starts_with('-')
                    && glob_match(first, n, false)
                    && (!more || matches!(k, FileKind::Dir | FileKind::Symlink))
            }) || entries.len() > MAX_LISTING && patterns_intersect(first, "-*", true, false)
        }
        Err(e) if e.kind() == ErrorKind::NotFound => false,
        Err(_) => patterns_intersect(first, "-*", true, false),
    }
}

/// Whether every symbolic link in the tree below `dir` (bounded by
/// [`MAX_TREE_ENTRIES`]) resolves inside one of `roots` (kernel paths on
/// both sides); links to directories are walked too, so a reader that
/// follows links (`grep -R`, `rg -L`, `find -L`) cannot leave the roots.
/// False when the walk cannot finish (unreadable directory, too large, a
/// link that does not resolve).
pub fn tree_stays_within(fs: &dyn Fs, dir: &str, roots: &[String], ci: bool) -> bool {
    let kroots: Vec<String> = roots
        .iter()
        .filter_map(|r| kernel(fs, r, true).path().map(str::to_string))
        .collect();
    let inside = |k: &str| kroots.iter().any(|r| within(k, r, ci));
    let Kernel::Path(start) = kernel(fs, dir, true) else {
        return false;
    };
    if !inside(&start) {
        return false;
    }
    let mut seen: HashSet<String> = HashSet::new();
    let mut queue = vec![start];
    let mut budget = MAX_TREE_ENTRIES;
    while let Some(d) = queue.pop() {
        if !seen.insert(d.clone()) {
            continue;
        }
        let entries = match fs.read_dir_kinds(&d) {
            Ok(e) => e,
            Err(e) if e.kind() == ErrorKind::NotFound || e.kind() == ErrorKind::NotADirectory => {
                continue
            }
            Err(_) => return false,
        };
        for (name, kind) in entries {
            if budget == 0 {
                return false;
            }
            budget -= 1;
            let p = if d == "/" {
                format!("/{name}")
            } else {
                format!("{d}/{name}")
            };
            match kind {
                FileKind::Dir => queue.push(p),
                FileKind::Symlink => match kernel(fs, &p, true) {
                    Kernel::Path(t) => {
                        if !inside(&t) {
                            return false;
                        }
                        if matches!(fs.stat(&t), Ok(FileKind::Dir)) {
                            queue.push(t);
                        }
                    }
                    Kernel::Unresolvable | Kernel::ProcView => return false,
                },
                _ => {}
            }
        }
    }
    true
}

#[cfg(test)]
mod tests;
