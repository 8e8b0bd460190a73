//! The read-only safe-verb list and its argument rules (SPEC §8.1).
//!
//! The bundled lists are data files compiled into the binary
//! (`data/safe-verbs.<os>.json`); user additions come from
//! `config/safe-verbs.<os>.json`.

use crate::candidates::EXEMPT_DEVICES;
use crate::model::Os;
use shellgate_programs::checks::Facts;
use shellgate_programs::judge;
use shellgate_shell::analyze::{Invocation, PROC_SUBST_INPUT};
use shellgate_shell::syntax::RedirTarget;
use shellgate_shell::verbs::git_skip_globals;

const LINUX: &str = include_str!("../data/safe-verbs.linux.json");
const MACOS: &str = include_str!("../data/safe-verbs.macos.json");
const WINDOWS: &str = include_str!("../data/safe-verbs.windows.json");

/// The safe-verb list in force: bundled entries plus user additions.
#[derive(Debug, Clone)]
pub struct SafeVerbs {
    entries: Vec<Vec<String>>,
    /// Entries the user added (they apply to programs the model knows too).
    user: Vec<Vec<String>>,
    case_insensitive: bool,
}

impl SafeVerbs {
    pub fn bundled(os: Os) -> SafeVerbs {
        // Built once per process (the hook and the approval service build
        // a policy for every call).
        static BUILT: [std::sync::OnceLock<SafeVerbs>; 3] = [
            std::sync::OnceLock::new(),
            std::sync::OnceLock::new(),
            std::sync::OnceLock::new(),
        ];
        let i = match os {
            Os::Linux => 0,
            Os::Macos => 1,
            Os::Windows => 2,
        };
        BUILT[i]
            .get_or_init(|| SafeVerbs::build_bundled(os))
            .clone()
    }

    fn build_bundled(os: Os) -> SafeVerbs {
        let text = match os {
            Os::Linux => LINUX,
            Os::Macos => MACOS,
            Os::Windows => WINDOWS,
        };
        // The bundled files are part of the source tree and covered by
        // tests; a broken one yields an empty (fail-closed) list.
        let list: Vec<String> = serde_json::from_str(text).unwrap_or_default();
        let mut sv = SafeVerbs {
            entries: Vec::new(),
            user: Vec::new(),
            case_insensitive: os.case_insensitive(),
        };
        sv.add(&list);
        sv.user.clear();
        sv
    }

    /// Add user entries (additive only).
    pub fn add(&mut self, verbs: &[String]) {
        for v in verbs {
            let tokens: Vec<String> = v.split_whitespace().map(str::to_string).collect();
            if !tokens.is_empty() && !self.entries.contains(&tokens) {
                self.entries.push(tokens.clone());
            }
            if !tokens.is_empty() && !self.user.contains(&tokens) {
                self.user.push(tokens);
            }
        }
    }

    pub fn entries(&self) -> impl Iterator<Item = String> + '_ {
        self.entries.iter().map(|t| t.join(" "))
    }

    fn eq(&self, a: &str, b: &str) -> bool {
        if self.case_insensitive {
            a.eq_ignore_ascii_case(b)
        } else {
            a == b
        }
    }

    /// Whether the invocation qualifies as read-only. A program the model
    /// knows is judged by its spec (SPEC §8.1a, §15.1, §15.12): the argv
    /// read as the program reads it must be one of its read-only forms, or
    /// only `--help`/`--version` of a program found on `PATH`. Other
    /// programs (and the user's own additions) match the list by token
    /// prefix with the §8.1 argument rules. Never with a write redirect,
    /// never a path-qualified program word.
    pub fn qualifies(&self, inv: &Invocation, search_path: Option<&str>) -> bool {
        self.qualifies_in(inv, search_path, &Facts::NONE)
    }

    /// [`SafeVerbs::qualifies`], with what the policy knows of the world
    /// (whether `git show 4c1e9a2` names a commit).
    pub fn qualifies_in(&self, inv: &Invocation, search_path: Option<&str>, facts: &Facts) -> bool {
        if has_write_redirect(inv) {
            return false;
        }
        // Words must be static (a `~` prefix is fine): a dynamic argument
        // could expand to an unsafe flag. An input process substitution is
        // the name of a pipe (its command is a candidate of its own).
        let words: Option<Vec<String>> = inv
            .argv
            .iter()
            .map(|w| {
                if w.is_input_proc_subst() {
                    return Some(PROC_SUBST_INPUT.to_string());
                }
                w.literal()
                    .or_else(|| (!w.is_dynamic()).then(|| w.lossy_value()))
            })
            .collect();
        let Some(words) = words else {
            return false;
        };
        let Some(first) = words.first() else {
            return false;
        };
        if let Some(r) = &inv.reading {
            if !first.contains('/') {
                let args = r.args();
                // Under a name the spec keeps out (`podman ps` sets up
                // storage and runs network plugins), nothing is read-only.
                if judge::read_only_as_in(first, &r.parsed, &args, facts).is_ok() {
                    return true;
                }
                if judge::help_only(&r.parsed) && on_path(first, search_path) {
                    return true;
                }
            }
            // The user's own additions still apply to known programs.
            return self.user_match(&words);
        }
        // For git, skip the global options before matching.
        let tail: Vec<String> = if first == "git" {
            let skip = git_skip_globals(&inv.argv, 1);
            std::iter::once(first.clone())
                .chain(words.iter().skip(skip).cloned())
                .collect()
        } else {
            words.clone()
        };
        let matched = self.entries.iter().any(|e| {
            e.len() <= tail.len() && e.iter().zip(tail.iter()).all(|(a, b)| self.eq(a, b))
        });
        if !matched {
            return false;
        }
        argument_rule_ok(&tail)
    }

    /// A user-added entry (from `config/safe-verbs.<os>.json`) matching by
    /// token prefix.
    fn user_match(&self, words: &[String]) -> bool {
        self.user.iter().any(|e| {
            e.len() <= words.len() && e.iter().zip(words.iter()).all(|(a, b)| self.eq(a, b))
        })
    }
}

/// A bare program name found in a `PATH` directory outside any project:
/// its `--help` is the installed tool's, not a local script's.
fn on_path(program: &str, search_path: Option<&str>) -> bool {
    if program.contains('/') {
        return false;
    }
    let Some(path) = search_path else {
        return false;
    };
    path.split(':').any(|ds| {
        // Only absolute, system-like directories count (never `.`, a
        // relative entry, or a project's node_modules/.bin or venv).
        ds.starts_with('/')
            && !ds.contains("node_modules")
            && !ds.contains("/.venv/")
            && !ds.contains("/venv/")
            && (ds.starts_with("/usr/")
                || ds.starts_with("/bin")
                || ds.starts_with("/sbin")
                || ds.starts_with("/opt/")
                || ds.starts_with("/snap/")
                || ds.starts_with("/nix/")
                || ds.contains("/.cargo/bin")
                || ds.contains("/.local/bin")
                || ds.contains("/go/bin"))
            && std::path::Path::new(ds).join(program).is_file()
    })
}

/// A write redirect to anything but an exempt device or an fd.
pub fn has_write_redirect(inv: &Invocation) -> bool {
    inv.redirects.iter().any(|r| {
        if !r.kind.writes() {
            return false;
        }
        match &r.target {
            RedirTarget::File(w) => !w
                .literal()
                .is_some_and(|v| EXEMPT_DEVICES.contains(&v.as_str())),
            RedirTarget::Fd(_) => false,
            _ => true,
        }
    })
}

fn short_cluster_has(arg: &str, c: char) -> bool {
    arg.starts_with('-') && !arg.starts_with("--") && arg[1..].contains(c)
}

/// The per-verb argument rules (§8.1). `argv` is literal, with git's global
/// options removed.
fn argument_rule_ok(argv: &[String]) -> bool {
    let Some(first) = argv.first() else {
        return false;
    };
    let args = &argv[1..];
    match first.as_str() {
        "find" => !args.iter().any(|a| {
            matches!(
                a.as_str(),
                "-exec"
                    | "-execdir"
                    | "-ok"
                    | "-okdir"
                    | "-delete"
                    | "-fls"
                    | "-fprint"
                    | "-fprint0"
                    | "-fprintf"
            )
        }),
        "rg" => !args.iter().any(|a| {
            a == "--pre"
                || a.starts_with("--pre=")
                || a == "--pre-glob"
                || a.starts_with("--pre-glob=")
                || a == "--hostname-bin"
                || a.starts_with("--hostname-bin=")
                || a == "--search-zip"
                || short_cluster_has(a, 'z')
        }),
        "sort" => !args
            .iter()
            .any(|a| a == "--output" || a.starts_with("--output=") || short_cluster_has(a, 'o')),
        "tree" => !args.iter().any(|a| short_cluster_has(a, 'o')),
        "file" => !args
            .iter()
            .any(|a| a == "--compile" || short_cluster_has(a, 'C')),
        "sed" => sed_ok(args),
        "awk" => awk_ok(args),
        "git" => git_ok(args),
        // [beyond] `date -s`/`date MMDDhhmm` and `hostname NAME` change the
        // system; only their reading forms are safe.
        "date" => !args.iter().any(|a| {
            a == "-s"
                || a.starts_with("--set")
                || short_cluster_has(a, 's')
                || (!a.starts_with('-') && !a.starts_with('+'))
        }),
        "hostname" => args.iter().all(|a| {
            a.starts_with('-') && !matches!(a.as_str(), "-F" | "--file" | "-b" | "--boot")
        }),
        _ => true,
    }
}

fn git_ok(args: &[String]) -> bool {
    const BAD: &[&str] = &[
        "-c",
        "--config-env",
        "--output",
        "--ext-diff",
        "--textconv",
        "--exec",
        "--upload-pack",
        "--receive-pack",
    ];
    for a in args {
        for b in BAD {
            if a == b || a.starts_with(&format!("{b}=")) || (*b == "-c" && a.starts_with("-c")) {
                return false;
            }
        }
    }
    match args.first().map(String::as_str) {
        Some("branch") => git_branch_ok(&args[1..]),
        Some("remote") => {
            matches!(
                args.get(1).map(String::as_str),
                None | Some("-v") | Some("--verbose") | Some("show") | Some("get-url")
            ) && (args.get(1).map(String::as_str) != Some("-v") || args.len() == 2)
        }
        _ => true,
    }
}

fn git_branch_ok(args: &[String]) -> bool {
    const LISTING: &[&str] = &[
        "--list",
        "-l",
        "-a",
        "--all",
        "-r",
        "--remotes",
        "-v",
        "-vv",
        "--verbose",
        "--show-current",
        "--contains",
        "--merged",
        "--no-merged",
        "--no-color",
        "--color",
    ];
    let listing = args.iter().any(|a| a == "--list" || a == "-l");
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if a.starts_with("--format=")
            || a.starts_with("--contains=")
            || a.starts_with("--merged=")
            || a.starts_with("--no-merged=")
            || a.starts_with("--sort=")
        {
            i += 1;
            continue;
        }
        if LISTING.contains(&a) {
            if matches!(a, "--contains" | "--merged" | "--no-merged")
                && args.get(i + 1).is_some_and(|n| !n.starts_with('-'))
            {
                i += 1;
            }
            i += 1;
            continue;
        }
        if a.starts_with('-') {
            return false;
        }
        if !listing {
            return false;
        }
        i += 1;
    }
    true
}

fn awk_ok(args: &[String]) -> bool {
    let mut program: Option<&str> = None;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "--" {
            program = program.or(args.get(i + 1).map(String::as_str));
            break;
        }
        if a == "-f"
            || a.starts_with("-f") && !a.starts_with("--")
            || a == "-i"
            || a == "--include"
            || a.starts_with("--include=")
            || a == "-E"
            || a == "--exec"
            || a == "-l"
            || a == "--load"
            || a.starts_with("--file")
            || a.starts_with("--exec=")
            || a.starts_with("--load=")
        {
            return false;
        }
        if a == "-F" || a == "-v" {
            i += 2;
            continue;
        }
        if a.starts_with('-') {
            i += 1;
            continue;
        }
        program = Some(a);
        break;
    }
    let Some(p) = program else {
        return false;
    };
    !["system", "getline", "|", ">", "close", "fflush"]
        .iter()
        .any(|bad| p.contains(bad))
}

fn sed_ok(args: &[String]) -> bool {
    let mut scripts: Vec<&str> = Vec::new();
    let mut quiet = false;
    let mut explicit = false;
    let mut positional: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "-n" || a == "--quiet" || a == "--silent" {
            quiet = true;
        } else if a == "-e" || a == "--expression" {
            explicit = true;
            match args.get(i + 1) {
                Some(s) => scripts.push(s),
                None => return false,
            }
            i += 1;
        } else if let Some(s) = a.strip_prefix("--expression=") {
            explicit = true;
            scripts.push(s);
        } else if a == "-E"
            || a == "-r"
            || a == "--regexp-extended"
            || a == "-s"
            || a == "--separate"
            || a == "-z"
            || a == "--null-data"
            || a == "-u"
            || a == "--posix"
        {
        } else if a.starts_with('-') && a != "-" {
            // -i, -f, clusters, anything unknown.
            return false;
        } else {
            positional.push(a);
        }
        i += 1;
    }
    if !quiet {
        return false;
    }
    if !explicit {
        match positional.first() {
            Some(s) => scripts.push(s),
            None => return false,
        }
    }
    scripts.iter().all(|s| sed_script_prints_only(s))
}

/// A sed script made only of print commands with line/regex addresses.
pub fn sed_script_prints_only(script: &str) -> bool {
    let chars: Vec<char> = script.chars().collect();
    let mut i = 0;
    let n = chars.len();
    loop {
        // Skip separators and blanks.
        while i < n && (chars[i] == ';' || chars[i].is_whitespace()) {
            i += 1;
        }
        if i >= n {
            return true;
        }
        // Up to two addresses.
        for k in 0..2 {
            if i < n && (chars[i].is_ascii_digit() || chars[i] == '$') {
                while i < n && (chars[i].is_ascii_digit() || chars[i] == '$' || chars[i] == '~') {
                    i += 1;
                }
            } else if i < n && chars[i] == '/' {
                i += 1;
                while i < n && chars[i] != '/' {
                    if chars[i] == '\\' {
                        i += 1;
                    }
                    i += 1;
                }
                if i >= n {
                    return false;
                }
                i += 1;
                while i < n && matches!(chars[i], 'I' | 'M') {
                    i += 1;
                }
            } else if k == 1 && i < n && chars[i] == '+' {
                i += 1;
                while i < n && chars[i].is_ascii_digit() {
                    i += 1;
                }
            }
            if k == 0 && i < n && chars[i] == ',' {
                i += 1;
                continue;
            }
            break;
        }
        while i < n && chars[i].is_whitespace() {
            i += 1;
        }
        if i < n && chars[i] == '!' {
            i += 1;
        }
        if i >= n {
            return false;
        }
        if !matches!(chars[i], 'p' | 'P' | '=' | 'l' | 'q' | 'Q') {
            return false;
        }
        i += 1;
        while i < n && chars[i].is_whitespace() && chars[i] != '\n' {
            i += 1;
        }
        if i < n && chars[i] != ';' && chars[i] != '\n' && chars[i] != '}' {
            return false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shellgate_shell::analyze::{analyze, Env};

    fn safe(cmd: &str) -> bool {
        let a = analyze(
            cmd,
            Some("/p"),
            &Env {
                home: "/h".into(),
                ..Default::default()
            },
        );
        let sv = SafeVerbs::bundled(Os::Linux);
        a.invocations
            .iter()
            .all(|i| sv.qualifies(i, Some("/usr/bin:/bin")))
    }

    #[test]
    fn rules() {
        assert!(safe("ls -la"));
        assert!(safe("git -C /x log --oneline"));
        assert!(safe("sed -n '1,5p' f"));
        assert!(safe("sed -n '/foo/,/bar/p' f"));
        assert!(!safe("sed -n 'w out' f"));
        assert!(!safe("sed 'e id' f"));
        assert!(!safe("sed -n -i '1p' f"));
        assert!(safe("awk '{print $1}' f"));
        assert!(!safe("awk 'BEGIN{system(\"id\")}'"));
        assert!(!safe("find . -delete"));
        assert!(!safe("sort -o x y"));
        assert!(!safe("rg --pre cat x"));
        assert!(!safe("rg -z x"));
        assert!(safe("git branch -a"));
        assert!(!safe("git branch newname"));
        assert!(!safe("git branch -D x"));
        assert!(safe("git remote -v"));
        assert!(!safe("git remote add x y"));
        assert!(!safe("git log --output=/tmp/x"));
        assert!(!safe("git show --textconv HEAD"));
        assert!(!safe("./ls"));
        assert!(!safe("ls > out"));
        assert!(safe("ls 2>/dev/null"));
        assert!(safe("tr a-z A-Z"));
        assert!(safe("date +%F"));
        assert!(safe("date -u"));
        assert!(!safe("date -s 2020-01-01"));
        assert!(!safe("date 010112002020"));
        // `hostname -f` asks the resolver (DNS): not read-only.
        assert!(!safe("hostname -f"));
        assert!(safe("hostname"));
        assert!(!safe("hostname newname"));
    }
}
