//! `shellgate`: decide whether an agent's shell command (or file access) may
//! run — allow, ask a human, or deny.

fn main() -> std::process::ExitCode {
    shellgate::main_entry()
}
