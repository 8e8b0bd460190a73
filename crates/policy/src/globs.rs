//! Globs as the shell expands them, for the one question that decides
//! safety before the program runs (SPEC §15.12): can this unquoted glob
//! expand to a name that the program will read as an option (`-x`,
//! `--pre=sh`)? The directory is listed; when it cannot be, any pattern
//! that could match a leading `-` counts.

use crate::fs::Fs;

/// Whether `pattern` (one path segment, bash glob syntax) matches `name`.
/// `*` and `?` do not match a leading `.` (bash's default).
pub fn matches(pattern: &str, name: &str) -> bool {
    if name.starts_with('.') && !pattern.starts_with('.') {
        return false;
    }
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    // Iterative matcher with one backtrack point for `*` (bounded work).
    let (mut pi, mut ni) = (0usize, 0usize);
    let (mut star, mut mark) = (None::<usize>, 0usize);
    let mut steps = 0u32;
    while ni < n.len() {
        steps += 1;
        if steps > 100_000 {
            return true; // pathological: assume it matches (fail closed)
        }
        if pi < p.len() {
            match p[pi] {
                '*' => {
                    star = Some(pi);
                    mark = ni;
                    pi += 1;
                    continue;
                }
                '?' => {
                    pi += 1;
                    ni += 1;
                    continue;
                }
                '[' => {
                    if let Some((ok, next)) = class(&p, pi, n[ni]) {
                        if ok {
                            pi = next;
                            ni += 1;
                            continue;
                        }
                    } else if n[ni] == '[' {
                        pi += 1;
                        ni += 1;
                        continue;
                    }
                }
                '\\' if pi + 1 < p.len() => {
                    if p[pi + 1] == n[ni] {
                        pi += 2;
                        ni += 1;
                        continue;
                    }
                }
                c if c == n[ni] => {
                    pi += 1;
                    ni += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some(s) => {
                pi = s + 1;
                mark += 1;
                ni = mark;
            }
            None => return false,
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

/// A bracket expression at `p[i]`: whether `c` is in it, and the index
/// after it; `None` when it is not a complete expression.
fn class(p: &[char], i: usize, c: char) -> Option<(bool, usize)> {
    let mut j = i + 1;
    let negate = j < p.len() && (p[j] == '!' || p[j] == '^');
    if negate {
        j += 1;
    }
    let start = j;
    let mut hit = false;
    while j < p.len() && (p[j] != ']' || j == start) {
        if j + 2 < p.len() && p[j + 1] == '-' && p[j + 2] != ']' {
            if p[j] <= c && c <= p[j + 2] {
                hit = true;
            }
            j += 3;
        } else {
            if p[j] == c {
                hit = true;
            }
            j += 1;
        }
    }
    if j >= p.len() {
        return None;
    }
    Some((hit != negate, j + 1))
}

/// Whether the unquoted glob `value` (the word's static text, relative to
/// `cwd` unless absolute) could expand to a word starting with `-`.
pub fn may_expand_to_option(value: &str, cwd: Option<&str>, fs: &dyn Fs) -> bool {
    // Only the first path segment of a relative glob can start the word.
    if value.starts_with('/') || value.starts_with('~') || value.starts_with('.') {
        return false;
    }
    let first = value.split('/').next().unwrap_or(value);
    if !first.contains(['*', '?', '[']) {
        return false;
    }
    // A literal prefix that is not `-` rules a leading `-` out.
    match first.chars().next() {
        Some('*') | Some('?') | Some('[') | Some('-') => {}
        _ => return false,
    }
    let Some(dir) = cwd else {
        return true;
    };
    match fs.read_dir(dir) {
        Ok(names) => names
            .iter()
            .take(100_000)
            .any(|n| n.starts_with('-') && matches(first, n)),
        Err(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bash_globs() {
        assert!(matches("*", "--pre=sh"));
        assert!(matches("*.rs", "a.rs"));
        assert!(!matches("*.rs", "a.go"));
        assert!(!matches("*", ".env"));
        assert!(matches(".e*", ".env"));
        assert!(matches("[-a]*", "-x"));
        assert!(!matches("[!-]*", "-x"));
        assert!(matches("?x", "-x"));
        assert!(matches("a*b*c", "aXbYc"));
    }
}
