//! Read roots: places outside the safe spaces (§8.2) where read-only verbs
//! may read without a human — world-readable system locations and the
//! toolchains' caches (issue 15). A read there is answered with
//! `safe_verb_in_safe_space` like a read inside the project.
//!
//! What is a root is an allow-list: whole trees that hold only installed
//! software and public package sources (`/usr`, `~/go/pkg/mod`,
//! `~/.gradle/caches`, …), and single files that describe the machine
//! (`/etc/os-release`, `/proc/cpuinfo`, …). `/etc` itself is not a root: it
//! holds credentials in too many places (`/etc/shadow`, `/etc/sudoers`,
//! `/etc/ssh/*_key`, `/etc/ssl/private`, NetworkManager connections,
//! kubeconfigs, database passwords), and an allow-list of its harmless files
//! cannot miss a new one. Operators add roots with `[safe] read_roots` in
//! `policy.toml` and turn the built-in list off with
//! `builtin_read_roots = false`.
//!
//! Every path a command reads must be covered twice: as written (lexically,
//! inside a root and not a secret) and as the kernel would open it (every
//! symbolic link resolved, still inside a root and not a secret), so a link
//! planted in a cache cannot lead out of it. Secrets (SPEC §8.3, §15.3,
//! §15.19) are refused by name in any root, and recursive reads or globs
//! only reach inside roots that are whole trees of public files.
//!
//! Only the audiences whose project is a safe space (`personal`, `team`)
//! get read roots; `public` never does.

use shellgate_shell::paths::{self, is_within};

use crate::candidates::{Scope, Touch, TouchKind};
use crate::config::{expand_home, PolicyConfig};
use crate::decision::secret_looking;
use crate::fs::{self as pfs, Fs};
use crate::model::{Audience, Os};

/// One read root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    /// Absolute, normalized path as configured (`~` expanded).
    pub path: String,
    /// A directory whose whole tree may be read (recursively and through
    /// globs), or a single file.
    pub kind: RootKind,
}

/// What a root covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootKind {
    /// The directory and everything below it.
    Tree,
    /// The directory and its entries, but no recursive read or glob (a
    /// listing of `/etc/alternatives`).
    Dir,
    /// Exactly this file.
    File,
}

/// Trees of installed software and public package sources. `~` is the
/// user's home.
const BUILTIN_TREES: &[&str] = &[
    "/usr",
    // Installed programs and libraries; on merged-/usr systems links into
    // `/usr` (`ls /bin`, `file /bin/ls`), on others the same kind of files.
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/sys/devices/system/cpu",
    // Kernel parameters and cgroup limits (`cat
    // /proc/sys/fs/inotify/max_user_watches`, `cat /sys/fs/cgroup/memory.max`):
    // numbers and names, what `sysctl -a` prints to anyone. Not
    // `/proc/sys/net`, which holds the kernel's secrets that root reads
    // (`tcp_fastopen_key`, `conf/*/stable_secret`, rt17 F6).
    "/proc/sys/fs",
    "/proc/sys/kernel",
    "/proc/sys/vm",
    "/proc/sys/user",
    "/proc/sys/abi",
    "/proc/sys/dev",
    "/sys/fs/cgroup",
    "~/go/pkg/mod",
    "~/.gradle/caches",
    "~/.gradle/wrapper/dists",
    "~/.cargo/registry/src",
    "~/.cargo/git/checkouts",
    "~/.m2/repository",
    "~/.rustup/toolchains",
    "~/.sdkman/candidates",
    // Installed tools and the Go build cache: programs and build outputs,
    // no credentials (`ls ~/go/bin`, `du -sh ~/.cache/go-build`). Not the
    // version managers' trees (`~/.nvm/versions`, `~/.pyenv/versions`): a
    // Node or Python prefix holds site configuration (`etc/npmrc`,
    // `pip.conf`) that may carry a private index's credentials.
    "~/go/bin",
    "~/.cache/go-build",
    "~/.cargo/bin",
    // Installed gems, .NET and Hex packages and Dart's package cache: the
    // packages' public sources. Not the directories beside them, which hold
    // the tools' credentials (`~/.gem/credentials`, `~/.hex/hex.config`,
    // `~/.nuget/NuGet/NuGet.Config`, `~/.pub-cache/credentials.json`).
    "~/.gem/ruby",
    "~/.local/share/gem/ruby",
    "~/.nuget/packages",
    "~/.hex/packages",
    "~/.pub-cache/hosted",
];

/// Directories whose entries (not subtrees) may be listed and read.
/// (Not Python's package caches: what they keep from a private index is
/// not public, and a recursive lister prints its package names, rt10 F9.)
const BUILTIN_DIRS: &[&str] = &["/etc/alternatives"];

/// Single files that describe the machine.
const BUILTIN_FILES: &[&str] = &[
    "/etc/os-release",
    "/etc/lsb-release",
    "/etc/debian_version",
    "/etc/redhat-release",
    "/etc/fedora-release",
    "/etc/alpine-release",
    "/etc/arch-release",
    "/etc/issue",
    "/etc/timezone",
    // The kernel's own description (no `/etc` files beyond the release
    // files above: the shared contract keeps `cat /etc/hosts` an ask,
    // cand-001 and adv-125).
    "/proc/sys/kernel/osrelease",
    "/proc/sys/kernel/ostype",
    "/proc/sys/kernel/version",
    "/proc/stat",
    "/proc/swaps",
    "/proc/partitions",
    "/proc/cpuinfo",
    "/proc/meminfo",
    "/proc/version",
    "/proc/loadavg",
    "/proc/uptime",
    "/proc/filesystems",
    // Devices that read as data and hold nothing.
    "/dev/null",
    "/dev/zero",
    "/dev/urandom",
    "/dev/random",
];

/// Places inside a built-in tree that are never covered (site
/// configuration that may hold passwords).
const EXCLUDED: &[&str] = &["/usr/local/etc", "/usr/etc"];

/// Directory names whose contents are secrets wherever they appear
/// (§15.3), and two-segment names (`.config/gh`).
const SECRET_DIRS: &[&str] = &[
    ".ssh",
    ".aws",
    ".gnupg",
    ".azure",
    ".password-store",
    ".kube",
    ".docker",
    ".terraform.d",
];
const SECRET_DIR_PAIRS: &[(&str, &str)] = &[
    (".config", "gh"),
    (".config", "gcloud"),
    (".config", "hub"),
    (".local", "share/keyrings"),
    ("ssl", "private"),
    ("pki", "tls/private"),
    (".cargo", "credentials"),
    (".cargo", "credentials.toml"),
    (".gem", "credentials"),
    (".bundle", "config"),
    (".config", "pypoetry/auth.toml"),
    (".config", "pnpm/rc"),
    (".config", "glab-cli"),
];

/// A file name that holds secrets (§8.3, §15.3, §15.19), beyond the §8.3
/// list of [`secret_looking`].
pub fn secret_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    // A public key is not a secret (§15.19).
    if n.ends_with(".pub") {
        return false;
    }
    if secret_looking(name) {
        return true;
    }
    const EXACT: &[&str] = &[
        ".envrc",
        "_netrc",
        ".dev.vars",
        ".s3cfg",
        ".vault-token",
        ".pgpass",
        ".my.cnf",
        ".htpasswd",
        ".yarnrc.yml",
        "credentials.tfrc.json",
        "gradle.properties",
        "settings.xml",
        "settings-security.xml",
        "shadow",
        "shadow-",
        "gshadow",
        "gshadow-",
        "sudoers",
        "opasswd",
        "chap-secrets",
        "pap-secrets",
        "ipsec.secrets",
        "krb5.keytab",
        "debian.cnf",
        // Package managers' site configuration, which may carry a private
        // index's credentials (`$PREFIX/etc/npmrc` of a Node under
        // `~/.nvm/versions`, `sys.prefix/pip.conf`).
        "npmrc",
        "pip.conf",
        "pip.ini",
        "gemrc",
        ".gemrc",
        ".yarnrc",
    ];
    const SUFFIX: &[&str] = &[
        ".tfvars",
        ".tfstate",
        ".jks",
        ".keystore",
        ".ppk",
        ".gpg",
        ".keytab",
        ".kubeconfig",
        ".nmconnection",
        "_key",
    ];
    const PREFIX: &[&str] = &["id_", "secring.", "service-account", ".env"];
    EXACT.contains(&n.as_str())
        || SUFFIX.iter().any(|s| n.ends_with(s))
        || PREFIX.iter().any(|p| n.starts_with(p))
        || n.contains(".tfstate.")
}

/// Whether a path names a secret: a secret directory on the way, or a
/// secret file name.
pub fn secret_path(path: &str) -> bool {
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    for (i, s) in segs.iter().enumerate() {
        if SECRET_DIRS.contains(s) {
            return true;
        }
        let rest = segs[i + 1..].join("/");
        if SECRET_DIR_PAIRS
            .iter()
            .any(|(a, b)| s == a && (rest == *b || rest.starts_with(&format!("{b}/"))))
        {
            return true;
        }
    }
    segs.last().is_some_and(|n| secret_name(n))
}

/// The read roots in force for a call, or none.
#[derive(Debug, Clone, Default)]
pub struct ReadRoots {
    roots: Vec<Root>,
}

/// What [`ReadRoots::new`] is computed from (it reads nothing else: no
/// file system).
#[derive(Debug, PartialEq, Eq)]
struct RootsKey {
    home: String,
    audience: Audience,
    os: Os,
    read_roots: Vec<String>,
    builtin: bool,
}

/// The read roots last computed, kept by a policy for the next call with
/// the same inputs (home, audience, OS and the `[safe]` settings, all
/// compared on every use, so it never answers for other ones).
#[derive(Default)]
pub struct ReadRootsCache(std::sync::Mutex<Option<(RootsKey, std::sync::Arc<ReadRoots>)>>);

impl ReadRootsCache {
    /// [`ReadRoots::new`], computed once per distinct input.
    pub fn get(
        &self,
        config: &PolicyConfig,
        home: &str,
        audience: Audience,
        os: Os,
    ) -> std::sync::Arc<ReadRoots> {
        let safe = config.safe_reads();
        let same = |k: &RootsKey| {
            k.home == home
                && k.audience == audience
                && k.os == os
                && k.builtin == safe.builtin_read_roots
                && k.read_roots == safe.read_roots
        };
        let Ok(mut slot) = self.0.lock() else {
            return std::sync::Arc::new(ReadRoots::new(config, home, audience, os));
        };
        if let Some((k, r)) = slot.as_ref() {
            if same(k) {
                return r.clone();
            }
        }
        let r = std::sync::Arc::new(ReadRoots::new(config, home, audience, os));
        *slot = Some((
            RootsKey {
                home: home.to_string(),
                audience,
                os,
                read_roots: safe.read_roots.clone(),
                builtin: safe.builtin_read_roots,
            },
            r.clone(),
        ));
        r
    }
}

impl Clone for ReadRootsCache {
    fn clone(&self) -> Self {
        ReadRootsCache::default()
    }
}

impl std::fmt::Debug for ReadRootsCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ReadRootsCache")
    }
}

impl ReadRoots {
    /// The roots for an audience: built-in (unless turned off) and
    /// configured; none for `public` and on Windows.
    pub fn new(config: &PolicyConfig, home: &str, audience: Audience, os: Os) -> ReadRoots {
        if audience == Audience::Public || os == Os::Windows {
            return ReadRoots::default();
        }
        let safe = config.safe_reads();
        let mut roots = Vec::new();
        let add = |roots: &mut Vec<Root>, p: &str, kind: RootKind| {
            let e = expand_home(p, home);
            if e.starts_with('/') {
                roots.push(Root {
                    path: paths::normalize(&e),
                    kind,
                });
            }
        };
        if safe.builtin_read_roots {
            for (list, kind) in [
                (BUILTIN_TREES, RootKind::Tree),
                (BUILTIN_DIRS, RootKind::Dir),
                (BUILTIN_FILES, RootKind::File),
            ] {
                for p in list {
                    if p.starts_with('/') {
                        // Written normalized (a test checks): taken as is.
                        roots.push(Root {
                            path: p.to_string(),
                            kind,
                        });
                    } else {
                        add(&mut roots, p, kind);
                    }
                }
            }
        }
        for p in &safe.read_roots {
            add(&mut roots, p, RootKind::Tree);
        }
        // A root that is `/`, the home or an ancestor of it would make
        // everything a read root: ignored.
        let home = paths::normalize(home);
        roots.retain(|r| r.path != "/" && !is_within(&home, &r.path));
        ReadRoots { roots }
    }

    /// The roots.
    pub fn roots(&self) -> &[Root] {
        &self.roots
    }

    /// Whether every path a reader touches lies in a safe space (as
    /// `in_safe_space` says) or is covered by a read root, as written and
    /// as resolved. `recursive`: the command reads directory operands
    /// recursively.
    pub fn covers(
        &self,
        fs: &dyn Fs,
        touches: &[Touch],
        recursive: bool,
        in_safe_space: impl Fn(&str) -> bool,
    ) -> bool {
        if self.roots.is_empty() {
            return false;
        }
        touches.iter().all(|t| {
            if t.kind == TouchKind::RedirectWrite {
                return false;
            }
            if in_safe_space(&t.path) {
                return true;
            }
            self.covers_one(fs, t, recursive)
        })
    }

    fn covers_one(&self, fs: &dyn Fs, t: &Touch, recursive: bool) -> bool {
        let p = paths::normalize(&t.path);
        if excluded(&p) {
            return false;
        }
        // A glob or a dynamic prefix may reach anything below its
        // directory; a recursive reader reaches below a directory operand.
        let below = match t.scope {
            Scope::Exact => recursive && t.kind == TouchKind::Operand && pfs::is_dir(fs, &p),
            Scope::Glob { .. } | Scope::Prefix => true,
        };
        let Some(root) = self.lexical_root(&p, below) else {
            return false;
        };
        // A recursive read of a directory that holds an excluded place
        // (`grep -r x /usr/local` walks into `/usr/local/etc/npmrc`) reads it.
        if below && !matches!(t.scope, Scope::Glob { .. }) && holds_excluded(&p) {
            return false;
        }
        if matches!(t.scope, Scope::Glob { .. }) {
            if glob_dir_has_secret(fs, &p) {
                return false;
            }
            // Every match of the whole pattern (`~/.pyenv/versions/*/pip.conf`,
            // `…/*/*`): none a secret, each inside a root as resolved.
            let ex = crate::resolve::expand(fs, &t.raw, false);
            if !ex.complete || !ex.unlisted.is_empty() {
                return false;
            }
            for (m, _) in &ex.matches {
                let m = paths::normalize(m);
                if excluded(&m)
                    || secret_path(&m)
                    || (recursive && holds_excluded(&m))
                    || self.lexical_root(&m, recursive).is_none()
                {
                    return false;
                }
                match fs.canonicalize(&m) {
                    Ok(real) => {
                        let real = paths::normalize(&real.to_string_lossy());
                        if excluded(&real)
                            || secret_path(&real)
                            || (recursive && holds_excluded(&real))
                            || self.resolved_root(fs, &real, recursive).is_none()
                        {
                            return false;
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(_) => return false,
                }
            }
        }
        match fs.canonicalize(&p) {
            Ok(real) => {
                let real = paths::normalize(&real.to_string_lossy());
                let reaches_excluded = below && holds_excluded(&real);
                !excluded(&real)
                    && !reaches_excluded
                    && self.resolved_root(fs, &real, below).is_some()
            }
            // Nothing there: the read fails. A link on the way could still
            // lead out: only a plain path is accepted.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                (root.kind == RootKind::File && p == root.path) || pfs::contains(fs, &root.path, &p)
            }
            Err(_) => false,
        }
    }

    /// The root covering `p` as written.
    fn lexical_root(&self, p: &str, below: bool) -> Option<&Root> {
        self.roots
            .iter()
            .find(|r| root_covers(&r.path, r.kind, p, below))
    }

    /// A root covering the resolved path `real` (the root itself resolved
    /// too: `~/go` may be a link to another disk).
    fn resolved_root(&self, fs: &dyn Fs, real: &str, below: bool) -> Option<&Root> {
        self.roots.iter().find(|r| {
            if root_covers(&r.path, r.kind, real, below) {
                return true;
            }
            match fs.canonicalize(&r.path) {
                Ok(rr) => root_covers(
                    &paths::normalize(&rr.to_string_lossy()),
                    r.kind,
                    real,
                    below,
                ),
                Err(_) => false,
            }
        })
    }
}

fn root_covers(root: &str, kind: RootKind, p: &str, below: bool) -> bool {
    match kind {
        RootKind::Tree => is_within(p, root),
        RootKind::Dir => !below && (p == root || (is_within(p, root) && paths::parent(p) == root)),
        RootKind::File => !below && p == root,
    }
}

fn excluded(p: &str) -> bool {
    secret_path(p) || EXCLUDED.iter().any(|e| is_within(p, e))
}

/// Whether an excluded place lies below `p` (or is `p`): a recursive read
/// of `p` reaches it.
fn holds_excluded(p: &str) -> bool {
    EXCLUDED.iter().any(|e| is_within(e, p))
}

/// A glob's directory holds an entry whose name looks secret (§15.19), or
/// cannot be listed.
fn glob_dir_has_secret(fs: &dyn Fs, dir: &str) -> bool {
    match fs.read_dir(dir) {
        Ok(names) => names
            .iter()
            .any(|n| secret_name(n) || SECRET_DIRS.contains(&n.as_str())),
        Err(e) => e.kind() != std::io::ErrorKind::NotFound,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::OsFs;

    #[test]
    fn builtin_absolute_roots_are_written_normalized() {
        for p in BUILTIN_TREES
            .iter()
            .chain(BUILTIN_DIRS)
            .chain(BUILTIN_FILES)
        {
            if p.starts_with('/') {
                assert_eq!(paths::normalize(p), *p);
            }
        }
    }

    fn touch(p: &str) -> Touch {
        Touch::new(p, TouchKind::Operand, Scope::Exact)
    }

    fn config(text: &str) -> PolicyConfig {
        PolicyConfig::parse(text, std::path::Path::new("policy.toml")).expect("policy")
    }

    #[test]
    fn secrets_by_name_and_directory() {
        for p in [
            "/etc/shadow",
            "/etc/gshadow",
            "/etc/sudoers",
            "/etc/ssh/ssh_host_ed25519_key",
            "/etc/ssl/private/x.pem",
            "/etc/ssl/private",
            "/h/.ssh/config",
            "/h/.config/gh/hosts.yml",
            "/h/.kube/config",
            "/h/.docker/config.json",
            "/h/.gradle/gradle.properties",
            "/h/.m2/settings.xml",
            "/h/x/.env.production",
            "/h/x/prod.tfvars",
            "/h/x/terraform.tfstate.backup",
            "/h/x/id_dsa",
            "/h/x/service-account-ci.json",
        ] {
            assert!(secret_path(p), "{p}");
        }
        for p in [
            "/usr/lib/os-release",
            "/h/go/pkg/mod/github.com/x/y@v1/clock.go",
            "/h/x/id_rsa.pub",
            "/usr/share/doc/private-notes",
        ] {
            assert!(!secret_path(p), "{p}");
        }
    }

    #[test]
    fn public_and_windows_have_no_roots() {
        let c = PolicyConfig::default();
        assert!(ReadRoots::new(&c, "/h", Audience::Public, Os::Linux)
            .roots()
            .is_empty());
        assert!(ReadRoots::new(&c, "/h", Audience::Personal, Os::Windows)
            .roots()
            .is_empty());
        assert!(!ReadRoots::new(&c, "/h", Audience::Team, Os::Linux)
            .roots()
            .is_empty());
    }

    #[test]
    fn configured_roots_extend_and_builtin_can_be_turned_off() {
        let c =
            config("[safe]\nread_roots = [\"~/docs\", \"/\", \"~\"]\nbuiltin_read_roots = false\n");
        let r = ReadRoots::new(&c, "/h", Audience::Personal, Os::Linux);
        assert_eq!(
            r.roots(),
            &[Root {
                path: "/h/docs".into(),
                kind: RootKind::Tree
            }]
        );
        assert!(PolicyConfig::parse("[safe]\nbogus = 1\n", std::path::Path::new("p")).is_err());
        assert!(PolicyConfig::parse(
            "[safe]\nbuiltin_read_roots = \"no\"\n",
            std::path::Path::new("p")
        )
        .is_err());
    }

    /// A fake root on the real disk: files inside are covered, secrets and
    /// links leading out are not, recursion only inside trees.
    #[test]
    fn fake_root_links_and_secrets() {
        let t = tempfile::tempdir().expect("tempdir");
        let base = std::fs::canonicalize(t.path()).expect("canonical");
        let b = base.to_string_lossy().to_string();
        let root = format!("{b}/sysetc");
        let out = format!("{b}/private");
        std::fs::create_dir_all(format!("{root}/sub")).expect("mkdir");
        std::fs::create_dir_all(&out).expect("mkdir");
        std::fs::write(format!("{root}/os-release"), "ID=x").expect("write");
        std::fs::write(format!("{root}/shadow"), "root:x").expect("write");
        std::fs::write(format!("{out}/notes"), "mine").expect("write");
        std::os::unix::fs::symlink(format!("{out}/notes"), format!("{root}/leak"))
            .expect("symlink");
        std::os::unix::fs::symlink(&out, format!("{root}/sub/dirleak")).expect("symlink");
        std::os::unix::fs::symlink(format!("{root}/os-release"), format!("{root}/inside"))
            .expect("symlink");
        let c = config(&format!(
            "[safe]\nread_roots = [\"{root}\"]\nbuiltin_read_roots = false\n"
        ));
        let r = ReadRoots::new(&c, "/nonexistent-home", Audience::Personal, Os::Linux);
        let never = |_: &str| false;
        let ok = |p: &str, rec: bool| r.covers(&OsFs, &[touch(p)], rec, never);
        assert!(ok(&format!("{root}/os-release"), false));
        assert!(
            ok(&format!("{root}/inside"), false),
            "a link staying inside"
        );
        assert!(ok(&format!("{root}/sub"), true), "recursive read of a tree");
        assert!(ok(&format!("{root}/missing"), false));
        assert!(!ok(&format!("{root}/shadow"), false), "a secret name");
        assert!(
            !ok(&format!("{root}/leak"), false),
            "a link out of the root"
        );
        assert!(
            !ok(&format!("{root}/sub/dirleak/notes"), false),
            "a link segment out"
        );
        assert!(!ok(&format!("{root}/sub/dirleak/missing"), false));
        assert!(!ok(&format!("{out}/notes"), false), "outside every root");
        let glob = Touch::new(
            format!("{root}/sub"),
            TouchKind::Operand,
            Scope::Glob { recursive: false },
        );
        assert!(r.covers(&OsFs, std::slice::from_ref(&glob), false, never));
        let glob_secret = Touch {
            path: root.clone(),
            raw: root.clone(),
            ..glob
        };
        assert!(
            !r.covers(&OsFs, &[glob_secret], false, never),
            "a glob next to a secret"
        );
        let write = Touch::new(
            format!("{root}/os-release"),
            TouchKind::RedirectWrite,
            Scope::Exact,
        );
        assert!(!r.covers(&OsFs, &[write], false, never));
        // Safe-space paths are fine, the rest must be covered.
        let proj = |p: &str| p.starts_with("/proj");
        assert!(r.covers(
            &OsFs,
            &[touch("/proj/a"), touch(&format!("{root}/os-release"))],
            false,
            proj
        ));
        assert!(!r.covers(&OsFs, &[touch("/proj/a"), touch("/elsewhere")], false, proj));
    }

    #[test]
    fn file_and_dir_roots_do_not_recurse() {
        let c = PolicyConfig::default();
        let r = ReadRoots::new(&c, "/h", Audience::Personal, Os::Linux);
        let never = |_: &str| false;
        assert!(!r.covers(&OsFs, &[touch("/etc")], false, never));
        assert!(!r.covers(&OsFs, &[touch("/etc/passwd")], false, never));
        assert!(!r.covers(&OsFs, &[touch("/etc/hosts")], false, never));
        assert!(!r.covers(&OsFs, &[touch("/usr/local/etc/redis.conf")], false, never));
        assert!(!r.covers(&OsFs, &[touch("/proc/self/environ")], false, never));
        assert!(r.covers(&OsFs, &[touch("/proc/cpuinfo")], false, never));
        assert!(r.covers(&OsFs, &[touch("/usr/include")], true, never));
    }

    /// rt25 F4: a recursive read of a tree that holds an excluded place
    /// (`grep -r x /usr/local` reads `/usr/local/etc/npmrc`) is not
    /// covered; listing it, or recursing beside it, is.
    #[test]
    fn recursion_into_excluded_site_configuration_is_not_covered() {
        let c = PolicyConfig::default();
        let r = ReadRoots::new(&c, "/h", Audience::Personal, Os::Linux);
        let never = |_: &str| false;
        assert!(holds_excluded("/usr"));
        assert!(holds_excluded("/usr/local"));
        assert!(holds_excluded("/usr/local/etc"));
        assert!(!holds_excluded("/usr/share"));
        assert!(!holds_excluded("/usr/localx"));
        if std::path::Path::new("/usr/local").is_dir() {
            assert!(!r.covers(&OsFs, &[touch("/usr/local")], true, never));
            assert!(r.covers(&OsFs, &[touch("/usr/local")], false, never));
        }
        assert!(!r.covers(&OsFs, &[touch("/usr")], true, never));
        assert!(r.covers(&OsFs, &[touch("/usr")], false, never));
        if std::path::Path::new("/usr/share").is_dir() {
            assert!(r.covers(&OsFs, &[touch("/usr/share")], true, never));
        }
    }
}
