//! Shared by the approval-service tests (`serve_cli.rs`, `serve_browser.rs`):
//! a temporary home, `shellgate serve` as a child process, and hook
//! processes fed a host's event, all real processes of the built binary.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub const SG: &str = env!("CARGO_BIN_EXE_shellgate");

pub const ALL: [&str; 5] = [
    "approve_once",
    "approve_session",
    "approve_always",
    "approve_everywhere",
    "deny",
];

/// A temporary user home with a project and a gate home.
pub struct Env {
    pub _dir: tempfile::TempDir,
    pub home: PathBuf,
    pub gate: PathBuf,
    pub project: PathBuf,
}

impl Env {
    pub fn new() -> Env {
        Env::with("u", "app")
    }

    /// `<tmp>/<user>` as the user's home, `~/repos/<project>` as the project.
    pub fn with(user: &str, project: &str) -> Env {
        let dir = tempfile::Builder::new()
            .prefix("shellgate-")
            .tempdir()
            .expect("tempdir");
        let home = dir.path().join(user);
        let project = home.join("repos").join(project);
        std::fs::create_dir_all(&project).expect("mkdir");
        Env {
            gate: home.join(".shellgate"),
            home,
            project,
            _dir: dir,
        }
    }

    pub fn state(&self) -> PathBuf {
        self.gate.join("state")
    }

    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(SG);
        c.arg("--home")
            .arg(&self.gate)
            .args(args)
            .env("HOME", &self.home)
            .env_remove("SHELLGATE_HOME")
            .current_dir(&self.project);
        c
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd(args)
            .stdin(Stdio::null())
            .output()
            .expect("run shellgate")
    }

    pub fn proj(&self) -> String {
        self.project.display().to_string()
    }

    /// `shellgate pending --json`, once the service lists `n` requests.
    pub fn wait_pending(&self, n: usize) -> Vec<Value> {
        let end = Instant::now() + Duration::from_secs(60);
        loop {
            let o = self.run(&["pending", "--json"]);
            if o.status.success() {
                let v: Value = serde_json::from_slice(&o.stdout).expect("pending json");
                let list = v.as_array().cloned().unwrap_or_default();
                if list.len() == n {
                    return list;
                }
            }
            assert!(
                Instant::now() < end,
                "timed out waiting for {n} pending requests: {o:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The id of the pending request for `command`.
    pub fn id_of(&self, list: &[Value], command: &str) -> String {
        list.iter()
            .find(|r| r["command"] == command)
            .and_then(|r| r["id"].as_str())
            .unwrap_or_else(|| panic!("no pending request for {command}: {list:?}"))
            .to_string()
    }

    pub fn answer(&self, id: &str, option: &str) -> Output {
        self.run(&["answer", id, option])
    }

    pub fn check(&self, session: &str, command: &str) -> Value {
        let o = self.run(&[
            "check",
            "--json",
            "--session",
            session,
            "--cwd",
            &self.proj(),
            "--",
            command,
        ]);
        serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("check json: {o:?}"))
    }
}

/// `shellgate serve` as a child process.
pub struct Serve {
    pub child: Child,
    pub url: String,
    pub login: String,
}

impl Serve {
    pub fn start(env: &Env) -> Serve {
        Serve::start_with(env, &[])
    }

    pub fn start_with(env: &Env, extra: &[&str]) -> Serve {
        let mut args = vec!["serve"];
        args.extend_from_slice(extra);
        let mut child = env
            .cmd(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start serve");
        let out = child.stdout.take().expect("stdout");
        let mut lines = BufReader::new(out).lines();
        let mut url = String::new();
        let mut login = String::new();
        for _ in 0..3 {
            let l = lines
                .next()
                .and_then(Result::ok)
                .unwrap_or_else(|| panic!("serve printed no banner"));
            if let Some(u) = l.strip_prefix("shellgate approval service on ") {
                url = u.trim().to_string();
            }
            if let Some(u) = l.strip_prefix("Log in (one-time link): ") {
                login = u.trim().to_string();
            }
        }
        assert!(url.starts_with("http://127.0.0.1:"), "{url}");
        assert!(login.contains("/login?token="), "{login}");
        assert!(env.state().join("serve.sock").exists());
        Serve { child, url, login }
    }

    pub fn pid(&self) -> i32 {
        i32::try_from(self.child.id()).expect("pid")
    }

    pub fn signal(&self, sig: i32) {
        // SAFETY: signalling our own child.
        unsafe { libc::kill(self.pid(), sig) };
    }

    /// SIGTERM, and wait for the process to end.
    pub fn stop(mut self) {
        self.signal(libc::SIGTERM);
        let _ = self.child.wait();
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A running `shellgate hook <host>` process.
pub struct Hook {
    pub child: Child,
}

pub struct HookOut {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
    /// When the hook ended.
    pub ended: Instant,
}

impl HookOut {
    /// Claude Code / Codex `permissionDecision`.
    pub fn permission(&self) -> String {
        let v: Value = serde_json::from_str(self.stdout.trim())
            .unwrap_or_else(|_| panic!("hook JSON: {} / {}", self.stdout, self.stderr));
        v["hookSpecificOutput"]["permissionDecision"]
            .as_str()
            .unwrap_or("")
            .to_string()
    }
    pub fn reason(&self) -> String {
        let v: Value = serde_json::from_str(self.stdout.trim()).unwrap_or(Value::Null);
        v["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap_or("")
            .to_string()
    }
}

pub fn event(env: &Env, host: &str, session: &str, command: &str) -> Value {
    let cwd = env.proj();
    match host {
        "claude-code" | "codex" => json!({
            "session_id": session, "cwd": cwd, "hook_event_name": "PreToolUse",
            "tool_name": "Bash", "tool_input": {"command": command}
        }),
        _ => json!({
            "session_id": session, "cwd": cwd, "hook_event_name": "BeforeTool",
            "tool_name": "run_shell_command", "tool_input": {"command": command}
        }),
    }
}

impl Hook {
    /// Start a hook for `host` under `timeout` (the stand-in for the host
    /// agent's process), with an interactive Claude Code session.
    pub fn start(env: &Env, host: &str, session: &str, command: &str, wait: u64) -> Hook {
        Hook::spawn(env, host, session, command, wait, true)
    }

    pub fn spawn(
        env: &Env,
        host: &str,
        session: &str,
        command: &str,
        wait: u64,
        under_host: bool,
    ) -> Hook {
        let wait = wait.to_string();
        let mut c = if under_host {
            let mut c = Command::new("timeout");
            c.arg("600").arg(SG);
            c
        } else {
            Command::new(SG)
        };
        c.arg("--home")
            .arg(&env.gate)
            .args(["hook", host, "--wait", &wait])
            .env("HOME", &env.home)
            .env_remove("SHELLGATE_HOME")
            .env("CLAUDE_CODE_SESSION_ATTENDED", "1")
            .env("CLAUDE_PROJECT_DIR", &env.project)
            .current_dir(&env.project)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().expect("start hook");
        let ev = event(env, host, session, command).to_string();
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(ev.as_bytes()).expect("write event");
        drop(stdin);
        Hook { child }
    }

    /// The process ids of the hook's supervisor and worker.
    pub fn worker_pid(&self) -> Option<i32> {
        let top = self.child.id();
        let sup = children_of(top).into_iter().next()?;
        children_of(sup).into_iter().next().map(|p| p as i32)
    }

    pub fn finish(mut self) -> HookOut {
        let mut stdout = String::new();
        let mut stderr = String::new();
        if let Some(mut o) = self.child.stdout.take() {
            o.read_to_string(&mut stdout).expect("read stdout");
        }
        if let Some(mut e) = self.child.stderr.take() {
            e.read_to_string(&mut stderr).expect("read stderr");
        }
        let st = self.child.wait().expect("wait hook");
        HookOut {
            stdout,
            stderr,
            code: st.code().unwrap_or(-1),
            ended: Instant::now(),
        }
    }
}

/// Children of `pid`, from /proc.
pub fn children_of(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").expect("proc").flatten() {
        let Ok(p) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{p}/stat")) else {
            continue;
        };
        let Some(i) = stat.rfind(')') else { continue };
        let ppid = stat[i + 1..]
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse::<u32>().ok());
        if ppid == Some(pid) {
            out.push(p);
        }
    }
    out
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

pub fn approvals(env: &Env) -> String {
    text(&env.run(&["approvals", "list"]).stdout)
}
