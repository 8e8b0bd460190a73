//! The one-line display text a human reads (SPEC §3.5).

use crate::syntax::*;
use crate::word::Word;

/// Build the display text of `command`, given its parse when it parsed.
pub fn display(command: &str, script: Option<&Script>) -> String {
    if command.trim().is_empty() {
        return "(empty command)".to_string();
    }
    let text = if !command.contains(['\r', '\n']) {
        command.to_string()
    } else {
        match script.filter(|s| rebuildable(s)) {
            Some(s) => rebuild(s),
            None => flatten_line_endings(command),
        }
    };
    escape(&text)
}

/// Rule 5: control, bidi, line-separating and invisible formatting
/// characters become visible escapes; tabs become spaces.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c == '\t' {
            out.push(' ');
        } else if must_escape(c) {
            out.push_str(&format!("\\u{{{:04X}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// Characters that could hide or reorder what a human reads.
pub fn must_escape(c: char) -> bool {
    let u = c as u32;
    (u < 0x20 && c != '\t')
        || u == 0x7F
        || (0x80..=0x9F).contains(&u)
        || matches!(
            u,
            0x00AD | 0x061C | 0x200B..=0x200F | 0x2028 | 0x2029 | 0x202A..=0x202E | 0x2060..=0x2064
                | 0x2066..=0x2069 | 0xFEFF
        )
}

fn flatten_line_endings(s: &str) -> String {
    s.replace("\r\n", " ").replace(['\r', '\n'], " ")
}

/// Rule 3 applies only to plain lists of simple commands.
fn rebuildable(s: &Script) -> bool {
    s.items.iter().all(|item| {
        std::iter::once(&item.first)
            .chain(item.rest.iter().map(|(_, p)| p))
            .all(|p| {
                p.elems.iter().all(|e| match &e.cmd {
                    Command::Simple(simple) => simple
                        .redirects
                        .iter()
                        .all(|r| !matches!(r.kind, RedirKind::HereDoc | RedirKind::HereString)),
                    _ => false,
                })
            })
    })
}

fn rebuild(s: &Script) -> String {
    let mut out = String::new();
    let n = s.items.len();
    for (i, item) in s.items.iter().enumerate() {
        out.push_str(&pipeline(&item.first));
        for (op, p) in &item.rest {
            out.push_str(match op {
                AndOr::And => " && ",
                AndOr::Or => " || ",
            });
            out.push_str(&pipeline(p));
        }
        if item.background {
            out.push_str(if i + 1 == n { " &" } else { " & " });
        } else if i + 1 < n {
            out.push_str("; ");
        }
    }
    out
}

fn pipeline(p: &Pipeline) -> String {
    let mut out = String::new();
    match p.timed {
        Some(true) => out.push_str("time -p "),
        Some(false) => out.push_str("time "),
        None => {}
    }
    if p.negated {
        out.push_str("! ");
    }
    for (i, e) in p.elems.iter().enumerate() {
        if let Command::Simple(s) = &e.cmd {
            out.push_str(&simple(s));
        }
        if i + 1 < p.elems.len() {
            out.push_str(if e.stderr_too { " |& " } else { " | " });
        }
    }
    out
}

fn simple(s: &Simple) -> String {
    let mut parts: Vec<String> = Vec::new();
    for a in &s.assignments {
        parts.push(word_text(&a.raw));
    }
    for w in &s.words {
        parts.push(word_text(&w.raw));
    }
    for r in &s.redirects {
        parts.push(match &r.target {
            RedirTarget::File(w) => format!("{} {}", r.op, word_text(&w.raw)),
            _ => r.render(),
        });
    }
    parts.join(" ")
}

/// A word's raw text, or its size summary when it spans lines.
fn word_text(raw: &str) -> String {
    if !raw.contains(['\r', '\n']) {
        return raw.to_string();
    }
    summary(raw)
}

/// `(N lines, M chars)` of a multi-line word (§3.5 rule 3).
pub fn summary(raw: &str) -> String {
    let inner = strip_outer_quotes(raw);
    let normalized = inner.replace("\r\n", "\n").replace('\r', "\n");
    let lines = normalized.matches('\n').count() + 1;
    let chars = normalized.chars().count();
    format!("({lines} lines, {chars} chars)")
}

fn strip_outer_quotes(raw: &str) -> &str {
    for q in ['"', '\''] {
        if raw.len() >= 2 && raw.starts_with(q) && raw.ends_with(q) {
            return &raw[1..raw.len() - 1];
        }
    }
    raw
}

/// Display of a single word (used by explain output).
pub fn word(w: &Word) -> String {
    escape(&word_text(&w.raw))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;

    fn d(cmd: &str) -> String {
        display(cmd, parse(cmd, 0).ok().as_ref())
    }

    #[test]
    fn rules() {
        assert_eq!(d("   "), "(empty command)");
        assert_eq!(d("git fetch\ngit status"), "git fetch; git status");
        assert_eq!(d("echo \"a\r\nb\""), "echo (2 lines, 3 chars)");
        assert_eq!(
            d("cat <<'EOF'\nbody\nEOF\ngit push"),
            "cat <<'EOF' body EOF git push"
        );
        assert_eq!(d("make serve &\nmake watch &"), "make serve & make watch &");
        assert_eq!(
            d("sleep 5 & wait\ngit status"),
            "sleep 5 & wait; git status"
        );
        assert_eq!(
            d("make build |& tee build.log\nmake test"),
            "make build |& tee build.log; make test"
        );
        assert_eq!(d("echo \"\u{202e}x\""), "echo \"\\u{202E}x\"");
        assert_eq!(d("ls\t-la"), "ls -la");
    }
}
