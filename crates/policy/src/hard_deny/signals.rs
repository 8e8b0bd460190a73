//! `self_destructive`: stopping or killing the gate, matched as the program
//! matches (SPEC §9.3, §15.7, §15.19), and signalling every process.
//!
//! - `pkill`/`pgrep` patterns are POSIX extended regexes searched (not
//!   anchored, unless `-x`) in the process name (`comm`, at most 15
//!   characters) or, with `-f`, in the full command line (arguments joined
//!   by spaces); `-i` ignores case, `-v` inverts.
//! - `killall NAME` compares the name exactly (`-I` ignoring case; a NAME
//!   with a `/` names the executable file); `-r` (psmisc) or `-m` (BSD) make
//!   it a regex.
//! - `systemctl stop|kill|disable|mask|freeze|clean` take unit names or
//!   globs (fnmatch).
//!
//! The gate's process name is `shellgate`; its command lines are the hook
//! commands (`shellgate hook claude-code|gemini|codex`, with `--home`,
//! `--channel`) and `shellgate serve`, spelled with a bare name, the
//! running executable's path and the usual install directories. A
//! pattern the regex engine cannot compile is treated as matching: the
//! gate cannot show it does not, and pkill would run it.

use super::words::{getopt, o, LOpt, Val, XArg};
use super::{deny, Cmd, Denial};
use regex::RegexBuilder;
use shellgate_shell::analyze::Analysis;
use shellgate_shell::paths::basename;

const SELF: &str = "self_destructive";

/// Signal names (without `SIG`), for `-NAME` options.
const SIGNALS: &[&str] = &[
    "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "IOT", "BUS", "FPE", "KILL", "USR1", "SEGV",
    "USR2", "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CLD", "CONT", "STOP", "TSTP", "TTIN",
    "TTOU", "URG", "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "IO", "POLL", "PWR", "SYS", "EMT",
    "INFO", "LOST", "UNUSED", "RTMIN", "RTMAX",
];

/// `-9`, `-KILL`, `-SIGKILL`, `-RTMIN+1`.
fn is_signal_word(t: &str) -> bool {
    let Some(s) = t.strip_prefix('-') else {
        return false;
    };
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_digit()) {
        return true;
    }
    let up = s.to_ascii_uppercase();
    let name = up.strip_prefix("SIG").unwrap_or(&up);
    let name = name.split(['+', '-']).next().unwrap_or(name);
    SIGNALS.contains(&name)
}

/// The gate's process name.
const GATE_NAME: &str = "shellgate";

/// The gate's process names: the gate, and its hook client
/// (`shellgate-hook`), whose death lets a tool run in hosts that do not
/// block on a crashed hook.
const GATE_NAMES: [&str; 2] = [GATE_NAME, "shellgate-hook"];

/// The running executable's path (asked of the system once per process).
fn own_exe() -> Option<&'static str> {
    static EXE: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    EXE.get_or_init(|| {
        std::env::current_exe()
            .ok()
            .map(|e| e.to_string_lossy().to_string())
    })
    .as_deref()
}

/// The gate's command lines as `pkill -f` sees them.
fn gate_cmdlines(home: &str) -> Vec<String> {
    let mut exes = vec![
        GATE_NAME.to_string(),
        "/usr/local/bin/shellgate".to_string(),
        "/usr/bin/shellgate".to_string(),
        "/opt/homebrew/bin/shellgate".to_string(),
    ];
    if let Some(s) = own_exe() {
        if basename(s).starts_with(GATE_NAME) && !exes.iter().any(|e| e == s) {
            exes.push(s.to_string());
        }
    }
    // The hook client next to each.
    let clients: Vec<String> = exes.iter().map(|e| format!("{e}-hook")).collect();
    exes.extend(clients);
    let mut out = Vec::new();
    for exe in &exes {
        for host in ["claude-code", "gemini", "codex"] {
            out.push(format!("{exe} hook {host}"));
            out.push(format!("{exe} hook {host} --channel headless"));
            out.push(format!("{exe} --home {home}/.shellgate hook {host}"));
        }
        out.push(format!("{exe} serve"));
    }
    out
}

/// Translate a POSIX extended regex (with GNU extensions) into the regex
/// crate's syntax; `None` when it cannot be read.
fn ere_to_rust(p: &str) -> Option<String> {
    let chars: Vec<char> = p.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                let n = *chars.get(i + 1)?;
                match n {
                    '<' | '>' => out.push_str(r"\b"),
                    '`' => out.push_str(r"\A"),
                    '\'' => out.push_str(r"\z"),
                    'w' | 'W' | 's' | 'S' | 'b' | 'B' => {
                        out.push('\\');
                        out.push(n);
                    }
                    d if d.is_ascii_digit() => return None, // back-reference
                    other => out.push_str(&regex::escape(&other.to_string())),
                }
                i += 2;
            }
            '[' => {
                // A bracket expression, copied with the regex crate's
                // special characters escaped.
                out.push('[');
                i += 1;
                if chars.get(i) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
                if chars.get(i) == Some(&']') {
                    out.push_str(r"\]");
                    i += 1;
                }
                let mut closed = false;
                while i < chars.len() {
                    let b = chars[i];
                    if b == ']' {
                        out.push(']');
                        closed = true;
                        i += 1;
                        break;
                    }
                    if b == '[' && matches!(chars.get(i + 1), Some(':' | '=' | '.')) {
                        let kind = chars[i + 1];
                        let mut j = i + 2;
                        while j + 1 < chars.len() && !(chars[j] == kind && chars[j + 1] == ']') {
                            j += 1;
                        }
                        if j + 1 >= chars.len() {
                            return None;
                        }
                        let inner: String = chars[i + 2..j].iter().collect();
                        if kind == ':' {
                            out.push_str(&format!("[:{inner}:]"));
                        } else {
                            out.push_str(&regex::escape(&inner));
                        }
                        i = j + 2;
                        continue;
                    }
                    if matches!(b, '\\' | '[' | '&' | '~') {
                        out.push('\\');
                    }
                    out.push(b);
                    i += 1;
                }
                if !closed {
                    return None;
                }
            }
            '{' => {
                // An interval only when it reads as one; else a literal.
                let rest: String = chars[i..].iter().collect();
                let interval = rest.find('}').map(|e| &rest[1..e]).is_some_and(|b| {
                    !b.is_empty()
                        && b.split(',').count() <= 2
                        && b.split(',').next().is_some_and(|x| !x.is_empty())
                        && b.chars().all(|c| c.is_ascii_digit() || c == ',')
                });
                if interval && !out.is_empty() {
                    out.push('{');
                } else {
                    out.push_str(r"\{");
                }
                i += 1;
            }
            '}' => {
                // Closing an interval we kept, or a literal.
                if out
                    .rfind('{')
                    .is_some_and(|k| !out[..k].ends_with('\\') && !out[k..].contains('}'))
                {
                    out.push('}');
                } else {
                    out.push_str(r"\}");
                }
                i += 1;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    Some(out)
}

/// How a pattern is matched.
#[derive(Debug, Clone, Copy, Default)]
struct How {
    exact: bool,
    icase: bool,
}

/// Whether the pattern matches one of `targets` (a regex that cannot be
/// compiled counts as matching).
fn regex_hits(pattern: &str, targets: &[String], how: How) -> bool {
    let Some(re) = ere_to_rust(pattern) else {
        return true;
    };
    let re = if how.exact { format!("^(?:{re})$") } else { re };
    match RegexBuilder::new(&re)
        .case_insensitive(how.icase)
        .size_limit(1 << 20)
        .build()
    {
        Ok(r) => targets.iter().any(|t| r.is_match(t)),
        Err(_) => true,
    }
}

/// Whether a pattern argument may match the gate: a static pattern as the
/// program matches it; a partly dynamic one with `.*` for the unknown
/// middle; a wholly dynamic one is left to the ordinary rules (complex).
fn pattern_hits(a: &XArg, targets: &[String], how: How) -> bool {
    match &a.value {
        Some(v) => regex_hits(v, targets, how),
        None if a.prefix.is_empty() && a.tail.is_empty() => false,
        None => regex_hits(&format!("{}.*{}", a.prefix, a.tail), targets, how),
    }
}

/// Whether a user/uid value may be the gate's own user.
fn may_be_me(a: &XArg, home: &str) -> bool {
    let Some(v) = a.value.as_deref() else {
        return true;
    };
    v.split(',').any(|u| {
        u.is_empty()
            || u.chars().all(|c| c.is_ascii_digit())
            || u == basename(home)
            // Every process of root is the machine's (and the gate's when
            // it runs as root, whatever its home: rt28a `pkill -9 -u root`).
            || u == "root"
    })
}

const PKILL: &[LOpt] = &[
    o('e', "echo", Val::No),
    o('c', "count", Val::No),
    o('f', "full", Val::No),
    o('i', "ignore-case", Val::No),
    o('n', "newest", Val::No),
    o('o', "oldest", Val::No),
    o('x', "exact", Val::No),
    o('L', "logpidfile", Val::No),
    o('A', "ignore-ancestors", Val::No),
    o('v', "inverse", Val::No),
    o('w', "lightweight", Val::No),
    o('H', "require-handler", Val::No),
    o('l', "list-name", Val::No),
    o('a', "list-full", Val::No),
    o('h', "help", Val::No),
    o('V', "version", Val::No),
    o('\0', "signal", Val::Req),
    o('q', "queue", Val::Req),
    o('g', "pgroup", Val::Req),
    o('G', "group", Val::Req),
    o('O', "older", Val::Req),
    o('P', "parent", Val::Req),
    o('s', "session", Val::Req),
    o('t', "terminal", Val::Req),
    o('u', "euid", Val::Req),
    o('U', "uid", Val::Req),
    o('F', "pidfile", Val::Req),
    o('r', "runstates", Val::Req),
    o('d', "delimiter", Val::Req),
    o('\0', "cgroup", Val::Req),
    o('\0', "ns", Val::Req),
    o('\0', "nslist", Val::Req),
    o('\0', "env", Val::Req),
];

/// Whether a pgrep/pkill argv selects the gate (or every process of its
/// user).
fn pgrep_selects_gate(args: &[XArg], home: &str) -> Option<String> {
    let args: Vec<XArg> = args
        .iter()
        .filter(|a| !a.value.as_deref().is_some_and(is_signal_word))
        .cloned()
        .collect();
    let r = getopt(&args, PKILL, true);
    if r.has("help") || r.has("version") {
        return None;
    }
    let how = How {
        exact: r.has("exact"),
        icase: r.has("ignore-case"),
    };
    let targets = if r.has("full") {
        gate_cmdlines(home)
    } else {
        GATE_NAMES.iter().map(|n| n.to_string()).collect()
    };
    let patterns: Vec<&XArg> = r.operands.iter().filter_map(|&i| args.get(i)).collect();
    if patterns.is_empty() {
        // No pattern: every process the selectors pick. The user-wide
        // selectors pick the gate's own processes.
        let narrow = [
            "pgroup", "parent", "session", "terminal", "pidfile", "ns", "cgroup",
        ]
        .iter()
        .any(|n| r.has(n));
        let users: Vec<XArg> = ["euid", "uid", "group"]
            .iter()
            .flat_map(|n| r.values(n, &args))
            .collect();
        if !narrow && !users.is_empty() && users.iter().any(|u| may_be_me(u, home)) {
            return Some("every process of the gate's user".into());
        }
        return None;
    }
    if r.has("inverse") {
        return Some("every process but the ones named".into());
    }
    for p in patterns {
        if pattern_hits(p, &targets, how) {
            return Some(format!("the pattern `{}` matches the gate", p.raw));
        }
    }
    None
}

const KILLALL: &[LOpt] = &[
    o('e', "exact", Val::No),
    o('I', "ignore-case", Val::No),
    o('g', "process-group", Val::No),
    o('y', "younger-than", Val::Req),
    o('o', "older-than", Val::Req),
    o('i', "interactive", Val::No),
    o('l', "list", Val::No),
    o('q', "quiet", Val::No),
    o('r', "regexp", Val::No),
    o('m', "", Val::No),
    o('s', "signal", Val::Req),
    o('u', "user", Val::Req),
    o('v', "verbose", Val::No),
    o('V', "version", Val::No),
    o('w', "wait", Val::No),
    o('n', "ns", Val::Req),
    o('Z', "context", Val::Req),
    o('h', "help", Val::No),
];

fn killall(args: &[XArg], home: &str) -> Option<String> {
    let args: Vec<XArg> = args
        .iter()
        .filter(|a| !a.value.as_deref().is_some_and(is_signal_word))
        .cloned()
        .collect();
    let r = getopt(&args, KILLALL, true);
    if r.has("list") || r.has("version") || r.has("help") {
        return None;
    }
    let names: Vec<&XArg> = r.operands.iter().filter_map(|&i| args.get(i)).collect();
    if names.is_empty() {
        let users = r.values("user", &args);
        if users.iter().any(|u| may_be_me(u, home)) {
            return Some("every process of the gate's user".into());
        }
        return None;
    }
    let icase = r.has("ignore-case");
    let regex = r.has("regexp") || r.has("m");
    let target: Vec<String> = GATE_NAMES.iter().map(|n| n.to_string()).collect();
    for n in names {
        let hit = if regex {
            pattern_hits(
                n,
                &target,
                How {
                    exact: false,
                    icase,
                },
            )
        } else {
            match n.value.as_deref() {
                Some(v) => {
                    let name = if v.contains('/') { basename(v) } else { v };
                    GATE_NAMES.iter().any(|g| {
                        if icase {
                            name.eq_ignore_ascii_case(g)
                        } else {
                            name == *g
                        }
                    })
                }
                None => false,
            }
        };
        if hit {
            return Some(format!("`{}` names the gate", n.raw));
        }
    }
    None
}

/// The pid operands of a `kill` (bash builtin and procps: one signal
/// option, then `--` or the first operand starts the pids); `None` for a
/// listing (`-l`).
fn kill_pids(args: &[XArg]) -> Option<&[XArg]> {
    let mut i = 0;
    let mut saw_signal = false;
    while let Some(a) = args.get(i) {
        let Some(t) = a.value.as_deref() else { break };
        match t {
            "-l" | "-L" | "--list" | "--table" => return None,
            "-s" | "-n" | "--signal" => {
                i += 2;
                saw_signal = true;
                continue;
            }
            "--" => {
                i += 1;
                break;
            }
            _ if t.starts_with("--signal=") => {
                i += 1;
                saw_signal = true;
                continue;
            }
            _ if t.starts_with('-') && t.len() > 1 && !saw_signal => {
                saw_signal = true;
                i += 1;
                continue;
            }
            _ => break,
        }
    }
    Some(args.get(i..).unwrap_or(&[]))
}

/// `kill … -1`: a signal to every process the user may signal.
fn kill_all(args: &[XArg]) -> bool {
    kill_pids(args).is_some_and(|pids| {
        pids.iter().any(|a| {
            a.value
                .as_deref()
                .and_then(|v| v.parse::<i64>().ok())
                .is_some_and(|n| n == -1)
        })
    })
}

/// Minimal fnmatch: `*`, `?`, `[…]` (with `!`/`^` and ranges), by dynamic
/// programming (linear in pattern × text, whatever the stars).
pub(super) fn fnmatch(pat: &str, text: &str) -> bool {
    let p: Vec<char> = pat.chars().collect();
    let t: Vec<char> = text.chars().collect();
    // Pattern items: a char, `?`, `*`, or a bracket set.
    enum Item {
        Char(char),
        Any,
        Star,
        Set(Vec<(char, char)>, bool),
    }
    let mut items = Vec::new();
    let mut i = 0;
    while i < p.len() {
        match p[i] {
            '*' => items.push(Item::Star),
            '?' => items.push(Item::Any),
            '[' => {
                let start = i + 1;
                let first = start + usize::from(matches!(p.get(start), Some('!' | '^')));
                let end = p
                    .iter()
                    .skip(first + 1)
                    .position(|&c| c == ']')
                    .map(|e| e + first + 1);
                match end {
                    Some(end) => {
                        let neg = first > start;
                        let body = &p[first..end];
                        let mut ranges = Vec::new();
                        let mut k = 0;
                        while k < body.len() {
                            if k + 2 < body.len() && body[k + 1] == '-' {
                                ranges.push((body[k], body[k + 2]));
                                k += 3;
                            } else {
                                ranges.push((body[k], body[k]));
                                k += 1;
                            }
                        }
                        items.push(Item::Set(ranges, neg));
                        i = end;
                    }
                    None => items.push(Item::Char('[')),
                }
            }
            c => items.push(Item::Char(c)),
        }
        i += 1;
    }
    // reach[j]: the items so far can match t[..j].
    let mut reach = vec![false; t.len() + 1];
    reach[0] = true;
    for it in &items {
        let mut next = vec![false; t.len() + 1];
        match it {
            Item::Star => {
                let mut any = false;
                for j in 0..=t.len() {
                    any |= reach[j];
                    next[j] = any;
                }
            }
            _ => {
                for j in 0..t.len() {
                    if !reach[j] {
                        continue;
                    }
                    let c = t[j];
                    let ok = match it {
                        Item::Char(x) => *x == c,
                        Item::Any => true,
                        Item::Set(r, neg) => r.iter().any(|&(a, b)| a <= c && c <= b) != *neg,
                        Item::Star => false,
                    };
                    next[j + 1] |= ok;
                }
            }
        }
        reach = next;
    }
    reach[t.len()]
}

/// systemctl verbs that stop a unit.
const UNIT_STOPPERS: &[&str] = &["stop", "kill", "disable", "mask", "freeze", "clean"];

/// Units whose stop takes the gate down: its own, and those that hold
/// every process of the user or the system.
fn holds_gate(unit: &str) -> bool {
    let u = unit.to_ascii_lowercase();
    let stem = super::destructive::unit_stem(&u);
    u.contains("shellgate")
        || stem.starts_with("user@")
        || stem.starts_with("user-")
        || stem == "user"
        || stem.starts_with("session-")
        || matches!(
            stem,
            "init" | "-" | "system" | "default" | "multi-user" | "graphical" | "basic" | "sysinit"
        )
}

pub(super) fn check(c: &Cmd) -> Option<Denial> {
    let home = c.place.home;
    match c.base.as_str() {
        "pkill" | "pkill.exe" => pgrep_selects_gate(&c.args, home)
            .and_then(|why| deny(SELF, format!("pkill would signal the gate: {why}"))),
        "killall" => killall(&c.args, home)
            .and_then(|why| deny(SELF, format!("killall would signal the gate: {why}"))),
        "killall5" => deny(SELF, "killall5 signals every process"),
        "kill" => kill_all(&c.args)
            .then(|| deny(SELF, "kill -1 signals every process, the gate included"))
            .flatten(),
        "systemctl" => {
            let (verbs, ops, help) = super::destructive::systemctl_words(&c.args);
            if help {
                return None;
            }
            for v in &verbs {
                if !UNIT_STOPPERS.contains(&v.as_str()) {
                    continue;
                }
                for u in ops.iter().skip(1) {
                    if super::destructive::unit_matches(u, holds_gate) {
                        return deny(SELF, format!("systemctl {v} {} stops the gate", u.raw));
                    }
                }
            }
            None
        }
        // `service UNIT stop|restart…` (SysV `service(8)`, which hands
        // over to systemctl where systemd runs): the same units.
        "service" => {
            let words: Vec<&XArg> = c
                .args
                .iter()
                .filter(|a| !a.text().starts_with('-'))
                .collect();
            let (Some(unit), Some(verb)) = (words.first(), words.get(1)) else {
                return None;
            };
            let stops = matches!(
                verb.text(),
                "stop" | "restart" | "force-stop" | "force-reload" | "try-restart" | "kill"
            );
            (stops && super::destructive::unit_matches(unit, holds_gate))
                .then(|| {
                    deny(
                        SELF,
                        format!("service {} {} stops the gate", unit.raw, verb.text()),
                    )
                })
                .flatten()
        }
        "launchctl" => {
            // macOS: unloading, stopping or removing the gate's agent.
            let verb = c
                .args
                .iter()
                .find(|a| !a.text().starts_with('-'))
                .map(XArg::text);
            let stops = matches!(
                verb,
                Some("stop" | "remove" | "unload" | "bootout" | "kill" | "disable")
            );
            let names_gate = c
                .args
                .iter()
                .any(|a| a.text().to_ascii_lowercase().contains(GATE_NAME));
            (stops && names_gate)
                .then(|| deny(SELF, "launchctl stops the gate's agent"))
                .flatten()
        }
        "loginctl" => {
            let ops: Vec<&XArg> = c
                .args
                .iter()
                .filter(|a| !a.text().starts_with('-'))
                .collect();
            let verb = ops.first().and_then(|a| a.value.as_deref());
            match verb {
                Some("terminate-user" | "kill-user") => {
                    let me = ops.len() < 2 || ops[1..].iter().any(|u| may_be_me(u, home));
                    me.then(|| deny(SELF, "loginctl ends every process of the gate's user"))
                        .flatten()
                }
                Some("terminate-session" | "kill-session") => {
                    let own = ops.len() < 2
                        || ops[1..]
                            .iter()
                            .any(|s| !s.is_static() || matches!(s.text(), "self" | "auto"));
                    own.then(|| deny(SELF, "loginctl ends the session the gate runs in"))
                        .flatten()
                }
                Some("terminate-seat") => deny(SELF, "loginctl ends every session of a seat"),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Call-wide: a process lookup that finds the gate (`pgrep`, `pidof`,
/// `ps … | grep`) in the same call as a `kill` whose targets come from
/// elsewhere (`kill $(pgrep -f shellgate)`, `pgrep shellgate | xargs kill`).
pub(super) fn lookup_and_kill(a: &Analysis, home: &str, expanded: &[Vec<XArg>]) -> Option<Denial> {
    // The lookups only matter next to a kill: they are examined (in the
    // call's order, with the same rules) once one is seen, so a call
    // without a kill compiles no pattern.
    let mut kills = false;
    let mut lookups: Vec<(String, Vec<XArg>)> = Vec::new();
    for argv in expanded.iter().take(a.invocations.len()) {
        let Some((prog, args)) = argv.split_first() else {
            continue;
        };
        let Some(p) = prog.value.as_deref() else {
            continue;
        };
        let base = super::program_base(p);
        match base.as_str() {
            "kill" => {
                // Pids from elsewhere: none written (xargs supplies them),
                // or only known at run time.
                kills |= kill_pids(args).is_some_and(|pids| {
                    pids.is_empty() || pids.iter().any(|x| !x.is_static() || !x.metas.is_empty())
                });
            }
            "pgrep" | "pgrep.exe" | "pidof" | "pidofproc" | "grep" | "egrep" | "fgrep" | "rg"
            | "awk" | "gawk" | "mawk" => lookups.push((base, args.to_vec())),
            _ => {}
        }
    }
    if !kills {
        return None;
    }
    let mut finds: Option<String> = None;
    for (base, args) in &lookups {
        match base.as_str() {
            "pgrep" | "pgrep.exe" if finds.is_none() => {
                finds = pgrep_selects_gate(args, home);
            }
            "pidof" | "pidofproc"
                if args.iter().any(|x| {
                    x.value
                        .as_deref()
                        .is_some_and(|v| !v.starts_with('-') && GATE_NAMES.contains(&basename(v)))
                }) =>
            {
                finds = Some("pidof names the gate".into());
            }
            "grep" | "egrep" | "fgrep" | "rg" | "awk" | "gawk" | "mawk" => {
                let targets = gate_cmdlines(home);
                let hit = args.iter().any(|x| {
                    x.value.as_deref().is_some_and(|v| {
                        !v.starts_with('-')
                            && v.chars().filter(|c| c.is_alphanumeric()).count() >= 3
                            && ere_to_rust(v)
                                .and_then(|re| {
                                    RegexBuilder::new(&re).size_limit(1 << 20).build().ok()
                                })
                                .is_some_and(|re| targets.iter().any(|t| re.is_match(t)))
                    })
                });
                if hit {
                    finds = finds.or(Some("a search of the process list matches the gate".into()));
                }
            }
            _ => {}
        }
    }
    if let Some(why) = finds {
        return deny(SELF, format!("kill would signal the gate: {why}"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<XArg> {
        s.iter().map(|x| XArg::lit(x)).collect()
    }

    #[test]
    fn pkill_matches_as_pkill() {
        let hits = |a: &[&str]| pgrep_selects_gate(&args(a), "/home/u").is_some();
        for a in [
            &["shellgate"][..],
            &["shell[g]ate"],
            &["shellg"],
            &["-f", "shell[g]ate"],
            &["-f", "hook"],
            &["-f", "serve"],
            &["-f", ".*gate"],
            &["-f", "."],
            &["-9", "."],
            &["."],
            &["-KILL", "gate"],
            &["-i", "SHELLGATE"],
            &["-x", "shellgate"],
            &["-f", "claude-code"],
            &["-f", "^shellgate hook"],
            &["-f", "\\<shellgate\\>"],
            &["-f", "shell(g|x)ate"],
            &["-u", "u"],
            &["-v", "node"],
            &["-f", "(unclosed"],
        ] {
            assert!(hits(a), "{a:?}");
        }
        for a in [
            &["node"][..],
            &["-f", "node server.js"],
            &["-x", "shell"],
            &["SHELLGATE"],
            &["-f", "vite"],
            &["-f", "python.*manage.py"],
            &["-u", "postgres"],
            &["-P", "1234"],
            &["--help"],
            &["-f", "a{"],
        ] {
            assert!(!hits(a), "{a:?}");
        }
    }

    #[test]
    fn killall_matches_as_killall() {
        let hits = |a: &[&str]| killall(&args(a), "/home/u").is_some();
        assert!(hits(&["shellgate"]));
        assert!(hits(&["-9", "shellgate"]));
        assert!(hits(&["/usr/local/bin/shellgate"]));
        assert!(hits(&["-I", "ShellGate"]));
        assert!(hits(&["-r", "shell.*"]));
        assert!(hits(&["-r", "."]));
        assert!(hits(&["-u", "u"]));
        assert!(!hits(&["shell"]));
        assert!(!hits(&["node"]));
        assert!(!hits(&["-l"]));
    }

    #[test]
    fn kill_minus_one() {
        for a in [
            &["-9", "-1"][..],
            &["-KILL", "-1"],
            &["-s", "KILL", "-1"],
            &["--", "-1"],
            &["-9", "--", "-1"],
            &["1234", "-1"],
            &["-SIGTERM", "-01"],
        ] {
            assert!(kill_all(&args(a)), "{a:?}");
        }
        for a in [
            &["1234"][..],
            &["-1"],
            &["-9", "1234"],
            &["-l"],
            &["-9", "-1234"],
        ] {
            assert!(!kill_all(&args(a)), "{a:?}");
        }
    }

    #[test]
    fn fnmatch_globs() {
        assert!(fnmatch("shell*", "shellgate.service"));
        assert!(fnmatch("*gate*", "shellgate.service"));
        assert!(fnmatch("s[h]ellgate.s?rvice", "shellgate.service"));
        assert!(fnmatch("[!x]hellgate.service", "shellgate.service"));
        assert!(!fnmatch("nginx*", "shellgate.service"));
        assert!(fnmatch("*", ""));
        assert!(!fnmatch(&"*a".repeat(60), "shellgate.service"));
    }
}
