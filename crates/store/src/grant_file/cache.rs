//! A snapshot that is re-read only when the file changed, for `check
//! --batch` and long-lived processes.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::{io_err, Store, StoreError};

/// Identity of the file on disk; any change triggers a reload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
    inode: u64,
    device: u64,
    ctime: (i64, i64),
}

pub(super) fn stamp(path: &Path) -> Result<Option<Stamp>, StoreError> {
    let meta = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_err("inspect", path, e)),
    };
    #[cfg(unix)]
    let (inode, device, ctime) = {
        use std::os::unix::fs::MetadataExt;
        (meta.ino(), meta.dev(), (meta.ctime(), meta.ctime_nsec()))
    };
    #[cfg(not(unix))]
    let (inode, device, ctime) = (0, 0, (0, 0));
    Ok(Some(Stamp {
        len: meta.len(),
        modified: meta.modified().ok(),
        inode,
        device,
        ctime,
    }))
}

/// A [`Store`] that re-reads the file only when its modification time,
/// size, inode (or change time) differ from the last load — for
/// `check --batch` and daemons, which must still see edits (§6.2).
#[derive(Debug)]
pub struct StoreCache {
    path: PathBuf,
    /// `None` = never loaded; `Some(None)` = file was missing.
    stamp: Option<Option<Stamp>>,
    store: Store,
}

impl StoreCache {
    pub fn new(path: impl Into<PathBuf>) -> StoreCache {
        StoreCache {
            path: path.into(),
            stamp: None,
            store: Store::empty(),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The current snapshot, reloaded if the file changed. Errors are not
    /// cached: the next call tries again.
    pub fn get(&mut self) -> Result<&Store, StoreError> {
        let now = stamp(&self.path)?;
        if self.stamp != Some(now) {
            self.store = match now {
                // No file: no grants (nothing to read or quarantine).
                None => Store::empty(),
                Some(_) => Store::load(&self.path)?.0,
            };
            self.stamp = Some(now);
        }
        Ok(&self.store)
    }
}
