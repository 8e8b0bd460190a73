//! Optionally link the `shellgate` executable as a position-dependent
//! (non-PIE) program on Linux with glibc (issue 14).
//!
//! A PIE build carries about 55,000 relative relocations (the bundled
//! program specs and tables are pointers), which the dynamic loader applies
//! on every start, touching every page: about 340 of the hook's 530 page
//! faults and half of the ungated hook's CPU time (BENCHMARKS.md). Linked
//! non-PIE the linker resolves them once — but the executable's own
//! segments then load at a fixed address, which gives up address-space
//! randomization of the code that parses the agent's input. A security gate
//! keeps it by default: set `SHELLGATE_NO_PIE=1` when building to trade it
//! for the faster start.
fn main() {
    println!("cargo:rerun-if-env-changed=SHELLGATE_NO_PIE");
    let linux_gnu = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux")
        && std::env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu");
    if linux_gnu && std::env::var_os("SHELLGATE_NO_PIE").is_some_and(|v| v == "1") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
