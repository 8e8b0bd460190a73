//! Linux: user + mount (+ network) namespaces, Landlock, seccomp, then `execvp`.

mod landlock_rules;
mod mounts;
mod seccomp;
mod sys;

use std::convert::Infallible;
use std::ffi::{CString, OsString};
use std::fs;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::Path;

use crate::plan::{Confinement, Kind};
use crate::{SandboxError, Support, Unsupported};

/// Landlock ABI needed: 6 brings the signal and abstract-unix-socket scopes;
/// below it a sandboxed process could signal the user's other processes.
pub(crate) const MIN_LANDLOCK_ABI: i32 = 6;

fn arch_supported() -> Result<(), Unsupported> {
    if cfg!(any(target_arch = "x86_64", target_arch = "aarch64")) {
        Ok(())
    } else {
        Err(Unsupported::new(
            "the seccomp filter is only written for x86_64 and aarch64",
        ))
    }
}

fn check_landlock() -> Result<i32, Unsupported> {
    let abi = sys::landlock_abi();
    if abi <= 0 {
        return Err(Unsupported::new(
            "Landlock is not available (not built into the kernel or not enabled at boot: add landlock to the lsm= boot parameter)",
        ));
    }
    if abi < MIN_LANDLOCK_ABI {
        return Err(Unsupported::new(format!(
            "the kernel's Landlock ABI is {abi}; {MIN_LANDLOCK_ABI} or later (Linux 6.12) is needed to keep signals and abstract unix sockets inside the sandbox"
        )));
    }
    Ok(abi)
}

pub(crate) fn support() -> Result<Support, Unsupported> {
    arch_supported()?;
    let abi = check_landlock()?;
    sys::probe_namespaces()?;
    Ok(Support {
        mechanism: "landlock+userns+seccomp",
        landlock_abi: Some(abi),
    })
}

/// Without the network a credential in the environment has no use inside
/// the sandbox, and a command could print it for the agent to read
/// (helper-24 F5): variables named like secrets are removed. (The process
/// is single-threaded here: `exec` runs on the main thread before any
/// other thread exists.)
fn drop_secret_variables() {
    let names: Vec<OsString> = std::env::vars_os()
        .filter(|(k, v)| {
            k.to_str().is_some_and(shellgate_secrets::credential_name)
                || v.to_str().is_some_and(shellgate_secrets::credential_value)
        })
        .map(|(k, _)| k)
        .collect();
    for k in names {
        std::env::remove_var(k);
    }
}

pub(crate) fn exec(c: &Confinement, argv: &[OsString]) -> Result<Infallible, SandboxError> {
    arch_supported()?;
    check_landlock()?;
    sys::check_stdio()?;
    let argv_c = argv
        .iter()
        .map(|a| CString::new(a.as_bytes()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| SandboxError::Plan("an argument contains a NUL byte".into()))?;
    let cwd = std::env::current_dir()
        .map_err(|e| SandboxError::setup("reading the working directory", e))?;

    prepare_host(c)?;
    sys::enter_namespaces(!c.network)?;
    mounts::apply(c)?;
    // The working directory still points into the mounts as they were before
    // (a pinned directory is a new mount on top): enter it again by path.
    std::env::set_current_dir(&cwd).map_err(|e| {
        SandboxError::setup(
            format!(
                "entering the working directory {} inside the sandbox",
                cwd.display()
            ),
            e,
        )
    })?;
    if !c.network {
        sys::loopback_up()
            .map_err(|e| SandboxError::setup("bringing up the loopback interface", e))?;
    }
    sys::drop_capabilities()?;
    landlock_rules::restrict(c)?;
    seccomp::install()?;
    sys::close_inherited_fds()
        .map_err(|e| SandboxError::setup("closing inherited descriptors", e))?;
    if !c.network {
        drop_secret_variables();
    }
    if c.private_temp {
        std::env::set_var("TMPDIR", &c.temp_dir);
    }
    let err = sys::exec_in_pid_namespace(&argv_c);
    Err(SandboxError::Exec {
        program: argv[0].to_string_lossy().into_owned(),
        source: err,
    })
}

/// Changes made on the host before the sandbox starts: the session directory,
/// the gate's home when it must be covered, and placeholders for absent
/// protected names (empty directories, or an empty `.git/config`).
fn prepare_host(c: &Confinement) -> Result<(), SandboxError> {
    let mut dirs = fs::DirBuilder::new();
    dirs.recursive(true).mode(0o700);
    if c.create_gate_home {
        dirs.create(&c.gate_home)
            .map_err(|e| SandboxError::setup(format!("creating {}", c.gate_home.display()), e))?;
    }
    if let Some(s) = &c.session_dir {
        dirs.create(s)
            .map_err(|e| SandboxError::setup(format!("creating {}", s.display()), e))?;
        if c.private_temp {
            let rel = c.temp_dir.strip_prefix(s).map_err(|_| {
                SandboxError::Plan(format!(
                    "{} is not in the session directory",
                    c.temp_dir.display()
                ))
            })?;
            sys::make_dirs_nofollow(s, rel).map_err(|e| {
                SandboxError::setup(format!("creating {}", c.temp_dir.display()), e)
            })?;
        }
    }
    // The layers' directories lie in the session directory, which sandboxed
    // runs may write: created one component at a time without following a
    // link planted there (else this unconfined step would create
    // directories wherever a link points).
    if let Some(s) = &c.session_dir {
        for l in &c.cache_layers {
            for d in [&l.upper, &l.work] {
                let rel = d.strip_prefix(s).map_err(|_| {
                    SandboxError::Plan(format!("{} is not in the session directory", d.display()))
                })?;
                sys::make_dirs_nofollow(s, rel)
                    .map_err(|e| SandboxError::setup(format!("creating {}", d.display()), e))?;
            }
        }
    }
    for g in c.guards.iter().filter(|g| g.placeholder) {
        let made = match g.kind {
            Kind::Dir => fs::DirBuilder::new()
                .recursive(true)
                .mode(0o755)
                .create(&g.path),
            Kind::File => fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o644)
                .open(&g.path)
                .map(|_| ()),
        };
        match made {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => {
                return Err(SandboxError::setup(
                    format!("creating the placeholder {}", g.path.display()),
                    e,
                ))
            }
        }
    }
    for g in &c.guards {
        check_kind(&g.path, g.kind)?;
    }
    Ok(())
}

/// The guarded path must still be what the plan saw (not a symlink).
fn check_kind(p: &Path, kind: Kind) -> Result<(), SandboxError> {
    let m = fs::symlink_metadata(p)
        .map_err(|e| SandboxError::setup(format!("checking {}", p.display()), e))?;
    let ok = !m.file_type().is_symlink() && (m.is_dir() == (kind == Kind::Dir));
    if ok {
        Ok(())
    } else {
        Err(SandboxError::Plan(format!(
            "{} changed while the sandbox was being set up",
            p.display()
        )))
    }
}
