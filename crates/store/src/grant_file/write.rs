//! Writers: an exclusive advisory lock on `<file>.lock`, re-read, edit the
//! parsed document in place (unknown keys survive), write a temporary
//! sibling, fsync it, rename it over the original, fsync the directory.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

use fs2::FileExt;
use serde_json::{Map, Value};
use shellgate_policy::model::{Audience, Os};
use shellgate_shell::paths;

use super::format::{entry_grant, grant_json, normalize_entries};
use super::quarantine::read_locked;
use super::{io_err, parent_dir, suffixed, AddReport, Grant, Quarantine, StoreError};

/// Exclusive advisory lock on `<path>.lock`, released on drop.
pub(super) struct LockGuard(File);

impl Drop for LockGuard {
    fn drop(&mut self) {
        let _ = FileExt::unlock(&self.0);
    }
}

pub(super) fn lock(path: &Path) -> Result<LockGuard, StoreError> {
    let lock_path = suffixed(path, ".lock");
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&lock_path)
        .map_err(|e| io_err("open lock file", &lock_path, e))?;
    FileExt::lock_exclusive(&file).map_err(|e| io_err("lock", &lock_path, e))?;
    Ok(LockGuard(file))
}

/// Lock, re-read (quarantining as needed), let `edit` change the root object
/// and report whether it did, and write the result atomically if so.
pub(super) fn modify<R>(
    path: &Path,
    edit: impl FnOnce(&mut Map<String, Value>) -> (R, bool),
) -> Result<(R, Option<Quarantine>), StoreError> {
    let dir = parent_dir(path);
    fs::create_dir_all(dir).map_err(|e| io_err("create directory", dir, e))?;
    let _lock = lock(path)?;
    let (mut doc, quarantined) = read_locked(path)?;
    let (result, changed) = edit(&mut doc.root);
    if changed {
        normalize_entries(&mut doc.root);
        write_atomic(path, &doc.root)?;
    }
    Ok((result, quarantined))
}

/// Write the document to a temporary sibling, fsync it, rename it over
/// `path`, then fsync the directory.
pub(super) fn write_atomic(path: &Path, root: &Map<String, Value>) -> Result<(), StoreError> {
    let mut text = serde_json::to_string_pretty(root)
        .map_err(|e| io_err("serialize", path, io::Error::other(e)))?;
    text.push('\n');
    let tmp = suffixed(path, ".tmp");
    // Only the lock holder uses this name; a leftover from a crash is stale.
    match fs::remove_file(&tmp) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_err("remove stale temporary file", &tmp, e)),
    }
    let written = (|| {
        let mut file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        if let Ok(meta) = fs::metadata(path) {
            // Keep the original's permissions (the file may be private).
            let _ = file.set_permissions(meta.permissions());
        }
        file.write_all(text.as_bytes())?;
        file.sync_all()
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(io_err("write", &tmp, e));
    }
    if let Err(e) = fs::rename(&tmp, path) {
        let _ = fs::remove_file(&tmp);
        return Err(io_err("replace", path, e));
    }
    sync_dir(parent_dir(path));
    Ok(())
}

/// Make a rename durable. Best effort: the new content is already in place,
/// and some platforms cannot open directories.
pub(super) fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

/// `createdAt` for a new grant: UTC, seconds, `+00:00`.
pub(super) fn now_created_at() -> String {
    let t = time::OffsetDateTime::now_utc();
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}+00:00",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    )
}

/// The object at `map[key]`, created (or replacing a non-object) if needed.
pub(super) fn child_object<'a>(
    map: &'a mut Map<String, Value>,
    key: &str,
) -> &'a mut Map<String, Value> {
    let slot = map
        .entry(key.to_string())
        .or_insert_with(|| Value::Object(Map::new()));
    if !slot.is_object() {
        *slot = Value::Object(Map::new());
    }
    match slot {
        Value::Object(m) => m,
        _ => unreachable!("the slot was just made an object"),
    }
}

/// Add grants `(verb, directory)` for `audience`/`tool`, normalizing them
/// (§6.1). Grants already present (§6.1 equality) are left alone, keeping
/// their `createdAt`; if nothing is new the file is not rewritten.
pub fn add(
    path: &Path,
    audience: Audience,
    tool: &str,
    entries: &[(String, Option<String>)],
    os: Os,
) -> Result<AddReport, StoreError> {
    let tool = tool.trim();
    if tool.is_empty() {
        return Err(StoreError::Blank {
            path: path.to_path_buf(),
            what: "tool name",
        });
    }
    let mut wanted = Vec::with_capacity(entries.len());
    for (verb, dir) in entries {
        let verb = verb.trim();
        if verb.is_empty() {
            return Err(StoreError::Blank {
                path: path.to_path_buf(),
                what: "verb",
            });
        }
        let dir = dir.as_deref().and_then(paths::normalize_stored_dir);
        wanted.push((verb.to_string(), dir));
    }

    let ((added, already_present), quarantined) = modify(path, |root| {
        let mut existing: Vec<Grant> = root
            .get("audiences")
            .and_then(|a| a.get(audience.as_str()))
            .and_then(|t| t.get(tool))
            .and_then(Value::as_array)
            .map(|list| list.iter().filter_map(entry_grant).collect())
            .unwrap_or_default();
        let mut added = Vec::new();
        let mut present = Vec::new();
        let created_at = now_created_at();
        for (verb, dir) in wanted {
            if let Some(g) = existing
                .iter()
                .find(|g| g.same_as(&verb, dir.as_deref(), os))
            {
                present.push(g.clone());
                continue;
            }
            let grant = Grant {
                verb,
                directory: dir,
                created_at: Some(created_at.clone()),
            };
            existing.push(grant.clone());
            added.push(grant);
        }
        if added.is_empty() {
            return ((added, present), false);
        }
        let audiences = child_object(root, "audiences");
        let tools = child_object(audiences, audience.as_str());
        let list = tools
            .entry(tool.to_string())
            .or_insert_with(|| Value::Array(Vec::new()));
        if !list.is_array() {
            *list = Value::Array(Vec::new());
        }
        if let Value::Array(list) = list {
            list.extend(added.iter().map(grant_json));
        }
        ((added, present), true)
    })?;
    Ok(AddReport {
        added,
        already_present,
        quarantined,
    })
}

/// Remove the grants of `audience`/`tool` for which `pred` holds and return
/// them (as stored). An emptied tool list, and then an emptied audience,
/// are removed. Nothing matched ⇒ the file is not rewritten.
pub fn remove<F: Fn(&Grant) -> bool>(
    path: &Path,
    audience: Audience,
    tool: &str,
    pred: F,
) -> Result<Vec<Grant>, StoreError> {
    let (removed, _) = modify(path, |root| {
        let mut removed = Vec::new();
        let Some(Value::Object(audiences)) = root.get_mut("audiences") else {
            return (removed, false);
        };
        let Some(Value::Object(tools)) = audiences.get_mut(audience.as_str()) else {
            return (removed, false);
        };
        let Some(Value::Array(list)) = tools.get_mut(tool) else {
            return (removed, false);
        };
        list.retain(|v| match entry_grant(v) {
            Some(g) if pred(&g) => {
                removed.push(g);
                false
            }
            _ => true,
        });
        if removed.is_empty() {
            return (removed, false);
        }
        if list.is_empty() {
            tools.shift_remove(tool);
        }
        if tools.is_empty() {
            audiences.shift_remove(audience.as_str());
        }
        (removed, true)
    })?;
    Ok(removed)
}

/// Remove every grant of `tool` in all three audiences; returns how many
/// entries were removed. Emptied audiences are removed.
pub fn remove_all_for_tool(path: &Path, tool: &str) -> Result<usize, StoreError> {
    let (count, _) = modify(path, |root| {
        let Some(Value::Object(audiences)) = root.get_mut("audiences") else {
            return (0, false);
        };
        let mut count = 0;
        let mut changed = false;
        for audience in Audience::ALL {
            let Some(Value::Object(tools)) = audiences.get_mut(audience.as_str()) else {
                continue;
            };
            let Some(list) = tools.shift_remove(tool) else {
                continue;
            };
            count += list.as_array().map_or(0, Vec::len);
            changed = true;
            if tools.is_empty() {
                audiences.shift_remove(audience.as_str());
            }
        }
        (count, changed)
    })?;
    Ok(count)
}
