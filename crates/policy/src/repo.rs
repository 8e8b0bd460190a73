//! Git repositories as the gate sees them (SPEC §15.5, §15.17): which
//! repository git will open, whether it is the project's own, where git's
//! code-bearing internals lie, and which config file `git config` touches.
//!
//! A repository that is part of the project's *content* — a `.git`
//! symlink, a gitfile pointing into the project's files, a nested or bare
//! repository below the project root — may carry a hostile config
//! (`core.fsmonitor`, `core.pager`, diff drivers): git there is not safe.
//! The repository found above the project (a monorepo) is the user's own.

use std::io::ErrorKind;

use shellgate_gitfmt as gitfmt;
use shellgate_shell::paths;

use crate::fs::{FileKind, Fs};
use crate::resolve::{self, within, Kernel};

/// Names under a git directory that hold or select code or configuration.
const INTERNALS: &[&str] = &[
    "config",
    "config.worktree",
    "hooks",
    "info",
    "commondir",
    "gitdir",
];

/// Whether a write to `path` by anything other than git plants code or
/// configuration git will run (§15.5, §15.17), decided lexically in any
/// directory, existing or not: `…/.git/config`, `…/.git/hooks/…`,
/// `…/.git/info/…`, `.git/modules/*/config|hooks|info`,
/// `.git/worktrees/*/config.worktree|commondir|gitdir`, the same below a
/// bare repository's directory (`repo.git/hooks/…`), and the name `.git`
/// itself (a gitfile or link planted in its place). `ci`: case-insensitive
/// (macOS and Windows file systems).
pub fn is_git_internal(path: &str, ci: bool) -> bool {
    let p = if ci {
        path.to_lowercase()
    } else {
        path.to_string()
    };
    let segs: Vec<&str> = p.split(['/', '\\']).filter(|s| !s.is_empty()).collect();
    for (i, seg) in segs.iter().enumerate() {
        let dotgit = *seg == ".git";
        let bare = !dotgit && seg.ends_with(".git");
        if !dotgit && !bare {
            continue;
        }
        let rest = &segs[i + 1..];
        if rest.is_empty() {
            if dotgit {
                return true;
            }
            continue;
        }
        if INTERNALS.contains(&rest[0]) {
            return true;
        }
        if dotgit
            && matches!(rest[0], "modules" | "worktrees")
            && rest[1..].iter().any(|s| INTERNALS.contains(s))
        {
            return true;
        }
        if dotgit && rest.len() >= 2 && rest[0] == "objects" && rest[1] == "info" {
            return true;
        }
    }
    false
}

/// The config file a `git config` invocation reads or writes, given the
/// words after `config`: `--global` ⇒ `~/.gitconfig`, `--system` ⇒
/// `/etc/gitconfig`, `--file F` / `-f F` / `--file=F` / `-fF` ⇒ `F`
/// resolved against `cwd`. `None` for the repository's own config (local,
/// worktree) and for `--blob` (read from an object).
pub fn git_config_file(args: &[String], cwd: &str, home: &str) -> Option<String> {
    let mut i = 0;
    let mut out = None;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "--" {
            break;
        }
        if a == "--global" {
            out = Some(format!("{}/.gitconfig", home.trim_end_matches('/')));
        } else if a == "--system" {
            out = Some("/etc/gitconfig".to_string());
        } else if a == "--file" || a == "-f" {
            out = args.get(i + 1).map(|f| paths::resolve(cwd, f));
            i += 1;
        } else if let Some(f) = a.strip_prefix("--file=") {
            out = Some(paths::resolve(cwd, f));
        } else if let Some(f) = a.strip_prefix("-f").filter(|f| !f.is_empty()) {
            out = Some(paths::resolve(cwd, f));
        }
        i += 1;
    }
    out
}

/// What discovery found at one directory.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Found {
    /// `D/.git` is a directory: repository root `D`.
    Dir(String),
    /// `D/.git` is a directory git may pass over (not a valid git directory
    /// by the gate's reading: git would then try `D` itself as a bare
    /// repository, then the parents — red-team finding F1). Both readings
    /// must be safe.
    DirUnsure(String),
    /// `D/.git` is a gitfile pointing to this git directory (kernel path).
    File { at: String, gitdir: String },
    /// `D/.git` is a symbolic link.
    Link(String),
    /// `D` itself is a (bare) git directory.
    Bare(String),
}

/// Whether `d` may be a git directory. Git itself wants a valid `HEAD`, an
/// `objects` and a `refs` directory; the gate is looser on purpose (fail
/// closed): the same command line can create the missing parts before git
/// runs (`mkdir -p x/objects x/refs; git -C x log`), so a `HEAD` alone, or
/// `objects` and `refs` alone, already count.
fn is_git_directory(fs: &dyn Fs, d: &str) -> bool {
    matches!(
        fs.lstat(&format!("{d}/HEAD")),
        Ok(FileKind::File | FileKind::Symlink | FileKind::Other)
    ) || matches!(fs.stat(&format!("{d}/objects")), Ok(FileKind::Dir))
        && matches!(fs.stat(&format!("{d}/refs")), Ok(FileKind::Dir))
}

/// Whether a `.git` directory is one git accepts (`is_git_directory`):
/// `objects` and `refs` directories and a `HEAD` that is a symbolic
/// reference into `refs/` (a file `ref: refs/…` or a link to `refs/…`) or
/// an object id. Stricter than git where git is lenient: anything else is
/// not accepted here.
fn valid_dot_git(fs: &dyn Fs, dotgit: &str) -> bool {
    if !matches!(fs.stat(&format!("{dotgit}/objects")), Ok(FileKind::Dir))
        || !matches!(fs.stat(&format!("{dotgit}/refs")), Ok(FileKind::Dir))
    {
        return false;
    }
    let head = format!("{dotgit}/HEAD");
    match fs.lstat(&head) {
        Ok(FileKind::Symlink) => fs
            .read_link(&head)
            .is_ok_and(|t| t.to_str().is_some_and(|t| t.starts_with("refs/"))),
        Ok(FileKind::File) => {
            let Ok(data) = fs.read_file(&head, 4096) else {
                return false;
            };
            let text = String::from_utf8_lossy(&data);
            let line = text.lines().next().unwrap_or("");
            if let Some(r) = line.strip_prefix("ref:") {
                r.trim_start().starts_with("refs/")
            } else {
                let hex = line.trim_end();
                matches!(hex.len(), 40 | 64) && hex.bytes().all(|b| b.is_ascii_hexdigit())
            }
        }
        _ => false,
    }
}

/// Read a gitfile (`gitdir: X`), resolving `X` against its directory.
fn read_gitfile(fs: &dyn Fs, dotgit: &str, dir: &str) -> Result<String, String> {
    let data = fs
        .read_file(dotgit, 4096)
        .map_err(|e| format!("cannot read the gitfile {dotgit}: {e}"))?;
    let text = String::from_utf8_lossy(&data);
    let target = text
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("gitdir:"))
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| format!("{dotgit} is not a gitfile"))?;
    match resolve::kernel(fs, &resolve::join_raw(dir, target), true) {
        Kernel::Path(k) => Ok(k),
        Kernel::Unresolvable | Kernel::ProcView => {
            Err(format!("the gitfile {dotgit} points nowhere resolvable"))
        }
    }
}

/// Git's discovery, upwards from the kernel path `start`.
fn discover(fs: &dyn Fs, start: &str) -> Result<Option<Found>, String> {
    let mut d = start.to_string();
    loop {
        let dotgit = if d == "/" {
            "/.git".to_string()
        } else {
            format!("{d}/.git")
        };
        match fs.lstat(&dotgit) {
            Ok(FileKind::Dir) if valid_dot_git(fs, &dotgit) => return Ok(Some(Found::Dir(d))),
            Ok(FileKind::Dir) => return Ok(Some(Found::DirUnsure(d))),
            Ok(FileKind::Symlink) => return Ok(Some(Found::Link(d))),
            Ok(FileKind::File) => {
                let gitdir = read_gitfile(fs, &dotgit, &d)?;
                return Ok(Some(Found::File { at: d, gitdir }));
            }
            Ok(FileKind::Other) => return Err(format!("{dotgit} is not a file or directory")),
            Err(e) if e.kind() == ErrorKind::NotFound || e.kind() == ErrorKind::NotADirectory => {}
            Err(e) => return Err(format!("cannot inspect {dotgit}: {e}")),
        }
        if is_git_directory(fs, &d) {
            return Ok(Some(Found::Bare(d)));
        }
        if d == "/" {
            return Ok(None);
        }
        d = paths::parent(&d);
    }
}

/// The git directory of the repository holding `project` (kernel path),
/// or `None` when there is none.
fn own_git_dir(fs: &dyn Fs, project: &str) -> Result<Option<String>, String> {
    Ok(match discover(fs, project)? {
        None => None,
        Some(Found::Dir(d) | Found::DirUnsure(d)) => {
            Some(format!("{}/.git", d.trim_end_matches('/')))
        }
        Some(Found::File { gitdir, .. }) => Some(gitdir),
        Some(Found::Link(d)) => {
            if within(&d, project, false) {
                return Err(format!("{d}/.git is a symbolic link (project content)"));
            }
            resolve::kernel(fs, &format!("{d}/.git"), true)
                .path()
                .map(str::to_string)
        }
        Some(Found::Bare(d)) => Some(d),
    })
}

/// Whether `p` is a git directory below `<own>/modules/` or
/// `<own>/worktrees/` (read-only inside the sandbox).
fn own_module_or_worktree(p: &str, own_dotgit: &str) -> bool {
    ["modules", "worktrees"].iter().any(|d| {
        let base = format!("{own_dotgit}/{d}");
        p != base && within(p, &base, false)
    })
}

/// Whether git run in `effective_dir` opens the project's own repository
/// (§15.5, §15.17): after `-C`/`cd` (already in `effective_dir`), an
/// explicit `--git-dir`/`GIT_DIR` (`git_dir_override`, relative to the
/// effective directory), and git's discovery upwards from the *physical*
/// effective directory. Trusted: no repository at all (git fails), the
/// project's own `.git` — a real directory at the project root or above it
/// (a monorepo) — a linked worktree or submodule checkout whose gitfile
/// points outside the project's content or into its own `.git`, and a
/// submodule's git directory under it. Not trusted (the reason): a `.git`
/// symlink in the project, a gitfile pointing into the project's content, a
/// nested repository below the project root, a bare repository inside the
/// project, a repository outside the project, anything that cannot be
/// inspected.
pub fn repo_is_trusted(
    fs: &dyn Fs,
    effective_dir: &str,
    project_dir: &str,
    git_dir_override: Option<&str>,
) -> Result<(), String> {
    for (gitdir, top) in opened_repository(fs, effective_dir, project_dir, git_dir_override)? {
        gitdir_is_sound(fs, &gitdir, top.as_deref(), 0)?;
    }
    Ok(())
}

/// Where [`repo_is_trusted`] decides by location: the git directory git
/// opens and its work tree top (`None`: no repository; an error: not the
/// project's own).
fn opened_repository(
    fs: &dyn Fs,
    effective_dir: &str,
    project_dir: &str,
    git_dir_override: Option<&str>,
) -> Result<Vec<(String, Option<String>)>, String> {
    let Kernel::Path(kp) = resolve::kernel(fs, project_dir, true) else {
        return Err(format!("{project_dir} cannot be resolved"));
    };
    let Kernel::Path(ke) = resolve::kernel(fs, effective_dir, true) else {
        return Err(format!("{effective_dir} cannot be resolved"));
    };
    if let Some(gd) = git_dir_override {
        let Kernel::Path(kg) = resolve::kernel(fs, &resolve::join_raw(&ke, gd), true) else {
            return Err(format!("the git directory {gd} cannot be resolved"));
        };
        let own = own_git_dir(fs, &kp)?;
        return match own {
            Some(o) if kg == o || within(&kg, &format!("{o}/modules"), false) => {
                Ok(vec![(kg, Some(ke))])
            }
            _ => Err(format!(
                "the git directory {kg} is not the project's own repository"
            )),
        };
    }
    match discover(fs, &ke)? {
        // Git may pass over a `.git` directory the project can make invalid
        // in ways the gate does not read (its `HEAD`, or `objects/` made
        // unsearchable by `chmod`): the repository at the project root is
        // judged both ways.
        Some(Found::DirUnsure(d)) => both_readings(fs, d, &kp),
        Some(Found::Dir(d)) if d == kp => both_readings(fs, d, &kp),
        found => classify(fs, found, &kp),
    }
}

/// `d/.git` as the repository, and what git finds when it passes over it.
fn both_readings(
    fs: &dyn Fs,
    d: String,
    kp: &str,
) -> Result<Vec<(String, Option<String>)>, String> {
    let past = discover_past(fs, &d)?;
    let mut out = classify(fs, Some(Found::Dir(d)), kp)?;
    out.extend(classify(fs, past, kp)?);
    Ok(out)
}

/// Discovery as git continues after passing over `d/.git`: `d` itself as a
/// bare repository, then the parents.
fn discover_past(fs: &dyn Fs, d: &str) -> Result<Option<Found>, String> {
    if is_git_directory(fs, d) {
        return Ok(Some(Found::Bare(d.to_string())));
    }
    if d == "/" {
        return Ok(None);
    }
    discover(fs, &paths::parent(d))
}

/// What discovery found, judged by where it lies against the project
/// (kernel path `kp`): the git directories to check and their work trees.
fn classify(
    fs: &dyn Fs,
    found: Option<Found>,
    kp: &str,
) -> Result<Vec<(String, Option<String>)>, String> {
    let own_dotgit = format!("{}/.git", kp.trim_end_matches('/'));
    // The project's git directory (a submodule checkout's lies in its
    // superproject's `.git/modules`). Its own discovery, asked only by the
    // two readings that compare with it (none when nothing was found).
    let own_gitdir = || match own_git_dir(fs, kp) {
        Ok(Some(g)) => g,
        _ => own_dotgit.clone(),
    };
    let inside = |p: &str| within(p, kp, false);
    let above = |p: &str| p != kp && within(kp, p, false);
    match found {
        Some(Found::DirUnsure(d)) => Err(format!(
            "{d}/.git is not a valid git directory (git would look for another repository)"
        )),
        None => Ok(vec![]),
        Some(Found::Dir(d)) => {
            if d == kp || above(&d) {
                let g = format!("{}/.git", d.trim_end_matches('/'));
                Ok(vec![(g, Some(d))])
            } else if inside(&d) {
                Err(format!("{d} is a repository nested in the project"))
            } else {
                Err(format!("{d} is a repository outside the project"))
            }
        }
        Some(Found::Link(d)) => {
            if above(&d) {
                let Kernel::Path(g) = resolve::kernel(fs, &format!("{d}/.git"), true) else {
                    return Err(format!("{d}/.git cannot be resolved"));
                };
                Ok(vec![(g, Some(d))])
            } else {
                Err(format!(
                    "{d}/.git is a symbolic link: the repository is project content"
                ))
            }
        }
        Some(Found::File { at, gitdir }) => {
            let into_content = inside(&gitdir) && !within(&gitdir, &own_dotgit, false);
            if into_content {
                return Err(format!(
                    "the gitfile {at}/.git points into the project's content ({gitdir})"
                ));
            }
            if at == kp || above(&at) {
                // The project is a linked worktree or a submodule checkout.
                return Ok(vec![(gitdir, Some(at))]);
            }
            if inside(&at) {
                // A submodule checkout below the project: its git directory
                // must be the project's own, or a submodule's or worktree's
                // git directory under it — not anything else below `.git`
                // (`.git/refs/x`, `.git/objects/…` are written by any run).
                let own_gitdir = own_gitdir();
                if gitdir == own_gitdir || own_module_or_worktree(&gitdir, &own_gitdir) {
                    return Ok(vec![(gitdir, Some(at))]);
                }
                return Err(format!(
                    "the gitfile {at}/.git points to {gitdir}, not a submodule's git directory"
                ));
            }
            Err(format!("{at} is a repository outside the project"))
        }
        Some(Found::Bare(d)) => {
            let own_gitdir = own_gitdir();
            if d == own_gitdir || own_module_or_worktree(&d, &own_gitdir) {
                Ok(vec![(d, None)])
            } else if inside(&d) {
                Err(format!("{d} is a bare repository inside the project"))
            } else {
                Err(format!("{d} is a git directory outside the project"))
            }
        }
    }
}

/// The deepest submodule nesting [`gitdir_is_sound`] follows.
const MAX_SUBMODULE_DEPTH: usize = 4;

/// The most submodules of one index [`gitdir_is_sound`] inspects.
const MAX_GITLINKS: usize = 1000;

/// Whether a git directory found in a trusted place still leads git only
/// to configuration the project cannot have planted (§15.5, §15.17). A
/// process that may write the project — a sandboxed build (§18) writes its
/// `.git` too, all but the protected config, hooks, info and submodule
/// directories — could otherwise redirect the next unconfined `git status`:
///
/// - `commondir` moves the repository's config, hooks and objects anywhere:
///   only a linked worktree's git directory (`<common>/worktrees/<name>`)
///   may have one, pointing back to its own common directory; a git
///   directory under `worktrees/` without one reads its own config;
/// - a submodule (a gitlink in the index) whose checkout holds its own
///   repository (`sub/.git` a directory or a link) or a gitfile pointing
///   anywhere but the common directory's `modules/` is entered by `git
///   status` and `git diff`, which run its config (`core.fsmonitor`); the
///   submodules' own git directories are checked the same way, nested up
///   to [`MAX_SUBMODULE_DEPTH`];
/// - an index git reads only partly here (a split or sparse index: a
///   required extension) or cannot be read hides its submodules.
///
/// `top`: the work tree whose checkouts the index describes (`None` for a
/// bare repository).
fn gitdir_is_sound(
    fs: &dyn Fs,
    gitdir: &str,
    top: Option<&str>,
    depth: usize,
) -> Result<(), String> {
    let common = common_dir(fs, gitdir)?;
    let Some(top) = top else {
        return Ok(());
    };
    let index = format!("{gitdir}/index");
    let data = match fs.read_file(&index, crate::creates::MAX_SOURCE_BYTES) {
        Ok(d) => d,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(format!("cannot read {index}: {e}")),
    };
    if data.len() > crate::creates::MAX_SOURCE_BYTES {
        return Err(format!("{index} is larger than the gate reads"));
    }
    let idx = gitfmt::index::parse(&data, crate::creates::MAX_ENTRIES)
        .map_err(|e| format!("{index}: {e}"))?;
    if let Some(ext) = idx.required_extensions.first() {
        return Err(format!(
            "{index} uses the extension {ext:?}: its submodules cannot be listed"
        ));
    }
    let modules = format!("{}/modules", common.trim_end_matches('/'));
    let top = top.trim_end_matches('/');
    for (n, e) in idx.entries.iter().filter(|e| e.is_gitlink()).enumerate() {
        if n >= MAX_GITLINKS {
            return Err(format!(
                "{index} lists more submodules than the gate inspects"
            ));
        }
        let checkout = format!("{top}/{}", e.path.trim_end_matches('/'));
        let dotgit = format!("{checkout}/.git");
        match fs.lstat(&dotgit) {
            Err(err)
                if err.kind() == ErrorKind::NotFound || err.kind() == ErrorKind::NotADirectory => {}
            Ok(FileKind::File) => {
                let sub = read_gitfile(fs, &dotgit, &checkout)?;
                if !(within(&sub, &modules, false) && sub != modules) {
                    return Err(format!(
                        "the submodule {} has a gitfile pointing to {sub}, not to {modules}",
                        e.path
                    ));
                }
                if depth >= MAX_SUBMODULE_DEPTH {
                    return Err(format!("the submodule {} is nested too deep", e.path));
                }
                let Kernel::Path(kc) = resolve::kernel(fs, &checkout, true) else {
                    return Err(format!("{checkout} cannot be resolved"));
                };
                gitdir_is_sound(fs, &sub, Some(&kc), depth + 1)?;
            }
            Ok(_) => {
                return Err(format!(
                    "the submodule {} holds its own repository ({dotgit}), whose configuration git status runs",
                    e.path
                ))
            }
            Err(err) => return Err(format!("cannot inspect {dotgit}: {err}")),
        }
    }
    Ok(())
}

/// The common directory of a git directory: itself, or for a linked
/// worktree's git directory the one its `commondir` names (which must hold
/// it under `worktrees/`). See [`gitdir_is_sound`].
fn common_dir(fs: &dyn Fs, gitdir: &str) -> Result<String, String> {
    let file = format!("{gitdir}/commondir");
    let in_worktrees = {
        let segs: Vec<&str> = gitdir.split('/').collect();
        segs.len() >= 2 && segs[segs.len() - 2] == "worktrees" && segs[segs.len() - 1] != ".git"
    };
    let data = match fs.read_file(&file, 4096) {
        Ok(d) => d,
        Err(e) if e.kind() == ErrorKind::NotFound && !in_worktrees => return Ok(gitdir.to_string()),
        Err(e) if e.kind() == ErrorKind::NotFound => {
            return Err(format!(
                "{gitdir} lies under worktrees/ but has no commondir: git reads its own config"
            ))
        }
        Err(e) => return Err(format!("cannot read {file}: {e}")),
    };
    let text = String::from_utf8_lossy(&data);
    let target = text.lines().next().map(str::trim).unwrap_or("");
    if target.is_empty() {
        return Err(format!("{file} is empty"));
    }
    let Kernel::Path(common) = resolve::kernel(fs, &resolve::join_raw(gitdir, target), true) else {
        return Err(format!("{file} points nowhere resolvable"));
    };
    let worktrees = format!("{}/worktrees", common.trim_end_matches('/'));
    let Kernel::Path(g) = resolve::kernel(fs, gitdir, true) else {
        return Err(format!("{gitdir} cannot be resolved"));
    };
    if within(&g, &worktrees, false) && g != worktrees {
        Ok(common)
    } else {
        Err(format!(
            "{file} points the repository's configuration to {common}"
        ))
    }
}

/// Whether git reads the file at `path` as configuration or runs it as a
/// hook although it lies in the work tree: a file a config file includes
/// (`include.path = ../.gitconfig`, `includeIf.<cond>.path`, relative,
/// absolute or from `~`), or anything below a `core.hooksPath` (relative to
/// the work tree when relative) — read from the repository's config and the
/// user's and the system's (`~/.gitconfig`, the XDG one, `/etc/gitconfig`)
/// (red-team rounds two and three). A write to it is a write to git's
/// internals. `path` is absolute (lexical or kernel).
pub fn git_reads_as_config(
    fs: &dyn Fs,
    path: &str,
    home: &str,
    xdg_config_home: Option<&str>,
) -> bool {
    let dir = paths::parent(path);
    let Kernel::Path(kd) = resolve::kernel(fs, &dir, true) else {
        return false;
    };
    let Ok(Some(found)) = discover(fs, &kd) else {
        return false;
    };
    let (gitdir, top) = match found {
        Found::Dir(d) | Found::DirUnsure(d) | Found::Link(d) => {
            (format!("{}/.git", d.trim_end_matches('/')), d)
        }
        Found::File { at, gitdir } => (gitdir, at),
        Found::Bare(_) => return false,
    };
    let target = match resolve::kernel(fs, path, true) {
        Kernel::Path(k) => k,
        Kernel::Unresolvable | Kernel::ProcView => paths::normalize(path),
    };
    let lexical = paths::normalize(path);
    let home = home.trim_end_matches('/');
    let hits = |p: &str, dir: bool| {
        let Kernel::Path(k) = resolve::kernel(fs, p, true) else {
            return true; // cannot tell: treat as configuration
        };
        [&target, &lexical]
            .iter()
            .any(|t| **t == k || dir && within(t, &k, false))
    };
    let mut files = vec![(format!("{gitdir}/config"), gitdir.clone())];
    files.extend(user_config_files(home, xdg_config_home));
    for (file, include_base) in files {
        let Ok(data) = fs.read_file(&file, 1 << 20) else {
            continue;
        };
        for (key, v) in gitfmt::config::refs(&String::from_utf8_lossy(&data)) {
            let (base, is_dir) = match key {
                gitfmt::config::Ref::Include => (include_base.as_str(), false),
                gitfmt::config::Ref::HooksPath => (top.as_str(), true),
            };
            let p = if let Some(rest) = v.strip_prefix("~/") {
                format!("{home}/{rest}")
            } else {
                resolve::join_raw(base, &v)
            };
            if hits(&p, is_dir) {
                return true;
            }
        }
    }
    false
}

/// The user's and the system's git config files, as git finds them
/// (`XDG_CONFIG_HOME` of the environment git runs in, when absolute).
fn user_config_files(home: &str, xdg_config_home: Option<&str>) -> [(String, String); 3] {
    let home = home.trim_end_matches('/');
    let xdg = xdg_config_home
        .filter(|x| x.starts_with('/'))
        .map(str::to_string)
        .unwrap_or_else(|| format!("{home}/.config"));
    [
        (format!("{home}/.gitconfig"), home.to_string()),
        (format!("{xdg}/git/config"), format!("{xdg}/git")),
        ("/etc/gitconfig".to_string(), "/etc".to_string()),
    ]
}

/// Whether the user's or the system's git config makes `git log -p`,
/// `git show` and `git diff` run the diff inside each changed submodule
/// (`diff.submodule = diff`): a submodule checkout in the work tree then
/// runs its own config (textconv, external diff) for any gitlink change in
/// history, which the index check cannot see (red-team round two, G5).
/// Whether the user's or the system's git config defines a program that
/// converts or compares files for diffs (`diff.<driver>.textconv`,
/// `diff.<driver>.command`, `diff.external`): a project's `.gitattributes`
/// picks the driver, and `git show`, `git log -p`, `git diff` then print
/// what the program makes of a file — a decrypting driver (`gpg
/// --decrypt`) prints the secret that `cat` shows as ciphertext (rt17 F9).
pub fn user_config_converts_diffs(fs: &dyn Fs, home: &str, xdg_config_home: Option<&str>) -> bool {
    user_config_files(home, xdg_config_home)
        .iter()
        .any(|(file, _)| match fs.read_file(file, 1 << 20) {
            Ok(data) => gitfmt::config::entries(&String::from_utf8_lossy(&data))
                .iter()
                .any(|e| {
                    e.section == "diff"
                        && matches!(e.key.as_str(), "textconv" | "command" | "external")
                }),
            Err(e) => e.kind() != std::io::ErrorKind::NotFound,
        })
}

pub fn user_config_diffs_submodules(
    fs: &dyn Fs,
    home: &str,
    xdg_config_home: Option<&str>,
) -> bool {
    user_config_files(home, xdg_config_home)
        .iter()
        .any(|(file, _)| {
            fs.read_file(file, 1 << 20).is_ok_and(|data| {
                gitfmt::config::entries(&String::from_utf8_lossy(&data))
                    .iter()
                    .any(|e| {
                        e.section == "diff"
                            && e.key == "submodule"
                            && e.value.eq_ignore_ascii_case("diff")
                    })
            })
        })
}

/// The index file of the repository git opens in `cwd` (`None`: no
/// repository, a bare one, or anything unreadable).
pub fn index_file(fs: &dyn Fs, cwd: &str) -> Option<String> {
    let Kernel::Path(k) = resolve::kernel(fs, cwd, true) else {
        return None;
    };
    match discover(fs, &k).ok()?? {
        Found::Dir(d) | Found::DirUnsure(d) => {
            Some(format!("{}/.git/index", d.trim_end_matches('/')))
        }
        Found::File { gitdir, .. } => Some(format!("{gitdir}/index")),
        Found::Link(d) => Some(format!("{}/.git/index", d.trim_end_matches('/'))),
        Found::Bare(_) => None,
    }
}

/// The git directory of the repository git opens in `cwd` (`None`: no
/// repository, a bare one, or anything unreadable).
pub fn git_dir(fs: &dyn Fs, cwd: &str) -> Option<String> {
    let Kernel::Path(k) = resolve::kernel(fs, cwd, true) else {
        return None;
    };
    match discover(fs, &k).ok()?? {
        Found::Dir(d) => Some(format!("{}/.git", d.trim_end_matches('/'))),
        Found::File { gitdir, .. } => Some(gitdir),
        // Which directory git takes is not certain (or is content).
        Found::DirUnsure(_) | Found::Link(_) | Found::Bare(_) => None,
    }
}

/// Whether git finds no repository at all from `cwd` up to `/` (it then
/// stops with "not a git repository").
pub fn no_repository(fs: &dyn Fs, cwd: &str) -> bool {
    let Kernel::Path(k) = resolve::kernel(fs, cwd, true) else {
        return false;
    };
    matches!(discover(fs, &k), Ok(None))
}

/// The repository root (work tree top) git opens in `cwd`, if any.
pub fn work_tree(fs: &dyn Fs, cwd: &str) -> Option<String> {
    let Kernel::Path(k) = resolve::kernel(fs, cwd, true) else {
        return None;
    };
    match discover(fs, &k).ok()?? {
        Found::Dir(d) | Found::DirUnsure(d) | Found::Link(d) | Found::File { at: d, .. } => Some(d),
        Found::Bare(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::OsFs;
    use std::fs;
    use std::os::unix::fs::symlink;

    #[test]
    fn internals() {
        for p in [
            "/p/.git/config",
            "/p/.git/hooks/pre-commit",
            "/p/.git/hooks",
            "/p/.git/info/attributes",
            "/p/.git/modules/lib/config",
            "/p/.git/modules/a/b/hooks/post-checkout",
            "/p/.git/worktrees/w/config.worktree",
            "/p/.git/worktrees/w/commondir",
            "/p/vendor/x/.git/config",
            "/p/bare.git/hooks/update",
            "/p/bare.git/config",
            "/p/.git",
            "/p/sub/.git",
            "/p/.git/objects/info/alternates",
        ] {
            assert!(is_git_internal(p, false), "{p}");
        }
        for p in [
            "/p/.gitignore",
            "/p/.github/workflows/ci.yml",
            "/p/.git/refs/heads/main",
            "/p/src/config",
            "/p/.git/COMMIT_EDITMSG",
            "/p/my.git.txt",
        ] {
            assert!(!is_git_internal(p, false), "{p}");
        }
        assert!(is_git_internal("/p/.GIT/Config", true));
        assert!(!is_git_internal("/p/.GIT/Config", false));
    }

    #[test]
    fn config_file() {
        let w = |s: &str| s.split(' ').map(str::to_string).collect::<Vec<_>>();
        assert_eq!(
            git_config_file(&w("--global user.name x"), "/p", "/h"),
            Some("/h/.gitconfig".into())
        );
        assert_eq!(
            git_config_file(&w("--system core.x y"), "/p", "/h"),
            Some("/etc/gitconfig".into())
        );
        assert_eq!(
            git_config_file(&w("--file ../x.cfg a.b c"), "/p/q", "/h"),
            Some("/p/x.cfg".into())
        );
        assert_eq!(
            git_config_file(&w("-f/tmp/c a.b c"), "/p", "/h"),
            Some("/tmp/c".into())
        );
        assert_eq!(git_config_file(&w("user.name x"), "/p", "/h"), None);
    }

    fn git_init(dir: &str) {
        fs::create_dir_all(format!("{dir}/.git/objects")).unwrap();
        fs::create_dir_all(format!("{dir}/.git/refs")).unwrap();
        fs::write(format!("{dir}/.git/HEAD"), "ref: refs/heads/main\n").unwrap();
    }

    #[test]
    fn trust() {
        let t = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(t.path()).unwrap();
        let r = root.to_str().unwrap();
        let p = format!("{r}/mono/proj");
        fs::create_dir_all(format!("{p}/src")).unwrap();
        // No repository anywhere: git fails, nothing runs.
        assert_eq!(repo_is_trusted(&OsFs, &p, &p, None), Ok(()));
        // The monorepo above the project is the user's own.
        git_init(&format!("{r}/mono"));
        assert_eq!(
            repo_is_trusted(&OsFs, &format!("{p}/src"), &p, None),
            Ok(())
        );
        // The project's own .git.
        git_init(&p);
        assert_eq!(
            repo_is_trusted(&OsFs, &format!("{p}/src"), &p, None),
            Ok(())
        );
        // A nested repository below the project root.
        git_init(&format!("{p}/vendor/evil"));
        assert!(repo_is_trusted(&OsFs, &format!("{p}/vendor/evil"), &p, None).is_err());
        assert!(repo_is_trusted(&OsFs, &format!("{p}/vendor/evil/x"), &p, None).is_err());
        // A bare repository inside the project.
        fs::create_dir_all(format!("{p}/b.git/objects")).unwrap();
        fs::create_dir_all(format!("{p}/b.git/refs")).unwrap();
        fs::write(format!("{p}/b.git/HEAD"), "ref: refs/heads/main\n").unwrap();
        assert!(repo_is_trusted(&OsFs, &format!("{p}/b.git"), &p, None).is_err());
        // A gitfile pointing into the project's content.
        fs::create_dir_all(format!("{p}/sub")).unwrap();
        fs::write(format!("{p}/sub/.git"), "gitdir: ../b.git\n").unwrap();
        assert!(repo_is_trusted(&OsFs, &format!("{p}/sub"), &p, None).is_err());
        // A submodule checkout whose git dir is under .git/modules.
        fs::create_dir_all(format!("{p}/.git/modules/lib/objects")).unwrap();
        fs::create_dir_all(format!("{p}/lib")).unwrap();
        fs::write(format!("{p}/lib/.git"), "gitdir: ../.git/modules/lib\n").unwrap();
        assert_eq!(
            repo_is_trusted(&OsFs, &format!("{p}/lib"), &p, None),
            Ok(())
        );
        // A .git symlink at the project root.
        let q = format!("{r}/q");
        fs::create_dir_all(&q).unwrap();
        git_init(&format!("{r}/elsewhere"));
        symlink(format!("{r}/elsewhere/.git"), format!("{q}/.git")).unwrap();
        assert!(repo_is_trusted(&OsFs, &q, &q, None).is_err());
        // An effective directory that is a link out of the project.
        symlink(format!("{r}/elsewhere"), format!("{p}/out")).unwrap();
        assert!(repo_is_trusted(&OsFs, &format!("{p}/out"), &p, None).is_err());
        // --git-dir: the project's own, or another.
        assert_eq!(repo_is_trusted(&OsFs, &p, &p, Some(".git")), Ok(()));
        assert!(repo_is_trusted(&OsFs, &p, &p, Some("b.git")).is_err());
        assert_eq!(
            index_file(&OsFs, &format!("{p}/src")),
            Some(format!("{p}/.git/index"))
        );
        assert_eq!(work_tree(&OsFs, &format!("{p}/src")), Some(p.clone()));
    }

    fn run_git<D, A>(dir: D, args: &[A])
    where
        D: AsRef<std::path::Path>,
        A: AsRef<std::ffi::OsStr> + std::fmt::Debug,
    {
        let out = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(["-c", "protocol.file.allow=always"])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
    }

    /// Rewrite a version-2 index with the extended flag (and a zero second
    /// flags word) on its first entry, as git itself reads in any version;
    /// the checksum recomputed with `sha1sum` so that git accepts it.
    fn extend_first_entry(index: &str) {
        let d = fs::read(index).unwrap();
        assert_eq!(&d[4..8], &[0, 0, 0, 2]);
        let count = u32::from_be_bytes([d[8], d[9], d[10], d[11]]) as usize;
        let mut at = 12;
        let mut out = d[..12].to_vec();
        for i in 0..count {
            let flags = u16::from_be_bytes([d[at + 60], d[at + 61]]);
            let len = (flags & 0xfff) as usize;
            let name = &d[at + 62..at + 62 + len];
            let start = out.len();
            out.extend_from_slice(&d[at..at + 60]);
            if i == 0 {
                out.extend_from_slice(&(flags | 0x4000).to_be_bytes());
                out.extend_from_slice(&[0, 0]);
            } else {
                out.extend_from_slice(&flags.to_be_bytes());
            }
            out.extend_from_slice(name);
            let size = (out.len() - start + 8) / 8 * 8;
            out.resize(start + size, 0);
            at += (62 + len + 8) / 8 * 8;
        }
        out.extend_from_slice(&d[at..d.len() - 20]);
        let tmp = format!("{index}.body");
        fs::write(&tmp, &out).unwrap();
        let sum = std::process::Command::new("sha1sum")
            .arg(&tmp)
            .output()
            .unwrap();
        let hex = String::from_utf8(sum.stdout).unwrap();
        let hex = &hex[..40];
        for i in 0..20 {
            out.push(u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap());
        }
        fs::remove_file(&tmp).unwrap();
        fs::write(index, out).unwrap();
    }

    /// The index is read as git reads it: a submodule after an entry with
    /// the extended flag (version 2), and one whose path is not UTF-8, are
    /// still seen (red-team findings F3, F2).
    #[test]
    fn index_read_as_git_reads_it() {
        use std::os::unix::ffi::OsStrExt;
        let t = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(t.path()).unwrap();
        let r = root.to_str().unwrap();
        let p = format!("{r}/proj");
        fs::create_dir_all(&p).unwrap();
        run_git(&p, &["init", "-q"]);
        fs::write(format!("{p}/a"), "a").unwrap();
        run_git(&p, &["add", "a"]);
        let n = format!("{p}/sub");
        fs::create_dir_all(&n).unwrap();
        run_git(&n, &["init", "-q"]);
        fs::write(format!("{n}/x"), "x").unwrap();
        run_git(&n, &["add", "x"]);
        run_git(&n, &["commit", "-qm", "x"]);
        run_git(&p, &["add", "sub"]);
        run_git(&p, &["update-index", "--index-version", "2"]);
        assert!(repo_is_trusted(&OsFs, &p, &p, None).is_err());
        extend_first_entry(&format!("{p}/.git/index"));
        let ls = std::process::Command::new("git")
            .args(["ls-files", "-s"])
            .current_dir(&p)
            .output()
            .unwrap();
        assert!(
            ls.status.success(),
            "git rejects the rewritten index: {ls:?}"
        );
        assert!(String::from_utf8_lossy(&ls.stdout).contains("160000"));
        assert!(repo_is_trusted(&OsFs, &p, &p, None).is_err());

        // A submodule at a path that is not UTF-8.
        let q = format!("{r}/q");
        fs::create_dir_all(&q).unwrap();
        run_git(&q, &["init", "-q"]);
        let mut raw = format!("{q}/sub").into_bytes();
        raw.push(0xff);
        let odd = std::path::PathBuf::from(std::ffi::OsStr::from_bytes(&raw));
        fs::create_dir_all(&odd).unwrap();
        run_git(&odd, &["init", "-q"]);
        fs::write(odd.join("x"), "x").unwrap();
        run_git(&odd, &["add", "x"]);
        run_git(&odd, &["commit", "-qm", "x"]);
        run_git(&q, &[std::ffi::OsStr::new("add"), odd.as_os_str()]);
        assert!(repo_is_trusted(&OsFs, &q, &q, None).is_err());
    }

    /// What a process that may write the project (a sandboxed build) can
    /// plant in a trusted repository for the next unconfined `git status`.
    #[test]
    fn planted_redirections() {
        let t = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(t.path()).unwrap();
        let r = root.to_str().unwrap();
        let p = format!("{r}/proj");
        fs::create_dir_all(&p).unwrap();
        run_git(&p, &["init", "-q"]);
        fs::write(format!("{p}/a"), "a").unwrap();
        run_git(&p, &["add", "a"]);
        run_git(&p, &["commit", "-qm", "one"]);
        assert_eq!(repo_is_trusted(&OsFs, &p, &p, None), Ok(()));

        // `.git/commondir` moves the config anywhere.
        fs::write(format!("{p}/.git/commondir"), "../../evil\n").unwrap();
        let e = repo_is_trusted(&OsFs, &p, &p, None).unwrap_err();
        assert!(e.contains("commondir"), "{e}");
        fs::remove_file(format!("{p}/.git/commondir")).unwrap();

        // A real submodule: its gitfile points into .git/modules.
        let lib = format!("{r}/lib");
        fs::create_dir_all(&lib).unwrap();
        run_git(&lib, &["init", "-q"]);
        fs::write(format!("{lib}/l"), "l").unwrap();
        run_git(&lib, &["add", "l"]);
        run_git(&lib, &["commit", "-qm", "lib"]);
        run_git(&p, &["submodule", "add", "-q", &lib, "vendor/lib"]);
        assert_eq!(repo_is_trusted(&OsFs, &p, &p, None), Ok(()));
        assert_eq!(
            repo_is_trusted(&OsFs, &format!("{p}/vendor/lib"), &p, None),
            Ok(())
        );
        // Its gitfile repointed into the project's content.
        let gf = format!("{p}/vendor/lib/.git");
        let orig = fs::read_to_string(&gf).unwrap();
        fs::create_dir_all(format!("{p}/evil")).unwrap();
        fs::write(&gf, "gitdir: ../../evil\n").unwrap();
        assert!(repo_is_trusted(&OsFs, &p, &p, None).is_err());
        fs::write(&gf, orig).unwrap();

        // A repository planted in the work tree and recorded as a gitlink.
        let n = format!("{p}/nested");
        fs::create_dir_all(&n).unwrap();
        run_git(&n, &["init", "-q"]);
        fs::write(format!("{n}/x"), "x").unwrap();
        run_git(&n, &["add", "x"]);
        run_git(&n, &["commit", "-qm", "x"]);
        run_git(&p, &["add", "nested"]);
        let e = repo_is_trusted(&OsFs, &p, &p, None).unwrap_err();
        assert!(e.contains("nested") && e.contains("own repository"), "{e}");
        // Unpopulated (no .git in the checkout): git does not enter it.
        fs::rename(format!("{n}/.git"), format!("{r}/moved.git")).unwrap();
        assert_eq!(repo_is_trusted(&OsFs, &p, &p, None), Ok(()));

        // A split index keeps entries elsewhere: not listable.
        run_git(&p, &["update-index", "--split-index"]);
        assert!(repo_is_trusted(&OsFs, &p, &p, None).is_err());
        run_git(&p, &["update-index", "--no-split-index"]);
        assert_eq!(repo_is_trusted(&OsFs, &p, &p, None), Ok(()));

        // A linked worktree: its git directory's commondir leads back.
        let w = format!("{r}/wt");
        run_git(&p, &["worktree", "add", "-q", &w]);
        assert_eq!(repo_is_trusted(&OsFs, &w, &w, None), Ok(()));
        // A worktree directory planted in .git/worktrees that has its own
        // config and no commondir, reached through a gitfile in the project.
        let g = format!("{p}/.git/worktrees/planted");
        fs::create_dir_all(format!("{g}/objects")).unwrap();
        fs::write(format!("{g}/HEAD"), "ref: refs/heads/main\n").unwrap();
        fs::create_dir_all(format!("{p}/side")).unwrap();
        fs::write(
            format!("{p}/side/.git"),
            "gitdir: ../.git/worktrees/planted\n",
        )
        .unwrap();
        assert!(repo_is_trusted(&OsFs, &format!("{p}/side"), &p, None).is_err());
        // ... or one whose commondir points elsewhere.
        fs::write(format!("{g}/commondir"), "../../../evil\n").unwrap();
        assert!(repo_is_trusted(&OsFs, &format!("{p}/side"), &p, None).is_err());
        // A `.git` git would pass over, leaving the project root to be
        // read as a bare repository with its own config (finding F1).
        fs::write(
            format!("{p}/.git/HEAD.keep"),
            fs::read(format!("{p}/.git/HEAD")).unwrap(),
        )
        .unwrap();
        fs::write(format!("{p}/.git/HEAD"), "garbage\n").unwrap();
        // (nothing else: git finds no repository and fails)
        assert_eq!(repo_is_trusted(&OsFs, &p, &p, None), Ok(()));
        // the project root made to look like a bare repository
        fs::write(format!("{p}/HEAD"), "ref: refs/heads/main\n").unwrap();
        fs::create_dir_all(format!("{p}/objects")).unwrap();
        fs::create_dir_all(format!("{p}/refs")).unwrap();
        let e = repo_is_trusted(&OsFs, &p, &p, None).unwrap_err();
        assert!(e.contains("bare repository inside the project"), "{e}");
        fs::rename(format!("{p}/.git/HEAD.keep"), format!("{p}/.git/HEAD")).unwrap();
        // even with a valid .git: git passes over it when its objects are
        // not searchable (chmod 0 by a non-root process)
        assert!(repo_is_trusted(&OsFs, &p, &p, None).is_err());
        for x in ["HEAD", "objects", "refs"] {
            let _ = fs::remove_file(format!("{p}/{x}"));
            let _ = fs::remove_dir(format!("{p}/{x}"));
        }
        assert_eq!(repo_is_trusted(&OsFs, &p, &p, None), Ok(()));
        // A gitfile or a bare repository into the writable parts of the
        // project's own .git (red-team round two, G4).
        fs::create_dir_all(format!("{p}/.git/refs/x/objects")).unwrap();
        fs::create_dir_all(format!("{p}/.git/refs/x/refs")).unwrap();
        fs::write(format!("{p}/.git/refs/x/HEAD"), "ref: refs/heads/main\n").unwrap();
        fs::create_dir_all(format!("{p}/d")).unwrap();
        fs::write(format!("{p}/d/.git"), "gitdir: ../.git/refs/x\n").unwrap();
        assert!(repo_is_trusted(&OsFs, &format!("{p}/d"), &p, None).is_err());
        assert!(repo_is_trusted(&OsFs, &format!("{p}/.git/refs/x"), &p, None).is_err());
        fs::remove_dir_all(format!("{p}/.git/refs/x")).unwrap();
        // Files the repository's config includes, and its hooksPath (G6).
        fs::write(
            format!("{p}/.git/config"),
            "[core]\n\thooksPath = .husky\n[include]\n\tpath = ../team.gitconfig\n",
        )
        .unwrap();
        assert!(git_reads_as_config(
            &OsFs,
            &format!("{p}/team.gitconfig"),
            "/nonexistent-home",
            None
        ));
        assert!(git_reads_as_config(
            &OsFs,
            &format!("{p}/.husky/post-index-change"),
            "/nonexistent-home",
            None
        ));
        assert!(!git_reads_as_config(
            &OsFs,
            &format!("{p}/src/main.rs"),
            "/nonexistent-home",
            None
        ));
        assert!(!git_reads_as_config(
            &OsFs,
            &format!("{p}/.gitconfig"),
            "/nonexistent-home",
            None
        ));
        fs::write(
            format!("{p}/.git/config"),
            format!("[include]\n\tpath = {p}/abs.cfg ; a comment\n\tpath = ~/../proj/tilde.cfg\n"),
        )
        .unwrap();
        let home = format!("{r}/home");
        fs::create_dir_all(&home).unwrap();
        assert!(git_reads_as_config(
            &OsFs,
            &format!("{p}/abs.cfg"),
            &home,
            None
        ));
        assert!(git_reads_as_config(
            &OsFs,
            &format!("{p}/tilde.cfg"),
            &home,
            None
        ));
        // a relative hooksPath in the user's own config is the work tree's
        fs::write(
            format!("{home}/.gitconfig"),
            "[core]\n\thooksPath = .githooks\n",
        )
        .unwrap();
        assert!(git_reads_as_config(
            &OsFs,
            &format!("{p}/.githooks/post-index-change"),
            &home,
            None
        ));
        // diff.submodule = diff in the user's config (G5)
        assert!(!user_config_diffs_submodules(&OsFs, &home, None));
        fs::write(
            format!("{home}/.gitconfig"),
            "[core]\n\thooksPath = .githooks\n[diff]\n\tsubmodule = diff ; all of it\n",
        )
        .unwrap();
        assert!(user_config_diffs_submodules(&OsFs, &home, None));
        // XDG_CONFIG_HOME of the environment git runs in (Context::run_env)
        // names the other user file.
        let xdg = format!("{home}/xdg");
        fs::create_dir_all(format!("{xdg}/git")).unwrap();
        fs::write(format!("{xdg}/git/config"), "[diff]\n\tsubmodule = diff\n").unwrap();
        fs::write(format!("{home}/.gitconfig"), "").unwrap();
        assert!(!user_config_diffs_submodules(&OsFs, &home, None));
        assert!(user_config_diffs_submodules(&OsFs, &home, Some(&xdg)));
        fs::write(
            format!("{home}/.gitconfig"),
            "[core]\n\thooksPath = .githooks\n[diff]\n\tsubmodule = diff ; all of it\n",
        )
        .unwrap();
        fs::write(format!("{p}/.git/config"), "[core]\n\tbare = false\n").unwrap();
        assert!(!git_reads_as_config(
            &OsFs,
            &format!("{p}/team.gitconfig"),
            "/nonexistent-home",
            None
        ));
        // A project literally named `worktrees` is an ordinary repository.
        let q = format!("{r}/worktrees");
        fs::create_dir_all(&q).unwrap();
        run_git(&q, &["init", "-q"]);
        assert_eq!(repo_is_trusted(&OsFs, &q, &q, None), Ok(()));
    }
}
