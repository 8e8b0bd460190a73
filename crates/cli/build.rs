//! Link the `shellgate` executable as a position-dependent (non-PIE)
//! program on Linux with glibc (issue 14).
//!
//! A PIE build carries about 55,000 relative relocations (1.3 MB of
//! `.rela.dyn` for 1.3 MB of `.data.rel.ro`: the bundled program specs and
//! tables are pointers), which the dynamic loader applies on every start,
//! touching every page: about 340 of the hook's 530 page faults and half of
//! the ungated hook's CPU time. Linked non-PIE the linker resolves them once.
//! The cost is that the executable's own segments load at a fixed address
//! (libraries, heap, stack and thread stacks stay randomized). Set
//! `SHELLGATE_PIE=1` when building to keep a PIE.
fn main() {
    println!("cargo:rerun-if-env-changed=SHELLGATE_PIE");
    let linux_gnu = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux")
        && std::env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu");
    if linux_gnu && std::env::var_os("SHELLGATE_PIE").is_none() {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
