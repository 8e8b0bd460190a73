//! Protected paths (SPEC §9.4, §15.18): the gate's own files and the host
//! agents' control files. Rules are lexical (the files need not exist), and
//! are applied again on both sides of every symbolic link: the touched path
//! resolved as the kernel resolves it, and the protected locations resolved
//! too (`.claude -> cfg` makes `cfg/settings.json` the protected file).
//!
//! What a command *creates* is judged by the names it creates, read from its
//! source (archive members, source trees, patches, the git index): see
//! [`crate::creates`] and [`Protected::creates_protected`]; [`assess`] runs
//! every check for one command.

use std::cell::OnceCell;

use crate::candidates::{Scope, Touch, TouchKind};
use crate::config::expand_home;
use crate::creates::{self, CreateKind, Verdict};
use crate::fs::Fs;
use crate::repo;
use crate::resolve::{self, within, Kernel};
use shellgate_shell::analyze::Invocation;
use shellgate_shell::paths::{self, basename};

/// `a/b` without `format!` (hot paths).
fn join(a: &str, b: &str) -> String {
    let a = a.trim_end_matches('/');
    let mut s = String::with_capacity(a.len() + 1 + b.len());
    s.push_str(a);
    s.push('/');
    s.push_str(b);
    s
}

/// Host directories whose settings control hooks and permissions.
const HOST_DIRS: &[&str] = &[".claude", ".gemini", ".codex"];

/// Largest host settings file read for the commands its hooks name.
const MAX_SETTINGS_BYTES: usize = 1 << 20;

/// The protected locations of one evaluation.
#[derive(Debug, Clone)]
pub struct Protected<'a> {
    /// Where file-system facts come from.
    fs: &'a dyn Fs,
    gate_home: String,
    sessions: String,
    home: String,
    extra_read: Vec<String>,
    extra_write: Vec<String>,
    /// Case-insensitive comparisons (macOS, Windows).
    ci: bool,
    /// `XDG_CONFIG_HOME` of the environment commands run in (git's user
    /// configuration).
    xdg_config_home: Option<String>,
    /// Directories where hosts read their settings besides the home (the
    /// project root, the call's working directory).
    settings_dirs: Vec<String>,
    /// Protected locations whose kernel path differs from their name:
    /// `(lexical, kernel)` — the gate's home and the read list (for every
    /// check), the host directories and the write list (for writes).
    read_aliases: OnceCell<Vec<(String, String)>>,
    write_aliases: OnceCell<Vec<(String, String)>>,
    /// The lexical and kernel names of each touch already seen.
    names: std::cell::RefCell<std::collections::HashMap<String, Vec<String>, resolve::FastHash>>,
    /// Files the hosts' hook configurations run as commands (lexical and
    /// kernel paths).
    hook_files: OnceCell<Vec<String>>,
    /// Concrete protected locations (for ancestor tests).
    write_roots: Vec<String>,
    read_roots: Vec<String>,
}

/// What a command does to a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

impl<'a> Protected<'a> {
    pub fn new(
        gate_home: &str,
        home: &str,
        read: &[String],
        write: &[String],
        fs: &'a dyn Fs,
    ) -> Protected<'a> {
        let norm = |p: &String| paths::normalize(&expand_home(p, home));
        let gate_home = paths::normalize(gate_home);
        let h = paths::normalize(home);
        let extra_read: Vec<String> = read.iter().map(norm).collect();
        let extra_write: Vec<String> = write.iter().map(norm).collect();
        let mut write_roots = vec![
            gate_home.clone(),
            join(&h, ".claude/settings.json"),
            join(&h, ".claude/hooks"),
            join(&h, ".claude/commands"),
            join(&h, ".claude.json"),
            join(&h, ".codex"),
            join(&h, ".gemini/settings.json"),
        ];
        write_roots.extend(extra_write.iter().cloned());
        let mut read_roots = vec![
            join(&gate_home, "config/tool-approvals.json"),
            join(&gate_home, "state"),
        ];
        read_roots.extend(extra_read.iter().cloned());
        Protected {
            fs,
            sessions: join(&gate_home, "sessions"),
            gate_home,
            home: h,
            extra_read,
            extra_write,
            write_roots,
            read_roots,
            ci: false,
            xdg_config_home: None,
            settings_dirs: Vec::new(),
            read_aliases: OnceCell::new(),
            write_aliases: OnceCell::new(),
            names: Default::default(),
            hook_files: OnceCell::new(),
        }
    }

    /// Compare paths case-insensitively (macOS and Windows, §15.2).
    pub fn case_insensitive(mut self, ci: bool) -> Self {
        self.ci = ci;
        self
    }

    /// `XDG_CONFIG_HOME` of the environment commands run in: where git
    /// finds the user's configuration (its `include.path` and
    /// `core.hooksPath` name files git reads as configuration).
    pub fn xdg_config_home(mut self, xdg: Option<&str>) -> Self {
        self.xdg_config_home = xdg.map(str::to_string);
        self
    }

    /// Directories where hosts read their settings (the project root, the
    /// call's working directory); the home always is one.
    pub fn settings_dirs(mut self, dirs: impl IntoIterator<Item = String>) -> Self {
        for d in dirs {
            let d = paths::normalize(&d);
            if !self.settings_dirs.contains(&d) {
                self.settings_dirs.push(d);
            }
        }
        self
    }

    fn fold<'p>(&self, p: &'p str) -> std::borrow::Cow<'p, str> {
        if self.ci {
            std::borrow::Cow::Owned(p.to_lowercase())
        } else {
            std::borrow::Cow::Borrowed(p)
        }
    }

    fn within(&self, child: &str, root: &str) -> bool {
        within(child, root, self.ci)
    }

    /// `path` itself is write-protected: the gate's home (but its
    /// sessions), the operator's write list, the hosts' control files in
    /// any directory, and the files their hooks run.
    pub fn write_protected(&self, path: &str) -> bool {
        self.write_protected_name(path) || self.hook_named(path)
    }

    /// [`Protected::write_protected`] without the files hooks name.
    fn write_protected_name(&self, path: &str) -> bool {
        if self.within(path, &self.gate_home) && !self.within(path, &self.sessions) {
            return true;
        }
        if self.extra_write.iter().any(|r| self.within(path, r)) {
            return true;
        }
        host_control(&self.fold(path))
    }

    /// A file the hosts' hook configurations run.
    fn hook_named(&self, path: &str) -> bool {
        let folded = self.fold(path);
        self.hook_files().iter().any(|f| self.fold(f) == folded)
    }

    /// The approval service's socket (SPEC §17) when `text` (a whole
    /// command, any program) names it: `serve.sock` together with the
    /// gate's home — its directory name (`.shellgate`) or `SHELLGATE_HOME` —
    /// once quotes, backslashes and braces are dropped. Catches what the
    /// path analysis cannot see: the path inside another word
    /// (`socat - UNIX-CONNECT:~/.shellgate/state/serve.sock`) or inside code
    /// (`python3 -c "…connect('…/.shellgate/state/serve.sock')"`). An agent
    /// that reaches the socket answers its own requests.
    pub fn names_service_socket(&self, text: &str) -> Option<String> {
        const SOCKET: &str = "serve.sock";
        if !text.contains("sock") {
            return None;
        }
        let plain: String = text
            .chars()
            .filter(|c| !matches!(c, '\'' | '"' | '\\' | '{' | '}' | '`'))
            .collect();
        let home_name = basename(&self.gate_home);
        let names_home = |t: &str| {
            (!home_name.is_empty() && t.contains(home_name)) || t.contains("SHELLGATE_HOME")
        };
        (plain.contains(SOCKET) && names_home(&plain))
            .then(|| format!("{}/state/{SOCKET}", self.gate_home.trim_end_matches('/')))
    }

    /// `path` itself is read-protected.
    pub fn read_protected(&self, path: &str) -> bool {
        let gh = &self.gate_home;
        if self.fold(path) == self.fold(&self.read_roots[0])
            || self.within(path, &self.read_roots[1])
        {
            return true;
        }
        if self.within(path, gh)
            && !self.within(path, &self.sessions)
            && self.fold(basename(path)).starts_with("secret")
        {
            return true;
        }
        self.extra_read.iter().any(|r| self.within(path, r))
    }

    /// Creating or replacing the name `path` makes (or aliases) a protected
    /// location: it is one, or an ancestor of one (`.claude`, `.gemini`,
    /// `.codex`, the gate's home or above).
    pub fn is_protected_ancestor(&self, path: &str) -> bool {
        let name = self.fold(basename(path));
        if HOST_DIRS.contains(&name.as_ref()) {
            return true;
        }
        self.write_roots().iter().any(|r| self.within(r, path))
    }

    /// Concrete protected locations, to test whether a directory is an
    /// ancestor of one (lexical; project-level host settings are found by
    /// looking at the directory).
    fn write_roots(&self) -> &[String] {
        &self.write_roots
    }

    fn read_roots(&self) -> &[String] {
        &self.read_roots
    }

    /// `dir` is an ancestor of (or equal to) a protected location.
    fn ancestor_of(&self, dir: &str, access: Access) -> bool {
        let roots = match access {
            Access::Write => self.write_roots(),
            Access::Read => self.read_roots(),
        };
        if roots.iter().any(|r| self.within(r, dir)) {
            return true;
        }
        if access == Access::Write {
            if self.within(dir, &self.gate_home) && !self.within(dir, &self.sessions) {
                return true;
            }
            // Project-level host settings below `dir` (looked up, not
            // guessed), and `dir` inside a host directory.
            if host_control(&self.fold(&format!("{dir}/settings.json")))
                || host_control(&self.fold(&format!("{dir}/x")))
            {
                return true;
            }
            for sub in [".claude", ".codex", ".gemini", ".mcp.json"] {
                if self.fs.lstat(&format!("{dir}/{sub}")).is_ok() {
                    return true;
                }
            }
        }
        false
    }

    fn protected(&self, path: &str, access: Access) -> bool {
        match access {
            Access::Write => self.write_protected(path),
            Access::Read => self.read_protected(path),
        }
    }

    /// [`Protected::protected`] for a touch of `kind`: a working directory
    /// is never a file a hook runs.
    fn protected_as(&self, path: &str, access: Access, kind: TouchKind) -> bool {
        match (access, kind) {
            (Access::Write, TouchKind::WorkingDir) => self.write_protected_name(path),
            _ => self.protected(path, access),
        }
    }

    /// Protected locations that resolve elsewhere (§15.18): the gate's home
    /// and its parts, the operator's lists, and (for writes) the host
    /// directories of the home and of every settings directory, each with
    /// its kernel path when that differs from its name.
    fn aliases(&self, access: Access) -> &[(String, String)] {
        // Each anchor `D/n`: its kernel path is `kernel(D)/n` unless `D/n`
        // is itself a link (one probe per anchor, one walk per `D`).
        let resolved = |groups: Vec<(String, Vec<String>)>| {
            let mut out: Vec<(String, String)> = Vec::new();
            for (d, names) in groups {
                let Kernel::Path(kd) = resolve::kernel(self.fs, &d, true) else {
                    continue;
                };
                let d = d.trim_end_matches('/');
                for n in names {
                    let a = join(d, &n);
                    let k = if matches!(self.fs.lstat(&a), Ok(crate::fs::FileKind::Symlink)) {
                        match resolve::kernel(self.fs, &a, true) {
                            Kernel::Path(k) => k,
                            Kernel::Unresolvable | Kernel::ProcView => continue,
                        }
                    } else if kd == d {
                        continue;
                    } else {
                        join(&kd, &n)
                    };
                    if k != a && !out.iter().any(|(x, _)| *x == a) {
                        out.push((a, k));
                    }
                }
            }
            out
        };
        let read = self.read_aliases.get_or_init(|| {
            let g = &self.gate_home;
            let mut out = Vec::new();
            // The gate's home itself, then its parts.
            if let Kernel::Path(k) = resolve::kernel(self.fs, g, true) {
                if k != *g {
                    out.push((g.clone(), k));
                }
            }
            // (`sessions` needs no alias of its own: through an alias of
            // the home it maps back under `sessions/`, which stays open.)
            let mut groups = vec![(g.clone(), vec!["config".to_string(), "state".into()])];
            for r in &self.extra_read {
                groups.push((paths::parent(r), vec![basename(r).to_string()]));
            }
            out.extend(resolved(groups));
            out
        });
        if access == Access::Read {
            return read;
        }
        self.write_aliases.get_or_init(|| {
            let mut groups = vec![(
                self.home.clone(),
                std::iter::once(".claude.json")
                    .chain(HOST_DIRS.iter().copied())
                    .map(str::to_string)
                    .collect::<Vec<_>>(),
            )];
            for d in &self.settings_dirs {
                groups.push((
                    d.clone(),
                    HOST_DIRS
                        .iter()
                        .chain([".mcp.json"].iter())
                        .map(|n| n.to_string())
                        .collect(),
                ));
            }
            for r in &self.extra_write {
                groups.push((paths::parent(r), vec![basename(r).to_string()]));
            }
            let mut out = read.to_vec();
            out.extend(resolved(groups));
            out
        })
    }

    /// The names under which a touch reaches the file system: as written
    /// (lexical), as the kernel resolves it (following the last link and
    /// not), and each of those seen through a protected location that
    /// resolves elsewhere.
    fn variants(&self, t: &Touch, access: Access) -> Vec<String> {
        let raw = match t.scope {
            Scope::Glob { .. } => resolve::static_dir(&t.raw),
            _ => t.raw.clone(),
        };
        let mut key = String::with_capacity(t.path.len() + raw.len() + 1);
        key.push_str(&t.path);
        key.push('\0');
        key.push_str(&raw);
        let known = self.names.borrow().get(&key).cloned();
        let mut v = match known {
            Some(v) => v,
            None => {
                let mut v = vec![t.path.clone()];
                if let Kernel::Path(k) = resolve::kernel(self.fs, &raw, false) {
                    let link = matches!(self.fs.lstat(&k), Ok(crate::fs::FileKind::Symlink));
                    if link || raw.ends_with('/') {
                        if let Kernel::Path(f) = resolve::kernel(self.fs, &raw, true) {
                            if !v.contains(&f) {
                                v.push(f);
                            }
                        }
                    }
                    if !v.contains(&k) {
                        v.push(k);
                    }
                }
                self.names.borrow_mut().insert(key, v.clone());
                v
            }
        };
        // A working directory is checked by its own names (lexical and
        // resolved): what a command writes there is named by its operands
        // and redirects, which are checked through the aliases too.
        if t.kind == TouchKind::WorkingDir {
            return v;
        }
        // A read through an alias of the gate's home can only reach the
        // files that are read-protected there: their names, or anything
        // when the operator listed more or the read is recursive.
        if access == Access::Read && !self.read_alias_may_apply(&v) {
            return v;
        }
        let aliases = self.aliases(access);
        if !aliases.is_empty() {
            for k in v.clone() {
                for (name, target) in aliases {
                    if self.within(&k, target) {
                        let mapped = format!("{name}{}", &k[target.len()..]);
                        if !v.contains(&mapped) {
                            v.push(mapped);
                        }
                    }
                }
            }
        }
        v
    }

    /// Whether a read of one of `names` could be a read-protected file
    /// through an alias of the gate's home: `tool-approvals.json`,
    /// `secret*`, the state database, or any name with operator read roots
    /// (a recursive read passes its directory, which takes this path too
    /// through [`Protected::ancestor_of`]).
    fn read_alias_may_apply(&self, names: &[String]) -> bool {
        if !self.extra_read.is_empty() {
            return true;
        }
        names.iter().any(|n| {
            let b = self.fold(basename(n));
            b == "tool-approvals.json"
                || b.starts_with("secret")
                || b.starts_with("shellgate")
                || b == "state"
                || b == "config"
                || !b.contains('.')
        })
    }

    /// Whether a touch reaches a protected path for `access`: the path
    /// itself, what a glob could match, or (for recursive operations) what
    /// lies below it.
    fn reaches(&self, t: &Touch, access: Access, recursive: bool) -> bool {
        // A path through the command's own `/proc` view (a file descriptor
        // it opened, `/dev/fd/3/settings.json`, another process's `cwd`)
        // names what the gate cannot see: it may be any protected file.
        if self.through_proc_view(t) {
            return true;
        }
        // A glob is judged on what it really matches when its directories
        // can be listed, else on what its pattern could match.
        let expansion = match t.scope {
            Scope::Glob { .. } => Some(resolve::expand(self.fs, &t.raw, self.ci)),
            _ => None,
        };
        let listed = expansion.as_ref().is_some_and(|e| e.complete);
        for p in self.variants(t, access) {
            match t.scope {
                Scope::Exact => {
                    if self.protected_as(&p, access, t.kind) {
                        return true;
                    }
                    if recursive && self.ancestor_of(&p, access) {
                        return true;
                    }
                }
                Scope::Glob { recursive: deep } => {
                    let last = last_glob(&t.raw);
                    if self.glob_reaches(&p, access, deep || recursive, last, listed) {
                        return true;
                    }
                }
                Scope::Prefix => {
                    // A dynamic word is complex (a human sees it); its static
                    // prefix counts like a named directory.
                    if self.protected(&p, access) || (recursive && self.ancestor_of(&p, access)) {
                        return true;
                    }
                }
            }
        }
        if let (Scope::Glob { recursive: deep }, Some(exp)) = (t.scope, &expansion) {
            // What the glob really matches, each as a path.
            for (m, _) in &exp.matches {
                let mt = Touch {
                    path: paths::normalize(m),
                    raw: m.clone(),
                    kind: t.kind,
                    scope: Scope::Exact,
                    follow: true,
                    role: None,
                };
                if self.reaches(&mt, access, recursive || deep) {
                    return true;
                }
            }
        }
        false
    }

    /// Whether the kernel resolves `t` in the command's own process view
    /// ([`Kernel::ProcView`]), following its last link or not.
    fn through_proc_view(&self, t: &Touch) -> bool {
        let raw = match t.scope {
            Scope::Glob { .. } => resolve::static_dir(&t.raw),
            _ => t.raw.clone(),
        };
        // The walk without following the last name is the one
        // [`Protected::variants`] makes (kept for the evaluation); the one
        // following it only where the name is a link or the text names
        // `/proc` or `/dev` itself.
        let k = resolve::kernel(self.fs, &raw, false);
        if k == Kernel::ProcView {
            return true;
        }
        let follow = raw.contains("/proc")
            || raw.contains("/dev/")
            || matches!(&k, Kernel::Path(p)
                if matches!(self.fs.lstat(p), Ok(crate::fs::FileKind::Symlink)));
        follow && resolve::kernel(self.fs, &raw, true) == Kernel::ProcView
    }

    /// Everything a glob can match in its directory `p` (and below, for
    /// `**` or a recursive operation).
    fn glob_reaches(
        &self,
        p: &str,
        access: Access,
        deep: bool,
        last: Option<&str>,
        listed: bool,
    ) -> bool {
        if self.protected(p, access) {
            return true;
        }
        let direct_child =
            |root: &str| self.within(root, p) && root != p && (deep || paths::parent(root) == p);
        let roots = match access {
            Access::Write => self.write_roots(),
            Access::Read => self.read_roots(),
        };
        if roots.iter().any(|r| direct_child(r)) {
            return true;
        }
        if access == Access::Write && direct_child(&self.gate_home) {
            return true;
        }
        if access == Access::Read
            && self.within(p, &self.gate_home)
            && !self.within(p, &self.sessions)
        {
            // secret* files could match.
            return true;
        }
        if access == Access::Write && deep && !listed && self.ancestor_of(p, access) {
            return true;
        }
        // `~/.claude/*` matches settings*.json, hooks/, commands/; a host
        // directory or `.mcp.json` may be matched in any directory.
        // (When the directory was listed, the matches themselves were
        // checked: a glob only ever expands to names that exist.)
        if access == Access::Write && !listed {
            for child in [
                "settings.json",
                "settings.local.json",
                "hooks",
                "commands",
                "x",
                ".mcp.json",
                ".claude.json",
            ] {
                let could = last.is_none_or(|pat| resolve::glob_match(pat, child, true));
                if could && host_control(&self.fold(&format!("{p}/{child}"))) {
                    return true;
                }
            }
        }
        false
    }

    /// Files the hosts' hook configurations run (§15.18): the `command`s of
    /// `hooks` in Claude Code and Gemini CLI `settings*.json` and Codex
    /// `hooks.json`, Claude's `statusLine` and helper commands, and the
    /// `command`/`args` of MCP servers in `.mcp.json`, in the home and every
    /// settings directory. Read only where the host directory exists,
    /// bounded; a file the gate cannot read or parse is one the host cannot
    /// use either, so it names nothing.
    fn hook_files(&self) -> &[String] {
        self.hook_files.get_or_init(|| {
            let mut out = Vec::new();
            let project = self
                .settings_dirs
                .first()
                .cloned()
                .unwrap_or_else(|| self.home.clone());
            for d in std::iter::once(&self.home).chain(self.settings_dirs.iter()) {
                let d = d.trim_end_matches('/');
                let mut files = Vec::new();
                if self.fs.lstat(&format!("{d}/.claude")).is_ok() {
                    files.push(format!("{d}/.claude/settings.json"));
                    // A project's local settings (the user's are settings.json).
                    if d != self.home {
                        files.push(format!("{d}/.claude/settings.local.json"));
                    }
                }
                if self.fs.lstat(&format!("{d}/.gemini")).is_ok() {
                    files.push(format!("{d}/.gemini/settings.json"));
                }
                if self.fs.lstat(&format!("{d}/.codex")).is_ok() {
                    files.push(format!("{d}/.codex/hooks.json"));
                }
                // `.mcp.json` is read at a project's root (not the home).
                if d != self.home && self.fs.lstat(&format!("{d}/.mcp.json")).is_ok() {
                    files.push(format!("{d}/.mcp.json"));
                }
                let base_dir = if d == self.home { project.as_str() } else { d };
                for f in files {
                    for cmd in settings_commands(self.fs, &f) {
                        for w in command_paths(&cmd, base_dir, &self.home) {
                            if let Kernel::Path(k) = resolve::kernel(self.fs, &w, true) {
                                if !out.contains(&k) {
                                    out.push(k);
                                }
                            }
                            let lexical = paths::normalize(&w);
                            if !out.contains(&lexical) {
                                out.push(lexical);
                            }
                        }
                    }
                }
            }
            out
        })
    }

    /// Whether `dir` is a directory where a host reads its settings (§15.18):
    /// the home, a settings directory, an ancestor of one, or inside a
    /// host directory or the gate's home.
    pub fn settings_dir(&self, dir: &str) -> bool {
        std::iter::once(&self.home)
            .chain(self.settings_dirs.iter())
            .any(|d| self.within(d, dir))
            || self.within(dir, &self.gate_home)
            || self.fold(dir).split('/').any(|s| HOST_DIRS.contains(&s))
    }

    /// What creating names at `target` from `source` makes (§15.18,
    /// §15.20): [`Verdict::Protected`] when a created name is a protected
    /// path or an ancestor of one (lexically, and through existing links at
    /// the destination), [`Verdict::GitInternal`] when it is one of git's
    /// internals, [`Verdict::Unknown`] when the source cannot be read within
    /// the bounds (it does not exist yet, standard input from a pipe, too
    /// large, an unknown format), [`Verdict::Clear`] otherwise. `source` is
    /// absolute as written; `target` absolute (see [`CreateKind`] for what
    /// each is).
    pub fn creates_protected(
        &self,
        source: Option<&str>,
        target: &str,
        kind: CreateKind,
    ) -> Verdict {
        let target = paths::normalize(target);
        match kind {
            CreateKind::Name => self.created(&target, &target, true),
            CreateKind::Tree => {
                let Some(src) = source else {
                    return Verdict::Unknown(
                        "the source is not a local path written without expansions".into(),
                    );
                };
                let Some(k) = creates::existing(self.fs, src) else {
                    return Verdict::Unknown(format!("{src} does not exist yet"));
                };
                if !matches!(self.fs.stat(&k), Ok(crate::fs::FileKind::Dir)) {
                    return Verdict::Clear;
                }
                match creates::list_tree(self.fs, &k) {
                    Ok(entries) => self.all_created(&target, entries.iter().map(String::as_str)),
                    Err(e) => Verdict::Unknown(e),
                }
            }
            CreateKind::Archive => {
                let Some(src) = source else {
                    return Verdict::Unknown(
                        "the archive comes from a pipe or an expansion".into(),
                    );
                };
                let Some(k) = creates::existing(self.fs, src) else {
                    return Verdict::Unknown(format!("{src} does not exist yet"));
                };
                match creates::list_archive(self.fs, &k) {
                    Ok(members) => self.members_created(&target, &members),
                    Err(e) => Verdict::Unknown(e),
                }
            }
            CreateKind::Patch => {
                let Some(src) = source else {
                    return Verdict::Unknown("the patch comes from a pipe or an expansion".into());
                };
                let Some(k) = creates::existing(self.fs, src) else {
                    return Verdict::Unknown(format!("{src} does not exist yet"));
                };
                match creates::patch_paths(self.fs, &k) {
                    Ok(ps) => self.patched(&target, &ps),
                    Err(e) => Verdict::Unknown(e),
                }
            }
            CreateKind::GitIndex => {
                let Some(index) = source else {
                    return Verdict::Unknown("no git index".into());
                };
                let Some(top) = repo::work_tree(self.fs, &target) else {
                    return Verdict::Unknown("no work tree".into());
                };
                match creates::index_paths(self.fs, index) {
                    Ok(entries) => {
                        let full: Vec<String> = entries
                            .iter()
                            .map(|e| format!("{}/{e}", top.trim_end_matches('/')))
                            .filter(|f| {
                                resolve::kernel(self.fs, &target, true)
                                    .path()
                                    .is_some_and(|kt| self.within(f, kt) || self.within(f, &target))
                            })
                            .collect();
                        let mut worst = Verdict::Clear;
                        for f in full {
                            worst = worse(worst, self.created(&f, &f, false));
                            if matches!(worst, Verdict::Protected(_)) {
                                break;
                            }
                        }
                        worst
                    }
                    Err(e) => Verdict::Unknown(e),
                }
            }
        }
    }

    /// What a patch given as text (a heredoc, a here-string) creates at
    /// `target` (see [`Protected::creates_protected`]).
    pub fn patch_text_creates(&self, text: &str, target: &str) -> Verdict {
        let ps = creates::patch_paths_of(text);
        self.patched(&paths::normalize(target), &ps)
    }

    /// The files of a patch, with any number of leading components
    /// stripped (`-pN` may be given in any spelling, or not at all). A
    /// patch naming no file is not understood: patch may still find one
    /// (an ed script, a header it guesses, `Index:` lines).
    fn patched(&self, target: &str, ps: &[String]) -> Verdict {
        if ps.is_empty() {
            return Verdict::Unknown("no file name could be read from the patch".into());
        }
        let stripped: Vec<String> = ps
            .iter()
            .flat_map(|p| {
                let p = p.trim_start_matches('/');
                let cuts = p.match_indices('/').map(|(i, _)| p[i + 1..].to_string());
                std::iter::once(p.to_string())
                    .chain(cuts)
                    .collect::<Vec<_>>()
            })
            .filter(|p| !p.is_empty())
            .collect();
        self.all_created(target, stripped.iter().map(String::as_str))
    }

    fn all_created<'s>(&self, target: &str, rels: impl Iterator<Item = &'s str>) -> Verdict {
        let mut worst = Verdict::Clear;
        for rel in rels {
            let raw = resolve::join_raw(target, rel.trim_start_matches("./"));
            let lexical = paths::normalize(&raw);
            worst = worse(worst, self.created(&lexical, &raw, false));
            if matches!(worst, Verdict::Protected(_)) {
                break;
            }
        }
        worst
    }

    fn members_created(&self, target: &str, members: &[creates::Member]) -> Verdict {
        let mut worst = Verdict::Clear;
        let mut links: Vec<String> = Vec::new();
        // Where the kernel puts the extraction directory: a member must land
        // below it, whatever links already stand inside it.
        let target_k = resolve::kernel(self.fs, target, true);
        for m in members {
            let name = m.name.trim_start_matches("./");
            if name.is_empty() || name == "." {
                continue;
            }
            let rel = paths::normalize(&format!("/{name}"));
            // A member written through a link an earlier member made.
            if links.iter().any(|l| rel != *l && paths::is_within(&rel, l)) {
                worst = worse(
                    worst,
                    Verdict::Unknown(format!("{name} is written through a link in the archive")),
                );
            }
            if m.link {
                links.push(rel.clone());
            }
            let raw = resolve::join_raw(target, name.trim_start_matches('/'));
            if !m.name.starts_with('/') {
                let stays = match (
                    target_k.path(),
                    resolve::kernel(self.fs, &raw, false).path(),
                ) {
                    (Some(t), Some(k)) => paths::is_within(k, t) && k != t,
                    _ => false,
                };
                if !stays {
                    worst = worse(worst, Verdict::ThroughLink(name.to_string()));
                }
            }
            worst = worse(worst, self.created(&paths::normalize(&raw), &raw, false));
            if m.name.starts_with('/') {
                // Absolute members (`tar -P`, `cpio` without
                // `--no-absolute-filenames`) land where they say.
                worst = worse(
                    worst,
                    self.created(&paths::normalize(&m.name), &m.name, false),
                );
            }
            if matches!(worst, Verdict::Protected(_)) {
                break;
            }
        }
        worst
    }

    /// The verdict on one created name (`lexical`, and `raw` as written for
    /// the kernel). `replace`: the name itself is created or replaced, so
    /// an ancestor of a protected location counts, unless it exists as a
    /// real directory (copying into it merges).
    fn created(&self, lexical: &str, raw: &str, replace: bool) -> Verdict {
        let t = Touch {
            path: lexical.to_string(),
            raw: raw.to_string(),
            kind: TouchKind::Operand,
            scope: Scope::Exact,
            follow: false,
            role: None,
        };
        if self.reaches(&t, Access::Write, false) {
            return Verdict::Protected(lexical.to_string());
        }
        // A name made where a protected directory already stands: the
        // program fails (`ln -t . tpl/.claude` with `.claude` present) or
        // merges into it; neither is a reason to let it through, and the
        // gate does not rely on the failure (fail closed).
        let creates_it = replace || self.fs.lstat(lexical).is_err();
        if creates_it && self.is_protected_ancestor(lexical) {
            return Verdict::Protected(lexical.to_string());
        }
        if self.variants(&t, Access::Write).iter().any(|v| {
            repo::is_git_internal(v, self.ci)
                || repo::git_reads_as_config(
                    self.fs,
                    v,
                    &self.home,
                    self.xdg_config_home.as_deref(),
                )
        }) {
            return Verdict::GitInternal(lexical.to_string());
        }
        Verdict::Clear
    }
}

/// The pattern of a glob whose only globbed segment is its last one (what
/// it matches directly in its static directory); `None` otherwise.
fn last_glob(raw: &str) -> Option<&str> {
    let mut segs = raw.rsplit('/');
    let last = segs.next()?;
    if !resolve::has_glob(last) || segs.any(resolve::has_glob) {
        return None;
    }
    Some(last)
}

/// The more severe of two verdicts.
fn worse(a: Verdict, b: Verdict) -> Verdict {
    let rank = |v: &Verdict| match v {
        Verdict::Clear => 0,
        Verdict::Unknown(_) => 1,
        Verdict::GitInternal(_) | Verdict::ThroughLink(_) => 2,
        Verdict::Protected(_) => 3,
    };
    if rank(&b) > rank(&a) {
        b
    } else {
        a
    }
}

/// Whether the command touches a protected path; returns the path.
pub fn violation(p: &Protected, touches: &[Touch], b: Behaviour) -> Option<String> {
    let operand_count = touches
        .iter()
        .filter(|t| t.kind == TouchKind::Operand)
        .count();
    let mut operand_index = 0;
    for t in touches {
        let is_last_operand = if t.kind == TouchKind::Operand {
            operand_index += 1;
            operand_index == operand_count
        } else {
            false
        };
        match t.kind {
            TouchKind::WorkingDir => {
                let reach_write = !b.reader && p.reaches(&exact(t), Access::Write, false);
                let reach_read = b.reader && p.reaches(&exact(t), Access::Read, false);
                if reach_write || reach_read {
                    return Some(t.path.clone());
                }
            }
            TouchKind::RedirectWrite => {
                if p.reaches(t, Access::Write, false) || p.reaches(t, Access::Read, false) {
                    return Some(t.path.clone());
                }
            }
            TouchKind::RedirectRead => {
                if p.reaches(t, Access::Read, false) {
                    return Some(t.path.clone());
                }
                if !b.reader && p.reaches(t, Access::Write, false) {
                    return Some(t.path.clone());
                }
            }
            TouchKind::Operand => {
                // Any touch of a read-protected path reads it, whoever runs.
                let listing_ancestor = b.lists;
                // `reads_tree(true)`: below the operand only matters when it
                // is a directory, which a `dir_reads` program reads too.
                if p.reaches(t, Access::Read, b.reads_tree(true) && !listing_ancestor) {
                    return Some(t.path.clone());
                }
                let dest = b.dest_last && is_last_operand;
                let writes_below =
                    (b.recursive_write && !dest) || (b.extracts_into_last && is_last_operand);
                if !b.reader && p.reaches(t, Access::Write, writes_below) {
                    return Some(t.path.clone());
                }
            }
        }
    }
    None
}

fn exact(t: &Touch) -> Touch {
    Touch {
        scope: Scope::Exact,
        ..t.clone()
    }
}

/// Everything the protected-path layer finds in one command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Assessment {
    /// A protected path it touches or creates (deny `protected_path`).
    pub violation: Option<String>,
    /// Complex reasons (one-shot approval): `git_internals` (a write by
    /// anything but git to git's code-bearing internals, §15.5),
    /// `unknown_creation` (an extraction or recursive copy into a settings
    /// directory whose created names cannot be read, §15.18).
    pub complex: Vec<String>,
}

/// Judge one command (§9.4, §15.5, §15.18): the protected paths it touches
/// (lexically and resolved, through globs and recursion), what it creates
/// (from its source), and writes to git's internals.
pub fn assess(p: &Protected, inv: &Invocation, touches: &[Touch], reader: bool) -> Assessment {
    let mut out = Assessment::default();
    let b = behaviour(inv, reader);
    if let Some(v) = violation(p, touches, b) {
        out.violation = Some(v);
        return out;
    }
    if reader {
        return out;
    }
    let push = |r: &str, out: &mut Assessment| {
        if !out.complex.iter().any(|x| x == r) {
            out.complex.push(r.to_string());
        }
    };
    let plan = creates::plan(p.fs, inv);
    for c in &plan {
        let verdict = match &c.text {
            Some(text) if c.kind == CreateKind::Patch => p.patch_text_creates(text, &c.target),
            _ => p.creates_protected(c.source.as_deref(), &c.target, c.kind),
        };
        match verdict {
            Verdict::Protected(x) => {
                out.violation = Some(x);
                out.complex.clear();
                return out;
            }
            Verdict::GitInternal(_) => push("git_internals", &mut out),
            Verdict::ThroughLink(_) => push("created_through_link", &mut out),
            Verdict::Unknown(_) => {
                if c.kind != CreateKind::Name && p.settings_dir(&c.target) {
                    push("unknown_creation", &mut out);
                }
                // Unread contents landing in a repository's git directory
                // (`tar -xf x.tar -C .git`) may plant hooks or config.
                let in_git = c
                    .target
                    .split(['/', '\\'])
                    .any(|seg| seg == ".git" || seg.ends_with(".git"));
                if in_git {
                    push("git_internals", &mut out);
                }
            }
            Verdict::Clear => {}
        }
    }
    // Writes to git's internals by anything but git (§15.5). Programs whose
    // created names were read above are judged on those; others on every
    // operand they may write.
    let base = inv.base();
    let by_plan = !plan.is_empty() || b.dest_last;
    for t in touches {
        // An option's value the program writes (`patch -r
        // .git/hooks/pre-commit`, rt11 F4) is judged whatever the plan
        // read.
        let option_write = matches!(t.role, Some(shellgate_programs::Role::Write));
        let written = match t.kind {
            TouchKind::RedirectWrite => true,
            TouchKind::Operand => base != "git" && (!by_plan || option_write),
            _ => false,
        };
        // A glob whose directory part may be a git directory (`.gi?/config`,
        // `.[g]it/hooks/x`, rt10 F17): bash expands it, the variants above
        // see only its static directory.
        let glob_git = matches!(t.scope, Scope::Glob { .. })
            && t.raw
                .split('/')
                .any(|seg| seg.contains(['*', '?', '[']) && resolve::glob_match(seg, ".git", p.ci));
        let reads_only = matches!(
            t.role,
            Some(shellgate_programs::Role::Read | shellgate_programs::Role::List)
        );
        let glob_operand = glob_git && t.kind == TouchKind::Operand && base != "git" && !reads_only;
        if (written || glob_operand)
            && (glob_git
                || p.variants(t, Access::Write).iter().any(|v| {
                    repo::is_git_internal(v, p.ci)
                        || repo::git_reads_as_config(p.fs, v, &p.home, p.xdg_config_home.as_deref())
                }))
        {
            push("git_internals", &mut out);
        }
    }
    out
}

mod behaviour;
mod settings;

pub use behaviour::{behaviour, Behaviour};
use settings::{command_paths, host_control, settings_commands};

#[cfg(test)]
mod tests;
