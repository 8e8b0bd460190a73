//! Building a [`Confinement`]: resolving directories, validating them, and
//! listing what must be protected or hidden. Inspects the file system (stat,
//! a bounded walk) but changes nothing; [`crate::exec`] does the changes.

use std::collections::BTreeSet;
use std::fmt;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::str::FromStr;

use crate::data;
use crate::SandboxError;

/// What a sandboxed command may write (SPEC §18.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Profile {
    /// No writes except `/dev/null`, the session directory and the system
    /// temp directory.
    Read,
    /// `read` plus the project (minus the protected paths).
    Edit,
    /// `edit` plus the toolchain caches.
    Build,
}

impl Profile {
    /// The profile's name as the CLI spells it.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Read => "read",
            Profile::Edit => "edit",
            Profile::Build => "build",
        }
    }

    pub(crate) fn writes_project(self) -> bool {
        matches!(self, Profile::Edit | Profile::Build)
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Profile {
    type Err = SandboxError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "read" => Ok(Profile::Read),
            "edit" => Ok(Profile::Edit),
            "build" => Ok(Profile::Build),
            other => Err(SandboxError::Plan(format!(
                "unknown profile {other:?} (expected read, edit or build)"
            ))),
        }
    }
}

/// Whether a path is a directory or something else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A directory.
    Dir,
    /// A file (or any non-directory).
    File,
}

/// A write-protected path inside a writable root, made read-only.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Guard {
    /// Absolute, resolved path.
    pub path: PathBuf,
    /// What it is (or will be, for a placeholder).
    pub kind: Kind,
    /// It does not exist: an empty one is created before the sandbox starts.
    pub placeholder: bool,
}

/// A secret covered by an empty read-only file or directory.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Hidden {
    /// Absolute, resolved path (symlinks followed).
    pub path: PathBuf,
    /// What it is.
    pub kind: Kind,
}

/// A toolchain cache the command sees writable while its writes stay its
/// own: an overlay whose lower layer is the real cache and whose upper layer
/// lies in the session directory (Linux; see [`Confinement`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CacheLayer {
    /// The cache (absolute, resolved).
    pub target: PathBuf,
    /// Where the command's writes go.
    pub upper: PathBuf,
    /// The overlay's work directory (same file system as `upper`).
    pub work: PathBuf,
}

/// Builder for a [`Confinement`]. Anything not set comes from the process
/// environment (`HOME`, `SHELLGATE_HOME`, `TMPDIR`, the cache variables).
#[derive(Debug, Clone)]
pub struct ConfinementBuilder {
    profile: Profile,
    project_dir: PathBuf,
    home: Option<PathBuf>,
    gate_home: Option<PathBuf>,
    session_id: Option<String>,
    temp_dir: Option<PathBuf>,
    extra_writable: Vec<PathBuf>,
    network: bool,
}

/// A resolved, validated confinement, ready for [`crate::exec`].
#[derive(Debug, Clone)]
pub struct Confinement {
    pub(crate) profile: Profile,
    pub(crate) network: bool,
    pub(crate) project: PathBuf,
    pub(crate) home: PathBuf,
    pub(crate) gate_home: PathBuf,
    pub(crate) session_dir: Option<PathBuf>,
    pub(crate) temp_dir: PathBuf,
    /// The temp directory is the session's own (`<session>/tmp`, created
    /// before the command starts and named by `TMPDIR`): the system one
    /// holds the home (`HOME=/tmp` in a container), which is too broad to
    /// be writable.
    pub(crate) private_temp: bool,
    /// Roots below which the command may write (Landlock rules).
    pub(crate) writable: Vec<PathBuf>,
    /// Roots where the project rules (`.git/…`, host control files) apply.
    pub(crate) project_roots: Vec<PathBuf>,
    /// `core.hooksPath` values that resolve inside a project root.
    pub(crate) hooks_paths: Vec<PathBuf>,
    pub(crate) guards: Vec<Guard>,
    /// Directories bind-mounted onto themselves so they cannot be renamed.
    pub(crate) pins: Vec<PathBuf>,
    pub(crate) hidden: Vec<Hidden>,
    /// Toolchain caches layered over (profile `build` without the network).
    pub(crate) cache_layers: Vec<CacheLayer>,
    /// Directories whose contents cannot be read (the homes), except
    /// [`Confinement::read_open`] and the writable roots below them.
    pub(crate) read_closed: Vec<PathBuf>,
    /// Trees and files inside a closed directory that can be read.
    pub(crate) read_open: Vec<PathBuf>,
    /// Cover the gate's home (it exists, or is created because it lies in a
    /// writable root).
    pub(crate) hide_gate_home: bool,
    pub(crate) create_gate_home: bool,
    pub(crate) notes: Vec<String>,
}

impl Confinement {
    /// Starts a builder for `profile` with `project_dir` as the project.
    pub fn builder(profile: Profile, project_dir: impl Into<PathBuf>) -> ConfinementBuilder {
        ConfinementBuilder {
            profile,
            project_dir: project_dir.into(),
            home: None,
            gate_home: None,
            session_id: None,
            temp_dir: None,
            extra_writable: Vec::new(),
            network: false,
        }
    }

    /// The profile.
    pub fn profile(&self) -> Profile {
        self.profile
    }
    /// Whether the network is granted.
    pub fn network(&self) -> bool {
        self.network
    }
    /// The resolved project directory.
    pub fn project_dir(&self) -> &Path {
        &self.project
    }
    /// The resolved session directory, if any.
    pub fn session_dir(&self) -> Option<&Path> {
        self.session_dir.as_deref()
    }
    /// The temp directory the command may write.
    pub fn temp_dir(&self) -> &Path {
        &self.temp_dir
    }
    /// Every directory the command may write below (before the exceptions).
    pub fn writable_roots(&self) -> &[PathBuf] {
        &self.writable
    }
    /// Write-protected paths inside the writable roots.
    pub fn guards(&self) -> &[Guard] {
        &self.guards
    }
    /// Secrets covered by empty read-only files or directories.
    pub fn hidden(&self) -> &[Hidden] {
        &self.hidden
    }
    /// Directories whose contents cannot be read, except [`Self::read_open`]
    /// and the writable roots below them.
    pub fn read_closed(&self) -> &[PathBuf] {
        &self.read_closed
    }
    /// What can be read inside a closed directory.
    pub fn read_open(&self) -> &[PathBuf] {
        &self.read_open
    }
    /// Known limits of this confinement (absent files that cannot be
    /// protected, a truncated secret scan, …), one sentence each.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }
}

impl ConfinementBuilder {
    /// The home directory (default `$HOME`).
    pub fn home(mut self, home: impl Into<PathBuf>) -> Self {
        self.home = Some(home.into());
        self
    }
    /// The gate's home (default `$SHELLGATE_HOME`, else `~/.shellgate`).
    pub fn gate_home(mut self, gate_home: impl Into<PathBuf>) -> Self {
        self.gate_home = Some(gate_home.into());
        self
    }
    /// The session whose directory (`<gate home>/sessions/<id>`) is writable.
    pub fn session(mut self, id: impl Into<String>) -> Self {
        self.session_id = Some(id.into());
        self
    }
    /// The system temp directory (default `$TMPDIR`, else `/tmp`).
    pub fn temp_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.temp_dir = Some(dir.into());
        self
    }
    /// Another writable directory (a grant's directory), with the project
    /// rules applied inside it. Ignored by profile `read`.
    pub fn writable(mut self, dir: impl Into<PathBuf>) -> Self {
        self.extra_writable.push(dir.into());
        self
    }
    /// Grants the network (TCP/UDP; unix sockets stay closed).
    pub fn network(mut self, granted: bool) -> Self {
        self.network = granted;
        self
    }

    /// Resolves and validates everything.
    pub fn build(self) -> Result<Confinement, SandboxError> {
        Resolver::new(self)?.run()
    }
}

fn env_path(name: &str) -> Option<PathBuf> {
    let v = std::env::var_os(name)?;
    let p = PathBuf::from(v);
    (p.is_absolute()).then_some(p)
}

/// Canonicalizes the longest existing prefix of an absolute path and appends
/// the rest; `..` in the part that does not exist is refused.
pub(crate) fn resolve(p: &Path) -> Result<PathBuf, SandboxError> {
    if !p.is_absolute() {
        return Err(SandboxError::Plan(format!(
            "{} is not an absolute path",
            p.display()
        )));
    }
    let mut existing = p.to_path_buf();
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    loop {
        match fs::canonicalize(&existing) {
            Ok(mut c) => {
                for part in rest.iter().rev() {
                    c.push(part);
                }
                return Ok(c);
            }
            Err(_) => {
                match existing.components().next_back() {
                    Some(Component::Normal(name)) => rest.push(name.to_owned()),
                    Some(Component::CurDir) => {}
                    _ => {
                        return Err(SandboxError::Plan(format!(
                            "cannot resolve {}",
                            p.display()
                        )))
                    }
                }
                if !existing.pop() {
                    return Err(SandboxError::Plan(format!(
                        "cannot resolve {}",
                        p.display()
                    )));
                }
            }
        }
    }
}

fn valid_session_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && id != "."
        && id != ".."
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

fn lstat(p: &Path) -> Option<fs::Metadata> {
    fs::symlink_metadata(p).ok()
}

fn kind_of(m: &fs::Metadata) -> Kind {
    if m.is_dir() {
        Kind::Dir
    } else {
        Kind::File
    }
}

struct Resolver {
    b: ConfinementBuilder,
    home: PathBuf,
    project: PathBuf,
    gate_home: PathBuf,
    session_dir: Option<PathBuf>,
    temp_dir: PathBuf,
    private_temp: bool,
    writable: Vec<PathBuf>,
    project_roots: Vec<PathBuf>,
    hooks_paths: Vec<PathBuf>,
    guards: BTreeSet<Guard>,
    pins: BTreeSet<PathBuf>,
    hidden: BTreeSet<Hidden>,
    /// Repositories below a project root (`sub/.git`, a directory or a
    /// gitfile), found by the bounded walk.
    nested_gits: Vec<PathBuf>,
    read_closed: Vec<PathBuf>,
    read_open: Vec<PathBuf>,
    /// A repository around the project, readable, whose secrets the walk
    /// hides as the project's.
    project_reads: Vec<PathBuf>,
    notes: Vec<String>,
}

impl Resolver {
    fn new(b: ConfinementBuilder) -> Result<Self, SandboxError> {
        let home = match &b.home {
            Some(h) => h.clone(),
            None => env_path("HOME")
                .ok_or_else(|| SandboxError::Plan("HOME is not set to an absolute path".into()))?,
        };
        let home = resolve(&home)?;
        let project = fs::canonicalize(&b.project_dir).map_err(|e| {
            SandboxError::Plan(format!(
                "project directory {}: {e}",
                b.project_dir.display()
            ))
        })?;
        if !project.is_dir() {
            return Err(SandboxError::Plan(format!(
                "project directory {} is not a directory",
                project.display()
            )));
        }
        let gate_home = match &b.gate_home {
            Some(g) => g.clone(),
            None => env_path("SHELLGATE_HOME").unwrap_or_else(|| home.join(".shellgate")),
        };
        let gate_home = resolve(&gate_home)?;
        let session_dir = match &b.session_id {
            Some(id) if valid_session_id(id) => {
                Some(resolve(&gate_home.join("sessions").join(id))?)
            }
            Some(id) => {
                return Err(SandboxError::Plan(format!("invalid session id {id:?}")));
            }
            None => None,
        };
        let temp = match &b.temp_dir {
            Some(t) => t.clone(),
            None => env_path("TMPDIR").unwrap_or_else(|| PathBuf::from("/tmp")),
        };
        let temp_dir = fs::canonicalize(&temp)
            .map_err(|e| SandboxError::Plan(format!("temp directory {}: {e}", temp.display())))?;
        Ok(Self {
            b,
            home,
            project,
            gate_home,
            session_dir,
            temp_dir,
            private_temp: false,
            writable: Vec::new(),
            project_roots: Vec::new(),
            hooks_paths: Vec::new(),
            guards: BTreeSet::new(),
            pins: BTreeSet::new(),
            hidden: BTreeSet::new(),
            nested_gits: Vec::new(),
            read_closed: Vec::new(),
            read_open: Vec::new(),
            project_reads: Vec::new(),
            notes: Vec::new(),
        })
    }

    /// `/`, the home itself and its ancestors are too broad to be written.
    fn shallow(&self, p: &Path) -> bool {
        p == Path::new("/") || self.home.starts_with(p)
    }

    fn check_writable(&self, what: &str, p: &Path) -> Result<(), SandboxError> {
        if self.shallow(p) {
            return Err(SandboxError::Plan(format!(
                "{what} {} is too shallow to be writable (it is / , the home directory or an ancestor of it)",
                p.display()
            )));
        }
        let in_session = self.session_dir.as_ref().is_some_and(|s| p.starts_with(s));
        if p.starts_with(&self.gate_home) && !in_session {
            return Err(SandboxError::Plan(format!(
                "{what} {} lies inside the gate's home {}",
                p.display(),
                self.gate_home.display()
            )));
        }
        Ok(())
    }

    fn run(mut self) -> Result<Confinement, SandboxError> {
        let project = self.project.clone();
        self.check_writable("project directory", &project)?;
        let temp = self.temp_dir.clone();
        if self.shallow(&temp) {
            // The home lies below the system temp directory (`HOME=/tmp`
            // in a container): the command gets the session's own temp
            // directory instead, inside the writable session directory.
            let Some(s) = self.session_dir.clone() else {
                return Err(SandboxError::Plan(format!(
                    "temp directory {} holds the home directory, and there is no session directory for a temp directory of its own",
                    temp.display()
                )));
            };
            self.temp_dir = s.join("tmp");
            self.private_temp = true;
        } else {
            self.check_writable("temp directory", &temp)?;
        }
        if let Some(s) = self.session_dir.clone() {
            self.check_writable("session directory", &s)?;
            self.writable.push(s);
        }
        if !self.private_temp {
            self.writable.push(temp);
        }
        let profile = self.b.profile;
        if profile.writes_project() {
            self.writable.push(project.clone());
            self.project_roots.push(project.clone());
            for extra in self.b.extra_writable.clone() {
                let e = fs::canonicalize(&extra).map_err(|e| {
                    SandboxError::Plan(format!("writable directory {}: {e}", extra.display()))
                })?;
                if !e.is_dir() {
                    return Err(SandboxError::Plan(format!(
                        "writable directory {} is not a directory",
                        e.display()
                    )));
                }
                self.check_writable("writable directory", &e)?;
                self.writable.push(e.clone());
                self.project_roots.push(e);
            }
        }
        // Toolchain caches (profile `build`). Their contents run later,
        // unconfined, in every project (a registry's sources, a Gradle
        // distribution, compiled objects of the Go build cache): a command
        // no human approved must not change them. With the network granted
        // (a human approved the program's downloads) they are writable; else
        // each is an overlay (Linux, with a session directory) whose writes
        // stay in the session, or read-only.
        let mut cache_layers = Vec::new();
        if profile == Profile::Build {
            for c in self.cache_dirs() {
                if self.b.network {
                    self.writable.push(c);
                } else if self.writable.iter().any(|w| c.starts_with(w)) {
                    // Inside a writable root (`GOCACHE` below the temp
                    // directory, `CARGO_HOME` in the project): read-only,
                    // since a layer's upper directory would lie where the
                    // command itself can swap it for the cache.
                    self.add_guard(&c, Kind::Dir, false);
                } else if let Some(s) = &self.session_dir {
                    let name = c.to_string_lossy().replace('_', "__").replace('/', "_");
                    let base = s.join("cache-layers").join(name);
                    cache_layers.push(CacheLayer {
                        target: c,
                        upper: base.join("upper"),
                        work: base.join("work"),
                    });
                }
            }
        }
        dedup(&mut self.writable);
        dedup(&mut self.project_roots);

        self.collect_reads();
        self.collect_hidden()?;
        for root in self.project_roots.clone() {
            self.guard_project_root(&root)?;
        }
        for nested in self.nested_gits.clone() {
            self.guard_nested_git(&nested)?;
        }
        self.guard_home_control()?;
        if !profile.writes_project() && self.inside_writable(&project).is_some() {
            // e.g. a project below /tmp under profile `read`
            self.add_guard(&project, Kind::Dir, false);
        }
        let (hide_gate_home, create_gate_home) = self.gate_home_plan();
        for w in &self.writable {
            if let Some(g) = self.guards.iter().find(|g| w.starts_with(&g.path)) {
                return Err(SandboxError::Plan(format!(
                    "writable directory {} lies inside the protected {}",
                    w.display(),
                    g.path.display()
                )));
            }
        }

        // A layer would uncover what is hidden or guarded below its cache
        // (an overlay does not show the lower layer's mounts): such a cache
        // stays read-only.
        cache_layers.retain(|l: &CacheLayer| {
            !self.hidden.iter().any(|h| h.path.starts_with(&l.target))
                && !self.guards.iter().any(|g| g.path.starts_with(&l.target))
                && !self.writable.iter().any(|w| w.starts_with(&l.target))
        });
        // A secret inside a hidden directory is hidden with it; covering it
        // again would name a path the empty directory does not hold, and the
        // sandbox would not start (rt6: `~/.kube` and `~/.kube/config`).
        let hidden_dirs: Vec<PathBuf> = self
            .hidden
            .iter()
            .filter(|h| h.kind == Kind::Dir)
            .map(|h| h.path.clone())
            .collect();
        self.hidden.retain(|h| {
            !hidden_dirs
                .iter()
                .any(|d| h.path != *d && h.path.starts_with(d))
        });
        let mut guards: Vec<Guard> = self.guards.into_iter().collect();
        guards.sort_by_key(|g| depth(&g.path));
        let guard_paths: BTreeSet<PathBuf> = guards.iter().map(|g| g.path.clone()).collect();
        let mut pins: Vec<PathBuf> = self
            .pins
            .into_iter()
            .filter(|p| !guard_paths.contains(p))
            .collect();
        pins.sort_by_key(|p| depth(p));
        Ok(Confinement {
            profile,
            network: self.b.network,
            project,
            home: self.home,
            gate_home: self.gate_home,
            session_dir: self.session_dir,
            temp_dir: self.temp_dir,
            private_temp: self.private_temp,
            writable: self.writable,
            project_roots: self.project_roots,
            hooks_paths: self.hooks_paths,
            guards,
            pins,
            hidden: self.hidden.into_iter().collect(),
            cache_layers,
            read_closed: self.read_closed,
            read_open: self.read_open,
            hide_gate_home,
            create_gate_home,
            notes: self.notes,
        })
    }

    fn cache_dirs(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for c in data::CACHE_DIRS {
            let p = match c.env.and_then(env_path) {
                Some(base) if c.env_suffix.is_empty() => base,
                Some(base) => base.join(c.env_suffix),
                None => self.home.join(c.home_rel),
            };
            let Ok(p) = fs::canonicalize(&p) else {
                continue;
            };
            if !p.is_dir() || self.check_writable("cache", &p).is_err() {
                continue;
            }
            out.push(p);
        }
        out
    }

    /// The outermost writable root containing `p` (or equal to it).
    fn inside_writable(&self, p: &Path) -> Option<PathBuf> {
        self.writable
            .iter()
            .filter(|w| p.starts_with(w))
            .min_by_key(|w| depth(w))
            .cloned()
    }

    /// Pins every directory from the outermost writable root containing `p`
    /// down to `p`'s parent, so that none can be renamed away.
    fn pin_chain(&mut self, p: &Path) {
        let Some(root) = self.inside_writable(p) else {
            return;
        };
        let mut a = p.parent();
        while let Some(dir) = a {
            if !dir.starts_with(&root) {
                break;
            }
            self.pins.insert(dir.to_path_buf());
            a = dir.parent();
        }
    }

    fn add_guard(&mut self, p: &Path, kind: Kind, placeholder: bool) {
        self.pin_chain(p);
        self.guards.insert(Guard {
            path: p.to_path_buf(),
            kind,
            placeholder,
        });
    }

    /// Guards an existing or absent protected entry. A symlink is refused (the
    /// link itself cannot be made read-only); a file with several links too.
    fn guard_entry(&mut self, p: &Path, is_dir: bool) -> Result<(), SandboxError> {
        match lstat(p) {
            Some(m) if m.file_type().is_symlink() => Err(SandboxError::Plan(format!(
                "the protected path {} is a symlink; the sandbox cannot keep it read-only",
                p.display()
            ))),
            Some(m) => {
                if !m.is_dir() && hard_links(&m) > 1 {
                    return Err(SandboxError::Plan(format!(
                        "the protected file {} has other hard links; the sandbox cannot keep it read-only",
                        p.display()
                    )));
                }
                self.add_guard(p, kind_of(&m), false);
                Ok(())
            }
            None if is_dir => {
                // an empty placeholder (with any missing parents) keeps the name
                self.add_guard(p, Kind::Dir, true);
                Ok(())
            }
            None => {
                self.notes.push(format!(
                    "{} does not exist: creating it is not prevented on this system",
                    p.display()
                ));
                Ok(())
            }
        }
    }

    fn guard_project_root(&mut self, root: &Path) -> Result<(), SandboxError> {
        let git = root.join(".git");
        match lstat(&git) {
            Some(m) if m.file_type().is_symlink() => {
                return Err(SandboxError::Plan(format!(
                    "{} is a symlink; the sandbox cannot protect the repository's hooks and config",
                    git.display()
                )))
            }
            // A `.git` directory without a HEAD is no repository (an empty
            // placeholder left by an earlier run, or a broken one): kept
            // whole read-only, so that no run can make it one.
            Some(m) if m.is_dir() && lstat(&git.join("HEAD")).is_none() => {
                self.add_guard(&git, Kind::Dir, false);
            }
            Some(m) if m.is_dir() => {
                self.pin_chain(&git.join("x"));
                self.guard_gitdir(&git)?;
                // Submodules' and linked worktrees' git directories: whole,
                // so that none can be planted with its own config (a
                // gitlink or gitfile made in the work tree would lead the
                // next unconfined `git status` into it).
                for dir in ["modules", "worktrees"] {
                    self.guard_entry(&git.join(dir), true)?;
                }
                // What git reads like its own config or runs as hooks,
                // where it falls inside a writable root: the files the
                // repository's and the user's configs include
                // (`include.path = ../.gitconfig`) and their
                // `core.hooksPath` (relative: the work tree's, `.githooks`).
                for cfg in self.user_git_configs() {
                    let refs = git_config_refs(&cfg);
                    if let Some(hp) = refs.hooks_path {
                        let raw = self.config_value_path(&hp, root);
                        self.guard_hooks_path(resolve(&raw).unwrap_or(raw))?;
                    }
                    let base = cfg.parent().map(Path::to_path_buf).unwrap_or_default();
                    for inc in refs.includes {
                        let raw = self.config_value_path(&inc, &base);
                        let p = resolve(&raw).unwrap_or(raw);
                        if self.inside_writable(&p).is_some() {
                            self.guard_config_file(&p)?;
                        }
                    }
                }
                let own = git_config_refs(&git.join("config"));
                for inc in &own.includes {
                    let p = resolve(&self.config_value_path(inc, &git))?;
                    if self.inside_writable(&p).is_some() {
                        self.guard_config_file(&p)?;
                    }
                }
                if let Some(hp) = &own.hooks_path {
                    let p = resolve(&self.config_value_path(hp, root))?;
                    self.guard_hooks_path(p)?;
                }
            }
            Some(m) => {
                if hard_links(&m) > 1 {
                    return Err(SandboxError::Plan(format!(
                        "{} has other hard links; the sandbox cannot keep it read-only",
                        git.display()
                    )));
                }
                self.add_guard(&git, Kind::File, false);
            }
            // No repository at the project root: an empty read-only
            // placeholder, so that none can be created there. Git passes over
            // an empty `.git` (it is not a git directory) exactly as over a
            // missing one; a repository made there would be taken for the
            // project's own by the next unconfined `git status` (red-team
            // round two, G3).
            None => self.add_guard(&git, Kind::Dir, true),
        }
        for (name, is_dir) in data::PROJECT_CONTROL {
            self.guard_entry(&root.join(name), *is_dir)?;
        }
        // Files other programs run on their own later (git hook managers'
        // scripts and configs, editors' tasks, direnv): read-only where
        // they exist (helper-24 F4: a build rewrote `.husky/pre-commit`, and
        // the human's next `git commit` ran it). Absent ones get no
        // placeholder: creating them needs the human's trust step (`direnv
        // allow`, an editor's workspace trust) or a hooksPath, guarded above.
        for name in data::PROJECT_CONTROL_IF_PRESENT
            .iter()
            .chain(data::TOOL_CONFIG_FILES)
        {
            let p = root.join(name);
            if let Some(m) = lstat(&p) {
                self.guard_entry(&p, m.is_dir())?;
            }
        }
        Ok(())
    }

    /// A repository below a project root (a workspace of several, a nested
    /// checkout): its config, hooks, info, submodules' and worktrees' git
    /// directories are write-protected as the root's are, and a gitfile is
    /// read-only (helper-24 F2: a build wrote `r1/.git/hooks/pre-commit`,
    /// and the human's `git commit` in r1 ran it).
    fn guard_nested_git(&mut self, git: &Path) -> Result<(), SandboxError> {
        match lstat(git) {
            Some(m) if m.file_type().is_symlink() => Err(SandboxError::Plan(format!(
                "{} is a symlink; the sandbox cannot protect the repository's hooks and config",
                git.display()
            ))),
            Some(m) if m.is_dir() && lstat(&git.join("HEAD")).is_some() => {
                self.pin_chain(&git.join("x"));
                self.guard_gitdir(git)?;
                for dir in ["modules", "worktrees"] {
                    self.guard_entry(&git.join(dir), true)?;
                }
                Ok(())
            }
            Some(m) if m.is_dir() => {
                self.add_guard(git, Kind::Dir, false);
                Ok(())
            }
            Some(_) => self.guard_entry(git, false),
            None => Ok(()),
        }
    }

    fn guard_gitdir(&mut self, gitdir: &Path) -> Result<(), SandboxError> {
        for (name, is_dir) in data::GITDIR_PROTECTED {
            let p = gitdir.join(name);
            if !is_dir && lstat(&p).is_none() {
                // an absent config file: an empty placeholder keeps the name
                self.add_guard(&p, Kind::File, true);
                continue;
            }
            self.guard_entry(&p, *is_dir)?;
        }
        let modules = gitdir.join("modules");
        if lstat(&modules).is_some_and(|m| m.is_dir()) {
            let mut budget = 2000usize;
            self.walk_modules(&modules, 0, &mut budget)?;
        }
        Ok(())
    }

    /// `.git/modules/<name…>/` holds submodule git directories (nested names
    /// for nested paths, and their own `modules/`).
    fn walk_modules(
        &mut self,
        dir: &Path,
        depth: usize,
        budget: &mut usize,
    ) -> Result<(), SandboxError> {
        let entries = fs::read_dir(dir)
            .map_err(|e| SandboxError::setup(format!("reading {}", dir.display()), e))?;
        for entry in entries.flatten() {
            *budget = budget.saturating_sub(1);
            if *budget == 0 || depth > 8 {
                return Err(SandboxError::Plan(format!(
                    "{} is too large or deep to protect",
                    dir.display()
                )));
            }
            let p = entry.path();
            let Some(m) = lstat(&p) else { continue };
            if m.file_type().is_symlink() {
                return Err(SandboxError::Plan(format!(
                    "{} is a symlink inside the submodules' git directories",
                    p.display()
                )));
            }
            if !m.is_dir() {
                continue;
            }
            self.pin_chain(&p.join("x"));
            if p.join("HEAD").exists() {
                self.guard_gitdir(&p)?;
            } else {
                self.walk_modules(&p, depth + 1, budget)?;
            }
        }
        Ok(())
    }

    /// The git config files of the user and the system, as git reads them
    /// (`~/.gitconfig`, `$XDG_CONFIG_HOME/git/config` or
    /// `~/.config/git/config`, `/etc/gitconfig`).
    fn user_git_configs(&self) -> Vec<PathBuf> {
        let xdg = env_path("XDG_CONFIG_HOME").unwrap_or_else(|| self.home.join(".config"));
        vec![
            self.home.join(".gitconfig"),
            xdg.join("git/config"),
            PathBuf::from("/etc/gitconfig"),
        ]
    }

    /// A path from a git config value: `~/` from the home, absolute as is,
    /// relative from `base` (not resolved).
    fn config_value_path(&self, v: &str, base: &Path) -> PathBuf {
        if let Some(rest) = v.strip_prefix("~/") {
            self.home.join(rest)
        } else if Path::new(v).is_absolute() {
            PathBuf::from(v)
        } else {
            base.join(v)
        }
    }

    /// A `core.hooksPath` (resolved) inside a writable root: read-only, or an
    /// empty read-only placeholder where it does not exist yet.
    fn guard_hooks_path(&mut self, p: PathBuf) -> Result<(), SandboxError> {
        if self.inside_writable(&p).is_some() {
            self.hooks_paths.push(p.clone());
            self.guard_entry(&p, true)?;
        }
        Ok(())
    }

    /// A git config file inside a writable root: read-only, or an empty
    /// read-only placeholder where it does not exist yet.
    fn guard_config_file(&mut self, p: &Path) -> Result<(), SandboxError> {
        if lstat(p).is_none() {
            self.add_guard(p, Kind::File, true);
            Ok(())
        } else {
            self.guard_entry(p, false)
        }
    }

    /// Host settings below the home that fall inside a writable root.
    fn guard_home_control(&mut self) -> Result<(), SandboxError> {
        if let Some(xdg) = env_path("XDG_CONFIG_HOME") {
            let git = resolve(&xdg.join("git"))?;
            if self.inside_writable(&git).is_some() {
                self.guard_entry(&git, true)?;
            }
        }
        for rel in data::HOME_CONTROL {
            let p = resolve(&self.home.join(rel))?;
            for w in self.writable.clone() {
                if w.starts_with(&p) {
                    return Err(SandboxError::Plan(format!(
                        "writable directory {} lies inside the protected {}",
                        w.display(),
                        p.display()
                    )));
                }
            }
            if self.inside_writable(&p).is_some() {
                let is_dir = !rel.ends_with(".json");
                self.guard_entry(&p, is_dir)?;
            }
        }
        Ok(())
    }

    fn gate_home_plan(&mut self) -> (bool, bool) {
        let exists = self.gate_home.is_dir();
        let in_writable = self.inside_writable(&self.gate_home).is_some();
        if in_writable {
            let gh = self.gate_home.clone();
            self.pin_chain(&gh);
        }
        if exists {
            (true, false)
        } else if in_writable || self.session_dir.is_some() {
            (true, true)
        } else {
            (false, false)
        }
    }

    fn add_hidden(&mut self, p: &Path) -> Result<(), SandboxError> {
        if lstat(p).is_none() {
            return Ok(());
        }
        let Ok(c) = fs::canonicalize(p) else {
            return Ok(()); // a dangling symlink hides nothing
        };
        let Ok(m) = fs::metadata(&c) else {
            return Ok(());
        };
        let kind = kind_of(&m);
        if kind == Kind::Dir {
            let covers = |w: &PathBuf| w.starts_with(&c);
            if c == Path::new("/")
                || self.writable.iter().any(covers)
                || self.project.starts_with(&c)
            {
                return Err(SandboxError::Plan(format!(
                    "the secret location {} contains a directory the command needs",
                    p.display()
                )));
            }
        }
        if c.starts_with(&self.gate_home) {
            return Ok(()); // covered with the gate's home
        }
        self.hidden.insert(Hidden { path: c, kind });
        Ok(())
    }

    /// What cannot be read (rt6): the homes, closed whole, except the
    /// toolchains, caches and configuration a build reads
    /// ([`data::HOME_READABLE`]), the directories `PATH` and the tools'
    /// variables name, the files the user's git config includes, and —
    /// when the project lies below one — the repository around it and the
    /// plain files of the directories above it (a workspace's `go.work`,
    /// `Cargo.toml`), secret-looking names excepted.
    fn collect_reads(&mut self) {
        let mut closed: Vec<PathBuf> = vec![self.home.clone()];
        closed.extend(data::CLOSED_READS.iter().map(PathBuf::from));
        if let Ok(entries) = fs::read_dir("/home") {
            for e in entries.flatten() {
                let name = e.file_name();
                if !data::HOMES_OPEN.iter().any(|o| name == *o) {
                    closed.push(e.path());
                }
            }
        }
        // A root caller owns the files only root may read (`/etc/shadow`-like
        // files no list names): what others may not read is closed too.
        #[cfg(unix)]
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } == 0 {
            let mut skip: Vec<PathBuf> = self.writable.clone();
            skip.extend(closed.iter().cloned());
            closed.extend(root_only_paths(&skip, &mut self.notes));
        }
        // As the kernel sees them; `/` (a home of `/`) is never closed.
        let mut closed: Vec<PathBuf> = closed
            .iter()
            .filter_map(|p| fs::canonicalize(p).ok())
            .filter(|p| p.parent().is_some())
            .collect();
        dedup(&mut closed);
        let within_closed = |p: &Path| closed.iter().any(|c| p.starts_with(c) && p != c);
        let reopens = |p: &Path| closed.iter().any(|c| c.starts_with(p));
        let mut open: Vec<PathBuf> = Vec::new();
        // A name inside a writable root is the command's to change (a
        // `PATH` entry `proj/.venv/bin` made a link to `~/.config/gh`):
        // never followed to open what it leads to.
        let writable = self.writable.clone();
        let tamperable = |p: &Path| passes_through(p, &writable);
        let offer = |p: &Path, open: &mut Vec<PathBuf>| {
            if tamperable(p) {
                return;
            }
            if let Ok(real) = fs::canonicalize(p) {
                if within_closed(&real) && !reopens(&real) {
                    open.push(real);
                }
            }
        };
        if within_closed(&self.project) && !reopens(&self.project) {
            open.push(self.project.clone());
        }
        for rel in data::HOME_READABLE {
            offer(&self.home.join(rel), &mut open);
        }
        // A program's directory and, for `…/bin` or `…/shims`, the prefix
        // it belongs to (`~/.pyenv/shims` runs `~/.pyenv/libexec/pyenv`,
        // `~/.nvm/versions/node/v20/bin/npm` its `lib/node_modules`) —
        // unless that prefix is the home or one of the shared trees of
        // everybody's data (`~/.local`, `~/.local/share`, `~/.config`).
        let shared: Vec<PathBuf> = ["", ".local", ".local/share", ".config"]
            .iter()
            .map(|r| self.home.join(r))
            .filter_map(|p| fs::canonicalize(p).ok())
            .collect();
        let offer_program_dir = |dir: &Path, open: &mut Vec<PathBuf>| {
            offer(dir, open);
            let Ok(real) = fs::canonicalize(dir) else {
                return;
            };
            let prefix = real.parent().filter(|p| !shared.iter().any(|s| s == p));
            let bin = real
                .file_name()
                .is_some_and(|n| ["bin", "sbin", "shims"].iter().any(|b| n == *b));
            if let (Some(prefix), true) = (prefix, bin) {
                offer(prefix, open);
            }
        };
        for var in data::TOOL_PATH_VARS {
            if let Some(v) = std::env::var_os(var) {
                for entry in std::env::split_paths(&v).filter(|e| e.is_absolute()) {
                    offer_program_dir(&entry, &mut open);
                    // Programs installed elsewhere and linked onto `PATH`
                    // (`~/.local/bin/poetry` -> `~/.local/share/pypoetry/
                    // venv/bin/poetry`, pipx and uv tools): their own
                    // directory and prefix.
                    if *var != "PATH" || !within_closed(&entry) {
                        continue;
                    }
                    let Ok(entries) = fs::read_dir(&entry) else {
                        continue;
                    };
                    for e in entries.flatten().take(data::PATH_LINKS_MAX) {
                        if !e.file_type().is_ok_and(|t| t.is_symlink()) || tamperable(&e.path()) {
                            continue;
                        }
                        if let Some(dir) = fs::canonicalize(e.path())
                            .ok()
                            .and_then(|t| t.parent().map(Path::to_path_buf))
                        {
                            offer_program_dir(&dir, &mut open);
                        }
                    }
                }
            }
        }
        for cfg in self.user_git_configs() {
            let base = cfg.parent().map(Path::to_path_buf).unwrap_or_default();
            for inc in git_config_refs(&cfg).includes {
                let p = self.config_value_path(&inc, &base);
                let secret = p
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(data::is_secret_file_name);
                if !secret {
                    offer(&p, &mut open);
                }
            }
        }
        // The repository the project lies in (git reads its top and its
        // `.git`), and the plain files of the directories above it.
        let mut top = self.project.clone();
        let mut at = self.project.clone();
        while within_closed(&at) {
            if lstat(&at.join(".git")).is_some() {
                top = at.clone();
                break;
            }
            if !at.pop() {
                break;
            }
        }
        if top != self.project && within_closed(&top) {
            open.push(top.clone());
            self.project_reads.push(top.clone());
        }
        let mut dir = top.parent().map(Path::to_path_buf);
        while let Some(d) = dir {
            if !within_closed(&d) {
                break;
            }
            if let Ok(entries) = fs::read_dir(&d) {
                for e in entries.flatten().take(data::ABOVE_PROJECT_MAX_FILES) {
                    let name = e.file_name();
                    let plain = e.file_type().is_ok_and(|t| t.is_file());
                    let secret = name.to_str().is_none_or(data::is_secret_file_name);
                    if plain && !secret {
                        open.push(e.path());
                    }
                }
            }
            dir = d.parent().map(Path::to_path_buf);
        }
        dedup(&mut open);
        self.read_closed = closed;
        self.read_open = open;
    }

    fn collect_hidden(&mut self) -> Result<(), SandboxError> {
        for rel in data::HOME_SECRETS {
            let p = self.home.join(rel);
            self.add_hidden(&p)?;
        }
        if let Some(cargo_home) = env_path("CARGO_HOME") {
            self.add_hidden(&cargo_home.join("credentials"))?;
            self.add_hidden(&cargo_home.join("credentials.toml"))?;
        }
        for p in data::SYSTEM_SECRETS {
            self.add_hidden(Path::new(p))?;
        }
        if let Ok(entries) = fs::read_dir(data::SSH_HOST_KEY_DIR) {
            for e in entries.flatten() {
                let name = e.file_name();
                let name = name.to_string_lossy();
                if name.starts_with("ssh_host_") && name.ends_with("_key") {
                    self.add_hidden(&e.path())?;
                }
            }
        }
        // Configuration files the tools read from the home, hidden when
        // they hold a credential (rt19 F2: a token in `~/.gitconfig`, a
        // `url.https://x-access-token:T@…` key, a password in an index URL
        // of uv or conda, a registry token in cargo's config). Without
        // them a tool runs with its defaults; a commit needing
        // `user.name` then fails and the next call asks.
        let xdg = env_path("XDG_CONFIG_HOME").unwrap_or_else(|| self.home.join(".config"));
        let configs = [
            self.home.join(".gitconfig"),
            xdg.join("git/config"),
            xdg.join("uv/uv.toml"),
            xdg.join("pip/pip.conf"),
            self.home.join(".pip/pip.conf"),
            self.home.join(".condarc"),
            self.home.join(".cargo/config.toml"),
            self.home.join(".cargo/config"),
            self.home.join(".bundle/config"),
            self.home.join(".gradle/gradle.properties"),
            // rt25a F3: a sandboxed script printed a credential from each.
            self.home.join(".bazelrc"),
            xdg.join("go/env"),
            self.home.join(".cabal/config"),
            self.home.join(".lein/profiles.clj"),
            xdg.join("mise/config.toml"),
            self.home.join(".stack/config.yaml"),
        ];
        // And every file of the directories these tools read whole
        // (Gradle's init scripts, sbt's global settings, mise's conf.d).
        let mut configs = configs.to_vec();
        for dir in [
            self.home.join(".gradle/init.d"),
            self.home.join(".sbt/1.0"),
            self.home.join(".sbt/0.13"),
            xdg.join("mise/conf.d"),
        ] {
            if let Ok(entries) = fs::read_dir(&dir) {
                configs.extend(entries.flatten().map(|e| e.path()));
            }
        }
        for c in configs {
            if fs::read(&c)
                .is_ok_and(|b| data::config_holds_credential(&String::from_utf8_lossy(&b)))
            {
                self.add_hidden(&c)?;
            }
        }
        // Credentials the system keeps in the temp directory: Kerberos
        // ticket caches (`/tmp/krb5cc_1000`) and keytabs (rt18 F2), and the
        // cache `KRB5CCNAME` names.
        let mut temps = vec![PathBuf::from("/tmp"), self.temp_dir.clone()];
        dedup(&mut temps);
        for t in temps {
            if let Ok(entries) = fs::read_dir(&t) {
                for e in entries.flatten() {
                    if data::is_secret_file_name(&e.file_name().to_string_lossy()) {
                        self.add_hidden(&e.path())?;
                    }
                }
            }
        }
        if let Some(cc) = std::env::var_os("KRB5CCNAME") {
            let cc = cc.to_string_lossy();
            let path = cc.strip_prefix("FILE:").unwrap_or(&cc);
            if path.starts_with('/') {
                self.add_hidden(Path::new(path))?;
            }
        }
        let mut roots = vec![self.project.clone()];
        roots.extend(self.project_roots.iter().cloned());
        roots.extend(self.project_reads.iter().cloned());
        dedup(&mut roots);
        for r in roots {
            self.walk_secrets(&r)?;
        }
        Ok(())
    }

    /// Breadth-first walk of a project root for secret-looking names, bounded
    /// in depth and entries; symlinked directories are not entered.
    fn walk_secrets(&mut self, root: &Path) -> Result<(), SandboxError> {
        let mut queue = std::collections::VecDeque::from([(root.to_path_buf(), 0usize)]);
        let mut seen = 0usize;
        while let Some((dir, d)) = queue.pop_front() {
            let Ok(entries) = fs::read_dir(&dir) else {
                continue;
            };
            for e in entries.flatten() {
                seen += 1;
                if seen > data::WALK_MAX_ENTRIES {
                    return Err(SandboxError::Plan(format!(
                        "{} holds more than {} entries to check for secret files (dependency \
                         directories and caches aside); the command cannot be confined without \
                         knowing them all",
                        root.display(),
                        data::WALK_MAX_ENTRIES
                    )));
                }
                let name = e.file_name();
                let Some(name) = name.to_str() else { continue };
                let p = e.path();
                let Ok(ft) = e.file_type() else { continue };
                if name == ".git" && dir != root {
                    self.nested_gits.push(p);
                    continue;
                }
                if ft.is_dir() {
                    if data::SECRET_DIR_NAMES.contains(&name) {
                        self.add_hidden(&p)?;
                    } else if !data::WALK_SKIP.contains(&name) {
                        if d + 1 >= data::WALK_MAX_DEPTH {
                            return Err(SandboxError::Plan(format!(
                                "{} is nested deeper than {} directories to check for secret \
                                 files; the command cannot be confined without knowing them all",
                                p.display(),
                                data::WALK_MAX_DEPTH
                            )));
                        }
                        queue.push_back((p, d + 1));
                    }
                } else if data::is_secret_file_name(name)
                    || data::SECRET_DIR_NAMES.contains(&name)
                    || secret_by_place(root, &p)
                {
                    self.add_hidden(&p)?;
                }
            }
        }
        Ok(())
    }
}

/// Whether a file below the project root is secret by where it lies (the
/// gate's vocabulary: `.kube/config`, `.docker/config.json`,
/// `.cargo/credentials.toml`, `.config/gh/hosts.yml`), as its path from the
/// root reads in lower case (rt26a F4: a sandboxed script printed them).
fn secret_by_place(root: &Path, p: &Path) -> bool {
    let Ok(rel) = p.strip_prefix(root) else {
        return false;
    };
    let segs: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().to_ascii_lowercase())
        .collect();
    let segs: Vec<&str> = segs.iter().map(String::as_str).collect();
    shellgate_secrets::secret_by_segments(&segs)
}

/// Whether resolving the absolute path `p` passes through (or ends in) one
/// of `roots` (canonical): component by component, a link resolved where it
/// is met. Anything that cannot be resolved counts as passing through.
fn passes_through(p: &Path, roots: &[PathBuf]) -> bool {
    let inside = |c: &Path| roots.iter().any(|w| c.starts_with(w));
    let mut cur = PathBuf::from("/");
    for comp in p.components() {
        match comp {
            Component::RootDir | Component::CurDir => continue,
            Component::ParentDir => {
                cur.pop();
            }
            Component::Normal(name) => {
                cur.push(name);
                match lstat(&cur) {
                    None => return inside(&cur),
                    Some(m) if m.file_type().is_symlink() => match fs::canonicalize(&cur) {
                        Ok(c) => cur = c,
                        Err(_) => return true,
                    },
                    Some(_) => {}
                }
            }
            Component::Prefix(_) => return true,
        }
        if inside(&cur) {
            return true;
        }
    }
    false
}

/// Below [`data::ROOT_ONLY_TREES`]: the directories others cannot search
/// or list and the files they cannot read (not entered: `skip`, links). A
/// directory the bounded walk does not reach is closed whole.
#[cfg(unix)]
fn root_only_paths(skip: &[PathBuf], notes: &mut Vec<String>) -> Vec<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = Vec::new();
    let mut queue: std::collections::VecDeque<PathBuf> = data::ROOT_ONLY_TREES
        .iter()
        .map(PathBuf::from)
        .filter(|p| lstat(p).is_some_and(|m| m.is_dir()))
        .collect();
    let mut budget = data::ROOT_ONLY_WALK_MAX;
    while let Some(dir) = queue.pop_front() {
        if budget == 0 {
            notes.push(format!(
                "{} and {} other directories were too many to inspect: closed to reads",
                dir.display(),
                queue.len()
            ));
            out.push(dir);
            out.extend(queue.drain(..));
            break;
        }
        let Ok(entries) = fs::read_dir(&dir) else {
            out.push(dir);
            continue;
        };
        for e in entries.flatten() {
            budget = budget.saturating_sub(1);
            let p = e.path();
            if skip.iter().any(|s| p.starts_with(s))
                || data::ROOT_ONLY_PUBLIC.iter().any(|s| p == Path::new(s))
            {
                continue;
            }
            let Some(m) = lstat(&p) else { continue };
            if m.file_type().is_symlink() {
                continue;
            }
            let mode = m.permissions().mode();
            if m.is_dir() {
                if mode & 0o005 != 0o005 {
                    out.push(p);
                } else {
                    queue.push_back(p);
                }
            } else if mode & 0o004 == 0 {
                out.push(p);
            }
        }
    }
    out
}

fn dedup(v: &mut Vec<PathBuf>) {
    let mut seen = BTreeSet::new();
    v.retain(|p| seen.insert(p.clone()));
}

pub(crate) fn depth(p: &Path) -> usize {
    p.components().count()
}

#[cfg(unix)]
fn hard_links(m: &fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    m.nlink()
}

#[cfg(not(unix))]
fn hard_links(_m: &fs::Metadata) -> u64 {
    1
}

/// What a git config file points to that git later reads or runs: its
/// `core.hooksPath` (the last one) and the files its `include.path` and
/// `includeIf.<cond>.path` entries name (as written). Includes are not
/// followed here.
#[derive(Default)]
struct ConfigRefs {
    hooks_path: Option<String>,
    includes: Vec<String>,
}

fn git_config_refs(config: &Path) -> ConfigRefs {
    let mut out = ConfigRefs::default();
    let Ok(text) = read_bounded(config, 1 << 20) else {
        return out;
    };
    for (kind, v) in shellgate_gitfmt::config::refs(&text) {
        match kind {
            shellgate_gitfmt::config::Ref::HooksPath => out.hooks_path = Some(v),
            shellgate_gitfmt::config::Ref::Include => out.includes.push(v),
        }
    }
    out
}

fn read_bounded(p: &Path, max: u64) -> io::Result<String> {
    use std::io::Read;
    let f = fs::File::open(p)?;
    let mut s = String::new();
    f.take(max).read_to_string(&mut s)?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hooks_path_parsing() {
        let d = tempfile::tempdir().unwrap();
        let c = d.path().join("config");
        fs::write(
            &c,
            "[core]\n\tbare = false\n[remote \"o\"]\n\thooksPath = nope\n[core]\n\thooksPath = .husky/_\n",
        )
        .unwrap();
        assert_eq!(git_config_refs(&c).hooks_path.as_deref(), Some(".husky/_"));
        fs::write(&c, "[core]\n\tbare = false\n").unwrap();
        assert_eq!(git_config_refs(&c).hooks_path, None);
    }

    #[test]
    fn resolve_keeps_absent_tail() {
        let d = tempfile::tempdir().unwrap();
        let real = fs::canonicalize(d.path()).unwrap();
        assert_eq!(resolve(&d.path().join("a/b")).unwrap(), real.join("a/b"));
        assert!(resolve(Path::new("rel")).is_err());
    }

    #[test]
    fn profiles_parse() {
        assert_eq!("build".parse::<Profile>().unwrap(), Profile::Build);
        assert!("write".parse::<Profile>().is_err());
    }

    #[test]
    fn session_ids() {
        assert!(valid_session_id("abc-1_2.x"));
        assert!(!valid_session_id(".."));
        assert!(!valid_session_id("a/b"));
        assert!(!valid_session_id(""));
    }

    fn scratch() -> (tempfile::TempDir, PathBuf) {
        let d = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(d.path()).unwrap();
        for sub in ["home", "proj/.git/hooks", "proj/src", "tmp"] {
            fs::create_dir_all(root.join(sub)).unwrap();
        }
        fs::write(root.join("proj/.git/config"), "[core]\n").unwrap();
        fs::write(root.join("proj/.git/HEAD"), "ref: refs/heads/main\n").unwrap();
        (d, root)
    }

    fn builder(root: &Path, profile: Profile) -> ConfinementBuilder {
        Confinement::builder(profile, root.join("proj"))
            .home(root.join("home"))
            .gate_home(root.join("home/.shellgate"))
            .temp_dir(root.join("tmp"))
    }

    #[test]
    fn shallow_projects_are_refused() {
        let (_d, root) = scratch();
        let home = Confinement::builder(Profile::Edit, root.join("home"))
            .home(root.join("home"))
            .temp_dir(root.join("tmp"))
            .build();
        assert!(matches!(home, Err(SandboxError::Plan(m)) if m.contains("too shallow")));
        let above = Confinement::builder(Profile::Edit, &root)
            .home(root.join("home"))
            .temp_dir(root.join("tmp"))
            .build();
        assert!(above.is_err());
        let slash = Confinement::builder(Profile::Read, "/")
            .home(root.join("home"))
            .temp_dir(root.join("tmp"))
            .build();
        assert!(slash.is_err());
    }

    /// A home below the temp directory (`HOME=/tmp/…`) leaves the system
    /// temp directory read-only: the session's own takes its place.
    #[test]
    fn a_home_below_the_temp_directory_gets_a_private_temp() {
        let (_d, root) = scratch();
        fs::create_dir_all(root.join("tmp/home/proj")).unwrap();
        let b = |session: bool| {
            let b = Confinement::builder(Profile::Build, root.join("tmp/home/proj"))
                .home(root.join("tmp/home"))
                .gate_home(root.join("tmp/home/.shellgate"))
                .temp_dir(root.join("tmp"));
            if session {
                b.session("s1")
            } else {
                b
            }
        };
        let refused = b(false).build();
        assert!(matches!(refused, Err(SandboxError::Plan(m)) if m.contains("holds the home")));
        let c = b(true).build().unwrap();
        let session = root.join("tmp/home/.shellgate/sessions/s1");
        assert!(c.private_temp);
        assert_eq!(c.temp_dir(), session.join("tmp"));
        assert!(!c.writable.iter().any(|w| w == &root.join("tmp")));
        assert!(c.writable.iter().any(|w| w == &session));
    }

    #[test]
    fn edit_guards_git_and_host_control() {
        let (_d, root) = scratch();
        fs::write(root.join("proj/.env"), "K=V").unwrap();
        let c = builder(&root, Profile::Edit).build().unwrap();
        let p = |s: &str| root.join("proj").join(s);
        let has = |path: PathBuf, placeholder: bool| {
            c.guards()
                .iter()
                .any(|g| g.path == path && g.placeholder == placeholder)
        };
        assert!(has(p(".git/config"), false));
        assert!(has(p(".git/hooks"), false));
        assert!(has(p(".git/info"), true));
        assert!(has(p(".claude"), true));
        assert!(c.pins.contains(&p(".git")));
        assert!(c.pins.contains(&root.join("proj")));
        assert!(c.hidden().iter().any(|h| h.path == p(".env")));
        assert!(c.notes().iter().any(|n| n.contains(".mcp.json")));
    }

    #[test]
    fn symlinked_protected_path_is_refused() {
        let (_d, root) = scratch();
        std::os::unix::fs::symlink(root.join("home"), root.join("proj/.claude")).unwrap();
        let r = builder(&root, Profile::Edit).build();
        assert!(matches!(r, Err(SandboxError::Plan(m)) if m.contains("symlink")));
    }

    #[test]
    fn read_profile_guards_a_project_inside_temp() {
        let (_d, root) = scratch();
        fs::create_dir_all(root.join("tmp/proj")).unwrap();
        let c = Confinement::builder(Profile::Read, root.join("tmp/proj"))
            .home(root.join("home"))
            .temp_dir(root.join("tmp"))
            .build()
            .unwrap();
        assert!(c
            .guards()
            .iter()
            .any(|g| g.path == root.join("tmp/proj") && g.kind == Kind::Dir));
    }
}
