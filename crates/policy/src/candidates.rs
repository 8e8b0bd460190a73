//! Candidates: the `(verb, directory)` pairs a call must be authorized for,
//! and every path each command touches (SPEC §5).

use shellgate_shell::analyze::Invocation;
use shellgate_shell::pathlike::{is_anchored, is_path_like, is_url, name_value};
use shellgate_shell::paths::{self, is_within, resolve};
use shellgate_shell::syntax::RedirTarget;
use shellgate_shell::verbs::{self, is_path_aware, is_side_effect};
use shellgate_shell::word::{Seg, Word};

use crate::fs::Fs;

/// Redirect targets and operands that never yield a directory.
pub const EXEMPT_DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/stdin",
    "/dev/tty",
];

/// How a path was named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The path itself.
    Exact,
    /// A glob: the static directory before the globbed segment;
    /// `recursive` for `**`.
    Glob { recursive: bool },
    /// The static prefix of a dynamic word.
    Prefix,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TouchKind {
    Operand,
    RedirectRead,
    RedirectWrite,
    /// The command's effective working directory.
    WorkingDir,
}

/// A path a command touches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Touch {
    /// Lexically resolved (`..` collapsed, symlinks not followed): what a
    /// human reads, and what name-based rules look at.
    pub path: String,
    pub kind: TouchKind,
    pub scope: Scope,
    /// The same path **as written**, absolute, `..` kept: what the kernel
    /// resolves ([`crate::resolve::kernel`]). For [`Scope::Glob`] the whole
    /// pattern, quoted metacharacters escaped with `\`
    /// ([`crate::resolve::expand`]).
    pub raw: String,
    /// Whether the program follows a symbolic link in the last component
    /// (opening a file does; `rm`, `mv`, `ln` of the name itself, `lstat`
    /// do not). True unless the program model says otherwise.
    pub follow: bool,
}

impl Touch {
    /// A touch of a path written exactly as it is (already normalized).
    pub fn new(path: impl Into<String>, kind: TouchKind, scope: Scope) -> Touch {
        let path = path.into();
        Touch {
            raw: path.clone(),
            path,
            kind,
            scope,
            follow: true,
        }
    }
}

/// Candidates and touches of one simple command.
#[derive(Debug, Clone)]
pub struct CommandCandidates {
    pub verb: String,
    /// Directories in candidate order (deduplicated); `None` = no directory.
    pub dirs: Vec<Option<String>>,
    /// A pure side effect (§4.4).
    pub side_effect: bool,
    pub touches: Vec<Touch>,
    /// Redirect written to a non-exempt target.
    pub writes_redirect: bool,
}

/// Static value of a word, resolved as a path.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// Lexical (normalized) path; for a glob its static directory.
    pub path: String,
    pub scope: Scope,
    /// As written, absolute, `..` kept (for a glob the whole pattern).
    pub raw: String,
}

impl Resolved {
    /// The touch of this path by a command.
    pub fn touch(self, kind: TouchKind) -> Touch {
        Touch {
            path: self.path,
            kind,
            scope: self.scope,
            raw: self.raw,
            follow: true,
        }
    }
}

/// How operand words become paths: `~` expansion, Windows semantics, and
/// where file-system facts come from.
pub struct Resolver<'a> {
    pub home: &'a str,
    pub windows: bool,
    pub fs: &'a dyn Fs,
}

/// What a word resolves to.
pub enum Res {
    /// Resolved (or `None` when it cannot yield a path: relative without a
    /// working directory, a process substitution).
    Path(Option<Resolved>),
    /// Dynamic with no usable static prefix.
    Dynamic,
}

impl Resolver<'_> {
    /// Resolve the static value `v` of a word against `cwd`. `pattern`:
    /// for a glob, the same value with quoted metacharacters escaped
    /// (`None`: not a glob). `None` when it cannot yield a path (relative
    /// without a working directory).
    pub fn resolve_value(
        &self,
        v: &str,
        pattern: Option<&str>,
        cwd: Option<&str>,
    ) -> Option<Resolved> {
        let v = self.separators(v);
        let glob = pattern.is_some();
        let (text, scope) = if glob {
            // Static part before the first segment holding a glob character.
            let segs: Vec<&str> = v.split('/').collect();
            let cut = segs
                .iter()
                .position(|s| s.contains(['*', '?', '[']))
                .unwrap_or(segs.len());
            let recursive = v.contains("**");
            let mut t = segs[..cut].join("/");
            if t.is_empty() && v.starts_with('/') {
                t = "/".to_string();
            }
            if t.is_empty() {
                t = ".".to_string();
            }
            (t, Scope::Glob { recursive })
        } else {
            (v.clone(), Scope::Exact)
        };
        let written = match pattern {
            Some(p) => self.separators(p),
            None => v.clone(),
        };
        let (path, raw) = if text.starts_with('/') {
            (paths::normalize(&text), written)
        } else {
            let c = cwd?;
            (resolve(c, &text), crate::resolve::join_raw(c, &written))
        };
        Some(Resolved { path, scope, raw })
    }

    /// Windows semantics: `\` is a separator like `/`, and a drive path
    /// (`C:/…`) is absolute (spelled `/C:/…`, outside every POSIX root).
    fn separators(&self, v: &str) -> String {
        if !self.windows {
            return v.to_string();
        }
        let s = v.replace('\\', "/");
        let b = s.as_bytes();
        if b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' {
            return format!("/{s}");
        }
        s
    }

    /// The glob pattern of a word: its value with `~` expanded and the
    /// metacharacters that came from quotes escaped.
    fn glob_pattern(&self, w: &Word) -> Option<String> {
        let mut out = String::new();
        for s in &w.segs {
            match s {
                Seg::Lit { text, quoted: true } => out.push_str(&crate::resolve::escape(text)),
                Seg::Lit {
                    text,
                    quoted: false,
                } => out.push_str(text),
                Seg::Home => out.push_str(&crate::resolve::escape(self.home)),
                Seg::Dynamic => return None,
            }
        }
        Some(out)
    }

    /// Whether an unquoted glob word of `inv` (before any `--`) could
    /// expand to a name beginning with `-`, which the program would read as
    /// an option (§15.12, [`crate::resolve::glob_may_inject_option`]).
    pub fn glob_injects_option(&self, inv: &Invocation) -> bool {
        let Some(cwd) = inv.cwd.as_deref() else {
            return inv.argv.iter().skip(1).any(|w| w.glob);
        };
        for w in inv.argv.iter().skip(1) {
            if w.literal().as_deref() == Some("--") {
                return false;
            }
            if !w.glob || w.is_dynamic() {
                continue;
            }
            let Some(pattern) = self.glob_pattern(w) else {
                continue;
            };
            if crate::resolve::glob_may_inject_option(self.fs, &self.separators(&pattern), cwd) {
                return true;
            }
        }
        false
    }

    /// Resolve a word as a path operand or redirect target.
    pub fn resolve(&self, w: &Word, cwd: Option<&str>) -> Res {
        if w.proc_subst {
            return Res::Path(None);
        }
        if let Some(v) = w.expanded(self.home) {
            if !w.glob {
                return Res::Path(self.resolve_value(&v, None, cwd));
            }
            let pattern = if self.windows {
                v.clone()
            } else {
                self.glob_pattern(w).unwrap_or_else(|| v.clone())
            };
            // A glob segment followed by `..` can leave its static prefix
            // (§15.11): the operand's scope is unknown.
            if crate::resolve::glob_then_dotdot(&self.separators(&pattern)) {
                return Res::Dynamic;
            }
            return Res::Path(self.resolve_value(&v, Some(&pattern), cwd));
        }
        // Static-prefix rule (§3.4): the static part up to the last `/`
        // before the first dynamic piece, when absolute or `~`.
        let (prefix, _) = w.static_prefix(self.home);
        let starts_home = matches!(w.segs.first(), Some(Seg::Home));
        if let Some(i) = prefix.rfind('/') {
            let p = &prefix[..=i];
            if p.starts_with('/') || starts_home {
                let path = paths::normalize(p);
                return Res::Path(Some(Resolved {
                    raw: p.to_string(),
                    path,
                    scope: Scope::Prefix,
                }));
            }
        }
        Res::Dynamic
    }
}

fn dir_of(fs: &dyn Fs, r: &Resolved) -> String {
    match r.scope {
        Scope::Exact => {
            if crate::fs::is_dir(fs, &r.path) {
                r.path.clone()
            } else {
                paths::parent(&r.path)
            }
        }
        _ => r.path.clone(),
    }
}

fn is_exempt(path: &str) -> bool {
    EXEMPT_DEVICES.contains(&path)
}

/// A word that could be a path: the word itself, or the value part of a
/// `--opt=VALUE`, `-o/x` or `NAME=VALUE`.
fn value_word(w: &Word) -> Option<Word> {
    let raw = &w.raw;
    if raw.starts_with("--") {
        let eq = raw.find('=')?;
        return Some(Word::analyze(&raw[eq + 1..], w.start));
    }
    if raw.starts_with('-') && !raw.starts_with("--") {
        // `-o/tmp/x`: the value glued after a one-letter flag.
        let mut chars = raw.char_indices().skip(2);
        let rest = match chars.next() {
            Some((i, _)) => &raw[i..],
            None => return None,
        };
        if rest.starts_with(['/', '~', '.']) {
            return Some(Word::analyze(rest, w.start));
        }
        return None;
    }
    let lit = w.lossy_value();
    if let Some((_, _)) = name_value(&lit) {
        let eq = raw.find('=')?;
        return Some(Word::analyze(&raw[eq + 1..], w.start));
    }
    None
}

/// Compute the candidates of one invocation. Dynamic operands that cannot be
/// scoped are reported in `reasons`.
pub fn for_invocation(
    inv: &Invocation,
    r: &Resolver,
    reasons: &mut Vec<String>,
) -> Option<CommandCandidates> {
    let verb = verbs::verb(&inv.argv)?;
    let program = inv.program()?;
    let base = paths::basename(&program).to_ascii_lowercase();
    let cwd = inv.cwd.as_deref();
    let mut touches: Vec<Touch> = Vec::new();
    let mut operand_dirs: Vec<String> = Vec::new();
    let mut redirect_dirs: Vec<String> = Vec::new();
    let mut writes_redirect = false;
    let mut dynamic = false;

    // Redirect targets.
    for rd in &inv.redirects {
        let RedirTarget::File(w) = &rd.target else {
            continue;
        };
        let kind = if rd.kind.writes() {
            TouchKind::RedirectWrite
        } else {
            TouchKind::RedirectRead
        };
        match r.resolve(w, cwd) {
            Res::Path(Some(res)) => {
                if is_exempt(&res.path) {
                    continue;
                }
                if rd.kind.writes() {
                    writes_redirect = true;
                }
                redirect_dirs.push(dir_of(r.fs, &res));
                touches.push(res.touch(kind));
            }
            Res::Path(None) => {
                if rd.kind.writes() {
                    writes_redirect = true;
                }
            }
            Res::Dynamic => {
                dynamic = true;
                if rd.kind.writes() {
                    writes_redirect = true;
                }
            }
        }
    }

    let side_effect_verb = is_side_effect(&program);
    let path_aware = is_path_aware(&base);
    let mut dirs: Vec<Option<String>> = Vec::new();

    if side_effect_verb {
        for d in &redirect_dirs {
            push_dir(&mut dirs, Some(d.clone()));
        }
        if dynamic {
            reasons.push("dynamic_path".into());
        }
        let side_effect = dirs.is_empty() && !writes_redirect && !dynamic;
        if dirs.is_empty() {
            dirs.push(if side_effect {
                None
            } else {
                cwd.map(str::to_string)
            });
        }
        if let Some(c) = cwd {
            touches.push(Touch::new(c, TouchKind::WorkingDir, Scope::Exact));
        }
        return Some(CommandCandidates {
            verb,
            dirs,
            side_effect,
            touches,
            writes_redirect,
        });
    }

    // A per-command directory flag (`tar -C DIR`, `git -C DIR`…) names the
    // effective directory itself: it is an operand (extracting into it
    // writes below it), already resolved.
    if !dir_flag_words(&base, &inv.argv).is_empty() {
        if let Some(c) = cwd {
            operand_dirs.push(c.to_string());
            touches.push(Touch::new(c, TouchKind::Operand, Scope::Exact));
        }
    }
    if path_aware {
        for w in path_aware_operands(&base, &inv.argv) {
            match r.resolve(&w, cwd) {
                Res::Path(Some(res)) => {
                    if is_exempt(&res.path) {
                        continue;
                    }
                    operand_dirs.push(dir_of(r.fs, &res));
                    touches.push(res.touch(TouchKind::Operand));
                }
                Res::Path(None) => {}
                Res::Dynamic => dynamic = true,
            }
        }
        for d in operand_dirs.iter().chain(redirect_dirs.iter()) {
            push_dir(&mut dirs, Some(d.clone()));
        }
        if dirs.is_empty() {
            dirs.push(cwd.map(str::to_string));
        }
    } else {
        push_dir(&mut dirs, cwd.map(str::to_string));
        let skip = dir_flag_words(&base, &inv.argv);
        for (i, w) in inv.argv.iter().enumerate().skip(1) {
            if skip.contains(&i) {
                continue;
            }
            let candidate = if let Some(v) = value_word(w) {
                v
            } else if w.literal().is_some_and(|v| v.starts_with('-')) {
                continue;
            } else {
                w.clone()
            };
            if candidate.proc_subst {
                continue;
            }
            let static_part = candidate.lossy_value();
            let home_start = matches!(candidate.segs.first(), Some(Seg::Home));
            if !(is_path_like(&static_part, r.windows) || home_start) {
                continue;
            }
            if candidate.is_dynamic() && !home_start && candidate.expanded(r.home).is_none() {
                // Dynamic word whose static part is path-like.
                match r.resolve(&candidate, cwd) {
                    Res::Path(Some(res)) => {
                        operand_dirs.push(dir_of(r.fs, &res));
                        touches.push(res.touch(TouchKind::Operand));
                    }
                    Res::Path(None) => {}
                    Res::Dynamic => dynamic = true,
                }
                continue;
            }
            match r.resolve(&candidate, cwd) {
                Res::Path(Some(res)) => {
                    if is_exempt(&res.path) {
                        continue;
                    }
                    let value = candidate.expanded(r.home).unwrap_or_default();
                    let anchored = is_anchored(&value, r.windows) || home_start;
                    let leaves = cwd.is_none_or(|c| !is_within(&res.path, c));
                    if anchored || leaves {
                        operand_dirs.push(dir_of(r.fs, &res));
                    }
                    touches.push(res.touch(TouchKind::Operand));
                }
                Res::Path(None) => {}
                Res::Dynamic => dynamic = true,
            }
        }
        for d in operand_dirs.iter().chain(redirect_dirs.iter()) {
            push_dir(&mut dirs, Some(d.clone()));
        }
    }
    if dynamic {
        reasons.push("dynamic_path".into());
    }
    if let Some(c) = cwd {
        touches.push(Touch::new(c, TouchKind::WorkingDir, Scope::Exact));
    }
    Some(CommandCandidates {
        verb,
        dirs,
        side_effect: false,
        touches,
        writes_redirect,
    })
}

/// `host:path` (scp, rsync): a remote location, not a local path.
fn is_remote_spec(v: &str) -> bool {
    match (v.find(':'), v.find('/')) {
        (Some(c), Some(sl)) => c > 0 && c < sl && !v.starts_with(['/', '.', '~']),
        (Some(c), None) => c > 0 && !v.starts_with(['/', '.', '~']),
        _ => false,
    }
}

fn push_dir(dirs: &mut Vec<Option<String>>, d: Option<String>) {
    if !dirs.contains(&d) {
        dirs.push(d);
    }
}

/// argv indices of the values of per-command directory flags (`git -C`,
/// `make -C`, `tar -C`, `npm --prefix`…): the analysis already made them
/// the command's effective directory, so they are not operands resolved
/// against it again.
fn dir_flag_words(base: &str, argv: &[Word]) -> Vec<usize> {
    let mut out = Vec::new();
    let lit = |i: usize| argv.get(i).and_then(Word::literal).unwrap_or_default();
    match base {
        "git" => {
            let mut i = 1;
            while i < argv.len() {
                match lit(i).as_str() {
                    "-C" => {
                        out.push(i);
                        out.push(i + 1);
                        i += 2;
                    }
                    "--git-dir" | "--work-tree" => i += 2,
                    "--no-pager" | "--bare" => i += 1,
                    s if s.starts_with("--git-dir=") || s.starts_with("--work-tree=") => i += 1,
                    _ => break,
                }
            }
        }
        "make" | "tar" | "npm" | "pnpm" | "yarn" => {
            let pkg = !matches!(base, "make" | "tar");
            for i in 1..argv.len() {
                let v = lit(i);
                if v == "-C" || v == "--directory" || (pkg && v == "--prefix") {
                    out.push(i);
                    out.push(i + 1);
                } else if v.starts_with("--directory=")
                    || (pkg && v.starts_with("--prefix="))
                    || (base == "make" && v.starts_with("-C") && v.len() > 2)
                {
                    out.push(i);
                }
            }
        }
        _ => {}
    }
    out
}

/// File operands of a path-aware verb (§5.2). Flag arity is never used to
/// hide a word: a flag's separate value is an operand like any other word.
pub fn path_aware_operands(base: &str, argv: &[Word]) -> Vec<Word> {
    let mut out = Vec::new();
    let pattern_verb = matches!(
        base,
        "grep" | "egrep" | "fgrep" | "rg" | "sed" | "awk" | "jq"
    );
    let mode_verb = matches!(base, "chmod" | "chown" | "chgrp");
    let explicit_pattern = pattern_verb
        && argv.iter().skip(1).any(|w| {
            let v = w.literal().unwrap_or_default();
            matches!(v.as_str(), "-e" | "-f" | "--regexp" | "--file")
                || v.starts_with("--regexp=")
                || v.starts_with("--file=")
                || (base != "awk"
                    && base != "jq"
                    && v.starts_with("-e")
                    && v.len() > 2
                    && !v.starts_with("--"))
                || (base == "awk" && v.starts_with("-f") && !v.starts_with("--"))
        });
    // Whether the pattern/program (or mode) positional is still to skip.
    let needs_skip = mode_verb || (pattern_verb && !explicit_pattern);
    let mut skipped_first = !needs_skip;
    let mut after_dashdash = false;
    let skip = dir_flag_words(base, argv);
    for (i, w) in argv.iter().enumerate().skip(1) {
        if w.proc_subst || skip.contains(&i) {
            continue;
        }
        let lit = w.literal();
        let v = lit.clone().unwrap_or_else(|| w.lossy_value());
        if !after_dashdash && lit.as_deref() == Some("--") {
            after_dashdash = true;
            continue;
        }
        if base == "find"
            && !after_dashdash
            && (v.starts_with('-') || matches!(v.as_str(), "(" | "!" | ","))
        {
            break;
        }
        if !after_dashdash && v.starts_with('-') && v != "-" && lit.is_some() {
            if let Some(vw) = value_word(w) {
                if vw.expanded("~").is_some_and(|x| is_path_like(&x, false)) || vw.is_dynamic() {
                    out.push(vw);
                }
            }
            continue;
        }
        if v == "-" {
            continue;
        }
        // The mode/owner of chmod/chown/chgrp is the first positional,
        // symbolic or numeric.
        if mode_verb && !skipped_first {
            skipped_first = true;
            continue;
        }
        if lit.is_some() && !v.is_empty() && v.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        if lit.is_some() && (is_url(&v) || is_remote_spec(&v)) {
            continue;
        }
        if !skipped_first {
            skipped_first = true;
            continue;
        }
        out.push(w.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::OsFs;
    use shellgate_shell::analyze::{analyze, Env};

    fn cands(cmd: &str) -> Vec<(String, Option<String>)> {
        let env = Env {
            home: "/nonexistent-home".into(),
        };
        let a = analyze(cmd, Some("/nonexistent-home/p"), &env);
        let r = Resolver {
            home: "/nonexistent-home",
            windows: false,
            fs: &OsFs,
        };
        let mut reasons = Vec::new();
        let mut out = Vec::new();
        for inv in a.invocations.iter().filter(|i| i.gated) {
            if let Some(c) = for_invocation(inv, &r, &mut reasons) {
                for d in c.dirs {
                    out.push((c.verb.clone(), d));
                }
            }
        }
        out
    }

    #[test]
    fn operand_rules() {
        let p = Some("/nonexistent-home/p".to_string());
        assert_eq!(cands("grep TODO"), vec![("grep".into(), p.clone())]);
        assert_eq!(cands("echo hi"), vec![("echo".into(), None)]);
        assert_eq!(cands("echo hi > x.txt"), vec![("echo".into(), p.clone())]);
        assert_eq!(
            cands("cp -t /x notes.txt"),
            vec![("cp".into(), Some("/".into())), ("cp".into(), p.clone())]
        );
        assert_eq!(
            cands("git checkout -b feature/foo"),
            vec![("git checkout".into(), p.clone())]
        );
        assert_eq!(
            cands("cat nosuch/*.rs"),
            vec![("cat".into(), Some("/nonexistent-home/p/nosuch".into()))]
        );
    }
}
