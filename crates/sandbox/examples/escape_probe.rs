//! Escape attempts for the sandbox's tests, one per subcommand. Prints `ok`
//! and exits 0 when the attempt worked, prints `denied: <error>` and exits 1
//! when the system refused it. Linux only.
//!
//! tcp ADDR | udp ADDR | unix PATH | ptrace PID | kill PID | tiocsti |
//! io_uring | keyctl | write PATH

#[cfg(target_os = "linux")]
fn attempt(args: &[String]) -> std::io::Result<()> {
    use std::io::{Error, Write};
    let arg = |i: usize| args.get(i).cloned().unwrap_or_default();
    let pid =
        || -> std::io::Result<libc::pid_t> { arg(1).parse().map_err(|_| Error::other("bad pid")) };
    let check = |r: libc::c_long| {
        if r < 0 {
            Err(Error::last_os_error())
        } else {
            Ok(())
        }
    };
    match arg(0).as_str() {
        "tcp" => {
            let mut s = std::net::TcpStream::connect_timeout(
                &arg(1).parse().map_err(|_| Error::other("bad address"))?,
                std::time::Duration::from_secs(2),
            )?;
            s.write_all(b"probe\n")
        }
        "udp" => {
            let s = std::net::UdpSocket::bind("127.0.0.1:0")?;
            s.send_to(b"probe", arg(1)).map(|_| ())
        }
        "unix" => std::os::unix::net::UnixStream::connect(arg(1))?.write_all(b"probe\n"),
        "ptrace" => unsafe {
            let p = pid()?;
            check(libc::ptrace(libc::PTRACE_ATTACH, p, 0, 0))?;
            let mut st = 0;
            libc::waitpid(p, &mut st, 0);
            libc::ptrace(libc::PTRACE_DETACH, p, 0, 0);
            Ok(())
        },
        "kill" => unsafe { check(libc::kill(pid()?, libc::SIGTERM) as libc::c_long) },
        "tiocsti" => unsafe {
            // a new session whose controlling terminal is a fresh pty
            let m = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
            check(m as libc::c_long)?;
            check(libc::grantpt(m) as libc::c_long)?;
            check(libc::unlockpt(m) as libc::c_long)?;
            let name = libc::ptsname(m);
            if name.is_null() {
                return Err(Error::last_os_error());
            }
            libc::setsid();
            let s = libc::open(name, libc::O_RDWR);
            check(s as libc::c_long)?;
            let c: libc::c_char = b'x' as libc::c_char;
            check(libc::ioctl(s, libc::TIOCSTI, &c) as libc::c_long)
        },
        "io_uring" => unsafe {
            let mut params = [0u8; 120];
            let fd = libc::syscall(libc::SYS_io_uring_setup, 1u32, params.as_mut_ptr());
            check(fd)?;
            libc::close(fd as libc::c_int);
            Ok(())
        },
        "keyctl" => unsafe {
            // KEYCTL_GET_KEYRING_ID (0) of the session keyring (-3)
            check(libc::syscall(libc::SYS_keyctl, 0, -3i32, 0))
        },
        "write" => std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(arg(1))?
            .write_all(b"pwned\n"),
        other => Err(Error::other(format!("unknown probe {other:?}"))),
    }
}

#[cfg(not(target_os = "linux"))]
fn attempt(_args: &[String]) -> std::io::Result<()> {
    Err(std::io::Error::other("linux only"))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match attempt(&args) {
        Ok(()) => {
            println!("ok");
            std::process::exit(0)
        }
        Err(e) => {
            println!("denied: {e}");
            std::process::exit(1)
        }
    }
}
