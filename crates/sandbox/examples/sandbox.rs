//! `sandbox [--project-dir DIR] [--session ID] [--profile read|edit|build]
//!          [--network] [--writable DIR]… [--explain] -- COMMAND…`
//!
//! The shape of `shellgate sandbox`: confines itself and execs COMMAND.
//! Exit status: COMMAND's own; 125 when the sandbox cannot confine (the
//! reason on stderr); 126/127 when COMMAND cannot be executed / is not found;
//! 2 for a usage error.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use shellgate_sandbox::{exec, Confinement, Profile, SandboxError};

const USAGE: &str = "usage: sandbox [--project-dir DIR] [--session ID] [--profile read|edit|build] [--network] [--writable DIR]... [--explain] -- COMMAND...";

struct Args {
    project: Option<PathBuf>,
    session: Option<String>,
    profile: Profile,
    network: bool,
    writable: Vec<PathBuf>,
    explain: bool,
    command: Vec<OsString>,
}

fn parse() -> Result<Args, String> {
    let mut it = std::env::args_os().skip(1);
    let mut a = Args {
        project: None,
        session: None,
        profile: Profile::Edit,
        network: false,
        writable: Vec::new(),
        explain: false,
        command: Vec::new(),
    };
    while let Some(arg) = it.next() {
        let s = arg.to_str().unwrap_or("");
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        match s {
            "--" => {
                a.command = it.collect();
                break;
            }
            "--project-dir" => a.project = Some(PathBuf::from(value(s)?)),
            "--session" => a.session = Some(value(s)?.to_string_lossy().into_owned()),
            "--profile" => {
                a.profile = value(s)?
                    .to_string_lossy()
                    .parse()
                    .map_err(|e: SandboxError| e.to_string())?
            }
            "--writable" => a.writable.push(PathBuf::from(value(s)?)),
            "--network" => a.network = true,
            "--explain" => a.explain = true,
            other => return Err(format!("unexpected argument {other:?}")),
        }
    }
    if a.command.is_empty() && !a.explain {
        return Err("no command given".into());
    }
    Ok(a)
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("sandbox: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let project = match args.project {
        Some(p) => p,
        None => match std::env::current_dir() {
            Ok(d) => d,
            Err(e) => {
                eprintln!("shellgate sandbox: refused: no working directory: {e}");
                return ExitCode::from(125);
            }
        },
    };
    let mut b = Confinement::builder(args.profile, project).network(args.network);
    if let Some(s) = args.session {
        b = b.session(s);
    }
    for w in args.writable {
        b = b.writable(w);
    }
    let result = b.build().and_then(|c| {
        if args.explain {
            println!("profile: {}  network: {}", c.profile(), c.network());
            for w in c.writable_roots() {
                println!("writable: {}", w.display());
            }
            for g in c.guards() {
                let p = if g.placeholder { " (placeholder)" } else { "" };
                println!("read-only: {}{p}", g.path.display());
            }
            println!("hidden: the gate's home except the session directory");
            for h in c.hidden() {
                println!("hidden: {}", h.path.display());
            }
            for n in c.notes() {
                println!("note: {n}");
            }
            if args.command.is_empty() {
                std::process::exit(0);
            }
        }
        exec(&c, &args.command).map(|never| match never {})
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("shellgate sandbox: {e}");
            ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(125))
        }
    }
}
