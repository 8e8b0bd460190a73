//! Lexical path handling shared by every layer: normalization, containment on
//! separator boundaries and shallowness. Nothing here looks at the file
//! system (the symlink-segment rule of SPEC §5.4 lives with the policy).
//!
//! Paths are handled as UTF-8 strings with `/` separators: they come from
//! shell text and JSON, and must be compared exactly as written.

/// Lexically normalize an absolute path: collapse `.`/`..`, duplicate and
/// trailing separators. `..` at the root stays at the root. A relative input
/// is normalized as if rooted at `/`.
pub fn normalize(path: &str) -> String {
    if is_normal(path) {
        return path.to_string();
    }
    let mut parts: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    if parts.is_empty() {
        return "/".to_string();
    }
    let mut out = String::with_capacity(path.len());
    for p in parts {
        out.push('/');
        out.push_str(p);
    }
    out
}

/// Whether `path` is already what [`normalize`] makes of it: `/`, or
/// absolute with no empty, `.` or `..` segment (no trailing separator).
fn is_normal(path: &str) -> bool {
    if path == "/" {
        return true;
    }
    let Some(rest) = path.strip_prefix('/') else {
        return false;
    };
    rest.split('/').all(|seg| !matches!(seg, "" | "." | ".."))
}

/// Resolve `rel` lexically against the absolute directory `base`.
/// An absolute `rel` ignores `base`.
pub fn resolve(base: &str, rel: &str) -> String {
    if rel.starts_with('/') {
        normalize(rel)
    } else {
        let mut joined = String::with_capacity(base.len() + rel.len() + 1);
        joined.push_str(base);
        joined.push('/');
        joined.push_str(rel);
        normalize(&joined)
    }
}

/// A path through the running process's own view of its working
/// directory, `/proc/self/cwd` or `/proc/thread-self/cwd`: the kernel
/// resolves that link in the process that opens the path — the command's
/// shell, whose directory is `cwd` — not in the gate (rt28b F1: `cd
/// ~/.claude && echo … > /proc/self/cwd/settings.json`). `Some` with the
/// link replaced by `cwd` and the rest kept as written (a `..` after it is
/// the kernel's, from `cwd`); `None` when the path does not go through it.
/// `text` is absolute or relative to `cwd`.
pub fn own_cwd_view(text: &str, cwd: &str) -> Option<String> {
    if !text.contains("cwd") {
        return None;
    }
    let joined;
    let abs = if text.starts_with('/') {
        text
    } else {
        joined = format!("{cwd}/{text}");
        &joined
    };
    // Walk lexically until the walked prefix is `/proc/<self>/cwd`.
    let mut parts: Vec<&str> = Vec::new();
    let mut rest_at = None;
    let mut at = 0;
    for seg in abs.split('/') {
        at += seg.len() + 1;
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
        if let ["proc", "self" | "thread-self", "cwd"] = parts.as_slice() {
            rest_at = Some(at.min(abs.len()));
            break;
        }
    }
    let rest = &abs[rest_at?..];
    let base = cwd.trim_end_matches('/');
    Some(if rest.is_empty() {
        let mut p = if base.is_empty() {
            "/".to_string()
        } else {
            base.to_string()
        };
        if abs.ends_with('/') && p != "/" {
            p.push('/');
        }
        p
    } else {
        format!("{base}/{rest}")
    })
}

/// Parent of a normalized absolute path (`/` for `/` itself).
pub fn parent(path: &str) -> String {
    match path.rfind('/') {
        Some(0) | None => "/".to_string(),
        Some(i) => path[..i].to_string(),
    }
}

/// Final segment of a path (the whole input when it has no `/`).
pub fn basename(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    match trimmed.rfind('/') {
        Some(i) => &trimmed[i + 1..],
        None => trimmed,
    }
}

/// A program word bash finds through `PATH` (no `/`), or a path straight
/// into one of the system's program directories (`/usr/bin/env`). Only such
/// a program may be read by its name: a wrapper or shell written as
/// `./env`, `tools/sh` or `~/bin/timeout` is whatever file is there.
pub fn is_system_program(word: &str) -> bool {
    const DIRS: &[&str] = &[
        "/bin",
        "/usr/bin",
        "/usr/local/bin",
        "/sbin",
        "/usr/sbin",
        "/usr/local/sbin",
    ];
    match word.rsplit_once('/') {
        None => true,
        Some((dir, name)) => !name.is_empty() && DIRS.contains(&dir),
    }
}

/// `child` equals `root` or lies below it on a separator boundary
/// (`/home/u` does not contain `/home/usersecret`). Both must be normalized.
pub fn is_within(child: &str, root: &str) -> bool {
    if root == "/" {
        return child.starts_with('/');
    }
    if child == root {
        return true;
    }
    child.len() > root.len() && child.starts_with(root) && child.as_bytes()[root.len()] == b'/'
}

/// Case-insensitive variant of [`is_within`] (Windows semantics).
pub fn is_within_ci(child: &str, root: &str) -> bool {
    is_within(&child.to_lowercase(), &root.to_lowercase())
}

/// Fewer than two non-empty segments below the root (`/`, `/etc`, `/tmp`).
pub fn is_shallow(dir: &str) -> bool {
    let stripped = strip_drive(dir);
    stripped
        .split(['/', '\\'])
        .filter(|s| !s.is_empty())
        .count()
        < 2
}

fn strip_drive(dir: &str) -> &str {
    let b = dir.as_bytes();
    if b.len() >= 2 && b[1] == b':' && b[0].is_ascii_alphabetic() {
        &dir[2..]
    } else {
        dir
    }
}

/// Trim and normalize a directory written by a person or another program:
/// empty ⇒ `None`, trailing separators removed except for the root.
pub fn normalize_stored_dir(dir: &str) -> Option<String> {
    let t = dir.trim();
    if t.is_empty() {
        return None;
    }
    let mut s = t.to_string();
    while s.len() > 1 && (s.ends_with('/') || s.ends_with('\\')) {
        if s.len() == 3 && s.as_bytes()[1] == b':' {
            break;
        }
        s.pop();
    }
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_cwd_view_is_the_commands_directory() {
        let c = "/home/u/.claude";
        assert_eq!(
            own_cwd_view("/proc/self/cwd/settings.json", c).as_deref(),
            Some("/home/u/.claude/settings.json")
        );
        assert_eq!(
            own_cwd_view("/proc/thread-self/cwd", c).as_deref(),
            Some("/home/u/.claude")
        );
        assert_eq!(
            own_cwd_view("/proc/self/cwd/", "/home/u").as_deref(),
            Some("/home/u/")
        );
        assert_eq!(
            own_cwd_view("/proc/self/cwd/../x", c).as_deref(),
            Some("/home/u/.claude/../x")
        );
        assert_eq!(
            own_cwd_view("../../proc/self/cwd/x", "/a/b").as_deref(),
            Some("/a/b/x")
        );
        assert_eq!(
            own_cwd_view("/proc//self/./cwd/x", c).as_deref(),
            Some("/home/u/.claude/x")
        );
        assert_eq!(own_cwd_view("/proc/self/cwdx", c), None);
        assert_eq!(own_cwd_view("/proc/self/root/etc", c), None);
        assert_eq!(own_cwd_view("src/cwd", c), None);
    }

    #[test]
    fn normalizes() {
        assert_eq!(normalize("/a/./b//c/"), "/a/b/c");
        assert_eq!(normalize("/a/../../b"), "/b");
        assert_eq!(normalize("/"), "/");
        assert_eq!(normalize("/.."), "/");
        assert_eq!(resolve("/home/u/p", "../x"), "/home/u/x");
        assert_eq!(resolve("/home/u/p", "/etc/../var/"), "/var");
        for p in [
            "/a/b",
            "/",
            "/a/.b/..c",
            "a/b",
            "/a/",
            "//a",
            "/a/./b",
            "/a/..",
            "/.",
            "",
        ] {
            let slow = {
                let parts: Vec<&str> = p.split('/').filter(|s| !s.is_empty() && *s != ".").fold(
                    Vec::new(),
                    |mut v, s| {
                        if s == ".." {
                            v.pop();
                        } else {
                            v.push(s);
                        }
                        v
                    },
                );
                if parts.is_empty() {
                    "/".to_string()
                } else {
                    parts.iter().map(|s| format!("/{s}")).collect()
                }
            };
            assert_eq!(normalize(p), slow, "{p}");
        }
    }

    #[test]
    fn containment_is_boundary_safe() {
        assert!(is_within("/home/u", "/home/u"));
        assert!(is_within("/home/u/x", "/home/u"));
        assert!(!is_within("/home/usersecret", "/home/u"));
        assert!(is_within("/anything", "/"));
    }

    #[test]
    fn shallow() {
        assert!(is_shallow("/"));
        assert!(is_shallow("/etc"));
        assert!(!is_shallow("/home/u"));
        assert!(is_shallow("C:\\"));
    }
}
