//! `shellgate exec`: the gated shell tool (SPEC §2.2).
//!
//! Evaluate the call like `check` (the explicit working directory defaults
//! to the directory exec was started in); `allow` ⇒ run `bash -c COMMAND`
//! in the resolved cwd with stdio passed through and return its status;
//! `deny` ⇒ the reason on stderr, exit 126; `ask` ⇒ when a terminal can be
//! opened (`/dev/tty`), show the prompt there, apply the answer exactly as
//! `shellgate decide` does, print the resolution line and run or refuse;
//! with no terminal, deny `channel_does_not_support_approval`.
//!
//! The prompt is drawn on and read from `/dev/tty`, never stdin/stdout, so
//! the command's own streams stay untouched.

use std::io::Write;
use std::process::Command;

use anyhow::{Context as _, Result};
use clap::Args;
use shellgate_policy::decision::{Context, Decision, Request};
use shellgate_policy::model::SHELL_TOOL;
use shellgate_policy::render::PromptView;
use shellgate_store::state::DecisionRecord;

use crate::cli::CallArgs;
use crate::commands::decide;
use crate::edge::{self, Edge, Homes, UsageError};

/// Exit status when the gate refuses to run the command.
pub const REFUSED: u8 = 126;

#[derive(Args, Debug)]
#[command(
    mut_arg("tool", |a| a.hide(true)),
    after_help = "\
What happens:
  allowed  the command runs with `bash -c` in the working directory (--cwd, else
           the current directory); stdin/stdout/stderr and the exit status are
           the command's
  ask      on a terminal the prompt is shown there: press the option's letter
           (a = first), or move with the arrow keys and press Enter; Ctrl-C
           denies. The answer is saved exactly as `shellgate decide` saves it.
           Without a terminal the call is denied (channel_does_not_support_approval)
  denied   nothing runs; the reason is printed on stderr; exit status 126

Examples:
  shellgate exec -- make build
  shellgate exec --project-dir ~/repos/app -- 'git status && npm test'
  shellgate exec --session s1 --cwd ~/repos/app -- ./deploy.sh staging"
)]
pub struct ExecArgs {
    #[command(flatten)]
    pub call: CallArgs,
}

pub fn run(homes: &Homes, a: &ExecArgs) -> Result<u8> {
    if a.call.tool != SHELL_TOOL {
        return Err(UsageError(format!(
            "exec runs shell commands only (--tool {} is not {SHELL_TOOL})",
            a.call.tool
        ))
        .into());
    }
    if a.call.command.is_empty() {
        return Err(UsageError(
            "no command given: use 'shellgate exec [OPTIONS] -- COMMAND'".to_string(),
        )
        .into());
    }
    let mut policy = edge::load_policy(homes)?;
    edge::offer_sandbox(homes, &mut policy);
    let mut edge = Edge::new(homes.clone());
    let ctx = edge::build_context(&mut edge, &a.call.flags())?;
    // The explicit working directory defaults to where exec was started:
    // the directory `bash -c` would have used.
    let working_directory = match &a.call.cwd {
        Some(c) => Some(edge::normalize_dir(c, &homes.user)),
        None => std::env::current_dir()
            .ok()
            .map(|c| shellgate_shell::paths::normalize(&c.to_string_lossy())),
    };
    let req = Request {
        tool: SHELL_TOOL.to_string(),
        command: a.call.command_text(),
        working_directory,
    };
    // Exec keeps a log of what it ran or refused; a home where the state
    // db cannot be created still evaluates (the log is best effort).
    if let Err(e) = edge.db(true) {
        eprintln!("shellgate: warning: no decision log: {e:#}");
    }
    let d = edge::evaluate(&mut edge, &policy, &req, &ctx)?;
    match d.decision {
        "allow" => {
            log(&mut edge, &ctx, &d, "allow", &d.reason);
            run_command(&d)
        }
        "deny" => {
            log(&mut edge, &ctx, &d, "deny", &d.reason);
            eprintln!("shellgate: denied: {} ({})", d.message, d.reason);
            Ok(REFUSED)
        }
        _ => ask(&mut edge, &ctx, &req, &d),
    }
}

/// An `ask`: prompt on the terminal, or deny without one.
fn ask(edge: &mut Edge, ctx: &Context, req: &Request, d: &Decision) -> Result<u8> {
    let Some(view) = PromptView::from_decision(d, "", "") else {
        anyhow::bail!("the decision asked without a prompt");
    };
    let Some(mut tty) = tty::open() else {
        let reason = "channel_does_not_support_approval";
        log(edge, ctx, d, "deny", reason);
        eprintln!(
            "shellgate: denied: {}, and no terminal is attached to ask a human ({reason})",
            d.message
        );
        if let Some(h) = &d.hint {
            eprintln!("{h}");
        }
        return Ok(REFUSED);
    };
    let option = tty.choose(&view)?.unwrap_or_else(|| "deny".to_string());
    let applied = decide::apply_answer(edge, ctx, req, d, &option, "exec")?;
    let mut out = applied.resolution.clone() + "\n";
    for s in &applied.skipped {
        out.push_str(&format!("Skipped (too broad): {s}\n"));
    }
    tty.write_all(out.as_bytes())?;
    tty.flush()?;
    if option == "deny" {
        eprintln!("shellgate: denied at the terminal: {}", d.display);
        if let Some(h) = &d.hint {
            eprintln!("{h}");
        }
        return Ok(REFUSED);
    }
    if option == "approve_once" {
        // The one-time approval is for this run: use it now rather than
        // leaving it for an identical call in the next ten minutes.
        if let Some(db) = edge.db(false)? {
            let _ = db.take_once(&ctx.session, &req.tool, &req.command, d.cwd.as_deref());
        }
    }
    run_command(d)
}

/// Log an evaluation outcome (best effort).
fn log(edge: &mut Edge, ctx: &Context, d: &Decision, decision: &str, reason: &str) {
    let Ok(Some(db)) = edge.db(false) else {
        return;
    };
    let matched: Vec<_> = d
        .candidates
        .iter()
        .filter_map(|c| c.grant.clone())
        .collect();
    let _ = db.log_decision(&DecisionRecord {
        time: String::new(),
        session: Some(ctx.session.clone()),
        tool: d.tool.clone(),
        command: d.command.clone(),
        cwd: d.cwd.clone(),
        decision: decision.to_string(),
        reason: reason.to_string(),
        candidates: serde_json::to_value(&d.candidates).unwrap_or_default(),
        matched_grant: (!matched.is_empty())
            .then(|| serde_json::to_value(&matched).unwrap_or_default()),
        source: "exec".into(),
    });
}

/// Run the evaluated command with `bash -c` in the resolved cwd, stdio
/// passed through; the exit status is the command's (128 + signal when it
/// was killed by one, as bash reports it). A `sandboxed` allow runs the
/// wrapped command of the decision instead (`shellgate sandbox … -- bash -c
/// COMMAND`, which records a failed run for the session).
fn run_command(d: &Decision) -> Result<u8> {
    let Some(cwd) = d.cwd.as_deref() else {
        eprintln!("shellgate: refused: the call has no working directory to run in");
        return Ok(REFUSED);
    };
    let mut cmd = match &d.sandbox {
        Some(sb) => {
            let Some((program, args)) = sb.argv.split_first() else {
                eprintln!("shellgate: refused: the sandboxed command is empty");
                return Ok(REFUSED);
            };
            let mut c = Command::new(program);
            c.args(args);
            c
        }
        None if d.reason == "sandboxed" => {
            eprintln!("shellgate: refused: a sandboxed allow without its command");
            return Ok(REFUSED);
        }
        None => {
            let mut c = Command::new("bash");
            c.arg("-c").arg(&d.command);
            c
        }
    };
    let status = match cmd.current_dir(cwd).status() {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            eprintln!("shellgate: cannot run the command: bash was not found");
            return Ok(127);
        }
        Err(e) => {
            return Err(e).with_context(|| format!("cannot run bash in {cwd}"));
        }
    };
    if let Some(code) = status.code() {
        return Ok((code & 0xff) as u8);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return Ok((128 + sig).clamp(0, 255) as u8);
        }
    }
    Ok(1)
}

/// The controlling terminal: drawing the prompt and reading keys.
mod tty {
    use std::fs::File;
    use std::io::{BufRead, Read, Write};

    use anyhow::Result;
    use shellgate_policy::prompt;
    use shellgate_policy::render::{self, PromptView};

    pub struct Tty {
        file: File,
    }

    impl Write for Tty {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.file.write(buf)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            self.file.flush()
        }
    }

    /// The terminal, when one can be opened.
    #[cfg(unix)]
    pub fn open() -> Option<Tty> {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .ok()
            .map(|file| Tty { file })
    }

    #[cfg(not(unix))]
    pub fn open() -> Option<Tty> {
        None
    }

    /// A key of the menu.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Key {
        Pick(usize),
        Up,
        Down,
        Enter,
        Cancel,
        Other,
    }

    /// Decode the keys in one read from a raw terminal.
    pub fn keys(buf: &[u8]) -> Vec<Key> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < buf.len() {
            let b = buf[i];
            i += 1;
            out.push(match b {
                0x1b => {
                    // CSI / SS3 sequences: ESC [ A, ESC O B, ESC [ 1 ; 5 C …
                    if i + 1 < buf.len() && (buf[i] == b'[' || buf[i] == b'O') {
                        i += 1;
                        let start = i;
                        while i < buf.len() && !(0x40..=0x7e).contains(&buf[i]) {
                            i += 1;
                        }
                        if i < buf.len() {
                            let fin = buf[i];
                            i += 1;
                            match (i - 1 == start, fin) {
                                (true, b'A') => Key::Up,
                                (true, b'B') => Key::Down,
                                _ => Key::Other,
                            }
                        } else {
                            Key::Other
                        }
                    } else {
                        Key::Other
                    }
                }
                0x03 | 0x04 => Key::Cancel,
                b'\r' | b'\n' => Key::Enter,
                b'a'..=b'z' => Key::Pick((b - b'a') as usize),
                b'A'..=b'Z' => Key::Pick((b - b'A') as usize),
                b'1'..=b'9' => Key::Pick((b - b'1') as usize),
                _ => Key::Other,
            });
        }
        out
    }

    const FOOTER_PREFIX: &str = "Choose ";

    fn footer(n: usize) -> String {
        let last = render::option_letter(n.saturating_sub(1));
        format!("{FOOTER_PREFIX}a-{last}, or arrows and Enter (Ctrl-C denies): ")
    }

    impl Tty {
        /// Show the prompt and return the chosen option key; `None` when
        /// the human cancelled (Ctrl-C, Ctrl-D, end of input): a deny.
        pub fn choose(&mut self, view: &PromptView) -> Result<Option<String>> {
            let offered: Vec<String> = view.offered().iter().map(|s| s.to_string()).collect();
            if offered.is_empty() {
                return Ok(None);
            }
            let mut text = String::from("\n");
            text.push_str(&render::terminal_body(view));
            text.push('\n');
            self.file.write_all(text.as_bytes())?;
            match raw::Guard::enter(self.file.try_clone()?) {
                Some(guard) => {
                    let r = self.menu(&offered);
                    drop(guard);
                    r
                }
                None => self.line_mode(&offered),
            }
        }

        fn draw(&mut self, offered: &[String], selected: usize, redraw: bool) -> Result<()> {
            let mut s = String::new();
            if redraw {
                s.push_str(&format!("\r\x1b[{}A", offered.len()));
            }
            for (i, key) in offered.iter().enumerate() {
                s.push_str("\x1b[2K");
                s.push_str(&render::terminal_option_line(i, key, i == selected));
                s.push_str("\r\n");
            }
            s.push_str("\x1b[2K");
            s.push_str(&footer(offered.len()));
            self.file.write_all(s.as_bytes())?;
            self.file.flush()?;
            Ok(())
        }

        /// Raw mode: letters pick at once, arrows move, Enter picks.
        fn menu(&mut self, offered: &[String]) -> Result<Option<String>> {
            let mut selected = 0usize;
            self.draw(offered, selected, false)?;
            let mut buf = [0u8; 64];
            loop {
                let n = match self.file.read(&mut buf) {
                    Ok(0) => return self.finish(offered, None),
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e.into()),
                };
                for key in keys(&buf[..n]) {
                    match key {
                        Key::Pick(i) if i < offered.len() => {
                            selected = i;
                            self.draw(offered, selected, true)?;
                            return self.finish(offered, Some(selected));
                        }
                        Key::Up => {
                            selected = selected.checked_sub(1).unwrap_or(offered.len() - 1);
                            self.draw(offered, selected, true)?;
                        }
                        Key::Down => {
                            selected = (selected + 1) % offered.len();
                            self.draw(offered, selected, true)?;
                        }
                        Key::Enter => return self.finish(offered, Some(selected)),
                        Key::Cancel => return self.finish(offered, None),
                        Key::Pick(_) | Key::Other => {
                            self.file.write_all(b"\x07")?;
                        }
                    }
                }
            }
        }

        fn finish(&mut self, offered: &[String], pick: Option<usize>) -> Result<Option<String>> {
            let answer = match pick {
                Some(i) => prompt::label(&offered[i]).unwrap_or("?").to_string(),
                None => "cancelled".to_string(),
            };
            self.file.write_all(format!("{answer}\r\n").as_bytes())?;
            self.file.flush()?;
            Ok(pick.map(|i| offered[i].clone()))
        }

        /// Fallback when the terminal cannot be put in raw mode: a text
        /// reply per line (§7.4), three tries.
        fn line_mode(&mut self, offered: &[String]) -> Result<Option<String>> {
            let mut lines = String::new();
            for (i, key) in offered.iter().enumerate() {
                lines.push_str(&render::terminal_option_line(i, key, false));
                lines.push('\n');
            }
            self.file.write_all(lines.as_bytes())?;
            let mut reader = std::io::BufReader::new(self.file.try_clone()?);
            for _ in 0..3 {
                self.file.write_all(footer(offered.len()).as_bytes())?;
                self.file.flush()?;
                let mut line = String::new();
                if reader.read_line(&mut line)? == 0 {
                    return Ok(None);
                }
                if let Some(k) = prompt::parse_reply(&line, offered) {
                    return Ok(Some(k));
                }
                self.file.write_all(b"Not an offered option.\n")?;
            }
            Ok(None)
        }
    }

    #[cfg(unix)]
    mod raw {
        use std::fs::File;

        use rustix::termios::{
            tcgetattr, tcsetattr, InputModes, LocalModes, OptionalActions, SpecialCodeIndex,
            Termios,
        };

        /// Raw-ish mode (no echo, no line buffering, no signals from
        /// Ctrl-C: it arrives as a key and denies); restored on drop.
        pub struct Guard {
            file: File,
            saved: Termios,
        }

        impl Guard {
            pub fn enter(file: File) -> Option<Guard> {
                let saved = tcgetattr(&file).ok()?;
                let mut t = saved.clone();
                t.local_modes &= !(LocalModes::ICANON
                    | LocalModes::ECHO
                    | LocalModes::ISIG
                    | LocalModes::IEXTEN);
                t.input_modes &= !InputModes::IXON;
                t.special_codes[SpecialCodeIndex::VMIN] = 1;
                t.special_codes[SpecialCodeIndex::VTIME] = 0;
                tcsetattr(&file, OptionalActions::Now, &t).ok()?;
                Some(Guard { file, saved })
            }
        }

        impl Drop for Guard {
            fn drop(&mut self) {
                let _ = tcsetattr(&self.file, OptionalActions::Now, &self.saved);
            }
        }
    }

    #[cfg(not(unix))]
    mod raw {
        use std::fs::File;

        pub struct Guard;

        impl Guard {
            pub fn enter(_: File) -> Option<Guard> {
                None
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn decodes_keys() {
            assert_eq!(keys(b"c"), vec![Key::Pick(2)]);
            assert_eq!(keys(b"C"), vec![Key::Pick(2)]);
            assert_eq!(keys(b"3"), vec![Key::Pick(2)]);
            assert_eq!(
                keys(b"\x1b[A\x1b[B\r"),
                vec![Key::Up, Key::Down, Key::Enter]
            );
            assert_eq!(keys(b"\x1bOB"), vec![Key::Down]);
            assert_eq!(keys(b"\x03"), vec![Key::Cancel]);
            assert_eq!(keys(b"\x04"), vec![Key::Cancel]);
            assert_eq!(keys(b"\x1b"), vec![Key::Other]);
            assert_eq!(keys(b"\x1b[1;5C"), vec![Key::Other]);
            assert_eq!(keys(b"\x1b[1;5Cb"), vec![Key::Other, Key::Pick(1)]);
        }
    }
}
