//! Matching a candidate `(verb, directory)` against stored grants (SPEC
//! §6.3): roots prepared at load time, containment made twice (lexical and
//! kernel-resolved, §15.11), case-insensitive under Windows semantics.

use std::borrow::Cow;

use shellgate_policy::fs::Fs;
use shellgate_policy::model::{Audience, Os};
use shellgate_policy::resolve::contained;
use shellgate_shell::paths;

/// Where a stored grant applies, prepared for matching at load time.
#[derive(Debug, Clone)]
pub(super) enum Root {
    /// No directory: anywhere.
    Anywhere,
    /// Absolute directory, lexically normalized.
    Fixed(String),
    /// `~` or `~/rest` written by hand: the suffix (`""` or `"/rest"`),
    /// expanded with the caller's home directory when matching.
    Home(String),
    /// A directory that can never contain a candidate (relative, `~user`…).
    Never,
}

/// Slot of an audience in `Audience::ALL` order (personal, team, public).
pub(super) fn slot(audience: Audience) -> usize {
    match audience {
        Audience::Personal => 0,
        Audience::Team => 1,
        Audience::Public => 2,
    }
}

/// Lower-case form used as index key (allocation only when needed).
pub(super) fn fold(s: &str) -> Cow<'_, str> {
    if s.bytes().any(|b| b.is_ascii_uppercase() || !b.is_ascii()) {
        Cow::Owned(s.to_lowercase())
    } else {
        Cow::Borrowed(s)
    }
}

pub(super) fn eq_os(a: &str, b: &str, os: Os) -> bool {
    if os.case_insensitive() {
        a == b || fold(a) == fold(b)
    } else {
        a == b
    }
}

/// Prepare a stored (already trimmed) directory for matching.
pub(super) fn stored_root(dir: &str) -> Root {
    if dir == "~" {
        return Root::Home(String::new());
    }
    if let Some(rest) = dir.strip_prefix("~/") {
        return Root::Home(format!("/{rest}"));
    }
    match absolute_form(dir) {
        Some(d) => Root::Fixed(d),
        None => Root::Never,
    }
}

/// Lexically normalized form of an absolute directory: `/…` or a drive path
/// (`C:\…`, separators turned into `/`, drive root as `C:`). `None` for
/// anything relative.
pub(super) fn absolute_form(dir: &str) -> Option<String> {
    if dir.starts_with('/') {
        return Some(paths::normalize(dir));
    }
    let drive = dir.get(..2)?;
    let mut chars = drive.chars();
    let (letter, colon) = (chars.next()?, chars.next()?);
    if !letter.is_ascii_alphabetic() || colon != ':' {
        return None;
    }
    let rest = dir.get(2..)?.replace('\\', "/");
    if !rest.starts_with('/') {
        return None; // `C:foo` is relative to the drive's current directory.
    }
    let norm = paths::normalize(&rest);
    Some(if norm == "/" {
        drive.to_string()
    } else {
        format!("{drive}{norm}")
    })
}

/// The candidate directory in the same form as stored roots; `None` when it
/// is not absolute (then only grants for anywhere apply).
pub(super) fn candidate_form(dir: &str) -> Option<Cow<'_, str>> {
    if dir.starts_with('/') {
        let tidy = !(dir.contains("//")
            || dir.contains("/./")
            || dir.contains("/../")
            || dir.ends_with("/.")
            || dir.ends_with("/..")
            || (dir.len() > 1 && dir.ends_with('/')));
        if tidy {
            return Some(Cow::Borrowed(dir));
        }
    }
    absolute_form(dir).map(Cow::Owned)
}

pub(super) fn root_covers(
    root: &Root,
    candidate: Option<&str>,
    home: &str,
    os: Os,
    fs: &dyn Fs,
) -> bool {
    match root {
        Root::Anywhere => true,
        Root::Never => false,
        Root::Fixed(r) => candidate.is_some_and(|c| contains_os(r, c, os, fs)),
        Root::Home(rest) => {
            let Some(c) = candidate else {
                return false;
            };
            // An unknown home must never turn `~/x` into `/x`.
            if absolute_form(home.trim()).is_none() {
                return false;
            }
            match absolute_form(&format!("{}{}", home.trim(), rest)) {
                Some(r) => contains_os(&r, c, os, fs),
                None => false,
            }
        }
    }
}

/// Containment made twice (§6.3 with §15.11): boundary-safe lexical
/// containment, and the kernel resolution of the candidate directory under
/// the kernel resolution of the grant directory — a grant for `{P}/link`
/// with `link -> X` covers what resolves under `X`; a link leading out of
/// the grant directory breaks the match; an unresolvable path is outside.
/// Case-insensitive under macOS and Windows semantics.
pub(super) fn contains_os(root: &str, child: &str, os: Os, fs: &dyn Fs) -> bool {
    if !child.starts_with('/') {
        // A drive path (Windows semantics on another OS): the kernel cannot
        // walk it here; the lexical rule and the segment rule decide.
        return match child.get(..root.len()) {
            Some(prefix) if eq_os(prefix, root, os) => {
                shellgate_policy::fs::contains(fs, prefix, child)
            }
            _ => false,
        };
    }
    // Path comparisons are case-insensitive on macOS and Windows (§15.2).
    if os == Os::Linux {
        return contained(fs, root, child, child, true, false);
    }
    // Spell the root as the child does, then apply the same rule. A case
    // mapping that changes byte lengths fails closed.
    match child.get(..root.len()) {
        Some(prefix) if fold(prefix) == fold(root) => {
            contained(fs, prefix, child, child, true, true)
        }
        _ => false,
    }
}

/// Whether a grant `(grant_verb, grant_dir)` covers the candidate
/// `(verb, dir)` with exactly the §6.3 rules used for the JSON store (used
/// for session grants, which live elsewhere but match the same way).
pub fn grant_covers(
    grant_verb: &str,
    grant_dir: Option<&str>,
    verb: &str,
    dir: Option<&str>,
    home: &str,
    os: Os,
    fs: &dyn Fs,
) -> bool {
    if !eq_os(grant_verb, verb, os) {
        return false;
    }
    let root = match grant_dir.and_then(shellgate_shell::paths::normalize_stored_dir) {
        None => Root::Anywhere,
        Some(d) => stored_root(&d),
    };
    let candidate = dir.and_then(candidate_form);
    root_covers(&root, candidate.as_deref(), home, os, fs)
}
