//! Thin wrappers over the system calls the sandbox needs. Every `unsafe`
//! block here passes valid, NUL-terminated pointers that outlive the call.

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use crate::{SandboxError, Unsupported};

fn cvt(r: libc::c_long) -> io::Result<libc::c_long> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

fn cvt_i(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

pub(crate) fn cpath(p: &Path) -> io::Result<CString> {
    CString::new(p.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path contains a NUL byte"))
}

const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;

/// The kernel's Landlock ABI version, or 0 when there is none.
pub(crate) fn landlock_abi() -> i32 {
    // SAFETY: a NULL attribute with size 0 and the VERSION flag only queries.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    i32::try_from(v).unwrap_or(0).max(0)
}

/// Writes a whole buffer to a file with raw calls (safe to use after `fork`).
fn write_file_raw(path: &CStr, data: &[u8]) -> bool {
    // SAFETY: valid C string and buffer; the descriptor is closed here.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return false;
        }
        let n = libc::write(fd, data.as_ptr().cast(), data.len());
        libc::close(fd);
        n == data.len() as isize
    }
}

struct IdMaps {
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
}

fn id_maps() -> IdMaps {
    // SAFETY: getuid/getgid cannot fail.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    IdMaps {
        uid_map: format!("{uid} {uid} 1").into_bytes(),
        gid_map: format!("{gid} {gid} 1").into_bytes(),
    }
}

const SETGROUPS: &CStr = c"/proc/self/setgroups";
const UID_MAP: &CStr = c"/proc/self/uid_map";
const GID_MAP: &CStr = c"/proc/self/gid_map";

fn write_maps_raw(m: &IdMaps) -> Result<(), &'static str> {
    if !write_file_raw(SETGROUPS, b"deny") {
        return Err("writing /proc/self/setgroups");
    }
    if !write_file_raw(UID_MAP, &m.uid_map) {
        return Err("writing /proc/self/uid_map");
    }
    if !write_file_raw(GID_MAP, &m.gid_map) {
        return Err("writing /proc/self/gid_map");
    }
    Ok(())
}

/// Tries, in a short-lived child, what [`enter_namespaces`] and the mounts
/// will do.
pub(crate) fn probe_namespaces() -> Result<(), Unsupported> {
    let maps = id_maps();
    // SAFETY: the child only makes raw system calls and exits with _exit.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(Unsupported::new(format!(
            "cannot fork a probe: {}",
            io::Error::last_os_error()
        )));
    }
    if pid == 0 {
        let code = unsafe {
            if libc::unshare(
                libc::CLONE_NEWUSER | libc::CLONE_NEWNS | libc::CLONE_NEWNET | libc::CLONE_NEWPID,
            ) != 0
            {
                10
            } else if write_maps_raw(&maps).is_err() {
                11
            } else if libc::mount(
                std::ptr::null(),
                c"/".as_ptr(),
                std::ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            ) != 0
            {
                12
            } else if libc::syscall(libc::SYS_fsopen, c"tmpfs".as_ptr(), FSOPEN_CLOEXEC) < 0 {
                13
            } else {
                0
            }
        };
        // SAFETY: leaving the child without running destructors.
        unsafe { libc::_exit(code) };
    }
    let mut status = 0;
    // SAFETY: waiting for our own child.
    let r = unsafe { libc::waitpid(pid, &mut status, 0) };
    if r < 0 {
        return Err(Unsupported::new("lost the namespace probe"));
    }
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    match code {
        0 => Ok(()),
        10 => Err(Unsupported::new(
            "user namespaces are not available to this process (kernel.unprivileged_userns_clone, user.max_user_namespaces, or an AppArmor/container policy forbids them)",
        )),
        11 => Err(Unsupported::new("cannot map the user into a new user namespace")),
        12 => Err(Unsupported::new(
            "mounts are refused inside a new user namespace (an LSM policy restricts unprivileged user namespaces)",
        )),
        13 => Err(Unsupported::new("the new mount API (fsopen, Linux 5.2) is not available")),
        _ => Err(Unsupported::new("the namespace probe failed")),
    }
}

/// Enters new user, mount and PID namespaces (and a network namespace when
/// `new_net`), maps the caller's uid/gid to themselves and makes every mount
/// private, so nothing done afterwards is seen outside.
pub(crate) fn enter_namespaces(new_net: bool) -> Result<(), SandboxError> {
    let maps = id_maps();
    // A new PID namespace too: the command runs as a child of the
    // namespace's init ([`exec_in_pid_namespace`]), so that nothing it
    // starts outlives it.
    let mut flags = libc::CLONE_NEWUSER | libc::CLONE_NEWNS | libc::CLONE_NEWPID;
    if new_net {
        flags |= libc::CLONE_NEWNET;
    }
    // SAFETY: plain system call.
    if unsafe { libc::unshare(flags) } != 0 {
        let e = io::Error::last_os_error();
        return Err(match e.raw_os_error() {
            Some(libc::EINVAL) => SandboxError::setup(
                "entering a user namespace (the calling process must be single-threaded)",
                e,
            ),
            _ => {
                Unsupported::new(format!("cannot create user/mount/network namespaces: {e}")).into()
            }
        });
    }
    write_maps_raw(&maps).map_err(|what| SandboxError::setup(what, io::Error::last_os_error()))?;
    // SAFETY: remounting / recursively private with NULL source/type/data.
    let r = unsafe {
        libc::mount(
            std::ptr::null(),
            c"/".as_ptr(),
            std::ptr::null(),
            libc::MS_REC | libc::MS_PRIVATE,
            std::ptr::null(),
        )
    };
    if r != 0 {
        return Err(Unsupported::new(format!(
            "mounts are refused inside the new namespaces: {}",
            io::Error::last_os_error()
        ))
        .into());
    }
    Ok(())
}

/// Standard input, output and error must not be directories (a directory
/// descriptor opened outside would walk the tree without the sandbox's mounts)
/// nor `O_PATH` descriptors.
pub(crate) fn check_stdio() -> Result<(), SandboxError> {
    for (fd, name) in [(0, "input"), (1, "output"), (2, "error")] {
        // SAFETY: fstat/fcntl on a descriptor number; EBADF is handled.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstat(fd, &mut st) } != 0 {
            continue; // closed
        }
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        if (st.st_mode & libc::S_IFMT) == libc::S_IFDIR || (flags >= 0 && flags & libc::O_PATH != 0)
        {
            return Err(SandboxError::Plan(format!(
                "standard {name} is a directory or a path descriptor; the sandbox does not pass those through"
            )));
        }
    }
    Ok(())
}

/// Brings `lo` up in the new network namespace, so that servers the command
/// starts on 127.0.0.1 are reachable by the command itself.
pub(crate) fn loopback_up() -> io::Result<()> {
    // SAFETY: socket/ioctl with a zeroed ifreq naming "lo"; the socket is owned.
    unsafe {
        let s = cvt_i(libc::socket(
            libc::AF_INET,
            libc::SOCK_DGRAM | libc::SOCK_CLOEXEC,
            0,
        ))?;
        let s = OwnedFd::from_raw_fd(s);
        let mut ifr: libc::ifreq = std::mem::zeroed();
        for (dst, src) in ifr.ifr_name.iter_mut().zip(b"lo\0") {
            *dst = *src as libc::c_char;
        }
        cvt_i(libc::ioctl(
            s.as_raw_fd(),
            libc::SIOCGIFFLAGS as _,
            &mut ifr,
        ))?;
        ifr.ifr_ifru.ifru_flags |= (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
        cvt_i(libc::ioctl(s.as_raw_fd(), libc::SIOCSIFFLAGS as _, &ifr))?;
    }
    Ok(())
}

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;
const SECBIT_NOROOT: libc::c_ulong = 1 << 0;
const SECBIT_NOROOT_LOCKED: libc::c_ulong = 1 << 1;
const SECBIT_NO_CAP_AMBIENT_RAISE: libc::c_ulong = 1 << 6;
const SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED: libc::c_ulong = 1 << 7;

/// Drops every capability (effective, permitted, inheritable, ambient and the
/// bounding set) and locks "root has no special powers", so even a uid 0
/// caller keeps none across `exec`.
pub(crate) fn drop_capabilities() -> Result<(), SandboxError> {
    let step = |what: &str| SandboxError::setup(what.to_string(), io::Error::last_os_error());
    let bits = SECBIT_NOROOT
        | SECBIT_NOROOT_LOCKED
        | SECBIT_NO_CAP_AMBIENT_RAISE
        | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
    // SAFETY: prctl with integer arguments.
    if unsafe { libc::prctl(libc::PR_SET_SECUREBITS, bits, 0, 0, 0) } != 0 {
        return Err(step("setting securebits"));
    }
    let last = std::fs::read_to_string("/proc/sys/kernel/cap_last_cap")
        .ok()
        .and_then(|s| s.trim().parse::<libc::c_ulong>().ok())
        .unwrap_or(63);
    for cap in 0..=last {
        // SAFETY: prctl with integer arguments; EINVAL for unknown caps is fine.
        if unsafe { libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) } != 0
            && io::Error::last_os_error().raw_os_error() != Some(libc::EINVAL)
        {
            return Err(step("dropping the capability bounding set"));
        }
    }
    // SAFETY: prctl with integer arguments.
    if unsafe {
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong,
            0,
            0,
            0,
        )
    } != 0
    {
        return Err(step("clearing ambient capabilities"));
    }
    let mut hdr = CapHeader {
        version: LINUX_CAPABILITY_VERSION_3,
        pid: 0,
    };
    let data = [CapData {
        effective: 0,
        permitted: 0,
        inheritable: 0,
    }; 2];
    // SAFETY: header and two data structs as capset(2) expects for version 3.
    if unsafe { libc::syscall(libc::SYS_capset, &mut hdr as *mut CapHeader, data.as_ptr()) } != 0 {
        return Err(step("dropping capabilities"));
    }
    // SAFETY: prctl with integer arguments.
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return Err(step("setting no_new_privs"));
    }
    Ok(())
}

/// Marks every descriptor above 2 close-on-exec.
pub(crate) fn close_inherited_fds() -> io::Result<()> {
    // SAFETY: close_range with the CLOEXEC flag only sets flags.
    let r = unsafe {
        libc::syscall(
            libc::SYS_close_range,
            3u32,
            u32::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
        )
    };
    if r == 0 {
        return Ok(());
    }
    // Fallback for kernels without close_range: walk /proc/self/fd.
    let fds: Vec<RawFd> = std::fs::read_dir("/proc/self/fd")?
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|s| s.parse().ok()))
        .filter(|fd| *fd > 2)
        .collect();
    for fd in fds {
        // SAFETY: setting FD_CLOEXEC; a descriptor already closed gives EBADF.
        unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
    }
    Ok(())
}

/// `execvp`; returns only on failure.
/// Where the supervising processes forward signals (0: nowhere yet).
static FORWARD_TO: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

extern "C" fn forward_signal(sig: libc::c_int) {
    let pid = FORWARD_TO.load(std::sync::atomic::Ordering::SeqCst);
    if pid > 0 {
        // SAFETY: kill is async-signal-safe.
        unsafe { libc::kill(pid, sig) };
    }
}

extern "C" fn ignore_signal(_: libc::c_int) {}

/// Signals a supervisor passes on to the process it waits for.
const FORWARDED: [libc::c_int; 4] = [libc::SIGTERM, libc::SIGHUP, libc::SIGUSR1, libc::SIGUSR2];
/// Signals the terminal sends to the whole process group (the command gets
/// its own): the supervisors only survive them. A handler, never `SIG_IGN`,
/// so that the command starts with the dispositions the caller gave.
const FROM_TERMINAL: [libc::c_int; 2] = [libc::SIGINT, libc::SIGQUIT];

/// Installs the supervisor's handlers, leaving signals the caller ignores
/// ignored.
fn supervise_signals(target: libc::pid_t) {
    FORWARD_TO.store(target, std::sync::atomic::Ordering::SeqCst);
    let set = |sig: libc::c_int, handler: extern "C" fn(libc::c_int)| {
        // SAFETY: sigaction on a zeroed struct with a valid handler.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, std::ptr::null(), &mut old) != 0
                || old.sa_sigaction == libc::SIG_IGN
            {
                return;
            }
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = handler as usize;
            sa.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    };
    for sig in FORWARDED {
        set(sig, forward_signal);
    }
    for sig in FROM_TERMINAL {
        set(sig, ignore_signal);
    }
}

/// A wait status as an exit status (a signal as 128 + its number).
fn exit_status(st: libc::c_int) -> libc::c_int {
    if libc::WIFEXITED(st) {
        libc::WEXITSTATUS(st)
    } else if libc::WIFSIGNALED(st) {
        128 + libc::WTERMSIG(st)
    } else {
        1
    }
}

/// Runs the command as the only child of the PID namespace's init and
/// leaves with its status; returns only when it could not be executed.
///
/// After [`enter_namespaces`] the calling process's next child is PID 1 of
/// the new namespace: that child (the init, already confined) starts the
/// command, reaps whatever is orphaned, and exits with the command's status
/// as soon as the command ends — and the kernel kills everything else in the
/// namespace when its init exits: a background process the command left
/// behind cannot change files after the gate has looked at them. The init
/// dies with its parent (`PR_SET_PDEATHSIG`), the parent waits for the init
/// and passes on `SIGTERM`, `SIGHUP` and `SIGUSR1/2`; the terminal's `SIGINT`
/// and `SIGQUIT` reach the command directly. An `exec` failure comes back
/// through a close-on-exec pipe as the `errno`, as if `execvp` had failed
/// here.
pub(crate) fn exec_in_pid_namespace(argv: &[CString]) -> io::Error {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 into a local array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return io::Error::last_os_error();
    }
    let [r, w] = fds;
    // SAFETY: the process is single-threaded (namespaces were entered); the
    // child only makes system calls and leaves with _exit.
    let init = unsafe { libc::fork() };
    if init < 0 {
        return io::Error::last_os_error();
    }
    if init == 0 {
        // SAFETY: closing our copy of the read end.
        unsafe { libc::close(r) };
        run_init(argv, w);
    }
    // SAFETY: closing our copy of the write end; prctl on this process.
    unsafe {
        libc::close(w);
        // Not traceable by the command (same user, same Landlock domain):
        // a traced supervisor could be made to leave the command running.
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
    }
    supervise_signals(init);
    let mut buf = [0u8; 4];
    let mut got = 0usize;
    while got < buf.len() {
        // SAFETY: reading into the rest of a local buffer.
        let n = unsafe { libc::read(r, buf[got..].as_mut_ptr().cast(), buf.len() - got) };
        if n > 0 {
            got += n as usize;
        } else if n == 0 || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            break;
        }
    }
    // SAFETY: closing the read end.
    unsafe { libc::close(r) };
    let mut st: libc::c_int = 0;
    loop {
        // SAFETY: waiting for our own child.
        let p = unsafe { libc::waitpid(init, &mut st, 0) };
        if p == init {
            break;
        }
        if p < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            // SAFETY: leaving without destructors, as after exec.
            unsafe { libc::_exit(125) };
        }
    }
    if got == buf.len() {
        return io::Error::from_raw_os_error(i32::from_ne_bytes(buf));
    }
    // SAFETY: leaving with the command's status, as after exec.
    unsafe { libc::_exit(exit_status(st)) }
}

/// PID 1 of the sandbox's PID namespace (see [`exec_in_pid_namespace`]).
fn run_init(argv: &[CString], report: libc::c_int) -> ! {
    // SAFETY: raw system calls; every path ends in _exit or exec.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        // Not traceable by the command it starts (see the parent).
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
        let cmd = libc::fork();
        if cmd < 0 {
            let e = io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EAGAIN);
            libc::write(report, e.to_ne_bytes().as_ptr().cast(), 4);
            libc::_exit(126);
        }
        if cmd == 0 {
            let e = execvp(argv).raw_os_error().unwrap_or(libc::ENOEXEC);
            libc::write(report, e.to_ne_bytes().as_ptr().cast(), 4);
            libc::_exit(127);
        }
        libc::close(report);
        supervise_signals(cmd);
        loop {
            let mut st: libc::c_int = 0;
            let p = libc::waitpid(-1, &mut st, 0);
            if p == cmd {
                libc::_exit(exit_status(st));
            }
            if p < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                libc::_exit(125);
            }
        }
    }
}

pub(crate) fn execvp(argv: &[CString]) -> io::Error {
    let Some(prog) = argv.first() else {
        return io::Error::from(io::ErrorKind::InvalidInput);
    };
    let mut ptrs: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    ptrs.push(std::ptr::null());
    // SAFETY: NULL-terminated array of valid C strings that outlive the call.
    unsafe { libc::execvp(prog.as_ptr(), ptrs.as_ptr()) };
    io::Error::last_os_error()
}

// --- the new mount API (Linux 5.2+, mount_setattr 5.12+) -------------------

pub(crate) const FSOPEN_CLOEXEC: libc::c_uint = 1;
const FSCONFIG_SET_FLAG: libc::c_uint = 0;
const FSCONFIG_SET_STRING: libc::c_uint = 1;
const FSCONFIG_CMD_CREATE: libc::c_uint = 6;
const FSMOUNT_CLOEXEC: libc::c_uint = 1;
pub(crate) const MOUNT_ATTR_RDONLY: u64 = 0x1;
pub(crate) const MOUNT_ATTR_NOSUID: u64 = 0x2;
pub(crate) const MOUNT_ATTR_NODEV: u64 = 0x4;
pub(crate) const MOUNT_ATTR_NOEXEC: u64 = 0x8;
const OPEN_TREE_CLONE: libc::c_uint = 1;
const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 0x4;

#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// A fresh file system of type `fstype` that is not attached anywhere:
/// `fsopen`, the string options and flags through `fsconfig`, then `fsmount`
/// with the mount attributes `attrs`.
fn detached_fs(
    fstype: &CStr,
    strings: &[(&CStr, &CStr)],
    flags: &[&CStr],
    attrs: u64,
) -> io::Result<OwnedFd> {
    // SAFETY: fsopen/fsconfig/fsmount with valid C strings; descriptors owned.
    unsafe {
        let fs = cvt(libc::syscall(
            libc::SYS_fsopen,
            fstype.as_ptr(),
            FSOPEN_CLOEXEC,
        ))?;
        let fs = OwnedFd::from_raw_fd(fs as RawFd);
        for (k, v) in strings {
            cvt(libc::syscall(
                libc::SYS_fsconfig,
                fs.as_raw_fd(),
                FSCONFIG_SET_STRING,
                k.as_ptr(),
                v.as_ptr(),
                0,
            ))?;
        }
        for k in flags {
            cvt(libc::syscall(
                libc::SYS_fsconfig,
                fs.as_raw_fd(),
                FSCONFIG_SET_FLAG,
                k.as_ptr(),
                std::ptr::null::<libc::c_char>(),
                0,
            ))?;
        }
        cvt(libc::syscall(
            libc::SYS_fsconfig,
            fs.as_raw_fd(),
            FSCONFIG_CMD_CREATE,
            std::ptr::null::<libc::c_char>(),
            std::ptr::null::<libc::c_void>(),
            0,
        ))?;
        let m = cvt(libc::syscall(
            libc::SYS_fsmount,
            fs.as_raw_fd(),
            FSMOUNT_CLOEXEC,
            attrs,
        ))?;
        Ok(OwnedFd::from_raw_fd(m as RawFd))
    }
}

/// A fresh tmpfs that is not attached anywhere.
pub(crate) fn detached_tmpfs(size: &CStr, mode: &CStr, attrs: u64) -> io::Result<OwnedFd> {
    detached_fs(c"tmpfs", &[(c"size", size), (c"mode", mode)], &[], attrs)
}

/// A fresh overlay of `lower` (read) with `upper`/`work` (writes), not
/// attached anywhere; `userxattr` as a user namespace needs.
pub(crate) fn detached_overlay(lower: &Path, upper: &Path, work: &Path) -> io::Result<OwnedFd> {
    let (lower, upper, work) = (cpath(lower)?, cpath(upper)?, cpath(work)?);
    detached_fs(
        c"overlay",
        &[
            (c"lowerdir", lower.as_c_str()),
            (c"upperdir", upper.as_c_str()),
            (c"workdir", work.as_c_str()),
        ],
        &[c"userxattr"],
        MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
    )
}

/// `open_tree(dirfd, path, OPEN_TREE_CLONE)`: a detached copy of the mount
/// tree at `path` (recursively with its submounts when `recursive`).
pub(crate) fn clone_tree(dirfd: RawFd, path: &CStr, recursive: bool) -> io::Result<OwnedFd> {
    let mut flags = OPEN_TREE_CLONE | libc::O_CLOEXEC as libc::c_uint;
    if recursive {
        flags |= libc::AT_RECURSIVE as libc::c_uint;
    }
    if path.is_empty() {
        flags |= libc::AT_EMPTY_PATH as libc::c_uint;
    }
    // SAFETY: valid descriptor number and C string; the result is owned.
    let fd = cvt(unsafe { libc::syscall(libc::SYS_open_tree, dirfd, path.as_ptr(), flags) })?;
    // SAFETY: fresh descriptor.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// Sets attributes (e.g. read-only) on a detached or attached mount tree,
/// recursively.
pub(crate) fn set_mount_attrs(fd: &OwnedFd, set: u64) -> io::Result<()> {
    mount_setattr(fd.as_raw_fd(), c"", libc::AT_EMPTY_PATH, set)
}

/// Sets attributes on the mount tree at `path`, recursively.
pub(crate) fn set_mount_attrs_at(path: &Path, set: u64) -> io::Result<()> {
    let p = cpath(path)?;
    mount_setattr(libc::AT_FDCWD, &p, 0, set)
}

fn mount_setattr(dirfd: RawFd, path: &CStr, flags: libc::c_int, set: u64) -> io::Result<()> {
    let attr = MountAttr {
        attr_set: set,
        attr_clr: 0,
        propagation: 0,
        userns_fd: 0,
    };
    // SAFETY: a valid C string and a mount_attr of the size passed.
    cvt(unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            dirfd,
            path.as_ptr(),
            (flags | libc::AT_RECURSIVE) as libc::c_uint,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    })?;
    Ok(())
}

/// Attaches a detached mount tree at `target`.
pub(crate) fn move_mount_to(fd: &OwnedFd, target: &Path) -> io::Result<()> {
    let t = cpath(target)?;
    // SAFETY: valid descriptor and C strings.
    cvt(unsafe {
        libc::syscall(
            libc::SYS_move_mount,
            fd.as_raw_fd(),
            c"".as_ptr(),
            libc::AT_FDCWD,
            t.as_ptr(),
            MOVE_MOUNT_F_EMPTY_PATH,
        )
    })?;
    Ok(())
}

/// Creates `rel` below `base` (mode 0700), one component at a time, each
/// opened with `O_NOFOLLOW`: a symbolic link anywhere below `base` fails
/// with `ELOOP`/`ENOTDIR` instead of being followed.
pub(crate) fn make_dirs_nofollow(base: &Path, rel: &Path) -> io::Result<()> {
    let flags = libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_RDONLY;
    let b = cpath(base)?;
    // SAFETY: a valid C string; the descriptor is owned at once.
    let mut dir = unsafe { OwnedFd::from_raw_fd(cvt_i(libc::open(b.as_ptr(), flags))?) };
    for part in rel.components() {
        let std::path::Component::Normal(name) = part else {
            return Err(io::Error::from(io::ErrorKind::InvalidInput));
        };
        let n = CString::new(name.as_bytes())
            .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
        // SAFETY: valid descriptor and C string.
        match cvt_i(unsafe { libc::mkdirat(dir.as_raw_fd(), n.as_ptr(), 0o700) }) {
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
        // SAFETY: valid descriptor and C string; the result is owned.
        let next = cvt_i(unsafe { libc::openat(dir.as_raw_fd(), n.as_ptr(), flags) })?;
        // SAFETY: fresh descriptor.
        dir = unsafe { OwnedFd::from_raw_fd(next) };
    }
    Ok(())
}

/// `mkdirat(dirfd, path, mode)`.
pub(crate) fn mkdir_at(dirfd: &OwnedFd, path: &Path, mode: libc::mode_t) -> io::Result<()> {
    let p = cpath(path)?;
    // SAFETY: valid descriptor and C string.
    cvt_i(unsafe { libc::mkdirat(dirfd.as_raw_fd(), p.as_ptr(), mode) })?;
    Ok(())
}

/// Creates an empty file `name` below `dirfd` with `mode`.
pub(crate) fn create_file_at(dirfd: &OwnedFd, name: &CStr, mode: libc::mode_t) -> io::Result<()> {
    // SAFETY: valid descriptor and C string; the new descriptor is closed at once.
    let fd = cvt_i(unsafe {
        libc::openat(
            dirfd.as_raw_fd(),
            name.as_ptr(),
            libc::O_CREAT | libc::O_EXCL | libc::O_WRONLY | libc::O_CLOEXEC,
            mode as libc::c_uint,
        )
    })?;
    // SAFETY: closing the descriptor just opened.
    unsafe { libc::close(fd) };
    Ok(())
}
