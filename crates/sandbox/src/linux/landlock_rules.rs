//! The Landlock ruleset: the allow-list of the file system, and the scopes.

use std::fs;
use std::path::{Path, PathBuf};

use landlock::{
    make_bitflags, Access, AccessFs, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd,
    Ruleset, RulesetAttr, RulesetCreated, RulesetCreatedAttr, RulesetStatus, Scope, ABI,
};

use crate::plan::Confinement;
use crate::{SandboxError, Unsupported};

/// The ABI whose rights and scopes are asked for (see `MIN_LANDLOCK_ABI`).
const ABI_USED: ABI = ABI::V6;

/// Character devices a command may read and write (by path; descriptors
/// already open, like the terminal on stdin, keep working anyway).
const DEV_READ_WRITE: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/tty",
    "/dev/ptmx",
];
const DEV_READ: &[&str] = &["/dev/random", "/dev/urandom"];

fn landlock_err(e: impl std::fmt::Display) -> SandboxError {
    Unsupported::new(format!("Landlock refused the ruleset: {e}")).into()
}

fn add(
    rs: RulesetCreated,
    path: &Path,
    access: BitFlags<AccessFs>,
) -> Result<RulesetCreated, SandboxError> {
    let fd = PathFd::new(path)
        .map_err(|e| SandboxError::Plan(format!("cannot open {}: {e}", path.display())))?;
    let is_dir = fs::metadata(path).map(|m| m.is_dir()).unwrap_or(false);
    let access = if is_dir {
        access
    } else {
        access & AccessFs::from_file(ABI_USED)
    };
    rs.add_rule(PathBeneath::new(fd, access))
        .map_err(landlock_err)
}

/// Read rules for every entry of `dir` (a real directory), except `/dev`,
/// the `closed` directories and what lies in them; a directory above a
/// closed one is entered instead. Entries are judged by where they lead (a
/// rule is on the inode a path resolves to): a link into or above a closed
/// directory gets no rule, and the real directory is reached by the walk.
fn add_reads_around(
    mut rs: RulesetCreated,
    dir: &Path,
    closed: &[PathBuf],
    read: BitFlags<AccessFs>,
) -> Result<RulesetCreated, SandboxError> {
    let entries = fs::read_dir(dir)
        .map_err(|e| SandboxError::setup(format!("listing {}", dir.display()), e))?;
    for entry in entries.flatten() {
        let p = entry.path();
        if p == Path::new("/dev") {
            continue;
        }
        // `dir` is a real directory: only a link leads elsewhere.
        let link = entry.file_type().map_or(true, |t| t.is_symlink());
        let real = if link {
            match fs::canonicalize(&p) {
                Ok(r) => r,
                Err(_) => continue, // dangling symlink: it stays denied
            }
        } else {
            p.clone()
        };
        if closed.iter().any(|c| real.starts_with(c)) {
            continue;
        }
        if closed.iter().any(|c| c.starts_with(&real)) {
            if real == p {
                rs = add_reads_around(rs, &p, closed, read)?;
            }
            continue;
        }
        if PathFd::new(&p).is_err() {
            continue; // unopenable: it stays denied
        }
        rs = add(rs, &p, read)?;
    }
    Ok(rs)
}

pub(crate) fn restrict(c: &Confinement) -> Result<(), SandboxError> {
    let all = AccessFs::from_all(ABI_USED);
    let read = AccessFs::from_read(ABI_USED);
    let write_root = all & !make_bitflags!(AccessFs::{MakeChar | MakeBlock});
    let device = make_bitflags!(AccessFs::{ReadFile | WriteFile | Truncate | IoctlDev});

    let mut rs = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(all)
        .map_err(landlock_err)?
        .scope(Scope::from_all(ABI_USED))
        .map_err(landlock_err)?
        .create()
        .map_err(landlock_err)?;

    // Reads everywhere, except /dev where only harmless devices are granted
    // (a raw disk would bypass every other rule for a root caller), and
    // except the closed directories (the homes, rt6), where only what the
    // plan opens is read.
    rs = add(rs, Path::new("/"), make_bitflags!(AccessFs::ReadDir))?;
    rs = add_reads_around(rs, Path::new("/"), &c.read_closed, read)?;
    for p in &c.read_open {
        if PathFd::new(p).is_ok() {
            rs = add(rs, p, read)?;
        }
    }
    for dev in DEV_READ_WRITE {
        if Path::new(dev).exists() {
            rs = add(rs, Path::new(dev), device)?;
        }
    }
    for dev in DEV_READ {
        if Path::new(dev).exists() {
            rs = add(rs, Path::new(dev), make_bitflags!(AccessFs::ReadFile))?;
        }
    }
    if Path::new("/dev/pts").is_dir() {
        rs = add(rs, Path::new("/dev/pts"), device | AccessFs::ReadDir)?;
    }
    for w in &c.writable {
        rs = add(rs, w, write_root)?;
    }
    // An overlaid cache (read-only if the overlay was refused).
    for l in &c.cache_layers {
        rs = add(rs, &l.target, write_root)?;
    }
    let shm = Path::new(super::mounts::SHM);
    if shm.is_dir() {
        rs = add(rs, shm, write_root)?;
    }

    let status = rs.restrict_self().map_err(landlock_err)?;
    if status.ruleset != RulesetStatus::FullyEnforced {
        return Err(Unsupported::new(format!(
            "Landlock enforced the ruleset only partially ({:?})",
            status.ruleset
        ))
        .into());
    }
    if !status.no_new_privs {
        return Err(Unsupported::new("no_new_privs could not be set").into());
    }
    Ok(())
}
