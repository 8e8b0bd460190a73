//! Optionally link the `shellgate` executable as a position-dependent
//! (non-PIE) program on Linux with glibc (issue 14).
//!
//! A PIE build carries relative relocations (pointers in statics), which
//! the dynamic loader applies on every start, a copy-on-write page fault for
//! every page it writes. There were about 55,000 of them, most from the
//! program specs; the specs' tables now hold ranges instead of pointers
//! (`crates/programs/src/spec.rs`), which left about 22,000 (regex Unicode
//! tables, SQLite, panic locations and other crates' statics) and took the
//! ungated hook from about 540 to 290 page faults (BENCHMARKS.md, "Issue
//! 14: relocation-free program tables"). Linked non-PIE the linker resolves
//! the rest once — but the executable's own segments then load at a fixed
//! address, which gives up address-space randomization of the code that
//! parses the agent's input. A security gate keeps it by default: set
//! `SHELLGATE_NO_PIE=1` when building to trade it for the faster start.
fn main() {
    println!("cargo:rerun-if-env-changed=SHELLGATE_NO_PIE");
    let linux_gnu = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux")
        && std::env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu");
    if linux_gnu && std::env::var_os("SHELLGATE_NO_PIE").is_some_and(|v| v == "1") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
