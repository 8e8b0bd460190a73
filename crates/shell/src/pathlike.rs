//! Which shell words name paths (SPEC §5.2).

/// File extensions that make a word path-like.
const EXTENSIONS: &[&str] = &[
    "txt", "md", "rst", "json", "jsonl", "yaml", "yml", "toml", "xml", "csv", "tsv", "log", "ini",
    "cfg", "conf", "env", "lock", "rs", "py", "js", "mjs", "cjs", "ts", "tsx", "jsx", "go", "c",
    "h", "cc", "cpp", "hpp", "java", "kt", "rb", "php", "sh", "bash", "zsh", "ps1", "sql", "html",
    "css", "scss", "vue", "svelte", "pem", "key", "crt", "tar", "gz", "tgz", "zip", "bz2", "xz",
    "7z", "png", "jpg", "jpeg", "gif", "svg", "pdf", "wasm", "so", "dylib", "dll", "exe",
];

/// `~`, `.`, `..`, or starting with `/`, `~/`, `./`, `../` (plus Windows
/// drive, UNC and backslash forms under Windows semantics).
pub fn is_anchored(w: &str, windows: bool) -> bool {
    if matches!(w, "~" | "." | "..")
        || w.starts_with('/')
        || w.starts_with("~/")
        || w.starts_with("./")
        || w.starts_with("../")
    {
        return true;
    }
    if windows {
        let b = w.as_bytes();
        if b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' {
            return true;
        }
        if w.starts_with("\\\\") || w.contains('\\') {
            return true;
        }
    }
    false
}

/// A URL (`scheme://…`).
pub fn is_url(w: &str) -> bool {
    match w.find("://") {
        Some(i) if i > 0 => w[..i]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')),
        _ => false,
    }
}

/// Whether a static word value is path-like (§5.2).
pub fn is_path_like(w: &str, windows: bool) -> bool {
    if w.is_empty() || w.starts_with('-') || w.chars().all(|c| c.is_ascii_digit()) {
        return false;
    }
    if is_url(w) {
        return false;
    }
    if let (Some(colon), slash) = (w.find(':'), w.find('/')) {
        if slash.is_none_or(|s| colon < s) && !(windows && is_anchored(w, true)) {
            return false;
        }
    }
    if w.starts_with('@') && w.matches('/').count() == 1 {
        return false;
    }
    if is_sed_expression(w) {
        return false;
    }
    if is_anchored(w, windows) || w.contains('/') {
        return true;
    }
    has_listed_extension(w)
}

fn is_sed_expression(w: &str) -> bool {
    let mut chars = w.chars();
    match (chars.next(), chars.next()) {
        (Some('s'), Some('/')) | (Some('y'), Some('/')) => w.matches('/').count() >= 3,
        _ => false,
    }
}

fn has_listed_extension(w: &str) -> bool {
    let name = w.rsplit('/').next().unwrap_or(w);
    match name.rfind('.') {
        Some(i) if i > 0 => {
            let ext = &name[i + 1..];
            EXTENSIONS.iter().any(|e| e.eq_ignore_ascii_case(ext))
        }
        _ => false,
    }
}

/// Split `NAME=VALUE` where NAME is an identifier.
pub fn name_value(w: &str) -> Option<(&str, &str)> {
    let eq = w.find('=')?;
    let name = &w[..eq];
    let mut cs = name.chars();
    let first = cs.next()?;
    if !(first.is_ascii_alphabetic() || first == '_') {
        return None;
    }
    if !cs.all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    Some((name, &w[eq + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_like_rules() {
        assert!(is_path_like("~", false));
        assert!(is_path_like("src/main.rs", false));
        assert!(is_path_like("notes.txt", false));
        assert!(is_path_like("plugin.sh", false));
        assert!(!is_path_like("in.img", false));
        assert!(!is_path_like("https://x.y/z", false));
        assert!(!is_path_like("host:path/x", false));
        assert!(!is_path_like("HEAD:src/x", false));
        assert!(!is_path_like("@scope/pkg", false));
        assert!(is_path_like("@scope/pkg/x", false));
        assert!(!is_path_like("s/a/b/", false));
        assert!(!is_path_like("123", false));
        assert!(!is_path_like("-o/tmp", false));
        assert!(!is_path_like(".txt", false));
        assert!(is_path_like("C:\\x", true));
        assert!(!is_path_like("HEAD~1", false));
    }

    #[test]
    fn name_values() {
        assert_eq!(name_value("of=/dev/sda"), Some(("of", "/dev/sda")));
        assert_eq!(name_value("1x=y"), None);
        assert_eq!(name_value("--a=b"), None);
    }
}
