//! `shellgate explain`: a readable breakdown of one decision.

use anyhow::Result;
use shellgate_policy::decision::Request;
use shellgate_shell::analyze::{analyze, Env};
use shellgate_shell::display;

use crate::cli::CallArgs;
use crate::edge::{self, Edge, Homes};

/// ANSI colour when stdout is a terminal and `NO_COLOR` is unset.
struct Paint(bool);

impl Paint {
    fn detect() -> Paint {
        use std::io::IsTerminal;
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Paint(std::io::stdout().is_terminal() && !no_color)
    }

    fn wrap(&self, code: &str, text: &str) -> String {
        if self.0 {
            format!("\u{1b}[{code}m{text}\u{1b}[0m")
        } else {
            text.to_string()
        }
    }

    fn decision(&self, d: &str) -> String {
        let code = match d {
            "allow" => "1;32",
            "ask" => "1;33",
            _ => "1;31",
        };
        self.wrap(code, d)
    }

    fn status(&self, st: &str) -> String {
        let code = match st {
            "unapproved" => "33",
            "safe" | "granted" | "granted_session" => "32",
            _ => "2",
        };
        self.wrap(code, st)
    }
}

pub fn run(homes: &Homes, a: &CallArgs) -> Result<u8> {
    let paint = Paint::detect();
    let mut policy = edge::load_policy(homes)?;
    edge::offer_sandbox(homes, &mut policy);
    let mut edge = Edge::new(homes.clone());
    edge.consume_once = false;
    let ctx = edge::build_context(&mut edge, &a.flags())?;
    let req = Request {
        tool: a.tool.clone(),
        command: a.command_text(),
        working_directory: a.cwd.as_ref().map(|c| edge::normalize_dir(c, &homes.user)),
    };
    let d = edge::evaluate(&mut edge, &policy, &req, &ctx)?;
    let mut s = String::new();
    s.push_str(&format!("Command: {}\n", d.display));
    s.push_str(&format!(
        "Context: session {} ({}, {}), cwd {}\n",
        ctx.session,
        ctx.audience.as_str(),
        ctx.channel.as_str(),
        d.cwd.as_deref().unwrap_or("(none)")
    ));
    if req.tool == "shell_execute"
        && req.command.len() <= shellgate_policy::decision::MAX_COMMAND_BYTES
    {
        let an = analyze(
            &req.command,
            d.cwd.as_deref(),
            &Env {
                home: ctx.home.clone(),
                ..Default::default()
            },
        );
        s.push_str("Simple commands:\n");
        for inv in &an.invocations {
            let words: Vec<String> = inv.argv.iter().map(display::word).collect();
            let mut line = format!("  - {}", words.join(" "));
            if !inv.wrappers.is_empty() {
                line.push_str(&format!("  (unwrapped from {})", inv.wrappers.join(", ")));
            }
            if !inv.gated {
                line.push_str("  (checked for hard deny only)");
            }
            if let Some(c) = &inv.cwd {
                line.push_str(&format!("  [in {c}]"));
            }
            s.push_str(&line);
            s.push('\n');
        }
    }
    if d.complex {
        s.push_str(&format!("Complex: {}\n", d.complex_reasons.join(", ")));
    }
    if !d.candidates.is_empty() {
        s.push_str("Candidates:\n");
        for c in &d.candidates {
            let dir = c.directory.as_deref().unwrap_or("(no directory)");
            let status = serde_json::to_value(c.status)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            let mut line = format!("  - {} in {dir}: {}", c.verb, paint.status(&status));
            if let Some(g) = &c.grant {
                match &g.directory {
                    Some(gd) => line.push_str(&format!(" (grant: {} in {gd})", g.verb)),
                    None => line.push_str(&format!(" (grant: {} anywhere)", g.verb)),
                }
            }
            s.push_str(&line);
            s.push('\n');
        }
    }
    s.push_str(&format!(
        "Decision: {} ({}): {}\n",
        paint.decision(d.decision),
        d.reason,
        d.message
    ));
    if let Some(p) = &d.prompt {
        s.push_str(&format!("Prompt: {}\n", p.header));
        for b in &p.bullets {
            s.push_str(&format!("  • {b}\n"));
        }
        if let Some(h) = &p.hint {
            s.push_str(&format!("  {h}\n"));
        }
        if let Some(o) = &d.options {
            let labels: Vec<&str> = o
                .iter()
                .filter_map(|k| shellgate_policy::prompt::label(k))
                .collect();
            s.push_str(&format!("Options: {}\n", labels.join(" / ")));
        }
    }
    if let Some(sb) = &d.sandbox {
        s.push_str(&format!(
            "Sandbox: profile {}, writable project {}\nRuns as: {}\n",
            sb.profile, sb.project_dir, sb.command
        ));
    } else if let Some(why) = d.not_sandboxed.as_deref().filter(|_| d.decision == "ask") {
        s.push_str(&format!(
            "Sandbox: not offered: {why}
"
        ));
    }
    if let Some(h) = &d.hint {
        s.push_str(&format!("{h}\n"));
    }
    print!("{s}");
    Ok(d.exit_code() as u8)
}
