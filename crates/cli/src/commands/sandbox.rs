//! `shellgate sandbox`: run a command under the OS sandbox (SPEC §18,
//! §18.1) — Landlock, namespaces and seccomp on Linux (`shellgate-sandbox`).
//!
//! The writable project is `--project-dir`, else the session's recorded
//! project directory, else the current directory; `/`, the home and its
//! ancestors are refused. When the kernel cannot confine, nothing runs and
//! the reason is printed (exit 125).
//!
//! The process confines itself and `exec`s the command, which needs a
//! single-threaded process: `main` dispatches this subcommand before the
//! watchdog thread of the other subcommands starts ([`run`] is called from
//! the main thread only).
//!
//! `--record` (what the sandboxed allow's wrapped command uses) keeps a
//! parent outside the sandbox: it runs the confined command as a child
//! (`shellgate sandbox` again, without `--record`), passes its exit status
//! through, and when the run failed records the call as failed for the
//! session, so the next identical call asks a human as before. No kernel
//! interface tells an unprivileged process that Landlock or a read-only
//! mount refused something (Landlock's denials go to the audit log only),
//! so *any* failure of the run counts: a non-zero exit of the command, a
//! signal, or the sandbox refusing to start (125). A failing test then asks
//! once on its next identical run — the safe direction.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use clap::{Args, ValueEnum};
use shellgate_policy::decision::sh_quote;
use shellgate_policy::model::SHELL_TOOL;
use shellgate_sandbox::{Confinement, Profile, EXIT_CANNOT_CONFINE};
use shellgate_store::state::{is_valid_session_id, StateDb};

use super::run_watch;
use crate::edge::{self, Homes};

/// The profiles of SPEC §18.1.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProfileArg {
    /// No writes but the session and temp directories; no network.
    Read,
    /// `read` plus the project (minus .git/config, .git/hooks, host settings).
    Edit,
    /// `edit` plus the toolchain caches (writes kept in the session's own
    /// layer unless --network).
    Build,
}

impl From<ProfileArg> for Profile {
    fn from(p: ProfileArg) -> Profile {
        match p {
            ProfileArg::Read => Profile::Read,
            ProfileArg::Edit => Profile::Edit,
            ProfileArg::Build => Profile::Build,
        }
    }
}

impl ProfileArg {
    fn name(self) -> &'static str {
        Profile::from(self).name()
    }
}

#[derive(Args, Debug, Clone)]
#[command(after_help = "\
Confinement (Linux: Landlock + user/mount/network namespaces + seccomp):
  writes   only inside the project (edit, build), the session directory and the
           system temp directory; .git/config, .git/hooks, .git/info,
           .git/modules, .git/worktrees and the hosts' settings stay read-only;
           build adds the toolchain caches: with --network the real ones,
           otherwise a layer over them kept in the session (--session), so
           that nothing planted there runs later outside the sandbox
  reads    everywhere except secrets (~/.ssh, ~/.aws, .env files, the gate's home …)
           and the homes, where only toolchains, caches, the tools' configuration
           and PATH entries are read
  network  off (only the sandbox's own loopback) unless --network

Exit status: the command's; 125 when the kernel cannot confine it (nothing ran,
the reason is on stderr); 126/127 when it cannot be executed / is not found.

Examples:
  shellgate sandbox -- make test
  shellgate sandbox --profile edit --project-dir ~/repos/app -- sed -i s/a/b/ src/x.c
  shellgate sandbox --profile read -- bash -c 'cat README.md | head'")]
pub struct SandboxArgs {
    /// The writable project (default: the session's project, else the current directory).
    #[arg(long, value_name = "DIR")]
    pub project_dir: Option<PathBuf>,
    /// Session whose directory is writable (and whose project is the default).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// What the command may write.
    #[arg(long, value_enum, default_value = "edit")]
    pub profile: ProfileArg,
    /// Grant the network (TCP/UDP; unix sockets stay closed).
    #[arg(long)]
    pub network: bool,
    /// Record a failed run for the session (the next identical call asks).
    #[arg(long, requires = "session")]
    pub record: bool,
    /// The command and its arguments (run directly, not through a shell).
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<OsString>,
}

/// Run the subcommand. Called from the main thread, before any other
/// thread exists. Returns the exit status only on failure (or, with
/// `--record`, the child's status).
pub fn run(homes: &Homes, a: &SandboxArgs) -> u8 {
    if let Some(s) = &a.session {
        if !is_valid_session_id(s) {
            eprintln!(
                "shellgate: invalid session id '{s}': use letters, digits, '.', '_' or '-' (at most 128, starting with a letter or digit)"
            );
            return 2;
        }
    }
    if a.record {
        return run_recorded(homes, a);
    }
    let project = match project_dir(homes, a) {
        Ok(p) => p,
        Err(why) => {
            eprintln!("shellgate sandbox: refused: {why}");
            return EXIT_CANNOT_CONFINE as u8;
        }
    };
    let mut b = Confinement::builder(a.profile.into(), &project)
        .home(&homes.user)
        .gate_home(&homes.gate)
        .network(a.network);
    if let Some(s) = &a.session {
        b = b.session(s);
    }
    let err = match b.build() {
        Ok(c) => match shellgate_sandbox::exec(&c, &a.command) {
            Ok(never) => match never {},
            Err(e) => e,
        },
        Err(e) => e,
    };
    eprintln!("shellgate sandbox: {err}");
    u8::try_from(err.exit_code()).unwrap_or(EXIT_CANNOT_CONFINE as u8)
}

/// The writable project: the flag, the session's project, the current
/// directory.
fn project_dir(homes: &Homes, a: &SandboxArgs) -> Result<PathBuf, String> {
    if let Some(p) = &a.project_dir {
        return Ok(PathBuf::from(edge::normalize_dir(
            &p.to_string_lossy(),
            &homes.user,
        )));
    }
    if let Some(s) = &a.session {
        let db_path = homes.db_path();
        if db_path.exists() {
            let db = StateDb::open(&db_path).map_err(|e| e.to_string())?;
            if let Some(rec) = db.session(s).map_err(|e| e.to_string())? {
                if let Some(p) = rec.project_dir {
                    return Ok(PathBuf::from(p));
                }
            }
        }
    }
    std::env::current_dir().map_err(|e| format!("no working directory: {e}"))
}

/// `--record`: run the confined command as a child, pass its status
/// through, record a failure.
fn run_recorded(homes: &Homes, a: &SandboxArgs) -> u8 {
    let Some(session) = a.session.as_deref() else {
        eprintln!("shellgate sandbox: --record needs --session");
        return 2;
    };
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("shellgate sandbox: cannot find the shellgate executable: {e}");
            record(homes, session, &a.command, EXIT_CANNOT_CONFINE);
            return EXIT_CANNOT_CONFINE as u8;
        }
    };
    let mut cmd = Command::new(exe);
    cmd.arg("--home").arg(&homes.gate).arg("sandbox");
    cmd.arg("--session").arg(session);
    if let Some(p) = &a.project_dir {
        cmd.arg("--project-dir").arg(p);
    }
    cmd.arg("--profile").arg(a.profile.name());
    if a.network {
        cmd.arg("--network");
    }
    cmd.arg("--").args(&a.command);
    // The repository as the run finds it (compared once every process of
    // the run has ended: `run_watch`).
    let watched = project_dir(homes, a)
        .ok()
        .map(|p| run_watch::RunWatch::before(&p));
    // The confined run must not outlive this parent, whose check after the
    // run is what removes what it planted (rt6 F7: a host's timeout or
    // interrupt sent SIGTERM to this parent only; the run slept, then wrote
    // `.git/commondir` and `.mcp.json`, and nothing looked). It dies with
    // the parent, and the signals that would end the parent are passed to
    // it instead, so the check still runs once it has ended.
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: prctl and getppid are async-signal-safe; nothing else runs
        // between fork and exec.
        unsafe {
            let parent = libc::getpid();
            cmd.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                if libc::getppid() != parent {
                    return Err(std::io::Error::other("the parent ended"));
                }
                Ok(())
            });
        }
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("shellgate sandbox: cannot start the sandbox: {e}");
            record(homes, session, &a.command, EXIT_CANNOT_CONFINE);
            return EXIT_CANNOT_CONFINE as u8;
        }
    };
    #[cfg(unix)]
    forward_signals_to(child.id());
    let status = match child.wait() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("shellgate sandbox: cannot wait for the sandbox: {e}");
            record(homes, session, &a.command, EXIT_CANNOT_CONFINE);
            return EXIT_CANNOT_CONFINE as u8;
        }
    };
    let mut code = exit_code(status);
    let left = watched.map(|w| w.after_run()).unwrap_or_default();
    if !left.is_empty() {
        for why in &left {
            eprintln!(
                "shellgate sandbox: the run left something for later, unconfined tools: {why}"
            );
        }
        eprintln!(
            "shellgate sandbox: the run counts as failed; the next identical call asks a human"
        );
        if code == 0 {
            code = EXIT_CANNOT_CONFINE as u8;
        }
    }
    if code != 0 {
        record(homes, session, &a.command, i32::from(code));
    }
    code
}

/// The child the signals below are passed to.
#[cfg(unix)]
static FORWARD_TO: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// Seconds a run has to end after a passed-on signal before it is killed
/// (a run that ignores `SIGTERM` would otherwise wait for the host's
/// `SIGKILL`, which ends this parent before its check).
#[cfg(unix)]
const GRACE_SECONDS: libc::c_uint = 3;

#[cfg(unix)]
extern "C" fn forward_signal(sig: libc::c_int) {
    let pid = FORWARD_TO.load(std::sync::atomic::Ordering::SeqCst);
    if pid > 0 {
        // SAFETY: kill and alarm are async-signal-safe.
        unsafe {
            libc::kill(
                pid,
                if sig == libc::SIGALRM {
                    libc::SIGKILL
                } else {
                    sig
                },
            );
            if sig != libc::SIGALRM {
                libc::alarm(GRACE_SECONDS);
            }
        }
    }
}

/// `SIGTERM`, `SIGHUP` and `SIGINT` no longer end this parent: they go to
/// the confined child, which is killed if it has not ended
/// [`GRACE_SECONDS`] later; the parent goes on waiting for it (and then
/// checks the run). Signals already ignored stay ignored.
#[cfg(unix)]
fn forward_signals_to(pid: u32) {
    let Ok(pid) = i32::try_from(pid) else { return };
    FORWARD_TO.store(pid, std::sync::atomic::Ordering::SeqCst);
    for sig in [libc::SIGTERM, libc::SIGHUP, libc::SIGINT, libc::SIGALRM] {
        // SAFETY: sigaction on zeroed structs with a valid handler.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, std::ptr::null(), &mut old) != 0
                || old.sa_sigaction == libc::SIG_IGN
            {
                continue;
            }
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = forward_signal as *const () as usize;
            sa.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

fn exit_code(status: std::process::ExitStatus) -> u8 {
    if let Some(c) = status.code() {
        return (c & 0xff) as u8;
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return (128 + sig).clamp(0, 255) as u8;
        }
    }
    1
}

/// The call a sandboxed run stands for: the `bash -c` string, or the
/// command words quoted for a shell.
pub fn call_text(command: &[OsString]) -> String {
    match command {
        [sh, c, text, ..]
            if Path::new(sh).file_name().is_some_and(|n| n == "bash") && c == "-c" =>
        {
            text.to_string_lossy().into_owned()
        }
        _ => command
            .iter()
            .map(|w| sh_quote(&w.to_string_lossy()))
            .collect::<Vec<_>>()
            .join(" "),
    }
}

/// Record that the sandboxed run of `command` in the current directory
/// failed with `status` (best effort: a warning when it cannot be saved).
fn record(homes: &Homes, session: &str, command: &[OsString], status: i32) {
    let cwd = std::env::current_dir()
        .ok()
        .map(|c| shellgate_shell::paths::normalize(&c.to_string_lossy()));
    if let Err(e) = record_failure(homes, session, &call_text(command), cwd.as_deref(), status) {
        eprintln!("shellgate sandbox: warning: cannot record the failed run: {e}");
    }
}

/// Record a failed sandboxed run of a call (session, shell command, cwd):
/// the next identical call asks as before (SPEC §18). Host adapters that
/// see a tool's result (a PostToolUse event) can call this for a run that
/// was wrapped without `--record`.
pub fn record_failure(
    homes: &Homes,
    session: &str,
    command: &str,
    cwd: Option<&str>,
    status: i32,
) -> anyhow::Result<()> {
    let db = StateDb::open(&homes.db_path())?;
    db.record_sandbox_failure(session, SHELL_TOOL, command, cwd, status)?;
    Ok(())
}
