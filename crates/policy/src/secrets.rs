//! Secret-looking files (SPEC §8.3, §15.3, §15.19): the names, and every
//! shape in which a reader may name one — a path (lexical and resolved), a
//! glob, a git pathspec or revision path, a search filter.
//!
//! Reading a secret inside the project still deserves a human's look: a
//! command that names one is never safe (§8.3). Comparisons are
//! case-insensitive on every OS (`.ENV` looks as secret as `.env`).

use shellgate_shell::paths;

use crate::candidates::{Scope, Touch};
use crate::fs::Fs;
use crate::resolve::{self, glob_match_any, has_glob, Kernel, Pattern};

/// Secret file names, as lowercase glob patterns over a base name.
/// (`id_*` is handled by [`is_secret_name`]: key files, not `id_utils.py`.)
pub const SECRET_NAMES: &[&str] = &[
    ".env",
    ".env.*",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    ".netrc",
    "_netrc",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    "credentials",
    "credentials.json",
    "secrets.*",
    "*.kdbx",
    ".vault-token",
    "*.tfstate",
    "*.tfstate.*",
    ".pgpass",
    ".my.cnf",
    "*.jks",
    "*.keystore",
    ".htpasswd",
    ".envrc",
    "*.tfvars",
    "*.tfvars.json",
    "*.ppk",
    ".dev.vars",
    "*.gpg",
    "secring.*",
    ".s3cfg",
    "service-account*.json",
    ".dockercfg",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    "id_xmss*",
    // Kerberos ticket caches and keytabs (`/tmp/krb5cc_1000`, rt18 F2)
    "krb5cc*",
    "*.keytab",
    // rt12 sweep S11: cluster, cloud and service credentials by their
    // usual names wherever they lie
    "kubeconfig",
    "*.kubeconfig",
    "kubeconfig.y*ml",
    "application_default_credentials.json",
    "client_secret*.json",
    ".boto",
    ".authinfo",
    ".authinfo.*",
    ".passwd-s3fs",
    ".smbcredentials",
    "rclone.conf",
    ".terraformrc",
    "terraform.rc",
    ".msmtprc",
    ".fetchmailrc",
    ".secrets",
    "logins.json",
    "login data",
];

/// File extensions that make an `id_…` name ordinary source or data
/// (`id_utils.py`, `id_map.json`) rather than a private key.
const ORDINARY_EXTENSIONS: &[&str] = &[
    "txt", "md", "rst", "json", "jsonl", "yaml", "yml", "toml", "xml", "csv", "tsv", "log", "ini",
    "cfg", "conf", "lock", "rs", "py", "js", "mjs", "cjs", "ts", "tsx", "jsx", "go", "c", "h",
    "cc", "cpp", "hpp", "java", "kt", "rb", "php", "sh", "bash", "zsh", "ps1", "sql", "html",
    "css", "scss", "vue", "svelte", "png", "jpg", "jpeg", "gif", "svg", "pdf", "wasm", "so",
    "dylib", "dll", "exe", "o", "a", "swift", "cs", "fs", "ex", "exs", "erl", "hs", "ml", "scala",
    "dart", "lua", "r", "pl", "pm", "snap", "proto", "graphql",
];

/// Whether a base name looks like a secret (§8.3, §15.3, §15.19). A public
/// key (`*.pub`) never does.
pub fn is_secret_name(name: &str) -> bool {
    let n = lower(name);
    is_secret_lower_name(&n)
}

/// `text` lower-cased as [`str::to_lowercase`] does, without its Unicode
/// tables for ASCII text (the same result there) and without a copy when
/// nothing changes.
fn lower(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.is_ascii() {
        return std::borrow::Cow::Owned(text.to_lowercase());
    }
    if text.bytes().any(|b| b.is_ascii_uppercase()) {
        std::borrow::Cow::Owned(text.to_ascii_lowercase())
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// [`is_secret_name`] of a name already lower-cased.
fn is_secret_lower_name(n: &str) -> bool {
    if n.is_empty() || n.ends_with(".pub") {
        return false;
    }
    if let Some(rest) = n.strip_prefix("id_") {
        // Any `id_*` key file (`id_rsa`, `id_work`, `id_github.old`) but
        // not source or data named `id_…` with an ordinary extension.
        return !rest.is_empty()
            && !rest
                .rsplit_once('.')
                .is_some_and(|(_, ext)| ORDINARY_EXTENSIONS.contains(&ext));
    }
    let (Some(&first), Some(&last)) = (n.as_bytes().first(), n.as_bytes().last()) else {
        return false;
    };
    secret_name_patterns()
        .iter()
        .any(|g| g.may_match(first, last) && g.matches(n))
}

/// One entry of [`SECRET_NAMES`] split as [`star_match`] splits it, once.
struct StarPattern {
    /// No `*`: the whole name.
    exact: bool,
    first: &'static str,
    middle: Vec<&'static str>,
    last: &'static str,
}

impl StarPattern {
    fn new(pattern: &'static str) -> StarPattern {
        let Some((first, tail)) = pattern.split_once('*') else {
            return StarPattern {
                exact: true,
                first: pattern,
                middle: Vec::new(),
                last: "",
            };
        };
        let (middle, last) = tail.rsplit_once('*').unwrap_or(("", tail));
        StarPattern {
            exact: false,
            first,
            middle: middle.split('*').filter(|p| !p.is_empty()).collect(),
            last,
        }
    }

    /// A necessary condition for [`StarPattern::matches`] on a non-empty
    /// name, from its first and last bytes: the prefix's first byte, the
    /// suffix's last byte (most patterns are rejected here).
    fn may_match(&self, first: u8, last: u8) -> bool {
        let starts = self.first.as_bytes().first().is_none_or(|&b| b == first);
        let tail = if self.exact { self.first } else { self.last };
        starts && tail.as_bytes().last().is_none_or(|&b| b == last)
    }

    /// [`star_match`] of this pattern.
    fn matches(&self, name: &str) -> bool {
        if self.exact {
            return name == self.first;
        }
        let Some(mut rest) = name.strip_prefix(self.first) else {
            return false;
        };
        for p in &self.middle {
            // `str::find` without its searcher's set-up (most of the cost
            // for these short needles): the first occurrence, byte-wise.
            // An ASCII piece never starts or ends inside a character.
            match rest
                .as_bytes()
                .windows(p.len())
                .position(|w| w == p.as_bytes())
            {
                Some(i) => rest = &rest[i + p.len()..],
                None => return false,
            }
        }
        rest.ends_with(self.last)
    }
}

/// [`SECRET_NAMES`], split once for [`is_secret_name`].
fn secret_name_patterns() -> &'static [StarPattern] {
    static PATTERNS: std::sync::OnceLock<Vec<StarPattern>> = std::sync::OnceLock::new();
    PATTERNS.get_or_init(|| SECRET_NAMES.iter().map(|g| StarPattern::new(g)).collect())
}

/// Whether `name` matches `pattern`, a glob whose only wildcard is `*`
/// (every entry of [`SECRET_NAMES`]; a test checks that and compares with
/// the general matcher): the text before the first `*` is a prefix, the
/// text after the last one a suffix, the pieces between appear in order.
/// Byte-wise: the literal pieces are ASCII, so a match never starts or
/// ends inside a multi-byte character. (The reference for [`StarPattern`],
/// which splits each pattern once.)
#[cfg(test)]
fn star_match(pattern: &str, name: &str) -> bool {
    let Some((first, tail)) = pattern.split_once('*') else {
        return name == pattern;
    };
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let (middle, last) = tail.rsplit_once('*').unwrap_or(("", tail));
    for p in middle.split('*').filter(|p| !p.is_empty()) {
        match rest.find(p) {
            Some(i) => rest = &rest[i + p.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// Whether a path (absolute or relative, `/`-separated) names a secret: its
/// base name, a secret store it lies in (`.ssh/`, `.aws/`, …, public keys
/// excepted), or a secret file by its last segments (`.kube/config`).
pub fn is_secret_path(path: &str) -> bool {
    let lowered = lower(path);
    let segs: Vec<&str> = lowered
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect();
    let Some(last) = segs.last() else {
        return false;
    };
    if is_secret_lower_name(&lower(last)) {
        return true;
    }
    if last.ends_with(".pub") {
        return false;
    }
    shellgate_secrets::secret_by_segments(&segs)
}

/// How a recursive reader walks a tree, for [`tree_holds_secret`].
#[derive(Clone, Debug, Default)]
pub struct TreeWalk {
    /// Dot-named entries are skipped (ripgrep's default). An ignore file
    /// with a `!` line may whitelist one again: the walk then counts them.
    pub skip_hidden: bool,
    /// Links met in the tree are followed (`grep -R`, `rg -L`): what they
    /// lead to is read under the link's name.
    pub follow_links: bool,
    /// Filters in the order given: `(glob, include)` — `grep --include`/
    /// `--exclude`, `rg -g GLOB`/`-g '!GLOB'`. The last one matching a
    /// name decides (GNU grep and ripgrep agree); a name none matches is
    /// read unless an include filter exists.
    pub filters: Vec<(String, bool)>,
    /// Directories the repository's top `.gitignore` ignores, which
    /// ripgrep does not enter: names at any depth (`node_modules`) and
    /// absolute paths (`/target` of the top). Dropped, and the tree walked
    /// again, when any ignore file in it has a `!` line (a deeper
    /// `.gitignore` may re-include one).
    pub ignored_names: Vec<String>,
    /// See [`TreeWalk::ignored_names`].
    pub ignored_paths: Vec<String>,
    /// The reader honours the repository's ignore files (ripgrep without
    /// `--no-ignore*`/`-u`): [`TreeWalk::ignored_names`] may be filled.
    pub vcs_ignores: bool,
}

impl TreeWalk {
    /// Whether the walk reads a file of this base name (`hidden_skipped`:
    /// a dot-name ripgrep skips unless a filter selects it).
    fn reads(&self, name: &str, hidden_skipped: bool) -> bool {
        // A glob with a `/` (or `**`) is matched against the path: not
        // modelled, so an include matches every name and an exclude none
        // (reads more, asks more).
        let last = self.filters.iter().rev().find(|(g, include)| {
            if g.contains('/') {
                *include
            } else {
                glob_match_any(g, name, false)
            }
        });
        match last {
            Some((_, include)) => *include,
            None => !hidden_skipped && !self.filters.iter().any(|(_, include)| *include),
        }
    }
}

/// Whether a recursive reader of `dir` (`grep -rn TOKEN .`, `rg --hidden
/// x`, `git grep --untracked x`) reads a file that looks like a secret
/// (§15.3), or the tree cannot be walked within [`resolve::MAX_TREE_ENTRIES`]
/// (unknown counts as holding one). Templates (`.env.example`) are not
/// secrets. rt21 F3: `grep -rh '' .` printed the project's untracked `.env`.
pub fn tree_holds_secret(fs: &dyn Fs, dir: &str, walk: &TreeWalk) -> bool {
    let mut queue = vec![dir.trim_end_matches('/').to_string()];
    let mut seen = std::collections::HashSet::new();
    let mut budget = resolve::MAX_TREE_ENTRIES;
    let mut whitelisting = false;
    let ignoring = !walk.ignored_names.is_empty() || !walk.ignored_paths.is_empty();
    while let Some(d) = queue.pop() {
        if !seen.insert(d.clone()) {
            continue;
        }
        let entries = match fs.read_dir_kinds(&d) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => continue,
            Err(_) => return true,
        };
        for (name, kind) in entries {
            if budget == 0 {
                return true;
            }
            budget -= 1;
            let p = if d.is_empty() {
                format!("/{name}")
            } else {
                format!("{d}/{name}")
            };
            let ignore_file = matches!(name.as_str(), ".gitignore" | ".ignore" | ".rgignore");
            if walk.skip_hidden && ignore_file && ignore_file_whitelists(fs, &p) {
                whitelisting = true;
            }
            if ignoring && ignore_file && ignore_file_negates(fs, &p) {
                return tree_holds_secret(
                    fs,
                    dir,
                    &TreeWalk {
                        ignored_names: Vec::new(),
                        ignored_paths: Vec::new(),
                        ..walk.clone()
                    },
                );
            }
            let hidden = walk.skip_hidden && name.starts_with('.');
            if hidden && kind == crate::fs::FileKind::Dir {
                continue;
            }
            let mut kind = kind;
            let mut target = None;
            if kind == crate::fs::FileKind::Symlink && walk.follow_links {
                match resolve::kernel(fs, &p, true) {
                    Kernel::Path(t) => {
                        kind = fs.stat(&t).unwrap_or(crate::fs::FileKind::Other);
                        target = Some(t);
                    }
                    Kernel::Unresolvable | Kernel::ProcView => return true,
                }
            }
            if kind == crate::fs::FileKind::Dir {
                let ignored = walk.ignored_names.contains(&name) || walk.ignored_paths.contains(&p);
                if !hidden && !ignored {
                    queue.push(target.unwrap_or(p));
                }
                continue;
            }
            if !walk.reads(&name, hidden) {
                continue;
            }
            let secret = |path: &str| is_secret_path(path) && !is_template(path);
            if secret(&p) || target.as_deref().is_some_and(secret) {
                return true;
            }
        }
    }
    if whitelisting {
        return tree_holds_secret(
            fs,
            dir,
            &TreeWalk {
                skip_hidden: false,
                ..walk.clone()
            },
        );
    }
    false
}

/// A template of a secret file, holding placeholders (`.env.example`,
/// `secrets.yaml.sample`).
pub fn is_template(path: &str) -> bool {
    const MARKERS: &[&str] = &[".example", ".sample", ".template", ".dist", ".tmpl", ".tpl"];
    let name = lower(paths::basename(path));
    MARKERS.iter().any(|m| name.ends_with(m))
}

/// Whether an ignore file has a negated pattern (`!.env`), which makes
/// ripgrep search a hidden file it would skip; an unreadable one counts.
fn ignore_file_whitelists(fs: &dyn Fs, path: &str) -> bool {
    match fs.read_file(path, 1 << 20) {
        Ok(raw) => String::from_utf8_lossy(&raw).lines().any(|l| {
            // `!.env.example` whitelists a template: no secret. A pattern
            // with a glob, or naming a secret, may whitelist one (rt24 D).
            l.trim_start().strip_prefix('!').is_some_and(|p| {
                let p = p.trim_end();
                p.contains(['*', '?', '[', '\\']) || (is_secret_path(p) && !is_template(p))
            })
        }),
        Err(e) => e.kind() != std::io::ErrorKind::NotFound,
    }
}

/// Whether an ignore file has any negated pattern; an unreadable one
/// counts.
fn ignore_file_negates(fs: &dyn Fs, path: &str) -> bool {
    match fs.read_file(path, 1 << 20) {
        Ok(raw) => String::from_utf8_lossy(&raw)
            .lines()
            .any(|l| l.trim_start().starts_with('!')),
        Err(_) => true,
    }
}

/// The directories a repository's top `.gitignore` ignores in the plain
/// spellings (`node_modules`, `target/`, `/dist`, `build/out`): names at
/// any depth and absolute paths, for [`TreeWalk`]. Nothing when `dir` is
/// not in a repository (ripgrep then reads no `.gitignore`), when the
/// file has a negation or cannot be read, or for a line with a glob.
pub fn gitignored_dirs(fs: &dyn Fs, dir: &str) -> (Vec<String>, Vec<String>) {
    let none = (Vec::new(), Vec::new());
    // git's own discovery: stricter than ripgrep's "a `.git` above", so
    // where they differ nothing is skipped.
    let Some(top) = crate::repo::work_tree(fs, dir) else {
        return none;
    };
    let top = top.trim_end_matches('/');
    let Ok(raw) = fs.read_file(&format!("{top}/.gitignore"), 1 << 20) else {
        return none;
    };
    let text = String::from_utf8_lossy(&raw);
    let (mut names, mut paths) = (Vec::new(), Vec::new());
    for line in text.lines() {
        let l = line.trim_end();
        if l.starts_with('!') {
            return none;
        }
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let plain = |seg: &str| {
            !seg.is_empty()
                && seg != "."
                && seg != ".."
                && seg
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
        };
        let body = l.trim_end_matches('/');
        let anchored = body.starts_with('/') || body.trim_start_matches('/').contains('/');
        let rel = body.trim_start_matches('/');
        if !rel.split('/').all(plain) {
            continue;
        }
        if anchored {
            paths.push(format!("{top}/{rel}"));
        } else {
            names.push(rel.to_string());
        }
    }
    (names, paths)
}

/// Ignore files outside the walked tree that ripgrep also reads (rt24 A3):
/// every `.gitignore`/`.ignore`/`.rgignore` from the tree's parent up to
/// `/`, the repository's `.git/info/exclude` (any `.git` on the way up),
/// and git's global excludes in the home (`~/.config/git/ignore`,
/// `$XDG_CONFIG_HOME` aside). Whether any whitelists a hidden secret.
pub fn outer_ignore_files_whitelist(fs: &dyn Fs, dir: &str, home: &str) -> bool {
    let mut files = vec![format!("{}/.config/git/ignore", home.trim_end_matches('/'))];
    let mut d = dir.trim_end_matches('/').to_string();
    while let Some(i) = d.rfind('/') {
        d.truncate(i);
        let base = if d.is_empty() { "" } else { d.as_str() };
        for n in [".gitignore", ".ignore", ".rgignore", ".git/info/exclude"] {
            files.push(format!("{base}/{n}"));
        }
    }
    files.push(format!("{}/.git/info/exclude", dir.trim_end_matches('/')));
    files.iter().any(|f| ignore_file_whitelists(fs, f))
}

/// Whether a glob **segment** could match a secret name (used when the
/// directory cannot be listed). `dot_rule`: bash's pathname expansion (a
/// leading `.` must be literal); false for git pathspecs and search
/// filters, whose `*` matches dot-names.
pub fn segment_could_be_secret(seg: &str, dot_rule: bool) -> bool {
    /// Each secret glob with, when it ends with a wildcard, the forms it is
    /// really compared in ([`comparable`]).
    type Compiled = Vec<(Pattern, Vec<Pattern>)>;
    static SECRETS: std::sync::OnceLock<Compiled> = std::sync::OnceLock::new();
    let secrets = SECRETS.get_or_init(|| {
        let dirs = [
            ".ssh",
            ".aws",
            ".gnupg",
            ".azure",
            ".kube",
            ".docker",
            ".terraform.d",
            ".cargo",
        ];
        SECRET_NAMES
            .iter()
            .chain(dirs.iter())
            .map(|n| {
                let p = Pattern::new(n);
                let forms = if p.ends_with_star() {
                    comparable(n).iter().map(|c| Pattern::new(c)).collect()
                } else {
                    Vec::new()
                };
                (p, forms)
            })
            .collect()
    });
    let seg = Pattern::new(&seg.to_lowercase());
    secrets.iter().any(|(secret, forms)| {
        seg.intersects(secret, dot_rule)
            && (forms.is_empty() || forms.iter().any(|f| seg.intersects(f, dot_rule)))
    })
}

/// Suffixes a secret file name carries after its stem (`.env.local`,
/// `secrets.yaml`, `id_rsa.old`), for comparing patterns.
const SECRET_SUFFIXES_SEEN: &[&str] = &[
    "local",
    "production",
    "prod",
    "development",
    "dev",
    "staging",
    "test",
    "example",
    "sample",
    "template",
    "old",
    "bak",
    "backup",
    "orig",
    "json",
    "yml",
    "yaml",
    "toml",
    "env",
    "txt",
    "ini",
    "cfg",
    "conf",
    "xml",
    "properties",
    "gpg",
    "asc",
    "enc",
    "pgp",
];

/// A secret glob in the forms compared with other patterns: a trailing
/// wildcard (`secrets.*`, `.env.*`, `id_rsa*`) becomes the stem and the
/// stem with the suffixes secrets really carry — so that `*.rs` does not
/// "match" `secrets.rs` or `id_rsa.rs`; a leading one (`*.pem`) stays.
fn comparable(glob: &str) -> Vec<String> {
    let (stem, sep) = if let Some(s) = glob.strip_suffix(".*") {
        (s, ".")
    } else if let Some(s) = glob.strip_suffix('*') {
        (s, ".")
    } else {
        return vec![glob.to_string()];
    };
    std::iter::once(stem.to_string())
        .chain(
            SECRET_SUFFIXES_SEEN
                .iter()
                .map(|x| format!("{stem}{sep}{x}")),
        )
        .collect()
}

/// Whether the absolute glob pattern `pattern` (quoted metacharacters
/// escaped) names a secret: a match of its expansion (bash's rules,
/// bounded) is secret by its written or its resolved path; or, where a
/// directory cannot be listed or the expansion is cut short, a glob
/// segment could match a secret name.
pub fn glob_names_secret(fs: &dyn Fs, pattern: &str, ci: bool) -> bool {
    if is_secret_path(&resolve::static_dir(pattern)) {
        return true;
    }
    let exp = resolve::expand(fs, pattern, ci);
    for (m, _) in &exp.matches {
        if is_secret_path(&paths::normalize(m)) {
            return true;
        }
        if let Kernel::Path(k) = resolve::kernel(fs, m, true) {
            if is_secret_path(&k) {
                return true;
            }
        }
    }
    if !exp.complete {
        return pattern
            .split('/')
            .filter(|s| has_glob(s))
            .any(|s| segment_could_be_secret(s, true));
    }
    false
}

/// Whether a touch names a secret: its lexical path, its kernel path
/// (`notes.txt -> ~/.ssh/id_rsa`), or for a glob what it expands to.
pub fn touch_names_secret(fs: &dyn Fs, t: &Touch, ci: bool) -> bool {
    match t.scope {
        Scope::Glob { .. } => is_secret_path(&t.path) || glob_names_secret(fs, &t.raw, ci),
        Scope::Exact | Scope::Prefix => {
            if is_secret_path(&t.path) {
                return true;
            }
            match resolve::kernel(fs, &t.raw, t.follow) {
                Kernel::Path(k) => is_secret_path(&k),
                // Unresolvable is outside everything already; it names no
                // secret we can see.
                Kernel::Unresolvable | Kernel::ProcView => false,
            }
        }
    }
}

/// Whether a git pathspec or revision path names a secret, given the raw
/// word as the program sees it: `.env`, `config/.env`, `HEAD:.env`,
/// `HEAD~2:app/.env`, `:2:.env`, `:.env`, `:(glob)**/.env`, `:!x`,
/// `-L1,5:.env`, `-L:func:.env` (and the value `1,5:.env` of a separate
/// `-L`), glob pathspecs (`'*.pem'`, whose `*` crosses `/` and matches
/// dot-names).
pub fn pathspec_names_secret(word: &str) -> bool {
    let w = word.strip_prefix("-L").unwrap_or(word);
    let mut candidates: Vec<&str> = vec![w];
    for (i, c) in w.char_indices() {
        if c == ':' {
            candidates.push(&w[i + 1..]);
        }
    }
    candidates.into_iter().any(|c| {
        // Pathspec magic: `:(top,glob)path`, `:!path`, `:^path`, `:/path`.
        let mut c = c;
        if let Some(rest) = c.strip_prefix("(") {
            c = rest.split_once(')').map_or(rest, |(_, r)| r);
        }
        let c = c.trim_start_matches(['!', '^', '/']);
        if c.is_empty() {
            return false;
        }
        if is_secret_path(c) {
            return true;
        }
        let last = c.rsplit('/').next().unwrap_or(c);
        c.split('/').any(has_glob) && targets_secrets(last)
    })
}

/// Whether a file-selecting filter value (`--include=.env*`,
/// `-g '*.tfstate'`, `--glob`, `--iglob`) applied below `dir` selects a
/// secret: a negated filter (`!*.lock`) selects nothing; braces are
/// expanded; the last segment is compared with the secret names (filters
/// match dot-names). A filter below a secret store selects secrets.
pub fn filter_selects_secret(pattern: &str, dir: &str) -> bool {
    if pattern.starts_with('!') {
        return false;
    }
    if is_secret_path(dir) {
        return true;
    }
    brace_expand(pattern, 64).iter().any(|p| {
        if is_secret_path(p) {
            return true;
        }
        let last = p.trim_end_matches('/').rsplit('/').next().unwrap_or(p);
        targets_secrets(last)
    })
}

/// Whether a filter or pathspec glob segment *targets* secrets: a name it
/// typically matches is a secret name (`.env*`, `*.tfstate`, `id_*`,
/// `*.{pem,key}`), or it is aimed at dot-names and could match a secret
/// one (`.e*`, `.[e]nv`). A broad filter (`*`, `*.json`, `*.txt`) narrows a
/// search no more than a recursive read, which is not a secret read.
pub fn targets_secrets(seg: &str) -> bool {
    if seg.starts_with('.') || seg.starts_with("\\.") {
        return segment_could_be_secret(seg, false);
    }
    if samples(seg).iter().any(|n| is_secret_name(n)) {
        return true;
    }
    // A filter that matches a secret's usual name but no ordinary file
    // name (`*gpass` selects `.pgpass`, `*state` `terraform.tfstate`, rt12
    // sweep S11); `*` and `*.json` match ordinary names too: broad.
    let matches = |names: &[&str]| names.iter().any(|n| glob_match_any(seg, n, true));
    !matches(ORDINARY_SAMPLES) && matches(SECRET_SAMPLES)
}

/// Names a secret usually has, one or more per entry of [`SECRET_NAMES`]
/// and the stores (what a search filter is compared with).
const SECRET_SAMPLES: &[&str] = &[
    ".env",
    ".env.local",
    ".env.production",
    "server.pem",
    "server.key",
    "cert.p12",
    "cert.pfx",
    ".netrc",
    "_netrc",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    "credentials",
    "credentials.json",
    "secrets.yaml",
    "secrets.json",
    "db.kdbx",
    ".vault-token",
    "terraform.tfstate",
    "terraform.tfstate.backup",
    ".pgpass",
    ".my.cnf",
    "release.jks",
    "release.keystore",
    ".htpasswd",
    ".envrc",
    "prod.tfvars",
    "prod.tfvars.json",
    "key.ppk",
    ".dev.vars",
    "file.gpg",
    "secring.gpg",
    ".s3cfg",
    "service-account.json",
    ".dockercfg",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "kubeconfig",
    "prod.kubeconfig",
    "application_default_credentials.json",
    "client_secret.json",
    ".boto",
    ".authinfo",
    ".passwd-s3fs",
    ".smbcredentials",
    "rclone.conf",
    ".terraformrc",
    ".msmtprc",
    ".fetchmailrc",
    ".secrets",
    "logins.json",
];

/// Ordinary file names: a filter matching one of them is broad, not aimed
/// at secrets.
const ORDINARY_SAMPLES: &[&str] = &[
    "x",
    "main.rs",
    "lib.rs",
    "index.js",
    "app.ts",
    "main.py",
    "main.go",
    "main.c",
    "main.h",
    "Main.java",
    "README.md",
    "notes.txt",
    "data.json",
    "package.json",
    "config.yaml",
    "config.yml",
    "Cargo.toml",
    "pom.xml",
    "app.conf",
    "setup.cfg",
    "tox.ini",
    "Cargo.lock",
    "app.log",
    "run.sh",
    "index.html",
    "style.css",
    "data.csv",
    "Makefile",
    "Dockerfile",
    "app.properties",
    "schema.sql",
    "build.gradle",
];

/// A few names a glob segment matches: each `*` as nothing, as `x`, as
/// `example` and as `.` (filters match dot-names: `*env` selects `.env`);
/// each `?` as `x`; each bracket as its first member.
fn samples(seg: &str) -> Vec<String> {
    ["", "x", "example", "."]
        .iter()
        .map(|fill| {
            let mut out = String::new();
            let mut chars = seg.chars();
            while let Some(c) = chars.next() {
                match c {
                    '*' => out.push_str(fill),
                    '?' => out.push('x'),
                    '\\' => {
                        if let Some(n) = chars.next() {
                            out.push(n);
                        }
                    }
                    '[' => {
                        let mut first: Option<char> = None;
                        let mut neg = false;
                        let mut closed = false;
                        let mut n = 0usize;
                        for d in chars.by_ref() {
                            if n == 0 && (d == '!' || d == '^') {
                                neg = true;
                                n += 1;
                                continue;
                            }
                            if d == ']' && n > usize::from(neg) {
                                closed = true;
                                break;
                            }
                            if first.is_none() {
                                first = Some(d);
                            }
                            n += 1;
                        }
                        match (closed, neg, first) {
                            (true, false, Some(f)) => out.push(f),
                            (true, true, _) => out.push('x'),
                            _ => out.push('['),
                        }
                    }
                    c => out.push(c),
                }
            }
            out
        })
        .collect()
}

/// Expand `{a,b}` alternatives (nested, bounded to `limit` results; past
/// the bound the rest is kept unexpanded, which only widens the match).
fn brace_expand(p: &str, limit: usize) -> Vec<String> {
    let Some(open) = p.find('{') else {
        return vec![p.to_string()];
    };
    // Matching close brace.
    let mut depth = 0;
    let mut close = None;
    for (i, c) in p[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(open + i);
                    break;
                }
            }
            _ => {}
        }
    }
    let Some(close) = close else {
        return vec![p.to_string()];
    };
    let inner = &p[open + 1..close];
    let mut alts = Vec::new();
    let (mut depth, mut from) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                alts.push(&inner[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    alts.push(&inner[from..]);
    let mut out = Vec::new();
    for a in alts {
        let joined = format!("{}{}{}", &p[..open], a, &p[close + 1..]);
        for e in brace_expand(&joined, limit) {
            if out.len() >= limit {
                out.push(p.to_string());
                return out;
            }
            out.push(e);
        }
    }
    out
}

#[cfg(test)]
mod tests {

    #[test]
    fn star_match_is_the_glob_matcher() {
        let names = [
            "",
            ".env",
            ".env.local",
            ".envrc",
            "a.pem",
            ".pem",
            "pem",
            "x.key.bak",
            "x.tfstate",
            "x.tfstate.1",
            ".tfstate.",
            "service-account.json",
            "service-account-x.json",
            "service-accountjson",
            "secrets.",
            "secrets",
            "secring.gpg",
            "id_rsa",
            "id_rsa.pub",
            "credentials",
            "credentials.json",
            "a.tfvars.json",
            "a.tfvars",
            "é.pem",
            "pém",
            "x.tfstate.x.tfstate",
            "service-account.json.json",
            "*",
            "a*b",
        ];
        for g in SECRET_NAMES {
            assert!(g.chars().all(|c| c != '?' && c != '[' && c != '\\'), "{g}");
            let p = Pattern::new(g);
            for n in names {
                let chars: Vec<char> = n.chars().collect();
                assert_eq!(star_match(g, n), p.matches_chars(&chars), "{g} {n}");
                let sp = StarPattern::new(g);
                assert_eq!(sp.matches(n), star_match(g, n), "{g} {n}");
                if let (Some(&f), Some(&l)) = (n.as_bytes().first(), n.as_bytes().last()) {
                    assert!(sp.may_match(f, l) || !sp.matches(n), "{g} {n}");
                }
            }
        }
    }
    use super::*;
    use crate::fs::OsFs;

    #[test]
    fn names() {
        for n in [
            ".env",
            ".env.local",
            ".ENV",
            "server.pem",
            "id_rsa",
            "id_ed25519",
            "id_dsa",
            "id_work",
            "id_rsa.old",
            "credentials",
            "terraform.tfstate",
            "terraform.tfstate.backup",
            "prod.auto.tfvars",
            "x.tfvars",
            ".envrc",
            "key.ppk",
            ".dev.vars",
            "_netrc",
            "backup.gpg",
            "secring.gpg",
            ".s3cfg",
            "service-account-prod.json",
            ".vault-token",
            ".pgpass",
            ".my.cnf",
            "release.jks",
            "app.keystore",
            ".htpasswd",
        ] {
            assert!(is_secret_name(n), "{n}");
        }
        for n in [
            "id_rsa.pub",
            "id_utils.py",
            "id_map.json",
            "README.md",
            "main.rs",
            "env.rs",
            "environment.txt",
            "key.rs",
            "id_",
        ] {
            assert!(!is_secret_name(n), "{n}");
        }
    }

    #[test]
    fn paths() {
        for p in [
            "/h/.ssh/config",
            "/h/.ssh/known_hosts",
            "/h/.ssh",
            "/h/.aws/credentials",
            "/h/.aws/config",
            "/h/.kube/config",
            "/h/.docker/config.json",
            "/h/.config/gh/hosts.yml",
            "/h/.config/gcloud/application_default_credentials.json",
            "/h/.gnupg/pubring.kbx",
            "/h/.azure/msal_token_cache.json",
            "/h/.terraform.d/credentials.tfrc.json",
            "/h/.cargo/credentials.toml",
            "/h/.cargo/credentials",
            "proj/.env",
        ] {
            assert!(is_secret_path(p), "{p}");
        }
        for p in [
            "/h/.ssh/id_rsa.pub",
            "/h/.kube/cache/x",
            "/h/.docker/buildx",
            "/h/.config/gh/config.yml",
            "/h/.cargo/config.toml",
            "/h/p/src/main.rs",
        ] {
            assert!(!is_secret_path(p), "{p}");
        }
    }

    #[test]
    fn pathspecs() {
        for w in [
            ".env",
            "HEAD:.env",
            "HEAD~2:app/.env",
            ":2:.env",
            ":.env",
            "-L1,5:.env",
            "1,5:.env",
            "-L:main:.env",
            ":(glob)**/.env",
            "*.pem",
            ":!*.tfstate",
            "config/.e*",
        ] {
            assert!(pathspec_names_secret(w), "{w}");
        }
        for w in [
            "src/main.rs",
            "HEAD",
            "HEAD:README.md",
            "-L1,5:src/lib.rs",
            "*.rs",
            ":",
            "*.json",
            "config/*",
        ] {
            assert!(!pathspec_names_secret(w), "{w}");
        }
    }

    #[test]
    fn filters() {
        for f in [
            ".env*",
            "*.tfstate",
            "*.{pem,rs}",
            "**/*.key",
            "id_*",
            ".e*",
            ".[e]nv",
            "credentials*",
            "*.PEM",
            "secrets.*",
            "service-account*.json",
        ] {
            assert!(filter_selects_secret(f, "/p"), "{f}");
        }
        for f in [
            "*.rs",
            "!*.env",
            "src/**/*.ts",
            "*.{js,ts}",
            "Cargo.toml",
            "*",
            "*.json",
            "*.txt",
            "*.yml",
            "*/",
        ] {
            assert!(!filter_selects_secret(f, "/p"), "{f}");
        }

        assert!(filter_selects_secret("*.rs", "/h/.ssh"));
    }

    #[test]
    fn globs_list_the_directory() {
        let t = tempfile::tempdir().unwrap();
        let d = std::fs::canonicalize(t.path()).unwrap();
        let d = d.to_str().unwrap();
        for f in [".env", "a.txt", "notes.md"] {
            std::fs::write(format!("{d}/{f}"), "x").unwrap();
        }
        assert!(glob_names_secret(&OsFs, &format!("{d}/.e*"), false));
        assert!(glob_names_secret(&OsFs, &format!("{d}/.[e]nv"), false));
        assert!(!glob_names_secret(&OsFs, &format!("{d}/*"), false));
        assert!(!glob_names_secret(&OsFs, &format!("{d}/*.txt"), false));
        // A link with an ordinary name leading to a secret.
        std::fs::create_dir(format!("{d}/sub")).unwrap();
        std::fs::write(format!("{d}/sub/id_rsa"), "k").unwrap();
        std::os::unix::fs::symlink(format!("{d}/sub/id_rsa"), format!("{d}/notes.txt")).unwrap();
        assert!(glob_names_secret(&OsFs, &format!("{d}/*.txt"), false));
        // Nothing there: bash keeps the word as it is.
        assert!(!glob_names_secret(
            &OsFs,
            &format!("{d}/nosuch/*.e*"),
            false
        ));
    }

    #[test]
    fn unlistable_directories_fall_back_to_the_pattern() {
        struct NoList;
        impl Fs for NoList {
            fn lstat(&self, _: &str) -> std::io::Result<crate::fs::FileKind> {
                Ok(crate::fs::FileKind::Dir)
            }
            fn stat(&self, _: &str) -> std::io::Result<crate::fs::FileKind> {
                Ok(crate::fs::FileKind::Dir)
            }
            fn read_link(&self, _: &str) -> std::io::Result<std::path::PathBuf> {
                Err(std::io::ErrorKind::InvalidInput.into())
            }
            fn read_dir(&self, _: &str) -> std::io::Result<Vec<String>> {
                Err(std::io::ErrorKind::PermissionDenied.into())
            }
        }
        assert!(glob_names_secret(&NoList, "/p/.e*", false));
        assert!(glob_names_secret(&NoList, "/p/.[e]nv", false));
        assert!(glob_names_secret(&NoList, "/p/*", false));
        assert!(glob_names_secret(&NoList, "/p/*.pem", false));
        assert!(!glob_names_secret(&NoList, "/p/*.rs", false));
        assert!(!glob_names_secret(&NoList, "/p/[.]env", false));
    }

    #[test]
    fn braces() {
        assert_eq!(brace_expand("*.{a,b}", 8), vec!["*.a", "*.b"]);
        assert_eq!(brace_expand("x", 8), vec!["x"]);
        assert_eq!(brace_expand("{a,{b,c}}d", 8), vec!["ad", "bd", "cd"]);
        assert_eq!(brace_expand("{a", 8), vec!["{a"]);
    }
}
