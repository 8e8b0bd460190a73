//! The I/O edge of an evaluation: where the gate lives, the grant store and
//! the state database, and how a call's context is built from flags and
//! recorded sessions.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context as _, Result};
use shellgate_policy::config::{load_user_safe_verbs, PolicyConfig};
use shellgate_policy::decision::{self, Context, Policy};
use shellgate_policy::fs::{FileKind, Fs, OsFs};
use shellgate_policy::{Audience, Channel, Os, RunEnv};
use shellgate_store::state::{is_valid_session_id, SessionRecord, StateDb};
use shellgate_store::{StoreCache, StoreLookups};

/// Default session id when a call names none.
pub const DEFAULT_SESSION: &str = "default";

/// The gate's home directory and the user's home.
#[derive(Debug, Clone)]
pub struct Homes {
    pub gate: PathBuf,
    pub user: String,
}

impl Homes {
    pub fn resolve(flag: Option<&Path>) -> Homes {
        let user = crate::origin::var("HOME").unwrap_or_else(|| "/".to_string());
        let gate = match flag {
            Some(p) => absolute(p),
            None => match crate::origin::var_os("SHELLGATE_HOME") {
                Some(v) if !v.is_empty() => absolute(Path::new(&v)),
                _ => PathBuf::from(&user).join(".shellgate"),
            },
        };
        Homes { gate, user }
    }

    pub fn store_path(&self) -> PathBuf {
        self.gate.join("config").join("tool-approvals.json")
    }

    pub fn policy_path(&self) -> PathBuf {
        self.gate.join("config").join("policy.toml")
    }

    pub fn db_path(&self) -> PathBuf {
        self.gate.join("state").join("shellgate.db")
    }

    pub fn session_dir(&self, id: &str) -> PathBuf {
        self.gate.join("sessions").join(id)
    }

    pub fn gate_str(&self) -> String {
        shellgate_shell::paths::normalize(&self.gate.to_string_lossy())
    }
}

fn absolute(p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        crate::origin::current_dir()
            .map(|c| c.join(p))
            .unwrap_or_else(|_| p.to_path_buf())
    }
}

/// Load policy.toml and the user safe-verb files (a malformed safe-verb
/// file is a warning; a malformed policy is an error).
pub fn load_policy(homes: &Homes) -> Result<Policy> {
    load_policy_for(homes, &[Os::Linux, Os::Macos, Os::Windows])
}

/// [`load_policy`] with the user safe-verb files of `oses` only (a caller
/// that evaluates for this host alone, like a hook, reads one file).
pub fn load_policy_for(homes: &Homes, oses: &[Os]) -> Result<Policy> {
    let config = PolicyConfig::load(&homes.policy_path())?;
    let mut user = Vec::new();
    for &os in oses {
        let path = homes
            .gate
            .join("config")
            .join(format!("safe-verbs.{}.json", os.as_str()));
        match load_user_safe_verbs(&path) {
            Ok(v) => user.push((os, v)),
            Err(e) => {
                if os == Os::host() {
                    crate::origin::warn(&format!(
                        "warning: {e}; using the bundled safe-verb list only"
                    ));
                }
            }
        }
    }
    Ok(Policy::new(config, &user))
}

/// Whether this machine can confine commands. The probe forks a child
/// that enters namespaces (about half a millisecond), so its answer is
/// kept in `state/sandbox-support` for [`SUPPORT_TTL`], keyed by what it
/// depends on (see [`support_key`]); within a process it is asked once.
///
/// A stale "yes" fails closed: `shellgate sandbox` checks again before it
/// confines anything and refuses to run the command when it cannot.
pub fn sandbox_supported(homes: &Homes) -> bool {
    // The approval service lives for days: it reads the recorded answer
    // (and probes past its time) for every evaluation, as a hook would.
    if crate::origin::is_client() {
        return cached_support(homes);
    }
    static SUPPORTED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SUPPORTED.get_or_init(|| cached_support(homes))
}

/// How long a recorded probe answer is used.
pub const SUPPORT_TTL: Duration = Duration::from_secs(600);

fn cached_support(homes: &Homes) -> bool {
    let Some(key) = support_key() else {
        return shellgate_sandbox::support().is_ok();
    };
    let path = homes.gate.join("state").join("sandbox-support");
    if let Some(known) = read_support(&path, &key) {
        return known;
    }
    let ok = shellgate_sandbox::support().is_ok();
    write_support(&path, &key, ok);
    ok
}

/// What the probe's answer depends on: the running kernel (boot id and
/// release), the user, and this program's version. `None` where there is
/// nothing to key on (then every process probes).
fn support_key() -> Option<String> {
    #[cfg(target_os = "linux")]
    {
        let boot = read_small("/proc/sys/kernel/random/boot_id")?;
        // SAFETY: uname fills a local struct; getuid has no preconditions.
        let (release, uid) = unsafe {
            let mut u: libc::utsname = std::mem::zeroed();
            if libc::uname(&mut u) != 0 {
                return None;
            }
            let release = std::ffi::CStr::from_ptr(u.release.as_ptr())
                .to_string_lossy()
                .into_owned();
            (release, libc::getuid())
        };
        Some(format!(
            "{} {release} {uid} {}",
            boot.trim(),
            env!("CARGO_PKG_VERSION")
        ))
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// A small file's text in one read (at most 4 KiB).
fn read_small(path: impl AsRef<Path>) -> Option<String> {
    read_small_from(&mut std::fs::File::open(path).ok()?)
}

fn read_small_from(f: &mut std::fs::File) -> Option<String> {
    use std::io::Read;
    let mut buf = [0u8; 4096];
    let mut len = 0;
    while len < buf.len() {
        match f.read(&mut buf[len..]) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    String::from_utf8(buf[..len].to_vec()).ok()
}

fn read_support(path: &Path, key: &str) -> Option<bool> {
    let mut f = std::fs::File::open(path).ok()?;
    let age = f.metadata().ok()?.modified().ok()?.elapsed().ok()?;
    if age > SUPPORT_TTL {
        return None;
    }
    let text = read_small_from(&mut f)?;
    let (k, v) = text.trim_end().rsplit_once('\n')?;
    if k != key {
        return None;
    }
    match v {
        "supported" => Some(true),
        "unsupported" => Some(false),
        _ => None,
    }
}

/// Record the probe's answer (best effort: written whole, then renamed).
fn write_support(path: &Path, key: &str, ok: bool) {
    let Some(dir) = path.parent() else {
        return;
    };
    if !dir.is_dir() {
        return;
    }
    let tmp = dir.join(format!(".sandbox-support.{}", std::process::id()));
    let text = format!("{key}\n{}\n", if ok { "supported" } else { "unsupported" });
    if std::fs::write(&tmp, text).is_ok() && std::fs::rename(&tmp, path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// Offer the sandboxed allow (SPEC §18) to `policy`: for callers that run
/// the rewritten command (`check` for its caller, `exec`, Claude Code's
/// hook), when the kernel can confine and this executable can be found.
pub fn offer_sandbox(homes: &Homes, policy: &mut Policy) {
    if !sandbox_supported(homes) {
        return;
    }
    if let Ok(exe) = std::env::current_exe() {
        if let Some(p) = exe.to_str() {
            policy.offer_sandbox(p);
            if let Some(t) = sandbox_temp_dir(&homes.user) {
                policy.sandbox_temp_dir(t);
            }
        }
    }
}

/// The temp directory the sandbox lets a command write, as it picks it
/// (`$TMPDIR`, else `/tmp`; physical path) — unless it holds the home, when
/// the sandbox gives the command a private one instead.
fn sandbox_temp_dir(home: &str) -> Option<String> {
    let temp = crate::origin::var_os("TMPDIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/tmp"));
    let temp = std::fs::canonicalize(temp).ok()?;
    let home = std::fs::canonicalize(home).unwrap_or_else(|_| PathBuf::from(home));
    if temp == Path::new("/") || home.starts_with(&temp) {
        return None;
    }
    temp.to_str().map(str::to_string)
}

/// Grants and one-time approvals, read from the store and the state.
pub struct Edge {
    pub homes: Homes,
    pub store: StoreCache,
    db: Option<StateDb>,
    pub os: Os,
    session: String,
    /// Whether one-time approvals are consumed (false for `decide`).
    pub consume_once: bool,
    /// Session directories this process made sure exist.
    session_dirs: std::collections::HashSet<String>,
    /// File-system facts of the call under evaluation.
    fs: &'static CallFs,
    /// A session record the caller just read (saves reading it again).
    recorded: Option<SessionRecord>,
    /// Whether the file-system facts are kept from one call to the next
    /// (a `check --batch` run judges its lines against one snapshot).
    snapshot: bool,
    /// The state database was found absent in this snapshot.
    db_absent: bool,
}

impl Edge {
    pub fn new(homes: Homes) -> Edge {
        let store = StoreCache::new(homes.store_path());
        Edge {
            homes,
            store,
            db: None,
            os: Os::host(),
            session: DEFAULT_SESSION.to_string(),
            consume_once: true,
            session_dirs: std::collections::HashSet::new(),
            fs: call_fs(),
            recorded: None,
            snapshot: false,
            db_absent: false,
        }
    }

    /// Keep the file-system facts from one call to the next: every later
    /// call of this edge sees the file system as the first one asked it
    /// (one batch is one snapshot). Facts are still forgotten when the
    /// edge itself creates something (a session directory).
    pub fn keep_snapshot(&mut self) {
        self.fs.forget();
        self.snapshot = true;
    }

    /// Hand over a session record just read, for the next
    /// [`build_context`] of that session.
    pub fn remember_session(&mut self, rec: SessionRecord) {
        self.recorded = Some(rec);
    }

    /// Open the state database if it exists (or `create`).
    pub fn db(&mut self, create: bool) -> Result<Option<&StateDb>> {
        if self.db.is_none() && (create || !self.db_absent) {
            let path = self.homes.db_path();
            if let Some(db) = kept_db::take(&path) {
                self.db = Some(db);
            } else if create || path.exists() {
                self.db = Some(StateDb::open(&path)?);
            } else if self.snapshot {
                // Within one snapshot the database stays absent.
                self.db_absent = true;
            }
        }
        // For a hook client inside the service: a locked database makes
        // the evaluation fail (and the client evaluate the call itself)
        // before the client stops waiting; nothing is written after that.
        if let (Some(left), Some(db)) = (crate::origin::time_left(), &self.db) {
            if left.is_zero() {
                anyhow::bail!("the hook client stopped waiting");
            }
            db.set_busy_timeout(left.min(shellgate_store::state::BUSY_TIMEOUT))?;
        }
        Ok(self.db.as_ref())
    }

    pub fn set_call(&mut self, session: &str, os: Os) {
        self.session = session.to_string();
        self.os = os;
    }
}

impl Drop for Edge {
    fn drop(&mut self) {
        if let Some(db) = self.db.take() {
            kept_db::keep(db);
        }
    }
}

/// The state database's connection, kept from one hook evaluation to the
/// next by the approval service's evaluator thread (opening it is most of
/// an evaluation's cost); every other process opens it once per edge.
mod kept_db {
    use std::cell::RefCell;
    use std::path::Path;

    use shellgate_store::state::StateDb;

    /// A connection and the file (device, inode) it opened.
    type Kept = (StateDb, (u64, u64));

    thread_local! {
        static KEPT: RefCell<Option<Kept>> = const { RefCell::new(None) };
    }

    fn identity(path: &Path) -> Option<(u64, u64)> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(path).ok()?;
        Some((m.dev(), m.ino()))
    }

    /// The kept connection to `path`, if it is still the file there (a
    /// state directory removed or replaced meanwhile is opened afresh).
    pub(super) fn take(path: &Path) -> Option<StateDb> {
        if !crate::origin::is_client() {
            return None;
        }
        let (db, id) = KEPT.with(|k| k.borrow_mut().take())?;
        (db.path() == path && identity(path) == Some(id)).then_some(db)
    }

    pub(super) fn keep(db: StateDb) {
        if !crate::origin::is_client() {
            return;
        }
        if let Some(id) = identity(db.path()) {
            KEPT.with(|k| *k.borrow_mut() = Some((db, id)));
        }
    }
}

/// Flags describing a call's context.
#[derive(Debug, Clone, Default)]
pub struct CallFlags {
    pub session: Option<String>,
    pub audience: Option<Audience>,
    pub channel: Option<Channel>,
    pub project_dir: Option<String>,
    pub os: Option<Os>,
}

/// Errors that are usage errors (exit 2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// Build the evaluation context: recorded sessions apply, flags may only
/// narrow them.
pub fn build_context(edge: &mut Edge, flags: &CallFlags) -> Result<Context<'static>> {
    let session = flags
        .session
        .clone()
        .unwrap_or_else(|| DEFAULT_SESSION.to_string());
    if !is_valid_session_id(&session) {
        return Err(UsageError(format!(
            "invalid session id '{session}': use letters, digits, '.', '_' or '-' (at most 128, starting with a letter or digit)"
        ))
        .into());
    }
    let homes = edge.homes.clone();
    let recorded: Option<SessionRecord> = match edge.recorded.take() {
        Some(r) if r.id == session => Some(r),
        _ => match edge.db(false)? {
            Some(db) => db.session(&session)?,
            None => None,
        },
    };
    if let Some(rec) = &recorded {
        if let Some(ended) = &rec.ended_at {
            return Err(UsageError(format!(
                "session '{session}' ended at {ended}; start a new session"
            ))
            .into());
        }
    }
    let (audience, channel, project_dir) = match recorded {
        Some(rec) => {
            let mut audience = rec.audience;
            if let Some(a) = flags.audience {
                if a > rec.audience {
                    return Err(UsageError(format!(
                        "audience_escalation: session '{session}' is {}; --audience {} would widen it",
                        rec.audience.as_str(),
                        a.as_str()
                    ))
                    .into());
                }
                audience = a;
            }
            let mut channel = rec.channel;
            if let Some(c) = flags.channel {
                if c.is_interactive() && !rec.channel.is_interactive() {
                    return Err(UsageError(format!(
                        "channel_escalation: session '{session}' is {}; --channel interactive would widen it",
                        rec.channel.as_str()
                    ))
                    .into());
                }
                channel = c;
            }
            let project = match (&flags.project_dir, rec.project_dir) {
                (Some(f), Some(r)) => {
                    // A flag may only narrow: it must lie inside the recorded one.
                    let f = normalize_dir(f, &homes.user);
                    if shellgate_shell::paths::is_within(&f, &r) {
                        Some(f)
                    } else {
                        return Err(UsageError(format!(
                            "project_dir_escalation: --project-dir {f} is outside the recorded project {r}"
                        ))
                        .into());
                    }
                }
                (None, r) => r,
                (Some(f), None) => Some(normalize_dir(f, &homes.user)),
            };
            (audience, channel, project)
        }
        None => (
            flags.audience.unwrap_or(Audience::Personal),
            flags.channel.unwrap_or(Channel::Interactive),
            flags
                .project_dir
                .as_deref()
                .map(|p| normalize_dir(p, &homes.user)),
        ),
    };
    let session_dir = homes.session_dir(&session);
    // The session directory exists (created on demand; asked once per
    // process and session, not once per command of a batch).
    if !edge.session_dirs.contains(&session) {
        if let Err(e) = ensure_dir(&session_dir) {
            bail!(
                "cannot create the session directory {}: {e}",
                session_dir.display()
            );
        }
        edge.session_dirs.insert(session.clone());
        // What this process just created must not be answered from facts
        // asked before it existed.
        edge.fs.forget();
    }
    let os = flags.os.unwrap_or_else(Os::host);
    edge.set_call(&session, os);
    Ok(Context {
        session,
        audience,
        channel,
        os,
        project_dir,
        session_dir: shellgate_shell::paths::normalize(&session_dir.to_string_lossy()),
        home: homes.user.clone(),
        gate_home: homes.gate_str(),
        fs: edge.fs,
        run_env: inherited_env(),
    })
}

/// The environment commands run in: the host's, which the gate inherits
/// and passes on (read once per process; for a hook client inside the
/// approval service, the client's, for each evaluation).
fn inherited_env() -> RunEnv<'static> {
    type Vars = (Option<String>, Option<String>, Option<String>);
    fn read() -> Vars {
        (
            // Bytes that are not UTF-8 become U+FFFD, which the policy
            // reads as an entry it cannot know (fail closed).
            crate::origin::var_os("PATH").map(|p| p.to_string_lossy().into_owned()),
            crate::origin::var("XDG_CONFIG_HOME"),
            crate::origin::var_os("CDPATH").map(|p| p.to_string_lossy().into_owned()),
        )
    }
    if crate::origin::is_client() {
        let (path, xdg, cdpath) = read();
        return RunEnv {
            path: path.map(intern),
            xdg_config_home: xdg.map(intern),
            cdpath: cdpath.map(intern),
        };
    }
    static VARS: std::sync::OnceLock<Vars> = std::sync::OnceLock::new();
    let (path, xdg, cdpath) = VARS.get_or_init(read);
    RunEnv {
        path: path.as_deref(),
        xdg_config_home: xdg.as_deref(),
        cdpath: cdpath.as_deref(),
    }
}

/// A string that lives as long as the process, kept once per distinct
/// value (the hook clients of one service send a handful of `PATH`s).
fn intern(s: String) -> &'static str {
    static KEPT: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());
    let mut kept = KEPT.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(k) = kept.iter().find(|k| **k == s) {
        return k;
    }
    let k: &'static str = Box::leak(s.into_boxed_str());
    if kept.len() < 1024 {
        kept.push(k);
    }
    k
}

/// `mkdir -p` that costs one system call when the directory exists.
pub fn ensure_dir(dir: &Path) -> std::io::Result<()> {
    match std::fs::create_dir(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && dir.is_dir() => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => std::fs::create_dir_all(dir),
        Err(e) => Err(e),
    }
}

/// Absolute, normalized form of a directory given on the command line.
pub fn normalize_dir(d: &str, home: &str) -> String {
    let expanded = shellgate_policy::config::expand_home(d, home);
    if expanded.starts_with('/') {
        shellgate_shell::paths::normalize(&expanded)
    } else {
        let cwd = crate::origin::current_dir()
            .map(|c| c.to_string_lossy().to_string())
            .unwrap_or_else(|_| "/".to_string());
        shellgate_shell::paths::resolve(&cwd, &expanded)
    }
}

/// Evaluate one call against the edge.
pub fn evaluate(
    edge: &mut Edge,
    policy: &Policy,
    req: &decision::Request,
    ctx: &Context,
) -> Result<decision::Decision> {
    if !edge.snapshot {
        edge.fs.forget();
    } else {
        edge.fs.bound();
    }
    let consume = edge.consume_once;
    let session = ctx.session.clone();
    let home = ctx.home.clone();
    let os = ctx.os;
    edge.db(false)?;
    let store = edge
        .store
        .get()
        .with_context(|| "cannot read the approvals store".to_string())?;
    let lookups = StoreLookups {
        store: Some(store),
        db: edge.db.as_ref(),
        session: &session,
        home: &home,
        os,
        consume_once: consume,
        taken: Default::default(),
        fs: ctx.fs,
    };
    let d = decision::evaluate(policy, req, ctx, &lookups);
    crate::origin::note_taken(lookups.taken.into_inner());
    Ok(d)
}

/// The file-system facts of one call, each asked of the operating system
/// once (issue 14: the policy asked about the same paths several times
/// per call): `lstat` answers `stat` too unless the path is a symbolic
/// link. [`evaluate`] forgets everything before each call, so a fact is
/// never older than the call that uses it.
#[derive(Default)]
pub struct CallFs {
    facts: std::sync::Mutex<Facts>,
}

type Fact<T> = std::result::Result<T, (std::io::ErrorKind, Option<i32>)>;

#[derive(Default)]
struct Facts {
    lstat: std::collections::HashMap<String, Fact<FileKind>>,
    stat: std::collections::HashMap<String, Fact<FileKind>>,
    link: std::collections::HashMap<String, Fact<PathBuf>>,
    dir: std::collections::HashMap<String, Fact<Vec<String>>>,
    canonical: std::collections::HashMap<String, Fact<PathBuf>>,
}

fn keep<T>(r: std::io::Result<T>) -> Fact<T> {
    r.map_err(|e| (e.kind(), e.raw_os_error()))
}

fn give<T: Clone>(f: &Fact<T>) -> std::io::Result<T> {
    match f {
        Ok(v) => Ok(v.clone()),
        Err((_, Some(code))) => Err(std::io::Error::from_raw_os_error(*code)),
        Err((kind, None)) => Err(std::io::Error::from(*kind)),
    }
}

/// Facts a snapshot keeps before it starts again.
const MAX_FACTS: usize = 200_000;

/// The process's [`CallFs`] (one for every [`Edge`]: a long-lived process
/// such as `serve` makes an `Edge` per request and must not leak one each).
fn call_fs() -> &'static CallFs {
    static FS: std::sync::OnceLock<CallFs> = std::sync::OnceLock::new();
    FS.get_or_init(CallFs::default)
}

impl CallFs {
    /// Forget every fact (a new call starts).
    pub fn forget(&self) {
        if let Ok(mut f) = self.facts.lock() {
            *f = Facts::default();
        }
    }

    /// Forget every fact when a long snapshot has gathered too many (the
    /// memory of a batch stays bounded; a fact asked again is asked of the
    /// system again, never invented).
    pub fn bound(&self) {
        if let Ok(mut f) = self.facts.lock() {
            let n = f.lstat.len() + f.stat.len() + f.link.len() + f.dir.len() + f.canonical.len();
            if n > MAX_FACTS {
                *f = Facts::default();
            }
        }
    }

    fn with<R>(&self, f: impl FnOnce(&mut Facts) -> R) -> Option<R> {
        self.facts.lock().ok().map(|mut g| f(&mut g))
    }
}

impl Fs for CallFs {
    fn lstat(&self, path: &str) -> std::io::Result<FileKind> {
        if let Some(Some(known)) = self.with(|f| f.lstat.get(path).cloned()) {
            return give(&known);
        }
        let r = keep(OsFs.lstat(path));
        self.with(|f| f.lstat.insert(path.to_string(), r));
        give(&r)
    }

    fn stat(&self, path: &str) -> std::io::Result<FileKind> {
        if let Some(Some(known)) = self.with(|f| f.stat.get(path).cloned()) {
            return give(&known);
        }
        // What is not a symbolic link is what it leads to.
        let r = match self.lstat(path) {
            Ok(FileKind::Symlink) => keep(OsFs.stat(path)),
            other => keep(other),
        };
        self.with(|f| f.stat.insert(path.to_string(), r));
        give(&r)
    }

    fn read_link(&self, path: &str) -> std::io::Result<PathBuf> {
        if let Some(Some(known)) = self.with(|f| f.link.get(path).cloned()) {
            return give(&known);
        }
        let r = keep(OsFs.read_link(path));
        self.with(|f| f.link.insert(path.to_string(), r.clone()));
        give(&r)
    }

    fn read_dir(&self, path: &str) -> std::io::Result<Vec<String>> {
        if let Some(Some(known)) = self.with(|f| f.dir.get(path).cloned()) {
            return give(&known);
        }
        let r = keep(OsFs.read_dir(path));
        self.with(|f| f.dir.insert(path.to_string(), r.clone()));
        give(&r)
    }

    // Directory listings with kinds and file contents are not cached: they
    // are rare (globs, git repository trust) and their answer is large.
    fn read_dir_kinds(&self, path: &str) -> std::io::Result<Vec<(String, FileKind)>> {
        OsFs.read_dir_kinds(path)
    }

    fn read_file(&self, path: &str, max: usize) -> std::io::Result<Vec<u8>> {
        OsFs.read_file(path, max)
    }

    fn read_range(&self, path: &str, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
        OsFs.read_range(path, offset, len)
    }

    fn canonicalize(&self, path: &str) -> std::io::Result<PathBuf> {
        if let Some(Some(known)) = self.with(|f| f.canonical.get(path).cloned()) {
            return give(&known);
        }
        let r = keep(OsFs.canonicalize(path));
        self.with(|f| f.canonical.insert(path.to_string(), r.clone()));
        give(&r)
    }
}

/// Time limit of a one-shot evaluation (hosts give hooks 30–60 s).
pub const WATCHDOG: Duration = Duration::from_secs(10);

/// A later end for the watchdog of [`run_guarded`], set by a hook that
/// waits for a human's answer in the approval service (its `--wait`).
static WATCHDOG_EXTENDED: std::sync::Mutex<Option<std::time::Instant>> =
    std::sync::Mutex::new(None);

/// Let the running watchdog wait until `until` (never shortens it).
pub fn extend_watchdog(until: std::time::Instant) {
    let mut g = WATCHDOG_EXTENDED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if g.is_none_or(|u| u < until) {
        *g = Some(until);
    }
}

fn watchdog_extended() -> Option<std::time::Instant> {
    *WATCHDOG_EXTENDED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Wait for the work's exit code until `limit` after `started` (or the
/// extension, when later); `Err(true)` on the timeout, `Err(false)` when
/// the work ended without a code (a panic).
fn wait_guarded(
    rx: &std::sync::mpsc::Receiver<u8>,
    started: std::time::Instant,
    limit: Duration,
) -> std::result::Result<u8, bool> {
    loop {
        let mut until = started + limit;
        if let Some(e) = watchdog_extended() {
            until = until.max(e);
        }
        let left = until.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return Err(true);
        }
        match rx.recv_timeout(left) {
            Ok(code) => return Ok(code),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => continue,
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return Err(false),
        }
    }
}

/// Run `work` on a thread with a generous stack and return its exit code.
/// With a watchdog `(limit, code)`, give up after `limit` and return `code`
/// (fail closed). A panic in `work` is an internal error: exit 1, or 2 for
/// a hook (the hosts' blocking status).
pub fn run_guarded(
    watchdog: Option<(Duration, u8)>,
    work: impl FnOnce() -> u8 + Send + 'static,
) -> u8 {
    let started = std::time::Instant::now();
    let (tx, rx) = std::sync::mpsc::channel::<u8>();
    // The analysis refuses deep nesting before parsing; a generous stack is
    // a second line of defence against parser recursion.
    let worker = std::thread::Builder::new()
        .name("shellgate".into())
        .stack_size(256 * 1024 * 1024)
        .spawn(move || {
            let code = work();
            let _ = tx.send(code);
        });
    if let Err(e) = worker {
        eprintln!("shellgate: cannot start: {e}");
        return 1;
    }
    let received = match watchdog {
        Some((limit, _)) => wait_guarded(&rx, started, limit),
        None => rx.recv().map_err(|_| false),
    };
    let code = match received {
        Ok(code) => code,
        Err(true) => {
            let code = watchdog.map(|(_, c)| c).unwrap_or(1);
            eprintln!(
                "shellgate: the evaluation did not finish within {} s; failing closed",
                started.elapsed().as_secs()
            );
            code
        }
        Err(false) => {
            eprintln!("shellgate: internal error (panic); failing closed");
            if matches!(watchdog, Some((_, 2))) {
                2
            } else {
                1
            }
        }
    };
    code
}
