//! Facts about the file system the policy needs: whether a directory
//! exists, and the symlink-segment rule of SPEC §5.4.

use shellgate_shell::paths::is_within;

/// True when some existing segment strictly below `root` down to and
/// including `child` is a symbolic link, or cannot be inspected. Segments
/// that do not exist end the walk (nothing below them exists either).
/// `child` must be within `root`.
pub fn symlink_between(root: &str, child: &str) -> bool {
    if child == root {
        return false;
    }
    let rest = if root == "/" {
        &child[1..]
    } else {
        match child.get(root.len() + 1..) {
            Some(r) => r,
            None => return false,
        }
    };
    let mut current = if root == "/" {
        String::new()
    } else {
        root.to_string()
    };
    for seg in rest.split('/').filter(|s| !s.is_empty()) {
        current.push('/');
        current.push_str(seg);
        match std::fs::symlink_metadata(&current) {
            Ok(meta) => {
                if meta.file_type().is_symlink() {
                    return true;
                }
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return false,
            Err(_) => return true,
        }
    }
    false
}

/// Containment for grants, safe spaces, zones and roots (SPEC §5.4):
/// lexically within and no symlink segment between.
pub fn contains(root: &str, child: &str) -> bool {
    is_within(child, root) && !symlink_between(root, child)
}

/// Whether an existing path is a directory (following links). Anything that
/// cannot be inspected counts as "not a directory".
pub fn is_dir(path: &str) -> bool {
    std::path::Path::new(path).is_dir()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symlink_segments_break_containment() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().to_str().unwrap().to_string();
        std::fs::create_dir(t.path().join("real")).unwrap();
        std::os::unix::fs::symlink(t.path().join("real"), t.path().join("link")).unwrap();
        assert!(contains(&root, &format!("{root}/real/x")));
        assert!(!contains(&root, &format!("{root}/link")));
        assert!(!contains(&root, &format!("{root}/link/deeper")));
        assert!(contains(&root, &format!("{root}/missing/deeper")));
    }
}
