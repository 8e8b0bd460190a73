//! The host process a hook runs under, read from `/proc` (Linux): its
//! argv and whether its stdin is a terminal. Gemini CLI gives a hook no
//! other hint of a non-interactive (`-p`) run (docs/hosts.md).
//!
//! Every read is bounded and every failure is `None`: callers treat an
//! unknown host as one where nobody can answer (fail closed).

use std::io::Read;

/// How far up the process tree the host is looked for (the hook may run
/// under `sh -c`, under shellgate's own supervisor, …).
const MAX_DEPTH: usize = 8;

/// Largest `/proc/<pid>/cmdline` read.
const MAX_CMDLINE: u64 = 256 * 1024;

/// One ancestor process.
#[derive(Debug, Clone)]
pub struct Proc {
    pub pid: u32,
    pub argv: Vec<String>,
}

fn read_bounded(path: &str, max: u64) -> Option<Vec<u8>> {
    let f = std::fs::File::open(path).ok()?;
    let mut buf = Vec::new();
    f.take(max).read_to_end(&mut buf).ok()?;
    Some(buf)
}

/// The parent pid of `pid` (`/proc/<pid>/stat`, field 4 after the command
/// name, which may itself hold spaces and parentheses).
pub fn parent_of(pid: u32) -> Option<u32> {
    let stat = read_bounded(&format!("/proc/{pid}/stat"), 4096)?;
    let text = String::from_utf8_lossy(&stat);
    let after = &text[text.rfind(')')? + 1..];
    let mut fields = after.split_whitespace();
    let _state = fields.next()?;
    fields.next()?.parse().ok()
}

/// The argv of `pid`.
pub fn argv_of(pid: u32) -> Option<Vec<String>> {
    let raw = read_bounded(&format!("/proc/{pid}/cmdline"), MAX_CMDLINE)?;
    if raw.is_empty() {
        return None;
    }
    Some(
        raw.split(|b| *b == 0)
            .filter(|a| !a.is_empty())
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect(),
    )
}

/// The ancestors of this process, nearest first (at most [`MAX_DEPTH`]),
/// leaving out shellgate's own (the hook's supervising parent, whose argv
/// `shellgate hook gemini` would look like the host).
pub fn ancestors() -> Vec<Proc> {
    let own = std::fs::read_link("/proc/self/exe").ok();
    let mut out = Vec::new();
    // Inside the approval service: the hook client's process.
    let Some(mut pid) = crate::origin::pid() else {
        return Vec::new();
    };
    // The standalone hook's worker starts one level lower (its supervisor
    // is its parent): the client's walk is one step shorter, so both end
    // at the same ancestor.
    let depth = if crate::origin::is_client() {
        MAX_DEPTH - 1
    } else {
        MAX_DEPTH
    };
    for _ in 0..depth {
        let Some(ppid) = parent_of(pid) else { break };
        if ppid <= 1 {
            break;
        }
        let Some(argv) = argv_of(ppid) else { break };
        pid = ppid;
        let exe = std::fs::read_link(format!("/proc/{ppid}/exe")).ok();
        let ours = (exe.is_some() && exe == own)
            || argv
                .first()
                .is_some_and(|a| basename(a).starts_with("shellgate"));
        if !ours {
            out.push(Proc { pid: ppid, argv });
        }
    }
    out
}

/// Whether `pid`'s standard input is a terminal (`None`: cannot tell).
pub fn stdin_is_terminal(pid: u32) -> Option<bool> {
    let target = std::fs::read_link(format!("/proc/{pid}/fd/0")).ok()?;
    let t = target.to_string_lossy();
    Some(t.starts_with("/dev/pts/") || t.starts_with("/dev/tty") || t == "/dev/console")
}

/// The last path segment of a word.
pub fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}
