//! `system_destructive` on trees: recursive deletes (`rm -r`, `find
//! -delete`, `rsync --delete`), moving a critical tree away, recursive
//! `chmod`/`chown`/`chgrp` of system trees, formatting (`mkfs*`), and
//! stopping the machine.
//!
//! Options are read with the program model (`shellgate_programs`), so
//! `--rec`, `-Rf`, `-rfv`, `--recursive` and `--` mean what GNU getopt_long
//! makes of them. Fail closed: an option the model cannot read (unknown,
//! ambiguous, or only known at run time) next to a critical target denies.

use super::targets::{critical, Place};
use super::words::{getopt, o, LOpt, Val, XArg};
use super::{deny, Cmd, Denial};
use shellgate_programs::{fx, lookup, parse, Arg, Parsed, Role};

const SD: &str = "system_destructive";

pub(super) fn check(c: &Cmd) -> Option<Denial> {
    match c.base.as_str() {
        "rm" | "grm" => rm(&c.args, c.place, "rm"),
        "rimraf" => rimraf(c),
        "find" | "gfind" => find(c),
        "rsync" => rsync(c),
        "mv" | "gmv" => mv(c),
        "chmod" | "chown" | "chgrp" | "gchmod" | "gchown" | "gchgrp" => chmod(c),
        "chattr" => chattr(c),
        "remove-item" => remove_item(c),
        "setfacl" => setfacl(c),
        b if is_formatter(b) => formatter(c),
        _ => volume(c).or_else(|| machine_stop(c)),
    }
}

fn model(id: &str, args: &[XArg]) -> Option<Parsed> {
    let prog = lookup(id)?;
    let a: Vec<Arg> = args.iter().map(XArg::arg).collect();
    Some(parse(prog, &a))
}

/// `rm` (also a program only known at run time read as `rm`): recursive,
/// or options that cannot be read, with a critical operand.
pub(super) fn rm(args: &[XArg], place: Place, what: &str) -> Option<Denial> {
    let p = model("rm", args)?;
    let recursive = p.any_effect(fx::RECURSIVE);
    let unreadable = !p.problems.is_empty();
    if !recursive && !unreadable {
        return None;
    }
    for &i in &p.positionals {
        let Some(a) = args.get(i) else { continue };
        if let Some(t) = critical(a, place, true) {
            if recursive && what == "rm" {
                // The wording the hosts' fixtures show (`rm -r of /`).
                return deny(SD, format!("rm -r of {}", a.raw));
            }
            let how = if recursive {
                "recursively deletes"
            } else {
                "has options that cannot be read (they may be -r) and targets"
            };
            return deny(SD, format!("{what} {how} {t} (`{}`)", a.raw));
        }
    }
    None
}

/// `rimraf PATH…` (npm's `rm -rf`, usually run by `npx`): every operand is
/// deleted recursively, whatever the options.
fn rimraf(c: &Cmd) -> Option<Denial> {
    let mut operands = false;
    for a in &c.args {
        if !operands && a.raw == "--" {
            operands = true;
            continue;
        }
        if !operands && a.raw.starts_with('-') {
            continue;
        }
        if let Some(t) = critical(a, c.place, true) {
            return deny(SD, format!("rimraf recursively deletes {t} (`{}`)", a.raw));
        }
    }
    None
}

/// A critical target of `find -delete`, `rsync --delete` or `mv` that does
/// not hold the home directory. Those that hold it (`/`, the home, its
/// ancestors) hold the gate's own files too, and deleting or moving them is
/// decided by the protected paths (§9.4, contract case adv-229: `find /
/// -delete` is `protected_path`); SPEC §9.3 names `rm` for hard deny.
fn critical_elsewhere(a: &XArg, place: Place) -> Option<String> {
    let t = critical(a, place, true)?;
    let home = shellgate_shell::paths::normalize(place.home);
    let holds_home =
        |p: &str| shellgate_shell::paths::is_within(&home, if p.is_empty() { "/" } else { p });
    // The directory the target may be (a run-time piece may be empty) or
    // whose entries it may be (a glob).
    let dir = if let Some(d) = t.strip_suffix("/…") {
        d.to_string()
    } else if !a.metas.is_empty() {
        t.rsplit_once('/')
            .map_or(String::new(), |(d, _)| d.to_string())
    } else {
        t.clone()
    };
    (!holds_home(&dir)).then_some(t)
}

/// Tests that narrow what `find` selects: with one of them (and no `-o`,
/// `,` or negation) a delete is not the whole tree.
const FIND_NARROWING: &[&str] = &[
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-iwholename",
    "-regex",
    "-iregex",
    "-lname",
    "-ilname",
    "-newer",
    "-anewer",
    "-cnewer",
    "-newermt",
    "-mtime",
    "-mmin",
    "-atime",
    "-amin",
    "-ctime",
    "-cmin",
    "-used",
    "-size",
    "-empty",
    "-user",
    "-group",
    "-uid",
    "-gid",
    "-nouser",
    "-nogroup",
    "-perm",
    "-inum",
    "-samefile",
    "-links",
    "-fstype",
    "-context",
];

/// Programs that delete what `find -exec` hands them.
const DELETERS: &[&str] = &["rm", "grm", "shred", "unlink", "rmdir", "srm"];

/// `find START… -delete` (or `-exec rm …`) over a critical tree with no
/// test that narrows the selection.
fn find(c: &Cmd) -> Option<Denial> {
    let p = model("find", &c.args)?;
    let deletes = p.opts.iter().any(|u| {
        u.opt.has(fx::DELETES)
            || (u.opt.value == Role::Command
                && u.value
                    .and_then(|v| c.args.get(v.at))
                    .and_then(|a| a.value.as_deref())
                    .is_some_and(|prog| DELETERS.contains(&super::program_base(prog).as_str())))
    });
    if !deletes {
        return None;
    }
    let connective = c
        .args
        .iter()
        .any(|a| matches!(a.value.as_deref(), Some("-o" | "-or" | "," | "!" | "-not")));
    let narrowed = !connective
        && p.opts.iter().any(|u| {
            u.opt
                .long
                .iter()
                .any(|l| FIND_NARROWING.contains(&format!("-{l}").as_str()))
        });
    if narrowed {
        return None;
    }
    let starts: Vec<&XArg> = if p.positionals.is_empty() {
        Vec::new()
    } else {
        p.positionals
            .iter()
            .filter_map(|&i| c.args.get(i))
            .collect()
    };
    let dot = XArg::lit(".");
    let starts = if starts.is_empty() {
        vec![&dot]
    } else {
        starts
    };
    for a in starts {
        if let Some(t) = critical_elsewhere(a, c.place) {
            return deny(SD, format!("find deletes everything under {t}"));
        }
    }
    None
}

/// `rsync --delete… SRC DEST` onto a critical tree (local or remote), or
/// `--remove-source-files` of a critical tree.
fn rsync(c: &Cmd) -> Option<Denial> {
    let p = model("rsync", &c.args)?;
    if !p.any_effect(fx::DELETES) {
        return None;
    }
    let ops: Vec<&XArg> = p
        .positionals
        .iter()
        .filter_map(|&i| c.args.get(i))
        .collect();
    let (dest, sources) = ops.split_last()?;
    if p.has("--remove-source-files") {
        for s in sources {
            if let Some(t) = local_or_remote_critical(s, c.place) {
                return deny(SD, format!("rsync deletes the source tree {t}"));
            }
        }
    }
    let only_source_removal = p
        .opts
        .iter()
        .filter(|u| u.opt.has(fx::DELETES))
        .all(|u| u.opt.name == "--remove-source-files");
    if only_source_removal {
        return None;
    }
    local_or_remote_critical(dest, c.place).and_then(|t| {
        deny(
            SD,
            format!("rsync --delete makes {t} a copy of its source, deleting the rest"),
        )
    })
}

/// A local path, or the path part of `host:path` (a remote home for an
/// empty or `~` path).
fn local_or_remote_critical(a: &XArg, place: Place) -> Option<String> {
    let text = a.text();
    if text.starts_with("rsync://") {
        return None;
    }
    let colon = text.find(':');
    let slash = text.find('/');
    let remote = colon.is_some_and(|c| slash.is_none_or(|s| c < s));
    if !remote {
        return critical_elsewhere(a, place);
    }
    let c = colon.unwrap_or(0);
    let path = &text[c + 1..];
    if path.starts_with(':') {
        return None; // host::module (daemon)
    }
    let host = &text[..c];
    if matches!(path, "" | "." | "./" | "~" | "~/") && a.is_static() {
        return Some(format!("{host}:~ (the remote home)"));
    }
    let rest = a.value_from(c + 1);
    let remote_place = Place {
        home: "/nonexistent-remote-home",
        cwd: None,
        fs: None,
    };
    critical(&rest, remote_place, false).map(|t| format!("{host}:{t}"))
}

/// `mv` of `/`, the home, a system tree or an ancestor of the home (a
/// delete of the tree from where everything expects it).
fn mv(c: &Cmd) -> Option<Denial> {
    let p = model("mv", &c.args)?;
    for op in p.operands() {
        if op.role != Role::Delete {
            continue;
        }
        let Some(a) = c.args.get(op.at) else { continue };
        if !a.metas.is_empty() {
            continue;
        }
        if let Some(t) = critical_elsewhere(a, c.place) {
            return deny(SD, format!("mv moves {t} away"));
        }
    }
    None
}

/// Recursive `chmod`/`chown`/`chgrp` of `/`, a system tree or an ancestor
/// of the home (the home itself is the user's to change).
fn chmod(c: &Cmd) -> Option<Denial> {
    let id = c.base.trim_start_matches('g');
    let id = if lookup(id).is_some() { id } else { &c.base };
    let p = model(id, &c.args)?;
    let recursive = p.any_effect(fx::RECURSIVE);
    let unreadable = !p.problems.is_empty();
    if !recursive && !unreadable {
        return None;
    }
    for op in p.operands() {
        if !matches!(op.role, Role::Write | Role::Any) {
            continue;
        }
        let Some(a) = c.args.get(op.at) else { continue };
        if let Some(t) = critical(a, c.place, false) {
            let how = if recursive {
                "recursively changes"
            } else {
                "has options that cannot be read (they may be -R) on"
            };
            return deny(SD, format!("{id} {how} {t}"));
        }
    }
    None
}

/// A critical target of a recursive attribute or ACL change (like
/// [`chmod`]: `/`, a system tree, an ancestor of the home).
fn recursive_change(c: &Cmd, targets: &[&XArg], unreadable: bool) -> Option<Denial> {
    for a in targets {
        if let Some(t) = critical(a, c.place, false) {
            let how = if unreadable {
                "has options that cannot be read (they may be -R) on"
            } else {
                "recursively changes"
            };
            return deny(SD, format!("{} {how} {t}", c.base));
        }
    }
    None
}

/// `chattr -R MODE FILE…` (e2fsprogs): a word starting with `-` is a
/// cluster of options (`R`, `V`, `f`, `v VERSION`, `p PROJECT`) or of
/// attributes to remove, so any such cluster holding `R` recurses;
/// `+MODE`/`=MODE` set attributes. Every other word may be a file.
fn chattr(c: &Cmd) -> Option<Denial> {
    let mut recursive = false;
    let mut unreadable = false;
    let mut files: Vec<&XArg> = Vec::new();
    let mut i = 0;
    while i < c.args.len() {
        let a = &c.args[i];
        i += 1;
        let Some(v) = a.value.as_deref() else {
            if a.prefix.is_empty() || a.prefix.starts_with('-') {
                unreadable = true;
            }
            files.push(a);
            continue;
        };
        if let Some(cluster) = v.strip_prefix('-').filter(|x| !x.is_empty()) {
            recursive |= cluster.contains('R');
            // `-v VERSION`, `-p PROJECT`: the value follows.
            if cluster.ends_with(['v', 'p']) {
                i += 1;
            }
            continue;
        }
        if v.starts_with(['+', '=']) {
            continue;
        }
        files.push(a);
    }
    if !recursive && !unreadable {
        return None;
    }
    recursive_change(c, &files, !recursive)
}

const SETFACL: &[LOpt] = &[
    o('m', "modify", Val::Req),
    o('M', "modify-file", Val::Req),
    o('x', "remove", Val::Req),
    o('X', "remove-file", Val::Req),
    o('\0', "set", Val::Req),
    o('\0', "set-file", Val::Req),
    o('\0', "restore", Val::Req),
    o('\0', "test", Val::No),
    o('\0', "mask", Val::No),
    o('b', "remove-all", Val::No),
    o('k', "remove-default", Val::No),
    o('n', "no-mask", Val::No),
    o('d', "default", Val::No),
    o('R', "recursive", Val::No),
    o('L', "logical", Val::No),
    o('P', "physical", Val::No),
    o('v', "version", Val::No),
    o('h', "help", Val::No),
];

/// `setfacl -R … FILE…` on a critical tree.
fn setfacl(c: &Cmd) -> Option<Denial> {
    let r = getopt(&c.args, SETFACL, true);
    if r.has("help") || r.has("version") {
        return None;
    }
    let recursive = r.has("recursive");
    if !recursive && !r.unreadable() {
        return None;
    }
    let files: Vec<&XArg> = r.operands.iter().filter_map(|&i| c.args.get(i)).collect();
    recursive_change(c, &files, !recursive)
}

/// PowerShell's `Remove-Item -Recurse PATH` (reached through `pwsh -c`):
/// parameters are matched by any unambiguous prefix, case-insensitively
/// (`-r`, `-Rec`); `-Path`/`-LiteralPath` name targets as positional words
/// do; a drive root (`C:\`, or the `C:` bash leaves of it) is `/` there.
fn remove_item(c: &Cmd) -> Option<Denial> {
    let is = |word: &str, full: &str| {
        let l = word.trim_start_matches('-').to_ascii_lowercase();
        let l = l.split(':').next().unwrap_or("").to_string();
        !l.is_empty() && full.starts_with(&l)
    };
    let mut recursive = false;
    let mut targets: Vec<XArg> = Vec::new();
    let mut i = 0;
    while i < c.args.len() {
        let a = &c.args[i];
        i += 1;
        let t = a.text();
        if t.starts_with('-') && t.len() > 1 {
            if is(t, "recurse") {
                recursive = true;
            } else if is(t, "whatif") && t.len() > 2 {
                return None;
            } else if is(t, "path")
                || is(t, "literalpath")
                || is(t, "pspath")
                || t.eq_ignore_ascii_case("-lp")
            {
                if let Some(v) = c.args.get(i) {
                    targets.push(v.clone());
                }
                i += 1;
            } else if ["filter", "include", "exclude", "credential", "stream"]
                .iter()
                .any(|f| is(t, f))
            {
                i += 1;
            }
            continue;
        }
        targets.push(a.clone());
    }
    if !recursive {
        return None;
    }
    for a in &targets {
        let words: Vec<XArg> = match &a.value {
            Some(v) if v.contains(',') => v.split(',').map(XArg::lit).collect(),
            _ => vec![a.clone()],
        };
        for w in &words {
            let v = w.text();
            let drive = v.len() >= 2
                && v.as_bytes()[0].is_ascii_alphabetic()
                && v.as_bytes()[1] == b':'
                && v[2..].chars().all(|ch| ch == '\\' || ch == '/');
            if drive && w.is_static() {
                return deny(SD, format!("Remove-Item -Recurse deletes the drive {v}"));
            }
            if let Some(t) = critical(w, c.place, true) {
                return deny(SD, format!("Remove-Item -Recurse deletes {t}"));
            }
        }
    }
    None
}

// ---------------------------------------------------------------------
// Destroying a whole volume, volume group or pool.

/// `lvremove`, `vgremove` (LVM, also as `lvm lvremove …`), `zpool destroy`,
/// `zfs destroy` of a dataset: every byte of the volume is lost, like
/// `wipefs` or `pvremove` of the disk (rt12 G8). Only help, version and
/// dry runs (`zfs destroy -n`) stay.
fn volume(c: &Cmd) -> Option<Denial> {
    let info = |args: &[XArg]| {
        args.iter().any(|a| {
            matches!(
                a.value.as_deref(),
                Some("--help" | "-h" | "-?" | "--version" | "--test" | "-t")
            )
        })
    };
    let sub = |args: &[XArg]| -> Option<(String, usize)> {
        args.iter()
            .position(|a| !a.text().starts_with('-'))
            .map(|i| (args[i].text().to_string(), i))
    };
    match c.base.as_str() {
        "lvremove" | "vgremove" => (!info(&c.args))
            .then(|| deny(SD, format!("{} destroys every volume it names", c.base)))?,
        "lvm" => {
            let (s, at) = sub(&c.args)?;
            let rest = &c.args[at + 1..];
            (matches!(s.as_str(), "lvremove" | "vgremove") && !info(rest))
                .then(|| deny(SD, format!("lvm {s} destroys every volume it names")))?
        }
        "zpool" => {
            let (s, at) = sub(&c.args)?;
            let rest = &c.args[at + 1..];
            (s == "destroy" && !info(rest))
                .then(|| deny(SD, "zpool destroy destroys the pool and all its data"))?
        }
        "zfs" => {
            let (s, at) = sub(&c.args)?;
            if s != "destroy" {
                return None;
            }
            let rest = &c.args[at + 1..];
            let mut recursive = false;
            let mut dry = false;
            let mut dataset = false;
            for a in rest {
                match a.value.as_deref() {
                    Some(v) if v.starts_with('-') && v.len() > 1 && !v.starts_with("--") => {
                        recursive |= v.contains(['r', 'R']);
                        dry |= v.contains('n');
                    }
                    Some("--") => {}
                    // A snapshot (`pool/fs@snap`) alone is one point in
                    // time; a dataset, or one only known at run time, is
                    // its data.
                    Some(v) => dataset |= !v.contains('@'),
                    None => dataset = true,
                }
            }
            (!dry && (dataset || recursive))
                .then(|| deny(SD, "zfs destroy destroys the dataset and its data"))?
        }
        _ => None,
    }
}

/// Programs that create a file system (the whole target is lost).
pub(super) fn is_formatter(base: &str) -> bool {
    base.starts_with("mkfs")
        || base.starts_with("newfs")
        || matches!(
            base,
            "mke2fs" | "mkdosfs" | "mkntfs" | "mkexfatfs" | "mkexfat" | "mformat"
        )
}

fn formatter(c: &Cmd) -> Option<Denial> {
    let only_info = !c.args.is_empty()
        && c.args.iter().all(|a| {
            matches!(
                a.value.as_deref(),
                Some("--help" | "-h" | "--version" | "-V")
            )
        });
    if only_info {
        return None;
    }
    deny(SD, format!("{} formats a file system", c.base))
}

// ---------------------------------------------------------------------
// Stopping the machine.

const SHUTDOWN: &[LOpt] = &[
    o('H', "halt", Val::No),
    o('P', "poweroff", Val::No),
    o('r', "reboot", Val::No),
    o('h', "", Val::No),
    o('k', "", Val::No),
    o('\0', "no-wall", Val::No),
    o('c', "", Val::No),
    o('\0', "show", Val::No),
    o('\0', "help", Val::No),
    o('\0', "version", Val::No),
    o('t', "", Val::Req),
    o('a', "", Val::No),
    o('f', "", Val::No),
    o('F', "", Val::No),
    o('n', "", Val::No),
    o('s', "", Val::No),
    o('o', "", Val::No),
    o('u', "", Val::No),
    o('q', "", Val::No),
    o('i', "", Val::No),
];

const REBOOT: &[LOpt] = &[
    o('\0', "help", Val::No),
    o('\0', "version", Val::No),
    o('\0', "halt", Val::No),
    o('p', "poweroff", Val::No),
    o('\0', "reboot", Val::No),
    o('f', "force", Val::No),
    o('w', "wtmp-only", Val::No),
    o('d', "no-wtmp", Val::No),
    o('n', "no-sync", Val::No),
    o('\0', "no-wall", Val::No),
    o('q', "", Val::No),
    o('l', "", Val::No),
    o('i', "", Val::No),
];

/// `systemctl` verbs that stop, restart or suspend the machine.
const SYSTEMCTL_STOP_MACHINE: &[&str] = &[
    "poweroff",
    "reboot",
    "halt",
    "kexec",
    "soft-reboot",
    "rescue",
    "emergency",
    "suspend",
    "hibernate",
    "hybrid-sleep",
    "suspend-then-hibernate",
    "sleep",
    "exit",
];

/// Units whose start stops the machine (without `.target`/`.service`).
const MACHINE_STOP_UNITS: &[&str] = &[
    "poweroff",
    "reboot",
    "halt",
    "kexec",
    "soft-reboot",
    "rescue",
    "emergency",
    "suspend",
    "hibernate",
    "hybrid-sleep",
    "suspend-then-hibernate",
    "sleep",
    "ctrl-alt-del",
    "exit",
    "shutdown",
    "final",
    "systemd-poweroff",
    "systemd-reboot",
    "systemd-halt",
    "systemd-kexec",
    "systemd-soft-reboot",
    "systemd-suspend",
    "systemd-hibernate",
    "systemd-exit",
];

/// `systemctl` verbs that start or switch to units.
const SYSTEMCTL_STARTERS: &[&str] = &[
    "start",
    "restart",
    "try-restart",
    "reload-or-restart",
    "try-reload-or-restart",
    "force-reload",
    "condrestart",
    "isolate",
];

fn machine_stop(c: &Cmd) -> Option<Denial> {
    let stop = |what: &str| deny(SD, format!("{what} stops the machine"));
    match c.base.as_str() {
        "shutdown" => {
            let r = getopt(&c.args, SHUTDOWN, true);
            let harmless = ["c", "k", "show", "help", "version"]
                .iter()
                .any(|n| r.has(n))
                || c.args
                    .iter()
                    .any(|a| matches!(a.value.as_deref(), Some("/a" | "/?")));
            (!harmless).then(|| stop("shutdown")).flatten()
        }
        "reboot" | "poweroff" | "halt" => {
            let r = getopt(&c.args, REBOOT, true);
            let harmless = ["help", "version", "wtmp-only"].iter().any(|n| r.has(n));
            (!harmless).then(|| stop(&c.base)).flatten()
        }
        "init" | "telinit" => {
            let level = c
                .args
                .iter()
                .find_map(|a| a.value.as_deref().filter(|v| !v.starts_with('-')));
            match level {
                Some("0" | "6" | "1" | "s" | "S" | "single") => {
                    stop(&format!("{} {}", c.base, level.unwrap_or("")))
                }
                _ => None,
            }
        }
        "kexec" => {
            let execs = c.args.iter().any(|a| {
                matches!(a.value.as_deref(), Some("-e" | "--exec" | "-f" | "--force"))
                    || a.value.as_deref().is_some_and(|v| {
                        v.starts_with('-') && !v.starts_with("--") && v.contains(['e', 'f'])
                    })
            });
            execs.then(|| stop("kexec -e")).flatten()
        }
        "systemctl" => systemctl(c),
        "loginctl" => {
            let verb = c
                .args
                .iter()
                .find_map(|a| a.value.as_deref().filter(|v| !v.starts_with('-')));
            match verb {
                Some(v) if SYSTEMCTL_STOP_MACHINE.contains(&v) && v != "exit" => {
                    stop(&format!("loginctl {v}"))
                }
                _ => None,
            }
        }
        "launchctl" => c
            .args
            .iter()
            .find(|a| !a.text().starts_with('-'))
            .is_some_and(|a| a.value.as_deref() == Some("reboot"))
            .then(|| stop("launchctl reboot"))
            .flatten(),
        "osascript" => osascript_stop(c).then(|| stop("osascript")).flatten(),
        "dbus-send" | "busctl" | "gdbus" | "qdbus" | "qdbus6" | "qdbus-qt5" | "qdbus-qt6"
        | "dbus" => dbus_stop(c).and_then(|m| stop(&format!("{} {m}", c.base))),
        "gnome-session-quit" | "xfce4-session-logout" | "lxqt-leave" => c
            .args
            .iter()
            .any(|a| {
                a.value.as_deref().is_some_and(|v| {
                    matches!(
                        v,
                        "--power-off" | "--reboot" | "--halt" | "--poweroff" | "--restart"
                    ) || v.starts_with("--power")
                })
            })
            .then(|| stop(&c.base))
            .flatten(),
        "pmset" => c
            .args
            .iter()
            .any(|a| {
                matches!(
                    a.value.as_deref(),
                    Some("sleepnow" | "shutdown" | "restart")
                )
            })
            .then(|| stop("pmset"))
            .flatten(),
        _ => None,
    }
}

/// `osascript -e 'tell application "System Events" to shut down'` (or
/// `restart`, or the raw Apple events of the login window): the code of
/// every `-e`, joined as osascript joins them.
fn osascript_stop(c: &Cmd) -> bool {
    let mut code = String::new();
    let mut i = 0;
    while i < c.args.len() {
        let v = c.args[i].text();
        if v == "-e" {
            if let Some(x) = c.args.get(i + 1) {
                code.push_str(x.text());
                code.push('\n');
            }
            i += 2;
            continue;
        }
        i += 1;
    }
    let lower = code.to_ascii_lowercase();
    let flat: String = lower.split_whitespace().collect::<Vec<_>>().join(" ");
    const EVENTS: &[&str] = &["aevtrsdn", "aevtrrst", "aevtshut", "aevtrlgo"];
    if EVENTS.iter().any(|e| flat.contains(e)) {
        return true;
    }
    let targets = ["system events", "finder", "loginwindow"];
    let tells = flat.contains("tell") && targets.iter().any(|t| flat.contains(t));
    tells && (flat.contains("shut down") || flat.contains("restart") || flat.contains("sleep"))
}

/// Managers whose methods stop the machine (what `systemctl poweroff` and
/// the desktops call over D-Bus).
const DBUS_MANAGERS: &[&str] = &[
    "org.freedesktop.login1.manager",
    "org.freedesktop.consolekit.manager",
    "org.freedesktop.systemd1.manager",
];

/// Their methods that stop, restart or suspend the machine.
const DBUS_STOP_METHODS: &[&str] = &[
    "poweroff",
    "reboot",
    "halt",
    "kexec",
    "softreboot",
    "suspend",
    "hibernate",
    "hybridsleep",
    "suspendthenhibernate",
    "poweroffwithflags",
    "rebootwithflags",
    "haltwithflags",
    "suspendwithflags",
    "hibernatewithflags",
    "stop",
    "restart",
    "scheduleshutdown",
];

/// A D-Bus call (`dbus-send … org.freedesktop.login1.Manager.PowerOff`,
/// `busctl call … org.freedesktop.login1.Manager PowerOff`, `gdbus call
/// --method org.freedesktop.login1.Manager.Reboot`) of a method that stops
/// the machine; returns the method.
fn dbus_stop(c: &Cmd) -> Option<String> {
    let words: Vec<String> = c
        .args
        .iter()
        .map(|a| {
            let t = a.text().to_ascii_lowercase();
            // `--method=X`, `--dest=X`: the value.
            match t.split_once('=') {
                Some((k, v)) if k.starts_with('-') => v.to_string(),
                _ => t,
            }
        })
        .collect();
    let stops = |method: &str, rest: &[String]| {
        DBUS_STOP_METHODS.contains(&method)
            || (matches!(
                method,
                "startunit" | "restartunit" | "reloadorrestartunit" | "tryrestartunit"
            ) && rest
                .iter()
                .any(|u| MACHINE_STOP_UNITS.contains(&unit_stem(u))))
    };
    for (i, w) in words.iter().enumerate() {
        let rest = &words[i + 1..];
        // `qdbus org.freedesktop.login1 /org/freedesktop/login1 PowerOff`.
        let on_object =
            w == "/org/freedesktop/login1" || w == "/org/freedesktop/consolekit/manager";
        for m in DBUS_MANAGERS
            .iter()
            .copied()
            .chain(on_object.then_some(w.as_str()))
        {
            // `IFACE.METHOD` in one word, or `IFACE METHOD` (busctl).
            let (method, after) = match w.strip_prefix(m) {
                Some("") => match rest.split_first() {
                    Some((x, after)) => (x.as_str(), after),
                    None => continue,
                },
                Some(r) => match r.strip_prefix('.') {
                    Some(x) if !on_object => (x, rest),
                    _ => continue,
                },
                None => continue,
            };
            if stops(method, after) {
                return Some(method.to_string());
            }
        }
    }
    None
}

/// systemctl's options that take a value (getopt_long).
pub(super) const SYSTEMCTL_OPTS: &[LOpt] = &[
    o('t', "type", Val::Req),
    o('\0', "state", Val::Req),
    o('p', "property", Val::Req),
    o('P', "", Val::Req),
    o('s', "signal", Val::Req),
    o('\0', "kill-whom", Val::Req),
    o('\0', "kill-value", Val::Req),
    o('H', "host", Val::Req),
    o('M', "machine", Val::Req),
    o('\0', "root", Val::Req),
    o('\0', "image", Val::Req),
    o('\0', "image-policy", Val::Req),
    o('o', "output", Val::Req),
    o('n', "lines", Val::Req),
    o('\0', "job-mode", Val::Req),
    o('\0', "preset-mode", Val::Req),
    o('\0', "what", Val::Req),
    o('\0', "boot-loader-menu", Val::Req),
    o('\0', "boot-loader-entry", Val::Req),
    o('\0', "timestamp", Val::Req),
    o('\0', "reboot-argument", Val::Req),
    o('\0', "message", Val::Req),
    o('\0', "when", Val::Req),
    o('\0', "drop-in", Val::Req),
    o('\0', "check-inhibitors", Val::Req),
    o('\0', "kernel-cmdline", Val::Req),
    o('a', "all", Val::No),
    o('l', "full", Val::No),
    o('r', "recursive", Val::No),
    o('q', "quiet", Val::No),
    o('f', "force", Val::No),
    o('i', "ignore-inhibitors", Val::No),
    o('\0', "user", Val::No),
    o('\0', "system", Val::No),
    o('\0', "global", Val::No),
    o('\0', "now", Val::No),
    o('\0', "no-block", Val::No),
    o('\0', "no-wall", Val::No),
    o('\0', "no-pager", Val::No),
    o('\0', "no-legend", Val::No),
    o('\0', "no-ask-password", Val::No),
    o('\0', "no-reload", Val::No),
    o('\0', "runtime", Val::No),
    o('\0', "wait", Val::No),
    o('\0', "dry-run", Val::No),
    o('\0', "help", Val::No),
    o('\0', "version", Val::No),
    o('h', "", Val::No),
    o('\0', "show-types", Val::No),
    o('\0', "value", Val::No),
    o('\0', "plain", Val::No),
    o('\0', "firmware-setup", Val::No),
    o('\0', "marked", Val::No),
    o('\0', "read-only", Val::No),
    o('\0', "mkdir", Val::No),
    o('\0', "failed", Val::No),
    o('\0', "reverse", Val::No),
    o('\0', "after", Val::No),
    o('\0', "before", Val::No),
    o('\0', "with-dependencies", Val::No),
    o('\0', "job-mode", Val::Req),
    o('\0', "legend", Val::Req),
];

/// The verb and unit words of a systemctl call. With an option it cannot
/// read, every operand may be the verb (fail closed).
pub(super) fn systemctl_words(args: &[XArg]) -> (Vec<String>, Vec<XArg>, bool) {
    let r = getopt(args, SYSTEMCTL_OPTS, true);
    let ops: Vec<XArg> = r
        .operands
        .iter()
        .filter_map(|&i| args.get(i).cloned())
        .collect();
    let verbs: Vec<String> = if r.unreadable() {
        ops.iter().filter_map(|a| a.value.clone()).collect()
    } else {
        ops.first()
            .and_then(|a| a.value.clone())
            .into_iter()
            .collect()
    };
    let help = r.has("help") || r.has("h") || r.has("version") || r.has("dry-run");
    (verbs, ops, help)
}

fn systemctl(c: &Cmd) -> Option<Denial> {
    let (verbs, ops, help) = systemctl_words(&c.args);
    let cancels = getopt(&c.args, SYSTEMCTL_OPTS, true)
        .values("when", &c.args)
        .iter()
        .any(|w| w.text() == "cancel");
    if help || cancels {
        return None;
    }
    for v in &verbs {
        if SYSTEMCTL_STOP_MACHINE.contains(&v.as_str()) {
            return deny(SD, format!("systemctl {v} stops the machine"));
        }
        if SYSTEMCTL_STARTERS.contains(&v.as_str()) {
            for u in ops.iter().skip(1) {
                if unit_matches(u, |name| {
                    let stem = unit_stem(name);
                    MACHINE_STOP_UNITS.contains(&stem)
                }) {
                    return deny(SD, format!("systemctl {v} {} stops the machine", u.raw));
                }
            }
        }
    }
    None
}

/// A unit name without its type suffix.
pub(super) fn unit_stem(name: &str) -> &str {
    for s in [".target", ".service", ".socket", ".scope", ".slice"] {
        if let Some(x) = name.strip_suffix(s) {
            return x;
        }
    }
    name
}

/// Whether a unit word (a name or a glob systemctl matches with fnmatch)
/// names a unit that `pred` accepts, among the candidate names `pred` is
/// tried on.
pub(super) fn unit_matches(u: &XArg, pred: impl Fn(&str) -> bool) -> bool {
    let Some(v) = u.value.as_deref() else {
        // A unit only known at run time: the static parts decide nothing.
        return false;
    };
    let v = v.to_ascii_lowercase();
    if v.contains(['*', '?', '[']) {
        // systemctl appends `.service` to a pattern without a unit suffix.
        let with_suffix = format!("{v}.service");
        return CANDIDATE_UNITS.iter().any(|cand| {
            (super::signals::fnmatch(&v, cand) || super::signals::fnmatch(&with_suffix, cand))
                && pred(cand)
        });
    }
    pred(&v)
}

/// Unit names tried against unit globs.
const CANDIDATE_UNITS: &[&str] = &[
    "shellgate.service",
    "shellgate-serve.service",
    "shellgate.socket",
    "shellgate-serve.socket",
    "user@1000.service",
    "user-1000.slice",
    "user.slice",
    "session-1.scope",
    "init.scope",
    "poweroff.target",
    "reboot.target",
    "halt.target",
    "kexec.target",
    "rescue.target",
    "emergency.target",
    "suspend.target",
    "hibernate.target",
    "ctrl-alt-del.target",
    "exit.target",
    "shutdown.target",
    "multi-user.target",
    "graphical.target",
    "default.target",
    "basic.target",
    "sysinit.target",
];
