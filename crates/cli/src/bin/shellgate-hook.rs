//! `shellgate-hook`: the hook client.
//!
//! Hosts start a hook process for every tool call. `shellgate hook HOST`
//! is a whole gate (parser, program model, policy, SQLite) that pays its
//! start-up on each call; this small program takes the same arguments,
//! reads the event and, when the approval service (`shellgate serve`) runs
//! for the gate's home, has the service's warm process evaluate it over
//! `state/serve.sock` and prints its answer. In every other case — no
//! service, a service that declines or does not answer in time, a socket
//! owned by another user, anything unexpected — it runs the standalone
//! `shellgate` next to it with the same arguments and the event on its
//! standard input, so the answer never depends on whether the service runs
//! (`hooks/served.rs` lists when the service declines).
//!
//! It links none of the gate: `serde_json` for the two lines it exchanges,
//! `libc` for `poll`, the peer's credentials and a memory file. It starts
//! at C's `main` (`no_main`): the Rust runtime's start-up (a stack guard
//! found by reading `/proc/self/maps`, signal handlers, checks of the
//! standard descriptors) is a quarter of this program's cost and buys it
//! nothing — a stack overflow still kills it, and the host then sees no
//! answer, as before; every other failure ends in exit 2.

#![cfg_attr(not(test), no_main)]

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Largest event accepted (as `shellgate hook`).
const MAX_INPUT_BYTES: usize = 1 << 20;
/// How long the host may take to write the event (as `shellgate hook`).
const STDIN_TIMEOUT: Duration = Duration::from_secs(20);
/// May shorten the stdin timeout (tests), never lengthen it.
const STDIN_TIMEOUT_ENV: &str = "SHELLGATE_HOOK_STDIN_TIMEOUT_MS";
/// How long the service may take to answer (its own queue gives up first).
const PATIENCE: Duration = Duration::from_secs(5);
/// `1`: never run the standalone hook — block when the service does not
/// answer (tests and diagnosis: is this host's hook really served?). It can
/// only turn an answer into a block.
const REQUIRE_SERVICE_ENV: &str = "SHELLGATE_HOOK_REQUIRE_SERVICE";
/// Longest reply line read.
const MAX_REPLY: u64 = 4 * 1024 * 1024;
/// The variables a hook evaluation reads (`shellgate_serve::protocol::HOOK_ENV`;
/// a test of the `shellgate` crate checks the two lists agree).
const HOOK_ENV: &[&str] = &[
    "HOME",
    "SHELLGATE_HOME",
    "PATH",
    "XDG_CONFIG_HOME",
    "CDPATH",
    "TMPDIR",
    "CLAUDE_CODE_SESSION_ATTENDED",
    "CLAUDE_CODE_ENTRYPOINT",
    "CLAUDE_PROJECT_DIR",
];

/// C's entry point; `std::env::args_os` still works (the standard library
/// takes the arguments from the C runtime on Linux and macOS).
#[cfg(not(test))]
#[no_mangle]
pub extern "C" fn main(_argc: libc::c_int, _argv: *const *const libc::c_char) -> libc::c_int {
    run()
}

#[cfg_attr(test, allow(dead_code))]
fn run() -> ! {
    // As the Rust runtime would have: a reader gone from stdout is a write
    // error (ending in exit 2 below), not a kill by SIGPIPE.
    // SAFETY: setting a signal's disposition before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    // Hosts let a tool run when its hook crashes: every failure here ends
    // in exit 2, which they all treat as blocking.
    std::panic::set_hook(Box::new(|_| {
        eprintln!("shellgate-hook: internal error; the call is blocked (fail closed)");
        std::process::exit(2);
    }));
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let Some(words) = args
        .iter()
        .map(|a| a.to_str().map(str::to_string))
        .collect::<Option<Vec<String>>>()
    else {
        standalone(&args, None)
    };
    let Some(home) = gate_home(&words) else {
        standalone(&args, None)
    };
    let socket = home.join("state").join("serve.sock");
    if !is_socket(&socket) {
        // No service: the common case costs one lstat and one exec.
        standalone(&args, None)
    }
    let event = match read_stdin() {
        Ok(e) => e,
        Err(Stdin::Late(ms)) => {
            eprintln!(
                "shellgate: no complete hook event on stdin within {ms} ms; the call is blocked"
            );
            std::process::exit(2);
        }
        Err(Stdin::Other(bytes)) => standalone(&args, Some(&bytes)),
    };
    let Ok(text) = std::str::from_utf8(&event) else {
        standalone(&args, Some(&event))
    };
    match ask_service(&socket, &home, &words, text) {
        Some((code, out, err)) => {
            if !err.is_empty() {
                let _ = std::io::stderr().write_all(err.as_bytes());
            }
            if !out.is_empty() {
                let mut o = std::io::stdout().lock();
                if let Err(e) = o.write_all(out.as_bytes()).and_then(|_| o.flush()) {
                    // The standalone hook's words (its supervisor's).
                    eprintln!(
                        "shellgate: cannot write the hook's answer ({e}); the call is blocked (fail closed)"
                    );
                    std::process::exit(2);
                }
            }
            std::process::exit(code);
        }
        None => standalone(&args, Some(&event)),
    }
}

/// The gate's home as `shellgate` resolves it: `--home DIR` before `hook`,
/// else `$SHELLGATE_HOME`, else `$HOME/.shellgate`. `None` for arguments
/// that are not `[--home DIR] hook …` (the standalone gate explains them).
fn gate_home(words: &[String]) -> Option<PathBuf> {
    let mut flag: Option<&str> = None;
    let mut it = words.iter();
    loop {
        let w = it.next()?;
        if let Some(v) = w.strip_prefix("--home=") {
            if flag.is_some() || v.is_empty() {
                return None;
            }
            flag = Some(v);
        } else if w == "--home" {
            let v = it.next()?;
            if flag.is_some() || v.is_empty() || v.starts_with('-') {
                return None;
            }
            flag = Some(v);
        } else if w == "hook" {
            break;
        } else {
            return None;
        }
    }
    let user = std::env::var("HOME").unwrap_or_else(|_| "/".to_string());
    let home = match flag {
        Some(f) => PathBuf::from(f),
        None => match std::env::var_os("SHELLGATE_HOME") {
            Some(v) if !v.is_empty() => PathBuf::from(v),
            _ => PathBuf::from(user).join(".shellgate"),
        },
    };
    if home.is_absolute() {
        Some(home)
    } else {
        std::env::current_dir().ok().map(|c| c.join(home))
    }
}

fn is_socket(p: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_socket())
}

enum Stdin {
    /// Nothing complete within the time limit (milliseconds).
    Late(u128),
    /// Too large or unreadable: what was read, for the standalone hook to
    /// judge (it refuses it).
    Other(Vec<u8>),
}

fn stdin_timeout() -> Duration {
    std::env::var(STDIN_TIMEOUT_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(Duration::from_millis)
        .filter(|d| *d < STDIN_TIMEOUT)
        .unwrap_or(STDIN_TIMEOUT)
}

/// The event on stdin, within the size and time limits of `shellgate hook`.
fn read_stdin() -> Result<Vec<u8>, Stdin> {
    let timeout = stdin_timeout();
    let start = Instant::now();
    let mut buf: Vec<u8> = Vec::with_capacity(16 * 1024);
    let mut chunk = [0u8; 16 * 1024];
    loop {
        let left = timeout.saturating_sub(start.elapsed());
        if left.is_zero() {
            return Err(Stdin::Late(timeout.as_millis()));
        }
        let mut pfd = libc::pollfd {
            fd: libc::STDIN_FILENO,
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = left.as_millis().clamp(1, i32::MAX as u128) as libc::c_int;
        // SAFETY: poll on one initialised pollfd.
        let r = unsafe { libc::poll(&mut pfd, 1, ms) };
        if r < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(Stdin::Other(buf));
        }
        if r == 0 {
            continue;
        }
        // SAFETY: read into a local buffer of the given length.
        let n = unsafe { libc::read(libc::STDIN_FILENO, chunk.as_mut_ptr().cast(), chunk.len()) };
        if n < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(Stdin::Other(buf));
        }
        if n == 0 {
            return Ok(buf);
        }
        buf.extend_from_slice(&chunk[..n as usize]);
        if buf.len() > MAX_INPUT_BYTES {
            return Err(Stdin::Other(buf));
        }
    }
}

/// The service's answer: exit status, stdout, stderr. `None`: run the
/// standalone hook.
fn ask_service(
    socket: &Path,
    home: &Path,
    words: &[String],
    event: &str,
) -> Option<(i32, String, String)> {
    let stream = connect(socket)?;
    if !same_user(&stream) {
        return None;
    }
    stream.set_read_timeout(Some(PATIENCE)).ok()?;
    stream.set_write_timeout(Some(PATIENCE)).ok()?;
    let mut env = serde_json::Map::new();
    for name in HOOK_ENV {
        match std::env::var_os(name) {
            None => {}
            // A value the service could not carry exactly: standalone.
            Some(v) => {
                env.insert(name.to_string(), v.into_string().ok()?.into());
            }
        }
    }
    // The `shellgate` this client would run: the service answers only when
    // it is that very executable.
    let gate = standalone_gate()
        .ok()
        .and_then(|g| g.canonicalize().ok())
        .and_then(|g| g.into_os_string().into_string().ok());
    let cwd = match std::env::current_dir() {
        Ok(c) => Some(c.into_os_string().into_string().ok()?),
        Err(_) => None,
    };
    let request = serde_json::json!({
        "v": 1,
        "op": "hook",
        "args": words,
        "home": home.to_str()?,
        "env": env,
        "cwd": cwd,
        "event": event,
        "gate": gate,
    });
    let mut line = request.to_string();
    line.push('\n');
    (&stream).write_all(line.as_bytes()).ok()?;
    let mut reply = Vec::new();
    BufReader::new(std::io::Read::take(&stream, MAX_REPLY))
        .read_until(b'\n', &mut reply)
        .ok()?;
    let v: serde_json::Value = serde_json::from_slice(&reply).ok()?;
    if v.get("type")?.as_str()? != "hook" {
        return None;
    }
    // `shellgate hook` exits 0 (an answer or none) or 2 (blocking).
    let code = match v.get("exit")?.as_u64()? {
        0 => 0,
        2 => 2,
        _ => return None,
    };
    let out = v.get("stdout")?.as_str()?.to_string();
    let err = v.get("stderr")?.as_str()?.to_string();
    Some((code, out, err))
}

/// Connect to the service without waiting on it: a stopped service whose
/// queue of connections is full makes a blocking `connect` wait forever;
/// here it is a refusal (the standalone hook answers instead).
#[cfg(target_os = "linux")]
fn connect(socket: &Path) -> Option<UnixStream> {
    use std::os::fd::FromRawFd;
    use std::os::unix::ffi::OsStrExt;
    // SAFETY: a new socket descriptor, owned by the stream at once.
    let fd = unsafe {
        libc::socket(
            libc::AF_UNIX,
            libc::SOCK_STREAM | libc::SOCK_CLOEXEC | libc::SOCK_NONBLOCK,
            0,
        )
    };
    if fd < 0 {
        return None;
    }
    // SAFETY: `fd` is a fresh descriptor nobody else owns.
    let stream = unsafe { UnixStream::from_raw_fd(fd) };
    // SAFETY: an all-zero sockaddr_un is valid; the path is copied in below.
    let mut addr: libc::sockaddr_un = unsafe { std::mem::zeroed() };
    addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
    let path = socket.as_os_str().as_bytes();
    if path.len() >= addr.sun_path.len() {
        return None;
    }
    for (d, b) in addr.sun_path.iter_mut().zip(path) {
        *d = *b as libc::c_char;
    }
    let len = (std::mem::size_of::<libc::sa_family_t>() + path.len() + 1) as libc::socklen_t;
    // SAFETY: connect with an initialised address of the given length.
    let r = unsafe {
        libc::connect(
            fd,
            (&addr as *const libc::sockaddr_un).cast::<libc::sockaddr>(),
            len,
        )
    };
    if r != 0 {
        // EAGAIN: the service's queue is full (it is not accepting).
        return None;
    }
    stream.set_nonblocking(false).ok()?;
    Some(stream)
}

#[cfg(not(target_os = "linux"))]
fn connect(socket: &Path) -> Option<UnixStream> {
    UnixStream::connect(socket).ok()
}

/// Whether the service runs as this user (the socket's mode already keeps
/// others out; a socket someone else bound is never trusted).
#[cfg(target_os = "linux")]
fn same_user(s: &UnixStream) -> bool {
    use std::os::fd::AsRawFd;
    let mut cred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: getsockopt fills a local ucred of the given length.
    let r = unsafe {
        libc::getsockopt(
            s.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    };
    // SAFETY: geteuid has no preconditions.
    r == 0 && cred.uid == unsafe { libc::geteuid() }
}

#[cfg(not(target_os = "linux"))]
fn same_user(s: &UnixStream) -> bool {
    use std::os::fd::AsRawFd;
    let (mut uid, mut gid) = (0, 0);
    // SAFETY: getpeereid fills two locals; geteuid has no preconditions.
    unsafe { libc::getpeereid(s.as_raw_fd(), &mut uid, &mut gid) == 0 && uid == libc::geteuid() }
}

/// Run `shellgate` (next to this program) with the same arguments; `event`
/// (already read from stdin) becomes its standard input.
fn standalone(args: &[OsString], event: Option<&[u8]>) -> ! {
    if std::env::var_os(REQUIRE_SERVICE_ENV).is_some_and(|v| v == "1") {
        fail(&format!(
            "the approval service did not answer and {REQUIRE_SERVICE_ENV}=1 forbids the standalone hook"
        ));
    }
    let gate = match standalone_gate() {
        Ok(g) => g,
        Err(e) => fail(&format!("cannot find this program's path ({e})")),
    };
    if let Some(bytes) = event {
        if let Err(e) = stdin_from(bytes) {
            fail(&format!("cannot hand the event on ({e})"));
        }
    }
    // The standalone hook starts as the host started this one.
    // SAFETY: restoring a signal's default disposition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let e = std::process::Command::new(&gate).args(args).exec();
    fail(&format!("cannot run {} ({e})", gate.display()))
}

/// `shellgate` next to this program.
fn standalone_gate() -> std::io::Result<PathBuf> {
    Ok(std::env::current_exe()?.with_file_name("shellgate"))
}

fn fail(why: &str) -> ! {
    eprintln!("shellgate-hook: {why}; the call is blocked (fail closed)");
    std::process::exit(2)
}

/// Make standard input a file holding `bytes`, read from its start.
fn stdin_from(bytes: &[u8]) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom};
    use std::os::fd::AsRawFd;
    let mut f = memory_file()?;
    f.write_all(bytes)?;
    f.seek(SeekFrom::Start(0))?;
    // SAFETY: dup2 of an open descriptor onto stdin.
    if unsafe { libc::dup2(f.as_raw_fd(), libc::STDIN_FILENO) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(target_os = "linux")]
fn memory_file() -> std::io::Result<std::fs::File> {
    use std::os::fd::FromRawFd;
    // SAFETY: memfd_create with a NUL-terminated name; the descriptor is
    // owned by the File from here on.
    let fd = unsafe { libc::memfd_create(c"shellgate-hook-event".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: a fresh descriptor nobody else owns.
    Ok(unsafe { std::fs::File::from_raw_fd(fd) })
}

#[cfg(not(target_os = "linux"))]
fn memory_file() -> std::io::Result<std::fs::File> {
    // An unlinked private file in the temporary directory.
    let mut n = std::process::id() as u64;
    loop {
        let p = std::env::temp_dir().join(format!(".shellgate-hook-{n:x}"));
        match std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&p)
        {
            Ok(f) => {
                std::fs::remove_file(&p)?;
                return Ok(f);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => n = n.wrapping_add(7919),
            Err(e) => return Err(e),
        }
    }
}
