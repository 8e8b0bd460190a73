//! `system_destructive`: writing a disk device (or memory, or a file whose
//! writing stops the machine) by any program — through a write redirect,
//! an operand or option value the program model says is written, `dd
//! of=`, or one of the disk tools below. Reading a device (`cat /dev/sda |
//! head`) is not hard-denied here: it is left to the ordinary rules.

use super::targets::{special, Place, Special};
use super::words::{getopt, o, LOpt, Val, XArg};
use super::{deny, Cmd, Denial};
use shellgate_programs::{lookup, parse, Arg, Role};
use shellgate_shell::syntax::{RedirTarget, Redirect};

const SD: &str = "system_destructive";

fn found(what: &str, s: Special, target: &str) -> Option<Denial> {
    match s {
        Special::Disk => deny(SD, format!("{what} writes the device {target}")),
        Special::Power => deny(
            SD,
            format!("{what} writes {target}, which stops the machine"),
        ),
    }
}

/// Write redirects of any command.
pub(super) fn redirects(rs: &[Redirect], place: Place) -> Option<Denial> {
    for r in rs {
        if !r.kind.writes() {
            continue;
        }
        let RedirTarget::File(w) = &r.target else {
            continue;
        };
        for a in super::words::expand(w, place.home) {
            if let Some((s, t)) = special(&a, place) {
                return found(&format!("the redirect `{}`", r.render()), s, &t);
            }
        }
    }
    None
}

pub(super) fn check(c: &Cmd) -> Option<Denial> {
    if let Some(d) = redirects(c.redirects, c.place) {
        return Some(d);
    }
    if let Some(d) = inline_code(c) {
        return Some(d);
    }
    let base = c.base.as_str();
    if matches!(base, "dd" | "dcfldd" | "dc3dd") {
        return dd(c);
    }
    if let Some(d) = local_tools(c) {
        return Some(d);
    }
    by_model(c)
}

fn dev(c: &Cmd, a: &XArg) -> Option<Denial> {
    special(a, c.place).and_then(|(s, t)| found(&c.base, s, &t))
}

/// `dd of=DEV` (and dcfldd/dc3dd's other outputs).
fn dd(c: &Cmd) -> Option<Denial> {
    for a in &c.args {
        let t = a.text();
        for key in ["of=", "hof=", "ofs=", "hofs=", "vf="] {
            if t.starts_with(key) {
                if let Some(d) = dev(c, &a.value_from(key.len())) {
                    return Some(d);
                }
            }
        }
    }
    None
}

/// A write target that is a directory under `/dev` (`cp -t /dev sda`,
/// `cp x /dev/`): the sources' names land there and overwrite a device
/// of the same name.
fn into_dev_dir(c: &Cmd, target: &XArg, sources: &[&XArg]) -> Option<Denial> {
    let dir = target.value.as_deref()?;
    let abs = if dir.starts_with('/') {
        shellgate_shell::paths::normalize(dir)
    } else {
        shellgate_shell::paths::resolve(c.place.cwd?, dir)
    };
    if abs != "/dev" && !abs.starts_with("/dev/") {
        return None;
    }
    sources.iter().find_map(|s| {
        let name = shellgate_shell::paths::basename(s.text());
        if name.is_empty() {
            return None;
        }
        dev(c, &XArg::lit(&format!("{abs}/{name}")))
    })
}

/// Programs with a spec: operands and option values whose role writes.
fn by_model(c: &Cmd) -> Option<Denial> {
    let prog = lookup(&c.base)?;
    let args: Vec<Arg> = c.args.iter().map(XArg::arg).collect();
    let p = parse(prog, &args);
    for u in &p.opts {
        if u.negated || u.opt.arity == shellgate_programs::Arity::None {
            continue;
        }
        if !matches!(u.opt.value, Role::Write | Role::ReadWrite | Role::Delete) {
            continue;
        }
        if let Some(v) = u.value {
            if let Some(a) = c.args.get(v.at) {
                if let Some(d) = dev(c, &a.value_from(v.offset)) {
                    return Some(d);
                }
                let sources: Vec<&XArg> = p
                    .positionals
                    .iter()
                    .filter_map(|&i| c.args.get(i))
                    .collect();
                if let Some(d) = into_dev_dir(c, &a.value_from(v.offset), &sources) {
                    return Some(d);
                }
            }
        }
    }
    let ops = p.operands();
    for op in &ops {
        if op.role != Role::Write
            || !matches!(c.base.as_str(), "cp" | "mv" | "install" | "ln" | "rsync")
        {
            continue;
        }
        let Some(target) = c.args.get(op.at) else {
            continue;
        };
        let sources: Vec<&XArg> = ops
            .iter()
            .filter(|o| o.at != op.at)
            .filter_map(|o| c.args.get(o.at))
            .collect();
        if let Some(d) = into_dev_dir(c, target, &sources) {
            return Some(d);
        }
    }
    for op in p.operands() {
        if !matches!(op.role, Role::Write | Role::ReadWrite | Role::Delete) {
            continue;
        }
        if let Some(a) = c.args.get(op.at) {
            if let Some(d) = dev(c, a) {
                return Some(d);
            }
        }
    }
    None
}

const TEE: &[LOpt] = &[
    o('a', "append", Val::No),
    o('i', "ignore-interrupts", Val::No),
    o('p', "", Val::No),
    o('\0', "output-error", Val::Opt),
    o('\0', "help", Val::No),
    o('\0', "version", Val::No),
];

const WIPEFS: &[LOpt] = &[
    o('a', "all", Val::No),
    o('b', "backup", Val::Opt),
    o('f', "force", Val::No),
    o('i', "noheadings", Val::No),
    o('J', "json", Val::No),
    o('\0', "lock", Val::Opt),
    o('n', "no-act", Val::No),
    o('O', "output", Val::Req),
    o('o', "offset", Val::Req),
    o('p', "parsable", Val::No),
    o('q', "quiet", Val::No),
    o('t', "types", Val::Req),
    o('h', "help", Val::No),
    o('V', "version", Val::No),
];

const PV: &[LOpt] = &[
    o('p', "progress", Val::No),
    o('t', "timer", Val::No),
    o('e', "eta", Val::No),
    o('I', "fineta", Val::No),
    o('r', "rate", Val::No),
    o('a', "average-rate", Val::No),
    o('b', "bytes", Val::No),
    o('8', "bits", Val::No),
    o('k', "si", Val::No),
    o('T', "buffer-percent", Val::No),
    o('A', "last-written", Val::Req),
    o('F', "format", Val::Req),
    o('x', "extra-display", Val::Req),
    o('v', "stats", Val::No),
    o('n', "numeric", Val::No),
    o('q', "quiet", Val::No),
    o('o', "output", Val::Req),
    o('W', "wait", Val::No),
    o('D', "delay-start", Val::Req),
    o('s', "size", Val::Req),
    o('g', "gauge", Val::No),
    o('l', "line-mode", Val::No),
    o('0', "null", Val::No),
    o('i', "interval", Val::Req),
    o('m', "average-rate-window", Val::Req),
    o('w', "width", Val::Req),
    o('H', "height", Val::Req),
    o('N', "name", Val::Req),
    o('f', "force", Val::No),
    o('c', "cursor", Val::No),
    o('L', "rate-limit", Val::Req),
    o('B', "buffer-size", Val::Req),
    o('C', "no-splice", Val::No),
    o('E', "skip-errors", Val::No),
    o('Z', "error-skip-block", Val::Req),
    o('S', "stop-at-size", Val::No),
    o('Y', "sync", Val::No),
    o('K', "direct-io", Val::No),
    o('X', "discard", Val::No),
    o('d', "watchfd", Val::Req),
    o('R', "remote", Val::Req),
    o('P', "pidfile", Val::Req),
    o('U', "store-and-forward", Val::Req),
    o('h', "help", Val::No),
    o('V', "version", Val::No),
];

/// Partition editors and their listing-only options.
const PARTITION_EDITORS: &[(&str, &[&str])] = &[
    (
        "fdisk",
        &[
            "-l",
            "--list",
            "-s",
            "--getsz",
            "-V",
            "--version",
            "-h",
            "--help",
            "-x",
            "--list-details",
            "-u",
            "--units",
        ],
    ),
    (
        "sfdisk",
        &[
            "-l",
            "--list",
            "-d",
            "--dump",
            "-J",
            "--json",
            "-s",
            "--show-size",
            "-g",
            "--show-geometry",
            "-V",
            "--verify",
            "-F",
            "--list-free",
            "-n",
            "--no-act",
            "--help",
            "-h",
            "--version",
        ],
    ),
    ("gdisk", &["-l"]),
    (
        "sgdisk",
        &[
            "-p",
            "--print",
            "-v",
            "--verify",
            "-i",
            "--info",
            "-O",
            "--print-mbr",
            "-L",
            "--list-types",
            "-P",
            "--pretend",
            "-?",
            "--help",
            "-V",
            "--version",
        ],
    ),
    ("cgdisk", &[]),
    ("cfdisk", &[]),
    (
        "parted",
        &["-l", "--list", "-h", "--help", "-v", "--version"],
    ),
];

/// Tools whose device operands are always written.
const ALWAYS_WRITE: &[&str] = &[
    "mkswap",
    "blkdiscard",
    "mkfs",
    "mke2fs",
    "pvcreate",
    "pvremove",
    "vgcreate",
    "vgextend",
    "bmaptool",
    "ddrescue",
    "xxd",
    // SCSI sanitize (erases the medium).
    "sg_sanitize",
];

fn any_device(c: &Cmd, skip_first: usize) -> Option<Denial> {
    c.args
        .iter()
        .filter(|a| !a.text().starts_with('-'))
        .skip(skip_first)
        .find_map(|a| dev(c, a))
}

fn local_tools(c: &Cmd) -> Option<Denial> {
    let base = c.base.as_str();
    match base {
        "tee" => {
            let r = getopt(&c.args, TEE, true);
            r.operands
                .iter()
                .filter_map(|&i| c.args.get(i))
                .find_map(|a| dev(c, a))
        }
        // SCSI low-level format (rt28a: `sg_format --format /dev/sda`);
        // without `-F` it only reports.
        "sg_format"
            if c.args.iter().any(|a| {
                let t = a.text();
                t == "--format"
                    || t.starts_with("--format=")
                    || (t.starts_with('-') && !t.starts_with("--") && t.contains('F'))
            }) =>
        {
            any_device(c, 0)
        }
        // Writing or erasing the machine's firmware flash (rt28a:
        // `flashrom -p internal -w x.bin`): a machine that may not boot.
        "flashrom" => c
            .args
            .iter()
            .any(|a| {
                let t = a.text();
                matches!(t, "-w" | "--write" | "-E" | "--erase")
                    || t.starts_with("--write=")
                    || (t.starts_with('-') && !t.starts_with("--") && t.contains(['w', 'E']))
            })
            .then(|| {
                deny(
                    "system_destructive",
                    "flashrom writes or erases the firmware flash",
                )
            })
            .flatten(),
        "wipefs" => {
            let r = getopt(&c.args, WIPEFS, true);
            let erases = (r.has("all") || r.has("offset") || r.unreadable()) && !r.has("no-act");
            if erases {
                any_device(c, 0)
            } else {
                None
            }
        }
        "pv" => {
            let r = getopt(&c.args, PV, true);
            if let Some(d) = r.values("output", &c.args).iter().find_map(|a| dev(c, a)) {
                return Some(d);
            }
            if r.unreadable() {
                // An option pv's table lacks may carry the output file.
                return c.args.iter().find_map(|a| dev(c, a));
            }
            None
        }
        "xxd" => {
            // xxd [options] [infile [outfile]]: the second operand is written.
            let mut ops = Vec::new();
            let mut i = 0;
            while i < c.args.len() {
                let t = c.args[i].text();
                if matches!(
                    t,
                    "-c" | "-g"
                        | "-l"
                        | "-o"
                        | "-s"
                        | "-n"
                        | "-cols"
                        | "-groupsize"
                        | "-len"
                        | "-seek"
                        | "-name"
                ) {
                    i += 2;
                    continue;
                }
                if !t.starts_with('-') || t == "-" {
                    ops.push(i);
                }
                i += 1;
            }
            ops.get(1)
                .and_then(|&i| c.args.get(i))
                .and_then(|a| dev(c, a))
        }
        "ddrescue" => any_device(c, 1),
        "bmaptool" => any_device(c, 2),
        "badblocks" => {
            let writes = c.args.iter().any(|a| {
                let t = a.text();
                t.starts_with('-') && !t.starts_with("--") && t.contains(['w', 'n'])
            });
            if writes {
                any_device(c, 0)
            } else {
                None
            }
        }
        "hdparm" => {
            const ERASERS: &[&str] = &[
                "--security-erase",
                "--security-erase-enhanced",
                "--trim-sector-ranges",
                "--trim-sector-ranges-stdin",
                "--write-sector",
                "--make-bad-sector",
                "--fwdownload",
                "--fwdownload-mode3",
                "--fwdownload-mode3-max",
                "--fwdownload-mode7",
                "--fwdownload-modee",
                "--fwdownload-modee-max",
                "--dco-restore",
                "--dco-setmax",
                "-N",
                "--security-set-pass",
            ];
            let erases = c.args.iter().any(|a| ERASERS.contains(&a.text()));
            if erases {
                any_device(c, 0)
            } else {
                None
            }
        }
        "cryptsetup" => {
            const ERASERS: &[&str] = &[
                "luksformat",
                "format",
                "erase",
                "lukserase",
                "reencrypt",
                "convert",
                "repair",
            ];
            let erases = c
                .args
                .iter()
                .any(|a| ERASERS.contains(&a.text().to_ascii_lowercase().as_str()));
            if erases {
                any_device(c, 0)
            } else {
                None
            }
        }
        "mdadm" => {
            const WRITERS: &[&str] = &[
                "--create",
                "--zero-superblock",
                "--build",
                "--add",
                "--re-add",
                "--replace",
                "--grow",
                "--add-spare",
            ];
            let writes = c.args.iter().any(|a| {
                let t = a.text();
                (t.len() >= 4
                    && t.starts_with("--")
                    && WRITERS
                        .iter()
                        .any(|w| w.starts_with(t.split('=').next().unwrap_or(t))))
                    || (t.starts_with('-')
                        && !t.starts_with("--")
                        && t.contains(['C', 'B', 'a', 'G']))
            });
            if writes {
                any_device(c, 0)
            } else {
                None
            }
        }
        "nvme" => {
            let sub = c
                .args
                .iter()
                .find(|a| !a.text().starts_with('-'))
                .map(XArg::text);
            if matches!(
                sub,
                Some(
                    "format"
                        | "sanitize"
                        | "write-zeroes"
                        | "write"
                        | "write-uncor"
                        | "dsm"
                        | "ns-delete"
                        | "delete-ns"
                        | "fw-download"
                )
            ) {
                any_device(c, 1)
            } else {
                None
            }
        }
        "zpool" => {
            let sub = c
                .args
                .iter()
                .find(|a| !a.text().starts_with('-'))
                .map(XArg::text);
            if matches!(
                sub,
                Some("create" | "add" | "attach" | "replace" | "labelclear" | "initialize")
            ) {
                any_device(c, 1)
            } else {
                None
            }
        }
        "diskutil" => {
            const ERASERS: &[&str] = &[
                "erasedisk",
                "erasevolume",
                "partitiondisk",
                "zerodisk",
                "randomdisk",
                "secureerase",
                "reformat",
                "splitpartition",
                "mergepartitions",
                "resizevolume",
                "apfs",
            ];
            let erases = c
                .args
                .iter()
                .any(|a| ERASERS.contains(&a.text().to_ascii_lowercase().as_str()));
            erases
                .then(|| deny(SD, "diskutil erases or repartitions a disk"))
                .flatten()
        }
        "socat" => c.args.iter().find_map(|a| {
            // OPEN:/CREATE:/GOPEN: addresses write their file.
            let t = a.value.as_deref()?;
            for side in t.split("!!") {
                let lower = side.to_ascii_lowercase();
                for key in ["open:", "create:", "creat:", "gopen:", "file:"] {
                    if lower.starts_with(key) {
                        let path = side[key.len()..].split(',').next().unwrap_or("");
                        if let Some(d) = dev(c, &XArg::lit(path)) {
                            return Some(d);
                        }
                    }
                }
            }
            None
        }),
        _ => {
            if ALWAYS_WRITE.contains(&base) {
                return any_device(c, 0);
            }
            if let Some((_, listing)) = PARTITION_EDITORS.iter().find(|(n, _)| *n == base) {
                // Listing only when every option lists (`sgdisk -p -Z` zaps).
                let opts: Vec<&str> = c
                    .args
                    .iter()
                    .map(XArg::text)
                    .filter(|t| t.starts_with('-'))
                    .collect();
                let mut lists = !opts.is_empty() && opts.iter().all(|t| listing.contains(t));
                if base == "parted"
                    && !lists
                    && opts
                        .iter()
                        .all(|t| matches!(*t, "-s" | "--script" | "-m" | "--machine"))
                {
                    // `parted DEV print`: script commands that only print.
                    let words: Vec<&str> = c
                        .args
                        .iter()
                        .map(XArg::text)
                        .filter(|t| !t.starts_with('-'))
                        .collect();
                    lists = words.len() > 1
                        && words[1..].iter().all(|w| {
                            matches!(
                                *w,
                                "print"
                                    | "p"
                                    | "unit"
                                    | "s"
                                    | "B"
                                    | "MB"
                                    | "GB"
                                    | "MiB"
                                    | "GiB"
                                    | "%"
                                    | "cyl"
                                    | "chs"
                                    | "compact"
                            )
                        });
                }
                if lists {
                    return None;
                }
                return any_device(c, 0);
            }
            None
        }
    }
}

/// An extra net for static inline code of interpreters (`python -c
/// "open('/dev/sda','wb')…"`): a disk device path named in code that opens
/// files for writing.
fn inline_code(c: &Cmd) -> Option<Denial> {
    super::reverse_shell::lang(&c.base).filter(|l| *l != super::reverse_shell::Lang::Shell)?;
    let code: String = c
        .args
        .iter()
        .filter_map(|a| a.value.as_deref())
        .collect::<Vec<_>>()
        .join(" ");
    let writes = [
        "'w", "\"w", "'r+", "\"r+", "'a", "\"a", "o_wronly", "o_rdwr", "write", "open(", ">",
    ]
    .iter()
    .any(|m| code.to_ascii_lowercase().contains(m));
    if !writes {
        return None;
    }
    for (i, _) in code.match_indices("/dev/") {
        let path: String = code[i..]
            .chars()
            .take_while(|ch| {
                ch.is_ascii_alphanumeric() || matches!(ch, '/' | '-' | '_' | '.' | ':')
            })
            .collect();
        if let Some((s, t)) = special(&XArg::lit(&path), c.place) {
            if s == Special::Disk {
                return found(&format!("{} code", c.base), s, &t);
            }
        }
    }
    None
}
