//! A small seccomp filter for what neither Landlock nor the namespaces cover.
//!
//! Written out as classic BPF (about 50 instructions) rather than through a
//! filter-building crate, so that the whole policy is visible here, including
//! the checks such crates leave to the caller: the architecture, and the x32
//! system call numbers that share x86_64's architecture value.
//!
//! Refused (the call fails, the process goes on):
//! * `socket()` of any family but `AF_INET`, `AF_INET6` and `AF_NETLINK`
//!   (`EACCES`): unix sockets reach host daemons (docker, D-Bus, ssh-agent,
//!   tmux, X11) whatever the network namespace; vsock reaches the hypervisor;
//! * `socketpair()` of type `SOCK_DGRAM` (`EACCES`): `sendto` on it can address
//!   any datagram socket by path;
//! * `ioctl(TIOCSTI)` and `ioctl(TIOCLINUX)` (`EPERM`): typing into the terminal;
//! * `io_uring_*` (`EPERM`): its operations would bypass this filter;
//! * kernel keyrings, `bpf`, `userfaultfd`, `perf_event_open`, kernel modules,
//!   `kexec`, `open_by_handle_at` (`EPERM`);
//! * x32 system calls (`ENOSYS`); any other architecture kills the process.

use std::io;

use crate::SandboxError;

#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xC000_00B7;
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const AUDIT_ARCH: u32 = 0;

const X32_SYSCALL_BIT: u32 = 0x4000_0000;

const RET_ALLOW: u32 = 0x7fff_0000;
const RET_KILL_PROCESS: u32 = 0x8000_0000;
const RET_ERRNO: u32 = 0x0005_0000;

// seccomp_data offsets
const OFF_NR: u32 = 0;
const OFF_ARCH: u32 = 4;
const fn off_arg_lo(i: u32) -> u32 {
    16 + 8 * i // little-endian: the low 32 bits come first
}

// BPF opcodes
const BPF_LD_W_ABS: u16 = 0x20; // BPF_LD (0) | BPF_W (0) | BPF_ABS (0x20)
const BPF_JEQ_K: u16 = 0x05 | 0x10; // BPF_JMP | BPF_JEQ | BPF_K
const BPF_JGE_K: u16 = 0x05 | 0x30; // BPF_JMP | BPF_JGE | BPF_K
const BPF_AND_K: u16 = 0x04 | 0x50; // BPF_ALU | BPF_AND | BPF_K
const BPF_RET_K: u16 = 0x06; // BPF_RET | BPF_K

fn stmt(code: u16, k: u32) -> libc::sock_filter {
    libc::sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jump(code: u16, k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter { code, jt, jf, k }
}

fn errno(e: i32) -> u32 {
    RET_ERRNO | (e as u32 & 0xffff)
}

fn nr(n: libc::c_long) -> u32 {
    n as u32
}

/// System calls refused outright with `EPERM`.
fn denied_syscalls() -> Vec<libc::c_long> {
    let mut v = vec![
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
        libc::SYS_keyctl,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_bpf,
        libc::SYS_userfaultfd,
        libc::SYS_perf_event_open,
        libc::SYS_init_module,
        libc::SYS_finit_module,
        libc::SYS_delete_module,
        libc::SYS_kexec_load,
        libc::SYS_open_by_handle_at,
    ];
    #[cfg(target_arch = "x86_64")]
    v.push(libc::SYS_kexec_file_load);
    v
}

/// A block that runs only for system call `n`: `[jne n → skip body] body…`.
/// The body must end in a return.
fn for_syscall(n: libc::c_long, body: Vec<libc::sock_filter>) -> Vec<libc::sock_filter> {
    let len = u8::try_from(body.len()).unwrap_or(u8::MAX);
    let mut out = vec![jump(BPF_JEQ_K, nr(n), 0, len)];
    out.extend(body);
    out
}

pub(crate) fn program() -> Vec<libc::sock_filter> {
    let mut p = vec![
        stmt(BPF_LD_W_ABS, OFF_ARCH),
        jump(BPF_JEQ_K, AUDIT_ARCH, 1, 0),
        stmt(BPF_RET_K, RET_KILL_PROCESS),
        stmt(BPF_LD_W_ABS, OFF_NR),
    ];
    if cfg!(target_arch = "x86_64") {
        p.push(jump(BPF_JGE_K, X32_SYSCALL_BIT, 0, 1));
        p.push(stmt(BPF_RET_K, errno(libc::ENOSYS)));
    }
    for n in denied_syscalls() {
        p.push(jump(BPF_JEQ_K, nr(n), 0, 1));
        p.push(stmt(BPF_RET_K, errno(libc::EPERM)));
    }
    // socket(domain, …): the kernel reads `domain` as an int
    p.extend(for_syscall(
        libc::SYS_socket,
        vec![
            stmt(BPF_LD_W_ABS, off_arg_lo(0)),
            jump(BPF_JEQ_K, libc::AF_INET as u32, 2, 0),
            jump(BPF_JEQ_K, libc::AF_INET6 as u32, 1, 0),
            jump(BPF_JEQ_K, libc::AF_NETLINK as u32, 0, 1),
            stmt(BPF_RET_K, RET_ALLOW),
            stmt(BPF_RET_K, errno(libc::EACCES)),
        ],
    ));
    // socketpair(domain, type, …): type without SOCK_NONBLOCK/SOCK_CLOEXEC
    p.extend(for_syscall(
        libc::SYS_socketpair,
        vec![
            stmt(BPF_LD_W_ABS, off_arg_lo(1)),
            stmt(BPF_AND_K, 0xf),
            jump(BPF_JEQ_K, libc::SOCK_DGRAM as u32, 0, 1),
            stmt(BPF_RET_K, errno(libc::EACCES)),
            stmt(BPF_RET_K, RET_ALLOW),
        ],
    ));
    // ioctl(fd, request, …): the kernel reads `request` as an unsigned int
    p.extend(for_syscall(
        libc::SYS_ioctl,
        vec![
            stmt(BPF_LD_W_ABS, off_arg_lo(1)),
            jump(BPF_JEQ_K, libc::TIOCSTI as u32, 1, 0),
            jump(BPF_JEQ_K, libc::TIOCLINUX as u32, 0, 1),
            stmt(BPF_RET_K, errno(libc::EPERM)),
            stmt(BPF_RET_K, RET_ALLOW),
        ],
    ));
    p.push(stmt(BPF_RET_K, RET_ALLOW));
    p
}

/// Installs the filter on the calling thread (inherited by every child).
/// `no_new_privs` must already be set.
pub(crate) fn install() -> Result<(), SandboxError> {
    let prog = program();
    let len = u16::try_from(prog.len())
        .map_err(|_| SandboxError::Plan("seccomp program too long".into()))?;
    let fprog = libc::sock_fprog {
        len,
        filter: prog.as_ptr() as *mut libc::sock_filter,
    };
    // SAFETY: fprog points at `prog`, alive for the duration of the call.
    let r = unsafe {
        libc::prctl(
            libc::PR_SET_SECCOMP,
            libc::SECCOMP_MODE_FILTER as libc::c_ulong,
            &fprog as *const libc::sock_fprog,
            0,
            0,
        )
    };
    if r != 0 {
        return Err(SandboxError::setup(
            "installing the seccomp filter",
            io::Error::last_os_error(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jumps_stay_inside_the_program() {
        let p = program();
        for (i, ins) in p.iter().enumerate() {
            if ins.code & 0x07 == 0x05 {
                assert!(i + 1 + (ins.jt as usize) < p.len(), "jt of {i}");
                assert!(i + 1 + (ins.jf as usize) < p.len(), "jf of {i}");
            }
        }
        assert_eq!(
            p.last().map(|i| (i.code, i.k)),
            Some((BPF_RET_K, RET_ALLOW))
        );
    }
}
