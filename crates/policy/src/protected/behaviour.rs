//! How a command treats the paths it names (§9.4): recursion, following
//! links, listing, a destination last.

use shellgate_shell::analyze::Invocation;
use shellgate_shell::word::Word;

/// How a command treats the paths it names (§9.4).
#[derive(Debug, Clone, Copy, Default)]
pub struct Behaviour {
    /// Qualifies as read-only (§8.1) and has no write redirect.
    pub reader: bool,
    /// Deletes, moves or changes permissions recursively.
    pub recursive_write: bool,
    /// Reads recursively (grep -r, rg, tar -c, zip -r, cp -r, rsync, scp -r).
    pub recursive_read: bool,
    /// The last operand is written recursively (kept for callers that have
    /// no argv; [`assess`] reads what copies and extractions create
    /// instead).
    pub extracts_into_last: bool,
    /// Lists names only (ls, find without actions, tree, du).
    pub lists: bool,
    /// Follows symbolic links while walking a tree (`grep -R`, `rg -L`,
    /// `find -L`, `tree -l`, `du -L`, `ls -RL`).
    pub follows_links: bool,
    /// The last operand is a destination: what is created there is judged
    /// by [`Protected::creates_protected`], not as a recursive write.
    pub dest_last: bool,
    /// A directory operand is read file by file, links followed, even
    /// without a recursion option (the program model's `dir_reads`: `diff
    /// d1 d2`): a directory operand counts as a recursive read that follows
    /// links, a plain file as a plain read.
    pub dir_reads: bool,
}

impl Behaviour {
    /// Whether an operand is read as a tree (recursively, or as a directory
    /// of a `dir_reads` program), given whether it is a directory.
    pub fn reads_tree(&self, is_dir: bool) -> bool {
        self.recursive_read || (self.dir_reads && is_dir)
    }

    /// Whether the links in an operand's tree are followed.
    pub fn follows_in(&self, is_dir: bool) -> bool {
        self.follows_links || (self.dir_reads && is_dir)
    }
}

fn words(argv: &[Word]) -> Vec<String> {
    argv.iter()
        .map(|w| w.literal().unwrap_or_else(|| w.lossy_value()))
        .collect()
}

fn has_short(args: &[String], c: char) -> bool {
    args.iter()
        .any(|a| a.starts_with('-') && !a.starts_with("--") && a[1..].contains(c))
}

/// Whether a long option is given, in any spelling getopt accepts: whole,
/// with `=VALUE`, or abbreviated (`--rec` for `--recursive`). Counting
/// every prefix of at least one letter errs towards "given", the strict
/// side for each use here.
fn has_long(args: &[String], l: &str) -> bool {
    args.iter().any(|a| {
        if !a.starts_with("--") || a.len() < 3 {
            return a == l;
        }
        let name = a.split_once('=').map_or(a.as_str(), |(n, _)| n);
        name.len() >= 3 && l.starts_with(name)
    })
}

/// Classify a command's recursion behaviour.
pub fn behaviour(inv: &Invocation, reader: bool) -> Behaviour {
    let base = inv.base();
    let mut b = Behaviour {
        reader,
        dir_reads: inv
            .reading
            .as_ref()
            .is_some_and(|r| r.parsed.leaf().dir_reads),
        ..Behaviour::default()
    };
    const KNOWN: &[&str] = &[
        "rm", "mv", "chmod", "chown", "chgrp", "rsync", "find", "grep", "egrep", "fgrep", "rg",
        "ag", "ack", "tar", "bsdtar", "gtar", "zip", "cp", "scp", "ln", "install", "tree", "du",
        "ls", "dir", "diff", "gzip", "gunzip", "zcat", "pigz", "unpigz", "zstd", "unzstd",
        "zstdcat", "zstdmt", "lz4", "lz4cat", "unlz4", "7z", "7za", "7zr", "7zz", "jar",
    ];
    if !KNOWN.contains(&base.as_str()) {
        return b;
    }
    let args: Vec<String> = words(&inv.argv).into_iter().skip(1).collect();
    match base.as_str() {
        "rm" => {
            b.recursive_write =
                has_short(&args, 'r') || has_short(&args, 'R') || has_long(&args, "--recursive")
        }
        "mv" => {
            b.recursive_write = true;
            b.dest_last = true;
        }
        "chmod" | "chown" | "chgrp" => {
            b.recursive_write = has_short(&args, 'R') || has_long(&args, "--recursive");
            // `chown -RL`/`-RH`: the walk follows links to directories and
            // changes what they lead to (rt12 S1).
            b.follows_links = b.recursive_write && (has_short(&args, 'L') || has_short(&args, 'H'));
        }
        "rsync" => {
            b.recursive_read = true;
            b.dest_last = true;
            // Copying what links lead to (`-L`, `--copy-unsafe-links`,
            // `-k`), or writing through the destination's links to
            // directories (`-K`), rt12 S1.
            b.follows_links = has_short(&args, 'L')
                || has_short(&args, 'k')
                || has_short(&args, 'K')
                || has_long(&args, "--copy-links")
                || has_long(&args, "--copy-unsafe-links")
                || has_long(&args, "--copy-dirlinks")
                || has_long(&args, "--keep-dirlinks");
            if args.iter().any(|a| a.starts_with("--del")) {
                // Deleting at the destination writes what is below it.
                b.recursive_write = true;
                b.dest_last = false;
            } else if args.iter().any(|a| a.starts_with("--remove-so")) {
                b.recursive_write = true;
            }
        }
        "find" => {
            b.follows_links = has_long(&args, "-L")
                || has_long(&args, "-H")
                || args.iter().any(|a| a == "-follow");
            if args.iter().any(|a| a == "-delete") {
                b.recursive_write = true;
            } else if args
                .iter()
                .any(|a| matches!(a.as_str(), "-fprint" | "-fls" | "-fprint0" | "-fprintf"))
            {
                // The file these write is not an operand yet.
                b.recursive_write = true;
                b.recursive_read = true;
            } else if args
                .iter()
                .any(|a| matches!(a.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir"))
            {
                // The executed command is unknown: the call is complex
                // (one-shot) and the command a human approves is shown
                // whole. It reads what it finds; it is not known to write.
                b.recursive_read = true;
            } else {
                b.lists = true;
            }
        }
        "grep" | "egrep" | "fgrep" => {
            b.follows_links = has_short(&args, 'R') || has_long(&args, "--dereference-recursive");
            // `-d recurse`, `--directories=recurse` (rt24 A1), in any
            // spelling: a word `recurse` counts (the strict side).
            b.recursive_read = has_short(&args, 'r')
                || has_short(&args, 'R')
                || has_long(&args, "--recursive")
                || has_long(&args, "--dereference-recursive")
                || args
                    .iter()
                    .any(|a| a == "recurse" || a.ends_with("=recurse") || a.ends_with("drecurse"))
        }
        "rg" | "ag" | "ack" => {
            b.recursive_read = true;
            b.follows_links = has_short(&args, 'L') || has_long(&args, "--follow");
        }
        "tar" | "bsdtar" | "gtar" => {
            let first = args.first().cloned().unwrap_or_default();
            let create = has_short(&args, 'c')
                || has_long(&args, "--create")
                || (!first.starts_with('-') && first.contains('c'));
            b.recursive_read = create;
            // `-h` also in the old-style first word (`tar czhf x.tgz src`).
            let old_h = !first.starts_with('-') && first.contains('h');
            b.follows_links =
                create && (has_short(&args, 'h') || old_h || has_long(&args, "--dereference"));
        }
        "zip" => {
            b.recursive_read = has_short(&args, 'r')
                || has_short(&args, 'R')
                || has_long(&args, "--recurse-paths")
                || has_long(&args, "--recurse-patterns");
            // zip stores what a link leads to unless `-y`/`--symlinks`
            // (rt12 S1: `zip -r x.zip src` stored `src/k/id_rsa` through
            // `src/k -> ~/.ssh`).
            b.follows_links =
                b.recursive_read && !(has_short(&args, 'y') || has_long(&args, "--symlinks"));
        }
        "cp" => {
            let r = has_short(&args, 'r')
                || has_short(&args, 'R')
                || has_short(&args, 'a')
                || has_long(&args, "--recursive")
                || has_long(&args, "--archive");
            b.recursive_read = r;
            b.dest_last = true;
            b.follows_links = r
                && (has_short(&args, 'L')
                    || has_short(&args, 'H')
                    || has_long(&args, "--dereference"));
        }
        "scp" => {
            b.recursive_read = has_short(&args, 'r');
            // scp -r copies what links below lead to.
            b.follows_links = b.recursive_read;
            b.dest_last = true;
        }
        // The compressors' `-r` walks the operands' trees; gzip and zstd
        // follow the links they meet with `-f`, lz4 always (rt13 F3:
        // `zcat -rf src` printed `src/keys -> ~/.ssh`'s key, `gzip -rf
        // src` replaced it, `lz4 -r --rm src` deleted it). Following is
        // assumed whenever they recurse; without `-c`, `-l` or `-t` they
        // replace or write what they walk.
        "gzip" | "gunzip" | "zcat" | "pigz" | "unpigz" | "zstd" | "unzstd" | "zstdcat"
        | "zstdmt" | "lz4" | "lz4cat" | "unlz4" => {
            let r = has_short(&args, 'r') || has_long(&args, "--recursive");
            b.recursive_read = r;
            b.follows_links = r;
            let to_stdout = matches!(base.as_str(), "zcat" | "zstdcat" | "lz4cat")
                || has_short(&args, 'c')
                || has_short(&args, 'l')
                || has_short(&args, 't')
                || has_long(&args, "--stdout")
                || has_long(&args, "--to-stdout")
                || has_long(&args, "--list")
                || has_long(&args, "--test");
            b.recursive_write = r && !to_stdout;
        }
        // `7z a|u ARCHIVE DIR` stores what links lead to unless `-snl`;
        // `jar c|u` always (verified with OpenJDK's jar: `src/k -> ../out`
        // stored `src/k/key`).
        "7z" | "7za" | "7zr" | "7zz" => {
            let cmd = args.iter().find(|a| !a.starts_with('-')).cloned();
            b.recursive_read = cmd.is_some_and(|c| matches!(c.as_str(), "a" | "u"));
            b.follows_links = b.recursive_read && !args.iter().any(|a| a == "-snl");
        }
        "jar" => {
            let first = args.first().cloned().unwrap_or_default();
            let mode = first.trim_start_matches('-');
            b.recursive_read = mode.starts_with(['c', 'u'])
                || has_long(&args, "--create")
                || has_long(&args, "--update");
            b.follows_links = b.recursive_read;
        }
        "ln" | "install" => b.dest_last = true,
        "tree" => {
            b.lists = true;
            b.follows_links = has_short(&args, 'l');
        }
        "du" => {
            b.lists = true;
            b.follows_links = has_short(&args, 'L') || has_long(&args, "--dereference");
        }
        "diff" => {
            // GNU diff compares directories recursively with -r and
            // dereferences every link it meets while walking (rt25 F5:
            // `diff -r mine /usr/lib/ssl` printed /etc/ssl/private's key).
            // `--no-dereference` is not trusted: following is assumed.
            b.recursive_read = has_short(&args, 'r') || has_long(&args, "--recursive");
            b.follows_links = b.recursive_read;
        }
        "ls" | "dir" => {
            b.lists = true;
            b.follows_links = has_short(&args, 'R') && has_short(&args, 'L');
        }
        _ => {}
    }
    b
}
