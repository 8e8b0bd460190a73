//! The mounts that express what Landlock cannot. Runs inside the private
//! mount namespace, so none of it is visible outside:
//!
//! 1. the writable roots are cloned (detached copies of their mount trees);
//! 2. every mount is made read-only (so that what Landlock does not govern,
//!    such as `chmod`, `chown`, `utimes` and extended attributes, cannot
//!    change anything outside the writable roots either);
//! 3. then, outer paths first: the writable clones are attached back over
//!    their roots, directories are pinned (a mount point cannot be renamed or
//!    removed), protected paths are bound read-only onto themselves, the
//!    gate's home is covered by an empty skeleton that only holds the session
//!    directory's mount point, and secrets are covered by an empty read-only
//!    directory or file;
//! 4. toolchain caches are covered by overlays whose writes stay in the
//!    session (profile `build` without the network).

use std::ffi::{CStr, CString};
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};

use super::sys;
use crate::plan::{depth, Confinement, Kind};
use crate::SandboxError;

const EMPTY_DIR: &str = "empty-dir";
const EMPTY_FILE: &CStr = c"empty-file";
const GATE: &str = "gate";
const NO_SUID_DEV_EXEC: u64 =
    sys::MOUNT_ATTR_NOSUID | sys::MOUNT_ATTR_NODEV | sys::MOUNT_ATTR_NOEXEC;
/// POSIX shared memory: a private, empty `/dev/shm` (the host's holds other
/// processes' shared memory, which a write could corrupt).
pub(crate) const SHM: &str = "/dev/shm";

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Op {
    /// Attach the writable clone number `n` back over its root.
    Writable(usize),
    /// Bind a directory onto itself.
    Pin,
    /// Bind onto itself read-only.
    ReadOnly,
    /// Cover with the skeleton standing for the gate's home.
    GateHome,
    /// Cover with an empty read-only directory or file.
    Hide(Kind),
    /// A fresh writable tmpfs (for `/dev/shm`).
    PrivateTmpfs,
}

pub(crate) fn apply(c: &Confinement) -> Result<(), SandboxError> {
    let fail = |what: String| move |e| SandboxError::setup(what, e);

    // 1. detached copies of the writable roots, taken while they are writable
    let mut clones: Vec<OwnedFd> = Vec::new();
    for w in &c.writable {
        let cw = sys::cpath(w).map_err(fail(format!("cloning {}", w.display())))?;
        clones.push(
            sys::clone_tree(libc::AT_FDCWD, &cw, true)
                .map_err(fail(format!("cloning {}", w.display())))?,
        );
    }

    // One small read-only tmpfs, not attached anywhere, provides the empty
    // directory, the empty file and the skeleton of the gate's home.
    let prep = fail("preparing a tmpfs".into());
    let staging = sys::detached_tmpfs(c"64k", c"0755", NO_SUID_DEV_EXEC)
        .map_err(fail("creating a tmpfs".into()))?;
    sys::mkdir_at(&staging, Path::new(EMPTY_DIR), 0o000).map_err(prep)?;
    sys::create_file_at(&staging, EMPTY_FILE, 0o000).map_err(fail("preparing a tmpfs".into()))?;
    if c.hide_gate_home {
        sys::mkdir_at(&staging, Path::new(GATE), 0o755)
            .map_err(fail("preparing a tmpfs".into()))?;
        if let Some(rel) = c
            .session_dir
            .as_ref()
            .and_then(|s| s.strip_prefix(&c.gate_home).ok())
        {
            let mut p = PathBuf::from(GATE);
            for part in rel.components() {
                p.push(part);
                sys::mkdir_at(&staging, &p, 0o755).map_err(fail("preparing a tmpfs".into()))?;
            }
        }
    }
    sys::set_mount_attrs(&staging, sys::MOUNT_ATTR_RDONLY)
        .map_err(fail("making the tmpfs read-only".into()))?;

    // 2. everything read-only
    sys::set_mount_attrs_at(Path::new("/"), sys::MOUNT_ATTR_RDONLY)
        .map_err(fail("making the file system read-only".into()))?;

    // 3. outer paths first: a later mount on an ancestor would cover earlier ones
    let mut ops: Vec<(usize, Op, &Path)> = Vec::new();
    for (i, w) in c.writable.iter().enumerate() {
        ops.push((depth(w), Op::Writable(i), w));
    }
    for p in c.pins.iter().filter(|p| !c.writable.contains(p)) {
        ops.push((depth(p), Op::Pin, p));
    }
    for g in &c.guards {
        ops.push((depth(&g.path), Op::ReadOnly, &g.path));
    }
    if c.hide_gate_home {
        ops.push((depth(&c.gate_home), Op::GateHome, &c.gate_home));
    }
    for h in &c.hidden {
        ops.push((depth(&h.path), Op::Hide(h.kind), &h.path));
    }
    let shm = Path::new(SHM);
    if shm.is_dir() {
        ops.push((depth(shm), Op::PrivateTmpfs, shm));
    }
    ops.sort();

    for (_, op, path) in ops {
        let what = || format!("{op:?} {}", path.display());
        let tree = match op {
            Op::Writable(i) => {
                let Some(fd) = clones.get(i) else {
                    return Err(SandboxError::Plan("internal: missing clone".into()));
                };
                sys::move_mount_to(fd, path).map_err(fail(what()))?;
                continue;
            }
            Op::Pin | Op::ReadOnly => {
                let cp = sys::cpath(path).map_err(fail(what()))?;
                let tree = sys::clone_tree(libc::AT_FDCWD, &cp, true).map_err(fail(what()))?;
                if op == Op::ReadOnly {
                    sys::set_mount_attrs(&tree, sys::MOUNT_ATTR_RDONLY).map_err(fail(what()))?;
                }
                tree
            }
            Op::GateHome => staged(&staging, GATE).map_err(fail(what()))?,
            Op::Hide(Kind::Dir) => staged(&staging, EMPTY_DIR).map_err(fail(what()))?,
            Op::Hide(Kind::File) => {
                sys::clone_tree(staging.as_raw_fd(), EMPTY_FILE, false).map_err(fail(what()))?
            }
            Op::PrivateTmpfs => sys::detached_tmpfs(
                c"50%",
                c"1777",
                sys::MOUNT_ATTR_NOSUID | sys::MOUNT_ATTR_NODEV,
            )
            .map_err(fail(what()))?,
        };
        sys::move_mount_to(&tree, path).map_err(fail(what()))?;
    }

    // 4. last, toolchain caches as overlays: the real cache below, the
    // command's writes in the session. A cache whose overlay the kernel
    // refuses (an old kernel, an upper layer on a file system overlayfs
    // cannot write to, a layer in use by another run) stays read-only.
    for l in &c.cache_layers {
        if let Ok(fd) = sys::detached_overlay(&l.target, &l.upper, &l.work) {
            let _ = sys::move_mount_to(&fd, &l.target);
        }
    }
    Ok(())
}

fn staged(staging: &OwnedFd, name: &str) -> std::io::Result<OwnedFd> {
    let n =
        CString::new(name).map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
    sys::clone_tree(staging.as_raw_fd(), &n, false)
}
