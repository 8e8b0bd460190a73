//! Where a hook evaluation comes from: the process, its environment and its
//! working directory.
//!
//! Normally that is this process. Inside the approval service a hook event
//! may be evaluated for the hook client (`shellgate-hook`, see
//! `hooks::served`): then every question the evaluation asks about "its"
//! process — an environment variable, the working directory, the process
//! whose ancestors are the host agent — is answered for the client, from
//! what it sent and what the kernel said about it, never from the
//! service's own process. Code on the hook's path asks here instead of
//! `std::env`.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The client a hook evaluation runs for.
#[derive(Debug, Clone, Default)]
pub struct Client {
    /// Its environment: the variables of `HOOK_ENV` it had set; any other
    /// name reads as unset.
    pub env: BTreeMap<String, String>,
    /// Its working directory.
    pub cwd: Option<PathBuf>,
    /// Its process id as the kernel reported it.
    pub pid: Option<u32>,
    /// When it stops waiting for the answer: nothing may be written for it
    /// after that (it then evaluates the call itself).
    pub deadline: Option<std::time::Instant>,
}

thread_local! {
    static CLIENT: RefCell<Option<Client>> = const { RefCell::new(None) };
    /// Warnings of an evaluation for a client, for its stderr.
    static WARNINGS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// A warning line for the evaluation's stderr: the client's, inside the
/// service (its human reads the host's hook output, not the service's
/// terminal).
pub fn warn(line: &str) {
    if is_client() {
        WARNINGS.with(|w| w.borrow_mut().push(line.to_string()));
    } else {
        eprintln!("{line}");
    }
}

/// One-time approval consumed for a hook client: (session, tool, command,
/// cwd).
pub type Taken = shellgate_store::lookups::TakenOnce;

thread_local! {
    static TAKEN: RefCell<Vec<Taken>> = const { RefCell::new(Vec::new()) };
}

/// Keep the one-time approvals an evaluation for a client consumed (the
/// service puts them back when it does not answer the client).
pub fn note_taken(taken: Vec<Taken>) {
    if is_client() && !taken.is_empty() {
        TAKEN.with(|t| t.borrow_mut().extend(taken));
    }
}

/// The approvals [`note_taken`] kept (and forget them).
pub fn take_taken() -> Vec<Taken> {
    TAKEN.with(|t| std::mem::take(&mut *t.borrow_mut()))
}

/// The warnings [`warn`] kept for the client, in order (and forget them).
pub fn take_warnings() -> Vec<String> {
    WARNINGS.with(|w| std::mem::take(&mut *w.borrow_mut()))
}

/// Run `f` on this thread as an evaluation for `client`.
pub fn for_client<R>(client: Client, f: impl FnOnce() -> R) -> R {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            CLIENT.with(|c| c.borrow_mut().take());
        }
    }
    CLIENT.with(|c| *c.borrow_mut() = Some(client));
    WARNINGS.with(|w| w.borrow_mut().clear());
    TAKEN.with(|t| t.borrow_mut().clear());
    let _reset = Reset;
    f()
}

/// Whether this thread evaluates for a hook client (inside the service).
pub fn is_client() -> bool {
    CLIENT.with(|c| c.borrow().is_some())
}

/// An environment variable of the evaluation's process (`None` when unset
/// or not UTF-8, like `std::env::var(..).ok()`).
pub fn var(name: &str) -> Option<String> {
    CLIENT
        .with(|c| {
            c.borrow()
                .as_ref()
                .map(|client| client.env.get(name).cloned())
        })
        .unwrap_or_else(|| std::env::var(name).ok())
}

/// [`var`] for values that need not be UTF-8 (a client sends only UTF-8).
pub fn var_os(name: &str) -> Option<std::ffi::OsString> {
    CLIENT
        .with(|c| {
            c.borrow()
                .as_ref()
                .map(|client| client.env.get(name).map(Into::into))
        })
        .unwrap_or_else(|| std::env::var_os(name))
}

/// The evaluation's process's working directory.
pub fn current_dir() -> std::io::Result<PathBuf> {
    let theirs = CLIENT.with(|c| c.borrow().as_ref().map(|client| client.cwd.clone()));
    match theirs {
        Some(Some(d)) => Ok(d),
        Some(None) => Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "the hook client sent no working directory",
        )),
        None => std::env::current_dir(),
    }
}

/// Time left before the client stops waiting (`None`: no client, no limit).
pub fn time_left() -> Option<std::time::Duration> {
    CLIENT.with(|c| {
        c.borrow()
            .as_ref()
            .and_then(|client| client.deadline)
            .map(|d| d.saturating_duration_since(std::time::Instant::now()))
    })
}

/// The evaluation's process id (`None`: a client whose pid the kernel did
/// not tell).
pub fn pid() -> Option<u32> {
    CLIENT
        .with(|c| c.borrow().as_ref().map(|client| client.pid))
        .unwrap_or_else(|| Some(std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_sees_only_its_own_environment() {
        let mut env = BTreeMap::new();
        env.insert("HOME".to_string(), "/home/client".to_string());
        let client = Client {
            env,
            cwd: Some(PathBuf::from("/work")),
            pid: Some(4242),
            deadline: None,
        };
        for_client(client, || {
            assert!(is_client());
            assert_eq!(var("HOME").as_deref(), Some("/home/client"));
            // The test process has a PATH; the client sent none.
            assert_eq!(var("PATH"), None);
            assert_eq!(current_dir().unwrap(), PathBuf::from("/work"));
            assert_eq!(pid(), Some(4242));
        });
        assert!(!is_client());
        assert_eq!(var("PATH"), std::env::var("PATH").ok());
        assert_eq!(pid(), Some(std::process::id()));
    }
}
