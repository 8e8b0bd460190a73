//! Hook events evaluated inside the approval service for the hook client.
//!
//! `shellgate-hook` (the hook client, `src/bin/shellgate-hook.rs`) sends
//! the event it read and its arguments, environment and working directory
//! over `state/serve.sock`; a warm service answers it without starting the
//! whole gate for every tool call. The answer must be exactly the
//! standalone hook's, so the service declines (the client then runs
//! `shellgate hook` itself) whenever it cannot promise that:
//!
//! * arguments the hook's fast reader does not take, or a gate home other
//!   than the service's own;
//! * an event of several calls (a one-time approval consumed by the first
//!   would be gone when the standalone hook evaluates them again);
//! * an ask while the hook would wait for the service (`--wait` > 0): the
//!   standalone hook publishes it and waits as ever, from the agent's own
//!   process tree, which the service needs to refuse answers from the agent;
//! * a panic, and a job that waited too long for the evaluator (its client
//!   has given up or is about to);
//! * a client whose `shellgate` is not the service's own executable (another
//!   install, or the service's file replaced by an upgrade): the gate's path
//!   is part of its decisions (`pkill -f PATH`, the sandboxed command).
//!
//! One evaluator thread (with the hook's generous stack) takes the jobs in
//! order: the gate's file-fact cache and the state database's connection
//! belong to it, and a second agent's call waits a few hundred
//! microseconds at most.

use std::cell::Cell;
use std::panic::AssertUnwindSafe;
use std::sync::mpsc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use shellgate_serve::protocol::{HookCall, HookReply, HOOK_ENV};

use super::{fast_args, handle_bytes, render, Outcome};
use crate::edge::Homes;
use crate::origin;

/// A job that waited longer than this for the evaluator is declined: its
/// client gives up after [`CLIENT_PATIENCE`] and runs the standalone hook,
/// which must not find the call evaluated (and logged) twice.
pub const QUEUE_LIMIT: Duration = Duration::from_millis(1000);

/// How long an evaluation may take from its start: past it nothing is
/// written for the client (the state database's busy wait is cut to what
/// is left) and the service declines. Queue, evaluation and one last busy
/// wait stay below [`CLIENT_PATIENCE`].
pub const EVALUATION_LIMIT: Duration = Duration::from_millis(1500);

/// How long the hook client waits for the service's answer.
pub const CLIENT_PATIENCE: Duration = Duration::from_secs(5);

thread_local! {
    /// While serving: how long the hook would wait for the service on ask.
    static SERVING: Cell<Option<Duration>> = const { Cell::new(None) };
}

/// Whether this thread evaluates for a hook client.
pub(super) fn serving() -> bool {
    SERVING.with(|s| s.get().is_some())
}

/// Whether a decision of the served event must be left to the standalone
/// hook: an ask it would publish to the service and wait for.
pub(super) fn leaves_ask(decision: &str) -> bool {
    SERVING.with(|s| s.get()).is_some_and(|w| !w.is_zero()) && decision == "ask"
}

type Job = (HookCall, Instant, mpsc::Sender<Option<HookReply>>);

/// The service's evaluator of hook events.
pub struct Evaluator {
    homes: Homes,
    jobs: Mutex<Option<mpsc::Sender<Job>>>,
}

impl Evaluator {
    /// An evaluator for the service of `homes` (its thread starts with the
    /// first job).
    pub fn new(homes: Homes) -> Evaluator {
        let _ = started_as();
        Evaluator {
            homes,
            jobs: Mutex::new(None),
        }
    }

    /// Evaluate `call` as the standalone hook would; `None`: declined.
    pub fn evaluate(&self, call: HookCall) -> Option<HookReply> {
        let (tx, rx) = mpsc::channel();
        {
            let mut jobs = self.jobs.lock().unwrap_or_else(|p| p.into_inner());
            if jobs.is_none() {
                *jobs = Some(self.start()?);
            }
            let sender = jobs.as_ref()?;
            if sender.send((call, Instant::now(), tx)).is_err() {
                // The evaluator is gone (it cannot be, short of a bug):
                // start another for the next job, decline this one.
                *jobs = None;
                return None;
            }
        }
        rx.recv_timeout(CLIENT_PATIENCE - Duration::from_millis(500))
            .ok()
            .flatten()
    }

    fn start(&self) -> Option<mpsc::Sender<Job>> {
        let (tx, rx) = mpsc::channel::<Job>();
        let homes = self.homes.clone();
        std::thread::Builder::new()
            .name("shellgate-hooks".into())
            .stack_size(256 * 1024 * 1024)
            .spawn(move || {
                for (call, queued, reply) in rx {
                    let answer = if queued.elapsed() > QUEUE_LIMIT {
                        None
                    } else {
                        serve(&homes, call)
                    };
                    let _ = reply.send(answer);
                }
            })
            .ok()?;
        Some(tx)
    }
}

/// Whether `gate` (the `shellgate` the client would run) is this very
/// executable: the gate's own path is part of its decisions (`pkill -f
/// PATH` of the gate is a hard deny; a sandboxed allow runs `PATH sandbox
/// …`), so another install — even of the same version — is left to the
/// standalone hook. So is a service whose file was replaced since it
/// started (an upgrade: the running executable's path then names nothing).
fn same_gate(gate: Option<&str>) -> bool {
    let Ok(own) = std::env::current_exe() else {
        return false;
    };
    let own = own.to_string_lossy();
    // Still the path it started as: the gate's rules keep the first path
    // they were given, so an install directory renamed since is left to
    // the standalone hook.
    !own.ends_with(" (deleted)")
        && gate == Some(own.as_ref())
        && started_as().as_deref() == Some(own.as_ref())
}

/// This executable's path when the service started.
pub fn started_as() -> Option<String> {
    static FIRST: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    FIRST
        .get_or_init(|| {
            std::env::current_exe()
                .ok()
                .map(|p| p.to_string_lossy().into_owned())
        })
        .clone()
}

/// Whether the client sees the machine as the service does: the same
/// mount, pid and user namespaces, the same root directory, credentials
/// and umask. The
/// evaluation probes the file system and the client's process ancestry;
/// a client in a container, a private mount namespace or a chroot that
/// shares the gate's home would be judged on files it does not see. A peer
/// whose pid the kernel did not tell (another pid namespace) is declined.
#[cfg(target_os = "linux")]
fn same_world(pid: Option<u32>) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Some(pid) = pid.filter(|p| *p > 1) else {
        return false;
    };
    let same_ns = ["mnt", "pid", "user"].iter().all(|ns| {
        let theirs = std::fs::read_link(format!("/proc/{pid}/ns/{ns}"));
        let ours = std::fs::read_link(format!("/proc/self/ns/{ns}"));
        matches!((theirs, ours), (Ok(a), Ok(b)) if a == b)
    });
    let root = |p: &str| std::fs::metadata(p).map(|m| (m.dev(), m.ino())).ok();
    let same_root = root(&format!("/proc/{pid}/root/")).is_some()
        && root(&format!("/proc/{pid}/root/")) == root("/");
    // The same credentials (ids, supplementary groups, capabilities: what
    // the kernel lets each open) and umask (what the evaluation creates).
    let creds = |p: &str| -> Option<Vec<String>> {
        let status = std::fs::read_to_string(format!("/proc/{p}/status")).ok()?;
        const KEYS: [&str; 6] = ["Umask:", "Uid:", "Gid:", "Groups:", "CapEff:", "CapPrm:"];
        let lines: Vec<String> = status
            .lines()
            .filter(|l| KEYS.iter().any(|k| l.starts_with(k)))
            .map(str::to_string)
            .collect();
        (lines.len() == KEYS.len()).then_some(lines)
    };
    let theirs = creds(&pid.to_string());
    same_ns && same_root && theirs.is_some() && theirs == creds("self")
}

#[cfg(not(target_os = "linux"))]
fn same_world(_pid: Option<u32>) -> bool {
    true
}

/// Evaluate one event for a client of the service of `service`.
pub fn serve(service: &Homes, call: HookCall) -> Option<HookReply> {
    let mut args: Vec<std::ffi::OsString> = vec!["shellgate".into()];
    args.extend(call.args.iter().map(Into::into));
    let (home_flag, a) = fast_args(&args)?;
    if !same_world(call.peer_pid) {
        return None;
    }
    let client = origin::Client {
        env: call
            .env
            .into_iter()
            .filter(|(k, _)| HOOK_ENV.contains(&k.as_str()))
            .collect(),
        cwd: call.cwd.map(Into::into),
        pid: call.peer_pid,
        deadline: Some(Instant::now() + EVALUATION_LIMIT),
    };
    if std::path::Path::new(&call.home) != service.gate || !same_gate(call.gate.as_deref()) {
        return None;
    }
    let event = call.event;
    let (reply, taken) = origin::for_client(client, || {
        let homes = Homes::resolve(home_flag.as_deref());
        if homes.gate != service.gate {
            return (None, Vec::new());
        }
        struct Reset;
        impl Drop for Reset {
            fn drop(&mut self) {
                SERVING.with(|s| s.set(None));
            }
        }
        SERVING.with(|s| s.set(Some(a.wait())));
        let _reset = Reset;
        let channel = a.channel.map(Into::into);
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
            handle_bytes(&homes, a.host, channel, event.as_bytes())
        }));
        let taken = origin::take_taken();
        let outcome = match outcome {
            Ok(Outcome::Fallback) | Err(_) => return (None, taken),
            Ok(o) => o,
        };
        let r = render(a.host, outcome);
        // What the standalone hook prints on stderr while it evaluates
        // (a warning), then its outcome's line.
        let mut stderr: String = origin::take_warnings()
            .into_iter()
            .map(|w| w + "\n")
            .collect();
        if let Some(e) = r.stderr {
            stderr.push_str(&e);
            stderr.push('\n');
        }
        let reply = HookReply {
            exit: r.code,
            stdout: r.stdout.map(|s| s + "\n").unwrap_or_default(),
            stderr,
        };
        (Some(reply), Vec::new())
    });
    // Declined after a one-time approval was consumed (the deadline hit
    // later): put it back for the standalone hook, which evaluates the
    // call again (outside the client's deadline: this must happen).
    if !taken.is_empty() {
        let mut edge = crate::edge::Edge::new(service.clone());
        if let Ok(Some(db)) = edge.db(false) {
            for (session, tool, command, cwd) in &taken {
                let _ = db.add_once(session, tool, command, cwd.as_deref());
            }
        }
    }
    reply
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(home: &str, args: &[&str]) -> HookCall {
        HookCall {
            args: args.iter().map(|a| a.to_string()).collect(),
            home: home.to_string(),
            env: [("HOME".to_string(), "/nonexistent-home".to_string())].into(),
            cwd: Some("/".into()),
            event: "{}".into(),
            gate: std::env::current_exe()
                .ok()
                .map(|p| p.to_string_lossy().into_owned()),
            peer_pid: Some(std::process::id()),
        }
    }

    #[test]
    fn only_the_services_own_home_and_the_hooks_arguments_are_served() {
        let service = Homes {
            gate: "/tmp/sg-served-test/a".into(),
            user: "/nonexistent-home".into(),
        };
        // Another home, named or resolved: declined.
        assert!(serve(&service, call("/tmp/sg-served-test/b", &["hook", "codex"])).is_none());
        assert!(serve(
            &service,
            call(
                "/tmp/sg-served-test/a",
                &["--home", "/tmp/sg-served-test/b", "hook", "codex"]
            )
        )
        .is_none());
        // A peer the kernel did not name (another pid namespace): declined.
        let mut unnamed = call(
            "/tmp/sg-served-test/a",
            &["--home", "/tmp/sg-served-test/a", "hook", "codex"],
        );
        unnamed.peer_pid = None;
        assert!(serve(&service, unnamed).is_none());
        // Another executable: declined.
        let mut other = call(
            "/tmp/sg-served-test/a",
            &["--home", "/tmp/sg-served-test/a", "hook", "codex"],
        );
        other.gate = Some("/usr/local/bin/shellgate".into());
        assert!(serve(&service, other).is_none());
        // Not a hook's arguments: declined.
        assert!(serve(
            &service,
            call(
                "/tmp/sg-served-test/a",
                &["--home", "/tmp/sg-served-test/a", "check", "ls"]
            )
        )
        .is_none());
        // The service's home: an event without a tool is blocked, as the
        // standalone hook blocks it.
        let r = serve(
            &service,
            call(
                "/tmp/sg-served-test/a",
                &["--home", "/tmp/sg-served-test/a", "hook", "codex"],
            ),
        )
        .expect("served");
        assert_eq!((r.exit, r.stdout.as_str()), (2, ""));
        assert!(r.stderr.contains("no tool_name"), "{}", r.stderr);
    }

    /// Every variable the hook's path reads through `origin` is one the
    /// client sends, and the client's list is the protocol's.
    #[test]
    fn the_client_sends_every_variable_the_evaluation_reads() {
        let client = include_str!("../bin/shellgate-hook.rs");
        let start = client.find("const HOOK_ENV").expect("client list");
        let list = &client[start..start + client[start..].find("];").expect("end")];
        for name in HOOK_ENV {
            assert!(list.contains(&format!("\"{name}\"")), "client lacks {name}");
        }
        assert_eq!(list.matches('"').count(), 2 * HOOK_ENV.len());
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = vec![src.clone()];
        let mut read = Vec::new();
        while let Some(p) = files.pop() {
            if p.is_dir() {
                for e in std::fs::read_dir(&p).expect("read_dir") {
                    files.push(e.expect("entry").path());
                }
            } else if p.extension().is_some_and(|e| e == "rs") {
                read.push(std::fs::read_to_string(&p).expect("read"));
            }
        }
        let mut seen = 0;
        for text in read {
            for pat in ["origin::var(\"", "origin::var_os(\""] {
                for (i, _) in text.match_indices(pat) {
                    let rest = &text[i + pat.len()..];
                    let name = &rest[..rest.find('"').expect("closing quote")];
                    assert!(HOOK_ENV.contains(&name), "{name} is read but not sent");
                    seen += 1;
                }
            }
        }
        assert!(seen >= 6, "only {seen} reads found");
    }
}
