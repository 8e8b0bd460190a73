//! Files that cannot be used are moved aside under the writer lock: pre-v2
//! shapes to `<file>.v1.bak`, malformed files to `<file>.invalid`.

use std::fs;
use std::io;
use std::path::Path;

use super::format::{classify, Doc, Verdict};
use super::write::sync_dir;
use super::{io_err, parent_dir, suffixed, Quarantine, StoreError};

/// Read the file while holding the lock, moving an unusable file aside.
pub(super) fn read_locked(path: &Path) -> Result<(Doc, Option<Quarantine>), StoreError> {
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((Doc::new_empty(), None)),
        Err(e) => return Err(io_err("read", path, e)),
    };
    match classify(&bytes) {
        Verdict::Ok(doc) => Ok((doc, None)),
        Verdict::TooNew(version) => Err(StoreError::TooNew {
            path: path.to_path_buf(),
            version,
        }),
        Verdict::V1 => {
            let target = suffixed(path, ".v1.bak");
            move_aside(path, &target)?;
            Ok((Doc::new_empty(), Some(Quarantine::V1Backup(target))))
        }
        Verdict::Invalid => {
            let target = suffixed(path, ".invalid");
            move_aside(path, &target)?;
            Ok((Doc::new_empty(), Some(Quarantine::Invalid(target))))
        }
    }
}

/// Rename `path` to `target`, replacing an older file there.
pub(super) fn move_aside(path: &Path, target: &Path) -> Result<(), StoreError> {
    let result = fs::rename(path, target).or_else(|first| {
        // Some platforms refuse to rename over an existing file.
        if fs::symlink_metadata(target).is_ok() {
            fs::remove_file(target).and_then(|()| fs::rename(path, target))
        } else {
            Err(first)
        }
    });
    result.map_err(|source| StoreError::Quarantine {
        path: path.to_path_buf(),
        target: target.to_path_buf(),
        source,
    })?;
    sync_dir(parent_dir(path));
    Ok(())
}

pub(super) fn v1_note(backup: &Path) -> String {
    format!(
        "Note: Your previous approvals were quarantined to '{}' during the v2 schema upgrade.",
        backup.display()
    )
}

pub(super) fn invalid_note(invalid: &Path) -> String {
    format!(
        "Warning: A malformed approvals file was quarantined to '{}'.",
        invalid.display()
    )
}

/// The §11 note lines for quarantined files that exist next to `path`
/// (`<path>.v1.bak`, then `<path>.invalid`).
pub fn quarantine_notes(path: &Path) -> Vec<String> {
    let mut notes = Vec::new();
    let backup = suffixed(path, ".v1.bak");
    if fs::symlink_metadata(&backup).is_ok() {
        notes.push(v1_note(&backup));
    }
    let invalid = suffixed(path, ".invalid");
    if fs::symlink_metadata(&invalid).is_ok() {
        notes.push(invalid_note(&invalid));
    }
    notes
}
