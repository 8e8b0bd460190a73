//! Load-independent decision cost (BENCHMARKS.md, issue 14): run one shell
//! command's evaluation N times in the decision bench's setting (a fresh
//! home with a project `p` and a session directory), for counting
//! instructions (`valgrind --tool=callgrind`) and system calls
//! (`strace -f -c`) per evaluation on a machine too loaded to time; or,
//! with `--probes`, list the file-system questions one evaluation asks the
//! disk (each distinct question once: the evaluation's cache).
//!
//! ```text
//! cargo build --release -p shellgate-policy --example decision_cost
//! target/release/examples/decision_cost 'git status' 600
//! target/release/examples/decision_cost 'git status' --probes
//! ```

use std::cell::RefCell;
use std::io;
use std::path::PathBuf;

use shellgate_policy::config::PolicyConfig;
use shellgate_policy::decision::{evaluate, Context, NoLookups, Policy, Request};
use shellgate_policy::fs::{FileKind, Fs, OsFs};
use shellgate_policy::{Audience, Channel, Os};

/// The real disk, each question written down.
struct Logged(RefCell<Vec<String>>);

impl Logged {
    fn note(&self, what: &str, path: &str) {
        self.0.borrow_mut().push(format!("{what} {path}"));
    }
}

impl Fs for Logged {
    fn lstat(&self, path: &str) -> io::Result<FileKind> {
        self.note("lstat", path);
        OsFs.lstat(path)
    }
    fn stat(&self, path: &str) -> io::Result<FileKind> {
        self.note("stat", path);
        OsFs.stat(path)
    }
    fn read_link(&self, path: &str) -> io::Result<PathBuf> {
        self.note("readlink", path);
        OsFs.read_link(path)
    }
    fn read_dir(&self, path: &str) -> io::Result<Vec<String>> {
        self.note("readdir", path);
        OsFs.read_dir(path)
    }
    fn read_dir_kinds(&self, path: &str) -> io::Result<Vec<(String, FileKind)>> {
        self.note("readdir", path);
        OsFs.read_dir_kinds(path)
    }
    fn read_file(&self, path: &str, max: usize) -> io::Result<Vec<u8>> {
        self.note("read", path);
        OsFs.read_file(path, max)
    }
    fn canonicalize(&self, path: &str) -> io::Result<PathBuf> {
        self.note("canonicalize", path);
        OsFs.canonicalize(path)
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: decision_cost COMMAND (N | --probes)";
    let command = args.next().ok_or(usage)?;
    let what = args.next().ok_or(usage)?;
    let t = tempfile::tempdir()?;
    let root = t.path().to_string_lossy().to_string();
    let proj = format!("{root}/home/p");
    std::fs::create_dir_all(&proj)?;
    std::fs::create_dir_all(format!("{root}/home/.shellgate/sessions/s1"))?;
    let logged = Logged(RefCell::new(Vec::new()));
    let probes = what == "--probes";
    let ctx = Context {
        session: "s1".into(),
        audience: Audience::Personal,
        channel: Channel::Interactive,
        os: Os::Linux,
        project_dir: Some(proj.clone()),
        session_dir: format!("{root}/home/.shellgate/sessions/s1"),
        home: format!("{root}/home"),
        gate_home: format!("{root}/home/.shellgate"),
        fs: if probes { &logged } else { &OsFs },
        run_env: shellgate_policy::RunEnv {
            path: Some("/usr/local/bin:/usr/bin:/bin"),
            xdg_config_home: None,
            cdpath: None,
        },
    };
    let policy = Policy::new(PolicyConfig::default(), &[]);
    let req = Request {
        tool: "shell_execute".into(),
        command,
        working_directory: Some(proj),
    };
    if probes {
        let d = evaluate(&policy, &req, &ctx, &NoLookups);
        let asked = logged.0.borrow();
        for q in asked.iter() {
            println!("{}", q.replace(&root, "$TMP"));
        }
        println!("{} {}: {} questions", d.decision, d.reason, asked.len());
        return Ok(());
    }
    let n: usize = what.parse()?;
    for _ in 0..n {
        std::hint::black_box(evaluate(
            &policy,
            std::hint::black_box(&req),
            &ctx,
            &NoLookups,
        ));
    }
    Ok(())
}
