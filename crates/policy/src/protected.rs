//! Protected paths (SPEC §9.4): the gate's own files and the host agents'
//! hook settings. Rules are lexical (the files need not exist) and are
//! applied again after resolving symlinks.

use crate::candidates::{Scope, Touch, TouchKind};
use crate::config::expand_home;
use crate::fs::{FileKind, Fs};
use shellgate_shell::analyze::Invocation;
use shellgate_shell::paths::{self, basename, is_within};
use shellgate_shell::word::Word;

/// The protected locations of one evaluation.
#[derive(Debug, Clone)]
pub struct Protected<'a> {
    /// Symlink resolutions done during this evaluation.
    resolved: std::cell::RefCell<std::collections::HashMap<String, String>>,
    /// Where file-system facts come from.
    fs: &'a dyn Fs,
    gate_home: String,
    sessions: String,
    home: String,
    extra_read: Vec<String>,
    extra_write: Vec<String>,
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
        Protected {
            resolved: Default::default(),
            fs,
            sessions: format!("{}/sessions", gate_home.trim_end_matches('/')),
            gate_home,
            home: paths::normalize(home),
            extra_read: read.iter().map(norm).collect(),
            extra_write: write.iter().map(norm).collect(),
        }
    }

    /// `path` itself is write-protected.
    pub fn write_protected(&self, path: &str) -> bool {
        if is_within(path, &self.gate_home) && !is_within(path, &self.sessions) {
            return true;
        }
        if self.extra_write.iter().any(|r| is_within(path, r)) {
            return true;
        }
        host_settings(path, &self.home)
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
        if path == format!("{gh}/config/tool-approvals.json")
            || is_within(path, &format!("{gh}/state"))
        {
            return true;
        }
        if is_within(path, gh)
            && !is_within(path, &self.sessions)
            && basename(path).starts_with("secret")
        {
            return true;
        }
        self.extra_read.iter().any(|r| is_within(path, r))
    }

    /// Concrete protected locations, to test whether a directory is an
    /// ancestor of one (lexical; project-level host settings are found by
    /// looking at the directory).
    fn write_roots(&self) -> Vec<String> {
        let mut v = vec![
            format!("{}/config", self.gate_home),
            format!("{}/state", self.gate_home),
            format!("{}/.claude/settings.json", self.home),
            format!("{}/.codex", self.home),
            format!("{}/.gemini/settings.json", self.home),
        ];
        v.extend(self.extra_write.iter().cloned());
        v
    }

    fn read_roots(&self) -> Vec<String> {
        let mut v = vec![
            format!("{}/config/tool-approvals.json", self.gate_home),
            format!("{}/state", self.gate_home),
        ];
        v.extend(self.extra_read.iter().cloned());
        v
    }

    /// `dir` is a strict ancestor of (or equal to) a protected location.
    fn ancestor_of(&self, dir: &str, access: Access) -> bool {
        let roots = match access {
            Access::Write => self.write_roots(),
            Access::Read => self.read_roots(),
        };
        if roots.iter().any(|r| is_within(r, dir)) {
            return true;
        }
        if access == Access::Write && (is_within(&self.gate_home, dir)) {
            return true;
        }
        // Project-level host settings below `dir` (looked up, not guessed).
        if access == Access::Write {
            for sub in [".claude", ".codex", ".gemini"] {
                if self.fs.stat(&format!("{dir}/{sub}")).is_ok() {
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

    /// Whether a touch reaches a protected path for `access`: the path
    /// itself, what a glob could match, or (for recursive operations) what
    /// lies below it.
    fn reaches(&self, t: &Touch, access: Access, recursive: bool) -> bool {
        for p in self.variants(&t.path) {
            match t.scope {
                Scope::Exact => {
                    if self.protected(&p, access) {
                        return true;
                    }
                    if recursive && self.ancestor_of(&p, access) {
                        return true;
                    }
                }
                Scope::Glob { recursive: deep } => {
                    // Everything the glob can match in its directory.
                    if self.protected(&p, access) {
                        return true;
                    }
                    let direct_child = |root: &str| {
                        is_within(root, &p)
                            && root != p
                            && (deep || recursive || paths::parent(root) == p)
                    };
                    let roots = match access {
                        Access::Write => self.write_roots(),
                        Access::Read => self.read_roots(),
                    };
                    if roots.iter().any(|r| direct_child(r)) {
                        return true;
                    }
                    if access == Access::Write
                        && (direct_child(&self.gate_home)
                            || paths::parent(&format!("{}/x", self.gate_home)) == p)
                    {
                        return true;
                    }
                    if access == Access::Read
                        && is_within(&p, &self.gate_home)
                        && !is_within(&p, &self.sessions)
                    {
                        // secret* files could match.
                        return true;
                    }
                    if access == Access::Write
                        && self.ancestor_of(&p, access)
                        && (deep || recursive)
                    {
                        return true;
                    }
                    // `~/.claude/*` matches settings*.json.
                    if access == Access::Write
                        && host_settings(&format!("{p}/settings.json"), &self.home)
                    {
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
        false
    }
}

impl Protected<'_> {
    /// The lexical path and, when different, the path with symlinks
    /// resolved (for the longest existing prefix).
    fn variants(&self, path: &str) -> Vec<String> {
        let real = self.resolve(path);
        if real != path {
            vec![path.to_string(), real]
        } else {
            vec![path.to_string()]
        }
    }

    /// Resolve symlinks along `path` (normalized, absolute), reusing the
    /// resolutions of its ancestors done earlier in this evaluation: touches
    /// share the working directory, so most cost one `lstat`.
    fn resolve(&self, path: &str) -> String {
        if let Some(r) = self.resolved.borrow().get(path) {
            return r.clone();
        }
        // Ancestors not resolved yet, nearest first.
        let mut pending: Vec<String> = Vec::new();
        let mut cur = path.to_string();
        let mut base = loop {
            if let Some(r) = self.resolved.borrow().get(&cur) {
                break r.clone();
            }
            if cur == "/" {
                break "/".to_string();
            }
            pending.push(cur.clone());
            cur = paths::parent(&cur);
        };
        // `missing`: an ancestor does not exist, so nothing below does.
        let mut missing = false;
        while let Some(lexical) = pending.pop() {
            let seg = basename(&lexical);
            let candidate = if base == "/" {
                format!("/{seg}")
            } else {
                format!("{base}/{seg}")
            };
            let next = if missing {
                candidate
            } else {
                match self.fs.lstat(&candidate) {
                    Ok(FileKind::Symlink) => match self.fs.canonicalize(&candidate) {
                        Ok(r) => paths::normalize(&r.to_string_lossy()),
                        Err(_) => candidate,
                    },
                    Ok(_) => candidate,
                    Err(_) => {
                        missing = true;
                        candidate
                    }
                }
            };
            self.resolved.borrow_mut().insert(lexical, next.clone());
            base = next;
        }
        base
    }
}

/// Host agent settings that control hooks and permissions.
fn host_settings(path: &str, home: &str) -> bool {
    let name = basename(path);
    let parent = paths::parent(path);
    let parent_name = basename(&parent);
    if parent_name == ".claude" && name.starts_with("settings") && name.ends_with(".json") {
        return true;
    }
    if parent_name == ".gemini" && name == "settings.json" {
        return true;
    }
    // Anything under a `.codex` directory, and the directory itself.
    if path.split('/').any(|seg| seg == ".codex") {
        return true;
    }
    let _ = home;
    false
}

/// How a command treats the paths it names (§9.4).
#[derive(Debug, Clone, Copy, Default)]
pub struct Behaviour {
    /// Qualifies as read-only (§8.1) and has no write redirect.
    pub reader: bool,
    /// Deletes, moves or changes permissions recursively.
    pub recursive_write: bool,
    /// Reads recursively (grep -r, rg, tar -c, zip -r, cp -r, rsync, scp -r).
    pub recursive_read: bool,
    /// Index (in operand touches) of a destination written recursively
    /// (`cp -r`/`rsync`/`scp -r` destination, `tar -x -C`, `unzip -d`).
    pub extracts_into_last: bool,
    /// Lists names only (ls, find without actions, tree, du).
    pub lists: bool,
}

fn words(argv: &[Word]) -> Vec<String> {
    argv.iter()
        .map(|w| w.literal().unwrap_or_else(|| w.lossy_value()))
        .collect()
}

fn has_short(args: &[String], c: char) -> bool {
    args.iter()
        .any(|a| a.starts_with('-') && !a.starts_with("--") && a[1..].contains(c))
}

fn has_long(args: &[String], l: &str) -> bool {
    args.iter()
        .any(|a| a == l || a.starts_with(&format!("{l}=")))
}

/// Classify a command's recursion behaviour.
pub fn behaviour(inv: &Invocation, reader: bool) -> Behaviour {
    let w = words(&inv.argv);
    let base = inv.base();
    let args: Vec<String> = w.iter().skip(1).cloned().collect();
    let mut b = Behaviour {
        reader,
        ..Behaviour::default()
    };
    match base.as_str() {
        "rm" => {
            b.recursive_write =
                has_short(&args, 'r') || has_short(&args, 'R') || has_long(&args, "--recursive")
        }
        "mv" => b.recursive_write = true,
        "chmod" | "chown" | "chgrp" => {
            b.recursive_write = has_short(&args, 'R') || has_long(&args, "--recursive")
        }
        "rsync" => {
            b.recursive_read = true;
            b.extracts_into_last = true;
            if args
                .iter()
                .any(|a| a.starts_with("--delete") || a == "--remove-source-files")
            {
                b.recursive_write = true;
            }
        }
        "find" => {
            if args.iter().any(|a| a == "-delete") {
                b.recursive_write = true;
            } else if args.iter().any(|a| {
                matches!(
                    a.as_str(),
                    "-exec"
                        | "-execdir"
                        | "-ok"
                        | "-okdir"
                        | "-fprint"
                        | "-fls"
                        | "-fprint0"
                        | "-fprintf"
                )
            }) {
                b.recursive_write = true;
                b.recursive_read = true;
            } else {
                b.lists = true;
            }
        }
        "grep" | "egrep" | "fgrep" => {
            b.recursive_read = has_short(&args, 'r')
                || has_short(&args, 'R')
                || has_long(&args, "--recursive")
                || has_long(&args, "--dereference-recursive")
        }
        "rg" | "ag" | "ack" => b.recursive_read = true,
        "tar" => {
            let first = args.first().cloned().unwrap_or_default();
            let create = has_short(&args, 'c')
                || has_long(&args, "--create")
                || (!first.starts_with('-') && first.contains('c'));
            let extract = has_short(&args, 'x')
                || has_long(&args, "--extract")
                || has_long(&args, "--get")
                || (!first.starts_with('-') && first.contains('x'));
            b.recursive_read = create;
            if extract {
                b.recursive_write = true;
            }
        }
        "zip" => b.recursive_read = has_short(&args, 'r') || has_long(&args, "--recurse-paths"),
        "unzip" | "cpio" | "7z" => {
            b.recursive_write = true;
        }
        "cp" => {
            let r = has_short(&args, 'r')
                || has_short(&args, 'R')
                || has_short(&args, 'a')
                || has_long(&args, "--recursive")
                || has_long(&args, "--archive");
            b.recursive_read = r;
            b.extracts_into_last = r;
        }
        "scp" => {
            let r = has_short(&args, 'r');
            b.recursive_read = r;
            b.extracts_into_last = r;
        }
        "ls" | "tree" | "du" | "dir" => b.lists = true,
        _ => {}
    }
    b
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
                if p.reaches(t, Access::Read, b.recursive_read && !listing_ancestor) {
                    return Some(t.path.clone());
                }
                let writes_below = b.recursive_write || (b.extracts_into_last && is_last_operand);
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
        path: t.path.clone(),
        kind: t.kind,
        scope: Scope::Exact,
        role: t.role,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets() {
        let p = Protected::new("/h/.shellgate", "/h", &[], &[], &crate::fs::OsFs);
        assert!(p.write_protected("/h/.shellgate/config/policy.toml"));
        assert!(p.write_protected("/h/.shellgate/notes.txt"));
        assert!(!p.write_protected("/h/.shellgate/sessions/s1/x"));
        assert!(p.read_protected("/h/.shellgate/config/tool-approvals.json"));
        assert!(!p.read_protected("/h/.shellgate/config/policy.toml"));
        assert!(p.read_protected("/h/.shellgate/secret.txt"));
        assert!(!p.read_protected("/h/.shellgate/sessions/s1/secret.txt"));
        assert!(p.write_protected("/h/repos/p/.claude/settings.local.json"));
        assert!(p.write_protected("/h/.codex/config.toml"));
        assert!(!p.write_protected("/h/.claude/notes.md"));
    }

    #[test]
    fn the_service_socket_is_named_in_any_spelling() {
        let p = Protected::new("/h/.shellgate", "/h", &[], &[], &crate::fs::OsFs);
        for named in [
            "socat - UNIX-CONNECT:/h/.shellgate/state/serve.sock",
            "socat - unix-connect:$HOME/.shellgate/state/serve.sock",
            "socat - UNIX:${HOME}/.shellgate//state/./serve.sock",
            "nc -U ~/'.shell'\"gate\"/state/ser\\ve.sock",
            "python3 -c \"import os,socket; socket.socket(1).connect(os.path.join(os.environ['HOME'], '.shellgate', 'state', 'serve.sock'))\"",
            "node -e 'require(\"net\").connect(process.env.SHELLGATE_HOME + \"/state/serve.sock\")'",
        ] {
            assert_eq!(
                p.names_service_socket(named).as_deref(),
                Some("/h/.shellgate/state/serve.sock"),
                "{named}"
            );
        }
        for other in [
            "git status",
            "nc -U /run/docker.sock",
            "grep -r serve.sock src/",
            "ls ~/.shellgate/sessions",
        ] {
            assert_eq!(p.names_service_socket(other), None, "{other}");
        }
    }
}
