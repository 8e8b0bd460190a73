//! `shellgate check`: one call, or a batch of calls in one process.

use std::io::{BufRead, Write};

use anyhow::{Context as _, Result};
use clap::Args;
use serde::Deserialize;
use shellgate_policy::decision::{Decision, Request};
use shellgate_policy::{Audience, Channel, Os};

use crate::cli::CallArgs;
use crate::edge::{self, CallFlags, Edge, Homes};

#[derive(Args, Debug, Clone)]
#[command(after_help = "\
Put the command after `--`: one quoted string, or words joined with spaces.

Examples:
  shellgate check --cwd ~/repos/app -- 'git status && rm -rf build'
  shellgate check --json --cwd . --project-dir . --session s1 -- 'git log | head'
  shellgate check --batch commands.txt --cwd ~/repos/app
  shellgate check --tool file_read --project-dir . -- ./notes.txt

Exit status: 0 allow, 10 ask, 11 deny, 2 usage error, 1 internal error.
With --json or --batch, an allow with reason `sandboxed` must run the command
of its `sandbox` field (the call wrapped in `shellgate sandbox`), not the call
itself; a caller that cannot do that passes --no-sandbox. Without them (the
exit status is all a caller may read) the sandboxed allow is never offered.
An ask is answered with `shellgate decide --option KEY` (same call options).")]
pub struct CheckArgs {
    #[command(flatten)]
    pub call: CallArgs,
    /// Print the decision as a JSON object.
    #[arg(long)]
    pub json: bool,
    /// Evaluate one call per line of FILE ('-' = stdin); prints JSON Lines.
    #[arg(long, value_name = "FILE")]
    pub batch: Option<String>,
    /// The caller cannot run a rewritten command: never answer `sandboxed`
    /// (SPEC §18), ask instead.
    #[arg(long)]
    pub no_sandbox: bool,
}

/// The policy for `check`: the sandboxed allow is offered only to a
/// caller that reads the decision's JSON (where the `sandbox` field says
/// what to run) and did not say it cannot run the wrapped command. A caller
/// of the text form may read only the exit status (`check -- "$C" && eval
/// "$C"`, rt25a F5): an exit 0 there must mean "run it as it is".
fn check_policy(homes: &Homes, a: &CheckArgs) -> Result<shellgate_policy::decision::Policy> {
    let mut policy = edge::load_policy(homes)?;
    if !a.no_sandbox && (a.json || a.batch.is_some()) {
        edge::offer_sandbox(homes, &mut policy);
    }
    Ok(policy)
}

pub fn run(homes: &Homes, a: &CheckArgs) -> Result<u8> {
    if let Some(file) = &a.batch {
        return batch(homes, a, file);
    }
    let policy = check_policy(homes, a)?;
    let mut edge = Edge::new(homes.clone());
    let ctx = edge::build_context(&mut edge, &a.call.flags())?;
    let req = a.call.request(&homes.user);
    let d = edge::evaluate(&mut edge, &policy, &req, &ctx)?;
    let mut out = std::io::stdout().lock();
    if a.json {
        writeln!(out, "{}", serde_json::to_string(&d)?)?;
    } else {
        write!(out, "{}", summary(&d))?;
    }
    Ok(d.exit_code() as u8)
}

/// A short human summary of a decision.
pub fn summary(d: &Decision) -> String {
    let mut s = format!("{}: {} ({})\n", d.decision, d.message, d.reason);
    s.push_str(&format!("  command: {}\n", d.display));
    if let Some(p) = &d.prompt {
        s.push_str(&format!("  {}\n", p.header));
        for b in &p.bullets {
            s.push_str(&format!("    • {b}\n"));
        }
        if let Some(h) = &p.hint {
            s.push_str(&format!("  {h}\n"));
        }
    }
    if let Some(o) = &d.options {
        let labels: Vec<&str> = o
            .iter()
            .filter_map(|k| shellgate_policy::prompt::label(k))
            .collect();
        s.push_str(&format!("  options: {}\n", labels.join(" / ")));
    }
    if let Some(h) = &d.hint {
        s.push_str(&format!("  {h}\n"));
    }
    if let Some(sb) = &d.sandbox {
        s.push_str(&format!("  runs as: {}\n", sb.command));
    }
    s
}

/// One line of a batch file given as a JSON object.
#[derive(Deserialize, Default)]
struct BatchCall {
    command: Option<String>,
    cwd: Option<String>,
    project_dir: Option<String>,
    session: Option<String>,
    audience: Option<String>,
    channel: Option<String>,
    os: Option<String>,
    tool: Option<String>,
}

/// Time one batch line may take before it is answered with a deny and the
/// evaluation moves on (a parser hang must not stall a corpus run).
const LINE_LIMIT: std::time::Duration = std::time::Duration::from_secs(5);

/// Lines of a batch file handed to the worker ahead of their answers.
const WINDOW: usize = 256;

/// Answers a worker collects before handing them back (it also hands back
/// whatever it has whenever it runs out of lines).
const GROUP: usize = 64;

/// What the worker is doing, for the watchdog: lines finished since it
/// started, and when it started the line it is on (`None`: waiting).
#[derive(Default)]
struct Progress {
    done: usize,
    started: Option<std::time::Instant>,
}

/// A worker thread evaluating batch lines, so a line that hangs can be
/// abandoned (its thread is left behind) and the batch continues. Lines go
/// to it ahead of time and answers come back in groups, in order: one
/// hand-off per group instead of two thread wake-ups per line.
struct Worker {
    tx: std::sync::mpsc::Sender<String>,
    rx: std::sync::mpsc::Receiver<Vec<(String, bool)>>,
    progress: std::sync::Arc<std::sync::Mutex<Progress>>,
    /// Answers received from this worker.
    received: usize,
}

fn spawn_worker(homes: &Homes, a: &CheckArgs) -> Result<Worker> {
    use std::sync::mpsc::TryRecvError;
    let policy = check_policy(homes, a)?;
    let homes = homes.clone();
    let a = a.clone();
    let (tx, req_rx) = std::sync::mpsc::channel::<String>();
    let (resp_tx, rx) = std::sync::mpsc::channel::<Vec<(String, bool)>>();
    let progress = std::sync::Arc::new(std::sync::Mutex::new(Progress::default()));
    let shared = progress.clone();
    let set = move |f: &dyn Fn(&mut Progress)| {
        let mut g = shared
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        f(&mut g);
    };
    std::thread::Builder::new()
        .name("shellgate-batch".into())
        .stack_size(256 * 1024 * 1024)
        .spawn(move || {
            let mut edge = Edge::new(homes);
            // One batch is judged against one snapshot of the file system:
            // the same project and home components are not asked again
            // for every line.
            edge.keep_snapshot();
            let defaults = a.call.flags();
            let mut group: Vec<(String, bool)> = Vec::new();
            loop {
                let text = match req_rx.try_recv() {
                    Ok(t) => t,
                    Err(TryRecvError::Empty) => {
                        // Out of lines: hand back what is done, then wait.
                        if !group.is_empty() && resp_tx.send(std::mem::take(&mut group)).is_err() {
                            break;
                        }
                        match req_rx.recv() {
                            Ok(t) => t,
                            Err(_) => break,
                        }
                    }
                    Err(TryRecvError::Disconnected) => break,
                };
                set(&|p| p.started = Some(std::time::Instant::now()));
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    batch_line(&mut edge, &policy, &a, &defaults, &text)
                }));
                let reply = match result {
                    Ok(Ok(d)) => match serde_json::to_string(&d) {
                        Ok(j) => (j, false),
                        Err(e) => (
                            deny_line(&text, &format!("cannot encode the decision: {e}")),
                            true,
                        ),
                    },
                    // Fail closed, keep going, and report it in the exit status.
                    Err(_) => (
                        deny_line(&text, "internal error while evaluating this line"),
                        true,
                    ),
                    Ok(Err(e)) => (deny_line(&text, &format!("{e:#}")), false),
                };
                group.push(reply);
                set(&|p| {
                    p.done += 1;
                    p.started = None;
                });
                if group.len() >= GROUP && resp_tx.send(std::mem::take(&mut group)).is_err() {
                    break;
                }
            }
        })
        .context("cannot start the batch worker")?;
    Ok(Worker {
        tx,
        rx,
        progress,
        received: 0,
    })
}

fn deny_line(command: &str, message: &str) -> String {
    serde_json::json!({
        "decision": "deny",
        "reason": "invalid_call",
        "message": message,
        "command": command,
    })
    .to_string()
}

/// A batch line handed to the worker, or one already answered with a deny
/// (its evaluation did not finish in time).
enum Line {
    Sent(String),
    TimedOut(String),
}

fn batch(homes: &Homes, a: &CheckArgs, file: &str) -> Result<u8> {
    use std::sync::mpsc::RecvTimeoutError;
    // A regular file is read ahead; anything else (stdin, a pipe) line by
    // line, each answered before the next is read.
    let (reader, window): (Box<dyn BufRead>, usize) = if file == "-" {
        (Box::new(std::io::BufReader::new(std::io::stdin())), 1)
    } else {
        let f =
            std::fs::File::open(file).with_context(|| format!("cannot open batch file {file}"))?;
        let regular = f.metadata().map(|m| m.is_file()).unwrap_or(false);
        (
            Box::new(std::io::BufReader::new(f)),
            if regular { WINDOW } else { 1 },
        )
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut worker = spawn_worker(homes, a)?;
    let mut failed = false;
    let mut lines = reader.split(b'\n');
    let mut eof = false;
    // Lines handed over, oldest first, and the answers received for them.
    let mut inflight: std::collections::VecDeque<Line> = std::collections::VecDeque::new();
    let mut ready: std::collections::VecDeque<(String, bool)> = std::collections::VecDeque::new();
    loop {
        while !eof && inflight.len() < window {
            match lines.next() {
                None => eof = true,
                Some(bytes) => {
                    let bytes = bytes.with_context(|| format!("cannot read batch file {file}"))?;
                    let mut text = String::from_utf8_lossy(&bytes).into_owned();
                    if text.ends_with('\r') {
                        text.pop();
                    }
                    // A worker that is gone is noticed below, when its
                    // answers do not come.
                    let _ = worker.tx.send(text.clone());
                    inflight.push_back(Line::Sent(text));
                }
            }
        }
        let Some(front) = inflight.front() else {
            break;
        };
        if let Line::TimedOut(text) = front {
            failed = true;
            writeln!(
                out,
                "{}",
                deny_line(text, "the evaluation of this line did not finish in time")
            )?;
            inflight.pop_front();
            continue;
        }
        if let Some((json, panicked)) = ready.pop_front() {
            failed |= panicked;
            writeln!(out, "{json}")?;
            inflight.pop_front();
            continue;
        }
        // Wait for the next answers, as long as the line the worker is on
        // has not run out of time.
        let wait = {
            let p = worker
                .progress
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            match p.started {
                Some(s) => LINE_LIMIT.checked_sub(s.elapsed()),
                None => Some(LINE_LIMIT),
            }
        };
        let hung = match wait.map(|w| worker.rx.recv_timeout(w)) {
            Some(Ok(group)) => {
                worker.received += group.len();
                ready.extend(group);
                false
            }
            Some(Err(RecvTimeoutError::Timeout)) => {
                // Hung only if the line it is on is still running and has
                // run out of time (else wait again).
                let p = worker
                    .progress
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                p.started.is_some_and(|s| s.elapsed() >= LINE_LIMIT)
            }
            Some(Err(RecvTimeoutError::Disconnected)) | None => true,
        };
        if !hung {
            continue;
        }
        // Hung or gone: the line it is on is answered deny, its thread is
        // left behind, and a fresh worker takes the rest — the lines it had
        // finished but not handed back are evaluated again.
        let done = worker
            .progress
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .done;
        // The worker's n-th unanswered line is the n-th line still to be
        // answered by it (lines already timed out were not given to it).
        let n = done.saturating_sub(worker.received);
        let stuck = inflight
            .iter_mut()
            .filter(|l| matches!(l, Line::Sent(_)))
            .nth(n);
        if let Some(l) = stuck {
            if let Line::Sent(text) = l {
                *l = Line::TimedOut(std::mem::take(text));
            }
        }
        worker = spawn_worker(homes, a)?;
        for l in &inflight {
            if let Line::Sent(text) = l {
                let _ = worker.tx.send(text.clone());
            }
        }
    }
    out.flush()?;
    Ok(if failed { 1 } else { 0 })
}

fn batch_line(
    edge: &mut Edge,
    policy: &shellgate_policy::decision::Policy,
    a: &CheckArgs,
    defaults: &CallFlags,
    line: &str,
) -> Result<Decision> {
    // Test builds only: `SHELLGATE_FAULT=batch-hang:TEXT` makes the line
    // TEXT hang, `batch-panic:TEXT` panic (the batch watchdog's tests).
    #[cfg(feature = "fault-injection")]
    if let Ok(f) = std::env::var("SHELLGATE_FAULT") {
        if f.strip_prefix("batch-hang:") == Some(line) {
            loop {
                std::thread::sleep(std::time::Duration::from_secs(3600));
            }
        }
        if f.strip_prefix("batch-panic:") == Some(line) {
            panic!("injected fault: batch panic");
        }
    }
    let parsed: Option<BatchCall> = if line.trim_start().starts_with('{') {
        serde_json::from_str::<serde_json::Value>(line)
            .ok()
            .filter(|v| v.is_object())
            .and_then(|v| serde_json::from_value(v).ok())
    } else {
        None
    };
    let (flags, req) = match parsed {
        Some(c) => {
            let mut f = defaults.clone();
            if c.session.is_some() {
                f.session = c.session;
            }
            if let Some(au) = c.audience {
                f.audience = Some(Audience::parse_or_public(Some(&au)));
            }
            if let Some(ch) = c.channel {
                // Unknown channel words fail closed as non-interactive.
                f.channel = Some(Channel::parse(&ch).unwrap_or(Channel::Headless));
            }
            if c.project_dir.is_some() {
                f.project_dir = c.project_dir;
            }
            if let Some(o) = c.os {
                f.os = Os::parse(&o).or(f.os);
            }
            let req = Request {
                tool: c.tool.unwrap_or_else(|| a.call.tool.clone()),
                command: c.command.unwrap_or_default(),
                working_directory: c.cwd.or_else(|| a.call.cwd.clone()),
            };
            (f, req)
        }
        None => (
            defaults.clone(),
            Request {
                tool: a.call.tool.clone(),
                command: line.to_string(),
                working_directory: a.call.cwd.clone(),
            },
        ),
    };
    let ctx = edge::build_context(edge, &flags)?;
    let mut req = req;
    req.working_directory = req
        .working_directory
        .map(|c| edge::normalize_dir(&c, &ctx.home));
    edge::evaluate(edge, policy, &req, &ctx)
}
