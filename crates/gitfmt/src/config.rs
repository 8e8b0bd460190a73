//! git config files (`.git/config`, `~/.gitconfig`, included files), read
//! line by line the way git reads the parts shellgate cares about.

/// One `key = value` line of a config file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The section, lower-cased, without its subsection (`[includeIf
    /// "gitdir:~/w/"]` ⇒ `includeif`).
    pub section: String,
    /// The key, lower-cased (`hooksPath` ⇒ `hookspath`).
    pub key: String,
    /// The value as git reads it ([`value`]); never empty.
    pub value: String,
}

/// The entries of a config file, in file order. Lines without `=` (section
/// headers, bare boolean keys, continuation lines) and empty values are
/// left out.
pub fn entries(text: &str) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut section = String::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            section = line
                .trim_start_matches('[')
                .split([']', ' ', '"', '.'])
                .next()
                .unwrap_or("")
                .to_ascii_lowercase();
            continue;
        }
        let Some((key, raw)) = line.split_once('=') else {
            continue;
        };
        let value = value(raw);
        if !value.is_empty() {
            out.push(Entry {
                section: section.clone(),
                key: key.trim().to_ascii_lowercase(),
                value,
            });
        }
    }
    out
}

/// A raw value (what follows `=`) as git reads it: an unquoted `;` or `#`
/// starts a comment, double quotes group, a backslash escapes the next
/// character (`\n` and `\t` are a newline and a tab); surrounding white
/// space is trimmed.
pub fn value(raw: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    let mut chars = raw.trim().chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => quoted = !quoted,
            '\\' => {
                if let Some(n) = chars.next() {
                    out.push(match n {
                        'n' => '\n',
                        't' => '\t',
                        other => other,
                    });
                }
            }
            ';' | '#' if !quoted => break,
            c => out.push(c),
        }
    }
    out.trim().to_string()
}

/// What a config entry points to that git later reads or runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ref {
    /// `include.path` or `includeIf.<condition>.path`: another config file.
    Include,
    /// `core.hooksPath`: the directory of the hooks git runs.
    HooksPath,
}

/// The includes and hook directories a config file names, in file order,
/// values as written (a relative include is relative to the including
/// file's directory, a relative `core.hooksPath` to the work tree; `~/` is
/// the home: the caller resolves). git uses the last `core.hooksPath`.
pub fn refs(text: &str) -> Vec<(Ref, String)> {
    entries(text)
        .into_iter()
        .filter_map(|e| match (e.section.as_str(), e.key.as_str()) {
            ("include" | "includeif", "path") => Some((Ref::Include, e.value)),
            ("core", "hookspath") => Some((Ref::HooksPath, e.value)),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_read_as_git_reads_them() {
        assert_eq!(value(" a ; comment"), "a");
        assert_eq!(value("\"a;b\" # c"), "a;b");
        assert_eq!(value("a\\;b"), "a;b");
        // Escaped white space at the ends is trimmed too (git keeps it);
        // no path shellgate reads ends in a newline.
        assert_eq!(value("x\\ty\\n"), "x\ty");
        assert_eq!(value("  "), "");
    }

    #[test]
    fn sections_keys_and_refs() {
        let text = "[core]\n\tHooksPath = .githooks ; mine\n\tbare\n\
                    [includeIf \"gitdir:~/w/\"]\n\tpath = ~/w.inc\n\
                    [include]\n\tpath = \"rel/x\"\n[core]\n\thooksPath = /h\n\
                    [diff]\n\tsubmodule = diff\n[user]\n\tname =\n";
        let e = entries(text);
        assert_eq!(e.len(), 5, "{e:?}");
        assert_eq!(
            e[4],
            Entry {
                section: "diff".into(),
                key: "submodule".into(),
                value: "diff".into()
            }
        );
        assert_eq!(
            refs(text),
            [
                (Ref::HooksPath, ".githooks".to_string()),
                (Ref::Include, "~/w.inc".to_string()),
                (Ref::Include, "rel/x".to_string()),
                (Ref::HooksPath, "/h".to_string()),
            ]
        );
    }
}
