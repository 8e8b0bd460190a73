//! Candidates: the `(verb, directory)` pairs a call must be authorized for,
//! and every path each command touches (SPEC §5).

use shellgate_shell::analyze::Invocation;
use shellgate_shell::pathlike::{is_anchored, is_path_like, is_url, name_value};
use shellgate_shell::paths::{self, is_within, resolve};
use shellgate_shell::syntax::RedirTarget;
use shellgate_shell::verbs::{self, is_path_aware, is_side_effect};
use shellgate_shell::word::{Seg, Word};

use shellgate_programs::{Arity, Role};

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
    /// What the program does with it, when the program model knows
    /// (`None`: unknown, judged conservatively).
    pub role: Option<Role>,
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
            role: None,
        }
    }

    /// The same touch with what the program does with it; a program that
    /// deletes a name acts on the name itself, not on where a link leads.
    pub fn with_role(mut self, role: Option<Role>) -> Touch {
        self.role = role;
        if matches!(role, Some(Role::Delete)) {
            self.follow = false;
        }
        self
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
    /// The verb names what runs; when false no persistent option may be
    /// offered for it (SPEC §15.8, §15.20).
    pub named: bool,
    /// The directories it would be a candidate in if it ran in its
    /// invocation's other directory (a `cd` before it may have failed):
    /// not candidates of their own (§5.1), but it is safe or granted only
    /// when it would be there too (rt14 F3).
    pub alt_dirs: Vec<Option<String>>,
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
            role: None,
        }
    }
}

/// How operand words become paths: `~` expansion, Windows semantics, and
/// where file-system facts come from.
pub struct Resolver<'a> {
    pub home: &'a str,
    pub windows: bool,
    pub fs: &'a dyn Fs,
    /// Some word of the call names a credential's variable (`X=$TOKEN;
    /// echo $X`): no printing command of it is a pure side effect.
    pub secret_in_call: bool,
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
        let mut v = self.separators(v);
        let mut pattern = pattern.map(|p| self.separators(p));
        // `/proc/self/cwd/…` is the command's own directory (rt28b F1).
        if let Some(c) = cwd {
            if let Some(r) = paths::own_cwd_view(&v, c) {
                pattern = pattern.and_then(|p| paths::own_cwd_view(&p, c));
                v = r;
            }
        }
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
            Some(p) => p,
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
        // Windows drops trailing dots and spaces of every name
        // (`".env "` and `settings.json.` name `.env`, `settings.json`).
        let s = v.replace('\\', "/");
        let s = s
            .split('/')
            .map(|seg| match seg.trim_end_matches(['.', ' ']) {
                "" if !seg.is_empty() && seg.chars().all(|c| c == '.') => seg,
                t => t,
            })
            .collect::<Vec<_>>()
            .join("/");
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
            if w.lit().as_deref() == Some("--") {
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

    /// On Windows semantics, the text a word names when its source holds a
    /// `\` (which bash would have taken as an escape): the source with its
    /// quotes removed, `None` when it expands anything. Other words: `None`.
    fn windows_text(&self, w: &Word) -> Option<Option<String>> {
        if !self.windows || !w.raw.contains('\\') {
            return None;
        }
        if w.raw.contains(['$', '`']) || !w.substs.is_empty() {
            return Some(None);
        }
        Some(Some(
            w.raw.chars().filter(|c| !matches!(c, '"' | '\'')).collect(),
        ))
    }

    /// The static text of a word, as the path checks read it.
    pub fn text_of(&self, w: &Word) -> String {
        match self.windows_text(w) {
            Some(Some(t)) => t,
            _ => w.lossy_value(),
        }
    }

    /// Resolve a word as a path operand or redirect target.
    pub fn resolve(&self, w: &Word, cwd: Option<&str>) -> Res {
        if w.proc_subst {
            return Res::Path(None);
        }
        match self.windows_text(w) {
            None => {}
            Some(None) => return Res::Dynamic,
            Some(Some(v)) => {
                if !w.glob {
                    return Res::Path(self.resolve_value(&v, None, cwd));
                }
                if crate::resolve::glob_then_dotdot(&self.separators(&v)) {
                    return Res::Dynamic;
                }
                return Res::Path(self.resolve_value(&v, Some(&v), cwd));
            }
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

/// A word of a command as the program model reads it.
#[derive(Debug, Clone)]
struct ModelWord {
    word: Word,
    role: Role,
}

/// The words the program model classifies (option values and operands,
/// each with its role), and the argv indices it accounts for (options,
/// values, subcommand words, `--`). Words it does not account for (unknown
/// options and whatever follows them) are judged by the generic rules.
fn model_words(inv: &Invocation) -> Option<(Vec<ModelWord>, Vec<usize>)> {
    let r = inv.reading.as_ref()?;
    let p = &r.parsed;
    let mut covered: Vec<usize> = Vec::new();
    let mut out: Vec<ModelWord> = Vec::new();
    let word_at = |at: usize, offset: usize| -> Option<Word> {
        let w = inv.argv.get(at + 1)?;
        if offset == 0 {
            return Some(w.clone());
        }
        match r.text(at) {
            Some(t) => t
                .get(offset..)
                .map(|v| Word::static_text(v, w.start, w.glob)),
            None => Some(w.clone()),
        }
    };
    for &a in &p.sub_at {
        covered.push(a + 1);
    }
    if let Some(d) = p.dashdash {
        covered.push(d + 1);
    }
    let args = r.args();
    for o in &p.opts {
        covered.push(o.at + 1);
        if let Some(v) = o.value {
            covered.push(v.at + 1);
            if o.opt.value == Role::AtFile {
                // `curl -d @file`: the file it names is read.
                let named = p
                    .value_text(&args, v)
                    .and_then(shellgate_programs::judge::at_file);
                if let (Some(f), Some(w)) = (named, inv.argv.get(v.at + 1)) {
                    out.push(ModelWord {
                        word: Word::static_text(f, w.start, false),
                        role: Role::Read,
                    });
                }
                continue;
            }
            if o.opt.value == Role::TypedWrite {
                // `--cov-report=xml:out.xml`: the file after the first `:`
                // is written (rt13 F5); a value with no `:` names none. A
                // value not known statically is a dynamic written path.
                let w = inv.argv.get(v.at + 1);
                match (p.value_text(&args, v), w) {
                    (Some(t), Some(w)) => {
                        if let Some((_, f)) = t.split_once(':').filter(|(_, f)| !f.is_empty()) {
                            out.push(ModelWord {
                                word: Word::static_text(f, w.start, false),
                                role: Role::Write,
                            });
                        }
                    }
                    (None, Some(w)) => out.push(ModelWord {
                        word: w.clone(),
                        role: Role::Write,
                    }),
                    _ => {}
                }
                continue;
            }
            if let Some(w) = word_at(v.at, v.offset) {
                // `git log -L START,END:FILE`, `:N:FILE`: the file is the
                // part after the last `:` (the range is not a path, §15.8).
                let w = match (o.opt.value, w.literal()) {
                    (Role::Pathspec, Some(t)) if t.contains(':') => {
                        match t.rsplit(':').next().filter(|f| !f.is_empty()) {
                            Some(f) => Word::static_text(f, w.start, false),
                            None => continue,
                        }
                    }
                    _ => w,
                };
                out.push(ModelWord {
                    word: w,
                    role: o.opt.value,
                });
            }
        } else if o.opt.arity != Arity::None && o.opt.value.is_path() {
            // `-iSUFFIX`-style optional values given separately are not
            // values: nothing to add.
        }
    }
    let inplace = p.any_effect(shellgate_programs::fx::INPLACE);
    for op in r.operands() {
        covered.push(op.at + 1);
        let role = if inplace && op.role == Role::Read {
            Role::ReadWrite
        } else {
            op.role
        };
        if let Some(w) = inv.argv.get(op.at + 1) {
            // `strings @F`, `readelf -a @F`: binutils (and gcc, javac…)
            // read a response file `@F`; the file it names is read too.
            if matches!(role, Role::Read | Role::List | Role::Any) {
                if let Some(f) = w
                    .literal()
                    .as_deref()
                    .and_then(|t| t.strip_prefix('@'))
                    .filter(|f| !f.is_empty())
                {
                    out.push(ModelWord {
                        word: Word::static_text(f, w.start, false),
                        role: Role::Read,
                    });
                }
            }
            out.push(ModelWord {
                word: w.clone(),
                role,
            });
        }
    }
    // Words after an unknown option are not accounted for: its value may
    // be any of them.
    for pr in &p.problems {
        if let shellgate_programs::Problem::Unknown { at, .. }
        | shellgate_programs::Problem::Ambiguous { at, .. }
        | shellgate_programs::Problem::UnknownSubcommand { at } = pr
        {
            covered.retain(|c| *c <= at + 1);
            out.retain(|m| {
                inv.argv
                    .iter()
                    .position(|w| w.start == m.word.start)
                    .is_none_or(|i| i <= at + 1)
            });
            break;
        }
    }
    Some((out, covered))
}

/// Whether a word, assignment value or here-string of `inv` passes `word`,
/// or an expanding heredoc's body names a credential's variable.
fn secret_in_words(inv: &Invocation, word: &dyn Fn(&str) -> bool) -> bool {
    inv.argv.iter().any(|w| word(&w.raw))
        || inv.assigns.iter().any(|(_, w)| word(&w.raw))
        || inv.redirects.iter().any(|r| match &r.target {
            RedirTarget::HereString(w) => word(&w.raw),
            RedirTarget::HereDoc { body, expands } => *expands && names_secret_variable(&body.raw),
            _ => false,
        })
}

/// A word, assignment value, here-string or expanding heredoc of `inv`
/// that names a credential's variable.
pub(crate) fn mentions_secret_variable(inv: &Invocation) -> bool {
    secret_in_words(inv, &names_secret_variable)
}

/// Whether any command of the call, gated or not, names a credential's
/// variable: its value may be copied to another name and printed from
/// there (`TERM=$AWS_SECRET_ACCESS_KEY printenv TERM`).
///
/// Read as an allow-list (rt18 F5: `$BUNDLE_GITHUB__COM`, `$PIP_INDEX_URL`,
/// `$ConnectionStrings__Default`, `$SONAR_LOGIN` passed every credential
/// pattern): besides the credential names, any environment-like name (one
/// with an upper-case letter) counts unless it is a known location or
/// setting ([`shellgate_programs::checks::benign_env_name`], the names
/// `printenv NAME` may print), one of bash's own, or one the call's
/// assignment statements set (their values are scanned themselves).
pub(crate) fn call_mentions_secret(analysis: &shellgate_shell::analyze::Analysis) -> bool {
    let assigned = &analysis.statement_names;
    let word = |raw: &str| {
        expands_secret_variable(raw)
            || (!single_quoted(raw) && names_unknown_variable(raw, assigned))
    };
    analysis
        .invocations
        .iter()
        .any(|inv| secret_in_words(inv, &word))
        || analysis.statement_values.iter().any(|v| word(v))
}

/// A word that is one plain single-quoted string: text, no expansion.
fn single_quoted(raw: &str) -> bool {
    raw.len() >= 2 && raw.starts_with('\'') && raw.ends_with('\'') && raw.matches('\'').count() == 2
}

/// Variables of bash itself (and of the positional kind) that hold no
/// credential of the environment.
const BASH_OWN: &[&str] = &[
    "BASH",
    "BASHPID",
    "BASH_VERSION",
    "BASH_VERSINFO",
    "BASH_SOURCE",
    "BASH_LINENO",
    "BASH_SUBSHELL",
    "BASH_COMMAND",
    "BASH_ARGC",
    "BASH_ARGV",
    "BASH_REMATCH",
    "FUNCNAME",
    "LINENO",
    "RANDOM",
    "SRANDOM",
    "SECONDS",
    "EPOCHSECONDS",
    "EPOCHREALTIME",
    "PPID",
    "UID",
    "EUID",
    "GROUPS",
    "HOSTTYPE",
    "OSTYPE",
    "MACHTYPE",
    "PIPESTATUS",
    "IFS",
    "OPTIND",
    "OPTARG",
    "REPLY",
    "DIRSTACK",
    "HISTCMD",
    "SHELLOPTS",
    "BASHOPTS",
    "PS1",
    "PS2",
    "PS4",
    "CDPATH",
];

/// Whether `raw` references (`$NAME`, `${NAME…}`) an environment-like
/// variable that is neither benign, bash's own, nor assigned by the call;
/// or a lower-case proxy setting (`http_proxy` may carry `user:pass@`).
fn names_unknown_variable(raw: &str, assigned: &[String]) -> bool {
    let mut rest = raw;
    while let Some(i) = rest.find('$') {
        rest = &rest[i + 1..];
        let name: String = rest
            .trim_start_matches('{')
            .trim_start_matches(['!', '#'])
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let proxy = name.to_ascii_lowercase().ends_with("_proxy") && name != "no_proxy";
        let env_like = name.chars().any(|c| c.is_ascii_uppercase());
        let known = shellgate_programs::checks::benign_env_name(&name)
            || BASH_OWN.contains(&name.as_str())
            || assigned.contains(&name);
        if proxy || (env_like && !known) {
            return true;
        }
    }
    false
}

/// [`names_secret_variable`], except for a word that is one plain
/// single-quoted string (`grep -rn '$GITHUB_TOKEN' .github` only searches
/// for the text). Any other quoting is read as bash might expand it
/// (rt16: `$'\''`, `"$(echo "'")"` hid the reference from a quote scan).
fn expands_secret_variable(raw: &str) -> bool {
    !single_quoted(raw) && names_secret_variable(raw)
}

/// A `$NAME`/`${NAME}` reference to a variable whose name says it holds a
/// credential.
pub(crate) fn names_secret_variable(raw: &str) -> bool {
    let mut rest = raw;
    while let Some(i) = rest.find('$') {
        rest = &rest[i + 1..];
        let name: String = rest
            .trim_start_matches('{')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() && shellgate_secrets::credential_name(&name) {
            return true;
        }
    }
    false
}

/// Programs of cmd and PowerShell whose operands are paths, under Windows
/// semantics (lower case).
const WINDOWS_PATH_AWARE: &[&str] = &[
    "type",
    "more",
    "dir",
    "findstr",
    "copy",
    "xcopy",
    "robocopy",
    "move",
    "del",
    "erase",
    "ren",
    "rename",
    "rd",
    "rmdir",
    "md",
    "mkdir",
    "get-content",
    "gc",
    "select-string",
    "sls",
    "get-item",
    "gi",
    "get-childitem",
    "gci",
    "ls",
    "test-path",
    "resolve-path",
    "copy-item",
    "cp",
    "move-item",
    "mv",
    "remove-item",
    "ri",
    "rm",
    "set-content",
    "sc",
    "add-content",
    "out-file",
    "new-item",
    "ni",
];

/// A word of a command line a runner runs counts as a path when it looks
/// like one (the runner's program is judged by hard deny and its verb).
fn argv_word_is_path(w: &Word, r: &Resolver) -> bool {
    let v = r.text_of(w);
    !v.starts_with('-')
        && (is_path_like(&v, r.windows) || matches!(w.segs.first(), Some(Seg::Home)))
}

/// Roles whose words are paths the command touches.
fn role_is_path(role: Role) -> bool {
    role.is_path() && role != Role::Chdir
}

/// Compute the candidates of one invocation. Dynamic operands that cannot be
/// scoped are reported in `reasons`.
pub fn for_invocation(
    inv: &Invocation,
    r: &Resolver,
    reasons: &mut Vec<String>,
) -> Option<CommandCandidates> {
    // An unquoted glob that would expand to an option (a file named
    // `--pre=sh` next to `rg TODO *`) changes the argv that runs (§15.12).
    // Printing builtins (`echo *`) parse no options from it.
    if !is_side_effect(&inv.program().unwrap_or_default()) && r.glob_injects_option(inv) {
        reasons.push("glob_option_injection".into());
    }
    let v = inv.verb()?;
    // A command with an option or program text no grant covers names
    // nothing that may be persisted (SPEC §15.12, §15.15).
    let (verb, named) = (v.text, v.named && inv.uncovered.is_empty());
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

    // Paths in leading assignment values are touched too (§15.4):
    // `OUT=~/.claude/settings.json make` may write there.
    for (_, w) in &inv.assigns {
        let v = r.text_of(w);
        let home_start = matches!(w.segs.first(), Some(Seg::Home));
        if !(is_path_like(&v, r.windows) || home_start) {
            continue;
        }
        if let Res::Path(Some(res)) = r.resolve(w, cwd) {
            if !is_exempt(&res.path) {
                touches.push(res.touch(TouchKind::Operand).with_role(Some(Role::Any)));
            }
        }
    }
    let side_effect_verb = is_side_effect(&program) || verbs::pure_builtin(&inv.argv, r.windows);
    // Printing a credential (`echo $AWS_SECRET_ACCESS_KEY`) is not a pure
    // side effect: the command asks in its directory (§8.1a).
    // The value may have reached another name first (`X=$GITHUB_TOKEN;
    // echo $X`, rt15 F4): any mention in the call counts.
    let prints_secret = side_effect_verb
        && (r.secret_in_call
            || inv
                .argv
                .iter()
                .skip(1)
                .any(|w| names_secret_variable(&w.raw)));
    let side_effect_verb = side_effect_verb && !prints_secret;
    // Windows semantics: cmd's and PowerShell's readers and copiers take
    // paths (`type F`, `copy A B`, `Get-Content F`); a bash builtin's model
    // (`type NAME` names commands) does not apply to them.
    let windows_reader =
        r.windows && WINDOWS_PATH_AWARE.contains(&base.to_ascii_lowercase().as_str());
    let path_aware = is_path_aware(&base) || windows_reader;
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
            named,
            alt_dirs: Vec::new(),
        });
    }

    // A per-command directory flag (`tar -C DIR`, `git -C DIR`…) names the
    // effective directory itself: it is an operand (extracting into it
    // writes below it), already resolved.
    let model = if windows_reader {
        None
    } else {
        model_words(inv)
    };
    let chdir_flag = match &inv.reading {
        Some(rd) => rd
            .parsed
            .opts
            .iter()
            .any(|o| !o.negated && o.opt.value == Role::Chdir && o.value.is_some()),
        None => !dir_flag_words(&base, &inv.argv).is_empty(),
    };
    if chdir_flag {
        if let Some(c) = cwd {
            operand_dirs.push(c.to_string());
            touches
                .push(Touch::new(c, TouchKind::Operand, Scope::Exact).with_role(Some(Role::Chdir)));
        }
    }
    // The words to consider, each with its role when the model knows it.
    let mut words: Vec<(Word, Option<Role>)> = Vec::new();
    match &model {
        Some((mw, covered)) => {
            for m in mw {
                // `NAME=value` operands (make variables, dd's `of=`) are
                // judged by their value, as §5.2 says.
                let assignment = matches!(m.role, Role::Text | Role::Any)
                    && m.word.lit().is_some_and(|v| name_value(&v).is_some());
                words.push((m.word.clone(), (!assignment).then_some(m.role)));
            }
            if path_aware {
                // Flag arity never hides a word of a path-aware verb (§5.2):
                // its generic operands count too (over-inclusion only adds
                // directories).
                for w in path_aware_operands(&base, &inv.argv, r.windows) {
                    // Program text (a sed script, an awk program) is never a
                    // file; anything else the generic rule sees counts.
                    let known = words
                        .iter()
                        .find(|(x, _)| x.start == w.start && x.raw == w.raw);
                    match known {
                        Some((_, Some(Role::Code))) => {}
                        Some((_, r)) if r.is_none_or(role_is_path) => {}
                        _ => words.push((w, None)),
                    }
                }
            } else {
                // Words the model does not account for: the generic rules.
                for i in (1..inv.argv.len()).filter(|i| !covered.contains(i)) {
                    words.push((inv.argv[i].clone(), None));
                }
            }
        }
        None => {
            if path_aware {
                for w in path_aware_operands(&base, &inv.argv, r.windows) {
                    words.push((w, None));
                }
            } else {
                let skip = dir_flag_words(&base, &inv.argv);
                for (i, w) in inv.argv.iter().enumerate().skip(1) {
                    if !skip.contains(&i) {
                        words.push((w.clone(), None));
                    }
                }
            }
        }
    }
    // Source order (§5.3): operands as written.
    words.sort_by_key(|(w, _)| w.start);
    if path_aware {
        for (w, role) in words {
            if let Some(role) = role {
                if !role_is_path(role) && role != Role::Argv {
                    continue;
                }
                if role == Role::Argv && !argv_word_is_path(&w, r) {
                    continue;
                }
            }
            match r.resolve(&w, cwd) {
                Res::Path(Some(res)) => {
                    if is_exempt(&res.path) {
                        continue;
                    }
                    operand_dirs.push(dir_of(r.fs, &res));
                    touches.push(res.touch(TouchKind::Operand).with_role(role));
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
        for (w, role) in words {
            let candidate = match role {
                // The model says what the word is: paths are paths whatever
                // they look like; text is never a directory (§15.8).
                Some(role) if role_is_path(role) => w,
                Some(Role::Argv) => {
                    if !argv_word_is_path(&w, r) {
                        continue;
                    }
                    w
                }
                Some(_) => continue,
                None => {
                    if let Some(v) = value_word(&w) {
                        v
                    } else if w.lit().is_some_and(|v| v.starts_with('-')) {
                        continue;
                    } else {
                        w
                    }
                }
            };
            if candidate.proc_subst {
                continue;
            }
            let static_part = r.text_of(&candidate);
            let home_start = matches!(candidate.segs.first(), Some(Seg::Home));
            if role.is_none() && !(is_path_like(&static_part, r.windows) || home_start) {
                continue;
            }
            if role.is_some()
                && candidate
                    .literal()
                    .is_some_and(|v| v.is_empty() || v == "-")
            {
                continue;
            }
            if candidate.is_dynamic() && !home_start && candidate.expanded(r.home).is_none() {
                // Dynamic word whose static part is path-like.
                match r.resolve(&candidate, cwd) {
                    Res::Path(Some(res)) => {
                        operand_dirs.push(dir_of(r.fs, &res));
                        touches.push(res.touch(TouchKind::Operand).with_role(role));
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
                    touches.push(res.touch(TouchKind::Operand).with_role(role));
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
        named,
        alt_dirs: Vec::new(),
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
pub fn path_aware_operands(base: &str, argv: &[Word], windows: bool) -> Vec<Word> {
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
        // `C:\x` under Windows semantics is a drive path, not `host:path`.
        let drive = windows && is_anchored(&w.raw, true);
        if lit.is_some() && (is_url(&v) || (!drive && is_remote_spec(&v))) {
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
            ..Default::default()
        };
        let a = analyze(cmd, Some("/nonexistent-home/p"), &env);
        let r = Resolver {
            home: "/nonexistent-home",
            windows: false,
            fs: &OsFs,
            secret_in_call: false,
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
