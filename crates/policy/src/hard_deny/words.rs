//! Arguments as the program receives them, and a getopt_long reader for the
//! programs the program model has no spec for.
//!
//! A shell word becomes one or more [`XArg`]s: brace expansion (`{a,b}`,
//! `{1..3}`) splits it, `~`/`$HOME` become the home directory, and the
//! glob metacharacters that are really unquoted are remembered (a quoted
//! `'*'` is a file name, an unquoted one a pattern). A word with a piece only
//! known at run time keeps its static prefix and suffix.

use shellgate_programs::Arg;
use shellgate_shell::word::{Seg, Word};

/// One argument as the program would receive it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct XArg {
    /// The whole value, when fully known.
    pub value: Option<String>,
    /// Static text before the first dynamic piece (the whole value when
    /// static).
    pub prefix: String,
    /// Static text after the last dynamic piece (empty when static).
    pub tail: String,
    /// Byte offsets of unquoted glob metacharacters in `value` (or in
    /// `prefix` when dynamic).
    pub metas: Vec<usize>,
    /// Byte offsets of unquoted glob metacharacters in `tail`.
    pub tail_metas: Vec<usize>,
    /// The source text (for messages).
    pub raw: String,
}

impl XArg {
    /// A static argument without glob characters.
    pub fn lit(s: &str) -> XArg {
        XArg {
            value: Some(s.to_string()),
            prefix: s.to_string(),
            tail: String::new(),
            metas: Vec::new(),
            tail_metas: Vec::new(),
            raw: s.to_string(),
        }
    }

    /// A static argument whose unquoted `*`, `?`, `[…]` are glob
    /// metacharacters (as an unquoted word would have them).
    #[cfg(test)]
    pub fn glob(s: &str) -> XArg {
        let mut a = XArg::lit(s);
        a.metas = metas_of(s);
        a
    }

    /// The value, or the static prefix of a dynamic argument.
    pub fn text(&self) -> &str {
        self.value.as_deref().unwrap_or(&self.prefix)
    }

    /// Fully known.
    pub fn is_static(&self) -> bool {
        self.value.is_some()
    }

    /// As the program model reads it.
    pub fn arg(&self) -> Arg<'_> {
        match &self.value {
            Some(v) => Arg::Static(v),
            None => Arg::Dynamic {
                prefix: &self.prefix,
            },
        }
    }

    /// The part of the argument from byte `offset` on (a glued option
    /// value such as `-oFILE` or `of=FILE`).
    pub fn value_from(&self, offset: usize) -> XArg {
        let cut = |s: &str| s.get(offset..).unwrap_or("").to_string();
        let shift = |m: &[usize]| -> Vec<usize> {
            m.iter()
                .filter(|&&i| i >= offset)
                .map(|&i| i - offset)
                .collect()
        };
        XArg {
            value: self.value.as_deref().map(cut),
            prefix: cut(&self.prefix),
            tail: self.tail.clone(),
            metas: shift(&self.metas),
            tail_metas: self.tail_metas.clone(),
            raw: self.raw.clone(),
        }
    }
}

/// Unquoted glob metacharacter offsets of a plain string.
#[cfg(test)]
pub(crate) fn metas_of(s: &str) -> Vec<usize> {
    let toks: Vec<Tok> = s.chars().map(|c| Tok::C(c, false)).collect();
    build(&toks, s).metas
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    /// A character; `true` when quoted or escaped.
    C(char, bool),
    /// A piece only known at run time.
    Dyn,
}

/// At most this many words come out of one brace expansion; beyond it the
/// word is read as unknown (dynamic).
const MAX_EXPANSIONS: usize = 256;

/// At most this many brace groups in one word are expanded.
const MAX_BRACE_GROUPS: usize = 16;

/// The arguments one shell word becomes.
pub(crate) fn expand(w: &Word, home: &str) -> Vec<XArg> {
    if w.unparsed || w.proc_subst {
        return vec![dynamic(&w.raw)];
    }
    let mut toks = Vec::new();
    let mut segs: &[Seg] = &w.segs;
    if let (Some(Seg::Dynamic), Some(dir)) = (segs.first(), tilde_user(&w.raw, home)) {
        // `~root`, `~user`: the user's home directory.
        toks.extend(dir.chars().map(|c| Tok::C(c, true)));
        segs = &segs[1..];
    }
    for s in segs {
        match s {
            Seg::Lit { text, quoted } => toks.extend(text.chars().map(|c| Tok::C(c, *quoted))),
            Seg::Home => toks.extend(home.chars().map(|c| Tok::C(c, true))),
            Seg::Dynamic => toks.push(Tok::Dyn),
        }
    }
    if !w.brace {
        return vec![build(&toks, &w.raw)];
    }
    // Each brace group is one level of expansion: a word with more groups
    // than any real command has is read as unknown (bounded work).
    if toks.iter().filter(|t| **t == Tok::C('{', false)).count() > MAX_BRACE_GROUPS {
        return vec![dynamic(&w.raw)];
    }
    let mut out = Vec::new();
    let mut too_many = false;
    brace(toks, &mut out, &mut too_many);
    if too_many {
        return vec![dynamic(&w.raw)];
    }
    out.into_iter()
        .map(|mut t| {
            // Tilde expansion follows brace expansion.
            if t.first() == Some(&Tok::C('~', false))
                && matches!(t.get(1), None | Some(Tok::C('/', _)))
            {
                t.splice(0..1, home.chars().map(|c| Tok::C(c, true)));
            }
            build(&t, &w.raw)
        })
        .collect()
}

/// The directory `~NAME` names when a word starts with it: `/root` for
/// root, the home for its own user, a sibling of the home otherwise.
fn tilde_user(raw: &str, home: &str) -> Option<String> {
    let rest = raw.strip_prefix('~')?;
    let end = rest.find('/').unwrap_or(rest.len());
    let name = &rest[..end];
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
    {
        return None;
    }
    let home = shellgate_shell::paths::normalize(home);
    Some(if name == "root" {
        "/root".to_string()
    } else if shellgate_shell::paths::basename(&home) == name {
        home
    } else {
        format!("{}/{name}", shellgate_shell::paths::parent(&home))
    })
}

/// Every argument of an argv, brace expansion applied.
pub(crate) fn expand_all(words: &[Word], home: &str) -> Vec<XArg> {
    let mut out = Vec::new();
    for w in words {
        out.extend(expand(w, home));
    }
    out
}

fn dynamic(raw: &str) -> XArg {
    XArg {
        value: None,
        prefix: String::new(),
        tail: String::new(),
        metas: Vec::new(),
        tail_metas: Vec::new(),
        raw: raw.to_string(),
    }
}

fn build(toks: &[Tok], raw: &str) -> XArg {
    let first_dyn = toks.iter().position(|t| *t == Tok::Dyn);
    let last_dyn = toks.iter().rposition(|t| *t == Tok::Dyn);
    let text = |ts: &[Tok]| -> (String, Vec<usize>) {
        let mut s = String::new();
        let mut m = Vec::new();
        for (i, t) in ts.iter().enumerate() {
            if let Tok::C(c, quoted) = *t {
                let unquoted_meta = !quoted
                    && (c == '*'
                        || c == '?'
                        || (c == '['
                            && ts[i + 1..].iter().any(|t| matches!(t, Tok::C(']', false)))));
                if unquoted_meta {
                    m.push(s.len());
                }
                s.push(c);
            }
        }
        (s, m)
    };
    match (first_dyn, last_dyn) {
        (Some(f), Some(l)) => {
            let (prefix, metas) = text(&toks[..f]);
            let (tail, tail_metas) = text(&toks[l + 1..]);
            XArg {
                value: None,
                prefix,
                tail,
                metas,
                tail_metas,
                raw: raw.to_string(),
            }
        }
        _ => {
            let (value, metas) = text(toks);
            XArg {
                value: Some(value.clone()),
                prefix: value,
                tail: String::new(),
                metas,
                tail_metas: Vec::new(),
                raw: raw.to_string(),
            }
        }
    }
}

/// Bash brace expansion of one word, left to right, nested braces
/// included.
fn brace(toks: Vec<Tok>, out: &mut Vec<Vec<Tok>>, too_many: &mut bool) {
    if *too_many {
        return;
    }
    if out.len() >= MAX_EXPANSIONS {
        *too_many = true;
        return;
    }
    for i in 0..toks.len() {
        if toks[i] != Tok::C('{', false) {
            continue;
        }
        if let Some((close, alts)) = brace_at(&toks, i) {
            for alt in alts {
                let mut t = toks[..i].to_vec();
                t.extend(alt);
                t.extend_from_slice(&toks[close + 1..]);
                brace(t, out, too_many);
                if *too_many {
                    return;
                }
            }
            return;
        }
    }
    out.push(toks);
}

/// The alternatives of the brace expression opening at `open`, and the
/// index of its closing brace.
fn brace_at(toks: &[Tok], open: usize) -> Option<(usize, Vec<Vec<Tok>>)> {
    let mut depth = 0usize;
    let mut commas = Vec::new();
    let mut close = None;
    for (j, t) in toks.iter().enumerate().skip(open + 1) {
        match t {
            Tok::C('{', false) => depth += 1,
            Tok::C('}', false) if depth == 0 => {
                close = Some(j);
                break;
            }
            Tok::C('}', false) => depth -= 1,
            Tok::C(',', false) if depth == 0 => commas.push(j),
            _ => {}
        }
    }
    let close = close?;
    if !commas.is_empty() {
        let mut alts = Vec::new();
        let mut start = open + 1;
        for &c in commas.iter().chain(std::iter::once(&close)) {
            alts.push(toks[start..c].to_vec());
            start = c + 1;
        }
        return Some((close, alts));
    }
    // A sequence: {a..b} or {a..b..step}, numbers or single characters.
    let inner: Option<String> = toks[open + 1..close]
        .iter()
        .map(|t| match t {
            Tok::C(c, false) => Some(*c),
            _ => None,
        })
        .collect();
    let inner = inner?;
    let parts: Vec<&str> = inner.split("..").collect();
    if !(2..=3).contains(&parts.len()) {
        return None;
    }
    let step: i64 = match parts.get(2) {
        Some(s) => s.parse::<i64>().ok()?.checked_abs()?.max(1),
        None => 1,
    };
    let seq: Vec<String> =
        if let (Ok(a), Ok(b)) = (parts[0].parse::<i64>(), parts[1].parse::<i64>()) {
            let n = (a - b).checked_abs()? / step + 1;
            if n as usize > MAX_EXPANSIONS {
                return None;
            }
            let mut v = Vec::new();
            let mut x = a;
            for _ in 0..n {
                v.push(x.to_string());
                x = if a <= b { x + step } else { x - step };
            }
            v
        } else {
            let (a, b) = (single(parts[0])?, single(parts[1])?);
            let (lo, hi) = (a.min(b) as u32, a.max(b) as u32);
            let mut v: Vec<String> = (lo..=hi)
                .step_by(step as usize)
                .filter_map(char::from_u32)
                .map(String::from)
                .collect();
            if a > b {
                v.reverse();
            }
            v
        };
    Some((
        close,
        seq.into_iter()
            .map(|s| s.chars().map(|c| Tok::C(c, true)).collect())
            .collect(),
    ))
}

fn single(s: &str) -> Option<char> {
    let mut it = s.chars();
    let c = it.next()?;
    (it.next().is_none() && c.is_ascii_alphabetic()).then_some(c)
}

// ---------------------------------------------------------------------
// getopt_long for programs without a spec.

/// Whether an option takes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Val {
    /// A flag.
    No,
    /// A value: glued or the next word.
    Req,
    /// An optional value: glued only.
    Opt,
}

/// One option: a short letter (`'\0'` for none) and a long name (`""` for
/// none).
#[derive(Debug, Clone, Copy)]
pub(crate) struct LOpt {
    pub short: char,
    pub long: &'static str,
    pub val: Val,
}

/// Shorthand for an option table entry.
pub(crate) const fn o(short: char, long: &'static str, val: Val) -> LOpt {
    LOpt { short, long, val }
}

impl LOpt {
    /// Canonical name: the long name, or the short letter.
    fn name(&self) -> String {
        if self.long.is_empty() {
            self.short.to_string()
        } else {
            self.long.to_string()
        }
    }
}

/// One option as used.
#[derive(Debug, Clone)]
pub(crate) struct Got {
    /// Canonical name (long name, or the short letter).
    pub name: String,
    /// Its value: the argument index and byte offset.
    pub value: Option<(usize, usize)>,
}

/// An argv read with getopt_long rules.
#[derive(Debug, Clone, Default)]
pub(crate) struct Read {
    pub opts: Vec<Got>,
    /// Indices of the operands.
    pub operands: Vec<usize>,
    /// An option that is not in the table, ambiguous, or missing its value.
    pub unknown: bool,
    /// A dynamic word where an option may stand.
    pub dynamic: bool,
}

impl Read {
    pub fn has(&self, name: &str) -> bool {
        self.opts.iter().any(|g| g.name == name)
    }

    /// Values of an option, as arguments.
    pub fn values(&self, name: &str, args: &[XArg]) -> Vec<XArg> {
        self.opts
            .iter()
            .filter(|g| g.name == name)
            .filter_map(|g| g.value)
            .filter_map(|(at, off)| args.get(at).map(|a| a.value_from(off)))
            .collect()
    }

    /// Could not be read fully (unknown option or dynamic option word).
    pub fn unreadable(&self) -> bool {
        self.unknown || self.dynamic
    }
}

/// Read `args` as `getopt_long` does with the table `spec`: unambiguous
/// long prefixes, short clusters, glued values, `--`. With `permute`
/// options may follow operands (GNU); without, the first operand ends them.
pub(crate) fn getopt(args: &[XArg], spec: &[LOpt], permute: bool) -> Read {
    let mut r = Read::default();
    let mut i = 0;
    let mut done = false;
    while i < args.len() {
        let a = &args[i];
        if done {
            r.operands.push(i);
            i += 1;
            continue;
        }
        let Some(t) = a.value.as_deref() else {
            if a.prefix.is_empty() || a.prefix.starts_with('-') {
                r.dynamic = true;
            }
            r.operands.push(i);
            i += 1;
            continue;
        };
        if t == "--" {
            done = true;
            i += 1;
            continue;
        }
        if let Some(body) = t.strip_prefix("--") {
            let (name, glued) = match body.split_once('=') {
                Some((n, _)) => (n, Some(2 + n.len() + 1)),
                None => (body, None),
            };
            match find_long(spec, name) {
                Some(opt) => {
                    let value = match (opt.val, glued) {
                        (Val::No, Some(_)) => {
                            r.unknown = true;
                            None
                        }
                        (_, Some(off)) => Some((i, off)),
                        (Val::Req, None) => {
                            if i + 1 < args.len() {
                                i += 1;
                                Some((i, 0))
                            } else {
                                r.unknown = true;
                                None
                            }
                        }
                        _ => None,
                    };
                    r.opts.push(Got {
                        name: opt.name(),
                        value,
                    });
                }
                None => r.unknown = true,
            }
            i += 1;
            continue;
        }
        if t.starts_with('-') && t.len() > 1 {
            let chars: Vec<(usize, char)> = t.char_indices().skip(1).collect();
            let mut next = i + 1;
            for (k, &(off, c)) in chars.iter().enumerate() {
                let Some(opt) = spec.iter().find(|o| o.short == c && c != '\0') else {
                    r.unknown = true;
                    break;
                };
                match opt.val {
                    Val::No => r.opts.push(Got {
                        name: opt.name(),
                        value: None,
                    }),
                    Val::Opt | Val::Req => {
                        let voff = off + c.len_utf8();
                        let value = if k + 1 < chars.len() {
                            Some((i, voff))
                        } else if opt.val == Val::Req {
                            if next < args.len() {
                                next += 1;
                                Some((next - 1, 0))
                            } else {
                                r.unknown = true;
                                None
                            }
                        } else {
                            None
                        };
                        r.opts.push(Got {
                            name: opt.name(),
                            value,
                        });
                        break;
                    }
                }
            }
            i = next;
            continue;
        }
        r.operands.push(i);
        if !permute {
            done = true;
        }
        i += 1;
    }
    r
}

fn find_long<'a>(spec: &'a [LOpt], name: &str) -> Option<&'a LOpt> {
    if name.is_empty() {
        return None;
    }
    if let Some(o) = spec.iter().find(|o| o.long == name) {
        return Some(o);
    }
    let mut found: Option<&LOpt> = None;
    for o in spec
        .iter()
        .filter(|o| !o.long.is_empty() && o.long.starts_with(name))
    {
        match found {
            Some(f) if f.long != o.long => return None,
            _ => found = Some(o),
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex(raw: &str) -> Vec<String> {
        let w = Word::analyze(raw, 0);
        expand(&w, "/home/u")
            .into_iter()
            .map(|a| {
                a.value
                    .unwrap_or_else(|| format!("<{}…{}>", a.prefix, a.tail))
            })
            .collect()
    }

    #[test]
    fn braces_and_tilde() {
        assert_eq!(ex("/{etc,usr}"), ["/etc", "/usr"]);
        assert_eq!(ex("-r{,f}"), ["-r", "-rf"]);
        assert_eq!(ex("{~,/x}"), ["/home/u", "/x"]);
        assert_eq!(ex("a{1..3}"), ["a1", "a2", "a3"]);
        assert_eq!(ex("'{a,b}'"), ["{a,b}"]);
        assert_eq!(ex("~/x"), ["/home/u/x"]);
        assert_eq!(ex("$HOME/.."), ["/home/u/.."]);
        assert_eq!(ex("/$X/y"), ["</…/y>"]);
        // Bounded: too many groups or results read as unknown.
        assert_eq!(ex(&"{a,b}".repeat(40)), ["<…>"]);
        assert_eq!(ex(&"{a,b}".repeat(9)), ["<…>"]);
        assert_eq!(ex("{1..100000}"), ["{1..100000}"]);
    }

    #[test]
    fn metas_only_unquoted() {
        let w = Word::analyze("/etc/'*'", 0);
        assert!(expand(&w, "/h")[0].metas.is_empty());
        let w = Word::analyze("/etc/*", 0);
        assert_eq!(expand(&w, "/h")[0].metas, vec![5]);
    }

    const SPEC: &[LOpt] = &[
        o('f', "full", Val::No),
        o('x', "exact", Val::No),
        o('u', "euid", Val::Req),
        o('\0', "signal", Val::Req),
        o('\0', "session-id", Val::Req),
    ];

    fn args(s: &[&str]) -> Vec<XArg> {
        s.iter().map(|x| XArg::lit(x)).collect()
    }

    #[test]
    fn getopt_long_rules() {
        let a = args(&["-fxu", "me", "--ful", "--sig=9", "pat"]);
        let r = getopt(&a, SPEC, true);
        assert!(r.has("full") && r.has("exact") && !r.unknown);
        assert_eq!(r.values("euid", &a)[0].value.as_deref(), Some("me"));
        assert_eq!(r.values("signal", &a)[0].value.as_deref(), Some("9"));
        assert_eq!(r.operands, vec![4]);
        // `--s` is ambiguous (signal, session-id).
        assert!(getopt(&args(&["--s", "x"]), SPEC, true).unknown);
        // Glued short value.
        let a = args(&["-ume"]);
        assert_eq!(
            getopt(&a, SPEC, true).values("euid", &a)[0]
                .value
                .as_deref(),
            Some("me")
        );
        // `--` ends options.
        let r = getopt(&args(&["--", "-f"]), SPEC, true);
        assert!(!r.has("full") && r.operands == vec![1]);
        // POSIX: the first operand ends options.
        let r = getopt(&args(&["x", "-f"]), SPEC, false);
        assert!(!r.has("full") && r.operands == vec![0, 1]);
    }
}
