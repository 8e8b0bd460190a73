//! Print what the analysis finds in a shell command: every simple command
//! (after unwrapping) with its verb and working directory, the approval
//! units, and the complex reasons.
//!
//! ```text
//! cargo run -p shellgate-shell --example walk -- 'cd sub && sudo -u x make -C b | tee log'
//! cargo run -p shellgate-shell --example walk -- --cwd /srv/app --home /root 'git status'
//! ```

use shellgate_shell::analyze::{analyze, Env};
use shellgate_shell::verbs;

fn main() {
    let mut cwd: Option<String> = std::env::current_dir()
        .ok()
        .map(|d| d.to_string_lossy().into_owned());
    let mut home = std::env::var("HOME").unwrap_or_else(|_| "/".to_string());
    let mut words: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--cwd" => cwd = args.next(),
            "--home" => home = args.next().unwrap_or(home),
            "--" => words.extend(args.by_ref()),
            _ => words.push(a),
        }
    }
    if words.is_empty() {
        eprintln!("usage: walk [--cwd DIR] [--home DIR] [--] COMMAND…");
        std::process::exit(2);
    }
    let command = words.join(" ");
    let analysis = analyze(
        &command,
        cwd.as_deref(),
        &Env {
            home,
            ..Default::default()
        },
    );

    println!("simple commands:");
    for inv in &analysis.invocations {
        let argv: Vec<&str> = inv.argv.iter().map(|w| w.raw.as_str()).collect();
        let verb = verbs::verb(&inv.argv).unwrap_or_else(|| "(dynamic)".to_string());
        let mut notes: Vec<String> = Vec::new();
        if !inv.wrappers.is_empty() {
            notes.push(format!("unwrapped from {}", inv.wrappers.join(", ")));
        }
        if !inv.gated {
            notes.push("inner command, hard deny only".to_string());
        }
        if inv.piped_or_async {
            notes.push("piped or in background".to_string());
        }
        if inv.crude {
            notes.push("from a crude scan of unparsable text".to_string());
        }
        println!("  {}", argv.join(" "));
        println!("    verb: {verb}");
        println!("    cwd:  {}", inv.cwd.as_deref().unwrap_or("(unknown)"));
        if !notes.is_empty() {
            println!("    note: {}", notes.join("; "));
        }
    }
    println!("approval units:");
    for p in &analysis.patterns {
        println!("  {p}");
    }
    if analysis.is_complex() {
        println!("complex reasons: {}", analysis.complex_reasons.join(", "));
    } else {
        println!("complex reasons: none");
    }
    if analysis.remote_code {
        println!("remote code: a download reaches a shell or interpreter");
    }
    if analysis.fork_bomb {
        println!("fork bomb: a function calls itself through a pipe or in the background");
    }
}
