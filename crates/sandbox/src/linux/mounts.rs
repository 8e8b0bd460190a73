//! The mounts that express what Landlock cannot: read-only protected paths
//! inside writable roots, pinned directories, hidden secrets, the covered
//! gate home with the session directory inside it. Runs inside the private
//! mount namespace, so none of it is visible outside.

use std::ffi::CStr;
use std::path::{Path, PathBuf};

use super::sys;
use crate::plan::{depth, Confinement, Kind};
use crate::SandboxError;

const EMPTY_DIR: &CStr = c"empty-dir";
const EMPTY_FILE: &CStr = c"empty-file";
const GATE: &str = "gate";

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Op {
    /// Bind a directory onto itself: a mount point cannot be renamed or removed.
    Pin,
    /// Bind onto itself read-only.
    ReadOnly,
    /// Cover with the empty tree standing for the gate's home.
    GateHome,
    /// Cover with an empty read-only directory or file.
    Hide(Kind),
}

pub(crate) fn apply(c: &Confinement) -> Result<(), SandboxError> {
    let fail = |what: String| move |e| SandboxError::setup(what, e);
    // The session directory, opened before the gate's home is covered.
    let session = match (&c.session_dir, c.hide_gate_home) {
        (Some(s), true) if s.starts_with(&c.gate_home) => {
            let rel = s
                .strip_prefix(&c.gate_home)
                .unwrap_or(Path::new(""))
                .to_path_buf();
            let fd = sys::open_path(s).map_err(fail(format!("opening {}", s.display())))?;
            Some((rel, fd))
        }
        _ => None,
    };

    // One small read-only tmpfs, not attached anywhere, provides the empty
    // directory, the empty file and the skeleton of the gate's home.
    let staging = sys::detached_tmpfs(
        sys::MOUNT_ATTR_NOSUID | sys::MOUNT_ATTR_NODEV | sys::MOUNT_ATTR_NOEXEC,
    )
    .map_err(fail("creating a tmpfs".into()))?;
    sys::mkdir_at(&staging, Path::new("empty-dir"), 0o000)
        .map_err(fail("preparing the tmpfs".into()))?;
    sys::create_file_at(&staging, EMPTY_FILE, 0o000).map_err(fail("preparing the tmpfs".into()))?;
    if c.hide_gate_home {
        sys::mkdir_at(&staging, Path::new(GATE), 0o755)
            .map_err(fail("preparing the tmpfs".into()))?;
        if let Some((rel, _)) = &session {
            let mut p = PathBuf::from(GATE);
            for part in rel.components() {
                p.push(part);
                sys::mkdir_at(&staging, &p, 0o755).map_err(fail("preparing the tmpfs".into()))?;
            }
        }
    }
    sys::set_mount_attrs(&staging, sys::MOUNT_ATTR_RDONLY)
        .map_err(fail("making the tmpfs read-only".into()))?;

    let mut ops: Vec<(usize, Op, &Path)> = Vec::new();
    for p in &c.pins {
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
    // Outer paths first: a later mount on an ancestor would cover earlier ones.
    ops.sort();

    for (_, op, path) in ops {
        let what = || format!("{op:?} {}", path.display());
        match op {
            Op::Pin | Op::ReadOnly => {
                let cpath = sys::cpath(path).map_err(fail(what()))?;
                let tree = sys::clone_tree(libc::AT_FDCWD, &cpath, true).map_err(fail(what()))?;
                if op == Op::ReadOnly {
                    sys::set_mount_attrs(&tree, sys::MOUNT_ATTR_RDONLY).map_err(fail(what()))?;
                }
                sys::move_mount_to(&tree, path).map_err(fail(what()))?;
            }
            Op::GateHome => {
                let gate = std::ffi::CString::new(GATE)
                    .map_err(|_| SandboxError::Plan("bad name".into()))?;
                let tree = sys::clone_tree(std::os::fd::AsRawFd::as_raw_fd(&staging), &gate, false)
                    .map_err(fail(what()))?;
                sys::move_mount_to(&tree, path).map_err(fail(what()))?;
                if let Some((rel, fd)) = &session {
                    let target = path.join(rel);
                    let tree = sys::clone_tree(std::os::fd::AsRawFd::as_raw_fd(fd), c"", true)
                        .map_err(fail(format!(
                            "binding the session directory {}",
                            target.display()
                        )))?;
                    sys::move_mount_to(&tree, &target).map_err(fail(format!(
                        "binding the session directory {}",
                        target.display()
                    )))?;
                }
            }
            Op::Hide(kind) => {
                let name = if kind == Kind::Dir {
                    EMPTY_DIR
                } else {
                    EMPTY_FILE
                };
                let tree = sys::clone_tree(std::os::fd::AsRawFd::as_raw_fd(&staging), name, false)
                    .map_err(fail(what()))?;
                sys::move_mount_to(&tree, path).map_err(fail(what()))?;
            }
        }
    }
    Ok(())
}
