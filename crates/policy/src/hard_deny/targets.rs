//! What a destructive command aims at: directories whose recursive loss
//! ruins the machine or the user's account, and device files whose writing
//! destroys a disk, memory or the running system.
//!
//! Paths are resolved lexically against the effective directory (SPEC
//! §9.3: `cd / && rm -rf etc`, `/tmp/../etc`, `~/..`). A glob counts when
//! it stands directly inside such a directory (`/*`, `~/.*`, `/etc/*`,
//! `/*/*`); a run-time piece counts when it stands directly inside one
//! (`/$X`, `~/$X/`), because it may be empty or anything.

use super::words::XArg;
use crate::fs::Fs;
use crate::resolve::{self, Kernel};
use regex::Regex;
use shellgate_shell::paths;
use std::sync::OnceLock;

/// Top-level system directories (SPEC §9.3).
pub const SYSTEM_DIRS: &[&str] = &[
    "/bin", "/boot", "/dev", "/etc", "/lib", "/lib64", "/opt", "/proc", "/root", "/sbin", "/srv",
    "/sys", "/usr", "/var",
];

/// More roots (SPEC §15.7) and the system trees one level down whose loss
/// is the loss of the system.
pub const MORE_ROOTS: &[&str] = &[
    "/home",
    "/Users",
    "/mnt",
    "/media",
    "/usr/local",
    "/nix",
    "/snap",
    "/Applications",
    "/System",
    "/Library",
    "/private",
    "/private/etc",
    "/private/var",
    "/run",
    "/efi",
    "/lib32",
    "/libx32",
    "/boot/efi",
    "/usr/bin",
    "/usr/sbin",
    "/usr/lib",
    "/usr/lib32",
    "/usr/lib64",
    "/usr/libexec",
    "/usr/share",
    "/usr/include",
    "/var/lib",
    "/nix/store",
];

/// Where the command runs and whose home it is; `fs`, when given, lets a
/// target be resolved as the kernel walks it (`dep/../*` with
/// `dep -> ~/cache` is `~/*`).
#[derive(Clone, Copy)]
pub(crate) struct Place<'a> {
    pub home: &'a str,
    pub cwd: Option<&'a str>,
    pub fs: Option<&'a dyn Fs>,
}

/// `/`, a system directory, one of the more roots, an ancestor of the home
/// directory, or (with `home_too`) the home directory itself or another
/// user's home ([`is_user_home`]).
pub(crate) fn is_critical(p: &str, home: &str, home_too: bool) -> bool {
    let home = paths::normalize(home);
    p == "/"
        || SYSTEM_DIRS.contains(&p)
        || MORE_ROOTS.contains(&p)
        || (p != home && paths::is_within(&home, p))
        || (home_too && (p == home || is_user_home(p)))
}

/// A directory that is by convention a user's whole home: a direct child
/// of `/home` or `/Users` (`/home/user`, `/Users/alice`), or `/root`. Its
/// recursive loss is the same catastrophe as the loss of `$HOME`, whoever
/// the gate's own user is (rt12 G2); what is inside it (`/home/user/src`)
/// is not.
pub(crate) fn is_user_home(p: &str) -> bool {
    if p == "/root" {
        return true;
    }
    ["/home/", "/Users/"].iter().any(|parent| {
        p.strip_prefix(parent)
            .is_some_and(|name| !name.is_empty() && !name.contains('/'))
    })
}

/// One segment of a path: its text and whether it holds an unquoted glob
/// metacharacter.
fn segments(text: &str, metas: &[usize]) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut start = 0;
    for seg in text.split('/') {
        let end = start + seg.len();
        let glob = metas.iter().any(|&m| m >= start && m < end);
        out.push((seg.to_string(), glob));
        start = end + 1;
    }
    out
}

/// Normalize segments as the kernel walks them for directories: `.` is
/// dropped, `..` removes the segment before it (globs included: `/*/..` is
/// `/`).
fn normalize(segs: Vec<(String, bool)>) -> Vec<(String, bool)> {
    let mut out: Vec<(String, bool)> = Vec::new();
    for (s, g) in segs {
        match s.as_str() {
            "" | "." if !g => {}
            ".." if !g => {
                out.pop();
            }
            _ => out.push((s, g)),
        }
    }
    out
}

fn join(segs: &[(String, bool)]) -> String {
    let mut p = String::new();
    for (s, _) in segs {
        p.push('/');
        p.push_str(s);
    }
    if p.is_empty() {
        p.push('/');
    }
    p
}

/// The absolute form of a static path text, with the glob mask carried
/// along; `None` for a relative path when the directory is unknown.
fn absolute(text: &str, metas: &[usize], place: Place) -> Option<Vec<(String, bool)>> {
    // `/proc/self/cwd/…` is the command's own directory (rt28b F1): the
    // glob mask is kept for the part after it.
    if let Some(c) = place.cwd {
        if let Some(r) = paths::own_cwd_view(text, c) {
            let shift = r.len() as isize - text.len() as isize;
            let metas: Vec<usize> = metas
                .iter()
                .filter_map(|&m| usize::try_from(m as isize + shift).ok())
                .filter(|&m| m < r.len())
                .collect();
            return Some(normalize(segments(&r, &metas)));
        }
    }
    if text.starts_with('/') {
        return Some(normalize(segments(text, metas)));
    }
    let cwd = place.cwd?;
    let mut segs: Vec<(String, bool)> = cwd
        .split('/')
        .filter(|s| !s.is_empty())
        .map(|s| (s.to_string(), false))
        .collect();
    segs.extend(segments(text, metas));
    Some(normalize(segs))
}

/// [`critical`] for a static target, resolved as the kernel walks it:
/// symbolic links before a `..` or a glob are followed (the last name is
/// not: `rm -rf link` removes the link).
fn kernel_critical(v: &str, metas: &[usize], place: Place, home_too: bool) -> Option<String> {
    let fs = place.fs?;
    let raw = if let Some(r) = place.cwd.and_then(|c| paths::own_cwd_view(v, c)) {
        r
    } else if v.starts_with('/') {
        v.to_string()
    } else {
        resolve::join_raw(place.cwd?, v)
    };
    let shift = raw.len() as isize - v.len() as isize;
    let metas: Vec<usize> = metas
        .iter()
        .filter_map(|&m| usize::try_from(m as isize + shift).ok())
        .collect();
    let segs = segments(&raw, &metas);
    let crit = |p: &str| is_critical(p, place.home, home_too);
    match segs.iter().position(|(_, g)| *g) {
        None => match resolve::kernel(fs, &raw, false) {
            Kernel::Path(k) => crit(&k).then_some(k),
            Kernel::Unresolvable | Kernel::ProcView => None,
        },
        Some(g) => {
            let rest_all_globs = segs[g..]
                .iter()
                .all(|(s, glob)| *glob || s.is_empty() || s == ".");
            if !rest_all_globs {
                return None;
            }
            let dir: Vec<&str> = segs[..g].iter().map(|(s, _)| s.as_str()).collect();
            let dir = format!("{}/", dir.join("/"));
            match resolve::kernel(fs, &dir, true) {
                Kernel::Path(k) => {
                    crit(&k).then(|| format!("{}/{}", k.trim_end_matches('/'), segs[g].0))
                }
                Kernel::Unresolvable | Kernel::ProcView => None,
            }
        }
    }
}

/// Whether a target of a recursive delete, chmod, chown… is critical.
/// Returns the critical directory it reaches.
pub(crate) fn critical(a: &XArg, place: Place, home_too: bool) -> Option<String> {
    let crit = |p: &str| is_critical(p, place.home, home_too);
    match &a.value {
        Some(v) => {
            if v.is_empty() {
                return None;
            }
            let lexical = critical_lexical(v, &a.metas, place, crit);
            lexical.or_else(|| kernel_critical(v, &a.metas, place, home_too))
        }
        None => critical_dynamic(a, place, crit),
    }
}

fn critical_lexical(
    v: &str,
    metas: &[usize],
    place: Place,
    crit: impl Fn(&str) -> bool,
) -> Option<String> {
    let segs = absolute(v, metas, place)?;
    match segs.iter().position(|(_, g)| *g) {
        None => {
            let p = join(&segs);
            crit(&p).then_some(p)
        }
        Some(g) => {
            let dir = join(&segs[..g]);
            let rest_all_globs = segs[g..].iter().all(|(_, glob)| *glob);
            (rest_all_globs && crit(&dir))
                .then(|| format!("{}/{}", dir.trim_end_matches('/'), segs[g].0))
        }
    }
}

fn critical_dynamic(a: &XArg, place: Place, crit: impl Fn(&str) -> bool) -> Option<String> {
    // Unknown piece: it may be empty or anything. Critical when it
    // stands directly inside a critical directory and what follows
    // it adds nothing but separators, `.` or globs.
    if a.prefix.is_empty() {
        return None;
    }
    let tail_inert = segments(&a.tail, &a.tail_metas)
        .iter()
        .skip(1)
        .all(|(s, g)| *g || s.is_empty() || s == ".");
    if !tail_inert {
        return None;
    }
    let dir_text = match a.prefix.rfind('/') {
        Some(0) => "/".to_string(),
        Some(i) => a.prefix[..i].to_string(),
        None => ".".to_string(),
    };
    let prefix_metas: Vec<usize> = a
        .metas
        .iter()
        .copied()
        .filter(|&m| m < dir_text.len())
        .collect();
    let segs = absolute(&dir_text, &prefix_metas, place)?;
    if segs.iter().any(|(_, g)| *g) {
        return None;
    }
    let dir = join(&segs);
    crit(&dir).then(|| format!("{}/…", dir.trim_end_matches('/')))
}

/// What writing a special file does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Special {
    /// A disk, partition, volume or memory device: its contents are lost.
    Disk,
    /// A file whose writing stops, reboots or crashes the machine
    /// (`/proc/sysrq-trigger`, `/sys/power/state`).
    Power,
}

/// Device names (below `/dev/`) of disks, partitions, volumes, RAID and
/// loop devices, memory.
fn disk_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"^(?:(?:sd|hd|vd|xvd)[a-z0-9].*|nvme.*|nvd[0-9].*|ada?[0-9].*|da[0-9].*|wd[0-9].*|mmcblk.*|r?disk.*|mapper/.+|dm-.*|md[0-9_/].*|loop[0-9].*|nbd.*|rbd.*|zd[0-9].*|zvol/.*|bcache.*|drbd.*|sr[0-9].*|scd[0-9].*|fd[0-9].*|mtd.*|ubi.*|block/.*|cciss/.*|root|mem|kmem|port)$",
        )
        .unwrap_or_else(|_| Regex::new("^$").unwrap_or_else(|_| unreachable!()))
    })
}

/// Literal starts of the disk names above, for names only partly known
/// (`/dev/$DISK`, `/dev/sd*`).
const DISK_STARTS: &[&str] = &[
    "sd", "hd", "vd", "xvd", "nvme", "nvd", "ad", "da", "wd", "mmcblk", "disk", "rdisk", "mapper/",
    "dm-", "md", "loop", "nbd", "rbd", "zd", "zvol/", "bcache", "drbd", "sr", "scd", "fd", "mtd",
    "ubi", "block/", "cciss/", "root", "mem", "kmem", "port",
];

/// Device names that are never disks although they start like one.
const NOT_DISKS: &[&str] = &["fd/", "mapper/control", "loop-control", "mem/"];

const POWER_FILES: &[&str] = &["/proc/sysrq-trigger", "/sys/power/state", "/sys/power/disk"];

/// Whether writing `a` destroys a disk or stops the machine.
pub(crate) fn special(a: &XArg, place: Place) -> Option<(Special, String)> {
    let static_text = a.value.as_deref();
    // The known part: the whole path, or the static prefix up to the first
    // glob metacharacter or run-time piece.
    let (known, partial) = match static_text {
        Some(v) => match a.metas.first() {
            Some(&m) => (&v[..m], true),
            None => (v, false),
        },
        None => {
            let end = a.metas.first().copied().unwrap_or(a.prefix.len());
            (&a.prefix[..end], true)
        }
    };
    if known.is_empty() {
        return None;
    }
    let abs = if known.starts_with('/') {
        known.to_string()
    } else {
        format!("{}/{}", place.cwd?, known)
    };
    // Normalize while keeping a trailing partial name (`/dev/s` + `*`).
    let trailing_slash = abs.ends_with('/');
    let mut p = paths::normalize(&abs);
    if partial && trailing_slash && p != "/" {
        p.push('/');
    }
    if !partial && POWER_FILES.contains(&p.as_str()) {
        return Some((Special::Power, p));
    }
    let name = match p.strip_prefix("/dev/") {
        Some(n) => n,
        None if partial && p == "/dev" => "",
        None => return None,
    };
    if NOT_DISKS.iter().any(|s| name.starts_with(s)) {
        return None;
    }
    if !partial {
        return disk_re().is_match(name).then(|| (Special::Disk, p.clone()));
    }
    let could = DISK_STARTS
        .iter()
        .any(|f| f.starts_with(name) || name.starts_with(f));
    could.then(|| (Special::Disk, format!("{p}…")))
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: Place = Place {
        home: "/home/u",
        cwd: Some("/home/u/p"),
        fs: None,
    };

    fn crit(s: &str) -> bool {
        critical(&XArg::glob(s), P, true).is_some()
    }

    #[test]
    fn critical_targets() {
        for t in [
            "/",
            "/etc",
            "/tmp/../etc",
            "~/..",
            "/home/u",
            "/home/u/..",
            "..",
            "../..",
            "/*",
            "/e*",
            "/home/u/*",
            "/home/u/.*",
            "/etc/*",
            "/*/*",
            "/home/u/../*",
            "/usr/local",
            "/Users",
            "/nix",
            "/usr/lib",
            "/.",
            "//",
            "/home/u/p/../../",
        ] {
            let t = t.replace('~', "/home/u");
            assert!(crit(&t), "{t}");
        }
        for t in [
            "/tmp/x",
            "build",
            "/home/u/proj/build",
            "/home/u/*/node_modules",
            "/tmp/*",
            "/usr/local/lib/x",
            "/etc/nginx",
            "/home/u/p/*",
        ] {
            assert!(!crit(t), "{t}");
        }
        // Another user's home, for a delete; not what is inside it.
        for t in [
            "/home/user",
            "/Users/alice",
            "/root",
            "/home/user/",
            "/home/*/",
        ] {
            assert!(crit(t), "{t}");
        }
        for t in [
            "/home/user/project/build",
            "/Users/alice/x",
            "/home/user/*/x",
        ] {
            assert!(!crit(t), "{t}");
        }
        assert!(critical(&XArg::lit("/home/user"), P, false).is_none());
        // chmod/chown: the home itself is not critical, its ancestors are.
        assert!(critical(&XArg::lit("/home/u"), P, false).is_none());
        assert!(critical(&XArg::lit("/home"), P, false).is_some());
    }

    fn dyn_arg(prefix: &str, tail: &str) -> XArg {
        XArg {
            value: None,
            prefix: prefix.into(),
            tail: tail.into(),
            metas: vec![],
            tail_metas: vec![],
            raw: String::new(),
        }
    }

    #[test]
    fn dynamic_targets() {
        assert!(critical(&dyn_arg("/", ""), P, true).is_some());
        assert!(critical(&dyn_arg("/home/u/", "/"), P, true).is_some());
        assert!(critical(&dyn_arg("/usr/", ""), P, true).is_some());
        assert!(critical(&dyn_arg("/", "/build"), P, true).is_none());
        assert!(critical(&dyn_arg("/tmp/", ""), P, true).is_none());
        assert!(critical(&dyn_arg("", "/"), P, true).is_none());
    }

    fn dev(s: &str) -> Option<Special> {
        special(&XArg::glob(s), P).map(|x| x.0)
    }

    #[test]
    fn devices() {
        for d in [
            "/dev/sda",
            "/dev/sda1",
            "/dev/nvme0n1",
            "/dev/nvme0n1p2",
            "/dev/vdb",
            "/dev/xvda",
            "/dev/hda",
            "/dev/mmcblk0",
            "/dev/disk2",
            "/dev/rdisk2",
            "/dev/disk/by-id/x",
            "/dev/mapper/root",
            "/dev/dm-0",
            "/dev/md0",
            "/dev/md/x",
            "/dev/loop0",
            "/dev/mem",
            "/dev/sd*",
            "/dev/s*",
            "/dev/*",
            "/dev/../dev/sda",
            "/dev//sda",
        ] {
            assert_eq!(dev(d), Some(Special::Disk), "{d}");
        }
        for d in [
            "/dev/null",
            "/dev/stdout",
            "/dev/stderr",
            "/dev/tty",
            "/dev/pts/1",
            "/dev/fd/3",
            "/dev/shm/x",
            "/dev/ttyUSB0",
            "/dev/urandom",
            "/dev/zero",
            "/dev/mapper/control",
            "/dev/loop-control",
            "disk.img",
            "/tmp/sda",
            "/dev/tcp/h/1",
        ] {
            assert_eq!(dev(d), None, "{d}");
        }
        assert_eq!(dev("/proc/sysrq-trigger"), Some(Special::Power));
        assert_eq!(
            special(&dyn_arg("/dev/", ""), P).map(|x| x.0),
            Some(Special::Disk)
        );
        assert_eq!(special(&dyn_arg("/dev/tty", ""), P), None);
        assert_eq!(special(&dyn_arg("/dev/fd/", ""), P), None);
        // Relative to the effective directory.
        let in_dev = Place {
            home: "/home/u",
            cwd: Some("/dev"),
            fs: None,
        };
        assert!(special(&XArg::lit("sda"), in_dev).is_some());
    }
}
