//! What a sandboxed run must not leave in the project's repository.
//!
//! The sandbox lets a build write the project's `.git` (commits need it)
//! except its config, hooks, info, modules and worktrees. A few writes that
//! remain are not harmful inside the sandbox but are for what runs *later*,
//! unconfined — the human's own `git status`, an editor polling the
//! repository, a granted `git commit` (red-team helper-24, F1–F3):
//!
//! - `.git/commondir` (absent in a main repository) moves git's config and
//!   hooks to any directory the run prepared: git runs its `core.fsmonitor`;
//! - a gitlink in the index whose checkout holds its own repository makes
//!   `git status` enter it and run *its* config;
//! - an entry marked skip-worktree or assume-unchanged hides a change from
//!   `git status` and `git diff`, the views a human reviews an agent's work
//!   with (a line added to the Makefile that the next `make` runs).
//!
//! The same holds for configuration files other tools read from the project
//! root and run programs from, which a run could *create* where none was
//! (the sandbox keeps existing ones read-only): `.npmrc` (`script-shell`),
//! `.yarnrc.yml` (`yarnPath`), `.cargo/config.toml` (`rustc-wrapper`),
//! `rust-toolchain.toml` (a toolchain `path`), mise and asdf files, `.envrc`,
//! hook managers' configs, editors' task files. Often ignored by git, such a
//! file would not even show in `git status`. One the run created is removed.
//!
//! A replacement ref (`refs/replace/<commit>`, loose or in `packed-refs`)
//! is the same kind of hiding (rt6 F4): `git log -p`, `git show` and
//! `git diff` then show another commit than the one `git push` sends — a
//! commit of an evil Makefile reviewed as an empty "tidy". One the run
//! created is removed (the loose file, or its line in `packed-refs`) and
//! the run fails. So is a `.mcp.json` (a host starts the servers it names)
//! or `.vscode/mcp.json` the run created, and the like of other agents and
//! editors (`.cursor/mcp.json`, `.roo/`, `.amazonq/`, `.kiro/`, `.zed/`,
//! `.continue/`, `opencode.json`, `.aider.conf.yml`; rt12 F8).
//!
//! A submodule checkout that had no `.git` before the run and has one after
//! (rt12 F7: `sub` registered but not initialised, as after a plain clone,
//! then `cd sub && git init && git config core.fsmonitor …`) is the nested
//! repository `git status` enters: its `.git` is removed and the run fails.
//!
//! A `.gitignore` the run wrote that ignores files the run also wrote hides
//! them the same way (rt6 F8: `tests/.gitignore` = `*` beside a planted
//! `tests/conftest.py` — `git status` shows nothing, the human's own
//! `pytest` runs it). One the run created is removed, which shows them
//! again, and the run fails. The tools' own self-ignoring directories
//! (`.pytest_cache/`, `.mypy_cache/`, `.ruff_cache/`, a venv, …) are what
//! they are: the tools that run project code pass over them.
//!
//! None of these can be kept from being *created* by the kernel without
//! making `.git` read-only. So `shellgate sandbox --record` (the parent
//! outside the sandbox, which waits until every process of the run has
//! ended) compares the repository before and after: a `commondir` the run
//! created is removed, and any of the three makes the run count as failed —
//! it is recorded (the next identical call asks a human) and the reason is
//! printed. The gate's own judgement of a repository (`repo_is_trusted`)
//! decides what "git would run code from it" means, so both agree.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
#[cfg(unix)]
use std::time::Instant;
use std::time::{Duration, SystemTime};

use shellgate_gitfmt::index as git_index;
use shellgate_policy::fs::OsFs;
use shellgate_policy::repo;

/// Largest index read (a larger one is not compared).
const MAX_INDEX_BYTES: u64 = 256 << 20;
/// Most entries listed from an index.
const MAX_ENTRIES: usize = 4_000_000;

/// Files a run must not leave behind where there were none, beyond
/// [`shellgate_sandbox::TOOL_CONFIG_FILES`] (which the sandbox also keeps
/// read-only where they exist): `.npmrc` (hidden inside as a secret, so
/// only its creation is possible), editors' task and settings files, and
/// `.git/commondir`.
const CREATED_ALSO: &[(&str, &str)] = &[
    (".npmrc", TOOL_RUNS),
    (".vscode/tasks.json", TOOL_RUNS),
    (".vscode/settings.json", TOOL_RUNS),
    (".devcontainer.json", TOOL_RUNS),
    (".devcontainer/devcontainer.json", TOOL_RUNS),
    (".mcp.json", "a host starts the MCP servers it names"),
    (
        ".vscode/mcp.json",
        "an editor starts the MCP servers it names",
    ),
    // Other agents' and editors' project files naming servers, language
    // servers or commands they start (rt12 F8).
    (".cursor/mcp.json", MCP_STARTS),
    (".roo/mcp.json", MCP_STARTS),
    (".amazonq/mcp.json", MCP_STARTS),
    (".kiro/settings/mcp.json", MCP_STARTS),
    (".zed/settings.json", MCP_STARTS),
    (".zed/tasks.json", TOOL_RUNS),
    (".continue/config.yaml", MCP_STARTS),
    (".continue/config.json", MCP_STARTS),
    ("opencode.json", MCP_STARTS),
    ("opencode.jsonc", MCP_STARTS),
    (".aider.conf.yml", TOOL_RUNS),
    (
        ".git/commondir",
        "git would take its config and hooks from elsewhere",
    ),
];

/// Why a created tool configuration matters.
const TOOL_RUNS: &str = "a tool reads it and runs what it names";

/// Why a created agent or editor configuration matters.
const MCP_STARTS: &str = "an agent or editor starts the servers or commands it names";

/// Directories whose every file an agent or editor reads as configuration
/// naming servers it starts (`.continue/mcpServers/x.yaml`): any file a run
/// creates below one that was absent is removed with the directory.
const CREATED_DIRS: &[(&str, &str)] = &[(".continue/mcpServers", MCP_STARTS)];

/// Directories whose *new* entries matter even where the directory was
/// there before (`git init` makes an empty `.git/branches`): git's legacy
/// remote files name a URL that `git remote -v` lists and `git fetch NAME`
/// contacts (rt25a: one a sandboxed run created survived). A new entry is
/// removed and the run fails.
const WATCHED_ENTRIES: &[(&str, &str)] = &[
    (".git/remotes", LEGACY_REMOTE),
    (".git/branches", LEGACY_REMOTE),
];

/// Why a legacy remote file matters.
const LEGACY_REMOTE: &str = "git reads it as a remote: its URL is fetched from and pushed to";

/// The entries of a project directory (empty when it is not a real one).
fn entries_of(project: &Path, rel: &str) -> BTreeSet<std::ffi::OsString> {
    if !real_dirs_between(project, rel)
        || !std::fs::symlink_metadata(project.join(rel)).is_ok_and(|m| m.is_dir())
    {
        return BTreeSet::new();
    }
    std::fs::read_dir(project.join(rel))
        .map(|r| r.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default()
}

/// What is compared around a sandboxed run.
#[derive(Debug)]
pub struct RunWatch {
    project: PathBuf,
    /// When the run started, a little early: what has changed since (its
    /// status-change time, which a run cannot set back) the run wrote.
    #[cfg_attr(not(unix), allow(dead_code))]
    started: SystemTime,
    repo: Option<RepoState>,
    /// The watched files absent before the run, with why each matters.
    absent: Vec<(&'static str, &'static str)>,
    /// The watched directories ([`CREATED_DIRS`]) absent before the run.
    absent_dirs: Vec<(&'static str, &'static str)>,
    /// The entries of [`WATCHED_ENTRIES`] before the run.
    entries: Vec<BTreeSet<std::ffi::OsString>>,
}

impl RunWatch {
    /// The project as the run finds it.
    pub fn before(project: &Path) -> RunWatch {
        let watched = shellgate_sandbox::TOOL_CONFIG_FILES
            .iter()
            .map(|rel| (*rel, TOOL_RUNS))
            .chain(CREATED_ALSO.iter().copied());
        RunWatch {
            project: project.to_path_buf(),
            // The kernel stamps files with a coarse clock: a file the run
            // writes at once may read a few milliseconds earlier than now.
            started: SystemTime::now()
                .checked_sub(Duration::from_millis(200))
                .unwrap_or(SystemTime::UNIX_EPOCH),
            repo: RepoState::read(project),
            absent: watched
                .filter(|(rel, _)| std::fs::symlink_metadata(project.join(rel)).is_err())
                .collect(),
            absent_dirs: CREATED_DIRS
                .iter()
                .copied()
                .filter(|(rel, _)| std::fs::symlink_metadata(project.join(rel)).is_err())
                .collect(),
            entries: WATCHED_ENTRIES
                .iter()
                .map(|(rel, _)| entries_of(project, rel))
                .collect(),
        }
    }

    /// What the run left for later tools, after undoing what can be undone
    /// (a watched file it created is removed, before the repository is
    /// judged again). Empty: nothing.
    pub fn after_run(&self) -> Vec<String> {
        let mut found = Vec::new();
        for (rel, why) in &self.absent {
            let p = self.project.join(rel);
            // Only a name in the project itself: a directory on the way
            // replaced by a link (`.cargo -> ~/.cargo`) would otherwise make
            // this unconfined parent remove the user's own file.
            if !real_dirs_between(&self.project, rel) {
                if std::fs::metadata(&p).is_ok() {
                    found.push(format!(
                        "{} now exists through a link on the way (left in place)",
                        p.display()
                    ));
                }
                continue;
            }
            if std::fs::symlink_metadata(&p).is_err() {
                continue;
            }
            found.push(match std::fs::remove_file(&p) {
                Ok(()) => format!("it created {} ({why}); removed", p.display()),
                Err(e) => format!(
                    "it created {} ({why}), which cannot be removed: {e}",
                    p.display()
                ),
            });
        }
        for (rel, why) in &self.absent_dirs {
            let p = self.project.join(rel);
            let Ok(m) = std::fs::symlink_metadata(&p) else {
                continue;
            };
            if !real_dirs_between(&self.project, rel) {
                found.push(format!(
                    "{} now exists through a link on the way (left in place)",
                    p.display()
                ));
                continue;
            }
            let removed = if m.is_dir() {
                std::fs::remove_dir_all(&p)
            } else {
                std::fs::remove_file(&p)
            };
            found.push(match removed {
                Ok(()) => format!("it created {} ({why}); removed", p.display()),
                Err(e) => format!(
                    "it created {} ({why}), which cannot be removed: {e}",
                    p.display()
                ),
            });
        }
        for ((rel, why), before) in WATCHED_ENTRIES.iter().zip(&self.entries) {
            for name in entries_of(&self.project, rel).difference(before) {
                let p = self.project.join(rel).join(name);
                let removed = match std::fs::symlink_metadata(&p) {
                    Ok(m) if m.is_dir() => std::fs::remove_dir_all(&p),
                    _ => std::fs::remove_file(&p),
                };
                found.push(match removed {
                    Ok(()) => format!("it created {} ({why}); removed", p.display()),
                    Err(e) => format!(
                        "it created {} ({why}), which cannot be removed: {e}",
                        p.display()
                    ),
                });
            }
        }
        // Status-change times are a Unix notion; the sandbox is Unix-only.
        #[cfg(unix)]
        if self.repo.is_some() {
            found.extend(hidden_by_new_ignores(&self.project, self.started));
        }
        #[cfg(unix)]
        found.extend(python_start_up(&self.project, self.started));
        if let Some(repo) = &self.repo {
            found.extend(repo.after_run());
        }
        found
    }
}

/// Directories a tool makes with a `.gitignore` that ignores their own
/// content (pytest, mypy, ruff, uv and `venv`, tox, nox, hypothesis), or
/// that hold installed packages; the tools that run project code do not
/// collect from them (pytest's `norecursedirs` skips `.*`, `venv`,
/// `node_modules`). Not walked into.
#[cfg(unix)]
const SELF_IGNORED_DIRS: &[&str] = &[
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".hypothesis",
    ".tox",
    ".nox",
    ".venv",
    "venv",
    "__pycache__",
    "node_modules",
    ".git",
    // Build outputs: a project ignores them already (a file hidden there
    // needs no new ignore file), and a new project's own `.gitignore`
    // (`cargo new`: `/target`) ignores them.
    "target",
    "build",
    "dist",
];

/// Most entries the walk for changed ignore files looks at, and for how
/// long; a larger project is checked as far as the walk got.
#[cfg(unix)]
const IGNORE_WALK_MAX: usize = 200_000;
#[cfg(unix)]
const IGNORE_WALK_TIME: Duration = Duration::from_secs(2);

/// The `.gitignore` files the run wrote (changed since `started`) that
/// ignore other files the run wrote: each one the run created is removed
/// (what it hid shows in `git status` again). One line per file.
#[cfg(unix)]
fn hidden_by_new_ignores(project: &Path, started: SystemTime) -> Vec<String> {
    let changed = |m: &std::fs::Metadata| changed_since(m, started);
    // One bounded walk: the ignore files and every entry the run wrote.
    let deadline = Instant::now() + IGNORE_WALK_TIME;
    let mut ignores: Vec<PathBuf> = Vec::new();
    let mut written: Vec<(PathBuf, bool)> = Vec::new();
    let mut stack = vec![project.to_path_buf()];
    let mut seen = 0usize;
    let mut complete = true;
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            seen += 1;
            if seen > IGNORE_WALK_MAX || Instant::now() > deadline {
                complete = false;
                break;
            }
            let Ok(m) = e.path().symlink_metadata() else {
                continue;
            };
            let name = e.file_name();
            let is_dir = m.is_dir();
            if is_dir && SELF_IGNORED_DIRS.iter().any(|d| name == *d) {
                continue;
            }
            if changed(&m) {
                if name == ".gitignore" && m.is_file() {
                    ignores.push(e.path());
                } else {
                    written.push((e.path(), is_dir));
                }
            }
            if is_dir {
                stack.push(e.path());
            }
        }
        if !complete {
            break;
        }
    }
    let mut found = Vec::new();
    for g in ignores {
        let Some(dir) = g.parent() else { continue };
        let mut b = ignore::gitignore::GitignoreBuilder::new(dir);
        let matcher = match b.add(&g) {
            None => b.build().ok(),
            Some(_) => None,
        };
        let hidden: Vec<&Path> = written
            .iter()
            .filter(|(p, _)| p.starts_with(dir))
            .filter(|(p, is_dir)| match &matcher {
                Some(m) => m.matched_path_or_any_parents(p, *is_dir).is_ignore(),
                // Patterns git may read but this reader cannot: count.
                None => true,
            })
            .map(|(p, _)| p.as_path())
            .collect();
        if hidden.is_empty() {
            continue;
        }
        let shown: Vec<String> = hidden
            .iter()
            .take(3)
            .map(|p| p.display().to_string())
            .collect();
        let more = if hidden.len() > shown.len() {
            ", …"
        } else {
            ""
        };
        let created = g
            .metadata()
            .and_then(|m| m.created())
            .is_ok_and(|b| b >= started);
        let what = format!(
            "it wrote {}, which hides from git status what it also wrote ({}{more})",
            g.display(),
            shown.join(", ")
        );
        found.push(if created {
            match std::fs::remove_file(&g) {
                Ok(()) => format!("{what}; removed"),
                Err(e) => format!("{what}, which cannot be removed: {e}"),
            }
        } else {
            what
        });
    }
    if !complete && !found.is_empty() {
        found.push(format!(
            "(the project was checked as far as {IGNORE_WALK_MAX} entries or {} s reach)",
            IGNORE_WALK_TIME.as_secs()
        ));
    }
    found
}

/// Whether a file's status changed at or after `started` (what the run
/// wrote: a run cannot set a status-change time back).
#[cfg(unix)]
fn changed_since(m: &std::fs::Metadata, started: SystemTime) -> bool {
    use std::os::unix::fs::MetadataExt;
    let ctime = SystemTime::UNIX_EPOCH
        + Duration::new(
            u64::try_from(m.ctime()).unwrap_or(0),
            u32::try_from(m.ctime_nsec()).unwrap_or(0),
        );
    ctime >= started
}

/// Python code a run left where the interpreter loads it by itself, which
/// git does not show and nobody reviews (rt25a F1, rt26a F3), for the
/// human's next unconfined `python`, `pytest`, `pip` or `source
/// .venv/bin/activate`:
/// - bytecode: a `.pyc`/`.pyo` the run wrote (or linked) is removed,
///   wherever it lies, and so is a `__pycache__` it made a link (Python
///   writes it again from the source). An unchecked one runs instead of
///   its source even after the source is edited; a `json.pyc` beside the
///   sources shadows the standard library's module;
/// - an environment anywhere in the project (a directory holding
///   `pyvenv.cfg` or `conda-meta/`, or a `__pypackages__`: `.venv`,
///   `sub/.venv`, `.tox/py311`, a conda prefix): a `pyvenv.cfg`,
///   an installed module, a `.pth` or `sitecustomize.py`, or a `bin/`
///   script (`activate`, `pip`) the run changed makes the run count as
///   failed; they are left for the human to judge.
///
/// Only real directories are entered, and only links and files are
/// removed (the parent runs unconfined: a link the run planted must not
/// make it remove the user's own files). Bounded like the walk for ignore
/// files; `.git`, `node_modules` and `target` are not entered.
#[cfg(unix)]
fn python_start_up(project: &Path, started: SystemTime) -> Vec<String> {
    let mut found = Vec::new();
    let deadline = Instant::now() + IGNORE_WALK_TIME;
    // (directory, the virtualenv it lies in)
    let mut stack: Vec<(PathBuf, Option<PathBuf>)> = vec![(project.to_path_buf(), None)];
    let mut seen = 0usize;
    let changed = |p: &Path| {
        p.symlink_metadata()
            .is_ok_and(|m| changed_since(&m, started))
    };
    'walk: while let Some((dir, venv)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let entries: Vec<std::fs::DirEntry> = entries.flatten().collect();
        // A virtualenv (`pyvenv.cfg`), a conda environment (`conda-meta/`)
        // or a PEP 582 `__pypackages__` (rt27 F4).
        let venv = venv.or_else(|| {
            (dir.file_name().is_some_and(|n| n == "__pypackages__")
                || entries
                    .iter()
                    .any(|e| e.file_name() == "pyvenv.cfg" || e.file_name() == "conda-meta"))
            .then(|| dir.clone())
        });
        for e in entries {
            seen += 1;
            if seen > IGNORE_WALK_MAX || Instant::now() > deadline {
                break 'walk;
            }
            // The entry's type from the directory listing (no `stat`).
            let Ok(ft) = e.file_type() else { continue };
            let name = e.file_name();
            let path = e.path();
            if ft.is_dir() {
                if name != ".git" && name != "node_modules" && name != "target" {
                    stack.push((path, venv.clone()));
                }
                continue;
            }
            let lossy = name.to_string_lossy();
            let pyc = lossy.ends_with(".pyc") || lossy.ends_with(".pyo");
            if ft.is_symlink() && name == "__pycache__" && changed(&path) {
                let _ = std::fs::remove_file(&path);
                continue;
            }
            // Bytecode anywhere (a `json.pyc` beside the sources shadows the
            // standard library's module: rt27 F5); in `__pycache__` a cache.
            if pyc && (ft.is_file() || ft.is_symlink()) {
                if changed(&path) {
                    // Removing it costs a recompilation.
                    let _ = std::fs::remove_file(&path);
                }
                continue;
            }
            let Some(root) = &venv else { continue };
            let rel = path.strip_prefix(root).unwrap_or(&path);
            let first = rel.components().next().map(|c| c.as_os_str().to_owned());
            let loads = name == "pyvenv.cfg"
                || rel.components().any(|c| {
                    matches!(
                        c.as_os_str().to_str(),
                        Some("site-packages" | "dist-packages")
                    )
                })
                || first.is_some_and(|f| f == "bin" || f == "Scripts");
            if loads && changed(&path) {
                found.push(format!(
                    "it changed {} in the virtualenv {} (code its Python or its scripts run); left in place",
                    path.display(),
                    root.display()
                ));
            }
        }
    }
    found
}

/// The repository facts compared around a sandboxed run.
#[derive(Debug)]
pub struct RepoState {
    project: PathBuf,
    /// The gate trusts the repository (`Err`: why not).
    trusted: Result<(), String>,
    /// Index entries git does not look at (`None`: no index read).
    hidden: Option<BTreeSet<String>>,
    /// Replacement refs, loose and packed (`None`: not readable).
    replaced: Option<BTreeSet<ReplaceRef>>,
    /// Submodule checkouts (gitlinks of the index) that hold a `.git`
    /// (`None`: no index read).
    populated: Option<BTreeSet<String>>,
}

/// A replacement ref and where it is written.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum ReplaceRef {
    /// A file below `.git/refs/replace/` (its path relative to `.git`).
    Loose(String),
    /// A line of `.git/packed-refs` (the ref's name).
    Packed(String),
}

impl RepoState {
    /// The state of the repository at the project root (`None` when the
    /// project has no `.git` directory: nothing to compare).
    pub fn read(project: &Path) -> Option<RepoState> {
        let git = project.join(".git");
        if !std::fs::symlink_metadata(&git).is_ok_and(|m| m.is_dir()) {
            return None;
        }
        let p = project.to_string_lossy();
        let index = read_index(&git.join("index"));
        Some(RepoState {
            project: project.to_path_buf(),
            trusted: repo::repo_is_trusted(&OsFs, &p, &p, None),
            hidden: index.as_ref().map(|idx| {
                idx.entries
                    .iter()
                    .filter(|e| e.hidden)
                    .map(|e| e.path.clone())
                    .collect()
            }),
            replaced: replace_refs(&git),
            populated: index.as_ref().map(|idx| populated_gitlinks(project, idx)),
        })
    }

    /// What the run left that later unconfined git would act on. Empty:
    /// nothing.
    pub fn after_run(&self) -> Vec<String> {
        let mut found = Vec::new();
        let Some(mut now) = RepoState::read(&self.project) else {
            return found;
        };
        // A submodule checkout the run gave a repository of its own (rt12
        // F7: `cd sub && git init && git config core.fsmonitor …`, with
        // `sub` registered but not initialised, as after a plain clone):
        // the human's own `git status` enters it and runs its config.
        // Removed first, then the repository is judged again.
        if let Some(after) = &now.populated {
            let before = self.populated.clone().unwrap_or_default();
            let new: Vec<&String> = after.difference(&before).collect();
            if !new.is_empty() {
                found.push(remove_checkout_repos(&self.project, &new));
                match RepoState::read(&self.project) {
                    Some(again) => now = again,
                    None => return found,
                }
            }
        }
        if let (Ok(()), Err(why)) = (&self.trusted, &now.trusted) {
            found.push(format!(
                "the repository is no longer one git can open safely: {why}"
            ));
        }
        if let (Some(before), Some(after)) = (&self.hidden, &now.hidden) {
            let new: Vec<&String> = after.difference(before).collect();
            if !new.is_empty() {
                let shown: Vec<&str> = new.iter().take(5).map(|s| s.as_str()).collect();
                found.push(format!(
                    "it marked {} index {} skip-worktree or assume-unchanged, so git status and git diff no longer show changes to {}{}",
                    new.len(),
                    if new.len() == 1 { "entry" } else { "entries" },
                    shown.join(", "),
                    if new.len() > shown.len() { ", …" } else { "" }
                ));
            }
        } else if self.hidden.is_some() && now.hidden.is_none() {
            found.push("the index can no longer be read as git reads it".into());
        }
        let git = self.project.join(".git");
        match (&self.replaced, &now.replaced) {
            (Some(before), Some(after)) => {
                let new: Vec<&ReplaceRef> = after.difference(before).collect();
                if !new.is_empty() {
                    found.push(remove_replace_refs(&git, &new));
                }
            }
            (Some(_), None) => found.push(
                "the repository's replacement refs can no longer be read (git log and git show may show other commits than the ones pushed)"
                    .into(),
            ),
            _ => {}
        }
        found
    }
}

/// Most replacement refs listed (a repository with more is not compared).
const MAX_REPLACE_REFS: usize = 10_000;

/// The replacement refs of the git directory `git`: files below
/// `refs/replace` (a link there or on the way counts as one, under its own
/// name) and `refs/replace/` lines of `packed-refs`. `None`: something could
/// not be read.
fn replace_refs(git: &Path) -> Option<BTreeSet<ReplaceRef>> {
    let mut out = BTreeSet::new();
    let mut stack = vec![PathBuf::from("refs/replace")];
    while let Some(rel) = stack.pop() {
        let p = git.join(&rel);
        let m = match std::fs::symlink_metadata(&p) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(_) => return None,
        };
        if m.is_dir() {
            for e in std::fs::read_dir(&p).ok()? {
                stack.push(rel.join(e.ok()?.file_name()));
            }
        } else {
            out.insert(ReplaceRef::Loose(rel.to_string_lossy().into_owned()));
        }
        if out.len() > MAX_REPLACE_REFS {
            return None;
        }
    }
    let packed = git.join("packed-refs");
    match std::fs::symlink_metadata(&packed) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(_) => return None,
        Ok(m) if !m.is_file() => return None,
        Ok(_) => {
            let text = std::fs::read(&packed).ok()?;
            for line in String::from_utf8_lossy(&text).lines() {
                if let Some((_, name)) = line.split_once(' ') {
                    if name.starts_with("refs/replace/") {
                        out.insert(ReplaceRef::Packed(name.to_string()));
                    }
                }
                if out.len() > MAX_REPLACE_REFS {
                    return None;
                }
            }
        }
    }
    Some(out)
}

/// Removes the replacement refs a run created and says so: a loose one
/// whose directories on the way are real (not links), a packed one by
/// writing `packed-refs` again without its line (only a regular file with
/// one link, replaced by rename).
fn remove_replace_refs(git: &Path, new: &[&ReplaceRef]) -> String {
    let mut removed = Vec::new();
    let mut left = Vec::new();
    let mut packed_names = Vec::new();
    for r in new {
        match r {
            ReplaceRef::Loose(rel) => {
                let gone =
                    real_dirs_between(git, rel) && std::fs::remove_file(git.join(rel)).is_ok();
                if gone {
                    removed.push(rel.clone())
                } else {
                    left.push(rel.clone())
                }
            }
            ReplaceRef::Packed(name) => packed_names.push(name.clone()),
        }
    }
    if !packed_names.is_empty() {
        if rewrite_packed_refs(git, &packed_names).is_ok() {
            removed.extend(packed_names);
        } else {
            left.extend(packed_names);
        }
    }
    let mut msg = format!(
        "it created {} replacement {} ({}), which make git log, git show and git diff show other commits than the ones git push sends",
        new.len(),
        if new.len() == 1 { "ref" } else { "refs" },
        removed.iter().chain(left.iter()).take(5).cloned().collect::<Vec<_>>().join(", ")
    );
    if left.is_empty() {
        msg.push_str("; removed");
    } else {
        msg.push_str(&format!("; {} could not be removed", left.join(", ")));
    }
    msg
}

/// `packed-refs` without the lines of `names` (and the `^` line peeling
/// each), written next to it and renamed over it.
fn rewrite_packed_refs(git: &Path, names: &[String]) -> std::io::Result<()> {
    use std::io::Write;
    #[cfg(unix)]
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let packed = git.join("packed-refs");
    let m = std::fs::symlink_metadata(&packed)?;
    #[cfg(unix)]
    let single = m.nlink() == 1;
    #[cfg(not(unix))]
    let single = true;
    if !m.is_file() || !single {
        return Err(std::io::Error::other("packed-refs is not a plain file"));
    }
    let text = std::fs::read(&packed)?;
    let text = String::from_utf8_lossy(&text);
    let mut out = String::with_capacity(text.len());
    let mut skipping = false;
    for line in text.lines() {
        if line.starts_with('^') && skipping {
            continue;
        }
        skipping = line
            .split_once(' ')
            .is_some_and(|(_, n)| names.iter().any(|x| x == n));
        if !skipping {
            out.push_str(line);
            out.push('\n');
        }
    }
    let tmp = git.join("packed-refs.shellgate-new");
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    o.custom_flags(libc::O_NOFOLLOW);
    let mut f = o.open(&tmp)?;
    f.write_all(out.as_bytes())?;
    drop(f);
    std::fs::rename(&tmp, &packed).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// Whether every directory between `root` and `rel`'s last component is a
/// real directory (no symbolic link).
fn real_dirs_between(root: &Path, rel: &str) -> bool {
    let mut at = root.to_path_buf();
    let parts: Vec<&str> = rel.split('/').collect();
    for part in &parts[..parts.len().saturating_sub(1)] {
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.is_dir() => {}
            // absent: nothing below it to remove
            Err(_) => return true,
            Ok(_) => return false,
        }
    }
    true
}

/// The index as git reads it (an absent index has no entries; `None`:
/// not readable).
fn read_index(index: &Path) -> Option<git_index::Index> {
    let m = match std::fs::symlink_metadata(index) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Some(git_index::Index::default())
        }
        Err(_) => return None,
    };
    if !m.is_file() || m.len() > MAX_INDEX_BYTES {
        return None;
    }
    let data = std::fs::read(index).ok()?;
    git_index::parse(&data, MAX_ENTRIES).ok()
}

/// The gitlinks of `idx` whose checkout in `project` holds a `.git` (a
/// directory, a gitfile or a link: anything git would open).
fn populated_gitlinks(project: &Path, idx: &git_index::Index) -> BTreeSet<String> {
    idx.entries
        .iter()
        .filter(|e| e.is_gitlink())
        .map(|e| format!("{}/.git", e.path.trim_end_matches('/')))
        .filter(|rel| std::fs::symlink_metadata(project.join(rel)).is_ok())
        .collect()
}

/// Removes the `.git` of submodule checkouts a run created (only where every
/// directory on the way is a real one; a directory without following the
/// links in it) and says so.
fn remove_checkout_repos(project: &Path, new: &[&String]) -> String {
    let mut removed = Vec::new();
    let mut left = Vec::new();
    for rel in new {
        let p = project.join(rel.as_str());
        let gone = real_dirs_between(project, rel)
            && match std::fs::symlink_metadata(&p) {
                Ok(m) if m.is_dir() => std::fs::remove_dir_all(&p).is_ok(),
                Ok(_) => std::fs::remove_file(&p).is_ok(),
                Err(_) => true,
            };
        if gone {
            removed.push(rel.as_str());
        } else {
            left.push(rel.as_str());
        }
    }
    let mut msg = format!(
        "it gave {} submodule {} a repository of its own ({}), whose configuration the next git status runs",
        new.len(),
        if new.len() == 1 { "checkout" } else { "checkouts" },
        removed.iter().chain(left.iter()).take(5).copied().collect::<Vec<_>>().join(", ")
    );
    if left.is_empty() {
        msg.push_str("; removed");
    } else {
        msg.push_str(&format!("; {} could not be removed", left.join(", ")));
    }
    msg
}
