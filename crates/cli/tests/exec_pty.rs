//! `shellgate exec` (SPEC §2.2): allow runs the command with stdio and exit
//! status passed through; deny refuses with 126; an ask without a terminal
//! is a deny; with a terminal (a real pseudo-terminal here) the prompt is
//! answered by letter, arrows or Ctrl-C, applied like `decide`, and the
//! command runs or is refused.
//!
//! Every non-PTY run goes through `setsid` so the binary has no controlling
//! terminal however the tests are started (from a terminal or from CI).
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use rexpect::process::WaitStatus;
use rexpect::session::{spawn_command, PtySession};
use shellgate_store::state::StateDb;

const BIN: &str = env!("CARGO_BIN_EXE_shellgate");

struct Env {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    gate: PathBuf,
    work: PathBuf,
}

impl Env {
    fn new() -> Env {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path().canonicalize().expect("canonical tempdir");
        let home = root.join("home");
        let gate = home.join(".shellgate");
        let work = root.join("work");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(work.join("sub")).unwrap();
        // A harmless "deploy": says what it deployed and leaves a marker.
        let script = work.join("deploy.sh");
        std::fs::write(
            &script,
            "#!/bin/sh\necho \"deployed $1\"\necho \"$1\" >> deployed.txt\n",
        )
        .unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        Env {
            _tmp: tmp,
            home,
            gate,
            work,
        }
    }

    fn work_str(&self) -> String {
        self.work.to_string_lossy().to_string()
    }

    /// `shellgate --home <gate> ARGS` without a controlling terminal, run
    /// in `dir`.
    fn command_in(&self, dir: &Path, args: &[&str]) -> Command {
        let mut c = if has_setsid() {
            let mut c = Command::new("setsid");
            c.arg("-w").arg(BIN);
            c
        } else {
            Command::new(BIN)
        };
        c.arg("--home")
            .arg(&self.gate)
            .args(args)
            .current_dir(dir)
            .env("HOME", &self.home)
            .env_remove("SHELLGATE_HOME")
            .stdin(Stdio::null());
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command_in(&self.work, args)
            .output()
            .expect("run shellgate")
    }

    fn run_with_stdin(&self, args: &[&str], input: &str) -> Output {
        use std::io::Write;
        let mut child = self
            .command_in(&self.work, args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn shellgate");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        child.wait_with_output().expect("wait")
    }

    /// `shellgate exec -- COMMAND…` on a pseudo-terminal.
    fn pty(&self, command: &[&str]) -> PtySession {
        let mut c = Command::new(BIN);
        c.arg("--home")
            .arg(&self.gate)
            .arg("exec")
            .arg("--")
            .args(command)
            .current_dir(&self.work)
            .env("HOME", &self.home)
            .env("TERM", "xterm")
            .env_remove("SHELLGATE_HOME");
        spawn_command(c, Some(30_000)).expect("spawn on a pty")
    }

    fn deployed(&self) -> String {
        std::fs::read_to_string(self.work.join("deployed.txt")).unwrap_or_default()
    }

    fn decisions(&self) -> Vec<(String, String, String, String)> {
        let db = StateDb::open(&self.gate.join("state").join("shellgate.db")).expect("state db");
        db.recent_decisions(100)
            .expect("decisions")
            .into_iter()
            .map(|r| (r.source, r.command, r.decision, r.reason))
            .collect()
    }
}

fn has_setsid() -> bool {
    Command::new("setsid")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).to_string()
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exit code")
}

// ----- without a terminal ---------------------------------------------------

#[test]
fn allow_runs_with_stdio_passed_through() {
    let e = Env::new();
    // Side effects only: allowed anywhere.
    let o = e.run(&["exec", "--", "echo", "hello", "world"]);
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "hello world\n");
    // A read-only verb in the project directory; stdin reaches the command.
    let o = e.run_with_stdin(&["exec", "--project-dir", ".", "--", "cat"], "piped in\n");
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "piped in\n");
}

#[test]
fn allow_returns_the_commands_exit_status() {
    let e = Env::new();
    let o = e.run(&["exec", "--", "false"]);
    assert_eq!(code(&o), 1);
    let o = e.run(&["exec", "--project-dir", ".", "--", "ls does-not-exist"]);
    assert_eq!(code(&o), 2);
    assert!(text(&o.stderr).contains("does-not-exist"));
    // Granted verbs: stdout and stderr are the command's, and so is the
    // status (128 + signal when it is killed).
    for verb in ["exit", "kill"] {
        let o = e.run(&["approvals", "trust-verb", verb]);
        assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    }
    let o = e.run(&["exec", "--", "echo out; echo err >&2; exit 3"]);
    assert_eq!(code(&o), 3, "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "out\n");
    assert_eq!(text(&o.stderr), "err\n");
    let o = e.run(&["exec", "--", "kill -TERM $$"]);
    assert_eq!(code(&o), 128 + 15);
}

#[test]
fn runs_in_the_callers_directory_or_the_explicit_cwd() {
    let e = Env::new();
    let sub = e.work.join("sub");
    let project = e.work_str();
    // Default: the directory exec was started in.
    let o = e
        .command_in(&sub, &["exec", "--project-dir", &project, "--", "pwd"])
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout).trim(), sub.to_string_lossy());
    // --cwd wins.
    let o = e.run(&["exec", "--project-dir", ".", "--cwd", "sub", "--", "pwd"]);
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout).trim(), sub.to_string_lossy());
}

#[test]
fn deny_refuses_with_126_and_the_reason() {
    let e = Env::new();
    let keep = e.home.join("keep.txt");
    std::fs::write(&keep, "x").unwrap();
    let o = e.run(&["exec", "--", "rm -rf ~"]);
    assert_eq!(code(&o), 126);
    let err = text(&o.stderr);
    assert!(err.contains("hard_deny_"), "{err}");
    assert!(keep.exists(), "the denied command ran");
    // A non-interactive channel outside its zone.
    let o = e.run(&["exec", "--channel", "headless", "--", "./deploy.sh", "ci"]);
    assert_eq!(code(&o), 126);
    assert!(text(&o.stderr).contains("outside_autonomous_zone"));
    assert_eq!(e.deployed(), "");
}

#[test]
fn ask_without_a_terminal_is_a_deny() {
    let e = Env::new();
    let o = e.run(&["exec", "--", "./deploy.sh", "staging"]);
    assert_eq!(code(&o), 126);
    let err = text(&o.stderr);
    assert!(err.contains("channel_does_not_support_approval"), "{err}");
    assert!(err.contains("no terminal"), "{err}");
    assert_eq!(text(&o.stdout), "");
    assert_eq!(e.deployed(), "", "the command ran without approval");
    // An answer given through `decide` is honoured by the next exec.
    let o = e.run(&[
        "decide",
        "--option",
        "approve_always",
        "--cwd",
        ".",
        "--",
        "./deploy.sh",
        "staging",
    ]);
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    let o = e.run(&["exec", "--", "./deploy.sh", "staging"]);
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "deployed staging\n");
    // A one-time approval is used by exactly one exec.
    let o = e.run(&[
        "decide",
        "--option",
        "approve_once",
        "--cwd",
        ".",
        "--",
        "./deploy.sh",
        "prod",
    ]);
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    assert_eq!(code(&e.run(&["exec", "--", "./deploy.sh", "prod"])), 0);
    assert_eq!(code(&e.run(&["exec", "--", "./deploy.sh", "prod"])), 126);
    assert_eq!(e.deployed(), "staging\nprod\n");
}

#[test]
fn usage_errors() {
    let e = Env::new();
    let o = e.run(&["exec"]);
    assert_eq!(code(&o), 2);
    assert!(text(&o.stderr).contains("shellgate exec [OPTIONS] -- COMMAND"));
    let o = e.run(&["exec", "--tool", "file_read", "--", "x"]);
    assert_eq!(code(&o), 2);
    let o = e.run(&["exec", "--audience", "root", "--", "true"]);
    assert_eq!(code(&o), 2);
}

#[test]
fn exec_logs_its_decisions() {
    let e = Env::new();
    e.run(&["exec", "--", "echo", "hi"]);
    e.run(&["exec", "--", "./deploy.sh", "staging"]);
    e.run(&["exec", "--", "rm -rf ~"]);
    let log = e.decisions();
    let exec: Vec<_> = log.iter().filter(|r| r.0 == "exec").collect();
    assert_eq!(exec.len(), 3, "{log:?}");
    assert_eq!(
        (exec[0].1.as_str(), exec[0].2.as_str(), exec[0].3.as_str()),
        ("echo hi", "allow", "side_effect_only")
    );
    assert_eq!(
        (exec[1].2.as_str(), exec[1].3.as_str()),
        ("deny", "channel_does_not_support_approval")
    );
    assert_eq!(exec[2].2, "deny");
    assert!(exec[2].3.starts_with("hard_deny_"));
}

// ----- on a pseudo-terminal -------------------------------------------------

fn exit_status(p: &PtySession) -> i32 {
    match p.process().wait().expect("wait") {
        WaitStatus::Exited(_, c) => c,
        other => panic!("unexpected status {other:?}"),
    }
}

#[test]
fn pty_always_here_then_no_question() {
    let e = Env::new();
    let work = e.work_str();
    let mut p = e.pty(&["./deploy.sh", "staging"]);
    p.exp_string("shellgate: approval needed").unwrap();
    p.exp_string("$ ./deploy.sh staging").unwrap();
    p.exp_string(&format!("Approve ./deploy.sh staging in {work}?"))
        .unwrap();
    p.exp_string("a) Once").unwrap();
    p.exp_string("b) This chat").unwrap();
    p.exp_string("c) Always here").unwrap();
    p.exp_string("d) Always anywhere").unwrap();
    p.exp_string("e) Deny").unwrap();
    p.exp_string("Ctrl-C denies").unwrap();
    // "Always here" by its letter.
    p.send("c").unwrap();
    p.flush().unwrap();
    p.exp_string(&format!("Saved: ./deploy.sh staging in {work}"))
        .unwrap();
    p.exp_string("deployed staging").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(exit_status(&p), 0);
    assert_eq!(e.deployed(), "staging\n");
    let store = std::fs::read_to_string(e.gate.join("config").join("tool-approvals.json")).unwrap();
    assert!(store.contains("./deploy.sh staging"), "{store}");

    // Second run: granted, no question.
    let mut p = e.pty(&["./deploy.sh", "staging"]);
    let out = p.exp_eof().unwrap();
    assert_eq!(exit_status(&p), 0);
    assert!(out.contains("deployed staging"), "{out}");
    assert!(!out.contains("approval needed"), "asked again: {out}");
    assert_eq!(e.deployed(), "staging\nstaging\n");

    let log = e.decisions();
    let exec: Vec<_> = log.iter().filter(|r| r.0 == "exec").collect();
    assert_eq!(exec.len(), 2, "{log:?}");
    assert_eq!(
        (exec[0].2.as_str(), exec[0].3.as_str()),
        ("allow", "human:approve_always")
    );
    assert_eq!(
        (exec[1].2.as_str(), exec[1].3.as_str()),
        ("allow", "granted")
    );
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
        .output()
        .expect("git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The issue's scenario exactly: `shellgate exec -- git push origin main`
/// asks, "Always here" is chosen, the push runs (to a local bare remote),
/// and the second run needs no answer.
#[test]
fn pty_git_push_always_here_then_no_question() {
    if Command::new("git").arg("--version").output().is_err() {
        eprintln!("git not installed; skipped");
        return;
    }
    let e = Env::new();
    let remote = e.work.join("origin.git");
    git(
        &e.work,
        &[
            "init",
            "-q",
            "--bare",
            "-b",
            "main",
            remote.to_str().unwrap(),
        ],
    );
    git(&e.work, &["init", "-q", "-b", "main"]);
    git(
        &e.work,
        &["remote", "add", "origin", remote.to_str().unwrap()],
    );
    git(&e.work, &["add", "deploy.sh"]);
    git(&e.work, &["commit", "-q", "-m", "first"]);
    let work = e.work_str();
    let mut p = e.pty(&["git push origin main"]);
    p.exp_string(&format!("Approve git push origin main in {work}?"))
        .unwrap();
    p.exp_string("c) Always here").unwrap();
    p.send("c").unwrap();
    p.flush().unwrap();
    p.exp_string(&format!("Saved: git push origin main in {work}"))
        .unwrap();
    p.exp_eof().unwrap();
    assert_eq!(exit_status(&p), 0);
    // The push happened.
    let head = Command::new("git")
        .args(["--git-dir", remote.to_str().unwrap(), "rev-parse", "main"])
        .output()
        .unwrap();
    assert!(
        head.status.success(),
        "the remote has no main branch: the push did not run"
    );

    // Second run: granted, no question.
    let mut p = e.pty(&["git push origin main"]);
    let out = p.exp_eof().unwrap();
    assert_eq!(exit_status(&p), 0);
    assert!(!out.contains("Approve"), "asked again: {out}");
}

#[test]
fn pty_ctrl_c_denies() {
    let e = Env::new();
    let mut p = e.pty(&["./deploy.sh", "prod"]);
    p.exp_string("Ctrl-C denies").unwrap();
    p.send_control('c').unwrap();
    p.exp_string("Denied").unwrap();
    let out = p.exp_eof().unwrap();
    assert!(out.contains("denied at the terminal"), "{out}");
    assert_eq!(exit_status(&p), 126);
    assert_eq!(e.deployed(), "");
    let log = e.decisions();
    assert!(log
        .iter()
        .any(|r| r.0 == "exec" && r.2 == "deny" && r.3 == "human:deny"));
}

#[test]
fn pty_arrows_and_enter_choose_once_which_is_used_up() {
    let e = Env::new();
    // Down, Up, Enter: back on the first entry, "Once".
    let mut p = e.pty(&["./deploy.sh", "canary"]);
    p.exp_string("Ctrl-C denies").unwrap();
    p.send("\x1b[B").unwrap();
    p.send("\x1b[A").unwrap();
    p.send("\r").unwrap();
    p.flush().unwrap();
    p.exp_string("Approved (no save)").unwrap();
    p.exp_string("deployed canary").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(exit_status(&p), 0);
    // Once means once: the same call asks again (and is denied here).
    let mut p = e.pty(&["./deploy.sh", "canary"]);
    p.exp_string("Approve ./deploy.sh canary").unwrap();
    p.exp_string("Ctrl-C denies").unwrap();
    // An option that is not offered rings the bell; "e" is Deny.
    p.send("z").unwrap();
    p.send("e").unwrap();
    p.flush().unwrap();
    p.exp_string("Denied").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(exit_status(&p), 126);
    assert_eq!(e.deployed(), "canary\n");
}

#[test]
fn pty_complex_command_offers_once_and_deny_only() {
    let e = Env::new();
    let mut p = e.pty(&["eval", "'./deploy.sh complex'"]);
    p.exp_string("only one-shot approval available").unwrap();
    p.exp_string("a) Once").unwrap();
    p.exp_string("b) Deny").unwrap();
    p.exp_string("Ctrl-C denies").unwrap();
    p.send("b").unwrap();
    p.flush().unwrap();
    p.exp_string("Denied").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(exit_status(&p), 126);
    assert_eq!(e.deployed(), "");
}
