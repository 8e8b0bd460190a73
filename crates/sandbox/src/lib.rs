//! OS sandbox for shellgate (SPEC §18, §18.1).
//!
//! A [`Confinement`] says what a command may touch: it is built from a
//! [`Profile`] (`read`, `edit`, `build`), the project directory, the session
//! directory inside the gate's home, the home directory, extra writable
//! directories and whether the network is granted. [`exec`] applies it to the
//! calling process and runs the command: on macOS one `exec`; on Linux the
//! confined process waits for a PID namespace's init that runs the command,
//! so that nothing the command starts outlives it (no daemon, nothing left
//! behind).
//!
//! # Linux
//!
//! Landlock (ABI 6 or later) is the allow-list: reads everywhere but `/dev`
//! (where only the terminal and the harmless character devices are granted)
//! and the homes (the caller's, `/root`, `/home/*`) and `/run/user`,
//! `/run/secrets`, `/run/containers`, of which only the toolchains, caches
//! and tools' configuration (`data::HOME_READABLE`), the `PATH` entries and
//! the project's surroundings are read (rt6: an allow-list, not the list of
//! secrets below, which missed every tool it did not name),
//! writes only below the writable roots, signals and abstract unix sockets
//! scoped to the sandbox, and no `ptrace` of (nor `/proc/<pid>/…` access to)
//! processes outside. Landlock grants a right on a whole subtree and cannot
//! take it back below, so the exceptions are made in a private mount namespace
//! (inside a new user namespace, so that nothing the sandbox mounts is visible
//! outside and the sandboxed process has no capability over the host):
//!
//! * write-protected paths inside a writable root (`.git/config`, `.git/hooks`,
//!   `.git/info`, `.git/modules/…`, the `.git` file of a worktree, `.claude/`,
//!   `.codex/`, `.gemini/`, `.mcp.json`, `core.hooksPath`, host settings below
//!   the home) are bind-mounted read-only over themselves. A protected
//!   directory that does not exist yet gets an empty placeholder directory
//!   first (an empty directory is invisible to git and inert for the hosts),
//!   so the name cannot be created inside the sandbox;
//! * every directory between a writable root and a protected path (the root
//!   itself, `.git`, `.git/modules`, …) is bind-mounted onto itself: a mount
//!   point cannot be renamed or removed (`EBUSY`), so `mv .git .git.old` and
//!   recreating `.git/hooks` fails;
//! * secrets (SPEC §15.3/§15.19: `~/.ssh`, `~/.aws`, …, `/etc/shadow`, the
//!   gate's home except the session directory, and secret-looking files in the
//!   project found by a bounded walk) are covered by an empty read-only file or
//!   directory;
//! * without the network grant the command runs in a new network namespace
//!   (only its own loopback, which is brought up); unix sockets are refused in
//!   every profile by a seccomp filter (`socket(AF_UNIX)`, datagram
//!   `socketpair`), so the docker socket, the D-Bus bus, ssh-agent or tmux
//!   cannot be reached even with the network granted. The same filter refuses
//!   `TIOCSTI`/`TIOCLINUX` (typing into the terminal), `io_uring` (which would
//!   bypass the filter), the kernel keyrings, `bpf`, `userfaultfd`,
//!   `perf_event_open`, module and kexec calls, and non-native system call
//!   ABIs;
//! * every mount is made read-only and only the writable roots are attached
//!   back writable, so what Landlock does not govern (`chmod`, `chown`,
//!   `utimes`, extended attributes) cannot change anything outside them;
//!   `/dev/shm` is a fresh private tmpfs;
//! * all capabilities are dropped, `no_new_privs` is set, and file
//!   descriptors above 2 are closed on `exec` (a directory descriptor opened
//!   before the mounts would walk the unprotected tree); a directory on
//!   standard input/output/error is refused.
//!
//! Nothing here can be undone by the sandboxed process: Landlock and seccomp
//! are irreversible, the mounts belong to a namespace it has no capability
//! over, and Landlock forbids it to mount or unmount anything.
//!
//! When the kernel cannot do all of this (no Landlock or an ABI below 6, no
//! user namespaces, a mount refused), [`exec`] refuses to run the command and
//! returns an error whose [`SandboxError::exit_code`] is
//! [`EXIT_CANNOT_CONFINE`] (125).
//!
//! # Known limits (Linux)
//!
//! * An absent `.mcp.json` or an absent `.git` cannot be kept from being
//!   created (no kernel mechanism denies one name in a writable directory
//!   without a placeholder on the host, and an empty file there would change
//!   what the hosts and git do); [`Confinement::notes`] says so. Protected
//!   names below subdirectories (`src/.claude/`) are not covered either: the
//!   static policy stays the first line for them. Repositories below the
//!   project root that the bounded walk finds (`r1/.git`, a gitfile) have
//!   their config, hooks, info, modules and worktrees protected like the
//!   root's; one created by the run itself is not, and neither is a
//!   `.git/commondir` or an index entry (a gitlink, skip-worktree): the
//!   parent of `shellgate sandbox --record` compares the repository after
//!   the run, removes a planted `commondir` and fails the run.
//! * Git hook managers' files, editors' task files and direnv's `.envrc`
//!   (`.husky/`, `.githooks/`, `.vscode/`, `.idea/`, `.devcontainer/`,
//!   `.pre-commit-config.yaml`, `lefthook.yml`) are read-only only where
//!   they already exist (no placeholder).
//! * Placeholders are real: empty `.claude/`, `.codex/`, `.gemini/`,
//!   `.git/hooks/`, `.git/info/` (and the `core.hooksPath` chain) appear in
//!   the project on the first run and stay.
//! * Hard links that already join a project file to a file outside are
//!   written through (new ones cannot be made: the project is its own mount).
//! * The system temp directory is shared with the host (SPEC §18); host
//!   processes' files there are writable. `/dev/shm` is private.
//! * Under `build`, writable caches (e.g. `~/.cargo/registry`) can be
//!   poisoned for later builds outside the sandbox.
//! * The secret scan of the project is bounded (20,000 entries, depth 64,
//!   dependency directories and caches skipped: a `.env` inside
//!   `node_modules` or `vendor` stays readable); a project beyond the bound
//!   is refused (exit 125, the next call asks). Without the network,
//!   environment variables named like credentials (`*TOKEN*`, `*SECRET*`,
//!   `*PASSW*`, `*_KEY`, …) are removed; with it they pass (a private
//!   registry may need them). Other processes' `/proc/<pid>/cmdline` stays
//!   readable.
//! * Unix sockets are refused entirely, also between the command's own
//!   processes; 32-bit (i386) binaries are killed by the seccomp filter.
//!
//! # macOS
//!
//! [`Confinement::seatbelt_profile`] renders the same rules as a Seatbelt
//! profile for `sandbox-exec -p`; paths are matched lexically there, so absent
//! protected names need no placeholder. The text is unit-tested on every
//! platform; running it needs macOS.

mod data;
mod plan;
mod seatbelt;

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "macos")]
mod macos;

use std::convert::Infallible;
use std::ffi::OsString;

pub use data::{is_secret_file_name, TOOL_CONFIG_FILES};
pub use plan::{CacheLayer, Confinement, ConfinementBuilder, Guard, Hidden, Kind, Profile};

/// Exit status when the sandbox refuses to run the command because it cannot
/// confine it (unsupported kernel, invalid plan, a setup step refused).
/// shellgate uses 126 for "denied" and 0/10/11 for `check` decisions.
pub const EXIT_CANNOT_CONFINE: i32 = 125;
/// Exit status when the command could not be executed (as a shell does).
pub const EXIT_CANNOT_EXEC: i32 = 126;
/// Exit status when the command was not found (as a shell does).
pub const EXIT_NOT_FOUND: i32 = 127;

/// What the running system offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Support {
    /// `"landlock+userns+seccomp"` on Linux, `"seatbelt"` on macOS.
    pub mechanism: &'static str,
    /// The kernel's Landlock ABI version (Linux).
    pub landlock_abi: Option<i32>,
}

/// Why the running system cannot confine a command.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct Unsupported {
    /// A sentence for a human.
    pub reason: String,
}

impl Unsupported {
    pub(crate) fn new(reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
        }
    }
}

/// Errors of this crate.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The kernel cannot confine the command as the profile needs.
    #[error("the kernel cannot confine this command: {0}")]
    Unsupported(#[from] Unsupported),
    /// The confinement asked for is refused (shallow project directory,
    /// a protected path that is a symlink, …).
    #[error("refused: {0}")]
    Plan(String),
    /// A setup step failed; nothing was run.
    #[error("sandbox setup failed ({step}): {source}")]
    Setup {
        /// What was being done.
        step: String,
        /// The system's answer.
        source: std::io::Error,
    },
    /// The command itself could not be executed (after confinement).
    #[error("cannot execute {program}: {source}")]
    Exec {
        /// The program name as given.
        program: String,
        /// The system's answer.
        source: std::io::Error,
    },
}

impl SandboxError {
    /// The exit status a wrapper should use for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            SandboxError::Exec { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                EXIT_NOT_FOUND
            }
            SandboxError::Exec { .. } => EXIT_CANNOT_EXEC,
            _ => EXIT_CANNOT_CONFINE,
        }
    }

    pub(crate) fn setup(step: impl Into<String>, source: std::io::Error) -> Self {
        SandboxError::Setup {
            step: step.into(),
            source,
        }
    }
}

/// Whether this system can confine commands. On Linux this checks the
/// Landlock ABI and tries the namespaces in a short-lived child process (about
/// a millisecond); [`exec`] checks again by doing, and fails closed.
pub fn support() -> Result<Support, Unsupported> {
    #[cfg(target_os = "linux")]
    {
        linux::support()
    }
    #[cfg(target_os = "macos")]
    {
        macos::support()
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    {
        Err(Unsupported::new("no sandbox for this operating system"))
    }
}

/// Confines the calling process as `confinement` says and replaces it with
/// `argv` (looked up in `PATH` like a shell does). Returns only on failure;
/// nothing of `argv` has run then. On Linux the calling process must be
/// single-threaded (user namespaces require it).
pub fn exec(confinement: &Confinement, argv: &[OsString]) -> Result<Infallible, SandboxError> {
    if argv.is_empty() {
        return Err(SandboxError::Plan("no command given".into()));
    }
    #[cfg(target_os = "linux")]
    {
        linux::exec(confinement, argv)
    }
    #[cfg(target_os = "macos")]
    {
        macos::exec(confinement, argv)
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    {
        let _ = confinement;
        Err(Unsupported::new("no sandbox for this operating system").into())
    }
}
