//! Fault injection for the host end-to-end suite (cargo feature
//! `fault-injection`, never in a release build users get):
//! `SHELLGATE_FAULT=<kind>` makes `shellgate hook` fail on purpose right
//! after it read the event, so the suite can prove that every kind of
//! failure ends in a block the real host honours (SPEC §15.9).
//!
//! Kinds: `panic`, `abort`, `segv` (invalid memory access), `stackoverflow`,
//! `oom` (allocate until the allocator fails), `kill` (SIGKILL, as the
//! OOM killer sends), `hang` (past the worker's watchdog), `stop` (SIGSTOP:
//! the whole worker, watchdog included, stops; only the supervisor's
//! deadline can end it), `exit1` (exit status 1), `badjson` (non-JSON on
//! stdout with exit 0).

use std::hint::black_box;
use std::io::Write;

/// The environment variable naming the fault.
pub const FAULT_ENV: &str = "SHELLGATE_FAULT";

/// Fail as `SHELLGATE_FAULT` says (no variable: do nothing).
pub fn inject() {
    let Ok(kind) = std::env::var(FAULT_ENV) else {
        return;
    };
    match kind.trim() {
        "panic" => panic!("injected fault: panic"),
        "abort" => std::process::abort(),
        "segv" => {
            // SAFETY: deliberately not: an invalid write, to be killed by
            // SIGSEGV like a memory-safety bug in a dependency would be.
            unsafe { std::ptr::write_volatile(black_box(8usize) as *mut u8, 1) }
        }
        "stackoverflow" => {
            black_box(recurse(black_box(0)));
        }
        "oom" => allocate_until_failure(),
        "kill" => {
            // SAFETY: signals this process.
            unsafe {
                libc::kill(libc::getpid(), libc::SIGKILL);
            }
        }
        "hang" => loop {
            std::thread::sleep(std::time::Duration::from_secs(1));
        },
        "stop" => {
            // SAFETY: signals this process.
            unsafe {
                libc::raise(libc::SIGSTOP);
            }
        }
        "exit1" => std::process::exit(1),
        "badjson" => {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "this is not JSON");
            let _ = out.flush();
            std::process::exit(0);
        }
        _ => {}
    }
}

/// Unbounded recursion with a large frame: overflows any stack.
fn recurse(n: u64) -> u64 {
    let frame = black_box([n as u8; 4096]);
    if black_box(n) == u64::MAX {
        return 0;
    }
    recurse(n + 1).wrapping_add(u64::from(frame[(n % 4096) as usize]))
}

/// Reserve memory in 1 GiB blocks until the allocator fails (the worker's
/// address-space limit makes that happen without touching the memory);
/// Rust then reports the allocation error and aborts.
fn allocate_until_failure() {
    let mut keep: Vec<Vec<u8>> = Vec::new();
    for _ in 0..256 {
        keep.push(black_box(Vec::with_capacity(1 << 30)));
    }
    black_box(&keep);
    std::alloc::handle_alloc_error(std::alloc::Layout::new::<[u8; 1 << 20]>());
}
