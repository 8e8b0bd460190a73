//! Fail closed in every host (SPEC §15.9): the hook's supervising parent.
//!
//! Codex and Gemini CLI let the tool run when a hook exits 1, is killed by
//! a signal, times out or prints nothing useful; only exit 2 (with the
//! reason on stderr) or the host's deny JSON blocks (docs/hosts.md). A
//! process cannot answer for itself once it is killed (SIGKILL from the
//! OOM killer), stopped, or stuck past its own watchdog, so `shellgate
//! hook` forks before it does anything else:
//!
//! - the **worker** (child) reads the event and answers, as before, under
//!   the panic guard and the watchdog (`edge::run_guarded`, 10 s), with an
//!   address-space limit so a runaway allocation fails inside the worker
//!   (allocation error ⇒ abort) instead of waking the kernel's OOM killer,
//!   which might pick the host;
//! - the **supervisor** (parent) only waits, holding the worker's stdout
//!   (a pipe): the worker's exit 0 with nothing or one JSON object printed
//!   is passed on (the answer copied to the host), exit 2 is passed on;
//!   any other exit status, anything else printed with exit 0, any fatal
//!   signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT from a panic-abort, a
//!   stack overflow or an allocation failure, SIGKILL), or no exit by
//!   [`DEADLINE`] (the worker is killed) becomes exit 2 with the reason on
//!   stderr.
//!
//! The deadline sits above the worker's watchdog and below the hook timeout
//! `shellgate install` writes for every host, so the host always sees the
//! block before its own timeout. A worker that waits for a human's answer
//! in the approval service (SPEC §17, `ask.rs`) announces it through a flag
//! in a page of memory shared with the supervisor ([`announce_waiting`]);
//! from then on the supervisor's deadline is the waiting one (the hook's
//! `--wait` plus [`DEADLINE`]), still below the host's timeout. Only the
//! deadline moves: a waiting worker that crashes or is killed is still
//! seen at once (its answer pipe closes) and blocks. A worker that dies mid-answer
//! leaves nothing on the host's stdout: the supervisor passes an answer on
//! only after the worker ended well.
//!
//! Linux only (`prctl`, `pipe2`, `/proc` elsewhere in the hooks); other
//! platforms run the worker in-process (panic guard and watchdog only).
//!
//! Chosen over in-process signal handlers (which cannot see SIGKILL, a
//! stopped process or a deadlocked watchdog) and over an install-time shell
//! wrapper (an extra `sh` exec per call); its cost is one `fork` per hook
//! call, measured in docs/hosts.md.

use std::time::Duration;

/// The supervisor's deadline for the worker (and, added to the hook's
/// `--wait`, for a worker that waits for a human).
pub const DEADLINE: Duration = Duration::from_secs(15);

/// The flag the worker raises when it starts waiting for a human: a word
/// in an anonymous shared mapping made before the fork (null: no
/// supervisor, or the mapping failed and the supervisor uses the waiting
/// deadline throughout).
#[cfg(target_os = "linux")]
static WAITING: std::sync::atomic::AtomicPtr<std::sync::atomic::AtomicU32> =
    std::sync::atomic::AtomicPtr::new(std::ptr::null_mut());

/// Tell the supervisor that the worker now waits for a human's answer, so
/// its deadline becomes the waiting one. No-op without a supervisor.
pub fn announce_waiting() {
    #[cfg(target_os = "linux")]
    {
        let p = WAITING.load(std::sync::atomic::Ordering::SeqCst);
        if !p.is_null() {
            // SAFETY: `p` points into a live MAP_SHARED page mapped by
            // `supervise` before the fork and never unmapped in the worker.
            unsafe { (*p).store(1, std::sync::atomic::Ordering::SeqCst) };
        }
    }
}

/// A shared, zeroed page holding the waiting flag (`None` if mmap fails).
#[cfg(target_os = "linux")]
fn shared_flag() -> Option<*mut std::sync::atomic::AtomicU32> {
    // SAFETY: an anonymous shared mapping of one page; checked for failure.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            4096,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    (p != libc::MAP_FAILED).then_some(p.cast())
}

/// The supervisor's two deadlines and the flag that picks one.
#[cfg(target_os = "linux")]
#[derive(Clone, Copy)]
struct Deadlines {
    normal: Duration,
    waiting: Duration,
    flag: Option<*mut std::sync::atomic::AtomicU32>,
}

#[cfg(target_os = "linux")]
impl Deadlines {
    fn current(&self) -> Duration {
        match self.flag {
            // SAFETY: the page stays mapped for the supervisor's lifetime.
            Some(p) if unsafe { (*p).load(std::sync::atomic::Ordering::SeqCst) } == 0 => {
                self.normal
            }
            _ => self.waiting.max(self.normal),
        }
    }
}

/// Address space the worker may map (its 256 MiB evaluation stack
/// included); far above what an evaluation needs.
#[cfg(target_os = "linux")]
const WORKER_ADDRESS_SPACE: u64 = 4 << 30;

/// Which side of the fork this process is.
#[derive(Debug, PartialEq, Eq)]
pub enum Role {
    /// Do the work.
    Worker,
    /// The supervisor is done: exit with this status.
    Exit(u8),
}

/// The blocking exit with its reason on stderr.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn block(reason: &str) -> u8 {
    use std::io::Write;
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "shellgate: {reason}; the call is blocked (fail closed)"
    );
    let _ = err.flush();
    2
}

/// Largest answer the worker may print.
#[cfg(target_os = "linux")]
const MAX_ANSWER: usize = 4 << 20;

/// Fork the worker and, in the parent, supervise it until it ends or the
/// deadline passes (`waiting` once the worker announced that it waits for a
/// human). Must be called before any thread is started.
#[cfg(target_os = "linux")]
pub fn supervise(deadline: Duration, waiting: Duration) -> Role {
    let deadline = Deadlines {
        normal: deadline,
        waiting,
        flag: shared_flag(),
    };
    // SAFETY: plain libc calls on local, initialised values. `fork` happens
    // while the process has a single thread (before any thread is spawned),
    // so the child may run any code.
    unsafe {
        let mut chld: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut chld);
        libc::sigaddset(&mut chld, libc::SIGCHLD);
        // Blocked before the fork so the child's end cannot be missed:
        // SIGCHLD stays pending until `sigtimedwait` takes it.
        if libc::pthread_sigmask(libc::SIG_BLOCK, &chld, &mut old) != 0 {
            return Role::Exit(block("cannot block SIGCHLD to supervise the hook"));
        }
        // The worker's answer goes through the supervisor, which passes it
        // on only when the worker ended well and the answer is one JSON
        // object (or nothing).
        let mut fds = [0 as libc::c_int; 2];
        if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            let e = std::io::Error::last_os_error();
            return Role::Exit(block(&format!(
                "cannot create the hook's answer pipe ({e})"
            )));
        }
        let [read_end, write_end] = fds;
        let parent = libc::getpid();
        let pid = libc::fork();
        if pid < 0 {
            let e = std::io::Error::last_os_error();
            return Role::Exit(block(&format!(
                "cannot start the hook's worker process ({e})"
            )));
        }
        if pid == 0 {
            libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
            // The worker does not outlive its supervisor.
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            if libc::getppid() != parent || libc::dup2(write_end, libc::STDOUT_FILENO) < 0 {
                libc::_exit(2);
            }
            libc::close(read_end);
            libc::close(write_end);
            if let Some(p) = deadline.flag {
                WAITING.store(p, std::sync::atomic::Ordering::SeqCst);
            }
            limit_address_space();
            return Role::Worker;
        }
        libc::close(write_end);
        let code = supervise_worker(pid, read_end, &chld, deadline);
        libc::close(read_end);
        Role::Exit(code)
    }
}

#[cfg(not(target_os = "linux"))]
pub fn supervise(_deadline: Duration, _waiting: Duration) -> Role {
    Role::Worker
}

#[cfg(target_os = "linux")]
fn limit_address_space() {
    // SAFETY: getrlimit/setrlimit on a local struct.
    unsafe {
        let mut lim: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_AS, &mut lim) != 0 {
            return;
        }
        let want = WORKER_ADDRESS_SPACE as libc::rlim_t;
        if lim.rlim_cur == libc::RLIM_INFINITY || lim.rlim_cur > want {
            lim.rlim_cur = want;
            let _ = libc::setrlimit(libc::RLIMIT_AS, &lim);
        }
    }
}

#[cfg(target_os = "linux")]
fn left(start: std::time::Instant, deadline: &Deadlines) -> Duration {
    deadline.current().saturating_sub(start.elapsed())
}

/// Kill the worker and block.
#[cfg(target_os = "linux")]
unsafe fn give_up(pid: libc::pid_t, reason: &str) -> u8 {
    libc::kill(pid, libc::SIGKILL);
    let mut st: libc::c_int = 0;
    libc::waitpid(pid, &mut st, 0);
    block(reason)
}

/// Collect the worker's answer, wait for its end, and decide what the host
/// sees.
#[cfg(target_os = "linux")]
unsafe fn supervise_worker(
    pid: libc::pid_t,
    answer_fd: libc::c_int,
    chld: &libc::sigset_t,
    deadline: Deadlines,
) -> u8 {
    let start = std::time::Instant::now();
    let too_late = || {
        format!(
            "the hook did not answer within {} s",
            deadline.current().as_secs()
        )
    };
    // 1. The answer, until the worker closes its stdout (it ends).
    let mut answer: Vec<u8> = Vec::new();
    let mut buf = [0u8; 16384];
    loop {
        let ms = left(start, &deadline).as_millis().min(i32::MAX as u128) as libc::c_int;
        if ms == 0 {
            return give_up(pid, &too_late());
        }
        let mut pfd = libc::pollfd {
            fd: answer_fd,
            events: libc::POLLIN,
            revents: 0,
        };
        let r = libc::poll(&mut pfd, 1, ms);
        if r < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return give_up(pid, "cannot read the hook's answer");
        }
        if r == 0 {
            continue; // the deadline check above ends it
        }
        let n = libc::read(answer_fd, buf.as_mut_ptr().cast(), buf.len());
        if n < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return give_up(pid, "cannot read the hook's answer");
        }
        if n == 0 {
            break;
        }
        answer.extend_from_slice(&buf[..n as usize]);
        if answer.len() > MAX_ANSWER {
            return give_up(pid, "the hook's answer is too large");
        }
    }
    // 2. The worker's end.
    let status = loop {
        let mut status: libc::c_int = 0;
        let r = libc::waitpid(pid, &mut status, libc::WNOHANG);
        if r == pid {
            break status;
        }
        if r < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return give_up(pid, &format!("cannot wait for the hook's worker ({e})"));
        }
        let l = left(start, &deadline);
        if l.is_zero() {
            return give_up(pid, &too_late());
        }
        let ts = libc::timespec {
            tv_sec: l.as_secs() as libc::time_t,
            tv_nsec: l.subsec_nanos() as libc::c_long,
        };
        // Returns on SIGCHLD (the worker ended or stopped), on the
        // timeout, or when interrupted; the loop re-checks each time.
        libc::sigtimedwait(chld, std::ptr::null_mut(), &ts);
    };
    // 3. What the host sees.
    match judge(status) {
        0 => pass_on(&answer),
        code => code,
    }
}

/// A worker that exited 0: its answer must be nothing or one JSON object.
#[cfg(target_os = "linux")]
fn pass_on(answer: &[u8]) -> u8 {
    use std::io::Write;
    let text = answer.trim_ascii();
    if !text.is_empty()
        && !serde_json::from_slice::<serde_json::Value>(text).is_ok_and(|v| v.is_object())
    {
        return block("the hook printed something that is not its JSON answer");
    }
    let mut out = std::io::stdout().lock();
    match out.write_all(answer).and_then(|_| out.flush()) {
        Ok(()) => 0,
        Err(e) => block(&format!("cannot write the hook's answer ({e})")),
    }
}

#[cfg(target_os = "linux")]
fn judge(status: libc::c_int) -> u8 {
    if libc::WIFEXITED(status) {
        return match libc::WEXITSTATUS(status) {
            0 => 0,
            2 => 2,
            c => block(&format!("the hook failed (exit status {c})")),
        };
    }
    if libc::WIFSIGNALED(status) {
        let sig = libc::WTERMSIG(status);
        return block(&format!(
            "the hook was killed by signal {sig} ({})",
            signal_name(sig)
        ));
    }
    block("the hook ended abnormally")
}

#[cfg(target_os = "linux")]
fn signal_name(sig: libc::c_int) -> &'static str {
    match sig {
        libc::SIGSEGV => "SIGSEGV: invalid memory access",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        libc::SIGABRT => "SIGABRT: abort, e.g. a stack overflow or an allocation failure",
        libc::SIGKILL => "SIGKILL, e.g. the out-of-memory killer",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        _ => "a fatal signal",
    }
}
